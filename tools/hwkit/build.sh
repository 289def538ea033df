#!/usr/bin/env bash
# Builds gpush's hardware kit: every tools/hwkit/*.cu into one program each.
#
#   bash tools/hwkit/build.sh [--out DIR] [--arch CC|native] [--jobs N]
#   bash tools/hwkit/build.sh --check [--arch CC]
#
#   --out DIR     where the programs go (default: build-hwkit in the
#                 repository root; git ignores it)
#   --arch CC     compute capability without the dot (default 90: sm_90
#                 machine code plus compute_90 PTX, which newer GPUs compile
#                 when they load it); `native` asks nvidia-smi for this
#                 machine's GPU
#   --jobs N      compilations at a time (default: the number of cores)
#   --check       compile each source on its own (`nvcc -arch=sm_CC -c FILE`,
#                 into a temporary folder) and exit: the CI check.  Exits 77
#                 (ctest's "skipped") where no nvcc is found.
# nvcc: $NVCC, else nvcc on PATH, else /usr/local/cuda/bin/nvcc.  The
# programs link the CUDA runtime, libstdc++ and libgcc statically, so they
# need only the driver and the C library where they run.  DIR/BUILD-INFO
# records the compiler, the target and the sources' checksums.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

out="$root/build-hwkit"
arch=90
jobs="$(nproc 2>/dev/null || echo 2)"
check=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --arch) arch="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --check) check=1; shift ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "hwkit build: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

nvcc="${NVCC:-}"
if [ -z "$nvcc" ]; then
  if command -v nvcc >/dev/null 2>&1; then
    nvcc="$(command -v nvcc)"
  elif [ -x /usr/local/cuda/bin/nvcc ]; then
    nvcc=/usr/local/cuda/bin/nvcc
  fi
fi
if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then
  echo "hwkit build: skipped: no nvcc (set NVCC, put nvcc on PATH or install the CUDA toolkit in /usr/local/cuda)" >&2
  exit 77
fi

if [ "$arch" = native ]; then
  cc="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')" || cc=""
  if ! [[ "$cc" =~ ^[0-9]+$ ]]; then
    echo "hwkit build: --arch native: nvidia-smi did not report a compute capability; give --arch CC" >&2
    exit 2
  fi
  arch="$cc"
fi
if ! [[ "$arch" =~ ^[0-9]+a?$ ]]; then
  echo "hwkit build: --arch expects a compute capability such as 90 or 80, got '$arch'" >&2
  exit 2
fi

sources=("$here"/*.cu)

if [ "$check" = 1 ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  fails=0
  pids=()
  for src in "${sources[@]}"; do
    name="$(basename "$src" .cu)"
    ( cd "$here" && "$nvcc" -arch="sm_$arch" -c "$(basename "$src")" -o "$tmp/$name.o" > "$tmp/$name.log" 2>&1 ) &
    pids+=("$!:$name")
    if [ "${#pids[@]}" -ge "$jobs" ]; then
      entry="${pids[0]}"; pids=("${pids[@]:1}")
      wait "${entry%%:*}" || { echo "hwkit build: ${entry#*:}.cu does not compile:"; cat "$tmp/${entry#*:}.log"; fails=$((fails + 1)); }
    fi
  done
  for entry in "${pids[@]}"; do
    wait "${entry%%:*}" || { echo "hwkit build: ${entry#*:}.cu does not compile:"; cat "$tmp/${entry#*:}.log"; fails=$((fails + 1)); }
  done
  if [ "$fails" -gt 0 ]; then
    echo "hwkit build: $fails of ${#sources[@]} sources failed with $("$nvcc" --version | tail -n 1)"
    exit 1
  fi
  echo "hwkit build: all ${#sources[@]} sources compile on their own (nvcc -arch=sm_$arch -c)"
  exit 0
fi

mkdir -p "$out"
gencode="arch=compute_$arch,code=[sm_$arch,compute_$arch]"
flags=(-O3 -std=c++17 -gencode "$gencode" -Xcompiler -static-libstdc++,-static-libgcc)
echo "hwkit build: ${#sources[@]} programs into $out ($nvcc, -gencode $gencode, $jobs at a time)"
logdir="$(mktemp -d)"
trap 'rm -rf "$logdir"' EXIT
failed=()
running=()
finish() { # pid:name
  local entry="$1" name="${1#*:}"
  if wait "${entry%%:*}"; then
    echo "  built hwkit-$name"
  else
    echo "  FAILED hwkit-$name:"
    cat "$logdir/$name.log"
    failed+=("$name")
  fi
}
for src in "${sources[@]}"; do
  name="$(basename "$src" .cu)"
  # staged: a failed compile never leaves a half-written program behind
  ( cd "$here" && "$nvcc" "${flags[@]}" "$(basename "$src")" -o "$out/.hwkit-$name.tmp" > "$logdir/$name.log" 2>&1 &&
    mv -f "$out/.hwkit-$name.tmp" "$out/hwkit-$name" ) &
  running+=("$!:$name")
  if [ "${#running[@]}" -ge "$jobs" ]; then
    finish "${running[0]}"
    running=("${running[@]:1}")
  fi
done
for entry in "${running[@]}"; do
  finish "$entry"
done
{
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "nvcc: $nvcc"
  "$nvcc" --version | sed 's/^/  /'
  echo "gencode: $gencode"
  echo "arch: $arch"
  echo "flags: ${flags[*]}"
  echo "sources (sha256):"
  (cd "$here" && sha256sum ./*.cu ./*.h) | sed 's/^/  /'
} > "$out/BUILD-INFO.tmp" && mv -f "$out/BUILD-INFO.tmp" "$out/BUILD-INFO"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "hwkit build: ${#failed[@]} of ${#sources[@]} failed: ${failed[*]}" >&2
  exit 1
fi
echo "hwkit build: done ($out/BUILD-INFO)"
