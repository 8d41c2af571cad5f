/* Qubicle's tree formats: the exchange format .qbt ("Qubicle Binary Tree",
 * Minddesk's format description) and the project format .qbcl (no
 * published description; its layout as the files Qubicle writes hold it).
 * Both are trees of model, compound and matrix nodes whose matrices carry
 * zlib-compressed cells; each matrix becomes one model and one instance,
 * left-handed Y-up as .qb's (core/qb.c): its cell (x, y, z) is vxr's
 * (-x-1, z, y).
 *
 * .qbt: "QB 2", version 1.0, a global scale (3 floats), "COLORMAP" (count,
 * RGBA colours), "DATATREE" and the root node. A node is a type and the
 * byte size of what follows (its children included), so unknown types are
 * skipped. Matrix (0): name, position (int32 x3, relative to the parent),
 * local scale, pivot, size (uint32 x3), then zlib data of size.x * size.y *
 * size.z cells of 4 bytes, x slowest, then z, then y: R, G, B (or a colour
 * map index, 0, 0) and a visibility mask, 0 for an empty cell. Model (1):
 * its children. Compound (2): a matrix, then its children.
 *
 * .qbcl: "QBCL", program and file version, a BGRA thumbnail (width,
 * height, pixels), seven metadata strings (uint32 length, bytes), 16 bytes,
 * then the root node: type, a word, name, three flag bytes (visible first),
 * then per type. Matrix (0): size (uint32 x3), position (int32 x3), pivot
 * (3 floats), then zlib data: one column per (x, z), x slowest, each along
 * y: a uint16 count of 4-byte entries, an entry being a cell (R, G, B, a
 * mask, 0 empty) or, with byte 3 equal to 2, a run (uint16 length) of the
 * cell that follows. Model (1): 36 bytes (a 3x3 matrix), the child count,
 * the children. Compound (2): a matrix, the child count, the children.
 * Hidden matrices become hidden instances. */
#include <string.h>
#include "internal.h"

enum { MAX_DEPTH = 64, RUN = 2 };

typedef struct tree {
    vxr_cursor c;
    vxr_scene_src *dest;
    vxr_color_map *map;
    const uint8_t *colors; /* a .qbt's colour map, NULL when it has none */
    uint32_t color_count;
    uint32_t matrices;
    uint64_t voxels;
} tree;

static vxr_result too_deep(tree *t, size_t at) {
    return vxr_fail(t->c.err, VXR_ERROR_FORMAT, "node at byte %zu: nested over %d deep", at,
                    MAX_DEPTH);
}

/* Skips a uint32-length string. */
static vxr_result skip_string(tree *t, const char *what) {
    vxr_result r = vxr_cursor_need(&t->c, 4, what);
    if (r != VXR_OK) return r;
    const uint32_t n = vxr_cursor_u32(&t->c);
    if ((r = vxr_cursor_need(&t->c, n, what)) != VXR_OK) return r;
    t->c.at += n;
    return VXR_OK;
}

/* A matrix's voxels, decompressed: a .qbt's grid or a .qbcl's columns. */
static vxr_result inflate_cells(tree *t, size_t max, uint8_t **out, size_t *n, size_t at) {
    vxr_result r = vxr_cursor_need(&t->c, 4, "matrix data size");
    if (r != VXR_OK) return r;
    const uint32_t packed = vxr_cursor_u32(&t->c);
    if ((r = vxr_cursor_need(&t->c, packed, "matrix data")) != VXR_OK) return r;
    const char *why = NULL;
    r = vxr_inflate(t->c.data + t->c.at, packed, false, max, out, n, &why);
    t->c.at += packed;
    if (r != VXR_OK)
        return vxr_fail(t->c.err, r, "matrix %u (byte %zu): its zlib data: %s", t->matrices, at,
                        why);
    return VXR_OK;
}

