#!/usr/bin/env bash
# One benchmark of dist/bench on the GPU machine without Node (the device of the tool library), from the bundle of
# scripts/device-bundle.sh (carry .device):  bash scripts/device-bench.sh calibration-repeats --repeats 6
# The benchmark's JSON lines, when it writes them (--out), and its table go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
name="$1"
shift
if [ ! -x .device/nodebin/node ]; then
  if [ -d dist ]; then tar -xJf .device/bundle.tar.xz --anchored --exclude=dist; else tar -xJf .device/bundle.tar.xz; fi
fi
source scripts/gpu-environment.sh
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}" PATH="$PWD/.device/nodebin:$PATH" TRACE_PYTHON="$python"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
node "dist/bench/$name.js" "$@" 2> >(grep -v -E "Loading weights|Writing model" > "$out/$name.log") | tee "$out/$name.md"
