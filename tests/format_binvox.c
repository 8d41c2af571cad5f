/* binvox: vengi's test.binvox against a decoder written here from the
 * format description (sscanf of the header, the runs into a dense bitmap,
 * index x*W*H + z*W + y, vxr cell (x, -z-1, y)), and its voxel count
 * against ../shared/data/MANIFEST.md (78075); hostile headers and runs
 * fail cleanly, every truncation included. The comparison goes through the
 * .vl32 export, which format_files holds against a brute-force walk. */
#include <string.h>
#include "internal.h" /* core/: the byte order helpers */
#include "vxr_test.h"
#include "format_records.h"

static int cmp_cell(const void *a, const void *b) {
    return memcmp(a, b, 12);
}

static void test_binvox_real_file(void) {
    size_t size = 0;
    uint8_t *raw = NULL;
    CHECK(vxr_read_file(VXR_TEST_DATA "/vengi__test.binvox", &raw, &size, NULL) == VXR_OK);
    if (!raw) return;
    /* the oracle */
    int d = 0, h = 0, w = 0;
    const char *text = (const char *)raw;
    CHECK(sscanf(text, "#binvox 1\ndim %d %d %d\n", &d, &h, &w) == 3);
    const char *data = strstr(text, "\ndata\n");
    CHECK(data != NULL && d > 0 && h > 0 && w > 0);
    if (!data) return;
    size_t at = (size_t)(data - text) + 6, cells = (size_t)d * (size_t)h * (size_t)w, i = 0;
    uint8_t *want = malloc(16 * cells);
    size_t nw = 0;
    for (; at + 1 < size && i < cells; at += 2)
        for (int k = 0; k < raw[at + 1]; k++, i++)
            if (raw[at]) {
                const long x = (long)(i / ((size_t)w * (size_t)h)),
                           z = (long)(i / (size_t)w % (size_t)h), y = (long)(i % (size_t)w);
                const long c[3] = {x, -z - 1, y};
                uint8_t *p = want + 16 * nw++;
                for (int q = 0; q < 3; q++) vxr_put_be32(p + 4 * q, (uint32_t)(int32_t)c[q]);
                vxr_put_be32(p + 12, 0xffb4b4b4u);
            }
    CHECK(i == cells && at == size);
    CHECK_EQ_INT(nw, 78075); /* MANIFEST.md */
    qsort(want, nw, 16, cmp_record);
    vxr_scene *s = NULL;
    CHECK(vxr_scene_load(VXR_TEST_DATA "/vengi__test.binvox", &s, NULL) == VXR_OK);
    size_t n = 0;
    uint8_t *got = s ? records(s, &n) : NULL;
    CHECK_EQ_INT(n, nw);
    CHECK(got && n == nw && !memcmp(got, want, 16 * n));
    vxr_scene_destroy(s);
    VXR_FREE(got, want, raw);
}

static void rejects(const char *bytes, size_t n, vxr_result want, const char *what) {
    check_rejects(vxr_load_binvox, (const uint8_t *)bytes, n, want, what);
}

static void test_binvox_hostile(void) {
    size_t size = 0;
    uint8_t *raw = NULL;
    CHECK(vxr_read_file(VXR_TEST_DATA "/vengi__test.binvox", &raw, &size, NULL) == VXR_OK);
    if (!raw) return;
    for (size_t n = 0; n < size; n += n < 200 ? 1 : 97)
        rejects((const char *)raw, n, VXR_ERROR_FORMAT, "prefix");
    free(raw);
    static const char *bad[] = {
        "#binvo 1\ndim 1 1 1\ndata\n\x01\x01",        /* no magic */
        "#binvox 1\ndata\n\x01\x01",                  /* no dim */
        "#binvox 1\ndim 0 1 1\ndata\n",               /* empty size */
        "#binvox 1\ndim 1 1 1048577\ndata\n\x01\x01", /* over 2^20 */
        "#binvox 1\ndim 1 1 99999999999999999999\ndata\n\x01\x01",
        "#binvox 1\ndim 1 1\ndata\n\x01\x01",             /* two sizes */
        "#binvox 1\ndim 1 1 1 1\ndata\n\x01\x01",         /* four sizes */
        "#binvox 1\ndim 1 1 1\ncolour 3\ndata\n\x01\x01", /* unknown line */
        "#binvox 1\ndim 2 1 1\ndata\n\x01\x03",           /* a run past the end */
        "#binvox 1\ndim 2 1 1\ndata\n\x01\x02\x00",       /* a byte after */
        "#binvox 1\ndim 2 1 1\ndata\n\x01\x01",           /* runs end early */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t n = strlen(bad[i]);
        /* the pairs' bytes may hold 0: the lengths are those of the literals */
        if (i == 9) n += 1;
        rejects(bad[i], n, VXR_ERROR_FORMAT, bad[i]);
    }
    /* Good small files: CRLF lines, translate and scale read past. */
    vxr_scene_src src;
    const char good[] = "#binvox 1\r\ndim 2 1 1\r\ntranslate 0 0 0\r\nscale 1\r\ndata\r\n\x01\x02";
    CHECK(vxr_load_binvox((const uint8_t *)good, sizeof good - 1, &src, NULL) == VXR_OK);
    CHECK(src.model_count == 1 && src.models[0].count == 2);
    vxr_scene_src_free(&src);
}

