/* Octree construction: the seed's facts (with its errata corrected), both
 * builders against a brute-force oracle and against each other, the bulk
 * build on any number of threads and from generators against one thread
 * and lists, validation of corrupted layouts, and the GPU blob's fields. */
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include "vxr/blob.h"
#include "vxr/formats.h"
#include "vxr_test.h"

VXR_TEST_RNG(0x9e3779b97f4a7c15ull)
static int32_t rnd_range(int32_t lo, int32_t hi) {
    return lo + (int32_t)(rnd() % (uint32_t)(hi - lo + 1));
}

static void test_ileave3_seed_facts(void) {
    CHECK_EQ_INT(vxr_ileave3(6, 8, 9), 1825); /* the seed's 1989 is an erratum */
    uint32_t c[3];
    vxr_deinterleave3(25, c);
    CHECK_EQ_INT(c[0], 0);
    CHECK_EQ_INT(c[1], 2);
    CHECK_EQ_INT(c[2], 3);
    CHECK_EQ_INT(vxr_ileave3(1, 0, 0), 4); /* x is the most significant bit: 4x + 2y + z */
    CHECK_EQ_INT(vxr_ileave3(0, 1, 0), 2);
    CHECK_EQ_INT(vxr_ileave3(0, 0, 1), 1);
    for (int i = 0; i < 10000; i++) {
        uint32_t x = rnd() & 0x1fffff, y = rnd() & 0x1fffff, z = rnd() & 0x1fffff;
        uint64_t k = vxr_ileave3(x, y, z);
        /* bit by bit, against the definition */
        uint64_t slow = 0;
        for (int b = 20; b != -1; b--)
            slow = slow << 3 | ((x >> b) & 1) << 2 | ((y >> b) & 1) << 1 | ((z >> b) & 1);
        CHECK(k == slow);
        vxr_deinterleave3(k, c);
        CHECK(c[0] == x && c[1] == y && c[2] == z);
    }
}

static void test_abs_svo_4cube(void) {
    /* The seed's 4^3 example: half-extent 2 holds [-2, 1]^3 and nothing else. */
    for (int32_t n = -6; n <= 6; n++) CHECK_EQ_INT(vxr_abs_svo(n) < 2, n >= -2 && n <= 1);
    CHECK_EQ_INT(vxr_abs_svo(-1), 0);
    CHECK_EQ_INT(vxr_abs_svo(INT32_MIN), INT32_MAX);
}

/* Oracle: the distinct voxels with the last colour of each position. */
typedef struct entry {
    int32_t x, y, z;
    uint32_t color;
    size_t order;
} entry;

static int cmp_entry(const void *a, const void *b) {
    const entry *p = a, *q = b;
    if (p->x != q->x) return p->x < q->x ? -1 : 1;
    if (p->y != q->y) return p->y < q->y ? -1 : 1;
    if (p->z != q->z) return p->z < q->z ? -1 : 1;
    return p->order < q->order ? -1 : p->order > q->order;
}

typedef struct collect {
    entry *e;
    size_t n, cap;
} collect;

static void collect_voxel(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    collect *c = user;
    if (c->n < c->cap) c->e[c->n] = (entry){x, y, z, attr, c->n};
    c->n++;
}

static size_t oracle(const vxr_voxel *v, size_t n, entry *out) {
    entry *all = malloc((n ? n : 1) * sizeof *all);
    for (size_t i = 0; i < n; i++) all[i] = (entry){v[i].x, v[i].y, v[i].z, v[i].color, i};
    qsort(all, n, sizeof *all, cmp_entry);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + 1 < n && all[i + 1].x == all[i].x && all[i + 1].y == all[i].y &&
            all[i + 1].z == all[i].z)
            continue;
        out[m++] = all[i];
    }
    free(all);
    return m;
}

/* Checks a built tree against the oracle: same voxel set, same colours,
 * tight bounds, valid layout, and point lookups that agree. */
static void check_tree(const vxr_octree *t, const vxr_voxel *v, size_t n) {
    entry *want = malloc((n ? n : 1) * sizeof *want);
    size_t m = oracle(v, n, want);
    CHECK_EQ_INT(t->voxel_count, m);
    CHECK(vxr_octree_validate(t, NULL) == VXR_OK);
    collect c = {malloc((m ? m : 1) * sizeof(entry)), 0, m};
    vxr_octree_foreach(t, collect_voxel, &c);
    CHECK_EQ_INT(c.n, m);
    if (c.n == m) {
        for (size_t i = 0; i < m; i++) c.e[i].order = 0;
        qsort(c.e, m, sizeof(entry), cmp_entry);
        for (size_t i = 0; i < m; i++)
            CHECK(c.e[i].x == want[i].x && c.e[i].y == want[i].y && c.e[i].z == want[i].z &&
                  c.e[i].color == want[i].color);
    }
    for (size_t i = 0; i < m && i < 2000; i++) {
        uint32_t a = 0;
        CHECK(vxr_octree_lookup(t, want[i].x, want[i].y, want[i].z, &a));
        CHECK(a == want[i].color);
    }
    free(c.e);
    free(want);
}

