/* The two .vxl formats. Westwood's: vengi's rgb.vxl holds rgb.vox's voxels
 * and colours turned half about z (as its .gox); a hand-made two-limb file
 * checks the column order, segments, empty columns, limb placement and the
 * default palette for an all-zero one. Ace of Spades: the real map fills
 * its bytes exactly; a generated map (spans, overhangs, top and bottom
 * colours, uncoloured cells) is held against the cells and colours its
 * columns were made from. Hostile headers, offsets and cuts fail cleanly. */
#include <string.h>
#include "internal.h" /* core/: the byte order helpers, vxr_bytes */
#include "vxr_test.h"
#include "format_records.h"

static void test_westwood_matches_vox(void) {
    check_half_turn_matches_vox(VXR_TEST_DATA "/vengi__rgb.vxl", VXR_TEST_DATA "/vengi__rgb.vox");
}

static void put_float(vxr_bytes *o, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    vxr_bytes_put32(o, u);
}

static void want_cell(uint8_t *w, size_t *nw, int32_t x, int32_t y, int32_t z, uint32_t rgb) {
    uint8_t *q = w + 16 * (*nw)++;
    vxr_put_be32(q, (uint32_t)x);
    vxr_put_be32(q + 4, (uint32_t)y);
    vxr_put_be32(q + 8, (uint32_t)z);
    vxr_put_be32(q + 12, 0xff000000u | rgb);
}

/* The RGB (0xRRGGBB) of palette entry i, the file's or the default. */
static uint32_t entry(bool zero, int i) {
    if (zero) {
        const uint32_t c = vxr_vox_default_palette()[i]; /* RGBA8, red low */
        return (c & 255) << 16 | (c >> 8 & 255) << 8 | (c >> 16 & 255);
    }
    return (uint32_t)i << 16 | (uint32_t)(255 - i) << 8 | (uint32_t)(i / 2);
}

/* Two limbs: 2 x 3 x 4 at min bound (0.4, 0, -2) (column 0 of two
 * segments, column 1 empty, the others one voxel), and 1 x 1 x 1 at (10,
 * -5, 2). */
static uint8_t *make_westwood(bool zero, size_t *size, uint8_t *want, size_t *nw) {
    vxr_bytes body = {0};
    /* limb 0: start and end tables of 6 columns, then the spans */
    vxr_bytes spans = {0};
    int32_t start[6], end[6];
    for (int c = 0; c < 6; c++) {
        if (c == 1) {
            start[c] = end[c] = -1;
            continue;
        }
        start[c] = (int32_t)spans.n;
        if (c == 0) {
            const uint8_t seg[] = {1, 2, 5, 0, 6, 0, 2, 0, 1, 7, 0, 1};
            vxr_bytes_put(&spans, seg, sizeof seg);
            want_cell(want, nw, 0, 0, 1 - 2, entry(zero, 5));
            want_cell(want, nw, 0, 0, 2 - 2, entry(zero, 6));
            want_cell(want, nw, 0, 0, 3 - 2, entry(zero, 7));
        } else {
            const uint8_t seg[] = {3, 1, (uint8_t)(10 + c), 0, 1};
            vxr_bytes_put(&spans, seg, sizeof seg);
            want_cell(want, nw, c % 2, c / 2, 3 - 2, entry(zero, 10 + c));
        }
        end[c] = (int32_t)spans.n - 1;
    }
    for (int c = 0; c < 6; c++) vxr_bytes_put32(&body, (uint32_t)start[c]);
    for (int c = 0; c < 6; c++) vxr_bytes_put32(&body, (uint32_t)end[c]);
    vxr_bytes_put(&body, spans.p, spans.n);
    const uint32_t limb1 = (uint32_t)body.n;
    vxr_bytes_put32(&body, 0);
    vxr_bytes_put32(&body, 4);
    const uint8_t one[] = {0, 1, 200, 3, 1};
    vxr_bytes_put(&body, one, sizeof one);
    want_cell(want, nw, 10, -5, 2, entry(zero, 200));

    vxr_bytes o = {0};
    vxr_bytes_put(&o, "Voxel Animation", 16);
    const uint32_t head[4] = {1, 2, 2, (uint32_t)body.n};
    for (int k = 0; k < 4; k++) vxr_bytes_put32(&o, head[k]);
    vxr_bytes_put(&o, "\x10\x1f", 2);
    for (int i = 0; i < 256; i++) {
        const uint32_t c = entry(false, i);
        const uint8_t rgb[3] = {zero ? 0 : (uint8_t)(c >> 16), zero ? 0 : (uint8_t)(c >> 8),
                                zero ? 0 : (uint8_t)c};
        vxr_bytes_put(&o, rgb, 3);
    }
    for (int l = 0; l < 2; l++) {
        char name[16] = {0};
        snprintf(name, sizeof name, "limb%d", l);
        vxr_bytes_put(&o, name, 16);
        vxr_bytes_put32(&o, (uint32_t)l);
        vxr_bytes_put32(&o, 1);
        vxr_bytes_put32(&o, 0);
    }
    vxr_bytes_put(&o, body.p, body.n);
    const uint32_t offsets[2][3] = {{0, 24, 48}, {limb1, limb1 + 4, limb1 + 8}};
    const float lo[2][3] = {{0.4f, 0, -2}, {10, -5, 2}};
    const uint8_t n[2][3] = {{2, 3, 4}, {1, 1, 1}};
    for (int l = 0; l < 2; l++) {
        for (int k = 0; k < 3; k++) vxr_bytes_put32(&o, offsets[l][k]);
        put_float(&o, 1);
        for (int k = 0; k < 12; k++) put_float(&o, k % 5 == 0 ? 1.0f : 0.0f);
        for (int k = 0; k < 3; k++) put_float(&o, lo[l][k]);
        for (int k = 0; k < 3; k++) put_float(&o, lo[l][k] + n[l][k]);
        vxr_bytes_put(&o, n[l], 3);
        vxr_bytes_put(&o, "\x02", 1);
    }
    VXR_FREE(body.p, spans.p);
    *size = o.n;
    return o.p;
}

