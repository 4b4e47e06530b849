#!/usr/bin/env bash
# TRACE-mini on a GPU machine without Node (the device of the tool library): unpacks .device/bundle.tar.xz (made by
# scripts/device-bundle.sh), runs `trace run CONFIG` for at most LIMIT seconds (rerun to resume: stages, rollouts and
# GRPO checkpoints pick up where they stopped), then copies the reports into $OUT. Carry .device and dist (and a
# prepared RUN_DIR/model to skip the base stage) only on the first call: a carried path replaces the device's copy, so
# carrying the run directory again would throw away what the previous call computed.
set -uo pipefail
cd "$(dirname "$0")/.."
CONFIG="${CONFIG:-configs/mini-gpu.json}"
RUN_DIR="${RUN_DIR:-runs/mini-gpu}"
LIMIT="${LIMIT:-540}"
# The bundle's node, node_modules and τ² data; its dist/ only when no newer dist/ was carried.
if [ ! -x .device/nodebin/node ]; then
  if [ -d dist ]; then tar -xJf .device/bundle.tar.xz --anchored --exclude=dist; else tar -xJf .device/bundle.tar.xz; fi
fi
export PATH="$PWD/.device/nodebin:$PATH" TRACE_PYTHON="${TRACE_PYTHON:-$(command -v python3)}"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
timeout "$LIMIT" node bin/trace.js run "$CONFIG" --run-dir "$RUN_DIR" 2>&1 | grep -v "gepa iteration\|Writing model shards" | tail -n 80
echo "exit: ${PIPESTATUS[0]}"
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  for file in store.sqlite base/sft.json base/sft-progress.json analysis/reference/report.md eval/routing.json eval/report.md compare/comparison.md compare/comparison.csv compare/curves.csv compare/curves.png stages; do
    [ -e "$RUN_DIR/$file" ] && cp -r "$RUN_DIR/$file" "$OUT/$(echo "$file" | tr / _)"
  done
fi