static void build_both(const vxr_voxel *v, size_t n, uint32_t attr_size) {
    vxr_octree a, b;
    CHECK(vxr_octree_build(v, n, attr_size, &a, NULL) == VXR_OK);
    CHECK(vxr_octree_build_incremental(v, n, attr_size, &b, NULL) == VXR_OK);
    check_tree(&a, v, n);
    check_tree(&b, v, n);
    CHECK(vxr_octree_equal(&a, &b));
    vxr_octree_free(&a);
    vxr_octree_free(&b);
}

static void test_random_lists_bulk_equals_incremental(void) {
    for (int round = 0; round < 60; round++) {
        size_t n = 1 + rnd() % 5000;
        int32_t spread = 1 << (rnd() % 12);
        int32_t off = rnd_range(-3000, 3000);
        vxr_voxel *v = malloc(n * sizeof *v);
        for (size_t i = 0; i < n; i++) {
            if (i > 0 && rnd() % 8 == 0) { /* duplicate an earlier position, new colour */
                v[i] = v[rnd() % i];
                v[i].color = 1 + rnd() % 255;
                continue;
            }
            v[i] = (vxr_voxel){off + rnd_range(-spread, spread), off + rnd_range(-spread, spread),
                               rnd_range(-spread, spread), 1 + rnd() % 255};
        }
        build_both(v, n, 1);
        for (size_t i = 0; i < n; i++) v[i].color = rnd() | 1;
        build_both(v, n, 4);
        free(v);
    }
}

static void test_extremes(void) {
    const int32_t L = (1 << 20) - 1;
    vxr_voxel v[] = {{-L - 1, -L - 1, -L - 1, 3}, {L, L, L, 4}, {0, 0, 0, 5}, {-1, -1, -1, 6}};
    build_both(v, 4, 1);
    vxr_octree t;
    CHECK(vxr_octree_build(v, 4, 1, &t, NULL) == VXR_OK);
    CHECK_EQ_INT(t.depth, VXR_MAX_DEPTH);
    vxr_octree_free(&t);
    vxr_voxel far[] = {{L + 1, 0, 0, 1}};
    vxr_error err;
    CHECK(vxr_octree_build(far, 1, 1, &t, &err) == VXR_ERROR_LIMIT);
    CHECK(strstr(err.message, "beyond") != NULL);
    CHECK(t.nodes == NULL && t.voxel_count == 0);
    CHECK(vxr_octree_build_incremental(far, 1, 1, &t, NULL) == VXR_ERROR_LIMIT);
    vxr_voxel bad[] = {{0, 0, 0, 0}};
    CHECK(vxr_octree_build(bad, 1, 1, &t, &err) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_octree_build(v, 1, 3, &t, &err) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_octree_build(NULL, 0, 1, &t, NULL) == VXR_OK);
    CHECK(t.node_count == 0 && t.depth == 0);
    CHECK(vxr_octree_validate(&t, NULL) == VXR_OK);
    CHECK(!vxr_octree_lookup(&t, 0, 0, 0, NULL));
}

static void test_growth_keeps_every_voxel(void) {
    /* Each voxel forces the incremental root to grow past the earlier ones. */
    vxr_voxel v[40];
    size_t n = 0;
    for (int32_t s = 1; s < (1 << 19); s *= 2) {
        v[n] = (vxr_voxel){s, -s, s / 2, 1 + (uint32_t)n};
        n++;
        v[n] = (vxr_voxel){-s - 1, s - 1, -s, 2 + (uint32_t)n};
        n++;
    }
    build_both(v, n, 1);
}

static void test_trimming(void) {
    /* One voxel far from the origin: the root trims down to one brick. */
    vxr_voxel one = {1001, -77, 5, 9};
    vxr_octree t;
    CHECK(vxr_octree_build_incremental(&one, 1, 1, &t, NULL) == VXR_OK);
    CHECK_EQ_INT(t.depth, 2);
    CHECK_EQ_INT(t.node_count, 1);
    CHECK_EQ_INT(t.origin[0], 1000);
    CHECK_EQ_INT(t.origin[1], -80);
    CHECK_EQ_INT(t.origin[2], 4);
    vxr_octree_free(&t);
    /* Voxels straddling the origin keep the root centred there. */
    vxr_voxel two[] = {{-1, -1, -1, 1}, {0, 0, 0, 2}};
    CHECK(vxr_octree_build_incremental(two, 2, 1, &t, NULL) == VXR_OK);
    CHECK_EQ_INT(t.depth, 2);
    CHECK_EQ_INT(t.origin[0], -2);
    CHECK_EQ_INT(t.nodes[0].a, 1u << 7 | 0); /* voxel (-1,-1,-1) is octant 7 of level-1 octant 0 */
    CHECK_EQ_INT(t.nodes[0].b, 1u << (7 * 8 - 32)); /* voxel (0,0,0) is octant 0 of octant 7 */
    vxr_octree_free(&t);
    /* A cluster in the +x+y+z octant of a large extent trims to its own cube. */
    vxr_voxel c[] = {{64, 64, 64, 1}, {127, 127, 127, 2}};
    CHECK(vxr_octree_build_incremental(c, 2, 1, &t, NULL) == VXR_OK);
    CHECK_EQ_INT(t.depth, 6);
    CHECK_EQ_INT(t.origin[0], 64);
    vxr_octree_free(&t);
    build_both(c, 2, 1);
}

