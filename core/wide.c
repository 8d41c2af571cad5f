/* What the GPU holds of an octree beyond its arrays: the wide form
 * (vxr_layout.h, vxr/svo.h), the tree two levels to a node, derived level
 * by level so that a node's children are contiguous (sparse 64-trees of
 * this kind are walked by a DDA inside each node, Amanatides and Woo 1987;
 * trace.comp does), and the bytes of all the sections. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* Child o of interior node n. */
static uint32_t child_of(const vxr_octree *t, uint32_t n, uint32_t o) {
    return t->nodes[n].b + (uint32_t)vxr_popcount32(t->nodes[n].a & ((1u << o) - 1u));
}

/* The root's level in the wide form: the depth rounded up to even. */
static uint32_t wide_top(const vxr_octree *t) {
    return t->depth + (t->depth & 1u);
}

/* Wide nodes at or below interior node n of level `level`, which is one
 * (`counted`) or is not: every node of a level of the top's parity. */
static uint32_t count_below(const vxr_octree *t, uint32_t n, uint32_t level, bool counted) {
    if (level == VXR_BRICK_LEVEL + 1) /* children are bricks, counted when this is not */
        return counted + (counted ? 0 : (uint32_t)vxr_popcount32(t->nodes[n].a));
    uint32_t c = counted;
    for (uint32_t o = 0; o < 8; o++)
        if (t->nodes[n].a & (1u << o)) c += count_below(t, child_of(t, n, o), level - 1, !counted);
    return c;
}

uint32_t vxr_octree_wide_count(const vxr_octree *t) {
    if (t->node_count == 0 || t->voxel_count == 0) return 0;
    if (t->wide && !t->live) return t->wide_count;
    if (t->depth == VXR_BRICK_LEVEL) return 1;
    /* odd depth: a root above the root, which is then not a wide node */
    return (t->depth & 1u) + count_below(t, 0, t->depth, !(t->depth & 1u));
}

vxr_result vxr_octree_wide(const vxr_octree *t, vxr_wide_node **dest, uint32_t *count) {
    *dest = NULL;
    *count = 0;
    if (t->node_count == 0 || t->voxel_count == 0) return VXR_OK;
    /* a wide node is an octree node of an even level, or the root above */
    const size_t cap = (size_t)t->node_count + 1;
    vxr_wide_node *w = malloc(cap * sizeof *w);
    uint32_t *cur = malloc(cap * sizeof *cur), *next = malloc(cap * sizeof *next), n_w = 0;
    if (!w || !cur || !next) {
        VXR_FREE(w, cur, next);
        return VXR_ERROR_MEMORY;
    }
    const uint32_t above = UINT32_MAX; /* the root above a root of odd depth */
    uint32_t n_cur = 1;
    cur[0] = wide_top(t) == t->depth ? 0u : above;
    for (uint32_t level = wide_top(t);; level -= 2) {
        const uint32_t first_next = n_w + n_cur;
        uint32_t n_next = 0;
        for (uint32_t i = 0; i < n_cur; i++) {
            const uint32_t n = cur[i];
            if (level == VXR_BRICK_LEVEL) {
                w[n_w++] =
                    (vxr_wide_node){t->nodes[n].a, t->nodes[n].b, n, vxr_octree_brick_base(t, n)};
                continue;
            }
            uint64_t mask = 0;
            const uint32_t base = first_next + n_next;
            for (uint32_t a = 0; a < 8; a++) {
                if (n == above ? a != 0 : !(t->nodes[n].a & (1u << a))) continue;
                const uint32_t c = n == above ? 0u : child_of(t, n, a);
                for (uint32_t b = 0; b < 8; b++) {
                    if (!(t->nodes[c].a & (1u << b))) continue;
                    mask |= 1ull << (8 * a + b);
                    next[n_next++] = child_of(t, c, b);
                }
            }
            w[n_w++] =
                (vxr_wide_node){(uint32_t)mask, (uint32_t)(mask >> 32), base, n == above ? 0u : n};
        }
        if (level == VXR_BRICK_LEVEL) break;
        uint32_t *x = cur;
        cur = next;
        next = x;
        n_cur = n_next;
    }
    VXR_FREE(cur, next);
    vxr_wide_node *fit = realloc(w, (size_t)n_w * sizeof *w); /* n_w > 0 */
    *dest = fit ? fit : w;
    *count = n_w;
    return VXR_OK;
}

uint64_t vxr_octree_gpu_bytes(const vxr_octree *t) {
    if (!t->node_count) return 0;
    const uint64_t attrs = ((uint64_t)vxr_octree_attr_count(t) * t->attr_size + 3) / 4 * 4;
    return (uint64_t)t->node_count * (sizeof(vxr_node) + 4) +
           (uint64_t)vxr_octree_battr_count(t) * 4 + attrs +
           (t->live ? 0 : (uint64_t)vxr_octree_wide_count(t) * sizeof(vxr_wide_node));
}
