/* Live octrees (vxr/edit.h): the node format of vxr_layout.h, editable in
 * place. A node's children, and a brick's attributes, form a block whose
 * capacity is the next power of two of what it holds, so most insertions
 * and removals shift within the block; a block that outgrows (or shrinks
 * below half of) its class moves to one of the right class, and the old
 * one goes on that class's free list. An edit therefore rewrites the path
 * from the root and a few blocks: O(depth) nodes. The root stays in slot 0
 * (the GPU starts there); brick_attr has an entry per slot.
 *
 * Every write is recorded as a span of changed slots (nodes and their
 * brick_attr entries) or attributes, which vxr_scene_touch_model moves
 * into the scene's journal (core/journal.c). */
#include <stdlib.h>
#include <string.h>
#include "live.h"

static uint32_t class_of(uint32_t n) { /* ceil(log2 n), n >= 1 */
    return n <= 1 ? 0 : vxr_bitlen64(n - 1);
}

static bool push(stack *s, uint32_t v) {
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 16;
        uint32_t *p = realloc(s->v, cap * sizeof *p);
        if (!p) return false;
        s->v = p;
        s->cap = cap;
    }
    s->v[s->n++] = v;
    return true;
}

/* ---- changes ---- */

/* Notes a write of entries [start, start + count) of a kind (0: node slots
 * and their brick_attr entries, 1: attributes); spans that touch the last
 * one join it, and those within one of the few before it are dropped. A
 * list that fills SPAN_LIMIT entries is merged; when merging
 * leaves more than half, everything is taken as changed instead, so the
 * list stays small however large the edits between two takes. */
static void note(vxr_octree *t, int kind, uint32_t start, uint32_t count) {
    struct vxr_live *l = t->live;
    if (l->all_changed || count == 0) return;
    uint32_t n = l->n_spans[kind];
    vxr_span *last = n ? &l->spans[kind][n - 1] : NULL;
    if (last && start >= last->start && start <= last->start + last->count) {
        uint32_t end =
            start + count > last->start + last->count ? start + count : last->start + last->count;
        last->count = end - last->start;
        return;
    }
    /* an edit rewrites the same path from the root again and again: spans
     * a recent one holds are not listed twice (fewer to sort) */
    for (uint32_t k = 2; k <= RECENT_SPANS && k <= n; k++) {
        const vxr_span *r = &l->spans[kind][n - k];
        if (start >= r->start && start + count <= r->start + r->count) return;
    }
    if (n == l->cap_spans[kind] && n >= SPAN_LIMIT) {
        vxr_live_merge(l, kind);
        n = l->n_spans[kind];
        if (n > SPAN_LIMIT / 2) {
            l->all_changed = true;
            for (int k = 0; k < 2; k++) {
                free(l->spans[k]);
                l->spans[k] = NULL;
                l->n_spans[k] = l->cap_spans[k] = 0;
            }
            return;
        }
    }
    if (n == l->cap_spans[kind]) {
        uint32_t cap = n ? n * 2 : 64;
        vxr_span *p = realloc(l->spans[kind], cap * sizeof *p);
        if (!p) { /* cannot list it: say everything changed */
            l->all_changed = true;
            return;
        }
        l->spans[kind] = p;
        l->cap_spans[kind] = cap;
    }
    l->spans[kind][n] = (vxr_span){start, count};
    l->n_spans[kind] = n + 1;
}

/* ---- allocation ---- */

static bool grow_nodes(vxr_octree *t, uint32_t need) {
    struct vxr_live *l = t->live;
    if (need <= l->node_cap) return true;
    uint64_t cap = l->node_cap ? l->node_cap : FIRST_SLOTS;
    while (cap < need) cap += cap / 2 + 1;
    if (cap > UINT32_MAX) return false;
    vxr_node *n = realloc(t->nodes, cap * sizeof *n);
    if (n) t->nodes = n;
    uint32_t *b = n ? realloc(t->brick_attr, cap * sizeof *b) : NULL;
    if (!b) return false;
    t->brick_attr = b;
    l->node_cap = (uint32_t)cap;
    return true;
}

static bool grow_attrs(vxr_octree *t, uint32_t need) {
    struct vxr_live *l = t->live;
    if (need <= l->attr_cap) return true;
    uint64_t cap = l->attr_cap ? l->attr_cap : FIRST_SLOTS;
    while (cap < need) cap += cap / 2 + 1;
    if (cap * t->attr_size > SIZE_MAX / 2 || cap > UINT32_MAX) return false;
    uint8_t *a = realloc(t->attrs, (size_t)cap * t->attr_size);
    if (!a) return false;
    t->attrs = a;
    l->attr_cap = (uint32_t)cap;
    return true;
}

