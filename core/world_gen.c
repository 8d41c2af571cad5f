/* A generated world written as a world of files (vxr_world_build_generated):
 * @terrain:N made a chunk at a time, never whole, each chunk file the one
 * `vxr_world_build` of the @terrain:N scene writes. */
#include <stdlib.h>
#include <string.h>
#include "procgen.h"
#include "vxr/world.h"

vxr_result vxr_world_build_generated(const char *name, const char *dir, uint32_t chunk,
                                     uint32_t threads, vxr_world_stats *stats, vxr_error *err) {
    vxr_world_stats st = {0, 0, 0};
    if (stats) *stats = st;
    int32_t n = 0, lo, hi, layers;
    vxr_result r = vxr_terrain_spec(name, &n, err);
    if (r != VXR_OK) return r;
    if (chunk >= VXR_WORLD_CHUNK_MIN && chunk <= VXR_WORLD_CHUNK_MAX) {
        vxr_terrain_grid(n, chunk, &lo, &hi, &layers);
        const int64_t count = (int64_t)(hi - lo + 1) * (hi - lo + 1) * layers;
        if (count > VXR_WORLD_MAX_CHUNKS)
            return vxr_fail(err, VXR_ERROR_LIMIT, "%s in chunks of %u: %lld chunks, more than %u",
                            name, chunk, (long long)count, VXR_WORLD_MAX_CHUNKS);
    }
    if ((r = vxr_world_begin(dir, chunk, err)) != VXR_OK) return r;
    vxr_scene *colours = vxr_scene_alloc(0, 0);
    vxr_world_entry *e =
        malloc((size_t)(hi - lo + 1) * (size_t)(hi - lo + 1) * (size_t)layers * sizeof *e);
    if (!colours || !e) r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    if (colours) {
        vxr_gen_palette(colours->palette);
        colours->attr_size = 1;
    }
    /* in the order of vxr_world_build's index: x, then y, then z */
    uint32_t written = 0;
    for (int32_t x = lo; r == VXR_OK && x <= hi; x++)
        for (int32_t y = lo; r == VXR_OK && y <= hi; y++)
            for (int32_t z = 0; r == VXR_OK && z < layers; z++) {
                vxr_chunk_bucket b = {{x, y, z}, {0}};
                r = vxr_terrain_chunk(n, chunk, b.c, &b.m);
                if (r != VXR_OK) {
                    r = vxr_fail(err, r, "%s: chunk %d %d %d: out of memory", name, x, y, z);
                } else if (b.m.count) {
                    memcpy(e[written].c, b.c, sizeof b.c);
                    r = vxr_world_write_chunk(colours, dir, chunk, threads, &b, &st.bytes, NULL,
                                              &e[written].voxels, err);
                    st.voxels += e[written++].voxels;
                }
                free(b.m.voxels);
            }
    r = vxr_world_finish(r, colours, dir, chunk, e, written, &st, err);
    if (r == VXR_OK && stats) *stats = st;
    free(e);
    vxr_scene_destroy(colours);
    return r;
}
