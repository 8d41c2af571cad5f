/* vxr_layout.h: the contract between the CPU (C11 or C++) and the GPU
 * (GLSL). Every fact both sides share is stated here once: the octree and
 * blob layouts, the push-constant block, the specialisation-constant ids,
 * the binding numbers of both descriptor sets, the texel stride and field
 * offset of every table the shader reads, and the limits. Installed as
 * <vxr/vxr_layout.h>; shaders include it by name.
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
 *                     brick_attr[k] + popcount(occupancy below its bit).
 *                     The model table's brick_attr_base is offset so that
 *                     brick node n finds its entry at brick_attr_base + n.
 *   A live octree (vxr/edit.h) keeps the node format, but its blocks of
 *   children and attributes sit anywhere, with room to grow: its
 *   brick_attr has an entry per node slot (interior ones unused).
 *   attrs           = one byte per voxel (palette index 1..255) when the
 *                     scene is paletted, else 4 bytes (RGBA8, red low)
 *
 * The wide form (vxr_octree_wide), which frames at full resolution walk
 * while every model is compact (a live one's would move at every edit):
 * the same tree two levels to a node, so that a ray descends half as often
 * and moves between a node's 4^3 cells without a memory operation (a DDA
 * inside the node; docs/DESIGN.md, "The wide walk"). A wide node of level
 * L (even, counted as above) holds the 64 cells of level L - 2 under it,
 * bit 8a + b for octant b of octant a (the brick's order); its children
 * are contiguous in bit order. The root is at the tree's depth rounded up
 * to even: a root of odd depth is octant 0 of a root one level up.
 *   wide node (uvec4): .xy = the 64-bit mask of occupied cells, low word
 *                      first (a level-2 node: the brick's occupancy);
 *                      .z = level >= 4: index of the first child;
 *                           level 2: the brick's node index;
 *                      .w = level 2: the brick's first attribute index
 *                           (brick_attr's entry); else the octree node
 *                           (0 for a root above the root)
 *
 * Why this shape: a 4^3 brick holds 64 voxels in 8 bytes of mask plus 4 of
 * attribute base, so surfaces cost about 1 byte of colour plus well under
 * one byte of structure per voxel, and a GPU descends by popcount without
 * pointers.
 *
 * GPU blob (vxr/blob.h): a header, then sections at 16-byte aligned byte
 * offsets named in the header:
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
 *   bvh nodes (vxr_gpu_bvh_node, 48 bytes): the instance hierarchy of
 *     vxr/bvh.h as it is; node 0 is the root; a leaf has count > 0 and
 *     holds items[first .. first + count), an inner node has count == 0 and
 *     children first and first + 1. skip is the node that follows the
 *     node's subtree in depth-first order (first child first), VXR_BVH_END
 *     after the last: a walk that needs no order (any hit will do) goes
 *     to first on entering an inner node and to skip otherwise, with no
 *     stack.
 *   bvh items (uint): visible instance indices, identical instances
 *     collapsed to the lowest (vxr/bvh.h).
 *   pick records (vxr_gpu_pick, 32 bytes per pixel, row 0 at the top):
 *     +----------+-------+-------+-------+
 *     | instance | vx    | vy    | vz    |  instance ~0u on a miss; voxel:
 *     +----------+-------+-------+-------+  model-local min corner (int32)
 *     | t bits   | shape | color | flags |  shape: level | face << 8 |
 *     +----------+-------+-------+-------+  corner << 16 | edge << 24,
 *   each an 8-bit two's complement id (-1 = 0xff); flags: VXR_PICK_*.
 *   vxr_pick_expand (core) turns one into a full vxr_pick.
 */
#ifndef VXR_LAYOUT_H
#define VXR_LAYOUT_H

/* ---- spelling: what differs between C and GLSL (PNanoVDB's approach) ---- */

#ifdef GL_core_profile
#define VXR_GLSL         1
#define VXR_FN                       /* functions */
#define VXR_PRECISE      precise     /* no fused or reordered float operations */
#define VXR_STRUCT(name) struct name /* a struct type usable by its bare name */
#define VXR_VEC3(n)      vec3 n      /* parameters, locals and members */
#define VXR_IVEC3(n)     ivec3 n
#define VXR_IN_VEC3(n)   vec3 n
#define VXR_IN_IVEC3(n)  ivec3 n
#define VXR_IN_VEC4(n)   vec4 n
#define VXR_OUT_VEC3(n)  out vec3 n /* an output parameter, written as n[k] */
#define VXR_VEC4(n)      vec4 n
#define VXR_ROWS(n)      vec4 n[3] /* a 3x4 affine, rows */
#define VXR_IN_ROWS(n)   vec4 n[3]
#define VXR_ROW(m, r, c) (m)[r][c]
#define VXR_F(x)         float(x)
#define VXR_I(x)         int(x)
#define VXR_U(x)         uint(x)
#define VXR_INF          uintBitsToFloat(0x7f800000u)
#define VXR_SQRT(x)      sqrt(x)
#define vxr_uint         uint
#define VXR_STATIC_ASSERT(cond, why)
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#define VXR_FN      static inline
#define VXR_PRECISE /* core/ is compiled with -ffp-contract=off */
#define VXR_STRUCT(name)                                                                           \
    typedef struct name name;                                                                      \
    struct name
