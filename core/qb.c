/* Qubicle Binary .qb (Minddesk's "Qubicle Binary" format description):
 * a 24-byte header of little-endian uint32 (version, colour format 0 RGBA /
 * 1 BGRA, z-axis orientation 0 left-handed / 1 right-handed, compressed,
 * visibility mask encoded, matrix count), then per matrix a name (uint8
 * length, bytes), its size and position (uint32 x3, int32 x3) and its cells,
 * x fastest, then y, then z: uncompressed, size x*y*z colours; compressed,
 * one run-length slice per z (a colour, or CODEFLAG 2, count, colour; the
 * slice ends with NEXTSLICEFLAG 6). Alpha 0 is empty; with the visibility
 * mask encoded, any other alpha is a solid voxel (its bits say which faces
 * show).
 *
 * Axes: Qubicle is Y-up. A right-handed file's (x, y, z) is vxr's
 * (x, -z, y), the turn about x from Y-up to Z-up; in a left-handed one x
 * and z point the other way, so its (x, y, z) is vxr's (-x, z, y). That is
 * what the same models in both formats show: vengi's rgb.qb and rgb.vox
 * (left-handed, tests/data) hold the same voxels under it, positions
 * included, and the Minecraft region of ../shared/data (right-handed) its
 * .vox conversion's, up to a move. A cell [c, c+1) negated is [-c-1, -c).
 * Each matrix is one model, placed by one instance where its position
 * maps. */
#include <math.h>
#include <string.h>
#include "internal.h"

enum { HEADER = 24, CODEFLAG = 2, NEXTSLICEFLAG = 6 };

/* The cell of vxr for Qubicle cell (x, y, z). */
static void to_vxr(bool right, int64_t x, int64_t y, int64_t z, int64_t out[3]) {
    out[0] = right ? x : -x - 1;
    out[1] = right ? -z - 1 : z;
    out[2] = y;
}

vxr_result vxr_cursor_need(vxr_cursor *c, size_t n, const char *what) {
    if (c->size - c->at >= n) return VXR_OK;
    return vxr_fail(c->err, VXR_ERROR_FORMAT, "truncated: %s at byte %zu needs %zu bytes, %zu left",
                    what, c->at, n, c->size - c->at);
}

vxr_result vxr_qb_matrix_begin(vxr_scene_src *dest, bool right, const int64_t pos[3],
                               const uint32_t n[3], const char *where, vxr_qb_matrix *m,
                               vxr_error *err) {
    const int64_t limit = 1 << 20; /* vxr's coordinate range */
    for (int k = 0; k < 3; k++)
        if (n[k] == 0 || n[k] > (uint32_t)limit || pos[k] < -limit ||
            pos[k] > limit - (int64_t)n[k])
            return vxr_fail(err, VXR_ERROR_FORMAT,
                            "%s: size %u x %u x %u at %lld, %lld, %lld is outside the coordinate "
                            "range of +-2^20",
                            where, n[0], n[1], n[2], (long long)pos[0], (long long)pos[1],
                            (long long)pos[2]);
    m->right = right;
    for (int k = 0; k < 3; k++) m->pos[k] = pos[k];
    /* The model's cells are relative to its least vxr cell, where the
     * instance puts them. */
    int64_t far[3];
    to_vxr(right, pos[0], pos[1], pos[2], m->corner);
    to_vxr(right, pos[0] + n[0] - 1, pos[1] + n[1] - 1, pos[2] + n[2] - 1, far);
    for (int k = 0; k < 3; k++) m->corner[k] = m->corner[k] < far[k] ? m->corner[k] : far[k];
    vxr_result r = vxr_scene_src_add_model(dest, &m->model);
    return r == VXR_OK ? VXR_OK : vxr_fail(err, r, "out of memory");
}

