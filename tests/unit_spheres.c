/* The view-distance sphere tree against brute force: random sets, long
 * random edit sequences, visit bounds, memory, bad input, scene culling. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sphere_sets.h"
#include "vxr/cull.h"
#include "vxr/formats.h"
#include "vxr/pick.h"
#include "vxr/spheres.h"
#include "vxr_test.h"

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The brute-force model: live[h] says whether handle h is stored. */
typedef struct model {
    float *xyzr;
    unsigned char *live;
    size_t cap;
} model;

static size_t brute(const model *m, const float p[3], uint32_t *dest) {
    size_t n = 0;
    for (size_t h = 0; h < m->cap; h++)
        if (m->live[h] && vxr_sphere_contains(m->xyzr + 4 * h, m->xyzr[4 * h + 3], p))
            dest[n++] = (uint32_t)h;
    return n;
}

static size_t max_depth_seen;

/* The filtered query equals brute force; candidates hold every match; no
 * level sees more than 8 nodes. Returns the number of mismatching points. */
static int check_points(const vxr_spheres *t, const model *m, const float *pts, size_t count) {
    uint32_t *a = malloc(m->cap * sizeof *a + 4), *b = malloc(m->cap * sizeof *b + 4);
    uint32_t *cand = malloc((vxr_spheres_count(t) + 1) * sizeof *cand);
    int bad = 0;
    for (size_t i = 0; i < count; i++) {
        const float *p = pts + 3 * i;
        size_t nb = brute(m, p, b);
        size_t na = vxr_spheres_collect(t, p, true, a, m->cap);
        qsort(a, na, sizeof *a, cmp_u32);
        if (na != nb || memcmp(a, b, na * sizeof *a)) {
            if (bad < 5)
                fprintf(stderr, "point (%g, %g, %g): tree %zu spheres, brute force %zu\n", p[0],
                        p[1], p[2], na, nb);
            bad++;
            continue;
        }
        size_t nc = vxr_spheres_collect(t, p, false, cand, vxr_spheres_count(t) + 1);
        qsort(cand, nc, sizeof *cand, cmp_u32);
        for (size_t k = 0, j = 0; k < nb; k++) {
            while (j < nc && cand[j] < b[k]) j++;
            if (j == nc || cand[j] != b[k]) {
                bad++;
                break;
            }
        }
        uint32_t levels[512];
        uint32_t depth = vxr_spheres_visits(t, p, levels, 512);
        if (depth > max_depth_seen) max_depth_seen = depth;
        for (uint32_t l = 0; l < depth && l < 512; l++)
            if (levels[l] > 8) {
                fprintf(stderr, "point %zu visits %u nodes at level %u\n", i, levels[l], l);
                bad++;
                break;
            }
    }
    free(a);
    free(b);
    free(cand);
    return bad;
}

static sphere_set_params small_world(size_t n) {
    sphere_set_params p = sphere_set_default(n);
    p.extent = 2000;
    p.spread = 60;
    p.per_cluster = 400;
    p.r_min = 0.01;
    p.r_max = 100;
    p.big_r_min = 1000;
    p.big_r_max = 20000;
    p.big = 3;
    p.far_extent = 1e7;
    return p;
}

static void test_random_sets(void) {
    const size_t n = 6000, q = 3000;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        sphere_set_params prm = small_world(n);
        model m = {malloc(4 * n * sizeof(float)), calloc(n, 1), n};
        float *pts = malloc(3 * q * sizeof *pts);
        sphere_set_spheres(&prm, seed, n, m.xyzr);
        sphere_set_points(&prm, seed * 77, m.xyzr, n, q, pts);
        vxr_spheres *t;
        CHECK(vxr_spheres_create(&t) == VXR_OK);
        for (size_t i = 0; i < n; i++) {
            uint32_t h;
            CHECK(vxr_spheres_insert(t, m.xyzr + 4 * i, m.xyzr[4 * i + 3], i * 3, &h) == VXR_OK);
            CHECK_EQ_INT(h, i);
            m.live[i] = 1;
        }
        CHECK_EQ_INT(vxr_spheres_count(t), n);
        size_t hits = 0;
        uint32_t *tmp = malloc(n * sizeof *tmp);
        for (size_t i = 0; i < q; i++) hits += brute(&m, pts + 3 * i, tmp);
        free(tmp);
        CHECK(hits > q / 4); /* the sets are not trivially empty */
        CHECK_EQ_INT(check_points(t, &m, pts, q), 0);
        /* The user value comes back with each sphere. */
        float c[3], r;
        uint64_t user;
        CHECK(vxr_spheres_get(t, 17, c, &r, &user) && user == 51 && r == m.xyzr[4 * 17 + 3]);
        vxr_spheres_destroy(t);
        free(m.xyzr);
        free(m.live);
        free(pts);
    }
}

