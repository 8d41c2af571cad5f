/* A world's chunk files: chunks/CX.CY.CZ.vxc holds a chunk's coarse forms
 * (vxr_octree_coarse) ahead of the whole chunk, so that a chunk far from
 * the eye is read coarse, from its own bytes alone, and refined later.
 * Little-endian 32-bit words:
 *
 *   "VXC\0" version levels whole_voxels                      (4 words)
 *   per level, coarsest first: level vxo_bytes colours       (3 words)
 *   per level: a .vxo of the coarse form (one model in cells of 2^level,
 *              no instance), then its `colours` node colours
 *              (vxr_octree.lod_colors: the whole tree's, which the
 *              coarse form's own voxels cannot give back)
 *   the whole chunk's .vxo (one model, one instance), to the file's end
 *
 * Worlds written before the levels (chunks/CX.CY.CZ.vxo, the whole
 * chunk's .vxo alone) are read as they are; a chunk written back becomes
 * a .vxc and its .vxo goes. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"
#include "vxr/formats.h"

enum {
    PATH_BYTES = 4096,
    VXC_VERSION = 1,
    HEADER = 16,
    ENTRY = 12,
    LEVELS = 3 /* the most levels a file holds */
};
/* the coarsest level a world asks for is stored */
_Static_assert(VXR_LOD_MAX_LEVEL - VXR_LOD_MIN_LEVEL <= LEVELS, "a .vxc holds every level");

vxr_instance vxr_world_chunk_instance(const int32_t c[3], uint32_t side, uint32_t model) {
    vxr_instance in = {0};
    in.model = model;
    in.view_distance = INFINITY;
    in.transform.scale = 1;
    for (int k = 0; k < 3; k++) {
        in.transform.rotation[4 * k] = 1;
        in.transform.translation[k] = (float)((int64_t)c[k] * side);
    }
    return in;
}

void vxr_world_chunk_path(char *dest, size_t size, const char *dir, const int32_t c[3],
                          bool plain) {
    snprintf(dest, size, "%.3900s/chunks/%d.%d.%d.%s", dir, c[0], c[1], c[2],
             plain ? "vxo" : "vxc");
}

/* A .vxo of tree alone (no instance) with colours' palette, after its node
 * colours' count in the level table. */
static vxr_result put_coarse(const vxr_scene *colours, vxr_octree *tree, uint32_t level,
                             vxr_bytes *table, vxr_bytes *body, vxr_error *err) {
    vxr_scene *s = vxr_scene_alloc(1, 0);
    if (!s) {
        vxr_octree_free(tree);
        return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    }
    s->attr_size = colours->attr_size;
    memcpy(s->palette, colours->palette, sizeof s->palette);
    s->models[0] = *tree;
    memset(tree, 0, sizeof *tree);
    uint8_t *data = NULL;
    size_t size = 0;
    vxr_result r = vxr_save_vxo(s, &data, &size, err);
    if (r == VXR_OK && size > UINT32_MAX)
        r = vxr_fail(err, VXR_ERROR_LIMIT, "a coarse form of %zu bytes (at most 4 GiB)", size);
    if (r == VXR_OK) {
        const vxr_octree *m = &s->models[0];
        vxr_bytes_put32(table, level);
        vxr_bytes_put32(table, (uint32_t)size);
        vxr_bytes_put32(table, m->node_count);
        vxr_bytes_put(body, data, size);
        for (uint32_t k = 0; k < m->node_count; k++) vxr_bytes_put32(body, m->lod_colors[k]);
    }
    free(data);
    vxr_scene_destroy(s);
    return r;
}

/* The chunk file's bytes: the coarse forms of whole (models[0] of a
 * scene whose .vxo is data[0..size)), then data. */
static vxr_result chunk_file(const vxr_scene *whole, const uint8_t *data, size_t size,
                             vxr_bytes *out, vxr_error *err) {
    const vxr_octree *t = &whole->models[0];
    const uint32_t most = t->depth >= VXR_BRICK_LEVEL + 2 ? t->depth - VXR_BRICK_LEVEL - 1 : 0;
    vxr_bytes table = {0}, body = {0};
    uint32_t levels = 0;
    vxr_result r = VXR_OK;
    /* out of memory, or an odd origin: no level stored (not some: a
     * reader takes the coarsest stored), the chunk is coarsened when read */
    const uint32_t top = VXR_LOD_MAX_LEVEL - VXR_LOD_MIN_LEVEL;
    uint32_t *colors = most ? malloc((size_t)t->node_count * sizeof *colors) : NULL;
    if (colors) vxr_lod_colors(t, whole->palette, 0, t->node_count, colors);
    for (uint32_t level = most < top ? most : top; colors && r == VXR_OK && level >= 1; level--) {
        vxr_octree c;
        if (vxr_octree_coarse_from(t, colors, level, &c, NULL) != VXR_OK) {
            table.n = body.n = 0;
            levels = 0;
            break;
        }
        r = put_coarse(whole, &c, level, &table, &body, err);
        levels++;
    }
    vxr_bytes_put(out, "VXC", 4);
    vxr_bytes_put32(out, VXC_VERSION);
    vxr_bytes_put32(out, levels);
    vxr_bytes_put32(out, t->voxel_count);
    vxr_bytes_put(out, table.p, table.n);
    vxr_bytes_put(out, body.p, body.n);
    vxr_bytes_put(out, data, size);
    if (r == VXR_OK && (table.failed || body.failed || out->failed))
        r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    free(colors);
    free(table.p);
    free(body.p);
    return r;
}

