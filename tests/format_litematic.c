/* Minecraft's formats. Litematica .litematic: the real file's blocks number its own metadata's
 * TotalBlocks and fill its EnclosingSize, every block of its palette named
 * by the colour table; a hand-made file (NBT written here, gzip by the
 * system's zlib) checks the cell order, indices straddling two longs, a
 * region of negative size and the axis turn; the colour table's rules by
 * name; hostile NBT (cuts, deep nesting, wrong types, bad indices) fails
 * cleanly. MCEdit's .schematic: a hand-made file of legacy ids named by
 * their data values (wool, planks, logs, terracotta, concrete, stone
 * kinds), AddBlocks, cuts and sizes that disagree with the arrays. */
#include <string.h>
#include <zlib.h>
#include "internal.h" /* core/: NBT, the colour table, vxr_bytes */
#include "vxr_test.h"
#include "format_records.h"

static uint8_t *unzip(const uint8_t *d, size_t n, size_t *out_n) {
    uint8_t *out = NULL;
    const char *why;
    CHECK(vxr_inflate(d, n, true, (size_t)1 << 28, &out, out_n, &why) == VXR_OK);
    return out;
}

static void test_real_file(void) {
    size_t size = 0, n = 0;
    uint8_t *gz = read_data("vengi__test.litematic", &size);
    uint8_t *nbt = gz ? unzip(gz, size, &n) : NULL;
    vxr_nbt root, meta, enclosing, regions, reg, palette, entry, name;
    CHECK(nbt && vxr_nbt_root(nbt, n, &root));
    CHECK(vxr_nbt_get(&root, "Metadata", 10, &meta));
    int32_t total = -1, e[3] = {0};
    CHECK(vxr_nbt_int(&meta, "TotalBlocks", &total));
    CHECK(vxr_nbt_get(&meta, "EnclosingSize", 10, &enclosing));
    CHECK(vxr_nbt_int(&enclosing, "x", &e[0]) && vxr_nbt_int(&enclosing, "y", &e[1]) &&
          vxr_nbt_int(&enclosing, "z", &e[2]));
    /* every palette name known to the table */
    size_t cursor = 0, rc = 0, len, unknown = 0, names = 0;
    const uint8_t *key;
    CHECK(vxr_nbt_get(&root, "Regions", 10, &regions));
    while (vxr_nbt_next(&regions, &rc, &reg, &key, &len)) {
        CHECK(vxr_nbt_get(&reg, "BlockStatePalette", 9, &palette));
        cursor = 0;
        while (vxr_nbt_list_next(&palette, &cursor, &entry)) {
            CHECK(vxr_nbt_get(&entry, "Name", 8, &name));
            size_t sl;
            const uint8_t *s = vxr_nbt_string(&name, &sl);
            bool known;
            vxr_mc_block_color(s, sl, &known);
            names++;
            if (!known) {
                unknown++;
                fprintf(stderr, "  not in the table: %.*s\n", (int)sl, (const char *)s);
            }
        }
    }
    CHECK(names > 100);
    CHECK_EQ_INT(unknown, 0);
    vxr_scene *sc = load_file(VXR_TEST_DATA "/vengi__test.litematic");
    if (sc) {
        size_t nr = 0;
        uint8_t *r = records(sc, &nr);
        CHECK_EQ_INT(nr, (size_t)total);
        int32_t lo[3] = {INT32_MAX, INT32_MAX, INT32_MAX},
                hi[3] = {INT32_MIN, INT32_MIN, INT32_MIN};
        for (size_t i = 0; i < nr; i++)
            for (int k = 0; k < 3; k++) {
                const int32_t c = record_coord(r + 16 * i, k);
                lo[k] = c < lo[k] ? c : lo[k];
                hi[k] = c > hi[k] ? c : hi[k];
            }
        /* Minecraft's x, z, y are vxr's x, y, z */
        CHECK(hi[0] - lo[0] + 1 == e[0] && hi[1] - lo[1] + 1 == e[2] && hi[2] - lo[2] + 1 == e[1]);
        free(r);
        vxr_scene_destroy(sc);
    }
    VXR_FREE(gz, nbt);
}

