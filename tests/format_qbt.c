/* Qubicle's tree formats: vengi's rgb and rgb_small as .qbcl, and
 * rgb_small as .qbt, hold the same world voxels and colours as their .vox;
 * qubicle.qbt (17 matrices, some overlapping) is the knight that SLAB6's .vox holds, cell for
 * cell, facing the other way (a half turn about z: Qubicle's front is
 * Build's back). Hand-made files (zlib from the system's library) check
 * the cell order, colour map, relative positions, runs, skipped unknown
 * nodes and hidden matrices; every truncation, bad zlib data and hostile
 * sizes fail cleanly. */
#include <string.h>
#include <zlib.h>
#include "internal.h" /* core/: the byte order helpers */
#include "vxr_test.h"
#include "format_records.h"

static void test_qbt_qbcl_match_vox(void) {
    check_stems_match_vox(".qbcl");
    check_stem_matches_vox("rgb_small", ".qbt");
}

static void test_qbt_knight(void) {
    vxr_scene *a = load_file(VXR_TEST_DATA "/vengi__qubicle.qbt");
    vxr_scene *b = load_file(VXR_TEST_DATA "/vengi__slab6_vox_test.vox");
    if (!a || !b) return;
    CHECK_EQ_INT(a->instance_count, 17);
    size_t na = 0, nb = 0;
    uint8_t *ra = records(a, &na), *rb = records(b, &nb);
    /* both boxes start at 0, then the .qbt turned half about z */
    int32_t lo[2][3], hi[2][3];
    const uint8_t *r[2] = {ra, rb};
    const size_t n[2] = {na, nb};
    for (int f = 0; f < 2; f++)
        for (int k = 0; k < 3; k++) {
            lo[f][k] = INT32_MAX;
            hi[f][k] = INT32_MIN;
            for (size_t i = 0; i < n[f]; i++) {
                const int32_t c = record_coord(r[f] + 16 * i, k);
                lo[f][k] = c < lo[f][k] ? c : lo[f][k];
                hi[f][k] = c > hi[f][k] ? c : hi[f][k];
            }
        }
    for (size_t i = 0; i < na; i++) {
        uint8_t *p = ra + 16 * i;
        const int32_t c[3] = {hi[0][0] - record_coord(p, 0), hi[0][1] - record_coord(p, 1),
                              record_coord(p, 2) - lo[0][2]};
        for (int k = 0; k < 3; k++) vxr_put_be32(p + 4 * k, (uint32_t)(c[k] + lo[1][k]));
        memset(p + 12, 0, 4); /* shapes only: the two were coloured apart */
    }
    for (size_t i = 0; i < nb; i++) memset(rb + 16 * i + 12, 0, 4);
    qsort(ra, na, 16, cmp_record);
    /* 2721 instanced voxels, 109 where matrices overlap: the cells once */
    CHECK_EQ_INT(na, 2721);
    size_t u = 0;
    for (size_t i = 0; i < na; i++)
        if (u == 0 || memcmp(ra + 16 * (u - 1), ra + 16 * i, 16))
            memmove(ra + 16 * u++, ra + 16 * i, 16);
    na = u;
    CHECK_EQ_INT(na, 2612);
    CHECK_EQ_INT(na, nb);
    CHECK(na == nb && !memcmp(ra, rb, 16 * na));
    VXR_FREE(ra, rb);
    vxr_scene_destroy(a);
    vxr_scene_destroy(b);
}

/* ---- hand-made files ---- */

static void put(vxr_bytes *o, const void *p, size_t n) {
    vxr_bytes_put(o, p, n);
}

static void put_string(vxr_bytes *o, const char *s) {
    vxr_bytes_put32(o, (uint32_t)strlen(s));
    put(o, s, strlen(s));
}

static void put_zlib(vxr_bytes *o, const uint8_t *raw, size_t n) {
    uLongf packed = compressBound(n);
    uint8_t *z = malloc(packed);
    CHECK(compress(z, &packed, raw, n) == Z_OK);
    vxr_bytes_put32(o, (uint32_t)packed);
    put(o, z, packed);
    free(z);
}