#define VXR_VEC3(n)      float n[3]
#define VXR_IVEC3(n)     int32_t n[3]
#define VXR_IN_VEC3(n)   const float n[3]
#define VXR_IN_IVEC3(n)  const int32_t n[3]
#define VXR_IN_VEC4(n)   const float n[4]
#define VXR_OUT_VEC3(n)  float n[3]
#define VXR_VEC4(n)      float n[4]
#define VXR_ROWS(n)      float n[12]
#define VXR_IN_ROWS(n)   const float n[12]
#define VXR_ROW(m, r, c) (m)[4 * (r) + (c)]
#define VXR_F(x)         ((float)(x))
#define VXR_I(x)         ((int32_t)(x))
#define VXR_U(x)         ((uint32_t)(x))
#define VXR_INF          (__builtin_inff())
#define VXR_SQRT(x)      __builtin_sqrtf(x)
typedef uint32_t vxr_uint;
#ifdef __cplusplus
#define VXR_STATIC_ASSERT(cond, why) static_assert(cond, why)
#else
#define VXR_STATIC_ASSERT(cond, why) _Static_assert(cond, why)
#endif
#endif

/* ---- formats and limits ---- */

#define VXR_BLOB_MAGIC   0x42525856u /* "VXRB" little-endian */
#define VXR_BLOB_VERSION 3u          /* 3: the model record has a fourth texel */
#define VXR_BRICK_LEVEL  2u          /* level of the brick nodes (4^3 voxels) */
#define VXR_MIN_DEPTH    2u          /* an octree is at least one brick */
#define VXR_MAX_DEPTH    21u         /* 2^21 voxels per axis: Morton keys fit 63 bits */
#define VXR_LEVELS       22u         /* levels 0 .. VXR_MAX_DEPTH: one traversal frame each */
#define VXR_PALETTE_SIZE 256u
/* Level of detail (DESIGN.md §5, "Level of detail"): a ray may stop at an
 * occupied cube of 2^k voxels, VXR_LOD_MIN_LEVEL <= k <= VXR_LOD_MAX_LEVEL,
 * below the root, whose world edge is below the footprint (vxr_lod_stop).
 * Its colour is the mean of its occupied children's colours, per RGBA
 * channel, rounded (vxr_lod_mean); a voxel's is its palette colour. The
 * lower bound makes every such cube a node (a brick or above), whose
 * colour is one fetch; the upper one keeps it within
 * 2^VXR_LOD_MAX_LEVEL - 1 voxels of the voxels it holds, which the
 * hierarchy's boxes are padded by (vxr_bvh_grid_pad). */
#define VXR_LOD_MIN_LEVEL 2u
#define VXR_LOD_MAX_LEVEL 5u
/* Materials (vxr_material), per palette entry: the palette binding holds
 * the 256 colours, then 4 words per entry from VXR_MATERIALS_AT: kind,
 * roughness, index of refraction, emission (float bits). */
#define VXR_MATERIALS_AT 256u
/* After the materials, the sRGB tables of vxr_srgb.h (float bits):
 * VXR_SRGB_LINEAR at VXR_SRGB_AT, VXR_SRGB_MID after it and the float 2
 * after that (above every value encoded); shaders fetch them (a gather)
 * rather than index a constant array (a loop per lane on lavapipe). Then
 * the encoding's buckets (vxr_srgb_tables fills it all): the floats of [2^-13, 1]
 * that share their top 16 bits make a bucket, which holds at most one
 * threshold of VXR_SRGB_MID, so a value's code is vxr_srgb_encode's
 * answer at the least float of its bucket (below 2^-13: the first
 * bucket's), plus one if the value is at or above the next threshold. */
