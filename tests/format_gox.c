/* Goxel .gox: vengi's rgb.gox holds rgb.vox's voxels and colours turned
 * half about z (Goxel's front is MagicaVoxel's back; both Z-up and
 * right-handed); a hand-made file (PNG blocks made here with the system's
 * zlib, every PNG filter type) checks block order, corners, a block placed
 * twice, hidden and clone layers and skipped chunks; every cut inside a chunk, bad
 * PNG headers, block indices and corners fail cleanly. */
#include <string.h>
#include <zlib.h>
#include "internal.h" /* core/: the byte order helpers, vxr_bytes */
#include "vxr_test.h"
#include "format_records.h"

static void test_gox_matches_vox(void) {
    check_half_turn_matches_vox(VXR_TEST_DATA "/vengi__rgb.gox", VXR_TEST_DATA "/vengi__rgb.vox");
}

/* ---- a hand-made file ---- */

static void chunk(vxr_bytes *o, const char *type, const void *data, uint32_t n, bool png) {
    if (png) {
        uint8_t be[4];
        vxr_put_be32(be, n);
        vxr_bytes_put(o, be, 4);
    }
    vxr_bytes_put(o, type, 4);
    if (!png) vxr_bytes_put32(o, n);
    vxr_bytes_put(o, data, n);
    uint8_t crc[4] = {0};
    if (png) {
        uLong c = crc32(0, (const Bytef *)type, 4);
        if (n) c = crc32(c, data, n); /* crc32 of NULL is 0, not c */
        vxr_put_be32(crc, (uint32_t)c);
    }
    vxr_bytes_put(o, crc, 4);
}

/* A 64 x 64 RGBA PNG of a block's 16^3 voxels, row y filtered with type
 * y % 5. */
static void png(vxr_bytes *o, const uint8_t *rgba, int width, int depth, int color_type) {
    enum { W = 64, ROW = 4 * W };
    uint8_t raw[64 * (1 + ROW)];
    for (int y = 0; y < W; y++) {
        const int f = y % 5;
        const uint8_t *cur = rgba + y * ROW, *up = y ? cur - ROW : NULL;
        raw[y * (1 + ROW)] = (uint8_t)f;
        for (int i = 0; i < ROW; i++) {
            const int a = i >= 4 ? cur[i - 4] : 0, b = up ? up[i] : 0,
                      c = up && i >= 4 ? up[i - 4] : 0;
            const int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
            const int paeth = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
            const int pred = f == 1 ? a : f == 2 ? b : f == 3 ? (a + b) / 2 : f == 4 ? paeth : 0;
            raw[y * (1 + ROW) + 1 + i] = (uint8_t)(cur[i] - pred);
        }
    }
    uLongf packed = compressBound(sizeof raw);
    uint8_t *z = malloc(packed);
    CHECK(compress(z, &packed, raw, sizeof raw) == Z_OK);
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    vxr_bytes p = {0};
    vxr_bytes_put(&p, sig, 8);
    uint8_t ihdr[13] = {0};
    vxr_put_be32(ihdr, (uint32_t)width);
    vxr_put_be32(ihdr + 4, W);
    ihdr[8] = (uint8_t)depth;
    ihdr[9] = (uint8_t)color_type;
    chunk(&p, "IHDR", ihdr, 13, true);
    /* the data in two IDAT chunks */
    chunk(&p, "IDAT", z, (uint32_t)(packed / 2), true);
    chunk(&p, "IDAT", z + packed / 2, (uint32_t)(packed - packed / 2), true);
    chunk(&p, "IEND", NULL, 0, true);
    chunk(o, "BL16", p.p, (uint32_t)p.n, false);
    VXR_FREE(p.p, z);
}

static void dict(vxr_bytes *o, const char *key, const void *value, uint32_t n) {
    vxr_bytes_put32(o, (uint32_t)strlen(key));
    vxr_bytes_put(o, key, strlen(key));
    vxr_bytes_put32(o, n);
    vxr_bytes_put(o, value, n);
}

static void layer(vxr_bytes *o, const int32_t (*blocks)[4], uint32_t count, bool visible) {
    vxr_bytes l = {0};
    vxr_bytes_put32(&l, count);
    for (uint32_t b = 0; b < count; b++) {
        for (int k = 0; k < 4; k++) vxr_bytes_put32(&l, (uint32_t)blocks[b][k]);
        vxr_bytes_put32(&l, 0);
    }
    dict(&l, "name", "x", 1);
    const uint8_t v = visible;
    dict(&l, "visible", &v, 1);
    vxr_bytes_put32(&l, 0);
    chunk(o, "LAYR", l.p, (uint32_t)l.n, false);
    free(l.p);
}

/* Block b's voxel i: solid where (i * 7 + b) % 11 == 0, coloured by i. */
static void block_voxels(int b, uint8_t *rgba) {
    for (int i = 0; i < 4096; i++) {
        uint8_t *p = rgba + 4 * i;
        const bool on = (i * 7 + b) % 11 == 0;
        p[0] = (uint8_t)i;
        p[1] = (uint8_t)(i >> 4);
        p[2] = (uint8_t)(b * 50);
        p[3] = (uint8_t)(on ? 1 + i % 255 : 0);
    }
}

