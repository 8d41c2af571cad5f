/* Writing a streamed world's edits back (vxr/world.h): every resident chunk
 * whose model changed is cut into chunk files again. Voxels an edit placed
 * past a chunk's side go to the chunk that owns their cell, which is read,
 * merged and written too (made when new); a chunk left without voxels
 * leaves the index.
 *
 * Crash safety comes from the order: each file is replaced by one atomic
 * rename (vxr_write_file), the chunk files first, then the index, then the
 * files of emptied chunks are removed. Killed at any point, every chunk
 * file is the old one or the new one, every chunk the index lists is
 * there, and a new chunk the index does not list yet is an unused file. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "vxr/edit.h"
#include "world_stream.h"

/* The chunk at c, or -1. */
static int64_t find_chunk(const vxr_world *w, const int32_t c[3]) {
    for (uint32_t i = 0; i < w->count; i++)
        if (w->e[i].c[0] == c[0] && w->e[i].c[1] == c[1] && w->e[i].c[2] == c[2]) return i;
    return -1;
}

static bool in_chunk(const vxr_world *w, int32_t x, int32_t y, int32_t z) {
    const int32_t n = (int32_t)w->side;
    return x >= 0 && y >= 0 && z >= 0 && x < n && y < n && z < n;
}

/* A cell of a chunk's model that lies past its side: in world cells. */
typedef struct moved {
    int32_t from;     /* the chunk whose model holds it */
    int32_t cell[3];  /* the model's cell */
    int64_t world[3]; /* the world's */
    uint32_t attr;
} moved;

typedef struct moves {
    const vxr_world *w;
    int32_t from;
    vxr_bytes list; /* moved records */
} moves;

static void note_move(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    moves *v = user;
    if (in_chunk(v->w, x, y, z)) return;
    const int32_t *c = v->w->e[v->from].c, cell[3] = {x, y, z};
    moved d = {v->from, {x, y, z}, {0, 0, 0}, attr};
    for (int k = 0; k < 3; k++) d.world[k] = (int64_t)c[k] * v->w->side + cell[k];
    vxr_bytes_put(&v->list, &d, sizeof d);
}

static void push_voxel(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    vxr_model_src *m = user;
    if (vxr_model_src_push(m, x, y, z, attr) != VXR_OK) m->count = SIZE_MAX; /* marks failure */
}

/* The voxels chunk j holds now, before the list in b (which win). */
static vxr_result prepend_present(vxr_world *w, int64_t j, vxr_chunk_bucket *b, vxr_error *err) {
    vxr_model_src now = {0};
    vxr_result r = VXR_OK;
    if (j >= 0 && w->state[j] == RESIDENT) {
        vxr_octree_foreach(&w->scene->models[w->model[j]], push_voxel, &now);
    } else if (j >= 0 && w->e[j].voxels) {
        vxr_octree t;
        uint64_t bytes;
        r = vxr_world_read_chunk(w->dir, w->side, &w->e[j], w->colours, &t, &bytes, err);
        if (r == VXR_OK) {
            vxr_octree_foreach(&t, push_voxel, &now);
            vxr_octree_free(&t);
        }
    }
    for (size_t i = 0; r == VXR_OK && now.count != SIZE_MAX && i < b->m.count; i++) {
        const vxr_voxel *v = &b->m.voxels[i];
        push_voxel(&now, v->x, v->y, v->z, v->color);
    }
    if (r == VXR_OK && now.count == SIZE_MAX) r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    if (r != VXR_OK) {
        free(now.voxels);
        return r;
    }
    free(b->m.voxels);
    b->m = now;
    return VXR_OK;
}

/* The models follow the files: moved cells leave their chunk's model and
 * join their owner's, which is read now when it is not resident (it may
 * be new), so that the scene shows the same world after a save. */