#define VXR_SRGB_AT           (VXR_MATERIALS_AT + 4u * VXR_PALETTE_SIZE)
#define VXR_SRGB_BUCKET_LO    0x3900u                        /* the top 16 bits of 2^-13 */
#define VXR_SRGB_BUCKET_COUNT (0x3f81u - VXR_SRGB_BUCKET_LO) /* to 0x3f80, 1's */
#define VXR_SRGB_BUCKETS      (VXR_SRGB_AT + 512u)
#define VXR_PALETTE_WORDS     (VXR_SRGB_BUCKETS + VXR_SRGB_BUCKET_COUNT)
#define VXR_MATERIAL_DIFFUSE  0u
#define VXR_MATERIAL_METAL    1u
#define VXR_MATERIAL_GLASS    2u
#define VXR_MATERIAL_EMIT     3u
#define VXR_INSTANCE_HIDDEN   1u /* instance flag: loaded but not drawn or picked */
#define VXR_INSTANCE_CULLED   2u /* instance flag: outside its view distance */
#define VXR_INSTANCE_REMOVED  4u /* instance flag: a free slot (with HIDDEN) */

/* Editor grids: N = 2^level for level 0 .. VXR_GRID_LEVELS - 1. */
#define VXR_GRID_LEVELS 21u
#define VXR_MAX_GRID    (1u << (VXR_GRID_LEVELS - 1u))

/* vxr_gpu_pick flags. INCOMPLETE: the device stopped the trace before it
 * was done (lavapipe ends every loop of a shader invocation once 65,535
 * iterations have run in total, Mesa's LP_MAX_TGSI_LOOP_ITERATIONS), so
 * the record may be wrong; it is never silently taken as a result. */
#define VXR_PICK_HIT        1u
#define VXR_PICK_INCOMPLETE 2u
#define VXR_PICK_MISS       0xffffffffu /* the instance of a record without a hit */

/* Depth of the instance hierarchy (vxr/bvh.h): a median split halves the
 * items at every level and the builder's leaves hold up to VXR_BVH_LEAF
 * items, so n < 2^32 items give at most 32 levels below the root. A
 * depth-first walk that pushes both children of each node it pops holds
 * at most one pending sibling per level, plus the node in hand:
 * VXR_BVH_STACK entries suffice for every hierarchy the builder can make
 * (it checks the bound; updates fill leaves up to 4 and rebuild rather
 * than pass it). */
#define VXR_BVH_LEAF      1u
#define VXR_BVH_MAX_DEPTH 33u
#define VXR_BVH_STACK     64u

/* Shading (shaders/trace.comp; tests repeat it on the CPU). Light towards
 * VXR_SHADE_LIGHT (unit), colour = base * (ambient + diffuse * max(n.l, 0)),
 * ambient = VXR_SHADE_AMBIENT + VXR_SHADE_AMBIENT_Z * n.z (so each face of
 * an axis-aligned cube reads differently), background a vertical gradient
 * from VXR_SHADE_HORIZON (d.z <= 0) to VXR_SHADE_ZENITH (d.z = 1); a pixel
 * whose trace was incomplete is VXR_SHADE_INCOMPLETE. */
#define VXR_SHADE_LIGHT_X    0.42857143f /* (3, 2, 6) / 7 */
#define VXR_SHADE_LIGHT_Y    0.28571429f
#define VXR_SHADE_LIGHT_Z    0.85714286f
#define VXR_SHADE_AMBIENT    0.4f
#define VXR_SHADE_AMBIENT_Z  0.15f
#define VXR_SHADE_DIFFUSE    0.5f
#define VXR_SHADE_HORIZON    0xffe8d8c8u /* RGBA8, red low: (200, 216, 232) */
#define VXR_SHADE_ZENITH     0xffa0704cu /* (76, 112, 160) */
#define VXR_SHADE_INCOMPLETE 0xffff00ffu /* magenta */

/* ---- the compute pipeline's interface (shaders/trace.comp) ---- */

