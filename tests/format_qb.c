/* Qubicle .qb: the files vengi wrote of one model as .qb and .vox hold the
 * same world voxels and colours; hand-made files in every header variant
 * (compressed or not, RGBA or BGRA, left- or right-handed, visibility mask)
 * against the voxels their cells name under the documented axis map; and
 * hostile files (every truncation, bad flags, runs past a slice, run
 * bombs, sizes beyond the coordinate range) fail cleanly. The comparisons
 * go through the .vl32 export, which format_files holds against a brute
 * force walk of the instanced voxels. */
#include <string.h>
#include "internal.h" /* core/: the byte order helpers */
#include "vxr_test.h"
#include "format_records.h"

VXR_TEST_RNG(0x9e3779b97f4a7c15ull)

static vxr_scene *load_bytes(const uint8_t *data, size_t size, vxr_error *err) {
    vxr_scene_src src;
    vxr_scene *s = NULL;
    if (vxr_load_qb(data, size, &src, err) != VXR_OK) return NULL;
    CHECK(vxr_scene_build(&src, &s, err) == VXR_OK);
    vxr_scene_src_free(&src);
    return s;
}

static void test_qb_matches_vox(void) {
    check_stems_match_vox(".qb");
    /* A real file with ten matrices, RLE and the visibility mask. */
    vxr_scene *s = NULL;
    CHECK(vxr_scene_load(VXR_TEST_DATA "/vengi__qubicle.qb", &s, NULL) == VXR_OK);
    if (s) {
        CHECK_EQ_INT(s->model_count, 10);
        CHECK_EQ_INT(s->instance_count, 10);
    }
    vxr_scene_destroy(s);
}

/* A right-handed file: the Minecraft region of ../shared/data (when the
 * folder is there) against its .vox conversion (MANIFEST.md), which holds
 * the same 3,958,985 voxels and colours, each set moved to start at its
 * own least corner. */
static void test_qb_right_handed(void) {
    const char *qb = VXR_SHARED_DATA "/qb/vengi__r.0.-2.qb",
               *vox = VXR_SHARED_DATA "/vox/large__minecraft_region_from_qb.vox";
    FILE *f = fopen(qb, "rb");
    if (!f) SKIP("no shared data folder");
    fclose(f);
    vxr_scene *a = NULL, *b = NULL;
    CHECK(vxr_scene_load(qb, &a, NULL) == VXR_OK);
    CHECK(vxr_scene_load(vox, &b, NULL) == VXR_OK);
    size_t na = 0, nb = 0;
    uint8_t *ra = a ? records(a, &na) : NULL, *rb = b ? records(b, &nb) : NULL;
    CHECK_EQ_INT(na, 3958985);
    CHECK_EQ_INT(nb, 3958985);
    if (ra && rb && na == nb) {
        int32_t lo[2][3];
        for (int k = 0; k < 3; k++) lo[0][k] = lo[1][k] = INT32_MAX;
        for (size_t i = 0; i < na; i++) {
            uint8_t *p = ra + 16 * i;
            for (int k = 0; k < 3; k++) {
                int32_t u = (int32_t)vxr_get_be32(p + 4 * k),
                        v = (int32_t)vxr_get_be32(rb + 16 * i + 4 * k);
                if (u < lo[0][k]) lo[0][k] = u;
                if (v < lo[1][k]) lo[1][k] = v;
            }
        }
        for (size_t i = 0; i < na; i++)
            for (int k = 0; k < 3; k++)
                for (int w = 0; w < 2; w++) {
                    uint8_t *p = (w ? rb : ra) + 16 * i + 4 * k;
                    vxr_put_be32(p, (uint32_t)((int32_t)vxr_get_be32(p) - lo[w][k]));
                }
        qsort(ra, na, 16, cmp_record);
        qsort(rb, nb, 16, cmp_record);
        CHECK(!memcmp(ra, rb, 16 * na));
    }
    VXR_FREE(ra, rb);
    vxr_scene_destroy(a);
    vxr_scene_destroy(b);
}

/* ------------------------------------------------------------------ hand-made files */

typedef struct qb_file {
    uint8_t *d;
    size_t n, cap;
} qb_file;

static void put(qb_file *f, uint32_t v) {
    if (f->n + 4 > f->cap) {
        f->cap = f->cap ? 2 * f->cap : 256;
        f->d = realloc(f->d, f->cap);
        if (!f->d) abort();
    }
    vxr_put32(f->d + f->n, v);
    f->n += 4;
}