static void test_validate_rejects_corruption(void) {
    vxr_voxel v[300];
    for (int i = 0; i < 300; i++)
        v[i] = (vxr_voxel){rnd_range(-40, 40), rnd_range(-40, 40), rnd_range(-40, 40),
                           1 + (uint32_t)i % 200};
    vxr_octree t;
    CHECK(vxr_octree_build(v, 300, 1, &t, NULL) == VXR_OK);
    CHECK(vxr_octree_validate(&t, NULL) == VXR_OK);
    vxr_error err;
    uint32_t saved = t.nodes[0].b;
    t.nodes[0].b = 1000000;
    CHECK(vxr_octree_validate(&t, &err) == VXR_ERROR_FORMAT);
    t.nodes[0].b = saved;
    saved = t.nodes[0].a;
    t.nodes[0].a = 0;
    CHECK(vxr_octree_validate(&t, &err) == VXR_ERROR_FORMAT);
    t.nodes[0].a = saved;
    t.brick_attr[t.brick_count - 1] += 1;
    CHECK(vxr_octree_validate(&t, &err) == VXR_ERROR_FORMAT);
    t.brick_attr[t.brick_count - 1] -= 1;
    t.voxel_count += 1;
    CHECK(vxr_octree_validate(&t, &err) == VXR_ERROR_FORMAT);
    t.voxel_count -= 1;
    t.vmax[0] += 1;
    CHECK(vxr_octree_validate(&t, &err) == VXR_ERROR_FORMAT);
    t.vmax[0] -= 1;
    t.origin[1] += 1;
    CHECK(vxr_octree_validate(&t, &err) == VXR_ERROR_FORMAT);
    t.origin[1] -= 1;
    uint32_t depth = t.depth;
    t.depth = 40;
    CHECK(vxr_octree_validate(&t, &err) == VXR_ERROR_FORMAT);
    t.depth = depth + 1;
    CHECK(vxr_octree_validate(&t, &err) == VXR_ERROR_FORMAT);
    t.depth = depth;
    CHECK(vxr_octree_validate(&t, &err) == VXR_OK);
    vxr_octree_free(&t);
}

static void test_layout_offsets(void) {
    CHECK_EQ_INT(sizeof(vxr_node), 8);
    CHECK_EQ_INT(offsetof(vxr_node, a), 0);
    CHECK_EQ_INT(offsetof(vxr_node, b), 4);
    CHECK_EQ_INT(offsetof(vxr_blob_header, magic), 0);
    CHECK_EQ_INT(offsetof(vxr_blob_header, model_count), 16);
    CHECK_EQ_INT(offsetof(vxr_blob_header, nodes_offset), 60);
    CHECK_EQ_INT(offsetof(vxr_blob_header, attrs_offset), 68);
    CHECK_EQ_INT(offsetof(vxr_gpu_model, origin), 0);
    CHECK_EQ_INT(offsetof(vxr_gpu_model, depth), 12);
    CHECK_EQ_INT(offsetof(vxr_gpu_model, attr_base), 28);
    CHECK_EQ_INT(offsetof(vxr_gpu_model, attr_size), 44);
    CHECK_EQ_INT(offsetof(vxr_gpu_instance, world_to_local), 0);
    CHECK_EQ_INT(offsetof(vxr_gpu_instance, view_distance), 132);
}

static void test_blob_fields(void) {
    vxr_scene_src src;
    vxr_scene_src_init(&src, 1);
    uint32_t m;
    CHECK(vxr_scene_src_add_model(&src, &m) == VXR_OK);
    for (int i = 0; i < 100; i++)
        vxr_model_src_push(&src.models[m], i % 7, i / 7, -i % 5, 1 + (uint32_t)i);
    vxr_instance in = {0, 0, vxr_transform_identity(), 50};
    in.transform.translation[0] = 10;
    in.transform.scale = 2;
    vxr_scene_src_add_instance(&src, &in);
    vxr_scene_src_add_instance(&src, &in);
    src.palette[5] = 0x11223344;
    vxr_scene *s;
    CHECK(vxr_scene_build(&src, &s, NULL) == VXR_OK);
    size_t size = vxr_scene_blob_size(s);
    uint8_t *blob = malloc(size);
    vxr_scene_write_blob(s, blob);
    vxr_blob_header h;
    memcpy(&h, blob, sizeof h);
    CHECK(h.magic == VXR_BLOB_MAGIC && h.version == VXR_BLOB_VERSION && h.blob_bytes == size);
    CHECK(h.model_count == 1 && h.instance_count == 2 && h.node_count == s->models[0].node_count);
    CHECK(h.models_offset % 16 == 0 && h.nodes_offset % 16 == 0 && h.attrs_offset % 16 == 0);
    CHECK(!memcmp(blob + h.nodes_offset, s->models[0].nodes, h.node_count * 8));
    CHECK(!memcmp(blob + h.attrs_offset, s->models[0].attrs, s->models[0].voxel_count));
    uint32_t pal5;
    memcpy(&pal5, blob + h.palette_offset + 20, 4);
    CHECK(pal5 == 0x11223344);
    vxr_gpu_instance gi;
    memcpy(&gi, blob + h.instances_offset + sizeof gi, sizeof gi);
    CHECK(gi.local_to_world[0] == 2 && gi.local_to_world[3] == 10);
    CHECK(gi.world_to_local[0] == 0.5f && gi.world_to_local[3] == -5);
    CHECK(gi.view_distance == 50 && gi.model == 0);
    vxr_gpu_model gm;
    memcpy(&gm, blob + h.models_offset, sizeof gm);
    CHECK(gm.depth == s->models[0].depth && gm.brick_base == gm.node_count - gm.brick_count);
    vxr_scene_stats st;
    vxr_scene_get_stats(s, &st);
    CHECK(st.bytes == size && st.instanced_voxels == 200 && st.model_voxels == 100);
    free(blob);
    vxr_scene_destroy(s);
    vxr_scene_src_free(&src);
}

