/* A world opened for streaming (vxr/world.h): chunks within view distance
 * become resident, read by loader threads, and join the world's scene in
 * vxr_world_update, which never waits for a load; over the budget, the
 * chunks not wanted go, farthest first. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "vxr/edit.h"
#include "vxr/spheres.h"
#include "vxr/world.h"

enum { PATH_BYTES = 4096 };

enum chunk_state { ABSENT, QUEUED, LOADING, READY, RESIDENT, FAILED };

struct vxr_world {
    char dir[PATH_BYTES];
    uint32_t side, count;
    vxr_world_entry *e;
    float view_distance;
    uint64_t budget;
    vxr_scene *scene;
    vxr_scene *colours; /* the palette alone: what the loaders read */
    vxr_spheres *spheres;
    /* per chunk; state, ready and the queue are the loaders' too (lock) */
    uint8_t *state;
    uint32_t *model;   /* RESIDENT: its model in the scene */
    uint64_t *bytes;   /* RESIDENT: its file's size */
    uint64_t *seen;    /* the last update that wanted it */
    uint64_t *version; /* RESIDENT: its model's version when it came in */
    vxr_octree *ready; /* READY: loaded, not yet in the scene */
    uint64_t updates;
    uint64_t resident_bytes, loaded, evicted;
    uint32_t resident;
    /* the loaders */
    pthread_t *threads;
    uint32_t n_threads, started;
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    uint32_t *queue; /* chunk indices, nearest first */
    uint32_t q_next, q_count;
    uint32_t busy;
    bool stop;
    vxr_error failure; /* the first load that failed, not yet reported */
    vxr_result failure_code;
    bool failed;
};

static void *loader(void *arg) {
    vxr_world *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->stop && w->q_next == w->q_count) pthread_cond_wait(&w->wake, &w->lock);
        if (w->stop) break;
        const uint32_t i = w->queue[w->q_next++];
        if (w->state[i] != QUEUED) continue;
        w->state[i] = LOADING;
        w->busy++;
        pthread_mutex_unlock(&w->lock);
        vxr_octree tree;
        uint64_t bytes = 0;
        vxr_error err = {{0}};
        const vxr_result r =
            vxr_world_read_chunk(w->dir, w->side, &w->e[i], w->colours, &tree, &bytes, &err);
        pthread_mutex_lock(&w->lock);
        w->busy--;
        if (r == VXR_OK) {
            w->ready[i] = tree;
            w->bytes[i] = bytes;
            w->state[i] = READY;
        } else {
            w->state[i] = FAILED;
            if (!w->failed) {
                w->failure = err;
                w->failure_code = r;
            }
            w->failed = true;
        }
        pthread_cond_broadcast(&w->done);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

void vxr_world_close(vxr_world *w) {
    if (!w) return;
    if (w->started) {
        pthread_mutex_lock(&w->lock);
        w->stop = true;
        pthread_cond_broadcast(&w->wake);
        pthread_mutex_unlock(&w->lock);
        for (uint32_t t = 0; t < w->started; t++) pthread_join(w->threads[t], NULL);
    }
    for (uint32_t i = 0; w->state && i < w->count; i++)
        if (w->state[i] == READY) vxr_octree_free(&w->ready[i]);
    if (w->started || w->threads) {
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->wake);
        pthread_cond_destroy(&w->done);
    }
    vxr_scene_destroy(w->scene);
    vxr_scene_destroy(w->colours);
    vxr_spheres_destroy(w->spheres);
    VXR_FREE(w->e, w->state, w->model, w->bytes, w->seen, w->version, w->ready, w->threads,
             w->queue, w);
}

