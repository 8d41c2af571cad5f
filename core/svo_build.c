/* Bulk octree construction: Morton keys, LSD radix sort, then one pass over
 * the sorted keys that emits every level at once. Because the layout is
 * breadth first with each level in Morton order, a level's nodes appear in
 * the same order as the sorted keys that first reach them, so the node
 * indices are running counters and no tree is ever built in memory. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

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

/* Emits the octree of sorted keys (key = v >> shift, colour = v's low
 * `shift` bits or pay[i]); of equal keys the last one wins. */
static vxr_result emit_levels(const uint64_t *v, const uint32_t *pay, uint32_t shift, size_t n,
                              uint32_t depth0, vxr_octree *t) {
    const uint64_t cmask = shift ? (1ull << shift) - 1 : 0;
    uint64_t first = v[0] >> shift, last = v[n - 1] >> shift;
    /* Trimming single-octant roots is finding the keys' common prefix. */
    uint32_t depth = (vxr_bitlen64(first ^ last) + 2) / 3;
    if (depth < VXR_MIN_DEPTH) depth = VXR_MIN_DEPTH;
    uint32_t u[3];
    vxr_deinterleave3(first >> (3 * depth) << (3 * depth), u);
    int32_t h = 1 << (depth0 - 1);
    for (int i = 0; i < 3; i++) t->origin[i] = (int32_t)u[i] - h;
    t->depth = depth;

    /* count[L]: nodes at level L = 1 + keys whose difference to the previous
     * key reaches level L. */
    size_t count[VXR_MAX_DEPTH + 2] = {0};
    size_t unique = 1;
    uint64_t prev = first;
    for (size_t i = 1; i < n; i++) {
        uint64_t k = v[i] >> shift;
        if (k == prev) continue;
        count[diff_level(k, prev)]++;
        prev = k;
        unique++;
    }
    for (uint32_t l = depth; l-- > 0;) count[l] += count[l + 1];
    size_t start[VXR_MAX_DEPTH + 2], nodes = 0;
    for (uint32_t l = depth; l >= VXR_BRICK_LEVEL; l--) {
        count[l] += 1;
        start[l] = nodes;
        nodes += count[l];
    }
    if (nodes > UINT32_MAX || unique > UINT32_MAX) return VXR_ERROR_LIMIT;
    t->node_count = (uint32_t)nodes;
    t->brick_count = (uint32_t)count[VXR_BRICK_LEVEL];
    t->voxel_count = (uint32_t)unique;
    t->nodes = malloc(nodes * sizeof *t->nodes);
    t->brick_attr = malloc(count[VXR_BRICK_LEVEL] * sizeof *t->brick_attr);
    t->attrs = malloc(unique * t->attr_size);
    if (!t->nodes || !t->brick_attr || !t->attrs) return VXR_ERROR_MEMORY;

    size_t pos[VXR_MAX_DEPTH + 2];
    for (uint32_t l = VXR_BRICK_LEVEL; l <= depth; l++) pos[l] = start[l] - 1;
    const size_t brick0 = start[VXR_BRICK_LEVEL];
    uint32_t attr = 0;
    prev = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = v[i] >> shift;
        if (i + 1 < n && (v[i + 1] >> shift) == k) continue; /* a later duplicate wins */
        uint32_t d = attr == 0 ? depth : diff_level(k, prev);
        prev = k;
        for (uint32_t l = d; l > VXR_BRICK_LEVEL; l--) {
            size_t at = ++pos[l];
            t->nodes[at].a = 1u << ((k >> (3 * (l - 1))) & 7);
            t->nodes[at].b = (uint32_t)(pos[l - 1] + 1);
        }
        if (d >= VXR_BRICK_LEVEL) {
            if (d < depth) t->nodes[pos[d + 1]].a |= 1u << ((k >> (3 * d)) & 7);
            size_t at = ++pos[VXR_BRICK_LEVEL];
            t->nodes[at].a = t->nodes[at].b = 0;
            t->brick_attr[at - brick0] = attr;
        }
        vxr_node *brick = &t->nodes[pos[VXR_BRICK_LEVEL]];
        uint32_t bit = (uint32_t)(k & 63);
        if (bit < 32)
            brick->a |= 1u << bit;
        else
            brick->b |= 1u << (bit - 32);
        uint32_t c = pay ? pay[i] : (uint32_t)(v[i] & cmask);
        if (t->attr_size == 1)
            t->attrs[attr] = (uint8_t)c;
        else
            memcpy(t->attrs + (size_t)attr * 4, &c, 4);
        attr++;
    }
    return VXR_OK;
}

vxr_result vxr_octree_build(const vxr_voxel *voxels, size_t count, uint32_t attr_size,
                            vxr_octree *dest, vxr_error *err) {
    uint32_t depth0;
    vxr_result r = vxr_octree_prepare(voxels, count, attr_size, dest, &depth0, err);
    if (r != VXR_OK || count == 0) return r;

    /* Pack colour under the key when both fit in 64 bits (every .vox model
     * does), which halves the bytes the sort moves. */
    uint32_t key_bits = 3 * depth0, color_bits = attr_size == 1 ? 8 : 32;
    int packed = key_bits + color_bits <= 64;
    uint32_t shift = packed ? color_bits : 0;
    uint64_t *v = malloc(count * sizeof *v), *tv = malloc(count * sizeof *tv);
    uint32_t *pay = packed ? NULL : malloc(count * sizeof *pay);
    uint32_t *tpay = packed ? NULL : malloc(count * sizeof *tpay);
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
    r = sorted ? emit_levels(sorted, packed ? NULL : spay, shift, count, depth0, dest)
               : VXR_ERROR_MEMORY;
done:
    free(v);
    free(tv);
    free(pay);
    free(tpay);
    if (r != VXR_OK) {
        vxr_octree_free(dest);
        return vxr_fail(err, r, r == VXR_ERROR_MEMORY ? "out of memory building an octree of %zu voxels"
                                                      : "octree of %zu voxels exceeds 2^32 nodes",
                        count);
    }
    return VXR_OK;
}
