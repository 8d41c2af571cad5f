/* VoxEdit .vxm: vengi's rgb and rgb_small (version 12) hold their .vox's
 * voxels and colours, up to a move; test.vxm (version 4: named textures in
 * runs, quads, the size after them) loads its 16^3 box whole. Hand-made
 * files of versions 12 and 4 check every cache skipped, the cell order,
 * empty runs, a hidden layer and the material order (B, G, R); cuts,
 * runs past the model and unknown materials fail cleanly. */
#include <string.h>
#include "internal.h" /* core/: the byte order helpers, vxr_bytes */
#include "vxr_test.h"
#include "format_records.h"

static void test_stems(void) {
    check_moved_matches_vox(VXR_TEST_DATA "/vengi__rgb.vxm", VXR_TEST_DATA "/vengi__rgb.vox",
                            false);
    check_moved_matches_vox(VXR_TEST_DATA "/vengi__rgb_small.vxm",
                            VXR_TEST_DATA "/vengi__rgb_small.vox", false);
    size_t size = 0;
    uint8_t *d = read_data("vengi__test.vxm", &size);
    vxr_scene_src src;
    if (d && load_ok(vxr_load_vxm, d, size, &src)) {
        CHECK(src.model_count == 1 && src.models[0].count == 1002);
        vxr_scene_src_free(&src);
    }
    free(d);
}

static void words(vxr_bytes *o, const uint32_t *w, int n) {
    for (int i = 0; i < n; i++) vxr_bytes_put32(o, w[i]);
}

/* A 2 x 3 x 4 model: cell i of layer 0 is material i % 3 where i % 4 != 3
 * (runs of one, and an empty run of two at cell 20), layer 1 (hidden) a
 * run of 5 of material 2 from cell 0. Version 12 or 4. */
static uint8_t *make_vxm(int version, size_t *size, uint8_t *want, size_t *nw) {
    vxr_bytes o = {0};
    vxr_bytes_put(&o, version == 12 ? "VXMC" : "VXM4", 4);
    const uint32_t n[3] = {2, 3, 4};
    if (version == 12) {
        words(&o, n, 3);
        words(&o, (const uint32_t[]){0, 0, 0}, 3); /* pivot */
        vxr_bytes_put(&o, "\1", 1);                /* a surface */
        words(&o, (const uint32_t[]){0, 0, 0, 1, 1, 1, 4, 2, 3}, 9);
        vxr_bytes_put(&o, "sixbyt", 6);
        words(&o, (const uint32_t[]){0, 0, 0, 0}, 4); /* LOD scale, pivot */
        words(&o, (const uint32_t[]){1, 2, 2, 5}, 4); /* a LOD, 2 x 2 texture, 5 bytes */
        vxr_bytes_put(&o, "12345", 5);
    } else {
        words(&o, (const uint32_t[]){2, 2, 1}, 3);  /* 2 x 2 texture, one texture */
        vxr_bytes_put(&o, "tex\0\3abc\1def\0", 13); /* its name, two runs, end */
    }
    for (int f = 0; f < 6; f++) {
        vxr_bytes_put32(&o, f == 2 ? 1 : 0);
        if (f == 2) vxr_bytes_put(&o, (uint8_t[80]){7}, 80);
    }
    if (version == 4) words(&o, n, 3);
    if (version == 12) {
        vxr_bytes_put(&o, (uint8_t[2048]){0}, 2048);
        vxr_bytes_put(&o, "\1chunk\0\1\2", 9);
    }
    static const uint8_t mats[3][5] = {
        {10, 20, 30, 255, 0}, {40, 50, 60, 255, 1}, {70, 80, 90, 0, 0}};
    vxr_bytes_put(&o, "\3", 1);
    vxr_bytes_put(&o, mats, sizeof mats);
    if (version == 12) vxr_bytes_put(&o, "\2layer a\0\1", 10);
    for (uint32_t i = 0; i < 24; i++) {
        if (i == 20) {
            vxr_bytes_put(&o, "\2\xff", 2);
            i++;
            continue;
        }
        const uint8_t run[2] = {1, i % 4 == 3 ? 0xff : (uint8_t)(i % 3)};
        vxr_bytes_put(&o, run, 2);
        if (run[1] == 0xff) continue;
        const uint32_t x = i / 12, y = i / 4 % 3, z = i % 4;
        uint8_t *q = want + 16 * (*nw)++;
        vxr_put_be32(q, x);
        vxr_put_be32(q + 4, z);
        vxr_put_be32(q + 8, y);
        const uint8_t *m = mats[i % 3];
        vxr_put_be32(q + 12, 0xff000000u | (uint32_t)m[2] << 16 | (uint32_t)m[1] << 8 | m[0]);
    }
    vxr_bytes_put(&o, "\0", 1);
    if (version == 12) {
        vxr_bytes_put(&o, "b\0\0\5\2\0", 6); /* hidden, five of material 2 */
        vxr_bytes_put(&o, "\0", 1);          /* no surface */
    }
    *size = o.n;
    return o.p;
}

static void test_hand_made(void) {
    for (int version = 4; version <= 12; version += 8) {
        uint8_t want[32 * 16];
        size_t nw = 0, size = 0;
        uint8_t *d = make_vxm(version, &size, want, &nw);
        vxr_scene_src src;
        if (load_ok(vxr_load_vxm, d, size, &src)) {
            CHECK_EQ_INT(src.instance_count, version == 12 ? 2 : 1);
            if (version == 12)
                CHECK(src.instance_count == 2 && (src.instances[1].flags & VXR_INSTANCE_HIDDEN) &&
                      src.models[1].count == 5);
            check_src_records(&src, want, nw);
        }
        /* cut anywhere before the end of the cells: refused */
        for (size_t k = 0; k + (version == 12 ? 7 : 0) < size; k++)
            check_rejects(vxr_load_vxm, d, k, VXR_ERROR_FORMAT, "a cut file");
        VXR_FREE(d);
    }
}

static void test_hostile(void) {
    uint8_t want[32 * 16];
    size_t nw = 0, size = 0;
    uint8_t *d = make_vxm(4, &size, want, &nw);
    /* the first run: past the model (a length of 25), then material 3 of 3 */
    const size_t run = size - 1 - 2 * 23;
    CHECK(d[run] == 1 && d[run + 1] == 0);
    d[run] = 25;
    check_rejects(vxr_load_vxm, d, size, VXR_ERROR_FORMAT, "a run past the model");
    d[run] = 1;
    d[run + 1] = 3;
    check_rejects(vxr_load_vxm, d, size, VXR_ERROR_FORMAT, "material 3 of 3");
    d[3] = '3';
    check_rejects(vxr_load_vxm, d, size, VXR_ERROR_FORMAT, "version 3");
    d[3] = 'D';
    check_rejects(vxr_load_vxm, d, size, VXR_ERROR_FORMAT, "version D");
    free(d);
    d = make_vxm(12, &size, want, &nw);
    vxr_put32(d + 4, 0); /* an empty model */
    check_rejects(vxr_load_vxm, d, size, VXR_ERROR_FORMAT, "a model of no cells");
    vxr_put32(d + 4, 1u << 20); /* 2^20 x 2^20 x 4: over 2^27 cells */
    vxr_put32(d + 8, 1u << 20);
    check_rejects(vxr_load_vxm, d, size, VXR_ERROR_LIMIT, "too many cells");
    free(d);
}

VXR_TEST_MAIN(TEST(test_stems), TEST(test_hand_made), TEST(test_hostile))
