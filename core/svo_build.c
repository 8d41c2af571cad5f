/* Bulk octree construction.
 *
 * The layout is breadth first with each level in Morton order, so the
 * bricks appear in the order of their Morton keys and the interior levels
 * follow from the sorted brick keys alone (emit_interior: the node indices
 * are running counters, no tree is built in memory). The root cube is cut
 * into regions, the aligned cubes of edge 2^S inside it: the bricks of a
 * region are one run of that order, so regions are built apart, on the
 * core's worker threads in any order, and joined in Morton order. What a
 * region makes depends on its own voxels only, never on the thread or on
 * the other regions: the octree is the same on any number of threads.
 *
 * A list's voxels are bucketed by region first (a stable counting scatter,
 * so that within a region they keep their order and the last duplicate
 * wins); a generator (vxr_model_gen) is asked for each region's voxels in
 * turn, so its whole list never exists. A region that fills a good part
 * of its cube sets bits in an occupancy bitmap whose 64-bit words are its
 * bricks in Morton order (no sort); a sparse one is LSD radix sorted. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#ifdef __AVX2__
#include <immintrin.h>
#endif

enum {
    REGION_LEVEL = 7,         /* regions of 128^3 cells: a 256 KiB bitmap, in L2 */
    DENSE_MAX_LEVEL = 9,      /* never a bitmap of more than 2^27 bits */
    DENSE_WORDS_PER_ITEM = 8, /* a bitmap when it has at most 8 words a voxel (+ slack) */
    DENSE_SLACK_WORDS = 1024,
    MAX_REGION_DIGITS = 6, /* at most 8^6 regions */
    DIRECT_MAX_LEVEL = 8,  /* the direct path's colour grid: at most 16 MiB */
    CHUNK_VOXELS = 1 << 16 /* a list pass gives a thread at least this many voxels */
};

/* Stable LSD radix sort of v (and pay, when not NULL) by bits [lo, hi) of v.
 * Returns the buffer holding the result (v or tv), NULL when out of memory. */