vxr_result vxr_qb_matrix_put(vxr_scene_src *dest, const vxr_qb_matrix *m, uint64_t x, uint64_t y,
                             uint64_t z, uint32_t color) {
    int64_t v[3];
    to_vxr(m->right, m->pos[0] + (int64_t)x, m->pos[1] + (int64_t)y, m->pos[2] + (int64_t)z, v);
    return vxr_model_src_push(&dest->models[m->model], (int32_t)(v[0] - m->corner[0]),
                              (int32_t)(v[1] - m->corner[1]), (int32_t)(v[2] - m->corner[2]),
                              color);
}

vxr_result vxr_qb_matrix_end(vxr_scene_src *dest, const vxr_qb_matrix *m, bool hidden,
                             vxr_error *err) {
    vxr_instance in = {m->model, hidden ? VXR_INSTANCE_HIDDEN : 0, vxr_transform_identity(),
                       INFINITY};
    for (int k = 0; k < 3; k++) in.transform.translation[k] = (float)m->corner[k];
    vxr_result r = vxr_scene_src_add_instance(dest, &in);
    return r == VXR_OK ? VXR_OK : vxr_fail(err, r, "out of memory");
}

/* Reads matrix `index` into a new model and its instance. */
static vxr_result read_matrix(vxr_cursor *q, uint32_t index, const uint32_t head[6],
                              vxr_color_map *map, uint64_t *total, vxr_scene_src *dest) {
    vxr_result r;
    if ((r = vxr_cursor_need(q, 1, "matrix name length")) != VXR_OK) return r;
    size_t name = q->data[q->at++];
    if ((r = vxr_cursor_need(q, name + 24, "matrix name, size and position")) != VXR_OK) return r;
    q->at += name;
    const size_t header_at = q->at;
    uint32_t n[3];
    int64_t pos[3];
    for (int k = 0; k < 3; k++) n[k] = vxr_cursor_u32(q);
    for (int k = 0; k < 3; k++) pos[k] = (int32_t)vxr_cursor_u32(q);
    char where[64];
    snprintf(where, sizeof where, "matrix %u (byte %zu)", index, header_at);
    const uint64_t cells = (uint64_t)n[0] * n[1] * n[2];
    const bool compressed = head[3] != 0, bgra = head[1] != 0, right = head[2] != 0;
    vxr_qb_matrix m;
    if ((r = vxr_qb_matrix_begin(dest, right, pos, n, where, &m, q->err)) != VXR_OK) return r;
    if (!compressed && cells > (q->size - q->at) / 4)
        return vxr_fail(q->err, VXR_ERROR_FORMAT, "truncated: %s has %llu cells, %zu bytes left",
                        where, (unsigned long long)cells, q->size - q->at);
    for (uint32_t z = 0; z < n[2]; z++) {
        uint64_t cell = 0; /* x + n.x * y within the slice */
        for (;;) {
            if (!compressed && cell == (uint64_t)n[0] * n[1]) break;
            if ((r = vxr_cursor_need(q, 4, compressed ? "run-length code" : "cell")) != VXR_OK)
                return r;
            uint32_t c = vxr_cursor_u32(q), count = 1;
            if (compressed && c == NEXTSLICEFLAG) break;
            if (compressed && c == CODEFLAG) {
                if ((r = vxr_cursor_need(q, 8, "run")) != VXR_OK) return r;
                count = vxr_cursor_u32(q);
                c = vxr_cursor_u32(q);
            }
            if (count > (uint64_t)n[0] * n[1] - cell)
                return vxr_fail(q->err, VXR_ERROR_FORMAT,
                                "matrix %u, slice %u (byte %zu): %u cells overrun the %u x %u "
                                "slice",
                                index, z, q->at - 4, count, n[0], n[1]);
            if ((c >> 24) == 0) {
                cell += count;
                continue;
            }
            if (*total + count > VXR_RLE_VOXEL_LIMIT)
                return vxr_fail(q->err, VXR_ERROR_LIMIT,
                                "matrix %u (byte %zu): more than %llu solid voxels", index,
                                q->at - 4, (unsigned long long)VXR_RLE_VOXEL_LIMIT);
            *total += count;
            const uint32_t color = vxr_color_attr(map, dest,
                                                  bgra ? vxr_rgba(c >> 16, c >> 8, c, 255)
                                                       : vxr_rgba(c, c >> 8, c >> 16, 255));
            for (uint32_t i = 0; i < count; i++, cell++)
                if (vxr_qb_matrix_put(dest, &m, cell % n[0], cell / n[0], z, color) != VXR_OK)
                    return vxr_fail(q->err, VXR_ERROR_MEMORY, "out of memory");
        }
    }
    return vxr_qb_matrix_end(dest, &m, false, q->err);
}

