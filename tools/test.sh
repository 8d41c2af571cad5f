#!/usr/bin/env bash
# Builds vxr (build/) and runs every test with CTest. Extra arguments go to
# CMake's configure step (CI passes -DVXR_WERROR=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build
ctest --test-dir build --output-on-failure -j2