vxr_result vxr_world_open(const vxr_world_desc *desc, vxr_world **dest, vxr_error *err) {
    *dest = NULL;
    if (!(desc->view_distance >= 0) || !isfinite(desc->view_distance))
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "view distance %g: finite and >= 0",
                        (double)desc->view_distance);
    vxr_world *w = calloc(1, sizeof *w);
    if (!w) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    w->view_distance = desc->view_distance;
    w->budget = desc->budget_bytes;
    vxr_result r = vxr_world_index_path(desc->path, w->dir, sizeof w->dir, err);
    if (r == VXR_OK) r = vxr_world_read_index(w->dir, &w->side, &w->e, &w->count, err);
    if (r == VXR_OK) {
        const size_t n = w->count ? w->count : 1;
        w->scene = vxr_scene_alloc(0, 0);
        w->colours = vxr_scene_alloc(0, 0);
        w->state = calloc(n, sizeof *w->state);
        w->model = calloc(n, sizeof *w->model);
        w->bytes = calloc(n, sizeof *w->bytes);
        w->seen = calloc(n, sizeof *w->seen);
        w->version = calloc(n, sizeof *w->version);
        w->ready = calloc(n, sizeof *w->ready);
        w->queue = calloc(n, sizeof *w->queue);
        w->n_threads = desc->threads ? desc->threads : 1;
        w->threads = calloc(w->n_threads, sizeof *w->threads);
        if (!w->scene || !w->colours || !w->state || !w->model || !w->bytes || !w->seen ||
            !w->version || !w->ready || !w->queue || !w->threads ||
            vxr_spheres_create(&w->spheres) != VXR_OK)
            r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    }
    if (r == VXR_OK && w->view_distance == 0) w->view_distance = 4.0f * (float)w->side;
    if (r == VXR_OK) r = vxr_world_read_palette(w->dir, w->colours, err);
    if (r == VXR_OK) {
        memcpy(w->scene->palette, w->colours->palette, sizeof w->scene->palette);
        memcpy(w->scene->materials, w->colours->materials, sizeof w->scene->materials);
        w->scene->attr_size = w->colours->attr_size;
    }
    /* a sphere per chunk: its bounding sphere grown by the view distance */
    const float half = (float)w->side / 2, reach = w->view_distance + half * sqrtf(3.0f);
    for (uint32_t i = 0; r == VXR_OK && i < w->count; i++) {
        float c[3];
        for (int k = 0; k < 3; k++) c[k] = (float)((int64_t)w->e[i].c[k] * w->side) + half;
        uint32_t handle;
        if (vxr_spheres_insert(w->spheres, c, reach, i, &handle) != VXR_OK)
            r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    }
    if (r == VXR_OK) {
        pthread_mutex_init(&w->lock, NULL);
        pthread_cond_init(&w->wake, NULL);
        pthread_cond_init(&w->done, NULL);
        for (; w->started < w->n_threads; w->started++)
            if (pthread_create(&w->threads[w->started], NULL, loader, w) != 0) break;
        if (!w->started) r = vxr_fail(err, VXR_ERROR_MEMORY, "cannot start a loader thread");
    }
    if (r != VXR_OK) {
        vxr_world_close(w);
        return r;
    }
    *dest = w;
    return VXR_OK;
}

vxr_scene *vxr_world_scene(vxr_world *w) {
    return w->scene;
}

/* The distance from p to chunk i's centre. */
static float centre_distance(const vxr_world *w, uint32_t i, const float p[3]) {
    float d2 = 0;
    for (int k = 0; k < 3; k++) {
        const float d = (float)((int64_t)w->e[i].c[k] * w->side) + (float)w->side / 2 - p[k];
        d2 += d * d;
    }
    return sqrtf(d2);
}

typedef struct by_distance {
    float d;
    uint32_t i;
} by_distance;