/* Both builders on every model of every real file in tests/data (and in
 * ../shared/data/vox when present): byte-identical octrees. */
static int builds_equal_on_file(const char *path) {
    vxr_scene_src src;
    vxr_error err;
    if (vxr_scene_src_load(path, &src, &err) != VXR_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        return 0;
    }
    int ok = 1;
    for (uint32_t i = 0; i < src.model_count; i++) {
        vxr_octree a, b;
        CHECK(vxr_octree_build(src.models[i].voxels, src.models[i].count, src.attr_size, &a,
                               NULL) == VXR_OK);
        CHECK(vxr_octree_build_incremental(src.models[i].voxels, src.models[i].count, src.attr_size,
                                           &b, NULL) == VXR_OK);
        if (!vxr_octree_equal(&a, &b)) {
            fprintf(stderr, "%s: model %u differs between the builders\n", path, i);
            ok = 0;
        }
        vxr_octree_free(&b);
        for (uint32_t threads = 2; threads <= 3; threads++) {
            CHECK(vxr_model_build(&src.models[i], src.attr_size, threads, &b, NULL) == VXR_OK);
            if (!vxr_octree_equal(&a, &b)) {
                fprintf(stderr, "%s: model %u differs on %u threads\n", path, i, threads);
                ok = 0;
            }
            vxr_octree_free(&b);
        }
        vxr_octree_free(&a);
    }
    vxr_scene_src_free(&src);
    return ok;
}

static void test_real_files_bulk_equals_incremental(void) {
    static const char *const files[] = {VXR_TEST_REAL_FILES};
    char path[512];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", VXR_TEST_DATA, files[i]);
        CHECK(builds_equal_on_file(path));
    }
    static const char *shared[] = {"large__minecraft_region_from_qb.vox",
                                   "vengi__test_material.vox"};
    for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++) {
        snprintf(path, sizeof path, "%s/vox/%s", VXR_SHARED_DATA, shared[i]);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        fclose(f);
        CHECK(builds_equal_on_file(path));
    }
}

/* ------------------------------------------------ threads and generators */

static uint32_t hash32(uint32_t h) {
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    return h ^ (h >> 16);
}

static uint32_t color_of(int32_t x, int32_t y, int32_t z, uint32_t attr_size) {
    uint32_t h =
        hash32((uint32_t)x * 0x8da6b343u ^ (uint32_t)y * 0xd8163841u ^ (uint32_t)z * 0xcb1ab31fu);
    return attr_size == 1 ? 1 + h % 255 : h | 1;
}

/* A test generator: a wavy surface over the columns [o, o + n)^2, one or
 * two voxels deep, its top cell given twice (the second colour wins). */
typedef struct wave {
    int32_t o, n;
    uint32_t attr_size;
    atomic_int calls;
    int destroyed;
    int fail_z; /* emit fails (VXR_ERROR_IO) for a box starting at this z, or 0 */
    int stray;  /* emit gives one voxel outside its box */
} wave;

static int32_t wave_top(int32_t x, int32_t y) {
    return (int32_t)(90.0 * sin(x * 0.011) * cos(y * 0.007) + 40.0 * sin((x + y) * 0.031));
}

static vxr_result wave_emit(void *user, const int32_t lo[3], const int32_t hi[3],
                            vxr_model_src *dest) {
    wave *w = user;
    atomic_fetch_add(&w->calls, 1);
    if (w->fail_z && lo[2] == w->fail_z) return VXR_ERROR_IO;
    if (w->stray) return vxr_model_src_push(dest, hi[0], lo[1], lo[2], 1);
    for (int32_t y = lo[1]; y < hi[1]; y++)
        for (int32_t x = lo[0]; x < hi[0]; x++) {
            int32_t top = wave_top(x, y),
                    bottom = top - 1 - (int32_t)(hash32((uint32_t)(x ^ y)) & 1);
            for (int32_t z = bottom > lo[2] ? bottom : lo[2]; z <= top && z < hi[2]; z++)
                if (vxr_model_src_push(dest, x, y, z, color_of(x, y, z, w->attr_size)) != VXR_OK)
                    return VXR_ERROR_MEMORY;
            if (top >= lo[2] && top < hi[2] &&
                vxr_model_src_push(dest, x, y, top, color_of(x, y, top + 1, w->attr_size)) !=
                    VXR_OK)
                return VXR_ERROR_MEMORY;
        }
    return VXR_OK;
}

static void wave_destroy(void *user) {
    ((wave *)user)->destroyed++;
}