/* One matrix of random cells, written in the given variant; the expected
 * records appended to want (*nw of them). */
static void add_matrix(qb_file *f, const uint32_t head[6], const uint32_t size[3],
                       const int32_t pos[3], uint8_t *want, size_t *nw) {
    put(f, 0); /* a name of length 0, then size and position: 25 bytes */
    f->n -= 3;
    for (int k = 0; k < 3; k++) put(f, size[k]);
    for (int k = 0; k < 3; k++) put(f, (uint32_t)pos[k]);
    static const uint32_t colours[] = {0x00000000u, 0xff102030u, 0x7f405060u, 0x01abcdefu};
    for (uint32_t z = 0; z < size[2]; z++) {
        uint32_t slice = size[0] * size[1];
        for (uint32_t c = 0; c < slice;) {
            uint32_t run = 1 + (uint32_t)(rnd() % 5);
            if (run > slice - c) run = slice - c;
            uint32_t stored = colours[rnd() % 4];
            if (head[3] && run > 1) {
                put(f, 2);
                put(f, run);
                put(f, stored);
            } else {
                for (uint32_t i = 0; i < run; i++) put(f, stored);
            }
            if (stored >> 24) {
                /* bytes in the file: r g b a (RGBA) or b g r a (BGRA) */
                uint32_t lo = stored & 255, mid = (stored >> 8) & 255, hi = (stored >> 16) & 255;
                uint32_t r = head[1] ? hi : lo, b = head[1] ? lo : hi;
                uint32_t argb = 0xff000000u | r << 16 | mid << 8 | b;
                for (uint32_t i = 0; i < run; i++) {
                    int64_t x = (int64_t)pos[0] + (c + i) % size[0],
                            y = (int64_t)pos[1] + (c + i) / size[0], zz = (int64_t)pos[2] + z;
                    const int64_t w[3] = {head[2] ? x : -x - 1, head[2] ? -zz - 1 : zz, y};
                    uint8_t *p = want + 16 * (*nw)++;
                    for (int k = 0; k < 3; k++) vxr_put_be32(p + 4 * k, (uint32_t)(int32_t)w[k]);
                    vxr_put_be32(p + 12, argb);
                }
            }
            c += run;
        }
        if (head[3]) put(f, 6);
    }
}

static void test_qb_variants(void) {
    for (uint32_t variant = 0; variant < 16; variant++) {
        const uint32_t head[6] = {
            0x101, variant & 1, (variant >> 1) & 1, (variant >> 2) & 1, (variant >> 3) & 1, 2};
        qb_file f = {0};
        for (int i = 0; i < 6; i++) put(&f, head[i]);
        uint8_t *want = malloc(16 * 2 * 9 * 7 * 5);
        size_t nw = 0;
        const uint32_t s0[3] = {9, 7, 5}, s1[3] = {3, 4, 2};
        const int32_t p0[3] = {-4, 2, -3}, p1[3] = {20, -10, 7};
        add_matrix(&f, head, s0, p0, want, &nw);
        add_matrix(&f, head, s1, p1, want, &nw);
        qsort(want, nw, 16, cmp_record);
        vxr_error err = {{0}};
        vxr_scene *s = load_bytes(f.d, f.n, &err);
        CHECK(s != NULL);
        if (!s) fprintf(stderr, "  variant %u: %s\n", variant, err.message);
        size_t n = 0;
        uint8_t *got = s ? records(s, &n) : NULL;
        CHECK_EQ_INT(n, nw);
        CHECK(s && n == nw && (nw == 0 || !memcmp(got, want, 16 * nw)));
        if (s) CHECK_EQ_INT(s->model_count, 2);
        vxr_scene_destroy(s);
        VXR_FREE(got, want, f.d);
    }
}

/* ------------------------------------------------------------------ hostile files */

static void rejects(const uint8_t *d, size_t n, vxr_result want, const char *what) {
    check_rejects(vxr_load_qb, d, n, want, what);
}