static int cmp_distance(const void *a, const void *b) {
    const by_distance *x = a, *y = b;
    if (x->d != y->d) return x->d < y->d ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* A loaded chunk into the scene (under the lock). */
static vxr_result integrate(vxr_world *w, uint32_t i, vxr_error *err) {
    uint32_t id, inst;
    vxr_result r = vxr_scene_add_octree(w->scene, &w->ready[i], &id, err);
    if (r != VXR_OK) return r;
    const vxr_instance in = vxr_world_chunk_instance(w->e[i].c, w->side, id);
    r = vxr_scene_add_instance(w->scene, &in, &inst, err);
    if (r != VXR_OK) {
        vxr_scene_remove_model(w->scene, id);
        return r;
    }
    w->model[i] = id;
    w->version[i] = w->scene->model_version[id];
    w->state[i] = RESIDENT;
    w->resident++;
    w->resident_bytes += w->bytes[i];
    w->loaded++;
    return VXR_OK;
}

static void evict(vxr_world *w, uint32_t i) {
    vxr_scene_remove_model(w->scene, w->model[i]);
    w->state[i] = ABSENT;
    w->resident--;
    w->resident_bytes -= w->bytes[i];
    w->evicted++;
}

vxr_result vxr_world_update(vxr_world *w, const float eye[3], vxr_world_status *st,
                            vxr_error *err) {
    vxr_result r = VXR_OK;
    w->updates++;
    size_t n = vxr_spheres_collect(w->spheres, eye, true, NULL, 0);
    uint32_t *handles = malloc((n ? n : 1) * sizeof *handles);
    by_distance *want = malloc((n ? n : 1) * sizeof *want);
    by_distance *out = malloc((w->count ? w->count : 1) * sizeof *out);
    if (!handles || !want || !out) {
        VXR_FREE(handles, want, out);
        return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    }
    n = vxr_spheres_collect(w->spheres, eye, true, handles, n);
    for (size_t k = 0; k < n; k++) {
        uint64_t i = 0;
        vxr_spheres_get(w->spheres, handles[k], NULL, NULL, &i);
        want[k] = (by_distance){centre_distance(w, (uint32_t)i, eye), (uint32_t)i};
        w->seen[i] = w->updates;
    }
    if (n) qsort(want, n, sizeof *want, cmp_distance);
    pthread_mutex_lock(&w->lock);
    /* what the loaders finished */
    for (uint32_t i = 0; r == VXR_OK && i < w->count; i++)
        if (w->state[i] == READY) r = integrate(w, i, err);
    /* what the wanted chunks not resident would take: about a byte a voxel,
     * a guess until they are read */
    uint64_t need = 0;
    for (size_t k = 0; k < n; k++)
        if (w->state[want[k].i] != RESIDENT) need += w->e[want[k].i].voxels;
    /* over the budget: the chunks not wanted now go, farthest first */
    uint32_t n_out = 0;
    for (uint32_t i = 0; i < w->count; i++)
        if (w->state[i] == RESIDENT && w->seen[i] != w->updates &&
            w->scene->model_version[w->model[i]] == w->version[i]) /* edited: kept */
            out[n_out++] = (by_distance){-centre_distance(w, i, eye), i};
    if (n_out) qsort(out, n_out, sizeof *out, cmp_distance);
    for (uint32_t k = 0; w->budget && k < n_out && w->resident_bytes + need > w->budget; k++)
        evict(w, out[k].i);
    /* the requests: wanted chunks not resident, nearest first, while the budget lasts */
    for (uint32_t k = w->q_next; k < w->q_count; k++)
        if (w->state[w->queue[k]] == QUEUED) w->state[w->queue[k]] = ABSENT;
    w->q_next = w->q_count = 0;
    uint32_t incomplete = 0;
    uint64_t expect = w->resident_bytes;
    for (size_t k = 0; k < n; k++) {
        const uint32_t i = want[k].i;
        if (w->state[i] == RESIDENT) continue;
        incomplete++;
        if (w->state[i] != ABSENT || (w->budget && expect >= w->budget)) continue;
        w->state[i] = QUEUED;
        w->queue[w->q_count++] = i;
        expect += w->e[i].voxels;
    }
    if (w->q_count) pthread_cond_broadcast(&w->wake);
    if (st) {
        memset(st, 0, sizeof *st);
        st->chunks = w->count;
        st->view_distance = w->view_distance;
        st->wanted = (uint32_t)n;
        st->resident = w->resident;
        st->missing = incomplete;
        st->loading = w->q_count + w->busy;
        st->loaded = w->loaded;
        st->evicted = w->evicted;
        st->resident_bytes = w->resident_bytes;
    }
    if (r == VXR_OK && w->failed) { /* said once; that chunk is not asked for again */
        r = vxr_fail(err, w->failure_code, "%s", w->failure.message);
        w->failed = false;
    }
    pthread_mutex_unlock(&w->lock);
    VXR_FREE(handles, want, out);
    return r;
}

void vxr_world_wait(vxr_world *w) {
    pthread_mutex_lock(&w->lock);
    while (w->q_next < w->q_count || w->busy) pthread_cond_wait(&w->done, &w->lock);
    pthread_mutex_unlock(&w->lock);
}

void vxr_world_bounds(const vxr_world *w, int64_t min[3], int64_t max[3], uint32_t *side) {
    for (int k = 0; k < 3; k++) min[k] = max[k] = 0;
    for (uint32_t i = 0; i < w->count; i++)
        for (int k = 0; k < 3; k++) {
            const int64_t lo = (int64_t)w->e[i].c[k] * w->side;
            if (i == 0 || lo < min[k]) min[k] = lo;
            if (i == 0 || lo + w->side > max[k]) max[k] = lo + w->side;
        }
    if (side) *side = w->side;
}
