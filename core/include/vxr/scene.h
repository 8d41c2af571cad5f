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
#include "vxr/journal.h"
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

struct vxr_model_gen;

/* One model before construction: a growable voxel list, or a generator
 * (gen not NULL; voxels, count and capacity then stay empty) that makes
 * the voxels region by region as the build asks for them, so that a large
 * model never exists as one list.
 *
 * box_min, box_max: a box a list's voxels are expected in (min inclusive,
 * max exclusive), such as a .vox model's size; all zero when unknown. It
 * is a hint, never trusted: with it the bulk build of a dense model of up
 * to 256^3 cells (palette colours) reads the list once instead of twice,
 * and a list that leaves it builds the usual way, to the same octree. */
typedef struct vxr_model_src {
    vxr_voxel *voxels;
    size_t count, capacity;
    struct vxr_model_gen *gen; /* owned: malloc'd, freed by vxr_scene_src_free */
    int32_t box_min[3], box_max[3];
} vxr_model_src;

/* A model given by a function. The bulk build (vxr_model_build) cuts the
 * model's root cube into aligned cubes and calls emit once for each cube
 * that meets the bounds, with the box where the two overlap, from several
 * threads at once; vxr_model_src_materialize calls it once, for the whole
 * bounds.
 *
 * emit appends to dest (vxr_model_src_push) every voxel of the model inside
 * the box [lo, hi) (model cells, max exclusive) and no other; a cell given
 * twice in one call takes the later colour. The voxels of a box must not
 * depend on the calls made before, and emit must be safe to call from
 * several threads at once (user is shared, dest is the caller's). It
 * returns VXR_OK, or a failure that the build returns. The model is the
 * union of the boxes' voxels, so the octree is the one vxr_octree_build
 * makes of the materialised list.
 *
 * vmin, vmax: the tight bounds of the voxels (min inclusive, max
 * exclusive, within +-2^20), the box of the first call. Any axis with
 * vmin >= vmax means an empty model. A build fails with VXR_ERROR_ARGUMENT
 * when the voxels do not span exactly these bounds or fall outside their
 * box. voxels_hint: about how many voxels there are (0: unknown); the
 * build sizes its arrays by it, so a little over is better than under. */
typedef struct vxr_model_gen {
    vxr_result (*emit)(void *user, const int32_t lo[3], const int32_t hi[3], vxr_model_src *dest);
    void (*destroy)(void *user); /* frees user; may be NULL */
    void *user;
    int32_t vmin[3], vmax[3];
    uint64_t voxels_hint;
} vxr_model_gen;

/* A scene before construction. attr_size is 1 when every colour is a palette
 * index into palette[] (entry 0 unused), 4 when colours are RGBA8. */
typedef struct vxr_scene_src {
    vxr_model_src *models;
    uint32_t model_count, model_capacity;
    vxr_instance *instances;
    uint32_t instance_count, instance_capacity;
    uint32_t palette[VXR_PALETTE_SIZE];
    vxr_material materials[VXR_PALETTE_SIZE]; /* per palette entry; zero: diffuse */
    uint32_t attr_size;
    /* MagicaVoxel chunks kept whole for the .vox writer (vxr_save_vox), in
     * file order: the scene graph (nTRN, nGRP, nSHP, LAYR: names, layers,
     * animation frames) with each model's SIZE, and, unread, rOBJ, rCAM,
     * NOTE and IMAP (render settings, cameras, palette notes and order);
     * owned, freed by vxr_scene_src_free. vox_frame: the animation frame
     * the instances were read at. */
    uint8_t *vox_chunks;
    size_t vox_chunks_size;
    uint32_t vox_frame;
} vxr_scene_src;

/* A built scene: plain data. Create with vxr_scene_build or a loader of
 * vxr/formats.h, free with vxr_scene_destroy. Read-only to callers: change
 * instances through vxr/edit.h (vxr_scene_set_transform, _set_flags,
 * _set_view_distance, ...), which keeps the versions and the journal
 * (vxr/journal.h) that the culler, renderers and pickers follow; the culler sets
 * VXR_INSTANCE_CULLED the same way. A caller that writes an instance in
 * place must call vxr_scene_touch_instance for it, or no consumer sees the
 * change. */