static void test_westwood_hand_made(void) {
    for (int zero = 0; zero < 2; zero++) {
        uint8_t want[16 * 16];
        size_t nw = 0, size = 0;
        uint8_t *d = make_westwood(zero, &size, want, &nw);
        vxr_scene_src src;
        if (load_ok(vxr_load_westwood_vxl, d, size, &src)) {
            CHECK_EQ_INT(src.instance_count, 2);
            check_src_records(&src, want, nw);
        }
        for (size_t k = 0; k < size; k++)
            check_rejects(vxr_load_westwood_vxl, d, k, VXR_ERROR_FORMAT, "prefix");
        /* hostile: counts, the body size, table offsets, a segment */
        uint8_t *e = malloc(size);
        const size_t tail = size - 2 * 92;
        const struct {
            size_t at;
            uint32_t value;
        } bad[] = {{20, 3},
                   {24, 1},
                   {20, 0},
                   {28, 0xffffffffu},
                   {tail, 1000},
                   {tail + 4, 999},
                   {tail + 8, 0x7fffffff},
                   {802 + 56, 0xfffffffe},
                   {802 + 56 + 24, 0}};
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            memcpy(e, d, size);
            vxr_put32(e + bad[i].at, bad[i].value);
            check_rejects(vxr_load_westwood_vxl, e, size, VXR_ERROR_FORMAT, "hostile word");
        }
        memcpy(e, d, size);
        e[802 + 56 + 48 + 1] = 4; /* column 0's first segment: 1 + 4 cells of 4 */
        check_rejects(vxr_load_westwood_vxl, e, size, VXR_ERROR_FORMAT, "a long segment");
        VXR_FREE(e, d);
    }
}

/* ---- Ace of Spades ---- */

typedef struct run {
    int top, end, k, m; /* solid [top, end); k top colours, m bottom ones */
} run;

/* Column (x, y)'s runs, top first; the last ends at 64. */
static int column_runs(int x, int y, run *r) {
    if (x >= 24 || y >= 24) {
        r[0] = (run){63, 64, 1, 0};
        return 1;
    }
    switch ((x * 7 + y * 13) % 5) {
    case 0:
        r[0] = (run){10 + (x + y) % 20, 64, 1 + x % 3, 0};
        return 1;
    case 1:
        r[0] = (run){5, 9, 2, 1};
        r[1] = (run){20, 64, 1, 0};
        return 2;
    case 2:
        r[0] = (run){3, 6, 1, 2};
        r[1] = (run){8, 12, 0, 1}; /* no top colour: the cell above's */
        r[2] = (run){30, 64, 2, 0};
        return 3;
    case 3:
        r[0] = (run){0, 64, 64, 0};
        return 1;
    default:
        r[0] = (run){40, 64, 0, 0};
        return 1; /* no colour at all: grey */
    }
}