vxr_result vxr_load_qb(const uint8_t *data, size_t size, vxr_scene_src *dest, vxr_error *err) {
    vxr_scene_src_init(dest, 1);
    vxr_cursor q = {data, size, 0, err};
    vxr_result r = vxr_cursor_need(&q, HEADER, "header");
    if (r != VXR_OK) return r;
    uint32_t head[6];
    for (int i = 0; i < 6; i++) head[i] = vxr_cursor_u32(&q);
    static const char *const flag[] = {"colour format", "z-axis orientation", "compression flag",
                                       "visibility mask flag"};
    for (int i = 1; i <= 4; i++)
        if (head[i] > 1)
            return vxr_fail(err, VXR_ERROR_FORMAT, "header (byte %d): %s %u is neither 0 nor 1",
                            4 * i, flag[i - 1], head[i]);
    /* a matrix takes at least 25 bytes: no count beyond what the file holds */
    if (head[5] > (size - HEADER) / 25)
        return vxr_fail(err, VXR_ERROR_FORMAT,
                        "header (byte 20): %u matrices cannot fit in the %zu bytes that follow",
                        head[5], size - HEADER);
    vxr_color_map *map = calloc(1, sizeof *map);
    if (!map) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    uint64_t total = 0;
    for (uint32_t i = 0; r == VXR_OK && i < head[5]; i++)
        r = read_matrix(&q, i, head, map, &total, dest);
    if (r == VXR_OK) dest->attr_size = map->rgba ? 4 : 1;
    free(map);
    if (r != VXR_OK) {
        vxr_scene_src_free(dest);
        return r;
    }
    return VXR_OK;
}

/* ---- saving ---- */

/* A matrix a visible instance becomes: its cells in Qubicle's axes
 * (left-handed, the inverse of to_vxr: x = -X-1, y = Z, z = Y). */
typedef struct qb_matrix {
    const vxr_scene *scene;
    int32_t R[9];
    int64_t t[3];
    int64_t lo[3], hi[3]; /* Qubicle cells, hi inclusive */
    uint32_t *grid;       /* NULL while measuring the bounds */
} qb_matrix;

static void qb_cell(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    qb_matrix *m = user;
    const int64_t v[3] = {x, y, z};
    int64_t w[3];
    vxr_place_cell(m->R, m->t, v, w);
    const int64_t c[3] = {-w[0] - 1, w[2], w[1]};
    if (!m->grid) {
        vxr_box_grow(m->lo, m->hi, c);
        return;
    }
    const uint64_t nx = (uint64_t)(m->hi[0] - m->lo[0] + 1),
                   ny = (uint64_t)(m->hi[1] - m->lo[1] + 1);
    const uint32_t rgba = m->scene->attr_size == 1 ? m->scene->palette[attr] : attr;
    m->grid[(uint64_t)(c[0] - m->lo[0]) +
            nx * ((uint64_t)(c[1] - m->lo[1]) + ny * (uint64_t)(c[2] - m->lo[2]))] =
        rgba | 0xff000000u;
}

/* One matrix: its header, then each z slice as runs (CODEFLAG, count,
 * colour for two or more equal cells) ending with NEXTSLICEFLAG. Solid
 * colours have alpha 255 and empty cells are 0, so no cell reads as a
 * flag. */
