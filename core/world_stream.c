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
#include "procgen.h"
#include "world_stream.h"

/* A chunk left behind is made coarser where it would be at this fraction
 * of its distance (wanted_level). */
static const double COARSEN_NEAR = 0.8;

/* A loaded tree for chunk i (under the lock): ready to be taken in, or
 * freed when the chunk no longer waits for it (evicted while a finer tree
 * was read). */
static void finish(vxr_world *w, uint32_t i, bool finer, uint32_t epoch, vxr_result r,
                   vxr_octree *tree, uint32_t level, uint64_t bytes, uint64_t gpu, vxr_error *err) {
    if (finer && (w->state[i] != RESIDENT || w->refine[i] != LOADING || w->epoch[i] != epoch)) {
        if (r == VXR_OK) vxr_octree_free(tree); /* evicted meanwhile: nobody waits for it */
        return;
    }
    if (r == VXR_OK && !tree->voxel_count) { /* generated empty: not asked for again */
        vxr_octree_free(tree);
        if (finer) {
            w->refine[i] = ABSENT;
        } else {
            w->e[i].voxels = 0;
            w->state[i] = ABSENT;
        }
    } else if (r == VXR_OK) {
        w->ready[i] = *tree;
        w->ask[i] = (uint8_t)level;
        if (finer) { /* the resident one's counts stay until it takes its place */
            w->fine_gpu[i] = gpu;
            w->fine_bytes[i] = bytes;
        } else {
            w->bytes[i] = bytes;
            w->gpu[i] = gpu;
        }
        *(finer ? &w->refine[i] : &w->state[i]) = READY;
    } else {
        *(finer ? &w->refine[i] : &w->state[i]) = FAILED;
        if (!w->failed) {
            w->failure = *err;
            w->failure_code = r;
        }
        w->failed = true;
    }
}

static void *loader(void *arg) {
    vxr_world *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->stop && w->q_next == w->q_count) pthread_cond_wait(&w->wake, &w->lock);
        if (w->stop) break;
        const uint32_t i = w->queue[w->q_next++];
        const bool finer = w->state[i] == RESIDENT && w->refine[i] == QUEUED;
        if (!finer && w->state[i] != QUEUED) continue;
        *(finer ? &w->refine[i] : &w->state[i]) = LOADING;
        uint32_t level = w->ask[i];
        const uint32_t epoch = w->epoch[i];
        w->busy++;
        pthread_mutex_unlock(&w->lock);
        vxr_octree tree;
        uint64_t bytes = 0;
        uint32_t whole = 0;
        vxr_error err = {{0}};
        const double start = vxr_seconds();
        const vxr_result r = vxr_world_make_chunk(w, i, &level, &tree, &bytes, &whole, &err);
        const double took = vxr_seconds() - start;
        const uint64_t gpu = r == VXR_OK ? vxr_octree_gpu_bytes(&tree) : 0;
        pthread_mutex_lock(&w->lock);
        w->busy--;
        w->made_seconds += took;
        if (r == VXR_OK) {
            w->made_voxels += whole;
            w->e[i].voxels = whole; /* the guess made good */
            if (!level) {
                w->made_bytes += gpu;
                w->made_whole += whole;
            }
        }
        finish(w, i, finer, epoch, r, &tree, level, bytes, gpu, &err);
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
        if (w->state[i] == READY || (w->state[i] == RESIDENT && w->refine[i] == READY))
            vxr_octree_free(&w->ready[i]);
    if (w->synced) {
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->wake);
        pthread_cond_destroy(&w->done);
    }
    vxr_scene_destroy(w->scene);
    vxr_scene_destroy(w->colours);
    vxr_spheres_destroy(w->spheres);
    VXR_FREE(w->e, w->state, w->model, w->bytes, w->seen, w->version, w->gpu, w->gpu_at, w->ready,
             w->level, w->ask, w->refine, w->fine_gpu, w->fine_bytes, w->epoch, w->want_level,
             w->threads, w->queue, w);
}

/* The chunks of a generated world (@terrain:N): every chunk of side
 * `chunk` (0: the default) that the terrain's columns and heights meet, a
 * guess of three voxels a column for each until it is made. */
