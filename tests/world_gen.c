/* Generated worlds (vxr_world_open of "@terrain:N"): a window of the
 * terrain's heightfield equals the whole heightfield there, height for
 * height; a generated world with every chunk resident holds exactly the
 * world voxels and colours of the @terrain:N scene (its oracle), for
 * several sizes and chunk sides; chunks with no voxel are not kept; the
 * chunks lie on the grid; edits are refused a write-back; a world of
 * files built from the generator a chunk at a time is the scene's world
 * build byte for byte; bad names and sides are refused. */
#include <math.h>
#include <stdlib.h>
#include "vxr/formats.h"
#include "vxr/spheres.h"
#include "vxr/world.h"
#include "vxr_test.h"
#include "internal.h"
#include "procgen.h"
#include "format_records.h"

static void test_window(void) {
    enum { N = 1000 };
    terrain whole;
    CHECK(vxr_terrain_init(&whole, N, false, 256, 128, 1));
    uint64_t rng = 7;
    for (int k = 0; k < 40; k++) {
        int32_t x0 = (int32_t)(splitmix64(&rng) % N), y0 = (int32_t)(splitmix64(&rng) % N);
        int32_t x1 = x0 + 1 + (int32_t)(splitmix64(&rng) % (uint64_t)(N - x0));
        int32_t y1 = y0 + 1 + (int32_t)(splitmix64(&rng) % (uint64_t)(N - y0));
        terrain part;
        CHECK(vxr_terrain_window(&part, N, false, 256, 128, 1, x0, y0, x1, y1));
        int differ = 0;
        for (int32_t y = y0; y < y1; y++)
            for (int32_t x = x0; x < x1; x++)
                differ += vxr_terrain_raw(&part, x, y) != vxr_terrain_raw(&whole, x, y);
        CHECK_EQ_INT(differ, 0);
        free(part.h);
    }
    free(whole.h);
}

static void check_size(int32_t n, uint32_t side) {
    char spec[64];
    snprintf(spec, sizeof spec, "@terrain:%d", n);
    vxr_scene *scene = NULL;
    CHECK(vxr_scene_load(spec, &scene, NULL) == VXR_OK);
    vxr_world *w = NULL;
    const vxr_world_desc desc = {spec, 0, 0, 2, side};
    vxr_error err = {{0}};
    CHECK(vxr_world_open(&desc, &w, &err) == VXR_OK);
    if (!w || !scene) {
        fprintf(stderr, "  %s: %s\n", spec, err.message);
        vxr_scene_destroy(scene);
        return;
    }
    CHECK(vxr_world_generated(w));
    CHECK(vxr_world_make_resident(w, &err) == VXR_OK);
    vxr_scene *s = vxr_world_scene(w);
    size_t na = 0, nb = 0;
    uint8_t *a = records(scene, &na), *b = records(s, &nb);
    CHECK_EQ_INT(nb, na);
    CHECK(a && b && na == nb && !memcmp(a, b, 16 * na));
    if (!(a && b && na == nb && !memcmp(a, b, 16 * na)))
        fprintf(stderr, "  %s in chunks of %u: other world voxels\n", spec, side);
    /* every resident chunk holds voxels, in its own cells, at its grid cell */
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const vxr_octree *m = &s->models[s->instances[i].model];
        CHECK(m->voxel_count > 0);
        for (int k = 0; k < 3; k++) {
            const float t = s->instances[i].transform.translation[k];
            CHECK(m->vmin[k] >= 0 && m->vmax[k] <= (int32_t)side &&
                  t == (float)side * floorf(t / (float)side));
        }
    }
    vxr_world_status st;
    const float eye[3] = {0, 0, 0};
    CHECK(vxr_world_update(w, eye, &st, NULL) == VXR_OK);
    CHECK_EQ_INT(st.resident, s->instance_count);
    CHECK_EQ_INT(st.chunks, st.resident); /* the empty ones left the count */
    /* edits stay in memory: nothing to write them into */
    CHECK(vxr_world_save(w, NULL, &err) == VXR_ERROR_ARGUMENT && strstr(err.message, spec));
    free(a);
    free(b);
    vxr_world_close(w);
    vxr_scene_destroy(scene);
}

static void test_equals_scene(void) {
    check_size(1, 16);
    check_size(37, 16);
    check_size(300, 64);
    check_size(512, 16);
    check_size(1024, 256);
}

/* The largest: a chunk at the middle and one at a corner come in alone;
 * the chunks around two eyes at once are those either wants. */