/* A block with room for n entries of a kind (0: nodes, 1..8; 1: attributes,
 * 1..64): from its class's free list, else at the top; UINT32_MAX when out
 * of memory. */
static uint32_t alloc_block(vxr_octree *t, int kind, uint32_t n) {
    struct vxr_live *l = t->live;
    if (!kind) l->path_valid = false;
    uint32_t c = class_of(n), size = 1u << c;
    stack *f = kind ? &l->free_attrs[c] : &l->free_nodes[c];
    if (f->n) {
        *(kind ? &l->free_attrs_n : &l->free_slots) -= size;
        return f->v[--f->n];
    }
    uint32_t *top = kind ? &l->attr_top : &t->node_count;
    if (!(kind ? grow_attrs(t, *top + size) : grow_nodes(t, *top + size))) return UINT32_MAX;
    uint32_t at = *top;
    *top += size;
    return at;
}

/* Puts a block of a kind on its class's free list. */
static void free_block(vxr_octree *t, int kind, uint32_t at, uint32_t n) {
    struct vxr_live *l = t->live;
    if (!kind) l->path_valid = false;
    uint32_t c = class_of(n);
    if (push(kind ? &l->free_attrs[c] : &l->free_nodes[c], at))
        *(kind ? &l->free_attrs_n : &l->free_slots) += 1u << c;
    else
        l->failed = true; /* a leaked block only wastes room, but say so */
}

/* ---- writes (each noted as a change) ---- */

static void put_node(vxr_octree *t, uint32_t slot, vxr_node n) {
    t->nodes[slot] = n;
    note(t, 0, slot, 1);
}

static void put_battr(vxr_octree *t, uint32_t slot, uint32_t base) {
    t->brick_attr[slot] = base;
    note(t, 0, slot, 1);
}

/* Moves count slots (nodes and their brick_attr entries) from src to dst. */
static void move_slots(vxr_octree *t, uint32_t dst, uint32_t src, uint32_t count) {
    memmove(&t->nodes[dst], &t->nodes[src], count * sizeof *t->nodes);
    memmove(&t->brick_attr[dst], &t->brick_attr[src], count * sizeof *t->brick_attr);
    note(t, 0, dst, count);
}

static void move_attrs(vxr_octree *t, uint32_t dst, uint32_t src, uint32_t count) {
    memmove(t->attrs + (size_t)dst * t->attr_size, t->attrs + (size_t)src * t->attr_size,
            (size_t)count * t->attr_size);
    note(t, 1, dst, count);
}

static uint32_t get_attr(const vxr_octree *t, uint32_t i) {
    if (t->attr_size == 1) return t->attrs[i];
    uint32_t v;
    memcpy(&v, t->attrs + (size_t)i * 4, 4);
    return v;
}

static void put_attr(vxr_octree *t, uint32_t i, uint32_t v) {
    if (t->attr_size == 1)
        t->attrs[i] = (uint8_t)v;
    else
        memcpy(t->attrs + (size_t)i * 4, &v, 4);
    note(t, 1, i, 1);
}

/* ---- blocks that grow and shrink by one entry ---- */

static void block_move(vxr_octree *t, int kind, uint32_t to, uint32_t from, uint32_t n) {
    if (kind) {
        move_attrs(t, to, from, n);
    } else {
        t->live->path_valid = false;
        move_slots(t, to, from, n);
    }
}

/* Makes room for a new entry at `rank` in a block at *at holding n entries
 * (n may be 0: a new block): in place when the class has room, else in a
 * new block of the next class. false when out of memory. */
static bool insert_entry(vxr_octree *t, int kind, uint32_t *at, uint32_t n, uint32_t rank) {
    if (n > 0 && class_of(n + 1) == class_of(n)) {
        block_move(t, kind, *at + rank + 1, *at + rank, n - rank);
        return true;
    }
    uint32_t to = alloc_block(t, kind, n + 1);
    if (to == UINT32_MAX) return false;
    if (n) {
        block_move(t, kind, to, *at, rank);
        block_move(t, kind, to + rank + 1, *at + rank, n - rank);
        free_block(t, kind, *at, n);
    }
    *at = to;
    return true;
}

