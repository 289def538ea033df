#!/usr/bin/env bash
# Installs what gpush needs from Debian 12 (when run as root; otherwise prints
# the exact apt-get line), then configures and builds gpush.
#
#   BUILD_DIR=build             where to build
#   GPUSH_CMAKE_ARGS="..."      extra CMake arguments (CI: -DGPUSH_WERROR=ON)
#   GPUSH_RENDER_CHECKS=1       also install Chromium for the SVG render checks
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake pkg-config gcc make lua5.4 liblua5.4-dev luajit libluajit-5.1-dev
          lua-busted luarocks libyaml-dev zlib1g-dev liblzma-dev
          clang libclang-rt-14-dev libedit-dev cppcheck xz-utils)
# The render checks (spec/svg_render_spec.lua: every plot drawn by headless
# Chromium, every text box measured) need a browser; CI asks for it
# (.ci/run), anyone may: GPUSH_RENDER_CHECKS=1 bash tools/setup.sh.
if [ "${GPUSH_RENDER_CHECKS:-0}" = 1 ]; then
  packages+=(chromium)
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if ((${#missing[@]})); then
  if [ "$(id -u)" -eq 0 ]; then
    echo "gpush setup: installing ${missing[*]}"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
  else
    echo "gpush setup: missing Debian packages; as root, run:" >&2
    echo "  apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

build_dir=${BUILD_DIR:-build}
# shellcheck disable=SC2086
cmake -S . -B "$build_dir" ${GPUSH_CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j"$(nproc)"
echo "gpush setup: built $build_dir/bin/gpush"