/* Specialisation-constant ids (vxr_spec on the C side holds the values). */
#define VXR_SPEC_LOCAL_X      0 /* workgroup width */
#define VXR_SPEC_LOCAL_Y      1 /* workgroup height */
#define VXR_SPEC_NODE_CHUNKS  2 /* bindings the nodes are split over */
#define VXR_SPEC_NODE_SHIFT   3 /* log2 of the nodes per chunk */
#define VXR_SPEC_BATTR_CHUNKS 4 /* likewise the brick attribute bases */
#define VXR_SPEC_BATTR_SHIFT  5
#define VXR_SPEC_ATTR_CHUNKS  6 /* likewise the attribute words */
#define VXR_SPEC_ATTR_SHIFT   7
#define VXR_SPEC_ATTR_SIZE    8  /* bytes per attribute: 1 or 4 */
#define VXR_SPEC_GRID         9  /* grids N > 1 (push constant grid_level); else voxels only */
#define VXR_SPEC_PICKS        10 /* write a pick record per pixel */
#define VXR_SPEC_RAYS         11 /* trace the ray batch, records only */
#define VXR_SPEC_HOST         12 /* a host's needs: depth in and out */
#define VXR_SPEC_BEAM         13 /* frames read a start distance per tile (shaders/beam.comp) */
#define VXR_SPEC_LIGHT        14 /* VXR_LIGHT_*: the frame's light model */
#define VXR_SPEC_AOVS         15 /* light frames write the per-pixel outputs */
#define VXR_SPEC_COLOR_CHUNKS 16 /* likewise the node colours (level of detail) */
#define VXR_SPEC_COLOR_SHIFT  17
#define VXR_SPEC_LOD          18 /* coarser cubes (push constant lod): 2 any level, 1 even only */
#define VXR_SPEC_WIDE_CHUNKS  19 /* likewise the wide nodes */
#define VXR_SPEC_WIDE_SHIFT   20
#define VXR_SPEC_WIDE         21 /* frames at full resolution walk the wide form */
#define VXR_SPEC_MISS         22 /* a frame's pixels known to miss: nothing traced */
#define VXR_SPEC_COUNT        23

/* Descriptor set 0: the scene, as uniform texel buffers. Sections larger
 * than one binding are split into chunks of 2^shift elements over
 * consecutive bindings. */
#define VXR_SET_SCENE      0
#define VXR_BIND_MODELS    0 /* rgba32ui, VXR_MODEL_TEXELS per model */
#define VXR_BIND_INSTANCES 1 /* rgba32ui, VXR_INSTANCE_TEXELS per instance */
#define VXR_BIND_PALETTE   2 /* r32ui, VXR_PALETTE_SIZE */
#define VXR_BIND_BVH       3 /* rgba32ui, VXR_BVH_TEXELS per node */
#define VXR_BIND_ITEMS     4 /* r32ui */
#define VXR_BIND_NODES     5 /* rg32ui, VXR_NODE_CHUNKS bindings */
#define VXR_NODE_CHUNKS    4
#define VXR_BIND_BATTR     9 /* r32ui, VXR_BATTR_CHUNKS bindings */
#define VXR_BATTR_CHUNKS   4
#define VXR_BIND_ATTRS     13 /* r32ui words, VXR_ATTR_CHUNKS bindings */
#define VXR_ATTR_CHUNKS    8  /* about 1 byte per voxel, against well under half of structure */
#define VXR_BIND_MOTION    21 /* rgba32ui, VXR_MOTION_TEXELS per instance */
#define VXR_BIND_COLORS    22 /* r32ui RGBA8 per node (level of detail), VXR_COLOR_CHUNKS */
#define VXR_COLOR_CHUNKS   4
#define VXR_BIND_WIDE      26 /* rgba32ui, a wide node each, VXR_WIDE_CHUNKS bindings */
#define VXR_WIDE_CHUNKS    4
#define VXR_SCENE_BINDINGS 30
/* Per instance, the rows of the affine map from a world point now to where
 * it was at the renderer's update before the last (identity for instances
 * that did not move in the last update): motion vectors. */
#define VXR_MOTION_TEXELS 3u

/* Descriptor set 1: the target. */
#define VXR_SET_TARGET      1
#define VXR_BIND_IMAGE      0 /* storage image, written without a format */
#define VXR_BIND_PICKS      1 /* vxr_gpu_pick per pixel or ray */
#define VXR_BIND_RAYS       2 /* VXR_RAY_FLOATS per ray */
#define VXR_BIND_DEPTH      3 /* float per pixel: the host's depth in, the frame's out */
#define VXR_BIND_BEAM       4 /* float per VXR_BEAM_TILE^2 tile: the beam's start distance */
#define VXR_BIND_FRAME      5 /* vxr_gpu_frame: the light of the frame */
#define VXR_BIND_ACCUM      6 /* VXR_ACCUM_FLOATS per pixel: the sums of the samples so far */
#define VXR_BIND_AOV        7 /* the per-pixel outputs, VXR_AOV_* planes of width * height */
#define VXR_BIND_DENOISE    8 /* VXR_DENOISE_FLOATS per pixel: the denoiser's work */
#define VXR_BIND_TILES      9 /* uint per workgroup: a frame's workgroups in dispatch order */
#define VXR_TARGET_BINDINGS 10
#define VXR_DENOISE_PASSES  6   /* the light to filter, then a-trous passes: taps 1 to 16 apart */
#define VXR_DENOISE_FLOATS  12u /* per pixel: 3 planes of vec4 (denoise.comp's work) */
/* A pixel's sums (light frames): lit: sky radiance xyz, sun visibility;
 * occlusion, 0, 0, 0. path: radiance xyz, sun visibility; 0, 0, 0, 0. */
