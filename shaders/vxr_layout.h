/* vxr_layout.h: the linear octree layout shared by the CPU (C11) and the GPU
 * (GLSL). Included by core/ and by the compute shaders; keep it free of
 * anything but constants and plain 32-bit fields.
 *
 * One model's octree covers the cube [origin, origin + 2^depth)^3 in model
 * space, depth >= 2. Levels count up from the voxels: level 0 is a voxel,
 * level 2 is a 4^3 brick, the root is at level `depth`. Nodes are stored
 * breadth first, each level in Morton order, the children of a node
 * contiguous and in octant order (4x + 2y + z), so a child's index is the
 * parent's first-child index plus the popcount of the lower mask bits.
 *
 *   nodes (uvec2 each, model-relative indices)
 *   +------------------+------------------+-----+----------------------------+
 *   | root (level D)   | level D-1 ...    | ... | bricks (level 2)           |
 *   +------------------+------------------+-----+----------------------------+
 *   interior node:  .x = child mask (bits 0-7, the rest 0)
 *                   .y = index of the first child
 *   brick:          .x/.y = 64-bit occupancy, low word first; bit 8*a + b is
 *                   voxel octant b inside level-1 octant a (Morton order)
 *
 *   brick_attr[k]   = index of brick k's first voxel attribute (k counts the
 *                     model's bricks from 0); a voxel's attribute index is
 *                     brick_attr[k] + popcount(occupancy below its bit)
 *   attrs           = one byte per voxel (palette index 1..255) when the
 *                     scene is paletted, else 4 bytes (RGBA8, red low)
 *
 * Why this shape: a 4^3 brick holds 64 voxels in 8 bytes of mask plus 4 of
 * attribute base, so surfaces cost about 1 byte of colour plus well under
 * one byte of structure per voxel, and a GPU descends by popcount without
 * pointers.
 *
 * GPU blob (vxr_scene_write_blob): a header, then sections at 16-byte
 * aligned byte offsets named in the header:
 *   +---------------------+
 *   | vxr_blob_header     |  magic, version, counts, section offsets
 *   | vxr_gpu_model[M]    |  where each model's nodes/bricks/attrs start
 *   | vxr_gpu_instance[I] |  transforms, bounds, model id, flags
 *   | palette uint[256]   |  RGBA8
 *   | nodes uvec2[N]      |  all models, model after model
 *   | brick_attr uint[B]  |
 *   | attrs bytes         |  padded to 4 bytes
 *   +---------------------+
 *
 * Renderer buffers beside the blob's sections:
 *   bvh nodes (vxr_gpu_bvh_node, 32 bytes): the CPU picker's instance
 *     hierarchy as it is (vxr_picker_bvh); node 0 is the root; a leaf has
 *     count > 0 and holds items[first .. first + count), an inner node has
 *     count == 0 and children first and first + 1.
 *   bvh items (uint): visible instance indices.
 *   pick records (vxr_gpu_pick, 32 bytes per pixel, row 0 at the top):
 *     +----------+-------+-------+-------+
 *     | instance | vx    | vy    | vz    |  instance ~0u on a miss; voxel:
 *     +----------+-------+-------+-------+  model-local min corner (int32)
 *     | t bits   | shape | color | flags |  shape: level | face << 8 |
 *     +----------+-------+-------+-------+  corner << 16 | edge << 24,
 *   each an 8-bit two's complement id (-1 = 0xff); flags bit 0: hit.
 *   vxr_pick_expand (core) turns one into a full vxr_pick.
 */
#ifndef VXR_LAYOUT_H
#define VXR_LAYOUT_H

#define VXR_BLOB_MAGIC      0x42525856u /* "VXRB" little-endian */
#define VXR_BLOB_VERSION    1u
#define VXR_BRICK_LEVEL     2u  /* level of the brick nodes (4^3 voxels) */
#define VXR_MIN_DEPTH       2u  /* an octree is at least one brick */
#define VXR_MAX_DEPTH       21u /* 2^21 voxels per axis: Morton keys fit 63 bits */
#define VXR_PALETTE_SIZE    256u
#define VXR_INSTANCE_HIDDEN 1u /* instance flag: loaded but not drawn or picked */
#define VXR_INSTANCE_CULLED 2u /* instance flag: outside its view distance */
#define VXR_PICK_HIT        1u /* vxr_gpu_pick flags: the ray hit a cube */

/* Shading (shaders/trace.comp; tests repeat it on the CPU). Light towards
 * VXR_SHADE_LIGHT (unit), colour = base * (ambient + diffuse * max(n.l, 0)),
 * ambient = VXR_SHADE_AMBIENT + VXR_SHADE_AMBIENT_Z * n.z (so each face of
 * an axis-aligned cube reads differently), background a vertical gradient
 * from VXR_SHADE_HORIZON (d.z <= 0) to VXR_SHADE_ZENITH (d.z = 1). */
#define VXR_SHADE_LIGHT_X   0.42857143f /* (3, 2, 6) / 7 */
#define VXR_SHADE_LIGHT_Y   0.28571429f
#define VXR_SHADE_LIGHT_Z   0.85714286f
#define VXR_SHADE_AMBIENT   0.4f
#define VXR_SHADE_AMBIENT_Z 0.15f
#define VXR_SHADE_DIFFUSE   0.5f
#define VXR_SHADE_HORIZON   0xffe8d8c8u /* RGBA8, red low: (200, 216, 232) */
#define VXR_SHADE_ZENITH    0xffa0704cu /* (76, 112, 160) */