static vxr_result solid(tree *t, const vxr_qb_matrix *m, uint64_t x, uint64_t y, uint64_t z,
                        const uint8_t *cell, size_t at) {
    uint32_t rgba = vxr_rgba(cell[0], cell[1], cell[2], 255);
    if (t->colors) {
        if (cell[0] >= t->color_count)
            return vxr_fail(t->c.err, VXR_ERROR_FORMAT,
                            "matrix %u (byte %zu): colour %u of a map of %u", t->matrices, at,
                            cell[0], t->color_count);
        const uint8_t *c = t->colors + 4 * cell[0];
        rgba = vxr_rgba(c[0], c[1], c[2], 255);
    }
    if (++t->voxels > VXR_RLE_VOXEL_LIMIT)
        return vxr_fail(t->c.err, VXR_ERROR_LIMIT, "matrix %u (byte %zu): more than %llu voxels",
                        t->matrices, at, (unsigned long long)VXR_RLE_VOXEL_LIMIT);
    const uint32_t color = vxr_color_attr(t->map, t->dest, rgba);
    if (vxr_qb_matrix_put(t->dest, m, x, y, z, color) != VXR_OK)
        return vxr_fail(t->c.err, VXR_ERROR_MEMORY, "out of memory");
    return VXR_OK;
}

/* The cells a matrix of n may hold, or 0 when over the voxel limit. */
static uint64_t cell_count(const uint32_t n[3]) {
    const uint64_t cells = (uint64_t)n[0] * n[1] * n[2];
    return cells <= VXR_RLE_VOXEL_LIMIT ? cells : 0;
}

static vxr_result too_many_cells(tree *t, const uint32_t n[3], size_t at) {
    return vxr_fail(t->c.err, VXR_ERROR_LIMIT,
                    "matrix %u (byte %zu): %u x %u x %u cells, over the limit of %llu", t->matrices,
                    at, n[0], n[1], n[2], (unsigned long long)VXR_RLE_VOXEL_LIMIT);
}

/* A .qbt matrix (or a compound's own cells) after its name: position,
 * scale, pivot, size, data. *pos becomes its absolute position. */
static vxr_result qbt_matrix(tree *t, int64_t pos[3]) {
    const size_t at = t->c.at;
    vxr_result r = vxr_cursor_need(&t->c, 48, "matrix position, scale, pivot and size");
    if (r != VXR_OK) return r;
    for (int k = 0; k < 3; k++) pos[k] += (int32_t)vxr_cursor_u32(&t->c);
    t->c.at += 24; /* local scale, pivot */
    uint32_t n[3];
    for (int k = 0; k < 3; k++) n[k] = vxr_cursor_u32(&t->c);
    char where[64];
    snprintf(where, sizeof where, "matrix %u (byte %zu)", t->matrices, at);
    const uint64_t cells = cell_count(n);
    if (!cells && (uint64_t)n[0] * n[1] * n[2] > 0) return too_many_cells(t, n, at);
    vxr_qb_matrix m;
    if ((r = vxr_qb_matrix_begin(t->dest, false, pos, n, where, &m, t->c.err)) != VXR_OK) return r;
    uint8_t *raw;
    size_t got;
    if ((r = inflate_cells(t, (size_t)(4 * cells), &raw, &got, at)) != VXR_OK) return r;
    if (got != 4 * cells) {
        free(raw);
        return vxr_fail(t->c.err, VXR_ERROR_FORMAT,
                        "%s: %zu bytes of cells for %u x %u x %u (%llu bytes)", where, got, n[0],
                        n[1], n[2], (unsigned long long)(4 * cells));
    }
    const uint8_t *p = raw;
    for (uint32_t x = 0; r == VXR_OK && x < n[0]; x++)
        for (uint32_t z = 0; r == VXR_OK && z < n[2]; z++)
            for (uint32_t y = 0; r == VXR_OK && y < n[1]; y++, p += 4)
                if (p[3]) r = solid(t, &m, x, y, z, p, at);
    free(raw);
    t->matrices++;
    return r == VXR_OK ? vxr_qb_matrix_end(t->dest, &m, false, t->c.err) : r;
}

static vxr_result qbt_node(tree *t, int depth, const int64_t parent[3]) {
    const size_t at = t->c.at;
    vxr_result r = vxr_cursor_need(&t->c, 8, "node type and size");
    if (r != VXR_OK) return r;
    const uint32_t type = vxr_cursor_u32(&t->c), size = vxr_cursor_u32(&t->c);
    if ((r = vxr_cursor_need(&t->c, size, "node")) != VXR_OK) return r;
    if (depth > MAX_DEPTH) return too_deep(t, at);
    const size_t end = t->c.at + size;
    vxr_cursor whole = t->c;
    t->c.size = end; /* a node's fields stay within its size */
    int64_t pos[3] = {parent[0], parent[1], parent[2]};
    if (type == 0 || type == 2) {
        if ((r = skip_string(t, "node name")) == VXR_OK) r = qbt_matrix(t, pos);
    }
    if (r == VXR_OK && (type == 1 || type == 2)) {
        if ((r = vxr_cursor_need(&t->c, 4, "child count")) != VXR_OK) return r;
        const uint32_t children = vxr_cursor_u32(&t->c);
        for (uint32_t i = 0; r == VXR_OK && i < children; i++) r = qbt_node(t, depth + 1, pos);
    }
    whole.at = end; /* unknown types and any trailing bytes skipped */
    t->c = whole;
    return r;
}

