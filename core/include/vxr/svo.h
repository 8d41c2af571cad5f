/* vxr sparse voxel octrees: construction from voxel lists into the linear
 * layout of shaders/vxr_layout.h.
 *
 * Two builders produce byte-identical octrees (tests hold them equal):
 *  - vxr_octree_build: the bulk path. The root cube is cut into aligned
 *    cubes (regions) whose bricks are runs of the Morton order; each is
 *    built apart (an occupancy bitmap, or a radix sort when sparse) and
 *    the interior levels follow from the sorted brick keys. The fast one;
 *    everything else uses it. vxr_model_build (vxr/scene.h) runs it over
 *    worker threads and from generators, with the same output.
 *  - vxr_octree_build_incremental: the seed's path ("SVO Construction"):
 *    voxels inserted one at a time into a pointer octree centred on the
 *    origin, the abs_svo bounds test against a power-of-two half-extent,
 *    root growth when a voxel falls outside, the ileave3 Morton path, colour
 *    arrays at the second-to-last level, trimming of single-octant roots,
 *    then linearised breadth first.
 *
 * Both accept signed positions and duplicates (the last colour wins).
 * Coordinates must satisfy abs_svo(c) < 2^20 (VXR_MAX_DEPTH).
 */
#ifndef VXR_SVO_H
#define VXR_SVO_H

#include <stdbool.h>
#include "vxr/core.h"
#include "vxr/vxr_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One model's octree in the linear layout. Owns its arrays (malloc'd);
 * free with vxr_octree_free. An empty octree (no voxels) has depth 0 and
 * no nodes.
 *
 * Two forms share the struct. Compact (live == NULL, what the builders and
 * loaders make): breadth first, bricks last, brick_attr indexed by brick
 * (node - (node_count - brick_count)), attributes packed. Live (made by
 * vxr_octree_make_live, for editing, vxr/edit.h): the same node format
 * (a child is the first-child index plus a popcount), but blocks of
 * children and of attributes sit anywhere in the arrays with room to
 * grow, brick_attr has an entry per node slot, and node_count counts slots
 * (free ones too). Readers use vxr_octree_brick_base and
 * vxr_octree_attr_count and work on both. */
typedef struct vxr_octree {
    int32_t origin[3];     /* min corner of the root cube, model space */
    uint32_t depth;        /* root cube edge is 2^depth voxels */
    uint32_t voxel_count;  /* distinct voxels */
    uint32_t node_count;   /* interior nodes + bricks (live: slots) */
    uint32_t brick_count;  /* compact: bricks are nodes[node_count - brick_count ...] */
    uint32_t attr_size;    /* bytes per attribute: 1 (palette index) or 4 (RGBA8) */
    int32_t vmin[3];       /* tight voxel bounds, model space, min inclusive */
    int32_t vmax[3];       /* max exclusive; vmin == vmax == 0 when empty */
    vxr_node *nodes;       /* node_count */
    uint32_t *brick_attr;  /* compact: brick_count; live: node_count */
    uint8_t *attrs;        /* vxr_octree_attr_count(tree) * attr_size */
    struct vxr_live *live; /* the live form's bookkeeping; NULL when compact */
    uint32_t *lod_colors;  /* NULL, or (compact trees) node_count colours as vxr_lod_colors
                              makes them for the palette of the scene the tree goes to, made
                              beside the tree (a world's loader threads) so that uploads copy
                              them; freed with the tree, dropped by vxr_octree_make_live */
    vxr_wide_node *wide;   /* NULL, or (compact trees) the wide form, wide_count nodes as
                              vxr_octree_wide makes it, made beside the tree (a world's loader
                              threads) so that uploads copy it and vxr_octree_wide_count is
                              O(1); freed with the tree, dropped by vxr_octree_make_live */
    uint32_t wide_count;
} vxr_octree;

