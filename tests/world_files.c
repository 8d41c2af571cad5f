/* Worlds on disk (vxr/world.h): scenes cut into chunks of several sides and
 * opened again hold the same world voxels and colours (sorted .vl32
 * records, the scene's own as the oracle) and answer CPU picks with the same
 * cube, t, face and colour; worlds named by their directory or their
 * index; chunk sides, placements and an existing directory refused; every
 * damage to the index or a chunk file refused naming the file (and line). */
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "vxr/formats.h"
#include "vxr/pick.h"
#include "vxr/world.h"
#include "vxr_test.h"
#include "internal.h"
#include "format_records.h"

static char work[256];
VXR_TEST_RNG(7)

static float unit(void) {
    return (float)rnd() / 4294967296.0f;
}

static void remove_tree(const char *dir) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

/* A record and its place in the instance order. */
typedef struct ordered {
    uint8_t r[16];
    size_t at;
} ordered;

static int cmp_ordered(const void *a, const void *b) {
    const ordered *x = a, *y = b;
    const int c = memcmp(x->r, y->r, 12);
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* The world cells of s, each once with the colour of the last instance
 * that fills it, as sorted records. */
static uint8_t *world_cells(const vxr_scene *s, size_t *n) {
    uint8_t *d = NULL;
    size_t size = 0;
    CHECK(vxr_save_vl32(s, &d, &size, NULL) == VXR_OK);
    const size_t k = size / 16;
    ordered *o = malloc((k + 1) * sizeof *o);
    uint8_t *out = malloc(size + 1);
    *n = 0;
    for (size_t i = 0; o && i < k; i++) {
        memcpy(o[i].r, d + 16 * i, 16);
        o[i].at = i;
    }
    if (o && k) qsort(o, k, sizeof *o, cmp_ordered);
    for (size_t i = 0; o && out && i < k; i++)
        if (i + 1 == k || memcmp(o[i].r, o[i + 1].r, 12)) memcpy(out + 16 * (*n)++, o[i].r, 16);
    free(o);
    free(d);
    return out;
}

static int cmp_cell(const void *a, const void *b) {
    return memcmp(a, b, 12);
}

static bool same_records(const vxr_scene *a, const vxr_scene *b) {
    size_t na = 0, nb = 0;
    uint8_t *x = world_cells(a, &na), *y = world_cells(b, &nb);
    const bool same = x && y && na == nb && !memcmp(x, y, 16 * na);
    free(x);
    free(y);
    return same;
}

/* Rays from a ring of eyes around the scene's bounds towards points in it:
 * the world's picks hit the same world cube at the same t, face and colour. */
static void check_picks(const vxr_scene *scene, const vxr_scene *world, const char *name) {
    vxr_scene_stats st;
    vxr_scene_get_stats(scene, &st);
    size_t n_cells = 0;
    uint8_t *cells = world_cells(scene, &n_cells);
    vxr_picker *ps = NULL, *pw = NULL;
    CHECK(vxr_picker_create(scene, &ps) == VXR_OK);
    CHECK(vxr_picker_create(world, &pw) == VXR_OK);
    size_t differ = 0, hits = 0;
    float lo[3], hi[3], mid[3], r = 0;
    for (int k = 0; k < 3; k++) {
        lo[k] = (float)st.aabb_min[k];
        hi[k] = (float)st.aabb_max[k];
        mid[k] = (lo[k] + hi[k]) / 2;
        r += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    }
    r = sqrtf(r) + 4;
    for (int i = 0; ps && pw && i < 4000; i++) {
        vxr_ray ray;
        const float a = 6.2831853f * unit(), z = 0.6f * unit();
        const float eye[3] = {mid[0] + r * cosf(a), mid[1] + r * sinf(a), mid[2] + r * z};
        for (int k = 0; k < 3; k++) {
            const float to = lo[k] + (hi[k] - lo[k]) * unit();
            ray.origin[k] = eye[k];
            ray.dir[k] = to - eye[k];
        }
        vxr_pick a_, b_;
        CHECK(vxr_pick_ray(ps, &ray, 1, &a_) == VXR_OK);
        CHECK(vxr_pick_ray(pw, &ray, 1, &b_) == VXR_OK);
        hits += a_.hit != 0;
        /* t in the last bits: each chunk's instance transform rounds its own way;
         * the face in model axes: compare world normals; the colour: the cell's
         * (a cell several instances fill has the last one's) */
        bool d = a_.hit != b_.hit;
        if (a_.hit && b_.hit) {
            uint8_t key[12];
            for (int k = 0; k < 3; k++)
                vxr_put_be32(key + 4 * k, (uint32_t)(int32_t)a_.world_min[k]);
            const uint8_t *cell = bsearch(key, cells, n_cells, 16, cmp_cell);
            const uint32_t c = cell ? (uint32_t)cell[13] | (uint32_t)cell[14] << 8 |
                                          (uint32_t)cell[15] << 16 | (uint32_t)cell[12] << 24
                                    : 0;
            d = fabsf(a_.t - b_.t) > 1e-5f * a_.t || a_.normal[0] != b_.normal[0] ||
                a_.normal[1] != b_.normal[1] || a_.normal[2] != b_.normal[2] || b_.color != c ||
                memcmp(a_.world_min, b_.world_min, sizeof a_.world_min);
        }
        if (d && differ < 3)
            fprintf(stderr, "  t %.9g/%.9g normal %g,%g,%g/%g,%g,%g colour %08x/%08x\n", a_.t, b_.t,
                    a_.normal[0], a_.normal[1], a_.normal[2], b_.normal[0], b_.normal[1],
                    b_.normal[2], a_.color, b_.color);
        differ += d;
    }
    if (differ) fprintf(stderr, "  %s: %zu of 4000 picks differ (%zu hits)\n", name, differ, hits);
    CHECK_EQ_INT(differ, 0);
    CHECK(hits > 100);
    free(cells);
    vxr_picker_destroy(ps);
    vxr_picker_destroy(pw);
}

static void check_world(const char *spec, uint32_t side, bool picks) {
    vxr_scene *s = load_file(spec);
    if (!s) return;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/w%u", work, side);
    remove_tree(dir);
    vxr_world_stats st;
    vxr_error err = {{0}};
    const vxr_result r = vxr_world_build(s, dir, side, 0, &st, &err);
    if (r != VXR_OK) fprintf(stderr, "  %s: %s\n", spec, err.message);
    CHECK(r == VXR_OK);
    CHECK(vxr_is_world(dir));
    vxr_scene *w = load_file(dir);
    char index[600];
    snprintf(index, sizeof index, "%s/world.vxw", dir);
    vxr_scene *w2 = load_file(index);
    if (w && w2) {
        CHECK_EQ_INT(w->instance_count, st.chunks);
        vxr_scene_stats a, b;
        vxr_scene_get_stats(s, &a);
        vxr_scene_get_stats(w, &b);
        CHECK_EQ_INT(b.model_voxels, st.voxels);
        if (!same_records(s, w)) {
            fprintf(stderr, "  %s at chunk %u: other world voxels\n", spec, side);
            CHECK(0);
        }
        CHECK(same_records(w, w2));
        for (int k = 0; k < 3; k++) {
            CHECK_EQ_INT(a.aabb_min[k], b.aabb_min[k]);
            CHECK_EQ_INT(a.aabb_max[k], b.aabb_max[k]);
        }
        if (picks) check_picks(s, w, spec);
    }
    vxr_scene_destroy(w);
    vxr_scene_destroy(w2);
    vxr_scene_destroy(s);
    remove_tree(dir);
}

static void test_worlds(void) {
    check_world(VXR_TEST_DATA "/mmmm__scene_store8.vox", 16, true);
    check_world(VXR_TEST_DATA "/mmmm__scene_store8.vox", 256, true);
    check_world(VXR_TEST_DATA "/vengi__test-transform.vox", 32, true);
    check_world(VXR_TEST_DATA "/vengi__8ontop.vox", 64, true);
    check_world(VXR_TEST_DATA "/ogt__test_multiple_model_scene.vox", 16, false);
    check_world("@menger:3", 16, true);
    check_world("@terrain:300", 128, true);
}

/* Cells two instances fill take the later one's colour, as in .vl32. */
static void test_overlap(void) {
    vxr_scene_src src;
    vxr_scene_src_init(&src, 1);
    for (uint32_t i = 1; i <= 2; i++) src.palette[i] = vxr_rgba((uint8_t)(100 * i), 20, 30, 255);
    uint32_t m;
    for (uint32_t k = 0; k < 2; k++) {
        CHECK(vxr_scene_src_add_model(&src, &m) == VXR_OK);
        for (int32_t x = 0; x < 20; x++) vxr_model_src_push(&src.models[m], x, 0, 0, k + 1);
        vxr_instance in = {0};
        in.model = m;
        in.view_distance = INFINITY;
        in.transform.scale = 1;
        in.transform.rotation[0] = in.transform.rotation[4] = in.transform.rotation[8] = 1;
        in.transform.translation[0] = (float)(5 * k) - 3;
        CHECK(vxr_scene_src_add_instance(&src, &in) == VXR_OK);
    }
    vxr_scene *s = NULL;
    CHECK(vxr_scene_build(&src, &s, NULL) == VXR_OK);
    vxr_scene_src_free(&src);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/overlap", work);
    vxr_world_stats st;
    CHECK(s && vxr_world_build(s, dir, 16, 1, &st, NULL) == VXR_OK);
    CHECK_EQ_INT(st.voxels, 25);
    vxr_scene *w = load_file(dir);
    size_t n = 0;
    uint8_t *rec = w ? records(w, &n) : NULL;
    CHECK_EQ_INT(n, 25);
    for (size_t i = 0; rec && i < n; i++) {
        const int32_t x = (int32_t)vxr_get_be32(rec + 16 * i);
        CHECK(rec[16 * i + 13] == (x >= 2 ? 200 : 100)); /* ARGB: red */
    }
    free(rec);
    vxr_scene_destroy(w);
    vxr_scene_destroy(s);
    remove_tree(dir);
}

static void expect_fail(const char *dir, vxr_result want, const char *says) {
    vxr_scene *w = NULL;
    vxr_error err = {{0}};
    const vxr_result r = vxr_world_load(dir, &w, &err);
    CHECK(r == want && !w && strstr(err.message, says) && !strchr(err.message, '\n'));
    if (!(r == want && strstr(err.message, says)))
        fprintf(stderr, "  expected '%s', got %d: %s\n", says, (int)r, err.message);
    vxr_scene_destroy(w);
}

static void write_text(const char *path, const char *text) {
    CHECK(vxr_write_file(path, text, strlen(text), NULL) == VXR_OK);
}

static void test_refused(void) {
    vxr_scene *s = load_file(VXR_TEST_DATA "/vengi__test-transform.vox");
    vxr_scene *demo = load_file("@demo");
    if (!s || !demo) return;
    char dir[512], index[600], path[700];
    snprintf(dir, sizeof dir, "%s/bad", work);
    vxr_error err = {{0}};
    CHECK(vxr_world_build(s, dir, 24, 0, NULL, &err) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_world_build(s, dir, 8, 0, NULL, &err) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_world_build(demo, dir, 64, 0, NULL, &err) == VXR_ERROR_LIMIT);
    CHECK(strstr(err.message, "instance 1") != NULL);
    CHECK(access(dir, F_OK) != 0); /* nothing written */
    CHECK(vxr_world_build(s, dir, 32, 0, NULL, &err) == VXR_OK);
    CHECK(vxr_world_build(s, dir, 32, 0, NULL, &err) == VXR_ERROR_IO);
    CHECK(strstr(err.message, "exists") != NULL);
    snprintf(index, sizeof index, "%s/world.vxw", dir);
    uint8_t *good = NULL;
    size_t size = 0;
    CHECK(vxr_read_file(index, &good, &size, NULL) == VXR_OK);
    /* the index, damaged */
    static const struct {
        const char *text, *says;
    } bad[] = {{"", "world.vxw:1: not a vxr world"},
               {"vxr world 3\nchunk 32\nchunks 0\n", ":1: not a vxr world"},
               {"vxr world 1\nchunk 48\nchunks 0\n", ":2: expected 'chunk N'"},
               {"vxr world 1\nchunk 32\nchunks -1\n", ":3: expected 'chunks K'"},
               {"vxr world 1\nchunk 32\nchunks 2\n0 0 0 5\n", ":5: expected 'CX CY CZ VOXELS'"},
               {"vxr world 1\nchunk 32\nchunks 1\n0 0 0 0\n", ":4: expected 'CX CY CZ VOXELS'"},
               {"vxr world 1\nchunk 32\nchunks 1\n0 0 0 1 2\n", ":4: expected"},
               {"vxr world 1\nchunk 32\nchunks 1\n0 0 x 1\n", ":4: expected"},
               {"vxr world 1\nchunk 32\nchunks 0\n1 2 3 4\n", ":4: more lines"},
               {"vxr world 1\nchunk 32\nchunks 3\n1 2 3 4\n0 0 0 1\n1 2 3 5\n",
                ":6: chunk 1 2 3 is listed on line 4 too"},
               {"vxr world 1\nchunk 32\nchunks 1\n99 0 0 4\n", "99.0.0.vxc"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_text(index, bad[i].text);
        expect_fail(dir, i < 10 ? VXR_ERROR_FORMAT : VXR_ERROR_IO, bad[i].says);
    }
    /* a chunk file that is not the one the index names: another's, cut, junk */
    CHECK(vxr_write_file(index, good, size, NULL) == VXR_OK);
    vxr_scene *w = load_file(dir);
    char first[700] = "", second[700];
    uint8_t *a_copy = NULL;
    size_t na_copy = 0;
    if (w && w->instance_count >= 2) {
        int32_t c[2][3];
        for (int i = 0; i < 2; i++)
            for (int k = 0; k < 3; k++)
                c[i][k] = (int32_t)floorf(w->instances[i].transform.translation[k] / 32);
        snprintf(first, sizeof first, "%s/chunks/%d.%d.%d.vxc", dir, c[0][0], c[0][1], c[0][2]);
        snprintf(second, sizeof second, "%s/chunks/%d.%d.%d.vxc", dir, c[1][0], c[1][1], c[1][2]);
        uint8_t *a = NULL, *b = NULL;
        size_t na = 0, nb = 0;
        CHECK(vxr_read_file(first, &a, &na, NULL) == VXR_OK);
        CHECK(vxr_read_file(second, &b, &nb, NULL) == VXR_OK);
        CHECK(vxr_write_file(first, b, nb, NULL) == VXR_OK);
        expect_fail(dir, VXR_ERROR_FORMAT, "not the chunk the index names");
        CHECK(vxr_write_file(first, a, na / 2, NULL) == VXR_OK);
        expect_fail(dir, VXR_ERROR_FORMAT, first);
        unlink(first);
        expect_fail(dir, VXR_ERROR_IO, first);
        a_copy = a;
        na_copy = na;
        free(b);
    }
    /* the palette file gone */
    if (a_copy) CHECK(vxr_write_file(first, a_copy, na_copy, NULL) == VXR_OK);
    snprintf(path, sizeof path, "%s/palette.vxo", dir);
    CHECK(unlink(path) == 0);
    expect_fail(dir, VXR_ERROR_IO, "palette.vxo");
    snprintf(path, sizeof path, "%s/nothing", work);
    CHECK(!vxr_is_world(path) && !vxr_is_world(VXR_TEST_DATA));
    vxr_scene_destroy(w);
    free(good);
    free(a_copy);
    vxr_scene_destroy(s);
    vxr_scene_destroy(demo);
    remove_tree(dir);
}

int run(int argc, char **argv);

int main(int argc, char **argv) {
    snprintf(work, sizeof work, "/tmp/vxr-world-XXXXXX");
    if (!mkdtemp(work)) return 1;
    const int r = run(argc, argv);
    remove_tree(work);
    return r;
}

/* the tests' main, as run() */
#define main run
VXR_TEST_MAIN(TEST(test_worlds), TEST(test_overlap), TEST(test_refused))
