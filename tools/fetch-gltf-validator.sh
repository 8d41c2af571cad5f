#!/usr/bin/env bash
# Fetches the Khronos glTF validator (the npm package gltf-validator, a
# pinned version, its registry checksum verified) into
# .cache/gltf-validator/node_modules/, where the mesh test
# cli_mesh_gltf_validator looks for it (CMake's VXR_GLTF_VALIDATOR_MODULES).
# Needs curl and node (Debian: curl, nodejs); the test runs with node alone.
set -euo pipefail
cd "$(dirname "$0")/.."
version=2.0.0-dev.3.10
integrity=odJ4k0tRkGXiDGn78yDBg+fBbAIvBnXxh3RwAta0emSxGtyagFE8B4xELB1oYe3S5RD8Ci3uZAsZaascH2LAEQ==
dest=.cache/gltf-validator/node_modules/gltf-validator
if [ -f "$dest/package.json" ] && grep -q "\"version\": \"$version\"" "$dest/package.json"; then
    echo "gltf-validator $version: already in $dest"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
curl -fsSL --retry 3 -o "$tmp/v.tgz" \
    "https://registry.npmjs.org/gltf-validator/-/gltf-validator-$version.tgz"
got=$(node -e "const c=require('crypto');process.stdout.write(c.createHash('sha512')
    .update(require('fs').readFileSync(process.argv[1])).digest('base64'))" "$tmp/v.tgz")
if [ "$got" != "$integrity" ]; then
    echo "fetch-gltf-validator: checksum mismatch for gltf-validator $version" >&2
    exit 1
fi
tar -xzf "$tmp/v.tgz" -C "$tmp"
rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
mv "$tmp/package" "$dest"
echo "gltf-validator $version: in $dest"
