/* A streamed world's chunk table (core/world_stream.h): its arrays, its
 * sphere tree, a chunk made (read or generated, whole or coarse), loaded
 * chunks taken into the scene (a finer form in place of a coarse one too,
 * vxr_world_refine), and the loaders held still; below both the residency
 * (world_stream.c) and the write-back (world_save.c), which use them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "vxr/edit.h"
#include "procgen.h"
#include "world_stream.h"

/* A generated chunk: its voxels (vxr_terrain_chunk) built into an octree;
 * *bytes its octree's arrays, as a file's size would be. */
static vxr_result generate(const vxr_world *w, const vxr_world_entry *e, vxr_octree *tree,
                           uint64_t *bytes, vxr_error *err) {
    vxr_model_src m = {0};
    memset(tree, 0, sizeof *tree);
    vxr_result r = vxr_terrain_chunk(w->gen_n, w->side, e->c, &m);
    if (r != VXR_OK)
        r = vxr_fail(err, r, "%s: chunk %d %d %d: out of memory", w->dir, e->c[0], e->c[1],
                     e->c[2]);
    for (int k = 0; k < 3; k++) m.box_max[k] = (int32_t)w->side;
    if (r == VXR_OK && m.count) r = vxr_model_build(&m, 1, 1, tree, err);
    free(m.voxels);
    *bytes = (uint64_t)tree->node_count * 8 + (uint64_t)tree->brick_count * 4 +
             vxr_octree_attr_count(tree);
    return r;
}

vxr_result vxr_world_make_chunk(const vxr_world *w, uint32_t i, uint32_t *level, vxr_octree *tree,
                                uint64_t *bytes, uint32_t *whole, vxr_error *err) {
    *bytes = 0;
    *whole = 0;
    uint32_t stored = *level; /* a file's coarse form, read alone */
    const vxr_result r = w->gen_n ? generate(w, &w->e[i], tree, bytes, err)
                                  : vxr_world_read_chunk(w->dir, w->side, &w->e[i], w->colours,
                                                         &stored, tree, bytes, whole, err);
    if (r != VXR_OK) return r;
    if (w->gen_n) *whole = tree->voxel_count;
    /* the coarse form's cubes hold the whole tree's where rays stop at its
     * levels 2 and up, and below its root (vxr_octree_coarse); a stored
     * one was made so */
    const uint32_t most =
        tree->depth >= VXR_BRICK_LEVEL + 2 ? tree->depth - VXR_BRICK_LEVEL - 1 : 0;
    if (*level > most) *level = most;
    vxr_octree coarse;
    if (!w->gen_n && stored) {
        *level = stored;
    } else if (*level &&
               vxr_octree_coarse(tree, w->colours->palette, *level, &coarse, NULL) == VXR_OK) {
        vxr_octree_free(tree);
        *tree = coarse;
    } else {
        *level = 0;
    }
    /* the node colours and the wide form here, not on the render thread
     * at upload (none when out of memory: made at upload instead) */
    if (tree->node_count && !tree->lod_colors) {
        uint32_t *colors = malloc((size_t)tree->node_count * sizeof *colors);
        if (colors) vxr_lod_colors(tree, w->colours->palette, 0, tree->node_count, colors);
        tree->lod_colors = colors;
    }
    if (tree->node_count) vxr_octree_wide(tree, &tree->wide, &tree->wide_count);
    return VXR_OK;
}

