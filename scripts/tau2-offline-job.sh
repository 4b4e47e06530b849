#!/usr/bin/env bash
# The τ² offline job (npm run main:tau2): gold-replay check of both τ² domains, re-grading of the real τ²-bench runs, then TRACE end to
# end offline (`trace run configs/offline-tiny.json`: tiny model, reference labeler, hand-written capability
# environments, GRPO, routing, evaluation). Needs the worker's venv (npm run setup:worker). Rerunning resumes.
set -euo pipefail
cd "$(dirname "$0")/.."
data="${TRACE_TAU2_DATA:-../shared/data/tau2}"
for domain in airline retail; do
  node bin/trace.js tau2 gold --domain "$domain" --data-dir "$data/$domain" | tail -n 1
done
for results in "$data"/trajectories/*.json; do
  [[ -e "$results" ]] || continue
  domain=$(basename "$results" | cut -d- -f1)
  node bin/trace.js tau2 grade --domain "$domain" --data-dir "$data/$domain" "$results" | tail -n 1
done

node bin/trace.js run configs/offline-tiny.json --run-dir "${TRACE_RUN_DIR:-runs/main-offline-tiny}"
