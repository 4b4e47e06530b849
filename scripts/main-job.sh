#!/usr/bin/env bash
# The README's main job: TRACE-mini at its CPU size (`trace run configs/mini-cpu.json`): the base agent trained from
# scratch on the scripted expert's demonstrations, its rollouts, capability analysis (reference labeler), the practice
# environments, GRPO per capability, retrieval routing, held-out evaluation, and every baseline at the same rollout
# budget (tables and curves in RUN_DIR/compare/). Needs the worker's venv (npm run setup:worker). Rerunning resumes.
set -euo pipefail
cd "$(dirname "$0")/.."
node bin/trace.js run configs/mini-cpu.json --run-dir "${TRACE_RUN_DIR:-runs/main-mini-cpu}"