/* Removes the entry at `rank` of a block at *at holding n >= 2 entries. */
static bool remove_entry(vxr_octree *t, int kind, uint32_t *at, uint32_t n, uint32_t rank) {
    if (class_of(n - 1) == class_of(n)) {
        block_move(t, kind, *at + rank, *at + rank + 1, n - 1 - rank);
        return true;
    }
    uint32_t to = alloc_block(t, kind, n - 1);
    if (to == UINT32_MAX) return false;
    block_move(t, kind, to, *at, rank);
    block_move(t, kind, to + rank, *at + rank + 1, n - 1 - rank);
    free_block(t, kind, *at, n);
    *at = to;
    return true;
}

static vxr_node brick_node(uint64_t bits) {
    return (vxr_node){(uint32_t)bits, (uint32_t)(bits >> 32)};
}

/* ---- the live form ---- */

static struct vxr_live *new_live(void) {
    return calloc(1, sizeof(struct vxr_live));
}

/* Copies the subtree of src's node `from` (level) into t's slot `to`. */
static bool copy_subtree(vxr_octree *t, const vxr_octree *src, uint32_t from, uint32_t to,
                         uint32_t level) {
    const vxr_node *n = &src->nodes[from];
    if (level == VXR_BRICK_LEVEL) {
        uint64_t bits = brick_bits(n);
        uint32_t cnt = (uint32_t)vxr_popcount64(bits), at = alloc_block(t, 1, cnt);
        if (at == UINT32_MAX) return false;
        memcpy(t->attrs + (size_t)at * t->attr_size,
               src->attrs + (size_t)vxr_octree_brick_base(src, from) * src->attr_size,
               (size_t)cnt * t->attr_size);
        t->nodes[to] = *n;
        t->brick_attr[to] = at;
        return true;
    }
    uint32_t cnt = (uint32_t)vxr_popcount32(n->a), block = alloc_block(t, 0, cnt);
    if (block == UINT32_MAX) return false;
    t->nodes[to] = (vxr_node){n->a, block};
    t->brick_attr[to] = 0;
    for (uint32_t i = 0; i < cnt; i++)
        if (!copy_subtree(t, src, n->b + i, block + i, level - 1)) return false;
    return true;
}

/* The live form of src (compact or live) into dest, laid out afresh. */
static vxr_result relayout(const vxr_octree *src, vxr_octree *dest) {
    memset(dest, 0, sizeof *dest);
    dest->attr_size = src->attr_size;
    if (!(dest->live = new_live())) return VXR_ERROR_MEMORY;
    memcpy(dest->origin, src->origin, sizeof dest->origin);
    memcpy(dest->vmin, src->vmin, sizeof dest->vmin);
    memcpy(dest->vmax, src->vmax, sizeof dest->vmax);
    dest->depth = src->depth;
    dest->voxel_count = src->voxel_count;
    dest->brick_count = src->brick_count;
    dest->live->all_changed = true;
    dest->live->bounds_loose = src->live && src->live->bounds_loose;
    if (src->node_count == 0) return VXR_OK;
    if (!grow_nodes(dest, src->node_count + 1) || !grow_attrs(dest, src->voxel_count + 1) ||
        alloc_block(dest, 0, 1) != 0 || !copy_subtree(dest, src, 0, 0, src->depth)) {
        vxr_octree_free(dest);
        return VXR_ERROR_MEMORY;
    }
    return VXR_OK;
}

static void set_voxel_in(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr);

/* A live form of t into dest (t is left as it is). */
static vxr_result live_copy(const vxr_octree *t, vxr_octree *dest) {
    if (t->depth == 0 || t->depth >= MIN_LIVE_DEPTH) return relayout(t, dest);
    /* a compact root that is one brick: its voxels into a deeper live root */
    memset(dest, 0, sizeof *dest);
    dest->attr_size = t->attr_size;
    if (!(dest->live = new_live())) return VXR_ERROR_MEMORY;
    dest->live->all_changed = true;
    vxr_octree_foreach(t, set_voxel_in, dest);
    if (!dest->live->failed) return VXR_OK;
    vxr_octree_free(dest);
    return VXR_ERROR_MEMORY;
}

vxr_result vxr_octree_make_live(vxr_octree *t) {
    if (t->live && !t->live->failed) return VXR_OK;
    vxr_octree live;
    vxr_result r = live_copy(t, &live);
    if (r != VXR_OK) return r;
    vxr_octree_free(t);
    *t = live;
    return VXR_OK;
}

/* ---- growth ---- */

