/* vxr instance hierarchy: a bounding volume hierarchy over the world boxes
 * of a scene's visible instances, in the GPU's layout (vxr_gpu_bvh_node,
 * vxr_layout.h). The CPU picker walks it, and the renderer uploads it as it
 * is, so both visit the same boxes.
 *
 * Built from instance records (vxr_instance_records): an instance is an
 * item when its record's flags have neither VXR_INSTANCE_HIDDEN nor
 * VXR_INSTANCE_CULLED and its model has voxels. Instances whose records are
 * identical (same model, bit-identical world-to-local transform) give
 * identical hits, and the lowest index wins a tie, so only the lowest of
 * them becomes an item: a scene graph that stacks K copies of a model at
 * one spot costs one trace, not K.
 *
 * Boxes are the instances' world AABBs widened by a relative 1e-4 so that
 * no grazing hit is cut; a median split along the widest axis of the box
 * centres; leaves of up to VXR_BVH_LEAF items (one: every item is reached
 * through a box test that orders it; updates fill leaves up to four).
 * Depth is at most VXR_BVH_MAX_DEPTH, so a walk's stack of VXR_BVH_STACK
 * entries never overflows (vxr_layout.h has the proof).
 *
 * Changes (vxr_bvh_update) are made in place:
 *  - An item that moved: the boxes on the path from its leaf to the root
 *    are refitted, up to the first box that stays (a node's box is the
 *    union of its children's, exactly as a build of that shape gives it).
 *  - An instance that appears (shown, uncovered by the culler, added
 *    into a free slot, its model filled, a duplicate that moved off its
 *    twin): it goes into the leaf whose box grows least on a descent from
 *    the root, and the path is refitted. A leaf without a free entry moves
 *    its items to the end of items[] with room for 4 (the old entries are
 *    left behind); a leaf of 4 is split in two first (two nodes appended,
 *    one level deeper, never past VXR_BVH_MAX_DEPTH, so the walks' stack
 *    bound holds).
 *  - An instance that disappears (hidden, culled, removed, its model
 *    emptied): it leaves its leaf; a leaf left empty is dropped and its
 *    parent takes its sibling's place (the pair is left behind), and the
 *    path is refitted.
 *  - An item that others collapsed onto changes: the lowest of them takes
 *    its place in the leaf, and it is then handled as above.
 * Each costs O(depth) (plus the duplicates of the instance). Every visible
 * instance stays in exactly one leaf, or collapsed onto a lower identical
 * one; an instance that comes to share another's record through a change
 * becomes an item of its own until the next build (correct: the lower
 * index wins a tie either way; only a trace more).
 *
 * The hierarchy is built afresh instead when more than a quarter of the
 * items changed, when items[] or the nodes would pass the caller's limit
 * or a split the depth bound, when the last item leaves, when the
 * instance count changed, or when the changes
 * made its cost (the sum of the inner nodes' surface areas and of the
 * leaves' areas times their item counts, which the expected cost of a ray
 * walk follows) more than VXR_BVH_REFIT_GROWTH times what it was when
 * built.
 */
#ifndef VXR_BVH_H
#define VXR_BVH_H

#include "vxr/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Changed entries, each listed once: list[count], and a bit per entry. */
typedef struct vxr_bvh_marks {
    uint32_t *list;
    uint32_t count, cap;
    uint32_t *bits;
} vxr_bvh_marks;

/* The hierarchy. Owns its arrays; free with vxr_bvh_free. node_count is 0
 * when no instance is an item. Node 0 is the root; a leaf (count > 0)
 * holds items[first .. first + count), an inner node (count 0) has
 * children first and first + 1. Only the nodes reached from the root and
 * the entries of items[] their leaves name are the hierarchy: updates
 * leave others behind, which no walk reaches. */
typedef struct vxr_bvh {
    vxr_gpu_bvh_node *nodes;
    uint32_t node_count; /* nodes in use, and nodes updates left behind (never reached) */
    uint32_t *items;     /* instance indices */
    uint32_t item_count; /* entries of items[] in use or left behind */
    uint32_t depth;      /* levels below the root (at most, after updates) */
    float max_scale;     /* the largest instance scale among the items (updates only raise it) */
    /* Update state (core/bvh.c's; read-only to callers): */
    uint32_t held;           /* items in the leaves */
    uint32_t item_cap;       /* entries items[] has room for */
    uint32_t node_cap;       /* nodes the node arrays have room for */
    uint32_t *parent;        /* per node: its parent, UINT32_MAX for the root */
    uint32_t *room;          /* per leaf: the entries of items[] from first it owns */
    uint32_t *leaf_of;       /* per instance at build: its leaf, or a state (core/bvh.c) */
    uint32_t *next_dup;      /* per instance: the next higher one collapsed onto the same item */
    uint32_t *dup_item;      /* per collapsed instance: the item it collapsed onto */
    uint32_t instance_count; /* the scene's instance_count at build */
    double built_cost, cost; /* the cost at build, and now (see above) */
    vxr_bvh_marks nodes_changed, items_changed; /* since the last take */
    bool fresh; /* built since the last take: every node and item is new */
} vxr_bvh;

/* Changes give way to a build beyond this growth of the cost. */
#define VXR_BVH_REFIT_GROWTH 2.0

