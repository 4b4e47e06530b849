#!/usr/bin/env bash
# TRACE-mini v2, the base agent on a GPU machine without Node (the device of the tool library): several runs at once,
# each `trace run CONFIG --until analyze` (TRACE_UNTIL) in its own run directory with a patch deep-merged into it — by default
# three base-training seeds of TRACE_CONFIG (initTiny.seed and target.seed; deterministic training), or
# TRACE_RUNS='[{"name": …, "config": "configs/….json" (default TRACE_CONFIG), "patch": {…}, "until": STAGE or "", "from": NAME, "after": NAME}, …]'
# ("from": a paired variant of run NAME, started once it is done on a copy of its run directory; "after": started once
# run NAME is done, in its own run directory): SFT on the expert's
# demonstrations, the mechanics on held-out demonstrations, the base rollouts with the failures attributed to the
# designed deficits, and the reference analysis. Prints one table; archives each run's base/sft.json (mechanics),
# base/failures.json, eval/base-failures.json and analysis report into $OUT, and the merged base checkpoints of the runs named in TRACE_KEEP_MODELS
# (cast to TRACE_KEEP_DTYPE first when set, e.g. bfloat16 as the shipped base).
#
# The runs are started in a process session of their own, so they outlive one device call (10 minutes at most): a
# call waits up to TRACE_WAIT seconds for them and reports what has finished; calling the script again on the same
# (still warm) machine starts nothing new and waits again. TRACE_RUN_LIMIT caps each run (default 1500 s).
#   here:  TRACE_WITH_TAU2=0 bash scripts/device-bundle.sh && bash scripts/worker-wheels.sh
#   there: TRACE_WAIT=540 bash scripts/mini-v2-base.sh   (carry .device)
set -uo pipefail
cd "$(dirname "$0")/.."
CONFIG="${TRACE_CONFIG:-configs/mini-v2-gpu.json}"
# The default: the shipped recipe's three base-training seeds as item 1 reads them, with deterministic training (the
# recipe; without it, seed 1 read 97.9% exact ids in the thirty-third session, docs/trace-mini-v2.md).
DEFAULT_RUNS='[{"name":"s0","patch":{"model":{"initTiny":{"seed":0}},"target":{"seed":0},"worker":{"deterministic":true}}},{"name":"s1","patch":{"model":{"initTiny":{"seed":1}},"target":{"seed":1},"worker":{"deterministic":true}}},{"name":"s2","patch":{"model":{"initTiny":{"seed":2}},"target":{"seed":2},"worker":{"deterministic":true}}}]'
# Set but empty (say, a command substitution that failed on a machine without Node) is an error, not the default runs.
if [ "${TRACE_RUNS+set}" = set ] && [ -z "$TRACE_RUNS" ]; then echo "mini-v2-base: TRACE_RUNS is set but empty" >&2; exit 1; fi
RUNS="${TRACE_RUNS:-$DEFAULT_RUNS}"
WAIT="${TRACE_WAIT:-${TRACE_TIME_LIMIT:-540}}"
RUN_LIMIT="${TRACE_RUN_LIMIT:-1500}"
# The last stage each run goes to (default analyze); TRACE_UNTIL= (empty) runs every stage, compare included.
UNTIL="${TRACE_UNTIL-analyze}"
if [ ! -x .device/nodebin/node ]; then
  if [ -d dist ]; then tar -xJf .device/bundle.tar.xz --anchored --exclude=dist; else tar -xJf .device/bundle.tar.xz; fi
fi
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}" PATH="$PWD/.device/nodebin:$PATH" TRACE_PYTHON="${TRACE_PYTHON:-$(command -v python3)}"
# Every run of the sweep checked against the pipeline's configuration schema before anything starts: a misspelt field
# or a "from" naming no run ends the call here, in one line, rather than in a run's log minutes later.
node --input-type=module -e '
import { parseSweepRuns, checkSweep, checkKeptModels } from "./dist/pipeline/sweep-runs.js";
try { const runs = parseSweepRuns(JSON.parse(process.argv[1]), "TRACE_RUNS"); checkSweep(runs, process.argv[2]); checkKeptModels(runs, process.argv[3]); }
catch (error) { console.error(`mini-v2-base: ${error instanceof Error ? error.message : String(error)}`); process.exit(1); }' "$RUNS" "$CONFIG" "${TRACE_KEEP_MODELS:-}" || exit 1
bash scripts/worker-wheels.sh install "$TRACE_PYTHON" || exit 1
if [ -d .device/python ]; then export PYTHONPATH="$PWD/.device/python${PYTHONPATH:+:$PYTHONPATH}"; fi
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
OUT="${OUT:-/tmp/mini-v2-out}"
mkdir -p "$OUT"
# At most 8 files come back from a device call: the table, one archive of every run's logs and results, the checkpoints.
WORK=/tmp/mini-v2-results
mkdir -p "$WORK"
NAMES=$(node -e 'for (const run of JSON.parse(process.argv[1])) console.log(run.name)' "$RUNS")
for name in $NAMES; do
  [ -e "$WORK/started-$name" ] && continue
  # The run's configuration: its base configuration with its patch deep-merged in (src/pipeline/sweep-runs.ts).
  node --input-type=module -e '
