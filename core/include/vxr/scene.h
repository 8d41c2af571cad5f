/* vxr scenes: instances of octree models, as plain data.
 *
 * A scene source (vxr_scene_src) holds models as voxel lists; the loaders
 * and generators of vxr/formats.h produce it, vxr_scene_build turns it into
 * a scene (vxr_scene) of built octrees. Several instances may share one
 * model: each model is stored once. Culling (vxr/cull.h), picking
 * (vxr/pick.h) and the renderer keep their own state and read the scene.
 */
#ifndef VXR_SCENE_H
#define VXR_SCENE_H

#include <stdbool.h>
#include "vxr/svo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One placed model. view_distance is the radius around the instance centre
 * within which a camera sees it (INFINITY: always). */
typedef struct vxr_instance {
    uint32_t model;
    uint32_t flags; /* VXR_INSTANCE_HIDDEN: kept, not rendered or picked */
    vxr_transform transform;
    float view_distance;
} vxr_instance;

/* A growable voxel list: one model before construction. */
typedef struct vxr_model_src {
    vxr_voxel *voxels;
    size_t count, capacity;
} vxr_model_src;

/* A scene before construction. attr_size is 1 when every colour is a palette
 * index into palette[] (entry 0 unused), 4 when colours are RGBA8. */
typedef struct vxr_scene_src {
    vxr_model_src *models;
    uint32_t model_count, model_capacity;
    vxr_instance *instances;
    uint32_t instance_count, instance_capacity;
    uint32_t palette[VXR_PALETTE_SIZE];
    uint32_t attr_size;
} vxr_scene_src;

/* One entry of a scene's instance change list (vxr/edit.h): instance
 * `instance` changed, and version is the scene's version right after. */
typedef struct vxr_instance_change {
    uint64_t version;
    uint32_t instance;
    uint32_t reserved; /* 0 */
} vxr_instance_change;

/* Takes of the change list a scene remembers (vxr/edit.h). */
#define VXR_CHANGE_TAKES 8

/* A built scene: plain data. Create with vxr_scene_build or a loader of
 * vxr/formats.h, free with vxr_scene_destroy. Read-only to callers: change
 * instances through vxr/edit.h (vxr_scene_set_transform, _set_flags,
 * _set_view_distance, ...), which keeps the versions and the change list
 * that the culler, the renderer and pickers follow; the culler sets
 * VXR_INSTANCE_CULLED the same way. A caller that writes an instance in
 * place must call vxr_scene_touch_instance for it, or no consumer sees the
 * change. */
typedef struct vxr_scene {
    vxr_octree *models;
    uint32_t model_count;
    vxr_instance *instances;
    uint32_t instance_count;
    uint32_t palette[VXR_PALETTE_SIZE];
    uint32_t attr_size;
    double build_s; /* seconds spent building octrees (0 when loaded) */
    /* Changes (vxr/edit.h): version counts them; each model and instance
     * holds the version of its last change (0: as built). */
    uint64_t version;
    uint64_t *model_version, *instance_version;
    uint32_t model_capacity, instance_capacity; /* of the four arrays */
    /* The instance change list (vxr/edit.h, vxr_scene_instance_changes):
     * entries in version order, holding every instance change made after
     * version changes_from (older entries are dropped as the list fills);
     * changes_taken: the versions at the last takes, newest first. Owned by
     * the scene, written only by vxr/edit.h. */
    vxr_instance_change *changes;
    uint32_t change_count, change_capacity;
    uint64_t changes_from;
    uint64_t changes_taken[VXR_CHANGE_TAKES];
} vxr_scene;

/* Scene-source helpers for loaders and generators. Each returns
 * VXR_ERROR_MEMORY when an allocation fails, leaving the source valid. */
VXR_API void vxr_scene_src_init(vxr_scene_src *src, uint32_t attr_size);
VXR_API vxr_result vxr_scene_src_add_model(vxr_scene_src *src, uint32_t *index);
VXR_API vxr_result vxr_scene_src_add_instance(vxr_scene_src *src, const vxr_instance *inst);
VXR_API vxr_result vxr_model_src_push(vxr_model_src *m, int32_t x, int32_t y, int32_t z,
                                      uint32_t color);
/* Frees all arrays of a source and zeroes it; NULL is a no-op. */
VXR_API void vxr_scene_src_free(vxr_scene_src *src);

/* Builds every model's octree (bulk path). On success *dest is a new scene
 * the caller destroys; on failure *dest is NULL. Instances must name
 * existing models and carry finite transforms with scale > 0. */
VXR_API vxr_result vxr_scene_build(const vxr_scene_src *src, vxr_scene **dest, vxr_error *err);
/* NULL is a no-op. */
VXR_API void vxr_scene_destroy(vxr_scene *scene);

/* The figures `vxr info` prints (DESIGN.md §5). */
typedef struct vxr_scene_stats {
    uint32_t models, instances;       /* instances: visible ones */
    uint64_t instanced_voxels;        /* sum of model voxels over visible instances */
    int64_t aabb_min[3], aabb_max[3]; /* world cells of those voxels, max exclusive */
    uint64_t nodes, bricks;
    uint64_t model_voxels; /* each model once */
    uint64_t bytes;        /* vxr_scene_blob_size (vxr/blob.h) */
} vxr_scene_stats;

VXR_API void vxr_scene_get_stats(const vxr_scene *scene, vxr_scene_stats *dest);

/* World AABB of the voxels of one instance (cells, max exclusive for
 * integer placements; conservative for others). */
VXR_API void vxr_instance_world_bounds(const vxr_scene *scene, uint32_t instance, float dest_min[3],
                                       float dest_max[3]);

/* The record of instance i (< instance_count) as the GPU and the CPU picker
 * read it: both affine transforms (world-to-local is what a pick traces
 * with, on both sides), world AABB, model, flags as they are now. */
VXR_API void vxr_instance_gpu(const vxr_scene *scene, uint32_t i, vxr_gpu_instance *dest);
/* The records of every instance: dest holds instance_count of them. */
VXR_API void vxr_instance_records(const vxr_scene *scene, vxr_gpu_instance *dest);

#ifdef __cplusplus
}
#endif
#endif
