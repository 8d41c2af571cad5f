/* The instance hierarchy (vxr/bvh.h): a median-split BVH over the widened
 * world boxes of the visible instances, duplicates collapsed; updated in
 * place when instances move, appear or disappear (refits along
 * leaf-to-root paths, items into and out of leaves), built afresh when
 * that would cost more than a build or wore it down. */
#include "vxr/bvh.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Boxes grow by this fraction of (1 + |min| + |max|) per axis: float
 * rounding in the instance transform can never cut a grazing hit. */
#define BOX_PAD 1e-4f
/* sqrt(3), rounded up: a grid cube's reach past its voxels under any rotation. */
#define SQRT3_UP 1.7321f

/* leaf_of[] states besides a leaf: not an item (hidden, culled, empty
 * model, removed), or a visible duplicate collapsed onto a lower index
 * (dup_item[] says which, next_dup[] chains them ascending from the item);
 * an item's entry has SHARED set when duplicates collapsed onto it. */
#define NOT_HELD  UINT32_MAX
#define DUPLICATE (UINT32_MAX - 1)
#define SHARED    0x80000000u
#define LEAF_MASK 0x7fffffffu
#define NONE      UINT32_MAX
/* Items beyond this make node indices reach SHARED. */
#define MAX_ITEMS (1u << 29)
/* Updates split a leaf that would hold more items than this. */
#define LEAF_MAX 4u

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

/* Surface area of a box. */
static double area(const float lo[3], const float hi[3]) {
    double d[3];
    for (int k = 0; k < 3; k++) d[k] = (double)hi[k] - (double)lo[k];
    return 2.0 * (d[0] * d[1] + d[1] * d[2] + d[2] * d[0]);
}

/* A node's share of the hierarchy's cost: its area, times its items for a
 * leaf. */