/* The generator of w, with tight bounds. */
static vxr_model_gen wave_gen(wave *w) {
    vxr_model_gen g = {wave_emit, wave_destroy, w, {w->o, w->o, INT32_MAX}, {0, 0, INT32_MIN}, 0};
    g.vmax[0] = g.vmax[1] = w->o + w->n;
    for (int32_t y = w->o; y < w->o + w->n; y++)
        for (int32_t x = w->o; x < w->o + w->n; x++) {
            int32_t top = wave_top(x, y);
            if (top - 2 < g.vmin[2]) g.vmin[2] = top - 2;
            if (top + 1 > g.vmax[2]) g.vmax[2] = top + 1;
        }
    /* the deepest columns may be one deep only: tighten by a look */
    vxr_model_src all = {0};
    g.vmin[2] -= 1;
    g.vmax[2] += 1;
    wave_emit(w, g.vmin, g.vmax, &all);
    g.vmin[2] = INT32_MAX;
    g.vmax[2] = INT32_MIN;
    for (size_t i = 0; i < all.count; i++) {
        if (all.voxels[i].z < g.vmin[2]) g.vmin[2] = all.voxels[i].z;
        if (all.voxels[i].z + 1 > g.vmax[2]) g.vmax[2] = all.voxels[i].z + 1;
    }
    free(all.voxels);
    w->calls = 0;
    return g;
}

/* vxr_model_build of m on several thread counts equals `want`. */
static void check_threads(const vxr_model_src *m, uint32_t attr_size, const vxr_octree *want,
                          const char *what) {
    static const uint32_t threads[] = {1, 2, 3, 8, 0};
    for (size_t k = 0; k < sizeof threads / sizeof threads[0]; k++) {
        vxr_octree t;
        vxr_error err = {{0}};
        vxr_result r = vxr_model_build(m, attr_size, threads[k], &t, &err);
        CHECK_EQ_INT(r, VXR_OK);
        if (r != VXR_OK) fprintf(stderr, "%s: %s\n", what, err.message);
        if (r == VXR_OK && !vxr_octree_equal(&t, want))
            fprintf(stderr, "%s: differs on %u threads\n", what, threads[k]);
        CHECK(r == VXR_OK && vxr_octree_equal(&t, want));
        vxr_octree_free(&t);
    }
}

/* A list on every thread count against one thread and the incremental
 * build. */
static void check_list(const vxr_voxel *v, size_t n, uint32_t attr_size, const char *what) {
    vxr_octree one, inc;
    CHECK(vxr_octree_build(v, n, attr_size, &one, NULL) == VXR_OK);
    CHECK(vxr_octree_build_incremental(v, n, attr_size, &inc, NULL) == VXR_OK);
    if (!vxr_octree_equal(&one, &inc)) fprintf(stderr, "%s: bulk != incremental\n", what);
    CHECK(vxr_octree_equal(&one, &inc));
    CHECK(vxr_octree_validate(&one, NULL) == VXR_OK);
    vxr_model_src m = {.voxels = (vxr_voxel *)v, .count = n, .capacity = n};
    check_threads(&m, attr_size, &one, what);
    vxr_octree_free(&one);
    vxr_octree_free(&inc);
}

/* Duplicates of earlier voxels, new colours, at the end of the list (far
 * from the first ones: other ranges of the parallel passes). */
static size_t add_duplicates(vxr_voxel *v, size_t n, size_t extra, uint32_t attr_size) {
    for (size_t i = 0; i < extra; i++) {
        v[n + i] = v[rnd() % n];
        v[n + i].color = attr_size == 1 ? 1 + rnd() % 255 : rnd() | 1;
    }
    return n + extra;
}

static void test_threads_equal_one_thread(void) {
    /* A deep dense shell: radius 200 around an off-origin centre, a root of
     * 2^11 (over 2^9: bucketed into regions). */
    enum { R = 200 };
    size_t cap = 700000, n = 0;
    vxr_voxel *v = malloc(cap * sizeof *v);
    CHECK(v != NULL);
    if (!v) return;
    for (int32_t x = -R; x <= R; x++)
        for (int32_t y = -R; y <= R; y++) {
            double d = (double)R * R - (double)x * x - (double)y * y;
            if (d < 0) continue;
            int32_t z = (int32_t)sqrt(d);
            for (int s = -1; s <= 1; s += 2)
                if (n < cap - 60000)
                    v[n++] = (vxr_voxel){x - 1000, y + 517, s * z + 37, color_of(x, y, s * z, 1)};
        }
    size_t m = add_duplicates(v, n, 50000, 1);
    CHECK(n > 200000);
    check_list(v, m, 1, "shell");
    for (size_t i = 0; i < m; i++) v[i].color = color_of(v[i].x, v[i].y, (int32_t)i, 4);
    check_list(v, m, 4, "shell rgba");
    /* Large and sparse: 100,000 voxels over the whole +-2^20 (regions of
     * 2^17 and more, radix sorted; RGBA does not fit under the key). */
    const int32_t L = 1 << 20;
    n = 100000;
    for (size_t i = 0; i < n; i++)
        v[i] = (vxr_voxel){rnd_range(-L, L - 1), rnd_range(-L, L - 1), rnd_range(-L, L - 1),
                           1 + rnd() % 255};
    m = add_duplicates(v, n, 10000, 1);
    check_list(v, m, 1, "sparse");
    for (size_t i = 0; i < m; i++) v[i].color = rnd() | 1;
    check_list(v, m, 4, "sparse rgba");
    /* Clusters: dense blocks scattered far apart (dense and sparse regions
     * in one model). */
    n = 0;
    for (int c = 0; c < 40; c++) {
        int32_t cx = rnd_range(-5000, 5000), cy = rnd_range(-5000, 5000), cz = rnd_range(-300, 300);
        int32_t side = 8 + (int32_t)(rnd() % 40);
        for (int32_t k = 0; k < side * side * side && n < cap; k++)
            if (rnd() % 3)
                v[n++] = (vxr_voxel){cx + k % side, cy + k / side % side, cz + k / side / side,
                                     1 + rnd() % 255};
    }
    check_list(v, n, 1, "clusters");
    free(v);
}

