#!/usr/bin/env bash
# Sets vxr up on a fresh Debian 12 machine and runs the main job: installs
# missing packages, builds into build/, and shows the built-in @demo scene.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
./build/tools/vxr info @demo
