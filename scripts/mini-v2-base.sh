#!/usr/bin/env bash
# TRACE-mini v2, the base agent on a GPU machine without Node (the device of the tool library): three base-training
# seeds at once, each `trace run CONFIG --until analyze` in its own run directory (initTiny.seed and target.seed set to
# the seed): SFT on the expert's demonstrations, the mechanics on held-out demonstrations, the base rollouts with the
# failures attributed to the designed deficits, and the reference analysis. Prints one table; copies each seed's
# base/sft.json (mechanics), base/failures.json and analysis report into $OUT.
#   here:  WITH_TAU2=0 bash scripts/device-bundle.sh && bash scripts/worker-wheels.sh
#   there: LIMIT=540 bash scripts/mini-v2-base.sh   (carry .device)
set -uo pipefail
cd "$(dirname "$0")/.."
CONFIG="${CONFIG:-configs/mini-v2-gpu.json}"
SEEDS="${SEEDS:-0 1 2}"
LIMIT="${LIMIT:-540}"
if [ ! -x .device/nodebin/node ]; then
  if [ -d dist ]; then tar -xJf .device/bundle.tar.xz --anchored --exclude=dist; else tar -xJf .device/bundle.tar.xz; fi
fi
export PATH="$PWD/.device/nodebin:$PATH" TRACE_PYTHON="${TRACE_PYTHON:-$(command -v python3)}"
bash scripts/worker-wheels.sh install "$TRACE_PYTHON" || exit 1
if [ -d .device/python ]; then export PYTHONPATH="$PWD/.device/python${PYTHONPATH:+:$PYTHONPATH}"; fi
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
OUT="${OUT:-/tmp/mini-v2-out}"
mkdir -p "$OUT"
# At most 8 files come back from a device call: the table, and one archive of every seed's logs and results.
WORK=/tmp/mini-v2-results
mkdir -p "$WORK"
for seed in $SEEDS; do
  node -e 'const fs=require("fs"); const [file, seed, out] = process.argv.slice(1); const c = JSON.parse(fs.readFileSync(file, "utf8")); c.model.initTiny.seed = Number(seed); c.target.seed = Number(seed); fs.writeFileSync(out, JSON.stringify(c, null, 2));' "$CONFIG" "$seed" "/tmp/mini-v2-s$seed.json"
  (timeout "$LIMIT" node bin/trace.js run "/tmp/mini-v2-s$seed.json" --run-dir "runs/mini-v2-s$seed" --until analyze > "$WORK/log-s$seed.txt" 2>&1; echo "exit $?" >> "$WORK/log-s$seed.txt") &
done
wait
for seed in $SEEDS; do tail -n 25 "$WORK/log-s$seed.txt"; done
node -e '
const fs = require("fs");
const rows = [];
for (const seed of process.argv.slice(1)) {
  const dir = `runs/mini-v2-s${seed}`;
  const read = (file) => { try { return JSON.parse(fs.readFileSync(`${dir}/${file}`, "utf8")); } catch { return null; } };
  const sft = read("base/sft.json"), failures = read("base/failures.json");
  const m = sft?.mechanics;
  const pct = (x) => (x === undefined || x === null ? "-" : (100 * x).toFixed(1));
  rows.push([seed, sft ? sft.losses.at(-1).toFixed(3) : "-", m ? pct(m.toolCallValidity) : "-", m ? pct(m.identifierCopying) : "-", m ? pct(m.sameAction / m.turns) : "-",
    failures ? `${failures.episodes - failures.failed}/${failures.episodes}` : "-", failures ? pct(failures.explainedShare) : "-",
    failures ? Object.entries(failures.byDeficit).map(([k, v]) => `${k} ${v}`).join(", ") + `, other ${failures.other}` : "-"]);
}
console.log("| seed | final SFT loss | well-formed calls % | exact ids % | same action % | base passed | failures explained % | by deficit |");
console.log("|---|---|---|---|---|---|---|---|");
for (const row of rows) console.log(`| ${row.join(" | ")} |`);
' $SEEDS | tee "$OUT/table.md"
for seed in $SEEDS; do
  for file in base/sft.json base/failures.json analysis/reference/report.md; do
    [ -e "runs/mini-v2-s$seed/$file" ] && cp "runs/mini-v2-s$seed/$file" "$WORK/s$seed-$(echo "$file" | tr / _)"
  done
done
tar -czf "$OUT/mini-v2-results.tar.gz" -C "$WORK" .
