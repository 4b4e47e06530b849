#!/usr/bin/env bash
# Creates the worker's Python virtual environment (.venv) with the pinned dependencies of worker/requirements.txt.
# Re-running it is cheap: pip skips what is already installed. Set TRACE_SETUP_PYTHON to choose the interpreter that makes .venv (3.11 or newer).
set -euo pipefail
cd "$(dirname "$0")/.."
python="${TRACE_SETUP_PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r worker/requirements.txt
.venv/bin/python -c 'import torch, transformers, peft; print(f"worker venv: torch {torch.__version__}, transformers {transformers.__version__}, peft {peft.__version__}")'
