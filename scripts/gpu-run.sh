#!/usr/bin/env bash
# `trace run` on CUDA with a larger model, then the report. Needs node (≥ 20.9) and python3 with the worker's
# requirements (torch with CUDA, transformers, peft, tokenizers; `npm run setup:worker` makes .venv, or set TRACE_PYTHON).
#
#   bash scripts/gpu-run.sh                       # a Qwen3-0.6B-shaped checkpoint with random weights, made by the worker
#   TRACE_MODEL_PATH=/models/Qwen3-0.6B bash scripts/gpu-run.sh   # any Hugging Face checkpoint directory instead
#   TRACE_CONFIG=configs/other.json TRACE_RUN_DIR=runs/x TRACE_TAU2_DATA=/data/tau2 bash scripts/gpu-run.sh
#
# Rerun the same command to resume: finished stages are skipped. Without npm on the GPU machine, pack Node here with
# /work/shared/tools/pack-node-for-device.sh and put its bin/ on PATH there; dist/ must be built (npm run build).
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG="${TRACE_CONFIG:-configs/gpu-qwen3-0.6b-shape.json}"
RUN_DIR="${TRACE_RUN_DIR:-runs/gpu-qwen3-0.6b-shape}"
if [ -z "${TRACE_PYTHON:-}" ] && [ ! -x .venv/bin/python ]; then export TRACE_PYTHON="$(command -v python3)"; fi
python="${TRACE_PYTHON:-.venv/bin/python}"
"$python" -c 'import torch; assert torch.cuda.is_available(), "no CUDA device"; print("cuda:", torch.cuda.get_device_name(0))'
# The worker's HTTP server (uvicorn): from PyPI where there is network, else from .device/wheels (scripts/worker-wheels.sh).
bash scripts/worker-wheels.sh install "$python" || exit 1
if [ -d .device/python ]; then export PYTHONPATH="$PWD/.device/python${PYTHONPATH:+:$PYTHONPATH}"; fi
[ -f dist/cli/main.js ] || npm run build
# The configuration, with the model path and the data directory overridden when given.
resolved="$(mktemp --suffix=.json)"
trap 'rm -f "$resolved"' EXIT
node -e '
  const fs = require("node:fs");
  const [file, out, model, data] = process.argv.slice(1);
  const config = JSON.parse(fs.readFileSync(file, "utf8"));
  if (model) { config.model.path = model; delete config.model.initTiny; }
  if (data) config.target.dataDirectory = data;
  fs.writeFileSync(out, JSON.stringify(config, null, 2));
' "$CONFIG" "$resolved" "${TRACE_MODEL_PATH:-}" "${TRACE_TAU2_DATA:-}"
node bin/trace.js run "$resolved" --run-dir "$RUN_DIR"