#ifdef GL_core_profile /* ------------------------------------------ GLSL */

struct vxr_gpu_model {
    ivec4 origin_depth; /* xyz origin, w depth */
    uvec4 bases;        /* node base, first brick (global), brick_attr base, attr base */
    uvec4 counts;       /* nodes, bricks, voxels, attr bytes per voxel */
};

struct vxr_gpu_instance {
    vec4 world_to_local[3]; /* rows of a 3x4 affine */
    vec4 local_to_world[3];
    vec4 aabb_min_model; /* xyz world AABB min, w = model index (uint bits) */
    vec4 aabb_max_flags; /* xyz world AABB max, w = flags (uint bits) */
    vec4 misc;           /* x scale, y view distance, zw reserved */
};

struct vxr_gpu_bvh_node {
    vec4 lo_first; /* xyz box min, w first (uint bits) */
    vec4 hi_count; /* xyz box max, w count (uint bits) */
};

struct vxr_gpu_pick {
    uvec4 a; /* instance, voxel xyz (int bits) */
    uvec4 b; /* t (float bits), shape, color, flags */
};

#else /* ------------------------------------------------------------- C */

#include <stddef.h>
#include <stdint.h>

typedef struct vxr_node {
    uint32_t a; /* child mask, or occupancy bits 0..31 */
    uint32_t b; /* first child index, or occupancy bits 32..63 */
} vxr_node;

typedef struct vxr_blob_header {
    uint32_t magic, version, blob_bytes, flags;
    uint32_t model_count, instance_count, node_count, brick_count;
    uint32_t attr_bytes, palette_count, reserved0, reserved1;
    uint32_t models_offset, instances_offset, palette_offset, nodes_offset;
    uint32_t brick_attr_offset, attrs_offset, reserved2, reserved3;
} vxr_blob_header;

typedef struct vxr_gpu_model {
    int32_t origin[3];
    uint32_t depth;
    uint32_t node_base, brick_base, brick_attr_base, attr_base;
    uint32_t node_count, brick_count, voxel_count, attr_size;
} vxr_gpu_model;

typedef struct vxr_gpu_instance {
    float world_to_local[12];
    float local_to_world[12];
    float aabb_min[3];
    uint32_t model;
    float aabb_max[3];
    uint32_t flags;
    float scale, view_distance;
    uint32_t reserved[2];
} vxr_gpu_instance;

/* One node of the instance hierarchy (the layout above). */
typedef struct vxr_gpu_bvh_node {
    float lo[3];
    uint32_t first;
    float hi[3];
    uint32_t count;
} vxr_gpu_bvh_node;

/* One pixel's compact pick record (the layout above). */
typedef struct vxr_gpu_pick {
    uint32_t instance;
    int32_t voxel[3];
    float t;
    uint32_t shape; /* level | face << 8 | corner << 16 | edge << 24 (8-bit ids, -1 = 0xff) */
    uint32_t color; /* RGBA8 */
    uint32_t flags; /* VXR_PICK_HIT */
} vxr_gpu_pick;

_Static_assert(sizeof(vxr_node) == 8, "vxr_node is a uvec2");
_Static_assert(sizeof(vxr_gpu_bvh_node) == 32, "vxr_gpu_bvh_node is 2 x vec4");
_Static_assert(offsetof(vxr_gpu_bvh_node, first) == 12, "bvh first in lo_first.w");
_Static_assert(offsetof(vxr_gpu_bvh_node, count) == 28, "bvh count in hi_count.w");
_Static_assert(sizeof(vxr_gpu_pick) == 32, "vxr_gpu_pick is 2 x uvec4");
_Static_assert(offsetof(vxr_gpu_pick, t) == 16, "pick t in b.x");
_Static_assert(offsetof(vxr_gpu_pick, shape) == 20, "pick shape in b.y");
_Static_assert(offsetof(vxr_gpu_pick, flags) == 28, "pick flags in b.w");
_Static_assert(sizeof(vxr_blob_header) == 80, "vxr_blob_header size");
_Static_assert(offsetof(vxr_blob_header, models_offset) == 48, "header offsets");
_Static_assert(offsetof(vxr_blob_header, brick_attr_offset) == 64, "header offsets");
_Static_assert(sizeof(vxr_gpu_model) == 48, "vxr_gpu_model is 3 x uvec4");
_Static_assert(offsetof(vxr_gpu_model, node_base) == 16, "vxr_gpu_model.bases");
_Static_assert(offsetof(vxr_gpu_model, node_count) == 32, "vxr_gpu_model.counts");
_Static_assert(sizeof(vxr_gpu_instance) == 144, "vxr_gpu_instance is 9 x vec4");
_Static_assert(offsetof(vxr_gpu_instance, local_to_world) == 48, "instance rows");
_Static_assert(offsetof(vxr_gpu_instance, aabb_min) == 96, "instance aabb");
_Static_assert(offsetof(vxr_gpu_instance, model) == 108, "instance model in aabb_min.w");
_Static_assert(offsetof(vxr_gpu_instance, flags) == 124, "instance flags in aabb_max.w");
_Static_assert(offsetof(vxr_gpu_instance, scale) == 128, "instance misc");

#endif
#endif
