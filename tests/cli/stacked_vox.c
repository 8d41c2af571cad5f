/* stacked_vox K OUT.vox: writes a MagicaVoxel file whose scene graph puts
 * K copies of one model (a ball in 8^3 cells) at the same spot under one
 * group: the case that once cut GPU traces short (every copy ties at the
 * same t, and the lowest instance must win). Used by the pickcheck and
 * pick --gpu tests. Chunks as the .vox spec lays them out. */
#include <stdio.h>
#include <stdlib.h>

enum { SIDE = 8, MAX_VOXELS = SIDE * SIDE * SIDE, HEADER = 12 };

static FILE *out;

static void u32(unsigned long v) {
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    fwrite(b, 1, 4, out);
}

/* A chunk header: id, content size, children size. */
static void chunk(const char *id, unsigned long content, unsigned long children) {
    fwrite(id, 1, 4, out);
    u32(content);
    u32(children);
}

static void string(const char *s, unsigned long n) {
    u32(n);
    fwrite(s, 1, n, out);
}

int main(int argc, char **argv) {
    long k = argc == 3 ? strtol(argv[1], NULL, 10) : 0;
    if (k < 1 || k > 10000000 || !(out = fopen(argv[2], "wb"))) {
        fprintf(stderr, "usage: stacked_vox K OUT.vox (K 1..10^7)\n");
        return 2;
    }
    static unsigned char xyzi[MAX_VOXELS][4];
    unsigned long n = 0;
    for (int x = 0; x < SIDE; x++)
        for (int y = 0; y < SIDE; y++)
            for (int z = 0; z < SIDE; z++) {
                double dx = x - 3.5, dy = y - 3.5, dz = z - 3.5;
                if (dx * dx + dy * dy + dz * dz >= 12) continue;
                unsigned char *v = xyzi[n++];
                v[0] = (unsigned char)x, v[1] = (unsigned char)y, v[2] = (unsigned char)z;
                v[3] = (unsigned char)(1 + (x + y + z) % 20);
            }
    /* contents: nTRN root 28, nGRP 12 + 4k, per copy nTRN 43 (a "_t" frame)
     * and nSHP 20 */
    const unsigned long root = 28, group = 12 + 4 * (unsigned long)k, trn = 43, shp = 20;
    unsigned long children = (HEADER + 12) + (HEADER + 4 + 4 * n) + (HEADER + root) +
                             (HEADER + group) + (unsigned long)k * (2 * HEADER + trn + shp);
    fwrite("VOX ", 1, 4, out);
    u32(200);
    chunk("MAIN", 0, children);
    chunk("SIZE", 12, 0);
    u32(SIDE), u32(SIDE), u32(SIDE);
    chunk("XYZI", 4 + 4 * n, 0);
    u32(n);
    fwrite(xyzi, 4, n, out);
    chunk("nTRN", root, 0);
    u32(0), u32(0), u32(1), u32(0xffffffffu), u32(0xffffffffu), u32(1), u32(0);
    chunk("nGRP", group, 0);
    u32(1), u32(0), u32((unsigned long)k);
    for (long i = 0; i < k; i++) u32(2 + 2 * (unsigned long)i);
    for (long i = 0; i < k; i++) {
        unsigned long id = 2 + 2 * (unsigned long)i;
        chunk("nTRN", trn, 0);
        u32(id), u32(0), u32(id + 1), u32(0xffffffffu), u32(0), u32(1), u32(1);
        string("_t", 2);
        string("0 0 0", 5);
        chunk("nSHP", shp, 0);
        u32(id + 1), u32(0), u32(1), u32(0), u32(0);
    }
    return fclose(out) == 0 ? 0 : 1;
}