#define VXR_ACCUM_FLOATS 8u
/* The planes of the per-pixel outputs, in floats per pixel from the
 * buffer's start (times width * height): albedo xyz, normal xyz, instance
 * (uint bits), sun, ao, motion xy, the primary hit's t (VXR_INF on a
 * miss), emission xyz (linear). Depth is the target's depth buffer. */
#define VXR_AOV_ALBEDO   0u
#define VXR_AOV_NORMAL   3u
#define VXR_AOV_INSTANCE 6u
#define VXR_AOV_SUN      7u
#define VXR_AOV_AO       8u
#define VXR_AOV_MOTION   9u
#define VXR_AOV_T        11u
#define VXR_AOV_EMIT     12u
#define VXR_AOV_FLOATS   15u
#define VXR_RAY_FLOATS   6 /* origin xyz, direction xyz (vxr_ray) */
/* The beam pre-pass (shaders/beam.comp): one start distance per tile of
 * VXR_BEAM_TILE x VXR_BEAM_TILE pixels, tiles row by row from the top. */
#define VXR_BEAM_TILE 8u

/* Tables in texels of 16 bytes, and the texel of each field. */
#define VXR_MODEL_TEXELS      4u
#define VXR_MODEL_ORIGIN      0u /* xyz origin (int bits), w depth */
#define VXR_MODEL_BASES       1u /* x node, y first brick, z brick_attr - offset, w attr bases */
#define VXR_MODEL_COUNTS      2u /* x nodes, y bricks, z voxels, w attr size */
#define VXR_MODEL_LOD         3u /* x node colour base, y wide node base (a blob: 0, 0) */
#define VXR_INSTANCE_TEXELS   9u
#define VXR_INSTANCE_TO_LOCAL 0u /* 3 rows of the world-to-local affine */
#define VXR_INSTANCE_TO_WORLD 3u /* 3 rows of the local-to-world affine */
#define VXR_INSTANCE_MIN      6u /* xyz world AABB min, w model (uint bits) */
#define VXR_INSTANCE_MAX      7u /* xyz world AABB max, w flags (uint bits) */
#define VXR_INSTANCE_MISC     8u /* x scale, y view distance */
#define VXR_BVH_TEXELS        3u
#define VXR_BVH_LO            0u          /* xyz box min, w first (uint bits) */
#define VXR_BVH_HI            1u          /* xyz box max, w count (uint bits) */
#define VXR_BVH_LINK          2u          /* x skip */
#define VXR_BVH_END           0xffffffffu /* the skip of the last subtree */

/* The push constants (128 bytes, the least every device offers): the
 * camera of vxr/camera.h as derived (eye, forward, right, up, tan_half_fov,
 * aspect: vxr_camera_dir, and vxr_ortho_origin for an orthographic one),
 * the frame or batch. depth_z and depth_w are the rows of the
 * view-projection giving clip z and w of a world point (vxr_clip_depth). */
#define VXR_PUSH_MEMBERS                                                                           \
    VXR_VEC3(eye);                                                                                 \
    float tan_half_fov;                                                                            \
    VXR_VEC3(forward);                                                                             \
    float aspect;                                                                                  \
    VXR_VEC3(right);                                                                               \
    float grid_pad; /* how far the hierarchy's boxes reach for the grid */                         \
    VXR_VEC3(up);                                                                                  \
    vxr_uint width;                                                                                \
    vxr_uint height;                                                                               \
    vxr_uint bvh_nodes;                                                                            \
    vxr_uint ray_count; /* a batch's rays; a light frame's dispatch: its first sample */           \
    float lod;          /* the footprint's scale (vxr_lod.k; 0: full resolution) */                \
    VXR_VEC4(depth_z);                                                                             \
    VXR_VEC4(depth_w);                                                                             \
    vxr_uint flags;      /* VXR_FRAME_*, VXR_LOOP_PROBE << VXR_PROBE_SHIFT */                      \
    vxr_uint offset;     /* the target's rectangle in its image: x | y << 16 */                    \
    vxr_uint grid_level; /* log2 of the grid N | the lod's reach << VXR_REACH_SHIFT */             \
    float magnitude;     /* bounds |translation| + scale * model extent (beam.comp's slack) */

