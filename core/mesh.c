/* A model's surface as quads (vxr/mesh.h): the faces between solid and
 * empty cells, found through a hash set of the model's cells, sorted by
 * direction and plane, then merged greedily: runs along u within a row,
 * then runs of the same extent and colour across consecutive rows
 * (the usual "greedy meshing" of voxel engines; the result covers exactly
 * the faces, though not always in the fewest rectangles). */
#include <string.h>
#include "internal.h"
#include "vxr/mesh.h"

/* A face: direction d (0 -x, 1 +x, 2 -y, 3 +y, 4 -z, 5 +z), the plane's
 * coordinate along its axis, its cell in the two others (u = axis + 1,
 * v = axis + 2, mod 3), colour. */
typedef struct face {
    uint32_t dir, plane, v, u;
    uint32_t color;
} face;

typedef struct cells {
    uint64_t *keys; /* key + 1; 0 empty */
    uint32_t *attr;
    size_t mask;
    int32_t lo[3], extent[3];
} cells;

static uint64_t cell_key(const cells *c, const int64_t p[3]) {
    return (uint64_t)(p[0] - c->lo[0]) | (uint64_t)(p[1] - c->lo[1]) << 21 |
           (uint64_t)(p[2] - c->lo[2]) << 42;
}

static size_t slot(const cells *c, uint64_t key) {
    uint64_t h = key * 0x9e3779b97f4a7c15ull;
    size_t i = (size_t)(h >> 20) & c->mask;
    while (c->keys[i] && c->keys[i] != key + 1) i = (i + 1) & c->mask;
    return i;
}

static bool solid(const cells *c, const int64_t p[3]) {
    for (int k = 0; k < 3; k++)
        if (p[k] < c->lo[k] || p[k] >= (int64_t)c->lo[k] + c->extent[k]) return false;
    return c->keys[slot(c, cell_key(c, p))] != 0;
}

typedef struct collect {
    cells *c;
    const vxr_scene *scene;
} collect;

static void add_cell(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    collect *k = user;
    const int64_t p[3] = {x, y, z};
    const uint64_t key = cell_key(k->c, p);
    const size_t i = slot(k->c, key);
    k->c->keys[i] = key + 1;
    k->c->attr[i] = k->scene->attr_size == 1 ? k->scene->palette[attr & 255] : attr;
}

static int face_order(const void *a, const void *b) {
    const face *p = a, *q = b;
    if (p->dir != q->dir) return p->dir < q->dir ? -1 : 1;
    if (p->plane != q->plane) return p->plane < q->plane ? -1 : 1;
    if (p->v != q->v) return p->v < q->v ? -1 : 1;
    return p->u < q->u ? -1 : p->u > q->u;
}

/* The mesh being written, and the cell offset of its plane coordinates. */
typedef struct builder {
    vxr_mesh *m;
    size_t cap;
    bool failed;
    const int32_t *lo;
} builder;