static uint64_t *radix_sort(uint64_t *v, uint32_t *pay, uint64_t *tv, uint32_t *tpay, size_t n,
                            uint32_t lo, uint32_t hi, uint32_t **pay_out) {
    enum { MAX_BITS = 11 };
    uint32_t bits = hi - lo;
    uint32_t passes = (bits + MAX_BITS - 1) / MAX_BITS;
    *pay_out = pay;
    if (passes == 0 || n < 2) return v;
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

static void put_attr(uint8_t *attrs, uint32_t attr_size, size_t index, uint32_t c) {
    if (attr_size == 1)
        attrs[index] = (uint8_t)c;
    else
        memcpy(attrs + index * 4, &c, 4);
}

/* One region: its cube, what it is built from, and what it made. */
typedef struct region {
    uint64_t key;         /* Morton index of its cube among the root's 2^S cubes */
    size_t begin, end;    /* a list's: its items in the bucketed arrays */
    int32_t at[3];        /* a generator's: the cube's min corner */
    int32_t lo[3], hi[3]; /* a generator's: the box it is asked for (cube and bounds) */
    /* made: bricks (root-local keys, voxel key >> 6, and occupancy) and the
     * attributes of their voxels, brick by brick */
    uint64_t *bk, *masks;
    uint8_t *attrs;
    uint32_t nb, nv;
    int32_t vmin[3], vmax[3]; /* a generator's: the bounds of what it gave */
    vxr_result r;
    bool done; /* built (or failed); guarded by the build's lock */
    bool has_bad;
    vxr_voxel bad; /* a generator's voxel outside its box or of a bad colour */
} region;

/* The interior levels (depth down to 3) above the regions' bricks (their
 * sorted, distinct keys, voxel key >> 6, region after region: nb >= 1 in
 * all). Allocates t->nodes with room for the bricks, which the caller
 * writes at nodes[node_count - brick_count + i]. A new node starts at
 * level L exactly where consecutive keys first differ at level L or above. */
static vxr_result emit_interior(const region *regions, size_t count, size_t nb, vxr_octree *t) {
    const uint32_t depth = t->depth;
    size_t n[VXR_MAX_DEPTH + 2] = {0};
    uint64_t prev = 0;
    for (size_t r = 0, i = 0; r < count; r++)
        for (uint32_t j = 0; j < regions[r].nb; j++, i++) {
            uint64_t k = regions[r].bk[j];
            if (i) n[diff_level(k, prev) + 2]++;
            prev = k;
        }
    for (uint32_t l = depth; l-- > 3;) n[l] += n[l + 1];
    size_t start[VXR_MAX_DEPTH + 2], interior = 0;
    for (uint32_t l = depth; l > VXR_BRICK_LEVEL; l--) {
        n[l] += 1;
        start[l] = interior;
        interior += n[l];
    }
    if (interior + nb > UINT32_MAX) return VXR_ERROR_LIMIT;
    t->node_count = (uint32_t)(interior + nb);
    t->brick_count = (uint32_t)nb;
    t->nodes = malloc((interior + nb) * sizeof *t->nodes);
    if (!t->nodes) return VXR_ERROR_MEMORY;
    vxr_node *nodes = t->nodes;
    size_t pos[VXR_MAX_DEPTH + 2];
    for (uint32_t l = 3; l <= depth; l++) pos[l] = start[l] - 1;
    for (size_t r = 0, i = 0; r < count; r++)
        for (uint32_t j = 0; j < regions[r].nb; j++, i++) {
            const uint64_t k = regions[r].bk[j];
            uint32_t d = i == 0 ? depth : diff_level(k, prev) + 2;
            prev = k;
            for (uint32_t l = d; l > VXR_BRICK_LEVEL; l--) {
                size_t at = ++pos[l];
                nodes[at].a = 1u << ((k >> (3 * (l - 3))) & 7);
                nodes[at].b = (uint32_t)(l == 3 ? interior + i : pos[l - 1] + 1);
            }
            if (d < depth) nodes[pos[d + 1]].a |= 1u << ((k >> (3 * (d - 2))) & 7);
        }
    return VXR_OK;
}

/* What the threads of one build share. */
typedef struct build {
    vxr_octree *t;
    uint32_t threads, attr_size;
    uint32_t S;        /* regions are cubes of edge 2^S */
    uint32_t shift;    /* an item is key << shift | colour; 0: key alone, colour in pay */
    uint64_t cmask;    /* the colour bits of an item */
    uint64_t *items;   /* a list's, bucketed by region */
    uint32_t *items32; /* or, narrow, these (then items is NULL) */
    uint32_t *pay;
    const vxr_voxel *voxels; /* a list */
    size_t count;
    const vxr_model_gen *gen; /* or a generator */
    region *regions;
    size_t region_count;
    struct scratch *scratch; /* one per thread */
    /* The attributes of the regions built so far, joined in Morton order
     * as they finish (the first `joined` regions): a region's are
     * appended, and freed, as soon as every region before it is done, so
     * that its buffer is reused while still in cache. The array becomes
     * the octree's. (Bricks are few: they stay with their regions.) */
    pthread_mutex_t lock;
    size_t joined;
    bool failed; /* a region failed: nothing more is appended */
    uint8_t *attrs;
    size_t nb, nv, cap_v;
    /* the list passes: `chunks` ranges of chunk_len voxels, a histogram of
     * regions (1 << 3 * digits counters) per range */
    size_t chunk_len;
    uint32_t chunks, digits;
    uint32_t *hist;
    int32_t (*span)[8]; /* per range: min x y z, max x y z, min and max colour - 1 */
} build;

/* A thread's buffers, kept from one region to the next. */
typedef struct scratch {
    atomic_flag busy; /* taken by a range of regions */
    uint64_t *bits, *tv, *items;
    uint32_t *slot, *words, *tpay, *pay;
    size_t bits_cap, sort_cap, item_cap;
    vxr_model_src voxels; /* a generator's output */
} scratch;

/* The bitmap of a dense region and its per-word arrays: room for `words`. */
static bool reserve_bitmap(scratch *sc, size_t words) {
    if (words <= sc->bits_cap) return true;
    free(sc->bits);
    free(sc->slot);
    free(sc->words);
    sc->bits = malloc(words * sizeof *sc->bits);
    sc->slot = malloc(words * sizeof *sc->slot);
    sc->words = malloc(words * sizeof *sc->words);
    sc->bits_cap = sc->bits && sc->slot && sc->words ? words : 0;
    return sc->bits_cap != 0;
}

static void scratch_free(scratch *sc) {
    free(sc->bits);
    free(sc->tv);
    free(sc->items);
    free(sc->slot);
    free(sc->words);
    free(sc->tpay);
    free(sc->pay);
    free(sc->voxels.voxels);
}

/* Makes room for n keys in *v and, when pay is not NULL, n colours in
 * *pay; *cap is their room (the same build asks with or without pay
 * every time). */
static bool reserve(uint64_t **v, uint32_t **pay, size_t *cap, size_t n) {
    if (n <= *cap) return true;
    uint64_t *a = realloc(*v, n * sizeof *a);
    if (!a) return false;
    *v = a;
    if (pay) {
        uint32_t *c = realloc(*pay, n * sizeof *c);
        if (!c) return false;
        *pay = c;
    }
    *cap = n;
    return true;
}

/* Allocates what a region makes. */
static bool region_alloc(const build *b, region *rg, uint32_t nb, uint32_t nv) {
    rg->nb = nb;
    rg->nv = nv;
    rg->bk = malloc((nb ? nb : 1) * sizeof *rg->bk);
    rg->masks = malloc((nb ? nb : 1) * sizeof *rg->masks);
    rg->attrs = malloc(nv ? (size_t)nv * b->attr_size : 1);
    return rg->bk && rg->masks && rg->attrs;
}

static void region_free(region *rg) {
    free(rg->bk);
    free(rg->masks);
    free(rg->attrs);
    rg->bk = rg->masks = NULL;
    rg->attrs = NULL;
}

/* Appends a region's attributes to the joined ones. The first room: a
 * list's voxel count (no region has more voxels than items), else the
 * generator's hint; then twice as much each time. Room never touched
 * costs no memory; a reallocation copies. */
static vxr_result join_append(build *b, region *rg) {
    if (rg->nv == 0) return VXR_OK;
    if (b->nv + rg->nv > UINT32_MAX) return VXR_ERROR_LIMIT;
    if (b->nv == 0 && b->joined == b->region_count) { /* the only one: no copy */
        b->attrs = rg->attrs;
        b->cap_v = b->nv = rg->nv;
        b->nb = rg->nb;
        rg->attrs = NULL;
        return VXR_OK;
    }
    if (b->nv + rg->nv > b->cap_v) {
        /* a model holds at most 2^32 - 1 voxels (checked above): no hint,
         * however large, asks for more room than that */
        uint64_t want = b->cap_v ? 2 * (uint64_t)b->cap_v : b->gen ? b->gen->voxels_hint : b->count;
        size_t cap = (size_t)(want < UINT32_MAX ? want : UINT32_MAX);
        if (cap < b->nv + rg->nv) cap = b->nv + rg->nv;
        if (cap < 1 << 12) cap = 1 << 12;
        if (cap > SIZE_MAX / b->attr_size) return VXR_ERROR_MEMORY;
        uint8_t *attrs = realloc(b->attrs, cap * b->attr_size);
        if (!attrs) return VXR_ERROR_MEMORY;
        b->attrs = attrs;
        b->cap_v = cap;
    }
    memcpy(b->attrs + b->nv * b->attr_size, rg->attrs, (size_t)rg->nv * b->attr_size);
    b->nb += rg->nb;
    b->nv += rg->nv;
    free(rg->attrs);
    rg->attrs = NULL;
    return VXR_OK;
}

/* Region i is done: joins every done region that now follows the joined
 * ones. */
static void region_done(build *b, size_t i) {
    pthread_mutex_lock(&b->lock);
    b->regions[i].done = true;
    while (b->joined < b->region_count && b->regions[b->joined].done) {
        region *rg = &b->regions[b->joined++];
        if (!b->failed && rg->r == VXR_OK) rg->r = join_append(b, rg);
        b->failed |= rg->r != VXR_OK;
        if (b->failed) region_free(rg);
    }
    pthread_mutex_unlock(&b->lock);
}

/* Item i of a region: items are 64-bit, or 32-bit when narrow (a list's
 * palette indices under keys of at most 24 bits: half the bytes to move). */
static inline __attribute__((always_inline)) uint64_t item_at(const void *items, bool narrow,
                                                              size_t i) {
    return narrow ? ((const uint32_t *)items)[i] : ((const uint64_t *)items)[i];
}

/* The colour pass of a dense region for palette indices under the key:
 * each voxel's index lands at its brick's first slot plus the voxels
 * before it in the brick. A popcount a voxel: the POPCNT instruction
 * where the CPU has it (the baseline x86-64 target does not, and the
 * compiler's fallback is a call), else vxr_popcount64. */
static inline __attribute__((always_inline)) void place_indices_with(const void *items, bool narrow,
                                                                     size_t n, const uint64_t *bits,
                                                                     const uint32_t *slot,
                                                                     uint8_t *attrs, bool hw) {
    for (size_t i = 0; i < n; i++) {
        uint64_t it = item_at(items, narrow, i), k = it >> 8;
        uint64_t m = bits[k >> 6] & ((1ull << (k & 63)) - 1);
        int below = hw ? __builtin_popcountll(m) : vxr_popcount64(m);
        attrs[slot[k >> 6] + (uint32_t)below] = (uint8_t)it;
    }
}

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("popcnt"))) static void place_indices_popcnt(const void *items, bool narrow,
                                                                   size_t n, const uint64_t *bits,
                                                                   const uint32_t *slot,
                                                                   uint8_t *attrs) {
    if (narrow)
        place_indices_with(items, true, n, bits, slot, attrs, true);
    else
        place_indices_with(items, false, n, bits, slot, attrs, true);
}
#endif