static void test_largest(void) {
    vxr_world *w = NULL;
    const vxr_world_desc desc = {"@terrain:65536", 300, 0, 2, 0};
    CHECK(vxr_world_open(&desc, &w, NULL) == VXR_OK);
    if (!w) return;
    vxr_world_status st;
    const float eyes[2][3] = {{10, 10, 100}, {-32700, 32700, 100}};
    for (int e = 0; e < 2; e++) {
        for (int k = 0; k < 100; k++) {
            CHECK(vxr_world_update(w, eyes[e], &st, NULL) == VXR_OK);
            if (!st.loading) break;
            vxr_world_wait(w);
        }
        CHECK(st.missing == 0 && st.resident > 0);
    }
    CHECK_EQ_INT(st.chunks, 256 * 256);
    vxr_world_close(w);
    /* around two eyes at once: exactly the chunks whose grown sphere holds
     * either (brute force over the grid), and all of them hold voxels */
    w = NULL;
    CHECK(vxr_world_open(&desc, &w, NULL) == VXR_OK);
    if (!w) return;
    CHECK(vxr_world_load_around(w, &eyes[0][0], 2, NULL) == VXR_OK);
    int32_t lo, hi, layers;
    vxr_terrain_grid(65536, 256, &lo, &hi, &layers);
    uint32_t want = 0;
    const float half = 128, reach = 300 + half * sqrtf(3.0f);
    for (int32_t z = 0; z < layers; z++)
        for (int32_t y = lo; y <= hi; y++)
            for (int32_t x = lo; x <= hi; x++) {
                const float c[3] = {(float)x * 256 + half, (float)y * 256 + half,
                                    (float)z * 256 + half};
                want += vxr_sphere_contains(c, reach, eyes[0]) ||
                        vxr_sphere_contains(c, reach, eyes[1]);
            }
    const vxr_scene *s = vxr_world_scene(w);
    uint32_t resident = 0;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        if (s->instances[i].flags & VXR_INSTANCE_REMOVED) continue;
        resident++;
        const float *t = s->instances[i].transform.translation;
        const float c[3] = {t[0] + half, t[1] + half, t[2] + half};
        CHECK(vxr_sphere_contains(c, reach, eyes[0]) || vxr_sphere_contains(c, reach, eyes[1]));
    }
    CHECK(want > 0);
    CHECK_EQ_INT(resident, want);
    vxr_world_close(w);
}

static bool same_file(const char *a, const char *b) {
    uint8_t *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    const bool same = vxr_read_file(a, &x, &nx, NULL) == VXR_OK &&
                      vxr_read_file(b, &y, &ny, NULL) == VXR_OK && nx == ny && !memcmp(x, y, nx);
    free(x);
    free(y);
    return same;
}

/* A world built from the generator a chunk at a time is the world built
 * from the @terrain:N scene, file for file and byte for byte. */
static void test_build(void) {
    char work[] = "/tmp/vxr-gen-XXXXXX";
    if (!mkdtemp(work)) return;
    static const struct {
        int32_t n;
        uint32_t side;
    } cases[] = {{300, 64}, {37, 16}, {1000, 256}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char spec[64], a[128], b[128], pa[300], pb[300];
        snprintf(spec, sizeof spec, "@terrain:%d", cases[c].n);
        snprintf(a, sizeof a, "%s/scene%zu", work, c);
        snprintf(b, sizeof b, "%s/gen%zu", work, c);
        vxr_scene *scene = NULL;
        vxr_world_stats sa, sb;
        CHECK(vxr_scene_load(spec, &scene, NULL) == VXR_OK);
        CHECK(scene && vxr_world_build(scene, a, cases[c].side, 0, &sa, NULL) == VXR_OK);
        vxr_error err = {{0}};
        CHECK(vxr_world_build_generated(spec, b, cases[c].side, 0, &sb, &err) == VXR_OK);
        CHECK(sa.chunks == sb.chunks && sa.voxels == sb.voxels && sa.bytes == sb.bytes);
        static const char *const files[] = {VXR_WORLD_INDEX, "palette.vxo"};
        for (int f = 0; f < 2; f++) {
            snprintf(pa, sizeof pa, "%s/%s", a, files[f]);
            snprintf(pb, sizeof pb, "%s/%s", b, files[f]);
            CHECK(same_file(pa, pb));
        }
        uint32_t side = 0, count = 0;
        vxr_world_entry *e = NULL;
        CHECK(vxr_world_read_index(b, &side, &e, &count, NULL) == VXR_OK);
        CHECK_EQ_INT(count, sb.chunks);
        int differ = 0;
        for (uint32_t i = 0; e && i < count; i++) {
            vxr_world_chunk_path(pa, sizeof pa, a, e[i].c, false);
            vxr_world_chunk_path(pb, sizeof pb, b, e[i].c, false);
            differ += !same_file(pa, pb);
        }
        CHECK_EQ_INT(differ, 0);
        free(e);
        vxr_scene_destroy(scene);
    }
    /* refused: an existing directory, a bad side, a name that is not one */
    vxr_error err = {{0}};
    char b[128];
    snprintf(b, sizeof b, "%s/gen0", work);
    CHECK(vxr_world_build_generated("@terrain:64", b, 64, 0, NULL, &err) == VXR_ERROR_IO);
    snprintf(b, sizeof b, "%s/new", work);
    CHECK(vxr_world_build_generated("@terrain:64", b, 48, 0, NULL, &err) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_world_build_generated("@demo", b, 64, 0, NULL, &err) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_world_build_generated("@terrain:65536", b, 16, 0, NULL, &err) == VXR_ERROR_LIMIT);
    CHECK(!vxr_is_world(b));
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
    CHECK(system(cmd) == 0);
}

static void test_refused(void) {
    static const struct {
        const char *path;
        uint32_t chunk;
        const char *says;
    } bad[] = {{"@terrain:0", 0, "N from 1"},   {"@terrain:65537", 0, "N from 1"},
               {"@terrain:", 0, "N from 1"},    {"@terrain:12x", 0, "N from 1"},
               {"@demo", 0, "@terrain:N"},      {"@terrain:64", 48, "power of two"},
               {"@terrain:65536", 16, "chunks"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        vxr_world *w = NULL;
        vxr_error err = {{0}};
        const vxr_world_desc desc = {bad[i].path, 0, 0, 1, bad[i].chunk};
        CHECK(vxr_world_open(&desc, &w, &err) != VXR_OK && !w);
        CHECK(strstr(err.message, bad[i].says) != NULL);
        if (!strstr(err.message, bad[i].says))
            fprintf(stderr, "  %s: %s\n", bad[i].path, err.message);
    }
}

VXR_TEST_MAIN(TEST(test_window), TEST(test_equals_scene), TEST(test_largest), TEST(test_build),
              TEST(test_refused))
