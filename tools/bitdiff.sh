#!/usr/bin/env bash
# The check behind "bit-identical" in docs/performance.md: every model's JSON
# output, stderr and exit status over the regime suite, its variants and each
# folder of ../shared/traces, on six presets, written by one gpush build into
# a folder; given a second folder (another build's), the two are compared file
# by file.
#
#   bash tools/bitdiff.sh GPUSH OUTDIR [REFDIR]
#
# 480 outputs: gpumech (RR, GTO), bounds, sim (LRR and GTO, each with and
# without --per-pc: the plain loop a sweep and `bench sim` run is compiled
# apart from the per-PC one; two-level) x suite, variants and the eight
# shared traces x gtx1080,
# gtx660ti, a100, rtx3070, hd7970, h100-sxm.  Prints each output that differs
# from REFDIR's and "compared N outputs, M differ"; exits 1 when M > 0.
# Without ../shared only the suite and the variants are run (and counted).
set -u
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: bash tools/bitdiff.sh GPUSH OUTDIR [REFDIR]" >&2
  exit 2
fi
GPUSH=$1; OUT=$2; REF=${3:-}
if [ ! -x "$GPUSH" ]; then
  echo "bitdiff: $GPUSH is not an executable gpush build" >&2
  exit 2
fi
if [ -n "$REF" ] && [ ! -d "$REF" ]; then
  echo "bitdiff: reference folder $REF does not exist (write it first: bash tools/bitdiff.sh OLD_GPUSH $REF)" >&2
  exit 2
fi
mkdir -p "$OUT" || exit 2
root=$(cd "$(dirname "$0")/.." && pwd)
paths="suite variants"
if [ -d "$root/../shared/traces" ]; then
  for d in "$root"/../shared/traces/*/; do paths="$paths $d"; done
else
  echo "bitdiff: ../shared/traces is absent: the shared traces are skipped" >&2
fi
presets="gtx1080 gtx660ti a100 rtx3070 hd7970 h100-sxm"
models=("gpumech --policy rr" "gpumech --policy gto" "bounds" "sim --policy lrr --per-pc"
  "sim --policy gto --per-pc" "sim --policy lrr" "sim --policy gto" "sim --policy two-level")
n=0; differ=0
for preset in $presets; do
  for path in $paths; do
    tag=$(basename "$path")
    for model in "${models[@]}"; do
      name="$preset.$tag.${model// /_}"
      # shellcheck disable=SC2086  # the model's words are separate arguments
      "$GPUSH" $model "$path" --config "$preset" --json > "$OUT/$name.json" 2> "$OUT/$name.err"
      # A write that fails (a full disk) stops the check: a truncated output
      # would otherwise become a reference, or a difference blamed on the build.
      if ! echo "rc=$?" >> "$OUT/$name.err"; then
        echo "bitdiff: cannot write $OUT/$name.err (disk full?); the check stopped" >&2
        exit 2
      fi
      n=$((n + 1))
      if [ -n "$REF" ]; then
        if ! cmp -s "$REF/$name.json" "$OUT/$name.json" || ! cmp -s "$REF/$name.err" "$OUT/$name.err"; then
          differ=$((differ + 1))
          echo "differs: $name"
        fi
      fi
    done
  done
done
if [ -n "$REF" ]; then
  echo "compared $n outputs, $differ differ"
  [ "$differ" -eq 0 ] || exit 1
else
  echo "wrote $n outputs to $OUT"
fi
