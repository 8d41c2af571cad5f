/* libFuzzer target for a loader of voxel lists (FUZZ_LOADER: vxr_load_vox
 * for fuzz_vox, vxr_load_vl32 for fuzz_vl32, ...) from memory, then the
 * octree build. */
#include <stdlib.h>
#include "vxr/formats.h"

/* The NBT entries of the gzip formats live in the core's internals. */
vxr_result vxr_load_litematic_nbt(const uint8_t *nbt, size_t n, vxr_scene_src *dest,
                                  vxr_error *err);
vxr_result vxr_load_schematic_nbt(const uint8_t *nbt, size_t n, vxr_scene_src *dest,
                                  vxr_error *err);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    vxr_scene_src src;
    vxr_error err;
    if (FUZZ_LOADER(data, size, &src, &err) != VXR_OK) {
        /* A failed load leaves the source empty. */
        if (src.model_count || src.models || src.instance_count || src.instances) abort();
        return 0;
    }
    vxr_scene *scene;
    if (vxr_scene_build(&src, &scene, &err) == VXR_OK) {
        vxr_scene_stats st;
        vxr_scene_get_stats(scene, &st);
        vxr_scene_destroy(scene);
    }
    vxr_scene_src_free(&src);
    return 0;
}
