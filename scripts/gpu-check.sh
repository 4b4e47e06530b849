#!/usr/bin/env bash
# The worker on a GPU machine (torch, transformers and peft preinstalled there; no venv, no network: carry .device with
# the wheels of scripts/worker-wheels.sh): the whole pytest suite on CUDA in bf16, then worker/benchmarks/gpu_report.py
# (Qwen3-shaped checkpoints through transformers and PEFT, forward_backward throughput and MFU beside a plain
# transformers + peft loop, sampling throughput; with two or more GPUs, scripts/multi-gpu-check.sh too). Writes logs and the report under $OUT (or ./gpu-out) and prints the
# tables last.
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/gpu-environment.sh
source scripts/gpu-environment.sh
"$python" - <<'PY'
import torch, transformers, peft
name = torch.cuda.get_device_name() if torch.cuda.is_available() else "no CUDA device"
print(f"torch {torch.__version__} transformers {transformers.__version__} peft {peft.__version__} gpus {torch.cuda.device_count()} {name}")
PY
if [ "${TRACE_SKIP_TESTS:-0}" != 1 ]; then
  TRACE_WORKER_TEST_DEVICE=cuda "$python" -m pytest -q -p no:cacheprovider worker/tests 2>&1 | tee "$out/pytest-cuda.log" | tail -n 25
  tests=$?
else
  tests=0
fi
if [ "${TRACE_SKIP_BENCHMARK:-0}" != 1 ]; then
  "$python" worker/benchmarks/gpu_report.py --out "$out" ${TRACE_REPORT_ARGS:-} 2>&1 | grep -v -E "Loading weights|Writing model" | tee "$out/gpu-report.log" | tail -n 5
  report=$?
  echo
  cat "$out/gpu-report.md" 2>/dev/null
else
  report=0
fi
# Two or more GPUs: training on 1 and all of them, in one launch (scripts/multi-gpu-check.sh).
if [ "${TRACE_SKIP_BENCHMARK:-0}" != 1 ] && [ "$("$python" -c 'import torch; print(torch.cuda.device_count())')" -ge 2 ]; then
  TRACE_REPORT_ARGS="" bash scripts/multi-gpu-check.sh
  report=$(( report || $? ))
fi
echo "pytest on CUDA: $(grep -E '[0-9]+ (passed|failed)' "$out/pytest-cuda.log" 2>/dev/null | tail -n 1)"
exit $(( tests != 0 || report != 0 ))