vxr_result vxr_load_qbt(const uint8_t *data, size_t size, vxr_scene_src *dest, vxr_error *err) {
    vxr_scene_src_init(dest, 1);
    tree t = {{data, size, 0, err}, dest, NULL, NULL, 0, 0, 0};
    vxr_result r = vxr_cursor_need(&t.c, 30, "header");
    if (r != VXR_OK) return r;
    if (memcmp(data, "QB 2", 4) || data[4] != 1)
        return vxr_fail(err, VXR_ERROR_FORMAT,
                        "not a Qubicle Binary Tree 1.x (\"QB 2\", version 1)");
    if (memcmp(data + 18, "COLORMAP", 8))
        return vxr_fail(err, VXR_ERROR_FORMAT, "byte 18: no \"COLORMAP\" section");
    t.c.at = 26;
    t.color_count = vxr_cursor_u32(&t.c);
    if (t.color_count > (size - t.c.at) / 4)
        return vxr_fail(err, VXR_ERROR_FORMAT, "byte 26: %u colours cannot fit in the file",
                        t.color_count);
    t.colors = t.color_count ? data + t.c.at : NULL;
    t.c.at += 4 * (size_t)t.color_count;
    if ((r = vxr_cursor_need(&t.c, 8, "\"DATATREE\"")) != VXR_OK) return r;
    if (memcmp(data + t.c.at, "DATATREE", 8))
        return vxr_fail(err, VXR_ERROR_FORMAT, "byte %zu: no \"DATATREE\" section", t.c.at);
    t.c.at += 8;
    t.map = calloc(1, sizeof *t.map);
    const int64_t origin[3] = {0, 0, 0};
    r = t.map ? qbt_node(&t, 0, origin) : vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    if (r == VXR_OK) dest->attr_size = t.map->rgba ? 4 : 1;
    free(t.map);
    if (r != VXR_OK) vxr_scene_src_free(dest);
    return r;
}

/* A .qbcl matrix (or a compound's own cells) after its flags. */
static vxr_result qbcl_matrix(tree *t, int64_t pos[3], bool hidden) {
    const size_t at = t->c.at;
    vxr_result r = vxr_cursor_need(&t->c, 36, "matrix size, position and pivot");
    if (r != VXR_OK) return r;
    uint32_t n[3];
    for (int k = 0; k < 3; k++) n[k] = vxr_cursor_u32(&t->c);
    for (int k = 0; k < 3; k++) pos[k] += (int32_t)vxr_cursor_u32(&t->c);
    t->c.at += 12; /* pivot */
    char where[64];
    snprintf(where, sizeof where, "matrix %u (byte %zu)", t->matrices, at);
    const uint64_t cells = cell_count(n);
    if (!cells && (uint64_t)n[0] * n[1] * n[2] > 0) return too_many_cells(t, n, at);
    vxr_qb_matrix m;
    if ((r = vxr_qb_matrix_begin(t->dest, false, pos, n, where, &m, t->c.err)) != VXR_OK) return r;
    /* at most: every cell its own run of one */
    const uint64_t columns = (uint64_t)n[0] * n[2], max = 2 * columns + 8 * cells;
    uint8_t *raw;
    size_t got;
    if ((r = inflate_cells(t, (size_t)max, &raw, &got, at)) != VXR_OK) return r;
    const uint8_t *p = raw, *end = raw + got;
    for (uint64_t col = 0; r == VXR_OK && col < columns; col++) {
        const uint64_t x = col / n[2], z = col % n[2];
        if (end - p < 2) {
            r = vxr_fail(t->c.err, VXR_ERROR_FORMAT, "%s: its data ends before column %llu", where,
                         (unsigned long long)col);
            break;
        }
        uint32_t entries = vxr_get16(p);
        p += 2;
        uint64_t y = 0;
        while (r == VXR_OK && entries > 0) {
            const bool run = (size_t)(end - p) >= 4 && p[3] == RUN;
            const size_t len = run ? 8 : 4;
            if ((size_t)(end - p) < len || entries < (run ? 2u : 1u)) {
                r = vxr_fail(t->c.err, VXR_ERROR_FORMAT, "%s: column %llu is cut short", where,
                             (unsigned long long)col);
                break;
            }
            const uint64_t count = run ? vxr_get16(p) : 1;
            const uint8_t *cell = run ? p + 4 : p;
            if (count > n[1] - y) {
                r = vxr_fail(t->c.err, VXR_ERROR_FORMAT, "%s: column %llu overruns its %u cells",
                             where, (unsigned long long)col, n[1]);
                break;
            }
            for (uint64_t i = 0; r == VXR_OK && i < count; i++, y++)
                if (cell[3]) r = solid(t, &m, x, y, z, cell, at);
            p += len;
            entries -= run ? 2 : 1;
        }
    }
    free(raw);
    t->matrices++;
    return r == VXR_OK ? vxr_qb_matrix_end(t->dest, &m, hidden, t->c.err) : r;
}

