/* Level-of-detail colours (vxr_layout.h): a cube's colour is the rounded
 * mean of its occupied children's (vxr_lod_mean), a voxel's its palette
 * colour. The GPU reads the colours of the cubes it stops at (levels
 * VXR_LOD_MIN_LEVEL and up: nodes) from the node colour section this
 * fills. */
#include <string.h>
#include "internal.h"
#include "vxr/svo.h"
#include "vxr_trace.h"

typedef struct sums {
    uint32_t r, g, b, a, n;
} sums;

static void add(sums *s, uint32_t c) {
    s->r += c & 255;
    s->g += c >> 8 & 255;
    s->b += c >> 16 & 255;
    s->a += c >> 24;
    s->n++;
}

static uint32_t mean(const sums *s) {
    return s->n ? vxr_lod_mean(s->r, s->g, s->b, s->a, s->n) : 0;
}

static uint32_t voxel_color(const vxr_octree *m, const uint32_t *palette, uint32_t brick,
                            uint32_t bit) {
    const vxr_node *nd = &m->nodes[brick];
    uint64_t bits = (uint64_t)nd->b << 32 | nd->a;
    uint32_t i =
        vxr_octree_brick_base(m, brick) + (uint32_t)vxr_popcount64(bits & ((1ull << bit) - 1));
    if (m->attr_size == 1) return palette[m->attrs[i]];
    return (uint32_t)m->attrs[4 * (size_t)i] | (uint32_t)m->attrs[4 * (size_t)i + 1] << 8 |
           (uint32_t)m->attrs[4 * (size_t)i + 2] << 16 |
           (uint32_t)m->attrs[4 * (size_t)i + 3] << 24;
}

/* A brick's (level 2) or one of its octants' (level 1) colour. */
static uint32_t brick_color(const vxr_octree *m, const uint32_t *palette, uint32_t level,
                            uint32_t brick, uint32_t octant) {
    const vxr_node *nd = &m->nodes[brick];
    sums s = {0};
    if (level == 1) {
        uint32_t mask = vxr_brick_octant(nd->a, nd->b, octant);
        for (uint32_t o = 0; o < 8; o++)
            if (mask >> o & 1) add(&s, voxel_color(m, palette, brick, octant * 8 + o));
    } else {
        uint32_t mask = vxr_brick_children(nd->a, nd->b);
        for (uint32_t o = 0; o < 8; o++)
            if (mask >> o & 1) add(&s, brick_color(m, palette, 1, brick, o));
    }
    return mean(&s);
}

/* A walk over nodes' colours: colors[k] is node from + k's, written for
 * the nodes computed in [from, from + count); with dirty, a node it says
 * did not change is not entered and its entry is read instead. */
typedef struct walk {
    const vxr_octree *m;
    const uint32_t *palette;
    uint32_t *colors;
    uint64_t from, count;
    bool (*dirty)(void *user, uint32_t node);
    void *user;
} walk;

/* The colour of node `node` at level >= 2. */
static uint32_t node_color(const walk *w, uint32_t level, uint32_t node) {
    if (w->dirty && !w->dirty(w->user, node)) return w->colors[node - w->from];
    uint32_t c;
    if (level == VXR_BRICK_LEVEL) {
        c = brick_color(w->m, w->palette, level, node, 0);
    } else {
        const vxr_node *nd = &w->m->nodes[node];
        uint32_t mask = nd->a & 255, child = nd->b;
        sums s = {0};
        for (uint32_t o = 0; o < 8; o++)
            if (mask >> o & 1) add(&s, node_color(w, level - 1, child++));
        c = mean(&s);
    }
    if (node >= w->from && node - w->from < w->count) w->colors[node - w->from] = c;
    return c;
}

uint32_t vxr_lod_color(const vxr_octree *m, const uint32_t *palette, uint32_t level, uint32_t node,
                       uint32_t octant) {
    if (level == 0 || level > m->depth || node >= m->node_count) return 0;
    if (level < VXR_BRICK_LEVEL) return brick_color(m, palette, level, node, octant);
    const walk w = {m, palette, NULL, 0, 0, NULL, NULL};
    return node_color(&w, level, node);
}

void vxr_lod_colors_update(const vxr_octree *m, const uint32_t *palette, uint32_t *colors,
                           bool (*dirty)(void *user, uint32_t node), void *user) {
    const walk w = {m, palette, colors, 0, m->node_count, dirty, user};
    if (m->node_count) node_color(&w, m->depth, 0);
}

void vxr_lod_colors(const vxr_octree *m, const uint32_t *palette, uint64_t from, uint64_t count,
                    uint32_t *dest) {
    if (m->lod_colors && !m->live && from + count <= m->node_count) { /* made beside the tree */
        memcpy(dest, m->lod_colors + from, count * 4);
        return;
    }
    memset(dest, 0, count * 4);
    const walk w = {m, palette, dest, from, count, NULL, NULL};
    if (m->node_count) node_color(&w, m->depth, 0);
}
