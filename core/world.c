/* Worlds on disk (vxr/world.h): a scene cut into chunks, one .vxo file each,
 * and a text index written last. */
#include "vxr/world.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"
#include "vxr/formats.h"

enum { PATH_MAX_BYTES = 4096, INDEX_MAX_BYTES = 64 << 20 };

/* ---- chunks being filled: a map from chunk coordinates to voxel lists ---- */

static uint32_t hash3(const int32_t c[3]) {
    uint32_t h =
        (uint32_t)c[0] * 73856093u ^ (uint32_t)c[1] * 19349663u ^ (uint32_t)c[2] * 83492791u;
    return h ^ (h >> 15);
}

static bool map_grow(vxr_chunk_map *m) {
    const uint32_t slots = m->slots ? 2 * m->slots : 256;
    uint32_t *slot = calloc(slots, sizeof *slot);
    if (!slot) return false;
    for (uint32_t i = 0; i < m->n; i++) {
        uint32_t h = hash3(m->b[i].c) & (slots - 1);
        while (slot[h]) h = (h + 1) & (slots - 1);
        slot[h] = i + 1;
    }
    free(m->slot);
    m->slot = slot;
    m->slots = slots;
    return true;
}

/* The bucket of chunk c, made when new; NULL when memory runs out. */
vxr_chunk_bucket *vxr_chunk_map_get(vxr_chunk_map *m, const int32_t c[3]) {
    if (m->slots) {
        for (uint32_t h = hash3(c) & (m->slots - 1); m->slot[h]; h = (h + 1) & (m->slots - 1)) {
            vxr_chunk_bucket *b = &m->b[m->slot[h] - 1];
            if (b->c[0] == c[0] && b->c[1] == c[1] && b->c[2] == c[2]) return b;
        }
    }
    if (m->n >= VXR_WORLD_MAX_CHUNKS) return NULL;
    if (2 * (m->n + 1) > m->slots && !map_grow(m)) return NULL;
    if (m->n == m->cap) {
        const uint32_t cap = m->cap ? 2 * m->cap : 64;
        vxr_chunk_bucket *b = realloc(m->b, cap * sizeof *b);
        if (!b) return NULL;
        m->b = b;
        m->cap = cap;
    }
    vxr_chunk_bucket *b = &m->b[m->n];
    memset(b, 0, sizeof *b);
    memcpy(b->c, c, sizeof b->c);
    uint32_t h = hash3(c) & (m->slots - 1);
    while (m->slot[h]) h = (h + 1) & (m->slots - 1);
    m->slot[h] = ++m->n;
    return b;
}

void vxr_chunk_map_free(vxr_chunk_map *m) {
    for (uint32_t i = 0; i < m->n; i++) free(m->b[i].m.voxels);
    VXR_FREE(m->b, m->slot);
}

void vxr_chunk_cut_voxel(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    vxr_chunk_cutter *k = user;
    if (k->map.failed) return;
    const int64_t v[3] = {x, y, z};
    int64_t w[3];
    vxr_place_cell(k->R, k->t, v, w);
    int32_t c[3], l[3];
    for (int i = 0; i < 3; i++) {
        /* floor(w / 2^shift), without shifting a negative number */
        const int64_t q = w[i] >= 0 ? w[i] >> k->shift : -((-w[i] - 1) >> k->shift) - 1;
        c[i] = (int32_t)q;
        l[i] = (int32_t)(w[i] - q * ((int64_t)1 << k->shift));
    }
    vxr_chunk_bucket *b = k->last;
    if (!b || b->c[0] != c[0] || b->c[1] != c[1] || b->c[2] != c[2])
        b = vxr_chunk_map_get(&k->map, c);
    if (!b || vxr_model_src_push(&b->m, l[0], l[1], l[2], attr) != VXR_OK) {
        k->map.failed = true;
        return;
    }
    k->last = b;
}

static int cmp_bucket(const void *a, const void *b) {
    return vxr_cell_cmp(((const vxr_chunk_bucket *)a)->c, ((const vxr_chunk_bucket *)b)->c);
}