/* The distinct world cells of a scene, sorted (12 bytes each: x, y, z). */
static uint8_t *cells_of(const vxr_scene *s, size_t *n) {
    uint8_t *d = NULL;
    size_t size = 0;
    *n = 0;
    CHECK(vxr_save_vl32(s, &d, &size, NULL) == VXR_OK);
    if (!d) return NULL;
    size_t m = size / 16;
    for (size_t i = 0; i < m; i++) memmove(d + 12 * i, d + 16 * i, 12);
    qsort(d, m, 12, cmp_cell);
    size_t k = 0;
    for (size_t i = 0; i < m; i++)
        if (k == 0 || memcmp(d + 12 * (k - 1), d + 12 * i, 12))
            memmove(d + 12 * k++, d + 12 * i, 12);
    *n = k;
    return d;
}

/* Saved as .binvox, every file here reads back as the same world cells
 * (colours aside: binvox has none), and saves again to the same bytes. */
static void test_binvox_round_trip(void) {
    static const char *files[] = {"vengi__test.binvox",        "mmmm__scene_store8.vox",
                                  "vengi__test-transform.vox", "vengi__8ontop.vox",
                                  "vengi__qubicle.qb",         "ogt__test_multiple_model_scene.vox",
                                  "mmmm__chr_robot.vox"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, VXR_TEST_DATA "/%s", files[i]);
        vxr_scene *a = NULL, *b = NULL;
        vxr_error err = {{0}};
        CHECK(vxr_scene_load(path, &a, &err) == VXR_OK);
        if (!a) continue;
        uint8_t *bv = NULL, *again = NULL;
        size_t n = 0, n2 = 0;
        CHECK(vxr_save_binvox(a, &bv, &n, &err) == VXR_OK);
        vxr_scene_src src;
        if (bv && vxr_load_binvox(bv, n, &src, &err) == VXR_OK) {
            CHECK(vxr_scene_build(&src, &b, &err) == VXR_OK);
            vxr_scene_src_free(&src);
        }
        CHECK(b != NULL);
        if (!b) fprintf(stderr, "  %s: %s\n", files[i], err.message);
        size_t na = 0, nb = 0;
        uint8_t *ca = cells_of(a, &na), *cb = b ? cells_of(b, &nb) : NULL;
        CHECK_EQ_INT(na, nb);
        CHECK(na > 0 && na == nb && !memcmp(ca, cb, 12 * na));
        if (b) CHECK(vxr_save_binvox(b, &again, &n2, NULL) == VXR_OK);
        CHECK(again && n2 == n && !memcmp(again, bv, n));
        VXR_FREE(bv, again, ca, cb);
        vxr_scene_destroy(a);
        vxr_scene_destroy(b);
    }
}

/* Beyond the writer's cube of 512, or placed off whole cells: refused,
 * nothing written. */
static void test_binvox_writer_limits(void) {
    for (int c = 0; c < 2; c++) {
        vxr_scene_src src;
        vxr_scene_src_init(&src, 1);
        uint32_t m;
        CHECK(vxr_scene_src_add_model(&src, &m) == VXR_OK);
        CHECK(vxr_model_src_push(&src.models[0], 0, 0, 0, 1) == VXR_OK);
        CHECK(vxr_model_src_push(&src.models[0], c == 0 ? 512 : 3, 0, 0, 1) == VXR_OK);
        vxr_instance in = {0, 0, vxr_transform_identity(), 1e30f};
        if (c == 1) in.transform.translation[0] = 0.5f;
        CHECK(vxr_scene_src_add_instance(&src, &in) == VXR_OK);
        vxr_scene *s = NULL;
        CHECK(vxr_scene_build(&src, &s, NULL) == VXR_OK);
        uint8_t *d = (uint8_t *)&src;
        size_t n = 1;
        vxr_error err = {{0}};
        if (s) CHECK(vxr_save_binvox(s, &d, &n, &err) == VXR_ERROR_LIMIT);
        CHECK(d == NULL && n == 0 && err.message[0]);
        vxr_scene_destroy(s);
        vxr_scene_src_free(&src);
    }
}

VXR_TEST_MAIN(TEST(test_binvox_real_file), TEST(test_binvox_hostile), TEST(test_binvox_round_trip),
              TEST(test_binvox_writer_limits))
