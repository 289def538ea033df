#!/usr/bin/env bash
# Runs gpush's hardware kit on this machine's GPU and writes the measured CSV
# of `gpush correlate` (docs/hwkit.md).
#
#   bash tools/hwkit/run.sh OUT [--bin DIR] [--dest DIR] [--only NAMES] [--quick]
#                               [--deadline SECONDS] [--timeout SECONDS]
#
#   OUT          the folder to write (created): measured.csv, device.txt,
#                raw.txt, run.log, clocks.csv, sass.txt
#   --bin DIR    the built kit (default: build-hwkit; tools/hwkit/build.sh).
#                Where its programs cannot run here (the driver is older than
#                the CUDA they were built with, no code for this GPU, a C
#                library too old) and nvcc is here, the kit is rebuilt for this
#                GPU into a temporary folder and that is run instead
#   --dest DIR   the repository folder measured.csv will be kept in, relative
#                to the repository root: description files are named relative
#                to it (default: OUT when OUT is inside the repository, else
#                data/hwkit); tools/hwkit/tocsv.awk rewrites the CSV for
#                another folder from raw.txt
#   --only NAMES comma-separated benchmarks (default: all of
#                empty,chains,throughput,pchase,stream,shared,atomics,dispatch)
#   --quick      fewer cases (a smoke run)
#   --deadline S stop starting benchmarks once S seconds have passed since
#                the start, and cut the running one's time to fit (default 210)
#   --timeout S  the most one benchmark may take (default 60)
# Nothing here changes a clock or any other setting of the GPU: the SM clock
# is measured (every row's core_mhz), and nvidia-smi samples the clocks into
# clocks.csv as a cross-check.  Exit status: 0 all benchmarks ran; 1 some
# failed or were cut (the CSV holds the others); 2 usage; 3 nothing could run.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
start_s=$(date +%s)

all_benches=(empty chains throughput pchase stream shared atomics dispatch)
out=""
bin="$root/build-hwkit"
dest=""
only=""
quick=""
deadline=210
per_bench=60
usage() { sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --dest) dest="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --quick) quick="--quick"; shift ;;
    --deadline) deadline="$2"; shift 2 ;;
    --timeout) per_bench="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "hwkit: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    *) if [ -z "$out" ]; then out="$1"; shift; else echo "hwkit: unexpected argument '$1'" >&2; exit 2; fi ;;
  esac
done
if [ -z "$out" ]; then
  echo "hwkit: give the output folder: bash tools/hwkit/run.sh OUT" >&2
  exit 2
fi
for n in "$deadline" "$per_bench"; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "hwkit: --deadline and --timeout take whole seconds, got '$n'" >&2; exit 2; }
done
benches=("${all_benches[@]}")
if [ -n "$only" ]; then
  IFS=, read -r -a benches <<< "$only"
  for b in "${benches[@]}"; do
    case " ${all_benches[*]} " in *" $b "*) ;; *) echo "hwkit: no benchmark '$b' (the kit has: ${all_benches[*]})" >&2; exit 2 ;; esac
  done
fi
mkdir -p "$out" || { echo "hwkit: cannot create '$out'" >&2; exit 2; }
out="$(cd "$out" && pwd)"
bin="$(cd "$bin" 2>/dev/null && pwd || echo "$bin")"