/* The cell of vxr for a Qubicle cell (x, y, z), as a record. */
static void want_cell(uint8_t *w, size_t *nw, int32_t x, int32_t y, int32_t z, uint32_t argb) {
    uint8_t *q = w + 16 * (*nw)++;
    vxr_put_be32(q, (uint32_t)(-x - 1));
    vxr_put_be32(q + 4, (uint32_t)z);
    vxr_put_be32(q + 8, (uint32_t)y);
    vxr_put_be32(q + 12, argb);
}

static const uint8_t map[3][4] = {{10, 20, 30, 255}, {200, 0, 0, 255}, {0, 0, 200, 255}};

static uint32_t map_argb(int i) {
    return 0xff000000u | (uint32_t)map[i][0] << 16 | (uint32_t)map[i][1] << 8 | map[i][2];
}

/* One .qbt matrix or compound body after type and size. */
static void qbt_matrix(vxr_bytes *o, const char *name, const int32_t pos[3], const uint32_t n[3],
                       const uint8_t *raw) {
    put_string(o, name);
    for (int k = 0; k < 3; k++) vxr_bytes_put32(o, (uint32_t)pos[k]);
    for (int k = 0; k < 3; k++) vxr_bytes_put32(o, 1);
    for (int k = 0; k < 3; k++) vxr_bytes_put32(o, 0);
    for (int k = 0; k < 3; k++) vxr_bytes_put32(o, n[k]);
    put_zlib(o, raw, 4 * (size_t)n[0] * n[1] * n[2]);
}

/* Wraps body as a node of type. */
static void qbt_node(vxr_bytes *o, uint32_t type, const vxr_bytes *body) {
    vxr_bytes_put32(o, type);
    vxr_bytes_put32(o, (uint32_t)body->n);
    put(o, body->p, body->n);
}

/* A .qbt: a colour map of 3; a model of a 2 x 3 x 4 matrix at (1, 2, 3),
 * a node of unknown type 7, and a compound at (10, 0, 0) of one cell with
 * a child matrix at (0, 5, 0) from it. */
static uint8_t *make_qbt(size_t *size, uint8_t *want, size_t *nw) {
    vxr_bytes o = {0}, model = {0}, m = {0}, unknown = {0}, compound = {0}, child = {0};
    put(&o, "QB 2\1\0", 6);
    const float one = 1;
    for (int k = 0; k < 3; k++) put(&o, &one, 4);
    put(&o, "COLORMAP", 8);
    vxr_bytes_put32(&o, 3);
    put(&o, map, sizeof map);
    put(&o, "DATATREE", 8);
    const int32_t pos[3] = {1, 2, 3};
    const uint32_t n[3] = {2, 3, 4};
    uint8_t raw[2 * 3 * 4 * 4] = {0}, *p = raw;
    for (int x = 0; x < 2; x++)
        for (int z = 0; z < 4; z++)
            for (int y = 0; y < 3; y++, p += 4) {
                if ((x + 2 * y + 3 * z) % 3 != 0) continue;
                p[0] = (uint8_t)((x + y + z) % 3);
                p[3] = 255;
                want_cell(want, nw, pos[0] + x, pos[1] + y, pos[2] + z, map_argb((x + y + z) % 3));
            }
    qbt_matrix(&m, "a", pos, n, raw);
    vxr_bytes_put32(&model, 3);
    qbt_node(&model, 0, &m);
    put(&unknown, "12345", 5);
    qbt_node(&model, 7, &unknown);
    const int32_t cpos[3] = {10, 0, 0}, kpos[3] = {0, 5, 0};
    const uint32_t one_cell[3] = {1, 1, 1};
    const uint8_t c1[4] = {1, 0, 0, 255}, c2[4] = {2, 0, 0, 1};
    qbt_matrix(&compound, "c", cpos, one_cell, c1);
    want_cell(want, nw, 10, 0, 0, map_argb(1));
    vxr_bytes_put32(&compound, 1);
    qbt_matrix(&child, "k", kpos, one_cell, c2);
    want_cell(want, nw, 10, 5, 0, map_argb(2));
    qbt_node(&compound, 0, &child);
    qbt_node(&model, 2, &compound);
    qbt_node(&o, 1, &model);
    VXR_FREE(model.p, m.p, unknown.p, compound.p, child.p);
    *size = o.n;
    return o.p;
}