static void test_qb_hostile(void) {
    size_t size;
    uint8_t *raw;
    CHECK(vxr_read_file(VXR_TEST_DATA "/vengi__qubicle.qb", &raw, &size, NULL) == VXR_OK);
    if (!raw) return;
    /* Every proper prefix is truncated somewhere. */
    for (size_t n = 0; n < size; n++) rejects(raw, n, VXR_ERROR_FORMAT, "prefix");
    uint8_t *d = malloc(size);
    for (int flag = 1; flag <= 4; flag++) { /* flags other than 0 and 1 */
        memcpy(d, raw, size);
        vxr_put32(d + 4 * flag, 2);
        rejects(d, size, VXR_ERROR_FORMAT, "flag");
    }
    memcpy(d, raw, size);
    vxr_put32(d + 20, 0xffffffffu); /* matrices that cannot fit */
    rejects(d, size, VXR_ERROR_FORMAT, "matrix count");
    /* The first matrix ("Legs", name at byte 24): its size and position. */
    const size_t at = 24 + 1 + 4;
    const uint32_t bad[][2] = {{0, 0}, {0, 1u << 21}, {12, 0x7fffffffu}, {16, 0x80000000u}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memcpy(d, raw, size);
        vxr_put32(d + at + bad[i][0], bad[i][1]);
        rejects(d, size, VXR_ERROR_FORMAT, "size or position");
    }
    free(d);
    free(raw);
    /* A run past its slice, and a run bomb: 2^20 x 2^20 slices, each one
     * run of the whole slice, hit the voxel limit before any allocation of
     * that size. */
    qb_file f = {0};
    const uint32_t head[6] = {0x101, 0, 0, 1, 0, 1};
    for (int i = 0; i < 6; i++) put(&f, head[i]);
    const size_t matrix = f.n;
    put(&f, 0);
    f.n -= 3;
    const uint32_t m[6] = {4, 4, 1, 0, 0, 0};
    for (int i = 0; i < 6; i++) put(&f, m[i]);
    put(&f, 2);
    put(&f, 17);
    put(&f, 0xff0000ffu);
    put(&f, 6);
    rejects(f.d, f.n, VXR_ERROR_FORMAT, "run past the slice");
    vxr_put32(f.d + matrix + 1, 1u << 20);
    vxr_put32(f.d + matrix + 5, 1u << 20);
    vxr_put32(f.d + matrix + 29, 1u << 30);
    rejects(f.d, f.n, VXR_ERROR_LIMIT, "run bomb");
    free(f.d);
}

/* ------------------------------------------------------------------ saving */

/* Every file of tests/data saved as .qb reads back as the same world
 * voxels and colours, and saving that again gives the same bytes. */
static void test_qb_round_trip(void) {
    static const char *files[] = {"vengi__qubicle.qb",         "vengi__rgb.qb",
                                  "vengi__rgb_small.qb",       "vengi__rgb.vox",
                                  "mmmm__scene_store8.vox",    "vengi__test-transform.vox",
                                  "vengi__8ontop.vox",         "ogt__test_multiple_model_scene.vox",
                                  "bevy_vox_scene__study.vox", "floooh__scene.vox",
                                  "voxelio__debug.vl32",       "mmmm__chr_robot.vox"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, VXR_TEST_DATA "/%s", files[i]);
        vxr_scene *a = NULL;
        vxr_error err = {{0}};
        CHECK(vxr_scene_load(path, &a, &err) == VXR_OK);
        if (!a) continue;
        uint8_t *qb = NULL, *again = NULL;
        size_t n = 0, n2 = 0;
        CHECK(vxr_save_qb(a, &qb, &n, &err) == VXR_OK);
        vxr_scene *b = qb ? load_bytes(qb, n, &err) : NULL;
        CHECK(b != NULL);
        if (!b) fprintf(stderr, "  %s: %s\n", files[i], err.message);
        size_t na = 0, nb = 0;
        uint8_t *ra = records(a, &na), *rb = b ? records(b, &nb) : NULL;
        CHECK_EQ_INT(na, nb);
        CHECK(na > 0 && na == nb && !memcmp(ra, rb, 16 * na));
        if (b) CHECK(vxr_save_qb(b, &again, &n2, NULL) == VXR_OK);
        CHECK(again && n2 == n && !memcmp(again, qb, n));
        VXR_FREE(qb, again, ra, rb);
        vxr_scene_destroy(a);
        vxr_scene_destroy(b);
    }
}

VXR_TEST_MAIN(TEST(test_qb_matches_vox), TEST(test_qb_right_handed), TEST(test_qb_variants),
              TEST(test_qb_hostile), TEST(test_qb_round_trip))
