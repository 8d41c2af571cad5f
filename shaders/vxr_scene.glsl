/* vxr_scene.glsl: the scene as the compute shaders read it (GLSL only):
 * the specialisation constants of the split, descriptor set 0 and the
 * fetches of nodes, brick attribute bases, attribute words, node colours,
 * wide nodes, instances and the instance hierarchy. Included by trace.comp and beam.comp; the
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
layout(constant_id = VXR_SPEC_COLOR_CHUNKS) const uint COLOR_CHUNKS = 1u;
layout(constant_id = VXR_SPEC_COLOR_SHIFT) const uint COLOR_SHIFT = 25u;
layout(constant_id = VXR_SPEC_WIDE_CHUNKS) const uint WIDE_CHUNKS = 1u;
layout(constant_id = VXR_SPEC_WIDE_SHIFT) const uint WIDE_SHIFT = 23u;

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
SCENE(VXR_BIND_MOTION) motion_maps;
SCENE(VXR_BIND_COLORS + 0) colors0;
SCENE(VXR_BIND_COLORS + 1) colors1;
SCENE(VXR_BIND_COLORS + 2) colors2;
SCENE(VXR_BIND_COLORS + 3) colors3;
SCENE(VXR_BIND_WIDE + 0) wide0;
SCENE(VXR_BIND_WIDE + 1) wide1;
SCENE(VXR_BIND_WIDE + 2) wide2;
SCENE(VXR_BIND_WIDE + 3) wide3;

#define FETCH(tb, i) texelFetch(tb, int(i))

/* Element i of a section split over four chunk bindings of 2^SHIFT
 * elements each (one binding when CHUNKS is 1). */
#define CHUNKED4(T, fn, CHUNKS, SHIFT, b0, b1, b2, b3, sw)                                        \
    T fn(uint i) {                                                                                 \
        if (CHUNKS == 1u) return FETCH(b0, i).sw;                                                  \
        uint c = i >> SHIFT, j = i & ((1u << SHIFT) - 1u);                                         \
        if (c == 0u) return FETCH(b0, j).sw;                                                       \
        if (c == 1u) return FETCH(b1, j).sw;                                                       \
        if (c == 2u) return FETCH(b2, j).sw;                                                       \
        return FETCH(b3, j).sw;                                                                    \
    }
CHUNKED4(uvec2, node_at, NODE_CHUNKS, NODE_SHIFT, nodes0, nodes1, nodes2, nodes3, xy)
CHUNKED4(uint, battr_at, BATTR_CHUNKS, BATTR_SHIFT, battr0, battr1, battr2, battr3, x)
CHUNKED4(uint, color_at, COLOR_CHUNKS, COLOR_SHIFT, colors0, colors1, colors2, colors3, x)
CHUNKED4(uvec4, wide_at, WIDE_CHUNKS, WIDE_SHIFT, wide0, wide1, wide2, wide3, xyzw)

/* Attribute words: up to eight chunks. */
#define ATTR_CHUNK(k, b) case k: return FETCH(b, j).x;
uint attr_word(uint i) {
    if (ATTR_CHUNKS == 1u) return FETCH(attrs0, i).x;
    uint c = i >> ATTR_SHIFT, j = i & ((1u << ATTR_SHIFT) - 1u);
    switch (c) {
    ATTR_CHUNK(0u, attrs0) ATTR_CHUNK(1u, attrs1) ATTR_CHUNK(2u, attrs2) ATTR_CHUNK(3u, attrs3)
    ATTR_CHUNK(4u, attrs4) ATTR_CHUNK(5u, attrs5) ATTR_CHUNK(6u, attrs6)
    }
    return FETCH(attrs7, j).x;
}

/* vxr_srgb.h's tables from the palette binding: a code's linear value,
 * and the code of a linear value (vxr_srgb_encode's answer, three
 * channels at once). */
float srgb_linear(uint code) {
    return uintBitsToFloat(FETCH(palette, VXR_SRGB_AT + code).x);
}

uvec3 srgb_encode3(vec3 v) {
    /* the search's answer is that of w, v clamped to [0, 1] (NaN: 0): its
     * bucket's, plus one if the next threshold is at or below w
     * (vxr_layout.h; the threshold after the last is 2) */
    uvec3 code;
    for (int c = 0; c < 3; c++) {
        float w = v[c] > 0.0 ? (v[c] < 1.0 ? v[c] : 1.0) : 0.0;
        int b = int(floatBitsToUint(w) >> 16u) - int(VXR_SRGB_BUCKET_LO);
        uint pos = FETCH(palette, VXR_SRGB_BUCKETS + uint(max(b, 0))).x;
        code[c] = pos + (uintBitsToFloat(FETCH(palette, VXR_SRGB_AT + 256u + pos).x) <= w ? 1u : 0u);
    }
    return code;
}

vec4 instance_texel(uint i, uint texel) {
    return uintBitsToFloat(FETCH(instances, VXR_INSTANCE_TEXELS * i + texel));
}

vec3 bvh_corner(uint node, uint texel) {
    return uintBitsToFloat(FETCH(bvh, VXR_BVH_TEXELS * node + texel).xyz);
}

#endif