/* Builds the hierarchy of scene's instances from their records
 * (records[i] = vxr_instance_gpu(scene, i), instance_count of them), with
 * what updates need (parent links, each instance's leaf, the chains of
 * collapsed duplicates). The caller frees it with vxr_bvh_free. On
 * failure *dest is zeroed: VXR_ERROR_MEMORY, or VXR_ERROR_LIMIT should the
 * depth ever pass VXR_BVH_MAX_DEPTH (a median split cannot) or the items
 * 2^29. */
VXR_API vxr_result vxr_bvh_build(const vxr_scene *scene, const vxr_gpu_instance *records,
                                 vxr_bvh *dest);
/* Whether an instance record is one the hierarchy holds (before
 * duplicates are dropped): not hidden, not culled, a model with voxels. */
static inline bool vxr_bvh_holds(const vxr_scene *scene, const vxr_gpu_instance *record) {
    return !(record->flags & (VXR_INSTANCE_HIDDEN | VXR_INSTANCE_CULLED)) &&
           scene->models[record->model].voxel_count != 0;
}

/* Brings a hierarchy built for scene (vxr_bvh_build) up to date after the
 * instances changed[count] changed: records holds every instance's record
 * as it is now (records[i] = vxr_instance_gpu(scene, i)), and the
 * instances not in changed have the records they had at the last build or
 * update (an id listed twice is fine; one whose record did not change
 * costs a little work for nothing). Updates in place, or builds afresh, as
 * the header's comment says; rebuild true asks for a build. capacity:
 * the instances the caller's buffers are sized for, which then hold at
 * most vxr_bvh_node_bound(capacity) nodes and capacity items[] entries (0:
 * no limit; at least the scene's instance_count otherwise). *rebuilt
 * (may be NULL) says which it did. Changed nodes and items are noted
 * (vxr_bvh_get_changes). On failure (VXR_ERROR_MEMORY, VXR_ERROR_LIMIT as
 * vxr_bvh_build) bvh is freed (zeroed); a zeroed bvh given to this
 * function with rebuild true is built. */
VXR_API vxr_result vxr_bvh_update(vxr_bvh *bvh, const vxr_scene *scene,
                                  const vxr_gpu_instance *records, const uint32_t *changed,
                                  uint32_t count, bool rebuild, uint32_t capacity, bool *rebuilt);

/* What changed since the hierarchy was built or its changes were last
 * taken: all, or the nodes and items[] entries that updates wrote. */
typedef struct vxr_bvh_changes {
    bool all;                      /* built since: every node and item is new */
    const uint32_t *nodes, *items; /* else these, ascending */
    uint32_t node_count, item_count;
} vxr_bvh_changes;
/* The changes; the arrays are valid until the next update. */
VXR_API void vxr_bvh_get_changes(vxr_bvh *bvh, vxr_bvh_changes *dest);
/* Forgets the changes (the caller uploaded them). */
VXR_API void vxr_bvh_changes_taken(vxr_bvh *bvh);

/* Frees the arrays and zeroes bvh; NULL is a no-op. */
VXR_API void vxr_bvh_free(vxr_bvh *bvh);

/* Nodes the hierarchy of n instances can have at most (buffer sizing). */
static inline uint64_t vxr_bvh_node_bound(uint32_t instances) {
    return 2 * (uint64_t)(instances ? instances : 1);
}

/* How far (world units) the boxes must be widened for picks at grid N: a
 * grid cube reaches past the voxels it holds. 0 for N <= 1. The GPU widens
 * its boxes by this same float. N must be a power of two. */
VXR_API float vxr_bvh_grid_pad(const vxr_bvh *bvh, uint32_t grid);

/* The highest level (0 to VXR_LOD_MAX_LEVEL) of a cube that can stop a
 * ray from `origin` under a level of detail of k (vxr_lod_stop: 2^level *
 * scale < k * t, or < k when `fixed`), every instance's scale being at
 * least min_scale and every hit's t at most the distance from origin to
 * the hierarchy's box (padded for VXR_LOD_MAX_LEVEL's cubes) over
 * dir_len, the length of the ray's direction (1 for unit camera rays);
 * with a margin far above rounding. How far boxes must be widened for the
 * ray (vxr_bvh_grid_pad of 2^level), as the GPU widens them for a frame
 * and the CPU picker for a ray. VXR_LOD_MAX_LEVEL where nothing bounds
 * it (an empty hierarchy, a scale not over 0, a zero direction). */
VXR_API uint32_t vxr_bvh_lod_reach(const vxr_bvh *bvh, float min_scale, const float origin[3],
                                   double dir_len, float k, bool fixed);

/* How far boxes must be widened for a level of detail's cubes (k, fixed,
 * origin and dir_len as vxr_bvh_lod_reach's): the grid pad of the reach's
 * cubes, or, when smaller, the largest footprint a ray can have in the
 * hierarchy's box: no cube that stops a ray is wider, whatever its
 * instance's scale (instances of a larger scale than the least, such as
 * a world's coarse chunks, would otherwise widen every box by their
 * scale). What the GPU widens boxes by for a frame, and the CPU picker
 * for a ray. */
VXR_API float vxr_bvh_lod_pad(const vxr_bvh *bvh, float min_scale, const float origin[3],
                              double dir_len, float k, bool fixed);

/* The box of one instance record as the hierarchy holds it (widened). */
VXR_API void vxr_bvh_instance_box(const vxr_gpu_instance *record, float lo[3], float hi[3]);

#ifdef __cplusplus
}
#endif
#endif