/* Push-constant flags: the camera's projection, depth and colour. */
#define VXR_FRAME_PINHOLE     0u  /* eye/target camera (DESIGN.md §2) */
#define VXR_FRAME_PERSPECTIVE 1u  /* matrix camera, rays from one eye */
#define VXR_FRAME_ORTHO       2u  /* matrix camera, parallel rays */
#define VXR_FRAME_PROJECTION  3u  /* the mask of the three above */
#define VXR_FRAME_REVERSE_Z   4u  /* depth 1 near, 0 far */
#define VXR_FRAME_DEPTH_OUT   8u  /* write each pixel's depth */
#define VXR_FRAME_DEPTH_IN    16u /* read the host's depth first: keep what is nearer */
#define VXR_FRAME_BEAM        32u /* the beam pass wrote this frame's start distances */
#define VXR_FRAME_TILES       64u /* workgroup (x, y) draws tiles[y VXR_TILE_ROW + x]: x | y << 16 */
#define VXR_TILE_ROW          32768u
#define VXR_PROBE_SHIFT       24u /* flags' top byte: the loop probe (VXR_LOOP_PROBE) */
/* grid_level's second byte: the largest level a cube can stop a ray of
 * the frame at under its level of detail (at most VXR_LOD_MAX_LEVEL; the
 * hierarchy's padding, grid_pad, covers it; beam.comp's cells are that
 * large). */
#define VXR_REACH_SHIFT 8u

/* Light models (the LIGHT specialisation constant, vxr_light.model). */
#define VXR_LIGHT_FLAT 0u /* palette colour times one fixed directional term */
#define VXR_LIGHT_LIT  1u /* sun with shadow rays, sky with occlusion rays */
#define VXR_LIGHT_PATH 2u /* progressive path tracing */

/* The light of a frame as both sides read it (std430; a storage buffer on
 * the GPU, written by the frame's commands). */
#define VXR_FRAME_DATA_MEMBERS                                                                     \
    VXR_VEC4(sun);       /* xyz unit vector towards the sun, w tan(diameter / 2) */                \
    VXR_VEC4(sun_t);     /* xyz unit tangent of sun (vxr_basis), w the occlusion radius */         \
    VXR_VEC4(sun_b);     /* xyz unit bitangent, w 0 */                                             \
    VXR_VEC4(sun_color); /* xyz linear radiance, w 0 */                                            \
    VXR_VEC4(zenith);    /* xyz linear sky straight up, w 0 */                                     \
    VXR_VEC4(horizon);   /* xyz linear sky at and below the horizon, w 0 */                        \
    VXR_VEC4(prev_eye);  /* xyz the previous camera's eye, w its projection or -1: none */         \
    VXR_VEC4(prev_m0);   /* rows of the inverse of [forward right up] of the previous */           \
    VXR_VEC4(prev_m1);   /* camera; w of m0, m1: its tan_half_fov * aspect, tan_half_fov */        \
    VXR_VEC4(prev_m2);                                                                             \
    vxr_uint model;     /* VXR_LIGHT_* */                                                          \
    vxr_uint samples;   /* samples a dispatch adds (from push batch) */                            \
    vxr_uint sample_end /* the frame's samples end here */

/* The iterations of the shader's last loop: a device that cut the trace's
 * loops short (lavapipe, see VXR_PICK_INCOMPLETE) runs it fewer times. */
#define VXR_LOOP_PROBE 2u

#ifdef VXR_GLSL /* ------------------------------------------------------- */

struct vxr_gpu_pick {
    uvec4 a; /* instance, voxel xyz (int bits) */
    uvec4 b; /* t (float bits), shape, color, flags */
};

#else /* ----------------------------------------------------------------- */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vxr_node {
    uint32_t a; /* child mask, or occupancy bits 0..31 */
    uint32_t b; /* first child index, or occupancy bits 32..63 */
} vxr_node;

/* A node of the wide form (the layout above). */
typedef struct vxr_wide_node {
    uint32_t mask_lo, mask_hi; /* occupied cells (level 2: voxels), bit 8a + b */
    uint32_t base;             /* level >= 4: first child; level 2: the brick's node */
    uint32_t attr;             /* level 2: the brick's first attribute index; else its node */
} vxr_wide_node;

typedef struct vxr_blob_header {
    uint32_t magic, version, blob_bytes, flags;
    uint32_t model_count, instance_count, node_count, brick_count;
    uint32_t attr_size, palette_count, reserved0, reserved1; /* attr_size: bytes per voxel */
    uint32_t models_offset, instances_offset, palette_offset, nodes_offset;
    uint32_t brick_attr_offset, attrs_offset, reserved2, reserved3;
} vxr_blob_header;