static void qbcl_node_head(vxr_bytes *o, uint32_t type, const char *name, bool visible) {
    vxr_bytes_put32(o, type);
    vxr_bytes_put32(o, 1);
    put_string(o, name);
    const uint8_t flags[3] = {visible, 1, 0};
    put(o, flags, 3);
}

/* A .qbcl: a model of a 2 x 3 x 2 matrix at (-1, 0, 4) coded with runs,
 * and a hidden one-cell matrix. */
static uint8_t *make_qbcl(size_t *size, uint8_t *want, size_t *nw) {
    vxr_bytes o = {0};
    put(&o, "QBCL", 4);
    vxr_bytes_put32(&o, 0x02010300);
    vxr_bytes_put32(&o, 2);
    vxr_bytes_put32(&o, 1);
    vxr_bytes_put32(&o, 1);
    vxr_bytes_put32(&o, 0xff00ff00);
    for (int i = 0; i < 7; i++) put_string(&o, i == 0 ? "title" : "");
    put(&o, (uint8_t[16]){0}, 16);
    qbcl_node_head(&o, 1, "root", true);
    put(&o, (uint8_t[36]){1}, 36);
    vxr_bytes_put32(&o, 2);
    qbcl_node_head(&o, 0, "m", true);
    const uint32_t n[3] = {2, 3, 2};
    const int32_t pos[3] = {-1, 0, 4};
    for (int k = 0; k < 3; k++) vxr_bytes_put32(&o, n[k]);
    for (int k = 0; k < 3; k++) vxr_bytes_put32(&o, (uint32_t)pos[k]);
    for (int k = 0; k < 3; k++) vxr_bytes_put32(&o, 0);
    const uint8_t red[4] = {255, 0, 0, 255}, green[4] = {0, 255, 0, 255}, blue[4] = {0, 0, 255, 1},
                  empty[4] = {0}, run2[4] = {2, 0, 0, 2}, run3[4] = {3, 0, 0, 2};
    vxr_bytes raw = {0};
    /* column (x 0, z 0): two red, an empty */
    vxr_bytes_put(&raw, (uint8_t[2]){3, 0}, 2);
    put(&raw, run2, 4);
    put(&raw, red, 4);
    put(&raw, empty, 4);
    want_cell(want, nw, -1, 0, 4, 0xffff0000u);
    want_cell(want, nw, -1, 1, 4, 0xffff0000u);
    /* (0, 1): green, empty, blue */
    vxr_bytes_put(&raw, (uint8_t[2]){3, 0}, 2);
    put(&raw, green, 4);
    put(&raw, empty, 4);
    put(&raw, blue, 4);
    want_cell(want, nw, -1, 0, 5, 0xff00ff00u);
    want_cell(want, nw, -1, 2, 5, 0xff0000ffu);
    /* (1, 0): three empty */
    vxr_bytes_put(&raw, (uint8_t[2]){2, 0}, 2);
    put(&raw, run3, 4);
    put(&raw, empty, 4);
    /* (1, 1): green, two blue */
    vxr_bytes_put(&raw, (uint8_t[2]){3, 0}, 2);
    put(&raw, green, 4);
    put(&raw, run2, 4);
    put(&raw, blue, 4);
    want_cell(want, nw, 0, 0, 5, 0xff00ff00u);
    want_cell(want, nw, 0, 1, 5, 0xff0000ffu);
    want_cell(want, nw, 0, 2, 5, 0xff0000ffu);
    put_zlib(&o, raw.p, raw.n);
    qbcl_node_head(&o, 0, "hidden", false);
    for (int k = 0; k < 3; k++) vxr_bytes_put32(&o, 1);
    for (int k = 0; k < 6; k++) vxr_bytes_put32(&o, 5);
    vxr_bytes cell = {0};
    vxr_bytes_put(&cell, (uint8_t[2]){1, 0}, 2);
    put(&cell, red, 4);
    put_zlib(&o, cell.p, cell.n);
    VXR_FREE(raw.p, cell.p);
    *size = o.n;
    return o.p;
}

