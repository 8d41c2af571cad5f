/* CubeWorld .cub: vengi's rgb and rgb_small as .cub and .vox hold the same
 * world voxels and colours; a hand-made file of 300 colours against the
 * cells it names (the RGBA8 fallback, the axis map); every truncation and
 * hostile sizes fail cleanly. The comparisons go through the .vl32
 * export, which format_files holds against a brute-force walk. */
#include <string.h>
#include "internal.h" /* core/: the byte order helpers */
#include "vxr_test.h"
#include "format_records.h"

static void test_cub_matches_vox(void) {
    check_stems_match_vox(".cub");
}

static void test_cub_hand_made(void) {
    const uint32_t n[3] = {7, 9, 11};
    const size_t cells = 7 * 9 * 11, size = 12 + 3 * cells;
    uint8_t *d = calloc(size, 1), *want = malloc(16 * cells);
    size_t nw = 0;
    for (int k = 0; k < 3; k++) vxr_put32(d + 4 * k, n[k]);
    for (size_t i = 0; i < cells; i++) {
        if (i % 3 == 0) continue; /* black: empty */
        const uint32_t r = (uint32_t)(i * 37 % 256), g = (uint32_t)(i * 11 % 256),
                       b = (uint32_t)(i % 5 + 1);
        uint8_t *p = d + 12 + 3 * i;
        p[0] = (uint8_t)r;
        p[1] = (uint8_t)g;
        p[2] = (uint8_t)b;
        const int32_t c[3] = {-(int32_t)(i % 7) - 1, (int32_t)(i / 7 % 9), (int32_t)(i / 63)};
        uint8_t *q = want + 16 * nw++;
        for (int k = 0; k < 3; k++) vxr_put_be32(q + 4 * k, (uint32_t)c[k]);
        vxr_put_be32(q + 12, 0xff000000u | r << 16 | g << 8 | b);
    }
    qsort(want, nw, 16, cmp_record);
    vxr_scene_src src;
    vxr_scene *s = NULL;
    CHECK(vxr_load_cub(d, size, &src, NULL) == VXR_OK);
    CHECK(src.attr_size == 4); /* over 255 colours */
    CHECK(vxr_scene_build(&src, &s, NULL) == VXR_OK);
    vxr_scene_src_free(&src);
    size_t n2 = 0;
    uint8_t *got = s ? records(s, &n2) : NULL;
    CHECK_EQ_INT(n2, nw);
    CHECK(got && n2 == nw && !memcmp(got, want, 16 * nw));
    vxr_scene_destroy(s);
    VXR_FREE(got, want, d);
}

static void rejects(const uint8_t *d, size_t n, const char *what) {
    check_rejects(vxr_load_cub, d, n, VXR_ERROR_FORMAT, what);
}

static void test_cub_hostile(void) {
    size_t size = 0;
    uint8_t *raw = NULL;
    CHECK(vxr_read_file(VXR_TEST_DATA "/vengi__rgb.cub", &raw, &size, NULL) == VXR_OK);
    if (!raw) return;
    for (size_t n = 0; n < size; n += n < 100 ? 1 : 331) rejects(raw, n, "prefix");
    uint8_t *big = malloc(size + 1);
    memcpy(big, raw, size);
    big[size] = 0;
    rejects(big, size + 1, "a byte more");
    const uint32_t sizes[][3] = {{1u << 21, 1, 1},
                                 {0xffffffffu, 0xffffffffu, 0xffffffffu},
                                 {1u << 20, 1u << 20, 1u << 20},
                                 {33, 32, 32}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        for (int k = 0; k < 3; k++) vxr_put32(big + 4 * k, sizes[i][k]);
        rejects(big, size, "sizes");
    }
    VXR_FREE(big, raw);
}

VXR_TEST_MAIN(TEST(test_cub_matches_vox), TEST(test_cub_hand_made), TEST(test_cub_hostile))
