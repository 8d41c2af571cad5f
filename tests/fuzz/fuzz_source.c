/* libFuzzer target for a loader of voxel lists (FUZZ_LOADER: vxr_load_vox
 * for fuzz_vox, vxr_load_vl32 for fuzz_vl32, ...) from memory, then the
 * octree build. fuzz_vox (FUZZ_SAVE_VOX) also saves the scene as .vox,
 * with the file's scene graph patched back in (core/vox_graph.c), and
 * reads the save back: the shown world voxels must be the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vxr/formats.h"

#ifdef FUZZ_SAVE_VOX
static int cmp_record(const void *a, const void *b) {
    return memcmp(a, b, 16);
}

/* The shown world voxels as sorted .vl32 records. */
static uint8_t *world(const vxr_scene *s, size_t *n) {
    uint8_t *d = NULL;
    if (vxr_save_vl32(s, &d, n, NULL) != VXR_OK) abort();
    if (*n) qsort(d, *n / 16, 16, cmp_record);
    return d;
}

static void check_saved(const vxr_scene *scene) {
    uint8_t *saved = NULL;
    size_t n = 0;
    vxr_error err;
    const vxr_result r = vxr_save_vox(scene, &saved, &n, &err);
    if (r == VXR_ERROR_MEMORY) return;
    if (r != VXR_OK) { /* what the reader takes, the writer holds */
        fprintf(stderr, "save: %s\n", err.message);
        abort();
    }
    vxr_scene_src src;
    vxr_scene *back = NULL;
    if (vxr_load_vox(saved, n, &src, &err) != VXR_OK ||
        vxr_scene_build(&src, &back, &err) != VXR_OK) {
        fprintf(stderr, "reading the save: %s\n", err.message);
        abort();
    }
    size_t na = 0, nb = 0;
    uint8_t *a = world(scene, &na), *b = world(back, &nb);
    if (na != nb || (na && memcmp(a, b, na))) abort();
    free(a);
    free(b);
    free(saved);
    vxr_scene_src_free(&src);
    vxr_scene_destroy(back);
}
#endif

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
#ifdef FUZZ_SAVE_VOX
        check_saved(scene);
#endif
        vxr_scene_destroy(scene);
    }
    vxr_scene_src_free(&src);
    return 0;
}