#if defined(__x86_64__) || defined(__i386__)
static bool have_popcnt; /* set once, by spread_init */
#endif

static void place_indices(const void *items, bool narrow, size_t n, const uint64_t *bits,
                          const uint32_t *slot, uint8_t *attrs) {
#if defined(__x86_64__) || defined(__i386__)
    if (have_popcnt) {
        place_indices_popcnt(items, narrow, n, bits, slot, attrs);
        return;
    }
#endif
    if (narrow)
        place_indices_with(items, true, n, bits, slot, attrs, false);
    else
        place_indices_with(items, false, n, bits, slot, attrs, false);
}

/* Sets the occupancy bit of every item. Neighbours in a list mostly share
 * a brick, so the bits of a run of one brick gather in a local: OR-ing
 * each into memory would chain every item through a store and a load. */
static inline __attribute__((always_inline)) void
set_bits_with(uint64_t *bits, const void *items, bool narrow, size_t n, uint32_t shift) {
    uint64_t word = item_at(items, narrow, 0) >> (shift + 6), run = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = item_at(items, narrow, i) >> shift;
        if (k >> 6 != word) {
            bits[word] |= run;
            word = k >> 6;
            run = 0;
        }
        run |= 1ull << (k & 63);
    }
    bits[word] |= run;
}

static void set_bits(uint64_t *bits, const void *items, bool narrow, size_t n, uint32_t shift) {
    if (narrow)
        set_bits_with(bits, items, true, n, shift);
    else
        set_bits_with(bits, items, false, n, shift);
}

/* Dense region: an occupancy bitmap whose 64-bit words are exactly the
 * bricks in Morton order, so no sort is needed; colours land by popcount,
 * in item order, so the last duplicate wins. */
static vxr_result region_dense(const build *b, region *rg, const void *items, bool narrow,
                               const uint32_t *pay, size_t n, scratch *sc) {
    const uint32_t shift = b->shift;
    const size_t words = (size_t)1 << (3 * b->S - 6);
    if (!reserve_bitmap(sc, words)) return VXR_ERROR_MEMORY;
    uint64_t *bits = sc->bits;
    uint32_t *slot = sc->slot;
    memset(bits, 0, words * sizeof *bits);
    set_bits(bits, items, narrow, n, shift);
    uint32_t nb = 0, nv = 0;
    for (size_t i = 0; i < words; i++) {
        if (!bits[i]) continue;
        slot[i] = nv;
        sc->words[nb++] = (uint32_t)i;
        nv += (uint32_t)vxr_popcount64(bits[i]);
    }
    if (!region_alloc(b, rg, nb, nv)) return VXR_ERROR_MEMORY;
    const uint64_t prefix = rg->key << (3 * (b->S - 2));
    for (uint32_t j = 0; j < nb; j++) {
        rg->bk[j] = prefix | sc->words[j];
        rg->masks[j] = bits[sc->words[j]];
    }
    /* Locals, and a loop of its own for palette indices under the key
     * (always so in a bitmap region): the byte stores alias everything. */
    uint8_t *const attrs = rg->attrs;
    const uint32_t attr_size = b->attr_size;
    const uint64_t cmask = b->cmask;
    if (attr_size == 1 && shift == 8) {
        place_indices(items, narrow, n, bits, slot, attrs);
        return VXR_OK;
    }
    const uint64_t *wide = items; /* narrow items are palette indices */
    for (size_t i = 0; i < n; i++) {
        uint64_t k = wide[i] >> shift, m = bits[k >> 6];
        uint32_t at = slot[k >> 6] + (uint32_t)vxr_popcount64(m & ((1ull << (k & 63)) - 1));
        put_attr(attrs, attr_size, at, pay ? pay[i] : (uint32_t)(wide[i] & cmask));
    }
    return VXR_OK;
}

/* Sparse region: items sorted by key (stably, so of equal keys the last
 * one wins), then one pass. Narrow items are widened first. */
static vxr_result region_sorted(const build *b, region *rg, void *items, bool narrow, uint32_t *pay,
                                size_t n, scratch *sc) {
    const uint32_t shift = b->shift;
    uint64_t *wide = items;
    if (narrow) {
        if (!reserve(&sc->items, NULL, &sc->item_cap, n)) return VXR_ERROR_MEMORY;
        for (size_t i = 0; i < n; i++) sc->items[i] = ((const uint32_t *)items)[i];
        wide = sc->items;
    }
    if (!reserve(&sc->tv, pay ? &sc->tpay : NULL, &sc->sort_cap, n)) return VXR_ERROR_MEMORY;
    uint32_t *spay;
    const uint64_t *v = radix_sort(wide, pay, sc->tv, sc->tpay, n, shift, shift + 3 * b->S, &spay);
    if (!v) return VXR_ERROR_MEMORY;
    uint32_t nb = 0, nv = 0;
    uint64_t last = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = v[i] >> shift;
        if (i + 1 < n && (v[i + 1] >> shift) == k) continue; /* a later duplicate wins */
        nb += nv == 0 || last != k >> 6;
        last = k >> 6;
        nv++;
    }
    if (!region_alloc(b, rg, nb, nv)) return VXR_ERROR_MEMORY;
    const uint64_t prefix = rg->key << (3 * (b->S - 2));
    uint32_t brick = 0, attr = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = v[i] >> shift;
        if (i + 1 < n && (v[i + 1] >> shift) == k) continue;
        if (attr == 0 || rg->bk[brick - 1] != (prefix | k >> 6)) {
            rg->bk[brick] = prefix | k >> 6;
            rg->masks[brick++] = 0;
        }
        rg->masks[brick - 1] |= 1ull << (k & 63);
        put_attr(rg->attrs, b->attr_size, attr++, spay ? spay[i] : (uint32_t)(v[i] & b->cmask));
    }
    return VXR_OK;
}

/* Builds one region from its items (keys within the region's cube). */
static vxr_result region_build(const build *b, region *rg, void *items, bool narrow, uint32_t *pay,
                               size_t n, scratch *sc) {
    if (n == 0) return VXR_OK;
    if (b->S <= DENSE_MAX_LEVEL &&
        ((size_t)1 << (3 * b->S - 6)) <= DENSE_WORDS_PER_ITEM * n + DENSE_SLACK_WORDS)
        return region_dense(b, rg, items, narrow, pay, n, sc);
    return region_sorted(b, rg, items, narrow, pay, n, sc);
}

static uint64_t morton3(uint32_t x, uint32_t y, uint32_t z) {
    return vxr_spread3(x) << 2 | vxr_spread3(y) << 1 | vxr_spread3(z);
}

/* Morton keys of small values by table lookup: spread_table[v] is
 * vxr_spread3(v) for v < 2^SPREAD_BITS. */
enum { SPREAD_BITS = 10 };
static uint32_t spread_table[1 << SPREAD_BITS];
static pthread_once_t spread_once = PTHREAD_ONCE_INIT;

static void spread_init(void) {
    for (uint32_t v = 0; v < 1u << SPREAD_BITS; v++) spread_table[v] = (uint32_t)vxr_spread3(v);
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    have_popcnt = __builtin_cpu_supports("popcnt");
#endif
}

