/* A tree's cubes of one level as the voxels of a smaller tree (vxr/svo.h,
 * vxr_octree_coarse): what a world keeps of a chunk far from the eye. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "vxr/scene.h"
#include "vxr/svo.h"
#include "vxr_trace.h"

static uint32_t attr_at(const vxr_octree *t, uint32_t i) {
    if (t->attr_size == 1) return t->attrs[i];
    uint32_t c;
    memcpy(&c, t->attrs + (size_t)i * 4, 4);
    return c;
}

/* floor(v / 2^s) */
static int32_t shift_down(int32_t v, uint32_t s) {
    return v >= 0 ? v >> s : -(int32_t)(((uint32_t)(-(v + 1))) >> s) - 1;
}

typedef struct gather {
    const vxr_octree *t;
    uint32_t level;
    vxr_model_src src;
    bool failed;
} gather;

static void push(gather *g, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    const uint32_t s = g->level;
    if (!g->failed &&
        vxr_model_src_push(&g->src, shift_down(x, s), shift_down(y, s), shift_down(z, s), attr))
        g->failed = true;
}

/* The voxels of the cubes of g->level under node (at level >= 2, min
 * corner x, y, z): each the attribute of its first voxel. */
static void gather_node(gather *g, uint32_t node, uint32_t level, int32_t x, int32_t y, int32_t z) {
    const vxr_octree *t = g->t;
    const vxr_node *n = &t->nodes[node];
    if (level == g->level) {
        uint32_t first = node;
        for (uint32_t l = level; l > VXR_BRICK_LEVEL; l--) first = t->nodes[first].b;
        push(g, x, y, z, attr_at(t, vxr_octree_brick_base(t, first)));
        return;
    }
    if (level == VXR_BRICK_LEVEL) { /* g->level 1: the brick's octants */
        const uint64_t bits = (uint64_t)n->b << 32 | n->a;
        const uint32_t base = vxr_octree_brick_base(t, node);
        for (uint32_t o = 0; o < 8; o++)
            if (bits >> (8 * o) & 255)
                push(g, x + (int32_t)(o >> 2) * 2, y + (int32_t)(o >> 1 & 1) * 2,
                     z + (int32_t)(o & 1) * 2,
                     attr_at(t, base + (uint32_t)vxr_popcount64(bits & ((1ull << (8 * o)) - 1))));
        return;
    }
    const int32_t half = 1 << (level - 1);
    uint32_t child = n->b;
    for (uint32_t o = 0; o < 8; o++)
        if (n->a >> o & 1)
            gather_node(g, child++, level - 1, x + (int32_t)(o >> 2) * half,
                        y + (int32_t)(o >> 1 & 1) * half, z + (int32_t)(o & 1) * half);
}

/* The node of t at `level` whose cube has min corner p (model cells), or
 * -1 when t has none (level above its root). */
static int64_t node_at(const vxr_octree *t, uint32_t level, const int64_t p[3]) {
    if (level > t->depth) return -1;
    int64_t rel[3];
    for (int k = 0; k < 3; k++) {
        rel[k] = p[k] - t->origin[k];
        if (rel[k] < 0 || rel[k] >= (int64_t)1 << t->depth) return -1;
    }
    uint32_t node = 0;
    for (uint32_t l = t->depth; l > level; l--) {
        const uint32_t o = (uint32_t)((rel[0] >> (l - 1) & 1) << 2 | (rel[1] >> (l - 1) & 1) << 1 |
                                      (rel[2] >> (l - 1) & 1));
        const vxr_node *n = &t->nodes[node];
        if (!(n->a >> o & 1)) return -1;
        node = n->b + (uint32_t)vxr_popcount32(n->a & ((1u << o) - 1));
    }
    return node;
}

typedef struct paint {
    const vxr_octree *fine, *coarse;
    const uint32_t *fine_colors;
    uint32_t *colors, level;
} paint;

