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
 * centres; leaves of up to VXR_BVH_LEAF items. Depth is at most
 * VXR_BVH_MAX_DEPTH, so a walk's stack of VXR_BVH_STACK entries never
 * overflows (vxr_layout.h has the proof).
 */
#ifndef VXR_BVH_H
#define VXR_BVH_H

#include "vxr/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The hierarchy. Owns its arrays; free with vxr_bvh_free. node_count is 0
 * when no instance is an item. Node 0 is the root; a leaf (count > 0)
 * holds items[first .. first + count), an inner node (count 0) has
 * children first and first + 1. */
typedef struct vxr_bvh {
    vxr_gpu_bvh_node *nodes;
    uint32_t node_count;
    uint32_t *items; /* instance indices */
    uint32_t item_count;
    uint32_t depth;  /* levels below the root */
    float max_scale; /* the largest instance scale among the items */
} vxr_bvh;

/* Builds the hierarchy of scene's instances from their records
 * (records[i] = vxr_instance_gpu(scene, i), instance_count of them).
 * On failure *dest is zeroed: VXR_ERROR_MEMORY, or VXR_ERROR_LIMIT should
 * the depth ever pass VXR_BVH_MAX_DEPTH (a median split cannot). */
VXR_API vxr_result vxr_bvh_build(const vxr_scene *scene, const vxr_gpu_instance *records,
                                 vxr_bvh *dest);
/* Whether an instance record is one the hierarchy holds (before
 * duplicates are dropped): not hidden, not culled, a model with voxels. */
static inline bool vxr_bvh_holds(const vxr_scene *scene, const vxr_gpu_instance *record) {
    return !(record->flags & (VXR_INSTANCE_HIDDEN | VXR_INSTANCE_CULLED)) &&
           scene->models[record->model].voxel_count != 0;
}

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

/* The box of one instance record as the hierarchy holds it (widened). */
VXR_API void vxr_bvh_instance_box(const vxr_gpu_instance *record, float lo[3], float hi[3]);

#ifdef __cplusplus
}
#endif
#endif