static void quad(builder *b, uint32_t dir, uint32_t plane, uint32_t u0, uint32_t u1, uint32_t v0,
                 uint32_t v1, uint32_t color) {
    vxr_mesh *m = b->m;
    if (b->failed) return;
    if (m->quad_count == b->cap) {
        const size_t cap = b->cap ? 2 * b->cap : 256;
        float *p = realloc(m->positions, cap * 12 * sizeof *p);
        if (p) m->positions = p;
        float *n = p ? realloc(m->normals, cap * 12 * sizeof *n) : NULL;
        if (n) m->normals = n;
        uint32_t *c = n ? realloc(m->colors, cap * 4 * sizeof *c) : NULL;
        if (c) m->colors = c;
        uint32_t *i = c ? realloc(m->indices, cap * 6 * sizeof *i) : NULL;
        if (i) m->indices = i;
        if (!i || cap > SIZE_MAX / 64 || cap * 4 > UINT32_MAX) {
            b->failed = true;
            return;
        }
        b->cap = cap;
    }
    const int a = (int)dir / 2, ua = (a + 1) % 3, va = (a + 2) % 3;
    const bool positive = dir & 1;
    /* counter-clockwise seen along the normal: e_u x e_v = e_axis */
    const uint32_t us[4] = {u0, u1, u1, u0}, vs[4] = {v0, v0, v1, v1};
    const size_t q = m->quad_count++;
    for (int c = 0; c < 4; c++) {
        const int k = positive ? c : 3 - c;
        float *p = m->positions + 12 * q + 3 * (size_t)c, *n = m->normals + 12 * q + 3 * (size_t)c;
        p[a] = (float)((int64_t)plane + b->lo[a]);
        p[ua] = (float)((int64_t)us[k] + b->lo[ua]);
        p[va] = (float)((int64_t)vs[k] + b->lo[va]);
        n[0] = n[1] = n[2] = 0;
        n[a] = positive ? 1.0f : -1.0f;
        m->colors[4 * q + (size_t)c] = color | 0xff000000u;
    }
    static const uint32_t tri[6] = {0, 1, 2, 0, 2, 3};
    for (size_t t = 0; t < 6; t++) m->indices[6 * q + t] = (uint32_t)(4 * q) + tri[t];
}

typedef struct rect {
    uint32_t u0, u1, v0, color;
} rect;

/* Merges the faces f[0..n) of one direction and plane (sorted by v, u)
 * into rectangles. open and next hold up to n rectangles each. */
static void merge_plane(builder *b, const face *f, size_t n, rect *open, rect *next) {
    const uint32_t dir = f[0].dir, plane = f[0].plane;
    size_t open_n = 0;
    uint32_t last_v = 0;
    for (size_t i = 0; i < n;) {
        const uint32_t v = f[i].v;
        size_t j = 0, next_n = 0;
        if (open_n && v != last_v + 1) { /* a gap: nothing continues */
            for (size_t k = 0; k < open_n; k++)
                quad(b, dir, plane, open[k].u0, open[k].u1, open[k].v0, last_v + 1, open[k].color);
            open_n = 0;
        }
        while (i < n && f[i].v == v) {
            rect r = {f[i].u, f[i].u + 1, v, f[i].color};
            for (i++; i < n && f[i].v == v && f[i].u == r.u1 && f[i].color == r.color; i++) r.u1++;
            while (j < open_n && open[j].u0 < r.u0) {
                quad(b, dir, plane, open[j].u0, open[j].u1, open[j].v0, v, open[j].color);
                j++;
            }
            if (j < open_n && open[j].u0 == r.u0) {
                if (open[j].u1 == r.u1 && open[j].color == r.color) {
                    r.v0 = open[j].v0; /* the rectangle above grows by this row */
                } else {
                    quad(b, dir, plane, open[j].u0, open[j].u1, open[j].v0, v, open[j].color);
                }
                j++;
            }
            next[next_n++] = r;
        }
        for (; j < open_n; j++)
            quad(b, dir, plane, open[j].u0, open[j].u1, open[j].v0, v, open[j].color);
        memcpy(open, next, next_n * sizeof *open);
        open_n = next_n;
        last_v = v;
    }
    for (size_t k = 0; k < open_n; k++)
        quad(b, dir, plane, open[k].u0, open[k].u1, open[k].v0, last_v + 1, open[k].color);
}

/* The faces between the cells and empty ones: counted, and written to f
 * when it is set. */