/* A list with a box hint (vxr_model_src's box_min and box_max, as .vox
 * models carry): the same octree as without, on every thread count, for
 * boxes that fit, boxes the list leaves, roots that are not a run of the
 * box's cube, and bad colours (the same failure). */
static void test_box_hint(void) {
    static const struct {
        int32_t lo[3], ext[3]; /* the voxels: in [lo, lo + ext) */
        int32_t bmax[3];       /* the box: [0, bmax) */
        uint32_t fill;         /* one cell in `fill` holds a voxel */
    } cases[] = {
        {{0, 0, 0}, {256, 64, 150}, {256, 64, 150}, 2},   /* a Minecraft region's half */
        {{3, 5, 7}, {40, 30, 20}, {50, 40, 30}, 1},       /* a root inside the cube */
        {{100, 0, 0}, {40, 30, 20}, {140, 30, 20}, 1},    /* too sparse for its cube of 256 */
        {{64, 64, 0}, {64, 64, 64}, {200, 200, 64}, 1},   /* a root of 64 in a cube of 256 */
        {{32, 0, 32}, {32, 32, 32}, {128, 40, 100}, 1},   /* a root of 32 in a cube of 128 */
        {{0, 0, 0}, {200, 100, 60}, {100, 100, 60}, 4},   /* leaving the box, not its cube */
        {{0, 0, 0}, {200, 100, 60}, {60, 60, 60}, 4},     /* leaving the box's cube */
        {{0, 0, 0}, {2, 2, 2}, {2, 2, 2}, 1},             /* a root at -2: not a run */
        {{0, 0, 0}, {256, 256, 256}, {256, 256, 256}, 60} /* too sparse for the cube */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int32_t *lo = cases[c].lo, *ext = cases[c].ext;
        size_t cells = (size_t)ext[0] * (size_t)ext[1] * (size_t)ext[2], n = 0;
        size_t cap = cells / cases[c].fill * 2 + 64;
        vxr_voxel *v = malloc(cap * sizeof *v);
        CHECK(v != NULL);
        if (!v) return;
        for (size_t i = 0; i < cells && n < cap - 2; i++)
            if (rnd() % cases[c].fill == 0)
                v[n++] = (vxr_voxel){lo[0] + (int32_t)(i % (size_t)ext[0]),
                                     lo[1] + (int32_t)(i / (size_t)ext[0] % (size_t)ext[1]),
                                     lo[2] + (int32_t)(i / (size_t)ext[0] / (size_t)ext[1]),
                                     1 + rnd() % 255};
        /* the corners, so that the bounds are the case's */
        v[n++] = (vxr_voxel){lo[0], lo[1], lo[2], 7};
        v[n++] = (vxr_voxel){lo[0] + ext[0] - 1, lo[1] + ext[1] - 1, lo[2] + ext[2] - 1, 9};
        for (size_t i = 0; i < n; i += 97) v[n - 1 - i % 50] = v[i]; /* duplicates */
        vxr_octree want;
        CHECK(vxr_octree_build(v, n, 1, &want, NULL) == VXR_OK);
        vxr_model_src m = {.voxels = v, .count = n, .capacity = n};
        memcpy(m.box_max, cases[c].bmax, sizeof m.box_max);
        char what[32];
        snprintf(what, sizeof what, "box case %zu", c);
        check_threads(&m, 1, &want, what);
        vxr_octree_free(&want);
        /* a bad colour: the failure is the one without a box */
        vxr_error a = {{0}}, b = {{0}};
        v[n / 2].color = 0;
        vxr_octree t;
        m.count = n;
        CHECK_EQ_INT(vxr_model_build(&m, 1, 1, &t, &a), VXR_ERROR_ARGUMENT);
        memset(m.box_max, 0, sizeof m.box_max);
        CHECK_EQ_INT(vxr_model_build(&m, 1, 1, &t, &b), VXR_ERROR_ARGUMENT);
        CHECK(!strcmp(a.message, b.message));
        free(v);
    }
}

