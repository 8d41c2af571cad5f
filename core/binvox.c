/* binvox (Patrick Min's voxelizer, "binvox file format" on its site): a
 * text header, "#binvox 1", then lines "dim D H W", "translate X Y Z" and
 * "scale S" (where the grid lies in the mesh's space: index i's cell starts
 * at translate + i * scale / D), then "data" and byte pairs (value, count)
 * run-length coding
 * the D x W x H cells with index x*W*H + z*W + y (y fastest, then z, then
 * x); a value other than 0 is solid. No colours: solid cells take palette
 * entry 1, grey (180).
 *
 * Axes: binvox is right-handed and Y-up (its viewer's), so its cell
 * (x, y, z) is vxr's (x, -z-1, y): a turn about x, as DESIGN.md §4 says.
 * Where a cell is one unit of mesh space (scale equal to the sizes, all
 * three the same) and translate is whole, as vxr writes it, the cells sit
 * at translate + index; else at their indices (vengi's test.binvox is
 * scaled to its mesh). */
#include <math.h>
#include <string.h>
#include "internal.h"

enum { MAX_LINE = 256 };

/* The next header line at *at (without its newline) into line; false at
 * the end of the bytes or on an overlong line. */
static bool header_line(const uint8_t *data, size_t size, size_t *at, char line[MAX_LINE]) {
    size_t n = 0;
    while (*at < size && data[*at] != '\n') {
        if (n + 1 == MAX_LINE || data[*at] == 0) return false;
        line[n++] = (char)data[(*at)++];
    }
    if (*at == size) return false;
    (*at)++;
    if (n && line[n - 1] == '\r') n--;
    line[n] = 0;
    return true;
}

/* "dim D H W": three counts of 1..2^20. */
static bool parse_dim(const char *s, uint32_t dim[3]) {
    for (int k = 0; k < 3; k++) {
        while (*s == ' ' || *s == '\t') s++;
        if (*s < '0' || *s > '9') return false;
        uint64_t v = 0;
        while (*s >= '0' && *s <= '9' && v <= (1u << 20)) v = v * 10 + (uint64_t)(*s++ - '0');
        if (v == 0 || v > (1u << 20) || (*s >= '0' && *s <= '9')) return false;
        dim[k] = (uint32_t)v;
    }
    while (*s == ' ' || *s == '\t') s++;
    return *s == 0;
}

vxr_result vxr_load_binvox(const uint8_t *data, size_t size, vxr_scene_src *dest, vxr_error *err) {
    vxr_scene_src_init(dest, 1);
    size_t at = 0, line_at = 0;
    char line[MAX_LINE];
    if (!header_line(data, size, &at, line) || strncmp(line, "#binvox", 7) != 0)
        return vxr_fail(err, VXR_ERROR_FORMAT, "byte 0: not a binvox file (no \"#binvox\" line)");
    uint32_t dim[3] = {0, 0, 0};
    float tr[3] = {0, 0, 0}, scale = 0;
    for (;;) {
        line_at = at;
        if (!header_line(data, size, &at, line))
            return vxr_fail(err, VXR_ERROR_FORMAT,
                            "byte %zu: the header ends without a \"data\" line (or a line is "
                            "over %d bytes)",
                            line_at, MAX_LINE - 1);
        if (!strcmp(line, "data")) break;
        if (!strncmp(line, "dim", 3)) {
            if (!parse_dim(line + 3, dim))
                return vxr_fail(err, VXR_ERROR_FORMAT,
                                "byte %zu: \"%s\" is not \"dim D H W\" with sizes 1 to 2^20",
                                line_at, line);
        } else if (!strncmp(line, "translate", 9)) {
            if (sscanf(line + 9, "%f %f %f", &tr[0], &tr[1], &tr[2]) != 3) tr[0] = NAN;
        } else if (!strncmp(line, "scale", 5)) {
            if (sscanf(line + 5, "%f", &scale) != 1) scale = NAN;
        } else {
            return vxr_fail(err, VXR_ERROR_FORMAT, "byte %zu: unknown header line \"%.40s\"",
                            line_at, line);
        }
    }
    if (!dim[0])
        return vxr_fail(err, VXR_ERROR_FORMAT, "byte %zu: \"data\" before any \"dim\" line",
                        line_at);
    /* d, h, w: x counts d, z counts h, y (fastest) counts w */
    bool unit = dim[0] == dim[1] && dim[1] == dim[2] && scale == (float)dim[0];
    for (int k = 0; k < 3; k++)
        unit = unit && tr[k] == floorf(tr[k]) && fabsf(tr[k]) <= (float)(1 << 20);
    if (!unit) tr[0] = tr[1] = tr[2] = 0;
    const uint64_t w = dim[2], h = dim[1], cells = (uint64_t)dim[0] * dim[1] * dim[2];
    uint32_t model;
    vxr_result r = vxr_scene_src_add_model(dest, &model);
    if (r != VXR_OK) return vxr_fail(err, r, "out of memory");
    vxr_model_src *m = &dest->models[0];
    dest->palette[1] = vxr_rgba(180, 180, 180, 255);
    uint64_t index = 0, solid = 0;
    while (index < cells) {
        if (size - at < 2) {
            vxr_scene_src_free(dest);
            return vxr_fail(err, VXR_ERROR_FORMAT,
                            "truncated: byte %zu: the runs end at cell %llu of %llu", at,
                            (unsigned long long)index, (unsigned long long)cells);
        }
        const uint8_t value = data[at], count = data[at + 1];
        if (count > cells - index) {
            vxr_scene_src_free(dest);
            return vxr_fail(err, VXR_ERROR_FORMAT,
                            "byte %zu: a run of %u cells passes the last of %llu", at, count,
                            (unsigned long long)cells);
        }
        at += 2;
        if (value && count) {
            if (solid + count > VXR_RLE_VOXEL_LIMIT) {
                vxr_scene_src_free(dest);
                return vxr_fail(err, VXR_ERROR_LIMIT, "byte %zu: more than %llu solid voxels",
                                at - 2, (unsigned long long)VXR_RLE_VOXEL_LIMIT);
            }
            solid += count;
            for (uint64_t i = index; i < index + count; i++) {
                const uint64_t x = i / (w * h), z = i / w % h, y = i % w;
                /* (x, -z-1, y), shifted by h to keep the model's cells >= 0 */
                r = vxr_model_src_push(m, (int32_t)x, (int32_t)(h - 1 - z), (int32_t)y, 1);
                if (r != VXR_OK) {
                    vxr_scene_src_free(dest);
                    return vxr_fail(err, r, "out of memory");
                }
            }
        }
        index += count;
    }
    if (at != size) {
        vxr_scene_src_free(dest);
        return vxr_fail(err, VXR_ERROR_FORMAT, "byte %zu: %zu bytes after the last cell's run", at,
                        size - at);
    }
    /* binvox cell b = index + tr is vxr's (b.x, -b.z-1, b.y) */
    vxr_instance in = {model, 0, vxr_transform_identity(), INFINITY};
    in.transform.translation[0] = tr[0];
    in.transform.translation[1] = -(float)h - tr[2];
    in.transform.translation[2] = tr[1];
    r = vxr_scene_src_add_instance(dest, &in);
    if (r != VXR_OK) {
        vxr_scene_src_free(dest);
        return vxr_fail(err, r, "out of memory");
    }
    return VXR_OK;
}

