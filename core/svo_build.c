/* Bulk octree construction: Morton keys, LSD radix sort, then one pass over
 * the sorted keys that emits every level at once. Because the layout is
 * breadth first with each level in Morton order, a level's nodes appear in
 * the same order as the sorted keys that first reach them, so the node
 * indices are running counters and no tree is ever built in memory. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

enum { DENSE_MAX_DEPTH = 9, DENSE_SLACK_WORDS = 4096 };

/* Stable LSD radix sort of v (and pay, when not NULL) by bits [lo, hi) of v.
 * Returns the buffer holding the result (v or tv). */
static uint64_t *radix_sort(uint64_t *v, uint32_t *pay, uint64_t *tv, uint32_t *tpay, size_t n,
                            uint32_t lo, uint32_t hi, uint32_t **pay_out) {
    enum { MAX_PASSES = 6, MAX_BITS = 11 };
    uint32_t bits = hi - lo;
    uint32_t passes = (bits + MAX_BITS - 1) / MAX_BITS;
    if (passes == 0) {
        *pay_out = pay;
        return v;
    }
    uint32_t width = (bits + passes - 1) / passes;
    uint32_t radix = 1u << width;
    size_t *hist = calloc((size_t)passes * radix, sizeof *hist);
    if (!hist) return NULL;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = v[i] >> lo;
        for (uint32_t p = 0; p < passes; p++)
            hist[p * radix + ((k >> (p * width)) & (radix - 1))]++;
    }
    for (uint32_t p = 0; p < passes; p++) {
        size_t *h = hist + (size_t)p * radix;
        uint32_t shift = lo + p * width;
        if (h[(v[0] >> shift) & (radix - 1)] == n) continue; /* one bucket: nothing to do */
        size_t sum = 0;
        for (uint32_t d = 0; d < radix; d++) {
            size_t c = h[d];
            h[d] = sum;
            sum += c;
        }
        if (pay) {
            for (size_t i = 0; i < n; i++) {
                size_t at = h[(v[i] >> shift) & (radix - 1)]++;
                tv[at] = v[i];
                tpay[at] = pay[i];
            }
            uint32_t *tp = pay;
            pay = tpay;
            tpay = tp;
        } else {
            for (size_t i = 0; i < n; i++) tv[h[(v[i] >> shift) & (radix - 1)]++] = v[i];
        }
        uint64_t *t = v;
        v = tv;
        tv = t;
    }
    free(hist);
    *pay_out = pay;
    return v;
}

/* The level of the highest Morton digit in which two keys differ. */
static uint32_t diff_level(uint64_t a, uint64_t b) {
    return (vxr_bitlen64(a ^ b) - 1) / 3;
}

/* Emits the interior levels (depth down to 3) above `nb` bricks given by
 * their sorted, distinct brick keys (voxel key >> 6). Allocates t->nodes
 * with room for the bricks, which the caller writes at
 * nodes[node_count - brick_count + i]. A new node starts at level L exactly
 * where consecutive keys first differ at level L or above. */
static vxr_result emit_interior(const uint64_t *bk, size_t nb, vxr_octree *t) {
    const uint32_t depth = t->depth;
    size_t count[VXR_MAX_DEPTH + 2] = {0};
    for (size_t i = 1; i < nb; i++) count[diff_level(bk[i], bk[i - 1]) + 2]++;
    for (uint32_t l = depth; l-- > 3;) count[l] += count[l + 1];
    size_t start[VXR_MAX_DEPTH + 2], interior = 0;
    for (uint32_t l = depth; l > VXR_BRICK_LEVEL; l--) {
        count[l] += 1;
        start[l] = interior;
        interior += count[l];
    }
    if (interior + nb > UINT32_MAX) return VXR_ERROR_LIMIT;
    t->node_count = (uint32_t)(interior + nb);
    t->brick_count = (uint32_t)nb;
    t->nodes = malloc((interior + nb) * sizeof *t->nodes);
    if (!t->nodes) return VXR_ERROR_MEMORY;
    size_t pos[VXR_MAX_DEPTH + 2];
    for (uint32_t l = 3; l <= depth; l++) pos[l] = start[l] - 1;
    for (size_t i = 0; i < nb; i++) {
        uint32_t d = i == 0 ? depth : diff_level(bk[i], bk[i - 1]) + 2;
        for (uint32_t l = d; l > VXR_BRICK_LEVEL; l--) {
            size_t at = ++pos[l];
            t->nodes[at].a = 1u << ((bk[i] >> (3 * (l - 3))) & 7);
            t->nodes[at].b = (uint32_t)(l == 3 ? interior + i : pos[l - 1] + 1);
        }
        if (d < depth) t->nodes[pos[d + 1]].a |= 1u << ((bk[i] >> (3 * (d - 2))) & 7);
    }
    return VXR_OK;
}

