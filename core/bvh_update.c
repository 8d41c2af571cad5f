/* The instance hierarchy changed in place (vxr_bvh_update): boxes refitted
 * above moved items, items put into and taken out of leaves (a full leaf
 * splits), the changed nodes and items noted for the renderer to upload;
 * built afresh when that wore it down. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bvh_shared.h"

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
    t->nodes[kids] = (vxr_gpu_bvh_node){{0, 0, 0}, first, {0, 0, 0}, half, kids + 1, {0}};
    t->nodes[kids + 1] =
        (vxr_gpu_bvh_node){{0, 0, 0}, first + half, {0, 0, 0}, count - half, nd->skip, {0}};
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
    /* The children's boxes are those of the items' records now. An item
     * that moved and is followed later in the same update is already in
     * them, so the refit that follow() starts at its leaf stops there:
     * the boxes above must take it in now. */
    refit(t, records, leaf);
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
    uint32_t skip = p->skip;
    *p = *s;
    p->skip = skip;
    t->room[up] = t->room[sib];
    t->cost += weight(p);
    if (p->count)
        for (uint32_t j = p->first; j < p->first + p->count; j++)
            t->leaf_of[t->items[j]] = (t->leaf_of[t->items[j]] & SHARED) | up;
    else
        t->parent[p->first] = t->parent[p->first + 1] = up;
    note(t, &t->nodes_changed, up);
    /* the last descendants of the subtree now end where up's does */
    for (uint32_t n = up; t->nodes[n].count == 0;) {
        n = t->nodes[n].first + 1;
        if (t->nodes[n].skip == skip) break;
        t->nodes[n].skip = skip;
        note(t, &t->nodes_changed, n);
    }
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
