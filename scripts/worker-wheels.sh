#!/usr/bin/env bash
# The worker's HTTP server (uvicorn and its pure-Python dependencies h11 and click, pinned in worker/requirements.txt)
# for a GPU machine without network, which has torch, transformers and peft but not these.
#
#   bash scripts/worker-wheels.sh                    # here, with network: the pinned wheels into .device/wheels
#   bash scripts/worker-wheels.sh install [PYTHON]   # on the device: installs them from .device/wheels, offline
#
# .device/ is ignored by git and carried to the device (scripts/mini-device.sh, scripts/gpu-check.sh call `install`).
# `install` does nothing where uvicorn is already importable at its pinned version; it installs only uvicorn by name, so
# pip keeps the machine's own h11 and click where they satisfy uvicorn and takes ours only where they are missing.
# Where pip may not write to the interpreter's environment (an externally managed one), it installs into
# .device/python instead; put that on PYTHONPATH (the device scripts do, when it exists).
# It also installs Liger Kernel (pinned in worker/requirements-gpu.txt; pure Python over the machine's Triton) where it
# is missing: the worker's fused RMSNorm, rotary and SwiGLU kernels on CUDA (worker/trace_worker/fused_kernels.py).
set -euo pipefail
cd "$(dirname "$0")/.."
wheels="${TRACE_WHEEL_DIR:-.device/wheels}"
packages=(uvicorn h11 click)

pin() {
  local line
  line="$(grep -h -E "^$1==" worker/requirements.txt worker/requirements-gpu.txt)" || { echo "worker-wheels: no pin for $1 in worker/requirements*.txt" >&2; exit 2; }
  echo "${line%%[[:space:]#]*}"
}

install_liger() {
  local liger_pin
  liger_pin="$(pin liger-kernel)"
  if PYTHONPATH=".device/python${PYTHONPATH:+:$PYTHONPATH}" "$1" -c "import liger_kernel" 2>/dev/null; then return 0; fi
  if ! ls "$wheels"/liger_kernel-"${liger_pin#liger-kernel==}"-*.whl >/dev/null 2>&1; then
    echo "worker-wheels: no $liger_pin wheel in $wheels: the worker runs without fused kernels" >&2
    return 0
  fi
  "$1" -m pip install --quiet --disable-pip-version-check --no-index --find-links "$wheels" --no-deps "$liger_pin" 2>/dev/null \
    || "$1" -m pip install --quiet --disable-pip-version-check --no-index --find-links "$wheels" --no-deps --target .device/python "$liger_pin"
  echo "worker-wheels: installed $liger_pin from $wheels"
}

if [ "${1:-download}" = install ]; then
  python="${2:-${PYTHON:-python3}}"
  install_liger "$python"
  uvicorn_pin="$(pin uvicorn)"
  version="${uvicorn_pin#uvicorn==}"
  if PYTHONPATH=".device/python${PYTHONPATH:+:$PYTHONPATH}" "$python" -c "import sys, uvicorn; sys.exit(uvicorn.__version__ != '$version')" 2>/dev/null; then
    exit 0
  fi
  if ! ls "$wheels"/uvicorn-"$version"-*.whl >/dev/null 2>&1; then
    echo "worker-wheels: $python has no uvicorn $version and $wheels has no wheel for it: run 'bash scripts/worker-wheels.sh' where there is network and carry .device" >&2
    exit 1
  fi
  if "$python" -m pip install --quiet --disable-pip-version-check --no-index --find-links "$wheels" "$uvicorn_pin"; then
    echo "worker-wheels: installed $uvicorn_pin from $wheels"
  else
    echo "worker-wheels: pip could not install into $python's environment; installing into .device/python" >&2
    "$python" -m pip install --quiet --disable-pip-version-check --no-index --find-links "$wheels" --no-deps --target .device/python "$uvicorn_pin"
    for dependency in h11 click; do
      "$python" -c "import $dependency" 2>/dev/null || "$python" -m pip install --quiet --disable-pip-version-check --no-index --find-links "$wheels" --no-deps --target .device/python "$(pin "$dependency")"
    done
  fi
  exit 0
fi

python="${TRACE_PYTHON:-.venv/bin/python}"
[ -x "$python" ] || python=python3
mkdir -p "$wheels"
for package in "${packages[@]}" liger-kernel; do
  "$python" -m pip download --quiet --disable-pip-version-check --only-binary=:all: --no-deps --dest "$wheels" "$(pin "$package")"
done
ls -la "$wheels"