/* morton3 of values below 2^SPREAD_BITS. */
static uint64_t morton3_small(uint32_t x, uint32_t y, uint32_t z) {
    return (uint64_t)spread_table[x] << 2 | (uint64_t)spread_table[y] << 1 | spread_table[z];
}

/* The bounds of n voxels (lanes x, y, z) and of their colours less
 * one, unsigned, as (colour - 1) ^ 2^31 in lane 3 (signed order). With
 * AVX2, two voxels a vector (GCC's own vector code for the loop below
 * shuffled every lane and spilled: 14% of a Minecraft region's build);
 * elsewhere in the form the compiler turns into vector code. */
#ifdef __AVX2__
_Static_assert(sizeof(vxr_voxel) == 16, "voxel_span loads voxels as four 32-bit lanes");
static void voxel_span(const vxr_voxel *v, size_t n, int32_t lo[4], int32_t hi[4]) {
    const __m256i add = _mm256_setr_epi32(0, 0, 0, -1, 0, 0, 0, -1);
    const __m256i flip = _mm256_setr_epi32(0, 0, 0, INT32_MIN, 0, 0, 0, INT32_MIN);
    __m256i l0 = _mm256_set1_epi32(INT32_MAX), h0 = _mm256_set1_epi32(INT32_MIN);
    __m256i l1 = l0, h1 = h0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(v + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(v + i + 2));
        a = _mm256_xor_si256(_mm256_add_epi32(a, add), flip);
        b = _mm256_xor_si256(_mm256_add_epi32(b, add), flip);
        l0 = _mm256_min_epi32(l0, a);
        h0 = _mm256_max_epi32(h0, a);
        l1 = _mm256_min_epi32(l1, b);
        h1 = _mm256_max_epi32(h1, b);
    }
    l0 = _mm256_min_epi32(l0, l1);
    h0 = _mm256_max_epi32(h0, h1);
    __m128i l = _mm_min_epi32(_mm256_castsi256_si128(l0), _mm256_extracti128_si256(l0, 1));
    __m128i h = _mm_max_epi32(_mm256_castsi256_si128(h0), _mm256_extracti128_si256(h0, 1));
    for (; i < n; i++) {
        __m128i p = _mm_loadu_si128((const __m128i *)(const void *)(v + i));
        p = _mm_xor_si128(_mm_add_epi32(p, _mm256_castsi256_si128(add)),
                          _mm256_castsi256_si128(flip));
        l = _mm_min_epi32(l, p);
        h = _mm_max_epi32(h, p);
    }
    _mm_storeu_si128((__m128i *)(void *)lo, l);
    _mm_storeu_si128((__m128i *)(void *)hi, h);
}
#else
static void voxel_span(const vxr_voxel *v, size_t n, int32_t lo[4], int32_t hi[4]) {
    int32_t l[4] = {INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX};
    int32_t h[4] = {INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN};
    for (size_t i = 0; i < n; i++) {
        const int32_t p[4] = {v[i].x, v[i].y, v[i].z, (int32_t)((v[i].color - 1u) ^ 0x80000000u)};
        for (int k = 0; k < 4; k++) {
            l[k] = p[k] < l[k] ? p[k] : l[k];
            h[k] = p[k] > h[k] ? p[k] : h[k];
        }
    }
    memcpy(lo, l, sizeof l);
    memcpy(hi, h, sizeof h);
}
#endif

/* The key of a cell in its region (coordinates below 2^S). */
static uint64_t region_key(const build *b, uint32_t x, uint32_t y, uint32_t z) {
    return b->S <= SPREAD_BITS ? morton3_small(x, y, z) : morton3(x, y, z);
}

/* A generator's region: its voxels, checked against the box and the
 * palette, become items. */
static vxr_result region_generate(const build *b, region *rg, scratch *sc) {
    vxr_model_src *out = &sc->voxels;
    out->count = 0;
    vxr_result r = b->gen->emit(b->gen->user, rg->lo, rg->hi, out);
    if (r != VXR_OK) return r;
    const vxr_voxel *v = out->voxels;
    const size_t n = out->count;
    if (n == 0) return VXR_OK;
    if (!reserve(&sc->items, b->shift ? NULL : &sc->pay, &sc->item_cap, n)) return VXR_ERROR_MEMORY;
    int32_t lo[4], hi[4];
    voxel_span(v, n, lo, hi);
    bool bad = b->attr_size == 1 && hi[3] > INT32_MIN + 254;
    for (int k = 0; k < 3; k++) bad |= lo[k] < rg->lo[k] || hi[k] >= rg->hi[k];
    if (bad) { /* the first culprit, for the message */
        for (size_t i = 0; !rg->has_bad; i++) {
            const int32_t c[3] = {v[i].x, v[i].y, v[i].z};
            rg->has_bad = b->attr_size == 1 && (v[i].color == 0 || v[i].color > 255);
            for (int k = 0; k < 3; k++) rg->has_bad |= c[k] < rg->lo[k] || c[k] >= rg->hi[k];
            rg->bad = v[i];
        }
        return VXR_ERROR_ARGUMENT;
    }
    for (int k = 0; k < 3; k++) {
        rg->vmin[k] = lo[k];
        rg->vmax[k] = hi[k] + 1;
    }
    const uint32_t ax = (uint32_t)rg->at[0], ay = (uint32_t)rg->at[1], az = (uint32_t)rg->at[2];
    const uint32_t shift = b->shift;
    uint64_t *items = sc->items;
    if (shift && b->S <= SPREAD_BITS) { /* the common case, in a loop of its own */
        for (size_t i = 0; i < n; i++)
            items[i] =
                morton3_small((uint32_t)v[i].x - ax, (uint32_t)v[i].y - ay, (uint32_t)v[i].z - az)
                    << shift |
                v[i].color;
    } else {
        for (size_t i = 0; i < n; i++) {
            uint64_t key =
                region_key(b, (uint32_t)v[i].x - ax, (uint32_t)v[i].y - ay, (uint32_t)v[i].z - az);
            if (shift) {
                items[i] = key << shift | v[i].color;
            } else {
                items[i] = key;
                sc->pay[i] = v[i].color;
            }
        }
    }
    return region_build(b, rg, items, false, shift ? NULL : sc->pay, n, sc);
}

static void regions_range(void *user, size_t begin, size_t end) {
    build *b = user;
    /* No more ranges run at once than there are threads, so one of their
     * buffers is free. */
    scratch *sc = b->scratch;
    while (atomic_flag_test_and_set(&sc->busy))
        sc = sc + 1 < b->scratch + b->threads ? sc + 1 : b->scratch;
    for (size_t i = begin; i < end; i++) {
        region *rg = &b->regions[i];
        if (b->gen)
            rg->r = region_generate(b, rg, sc);
        else
            rg->r = b->items32
                        ? region_build(b, rg, b->items32 + rg->begin, true, NULL,
                                       rg->end - rg->begin, sc)
                        : region_build(b, rg, b->items + rg->begin, false,
                                       b->pay ? b->pay + rg->begin : NULL, rg->end - rg->begin, sc);
        region_done(b, i);
    }
    atomic_flag_clear(&sc->busy);
}

