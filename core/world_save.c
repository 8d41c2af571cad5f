/* Writing a streamed world's edits back (vxr/world.h): every resident chunk
 * whose model changed is cut into chunk files again. Voxels an edit placed
 * past a chunk's side go to the chunk that owns their cell, which is read,
 * merged and written too (made when new); a chunk left without voxels
 * leaves the index.
 *
 * Crash safety comes from the order: each file is replaced by one atomic
 * rename (vxr_write_file), the chunk files first, then the index, then the
 * files of emptied chunks are removed, each step's directory synced before
 * the next. Killed at any point, every chunk file is the old one or the
 * new one, every chunk the index lists is there, and a new chunk the index
 * does not list yet is an unused file. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "vxr/edit.h"
#include "world_stream.h"

/* The world's chunks sorted by coordinates, for lookups in O(log n). */
typedef struct chunk_key {
    int32_t c[3];
    uint32_t i;
} chunk_key;

static int cmp_key(const void *a, const void *b) {
    return vxr_cell_cmp(((const chunk_key *)a)->c, ((const chunk_key *)b)->c);
}

typedef struct chunk_keys {
    chunk_key *k;
    uint32_t n;
} chunk_keys;

static bool keys_make(const vxr_world *w, chunk_keys *keys) {
    free(keys->k);
    keys->n = w->count;
    keys->k = malloc((w->count ? w->count : 1) * sizeof *keys->k);
    if (!keys->k) return false;
    for (uint32_t i = 0; i < w->count; i++) {
        memcpy(keys->k[i].c, w->e[i].c, sizeof keys->k[i].c);
        keys->k[i].i = i;
    }
    if (w->count) qsort(keys->k, w->count, sizeof *keys->k, cmp_key);
    return true;
}

/* The chunk at c, or -1. */
static int64_t find_chunk(const chunk_keys *keys, const int32_t c[3]) {
    chunk_key probe = {{c[0], c[1], c[2]}, 0};
    const chunk_key *at =
        keys->n ? bsearch(&probe, keys->k, keys->n, sizeof *keys->k, cmp_key) : NULL;
    return at ? (int64_t)at->i : -1;
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

/* One pass over an edited chunk's voxels: into the cutter those inside its
 * cube (pass 1) or those past its side (pass 2, noted as moves too), so
 * that every bucket holds its chunk's own voxels before the moved ones,
 * which win, on disk as in memory. */
typedef struct cut_pass {
    const vxr_world *w;
    vxr_chunk_cutter *k;
    bool moved_pass, beyond; /* beyond: a cell past the world's reach (+-2^31) */
    int32_t from;
    vxr_bytes list; /* moved records */
} cut_pass;

static void cut_some(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    cut_pass *p = user;
    if (in_chunk(p->w, x, y, z) == p->moved_pass) return;
    if (p->moved_pass) {
        const int32_t *c = p->w->e[p->from].c, cell[3] = {x, y, z};
        moved d = {p->from, {x, y, z}, {0, 0, 0}, attr};
        for (int k = 0; k < 3; k++) {
            d.world[k] = (int64_t)c[k] * p->w->side + cell[k];
            p->beyond = p->beyond || d.world[k] < -(1ll << 31) || d.world[k] >= 1ll << 31;
        }
        vxr_bytes_put(&p->list, &d, sizeof d);
    }
    vxr_chunk_cut_voxel(p->k, x, y, z, attr);
}

typedef struct voxel_list {
    vxr_model_src m;
    bool failed;
} voxel_list;

static void push_voxel(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    voxel_list *l = user;
    if (!l->failed && vxr_model_src_push(&l->m, x, y, z, attr) != VXR_OK) l->failed = true;
}

/* The voxels chunk j holds now, before the list in b (which win). */
static vxr_result prepend_present(vxr_world *w, int64_t j, vxr_chunk_bucket *b, vxr_error *err) {
    voxel_list now = {{0}, false};
    vxr_result r = VXR_OK;
    if (j >= 0 && w->state[j] == RESIDENT && !w->level[j]) {
        vxr_octree_foreach(&w->scene->models[w->model[j]], push_voxel, &now);
    } else if (j >= 0 && w->e[j].voxels) {
        vxr_octree t;
        uint64_t bytes;
        r = vxr_world_read_chunk(w->dir, w->side, &w->e[j], w->colours, NULL, &t, &bytes, NULL,
                                 err);
        if (r == VXR_OK) {
            vxr_octree_foreach(&t, push_voxel, &now);
            vxr_octree_free(&t);
        }
    }
    for (size_t i = 0; r == VXR_OK && i < b->m.count; i++) {
        const vxr_voxel *v = &b->m.voxels[i];
        push_voxel(&now, v->x, v->y, v->z, v->color);
    }
    if (r == VXR_OK && now.failed) r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    if (r != VXR_OK) {
        free(now.m.voxels);
        return r;
    }
    free(b->m.voxels);
    b->m = now.m;
    return VXR_OK;
}

/* Makes the renames and removals in directory path durable (a power cut
 * keeps their order). */
static vxr_result sync_dir(const char *path, vxr_error *err) {
    const int fd = open(path, O_RDONLY | O_DIRECTORY);
    const bool ok = fd >= 0 && fsync(fd) == 0;
    const int e = errno;
    if (fd >= 0) close(fd);
    return ok ? VXR_OK : vxr_fail(err, VXR_ERROR_IO, "%s: cannot sync: %s", path, strerror(e));
}

/* The models follow the files: moved cells leave their chunk's model and
 * join their owner's, which is read now when it is not resident (it may
 * be new), so that the scene shows the same world after a save. */
static vxr_result move_in_memory(vxr_world *w, const chunk_keys *keys, const vxr_bytes *list,
                                 vxr_error *err) {
    vxr_result r = VXR_OK;
    const moved *m = (const moved *)list->p;
    const size_t n = list->n / sizeof *m;
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
        const int64_t j = find_chunk(keys, c);
        if (r == VXR_OK && j >= 0 && w->state[j] == RESIDENT && w->level[j]) {
            vxr_world_evict(w, (uint32_t)j); /* coarse: read whole below, with the cell */
        } else if (r == VXR_OK && j >= 0 && w->state[j] == READY && w->ask[j]) {
            vxr_octree_free(&w->ready[j]);
            w->state[j] = ABSENT;
        }
        if (r == VXR_OK && j >= 0 && w->state[j] == RESIDENT) {
            vxr_octree *to = &w->scene->models[w->model[j]];
            r = vxr_octree_make_live(to);
            if (r == VXR_OK)
                r = vxr_octree_set_voxel(to, cell[0], cell[1], cell[2], d->attr, false, NULL);
            if (r == VXR_OK) r = vxr_scene_touch_model(w->scene, w->model[j], err);
        } else if (r == VXR_OK && j >= 0 && w->state[j] != READY) {
            uint64_t bytes = 0;
            r = vxr_world_read_chunk(w->dir, w->side, &w->e[j], w->colours, NULL, &w->ready[j],
                                     &bytes, NULL, err);
            if (r != VXR_OK) return r;
            w->ask[j] = 0;
            w->bytes[j] = bytes;
            w->gpu[j] = vxr_octree_gpu_bytes(&w->ready[j]);
            w->state[j] = READY;
        }
        if (r == VXR_OK && (i + 1 == n || m[i + 1].from != d->from)) { /* its last */
            vxr_octree_refresh_bounds(from);
            r = vxr_scene_touch_model(w->scene, w->model[d->from], err);
        }
        if (r != VXR_OK)
            return vxr_fail(err, r, "moving a voxel to its chunk: %s", vxr_result_string(r));
    }
    pthread_mutex_lock(&w->lock);
    r = vxr_world_take_ready(w, UINT64_MAX, err);
    pthread_mutex_unlock(&w->lock);
    return r;
}

