/* vxr_scene.glsl: the scene as the compute shaders read it (GLSL only):
 * the specialisation constants of the split, descriptor set 0 and the
 * fetches of nodes, brick attribute bases, attribute words, instances and
 * the instance hierarchy. Included by trace.comp and beam.comp; the
 * interface itself is vxr_layout.h's.
 *
 * Scene data comes as uniform texel buffers: lavapipe fetches texels with
 * vector gathers, while its storage-buffer loads take a loop per lane; on
 * desktop GPUs texel fetches go through the texture cache, which suits
 * read-only, incoherent loads (DESIGN.md, "Per-device choices"). */
#ifndef VXR_SCENE_GLSL
#define VXR_SCENE_GLSL

#include "vxr_layout.h"

layout(constant_id = VXR_SPEC_NODE_CHUNKS) const uint NODE_CHUNKS = 1u;
layout(constant_id = VXR_SPEC_NODE_SHIFT) const uint NODE_SHIFT = 24u;
layout(constant_id = VXR_SPEC_BATTR_CHUNKS) const uint BATTR_CHUNKS = 1u;
layout(constant_id = VXR_SPEC_BATTR_SHIFT) const uint BATTR_SHIFT = 25u;
layout(constant_id = VXR_SPEC_ATTR_CHUNKS) const uint ATTR_CHUNKS = 1u;
layout(constant_id = VXR_SPEC_ATTR_SHIFT) const uint ATTR_SHIFT = 25u;
layout(constant_id = VXR_SPEC_ATTR_SIZE) const uint ATTR_SIZE = 1u;

#define SCENE(b) layout(set = VXR_SET_SCENE, binding = b) uniform usamplerBuffer
SCENE(VXR_BIND_MODELS) models;
SCENE(VXR_BIND_INSTANCES) instances;
SCENE(VXR_BIND_PALETTE) palette;
SCENE(VXR_BIND_BVH) bvh;
SCENE(VXR_BIND_ITEMS) items;
SCENE(VXR_BIND_NODES + 0) nodes0;
SCENE(VXR_BIND_NODES + 1) nodes1;
SCENE(VXR_BIND_NODES + 2) nodes2;
SCENE(VXR_BIND_NODES + 3) nodes3;
SCENE(VXR_BIND_BATTR + 0) battr0;
SCENE(VXR_BIND_BATTR + 1) battr1;
SCENE(VXR_BIND_BATTR + 2) battr2;
SCENE(VXR_BIND_BATTR + 3) battr3;
SCENE(VXR_BIND_ATTRS + 0) attrs0;
SCENE(VXR_BIND_ATTRS + 1) attrs1;
SCENE(VXR_BIND_ATTRS + 2) attrs2;
SCENE(VXR_BIND_ATTRS + 3) attrs3;
SCENE(VXR_BIND_ATTRS + 4) attrs4;
SCENE(VXR_BIND_ATTRS + 5) attrs5;
SCENE(VXR_BIND_ATTRS + 6) attrs6;
SCENE(VXR_BIND_ATTRS + 7) attrs7;

#define FETCH(tb, i) texelFetch(tb, int(i))

uvec2 node_at(uint i) {
    if (NODE_CHUNKS == 1u) return FETCH(nodes0, i).xy;
    uint c = i >> NODE_SHIFT, j = i & ((1u << NODE_SHIFT) - 1u);
    if (c == 0u) return FETCH(nodes0, j).xy;
    if (c == 1u) return FETCH(nodes1, j).xy;
    if (c == 2u) return FETCH(nodes2, j).xy;
    return FETCH(nodes3, j).xy;
}

uint battr_at(uint i) {
    if (BATTR_CHUNKS == 1u) return FETCH(battr0, i).x;
    uint c = i >> BATTR_SHIFT, j = i & ((1u << BATTR_SHIFT) - 1u);
    if (c == 0u) return FETCH(battr0, j).x;
    if (c == 1u) return FETCH(battr1, j).x;
    if (c == 2u) return FETCH(battr2, j).x;
    return FETCH(battr3, j).x;
}

uint attr_word(uint i) {
    if (ATTR_CHUNKS == 1u) return FETCH(attrs0, i).x;
    uint c = i >> ATTR_SHIFT, j = i & ((1u << ATTR_SHIFT) - 1u);
    switch (c) {
    case 0u:
        return FETCH(attrs0, j).x;
    case 1u:
        return FETCH(attrs1, j).x;
    case 2u:
        return FETCH(attrs2, j).x;
    case 3u:
        return FETCH(attrs3, j).x;
    case 4u:
        return FETCH(attrs4, j).x;
    case 5u:
        return FETCH(attrs5, j).x;
    case 6u:
        return FETCH(attrs6, j).x;
    }
    return FETCH(attrs7, j).x;
}

vec4 instance_texel(uint i, uint texel) {
    return uintBitsToFloat(FETCH(instances, VXR_INSTANCE_TEXELS * i + texel));
}

vec3 bvh_corner(uint node, uint texel) {
    return uintBitsToFloat(FETCH(bvh, VXR_BVH_TEXELS * node + texel).xyz);
}

#endif
