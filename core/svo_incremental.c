/* The seed's incremental construction ("SVO Construction"): a pointer octree
 * centred on the origin with half-extent h, voxels inserted one at a time
 * along their ileave3 path, the root grown by doubling h when a voxel fails
 * the abs_svo bounds test, colour arrays held by the second-to-last level,
 * single-octant roots trimmed, and the result linearised breadth first.
 * It must produce exactly what the bulk path produces; tests hold them equal. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* Level >= 2 node: children by octant, 0 = none (slot 0 of each pool is unused). */
typedef struct inner {
    uint32_t child[8];
} inner;

/* Level-1 node: the colour array of up to eight voxels. */
typedef struct leaf {
    uint32_t mask;
    uint32_t color[8];
} leaf;

typedef struct builder {
    inner *inners;
    leaf *leaves;
    size_t n_inner, cap_inner, n_leaf, cap_leaf;
    uint32_t root, depth; /* root is an inner node at level depth (>= 2) */
    uint32_t h;           /* half-extent: the root covers [-h, h)^3 */
} builder;

/* A zeroed entry of elem bytes at the end of *arr (its count *n and
 * capacity *cap, doubling); 0 when out of memory (index 0 is the first
 * entry each array makes, never asked for again). */
static uint32_t new_entry(void **arr, size_t *n, size_t *cap, size_t elem) {
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 1024;
        void *p = c > UINT32_MAX ? NULL : realloc(*arr, c * elem);
        if (!p) return 0;
        *arr = p;
        *cap = c;
    }
    memset((char *)*arr + *n * elem, 0, elem);
    return (uint32_t)(*n)++;
}

static uint32_t new_inner(builder *b) {
    return new_entry((void **)&b->inners, &b->n_inner, &b->cap_inner, sizeof(inner));
}

static uint32_t new_leaf(builder *b) {
    return new_entry((void **)&b->leaves, &b->n_leaf, &b->cap_leaf, sizeof(leaf));
}

/* Doubles h: old child o of the root lies in the new child o, in its
 * octant o ^ 7 (the one nearest the origin). */
static int grow(builder *b) {
    uint32_t root = new_inner(b);
    if (!root) return 0;
    for (uint32_t o = 0; o < 8; o++) {
        uint32_t old = b->inners[b->root].child[o];
        if (!old) continue;
        uint32_t mid = new_inner(b);
        if (!mid) return 0;
        b->inners[mid].child[o ^ 7] = old;
        b->inners[root].child[o] = mid;
    }
    b->root = root;
    b->depth++;
    b->h *= 2;
    return 1;
}

static int insert(builder *b, const vxr_voxel *v) {
    while (vxr_abs_svo(v->x) >= b->h || vxr_abs_svo(v->y) >= b->h || vxr_abs_svo(v->z) >= b->h)
        if (!grow(b)) return 0;
    uint64_t key = vxr_ileave3((uint32_t)v->x + b->h, (uint32_t)v->y + b->h, (uint32_t)v->z + b->h);
    uint32_t node = b->root;
    for (uint32_t level = b->depth; level > VXR_BRICK_LEVEL; level--) {
        uint32_t o = (uint32_t)(key >> (3 * (level - 1))) & 7;
        if (!b->inners[node].child[o]) {
            uint32_t c = new_inner(b);
            if (!c) return 0;
            b->inners[node].child[o] = c;
        }
        node = b->inners[node].child[o];
    }
    uint32_t o = (uint32_t)(key >> 3) & 7;
    if (!b->inners[node].child[o]) {
        uint32_t c = new_leaf(b);
        if (!c) return 0;
        b->inners[node].child[o] = c;
    }
    leaf *l = &b->leaves[b->inners[node].child[o]];
    l->mask |= 1u << (key & 7);
    l->color[key & 7] = v->color; /* a later duplicate overwrites: last wins */
    return 1;
}

static uint32_t child_mask(const inner *n) {
    uint32_t m = 0;
    for (uint32_t o = 0; o < 8; o++)
        if (n->child[o]) m |= 1u << o;
    return m;
}

