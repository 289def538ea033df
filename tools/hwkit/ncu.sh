#!/usr/bin/env bash
# Profiles the front-end cases (hwkit-ncu_front: empty kernels over grids and
# blocks, dependent-FFMA chains) with Nsight Compute, the method of
# ../shared/calibration/h100-pcie/, and keeps ncu's records as they are.
#
#   bash tools/hwkit/ncu.sh OUT [--bin DIR] [--quick] [--timeout SECONDS]
#
#   OUT          the folder to write (created): ncu-raw.csv (ncu --csv
#                --page raw, one record per profiled launch), ncu-cases.txt
#                (the cases in launch order), ncu.log
#   --bin DIR    the built kit (default: build-hwkit)
#   --timeout S  the most the profiling may take (default 120)
# ncu runs with --clock-control none: the GPU's clocks stay as they are (the
# SM clock of each launch is sm__cycles_elapsed.avg.per_second).
# tools/hwkit/ncu_tocsv.lua turns the two files into correlate's measured CSV.
# Exit status: 0 profiled; 1 ncu failed or was cut; 2 usage; 3 no ncu.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out=""
bin="$root/build-hwkit"
quick=""
limit=120
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --quick) quick="--quick"; shift ;;
    --timeout) limit="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "hwkit ncu: unknown option '$1'" >&2; exit 2 ;;
    *) if [ -z "$out" ]; then out="$1"; shift; else echo "hwkit ncu: unexpected argument '$1'" >&2; exit 2; fi ;;
  esac
done
[ -n "$out" ] || { echo "hwkit ncu: give the output folder: bash tools/hwkit/ncu.sh OUT" >&2; exit 2; }
[[ "$limit" =~ ^[0-9]+$ ]] || { echo "hwkit ncu: --timeout takes whole seconds, got '$limit'" >&2; exit 2; }
mkdir -p "$out" || exit 2
ncu="$(command -v ncu 2>/dev/null)"
if [ -z "$ncu" ]; then
  for c in /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu; do
    [ -x "$c" ] && { ncu="$c"; break; }
  done
fi
if [ -z "$ncu" ]; then
  echo "hwkit ncu: no Nsight Compute (ncu) here: nothing profiled" | tee "$out/ncu.log" >&2
  exit 3
fi
prog="$bin/hwkit-ncu_front"
[ -x "$prog" ] || { echo "hwkit ncu: no $prog (bash tools/hwkit/build.sh)" | tee "$out/ncu.log" >&2; exit 3; }
"$prog" --list $quick > "$out/ncu-cases.txt.tmp" 2>> "$out/ncu.log" && mv -f "$out/ncu-cases.txt.tmp" "$out/ncu-cases.txt"
metrics="sm__cycles_elapsed.max,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,gpc__cycles_elapsed.max,gpu__time_duration.sum,smsp__cycles_active.avg"
echo "hwkit ncu: $("$ncu" --version | tail -n 1); profiling $(grep -c '^case' "$out/ncu-cases.txt") launches" | tee -a "$out/ncu.log"
t0=$(date +%s)
CUDA_MODULE_LOADING=EAGER timeout --kill-after=5 "$limit" "$ncu" --clock-control none --target-processes all \
  -k 'regex:^(empty|ffma_chain)$' --metrics "$metrics" --csv --page raw --print-units base \
  "$prog" $quick > "$out/ncu-raw.csv.tmp" 2>> "$out/ncu.log"
rc=$?
mv -f "$out/ncu-raw.csv.tmp" "$out/ncu-raw.csv"
echo "hwkit ncu: exit $rc after $(( $(date +%s) - t0 )) s; $(grep -c '^"[0-9]' "$out/ncu-raw.csv") records" | tee -a "$out/ncu.log"
[ "$rc" = 0 ] || exit 1
exit 0