/* palette.vxo: a scene of no model with the world's colours and materials. */
static vxr_result write_palette(const vxr_scene *scene, const char *dir, uint64_t *bytes,
                                vxr_error *err) {
    vxr_scene_src src;
    vxr_scene_src_init(&src, scene->attr_size);
    memcpy(src.palette, scene->palette, sizeof src.palette);
    memcpy(src.materials, scene->materials, sizeof src.materials);
    vxr_scene *s = NULL;
    uint8_t *data = NULL;
    size_t size = 0;
    vxr_result r = vxr_scene_build(&src, &s, err);
    if (r == VXR_OK) r = vxr_save_vxo(s, &data, &size, err);
    char path[PATH_MAX_BYTES];
    snprintf(path, sizeof path, "%.3900s/palette.vxo", dir);
    if (r == VXR_OK) r = vxr_write_file(path, data, size, err);
    *bytes += size;
    free(data);
    vxr_scene_destroy(s);
    return r;
}

vxr_result vxr_world_write_index(const char *dir, uint32_t side, const vxr_world_entry *e,
                                 uint32_t count, vxr_error *err) {
    vxr_bytes index = {0};
    char line[128];
    int len = snprintf(line, sizeof line, "vxr world 2\nchunk %u\nchunks %u\n", side, count);
    vxr_bytes_put(&index, line, (size_t)len);
    for (uint32_t i = 0; i < count; i++) {
        len = snprintf(line, sizeof line, "%d %d %d %llu\n", e[i].c[0], e[i].c[1], e[i].c[2],
                       (unsigned long long)e[i].voxels);
        vxr_bytes_put(&index, line, (size_t)len);
    }
    char path[PATH_MAX_BYTES];
    snprintf(path, sizeof path, "%.3900s/%s", dir, VXR_WORLD_INDEX);
    vxr_result r = index.failed ? vxr_fail(err, VXR_ERROR_MEMORY, "out of memory")
                                : vxr_write_file(path, index.p, index.n, err);
    free(index.p);
    return r;
}

/* Takes back what a failed build wrote: the chunk files of e[0..written). */
static void remove_world(const char *dir, const vxr_world_entry *e, uint32_t written) {
    char path[PATH_MAX_BYTES];
    for (uint32_t i = 0; i < written; i++) {
        vxr_world_chunk_path(path, sizeof path, dir, e[i].c, false);
        unlink(path);
    }
    snprintf(path, sizeof path, "%.3900s/chunks", dir);
    rmdir(path);
    snprintf(path, sizeof path, "%.3900s/palette.vxo", dir);
    unlink(path);
    rmdir(dir);
}

vxr_result vxr_world_begin(const char *dir, uint32_t chunk, vxr_error *err) {
    if (chunk < VXR_WORLD_CHUNK_MIN || chunk > VXR_WORLD_CHUNK_MAX || (chunk & (chunk - 1)))
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "chunk side %u: a power of two from %u to %u",
                        chunk, VXR_WORLD_CHUNK_MIN, VXR_WORLD_CHUNK_MAX);
    if (strlen(dir) > 3900)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "%.200s...: path too long", dir);
    if (mkdir(dir, 0777) != 0) { /* the caller names dir: the message says what went wrong */
        const int e = errno;
        if (e == EEXIST)
            return vxr_fail(err, VXR_ERROR_IO,
                            "the directory exists (a world build writes a new world)");
        return vxr_fail(err, VXR_ERROR_IO, "cannot make the directory: %s", strerror(e));
    }
    char path[PATH_MAX_BYTES];
    snprintf(path, sizeof path, "%.3900s/chunks", dir);
    if (mkdir(path, 0777) != 0) {
        const int e = errno;
        rmdir(dir);
        return vxr_fail(err, VXR_ERROR_IO, "%s: %s", path, strerror(e));
    }
    return VXR_OK;
}

vxr_result vxr_world_finish(vxr_result r, const vxr_scene *colours, const char *dir, uint32_t chunk,
                            const vxr_world_entry *e, uint32_t written, vxr_world_stats *st,
                            vxr_error *err) {
    if (r == VXR_OK) r = write_palette(colours, dir, &st->bytes, err);
    if (r == VXR_OK) r = vxr_world_write_index(dir, chunk, e, written, err);
    if (r != VXR_OK) {
        remove_world(dir, e, written);
        return r;
    }
    char path[PATH_MAX_BYTES];
    snprintf(path, sizeof path, "%.3900s/%s", dir, VXR_WORLD_INDEX);
    struct stat sb;
    if (stat(path, &sb) == 0) st->bytes += (uint64_t)sb.st_size;
    st->chunks = written;
    return VXR_OK;
}