typedef struct vxr_scene {
    vxr_octree *models;
    uint32_t model_count;
    vxr_instance *instances;
    uint32_t instance_count;
    uint32_t palette[VXR_PALETTE_SIZE];
    vxr_material materials[VXR_PALETTE_SIZE]; /* per palette entry; zero: diffuse */
    uint32_t attr_size;
    double build_s; /* seconds spent building octrees (0 when loaded) */
    /* Changes (vxr/edit.h): version counts them; each model and instance
     * holds the version of its last change (0: as built). */
    uint64_t version;
    uint64_t *model_version, *instance_version;
    /* The version at which each model was added (0: built or loaded with
     * the scene): a model id that vxr_scene_add_model reuses gets a new
     * one, so a holder of (id, model_added[id]) can tell the model it knew
     * from a later one (the editor's journal does). */
    uint64_t *model_added;
    /* The version at which each instance's transform last changed (0: as
     * built): a pick record of a frame that saw version v expands only
     * while instance_moved <= v (vxr_pick_expand). */
    uint64_t *instance_moved;
    uint32_t model_capacity, instance_capacity; /* of the six arrays */
    /* The change journal (vxr/journal.h): journal[0 .. journal_count) are
     * the entries numbered journal_from on (the earlier ones are
     * forgotten). Owned by the scene, written only by vxr/edit.h. */
    vxr_change *journal;
    uint64_t journal_from;
    uint32_t journal_count, journal_capacity;
    /* The source's vox_chunks (a copy, owned by the scene) and vox_frame. */
    uint8_t *vox_chunks;
    size_t vox_chunks_size;
    uint32_t vox_frame;
} vxr_scene;

/* Scene-source helpers for loaders and generators. Each returns
 * VXR_ERROR_MEMORY when an allocation fails, leaving the source valid. */
VXR_API void vxr_scene_src_init(vxr_scene_src *src, uint32_t attr_size);
VXR_API vxr_result vxr_scene_src_add_model(vxr_scene_src *src, uint32_t *index);
VXR_API vxr_result vxr_scene_src_add_instance(vxr_scene_src *src, const vxr_instance *inst);
VXR_API vxr_result vxr_model_src_push(vxr_model_src *m, int32_t x, int32_t y, int32_t z,
                                      uint32_t color);
/* Turns a generator model into its voxel list (one emit over its bounds),
 * then destroys the generator; a list model is left as it is. On failure
 * (VXR_ERROR_MEMORY, or what emit returned) the model keeps its generator
 * and no list, and err says why. */
VXR_API vxr_result vxr_model_src_materialize(vxr_model_src *m, vxr_error *err);
/* Frees all arrays and generators of a source and zeroes it; NULL is a
 * no-op. */
VXR_API void vxr_scene_src_free(vxr_scene_src *src);

/* Builds one model's octree with the bulk path (vxr_octree_build's
 * contract and output), from its list or its generator, on up to
 * `threads` threads, the caller's included: 0 every online CPU, 1 the
 * caller only. The result is the same for any thread count. Threads are
 * the core's worker threads (made on first use, one per online CPU but
 * one, kept until the process ends); while another call has them, this one
 * runs on its caller alone. A generator's failures: VXR_ERROR_ARGUMENT for
 * a voxel outside its box, a bad palette index or bounds that are not
 * tight, VXR_ERROR_LIMIT for bounds beyond +-2^20, or what emit returned. */
VXR_API vxr_result vxr_model_build(const vxr_model_src *model, uint32_t attr_size, uint32_t threads,
                                   vxr_octree *dest, vxr_error *err);

/* Builds every model's octree (bulk path, vxr_scene_build_threads on every
 * online CPU). On success *dest is a new scene the caller destroys; on
 * failure *dest is NULL. Instances must name existing models and carry
 * finite transforms with scale > 0. */
VXR_API vxr_result vxr_scene_build(const vxr_scene_src *src, vxr_scene **dest, vxr_error *err);
/* vxr_scene_build on up to `threads` threads (as vxr_model_build: 0 every
 * online CPU, 1 the caller only): large models one after another, each
 * over the threads, the others side by side, a thread each. The scene is
 * the same for any thread count, and so is the failure: the lowest
 * failing model's. */
VXR_API vxr_result vxr_scene_build_threads(const vxr_scene_src *src, uint32_t threads,
                                           vxr_scene **dest, vxr_error *err);
/* The threads a build given `threads` asks for: the count itself, or for 0
 * the online CPUs (it may get fewer, when the system gave the core fewer
 * workers). */
VXR_API uint32_t vxr_build_threads(uint32_t threads);
/* The code the bulk build runs: "x86-64-v3" where the library has that
 * variant (x86-64 builds whose compiler takes -march=x86-64-v3) and the
 * CPU has every feature of that level, unless the environment variable
 * VXR_CPU is "baseline" (read once); else "baseline". The octrees are the
 * same either way (tests hold both to the incremental build). A static
 * string. */
VXR_API const char *vxr_build_isa(void);
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