/* The index in brick_attr of brick node n's entry is n - this. */
VXR_API uint32_t vxr_octree_battr_offset(const vxr_octree *tree);
/* The attribute index of the first voxel of brick node `node`. */
static inline uint32_t vxr_octree_brick_base(const vxr_octree *tree, uint32_t node) {
    return tree->brick_attr[node - vxr_octree_battr_offset(tree)];
}
/* Entries of brick_attr and of attrs (in attributes). */
VXR_API uint32_t vxr_octree_battr_count(const vxr_octree *tree);
VXR_API uint32_t vxr_octree_attr_count(const vxr_octree *tree);
/* The bytes a renderer's sections hold for tree (vxr_layout.h): 8 a node
 * slot, 4 a brick_attr entry, its attributes in 4-byte words, 4 a node
 * slot of level-of-detail colour and 16 a wide node (compact trees: a
 * live one is walked without); 0 for a tree of no node. What a world
 * charges a resident chunk against its budget. */
VXR_API uint64_t vxr_octree_gpu_bytes(const vxr_octree *tree);
/* The wide form of tree (compact or live; vxr_layout.h): *dest gets a
 * malloc'd array of *count nodes, which the caller frees; NULL and 0 for a
 * tree without voxels. VXR_ERROR_MEMORY (*dest NULL). O(nodes). */
VXR_API vxr_result vxr_octree_wide(const vxr_octree *tree, vxr_wide_node **dest, uint32_t *count);
/* The number of nodes vxr_octree_wide makes, without making them.
 * O(interior nodes), O(1) for a tree that carries its wide form; no
 * allocation. */
VXR_API uint32_t vxr_octree_wide_count(const vxr_octree *tree);

/* Level of detail (vxr_layout.h): the colour (RGBA8, red low) of a cube
 * of the tree at level >= 1, the rounded mean of its occupied children's,
 * a voxel's being palette[attr] (attr_size 1; palette, the scene's 256
 * colours, is not read for RGBA8 attributes). `node` is the cube's node
 * index at level >= 2; at level 1 its brick's, and `octant` the cube's
 * octant in the brick. The cube must be occupied. O(nodes and voxels
 * under it); no allocation. 0 for a level of 0 or past the tree's depth,
 * or a node past its nodes. */
VXR_API uint32_t vxr_lod_color(const vxr_octree *tree, const uint32_t *palette, uint32_t level,
                               uint32_t node, uint32_t octant);
/* Writes dest[k] = the colour of node from + k (vxr_lod_color of it at its
 * level) for k < count, 0 for nodes (or live slots) the tree does not
 * reach: the renderer's node colour section. O(nodes + voxels); a copy
 * of tree->lod_colors when the tree has them (palette is then not read). */
VXR_API void vxr_lod_colors(const vxr_octree *tree, const uint32_t *palette, uint64_t from,
                            uint64_t count, uint32_t *dest);
/* The coarse form of a compact tree at `level` (1 to tree->depth - 2),
 * what a world keeps of a chunk far from the eye (vxr/world.h): a voxel
 * for each occupied cube of 2^level cells of tree, at that cube's min
 * corner / 2^level (its cells are the coarse voxel's, times 2^level), with
 * the attribute of the cube's first voxel; and lod_colors (which the
 * renderer and the picker read instead of computing them) holding tree's
 * colours: a node of dest at level j has the vxr_lod_color of tree's cube
 * at level + j (palette is read for tree's colours). So under an instance
 * scale of 2^level, a walk that stops at dest's levels of
 * VXR_LOD_MIN_LEVEL and up meets tree's cubes and colours; only a walk
 * that goes below sees coarse voxels, with one voxel's colour each.
 * tree's origin must be a multiple of 2^level. VXR_ERROR_ARGUMENT (a live
 * or empty tree, a bad level or origin), VXR_ERROR_MEMORY; *dest is
 * zeroed on failure, else owns new arrays. O(nodes + voxels of tree). */
VXR_API vxr_result vxr_octree_coarse(const vxr_octree *tree, const uint32_t *palette,
                                     uint32_t level, vxr_octree *dest, vxr_error *err);