vxr_result vxr_world_build(const vxr_scene *scene, const char *dir, uint32_t chunk,
                           uint32_t threads, vxr_world_stats *stats, vxr_error *err) {
    vxr_world_stats st = {0, 0, 0};
    if (stats) *stats = st;
    vxr_chunk_cutter k;
    memset(&k, 0, sizeof k);
    for (uint32_t i = 0; i < scene->instance_count; i++) {
        const vxr_instance *in = &scene->instances[i];
        if (in->flags & VXR_INSTANCE_HIDDEN) continue;
        if (!vxr_integer_placement(&in->transform, k.R, k.t))
            return vxr_fail(err, VXR_ERROR_LIMIT,
                            "instance %u is not placed on whole cells (rotation other than an "
                            "axis permutation, or scale != 1): a world holds world cells",
                            i);
    }
    vxr_result r = vxr_world_begin(dir, chunk, err);
    if (r != VXR_OK) return r;
    while ((1u << k.shift) < chunk) k.shift++; /* chunk is checked: a power of two */
    for (uint32_t i = 0; i < scene->instance_count && !k.map.failed; i++) {
        const vxr_instance *in = &scene->instances[i];
        if (in->flags & VXR_INSTANCE_HIDDEN) continue;
        vxr_integer_placement(&in->transform, k.R, k.t);
        k.last = NULL;
        vxr_octree_foreach(&scene->models[in->model], vxr_chunk_cut_voxel, &k);
    }
    if (k.map.failed)
        r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory (or more than 2^24 chunks)");
    if (r == VXR_OK && k.map.n) qsort(k.map.b, k.map.n, sizeof *k.map.b, cmp_bucket);
    /* the chunks in order, each with its voxel count */
    vxr_world_entry *e = calloc(k.map.n ? k.map.n : 1, sizeof *e);
    if (r == VXR_OK && !e) r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    uint32_t written = 0;
    for (; r == VXR_OK && written < k.map.n; written++) {
        vxr_chunk_bucket *b = &k.map.b[written];
        memcpy(e[written].c, b->c, sizeof b->c);
        r = vxr_world_write_chunk(scene, dir, chunk, threads, b, &st.bytes, NULL,
                                  &e[written].voxels, err);
        st.voxels += e[written].voxels;
    }
    r = vxr_world_finish(r, scene, dir, chunk, e, written, &st, err);
    if (r == VXR_OK && stats) *stats = st;
    free(e);
    vxr_chunk_map_free(&k.map);
    return r;
}

/* ---- opening ---- */

bool vxr_is_world(const char *path) {
    char index[PATH_MAX_BYTES];
    struct stat st;
    const size_t n = strlen(path), m = strlen(VXR_WORLD_INDEX);
    if (n >= m && !strcmp(path + n - m, VXR_WORLD_INDEX) && (n == m || path[n - m - 1] == '/'))
        return stat(path, &st) == 0 && S_ISREG(st.st_mode);
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return false;
    snprintf(index, sizeof index, "%s/%s", path, VXR_WORLD_INDEX);
    return stat(index, &st) == 0 && S_ISREG(st.st_mode);
}

/* The next line of the index (NUL-terminated in place); NULL at the end. */
static char *next_line(char **at, char *end) {
    if (*at >= end) return NULL;
    char *line = *at, *nl = memchr(line, '\n', (size_t)(end - line));
    if (!nl) nl = end;
    *nl = 0;
    *at = nl + 1;
    return line;
}

/* A whole decimal integer in [lo, hi] and nothing after it but ' ' and
 * another field (*s moves past it). */
static bool field(char **s, long long lo, long long hi, long long *v) {
    char *p = *s, *end;
    if (!((*p >= '0' && *p <= '9') || (*p == '-' && p[1] >= '0' && p[1] <= '9'))) return false;
    errno = 0;
    *v = strtoll(p, &end, 10);
    if (errno || *v < lo || *v > hi || (*end && *end != ' ')) return false;
    *s = *end ? end + 1 : end;
    return true;
}