static void check_hand_made(records_loader load, uint8_t *(*make)(size_t *, uint8_t *, size_t *),
                            uint32_t hidden_instance) {
    uint8_t want[64 * 16];
    size_t nw = 0, size = 0;
    uint8_t *d = make(&size, want, &nw);
    vxr_scene_src src;
    if (load_ok(load, d, size, &src)) {
        if (hidden_instance != UINT32_MAX)
            CHECK(src.instance_count > hidden_instance &&
                  (src.instances[hidden_instance].flags & VXR_INSTANCE_HIDDEN));
        check_src_records(&src, want, nw);
    }
    /* every prefix fails */
    for (size_t k = 0; k < size; k++) check_rejects(load, d, k, VXR_ERROR_FORMAT, "prefix");
    free(d);
}

static void test_qbt_hand_made(void) {
    check_hand_made(vxr_load_qbt, make_qbt, UINT32_MAX);
}

static void test_qbcl_hand_made(void) {
    check_hand_made(vxr_load_qbcl, make_qbcl, 1);
}

/* Every prefix of a real file, each byte of it flipped in turn (any result
 * but a crash; a failure leaves nothing), and words set hostile. */
static void check_hostile(records_loader load, const char *name) {
    size_t size = 0;
    uint8_t *d = read_data(name, &size);
    if (!d) return;
    for (size_t n = 0; n < size; n += n < 400 ? 1 : 97)
        check_rejects(load, d, n, VXR_ERROR_FORMAT, name);
    uint8_t *e = malloc(size);
    const uint32_t words[] = {0, 0xffffffffu, 0x7fffffffu, 1u << 20, 1u << 30};
    for (size_t at = 0; at < size; at++) {
        memcpy(e, d, size);
        e[at] ^= 0x5a;
        vxr_scene_src src;
        if (load(e, size, &src, NULL) != VXR_OK) CHECK(src.model_count == 0 && !src.models);
        vxr_scene_src_free(&src);
        if (at % 4 || at + 4 > size || at > 4096) continue;
        for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
            memcpy(e, d, size);
            vxr_put32(e + at, words[w]);
            if (load(e, size, &src, NULL) != VXR_OK) CHECK(src.model_count == 0 && !src.models);
            vxr_scene_src_free(&src);
        }
    }
    VXR_FREE(e, d);
}

static void test_qbt_hostile(void) {
    check_hostile(vxr_load_qbt, "vengi__rgb_small.qbt");
    check_hostile(vxr_load_qbt, "vengi__qubicle.qbt");
    check_hostile(vxr_load_qbcl, "vengi__rgb_small.qbcl");
    /* nodes nested 100 deep: refused, not a stack overflow */
    vxr_bytes o = {0};
    put(&o, "QB 2\1\0", 6);
    put(&o, (uint8_t[12]){0}, 12);
    put(&o, "COLORMAP\0\0\0\0DATATREE", 20);
    for (int i = 0; i < 100; i++) {
        vxr_bytes_put32(&o, 1);
        vxr_bytes_put32(&o, (uint32_t)(8 + 12 * (99 - i)));
        vxr_bytes_put32(&o, 1);
    }
    vxr_bytes_put32(&o, 0);
    check_rejects(vxr_load_qbt, o.p, o.n, VXR_ERROR_FORMAT, "nested 100 deep");
    free(o.p);
}

VXR_TEST_MAIN(TEST(test_qbt_qbcl_match_vox), TEST(test_qbt_knight), TEST(test_qbt_hand_made),
              TEST(test_qbcl_hand_made), TEST(test_qbt_hostile))