static void test_generator_equals_list(void) {
    for (uint32_t attr_size = 1; attr_size <= 4; attr_size += 3) {
        /* 700^2 columns: a root of 2^10 */
        wave w = {.o = -350, .n = 700, .attr_size = attr_size};
        vxr_model_gen *g = malloc(sizeof *g);
        CHECK(g != NULL);
        if (!g) return;
        *g = wave_gen(&w);
        vxr_model_src gen = {.gen = g}, list = {0};
        CHECK(vxr_model_src_materialize(&list, NULL) == VXR_OK); /* a list: unchanged */
        CHECK(list.voxels == NULL && list.count == 0);
        CHECK(wave_emit(&w, g->vmin, g->vmax, &list) == VXR_OK);
        vxr_octree want, inc;
        CHECK(vxr_octree_build(list.voxels, list.count, attr_size, &want, NULL) == VXR_OK);
        CHECK(vxr_octree_build_incremental(list.voxels, list.count, attr_size, &inc, NULL) ==
              VXR_OK);
        CHECK(vxr_octree_equal(&want, &inc));
        CHECK(want.depth == 10);
        w.calls = 0;
        check_threads(&gen, attr_size, &want, attr_size == 1 ? "wave" : "wave rgba");
        CHECK(w.calls > 5 * 10); /* region by region */
        /* absurd hints: room for at most 2^32 - 1 voxels is asked (2^63 four
         * bytes a voxel wrapped to nothing, and UINT64_MAX failed as out of
         * memory) */
        const uint64_t hints[] = {1ull << 63, UINT64_MAX, 1ull << 62};
        for (size_t k = 0; k < sizeof hints / sizeof hints[0]; k++) {
            g->voxels_hint = hints[k];
            vxr_octree got;
            CHECK(vxr_model_build(&gen, attr_size, 1, &got, NULL) == VXR_OK);
            CHECK(vxr_octree_equal(&got, &want));
            vxr_octree_free(&got);
        }
        g->voxels_hint = 0;
        /* materialised: one call, the same list, the generator destroyed */
        w.calls = 0;
        CHECK(vxr_model_src_materialize(&gen, NULL) == VXR_OK);
        CHECK(gen.gen == NULL && w.destroyed == 1 && w.calls == 1);
        CHECK(gen.count == list.count &&
              !memcmp(gen.voxels, list.voxels, list.count * sizeof *list.voxels));
        free(gen.voxels); /* g went with the generator */
        free(list.voxels);
        vxr_octree_free(&want);
        vxr_octree_free(&inc);
    }
    /* a small one: a root of one region */
    wave w = {.o = 3, .n = 20, .attr_size = 1};
    vxr_model_gen g = wave_gen(&w);
    vxr_model_src gen = {.gen = &g}, list = {0};
    CHECK(wave_emit(&w, g.vmin, g.vmax, &list) == VXR_OK);
    vxr_octree want;
    CHECK(vxr_octree_build(list.voxels, list.count, 1, &want, NULL) == VXR_OK);
    check_threads(&gen, 1, &want, "small wave");
    vxr_octree_free(&want);
    free(list.voxels);
}

static void test_generator_failures(void) {
    wave w = {.o = -100, .n = 200, .attr_size = 1};
    vxr_model_gen g = wave_gen(&w);
    vxr_model_src gen = {.gen = &g};
    vxr_octree t;
    vxr_error err = {{0}};
    /* loose bounds */
    g.vmax[2] += 1;
    CHECK_EQ_INT(vxr_model_build(&gen, 1, 2, &t, &err), VXR_ERROR_ARGUMENT);
    CHECK(strstr(err.message, "not its bounds") != NULL);
    CHECK(t.nodes == NULL && t.voxel_count == 0);
    g.vmax[2] -= 1;
    /* a voxel outside its box */
    w.stray = 1;
    CHECK_EQ_INT(vxr_model_build(&gen, 1, 2, &t, &err), VXR_ERROR_ARGUMENT);
    CHECK(strstr(err.message, "generator gave voxel") != NULL);
    w.stray = 0;
    /* a bad palette index: RGBA colours as palette indices */
    w.attr_size = 4;
    CHECK_EQ_INT(vxr_model_build(&gen, 1, 1, &t, &err), VXR_ERROR_ARGUMENT);
    w.attr_size = 1;
    /* emit's own failure, on one box of several */
    w.fail_z = g.vmin[2];
    CHECK_EQ_INT(vxr_model_build(&gen, 1, 2, &t, &err), VXR_ERROR_IO);
    CHECK(strstr(err.message, "generator failed") != NULL);
    vxr_model_src copy = gen;
    CHECK_EQ_INT(vxr_model_src_materialize(&copy, &err), VXR_ERROR_IO);
    CHECK(copy.gen == &g && copy.voxels == NULL && copy.count == 0);
    w.fail_z = 0;
    /* bounds beyond the limit, a bad attribute size */
    g.vmin[0] = -(1 << 20) - 1;
    CHECK_EQ_INT(vxr_model_build(&gen, 1, 1, &t, &err), VXR_ERROR_LIMIT);
    g.vmin[0] = w.o;
    CHECK_EQ_INT(vxr_model_build(&gen, 3, 1, &t, &err), VXR_ERROR_ARGUMENT);
    /* empty bounds: an empty octree, no call */
    g.vmax[1] = g.vmin[1];
    w.calls = 0;
    CHECK_EQ_INT(vxr_model_build(&gen, 1, 1, &t, &err), VXR_OK);
    CHECK(t.node_count == 0 && t.depth == 0 && w.calls == 0);
    CHECK(vxr_octree_validate(&t, NULL) == VXR_OK);
}