vxr_result vxr_world_save(vxr_world *w, uint32_t *written, vxr_error *err) {
    if (written) *written = 0;
    if (w->gen_n)
        return vxr_fail(err, VXR_ERROR_ARGUMENT,
                        "%s is generated: it has no files to write edits back into", w->dir);
    vxr_world_quiesce(w);
    pthread_mutex_lock(&w->lock);
    vxr_result r = vxr_world_take_ready(w, UINT64_MAX, err);
    pthread_mutex_unlock(&w->lock);
    if (r != VXR_OK) return r;
    uint32_t n_edited = 0;
    for (uint32_t i = 0; i < w->count; i++) {
        if (!vxr_world_chunk_edited(w, i)) continue;
        n_edited++;
        if (w->level[i]) /* its cells are 2^level cubes: written, it would lose its voxels */
            return vxr_fail(err, VXR_ERROR_ARGUMENT,
                            "%s: chunk %d %d %d was edited as a coarse form (level %u); only a "
                            "whole chunk can be written back (vxr_world_refine)",
                            w->dir, w->e[i].c[0], w->e[i].c[1], w->e[i].c[2], w->level[i]);
    }
    if (!n_edited) return VXR_OK;
    vxr_chunk_cutter k;
    memset(&k, 0, sizeof k);
    while ((1u << k.shift) < w->side) k.shift++;
    for (int a = 0; a < 3; a++) k.R[4 * a] = 1;
    cut_pass p = {w, &k, false, false, 0, {NULL, 0, 0, false}};
    chunk_keys keys = {NULL, 0};
    if (!keys_make(w, &keys)) k.map.failed = true;
    /* every edited chunk's own voxels (its bucket made even when emptied),
     * then the voxels past their sides */
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < w->count && !k.map.failed && !p.list.failed; i++) {
            if (!vxr_world_chunk_edited(w, i)) continue;
            for (int a = 0; a < 3; a++) k.t[a] = (int64_t)w->e[i].c[a] * w->side;
            k.last = NULL;
            if (!pass && !vxr_chunk_map_get(&k.map, w->e[i].c)) k.map.failed = true;
            p.moved_pass = pass == 1;
            p.from = (int32_t)i;
            vxr_octree_foreach(&w->scene->models[w->model[i]], cut_some, &p);
        }
    if (k.map.failed || p.list.failed)
        r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory (or more than 2^24 chunks)");
    else if (p.beyond)
        r = vxr_fail(err, VXR_ERROR_LIMIT,
                     "%s: an edit put a voxel past the world's reach (cells within +-2^31)",
                     w->dir);
    vxr_world_entry *e = calloc((size_t)w->count + k.map.n, sizeof *e);
    int64_t *slot = calloc(k.map.n ? k.map.n : 1, sizeof *slot); /* a bucket's chunk, or -1 */
    uint64_t *size = calloc(k.map.n ? k.map.n : 1, sizeof *size);
    bool *listed = calloc((size_t)w->count + 1, sizeof *listed);
    if (r == VXR_OK && (!e || !slot || !size || !listed))
        r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    /* the owners of moved cells: what they hold now, then the moved cells */
    uint32_t fresh_max = 0;
    for (uint32_t b = 0; r == VXR_OK && b < k.map.n; b++) {
        const int64_t j = slot[b] = find_chunk(&keys, k.map.b[b].c);
        fresh_max += j < 0;
        if (j < 0 || !vxr_world_chunk_edited(w, (uint32_t)j))
            r = prepend_present(w, j, &k.map.b[b], err);
    }
    /* room for new chunks first: nothing fails after the index is written
     * but running out of memory for the sphere tree */
    if (r == VXR_OK && fresh_max) r = vxr_world_grow(w, w->count + fresh_max, err);
    /* the chunk files, then the index */
    uint32_t fresh = 0;
    for (uint32_t b = 0; r == VXR_OK && b < k.map.n; b++) {
        vxr_chunk_bucket *bk = &k.map.b[b];
        if (slot[b] < 0 && !bk->m.count) continue;
        if (slot[b] < 0)
            slot[b] = (int64_t)w->count + fresh++;
        else
            listed[slot[b]] = true;
        uint64_t voxels = 0;
        if (bk->m.count)
            r = vxr_world_write_chunk(w->colours, w->dir, w->side, w->n_threads, bk, NULL, &size[b],
                                      &voxels, err);
        memcpy(e[slot[b]].c, bk->c, sizeof bk->c);
        e[slot[b]].voxels = voxels;
    }
    char path[PATH_BYTES];
    snprintf(path, sizeof path, "%.3900s/chunks", w->dir);
    if (r == VXR_OK) r = sync_dir(path, err);
    if (r == VXR_OK) {
        for (uint32_t i = 0; i < w->count; i++)
            if (!listed[i]) e[i] = w->e[i];
        vxr_world_entry *kept = malloc(((size_t)w->count + fresh + 1) * sizeof *kept);
        uint32_t n_kept = 0;
        for (uint32_t i = 0; kept && i < w->count + fresh; i++)
            if (e[i].voxels) kept[n_kept++] = e[i];
        r = kept ? vxr_world_write_index(w->dir, w->side, kept, n_kept, err)
                 : vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
        free(kept);
    }
    if (r == VXR_OK) r = sync_dir(w->dir, err);
    if (r == VXR_OK) {
        /* the index is written: files of emptied chunks go, the entries follow */
        for (uint32_t b = 0; b < k.map.n; b++) {
            if (slot[b] < 0) continue;
            const uint32_t i = (uint32_t)slot[b];
            /* and a chunk written before the levels leaves its .vxo (its
             * .vxc, synced above, wins meanwhile) */
            for (int plain = 0; plain < 2; plain++) {
                if (!plain && (e[i].voxels || i >= w->count || !w->e[i].voxels)) continue;
                vxr_world_chunk_path(path, sizeof path, w->dir, e[i].c, plain);
                unlink(path);
            }
            if (i < w->count && w->state[i] == RESIDENT) {
                w->file_bytes += size[b] - w->bytes[i];
                w->bytes[i] = size[b];
            }
        }
        memcpy(w->e, e, ((size_t)w->count + fresh) * sizeof *e);
        r = vxr_world_add_spheres(w, w->count, w->count + fresh, err);
        if (r == VXR_OK) w->count += fresh;
    }
    if (r == VXR_OK && fresh && !keys_make(w, &keys))
        r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    if (r == VXR_OK) r = move_in_memory(w, &keys, &p.list, err);
    /* what was written is what the models hold: they are saved */
    for (uint32_t b = 0; r == VXR_OK && b < k.map.n; b++) {
        const int64_t i = slot[b];
        if (i >= 0 && w->state[i] == RESIDENT) w->version[i] = w->scene->model_version[w->model[i]];
        if (i >= 0 && written) (*written)++;
    }
    free(p.list.p);
    VXR_FREE(e, slot, size, listed, keys.k);
    vxr_chunk_map_free(&k.map);
    return r;
}