typedef struct listed {
    int32_t c[3];
    uint32_t line;
} listed;

static int cmp_listed(const void *a, const void *b) {
    const listed *x = a, *y = b;
    const int c = vxr_cell_cmp(x->c, y->c);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* A chunk listed twice would be two models of one file, and its
 * write-back ambiguous: refused, naming both lines. */
static vxr_result refuse_twice(const char *path, const vxr_world_entry *e, uint32_t count,
                               vxr_error *err) {
    listed *l = malloc((count ? count : 1) * sizeof *l);
    if (!l) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    for (uint32_t i = 0; i < count; i++) {
        memcpy(l[i].c, e[i].c, sizeof l[i].c);
        l[i].line = i + 4; /* the first chunk's line */
    }
    if (count) qsort(l, count, sizeof *l, cmp_listed);
    vxr_result r = VXR_OK;
    for (uint32_t i = 1; r == VXR_OK && i < count; i++)
        if (!memcmp(l[i].c, l[i - 1].c, sizeof l[i].c))
            r = vxr_fail(err, VXR_ERROR_FORMAT, "%s:%u: chunk %d %d %d is listed on line %u too",
                         path, l[i].line, l[i].c[0], l[i].c[1], l[i].c[2], l[i - 1].line);
    free(l);
    return r;
}

vxr_result vxr_world_parse_index(const uint8_t *data, size_t size, const char *path, uint32_t *side,
                                 vxr_world_entry **entries, uint32_t *count, vxr_error *err) {
    *entries = NULL;
    *count = 0;
    *side = 0;
    vxr_result r = VXR_OK;
    if (memchr(data, 0, size))
        return vxr_fail(err, VXR_ERROR_FORMAT, "%s: a NUL byte: not a vxr world index", path);
    char *text = malloc(size + 1), *at = text, *end = text ? text + size : NULL;
    if (!text) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    if (size) memcpy(text, data, size);
    text[size] = 0;
    char *line;
    long long v[4];
    size_t lineno = 1;
    /* 2: chunk files hold their coarse forms (.vxc); 1: .vxo alone, read too */
    if (!(line = next_line(&at, end)) ||
        (strcmp(line, "vxr world 2") && strcmp(line, "vxr world 1"))) {
        r = vxr_fail(err, VXR_ERROR_FORMAT, "%s:1: not a vxr world (expected 'vxr world 2' or 1)",
                     path);
    } else if (++lineno,
               !(line = next_line(&at, end)) || strncmp(line, "chunk ", 6) ||
                   (line += 6, !field(&line, VXR_WORLD_CHUNK_MIN, VXR_WORLD_CHUNK_MAX, &v[0])) ||
                   *line || (v[0] & (v[0] - 1))) {
        r = vxr_fail(err, VXR_ERROR_FORMAT,
                     "%s:2: expected 'chunk N', N a power of two from %u to %u", path,
                     VXR_WORLD_CHUNK_MIN, VXR_WORLD_CHUNK_MAX);
    } else if (*side = (uint32_t)v[0], ++lineno,
               !(line = next_line(&at, end)) || strncmp(line, "chunks ", 7) ||
                   (line += 7, !field(&line, 0, VXR_WORLD_MAX_CHUNKS, &v[0])) || *line) {
        r = vxr_fail(err, VXR_ERROR_FORMAT, "%s:3: expected 'chunks K', K at most %u", path,
                     VXR_WORLD_MAX_CHUNKS);
    } else {
        *count = (uint32_t)v[0];
        *entries = calloc(*count ? *count : 1, sizeof **entries);
        if (!*entries) r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
        /* chunk coordinates: the world's cells stay within +-2^31 */
        const long long reach = (1ll << 31) / *side;
        for (uint32_t i = 0; r == VXR_OK && i < *count; i++) {
            lineno++;
            bool ok = (line = next_line(&at, end)) != NULL;
            for (int k = 0; ok && k < 3; k++) ok = field(&line, -reach, reach - 1, &v[k]);
            ok = ok && field(&line, 1, (long long)*side * *side * *side, &v[3]) && !*line;
            if (!ok) {
                r = vxr_fail(err, VXR_ERROR_FORMAT,
                             "%s:%zu: expected 'CX CY CZ VOXELS' (chunk %u of %u)", path, lineno,
                             i + 1, *count);
                break;
            }
            for (int k = 0; k < 3; k++) (*entries)[i].c[k] = (int32_t)v[k];
            (*entries)[i].voxels = (uint64_t)v[3];
        }
        if (r == VXR_OK && (line = next_line(&at, end)) && *line)
            r = vxr_fail(err, VXR_ERROR_FORMAT, "%s:%zu: more lines than 'chunks %u' says", path,
                         lineno + 1, *count);
        if (r == VXR_OK) r = refuse_twice(path, *entries, *count, err);
    }
    free(text);
    if (r != VXR_OK) {
        free(*entries);
        *entries = NULL;
        *count = 0;
    }
    return r;
}

vxr_result vxr_world_read_palette(const char *dir, vxr_scene *dest, vxr_error *err) {
    char path[PATH_MAX_BYTES];
    snprintf(path, sizeof path, "%.3900s/palette.vxo", dir);
    uint8_t *data = NULL;
    size_t size = 0;
    vxr_scene *c = NULL;
    vxr_error why = {{0}};
    vxr_result r = vxr_read_file_max(path, 1 << 20, &data, &size, &why);
    if (r == VXR_OK) r = vxr_load_vxo(data, size, &c, &why);
    free(data);
    if (r != VXR_OK) return vxr_fail(err, r, "%s: %s", path, why.message);
    memcpy(dest->palette, c->palette, sizeof dest->palette);
    memcpy(dest->materials, c->materials, sizeof dest->materials);
    dest->attr_size = c->attr_size;
    vxr_scene_destroy(c);
    return VXR_OK;
}

vxr_result vxr_world_index_path(const char *path, char *dir, size_t size, vxr_error *err) {
    const size_t n = strlen(path), m = strlen(VXR_WORLD_INDEX);
    if (n > 3900 || size < PATH_MAX_BYTES)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "%.200s...: path too long", path);
    snprintf(dir, size, "%s", path);
    if (n >= m && !strcmp(path + n - m, VXR_WORLD_INDEX) && (n == m || path[n - m - 1] == '/'))
        snprintf(dir, size, "%.*s", n == m ? 1 : (int)(n - m - 1), n == m ? "." : path);
    return VXR_OK;
}