static size_t exposed_faces(const cells *c, face *f) {
    size_t faces = 0;
    for (size_t i = 0; i <= c->mask; i++) {
        if (!c->keys[i]) continue;
        const uint64_t key = c->keys[i] - 1;
        const int64_t p[3] = {(int64_t)(key & 0x1fffff) + c->lo[0],
                              (int64_t)(key >> 21 & 0x1fffff) + c->lo[1],
                              (int64_t)(key >> 42 & 0x1fffff) + c->lo[2]};
        for (uint32_t d = 0; d < 6; d++) {
            const int a = (int)d / 2, ua = (a + 1) % 3, va = (a + 2) % 3;
            int64_t q[3] = {p[0], p[1], p[2]};
            q[a] += d & 1 ? 1 : -1;
            if (solid(c, q)) continue;
            if (f)
                f[faces] =
                    (face){d, (uint32_t)(p[a] - c->lo[a] + (d & 1)), (uint32_t)(p[va] - c->lo[va]),
                           (uint32_t)(p[ua] - c->lo[ua]), c->attr[i]};
            faces++;
        }
    }
    return faces;
}

void vxr_mesh_free(vxr_mesh *m) {
    if (!m) return;
    VXR_FREE(m->positions, m->normals, m->colors, m->indices);
    memset(m, 0, sizeof *m);
}

vxr_result vxr_mesh_build(const vxr_scene *s, uint32_t model, vxr_mesh_mode mode, vxr_mesh *out,
                          vxr_error *err) {
    memset(out, 0, sizeof *out);
    if (model >= s->model_count)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "model %u of %u", model, s->model_count);
    const vxr_octree *t = &s->models[model];
    const uint64_t n = t->voxel_count;
    if (n == 0) return VXR_OK;
    cells c = {0};
    for (int k = 0; k < 3; k++) {
        c.lo[k] = t->vmin[k];
        c.extent[k] = t->vmax[k] - t->vmin[k];
    }
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    c.mask = cap - 1;
    c.keys = calloc(cap, sizeof *c.keys);
    c.attr = malloc(cap * sizeof *c.attr);
    face *f = NULL;
    vxr_result r = VXR_OK;
    if (!c.keys || !c.attr) {
        r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory for %llu voxels", (unsigned long long)n);
        goto done;
    }
    collect k = {&c, s};
    vxr_octree_foreach(t, add_cell, &k);
    /* the faces counted, then listed */
    const size_t faces = exposed_faces(&c, NULL);
    f = malloc((faces ? faces : 1) * sizeof *f);
    if (!f) {
        r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory for %zu faces", faces);
        goto done;
    }
    exposed_faces(&c, f);
    qsort(f, faces, sizeof *f, face_order);
    size_t widest = 0; /* the most faces of one plane */
    for (size_t i = 0, j; i < faces; i = j) {
        for (j = i + 1; j < faces && f[j].dir == f[i].dir && f[j].plane == f[i].plane;) j++;
        widest = j - i > widest ? j - i : widest;
    }
    builder b = {out, 0, false, c.lo};
    rect *open = mode == VXR_MESH_GREEDY ? malloc((2 * widest + 1) * sizeof *open) : NULL;
    if (mode == VXR_MESH_GREEDY && !open) b.failed = true;
    for (size_t i = 0; i < faces && !b.failed;) {
        size_t j = i + 1;
        while (j < faces && f[j].dir == f[i].dir && f[j].plane == f[i].plane) j++;
        if (mode == VXR_MESH_GREEDY)
            merge_plane(&b, f + i, j - i, open, open + widest);
        else
            for (size_t q = i; q < j; q++)
                quad(&b, f[q].dir, f[q].plane, f[q].u, f[q].u + 1, f[q].v, f[q].v + 1, f[q].color);
        i = j;
    }
    free(open);
    if (b.failed) {
        r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory for the mesh of model %u", model);
        goto done;
    }
    for (int a = 0; a < 3 && out->quad_count; a++) {
        out->min[a] = out->max[a] = out->positions[a];
        for (size_t v = 1; v < 4 * out->quad_count; v++) {
            const float x = out->positions[3 * v + (size_t)a];
            out->min[a] = x < out->min[a] ? x : out->min[a];
            out->max[a] = x > out->max[a] ? x : out->max[a];
        }
    }
done:
    VXR_FREE(c.keys, c.attr, f);
    if (r != VXR_OK) vxr_mesh_free(out);
    return r;
}