vxr_result vxr_world_write_chunk(const vxr_scene *scene, const char *dir, uint32_t side,
                                 uint32_t threads, vxr_chunk_bucket *b, uint64_t *bytes,
                                 uint64_t *whole_bytes, uint64_t *voxels, vxr_error *err) {
    vxr_scene_src src;
    vxr_scene_src_init(&src, scene->attr_size);
    memcpy(src.palette, scene->palette, sizeof src.palette);
    memcpy(src.materials, scene->materials, sizeof src.materials);
    uint32_t model;
    vxr_result r = vxr_scene_src_add_model(&src, &model);
    if (r == VXR_OK) {
        src.models[model] = b->m;
        memset(&b->m, 0, sizeof b->m);
        for (int k = 0; k < 3; k++) src.models[model].box_max[k] = (int32_t)side;
        const vxr_instance in = vxr_world_chunk_instance(b->c, side, model);
        r = vxr_scene_src_add_instance(&src, &in);
    }
    if (r != VXR_OK) {
        vxr_scene_src_free(&src);
        return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    }
    vxr_scene *s = NULL;
    uint8_t *data = NULL;
    size_t size = 0;
    vxr_bytes file = {0};
    r = vxr_scene_build_threads(&src, threads, &s, err);
    vxr_scene_src_free(&src);
    if (r == VXR_OK) {
        *voxels = s->models[0].voxel_count; /* a cell filled twice is one voxel */
        r = vxr_save_vxo(s, &data, &size, err);
    }
    if (r == VXR_OK) r = chunk_file(s, data, size, &file, err);
    vxr_scene_destroy(s);
    free(data);
    char path[PATH_BYTES];
    vxr_world_chunk_path(path, sizeof path, dir, b->c, false);
    if (r == VXR_OK) r = vxr_write_file(path, file.p, file.n, err);
    free(file.p);
    if (bytes) *bytes += file.n;
    if (whole_bytes) *whole_bytes = size;
    return r;
}

/* The coarse form or whole chunk stored at [at, at + n) of fd. */
static vxr_result read_range(int fd, uint64_t at, uint64_t n, uint8_t **data, vxr_error *err) {
    *data = malloc(n ? (size_t)n : 1);
    if (!*data)
        return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory for %llu bytes",
                        (unsigned long long)n);
    for (uint64_t done = 0; done < n;) {
        const ssize_t got = pread(fd, *data + done, (size_t)(n - done), (off_t)(at + done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            free(*data);
            *data = NULL;
            return vxr_fail(err, got < 0 ? VXR_ERROR_IO : VXR_ERROR_FORMAT, "%s",
                            got < 0 ? strerror(errno) : "truncated");
        }
        done += (uint64_t)got;
    }
    return VXR_OK;
}

/* Where in a .vxc of `size` bytes the coarse form of the coarsest level at
 * most *level is (*level: the one found, 0 for the whole chunk). */
typedef struct part {
    uint64_t at, vxo, colours;
    uint32_t whole; /* the whole chunk's voxels */
} part;

static vxr_result find_part(int fd, uint64_t size, uint32_t *level, part *p, vxr_error *err) {
    uint8_t h[HEADER + LEVELS * ENTRY] = {0};
    const uint64_t n = size < sizeof h ? size : sizeof h;
    uint8_t *got = NULL;
    vxr_result r = read_range(fd, 0, n, &got, err);
    if (r != VXR_OK) return r;
    memcpy(h, got, (size_t)n);
    free(got);
    const uint32_t levels = vxr_get32(h + 8);
    if (n < HEADER || memcmp(h, "VXC", 4) || vxr_get32(h + 4) != VXC_VERSION || levels > LEVELS ||
        n < HEADER + (uint64_t)levels * ENTRY)
        return vxr_fail(err, VXR_ERROR_FORMAT,
                        "not a vxr chunk file (bad magic, version %u or %u levels, or truncated)",
                        vxr_get32(h + 4), levels);
    p->whole = vxr_get32(h + 12);
    uint64_t at = HEADER + (uint64_t)levels * ENTRY;
    const uint32_t want = *level;
    *level = 0;
    for (uint32_t k = 0, last = LEVELS + 1; k < levels; k++) {
        const uint8_t *e = h + HEADER + k * ENTRY;
        const uint32_t l = vxr_get32(e);
        const uint64_t vxo = vxr_get32(e + 4), colours = 4ull * vxr_get32(e + 8);
        if (l < 1 || l >= last)
            return vxr_fail(err, VXR_ERROR_FORMAT, "level table: level %u after %u", l, last);
        last = l;
        if (!*level && l <= want) {
            *level = l;
            *p = (part){at, vxo, colours, p->whole};
        }
        at += vxo + colours;
    }
    if (at >= size)
        return vxr_fail(err, VXR_ERROR_FORMAT, "the levels claim %llu bytes of %llu",
                        (unsigned long long)at, (unsigned long long)size);
    if (!*level) *p = (part){at, size - at, 0, p->whole};
    return VXR_OK;
}

