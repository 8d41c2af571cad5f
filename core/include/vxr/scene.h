/* vxr scenes: instances of octree models, loaded from files or generated.
 *
 * A scene source (vxr_scene_src) holds models as voxel lists; loaders and the
 * procedural generators produce it, vxr_scene_build turns it into a scene
 * (vxr_scene) of built octrees. A .vxo file loads straight into a scene.
 * Several instances may share one model: each model is stored once.
 *
 * Loaders read from memory so that they can be fuzzed; vxr_scene_load reads
 * a path (or a built-in "@name" scene) and does everything. On failure every
 * loader leaves *dest empty, frees what it allocated, and writes a one-line
 * reason to err that says what is wrong and where (byte offsets for binary
 * formats); callers prefix the file name.
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

/* A built scene. Fields are read-only for callers; create with
 * vxr_scene_build or vxr_load_vxo, free with vxr_scene_destroy. */
typedef struct vxr_scene {
    vxr_octree *models;
    uint32_t model_count;
    vxr_instance *instances;
    uint32_t instance_count;
    uint32_t palette[VXR_PALETTE_SIZE];
    uint32_t attr_size;
    double build_s;              /* seconds spent building octrees (0 when loaded) */
    struct vxr_scene_cull *cull; /* private: vxr_scene_cull's sphere tree */
} vxr_scene;

/* Scene-source helpers for loaders and generators. Each returns
 * VXR_ERROR_MEMORY when an allocation fails, leaving the source valid. */
void vxr_scene_src_init(vxr_scene_src *src, uint32_t attr_size);
vxr_result vxr_scene_src_add_model(vxr_scene_src *src, uint32_t *index);
vxr_result vxr_scene_src_add_instance(vxr_scene_src *src, const vxr_instance *inst);
vxr_result vxr_model_src_push(vxr_model_src *m, int32_t x, int32_t y, int32_t z, uint32_t color);
/* Frees all arrays of a source and zeroes it; NULL is a no-op. */
void vxr_scene_src_free(vxr_scene_src *src);

/* Builds every model's octree (bulk path). On success *dest is a new scene
 * the caller destroys; on failure *dest is NULL. Instances must name
 * existing models and carry finite transforms with scale > 0. */
vxr_result vxr_scene_build(const vxr_scene_src *src, vxr_scene **dest, vxr_error *err);
/* NULL is a no-op. */
void vxr_scene_destroy(vxr_scene *scene);

/* MagicaVoxel .vox, versions 150 and 200 (see core/vox.c for what is read). */
vxr_result vxr_load_vox(const uint8_t *data, size_t size, vxr_scene_src *dest, vxr_error *err);
/* .vl32: headerless big-endian int32 x, y, z, then ARGB; alpha 0 is empty.
 * One model, one identity instance; up to 255 distinct colours become a
 * palette, more keep RGBA8. */
vxr_result vxr_load_vl32(const uint8_t *data, size_t size, vxr_scene_src *dest, vxr_error *err);
/* vxr's own octree file; everything is validated, nothing is rebuilt. */
vxr_result vxr_load_vxo(const uint8_t *data, size_t size, vxr_scene **dest, vxr_error *err);

/* Serialises a scene as .vxo into a new malloc'd buffer (*data, *size). The
 * bytes depend only on the scene, so load-then-save reproduces a file. */
vxr_result vxr_save_vxo(const vxr_scene *scene, uint8_t **data, size_t *size);
/* Serialises the visible instanced voxels in world cells as .vl32 (one record
 * per instanced voxel, instance order; a later record wins on reading).
 * Fails with VXR_ERROR_LIMIT for non-integer placements (rotations other
 * than axis permutations, or scale != 1). */
vxr_result vxr_save_vl32(const vxr_scene *scene, uint8_t **data, size_t *size, vxr_error *err);

/* Generates a built-in scene from its spec without the '@': "demo",
 * "menger:L" (L 0..6), "terrain:N" (N 1..8192, an N x N heightfield),
 * "world:K" (K 1..1000000 objects with finite view distances over a terrain). */
vxr_result vxr_scene_generate(const char *spec, vxr_scene_src *dest, vxr_error *err);

/* Reads a whole file into a new malloc'd buffer. */
vxr_result vxr_read_file(const char *path, uint8_t **data, size_t *size, vxr_error *err);
/* Writes a buffer to a file, through a temporary file and a rename, so a
 * failed write never leaves a partial file behind. */
vxr_result vxr_write_file(const char *path, const void *data, size_t size, vxr_error *err);

/* Loads a scene source from a path by its content (.vox magic "VOX ", else
 * .vl32 by extension) or from "@spec". .vxo files are not sources: use
 * vxr_scene_load. */
vxr_result vxr_scene_src_load(const char *path, vxr_scene_src *dest, vxr_error *err);
/* Loads any scene argument (a file of any supported format, or "@spec") and
 * builds it. err's message does not repeat the path. */
vxr_result vxr_scene_load(const char *path, vxr_scene **dest, vxr_error *err);

/* The figures `vxr info` prints (DESIGN.md §5). */
typedef struct vxr_scene_stats {
    uint32_t models, instances;       /* instances: visible ones */
    uint64_t instanced_voxels;        /* sum of model voxels over visible instances */
    int64_t aabb_min[3], aabb_max[3]; /* world cells of those voxels, max exclusive */
    uint64_t nodes, bricks;
    uint64_t model_voxels; /* each model once */
    uint64_t bytes;        /* vxr_scene_blob_size */
} vxr_scene_stats;

void vxr_scene_get_stats(const vxr_scene *scene, vxr_scene_stats *dest);

/* World AABB of the voxels of one instance (cells, max exclusive for
 * integer placements; conservative for others). */
void vxr_instance_world_bounds(const vxr_scene *scene, uint32_t instance, float dest_min[3],
                               float dest_max[3]);

/* View-distance culling (DESIGN.md §4). An instance with a finite view
 * distance is visible from eye when its sphere (centre: the centre of its
 * world AABB, radius: the view distance) contains eye; instances with an
 * infinite view distance are always visible. Sets VXR_INSTANCE_CULLED on
 * every instance not visible from eye and clears it on the others, using a
 * sphere tree (vxr/spheres.h) built on the first call; eye NULL turns
 * culling off (clears the flag everywhere). Pickers and GPU uploads created
 * afterwards see only the visible instances. *visible receives the number
 * of visible, non-hidden instances and *changed whether the visible set
 * differs from the previous call's (either may be NULL). Costs O(visible)
 * per call after the first. VXR_ERROR_MEMORY leaves the flags as they were;
 * VXR_ERROR_ARGUMENT for a non-finite eye. */
vxr_result vxr_scene_cull(vxr_scene *scene, const float eye[3], uint32_t *visible, bool *changed);

/* Size in bytes of the GPU blob (shaders/vxr_layout.h) of the scene, and the
 * writer: dest must hold vxr_scene_blob_size bytes. */
size_t vxr_scene_blob_size(const vxr_scene *scene);
void vxr_scene_write_blob(const vxr_scene *scene, void *dest);
/* The blob's record of instance i (< instance_count) into dest: both affine
 * transforms, world AABB, model, flags as they are now. CPU picking uses
 * the same matrices, so that both sides agree. */
void vxr_instance_gpu(const vxr_scene *scene, uint32_t i, vxr_gpu_instance *dest);

#ifdef __cplusplus
}
#endif
#endif