static vxr_result move_in_memory(vxr_world *w, const moves *v, vxr_error *err) {
    vxr_result r = VXR_OK;
    const moved *m = (const moved *)v->list.p;
    const size_t n = v->list.n / sizeof *m;
    for (size_t i = 0; r == VXR_OK && i < n; i++) {
        const moved *d = &m[i];
        vxr_octree *from = &w->scene->models[w->model[d->from]];
        r = vxr_octree_make_live(from);
        if (r == VXR_OK) r = vxr_octree_clear_voxel(from, d->cell[0], d->cell[1], d->cell[2], NULL);
        int32_t c[3], cell[3];
        for (int k = 0; k < 3; k++) {
            const int64_t q =
                d->world[k] >= 0 ? d->world[k] / w->side : -((-d->world[k] - 1) / w->side) - 1;
            c[k] = (int32_t)q;
            cell[k] = (int32_t)(d->world[k] - q * w->side);
        }
        const int64_t j = find_chunk(w, c);
        if (r == VXR_OK && j >= 0 && w->state[j] == RESIDENT) {
            vxr_octree *to = &w->scene->models[w->model[j]];
            r = vxr_octree_make_live(to);
            if (r == VXR_OK)
                r = vxr_octree_set_voxel(to, cell[0], cell[1], cell[2], d->attr, false, NULL);
            if (r == VXR_OK) r = vxr_scene_touch_model(w->scene, w->model[j], err);
        } else if (r == VXR_OK && j >= 0 && w->state[j] != READY) {
            uint64_t bytes = 0;
            r = vxr_world_read_chunk(w->dir, w->side, &w->e[j], w->colours, &w->ready[j], &bytes,
                                     err);
            if (r != VXR_OK) return r;
            w->bytes[j] = bytes;
            w->state[j] = READY;
        }
        if (r == VXR_OK && (i + 1 == n || m[i + 1].from != d->from)) { /* its last */
            vxr_octree_refresh_bounds(from);
            r = vxr_scene_touch_model(w->scene, w->model[d->from], err);
        }
    }
    if (r == VXR_OK) {
        pthread_mutex_lock(&w->lock);
        r = vxr_world_take_ready(w, err);
        pthread_mutex_unlock(&w->lock);
    }
    return r == VXR_OK || r == VXR_ERROR_IO || r == VXR_ERROR_FORMAT
               ? r
               : vxr_fail(err, r, "moving a voxel to its chunk: out of memory");
}