/* Builds every region on the build's threads (each region's result in its
 * r). Small ranges keep the threads near each other in Morton order, so
 * that regions are joined (and their buffers reused) soon after they are
 * built, and busy to the end when regions differ in cost. */
static vxr_result build_regions(build *b) {
    b->scratch = malloc(b->threads * sizeof *b->scratch);
    if (!b->scratch || pthread_mutex_init(&b->lock, NULL) != 0) {
        free(b->scratch);
        b->scratch = NULL;
        return VXR_ERROR_MEMORY;
    }
    for (uint32_t i = 0; i < b->threads; i++) {
        memset(&b->scratch[i], 0, sizeof b->scratch[i]);
        atomic_flag_clear(&b->scratch[i].busy);
    }
    size_t chunk = b->region_count / ((size_t)b->threads * 256);
    vxr_parallel_for(b->region_count, chunk ? chunk : 1, b->threads, regions_range, b);
    for (uint32_t i = 0; i < b->threads; i++) scratch_free(&b->scratch[i]);
    free(b->scratch);
    b->scratch = NULL;
    pthread_mutex_destroy(&b->lock);
    return VXR_OK;
}

static void free_regions(build *b) {
    for (size_t i = 0; b->regions && i < b->region_count; i++) region_free(&b->regions[i]);
    free(b->regions);
    free(b->attrs);
    b->regions = NULL;
    b->attrs = NULL;
}

/* The octree of the joined regions: the interior levels over all their
 * bricks, then the bricks, their attribute bases and the attributes. */
