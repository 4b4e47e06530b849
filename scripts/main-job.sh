#!/usr/bin/env bash
# The README's main job at this stage: gold-replay check of both τ² domains, then re-grading the real τ²-bench runs.
set -euo pipefail
cd "$(dirname "$0")/.."
data="${TAU2_DATA:-../shared/data/tau2}"
for domain in airline retail; do
  node bin/trace.js tau2 gold --domain "$domain" --data-dir "$data/$domain" | tail -n 1
done
for results in "$data"/trajectories/*.json; do
  [[ -e "$results" ]] || continue
  domain=$(basename "$results" | cut -d- -f1)
  node bin/trace.js tau2 grade --domain "$domain" --data-dir "$data/$domain" "$results" | tail -n 1
done