# where measured.csv will live, and the description files from there
if [ -z "$dest" ]; then
  case "$out/" in "$root"/*) dest="${out#"$root"/}" ;; *) dest="data/hwkit" ;; esac
fi
dest="${dest%/}"
dest="${dest#./}"
ups=""
IFS=/ read -r -a parts <<< "$dest"
for p in "${parts[@]}"; do
  [ -n "$p" ] && [ "$p" != . ] && ups="../$ups"
done
kernels="${ups}tools/hwkit/kernels"

log="$out/run.log"
: > "$log"
say() { echo "hwkit: $*" | tee -a "$log"; }
elapsed() { echo $(( $(date +%s) - start_s )); }

# Staged writes: FILE.tmp, then renamed once complete.
publish() { mv -f "$1.tmp" "$1"; }

sampler=""
cleanup() {
  if [ -n "$sampler" ]; then
    kill "$sampler" 2>/dev/null
    wait "$sampler" 2>/dev/null
    sampler=""
  fi
  [ -n "${tmpbuild:-}" ] && rm -rf "$tmpbuild"
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT TERM

say "gpush hardware kit: writing $out (description files named from $dest/)"
have_smi=0
command -v nvidia-smi >/dev/null 2>&1 && have_smi=1

# --- can the kit's programs run here? ---------------------------------------
devprops_out="$out/.devprops.txt"
check_programs() { # dir: runs its devprops; 0 when it ran a kernel
  local dir="$1" rc
  if [ ! -x "$dir/hwkit-devprops" ]; then
    say "no built kit in $dir (run: bash tools/hwkit/build.sh)"
    return 10
  fi
  timeout 60 "$dir/hwkit-devprops" > "$devprops_out" 2> "$out/.devprops.err"
  rc=$?
  cat "$out/.devprops.err" >> "$log"
  if [ "$rc" = 0 ]; then return 0; fi
  if grep -q "GLIBC" "$out/.devprops.err"; then
    say "the kit's programs need a newer C library than this machine has: $(grep -m1 GLIBC "$out/.devprops.err")"
  elif [ "$rc" = 3 ]; then
    say "$(grep -m1 -e 'driver supports' -e 'no NVIDIA driver' "$out/.devprops.err" | sed 's/^hwkit devprops: //')"
  elif [ "$rc" = 4 ]; then
    say "the kit's programs have no code for this GPU ($(grep -m1 'compute_capability' "$devprops_out" || echo 'compute capability unknown'))"
  else
    say "hwkit-devprops failed (exit $rc): $(tail -n 1 "$out/.devprops.err")"
  fi
  return "$rc"
}

check_programs "$bin"
rc=$?
if [ "$rc" != 0 ]; then
  nvcc_here=""
  command -v nvcc >/dev/null 2>&1 && nvcc_here="$(command -v nvcc)"
  [ -z "$nvcc_here" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc_here=/usr/local/cuda/bin/nvcc
  if grep -q "no NVIDIA driver" "$out/.devprops.err" 2>/dev/null; then
    say "no GPU to measure here"
  elif [ -n "$nvcc_here" ]; then
    tmpbuild="$(mktemp -d "${TMPDIR:-/tmp}/gpush-hwkit.XXXXXX")"
    arch=native
    [ "$have_smi" = 1 ] || arch=90
    say "rebuilding the kit with this machine's $("$nvcc_here" --version | tail -n 1) for --arch $arch into $tmpbuild"
    if NVCC="$nvcc_here" bash "$here/build.sh" --out "$tmpbuild" --arch "$arch" >> "$log" 2>&1; then
      bin="$tmpbuild"
      check_programs "$bin"
      rc=$?
    else
      say "the rebuild failed (run.log has the compiler's messages)"
    fi
  else
    say "no nvcc here to rebuild the kit with"
  fi
fi
if [ "$rc" != 0 ]; then
  {
    echo "# gpush hardware kit: device properties (the kit could not run: see run.log)"
    cat "$devprops_out" 2>/dev/null
    if [ "$have_smi" = 1 ]; then echo "## nvidia-smi -q"; nvidia-smi -q 2>&1; fi
  } > "$out/device.txt.tmp" && publish "$out/device.txt"
  rm -f "$devprops_out" "$out/.devprops.err"
  say "nothing measured ($(elapsed) s)"
  exit 3
fi
gpu="$(sed -n 's/^name: //p' "$devprops_out")"
say "device: $gpu, $(sed -n 's/^multiprocessors: //p' "$devprops_out") SMs, compute capability $(sed -n 's/^compute_capability: //p' "$devprops_out"); $(sed -n 's/^cuda_driver_version: /driver CUDA /p' "$devprops_out"), kit built with CUDA $(sed -n 's/^cuda_runtime_version: \([0-9.]*\).*/\1/p' "$devprops_out")"

# --- clocks, sampled while the kit runs (a cross-check of core_mhz) ----------
if [ "$have_smi" = 1 ]; then
  fields="timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active"
  nvidia-smi --query-gpu="$fields" --format=csv -c 1 > /dev/null 2>&1 ||
    fields="timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu"
  nvidia-smi --query-gpu="$fields" --format=csv,nounits -lms 200 > "$out/clocks.csv" 2>> "$log" &
  sampler=$!
fi