vxr_result vxr_world_read_chunk(const char *dir, uint32_t side, const vxr_world_entry *e,
                                const vxr_scene *world, uint32_t *level, vxr_octree *tree,
                                uint64_t *bytes, uint32_t *whole, vxr_error *err) {
    char path[PATH_BYTES];
    vxr_world_chunk_path(path, sizeof path, dir, e->c, false);
    int fd;
    do fd = open(path, O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    const bool plain = fd < 0 && errno == ENOENT;
    if (plain) { /* written before the levels */
        char old[PATH_BYTES];
        vxr_world_chunk_path(old, sizeof old, dir, e->c, true);
        do fd = open(old, O_RDONLY | O_CLOEXEC);
        while (fd < 0 && errno == EINTR);
        if (fd >= 0) memcpy(path, old, sizeof path);
    }
    if (fd < 0) return vxr_fail(err, VXR_ERROR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    uint32_t got = level ? *level : 0;
    part p = {0, 0, 0, 0};
    vxr_error why = {{0}};
    vxr_result r = fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
                       ? VXR_OK
                       : vxr_fail(&why, VXR_ERROR_IO, "not a regular file");
    if (r == VXR_OK && plain) {
        got = 0;
        p.vxo = (uint64_t)st.st_size;
    } else if (r == VXR_OK) {
        r = find_part(fd, (uint64_t)st.st_size, &got, &p, &why);
    }
    if (r == VXR_OK && p.vxo > VXR_VXO_MAX_BYTES)
        r = vxr_fail(&why, VXR_ERROR_LIMIT, "%llu bytes, over %llu", (unsigned long long)p.vxo,
                     (unsigned long long)VXR_VXO_MAX_BYTES);
    /* a node takes 8 bytes of its .vxo and 4 of colour: refused before
     * they are read */
    if (r == VXR_OK && p.colours > p.vxo / 2)
        r = vxr_fail(&why, VXR_ERROR_FORMAT, "level %u claims %llu bytes of colours", got,
                     (unsigned long long)p.colours);
    uint8_t *data = NULL;
    vxr_scene *c = NULL;
    if (r == VXR_OK) r = read_range(fd, p.at, p.vxo + p.colours, &data, &why);
    close(fd);
    if (r == VXR_OK) r = vxr_load_vxo(data, (size_t)p.vxo, &c, &why);
    if (r != VXR_OK) {
        free(data);
        return vxr_fail(err, r, "%s: %s", path, why.message);
    }
    const vxr_octree *m = &c->models[0];
    const vxr_transform *t = c->instance_count ? &c->instances[0].transform : NULL;
    const uint32_t cells = side >> got;
    bool ok = c->model_count == 1 && m->voxel_count > 0 && c->attr_size == world->attr_size &&
              !memcmp(c->palette, world->palette, sizeof c->palette) &&
              p.colours == (got ? 4ull * m->node_count : 0) &&
              (!got || (p.whole >= m->voxel_count && p.whole <= (uint64_t)side * side * side)) &&
              (got ? !t : c->instance_count == 1 && c->instances[0].model == 0 && t->scale == 1);
    for (int k = 0; ok && k < 3; k++) {
        ok = m->vmin[k] >= 0 && m->vmax[k] <= (int32_t)cells;
        if (got) continue;
        ok = ok && t->translation[k] == (float)((int64_t)e->c[k] * side);
        for (int j = 0; j < 3; j++) ok = ok && t->rotation[3 * k + j] == (j == k ? 1.0f : 0.0f);
    }
    uint32_t *colours = ok && got ? malloc((size_t)p.colours) : NULL;
    if (!ok || (got && !colours)) {
        vxr_scene_destroy(c);
        free(data);
        if (ok) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
        return vxr_fail(err, VXR_ERROR_FORMAT,
                        "%s: not the chunk the index names (one model of voxels in 0..%u, one "
                        "instance at its first cell, the world's palette)",
                        path, side - 1);
    }
    for (uint32_t k = 0; colours && k < m->node_count; k++)
        colours[k] = vxr_get32(data + p.vxo + 4 * (size_t)k);
    free(data);
    *tree = c->models[0];
    tree->lod_colors = colours;
    memset(&c->models[0], 0, sizeof c->models[0]);
    *bytes = p.vxo + p.colours;
    if (level) *level = got;
    if (whole) *whole = got ? p.whole : tree->voxel_count;
    vxr_scene_destroy(c);
    return VXR_OK;
}