static void write_matrix(vxr_bytes *o, uint32_t index, const qb_matrix *m) {
    char name[32];
    int len = snprintf(name, sizeof name, "instance %u", index);
    const uint8_t nl = (uint8_t)len;
    vxr_bytes_put(o, &nl, 1);
    vxr_bytes_put(o, name, nl);
    uint64_t n[3];
    for (int k = 0; k < 3; k++) n[k] = (uint64_t)(m->hi[k] - m->lo[k] + 1);
    for (int k = 0; k < 3; k++) vxr_bytes_put32(o, (uint32_t)n[k]);
    for (int k = 0; k < 3; k++) vxr_bytes_put32(o, (uint32_t)(int32_t)m->lo[k]);
    const uint64_t slice = n[0] * n[1];
    for (uint64_t z = 0; z < n[2]; z++) {
        const uint32_t *g = m->grid + z * slice;
        for (uint64_t i = 0; i < slice;) {
            uint64_t j = i + 1;
            while (j < slice && g[j] == g[i]) j++;
            if (j - i > 1) {
                vxr_bytes_put32(o, CODEFLAG);
                vxr_bytes_put32(o, (uint32_t)(j - i));
            }
            vxr_bytes_put32(o, g[i]);
            i = j;
        }
        vxr_bytes_put32(o, NEXTSLICEFLAG);
    }
}

vxr_result vxr_save_qb(const vxr_scene *s, uint8_t **data, size_t *size, vxr_error *err) {
    *data = NULL;
    *size = 0;
    vxr_bytes o = {0};
    uint32_t matrices = 0;
    for (uint32_t i = 0; i < s->instance_count; i++)
        matrices += !(s->instances[i].flags & VXR_INSTANCE_HIDDEN) &&
                    s->models[s->instances[i].model].voxel_count > 0;
    const uint32_t head[6] = {0x101, 0, 0, 1, 0, matrices};
    for (int k = 0; k < 6; k++) vxr_bytes_put32(&o, head[k]);
    vxr_result r = VXR_OK;
    for (uint32_t i = 0; r == VXR_OK && i < s->instance_count; i++) {
        const vxr_instance *in = &s->instances[i];
        if ((in->flags & VXR_INSTANCE_HIDDEN) || s->models[in->model].voxel_count == 0) continue;
        qb_matrix m = {
            s,   {0}, {0}, {INT64_MAX, INT64_MAX, INT64_MAX}, {INT64_MIN, INT64_MIN, INT64_MIN},
            NULL};
        if (!vxr_integer_placement(&in->transform, m.R, m.t)) {
            r = vxr_fail(err, VXR_ERROR_LIMIT,
                         "instance %u is not placed on whole cells (rotation other than an axis "
                         "permutation, or scale != 1): .qb cannot hold it",
                         i);
            break;
        }
        vxr_octree_foreach(&s->models[in->model], qb_cell, &m);
        uint64_t cells = 1;
        for (int k = 0; k < 3; k++) cells *= (uint64_t)(m.hi[k] - m.lo[k] + 1);
        if (cells > VXR_RLE_MAX_VOXELS) {
            r = vxr_fail(err, VXR_ERROR_LIMIT,
                         "instance %u spans %llu cells, over the .qb writer's limit of %llu", i,
                         (unsigned long long)cells, (unsigned long long)VXR_RLE_MAX_VOXELS);
            break;
        }
        m.grid = calloc((size_t)cells, sizeof *m.grid);
        if (!m.grid) {
            r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory for %llu cells",
                         (unsigned long long)cells);
            break;
        }
        vxr_octree_foreach(&s->models[in->model], qb_cell, &m);
        write_matrix(&o, i, &m);
        free(m.grid);
    }
    if (r == VXR_OK && o.failed) r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    if (r != VXR_OK) {
        free(o.p);
        return r;
    }
    *data = o.p;
    *size = o.n;
    return VXR_OK;
}