static vxr_result qbcl_node(tree *t, int depth, const int64_t parent[3]) {
    const size_t at = t->c.at;
    if (depth > MAX_DEPTH) return too_deep(t, at);
    vxr_result r = vxr_cursor_need(&t->c, 8, "node type");
    if (r != VXR_OK) return r;
    const uint32_t type = vxr_cursor_u32(&t->c);
    t->c.at += 4;
    if ((r = skip_string(t, "node name")) != VXR_OK) return r;
    if ((r = vxr_cursor_need(&t->c, 3, "node flags")) != VXR_OK) return r;
    const bool hidden = t->c.data[t->c.at] == 0;
    t->c.at += 3;
    int64_t pos[3] = {parent[0], parent[1], parent[2]};
    if (type > 2)
        return vxr_fail(t->c.err, VXR_ERROR_FORMAT, "node at byte %zu: unknown type %u", at, type);
    if (type == 0 || type == 2) r = qbcl_matrix(t, pos, hidden);
    if (r == VXR_OK && type == 1) {
        r = vxr_cursor_need(&t->c, 36, "model node's matrix");
        t->c.at += r == VXR_OK ? 36 : 0;
    }
    if (r == VXR_OK && type != 0) {
        if ((r = vxr_cursor_need(&t->c, 4, "child count")) != VXR_OK) return r;
        const uint32_t children = vxr_cursor_u32(&t->c);
        for (uint32_t i = 0; r == VXR_OK && i < children; i++) r = qbcl_node(t, depth + 1, pos);
    }
    return r;
}

vxr_result vxr_load_qbcl(const uint8_t *data, size_t size, vxr_scene_src *dest, vxr_error *err) {
    vxr_scene_src_init(dest, 1);
    tree t = {{data, size, 0, err}, dest, NULL, NULL, 0, 0, 0};
    vxr_result r = vxr_cursor_need(&t.c, 20, "header");
    if (r != VXR_OK) return r;
    if (memcmp(data, "QBCL", 4))
        return vxr_fail(err, VXR_ERROR_FORMAT, "not a Qubicle project (no \"QBCL\" magic)");
    t.c.at = 12;
    const uint64_t w = vxr_cursor_u32(&t.c), h = vxr_cursor_u32(&t.c);
    if (w * h > (size - t.c.at) / 4)
        return vxr_fail(err, VXR_ERROR_FORMAT, "byte 12: a %llu x %llu thumbnail cannot fit",
                        (unsigned long long)w, (unsigned long long)h);
    t.c.at += (size_t)(4 * w * h);
    for (int i = 0; r == VXR_OK && i < 7; i++) r = skip_string(&t, "metadata");
    if (r == VXR_OK && (r = vxr_cursor_need(&t.c, 16, "time stamps")) == VXR_OK) t.c.at += 16;
    t.map = r == VXR_OK ? calloc(1, sizeof *t.map) : NULL;
    if (r == VXR_OK && !t.map) r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    const int64_t origin[3] = {0, 0, 0};
    if (r == VXR_OK) r = qbcl_node(&t, 0, origin);
    if (r == VXR_OK) dest->attr_size = t.map->rgba ? 4 : 1;
    free(t.map);
    if (r != VXR_OK) vxr_scene_src_free(dest);
    return r;
}