static void test_block_colors(void) {
    static const struct {
        const char *name;
        uint32_t rgb; /* 0xRRGGBB; 1: air */
        bool known;
    } cases[] = {
        {"minecraft:air", 1, true},
        {"cave_air", 1, true},
        {"minecraft:stone", 0x707070, true},
        {"minecraft:oak_planks", 0x8f7748, true},
        {"dark_oak_log", 0x664c33, true},
        {"minecraft:light_blue_wool", 0x6699d8, true},
        {"blue_concrete", 0x334cb2, true},
        {"minecraft:oak_leaves", 0x007c00, true},
        {"stone_brick_stairs", 0x707070, true},
        {"cobblestone_wall", 0x707070, true},
        {"minecraft:water", 0x4040ff, true},
        {"deepslate_iron_ore", 0x646464, true},
        {"minecraft:zzz_unheard_of", 0x707070, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool known;
        const uint32_t c =
            vxr_mc_block_color((const uint8_t *)cases[i].name, strlen(cases[i].name), &known);
        const uint32_t want = cases[i].rgb == 1
                                  ? 0
                                  : 0xff000000u | (cases[i].rgb >> 16) | (cases[i].rgb & 0xff00) |
                                        (cases[i].rgb & 0xff) << 16;
        if (c != want || known != cases[i].known)
            fprintf(stderr, "  %s: %08x (known %d), want %08x\n", cases[i].name, c, known, want);
        CHECK(c == want && known == cases[i].known);
    }
}

/* ---- hand-made NBT ---- */

static void put_name(vxr_bytes *o, uint8_t type, const char *s) {
    const uint8_t h[3] = {type, (uint8_t)(strlen(s) >> 8), (uint8_t)strlen(s)};
    vxr_bytes_put(o, h, 3);
    vxr_bytes_put(o, s, strlen(s));
}

static void be32(vxr_bytes *o, uint32_t v) {
    uint8_t b[4];
    vxr_put_be32(b, v);
    vxr_bytes_put(o, b, 4);
}

static void xyz(vxr_bytes *o, const char *tag, const int32_t v[3]) {
    put_name(o, 10, tag);
    static const char *const axis[3] = {"x", "y", "z"};
    for (int k = 0; k < 3; k++) {
        put_name(o, 3, axis[k]);
        be32(o, (uint32_t)v[k]);
    }
    vxr_bytes_put(o, "", 1);
}

static const char *const blocks[5] = {"minecraft:air", "minecraft:stone", "minecraft:dirt",
                                      "minecraft:water", "minecraft:gold_block"};

/* A region of size s at p, cell i holding block (i * 7 + salt) % 5, 3 bits
 * each (5 entries), packed across longs. */
static void region(vxr_bytes *o, const char *tag, const int32_t p[3], const int32_t s[3], int salt,
                   uint8_t *want, size_t *nw) {
    put_name(o, 10, tag);
    xyz(o, "Position", p);
    xyz(o, "Size", s);
    put_name(o, 9, "BlockStatePalette");
    const uint8_t list[5] = {10, 0, 0, 0, 5};
    vxr_bytes_put(o, list, 5);
    for (int b = 0; b < 5; b++) {
        put_name(o, 8, "Name");
        const uint8_t l[2] = {0, (uint8_t)strlen(blocks[b])};
        vxr_bytes_put(o, l, 2);
        vxr_bytes_put(o, blocks[b], strlen(blocks[b]));
        vxr_bytes_put(o, "", 1);
    }
    int64_t n[3], lo[3];
    uint64_t volume = 1;
    for (int k = 0; k < 3; k++) {
        n[k] = s[k] < 0 ? -s[k] : s[k];
        lo[k] = p[k] + (s[k] < 0 ? s[k] + 1 : 0);
        volume *= (uint64_t)n[k];
    }
    const uint64_t longs = (volume * 3 + 63) / 64;
    uint64_t *packed = calloc(longs + 1, 8);
    for (uint64_t i = 0; i < volume; i++) {
        const uint64_t v = (i * 7 + (uint64_t)salt) % 5, at = i * 3;
        packed[at / 64] |= v << (at % 64);
        if (at % 64 > 61) packed[at / 64 + 1] |= v >> (64 - at % 64);
        if (!v) continue;
        const int64_t x = lo[0] + (int64_t)(i % (uint64_t)n[0]),
                      z = lo[2] + (int64_t)(i / (uint64_t)n[0] % (uint64_t)n[2]),
                      y = lo[1] + (int64_t)(i / (uint64_t)(n[0] * n[2]));
        bool known;
        const uint32_t c =
            vxr_mc_block_color((const uint8_t *)blocks[v], strlen(blocks[v]), &known);
        uint8_t *q = want + 16 * (*nw)++;
        vxr_put_be32(q, (uint32_t)x);
        vxr_put_be32(q + 4, (uint32_t)(-z - 1));
        vxr_put_be32(q + 8, (uint32_t)y);
        vxr_put_be32(q + 12, 0xff000000u | (c & 255) << 16 | (c & 0xff00) | (c >> 16 & 255));
    }
    put_name(o, 12, "BlockStates");
    be32(o, (uint32_t)longs);
    for (uint64_t i = 0; i < longs; i++) {
        be32(o, (uint32_t)(packed[i] >> 32));
        be32(o, (uint32_t)packed[i]);
    }
    vxr_bytes_put(o, "", 1);
    free(packed);
}

static uint8_t *make_nbt(size_t *size, uint8_t *want, size_t *nw) {
    vxr_bytes o = {0};
    put_name(&o, 10, "");
    put_name(&o, 3, "Version");
    be32(&o, 6);
    put_name(&o, 10, "Regions");
    const int32_t p1[3] = {3, 1, -2}, s1[3] = {5, 4, 3}, p2[3] = {-1, 0, 10}, s2[3] = {-3, 2, -4};
    region(&o, "a", p1, s1, 0, want, nw);
    region(&o, "b", p2, s2, 3, want, nw);
    vxr_bytes_put(&o, "", 1);
    vxr_bytes_put(&o, "", 1);
    *size = o.n;
    return o.p;
}

static uint8_t *gzip(const uint8_t *d, size_t n, size_t *out_n) {
    z_stream z = {0};
    CHECK(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    const uLong cap = deflateBound(&z, n);
    uint8_t *out = malloc(cap);
    z.next_in = (Bytef *)(uintptr_t)d;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
    *out_n = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

static void test_hand_made(void) {
    uint8_t want[256 * 16];
    size_t nw = 0, n = 0, gz_n = 0;
    uint8_t *nbt = make_nbt(&n, want, &nw);
    uint8_t *gz = gzip(nbt, n, &gz_n);
    vxr_scene_src src;
    if (load_ok(vxr_load_litematic, gz, gz_n, &src)) {
        CHECK_EQ_INT(src.instance_count, 2);
        check_src_records(&src, want, nw);
    }
    /* cut anywhere (the gzip data or the NBT within): refused */
    for (size_t k = 0; k < gz_n; k++)
        check_rejects(vxr_load_litematic, gz, k, VXR_ERROR_FORMAT, "a cut file");
    for (size_t k = 0; k < n; k++)
        check_rejects(vxr_load_litematic_nbt, nbt, k, VXR_ERROR_FORMAT, "cut NBT");
    /* a flipped byte anywhere in the NBT: any result but a crash */
    uint8_t *e = malloc(n);
    for (size_t k = 0; k < n; k++) {
        memcpy(e, nbt, n);
        e[k] ^= 0x41;
        if (vxr_load_litematic_nbt(e, n, &src, NULL) != VXR_OK) CHECK(src.model_count == 0);
        vxr_scene_src_free(&src);
    }
    VXR_FREE(e, gz, nbt);
}

static void test_hostile(void) {
    /* 600 nested compounds: over NBT's 512 levels */
    vxr_bytes o = {0};
    for (int i = 0; i < 600; i++) put_name(&o, 10, "Regions");
    for (int i = 0; i < 600; i++) vxr_bytes_put(&o, "", 1);
    check_rejects(vxr_load_litematic_nbt, o.p, o.n, VXR_ERROR_FORMAT, "nested 600 deep");
    free(o.p);
    /* Regions of the wrong type; a region without BlockStates */
    vxr_bytes p = {0};
    put_name(&p, 10, "");
    put_name(&p, 3, "Regions");
    be32(&p, 1);
    vxr_bytes_put(&p, "", 1);
    check_rejects(vxr_load_litematic_nbt, p.p, p.n, VXR_ERROR_FORMAT, "Regions an int");
    free(p.p);
    vxr_bytes q = {0};
    put_name(&q, 10, "");
    put_name(&q, 10, "Regions");
    put_name(&q, 10, "r");
    const int32_t one[3] = {1, 1, 1};
    xyz(&q, "Position", one);
    xyz(&q, "Size", one);
    vxr_bytes_put(&q, "\0\0\0", 3);
    check_rejects(vxr_load_litematic_nbt, q.p, q.n, VXR_ERROR_FORMAT, "no palette");
    free(q.p);
    /* an index past the palette: entry 7 of 5 */
    uint8_t want[256 * 16];
    size_t nw = 0, n = 0;
    uint8_t *nbt = make_nbt(&n, want, &nw);
    const uint8_t *states = NULL;
    for (size_t i = 0; i + 11 < n; i++)
        if (!memcmp(nbt + i, "BlockStates", 11)) {
            states = nbt + i + 11 + 4;
            break;
        }
    CHECK(states != NULL);
    if (states) {
        nbt[states - nbt + 7] |= 7; /* cell 0's three bits (low bits of the first long) */
        check_rejects(vxr_load_litematic_nbt, nbt, n, VXR_ERROR_FORMAT, "index 7 of 5");
    }
    free(nbt);
    static const uint8_t not_gzip[4] = {0x1f, 0x8c, 0, 0};
    check_rejects(vxr_load_litematic, not_gzip, 4, VXR_ERROR_FORMAT, "not gzip");
}

/* ---- .schematic ---- */

static void byte_array(vxr_bytes *o, const char *tag, const uint8_t *b, uint32_t n) {
    put_name(o, 7, tag);
    be32(o, n);
    vxr_bytes_put(o, b, n);
}

static void short_tag(vxr_bytes *o, const char *tag, int v) {
    put_name(o, 2, tag);
    const uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    vxr_bytes_put(o, b, 2);
}

/* A 4 x 3 x 5 schematic: cell i holds case i % 9 of the table below (with
 * AddBlocks when add is set: case 8 then reads as id 300, unknown). */
static uint8_t *make_schematic(bool add, size_t *size, uint8_t *want, size_t *nw) {
    static const struct {
        uint8_t id, data;
        const char *name; /* the modern name; NULL: air */
    } cases[9] = {{0, 0, NULL},          {1, 3, "diorite"},           {5, 2, "birch_planks"},
                  {35, 14, "red_wool"},  {17, 1, "spruce_log"},       {159, 11, "blue_terracotta"},
                  {2, 0, "grass_block"}, {251, 15, "black_concrete"}, {44, 0, "stone_slab"}};
    enum { W = 4, H = 3, L = 5, CELLS = W * H * L };
    uint8_t ids[CELLS], data[CELLS], hi[(CELLS + 1) / 2] = {0};
    for (int i = 0; i < CELLS; i++) {
        const int c = i % 9;
        ids[i] = cases[c].id;
        data[i] = cases[c].data;
        const char *name = cases[c].name;
        if (add && c == 8) { /* id 44 + (1 << 8) = 300: no name */
            hi[i / 2] |= (uint8_t)(i & 1 ? 1 : 0x10);
            name = "no such block";
        }
        if (!name) continue;
        bool known;
        const uint32_t col = vxr_mc_block_color((const uint8_t *)name, strlen(name), &known);
        const int x = i % W, z = i / W % L, y = i / (W * L);
        uint8_t *q = want + 16 * (*nw)++;
        vxr_put_be32(q, (uint32_t)x);
        vxr_put_be32(q + 4, (uint32_t)(-z - 1));
        vxr_put_be32(q + 8, (uint32_t)y);
        vxr_put_be32(q + 12, 0xff000000u | (col & 255) << 16 | (col & 0xff00) | (col >> 16 & 255));
    }
    vxr_bytes o = {0};
    put_name(&o, 10, "Schematic");
    short_tag(&o, "Width", W);
    short_tag(&o, "Height", H);
    short_tag(&o, "Length", L);
    put_name(&o, 8, "Materials");
    vxr_bytes_put(&o,
                  "\0\x05"
                  "Alpha",
                  7);
    byte_array(&o, "Blocks", ids, CELLS);
    byte_array(&o, "Data", data, CELLS);
    if (add) byte_array(&o, "AddBlocks", hi, sizeof hi);
    vxr_bytes_put(&o, "", 1);
    *size = o.n;
    return o.p;
}

static void test_schematic(void) {
    for (int add = 0; add < 2; add++) {
        uint8_t want[64 * 16];
        size_t nw = 0, n = 0, gz_n = 0;
        uint8_t *nbt = make_schematic(add, &n, want, &nw);
        uint8_t *gz = gzip(nbt, n, &gz_n);
        vxr_scene_src src;
        if (load_ok(vxr_load_schematic, gz, gz_n, &src)) check_src_records(&src, want, nw);
        for (size_t k = 0; k < n; k++)
            check_rejects(vxr_load_schematic_nbt, nbt, k, VXR_ERROR_FORMAT, "cut NBT");
        /* sizes that disagree with the arrays */
        uint8_t *e = malloc(n);
        for (size_t at = 0; at + 5 < n; at++) {
            if (memcmp(nbt + at, "Width", 5) && memcmp(nbt + at, "Length", 6)) continue;
            const size_t v = at + (nbt[at] == 'W' ? 5 : 6);
            memcpy(e, nbt, n);
            e[v + 1]++;
            check_rejects(vxr_load_schematic_nbt, e, n, VXR_ERROR_FORMAT, "a size off by one");
            memcpy(e, nbt, n);
            e[v] = 0x80; /* negative */
            check_rejects(vxr_load_schematic_nbt, e, n, VXR_ERROR_FORMAT, "a negative size");
        }
        VXR_FREE(e, gz, nbt);
    }
}

VXR_TEST_MAIN(TEST(test_real_file), TEST(test_block_colors), TEST(test_hand_made),
              TEST(test_hostile), TEST(test_schematic))
