/* What readers take of a live tree (vxr/edit.h): its changes since they
 * were last taken, its tight bounds, and its compact form (the bulk build
 * of its voxels). */
#include <string.h>
#include "live.h"

void vxr_octree_get_changes(vxr_octree *t, vxr_octree_changes *dest) {
    memset(dest, 0, sizeof *dest);
    struct vxr_live *l = t->live;
    if (!l) {
        dest->all = true;
        return;
    }
    vxr_live_merge(l, 0);
    vxr_live_merge(l, 1);
    dest->all = l->all_changed;
    dest->nodes = l->spans[0];
    dest->node_spans = l->n_spans[0];
    dest->attrs = l->spans[1];
    dest->attr_spans = l->n_spans[1];
}

void vxr_octree_changes_taken(vxr_octree *t) {
    struct vxr_live *l = t->live;
    if (!l) return;
    l->n_spans[0] = l->n_spans[1] = 0;
    l->all_changed = false;
    l->path_valid = false;
}

typedef struct extreme {
    const vxr_octree *t;
    int k;      /* axis */
    bool upper; /* max (exclusive) instead of min */
    int64_t best;
} extreme;

/* Branch and bound: children visited nearest the side first, cubes that
 * cannot improve on the best skipped. */
static void find_extreme(extreme *e, uint32_t slot, uint32_t level, const int32_t lo[3]) {
    const int k = e->k;
    const int64_t size = (int64_t)1 << level;
    if (e->upper ? lo[k] + size <= e->best : lo[k] >= e->best) return;
    const vxr_node *n = &e->t->nodes[slot];
    if (level == VXR_BRICK_LEVEL) {
        uint64_t bits = brick_bits(n);
        while (bits) {
            uint32_t bit = (uint32_t)__builtin_ctzll(bits), a = bit >> 3, b = bit & 7;
            bits &= bits - 1;
            int64_t v = lo[k] + (int64_t)((a >> (2 - k) & 1) * 2 + (b >> (2 - k) & 1));
            if (e->upper ? v + 1 > e->best : v < e->best) e->best = e->upper ? v + 1 : v;
        }
        return;
    }
    for (uint32_t side = 0; side < 2; side++) {
        uint32_t want = e->upper ? 1 - side : side; /* the near half first */
        for (uint32_t o = 0, i = 0; o < 8; o++) {
            if (!(n->a & (1u << o))) continue;
            uint32_t at = n->b + i++;
            if ((o >> (2 - k) & 1) != want) continue;
            int32_t clo[3] = {lo[0], lo[1], lo[2]};
            child_lo(clo, o, level);
            find_extreme(e, at, level - 1, clo);
        }
    }
}

void vxr_octree_refresh_bounds(vxr_octree *t) {
    if (!t->live || !t->live->bounds_loose) return;
    t->live->bounds_loose = false;
    if (t->node_count == 0) return;
    for (int k = 0; k < 3; k++)
        for (int upper = 0; upper < 2; upper++) {
            extreme e = {t, k, upper != 0, upper ? INT64_MIN : INT64_MAX};
            find_extreme(&e, 0, t->depth, t->origin);
            if (upper)
                t->vmax[k] = (int32_t)e.best;
            else
                t->vmin[k] = (int32_t)e.best;
        }
}

/* The compact form is the bulk build of the tree's voxels, given to it as
 * a generator that walks the box each region asks for: memory stays
 * within the build's regions, never a list of every voxel. */
typedef struct tree_emit {
    vxr_model_src *dest;
    vxr_result r;
} tree_emit;

static void emit_voxel(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    tree_emit *e = user;
    if (e->r == VXR_OK) e->r = vxr_model_src_push(e->dest, x, y, z, attr);
}

static vxr_result emit_tree(void *user, const int32_t lo[3], const int32_t hi[3],
                            vxr_model_src *dest) {
    const int64_t l[3] = {lo[0], lo[1], lo[2]}, h[3] = {hi[0], hi[1], hi[2]};
    tree_emit e = {dest, VXR_OK};
    vxr_octree_foreach_box(user, l, h, emit_voxel, &e);
    return e.r;
}

vxr_result vxr_octree_compact_copy(const vxr_octree *t, vxr_octree *dest, vxr_error *err) {
    memset(dest, 0, sizeof *dest);
    if (t->node_count == 0) return vxr_octree_build(NULL, 0, t->attr_size, dest, err);
    vxr_model_gen gen = {emit_tree, NULL, (void *)t, {0}, {0}, t->voxel_count};
    /* the generator's bounds must be tight (a live tree's may be loose) */
    for (int k = 0; k < 3; k++)
        for (int upper = 0; upper < 2; upper++) {
            extreme e = {t, k, upper != 0, upper ? INT64_MIN : INT64_MAX};
            find_extreme(&e, 0, t->depth, t->origin);
            (upper ? gen.vmax : gen.vmin)[k] = (int32_t)e.best;
        }
    vxr_model_src model = {.gen = &gen};
    return vxr_model_build(&model, t->attr_size, 0, dest, err);
}

vxr_result vxr_octree_compact(vxr_octree *t, bool live, vxr_error *err) {
    vxr_octree c;
    vxr_result r = vxr_octree_compact_copy(t, &c, err);
    if (r == VXR_OK && live) r = vxr_octree_make_live(&c);
    if (r != VXR_OK) return r;
    vxr_octree_free(t);
    *t = c;
    return VXR_OK;
}
