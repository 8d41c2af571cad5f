/* A streamed world's chunk table (core/world_stream.h): its arrays, its
 * sphere tree, loaded chunks taken into the scene, and the loaders held
 * still; below both the residency (world_stream.c) and the write-back
 * (world_save.c), which use them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "vxr/edit.h"
#include "world_stream.h"

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

/* A loaded chunk into the scene (under the lock). */
static vxr_result integrate(vxr_world *w, uint32_t i, vxr_error *err) {
    uint32_t id, inst;
    vxr_result r = vxr_scene_add_octree(w->scene, &w->ready[i], &id, err);
    if (r != VXR_OK) return r;
    const vxr_instance in = vxr_world_chunk_instance(w->e[i].c, w->side, id);
    r = vxr_scene_add_instance(w->scene, &in, &inst, err);
    if (r != VXR_OK) { /* the tree goes back to wait, the model without it */
        w->ready[i] = w->scene->models[id];
        memset(&w->scene->models[id], 0, sizeof w->scene->models[id]);
        vxr_scene_remove_model(w->scene, id);
        return r;
    }
    w->model[i] = id;
    w->version[i] = w->gpu_at[i] = w->scene->model_version[id];
    w->state[i] = RESIDENT;
    w->resident++;
    w->file_bytes += w->bytes[i];
    w->loaded++;
    return VXR_OK;
}

vxr_result vxr_world_take_ready(vxr_world *w, uint64_t limit, vxr_error *err) {
    vxr_result r = VXR_OK;
    uint64_t taken = 0;
    for (uint32_t i = 0; i < w->count && !(taken && taken >= limit); i++) {
        if (w->state[i] != READY) continue; /* one that fails waits; the others go on */
        taken += w->gpu[i];
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
    for (uint32_t k = w->q_next; k < w->q_count; k++)
        if (w->state[w->queue[k]] == QUEUED) w->state[w->queue[k]] = ABSENT;
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