typedef struct vxr_gpu_model {
    int32_t origin[3];
    uint32_t depth;
    uint32_t node_base, brick_base, brick_attr_base, attr_base;
    uint32_t node_count, brick_count, voxel_count, attr_size;
    uint32_t color_base, wide_base, reserved[2];
} vxr_gpu_model;

typedef struct vxr_gpu_instance {
    float world_to_local[12]; /* rows of a 3x4 affine */
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
    uint32_t skip;        /* the node after this one's subtree, depth-first */
    uint32_t reserved[3]; /* 0 */
} vxr_gpu_bvh_node;

/* One pixel's compact pick record (the layout above). */
typedef struct vxr_gpu_pick {
    uint32_t instance;
    int32_t voxel[3];
    float t;
    uint32_t shape; /* level | face << 8 | corner << 16 | edge << 24 (8-bit ids, -1 = 0xff) */
    uint32_t color; /* RGBA8 */
    uint32_t flags; /* VXR_PICK_* */
} vxr_gpu_pick;

/* A palette entry's material (.vox MATL; all zero: diffuse). rough 0..1
 * (metal), ior > 1 (glass; 0 means 1.5), emit: radiance per unit of
 * linear albedo (every kind may glow). */
typedef struct vxr_material {
    uint32_t kind; /* VXR_MATERIAL_* */
    float rough, ior, emit;
} vxr_material;

typedef struct vxr_push {
    VXR_PUSH_MEMBERS
} vxr_push;

typedef struct vxr_gpu_frame {
    VXR_FRAME_DATA_MEMBERS;
} vxr_gpu_frame;

/* The values of the specialisation constants, at offset 4 * id. */
typedef struct vxr_spec {
    uint32_t local_x, local_y;
    uint32_t node_chunks, node_shift, battr_chunks, battr_shift, attr_chunks, attr_shift;
    uint32_t attr_size, grid, picks, rays, host, beam, light, aovs;
    uint32_t color_chunks, color_shift, lod, wide_chunks, wide_shift, wide, miss;
} vxr_spec;

#define VXR_TEXEL(type, field, texel, lane) (offsetof(type, field) == 16 * (texel) + 4 * (lane))
VXR_STATIC_ASSERT(sizeof(vxr_node) == 8, "vxr_node is a uvec2");
VXR_STATIC_ASSERT(sizeof(vxr_wide_node) == 16, "vxr_wide_node is a uvec4");
VXR_STATIC_ASSERT(sizeof(vxr_blob_header) == 80, "vxr_blob_header size");
VXR_STATIC_ASSERT(offsetof(vxr_blob_header, models_offset) == 48, "header offsets");
VXR_STATIC_ASSERT(offsetof(vxr_blob_header, brick_attr_offset) == 64, "header offsets");
VXR_STATIC_ASSERT(sizeof(vxr_gpu_model) == 16 * VXR_MODEL_TEXELS, "model stride");
VXR_STATIC_ASSERT(VXR_TEXEL(vxr_gpu_model, depth, VXR_MODEL_ORIGIN, 3), "model depth");
VXR_STATIC_ASSERT(VXR_TEXEL(vxr_gpu_model, node_base, VXR_MODEL_BASES, 0), "model bases");
VXR_STATIC_ASSERT(VXR_TEXEL(vxr_gpu_model, attr_base, VXR_MODEL_BASES, 3), "model bases");
VXR_STATIC_ASSERT(VXR_TEXEL(vxr_gpu_model, node_count, VXR_MODEL_COUNTS, 0), "model counts");
VXR_STATIC_ASSERT(VXR_TEXEL(vxr_gpu_model, brick_count, VXR_MODEL_COUNTS, 1), "model counts");
VXR_STATIC_ASSERT(VXR_TEXEL(vxr_gpu_model, color_base, VXR_MODEL_LOD, 0), "model colour base");
VXR_STATIC_ASSERT(VXR_TEXEL(vxr_gpu_model, wide_base, VXR_MODEL_LOD, 1), "model wide base");
VXR_STATIC_ASSERT(sizeof(vxr_gpu_instance) == 16 * VXR_INSTANCE_TEXELS, "instance stride");
VXR_STATIC_ASSERT(VXR_TEXEL(vxr_gpu_instance, local_to_world, VXR_INSTANCE_TO_WORLD, 0),
                  "instance rows");
