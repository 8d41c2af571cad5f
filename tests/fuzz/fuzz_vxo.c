/* libFuzzer target: .vxo from memory. A file that loads must save back to
 * exactly its bytes (core/vxo.c), and its octrees must be safe to walk. */
#include <stdlib.h>
#include <string.h>
#include "vxr/blob.h"
#include "vxr/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void ignore_voxel(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    (void)user, (void)x, (void)y, (void)z, (void)attr;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    vxr_scene *scene;
    vxr_error err;
    if (vxr_load_vxo(data, size, &scene, &err) != VXR_OK) {
        if (scene) abort();
        return 0;
    }
    uint8_t *out;
    size_t n;
    if (vxr_save_vxo(scene, &out, &n, NULL) != VXR_OK) abort();
    if (n != size || memcmp(out, data, size)) abort();
    free(out);
    for (uint32_t i = 0; i < scene->model_count; i++) {
        const vxr_octree *m = &scene->models[i];
        if (vxr_octree_validate(m, NULL) != VXR_OK) abort();
        vxr_octree_foreach(m, ignore_voxel, NULL);
        vxr_octree_lookup(m, m->vmin[0], m->vmin[1], m->vmin[2], NULL);
    }
    vxr_scene_stats st;
    vxr_scene_get_stats(scene, &st);
    void *blob = malloc(st.bytes);
    if (blob) vxr_scene_write_blob(scene, blob);
    free(blob);
    vxr_scene_destroy(scene);
    return 0;
}