static void put_attr(vxr_octree *t, size_t index, uint32_t c) {
    if (t->attr_size == 1)
        t->attrs[index] = (uint8_t)c;
    else
        memcpy(t->attrs + index * 4, &c, 4);
}

/* Sparse path: emits the octree of sorted keys (key = v >> shift, colour =
 * v's low `shift` bits or pay[i]); of equal keys the last one wins. */
static vxr_result emit_sorted(const uint64_t *v, const uint32_t *pay, uint32_t shift, size_t n,
                              vxr_octree *t) {
    const uint64_t cmask = shift ? (1ull << shift) - 1 : 0;
    uint64_t *bk = malloc(n * sizeof *bk), *masks = malloc(n * sizeof *masks);
    uint32_t *base = malloc(n * sizeof *base);
    t->attrs = malloc(n * t->attr_size);
    vxr_result r = VXR_ERROR_MEMORY;
    if (!bk || !masks || !base || !t->attrs) goto done;
    size_t nb = 0, attr = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = v[i] >> shift;
        if (i + 1 < n && (v[i + 1] >> shift) == k) continue; /* a later duplicate wins */
        if (nb == 0 || bk[nb - 1] != k >> 6) {
            bk[nb] = k >> 6;
            masks[nb] = 0;
            base[nb++] = (uint32_t)attr;
        }
        masks[nb - 1] |= 1ull << (k & 63);
        put_attr(t, attr++, pay ? pay[i] : (uint32_t)(v[i] & cmask));
    }
    t->voxel_count = (uint32_t)attr;
    r = emit_interior(bk, nb, t);
    if (r != VXR_OK) goto done;
    vxr_node *bricks = t->nodes + (t->node_count - nb);
    for (size_t i = 0; i < nb; i++) {
        bricks[i].a = (uint32_t)masks[i];
        bricks[i].b = (uint32_t)(masks[i] >> 32);
    }
    t->brick_attr = base;
    base = NULL;
done:
    free(bk);
    free(masks);
    free(base);
    return r;
}

static uint32_t morton_local(const vxr_voxel *p, const int32_t o[3]) {
    return (uint32_t)(vxr_spread3((uint32_t)(p->x - o[0])) << 2 |
                      vxr_spread3((uint32_t)(p->y - o[1])) << 1 |
                      vxr_spread3((uint32_t)(p->z - o[2])));
}

/* Dense path, for models that fill a good part of their root cube: an
 * occupancy bitmap whose 64-bit words are exactly the bricks in Morton
 * order, so no sort is needed; colours land by popcount, in input order, so
 * the last duplicate wins. */
static vxr_result build_dense(const vxr_voxel *voxels, size_t n, vxr_octree *t) {
    const size_t words = (size_t)1 << (3 * t->depth - 6);
    uint64_t *bits = calloc(words, sizeof *bits);
    uint32_t *slot = malloc(words * sizeof *slot);
    uint32_t *keys = malloc(n * sizeof *keys);
    uint64_t *bk = NULL;
    vxr_result r = VXR_ERROR_MEMORY;
    if (!bits || !slot || !keys) goto done;
    for (size_t i = 0; i < n; i++) {
        uint32_t k = morton_local(&voxels[i], t->origin);
        keys[i] = k;
        bits[k >> 6] |= 1ull << (k & 63);
    }
    size_t nb = 0, attr = 0;
    for (size_t w = 0; w < words; w++) {
        if (!bits[w]) continue;
        slot[w] = (uint32_t)attr;
        attr += (size_t)vxr_popcount64(bits[w]);
        nb++;
    }
    bk = malloc(nb * sizeof *bk);
    t->brick_attr = malloc(nb * sizeof *t->brick_attr);
    t->attrs = malloc(attr * t->attr_size);
    if (!bk || !t->brick_attr || !t->attrs) goto done;
    t->voxel_count = (uint32_t)attr;
    for (size_t w = 0, b = 0; w < words; w++) {
        if (!bits[w]) continue;
        bk[b] = w;
        t->brick_attr[b++] = slot[w];
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t k = keys[i], w = k >> 6;
        uint64_t below = bits[w] & ((1ull << (k & 63)) - 1);
        put_attr(t, slot[w] + (size_t)vxr_popcount64(below), voxels[i].color);
    }
    r = emit_interior(bk, nb, t);
    if (r != VXR_OK) goto done;
    vxr_node *bricks = t->nodes + (t->node_count - nb);
    for (size_t i = 0; i < nb; i++) {
        bricks[i].a = (uint32_t)bits[bk[i]];
        bricks[i].b = (uint32_t)(bits[bk[i]] >> 32);
    }
done:
    free(bits);
    free(slot);
    free(keys);
    free(bk);
    return r;
}