static bool covers(const vxr_octree *t, const int32_t c[3]) {
    int64_t size = (int64_t)1 << t->depth;
    for (int k = 0; k < 3; k++)
        if ((int64_t)c[k] < t->origin[k] || (int64_t)c[k] >= t->origin[k] + size) return false;
    return true;
}

static bool centred(const vxr_octree *t) {
    int32_t h = (int32_t)(1u << (t->depth - 1));
    return t->origin[0] == -h && t->origin[1] == -h && t->origin[2] == -h;
}

/* One level up. A centred root [-h, h) becomes [-2h, 2h): each old child
 * (octant o) becomes the only child (octant o ^ 7) of a new child at o.
 * Otherwise the old root becomes the only child of a new root: the
 * centred one when it is one of its octants, else its aligned parent. */
static bool grow_once(vxr_octree *t) {
    const uint32_t d = t->depth;
    const int32_t s = (int32_t)(1u << d);
    vxr_node root = t->nodes[0];
    if (centred(t)) {
        uint32_t cnt = (uint32_t)vxr_popcount32(root.a), block = alloc_block(t, 0, cnt);
        if (block == UINT32_MAX) return false;
        for (uint32_t o = 0, i = 0; o < 8; o++) {
            if (!(root.a & (1u << o))) continue;
            uint32_t one = alloc_block(t, 0, 1);
            if (one == UINT32_MAX) return false;
            move_slots(t, one, root.b + i, 1);
            put_node(t, block + i, (vxr_node){1u << (o ^ 7u), one});
            put_battr(t, block + i, 0);
            i++;
        }
        free_block(t, 0, root.b, cnt);
        put_node(t, 0, (vxr_node){root.a, block});
        for (int k = 0; k < 3; k++) t->origin[k] = -s;
    } else {
        uint32_t one = alloc_block(t, 0, 1), o = 0;
        if (one == UINT32_MAX) return false;
        move_slots(t, one, 0, 1);
        bool to_centre = true;
        for (int k = 0; k < 3; k++)
            to_centre = to_centre && (t->origin[k] == 0 || t->origin[k] == -s);
        for (int k = 0; k < 3; k++) {
            int32_t parent = to_centre ? -s : (int32_t)(t->origin[k] & ~(2 * s - 1));
            if (t->origin[k] != parent) o |= 1u << (2 - k);
            t->origin[k] = parent;
        }
        put_node(t, 0, (vxr_node){1u << o, one});
        put_battr(t, 0, 0);
    }
    t->depth = d + 1;
    return true;
}

/* ---- edits of one voxel ---- */

/* The octant of cell c inside the cube of `level` at lo. */
static uint32_t octant(const int32_t c[3], const int32_t lo[3], uint32_t level) {
    uint32_t o = 0;
    for (int k = 0; k < 3; k++)
        if (c[k] - lo[k] >= (1 << (level - 1))) o |= 1u << (2 - k);
    return o;
}

/* The brick bit of cell c in the brick at lo: level-1 octant * 8 + voxel. */
static uint32_t brick_bit(const int32_t c[3], const int32_t lo[3]) {
    int32_t l1[3] = {lo[0], lo[1], lo[2]};
    uint32_t a = octant(c, lo, VXR_BRICK_LEVEL);
    child_lo(l1, a, VXR_BRICK_LEVEL);
    return a * 8 + octant(c, l1, 1);
}

/* Notes the nodes of a voxel's path, path[level] for the brick's level to
 * the root's, as changed: their level-of-detail colours (vxr_lod_colors)
 * change with the voxel, while their words may not. Every changed node's
 * ancestors are noted with it, so a walk from the root that enters only
 * noted nodes meets them all (vxr_lod_colors_update). */
static void note_path(vxr_octree *t, const uint32_t *path, uint32_t root_level) {
    struct vxr_live *l = t->live;
    for (uint32_t level = VXR_BRICK_LEVEL; level <= root_level; level++) {
        /* the same node as the last path's: the rest is noted (no node
         * moved since, so a slot is still the same node) */
        if (l->path_valid && l->path_seen[level] == path[level]) return;
        note(t, 0, path[level], 1);
        l->path_seen[level] = path[level];
    }
    l->path_valid = true;
}

static void extend_bounds(vxr_octree *t, const int32_t c[3]) {
    for (int k = 0; k < 3; k++) {
        if (t->voxel_count == 0 || c[k] < t->vmin[k]) t->vmin[k] = c[k];
        if (t->voxel_count == 0 || c[k] + 1 > t->vmax[k]) t->vmax[k] = c[k] + 1;
    }
}