static double weight(const vxr_gpu_bvh_node *nd) {
    return area(nd->lo, nd->hi) * (nd->count ? (double)nd->count : 1.0);
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

static void build_node(builder *b, uint32_t node, uint32_t first, uint32_t count, uint32_t depth) {
    vxr_bvh *t = b->bvh;
    vxr_gpu_bvh_node *nd = &t->nodes[node];
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
    build_node(b, left, first, half, depth + 1);
    build_node(b, left + 1, first + half, count - half, depth + 1);
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
    build_node(&b, 0, 0, dest->item_count, 0);
    free(b.box), free(b.centre), free(b.positions);
    dest->built_cost = dest->cost;
    /* a median split cannot exceed it; the walks' stacks rely on it */
    if (dest->depth > VXR_BVH_MAX_DEPTH) {
        vxr_bvh_free(dest);
        return VXR_ERROR_LIMIT;
    }
    return VXR_OK;
}

/* ---- updates ---- */

/* Notes entry e as changed (once until the changes are taken). Out of
 * memory for the list, the next take sees everything as new. */
static void note(vxr_bvh *t, vxr_bvh_marks *m, uint32_t e) {
    uint32_t bit = 1u << (e & 31);
    if (t->fresh || (m->bits[e >> 5] & bit)) return;
    if (m->count == m->cap) {
        uint32_t cap = m->cap ? 2 * m->cap : 64;
        uint32_t *p = realloc(m->list, cap * sizeof *p);
        if (!p) {
            t->fresh = true;
            return;
        }
        m->list = p;
        m->cap = cap;
    }
    m->bits[e >> 5] |= bit;
    m->list[m->count++] = e;
}

/* The box of a node from what it holds now: a leaf's items' records, an
 * inner node's children (as the build: the lower of the two, left first,
 * which is the minimum over its items in their order). */
static void node_box(const vxr_bvh *t, const vxr_gpu_instance *records, uint32_t node, float lo[3],
                     float hi[3]) {
    const vxr_gpu_bvh_node *nd = &t->nodes[node];
    if (nd->count == 0) {
        const vxr_gpu_bvh_node *a = &t->nodes[nd->first], *b = a + 1;
        for (int k = 0; k < 3; k++) {
            lo[k] = b->lo[k] < a->lo[k] ? b->lo[k] : a->lo[k];
            hi[k] = b->hi[k] > a->hi[k] ? b->hi[k] : a->hi[k];
        }
        return;
    }
    for (int k = 0; k < 3; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (uint32_t j = nd->first; j < nd->first + nd->count; j++) {
        float a[3], b[3];
        vxr_bvh_instance_box(&records[t->items[j]], a, b);
        for (int k = 0; k < 3; k++) {
            if (a[k] < lo[k]) lo[k] = a[k];
            if (b[k] > hi[k]) hi[k] = b[k];
        }
    }
}

/* Refits node and its ancestors, up to the first box that stays. */
static void refit(vxr_bvh *t, const vxr_gpu_instance *records, uint32_t node) {
    for (; node != NONE; node = t->parent[node]) {
        vxr_gpu_bvh_node *nd = &t->nodes[node];
        float lo[3], hi[3];
        node_box(t, records, node, lo, hi);
        if (!memcmp(nd->lo, lo, sizeof lo) && !memcmp(nd->hi, hi, sizeof hi)) return;
        t->cost -= weight(nd);
        memcpy(nd->lo, lo, sizeof nd->lo);
        memcpy(nd->hi, hi, sizeof nd->hi);
        t->cost += weight(nd);
        note(t, &t->nodes_changed, node);
    }
}

/* A leaf's item count (its cost follows). */
static void set_count(vxr_bvh *t, uint32_t leaf, uint32_t count) {
    vxr_gpu_bvh_node *nd = &t->nodes[leaf];
    t->cost -= weight(nd);
    nd->count = count;
    t->cost += weight(nd);
    note(t, &t->nodes_changed, leaf);
}

/* The position of item i in its leaf's range. */
static uint32_t position(const vxr_bvh *t, uint32_t leaf, uint32_t i) {
    const vxr_gpu_bvh_node *nd = &t->nodes[leaf];
    uint32_t j = nd->first;
    while (j < nd->first + nd->count - 1 && t->items[j] != i) j++;
    return j;
}

static void put_item(vxr_bvh *t, uint32_t at, uint32_t i) {
    t->items[at] = i;
    note(t, &t->items_changed, at);
}

/* Grows an array of `have` elements to `want` (at least), zeroing the
 * new ones when zero; false when out of memory (the array stays). */
static bool grow(void **p, size_t have, size_t want, size_t elem, bool zero) {
    void *q = realloc(*p, want * elem);
    if (!q) return false;
    if (zero) memset((char *)q + have * elem, 0, (want - have) * elem);
    *p = q;
    return true;
}

/* Room for `need` items[] entries (within the caller's limit). */
static bool items_room(vxr_bvh *t, uint64_t need, uint32_t limit) {
    if (need > MAX_ITEMS || (limit && need > limit)) return false;
    if (need <= t->item_cap) return true;
    uint64_t cap = 2 * (uint64_t)t->item_cap;
    if (cap < need) cap = need;
    if (limit && cap > limit) cap = limit;
    size_t words = (t->item_cap + 31) / 32 + 1, more = (size_t)(cap + 31) / 32 + 1;
    if (!grow((void **)&t->items, t->item_cap, cap, sizeof *t->items, false) ||
        !grow((void **)&t->items_changed.bits, words, more, sizeof *t->items_changed.bits, true))
        return false;
    t->item_cap = (uint32_t)cap;
    return true;
}

/* Room for two more nodes (within the caller's limit). */
static bool nodes_room(vxr_bvh *t, uint32_t limit) {
    uint64_t need = (uint64_t)t->node_count + 2;
    if (need > 2 * (uint64_t)MAX_ITEMS || (limit && need > vxr_bvh_node_bound(limit))) return false;
    if (need <= t->node_cap) return true;
    uint64_t cap = t->node_cap + t->node_cap / 2 + 64;
    if (limit && cap > vxr_bvh_node_bound(limit)) cap = vxr_bvh_node_bound(limit);
    size_t words = (t->node_cap + 31) / 32 + 1, more = (size_t)(cap + 31) / 32 + 1;
    if (!grow((void **)&t->nodes, t->node_cap, cap, sizeof *t->nodes, false) ||
        !grow((void **)&t->parent, t->node_cap, cap, sizeof *t->parent, false) ||
        !grow((void **)&t->room, t->node_cap, cap, sizeof *t->room, false) ||
        !grow((void **)&t->nodes_changed.bits, words, more, sizeof *t->nodes_changed.bits, true))
        return false;
    t->node_cap = (uint32_t)cap;
    return true;
}

/* Splits a full leaf into two (its items halved at the median of their
 * centres along the widest axis), which take its range of items[]; false
 * when the caller's buffers have no room for two more nodes. */
static bool split(vxr_bvh *t, const vxr_gpu_instance *records, uint32_t leaf, uint32_t limit) {
    if (!nodes_room(t, limit)) return false;
    vxr_gpu_bvh_node *nd = &t->nodes[leaf];
    uint32_t first = nd->first, count = nd->count, *it = &t->items[first];
    float c[LEAF_MAX][3], clo[3] = {INFINITY, INFINITY, INFINITY},
                          chi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t j = 0; j < count; j++) {
        float a[3], b[3];
        vxr_bvh_instance_box(&records[it[j]], a, b);
        for (int k = 0; k < 3; k++) {
            c[j][k] = 0.5f * (a[k] + b[k]);
            clo[k] = c[j][k] < clo[k] ? c[j][k] : clo[k];
            chi[k] = c[j][k] > chi[k] ? c[j][k] : chi[k];
        }
    }
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (chi[k] - clo[k] > chi[axis] - clo[axis]) axis = k;
    for (uint32_t j = 1; j < count; j++) /* insertion sort along the axis */
        for (uint32_t q = j; q > 0 && c[q][axis] < c[q - 1][axis]; q--) {
            float x[3];
            memcpy(x, c[q], sizeof x);
            memcpy(c[q], c[q - 1], sizeof x);
            memcpy(c[q - 1], x, sizeof x);
            uint32_t y = it[q];
            it[q] = it[q - 1];
            it[q - 1] = y;
        }
    for (uint32_t j = 0; j < count; j++) note(t, &t->items_changed, first + j);
    uint32_t half = count / 2, kids = t->node_count;
    t->node_count += 2;
    t->cost -= weight(nd);
    t->nodes[kids] = (vxr_gpu_bvh_node){{0, 0, 0}, first, {0, 0, 0}, half};
    t->nodes[kids + 1] = (vxr_gpu_bvh_node){{0, 0, 0}, first + half, {0, 0, 0}, count - half};
    t->room[kids] = half;
    t->room[kids + 1] = t->room[leaf] - half;
    nd->first = kids;
    nd->count = 0;
    t->cost += weight(nd);
    for (uint32_t k = kids; k < kids + 2; k++) {
        vxr_gpu_bvh_node *ch = &t->nodes[k];
        t->parent[k] = leaf;
        node_box(t, records, k, ch->lo, ch->hi);
        t->cost += weight(ch);
        for (uint32_t j = ch->first; j < ch->first + ch->count; j++)
            t->leaf_of[t->items[j]] = (t->leaf_of[t->items[j]] & SHARED) | k;
        note(t, &t->nodes_changed, k);
    }
    note(t, &t->nodes_changed, leaf);
    return true;
}

/* Instance i goes into the leaf whose box grows least on a descent from
 * the root (ties: the smaller box, then the first child). A full leaf is
 * split first; a leaf without a free entry moves its items to the end of
 * items[] with room for LEAF_MAX. false when that would pass the depth
 * bound or the caller's limit. */
static bool insert(vxr_bvh *t, const vxr_gpu_instance *records, uint32_t i, uint32_t limit) {
    float lo[3], hi[3];
    vxr_bvh_instance_box(&records[i], lo, hi);
    uint32_t node = 0, depth = 0;
    for (;;) {
        vxr_gpu_bvh_node *nd = &t->nodes[node];
        if (nd->count == 0) {
            uint32_t best = 0;
            double best_growth = 0, best_area = 0;
            for (uint32_t c = 0; c < 2; c++) {
                const vxr_gpu_bvh_node *ch = &t->nodes[nd->first + c];
                float u[3], v[3];
                for (int k = 0; k < 3; k++) {
                    u[k] = lo[k] < ch->lo[k] ? lo[k] : ch->lo[k];
                    v[k] = hi[k] > ch->hi[k] ? hi[k] : ch->hi[k];
                }
                double a = area(u, v), growth = a - area(ch->lo, ch->hi);
                if (c == 0 || growth < best_growth || (growth == best_growth && a < best_area)) {
                    best = c;
                    best_growth = growth;
                    best_area = a;
                }
            }
            node = nd->first + best;
            depth++;
            continue;
        }
        if (nd->count < t->room[node]) break;
        if (nd->count >= LEAF_MAX) {
            if (depth + 1 > VXR_BVH_MAX_DEPTH || !split(t, records, node, limit)) return false;
            if (depth + 1 > t->depth) t->depth = depth + 1;
            continue;
        }
        /* the leaf's items move to the end of items[], with room */
        uint32_t at = t->item_count;
        if (!items_room(t, (uint64_t)at + LEAF_MAX, limit)) return false;
        nd = &t->nodes[node];
        for (uint32_t j = 0; j < nd->count; j++) put_item(t, at + j, t->items[nd->first + j]);
        nd->first = at;
        t->room[node] = LEAF_MAX;
        t->item_count += LEAF_MAX;
        break;
    }
    vxr_gpu_bvh_node *leaf = &t->nodes[node];
    put_item(t, leaf->first + leaf->count, i);
    set_count(t, node, leaf->count + 1);
    t->leaf_of[i] = node;
    t->next_dup[i] = NONE;
    t->held++;
    if (records[i].scale > t->max_scale) t->max_scale = records[i].scale;
    refit(t, records, node);
    return true;
}

/* Item i leaves its leaf; a leaf left empty goes, its parent taking its
 * sibling's place. false when the last item left. */
static bool remove_item(vxr_bvh *t, const vxr_gpu_instance *records, uint32_t i) {
    uint32_t leaf = t->leaf_of[i] & LEAF_MASK;
    vxr_gpu_bvh_node *nd = &t->nodes[leaf];
    t->leaf_of[i] = NOT_HELD;
    t->held--;
    if (nd->count > 1) {
        uint32_t at = position(t, leaf, i), last = nd->first + nd->count - 1;
        if (at != last) put_item(t, at, t->items[last]);
        set_count(t, leaf, nd->count - 1);
        refit(t, records, leaf);
        return true;
    }
    uint32_t up = t->parent[leaf];
    if (up == NONE) return false;
    vxr_gpu_bvh_node *p = &t->nodes[up];
    uint32_t sib = p->first + (p->first == leaf ? 1 : 0);
    const vxr_gpu_bvh_node *s = &t->nodes[sib];
    t->cost -= weight(nd) + weight(s) + weight(p);
    *p = *s;
    t->room[up] = t->room[sib];
    t->cost += weight(p);
    if (p->count)
        for (uint32_t j = p->first; j < p->first + p->count; j++)
            t->leaf_of[t->items[j]] = (t->leaf_of[t->items[j]] & SHARED) | up;
    else
        t->parent[p->first] = t->parent[p->first + 1] = up;
    note(t, &t->nodes_changed, up);
    refit(t, records, t->parent[up]);
    return true;
}

/* Duplicate d leaves the chain of the item it collapsed onto. */
static void unchain(vxr_bvh *t, uint32_t d) {
    uint32_t item = t->dup_item[d], j = item;
    while (t->next_dup[j] != d) j = t->next_dup[j];
    t->next_dup[j] = t->next_dup[d];
    t->next_dup[d] = NONE;
    t->leaf_of[d] = NOT_HELD;
    if (t->next_dup[item] == NONE) t->leaf_of[item] &= LEAF_MASK;
}

/* Item i, which others collapsed onto, hands its place in its leaf to the
 * lowest of them (the next item of the chain) and leaves the leaf. */
static void hand_over(vxr_bvh *t, uint32_t i) {
    uint32_t leaf = t->leaf_of[i] & LEAF_MASK, d = t->next_dup[i];
    put_item(t, position(t, leaf, i), d);
    t->next_dup[i] = NONE;
    t->leaf_of[i] = NOT_HELD;
    t->leaf_of[d] = leaf | (t->next_dup[d] != NONE ? SHARED : 0);
    for (uint32_t j = t->next_dup[d]; j != NONE; j = t->next_dup[j]) t->dup_item[j] = d;
}

/* Brings instance i's place in the hierarchy up to its record; false
 * when only a build can. */
static bool follow(vxr_bvh *t, const vxr_scene *s, const vxr_gpu_instance *records, uint32_t i,
                   uint32_t limit) {
    if (i >= t->instance_count) return false;
    bool held = vxr_bvh_holds(s, &records[i]);
    uint32_t st = t->leaf_of[i];
    if (st == DUPLICATE) unchain(t, i); /* its record changed, or it went */
    if (st != NOT_HELD && st != DUPLICATE && (st & SHARED)) {
        uint32_t leaf = st & LEAF_MASK;
        hand_over(t, i);
        refit(t, records, leaf);
    } else if (st != NOT_HELD && st != DUPLICATE) {
        if (held) {
            if (records[i].scale > t->max_scale) t->max_scale = records[i].scale;
            refit(t, records, st);
            return true;
        }
        return remove_item(t, records, i);
    }
    return !held || insert(t, records, i, limit);
}

vxr_result vxr_bvh_update(vxr_bvh *t, const vxr_scene *s, const vxr_gpu_instance *records,
                          const uint32_t *changed, uint32_t count, bool rebuild, uint32_t capacity,
                          bool *rebuilt) {
    if (rebuilt) *rebuilt = false;
    if (!rebuild && count == 0) return VXR_OK;
    if (!rebuild && t->node_count && s->instance_count == t->instance_count &&
        count <= t->held / 4 + 16) {
        bool ok = true;
        for (uint32_t j = 0; j < count && ok; j++) ok = follow(t, s, records, changed[j], capacity);
        if (ok && t->cost <= VXR_BVH_REFIT_GROWTH * t->built_cost) return VXR_OK;
    }
    vxr_bvh fresh;
    vxr_result r = vxr_bvh_build(s, records, &fresh);
    vxr_bvh_free(t);
    if (r != VXR_OK) return r;
    *t = fresh;
    if (rebuilt) *rebuilt = true;
    return VXR_OK;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

void vxr_bvh_get_changes(vxr_bvh *t, vxr_bvh_changes *dest) {
    memset(dest, 0, sizeof *dest);
    dest->all = t->fresh;
    if (t->fresh) return;
    vxr_bvh_marks *m[2] = {&t->nodes_changed, &t->items_changed};
    for (int k = 0; k < 2; k++)
        if (m[k]->count > 1) qsort(m[k]->list, m[k]->count, sizeof *m[k]->list, cmp_u32);
    dest->nodes = t->nodes_changed.list;
    dest->node_count = t->nodes_changed.count;
    dest->items = t->items_changed.list;
    dest->item_count = t->items_changed.count;
}

void vxr_bvh_changes_taken(vxr_bvh *t) {
    vxr_bvh_marks *m[2] = {&t->nodes_changed, &t->items_changed};
    for (int k = 0; k < 2; k++) {
        for (uint32_t j = 0; j < m[k]->count; j++)
            m[k]->bits[m[k]->list[j] >> 5] &= ~(1u << (m[k]->list[j] & 31));
        m[k]->count = 0;
    }
    t->fresh = false;
}

void vxr_bvh_free(vxr_bvh *bvh) {
    if (!bvh) return;
    free(bvh->nodes);
    free(bvh->items);
    free(bvh->parent);
    free(bvh->room);
    free(bvh->leaf_of);
    free(bvh->next_dup);
    free(bvh->dup_item);
    free(bvh->nodes_changed.list);
    free(bvh->nodes_changed.bits);
    free(bvh->items_changed.list);
    free(bvh->items_changed.bits);
    memset(bvh, 0, sizeof *bvh);
}
