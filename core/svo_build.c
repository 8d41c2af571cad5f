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

/* One translation unit in parts, each a concern: */
#include "svo_sort.inc"
#include "svo_region.inc"
#include "svo_list.inc"

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
vxr_result vxr_svo_build_list_v3(const vxr_voxel *voxels, size_t count, const int32_t *box_min,
                                 const int32_t *box_max, uint32_t attr_size, uint32_t threads,
                                 vxr_octree *dest, vxr_error *err) {
    return build_list(voxels, count, box_min, box_max, attr_size, threads, dest, err);
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
    if (use_v3()) return vxr_svo_build_list_v3(voxels, count, NULL, NULL, attr_size, 1, dest, err);
#endif
    return build_list(voxels, count, NULL, NULL, attr_size, 1, dest, err);
}

vxr_result vxr_model_build(const vxr_model_src *model, uint32_t attr_size, uint32_t threads,
                           vxr_octree *dest, vxr_error *err) {
#ifdef VXR_HAVE_SVO_V3
    if (use_v3())
        return model->gen ? vxr_svo_build_gen_v3(model->gen, attr_size, threads, dest, err)
                          : vxr_svo_build_list_v3(model->voxels, model->count, model->box_min,
                                                  model->box_max, attr_size, threads, dest, err);
#endif
    if (model->gen) return build_gen(model->gen, attr_size, threads, dest, err);
    return build_list(model->voxels, model->count, model->box_min, model->box_max, attr_size,
                      threads, dest, err);
}
#endif
