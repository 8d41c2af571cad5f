/* libFuzzer target: a world's chunk file (core/world_chunk.c, a .vxc: its
 * level table, coarse forms with their node colours, and the whole
 * chunk's .vxo), written to a file and read at every level as a world of
 * chunks of 32 with the generated palette reads chunk 0 0 0. A read that
 * passes gives a valid octree in the level's cells, with node colours
 * exactly when coarse and a level no higher than asked. Seeds: chunks of
 * `vxr world build @terrain:64 --out W --chunk 32`. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "vxr/svo.h"
#include "vxr/world.h"
#include "../../core/internal.h"
#include "../../core/procgen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { SIDE = 32 };

static char dir[64], path[128];
static vxr_scene *colours;

static void setup(void) {
    snprintf(dir, sizeof dir, "/tmp/vxr-fuzz-chunk-%d", (int)getpid());
    snprintf(path, sizeof path, "%s/chunks", dir);
    if ((mkdir(dir, 0777) && access(dir, F_OK)) || (mkdir(path, 0777) && access(path, F_OK)))
        abort();
    const int32_t c[3] = {0, 0, 0};
    vxr_world_chunk_path(path, sizeof path, dir, c, false);
    colours = vxr_scene_alloc(0, 0);
    if (!colours) abort();
    colours->attr_size = 1;
    vxr_gen_palette(colours->palette);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!colours) setup();
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f)) abort();
    const vxr_world_entry e = {{0, 0, 0}, 1};
    for (uint32_t want = 0; want <= 3; want++) {
        uint32_t level = want, whole = 0;
        uint64_t bytes = 0;
        vxr_octree t;
        vxr_error err;
        if (vxr_world_read_chunk(dir, SIDE, &e, colours, &level, &t, &bytes, &whole, &err) !=
            VXR_OK)
            continue;
        if (level > want || !t.voxel_count || !t.lod_colors != !level || bytes > size ||
            vxr_octree_validate(&t, &err) != VXR_OK)
            abort();
        for (int k = 0; k < 3; k++)
            if (t.vmin[k] < 0 || t.vmax[k] > (int32_t)(SIDE >> level)) abort();
        vxr_octree_free(&t);
    }
    return 0;
}