VXR_STATIC_ASSERT(VXR_TEXEL(vxr_gpu_instance, aabb_min, VXR_INSTANCE_MIN, 0), "instance min");
VXR_STATIC_ASSERT(VXR_TEXEL(vxr_gpu_instance, model, VXR_INSTANCE_MIN, 3), "instance model");
VXR_STATIC_ASSERT(VXR_TEXEL(vxr_gpu_instance, flags, VXR_INSTANCE_MAX, 3), "instance flags");
VXR_STATIC_ASSERT(VXR_TEXEL(vxr_gpu_instance, scale, VXR_INSTANCE_MISC, 0), "instance scale");
VXR_STATIC_ASSERT(sizeof(vxr_gpu_bvh_node) == 16 * VXR_BVH_TEXELS, "bvh node stride");
VXR_STATIC_ASSERT(VXR_TEXEL(vxr_gpu_bvh_node, first, VXR_BVH_LO, 3), "bvh first");
VXR_STATIC_ASSERT(VXR_TEXEL(vxr_gpu_bvh_node, count, VXR_BVH_HI, 3), "bvh count");
VXR_STATIC_ASSERT(VXR_TEXEL(vxr_gpu_bvh_node, skip, VXR_BVH_LINK, 0), "bvh skip");
VXR_STATIC_ASSERT(sizeof(vxr_gpu_pick) == 32, "vxr_gpu_pick is 2 x uvec4");
VXR_STATIC_ASSERT(VXR_TEXEL(vxr_gpu_pick, t, 1, 0), "pick t in b.x");
VXR_STATIC_ASSERT(VXR_TEXEL(vxr_gpu_pick, shape, 1, 1), "pick shape in b.y");
VXR_STATIC_ASSERT(VXR_TEXEL(vxr_gpu_pick, flags, 1, 3), "pick flags in b.w");
VXR_STATIC_ASSERT(offsetof(vxr_push, forward) == 16 && offsetof(vxr_push, up) == 48 &&
                      offsetof(vxr_push, width) == 60 && offsetof(vxr_push, depth_z) == 80 &&
                      offsetof(vxr_push, flags) == 112 && sizeof(vxr_push) == 128,
                  "std430 push constants");
VXR_STATIC_ASSERT(offsetof(vxr_gpu_frame, model) == 160 && sizeof(vxr_gpu_frame) == 172,
                  "std430 frame data");
VXR_STATIC_ASSERT(offsetof(vxr_spec, attr_size) == 4 * VXR_SPEC_ATTR_SIZE &&
                      offsetof(vxr_spec, grid) == 4 * VXR_SPEC_GRID &&
                      offsetof(vxr_spec, rays) == 4 * VXR_SPEC_RAYS &&
                      offsetof(vxr_spec, host) == 4 * VXR_SPEC_HOST &&
                      offsetof(vxr_spec, beam) == 4 * VXR_SPEC_BEAM &&
                      offsetof(vxr_spec, light) == 4 * VXR_SPEC_LIGHT &&
                      offsetof(vxr_spec, aovs) == 4 * VXR_SPEC_AOVS &&
                      offsetof(vxr_spec, color_shift) == 4 * VXR_SPEC_COLOR_SHIFT &&
                      offsetof(vxr_spec, lod) == 4 * VXR_SPEC_LOD &&
                      offsetof(vxr_spec, wide_shift) == 4 * VXR_SPEC_WIDE_SHIFT &&
                      offsetof(vxr_spec, wide) == 4 * VXR_SPEC_WIDE &&
                      offsetof(vxr_spec, miss) == 4 * VXR_SPEC_MISS &&
                      sizeof(vxr_spec) == 4 * VXR_SPEC_COUNT,
                  "specialisation constants at 4 * id");
VXR_STATIC_ASSERT(VXR_BIND_BATTR == VXR_BIND_NODES + VXR_NODE_CHUNKS &&
                      VXR_BIND_ATTRS == VXR_BIND_BATTR + VXR_BATTR_CHUNKS &&
                      VXR_BIND_MOTION == VXR_BIND_ATTRS + VXR_ATTR_CHUNKS &&
                      VXR_BIND_COLORS == VXR_BIND_MOTION + 1 &&
                      VXR_BIND_WIDE == VXR_BIND_COLORS + VXR_COLOR_CHUNKS &&
                      VXR_SCENE_BINDINGS == VXR_BIND_WIDE + VXR_WIDE_CHUNKS,
                  "scene bindings in sequence");
VXR_STATIC_ASSERT(VXR_LEVELS == VXR_MAX_DEPTH + 1, "a frame per level");
VXR_STATIC_ASSERT(VXR_LEVELS / 2u == 11u, "trace.comp holds the wide walk's ancestors in w2..w11");
VXR_STATIC_ASSERT(VXR_BVH_STACK >= VXR_BVH_MAX_DEPTH + 1, "the walk's stack holds any hierarchy");
#undef VXR_TEXEL

#ifdef __cplusplus
}
#endif
#endif
#endif
