#!/bin/sh
# Meshes vxr writes pass the Khronos glTF validator with no error and no
# warning: .glb and .gltf, greedy and cubes, of scenes with one instance,
# many rotated and mirrored ones, and a procedural one.
#   validate.sh VXR NODE_MODULES WORK DATA
# Exits 77 (skipped) when node or gltf-validator is missing
# (tools/fetch-gltf-validator.sh fetches it).
set -u
vxr=$1 modules=$2 work=$3 data=$4
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null 2>&1 || [ ! -d "$modules/gltf-validator" ]; then
    echo "node or $modules/gltf-validator missing: skipped (tools/fetch-gltf-validator.sh)"
    exit 77
fi
rm -rf "$work" && mkdir -p "$work" || exit 1
files=""
for scene in "$data/mmmm__chr_robot.vox" "$data/vengi__test-transform.vox" \
             "$data/vengi__8ontop.vox" @menger:2; do
    base=$(basename "$scene" .vox | tr -d '@:')
    for mode in greedy cubes; do
        for ext in glb gltf; do
            out="$work/$base-$mode.$ext"
            "$vxr" convert "$scene" "$out" --mesh "$mode" || exit 1
            files="$files $out"
        done
    done
done
# shellcheck disable=SC2086
report=$(node "$here/gltf_validate.js" "$modules" $files)
status=$?
echo "$report"
[ $status -eq 0 ] || exit 1
if echo "$report" | grep -v ': 0 errors, 0 warnings' | grep -q .; then
    echo "warnings above" >&2
    exit 1
fi
exit 0