/* Brings colors[0 .. node_count) (vxr_lod_colors of the tree as it was)
 * up to date after edits: a node that dirty(user, node) says changed is
 * recomputed from its children, the others' entries are kept and their
 * subtrees not entered. Every node whose colour changed must be dirty, and
 * so must its ancestors: a live tree notes a changed voxel's whole path
 * among its changed nodes (vxr_octree_get_changes). O(dirty nodes and
 * their bricks' voxels). */
VXR_API void vxr_lod_colors_update(const vxr_octree *tree, const uint32_t *palette,
                                   uint32_t *colors, bool (*dirty)(void *user, uint32_t node),
                                   void *user);

/* The seed's bounds helper: abs_svo(n) = n < 0 ? -(n + 1) : n. A position is
 * inside an octree of half-extent h when abs_svo of every coordinate < h. */
static inline uint32_t vxr_abs_svo(int32_t n) {
    return n < 0 ? (uint32_t)(-(n + 1)) : (uint32_t)n;
}

/* Morton interleave of three 21-bit values; x supplies the most significant
 * bit of each 3-bit digit (child index 4x + 2y + z). ileave3(6,8,9) = 1825. */
VXR_API uint64_t vxr_ileave3(uint32_t x, uint32_t y, uint32_t z);

/* Inverse of vxr_ileave3: dest receives x, y, z. 25 -> (0,2,3). */
VXR_API void vxr_deinterleave3(uint64_t key, uint32_t dest[3]);

/* Builds the octree of `count` voxels with the bulk path, on the calling
 * thread (vxr_model_build, vxr/scene.h: the same on several threads).
 * attr_size: 1 when colours are palette indices (must be 1..255), 4 for RGBA8.
 * On success *dest owns new arrays; on failure *dest is zeroed and err (may be
 * NULL) says why: VXR_ERROR_LIMIT for a coordinate beyond +-2^20,
 * VXR_ERROR_ARGUMENT for a bad attr_size or palette index, VXR_ERROR_MEMORY. */
VXR_API vxr_result vxr_octree_build(const vxr_voxel *voxels, size_t count, uint32_t attr_size,
                                    vxr_octree *dest, vxr_error *err);

/* Same contract and same output as vxr_octree_build, by the seed's
 * incremental insertion (see the top of this header). */
VXR_API vxr_result vxr_octree_build_incremental(const vxr_voxel *voxels, size_t count,
                                                uint32_t attr_size, vxr_octree *dest,
                                                vxr_error *err);

/* Frees the arrays of an octree and zeroes it; NULL is a no-op. */
VXR_API void vxr_octree_free(vxr_octree *tree);

/* True when two octrees are identical, field by field and byte by byte
 * (both compact). */
VXR_API bool vxr_octree_equal(const vxr_octree *a, const vxr_octree *b);

/* Checks the structure of a compact octree read from outside: breadth-first order,
 * child indices inside the arrays and in sequence, non-empty masks, brick
 * attribute bases in sequence, counts consistent, depth within limits, tight
 * bounds inside the root cube. Returns VXR_ERROR_FORMAT with a reason. */
VXR_API vxr_result vxr_octree_validate(const vxr_octree *tree, vxr_error *err);

/* Looks up the voxel at model-space cell (x,y,z) by descending the octree.
 * Returns true and writes its attribute (palette index or RGBA8) when solid. */
VXR_API bool vxr_octree_lookup(const vxr_octree *tree, int32_t x, int32_t y, int32_t z,
                               uint32_t *attr);

/* Calls fn for every voxel in Morton order with its model-space cell and
 * attribute; a brute-force view of the octree for tests and export. */
VXR_API void vxr_octree_foreach(const vxr_octree *tree,
                                void (*fn)(void *user, int32_t x, int32_t y, int32_t z,
                                           uint32_t attr),
                                void *user);

#ifdef __cplusplus
}
#endif
#endif