static vxr_result linearize(const builder *b, int32_t origin[3], vxr_octree *t) {
    uint32_t root = b->root, depth = b->depth;
    for (int k = 0; k < 3; k++) origin[k] = -(int32_t)b->h;
    for (;;) { /* trim single-octant roots */
        uint32_t m = child_mask(&b->inners[root]);
        if (depth <= VXR_MIN_DEPTH || (m & (m - 1))) break;
        uint32_t o = (uint32_t)__builtin_ctz(m);
        int32_t half = 1 << (depth - 1);
        origin[0] += (int32_t)(o >> 2) * half;
        origin[1] += (int32_t)((o >> 1) & 1) * half;
        origin[2] += (int32_t)(o & 1) * half;
        root = b->inners[root].child[o];
        depth--;
    }
    memcpy(t->origin, origin, sizeof t->origin);
    t->depth = depth;
    /* Breadth first: `order` lists inner nodes level by level. */
    uint32_t *order = malloc(b->n_inner * sizeof *order);
    t->nodes = malloc(b->n_inner * sizeof *t->nodes);
    if (!order || !t->nodes) {
        free(order);
        return VXR_ERROR_MEMORY;
    }
    size_t n = 0, begin = 0, end = 1;
    order[0] = root;
    for (uint32_t level = depth; level > VXR_BRICK_LEVEL; level--) {
        size_t next = end;
        for (size_t i = begin; i < end; i++) {
            const inner *in = &b->inners[order[i]];
            t->nodes[n].a = child_mask(in);
            t->nodes[n].b = (uint32_t)next;
            n++;
            for (uint32_t o = 0; o < 8; o++)
                if (in->child[o]) order[next++] = in->child[o];
        }
        begin = end;
        end = next;
    }
    t->brick_count = (uint32_t)(end - begin);
    t->node_count = (uint32_t)end;
    t->brick_attr = malloc(t->brick_count * sizeof *t->brick_attr);
    t->attrs = malloc((size_t)t->voxel_count * t->attr_size);
    if (!t->brick_attr || !t->attrs) {
        free(order);
        return VXR_ERROR_MEMORY;
    }
    uint32_t attr = 0;
    for (size_t i = begin; i < end; i++) {
        const inner *in = &b->inners[order[i]];
        uint64_t mask = 0;
        t->brick_attr[i - begin] = attr;
        for (uint32_t o = 0; o < 8; o++) {
            if (!in->child[o]) continue;
            const leaf *l = &b->leaves[in->child[o]];
            mask |= (uint64_t)l->mask << (8 * o);
            for (uint32_t v = 0; v < 8; v++) {
                if (!(l->mask & 1u << v)) continue;
                if (t->attr_size == 1)
                    t->attrs[attr] = (uint8_t)l->color[v];
                else
                    memcpy(t->attrs + (size_t)attr * 4, &l->color[v], 4);
                attr++;
            }
        }
        t->nodes[i].a = (uint32_t)mask;
        t->nodes[i].b = (uint32_t)(mask >> 32);
    }
    free(order);
    return VXR_OK;
}

vxr_result vxr_octree_build_incremental(const vxr_voxel *voxels, size_t count, uint32_t attr_size,
                                        vxr_octree *dest, vxr_error *err) {
    uint32_t depth0;
    vxr_result r = vxr_octree_prepare(voxels, count, attr_size, dest, &depth0, err);
    if (r != VXR_OK || count == 0) return r;
    builder b = {0};
    b.depth = VXR_MIN_DEPTH;
    b.h = 2;
    r = VXR_ERROR_MEMORY;
    new_inner(&b); /* index 0 of each pool means "none" */
    new_leaf(&b);
    if (!b.inners || !b.leaves) goto done;
    b.root = new_inner(&b);
    if (!b.root) goto done;
    for (size_t i = 0; i < count; i++)
        if (!insert(&b, &voxels[i])) goto done;
    uint64_t voxels_set = 0;
    for (size_t i = 1; i < b.n_leaf; i++) voxels_set += (uint64_t)vxr_popcount32(b.leaves[i].mask);
    dest->voxel_count = (uint32_t)voxels_set;
    int32_t origin[3];
    r = linearize(&b, origin, dest);
done:
    free(b.inners);
    free(b.leaves);
    if (r != VXR_OK) {
        vxr_octree_free(dest);
        return vxr_fail(err, r, "out of memory building an octree of %zu voxels", count);
    }
    return VXR_OK;
}