/* Long random insert / remove / update sequences against the model. */
static void test_edit_sequences(void) {
    const size_t cap = 3000, pool = 6000;
    sphere_set_params prm = small_world(pool);
    float *src = malloc(4 * pool * sizeof *src), pts[3 * 64];
    sphere_set_spheres(&prm, 99, pool, src);
    model m = {calloc(4 * cap, sizeof(float)), calloc(cap, 1), cap};
    vxr_spheres *t;
    CHECK(vxr_spheres_create(&t) == VXR_OK);
    uint64_t rng = 1234;
    size_t live = 0, checks = 0;
    int bad = 0;
    for (int step = 0; step < 60000 && !bad; step++) {
        double u = sphere_set_uniform(&rng);
        uint32_t h = (uint32_t)(sphere_set_uniform(&rng) * (double)cap);
        if (u < 0.45 || live == 0) { /* insert */
            const float *s = src + 4 * (size_t)(sphere_set_uniform(&rng) * (double)pool);
            uint32_t got;
            if (live == cap) continue;
            CHECK(vxr_spheres_insert(t, s, s[3], 0, &got) == VXR_OK);
            if (got >= cap || m.live[got]) {
                bad++;
                break;
            }
            memcpy(m.xyzr + 4 * got, s, 4 * sizeof *s);
            m.live[got] = 1;
            live++;
        } else if (u < 0.75) { /* remove */
            if (!m.live[h]) {
                CHECK(vxr_spheres_remove(t, h) == VXR_ERROR_ARGUMENT);
                continue;
            }
            CHECK(vxr_spheres_remove(t, h) == VXR_OK);
            m.live[h] = 0;
            live--;
        } else { /* update: small moves mostly, sometimes a jump or a resize */
            if (!m.live[h]) continue;
            float *s = m.xyzr + 4 * h, ns[4];
            double v = sphere_set_uniform(&rng);
            memcpy(ns, s, sizeof ns);
            if (v < 0.7) {
                for (int k = 0; k < 3; k++)
                    ns[k] += (float)((2 * sphere_set_uniform(&rng) - 1) * (0.2 * s[3] + 0.01));
            } else if (v < 0.85) {
                memcpy(ns, src + 4 * (size_t)(sphere_set_uniform(&rng) * (double)pool), sizeof ns);
            } else if (v < 0.95) {
                ns[3] = (float)(s[3] * pow(10.0, 4 * sphere_set_uniform(&rng) - 2));
            } else {
                ns[3] = 0.0f;
            }
            CHECK(vxr_spheres_update(t, h, ns, ns[3]) == VXR_OK);
            memcpy(s, ns, sizeof ns);
        }
        if (step % 500 == 0) {
            sphere_set_points(&prm, (uint64_t)step, m.xyzr, cap, 64, pts);
            /* Points near free slots are just more empty-space points. */
            bad += check_points(t, &m, pts, 64);
            checks++;
            CHECK_EQ_INT(vxr_spheres_count(t), live);
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(checks >= 100);
    for (uint32_t h = 0; h < cap; h++)
        if (m.live[h]) CHECK(vxr_spheres_remove(t, h) == VXR_OK);
    CHECK_EQ_INT(vxr_spheres_count(t), 0);
    CHECK_EQ_INT(vxr_spheres_memory(t), 0);
    float origin[3] = {0, 0, 0};
    CHECK_EQ_INT(vxr_spheres_query(t, origin, false, NULL, NULL), 0);
    vxr_spheres_destroy(t);
    free(m.xyzr);
    free(m.live);
    free(src);
}

/* Steady state allocates nothing: the same churn after warm-up keeps the
 * pools' size; everything removed gives the memory back. */
static void test_memory(void) {
    vxr_spheres *t;
    CHECK(vxr_spheres_create(&t) == VXR_OK);
    CHECK_EQ_INT(vxr_spheres_memory(t), 0);
    const size_t n = 2000;
    sphere_set_params prm = small_world(n);
    float *s = malloc(4 * n * sizeof *s);
    uint32_t *h = malloc(n * sizeof *h);
    sphere_set_spheres(&prm, 5, n, s);
    size_t warm = 0;
    for (int round = 0; round < 5; round++) {
        for (size_t i = 0; i < n; i++)
            CHECK(vxr_spheres_insert(t, s + 4 * i, s[4 * i + 3], i, &h[i]) == VXR_OK);
        /* Remove every other one, then put them back: no growth after round 0. */
        for (size_t i = 0; i < n; i += 2) CHECK(vxr_spheres_remove(t, h[i]) == VXR_OK);
        for (size_t i = 0; i < n; i += 2)
            CHECK(vxr_spheres_insert(t, s + 4 * i, s[4 * i + 3], i, &h[i]) == VXR_OK);
        if (round == 0) warm = vxr_spheres_memory(t);
        CHECK_EQ_INT(vxr_spheres_memory(t), warm);
        for (size_t i = 0; i < n; i++) CHECK(vxr_spheres_remove(t, h[i]) == VXR_OK);
        CHECK_EQ_INT(vxr_spheres_memory(t), 0);
    }
    CHECK(warm > 0);
    vxr_spheres_destroy(t);
    free(s);
    free(h);
}

static void test_bad_input(void) {
    vxr_spheres *t;
    CHECK(vxr_spheres_create(&t) == VXR_OK);
    const float ok[3] = {1, 2, 3}, nan3[3] = {NAN, 0, 0}, inf3[3] = {0, INFINITY, 0};
    uint32_t h, good;
    CHECK(vxr_spheres_insert(t, ok, 1.0f, 0, &good) == VXR_OK);
    CHECK(vxr_spheres_insert(t, nan3, 1.0f, 0, &h) == VXR_ERROR_ARGUMENT && h == UINT32_MAX);
    CHECK(vxr_spheres_insert(t, inf3, 1.0f, 0, &h) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_spheres_insert(t, ok, -1.0f, 0, &h) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_spheres_insert(t, ok, NAN, 0, &h) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_spheres_insert(t, ok, INFINITY, 0, &h) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_spheres_update(t, good, nan3, 1.0f) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_spheres_update(t, good, ok, -0.5f) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_spheres_update(t, 12345, ok, 1.0f) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_spheres_remove(t, 12345) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_spheres_remove(t, UINT32_MAX) == VXR_ERROR_ARGUMENT);
    CHECK_EQ_INT(vxr_spheres_count(t), 1);
    float c[3], r;
    CHECK(vxr_spheres_get(t, good, c, &r, NULL) && r == 1.0f && c[2] == 3.0f);
    CHECK(vxr_spheres_remove(t, good) == VXR_OK);
    CHECK(vxr_spheres_remove(t, good) == VXR_ERROR_ARGUMENT); /* twice */
    CHECK(!vxr_spheres_get(t, good, NULL, NULL, NULL));
    vxr_spheres_destroy(t);
    vxr_spheres_destroy(NULL);
}

/* Boundaries and extremes: distance == r counts, zero radii, float range. */
static void test_extremes(void) {
    static const float s[][4] = {
        {0, 0, 0, 1},
        {0, 0, 0, 0},
        {-3, 4, 0, 5},
        {1e30f, -1e30f, 0, 1e-3f},
        {-3e38f, 3e38f, 0, 1e38f},
        {0.5f, 0.5f, 0.5f, 0},
        {7, 7, 7, 1e-30f},
        {2e9f, 0, 0, 3e9f},
        /* Touching a node boundary at 0: a rounded difference would admit
         * points just below it. */
        {0x1p30f, 5e9f, 0, 0x1p30f},
        {1, 5e9f, 1e9f, 1},
    };
    static const float p[][3] = {{1, 0, 0},
                                 {0, 0, 0},
                                 {0, 0, 0},
                                 {1e30f, -1e30f, 0},
                                 {-3e38f, 3e38f, 0},
                                 {0.5f, 0.5f, 0.5f},
                                 {7, 7, 7},
                                 {-1e9f, 0, 0},
                                 {-1.0000001f, 0, 0},
                                 {0, 0, 1.0000001f},
                                 {1e20f, 1e20f, 1e20f},
                                 {-1e-20f, 5e9f, 0},
                                 {0, 5e9f, 0},
                                 {-1e-30f, 5e9f, 1e9f},
                                 {0, 5e9f, 1e9f}};
    const size_t ns = sizeof s / sizeof s[0], np = sizeof p / sizeof p[0];
    vxr_spheres *t;
    CHECK(vxr_spheres_create(&t) == VXR_OK);
    model m = {malloc(sizeof s), calloc(ns, 1), ns};
    memcpy(m.xyzr, s, sizeof s);
    for (size_t i = 0; i < ns; i++) {
        uint32_t h;
        CHECK(vxr_spheres_insert(t, s[i], s[i][3], i, &h) == VXR_OK && h == i);
        m.live[i] = 1;
    }
    CHECK_EQ_INT(check_points(t, &m, &p[0][0], np), 0);
    uint32_t got[16];
    /* Sphere 7 (radius 3e9 at x = 2e9) holds points 0, 1 and 6 as well. */
    CHECK_EQ_INT(vxr_spheres_collect(t, p[0], true, got, 16), 2); /* on the surface of 0 */
    CHECK_EQ_INT(vxr_spheres_collect(t, p[1], true, got, 16), 4); /* centre, zero radius, 3-4-5 */
    CHECK_EQ_INT(vxr_spheres_collect(t, p[6], true, got, 16), 2);
    CHECK_EQ_INT(vxr_spheres_collect(t, p[8], true, got, 16), 2); /* just outside 0: 2 and 7 */
    const float c8[3] = {0x1p30f, 5e9f, 0}, c9[3] = {1, 5e9f, 1e9f};
    CHECK(!vxr_sphere_contains(c8, 0x1p30f, p[11]) && vxr_sphere_contains(c8, 0x1p30f, p[12]));
    CHECK(!vxr_sphere_contains(c9, 1, p[13]) && vxr_sphere_contains(c9, 1, p[14]));
    /* Shrink everything to points and move it across the world and back. */
    for (uint32_t i = 0; i < ns; i++) {
        const float far[3] = {-s[i][0], s[i][2], s[i][1]};
        CHECK(vxr_spheres_update(t, i, far, 0.0f) == VXR_OK);
        CHECK(vxr_spheres_update(t, i, s[i], s[i][3]) == VXR_OK);
    }
    CHECK_EQ_INT(check_points(t, &m, &p[0][0], np), 0);
    vxr_spheres_destroy(t);
    free(m.xyzr);
    free(m.live);
}

/* Scene culling: the flags equal a brute-force visibility test from many
 * eyes; pickers see only visible instances; NULL turns culling off. */
static void test_scene_culling(void) {
    vxr_scene *s;
    vxr_error err = {{0}};
    CHECK(vxr_scene_load("@world:3000", &s, &err) == VXR_OK);
    if (!s) return;
    vxr_culler *culler = NULL;
    CHECK(vxr_culler_create(s, &culler) == VXR_OK);
    uint64_t rng = 42;
    uint32_t finite = 0, seen_culled = 0, seen_visible = 0, reached_culled = 0;
    for (uint32_t i = 0; i < s->instance_count; i++)
        finite += isfinite(s->instances[i].view_distance) != 0;
    CHECK(finite >= 3000);
    uint32_t prev_visible = UINT32_MAX;
    for (int e = 0; e < 60; e++) {
        const vxr_instance *near =
            &s->instances[(size_t)(sphere_set_uniform(&rng) * s->instance_count)];
        float lo[3], hi[3], eye[3];
        vxr_instance_world_bounds(s, (uint32_t)(near - s->instances), lo, hi);
        for (int k = 0; k < 3; k++)
            eye[k] = 0.5f * (lo[k] + hi[k]) + (float)((2 * sphere_set_uniform(&rng) - 1) * 300);
        uint32_t visible = 0;
        bool changed = false;
        CHECK(vxr_culler_update(culler, s, eye, &visible, &changed) == VXR_OK);
        uint32_t expect = 0;
        int bad = 0;
        for (uint32_t i = 0; i < s->instance_count; i++) {
            const vxr_instance *in = &s->instances[i];
            float a[3], b[3], c[3];
            vxr_instance_world_bounds(s, i, a, b);
            for (int k = 0; k < 3; k++) c[k] = 0.5f * (a[k] + b[k]);
            bool vis =
                !(in->flags & VXR_INSTANCE_HIDDEN) &&
                (!isfinite(in->view_distance) || vxr_sphere_contains(c, in->view_distance, eye));
            expect += vis;
            bad += vis == !!(in->flags & VXR_INSTANCE_CULLED) && !(in->flags & VXR_INSTANCE_HIDDEN);
            seen_culled += !vis;
            seen_visible += vis && isfinite(in->view_distance);
        }
        CHECK_EQ_INT(bad, 0);
        CHECK_EQ_INT(visible, expect);
        if (e > 0 && visible != prev_visible) CHECK(changed);
        prev_visible = visible;
        /* The same eye again changes nothing. */
        CHECK(vxr_culler_update(culler, s, eye, &visible, &changed) == VXR_OK && !changed);
        CHECK_EQ_INT(visible, expect);
        /* Picks towards every culled object near the eye never report it. */
        vxr_picker *p;
        CHECK(vxr_picker_create(s, &p) == VXR_OK);
        for (uint32_t i = 0; i < s->instance_count; i += 7) {
            float a[3], b[3];
            vxr_instance_world_bounds(s, i, a, b);
            vxr_ray r = {{eye[0], eye[1], eye[2]},
                         {0.5f * (a[0] + b[0]) - eye[0], 0.5f * (a[1] + b[1]) - eye[1],
                          0.5f * (a[2] + b[2]) - eye[2]}};
            vxr_pick pk;
            CHECK(vxr_pick_ray(p, &r, 1, &pk) == VXR_OK);
            if (pk.hit) CHECK(!(s->instances[pk.instance].flags & VXR_INSTANCE_CULLED));
            /* Culling off, the same ray may reach the culled object. */
            if (e % 10 == 0 && (s->instances[i].flags & VXR_INSTANCE_CULLED)) {
                CHECK(vxr_culler_update(culler, s, NULL, NULL, NULL) == VXR_OK);
                vxr_picker *all;
                CHECK(vxr_picker_create(s, &all) == VXR_OK);
                CHECK(vxr_pick_ray(all, &r, 1, &pk) == VXR_OK);
                reached_culled += pk.hit && pk.instance == i;
                vxr_picker_destroy(all);
                CHECK(vxr_culler_update(culler, s, eye, NULL, NULL) == VXR_OK);
            }
        }
        vxr_picker_destroy(p);
    }
    CHECK(reached_culled > 0);
    CHECK(seen_culled > 0 && seen_visible > 0);
    uint32_t visible = 0;
    bool changed = false;
    CHECK(vxr_culler_update(culler, s, NULL, &visible, &changed) == VXR_OK && changed);
    uint32_t flagged = 0;
    for (uint32_t i = 0; i < s->instance_count; i++)
        flagged += !!(s->instances[i].flags & VXR_INSTANCE_CULLED);
    CHECK_EQ_INT(flagged, 0);
    CHECK_EQ_INT(visible, s->instance_count);
    const float bad_eye[3] = {0, NAN, 0};
    CHECK(vxr_culler_update(culler, s, bad_eye, NULL, NULL) == VXR_ERROR_ARGUMENT);
    vxr_culler_destroy(culler);
    vxr_scene_destroy(s);
}

VXR_TEST_MAIN(TEST(test_random_sets), TEST(test_edit_sequences), TEST(test_memory),
              TEST(test_bad_input), TEST(test_extremes), TEST(test_scene_culling))