static vxr_result generated_entries(vxr_world *w, uint32_t chunk, vxr_world_entry **e,
                                    vxr_error *err) {
    const uint32_t s = chunk ? chunk : VXR_WORLD_CHUNK_DEFAULT;
    if (s < VXR_WORLD_CHUNK_MIN || s > VXR_WORLD_CHUNK_MAX || (s & (s - 1)))
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "chunk side %u: a power of two from %u to %u", s,
                        VXR_WORLD_CHUNK_MIN, VXR_WORLD_CHUNK_MAX);
    w->side = s;
    int32_t lo, hi, layers;
    vxr_terrain_grid(w->gen_n, s, &lo, &hi, &layers);
    const int64_t count = (int64_t)(hi - lo + 1) * (hi - lo + 1) * layers;
    if (count > VXR_WORLD_MAX_CHUNKS)
        return vxr_fail(err, VXR_ERROR_LIMIT, "%s in chunks of %u: %lld chunks, more than %u",
                        w->dir, s, (long long)count, VXR_WORLD_MAX_CHUNKS);
    *e = malloc((size_t)count * sizeof **e);
    if (!*e) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    uint32_t n = 0;
    for (int32_t z = 0; z < layers; z++)
        for (int32_t y = lo; y <= hi; y++)
            for (int32_t x = lo; x <= hi; x++)
                (*e)[n++] = (vxr_world_entry){{x, y, z}, 3ull * s * s};
    w->count = n;
    return VXR_OK;
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
    vxr_result r;
    vxr_world_entry *e = NULL;
    if (desc->path[0] == '@') { /* generated: dir holds its name, for messages */
        snprintf(w->dir, sizeof w->dir, "%.200s", desc->path);
        r = vxr_terrain_spec(desc->path, &w->gen_n, err);
        if (r == VXR_OK) r = generated_entries(w, desc->chunk, &e, err);
    } else {
        r = vxr_world_index_path(desc->path, w->dir, sizeof w->dir, err);
        if (r == VXR_OK) r = vxr_world_read_index(w->dir, &w->side, &e, &w->count, err);
    }
    if (r == VXR_OK) {
        w->scene = vxr_scene_alloc(0, 0);
        w->colours = vxr_scene_alloc(0, 0);
        w->n_threads = desc->threads ? desc->threads : 1;
        w->threads = calloc(w->n_threads, sizeof *w->threads);
        if (!w->scene || !w->colours || !w->threads || vxr_spheres_create(&w->spheres) != VXR_OK)
            r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    }
    if (r == VXR_OK) r = vxr_world_grow(w, w->count, err);
    if (r == VXR_OK && w->count) memcpy(w->e, e, w->count * sizeof *e);
    free(e);
    if (r == VXR_OK && w->view_distance == 0) w->view_distance = 4.0f * (float)w->side;
    if (r == VXR_OK && w->gen_n) {
        vxr_gen_palette(w->colours->palette);
        w->colours->attr_size = 1;
    } else if (r == VXR_OK) {
        r = vxr_world_read_palette(w->dir, w->colours, err);
    }
    if (r == VXR_OK) {
        memcpy(w->scene->palette, w->colours->palette, sizeof w->scene->palette);
        memcpy(w->scene->materials, w->colours->materials, sizeof w->scene->materials);
        w->scene->attr_size = w->colours->attr_size;
    }
    if (r == VXR_OK) r = vxr_world_add_spheres(w, 0, w->count, err);
    if (r == VXR_OK) {
        pthread_mutex_init(&w->lock, NULL);
        pthread_cond_init(&w->wake, NULL);
        pthread_cond_init(&w->done, NULL);
        w->synced = true;
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

void vxr_world_set_budget(vxr_world *w, uint64_t budget) {
    w->budget = budget; /* read by vxr_world_update alone, on this thread */
}

vxr_scene *vxr_world_scene(vxr_world *w) {
    return w->scene;
}

vxr_scene *vxr_world_detach_scene(vxr_world *w) {
    vxr_world_quiesce(w);
    vxr_scene *s = w->scene;
    w->scene = NULL;
    return s;
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

/* The level of detail chunk i is wanted at from p (vxr_world_set_lod):
 * the highest level L of 1 to 3 at which every ray from p stops in the
 * chunk at levels L + 2 and up (its edge 2^(L + 2) under the footprint
 * at the chunk's box, with a margin for the walks' rounding), which the
 * coarse form of level L holds whole; 0 when none is. With `near` below
 * 1, the level for p that much nearer: a chunk is made coarser only well
 * past the rule's bound, so that one at the bound does not go back and
 * forth. */
static uint32_t wanted_level(const vxr_world *w, uint32_t i, const float p[3], double near) {
    if (!(w->lod_k > 0.0f)) return 0;
    double d2 = 0;
    for (int k = 0; k < 3; k++) {
        const double lo = (double)w->e[i].c[k] * w->side, hi = lo + w->side;
        const double out = p[k] < lo ? lo - p[k] : p[k] > hi ? p[k] - hi : 0;
        d2 += out * out;
    }
    const double footprint = 0.98 * w->lod_k * (w->lod_fixed ? 1.0 : near * sqrt(d2));
    uint32_t level = 0;
    while (level < VXR_LOD_MAX_LEVEL - VXR_LOD_MIN_LEVEL &&
           (double)(1u << (level + 1 + VXR_LOD_MIN_LEVEL)) < footprint)
        level++;
    return level;
}

void vxr_world_set_lod(vxr_world *w, float k, bool fixed) {
    w->lod_k = k > 0.0f && isfinite(k) ? k : 0.0f;
    w->lod_fixed = fixed;
}

typedef struct by_distance {
    float d;
    uint32_t i, level; /* wanted: the level of detail wanted */
    uint32_t far;      /* the level a finer chunk is made coarser at (wanted_level) */
} by_distance;

static int cmp_distance(const void *a, const void *b) {
    const by_distance *x = a, *y = b;
    if (x->d != y->d) return x->d < y->d ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* What one update takes in of the chunks the loaders made (bytes, at
 * least one chunk): a share of the budget, so that the uploads of a frame
 * and the renderer's staging stay small beside it. */
static uint64_t take_limit(const vxr_world *w) {
    const uint64_t most = 16ull << 20, least = 1ull << 20;
    if (!w->budget) return most;
    const uint64_t share = w->budget / 16;
    return share < least ? least : share > most ? most : share;
}

/* The resident models' bytes as they are now (edits change them). */
static uint64_t resident_now(vxr_world *w) {
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < w->count; i++)
        if (w->state[i] == RESIDENT) bytes += vxr_world_chunk_gpu(w, i);
    return bytes;
}

/* A wanted chunk's bytes at `level`: its tree's when read, else its
 * voxels at the bytes a voxel of the whole chunks made so far (3 before
 * any), a quarter less a level (surfaces), a guess. */
static uint64_t chunk_guess(const vxr_world *w, uint32_t i, uint32_t level) {
    if (w->state[i] == READY) return w->gpu[i];
    if (w->state[i] == RESIDENT && w->refine[i] == READY) return w->fine_gpu[i];
    const double per_voxel = w->made_whole ? (double)w->made_bytes / (double)w->made_whole : 3.0;
    return (uint64_t)(per_voxel * (double)w->e[i].voxels) >> (2 * level);
}

/* Whether resident chunk i is held coarser than `level` and a finer tree
 * may still come. */
static bool wants_finer(const vxr_world *w, uint32_t i, uint32_t level) {
    return w->state[i] == RESIDENT && w->level[i] > level && w->refine[i] != FAILED &&
           !vxr_world_chunk_edited(w, i);
}

/* Whether resident chunk i, finer than `far` (the level a finer one is
 * coarsened at), may be read again at that level: its bytes fall, its
 * frames and picks stay those of the whole chunk. */
static bool wants_coarser(const vxr_world *w, uint32_t i, uint32_t far) {
    return w->state[i] == RESIDENT && w->level[i] < far && w->refine[i] != FAILED &&
           !vxr_world_chunk_edited(w, i);
}

/* `level`, or less when resident chunk i's whole tree is too shallow for
 * it (vxr_world_make_chunk's bound, from the resident model's depth). */
static uint32_t level_for(const vxr_world *w, uint32_t i, uint32_t level) {
    const uint32_t depth = w->scene->models[w->model[i]].depth + w->level[i];
    const uint32_t most = depth >= VXR_BRICK_LEVEL + 2 ? depth - VXR_BRICK_LEVEL - 1 : 0;
    return level < most ? level : most;
}

/* What the n wanted chunks not resident, or not as fine as wanted, would
 * take. */
static uint64_t wanted_need(const vxr_world *w, const by_distance *want, size_t n) {
    uint64_t need = 0;
    for (size_t k = 0; k < n; k++) {
        const uint32_t i = want[k].i;
        if ((w->state[i] != RESIDENT && w->state[i] != FAILED) || wants_finer(w, i, want[k].level))
            need += chunk_guess(w, i, want[k].level);
    }
    return need;
}

/* The resident chunks this update does not want, farthest first. */
static uint32_t unwanted(const vxr_world *w, const float eye[3], by_distance *out) {
    uint32_t n_out = 0;
    for (uint32_t i = 0; i < w->count; i++)
        if (w->state[i] == RESIDENT && w->seen[i] != w->updates)
            out[n_out++] = (by_distance){-centre_distance(w, i, eye), i, 0, 0};
    if (n_out) qsort(out, n_out, sizeof *out, cmp_distance);
    return n_out;
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
        want[k] = (by_distance){centre_distance(w, (uint32_t)i, eye), (uint32_t)i,
                                wanted_level(w, (uint32_t)i, eye, 1.0),
                                wanted_level(w, (uint32_t)i, eye, COARSEN_NEAR)};
        w->seen[i] = w->updates;
        w->want_level[i] = (uint8_t)want[k].level;
    }
    if (n) qsort(want, n, sizeof *want, cmp_distance);
    pthread_mutex_lock(&w->lock);
    /* a chunk read but no longer wanted is not taken in (it would only be
     * uploaded to be evicted): it is read again when wanted again */
    for (uint32_t i = 0; i < w->count; i++)
        if (w->seen[i] != w->updates &&
            (w->state[i] == READY || (w->state[i] == RESIDENT && w->refine[i] == READY))) {
            vxr_octree_free(&w->ready[i]);
            *(w->state[i] == READY ? &w->state[i] : &w->refine[i]) = ABSENT;
        }
    r = vxr_world_take_ready(w, take_limit(w), err);
    w->resident_bytes = resident_now(w);
    uint64_t need = wanted_need(w, want, n);
    /* over the budget: the chunks not wanted now go, farthest first; edited
     * ones are written back first (all edits at once), and stay if that fails */
    uint32_t n_out = unwanted(w, eye, out);
    bool save = false;
    uint64_t left = w->resident_bytes;
    for (uint32_t k = 0; w->budget && k < n_out && left + need > w->budget; k++) {
        save = save || vxr_world_chunk_edited(w, out[k].i);
        left -= vxr_world_chunk_gpu(w, out[k].i);
    }
    if (save && !w->gen_n) { /* a generated world's edits stay resident */
        pthread_mutex_unlock(&w->lock);
        vxr_error why = {{0}};
        const vxr_result s = vxr_world_save(w, NULL, &why);
        if (s != VXR_OK && r == VXR_OK) r = vxr_fail(err, s, "%s", why.message);
        pthread_mutex_lock(&w->lock);
        /* the save took in what the loaders had made and may have grown
         * the models voxels moved into: counted afresh */
        w->resident_bytes = resident_now(w);
        need = wanted_need(w, want, n);
        n_out = unwanted(w, eye, out);
    }
    for (uint32_t k = 0; w->budget && k < n_out && w->resident_bytes + need > w->budget; k++)
        if (!vxr_world_chunk_edited(w, out[k].i)) vxr_world_evict(w, out[k].i);
    /* the requests: wanted chunks not resident, nearest first, while the budget lasts */
    vxr_world_drop_queue(w);
    uint32_t incomplete = 0;
    uint64_t expect = w->resident_bytes;
    for (size_t k = 0; k < n; k++) {
        const uint32_t i = want[k].i, level = want[k].level;
        if (!w->e[i].voxels) continue; /* emptied by edits */
        const bool finer = wants_finer(w, i, level);
        const uint32_t far = w->state[i] == RESIDENT ? level_for(w, i, want[k].far) : 0;
        const bool coarser = !finer && wants_coarser(w, i, far);
        if (w->state[i] == RESIDENT && !finer && !coarser) continue;
        incomplete += !coarser; /* a chunk finer than wanted is complete */
        uint8_t *state = finer || coarser ? &w->refine[i] : &w->state[i];
        if (*state == ABSENT && (!w->budget || expect < w->budget)) {
            *state = QUEUED;
            w->ask[i] = (uint8_t)(coarser ? far : level);
            w->queue[w->q_count++] = i;
        }
        if (!coarser && (*state == QUEUED || *state == LOADING || *state == READY))
            expect += chunk_guess(w, i, level);
    }
    if (w->q_count) pthread_cond_broadcast(&w->wake);
    if (st) {
        memset(st, 0, sizeof *st);
        uint32_t ready = 0; /* read, not yet taken in */
        for (uint32_t i = 0; i < w->count; i++) {
            st->chunks += w->e[i].voxels != 0;
            st->unsaved += vxr_world_chunk_edited(w, i);
            st->coarse += w->state[i] == RESIDENT && w->level[i];
            ready += w->state[i] == READY || (w->state[i] == RESIDENT && w->refine[i] == READY);
        }
        st->view_distance = w->view_distance;
        st->wanted = (uint32_t)n;
        st->resident = w->resident;
        st->missing = incomplete;
        st->loading = w->q_count + w->busy + ready;
        st->loaded = w->loaded;
        st->evicted = w->evicted;
        st->resident_bytes = w->resident_bytes;
        st->file_bytes = w->file_bytes;
        st->made_voxels = w->made_voxels;
        st->made_seconds = w->made_seconds;
    }
    r = vxr_world_take_failure(w, r, err);
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
    pthread_mutex_t *lock = (pthread_mutex_t *)&w->lock; /* the loaders write e[i].voxels */
    pthread_mutex_lock(lock);
    for (int k = 0; k < 3; k++) min[k] = max[k] = 0;
    bool first = true;
    for (uint32_t i = 0; i < w->count; i++) {
        if (!w->e[i].voxels) continue; /* emptied by edits */
        for (int k = 0; k < 3; k++) {
            const int64_t lo = (int64_t)w->e[i].c[k] * w->side;
            if (first || lo < min[k]) min[k] = lo;
            if (first || lo + w->side > max[k]) max[k] = lo + w->side;
        }
        first = false;
    }
    pthread_mutex_unlock(lock);
    if (side) *side = w->side;
}

/* Whether chunk i is resident coarse and may still be read whole. */
static bool refinable(const vxr_world *w, uint32_t i) {
    return w->state[i] == RESIDENT && w->level[i] && w->refine[i] != FAILED &&
           !vxr_world_chunk_edited(w, i);
}

/* Queues chunk i when it is absent and holds voxels, whole, or a whole
 * form of it when it is resident coarse (under the lock). */
static void ask(vxr_world *w, uint32_t i) {
    if (!w->e[i].voxels) return;
    uint8_t *state = refinable(w, i) ? &w->refine[i] : &w->state[i]; /* a coarse one: whole */
    if (*state != ABSENT) return;
    *state = QUEUED;
    w->ask[i] = 0;
    w->queue[w->q_count++] = i;
}

/* Drops the queue, asks for the chunks marked in want (all when NULL),
 * waits for them and takes them in, in the world's order. A coarse read
 * under way or ready when asked is taken in as it is and read whole in a
 * second round. */
static vxr_result load_marked(vxr_world *w, const bool *want, vxr_error *err) {
    vxr_result r = VXR_OK;
    bool again = true;
    pthread_mutex_lock(&w->lock);
    for (int round = 0; r == VXR_OK && again && round < 3; round++) {
        vxr_world_drop_queue(w);
        for (uint32_t i = 0; i < w->count; i++)
            if (!want || want[i]) ask(w, i);
        pthread_cond_broadcast(&w->wake);
        while (w->q_next < w->q_count || w->busy) pthread_cond_wait(&w->done, &w->lock);
        r = vxr_world_take_failure(w, vxr_world_take_ready(w, UINT64_MAX, err), err);
        again = false;
        for (uint32_t i = 0; i < w->count; i++)
            again = again || ((!want || want[i]) && refinable(w, i));
    }
    pthread_mutex_unlock(&w->lock);
    return r;
}

vxr_result vxr_world_load_around(vxr_world *w, const float *eyes, size_t n, vxr_error *err) {
    bool *want = calloc(w->count ? w->count : 1, sizeof *want);
    uint32_t *handles = NULL;
    size_t cap = 0;
    vxr_result r = want ? VXR_OK : vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    for (size_t k = 0; r == VXR_OK && k < n; k++) {
        const size_t m = vxr_spheres_collect(w->spheres, eyes + 3 * k, true, NULL, 0);
        if (m > cap) {
            uint32_t *h = realloc(handles, m * sizeof *h);
            if (!h) {
                r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
                break;
            }
            handles = h;
            cap = m;
        }
        vxr_spheres_collect(w->spheres, eyes + 3 * k, true, handles, m);
        for (size_t j = 0; j < m; j++) {
            uint64_t i = 0;
            vxr_spheres_get(w->spheres, handles[j], NULL, NULL, &i);
            want[i] = true;
        }
    }
    if (r == VXR_OK) r = load_marked(w, want, err);
    free(handles);
    free(want);
    return r;
}

vxr_result vxr_world_make_resident(vxr_world *w, vxr_error *err) {
    return load_marked(w, NULL, err);
}

float vxr_world_view_distance(const vxr_world *w) {
    return w->view_distance;
}

bool vxr_world_generated(const vxr_world *w) {
    return w->gen_n != 0;
}

bool vxr_is_generated_world(const char *path) {
    int32_t n = 0;
    return !strncmp(path, "@terrain:", 9) && vxr_terrain_spec(path, &n, NULL) == VXR_OK &&
           n > VXR_TERRAIN_SCENE_MAX;
}