vxr_result vxr_world_save(vxr_world *w, uint32_t *written, vxr_error *err) {
    if (written) *written = 0;
    if (w->gen_n)
        return vxr_fail(err, VXR_ERROR_ARGUMENT,
                        "%s is generated: it has no files to write edits back into", w->dir);
    vxr_world_quiesce(w);
    pthread_mutex_lock(&w->lock);
    vxr_result r = vxr_world_take_ready(w, err);
    pthread_mutex_unlock(&w->lock);
    if (r != VXR_OK) return r;
    vxr_chunk_cutter k;
    memset(&k, 0, sizeof k);
    while ((1u << k.shift) < w->side) k.shift++;
    for (int a = 0; a < 3; a++) k.R[4 * a] = 1;
    moves v = {w, 0, {NULL, 0, 0, false}};
    uint32_t n_edited = 0;
    for (uint32_t i = 0; i < w->count && !k.map.failed && !v.list.failed; i++) {
        if (!vxr_world_chunk_edited(w, i)) continue;
        n_edited++;
        for (int a = 0; a < 3; a++) k.t[a] = (int64_t)w->e[i].c[a] * w->side;
        k.last = NULL;
        if (!vxr_chunk_map_get(&k.map, w->e[i].c)) break; /* its file even when emptied */
        v.from = (int32_t)i;
        vxr_octree_foreach(&w->scene->models[w->model[i]], vxr_chunk_cut_voxel, &k);
        vxr_octree_foreach(&w->scene->models[w->model[i]], note_move, &v);
    }
    if (!n_edited) return VXR_OK;
    if (k.map.failed || v.list.failed || k.map.n < n_edited)
        r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory (or more than 2^24 chunks)");
    /* the owners of moved cells: what they hold now, then the moved cells */
    for (uint32_t b = 0; r == VXR_OK && b < k.map.n; b++) {
        const int64_t j = find_chunk(w, k.map.b[b].c);
        if (j < 0 || !vxr_world_chunk_edited(w, (uint32_t)j))
            r = prepend_present(w, j, &k.map.b[b], err);
    }
    /* the chunk files, then the index */
    vxr_world_entry *e = calloc((size_t)w->count + k.map.n, sizeof *e);
    int64_t *slot = calloc(k.map.n ? k.map.n : 1, sizeof *slot);
    uint64_t *size = calloc(k.map.n ? k.map.n : 1, sizeof *size);
    if (r == VXR_OK && (!e || !slot || !size)) r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    uint32_t fresh = 0;
    for (uint32_t b = 0; r == VXR_OK && b < k.map.n; b++) {
        vxr_chunk_bucket *bk = &k.map.b[b];
        slot[b] = find_chunk(w, bk->c);
        if (slot[b] < 0 && !bk->m.count) continue;
        if (slot[b] < 0) slot[b] = (int64_t)w->count + fresh++;
        uint64_t voxels = 0;
        if (bk->m.count)
            r = vxr_world_write_chunk(w->colours, w->dir, w->side, w->n_threads, bk, &size[b],
                                      &voxels, err);
        memcpy(e[slot[b]].c, bk->c, sizeof bk->c);
        e[slot[b]].voxels = voxels;
    }
    if (r == VXR_OK) {
        for (uint32_t i = 0; i < w->count; i++) {
            bool listed = false;
            for (uint32_t b = 0; b < k.map.n; b++) listed = listed || slot[b] == (int64_t)i;
            if (!listed) e[i] = w->e[i];
        }
        vxr_world_entry *kept = malloc(((size_t)w->count + fresh + 1) * sizeof *kept);
        uint32_t n_kept = 0;
        for (uint32_t i = 0; kept && i < w->count + fresh; i++)
            if (e[i].voxels) kept[n_kept++] = e[i];
        r = kept ? vxr_world_write_index(w->dir, w->side, kept, n_kept, err)
                 : vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
        free(kept);
    }
    if (r == VXR_OK && fresh) r = vxr_world_grow(w, w->count + fresh, err);
    if (r == VXR_OK) {
        /* the index is written: files of emptied chunks go, the entries follow */
        char path[PATH_BYTES];
        for (uint32_t b = 0; b < k.map.n; b++) {
            if (slot[b] < 0) continue;
            const uint32_t i = (uint32_t)slot[b];
            if (!e[i].voxels && i < w->count && w->e[i].voxels) {
                vxr_world_chunk_path(path, sizeof path, w->dir, e[i].c);
                unlink(path);
            }
            if (i < w->count && w->state[i] == RESIDENT) {
                w->resident_bytes += size[b] - w->bytes[i];
                w->bytes[i] = size[b];
            }
        }
        memcpy(w->e, e, ((size_t)w->count + fresh) * sizeof *e);
        r = vxr_world_add_spheres(w, w->count, w->count + fresh, err);
        w->count += fresh;
    }
    if (r == VXR_OK) r = move_in_memory(w, &v, err);
    /* what was written is what the models hold: they are saved */
    for (uint32_t b = 0; r == VXR_OK && b < k.map.n; b++) {
        const int64_t i = slot[b];
        if (i >= 0 && w->state[i] == RESIDENT) w->version[i] = w->scene->model_version[w->model[i]];
        if (i >= 0 && written) (*written)++;
    }
    free(v.list.p);
    VXR_FREE(e, slot, size);
    vxr_chunk_map_free(&k.map);
    return r;
}
