#!/usr/bin/env bash
# The README's main job: TRACE-mini v2 at its CPU size (`trace run configs/mini-v2-cpu.json`) from the shipped base agent
# (models/mini-v2-base, trained on a GPU with configs/mini-v2-gpu.json): its rollouts on the 120 target training tasks,
# capability analysis (reference labeler), the practice environments calibrated on it, GRPO per capability, retrieval
# routing, held-out evaluation, and every baseline at the same rollout budget (tables and curves in RUN_DIR/compare/).
# Needs the worker's venv (npm run setup:worker). Rerunning resumes.
set -euo pipefail
cd "$(dirname "$0")/.."
node bin/trace.js run configs/mini-v2-cpu.json --run-dir "${TRACE_RUN_DIR:-runs/main-mini-v2-cpu}"