# --- the benchmarks ----------------------------------------------------------
raw="$out/raw.txt"
{
  echo "# hwkit raw 1: $gpu, $(date -u +%Y-%m-%dT%H:%M:%SZ), programs from $bin"
} > "$raw.tmp"
failed=()
i=0
for b in "${benches[@]}"; do
  i=$((i + 1))
  left=$(( deadline - $(elapsed) ))
  if [ "$left" -lt 5 ]; then
    say "[$i/${#benches[@]}] $b: skipped (the ${deadline} s deadline has passed)"
    failed+=("$b(deadline)")
    continue
  fi
  limit=$per_bench
  [ "$left" -lt "$limit" ] && limit=$left
  t0=$(date +%s)
  before=$(grep -c '^row' "$raw.tmp")
  echo "## hwkit-$b $quick" >> "$log"
  timeout --kill-after=5 "$limit" "$bin/hwkit-$b" $quick >> "$raw.tmp" 2>> "$log"
  rc=$?
  rows=$(( $(grep -c '^row' "$raw.tmp") - before ))
  if [ "$rc" = 0 ]; then
    say "[$i/${#benches[@]}] $b: $rows rows in $(( $(date +%s) - t0 )) s"
  else
    [ "$rc" = 124 ] || [ "$rc" = 137 ] && why="stopped at its ${limit} s limit" || why="exit $rc"
    say "[$i/${#benches[@]}] $b: FAILED ($why; $rows rows kept; run.log has its messages)"
    failed+=("$b")
  fi
done
publish "$raw"

if [ -n "$sampler" ]; then
  kill "$sampler" 2>/dev/null
  wait "$sampler" 2>/dev/null
  sampler=""
fi

# --- the measured CSV ---------------------------------------------------------
mem_mhz=""
if [ -s "$out/clocks.csv" ]; then
  # the median memory clock nvidia-smi saw during the run
  mem_mhz="$(awk -F', *' 'NR > 1 && $3 ~ /^[0-9.]+$/ { print $3 }' "$out/clocks.csv" | sort -n |
    awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')"
fi
if awk -v kernels="$kernels" -v mem_mhz="$mem_mhz" -v device="$gpu" -f "$here/tocsv.awk" "$raw" \
     > "$out/measured.csv.tmp" 2>> "$log"; then
  publish "$out/measured.csv"
else
  publish "$out/measured.csv"
  say "some raw records were left out of the CSV (run.log says which)"
  failed+=("tocsv")
fi
say "measured.csv: $(( $(grep -c -v '^#' "$out/measured.csv") - 1 )) rows (mem_mhz ${mem_mhz:-not known})"

# --- the device's properties and the code that ran ----------------------------
{
  echo "# gpush hardware kit: device properties, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host_kernel: $(uname -sr)"
  echo "programs: $bin"
  cat "$devprops_out"
  if [ -s "$out/clocks.csv" ]; then
    awk -F', *' 'NR > 1 && $2 ~ /^[0-9.]+$/ { print $2 }' "$out/clocks.csv" | sort -n |
      awk '{ v[NR] = $1 } END { if (NR) printf "sm_clock_sampled_mhz: min %s, median %s, max %s (%d nvidia-smi samples during the run)\n", v[1], v[int((NR + 1) / 2)], v[NR], NR }'
  fi
  echo "## BUILD-INFO"
  cat "$bin/BUILD-INFO" 2>/dev/null || echo "(none)"
  if command -v nvcc >/dev/null 2>&1; then echo "## nvcc --version (this machine)"; nvcc --version; fi
  if [ "$have_smi" = 1 ]; then
    echo "## nvidia-smi"
    nvidia-smi 2>&1
    echo "## nvidia-smi -q"
    nvidia-smi -q 2>&1
  fi
} > "$out/device.txt.tmp" && publish "$out/device.txt"
rm -f "$devprops_out" "$out/.devprops.err"

cuobjdump=""
command -v cuobjdump >/dev/null 2>&1 && cuobjdump="$(command -v cuobjdump)"
[ -z "$cuobjdump" ] && [ -x /usr/local/cuda/bin/cuobjdump ] && cuobjdump=/usr/local/cuda/bin/cuobjdump
if [ -n "$cuobjdump" ]; then
  {
    echo "# SASS of the programs that ran ($cuobjdump): gpush tools/hwkit/sass_check.lua reads it"
    for b in "${benches[@]}"; do
      echo "## hwkit-$b"
      "$cuobjdump" -sass "$bin/hwkit-$b" 2>&1
      echo "## hwkit-$b resource usage"
      "$cuobjdump" -res-usage "$bin/hwkit-$b" 2>&1
    done
  } > "$out/sass.txt.tmp" && publish "$out/sass.txt"
else
  say "no cuobjdump here: no sass.txt"
fi

if [ "${#failed[@]}" -gt 0 ]; then
  say "done in $(elapsed) s; not complete: ${failed[*]}"
  exit 1
fi
say "done in $(elapsed) s: $out/measured.csv, device.txt, raw.txt, clocks.csv, sass.txt, run.log"
exit 0
