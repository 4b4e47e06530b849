#!/usr/bin/env bash
# A paired variant of a finished run: copies run directory FROM to TO without what the comparison's TRACE and merge
# methods derive from the trained adapters (their results, the merged snapshots and adapter, the comparison's episode
# store and report), so that `trace run CONFIG --run-dir TO` with a changed merge or routing setting re-evaluates those
# two on the same adapters; every other method's result is kept as it was.
#   bash scripts/paired-variant-copy.sh runs/a runs/a-variant
set -euo pipefail
from="$1" to="$2"
[ -d "$from/compare" ] || { echo "paired-variant-copy: $from has no compare/ directory (run it to the end first)" >&2; exit 1; }
rm -rf "$to"
cp -r "$from" "$to"
rm -rf "$to"/compare/episodes.sqlite* "$to"/compare/comparison.* "$to"/stages/compare.json
for seed in "$to"/compare/seed-*; do
  rm -rf "$seed/trace/result.json" "$seed/trace/merged" "$seed/merge/result.json" "$seed/merge/adapter"
done
