#!/usr/bin/env bash
# TRACE-mini on a GPU machine without Node (the device of the tool library): unpacks .device/bundle.tar.xz (made by
# scripts/device-bundle.sh), installs the worker's HTTP server from .device/wheels (made by scripts/worker-wheels.sh),
# runs `trace run CONFIG` for at most LIMIT seconds (rerun to resume: stages, rollouts and GRPO checkpoints pick up
# where they stopped), then copies the reports into $OUT with the whole run directory as $OUT/run.tar.xz (expert
# demonstrations left out: they are regenerated, deterministically, in seconds). To resume on a fresh machine, carry
# that archive back as .device/run.tar.xz: it is unpacked when RUN_DIR does not exist. Carry .device and dist only: a
# carried path replaces the device's copy, so carrying the run directory itself would throw away what an earlier call
# computed on a machine still warm.
set -uo pipefail
cd "$(dirname "$0")/.."
CONFIG="${TRACE_CONFIG:-configs/mini-gpu.json}"
RUN_DIR="${TRACE_RUN_DIR:-runs/mini-gpu}"
LIMIT="${TRACE_TIME_LIMIT:-540}"
# The bundle's node, node_modules and τ² data; its dist/ only when no newer dist/ was carried.
if [ ! -x .device/nodebin/node ]; then
  if [ -d dist ]; then tar -xJf .device/bundle.tar.xz --anchored --exclude=dist; else tar -xJf .device/bundle.tar.xz; fi
fi
if [ ! -d "$RUN_DIR" ] && [ -f .device/run.tar.xz ]; then
  mkdir -p "$RUN_DIR" && tar -xJf .device/run.tar.xz -C "$RUN_DIR" && echo "resumed $RUN_DIR from .device/run.tar.xz"
fi
export PATH="$PWD/.device/nodebin:$PATH" TRACE_PYTHON="${TRACE_PYTHON:-$(command -v python3)}"
# The worker's HTTP server (uvicorn), offline from .device/wheels (made here by scripts/worker-wheels.sh).
bash scripts/worker-wheels.sh install "$TRACE_PYTHON" || exit 1
if [ -d .device/python ]; then export PYTHONPATH="$PWD/.device/python${PYTHONPATH:+:$PYTHONPATH}"; fi
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
mkdir -p "${OUT:-/tmp}"
timeout "$LIMIT" node bin/trace.js run "$CONFIG" --run-dir "$RUN_DIR" 2>&1 | grep -v "gepa iteration\|Writing model shards" > "${OUT:-/tmp}/log.txt"
tail -n 60 "${OUT:-/tmp}/log.txt"
echo "exit: ${PIPESTATUS[0]}"
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  for file in base/sft.json analysis/reference/report.md eval/routing.json eval/report.md compare/comparison.md compare/comparison.csv compare/curves.csv compare/curves.png; do
    [ -e "$RUN_DIR/$file" ] && cp -r "$RUN_DIR/$file" "$OUT/$(echo "$file" | tr / _)"
  done
  # The stages' outputs without bulky intermediates (demonstrations, GRPO checkpoints, SFT optimizer state).
  tar -cJf "$OUT/run.tar.xz" -C "$RUN_DIR" --exclude=./base/demonstrations.jsonl --exclude=./base/sft-state --exclude=./base/init --exclude='*/checkpoints' --exclude=./compare/episodes.sqlite --exclude=./store.sqlite-wal . && ls -la "$OUT/run.tar.xz" && du -sh "$RUN_DIR"/* | sort -h | tail -n 5
fi