/* ---- saving ---- */

typedef struct bv_grid {
    const vxr_scene *scene;
    int32_t R[9];
    int64_t t[3];
    int64_t lo[3], hi[3]; /* binvox cells, hi inclusive */
    uint64_t n;           /* the cube's side */
    uint8_t *cells;       /* NULL while measuring */
} bv_grid;

static void bv_cell(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    (void)attr;
    bv_grid *g = user;
    const int64_t v[3] = {x, y, z};
    int64_t w[3];
    vxr_place_cell(g->R, g->t, v, w);
    const int64_t b[3] = {w[0], w[2], -w[1] - 1}; /* the inverse of (x, -z-1, y) */
    if (!g->cells) {
        vxr_box_grow(g->lo, g->hi, b);
        return;
    }
    const uint64_t i[3] = {(uint64_t)(b[0] - g->lo[0]), (uint64_t)(b[1] - g->lo[1]),
                           (uint64_t)(b[2] - g->lo[2])};
    g->cells[i[0] * g->n * g->n + i[2] * g->n + i[1]] = 1;
}

vxr_result vxr_save_binvox(const vxr_scene *s, uint8_t **data, size_t *size, vxr_error *err) {
    *data = NULL;
    *size = 0;
    bv_grid g = {s, {0}, {0}, {INT64_MAX, INT64_MAX, INT64_MAX}, {INT64_MIN, INT64_MIN, INT64_MIN},
                 1, NULL};
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < s->instance_count; i++) {
            const vxr_instance *in = &s->instances[i];
            if (in->flags & VXR_INSTANCE_HIDDEN) continue;
            if (!vxr_integer_placement(&in->transform, g.R, g.t)) {
                free(g.cells);
                return vxr_fail(err, VXR_ERROR_LIMIT,
                                "instance %u is not placed on whole cells (rotation other than "
                                "an axis permutation, or scale != 1): .binvox cannot hold it",
                                i);
            }
            vxr_octree_foreach(&s->models[in->model], bv_cell, &g);
        }
        if (pass == 1) break;
        if (g.lo[0] > g.hi[0]) g.lo[0] = g.lo[1] = g.lo[2] = g.hi[0] = g.hi[1] = g.hi[2] = 0;
        for (int k = 0; k < 3; k++)
            if ((uint64_t)(g.hi[k] - g.lo[k] + 1) > g.n) g.n = (uint64_t)(g.hi[k] - g.lo[k] + 1);
        if (g.n > 512)
            return vxr_fail(err, VXR_ERROR_LIMIT,
                            "the scene spans %llu cells, over the .binvox writer's cube of 512",
                            (unsigned long long)g.n);
        g.cells = calloc((size_t)(g.n * g.n * g.n), 1);
        if (!g.cells) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    }
    char head[160];
    int len = snprintf(head, sizeof head,
                       "#binvox 1\ndim %llu %llu %llu\ntranslate %lld %lld %lld\n"
                       "scale %llu\ndata\n",
                       (unsigned long long)g.n, (unsigned long long)g.n, (unsigned long long)g.n,
                       (long long)g.lo[0], (long long)g.lo[1], (long long)g.lo[2],
                       (unsigned long long)g.n);
    vxr_bytes o = {0};
    vxr_bytes_put(&o, head, (size_t)len);
    const uint64_t cells = g.n * g.n * g.n;
    for (uint64_t i = 0; i < cells;) {
        uint64_t j = i + 1;
        while (j < cells && j - i < 255 && g.cells[j] == g.cells[i]) j++;
        const uint8_t pair[2] = {g.cells[i], (uint8_t)(j - i)};
        vxr_bytes_put(&o, pair, 2);
        i = j;
    }
    free(g.cells);
    if (o.failed) {
        free(o.p);
        return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    }
    *data = o.p;
    *size = o.n;
    return VXR_OK;
}
