/* full_vox SIDE K OUT.vox: writes a MagicaVoxel file of one full model of
 * SIDE^3 cells (SIDE 1..256) placed K times side by side along x under one
 * group: a scene whose instanced voxels (SIDE^3 * K) outgrow memory, for
 * the streamed .vl32 tests and benchmark (issue 16). Chunks as the .vox
 * spec lays them out (see stacked_vox.c). */
#include <stdio.h>
#include <stdlib.h>

enum { HEADER = 12 };

static FILE *out;

static void u32(unsigned long v) {
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    fwrite(b, 1, 4, out);
}

static void chunk(const char *id, unsigned long content, unsigned long children) {
    fwrite(id, 1, 4, out);
    u32(content);
    u32(children);
}

static void string(const char *s, unsigned long n) {
    u32(n);
    fwrite(s, 1, n, out);
}

/* The "_t" value of copy i. */
static int translation(long i, long side, char *dest, size_t size) {
    return snprintf(dest, size, "%ld 0 0", i * side);
}

int main(int argc, char **argv) {
    long side = argc == 4 ? strtol(argv[1], NULL, 10) : 0;
    long k = argc == 4 ? strtol(argv[2], NULL, 10) : 0;
    if (side < 1 || side > 256 || k < 1 || k > 100000 || !(out = fopen(argv[3], "wb"))) {
        fprintf(stderr, "usage: full_vox SIDE K OUT.vox (SIDE 1..256, K 1..100000)\n");
        return 2;
    }
    const unsigned long n = (unsigned long)(side * side * side);
    const unsigned long root = 28, group = 12 + 4 * (unsigned long)k, shp = 20;
    unsigned long trns = 0;
    char t[64];
    for (long i = 0; i < k; i++)
        trns += 28 + 6 + 4 + (unsigned long)translation(i, side, t, sizeof t);
    unsigned long children = (HEADER + 12) + (HEADER + 4 + 4 * n) + (HEADER + root) +
                             (HEADER + group) + (unsigned long)k * (2 * HEADER + shp) + trns;
    fwrite("VOX ", 1, 4, out);
    u32(200);
    chunk("MAIN", 0, children);
    chunk("SIZE", 12, 0);
    u32((unsigned long)side), u32((unsigned long)side), u32((unsigned long)side);
    chunk("XYZI", 4 + 4 * n, 0);
    u32(n);
    for (long x = 0; x < side; x++)
        for (long y = 0; y < side; y++)
            for (long z = 0; z < side; z++) {
                unsigned char v[4] = {(unsigned char)x, (unsigned char)y, (unsigned char)z,
                                      (unsigned char)(1 + (x + y + z) % 200)};
                fwrite(v, 1, 4, out);
            }
    chunk("nTRN", root, 0);
    u32(0), u32(0), u32(1), u32(0xffffffffu), u32(0xffffffffu), u32(1), u32(0);
    chunk("nGRP", group, 0);
    u32(1), u32(0), u32((unsigned long)k);
    for (long i = 0; i < k; i++) u32(2 + 2 * (unsigned long)i);
    for (long i = 0; i < k; i++) {
        unsigned long id = 2 + 2 * (unsigned long)i;
        int len = translation(i, side, t, sizeof t);
        chunk("nTRN", 28 + 6 + 4 + (unsigned long)len, 0);
        u32(id), u32(0), u32(id + 1), u32(0xffffffffu), u32(0), u32(1), u32(1);
        string("_t", 2);
        string(t, (unsigned long)len);
        chunk("nSHP", shp, 0);
        u32(id + 1), u32(0), u32(1), u32(0), u32(0);
    }
    return fclose(out) == 0 ? 0 : 1;
}
