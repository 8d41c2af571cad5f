/* Octree bookkeeping shared by both builders and the .vxo loader: input
 * checks, validation of untrusted layouts, point lookup and enumeration. */
#include <stdlib.h>
#include <string.h>
#include "live.h"

vxr_result vxr_octree_prepare(const vxr_voxel *voxels, size_t count, uint32_t attr_size,
                              vxr_octree *dest, uint32_t *depth0, vxr_error *err) {
    memset(dest, 0, sizeof *dest);
    dest->attr_size = attr_size;
    *depth0 = 0;
    if (attr_size != 1 && attr_size != 4)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "attribute size %u (expected 1 or 4)", attr_size);
    if (count > UINT32_MAX)
        return vxr_fail(err, VXR_ERROR_LIMIT, "%zu voxels in one model (at most 2^32 - 1)", count);
    if (count == 0) return VXR_OK;
    uint32_t any = 0;
    int32_t lo[3] = {INT32_MAX, INT32_MAX, INT32_MAX}, hi[3] = {INT32_MIN, INT32_MIN, INT32_MIN};
    for (size_t i = 0; i < count; i++) {
        const vxr_voxel *v = &voxels[i];
        if (attr_size == 1 && (v->color == 0 || v->color > 255))
            return vxr_fail(err, VXR_ERROR_ARGUMENT,
                            "voxel %zu has palette index %u (expected 1..255)", i, v->color);
        uint32_t a = vxr_abs_svo(v->x) | vxr_abs_svo(v->y) | vxr_abs_svo(v->z);
        if (a >= 1u << (VXR_MAX_DEPTH - 1))
            return vxr_fail(err, VXR_ERROR_LIMIT,
                            "voxel %zu at (%d,%d,%d) is beyond the octree limit of +-2^%u", i, v->x,
                            v->y, v->z, VXR_MAX_DEPTH - 1);
        any |= a;
        const int32_t c[3] = {v->x, v->y, v->z};
        for (int k = 0; k < 3; k++) {
            if (c[k] < lo[k]) lo[k] = c[k];
            if (c[k] > hi[k]) hi[k] = c[k];
        }
    }
    for (int k = 0; k < 3; k++) {
        dest->vmin[k] = lo[k];
        dest->vmax[k] = hi[k] + 1;
    }
    /* The smallest half-extent h >= 2 (a power of two) with abs_svo(c) < h. */
    uint32_t bits = vxr_bitlen64(any);
    *depth0 = (bits < 1 ? 1 : bits) + 1;
    return VXR_OK;
}

void vxr_octree_free(vxr_octree *tree) {
    if (!tree) return;
    VXR_FREE(tree->nodes, tree->brick_attr, tree->attrs, tree->lod_colors, tree->wide);
    vxr_live_free(tree->live);
    memset(tree, 0, sizeof *tree);
}

uint32_t vxr_octree_battr_offset(const vxr_octree *t) {
    return t->live ? 0 : t->node_count - t->brick_count;
}

uint32_t vxr_octree_battr_count(const vxr_octree *t) {
    return t->live ? t->node_count : t->brick_count;
}

uint32_t vxr_octree_attr_count(const vxr_octree *t) {
    return t->live ? vxr_live_attr_top(t->live) : t->voxel_count;
}

bool vxr_octree_equal(const vxr_octree *a, const vxr_octree *b) {
    if (a->depth != b->depth || a->voxel_count != b->voxel_count ||
        a->node_count != b->node_count || a->brick_count != b->brick_count ||
        a->attr_size != b->attr_size)
        return false;
    for (int k = 0; k < 3; k++)
        if (a->origin[k] != b->origin[k] || a->vmin[k] != b->vmin[k] || a->vmax[k] != b->vmax[k])
            return false;
    if (a->node_count && memcmp(a->nodes, b->nodes, a->node_count * sizeof *a->nodes)) return false;
    if (a->brick_count && memcmp(a->brick_attr, b->brick_attr, a->brick_count * sizeof(uint32_t)))
        return false;
    return a->voxel_count == 0 ||
           !memcmp(a->attrs, b->attrs, (size_t)a->voxel_count * a->attr_size);
}

static uint64_t brick_mask(const vxr_node *n) {
    return (uint64_t)n->b << 32 | n->a;
}

static uint32_t read_attr(const vxr_octree *t, uint32_t index) {
    if (t->attr_size == 1) return t->attrs[index];
    uint32_t c;
    memcpy(&c, t->attrs + (size_t)index * 4, 4);
    return c;
}

typedef struct walk {
    const vxr_octree *t;
    void (*fn)(void *, int32_t, int32_t, int32_t, uint32_t);
    void *user;
    int64_t lo[3], hi[3]; /* the cells visited: lo <= cell < hi */
} walk;

