#!/usr/bin/env bash
# The worker's training throughput on 1 and N GPUs of one host, in one launch (issue 22): every GPU of the machine
# (or TRACE_GPUS of them) runs worker/benchmarks/multi_gpu_report.py under torchrun, which measures one GPU alone and
# then all of them through the worker's multi-rank trainer, on the Qwen3-8B and Qwen3-30B-A3B shapes (random weights).
# On the GPU machine (torch, transformers and peft installed there; carry .device/wheels from scripts/worker-wheels.sh):
#
#   bash scripts/multi-gpu-check.sh            # the report lands in $OUT (or ./gpu-out): multi-gpu-report.{md,json,log}
#
# TRACE_REPORT_ARGS passes further arguments to the report (e.g. "--shapes qwen3-8b --steps 5"); TRACE_TIME_LIMIT
# (seconds, default 540) bounds the launch, so a hung collective cannot eat the call (the report is written after
# each shape).
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/gpu-environment.sh
source scripts/gpu-environment.sh
gpus="${TRACE_GPUS:-$("$python" -c 'import torch; print(torch.cuda.device_count())')}"
if [ "$gpus" -lt 2 ]; then
  echo "multi-gpu-check: needs 2 or more GPUs, found $gpus" >&2
  exit 2
fi
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nvidia-smi topo -m; } 2>&1 | tee "$out/topology.txt"
# shellcheck disable=SC2086
timeout "${TRACE_TIME_LIMIT:-540}" "$python" -m torch.distributed.run --standalone --nproc-per-node "$gpus" worker/benchmarks/multi_gpu_report.py --out "$out" ${TRACE_REPORT_ARGS:-} 2>&1 \
  | grep -v -E "Loading weights" > "$out/multi-gpu-report.log"
status=$?
tail -n 5 "$out/multi-gpu-report.log"
echo
cat "$out/multi-gpu-report.md" 2>/dev/null || echo "multi-gpu-check: no report was written (see $out/multi-gpu-report.log)"
exit $status
