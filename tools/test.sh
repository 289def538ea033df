#!/usr/bin/env bash
# Builds gpush (through tools/setup.sh) and runs every test with ctest: the C
# unit tests, the busted specs (including the LuaJIT smoke spec) and the
# install spec (luarocks make and cmake --install into temporary trees).
#
#   BUILD_DIR, GPUSH_CMAKE_ARGS   as for tools/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j"$(nproc)"