/* A new root: the smallest centred cube of at least MIN_LIVE_DEPTH levels
 * holding c. */
static bool new_root(vxr_octree *t, const int32_t c[3]) {
    uint32_t any = vxr_abs_svo(c[0]) | vxr_abs_svo(c[1]) | vxr_abs_svo(c[2]);
    uint32_t d = vxr_bitlen64(any) + 1;
    if (d < MIN_LIVE_DEPTH) d = MIN_LIVE_DEPTH;
    t->node_count = 0;
    if (alloc_block(t, 0, 1) != 0) return false;
    t->depth = d;
    for (int k = 0; k < 3; k++) t->origin[k] = -(int32_t)(1u << (d - 1));
    put_node(t, 0, (vxr_node){0, 0});
    put_battr(t, 0, 0);
    return true;
}

vxr_result vxr_octree_set_voxel(vxr_octree *t, int32_t x, int32_t y, int32_t z, uint32_t attr,
                                bool paint_only, vxr_voxel_change *dest) {
    const int32_t c[3] = {x, y, z};
    if (dest) *dest = (vxr_voxel_change){{x, y, z}, false, 0, false, 0};
    if (!t->live || t->live->failed) return VXR_ERROR_ARGUMENT;
    if ((vxr_abs_svo(x) | vxr_abs_svo(y) | vxr_abs_svo(z)) >= 1u << (VXR_MAX_DEPTH - 1))
        return VXR_ERROR_LIMIT;
    if (t->attr_size == 1 && (attr == 0 || attr > 255)) return VXR_ERROR_ARGUMENT;
    if (t->attr_size == 4 && !(attr >> 24)) return VXR_ERROR_ARGUMENT; /* would read as empty */
    if (t->node_count == 0) {
        if (paint_only) return VXR_OK;
        if (!new_root(t, c)) goto oom;
    }
    if (!covers(t, c)) {
        if (paint_only) return VXR_OK;
        while (!covers(t, c))
            if (!grow_once(t)) goto oom;
    }
    uint32_t slot = 0, level = t->depth, path[VXR_LEVELS];
    int32_t lo[3] = {t->origin[0], t->origin[1], t->origin[2]};
    for (; level > VXR_BRICK_LEVEL; level--) {
        path[level] = slot;
        vxr_node n = t->nodes[slot];
        uint32_t o = octant(c, lo, level), rank = (uint32_t)vxr_popcount32(n.a & ((1u << o) - 1));
        if (!(n.a & (1u << o))) {
            if (paint_only) return VXR_OK;
            uint32_t cnt = (uint32_t)vxr_popcount32(n.a), block = n.b;
            if (!insert_entry(t, 0, &block, cnt, rank)) goto oom;
            put_node(t, block + rank, (vxr_node){0, 0});
            put_battr(t, block + rank, 0);
            put_node(t, slot, (vxr_node){n.a | 1u << o, block});
            if (level - 1 == VXR_BRICK_LEVEL) t->brick_count++;
            n = t->nodes[slot];
        }
        slot = n.b + rank;
        child_lo(lo, o, level);
    }
    uint64_t bits = brick_bits(&t->nodes[slot]);
    uint32_t bit = brick_bit(c, lo), rank = (uint32_t)vxr_popcount64(bits & ((1ull << bit) - 1));
    uint32_t base = t->brick_attr[slot];
    path[VXR_BRICK_LEVEL] = slot;
    if (bits >> bit & 1) {
        uint32_t old = get_attr(t, base + rank);
        if (dest) dest->had = true, dest->old = old;
        if (old != attr) note_path(t, path, t->depth);
    } else {
        note_path(t, path, t->depth);
        if (paint_only) return VXR_OK;
        if (!insert_entry(t, 1, &base, (uint32_t)vxr_popcount64(bits), rank)) goto oom;
        put_node(t, slot, brick_node(bits | 1ull << bit));
        put_battr(t, slot, base);
        extend_bounds(t, c);
        t->voxel_count++;
    }
    put_attr(t, base + rank, attr);
    if (dest) dest->has = true, dest->now = attr;
    return VXR_OK;
oom:
    t->live->failed = true;
    return VXR_ERROR_MEMORY;
}

static void set_voxel_in(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    vxr_octree *t = user;
    if (vxr_octree_set_voxel(t, x, y, z, attr, false, NULL) != VXR_OK) t->live->failed = true;
}