/* The per-chunk arrays, for `count` chunks (new ones zero: ABSENT). */
vxr_result vxr_world_grow(vxr_world *w, uint32_t count, vxr_error *err) {
    if (count <= w->cap && w->state) return VXR_OK;
    uint32_t cap = w->cap ? w->cap : 16;
    while (cap < count) cap = cap > UINT32_MAX / 2 ? UINT32_MAX : 2 * cap;
#define GROW(field)                                                                                \
    do {                                                                                           \
        void *p = realloc(w->field, (size_t)cap * sizeof *w->field);                               \
        if (!p) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");                           \
        w->field = p;                                                                              \
        memset(w->field + w->cap, 0, (size_t)(cap - w->cap) * sizeof *w->field);                   \
    } while (0)
    GROW(e);
    GROW(state);
    GROW(model);
    GROW(bytes);
    GROW(seen);
    GROW(version);
    GROW(gpu);
    GROW(gpu_at);
    GROW(ready);
    GROW(level);
    GROW(ask);
    GROW(refine);
    GROW(fine_gpu);
    GROW(fine_bytes);
    GROW(epoch);
    GROW(want_level);
    GROW(queue);
#undef GROW
    w->cap = cap;
    return VXR_OK;
}

/* Chunks from..to-1 into the sphere tree: each chunk's bounding sphere
 * grown by the view distance. */
vxr_result vxr_world_add_spheres(vxr_world *w, uint32_t from, uint32_t to, vxr_error *err) {
    const float half = (float)w->side / 2, reach = w->view_distance + half * sqrtf(3.0f);
    for (uint32_t i = from; i < to; i++) {
        float c[3];
        for (int k = 0; k < 3; k++) c[k] = (float)((int64_t)w->e[i].c[k] * w->side) + half;
        uint32_t handle;
        if (vxr_spheres_insert(w->spheres, c, reach, i, &handle) != VXR_OK)
            return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    }
    return VXR_OK;
}

void vxr_world_evict(vxr_world *w, uint32_t i) {
    const uint64_t bytes = vxr_world_chunk_gpu(w, i);
    w->resident_bytes -= bytes < w->resident_bytes ? bytes : w->resident_bytes;
    w->file_bytes -= w->bytes[i];
    vxr_scene_remove_model(w->scene, w->model[i]);
    if (w->refine[i] == READY) vxr_octree_free(&w->ready[i]);
    w->refine[i] = ABSENT; /* a loader reading a finer tree drops it (finish) */
    w->epoch[i]++;
    w->state[i] = ABSENT;
    w->resident--;
    w->evicted++;
}

/* A loaded chunk into the scene (under the lock); a finer tree in place of
 * the resident one, in the same update, so that no frame lacks it. */
static vxr_result integrate(vxr_world *w, uint32_t i, vxr_error *err) {
    uint32_t id, inst;
    const bool finer = w->state[i] == RESIDENT;
    vxr_result r = vxr_scene_add_octree(w->scene, &w->ready[i], &id, err);
    if (r != VXR_OK) return r;
    vxr_instance in = vxr_world_chunk_instance(w->e[i].c, w->side, id);
    in.transform.scale = (float)(1u << w->ask[i]); /* a coarse form's cells */
    r = vxr_scene_add_instance(w->scene, &in, &inst, err);
    if (r != VXR_OK) { /* the tree goes back to wait, the model without it */
        w->ready[i] = w->scene->models[id];
        memset(&w->scene->models[id], 0, sizeof w->scene->models[id]);
        vxr_scene_remove_model(w->scene, id);
        return r;
    }
    if (finer) {
        w->file_bytes -= w->bytes[i]; /* added again below */
        w->bytes[i] = w->fine_bytes[i];
        w->gpu[i] = w->fine_gpu[i];
        vxr_scene_remove_model(w->scene, w->model[i]);
    } else {
        w->resident++;
        w->loaded++;
    }
    w->refine[i] = ABSENT;
    w->model[i] = id;
    w->level[i] = w->ask[i];
    w->version[i] = w->gpu_at[i] = w->scene->model_version[id];
    w->state[i] = RESIDENT;
    w->file_bytes += w->bytes[i];
    return VXR_OK;
}

vxr_result vxr_world_take_ready(vxr_world *w, uint64_t limit, vxr_error *err) {
    vxr_result r = VXR_OK;
    uint64_t taken = 0;
    for (uint32_t i = 0; i < w->count && !(taken && taken >= limit); i++) {
        const bool finer = w->state[i] == RESIDENT && w->refine[i] == READY;
        /* never over edits, nor coarser than the last update wants now */
        if (finer && (vxr_world_chunk_edited(w, i) ||
                      (w->ask[i] > w->level[i] && w->ask[i] > w->want_level[i]))) {
            vxr_octree_free(&w->ready[i]);
            w->refine[i] = ABSENT;
            continue;
        }
        if (w->state[i] != READY && !finer) continue; /* one that fails waits; the others go on */
        taken += finer ? w->fine_gpu[i] : w->gpu[i];
        const vxr_result q = integrate(w, i, r == VXR_OK ? err : NULL);
        if (r == VXR_OK) r = q;
    }
    return r;
}

uint64_t vxr_world_chunk_gpu(vxr_world *w, uint32_t i) {
    if (w->state[i] == RESIDENT && w->gpu_at[i] != w->scene->model_version[w->model[i]]) {
        w->gpu[i] = vxr_octree_gpu_bytes(&w->scene->models[w->model[i]]);
        w->gpu_at[i] = w->scene->model_version[w->model[i]];
    }
    return w->gpu[i];
}

bool vxr_world_chunk_edited(const vxr_world *w, uint32_t i) {
    return w->state[i] == RESIDENT && w->scene->model_version[w->model[i]] != w->version[i];
}

void vxr_world_drop_queue(vxr_world *w) {
    for (uint32_t k = w->q_next; k < w->q_count; k++) {
        const uint32_t i = w->queue[k];
        if (w->state[i] == QUEUED) w->state[i] = ABSENT;
        if (w->state[i] == RESIDENT && w->refine[i] == QUEUED) w->refine[i] = ABSENT;
    }
    w->q_next = w->q_count = 0;
}

vxr_result vxr_world_take_failure(vxr_world *w, vxr_result r, vxr_error *err) {
    if (r != VXR_OK || !w->failed) return r;
    w->failed = false;
    return vxr_fail(err, w->failure_code, "%s", w->failure.message);
}

void vxr_world_quiesce(vxr_world *w) {
    pthread_mutex_lock(&w->lock);
    vxr_world_drop_queue(w);
    while (w->busy) pthread_cond_wait(&w->done, &w->lock);
    pthread_mutex_unlock(&w->lock);
}

vxr_result vxr_world_refine(vxr_world *w, uint32_t model, bool *changed, vxr_error *err) {
    if (changed) *changed = false;
    pthread_mutex_lock(&w->lock);
    uint32_t i = 0;
    while (i < w->count && !(w->state[i] == RESIDENT && w->model[i] == model)) i++;
    pthread_mutex_unlock(&w->lock);
    /* model and level change on this thread alone: read without the lock */
    if (i == w->count || !w->level[i]) return VXR_OK;
    if (vxr_world_chunk_edited(w, i))
        return vxr_fail(err, VXR_ERROR_ARGUMENT,
                        "%s: chunk %d %d %d was edited as a coarse form (level %u): reading it "
                        "whole would drop the edits",
                        w->dir, w->e[i].c[0], w->e[i].c[1], w->e[i].c[2], w->level[i]);
    vxr_world_quiesce(w); /* no loader reads it now: a finer tree is ready or not asked for */
    vxr_result r = VXR_OK;
    if (w->refine[i] != READY || w->ask[i]) {
        uint32_t level = 0, whole;
        uint64_t bytes;
        vxr_octree tree;
        r = vxr_world_make_chunk(w, i, &level, &tree, &bytes, &whole, err);
        if (r != VXR_OK) return r;
        if (!tree.voxel_count) { /* a generated chunk is never empty once made */
            vxr_octree_free(&tree);
            return VXR_OK;
        }
        if (w->refine[i] == READY) vxr_octree_free(&w->ready[i]);
        w->ready[i] = tree;
        w->ask[i] = 0;
        w->fine_gpu[i] = vxr_octree_gpu_bytes(&tree);
        w->fine_bytes[i] = bytes;
        w->refine[i] = READY;
    }
    pthread_mutex_lock(&w->lock);
    r = vxr_world_take_ready(w, UINT64_MAX, err);
    pthread_mutex_unlock(&w->lock);
    if (changed)
        *changed =
            w->state[i] == RESIDENT && w->model[i] != model; /* even when another chunk failed */
    return r;
}
