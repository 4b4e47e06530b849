#!/usr/bin/env bash
# TRACE-mini diagnostic: how each capability adapter does on the multi-part (composite) evaluation tasks. Runs (or
# resumes) `trace run CONFIG --until evaluate` with a patch, then re-runs the evaluate stage once per routing option with
# every composite evaluation task routed to that option (the other tasks keep the router's choice), and prints one
# table: the pass rate per kind of task for the router's own routing and for each forced option. The forced routings
# use the tasks' families, which no router sees: an upper bound on what routing one adapter per task can reach.
#   here:   TRACE_WITH_TAU2=0 bash scripts/device-bundle.sh && bash scripts/worker-wheels.sh
#   there:  TRACE_PATCH='{"model":{"path":"models/mini-v2-base"},"training":{"iterations":24}}' bash scripts/composite-routing-check.sh
#   on this machine (built, worker set up): TRACE_CONFIG=configs/mini-v2-cpu.json RUN_DIR=/tmp/r bash scripts/composite-routing-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG="${TRACE_CONFIG:-configs/mini-v2-gpu.json}"
PATCH="${TRACE_PATCH:-{\}}"
RUN="${RUN_DIR:-runs/composite-routing}"
OUT="${OUT:-/tmp/composite-routing-out}"
# Without Node (the device): unpack the bundle and install the worker's wheels once.
if ! command -v node > /dev/null && [ ! -x .device/nodebin/node ]; then
  tar -xJf .device/bundle.tar.xz
  export PATH="$PWD/.device/nodebin:$PATH" OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}" TRACE_PYTHON="${TRACE_PYTHON:-$(command -v python3)}"
  bash scripts/worker-wheels.sh install "$TRACE_PYTHON"
fi
if ! command -v node > /dev/null; then export PATH="$PWD/.device/nodebin:$PATH" TRACE_PYTHON="${TRACE_PYTHON:-$(command -v python3)}"; fi
mkdir -p "$OUT" "$RUN"
node --input-type=module -e '
import { readFileSync, writeFileSync } from "node:fs";
import { mergeConfigPatch } from "./dist/pipeline/sweep-runs.js";
const [file, patch, out] = process.argv.slice(1);
writeFileSync(out, JSON.stringify(mergeConfigPatch(JSON.parse(readFileSync(file, "utf8")), JSON.parse(patch)), null, 2));' "$CONFIG" "$PATCH" "$RUN.config.json"
node bin/trace.js run "$RUN.config.json" --run-dir "$RUN" --until evaluate > "$OUT/log.txt" 2>&1 || { tail -n 20 "$OUT/log.txt"; exit 1; }
# The family of every evaluation task (the target is generated from its seeds, so this needs no run state).
node --input-type=module -e '
import { loadPipelineConfig } from "./dist/pipeline/pipeline-config.js";
import { loadTargetDomains } from "./dist/pipeline/target-tasks.js";
const config = loadPipelineConfig(process.argv[1], { runDirectory: process.argv[2] });
const families = {};
for (const domain of await loadTargetDomains(config)) for (const task of domain.evaluationTasks) families[task.id] = domain.taskGroup?.(task) ?? "unknown";
(await import("fs")).writeFileSync(process.argv[3], JSON.stringify(families));
process.exit(0);' "$RUN.config.json" "$RUN" "$OUT/families.json"
# The router's own routing is kept beside the run the first time (a rerun after a failure finds it) and put back on exit.
[ -e "$RUN/eval/routing-router.json" ] || cp "$RUN/eval/routing.json" "$RUN/eval/routing-router.json"
[ -e "$RUN/eval/results-router.json" ] || cp "$RUN/eval/results.json" "$RUN/eval/results-router.json"
trap 'cp "$RUN/eval/routing-router.json" "$RUN/eval/routing.json"' EXIT
cp "$RUN/eval/routing-router.json" "$OUT/routing-router.json"
cp "$RUN/eval/results-router.json" "$OUT/results-router.json"
labels=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).options.filter((option) => option.capability !== null).map((option) => option.label).join(" "))' "$OUT/routing-router.json")
# Writes the run's routing with every composite evaluation task sent to option $1 (the others keep the router's choice).
force_composites() {
  node -e '
const fs = require("fs");
const [routingFile, familiesFile, label, out] = process.argv.slice(1);
const routing = JSON.parse(fs.readFileSync(routingFile, "utf8"));
const families = JSON.parse(fs.readFileSync(familiesFile, "utf8"));
const option = routing.options.find((option) => option.label === label);
for (const decision of routing.decisions) if (families[decision.taskId] === "composite") Object.assign(decision, { label: option.label, capability: option.capability, model: option.model });
fs.writeFileSync(out, JSON.stringify(routing, null, 2) + "\n");' "$OUT/routing-router.json" "$OUT/families.json" "$1" "$RUN/eval/routing.json"
}
# Runs the evaluate stage again from scratch (base and TRACE) and keeps its results as $OUT/$1.
evaluate_into() {
  rm -f "$RUN/eval/episodes.sqlite"* "$RUN/eval/results.json" "$RUN/stages/evaluate.json"
  node bin/trace.js run "$RUN.config.json" --run-dir "$RUN" --until evaluate >> "$OUT/log.txt" 2>&1 || { tail -n 20 "$OUT/log.txt"; exit 1; }
  cp "$RUN/eval/results.json" "$OUT/$1"
}
for label in $labels; do
  force_composites "$label"
  evaluate_into "results-forced-$label.json"