vxr_result vxr_world_read_index(const char *dir, uint32_t *side, vxr_world_entry **entries,
                                uint32_t *count, vxr_error *err) {
    char path[PATH_MAX_BYTES];
    snprintf(path, sizeof path, "%.3900s/%s", dir, VXR_WORLD_INDEX);
    uint8_t *data = NULL;
    size_t size = 0;
    vxr_error why = {{0}};
    *entries = NULL;
    *count = 0;
    const vxr_result r = vxr_read_file_max(path, INDEX_MAX_BYTES, &data, &size, &why);
    if (r != VXR_OK) return vxr_fail(err, r, "%s: %s", path, why.message);
    const vxr_result p = vxr_world_parse_index(data, size, path, side, entries, count, err);
    free(data);
    return p;
}

vxr_result vxr_world_load(const char *path, vxr_scene **dest, vxr_error *err) {
    *dest = NULL;
    char dir[PATH_MAX_BYTES];
    vxr_result r = vxr_world_index_path(path, dir, sizeof dir, err);
    if (r != VXR_OK) return r;
    uint32_t side = 0, count = 0;
    vxr_world_entry *e = NULL;
    r = vxr_world_read_index(dir, &side, &e, &count, err);
    if (r != VXR_OK) return r;
    vxr_scene *w = vxr_scene_alloc(count, count);
    if (!w) r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    if (r == VXR_OK) r = vxr_world_read_palette(dir, w, err);
    for (uint32_t i = 0; r == VXR_OK && i < count; i++) {
        uint64_t bytes;
        r = vxr_world_read_chunk(dir, side, &e[i], w, NULL, &w->models[i], &bytes, NULL, err);
        w->instances[i] = vxr_world_chunk_instance(e[i].c, side, i);
    }
    free(e);
    if (r != VXR_OK) {
        vxr_scene_destroy(w);
        return r;
    }
    *dest = w;
    return VXR_OK;
}
