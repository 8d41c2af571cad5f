/* The instance hierarchy (vxr/bvh.h): a median-split BVH over the widened
 * world boxes of the visible instances, duplicates collapsed; updated in
 * place when instances move, appear or disappear (refits along
 * leaf-to-root paths, items into and out of leaves), built afresh when
 * that would cost more than a build or wore it down. */
#include "bvh_shared.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void vxr_bvh_instance_box(const vxr_gpu_instance *g, float lo[3], float hi[3]) {
    for (int k = 0; k < 3; k++) {
        float pad = BOX_PAD * (1.0f + fabsf(g->aabb_min[k]) + fabsf(g->aabb_max[k]));
        lo[k] = g->aabb_min[k] - pad;
        hi[k] = g->aabb_max[k] + pad;
    }
}

float vxr_bvh_grid_pad(const vxr_bvh *bvh, uint32_t grid) {
    if (grid <= 1) return 0.0f;
    return (float)grid * bvh->max_scale * SQRT3_UP;
}

/* The largest footprint (world units) of a ray from origin within the
 * hierarchy's box (padded for VXR_LOD_MAX_LEVEL's cubes), with a margin;
 * INFINITY where nothing bounds it. */
static double lod_footprint(const vxr_bvh *bvh, const float origin[3], double dir_len, float k,
                            bool fixed) {
    double far = 1.0;
    if (!fixed) {
        const double pad = vxr_bvh_grid_pad(bvh, 1u << VXR_LOD_MAX_LEVEL);
        double d2 = 0.0;
        for (int a = 0; a < 3; a++) {
            const double lo = fabs((double)origin[a] - (bvh->nodes[0].lo[a] - pad)),
                         hi = fabs((double)origin[a] - (bvh->nodes[0].hi[a] + pad));
            d2 += (lo > hi ? lo : hi) * (lo > hi ? lo : hi);
        }
        far = dir_len > 0.0 ? sqrt(d2) / dir_len : INFINITY;
    }
    const double footprint = (double)k * far * 1.01 + 1e-3;
    return footprint < INFINITY ? footprint : INFINITY;
}

uint32_t vxr_bvh_lod_reach(const vxr_bvh *bvh, float min_scale, const float origin[3],
                           double dir_len, float k, bool fixed) {
    if (!bvh->node_count || !(min_scale > 0.0f)) return VXR_LOD_MAX_LEVEL;
    const double footprint = lod_footprint(bvh, origin, dir_len, k, fixed);
    if (!(footprint < INFINITY)) return VXR_LOD_MAX_LEVEL;
    uint32_t level = 0;
    while (level < VXR_LOD_MAX_LEVEL && ldexp(min_scale, (int)level + 1) < footprint) level++;
    return level;
}

float vxr_bvh_lod_pad(const vxr_bvh *bvh, float min_scale, const float origin[3], double dir_len,
                      float k, bool fixed) {
    const uint32_t reach = vxr_bvh_lod_reach(bvh, min_scale, origin, dir_len, k, fixed);
    const float by_level = vxr_bvh_grid_pad(bvh, 1u << reach);
    if (!bvh->node_count) return by_level;
    const double footprint = lod_footprint(bvh, origin, dir_len, k, fixed) * SQRT3_UP;
    return footprint < (double)by_level ? (float)footprint : by_level;
}

/* ---- duplicates: one item per distinct (model, world-to-local) ---- */