/* Node `node` of the coarse tree (at level >= 2, min corner p in its
 * cells) and below it take the fine tree's colours of the same cubes; a
 * cube above the fine tree's root takes the mean of its children's. */
static uint32_t paint_node(const paint *w, uint32_t node, uint32_t level, const int64_t p[3]) {
    const int64_t cell = (int64_t)1 << w->level;
    const int64_t fp[3] = {p[0] * cell, p[1] * cell, p[2] * cell};
    const int64_t fine = node_at(w->fine, w->level + level, fp);
    const vxr_node *n = &w->coarse->nodes[node];
    uint32_t sum[4] = {0}, count = 0;
    if (level > VXR_BRICK_LEVEL) {
        const int64_t half = (int64_t)1 << (level - 1);
        uint32_t child = n->b;
        for (uint32_t o = 0; o < 8; o++) {
            if (!(n->a >> o & 1)) continue;
            const int64_t cp[3] = {p[0] + (o >> 2) * half, p[1] + (o >> 1 & 1) * half,
                                   p[2] + (o & 1) * half};
            const uint32_t c = paint_node(w, child++, level - 1, cp);
            for (int k = 0; k < 4; k++) sum[k] += c >> (8 * k) & 255;
            count++;
        }
    }
    const uint32_t c = fine >= 0 ? w->fine_colors[fine]
                       : count   ? vxr_lod_mean(sum[0], sum[1], sum[2], sum[3], count)
                                 : 0;
    w->colors[node] = c;
    return c;
}

vxr_result vxr_octree_coarse_from(const vxr_octree *tree, const uint32_t *fine_colors,
                                  uint32_t level, vxr_octree *dest, vxr_error *err) {
    memset(dest, 0, sizeof *dest);
    if (tree->live || !tree->node_count || level < 1 || level + VXR_BRICK_LEVEL > tree->depth)
        return vxr_fail(err, VXR_ERROR_ARGUMENT,
                        "a coarse tree needs a compact tree with voxels and a level of 1 to its "
                        "depth less %u, not %u",
                        VXR_BRICK_LEVEL, level);
    for (int k = 0; k < 3; k++)
        if ((uint32_t)tree->origin[k] & ((1u << level) - 1))
            return vxr_fail(err, VXR_ERROR_ARGUMENT,
                            "a coarse tree of level %u needs an origin on multiples of %u", level,
                            1u << level);
    gather g = {tree, level, {0}, false};
    gather_node(&g, 0, tree->depth, tree->origin[0], tree->origin[1], tree->origin[2]);
    vxr_result r = g.failed ? vxr_fail(err, VXR_ERROR_MEMORY, "out of memory")
                            : vxr_model_build(&g.src, tree->attr_size, 1, dest, err);
    free(g.src.voxels);
    if (r == VXR_OK) {
        dest->lod_colors = malloc((size_t)dest->node_count * sizeof *dest->lod_colors);
        if (!dest->lod_colors) r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    }
    if (r == VXR_OK) {
        const paint w = {tree, dest, fine_colors, dest->lod_colors, level};
        const int64_t p[3] = {dest->origin[0], dest->origin[1], dest->origin[2]};
        paint_node(&w, 0, dest->depth, p);
    }
    if (r != VXR_OK) vxr_octree_free(dest);
    return r;
}

vxr_result vxr_octree_coarse(const vxr_octree *tree, const uint32_t *palette, uint32_t level,
                             vxr_octree *dest, vxr_error *err) {
    memset(dest, 0, sizeof *dest);
    if (tree->live || !tree->node_count) /* refused with the arguments' message */
        return vxr_octree_coarse_from(tree, NULL, level, dest, err);
    uint32_t *fine_colors = malloc((size_t)tree->node_count * sizeof *fine_colors);
    if (!fine_colors) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    vxr_lod_colors(tree, palette, 0, tree->node_count, fine_colors);
    const vxr_result r = vxr_octree_coarse_from(tree, fine_colors, level, dest, err);
    free(fine_colors);
    return r;
}
