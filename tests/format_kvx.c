/* Ken Silverman's formats: vengi's slab6_vox_test as .kvx, .kv6 and SLAB6
 * .vox (one model saved by SLAB6 three ways) agree: the .kvx and .kv6 hold
 * exactly the surface of the .vox's solid (brute force over its cells), at
 * the pivot, with its colours (.kv6's being the 6-bit palette shifted left
 * by two). Hand-made files check the axes, pivot and palette scale; every
 * truncation and hostile offsets fail cleanly. */
#include <string.h>
#include "internal.h" /* core/: the byte order helpers */
#include "vxr_test.h"
#include "format_records.h"

/* The record of cell (x, y, z) among n sorted ones, or NULL. */
static const uint8_t *find(const uint8_t *r, size_t n, int32_t x, int32_t y, int32_t z) {
    uint8_t key[16] = {0};
    vxr_put_be32(key, (uint32_t)x);
    vxr_put_be32(key + 4, (uint32_t)y);
    vxr_put_be32(key + 8, (uint32_t)z);
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = memcmp(r + 16 * mid, key, 12);
        if (c == 0) return r + 16 * mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static void test_slab6_trio(void) {
    vxr_scene *kvx = load_file(VXR_TEST_DATA "/vengi__slab6_vox_test.kvx");
    vxr_scene *kv6 = load_file(VXR_TEST_DATA "/vengi__slab6_vox_test.kv6");
    vxr_scene *vox = load_file(VXR_TEST_DATA "/vengi__slab6_vox_test.vox");
    if (!kvx || !kv6 || !vox) return;
    size_t na = 0, nb = 0, nc = 0;
    uint8_t *a = records(kvx, &na), *b = records(kv6, &nb), *c = records(vox, &nc);
    /* the surface of the .vox's solid, moved to the pivot: the .vox sits at
     * its cells, the others at -round(pivot) = -(20, 7, 22) in vxr's axes
     * (pivot (19.5, 6.5, 21.5) of 39 x 13 x 43, y and z turned) */
    size_t ns = 0;
    uint8_t *surface = malloc(16 * nc);
    for (size_t i = 0; i < nc; i++) {
        const uint8_t *r = c + 16 * i;
        const int32_t x = record_coord(r, 0), y = record_coord(r, 1), z = record_coord(r, 2);
        const bool inside = find(c, nc, x + 1, y, z) && find(c, nc, x - 1, y, z) &&
                            find(c, nc, x, y + 1, z) && find(c, nc, x, y - 1, z) &&
                            find(c, nc, x, y, z + 1) && find(c, nc, x, y, z - 1);
        if (inside) continue;
        uint8_t *s = surface + 16 * ns++;
        vxr_put_be32(s, (uint32_t)(x - 20));
        vxr_put_be32(s + 4, (uint32_t)(y - 7));
        vxr_put_be32(s + 8, (uint32_t)(z - 22));
        memcpy(s + 12, r + 12, 4);
    }
    qsort(surface, ns, 16, cmp_record);
    CHECK(nc > na && ns > 1000);
    CHECK_EQ_INT(na, ns);
    CHECK(na == ns && !memcmp(a, surface, 16 * na));
    CHECK_EQ_INT(nb, na);
    size_t same = 0;
    for (size_t i = 0; nb == na && i < na; i++) {
        const uint8_t *p = a + 16 * i, *q = b + 16 * i;
        bool ok = !memcmp(p, q, 13);
        /* .kvx: 6-bit v as (255 v + 31) / 63; .kv6: 4 v */
        for (int k = 13; k < 16; k++) ok &= q[k] == (p[k] * 63 + 127) / 255 * 4;
        same += ok;
    }
    CHECK_EQ_INT(same, na);
    VXR_FREE(a, b, c, surface);
    vxr_scene_destroy(kvx);
    vxr_scene_destroy(kv6);
    vxr_scene_destroy(vox);
}

/* A .kvx of 2 x 3 x 5 cells, pivot (1, 0.5, 4.75) cells, two slabs in
 * column (0, 0) and one in (1, 2); palette index i is 6-bit (i % 64) for
 * red, or an 8-bit palette when eight is set. */
static uint8_t *make_kvx(bool eight, size_t *size) {
    const uint8_t col00[] = {0, 2, 0, 7, 9, 3, 1, 0, 63}, col12[] = {4, 1, 0, 200};
    const uint32_t table = 4 * 3 + 2 * 2 * 4, slabs = sizeof col00 + sizeof col12;
    const uint32_t numbytes = 24 + table + slabs;
    *size = 4 + numbytes + 768;
    uint8_t *d = calloc(*size, 1), *p = d;
    const uint32_t head[7] = {numbytes, 2, 3, 5, 256, 128, 4 * 256 + 192};
    for (int k = 0; k < 7; k++, p += 4) vxr_put32(p, head[k]);
    const uint32_t xoff[3] = {table, table + sizeof col00, table + slabs};
    for (int k = 0; k < 3; k++, p += 4) vxr_put32(p, xoff[k]);
    const uint16_t xy[2][4] = {{0, sizeof col00, sizeof col00, sizeof col00},
                               {0, 0, 0, sizeof col12}};
    for (int x = 0; x < 2; x++)
        for (int y = 0; y < 4; y++, p += 2) {
            p[0] = (uint8_t)xy[x][y];
            p[1] = (uint8_t)(xy[x][y] >> 8);
        }
    memcpy(p, col00, sizeof col00);
    memcpy(p + sizeof col00, col12, sizeof col12);
    uint8_t *pal = d + *size - 768;
    for (int i = 0; i < 256; i++) pal[3 * i] = (uint8_t)(eight ? i : i % 64);
    return d;
}

static void test_kvx_hand_made(void) {
    for (int eight = 0; eight < 2; eight++) {
        size_t size;
        uint8_t *d = make_kvx(eight, &size);
        vxr_scene_src src;
        vxr_error err = {{0}};
        vxr_scene *s = NULL;
        CHECK(vxr_load_kvx(d, size, &src, &err) == VXR_OK);
        CHECK(vxr_scene_build(&src, &s, &err) == VXR_OK);
        vxr_scene_src_free(&src);
        size_t n = 0;
        uint8_t *got = s ? records(s, &n) : NULL;
        /* file (x, y, z) -> (x, 2 - y, 4 - z), then less the pivot
         * (1, 3 - 0.5, 5 - 4.75) rounded: (1, 3, 0) */
        struct {
            int32_t x, y, z;
            uint32_t index;
        } want[] = {{0, 2, 4, 7}, {0, 2, 3, 9}, {0, 2, 1, 63}, {1, 0, 0, 200}};
        uint8_t w[4 * 16];
        for (int i = 0; i < 4; i++) {
            const uint32_t red = eight ? want[i].index : (want[i].index % 64 * 255 + 31) / 63;
            vxr_put_be32(w + 16 * i, (uint32_t)(want[i].x - 1));
            vxr_put_be32(w + 16 * i + 4, (uint32_t)(want[i].y - 3));
            vxr_put_be32(w + 16 * i + 8, (uint32_t)want[i].z);
            vxr_put_be32(w + 16 * i + 12, 0xff000000u | red << 16);
        }
        qsort(w, 4, 16, cmp_record);
        CHECK_EQ_INT(n, 4);
        CHECK(got && n == 4 && !memcmp(got, w, sizeof w));
        vxr_scene_destroy(s);
        VXR_FREE(got, d);
    }
}

static void rejects(vxr_result (*load)(const uint8_t *, size_t, vxr_scene_src *, vxr_error *),
                    const uint8_t *d, size_t n, const char *what) {
    check_rejects(load, d, n, VXR_ERROR_FORMAT, what);
}

static void test_kvx_hostile(void) {
    size_t size = 0;
    uint8_t *d = make_kvx(false, &size);
    for (size_t n = 0; n < size; n++) rejects(vxr_load_kvx, d, n, "a .kvx prefix");
    /* every word of the header and offset tables turned hostile (the
     * pivots excepted: any value places the model) */
    const uint32_t bad[] = {0, 3, 0x7fffffffu, 0xffffffffu, 0x10000u};
    for (size_t at = 0; at < 4 + 24 + 12; at += 4) {
        if (at >= 16 && at < 28) continue;
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            uint8_t *e = malloc(size);
            memcpy(e, d, size);
            vxr_put32(e + at, bad[i]);
            vxr_scene_src src;
            vxr_result r = vxr_load_kvx(e, size, &src, NULL);
            /* a different offset may still name valid slabs; it must not
             * crash, and a failure must leave nothing */
            if (r != VXR_OK) CHECK(src.models == NULL && src.model_count == 0);
            vxr_scene_src_free(&src);
            free(e);
        }
    }
    /* a slab past zsiz, and one past its column */
    uint8_t *e = malloc(size);
    memcpy(e, d, size);
    const size_t slab2 = 4 + 24 + 28 + 5; /* the second slab of column (0, 0) */
    e[slab2] = 4;                         /* from z 4, 1 long: fits */
    vxr_scene_src ok;
    CHECK(vxr_load_kvx(e, size, &ok, NULL) == VXR_OK);
    vxr_scene_src_free(&ok);
    e[slab2] = 5; /* from z 5: past zsiz */
    rejects(vxr_load_kvx, e, size, "a slab past zsiz");
    memcpy(e, d, size);
    e[slab2 + 1] = 2; /* 2 long, one byte more than the column has */
    rejects(vxr_load_kvx, e, size, "a slab past its column");
    VXR_FREE(e, d);

    uint8_t *kv6 = read_data("vengi__slab6_vox_test.kv6", &size);
    if (!kv6) return;
    const size_t tables = 32 + 8 * 1531 + 4 * 39 + 2 * 39 * 13; /* without "SPal" */
    for (size_t n = 0; n < tables; n += n < 64 ? 1 : 97) rejects(vxr_load_kv6, kv6, n, "prefix");
    CHECK(vxr_load_kv6(kv6, tables, &ok, NULL) == VXR_OK); /* the palette is optional */
    vxr_scene_src_free(&ok);
    e = malloc(size);
    const struct {
        size_t at;
        uint32_t value;
        const char *what;
    } kv6_bad[] = {{28, 1530, "a voxel fewer"},
                   {28, 0xffffffffu, "2^32 voxels"},
                   {4, 0xffffffffu, "xsiz"},
                   {8, 65537, "ysiz"},
                   {12, 0, "zsiz 0: every z outside"},
                   {16, 0x7fc00000u, "a NaN pivot"},
                   {20, 0x7f800000u, "an infinite pivot"}};
    for (size_t i = 0; i < sizeof kv6_bad / sizeof kv6_bad[0]; i++) {
        memcpy(e, kv6, size);
        vxr_put32(e + kv6_bad[i].at, kv6_bad[i].value);
        rejects(vxr_load_kv6, e, size, kv6_bad[i].what);
    }
    memcpy(e, kv6, size);
    e[0] = 'k';
    rejects(vxr_load_kv6, e, size, "no magic");
    VXR_FREE(e, kv6);

    uint8_t *vox = read_data("vengi__slab6_vox_test.vox", &size);
    if (!vox) return;
    for (size_t n = 0; n < size; n += n < 800 ? 1 : 211)
        rejects(vxr_load_slab6_vox, vox, n, "prefix");
    e = malloc(size + 1);
    memcpy(e, vox, size);
    rejects(vxr_load_slab6_vox, e, size + 1, "a byte more");
    const uint32_t sizes[][3] = {
        {40, 13, 43}, {0xffffffffu, 0xffffffffu, 0xffffffffu}, {21801, 1, 1}, {1u << 21, 1, 1}};
    for (size_t i = 0; i < 4; i++) {
        for (int k = 0; k < 3; k++) vxr_put32(e + 4 * k, sizes[i][k]);
        /* 21801 x 1 x 1 fills the file exactly: a valid reading of it */
        if (i == 2) {
            CHECK(vxr_load_slab6_vox(e, size, &ok, NULL) == VXR_OK);
            vxr_scene_src_free(&ok);
        } else {
            rejects(vxr_load_slab6_vox, e, size, "sizes");
        }
    }
    VXR_FREE(e, vox);
}

VXR_TEST_MAIN(TEST(test_slab6_trio), TEST(test_kvx_hand_made), TEST(test_kvx_hostile))