static vxr_result join_regions(build *b) {
    vxr_octree *t = b->t;
    t->voxel_count = (uint32_t)b->nv;
    if (b->nb == 0) return VXR_OK;
    vxr_result r = emit_interior(b->regions, b->region_count, b->nb, t);
    if (r != VXR_OK) return r;
    t->brick_attr = malloc(b->nb * sizeof *t->brick_attr);
    if (!t->brick_attr) return VXR_ERROR_MEMORY;
    vxr_node *bricks = t->nodes + (t->node_count - b->nb);
    uint32_t attr = 0;
    for (size_t q = 0, i = 0; q < b->region_count; q++) {
        region *rg = &b->regions[q];
        for (uint32_t j = 0; j < rg->nb; j++, i++) {
            bricks[i].a = (uint32_t)rg->masks[j];
            bricks[i].b = (uint32_t)(rg->masks[j] >> 32);
            t->brick_attr[i] = attr;
            attr += (uint32_t)vxr_popcount64(rg->masks[j]);
        }
        region_free(rg);
    }
    t->attrs = realloc(b->attrs, b->nv * t->attr_size); /* gives back the spare room */
    if (!t->attrs) t->attrs = b->attrs;
    b->attrs = NULL;
    return VXR_OK;
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

/* The seed's initial depth (vxr_octree_prepare) from tight bounds: the
 * largest abs_svo of any coordinate is that of a bound. */
static uint32_t initial_depth(const int32_t vmin[3], const int32_t vmax[3]) {
    uint32_t any = 0;
    for (int k = 0; k < 3; k++) any |= vxr_abs_svo(vmin[k]) | vxr_abs_svo(vmax[k] - 1);
    uint32_t bits = vxr_bitlen64(any);
    return (bits < 1 ? 1 : bits) + 1;
}

/* Colours go under the key when both fit in 64 bits, which halves the
 * bytes the sorts and scatters move. */
static void set_packing(build *b) {
    uint32_t color_bits = b->attr_size == 1 ? 8 : 32;
    b->shift = 3 * b->S + color_bits <= 64 ? color_bits : 0;
    b->cmask = b->shift ? (1ull << b->shift) - 1 : 0;
}

/* ---------------------------------------------------------------- lists */

static size_t chunk_end(const build *b, size_t c) {
    size_t e = (c + 1) * b->chunk_len;
    return e < b->count ? e : b->count;
}

/* Ranges for a list pass: of at least CHUNK_VOXELS, a few a thread, and
 * (for the bucketing passes, `buckets` counters a range) with at most
 * about 2 bytes of histogram a voxel. */
static void set_chunks(build *b, size_t buckets) {
    size_t chunks = (b->count + CHUNK_VOXELS - 1) / CHUNK_VOXELS, most = (size_t)b->threads * 4;
    if (chunks > most) chunks = most;
    if (buckets && chunks > b->count / (2 * buckets)) chunks = b->count / (2 * buckets);
    b->chunks = (uint32_t)(chunks ? chunks : 1);
    b->chunk_len = (b->count + b->chunks - 1) / b->chunks;
}

/* Bounds and colour range of each range of voxels. */
static void bounds_range(void *user, size_t begin, size_t end) {
    const build *b = user;
    for (size_t c = begin; c < end; c++) {
        size_t first = c * b->chunk_len, last = chunk_end(b, c);
        voxel_span(b->voxels + first, last > first ? last - first : 0, b->span[c], b->span[c] + 4);
    }
}

static void put_item(const build *b, size_t at, uint64_t key, uint32_t color) {
    if (b->items32) {
        b->items32[at] = (uint32_t)(key << 8 | color);
    } else if (b->shift) {
        b->items[at] = key << b->shift | color;
    } else {
        b->items[at] = key;
        b->pay[at] = color;
    }
}

/* One region: items straight from the list. */
static void items_range(void *user, size_t begin, size_t end) {
    const build *b = user;
    const uint32_t ox = (uint32_t)b->t->origin[0], oy = (uint32_t)b->t->origin[1],
                   oz = (uint32_t)b->t->origin[2];
    const vxr_voxel *v = b->voxels;
    uint32_t *items32 = b->items32;
    for (size_t c = begin; c < end; c++) {
        size_t i = c * b->chunk_len, e = chunk_end(b, c);
        if (items32) /* the usual case, in a loop of its own */
            for (; i < e; i++)
                items32[i] = (uint32_t)(morton3_small((uint32_t)v[i].x - ox, (uint32_t)v[i].y - oy,
                                                      (uint32_t)v[i].z - oz)
                                            << 8 |
                                        v[i].color);
        for (; i < e; i++)
            put_item(
                b, i,
                region_key(b, (uint32_t)v[i].x - ox, (uint32_t)v[i].y - oy, (uint32_t)v[i].z - oz),
                v[i].color);
    }
}

/* Neighbours in a list mostly share a region, so both passes below keep
 * the current region's counter in a local: a counter in memory would chain
 * every voxel's increment through a store and a load. */
static void histogram_range(void *user, size_t begin, size_t end) {
    const build *b = user;
    const uint32_t S = b->S;
    const uint32_t ox = (uint32_t)b->t->origin[0], oy = (uint32_t)b->t->origin[1],
                   oz = (uint32_t)b->t->origin[2];
    const vxr_voxel *v = b->voxels;
    for (size_t c = begin; c < end; c++) {
        uint32_t *h = b->hist + (c << (3 * b->digits));
        uint64_t last = 0;
        uint32_t run = 0;
        for (size_t i = c * b->chunk_len, e = chunk_end(b, c); i < e; i++) {
            uint64_t r = morton3_small(((uint32_t)v[i].x - ox) >> S, ((uint32_t)v[i].y - oy) >> S,
                                       ((uint32_t)v[i].z - oz) >> S);
            if (r != last) {
                h[last] += run;
                run = 0;
                last = r;
            }
            run++;
        }
        h[last] += run;
    }
}

/* scatter_range for roots of at most 2^SPREAD_BITS and colours under the
 * key: the region and the key in it are the two ends of one root key. */
static void scatter_small(const build *b, size_t begin, size_t end) {
    const uint32_t low = 3 * b->S, shift = b->shift;
    const uint64_t mask = (1ull << low) - 1;
    const uint32_t ox = (uint32_t)b->t->origin[0], oy = (uint32_t)b->t->origin[1],
                   oz = (uint32_t)b->t->origin[2];
    const vxr_voxel *v = b->voxels;
    uint64_t *items = b->items;
    uint32_t *items32 = b->items32;
    for (size_t c = begin; c < end; c++) {
        uint32_t *h = b->hist + (c << (3 * b->digits));
        uint64_t last = 0;
        uint32_t at = h[0];
        for (size_t i = c * b->chunk_len, e = chunk_end(b, c); i < e; i++) {
            uint64_t key =
                morton3_small((uint32_t)v[i].x - ox, (uint32_t)v[i].y - oy, (uint32_t)v[i].z - oz);
            if (key >> low != last) {
                h[last] = at;
                last = key >> low;
                at = h[last];
            }
            if (items32)
                items32[at++] = (uint32_t)((key & mask) << 8 | v[i].color);
            else
                items[at++] = (key & mask) << shift | v[i].color;
        }
        h[last] = at;
    }
}

/* The stable scatter: each range's histogram holds its first slot per
 * region. */
static void scatter_range(void *user, size_t begin, size_t end) {
    const build *b = user;
    const uint32_t S = b->S, m = (1u << S) - 1, shift = b->shift;
    const uint32_t ox = (uint32_t)b->t->origin[0], oy = (uint32_t)b->t->origin[1],
                   oz = (uint32_t)b->t->origin[2];
    const vxr_voxel *v = b->voxels;
    uint64_t *items = b->items;
    if (shift && b->t->depth <= SPREAD_BITS) { /* the usual case: one key, split */
        scatter_small(b, begin, end);
        return;
    }
    const bool fast = shift && S <= SPREAD_BITS;
    for (size_t c = begin; c < end; c++) {
        uint32_t *h = b->hist + (c << (3 * b->digits));
        uint64_t last = 0;
        uint32_t at = h[0];
        for (size_t i = c * b->chunk_len, e = chunk_end(b, c); i < e; i++) {
            const uint32_t x = (uint32_t)v[i].x - ox, y = (uint32_t)v[i].y - oy,
                           z = (uint32_t)v[i].z - oz;
            uint64_t r = morton3_small(x >> S, y >> S, z >> S);
            if (r != last) {
                h[last] = at;
                last = r;
                at = h[r];
            }
            if (fast && b->items32)
                b->items32[at++] = (uint32_t)(morton3_small(x & m, y & m, z & m) << 8 | v[i].color);
            else if (fast)
                items[at++] = morton3_small(x & m, y & m, z & m) << shift | v[i].color;
            else
                put_item(b, at++, region_key(b, x & m, y & m, z & m), v[i].color);
        }
        h[last] = at;
    }
}

static void list_passes(build *b, vxr_range_fn fn) {
    vxr_parallel_for(b->chunks, 1, b->threads, fn, b);
}

/* Bounds and checks, on the build's threads; a bad voxel is found again
 * by vxr_octree_prepare, for the message the incremental path gives. */
static vxr_result list_bounds(build *b, uint32_t *depth0, vxr_error *err) {
    vxr_octree *t = b->t;
    b->span = malloc(b->chunks * sizeof *b->span);
    if (!b->span) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    list_passes(b, bounds_range);
    int32_t lo[4] = {INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX};
    int32_t hi[4] = {INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN};
    for (uint32_t c = 0; c < b->chunks; c++)
        for (int k = 0; k < 4; k++) {
            lo[k] = b->span[c][k] < lo[k] ? b->span[c][k] : lo[k];
            hi[k] = b->span[c][4 + k] > hi[k] ? b->span[c][4 + k] : hi[k];
        }
    free(b->span);
    b->span = NULL;
    const int32_t limit = 1 << (VXR_MAX_DEPTH - 1);
    bool bad = b->attr_size == 1 && hi[3] > INT32_MIN + 254;
    for (int k = 0; k < 3; k++) bad |= lo[k] < -limit || hi[k] >= limit;
    if (bad) return vxr_octree_prepare(b->voxels, b->count, b->attr_size, t, depth0, err);
    for (int k = 0; k < 3; k++) {
        t->vmin[k] = lo[k];
        t->vmax[k] = hi[k] + 1;
    }
    *depth0 = initial_depth(t->vmin, t->vmax);
    return VXR_OK;
}

/* Regions for n voxels in a root of `depth`: one when the root is small
 * enough, else cubes of 2^REGION_LEVEL, coarser when that would make more
 * than 8^MAX_REGION_DIGITS regions or more than about one per 4 voxels. */
static uint32_t list_digits(uint32_t depth, size_t n) {
    if (depth <= REGION_LEVEL) return 0;
    uint32_t digits = depth - REGION_LEVEL, cap = 1;
    while (cap < MAX_REGION_DIGITS && ((size_t)8 << (3 * cap)) <= n / 4) cap++;
    return digits < cap ? digits : cap;
}

/* Whether a list takes the direct path: palette indices, a root of at most
 * 2^DIRECT_MAX_LEVEL, one thread (or one region: nothing to share), and at
 * least a voxel per 64 cells. */
static bool list_direct_fits(const build *b) {
    const uint32_t depth = b->t->depth;
    return b->attr_size == 1 && (b->threads == 1 || b->digits == 0) && depth <= DIRECT_MAX_LEVEL &&
           (b->count << 6) >= (size_t)1 << (3 * depth);
}

/* The direct path: one pass over the list sets each voxel's occupancy bit
 * and its cell of a colour grid (the bricks' colours, 64 bytes a brick in
 * Morton order; a list's neighbours mostly share a brick, so this stays in
 * cache), then a scan in Morton order gathers the colours of the set bits:
 * no buckets and no items. One region: the root. */
static vxr_result list_direct(build *b) {
    const size_t words = (size_t)1 << (3 * b->t->depth - 6);
    const uint32_t ox = (uint32_t)b->t->origin[0], oy = (uint32_t)b->t->origin[1],
                   oz = (uint32_t)b->t->origin[2];
    const vxr_voxel *v = b->voxels;
    b->regions = calloc(1, sizeof *b->regions);
    uint64_t *bits = calloc(words, sizeof *bits);
    uint8_t *grid = malloc(words * 64);
    vxr_result r = VXR_ERROR_MEMORY;
    if (!b->regions || !bits || !grid) goto done;
    b->region_count = 1;
    uint64_t word = 0, run = 0; /* as in set_bits */
    for (size_t i = 0; i < b->count; i++) {
        uint64_t k =
            morton3_small((uint32_t)v[i].x - ox, (uint32_t)v[i].y - oy, (uint32_t)v[i].z - oz);
        if (k >> 6 != word) {
            bits[word] |= run;
            word = k >> 6;
            run = 0;
        }
        run |= 1ull << (k & 63);
        grid[k] = (uint8_t)v[i].color;
    }
    bits[word] |= run;
    uint32_t nb = 0, nv = 0;
    for (size_t w = 0; w < words; w++) {
        nb += bits[w] != 0;
        nv += (uint32_t)vxr_popcount64(bits[w]);
    }
    region *rg = &b->regions[0];
    if (!region_alloc(b, rg, nb, nv)) goto done;
    for (size_t w = 0, j = 0, a = 0; w < words; w++) {
        uint64_t m = bits[w];
        if (!m) continue;
        rg->bk[j] = w;
        rg->masks[j++] = m;
        for (const uint8_t *g = grid + w * 64; m; m &= m - 1)
            rg->attrs[a++] = g[__builtin_ctzll(m)];
    }
    b->joined = 1;
    r = join_append(b, rg);
done:
    free(bits);
    free(grid);
    return r;
}

/* Buckets the voxels by region (digits > 0) or keys them as one region. */
static vxr_result list_regions(build *b) {
    const size_t n = b->count;
    if (b->attr_size == 1 && 3 * b->S + 8 <= 32)
        b->items32 = malloc(n * sizeof *b->items32);
    else
        b->items = malloc(n * sizeof *b->items);
    b->pay = b->shift ? NULL : malloc(n * sizeof *b->pay);
    if ((!b->items && !b->items32) || (!b->shift && !b->pay)) return VXR_ERROR_MEMORY;
    if (b->digits == 0) {
        b->regions = calloc(1, sizeof *b->regions);
        if (!b->regions) return VXR_ERROR_MEMORY;
        b->region_count = 1;
        b->regions[0].end = n;
        list_passes(b, items_range);
        return VXR_OK;
    }
    const size_t buckets = (size_t)1 << (3 * b->digits);
    set_chunks(b, buckets);
    b->hist = calloc(b->chunks * buckets, sizeof *b->hist);
    if (!b->hist) return VXR_ERROR_MEMORY;
    list_passes(b, histogram_range);
    size_t used = 0, sum = 0;
    for (size_t r = 0; r < buckets; r++) {
        size_t total = 0;
        for (uint32_t c = 0; c < b->chunks; c++) total += b->hist[c * buckets + r];
        used += total > 0;
    }
    b->regions = calloc(used ? used : 1, sizeof *b->regions);
    if (!b->regions) return VXR_ERROR_MEMORY;
    for (size_t r = 0; r < buckets; r++) {
        size_t first = sum;
        for (uint32_t c = 0; c < b->chunks; c++) {
            uint32_t k = b->hist[c * buckets + r];
            b->hist[c * buckets + r] = (uint32_t)sum;
            sum += k;
        }
        if (sum == first) continue;
        region *rg = &b->regions[b->region_count++];
        rg->key = r;
        rg->begin = first;
        rg->end = sum;
    }
    list_passes(b, scatter_range);
    return VXR_OK;
}

static vxr_result build_failed(vxr_octree *t, vxr_result r, size_t count, vxr_error *err) {
    vxr_octree_free(t);
    return vxr_fail(err, r,
                    r == VXR_ERROR_MEMORY ? "out of memory building an octree of %zu voxels"
                                          : "octree of %zu voxels exceeds 2^32 nodes",
                    count);
}

static vxr_result build_list(const vxr_voxel *voxels, size_t count, uint32_t attr_size,
                             uint32_t threads, vxr_octree *dest, vxr_error *err) {
    if ((attr_size != 1 && attr_size != 4) || count == 0 || count > UINT32_MAX) {
        uint32_t depth0;
        return vxr_octree_prepare(voxels, count, attr_size, dest, &depth0, err);
    }
    pthread_once(&spread_once, spread_init);
    memset(dest, 0, sizeof *dest);
    dest->attr_size = attr_size;
    build b = {.t = dest, .threads = vxr_build_threads(threads), .attr_size = attr_size};
    b.voxels = voxels;
    b.count = count;
    set_chunks(&b, 0);
    uint32_t depth0;
    vxr_result r = list_bounds(&b, &depth0, err);
    if (r != VXR_OK) return r;
    trimmed_root(dest, depth0);
    b.digits = list_digits(dest->depth, count);
    b.S = dest->depth - b.digits;
    set_packing(&b);
    if (list_direct_fits(&b)) {
        r = list_direct(&b);
    } else {
        r = list_regions(&b);
        if (r == VXR_OK) r = build_regions(&b);
    }
    free(b.hist);
    for (size_t i = 0; i < b.region_count && r == VXR_OK; i++) r = b.regions[i].r;
    free(b.items);
    free(b.items32);
    free(b.pay);
    b.items = NULL;
    b.items32 = NULL;
    b.pay = NULL;
    if (r == VXR_OK) r = join_regions(&b);
    free_regions(&b);
    return r == VXR_OK ? VXR_OK : build_failed(dest, r, count, err);
}

/* ----------------------------------------------------------- generators */

static int cmp_region(const void *a, const void *b) {
    uint64_t x = ((const region *)a)->key, y = ((const region *)b)->key;
    return x < y ? -1 : x > y;
}

/* Every region cube the generator's bounds touch, in Morton order. */
static vxr_result gen_regions(build *b) {
    const vxr_octree *t = b->t;
    const uint32_t S = b->S;
    uint32_t rlo[3], n[3];
    size_t total = 1;
    for (int k = 0; k < 3; k++) {
        rlo[k] = (uint32_t)(t->vmin[k] - t->origin[k]) >> S;
        n[k] = ((uint32_t)(t->vmax[k] - 1 - t->origin[k]) >> S) - rlo[k] + 1;
        total *= n[k];
    }
    b->regions = calloc(total, sizeof *b->regions);
    if (!b->regions) return VXR_ERROR_MEMORY;
    for (uint32_t x = 0; x < n[0]; x++)
        for (uint32_t y = 0; y < n[1]; y++)
            for (uint32_t z = 0; z < n[2]; z++) {
                region *rg = &b->regions[b->region_count++];
                const uint32_t c[3] = {rlo[0] + x, rlo[1] + y, rlo[2] + z};
                rg->key = morton3(c[0], c[1], c[2]);
                for (int k = 0; k < 3; k++) {
                    rg->at[k] = t->origin[k] + (int32_t)(c[k] << S);
                    int32_t end = rg->at[k] + (1 << S);
                    rg->lo[k] = rg->at[k] > t->vmin[k] ? rg->at[k] : t->vmin[k];
                    rg->hi[k] = end < t->vmax[k] ? end : t->vmax[k];
                }
            }
    qsort(b->regions, b->region_count, sizeof *b->regions, cmp_region);
    return VXR_OK;
}

static vxr_result build_gen(const vxr_model_gen *g, uint32_t attr_size, uint32_t threads,
                            vxr_octree *dest, vxr_error *err) {
    memset(dest, 0, sizeof *dest);
    dest->attr_size = attr_size;
    if (attr_size != 1 && attr_size != 4)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "attribute size %u (expected 1 or 4)", attr_size);
    const int32_t limit = 1 << (VXR_MAX_DEPTH - 1);
    bool empty = false, beyond = false;
    for (int k = 0; k < 3; k++) {
        empty |= g->vmin[k] >= g->vmax[k];
        beyond |= g->vmin[k] < -limit || g->vmax[k] > limit;
    }
    if (empty) return VXR_OK;
    if (beyond)
        return vxr_fail(err, VXR_ERROR_LIMIT,
                        "generator bounds [%d,%d,%d]..[%d,%d,%d] go beyond the octree limit of "
                        "+-2^%u",
                        g->vmin[0], g->vmin[1], g->vmin[2], g->vmax[0], g->vmax[1], g->vmax[2],
                        VXR_MAX_DEPTH - 1);
    pthread_once(&spread_once, spread_init);
    memcpy(dest->vmin, g->vmin, sizeof dest->vmin);
    memcpy(dest->vmax, g->vmax, sizeof dest->vmax);
    trimmed_root(dest, initial_depth(dest->vmin, dest->vmax));
    build b = {.t = dest, .threads = vxr_build_threads(threads), .attr_size = attr_size, .gen = g};
    uint32_t digits = dest->depth <= REGION_LEVEL ? 0 : dest->depth - REGION_LEVEL;
    b.S = dest->depth - (digits < MAX_REGION_DIGITS ? digits : MAX_REGION_DIGITS);
    set_packing(&b);
    vxr_result r = gen_regions(&b);
    if (r == VXR_OK) r = build_regions(&b);
    /* The first failing region in Morton order says why. */
    int32_t lo[3] = {INT32_MAX, INT32_MAX, INT32_MAX}, hi[3] = {INT32_MIN, INT32_MIN, INT32_MIN};
    bool said = false; /* a region's failure named its box */
    for (size_t i = 0; r == VXR_OK && i < b.region_count; i++) {
        const region *rg = &b.regions[i];
        r = rg->r;
        if (rg->has_bad) {
            const vxr_voxel *v = &rg->bad;
            said = true;
            vxr_fail(err, r,
                     "generator gave voxel (%d,%d,%d) of colour %u for box [%d,%d,%d]..[%d,%d,%d]",
                     v->x, v->y, v->z, v->color, rg->lo[0], rg->lo[1], rg->lo[2], rg->hi[0],
                     rg->hi[1], rg->hi[2]);
        } else if (r != VXR_OK && r != VXR_ERROR_MEMORY) {
            said = true;
            vxr_fail(err, r, "generator failed on box [%d,%d,%d]..[%d,%d,%d]", rg->lo[0], rg->lo[1],
                     rg->lo[2], rg->hi[0], rg->hi[1], rg->hi[2]);
        }
        for (int k = 0; rg->nv && k < 3; k++) {
            lo[k] = rg->vmin[k] < lo[k] ? rg->vmin[k] : lo[k];
            hi[k] = rg->vmax[k] > hi[k] ? rg->vmax[k] : hi[k];
        }
    }
    if (r == VXR_OK && (memcmp(lo, dest->vmin, sizeof lo) || memcmp(hi, dest->vmax, sizeof hi)))
        r = vxr_fail(err, VXR_ERROR_ARGUMENT,
                     "generator voxels span [%d,%d,%d]..[%d,%d,%d], not its bounds "
                     "[%d,%d,%d]..[%d,%d,%d]",
                     lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], dest->vmin[0], dest->vmin[1],
                     dest->vmin[2], dest->vmax[0], dest->vmax[1], dest->vmax[2]);
    else if (r == VXR_OK)
        r = join_regions(&b);
    free_regions(&b);
    if (r == VXR_ERROR_MEMORY && !said)
        vxr_fail(err, r, "out of memory building a generated octree");
    else if (r == VXR_ERROR_LIMIT && !said)
        vxr_fail(err, r, "generated octree of over 2^32 voxels or nodes");
    if (r != VXR_OK) vxr_octree_free(dest);
    return r;
}