import { writeFileSync } from "node:fs";
import { parseSweepRuns, resolveSweepConfig } from "./dist/pipeline/sweep-runs.js";
const [runs, name, config, out] = process.argv.slice(1);
writeFileSync(out, JSON.stringify(resolveSweepConfig(parseSweepRuns(JSON.parse(runs), "TRACE_RUNS"), name, config), null, 2));' "$RUNS" "$name" "$CONFIG" "/tmp/mini-v2-$name.json"
  touch "$WORK/started-$name"
  # A run's own "until" (a stage name, or "" for every stage) overrides TRACE_UNTIL.
  until=$(node -e 'const run = JSON.parse(process.argv[1]).find((run) => run.name === process.argv[2]); console.log(run.until ?? process.argv[3])' "$RUNS" "$name" "$UNTIL")
  # A paired variant ("from": NAME): once that run is done, a copy of its run directory is compared again with this
  # run's configuration, TRACE and merge re-evaluated on the same trained adapters (scripts/paired-variant-copy.sh).
  from=$(node -e 'const run = JSON.parse(process.argv[1]).find((run) => run.name === process.argv[2]); console.log(run.from ?? "")' "$RUNS" "$name")
  prepare=""
  [ -n "$from" ] && prepare="while [ ! -e $WORK/done-$from ]; do sleep 5; done; bash scripts/paired-variant-copy.sh runs/mini-v2-$from runs/mini-v2-$name;"
  # A run "after" NAME starts once that run is done, in its own run directory (say, on the base it trained:
  # model.path runs/mini-v2-NAME/model).
  after=$(node -e 'const run = JSON.parse(process.argv[1]).find((run) => run.name === process.argv[2]); console.log(run.after ?? "")' "$RUNS" "$name")
  [ -n "$after" ] && prepare="$prepare while [ ! -e $WORK/done-$after ]; do sleep 5; done;"
  setsid bash -c "$prepare timeout $RUN_LIMIT node bin/trace.js run /tmp/mini-v2-$name.json --run-dir runs/mini-v2-$name ${until:+--until $until} > $WORK/log-$name.txt 2>&1; echo \"exit \$?\" >> $WORK/log-$name.txt; touch $WORK/done-$name" < /dev/null > /dev/null 2>&1 &
done
started=$(date +%s)
while :; do
  pending=0
  for name in $NAMES; do [ -e "$WORK/done-$name" ] || pending=$((pending + 1)); done
  [ "$pending" -eq 0 ] && break
  if [ $(($(date +%s) - started)) -ge "$WAIT" ]; then echo "$pending run(s) still going: call again on this machine to wait for them"; break; fi
  sleep 10