static bool walk_meets(const walk *w, int32_t x, int32_t y, int32_t z, int64_t edge) {
    const int64_t c[3] = {x, y, z};
    for (int k = 0; k < 3; k++)
        if (c[k] + edge <= w->lo[k] || c[k] >= w->hi[k]) return false;
    return true;
}

static void walk_node(const walk *w, uint32_t index, uint32_t level, int32_t x, int32_t y,
                      int32_t z) {
    const vxr_octree *t = w->t;
    const vxr_node *n = &t->nodes[index];
    if (level == VXR_BRICK_LEVEL) {
        uint64_t m = brick_mask(n);
        uint32_t attr = vxr_octree_brick_base(t, index);
        while (m) {
            uint32_t bit = (uint32_t)__builtin_ctzll(m);
            m &= m - 1;
            uint32_t a = bit >> 3, b = bit & 7;
            int32_t vx = x + (int32_t)((a >> 2) * 2 + (b >> 2)),
                    vy = y + (int32_t)(((a >> 1) & 1) * 2 + ((b >> 1) & 1)),
                    vz = z + (int32_t)((a & 1) * 2 + (b & 1));
            uint32_t v = read_attr(t, attr++);
            if (walk_meets(w, vx, vy, vz, 1)) w->fn(w->user, vx, vy, vz, v);
        }
        return;
    }
    int32_t half = 1 << (level - 1);
    uint32_t child = n->b;
    for (uint32_t o = 0; o < 8; o++) {
        if (!(n->a & 1u << o)) continue;
        int32_t cx = x + (int32_t)(o >> 2) * half, cy = y + (int32_t)((o >> 1) & 1) * half,
                cz = z + (int32_t)(o & 1) * half;
        uint32_t at = child++;
        if (walk_meets(w, cx, cy, cz, half)) walk_node(w, at, level - 1, cx, cy, cz);
    }
}

void vxr_octree_foreach(const vxr_octree *t,
                        void (*fn)(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr),
                        void *user) {
    const int64_t lo[3] = {INT64_MIN, INT64_MIN, INT64_MIN},
                  hi[3] = {INT64_MAX, INT64_MAX, INT64_MAX};
    vxr_octree_foreach_box(t, lo, hi, fn, user);
}

void vxr_octree_foreach_box(const vxr_octree *t, const int64_t lo[3], const int64_t hi[3],
                            void (*fn)(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr),
                            void *user) {
    if (t->node_count == 0) return;
    walk w = {t, fn, user, {lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}};
    walk_node(&w, 0, t->depth, t->origin[0], t->origin[1], t->origin[2]);
}

bool vxr_octree_lookup(const vxr_octree *t, int32_t x, int32_t y, int32_t z, uint32_t *attr) {
    if (t->node_count == 0) return false;
    int64_t size = (int64_t)1 << t->depth;
    int64_t l[3] = {(int64_t)x - t->origin[0], (int64_t)y - t->origin[1],
                    (int64_t)z - t->origin[2]};
    for (int k = 0; k < 3; k++)
        if (l[k] < 0 || l[k] >= size) return false;
    uint32_t index = 0;
    for (uint32_t level = t->depth; level > VXR_BRICK_LEVEL; level--) {
        uint32_t s = level - 1;
        uint32_t o =
            (uint32_t)(((l[0] >> s) & 1) << 2 | ((l[1] >> s) & 1) << 1 | ((l[2] >> s) & 1));
        const vxr_node *n = &t->nodes[index];
        if (!(n->a & 1u << o)) return false;
        index = n->b + (uint32_t)vxr_popcount32(n->a & ((1u << o) - 1));
    }
    uint32_t a = (uint32_t)(((l[0] >> 1) & 1) << 2 | ((l[1] >> 1) & 1) << 1 | ((l[2] >> 1) & 1));
    uint32_t b = (uint32_t)((l[0] & 1) << 2 | (l[1] & 1) << 1 | (l[2] & 1));
    uint32_t bit = a * 8 + b;
    uint64_t m = brick_mask(&t->nodes[index]);
    if (!(m >> bit & 1)) return false;
    if (attr) {
        uint32_t base = vxr_octree_brick_base(t, index);
        *attr = read_attr(t, base + (uint32_t)vxr_popcount64(m & ((1ull << bit) - 1)));
    }
    return true;
}

typedef struct bounds {
    int32_t lo[3], hi[3];
} bounds;

static void grow_bounds(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    (void)attr;
    bounds *b = user;
    const int32_t c[3] = {x, y, z};
    for (int k = 0; k < 3; k++) {
        if (c[k] < b->lo[k]) b->lo[k] = c[k];
        if (c[k] + 1 > b->hi[k]) b->hi[k] = c[k] + 1;
    }
}