/* The trimmed root follows from the bounds alone: per axis, the voxels'
 * offset coordinates share every bit above the highest one in which their
 * minimum and maximum differ, which is where single-octant roots end. */
static void trimmed_root(vxr_octree *t, uint32_t depth0) {
    const int32_t h = 1 << (depth0 - 1);
    uint32_t depth = VXR_MIN_DEPTH;
    for (int k = 0; k < 3; k++) {
        uint32_t lo = (uint32_t)(t->vmin[k] + h), hi = (uint32_t)(t->vmax[k] - 1 + h);
        uint32_t d = vxr_bitlen64(lo ^ hi);
        if (d > depth) depth = d;
    }
    t->depth = depth;
    for (int k = 0; k < 3; k++)
        t->origin[k] = (int32_t)(((uint32_t)(t->vmin[k] + h) >> depth) << depth) - h;
}

vxr_result vxr_octree_build(const vxr_voxel *voxels, size_t count, uint32_t attr_size,
                            vxr_octree *dest, vxr_error *err) {
    uint32_t depth0;
    vxr_result r = vxr_octree_prepare(voxels, count, attr_size, dest, &depth0, err);
    if (r != VXR_OK || count == 0) return r;
    trimmed_root(dest, depth0);
    uint64_t *v = NULL, *tv = NULL;
    uint32_t *pay = NULL, *tpay = NULL;
    /* Dense when the bitmap (one bit a cell, counted in 64-bit words) is
     * small against the voxel count: at most DENSE_MAX_DEPTH levels (a
     * 2^27-bit bitmap) and about two words a voxel. */
    if (dest->depth <= DENSE_MAX_DEPTH &&
        ((size_t)1 << (3 * dest->depth - 6)) <= 2 * count + DENSE_SLACK_WORDS) {
        r = build_dense(voxels, count, dest);
        goto done;
    }
    /* Pack colour under the key when both fit in 64 bits, which halves the
     * bytes the sort moves. */
    uint32_t key_bits = 3 * depth0, color_bits = attr_size == 1 ? 8 : 32;
    int packed = key_bits + color_bits <= 64;
    uint32_t shift = packed ? color_bits : 0;
    v = malloc(count * sizeof *v);
    tv = malloc(count * sizeof *tv);
    pay = packed ? NULL : malloc(count * sizeof *pay);
    tpay = packed ? NULL : malloc(count * sizeof *tpay);
    if (!v || !tv || (!packed && (!pay || !tpay))) {
        r = VXR_ERROR_MEMORY;
        goto done;
    }
    uint32_t h = 1u << (depth0 - 1);
    for (size_t i = 0; i < count; i++) {
        const vxr_voxel *p = &voxels[i];
        uint64_t key = vxr_spread3((uint32_t)p->x + h) << 2 | vxr_spread3((uint32_t)p->y + h) << 1 |
                       vxr_spread3((uint32_t)p->z + h);
        if (packed) {
            v[i] = key << shift | p->color;
        } else {
            v[i] = key;
            pay[i] = p->color;
        }
    }
    uint32_t *spay;
    uint64_t *sorted = radix_sort(v, pay, tv, tpay, count, shift, shift + key_bits, &spay);
    r = sorted ? emit_sorted(sorted, packed ? NULL : spay, shift, count, dest) : VXR_ERROR_MEMORY;
done:
    free(v);
    free(tv);
    free(pay);
    free(tpay);
    if (r != VXR_OK) {
        vxr_octree_free(dest);
        return vxr_fail(err, r,
                        r == VXR_ERROR_MEMORY ? "out of memory building an octree of %zu voxels"
                                              : "octree of %zu voxels exceeds 2^32 nodes",
                        count);
    }
    return VXR_OK;
}
