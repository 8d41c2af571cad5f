#!/usr/bin/env bash
# Builds vxr (build/) and runs every test with CTest; with --quick first,
# all but those labelled slow (the GPU-assisted reruns, the window and
# packaging tests: TESTING.md). Other arguments go to CMake's configure step
# (CI passes -DVXR_WERROR=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
select=()
if [ "${1:-}" = "--quick" ]; then
    select=(-LE slow)
    shift
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build
ctest --test-dir build --output-on-failure -j2 "${select[@]}"
