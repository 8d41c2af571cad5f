#!/usr/bin/env bash
# Sets vxr up on a fresh Debian 12 machine and runs the main job: installs
# missing packages, builds into build/, and renders the built-in @demo scene
# on the GPU (headless; lavapipe when there is no GPU) to out/demo.png.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
./build/tools/vxr info @demo
mkdir -p out
./build/tools/vxr render @demo --eye 130,-160,115 --target 0,0,15 --size 1024x768 --out out/demo.png
echo "rendered @demo to $(pwd)/out/demo.png"