/* Empties the tree (keeping its arrays). */
static void clear_all(vxr_octree *t) {
    struct vxr_live *l = t->live;
    for (int c = 0; c < NODE_CLASSES; c++) l->free_nodes[c].n = 0;
    for (int c = 0; c < ATTR_CLASSES; c++) l->free_attrs[c].n = 0;
    l->free_slots = l->free_attrs_n = l->attr_top = 0;
    l->n_spans[0] = l->n_spans[1] = 0;
    l->all_changed = true;
    l->path_valid = false;
    l->bounds_loose = false;
    t->node_count = t->brick_count = t->voxel_count = t->depth = 0;
    memset(t->origin, 0, sizeof t->origin);
    memset(t->vmin, 0, sizeof t->vmin);
    memset(t->vmax, 0, sizeof t->vmax);
}

vxr_result vxr_octree_clear_voxel(vxr_octree *t, int32_t x, int32_t y, int32_t z,
                                  vxr_voxel_change *dest) {
    const int32_t c[3] = {x, y, z};
    if (dest) *dest = (vxr_voxel_change){{x, y, z}, false, 0, false, 0};
    if (!t->live || t->live->failed) return VXR_ERROR_ARGUMENT;
    if (t->node_count == 0 || !covers(t, c)) return VXR_OK;
    uint32_t path[VXR_LEVELS], ranks[VXR_LEVELS]; /* slot and child rank per level */
    uint32_t slot = 0, level = t->depth;
    int32_t lo[3] = {t->origin[0], t->origin[1], t->origin[2]};
    for (; level > VXR_BRICK_LEVEL; level--) {
        vxr_node n = t->nodes[slot];
        uint32_t o = octant(c, lo, level);
        if (!(n.a & (1u << o))) return VXR_OK;
        path[level] = slot;
        ranks[level] = (uint32_t)vxr_popcount32(n.a & ((1u << o) - 1));
        slot = n.b + ranks[level];
        child_lo(lo, o, level);
    }
    uint64_t bits = brick_bits(&t->nodes[slot]);
    uint32_t bit = brick_bit(c, lo);
    if (!(bits >> bit & 1)) return VXR_OK;
    uint32_t rank = (uint32_t)vxr_popcount64(bits & ((1ull << bit) - 1)),
             cnt = (uint32_t)vxr_popcount64(bits), base = t->brick_attr[slot];
    if (dest) dest->had = true, dest->old = get_attr(t, base + rank);
    path[VXR_BRICK_LEVEL] = slot;
    note_path(t, path, t->depth);
    for (int k = 0; k < 3; k++)
        if (c[k] == t->vmin[k] || c[k] + 1 == t->vmax[k]) t->live->bounds_loose = true;
    t->voxel_count--;
    if (cnt > 1) {
        if (!remove_entry(t, 1, &base, cnt, rank)) goto oom;
        put_node(t, slot, brick_node(bits & ~(1ull << bit)));
        put_battr(t, slot, base);
        return VXR_OK;
    }
    /* the brick empties: it leaves its parent, and every ancestor left
     * without children leaves its own */
    free_block(t, 1, base, 1);
    t->brick_count--;
    for (level = VXR_BRICK_LEVEL + 1; level <= t->depth; level++) {
        uint32_t p = path[level];
        vxr_node n = t->nodes[p];
        uint32_t kids = (uint32_t)vxr_popcount32(n.a), block = n.b;
        uint32_t o = (uint32_t)__builtin_ctz(n.a), r = ranks[level];
        for (uint32_t k = r; k > 0; k--) o = (uint32_t)__builtin_ctz(n.a & ~((2u << o) - 1));
        if (kids > 1) {
            if (!remove_entry(t, 0, &block, kids, r)) goto oom;
            put_node(t, p, (vxr_node){n.a & ~(1u << o), block});
            return VXR_OK;
        }
        free_block(t, 0, block, 1);
        if (p == 0) { /* the root is empty: so is the tree */
            clear_all(t);
            return VXR_OK;
        }
    }
    return VXR_OK;
oom:
    t->live->failed = true;
    return VXR_ERROR_MEMORY;
}

/* ---- whole-tree operations ---- */

vxr_result vxr_octree_copy(const vxr_octree *t, vxr_octree *dest) {
    return live_copy(t, dest);
}

void vxr_octree_waste(const vxr_octree *t, uint64_t *free_slots, uint64_t *free_attrs) {
    *free_slots = t->live ? t->live->free_slots : 0;
    *free_attrs = t->live ? t->live->free_attrs_n : 0;
}