vxr_result vxr_octree_validate(const vxr_octree *t, vxr_error *err) {
    if (t->attr_size != 1 && t->attr_size != 4)
        return vxr_fail(err, VXR_ERROR_FORMAT, "attribute size %u (expected 1 or 4)", t->attr_size);
    if (t->voxel_count == 0) {
        if (t->node_count || t->brick_count || t->depth)
            return vxr_fail(err, VXR_ERROR_FORMAT, "empty octree with %u nodes", t->node_count);
        /* As the builders leave it (svo.h): origin and bounds all zero. */
        for (int k = 0; k < 3; k++)
            if (t->origin[k] || t->vmin[k] || t->vmax[k])
                return vxr_fail(err, VXR_ERROR_FORMAT,
                                "empty octree with a non-zero origin or bounds");
        return VXR_OK;
    }
    if (t->depth < VXR_MIN_DEPTH || t->depth > VXR_MAX_DEPTH)
        return vxr_fail(err, VXR_ERROR_FORMAT, "octree depth %u (expected %u..%u)", t->depth,
                        VXR_MIN_DEPTH, VXR_MAX_DEPTH);
    const int64_t size = (int64_t)1 << t->depth, limit = (int64_t)1 << (VXR_MAX_DEPTH - 1);
    for (int k = 0; k < 3; k++) {
        int64_t o = t->origin[k];
        /* A trimmed root is aligned to its size; an untrimmed one is centred. */
        if (o < -limit || o + size > limit || (o % size != 0 && o != -size / 2))
            return vxr_fail(
                err, VXR_ERROR_FORMAT,
                "octree origin %lld is neither a multiple of its size %lld nor centred, "
                "within +-2^%u",
                (long long)o, (long long)size, VXR_MAX_DEPTH - 1);
    }
    if (t->brick_count == 0 || t->brick_count > t->node_count)
        return vxr_fail(err, VXR_ERROR_FORMAT, "%u bricks among %u nodes", t->brick_count,
                        t->node_count);
    /* Breadth first: each level's children start right after the level and
     * follow one another, so indices are checked by counting. */
    uint64_t begin = 0, end = 1;
    for (uint32_t level = t->depth; level > VXR_BRICK_LEVEL; level--) {
        uint64_t next = end;
        for (uint64_t i = begin; i < end; i++) {
            if (i >= t->node_count)
                return vxr_fail(err, VXR_ERROR_FORMAT, "node %llu is beyond the %u nodes",
                                (unsigned long long)i, t->node_count);
            const vxr_node *n = &t->nodes[i];
            if (n->a == 0 || n->a > 255 || n->b != next)
                return vxr_fail(err, VXR_ERROR_FORMAT,
                                "node %llu: mask 0x%x, first child %u (expected a mask of 1..255 "
                                "and child %llu)",
                                (unsigned long long)i, n->a, n->b, (unsigned long long)next);
            next += (uint64_t)vxr_popcount32(n->a);
        }
        begin = end;
        end = next;
    }
    if (begin != t->node_count - t->brick_count || end != t->node_count)
        return vxr_fail(err, VXR_ERROR_FORMAT,
                        "the tree reaches nodes %llu..%llu as bricks, not %u..%u",
                        (unsigned long long)begin, (unsigned long long)end,
                        t->node_count - t->brick_count, t->node_count);
    uint64_t attr = 0;
    for (uint32_t k = 0; k < t->brick_count; k++) {
        uint64_t m = brick_mask(&t->nodes[begin + k]);
        if (m == 0 || t->brick_attr[k] != attr)
            return vxr_fail(err, VXR_ERROR_FORMAT,
                            "brick %u: empty or attribute base %u (expected %llu)", k,
                            t->brick_attr[k], (unsigned long long)attr);
        attr += (uint64_t)vxr_popcount64(m);
    }
    if (attr != t->voxel_count)
        return vxr_fail(err, VXR_ERROR_FORMAT, "bricks hold %llu voxels, header says %u",
                        (unsigned long long)attr, t->voxel_count);
    if (t->attr_size == 1)
        for (uint32_t i = 0; i < t->voxel_count; i++)
            if (t->attrs[i] == 0)
                return vxr_fail(err, VXR_ERROR_FORMAT, "voxel %u has palette index 0", i);
    bounds b = {{INT32_MAX, INT32_MAX, INT32_MAX}, {INT32_MIN, INT32_MIN, INT32_MIN}};
    vxr_octree_foreach(t, grow_bounds, &b);
    for (int k = 0; k < 3; k++)
        if (b.lo[k] != t->vmin[k] || b.hi[k] != t->vmax[k])
            return vxr_fail(err, VXR_ERROR_FORMAT, "stored bounds differ from the voxels' bounds");
    return VXR_OK;
}