/* Two blocks; a visible layer placing block 1 at (16, -32, 0) and block 0
 * at (0, 0, 16) and (-16, 0, 0), a clone layer with no blocks, a hidden
 * layer of block 1 at (0, 0, 0); an unknown chunk. want: the visible
 * voxels as records. */
static uint8_t *make_gox(size_t *size, int bad_png, uint8_t *want, size_t *nw) {
    vxr_bytes o = {0};
    vxr_bytes_put(&o, "GOX ", 4);
    vxr_bytes_put32(&o, 2);
    chunk(&o, "PREV", "not read", 8, false);
    uint8_t rgba[2][4 * 4096];
    for (int b = 0; b < 2; b++) {
        block_voxels(b, rgba[b]);
        png(&o, rgba[b], bad_png == 1 && b == 1 ? 32 : 64, bad_png == 2 ? 16 : 8,
            bad_png == 3 ? 2 : 6);
    }
    const int32_t visible[3][4] = {{1, 16, -32, 0}, {0, 0, 0, 16}, {0, -16, 0, 0}};
    layer(&o, visible, 3, true);
    layer(&o, NULL, 0, true);
    const int32_t hidden[1][4] = {{1, 0, 0, 0}};
    layer(&o, hidden, 1, false);
    chunk(&o, "MATE", "skipped", 7, false);
    for (int e = 0; want && e < 3; e++) {
        const int b = visible[e][0];
        for (int i = 0; i < 4096; i++) {
            const uint8_t *p = rgba[b] + 4 * i;
            if (!p[3]) continue;
            uint8_t *q = want + 16 * (*nw)++;
            vxr_put_be32(q, (uint32_t)(visible[e][1] + i % 16));
            vxr_put_be32(q + 4, (uint32_t)(visible[e][2] + i / 16 % 16));
            vxr_put_be32(q + 8, (uint32_t)(visible[e][3] + i / 256));
            vxr_put_be32(q + 12, 0xff000000u | (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2]);
        }
    }
    *size = o.n;
    return o.p;
}

static void test_gox_hand_made(void) {
    uint8_t *want = malloc(3 * 4096 * 16);
    size_t nw = 0, size = 0;
    uint8_t *d = make_gox(&size, 0, want, &nw);
    vxr_scene_src src;
    if (load_ok(vxr_load_gox, d, size, &src)) {
        CHECK_EQ_INT(src.instance_count, 2);
        CHECK(src.instance_count == 2 && !(src.instances[0].flags & VXR_INSTANCE_HIDDEN) &&
              (src.instances[1].flags & VXR_INSTANCE_HIDDEN));
        CHECK(src.attr_size == 4); /* over 255 colours */
        CHECK(nw > 1000);
        check_src_records(&src, want, nw);
    }
    /* every prefix fails but those ending between chunks (.gox has no end
     * marker), which hold the chunks before */
    size_t next = 8; /* the next chunk boundary */
    for (size_t k = 0; k < size; k += k < 200 ? 1 : 7) {
        while (next < k) next += 12 + vxr_get32(d + next + 4);
        if (k == next) continue;
        check_rejects(vxr_load_gox, d, k, VXR_ERROR_FORMAT, "prefix");
    }
    VXR_FREE(want, d);
}

static void test_gox_hostile(void) {
    size_t size;
    for (int bad = 1; bad <= 3; bad++) { /* 32 wide, 16-bit, RGB */
        uint8_t *d = make_gox(&size, bad, NULL, NULL);
        check_rejects(vxr_load_gox, d, size, VXR_ERROR_FORMAT, "a PNG that is not 64x64 RGBA8");
        free(d);
    }
    uint8_t *d = make_gox(&size, 0, NULL, NULL);
    /* the first layer: its chunk after the two blocks */
    size_t at = 8 + 12 + 8;
    for (int b = 0; b < 2; b++) at += 12 + vxr_get32(d + at + 4);
    CHECK(!memcmp(d + at, "LAYR", 4));
    const struct {
        size_t off;
        uint32_t value;
        const char *what;
    } bad[] = {{12, 2, "block index 2 of 2"},           {12, 0xffffffffu, "block index -1"},
               {16, 1u << 20, "a corner past 2^20"},    {20, 0x80000000u, "a corner at -2^31"},
               {8, 0xffffff, "more blocks than bytes"}, {4, 0xffffff, "a chunk past the end"}};
    uint8_t *e = malloc(size);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memcpy(e, d, size);
        vxr_put32(e + at + bad[i].off, bad[i].value);
        check_rejects(vxr_load_gox, e, size, VXR_ERROR_FORMAT, bad[i].what);
    }
    /* a flipped byte in each PNG chunk fails its CRC; elsewhere, any result
     * but a crash, and a failure leaves nothing */
    for (size_t k = 8; k < size; k++) {
        memcpy(e, d, size);
        e[k] ^= 0x21;
        vxr_scene_src src;
        if (vxr_load_gox(e, size, &src, NULL) != VXR_OK) CHECK(src.model_count == 0);
        vxr_scene_src_free(&src);
    }
    memcpy(e, d, size);
    vxr_put32(e + 4, 1);
    check_rejects(vxr_load_gox, e, size, VXR_ERROR_FORMAT, "version 1");
    VXR_FREE(e, d);
}

VXR_TEST_MAIN(TEST(test_gox_matches_vox), TEST(test_gox_hand_made), TEST(test_gox_hostile))