static uint32_t aos_color(int x, int y, int z) {
    return (uint32_t)(x & 255) << 16 | (uint32_t)(y & 255) << 8 | (uint32_t)(z * 4);
}

static void put_bgra(vxr_bytes *o, uint32_t rgb) {
    const uint8_t c[4] = {(uint8_t)rgb, (uint8_t)(rgb >> 8), (uint8_t)(rgb >> 16), 255};
    vxr_bytes_put(o, c, 4);
}

static uint8_t *make_aos(size_t *size, uint8_t *want, size_t *nw) {
    vxr_bytes o = {0};
    for (int y = 0; y < 512; y++)
        for (int x = 0; x < 512; x++) {
            run r[3];
            const int n = column_runs(x, y, r);
            uint32_t above = 0x808080;
            for (int i = 0; i < n; i++) {
                const bool last = i == n - 1;
                const uint8_t h[4] = {(uint8_t)(last ? 0 : 1 + r[i].k + r[i].m), (uint8_t)r[i].top,
                                      (uint8_t)(r[i].top + r[i].k - 1),
                                      (uint8_t)(i ? r[i - 1].end : 0)};
                vxr_bytes_put(&o, h, 4);
                for (int z = r[i].top; z < r[i].top + r[i].k; z++) put_bgra(&o, aos_color(x, y, z));
                for (int z = r[i].end - r[i].m; z < r[i].end; z++) put_bgra(&o, aos_color(x, y, z));
                for (int z = r[i].top; z < r[i].end; z++) {
                    const bool colored = z < r[i].top + r[i].k || z >= r[i].end - r[i].m;
                    if (colored) above = aos_color(x, y, z);
                    want_cell(want, nw, x, 511 - y, 63 - z, above);
                }
            }
        }
    *size = o.n;
    return o.p;
}

static void test_aos(void) {
    size_t nw = 0, size = 0;
    uint8_t *want = malloc(16 * (size_t)(512 * 512 + 24 * 24 * 64));
    uint8_t *d = make_aos(&size, want, &nw);
    vxr_scene_src src;
    if (load_ok(vxr_load_aos_vxl, d, size, &src)) check_src_records(&src, want, nw);
    /* cut inside the first columns, one byte more, a span header broken */
    const size_t cuts[] = {0, 3, 4, 7, 9, 100, size - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
        check_rejects(vxr_load_aos_vxl, d, cuts[i], VXR_ERROR_FORMAT, "a cut map");
    uint8_t *e = malloc(size + 1);
    memcpy(e, d, size);
    e[size] = 0;
    check_rejects(vxr_load_aos_vxl, e, size + 1, VXR_ERROR_FORMAT, "a byte more");
    const uint8_t spans[][4] = {{0, 5, 70, 0}, {0, 9, 3, 0}, {1, 5, 5, 0}, {255, 0, 0, 0}};
    for (size_t i = 0; i < sizeof spans / sizeof spans[0]; i++) {
        memcpy(e, d, size);
        memcpy(e, spans[i], 4);
        check_rejects(vxr_load_aos_vxl, e, size, VXR_ERROR_FORMAT, "a bad span");
    }
    VXR_FREE(e, d, want);
}

static void test_aos_real_map(void) {
    /* a real map (shared data; too large for tests/data) fills its bytes:
     * every column parsed to its end */
    vxr_scene_src src;
    uint8_t *d = NULL;
    size_t size = 0;
    if (vxr_read_file(VXR_SHARED_DATA "/formats/aceofspades.vxl", &d, &size, NULL) != VXR_OK) {
        printf("  (../shared/data/formats/aceofspades.vxl absent: skipped)\n");
        return;
    }
    vxr_error err = {{0}};
    CHECK(vxr_load_aos_vxl(d, size, &src, &err) == VXR_OK);
    if (err.message[0]) fprintf(stderr, "  %s\n", err.message);
    CHECK(src.model_count == 1 && src.models[0].count > 512 * 512);
    vxr_scene_src_free(&src);
    free(d);
}

VXR_TEST_MAIN(TEST(test_westwood_matches_vox), TEST(test_westwood_hand_made), TEST(test_aos),
              TEST(test_aos_real_map))