/* ------------------------------------------------------------------ API */

#ifdef VXR_SVO_V3
/* This file again, compiled for x86-64-v3 (svo_build_v3.c): the entries
 * the baseline build calls on CPUs that have it. */
vxr_result vxr_svo_build_list_v3(const vxr_voxel *voxels, size_t count, uint32_t attr_size,
                                 uint32_t threads, vxr_octree *dest, vxr_error *err) {
    return build_list(voxels, count, attr_size, threads, dest, err);
}

vxr_result vxr_svo_build_gen_v3(const vxr_model_gen *g, uint32_t attr_size, uint32_t threads,
                                vxr_octree *dest, vxr_error *err) {
    return build_gen(g, attr_size, threads, dest, err);
}
#else
#ifdef VXR_HAVE_SVO_V3
/* Whether the x86-64-v3 build runs: the CPU (and the OS, for AVX state)
 * has every feature of that level, and VXR_CPU is not "baseline". */
static bool v3;
static pthread_once_t v3_once = PTHREAD_ONCE_INIT;

static void v3_init(void) {
    const char *env = getenv("VXR_CPU");
    __builtin_cpu_init();
    v3 = __builtin_cpu_supports("x86-64-v3") && !(env && !strcmp(env, "baseline"));
}

static bool use_v3(void) {
    pthread_once(&v3_once, v3_init);
    return v3;
}
#else
static bool use_v3(void) {
    return false;
}
#endif

const char *vxr_build_isa(void) {
    return use_v3() ? "x86-64-v3" : "baseline";
}

vxr_result vxr_octree_build(const vxr_voxel *voxels, size_t count, uint32_t attr_size,
                            vxr_octree *dest, vxr_error *err) {
#ifdef VXR_HAVE_SVO_V3
    if (use_v3()) return vxr_svo_build_list_v3(voxels, count, attr_size, 1, dest, err);
#endif
    return build_list(voxels, count, attr_size, 1, dest, err);
}

vxr_result vxr_model_build(const vxr_model_src *model, uint32_t attr_size, uint32_t threads,
                           vxr_octree *dest, vxr_error *err) {
#ifdef VXR_HAVE_SVO_V3
    if (use_v3())
        return model->gen ? vxr_svo_build_gen_v3(model->gen, attr_size, threads, dest, err)
                          : vxr_svo_build_list_v3(model->voxels, model->count, attr_size, threads,
                                                  dest, err);
#endif
    if (model->gen) return build_gen(model->gen, attr_size, threads, dest, err);
    return build_list(model->voxels, model->count, attr_size, threads, dest, err);
}
#endif
