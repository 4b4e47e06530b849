#!/usr/bin/env bash
# Lays the per-seed result files of a `scripts/mini-v2-base.sh` archive out as run directories that `trace pool` reads:
#   bash scripts/mini-v2-results.sh mini-v2-results.tar.gz docs/results/mini-v2 t26a t26b
# writes DEST/NAME/compare/seed-S/METHOD/result.json (and DEST/NAME/config.json, the run's configuration, and the GRPO
# runs' metrics.jsonl files where the archive has them) for every NAME
# given (every run in the archive when none is).
set -euo pipefail
archive="${1:?usage: mini-v2-results.sh ARCHIVE DEST [NAME ...]}"
dest="${2:?usage: mini-v2-results.sh ARCHIVE DEST [NAME ...]}"
shift 2
[ -f "$archive" ] || { echo "mini-v2-results: no archive at $archive" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$archive" -C "$work"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  mapfile -t names < <(find "$work" -maxdepth 1 -name '*-compare_seed-*_result.json' -printf '%f\n' | sed 's/-compare_seed-.*//' | sort -u)
fi
count=0
for name in "${names[@]}"; do
  for file in "$work/$name"-compare_seed-*_result.json; do
    [ -e "$file" ] || { echo "mini-v2-results: no results for run $name in $archive" >&2; exit 1; }
    rest=$(basename "$file"); rest=${rest#"$name"-compare_}
    seed=${rest%%_*}; method=${rest#"$seed"_}; method=${method%_result.json}
    mkdir -p "$dest/$name/compare/$seed/$method"
    cp "$file" "$dest/$name/compare/$seed/$method/result.json"
    count=$((count + 1))
  done
  # The GRPO runs' per-iteration metrics, in the run directory's layout (archives from the thirty-first session on).
  if [ -d "$work/$name-run" ]; then cp -r "$work/$name-run/." "$dest/$name/"; fi
  # The run's configuration names its evaluation split: `trace pool` groups runs by it.
  if [ -f "$work/$name-config.json" ]; then cp "$work/$name-config.json" "$dest/$name/config.json"; fi
done
echo "mini-v2-results: $count result files under $dest (${names[*]})"