static uint64_t record_hash(const vxr_gpu_instance *g) {
    uint64_t h = 0xcbf29ce484222325ull ^ g->model; /* FNV-1a over the transform's bits */
    const unsigned char *p = (const unsigned char *)g->world_to_local;
    for (size_t i = 0; i < sizeof g->world_to_local; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static bool same_record(const vxr_gpu_instance *a, const vxr_gpu_instance *b) {
    return a->model == b->model &&
           !memcmp(a->world_to_local, b->world_to_local, sizeof a->world_to_local);
}

/* Keeps the first of each run of identical records among items[0..n) (in
 * ascending index order, so the lowest index); returns the new count.
 * Dropped ones are marked DUPLICATE in t->leaf_of and chained ascending
 * after the kept one (marked SHARED). */
static uint32_t drop_duplicates(vxr_bvh *t, const vxr_gpu_instance *records, uint32_t n) {
    uint32_t *items = t->items;
    size_t cap = 16;
    while (cap < 2 * (size_t)n) cap *= 2;
    uint32_t *slot = malloc(cap * sizeof *slot), *tail = malloc(cap * sizeof *tail);
    if (!slot || !tail) { /* keeping duplicates is correct, only slower */
        free(slot);
        free(tail);
        return n;
    }
    memset(slot, 0xff, cap * sizeof *slot);
    uint32_t kept = 0;
    for (uint32_t j = 0; j < n; j++) {
        const vxr_gpu_instance *g = &records[items[j]];
        size_t s = (size_t)record_hash(g) & (cap - 1);
        while (slot[s] != UINT32_MAX && !same_record(&records[slot[s]], g)) s = (s + 1) & (cap - 1);
        if (slot[s] == UINT32_MAX) {
            slot[s] = items[j];
            tail[s] = items[j];
            items[kept++] = items[j];
            continue;
        }
        t->leaf_of[items[j]] = DUPLICATE;
        t->leaf_of[slot[s]] = SHARED;
        t->dup_item[items[j]] = slot[s];
        t->next_dup[tail[s]] = items[j];
        tail[s] = items[j];
    }
    free(slot);
    free(tail);
    return kept;
}

/* ---- construction ---- */

typedef struct builder {
    vxr_bvh *bvh;
    float *box;          /* per item position: widened lo xyz, hi xyz */
    float *centre;       /* per item position */
    uint32_t *positions; /* items' positions in box/centre, permuted with items */
} builder;

/* Quickselect: positions[first..first+count) partitioned so that the k-th
 * smallest centre along axis sits at first + k. */
static void select_kth(uint32_t *items, uint32_t *pos, uint32_t count, uint32_t k,
                       const float *centre, int axis) {
    uint32_t lo = 0, hi = count - 1;
    while (lo < hi) {
        float pivot = centre[3 * (size_t)pos[(lo + hi) / 2] + (size_t)axis];
        uint32_t i = lo, j = hi;
        while (i <= j) {
            while (centre[3 * (size_t)pos[i] + (size_t)axis] < pivot) i++;
            while (centre[3 * (size_t)pos[j] + (size_t)axis] > pivot) j--;
            if (i <= j) {
                uint32_t x = items[i], y = pos[i];
                items[i] = items[j];
                pos[i] = pos[j];
                items[j] = x;
                pos[j] = y;
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

static void build_node(builder *b, uint32_t node, uint32_t first, uint32_t count, uint32_t depth,
                       uint32_t skip) {
    vxr_bvh *t = b->bvh;
    vxr_gpu_bvh_node *nd = &t->nodes[node];
    nd->skip = skip;
    memset(nd->reserved, 0, sizeof nd->reserved);
    if (depth > t->depth) t->depth = depth;
    float clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < 3; k++) {
        nd->lo[k] = INFINITY;
        nd->hi[k] = -INFINITY;
    }
    for (uint32_t j = first; j < first + count; j++) {
        const float *box = &b->box[6 * (size_t)b->positions[j]];
        const float *c = &b->centre[3 * (size_t)b->positions[j]];
        for (int k = 0; k < 3; k++) {
            if (box[k] < nd->lo[k]) nd->lo[k] = box[k];
            if (box[3 + k] > nd->hi[k]) nd->hi[k] = box[3 + k];
            if (c[k] < clo[k]) clo[k] = c[k];
            if (c[k] > chi[k]) chi[k] = c[k];
        }
    }
    if (count <= VXR_BVH_LEAF) {
        nd->first = first;
        nd->count = count;
        t->room[node] = count;
        t->cost += weight(nd);
        for (uint32_t j = first; j < first + count; j++)
            t->leaf_of[t->items[j]] = (t->leaf_of[t->items[j]] & SHARED) | node;
        return;
    }
    t->cost += area(nd->lo, nd->hi);
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (chi[k] - clo[k] > chi[axis] - clo[axis]) axis = k;
    uint32_t half = count / 2;
    select_kth(t->items + first, b->positions + first, count, half, b->centre, axis);
    uint32_t left = t->node_count;
    t->node_count += 2;
    nd->first = left;
    nd->count = 0;
    t->parent[left] = t->parent[left + 1] = node;
    build_node(b, left, first, half, depth + 1, left + 1);
    build_node(b, left + 1, first + half, count - half, depth + 1, skip);
}

static vxr_result marks_init(vxr_bvh_marks *m, size_t entries) {
    m->bits = calloc((entries + 31) / 32 + 1, sizeof *m->bits);
    return m->bits ? VXR_OK : VXR_ERROR_MEMORY;
}

vxr_result vxr_bvh_build(const vxr_scene *s, const vxr_gpu_instance *records, vxr_bvh *dest) {
    memset(dest, 0, sizeof *dest);
    size_t n = s->instance_count ? s->instance_count : 1;
    dest->fresh = true;
    dest->instance_count = s->instance_count;
    dest->items = malloc(n * sizeof *dest->items);
    dest->leaf_of = malloc(n * sizeof *dest->leaf_of);
    dest->next_dup = malloc(n * sizeof *dest->next_dup);
    dest->dup_item = malloc(n * sizeof *dest->dup_item);
    if (!dest->items || !dest->leaf_of || !dest->next_dup || !dest->dup_item ||
        marks_init(&dest->items_changed, n) != VXR_OK) {
        vxr_bvh_free(dest);
        return VXR_ERROR_MEMORY;
    }
    dest->item_cap = (uint32_t)n;
    memset(dest->leaf_of, 0xff, n * sizeof *dest->leaf_of); /* NOT_HELD */
    memset(dest->next_dup, 0xff, n * sizeof *dest->next_dup);
    for (uint32_t i = 0; i < s->instance_count; i++) {
        if (!vxr_bvh_holds(s, &records[i])) continue;
        dest->items[dest->item_count++] = i;
        dest->leaf_of[i] = 0; /* its leaf comes */
    }
    dest->item_count = drop_duplicates(dest, records, dest->item_count);
    dest->held = dest->item_count;
    if (dest->item_count == 0) return VXR_OK;
    if (dest->item_count > MAX_ITEMS) {
        vxr_bvh_free(dest);
        return VXR_ERROR_LIMIT;
    }
    builder b = {dest, malloc(n * 6 * sizeof(float)), malloc(n * 3 * sizeof(float)),
                 malloc(n * sizeof(uint32_t))};
    size_t bound = (size_t)vxr_bvh_node_bound(dest->item_count);
    dest->nodes = malloc(bound * sizeof *dest->nodes);
    dest->parent = malloc(bound * sizeof *dest->parent);
    dest->room = malloc(bound * sizeof *dest->room);
    dest->node_cap = (uint32_t)bound;
    if (!b.box || !b.centre || !b.positions || !dest->nodes || !dest->parent || !dest->room ||
        marks_init(&dest->nodes_changed, bound) != VXR_OK) {
        free(b.box), free(b.centre), free(b.positions);
        vxr_bvh_free(dest);
        return VXR_ERROR_MEMORY;
    }
    for (uint32_t j = 0; j < dest->item_count; j++) {
        const vxr_gpu_instance *g = &records[dest->items[j]];
        float *box = &b.box[6 * (size_t)j];
        vxr_bvh_instance_box(g, box, box + 3);
        for (int k = 0; k < 3; k++)
            b.centre[3 * (size_t)j + (size_t)k] = 0.5f * (box[k] + box[3 + k]);
        b.positions[j] = j;
        if (g->scale > dest->max_scale) dest->max_scale = g->scale;
    }
    dest->node_count = 1;
    dest->parent[0] = NONE;
    build_node(&b, 0, 0, dest->item_count, 0, VXR_BVH_END);
    free(b.box), free(b.centre), free(b.positions);
    dest->built_cost = dest->cost;
    /* a median split cannot exceed it; the walks' stacks rely on it */
    if (dest->depth > VXR_BVH_MAX_DEPTH) {
        vxr_bvh_free(dest);
        return VXR_ERROR_LIMIT;
    }
    return VXR_OK;
}

void vxr_bvh_free(vxr_bvh *bvh) {
    if (!bvh) return;
    VXR_FREE(bvh->nodes, bvh->items, bvh->parent, bvh->room, bvh->leaf_of, bvh->next_dup,
             bvh->dup_item, bvh->nodes_changed.list, bvh->nodes_changed.bits,
             bvh->items_changed.list, bvh->items_changed.bits);
    memset(bvh, 0, sizeof *bvh);
}