done
for name in $NAMES; do echo "== $name"; grep -v "finished .* failed .* skipped" "$WORK/log-$name.txt" | grep -v "Writing model" | tail -n 8; done
node -e '
const fs = require("fs");
const rows = [];
for (const seed of process.argv.slice(1)) {
  const dir = `runs/mini-v2-${seed}`;
  const read = (file) => { try { return JSON.parse(fs.readFileSync(`${dir}/${file}`, "utf8")); } catch { return null; } };
  const sft = read("base/sft.json"), failures = read("base/failures.json"), progress = read("base/sft-progress.json"), heldOut = read("eval/base-failures.json"), results = read("eval/results.json");
  const m = sft?.mechanics;
  const pct = (x) => (x === undefined || x === null ? "-" : (100 * x).toFixed(1));
  const losses = sft?.losses ?? progress?.losses;
  rows.push([seed, losses ? `${losses.at(-1).toFixed(3)} (${losses.length})` : "-", sft ? sft.seconds.toFixed(0) : "-", m ? pct(m.toolCallValidity) : "-", m ? pct(m.identifierCopying) : "-", m?.sampled ? `${pct(m.sampled.identifierCopying)} (${m.sampled.episodesWithUnseenIdentifier}/${m.sampled.episodes})` : "-", m ? pct(m.sameAction / m.turns) : "-",
    failures ? `${failures.episodes - failures.failed}/${failures.episodes}` : "-", failures ? pct(failures.explainedShare) : "-",
    failures ? Object.entries(failures.byDeficit).map(([k, v]) => `${k} ${v}`).join(", ") + `, other ${failures.other}` : "-",
    heldOut ? `${pct(heldOut.explainedShare)} (${heldOut.explained}/${heldOut.failed})` : "-",
    results ? `${results.overall.base.passed} → ${results.overall.trace.passed} of ${results.overall.base.total}` : "-",
    sft?.weightsSha256 ? `${sft.weightsSha256.slice(0, 16)}${sft.deterministic ? " (deterministic)" : ""}` : "-"]);
}
console.log("| run | SFT loss (steps) | base stage s | well-formed calls % | exact ids % | sampled: exact ids % (episodes with an unseen id) | same action % | base passed | failures explained % | by deficit | held-out failures explained % | evaluation: base → TRACE | weights sha256 |");
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const row of rows) console.log(`| ${row.join(" | ")} |`);
' $NAMES | tee "$OUT/table.md"
for name in $NAMES; do
  cp "/tmp/mini-v2-$name.json" "$WORK/$name-config.json"
  # TRACE_KEEP_EPISODES=1: the evaluate stage's episodes too (every held-out conversation, base and routed).
  for file in base/sft.json base/sft-progress.json base/failures.json eval/base-failures.json eval/trace-failures.json analysis/reference/report.md environments/index.json eval/routing.json eval/report.md compare/comparison.md compare/comparison.csv ${TRACE_KEEP_EPISODES:+eval/episodes.sqlite}; do
    [ -e "runs/mini-v2-$name/$file" ] && cp "runs/mini-v2-$name/$file" "$WORK/$name-$(echo "$file" | tr / _)"
  done
  # Every GRPO run's per-iteration metrics (the train stage's adapters, the comparison's GRPO-based methods; a few kB
  # each), kept in the run directory's own layout under NAME-run/ for `npm run bench:training-episodes`.
  for file in runs/mini-v2-"$name"/adapters/*/metrics.jsonl runs/mini-v2-"$name"/compare/seed-*/*/*/metrics.jsonl; do
    [ -e "$file" ] || continue
    relative=${file#runs/mini-v2-"$name"/}
    mkdir -p "$WORK/$name-run/$(dirname "$relative")" && cp "$file" "$WORK/$name-run/$relative"
  done
  # Each compared method's result per seed (budget, snapshots, notes such as GEPA's pool and own-prompt score).
  for file in runs/mini-v2-"$name"/compare/seed-*/*/result.json; do
    [ -e "$file" ] && cp "$file" "$WORK/$name-$(echo "${file#runs/mini-v2-"$name"/}" | tr / _)"
  done
done
tar -czf "$OUT/mini-v2-results.tar.gz" -C "$WORK" --exclude='started-*' --exclude='done-*' .
# TRACE_KEEP_DTYPE=bfloat16 casts a kept checkpoint's weights first, as the shipped base was cast (half the size back).
for name in ${TRACE_KEEP_MODELS:-}; do
  [ -e "runs/mini-v2-$name/model/model.safetensors" ] || continue
  if [ -z "${TRACE_KEEP_DTYPE:-}" ]; then tar -czf "$OUT/model-$name.tar.gz" -C "runs/mini-v2-$name" model; continue; fi
  keep="/tmp/mini-v2-keep-$name"
  rm -rf "$keep" && mkdir -p "$keep" && cp -r "runs/mini-v2-$name/model" "$keep/model"
  "$TRACE_PYTHON" - "$keep/model" "$TRACE_KEEP_DTYPE" <<'PY' || exit 1
import json, sys
import torch
from safetensors.torch import load_file, save_file
directory, dtype = sys.argv[1], sys.argv[2]
weights = f"{directory}/model.safetensors"
save_file({name: tensor.to(getattr(torch, dtype)) for name, tensor in load_file(weights).items()}, weights, metadata={"format": "pt"})
with open(f"{directory}/config.json") as file:
    config = json.load(file)
config["dtype"] = dtype
with open(f"{directory}/config.json", "w") as file:
    json.dump(config, file, indent=2)
PY
  tar -czf "$OUT/model-$name.tar.gz" -C "$keep" model
done