/* A scene of one large model, a generator and many small ones: the same
 * octrees on any number of threads, and the lowest failing model named. */
static void test_scene_threads(void) {
    vxr_scene_src src;
    vxr_scene_src_init(&src, 1);
    uint32_t m;
    CHECK(vxr_scene_src_add_model(&src, &m) == VXR_OK);
    for (int32_t i = 0; i < 400000; i++)
        vxr_model_src_push(&src.models[m], i % 700, i / 700 % 700, i / 490000 + (i % 13),
                           1 + (uint32_t)i % 255);
    wave w = {.o = 0, .n = 300, .attr_size = 1};
    vxr_model_gen *g = malloc(sizeof *g);
    CHECK(g != NULL);
    if (!g) return;
    *g = wave_gen(&w);
    g->destroy = NULL; /* w lives on the stack */
    CHECK(vxr_scene_src_add_model(&src, &m) == VXR_OK);
    src.models[m].gen = g;
    for (int k = 0; k < 60; k++) {
        CHECK(vxr_scene_src_add_model(&src, &m) == VXR_OK);
        int32_t spread = 1 << (rnd() % 12);
        for (uint32_t i = 0, n = 1 + rnd() % 3000; i < n; i++)
            vxr_model_src_push(&src.models[m], rnd_range(-spread, spread),
                               rnd_range(-spread, spread), rnd_range(-spread, spread),
                               1 + rnd() % 255);
    }
    vxr_instance in = {0, 0, vxr_transform_identity(), 50};
    vxr_scene_src_add_instance(&src, &in);
    vxr_scene *one;
    CHECK(vxr_scene_build_threads(&src, 1, &one, NULL) == VXR_OK);
    for (uint32_t i = 0; i < src.model_count; i++) {
        vxr_octree t;
        vxr_model_src list = src.models[i];
        if (list.gen) {
            list.gen = NULL;
            list.voxels = NULL;
            list.count = list.capacity = 0;
            CHECK(wave_emit(&w, g->vmin, g->vmax, &list) == VXR_OK);
        }
        CHECK(vxr_octree_build(list.voxels, list.count, 1, &t, NULL) == VXR_OK);
        CHECK(vxr_octree_equal(&t, &one->models[i]));
        vxr_octree_free(&t);
        if (src.models[i].gen) free(list.voxels);
    }
    static const uint32_t threads[] = {2, 3, 5, 0};
    for (size_t k = 0; k < sizeof threads / sizeof threads[0]; k++) {
        vxr_scene *s;
        CHECK(vxr_scene_build_threads(&src, threads[k], &s, NULL) == VXR_OK);
        for (uint32_t i = 0; s && i < src.model_count; i++)
            CHECK(vxr_octree_equal(&s->models[i], &one->models[i]));
        vxr_scene_destroy(s);
    }
    /* models 9 and 30 bad (a palette index 0), and the generator bad too
     * (loose bounds): model 1, the lowest, is named on any thread count */
    src.models[9].voxels[0].color = 0;
    src.models[30].voxels[src.models[30].count - 1].color = 0;
    for (size_t k = 0; k < sizeof threads / sizeof threads[0]; k++) {
        vxr_scene *s = one;
        vxr_error err = {{0}};
        g->vmax[2]++;
        CHECK_EQ_INT(vxr_scene_build_threads(&src, threads[k], &s, &err), VXR_ERROR_ARGUMENT);
        CHECK(s == NULL && !strncmp(err.message, "model 1: ", 9));
        g->vmax[2]--;
        s = one;
        CHECK_EQ_INT(vxr_scene_build_threads(&src, threads[k], &s, &err), VXR_ERROR_ARGUMENT);
        CHECK(s == NULL && !strncmp(err.message, "model 9: ", 9));
    }
    CHECK(vxr_build_threads(3) == 3 && vxr_build_threads(0) >= 1);
    vxr_scene_destroy(one);
    vxr_scene_src_free(&src);
}

/* The build's code: what VXR_CPU asks for (the unit_svo_baseline run), else
 * one of the two; every other test of this file then runs on it. */
static void test_build_isa(void) {
    const char *isa = vxr_build_isa(), *env = getenv("VXR_CPU");
    printf("bulk build code: %s\n", isa);
    CHECK(!strcmp(isa, "baseline") || !strcmp(isa, "x86-64-v3"));
    if (env && !strcmp(env, "baseline")) CHECK(!strcmp(isa, "baseline"));
}

VXR_TEST_MAIN(TEST(test_ileave3_seed_facts), TEST(test_abs_svo_4cube),
              TEST(test_random_lists_bulk_equals_incremental), TEST(test_extremes),
              TEST(test_growth_keeps_every_voxel), TEST(test_trimming),
              TEST(test_validate_rejects_corruption), TEST(test_layout_offsets),
              TEST(test_blob_fields), TEST(test_real_files_bulk_equals_incremental),
              TEST(test_threads_equal_one_thread), TEST(test_box_hint),
              TEST(test_generator_equals_list), TEST(test_generator_failures),
              TEST(test_scene_threads), TEST(test_build_isa))
