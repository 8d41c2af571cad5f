#!/usr/bin/env bash
# Sets vxr up on a fresh Debian 12 machine and runs the main job on the
# built-in @demo scene: installs missing packages, builds into build/, then
# opens the viewer when a display exists, else renders @demo on the GPU
# (headless; lavapipe when there is no GPU) to out/demo.png.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
./build/tools/vxr info @demo
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    echo "opening the viewer on @demo (press H in the window for the keys)"
    status=0
    ./build/tools/vxr view @demo || status=$?
    # 3: no window or no Vulkan device that presents to it; render instead
    [ "$status" -eq 3 ] || exit "$status"
    echo "the viewer could not open a window; rendering headless instead"
fi
mkdir -p out
./build/tools/vxr render @demo --eye 130,-160,115 --target 0,0,15 --size 1024x768 --out out/demo.png
echo "rendered @demo to $(pwd)/out/demo.png"