done
# One more routing: every composite task to all the adapters at once, their LoRA factors concatenated (rank r1 + r2 + …,
# alpha scaled with it), so that the composed delta is exactly the sum of the adapters' deltas. (The worker's
# merge_adapters, linear with weights 1, gives the same delta through an SVD, but needs a worker holding the adapters;
# the evaluate stage starts its own, so the composition is written to disk here.) It is served under the
# name of option A's adapter (its training.json points at the composed directory while the evaluate stage runs).
first_label=${labels%% *}
first_capability=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).options.find((option) => option.label === process.argv[2]).capability)' "$OUT/routing-router.json" "$first_label")
training_file="$RUN/adapters/$first_capability/training.json"
[ -e "$training_file.router" ] || cp "$training_file" "$training_file.router"
trap 'cp "$RUN/eval/routing-router.json" "$RUN/eval/routing.json"; cp "$training_file.router" "$training_file"' EXIT
sources=$(node -e '
const fs = require("fs"), path = require("path");
const [run] = process.argv.slice(1);
for (const entry of JSON.parse(fs.readFileSync(`${run}/environments/index.json`, "utf8")).environments) {
  const file = `${run}/adapters/${entry.capability}/training.json`;
  const trained = JSON.parse(fs.readFileSync(fs.existsSync(`${file}.router`) ? `${file}.router` : file, "utf8"));
  console.log(path.resolve(run, trained.adapterPath));
}' "$RUN")
"${TRACE_PYTHON:-.venv/bin/python}" - "$RUN/adapters/composed" $sources <<'PYTHON'
import json, sys
from pathlib import Path
import torch
from safetensors.torch import load_file, save_file
out, sources = Path(sys.argv[1]), [Path(source) for source in sys.argv[2:]]
configs = [json.loads((source / "adapter_config.json").read_text()) for source in sources]
weights = [load_file(str(source / "adapter_model.safetensors")) for source in sources]
assert all(config["lora_alpha"] / config["r"] == configs[0]["lora_alpha"] / configs[0]["r"] and not config.get("use_rslora") for config in configs), "the adapters must share alpha / r"
composed = {}
for key in weights[0]:
    parts = [weight[key] for weight in weights]
    composed[key] = torch.cat(parts, dim=0 if ".lora_A." in key else 1).contiguous() if (".lora_A." in key or ".lora_B." in key) else parts[0]
rank = sum(config["r"] for config in configs)
out.mkdir(parents=True, exist_ok=True)
save_file(composed, str(out / "adapter_model.safetensors"), metadata={"format": "pt"})
(out / "adapter_config.json").write_text(json.dumps({**configs[0], "r": rank, "lora_alpha": configs[0]["lora_alpha"] / configs[0]["r"] * rank}, indent=2))
print(f"composed {len(sources)} adapters into rank {rank}")
PYTHON
node -e '
const fs = require("fs");
const [file] = process.argv.slice(1);
fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(`${file}.router`, "utf8")), adapterPath: "adapters/composed" }, null, 2));' "$training_file"
force_composites "$first_label"
evaluate_into results-composed.json
node -e '
const fs = require("fs");
const out = process.argv[1];
const routing = JSON.parse(fs.readFileSync(`${out}/routing-router.json`, "utf8"));
const rows = [["router (retrieval)", "results-router.json"], ...routing.options.filter((option) => option.capability !== null).map((option) => [`composite tasks → ${option.label} (${option.capability})`, `results-forced-${option.label}.json`]), ["composite tasks → every adapter at once (summed)", "results-composed.json"]];
const first = JSON.parse(fs.readFileSync(`${out}/results-router.json`, "utf8"));
// Pass counts per kind of task, summed over the domains of the target.
const groups = (results) => { const sum = {}; for (const domain of results.domains) for (const [kind, count] of Object.entries(domain.groups ?? {})) { const entry = (sum[kind] ??= { passed: 0, total: 0 }); entry.passed += count.trace.passed; entry.total += count.trace.total; } return sum; };
const kinds = Object.keys(groups(first)).sort();
const cell = (count) => `${count.passed}/${count.total}`;
console.log(`| routing | ${kinds.map((kind) => `TRACE: ${kind}`).join(" | ")} | TRACE: all | base: all |`);
console.log(`|---|${kinds.map(() => "---|").join("")}---|---|`);
for (const [name, file] of rows) {
  const results = JSON.parse(fs.readFileSync(`${out}/${file}`, "utf8"));
  console.log(`| ${name} | ${kinds.map((kind) => cell(groups(results)[kind])).join(" | ")} | ${cell(results.overall.trace)} | ${cell(results.overall.base)} |`);
}' "$OUT" | tee "$OUT/table.md"
