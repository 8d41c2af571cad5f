/* camera_vox IN.vox OUT.vox: IN with render cameras (rCAM, MagicaVoxel's
 * camera slots) appended to MAIN, for the --file-camera tests: slot 0 in
 * perspective, focus (0.5, 3, 10), pitch 0, yaw 90, radius 100, fov 40 (an
 * eye of (100.5, 3, 10) exactly in float); slot 4 pitch 30, yaw 45; slot 1
 * orthographic; slot 2 unset (radius 0, as MagicaVoxel writes empty slots).
 * Chunks as the .vox extension document lays them out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char buf[1 << 16];
static size_t n;

static void u32(unsigned long v) {
    for (int i = 0; i < 4; i++) buf[n++] = (unsigned char)(v >> (8 * i));
}

static void string(const char *s) {
    u32(strlen(s));
    memcpy(buf + n, s, strlen(s));
    n += strlen(s);
}

static void camera(unsigned long id, const char *mode, const char *focus, const char *angle,
                   const char *radius, const char *fov) {
    const size_t at = n;
    memcpy(buf + n, "rCAM", 4);
    n += 12;
    u32(id);
    u32(6);
    const char *kv[] = {"_mode",   mode,   "_focus",   focus,      "_angle", angle,
                        "_radius", radius, "_frustum", "0.414214", "_fov",   fov};
    for (int i = 0; i < 12; i++) string(kv[i]);
    const size_t content = n - at - 12;
    for (int i = 0; i < 4; i++) buf[at + 4 + i] = (unsigned char)(content >> (8 * i));
    memset(buf + at + 8, 0, 4);
}

int main(int argc, char **argv) {
    FILE *in = argc == 3 ? fopen(argv[1], "rb") : NULL;
    if (!in) {
        fprintf(stderr, "usage: camera_vox IN.vox OUT.vox\n");
        return 2;
    }
    unsigned char *d = malloc(64u << 20);
    const size_t size = d ? fread(d, 1, 64u << 20, in) : 0;
    fclose(in);
    if (size < 20 || memcmp(d, "VOX ", 4) || memcmp(d + 8, "MAIN", 4)) {
        fprintf(stderr, "camera_vox: %s is not a .vox file\n", argv[1]);
        return 1;
    }
    camera(0, "pers", "0.5 3 10", "0 90 0", "100", "40");
    camera(4, "pers", "1 2 3", "30 45 0", "80", "50");
    camera(1, "orth", "0 0 0", "10 20 0", "50", "45");
    camera(2, "pers", "0 0 0", "0 0 0", "0", "45");
    const unsigned long children = (unsigned long)d[16] | (unsigned long)d[17] << 8 |
                                   (unsigned long)d[18] << 16 | (unsigned long)d[19] << 24;
    const unsigned long total = children + (unsigned long)n;
    for (int i = 0; i < 4; i++) d[16 + i] = (unsigned char)(total >> (8 * i));
    FILE *out = fopen(argv[2], "wb");
    if (!out || fwrite(d, 1, size, out) != size || fwrite(buf, 1, n, out) != n || fclose(out)) {
        fprintf(stderr, "camera_vox: cannot write %s\n", argv[2]);
        return 1;
    }
    free(d);
    return 0;
}
