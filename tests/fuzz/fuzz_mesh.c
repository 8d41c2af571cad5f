/* libFuzzer target: a .vox from memory (as fuzz_vox); when it loads, every
 * model's mesh (vxr/mesh.h), greedy and cubes, is held to the octree: the
 * quads' unit squares number the exposed faces (cubes: one quad each;
 * greedy: the same area in no more quads), and every mesh file writer runs
 * on the scene. Models over 2^14 voxels are skipped for speed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "vxr/formats.h"
#include "vxr/mesh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct exposed {
    const vxr_octree *t;
    uint64_t faces;
} exposed;

static void count(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    (void)attr;
    exposed *e = user;
    for (int d = 0; d < 6; d++) {
        int32_t p[3] = {x, y, z};
        p[d / 2] += d & 1 ? 1 : -1;
        uint32_t a;
        e->faces += !vxr_octree_lookup(e->t, p[0], p[1], p[2], &a);
    }
}

/* The unit squares a mesh's quads cover. */
static uint64_t area(const vxr_mesh *m) {
    uint64_t total = 0;
    for (size_t q = 0; q < m->quad_count; q++) {
        const float *p = m->positions + 12 * q;
        double side[3];
        for (int k = 0; k < 3; k++) side[k] = fabs((double)p[6 + k] - (double)p[k]);
        for (int k = 0; k < 3; k++) side[k] = side[k] > 0 ? side[k] : 1; /* the normal's axis */
        total += (uint64_t)side[0] * (uint64_t)side[1] * (uint64_t)side[2];
    }
    return total;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    vxr_scene_src src;
    if (vxr_load_vox(data, size, &src, NULL) != VXR_OK) return 0;
    vxr_scene *s = NULL;
    const vxr_result built = vxr_scene_build(&src, &s, NULL);
    vxr_scene_src_free(&src);
    if (built != VXR_OK) return 0;
    uint64_t voxels = 0;
    for (uint32_t m = 0; m < s->model_count; m++) voxels += s->models[m].voxel_count;
    for (uint32_t m = 0; m < s->model_count && voxels <= (1u << 14); m++) {
        exposed e = {&s->models[m], 0};
        vxr_octree_foreach(&s->models[m], count, &e);
        vxr_mesh greedy, cubes;
        if (vxr_mesh_build(s, m, VXR_MESH_GREEDY, &greedy, NULL) != VXR_OK) abort();
        if (vxr_mesh_build(s, m, VXR_MESH_CUBES, &cubes, NULL) != VXR_OK) abort();
        if (cubes.quad_count != e.faces || area(&cubes) != e.faces || area(&greedy) != e.faces ||
            greedy.quad_count > cubes.quad_count)
            abort();
        vxr_mesh_free(&greedy);
        vxr_mesh_free(&cubes);
    }
    for (int f = VXR_MESH_GLB; voxels <= (1u << 14) && f <= VXR_MESH_PLY; f++) {
        uint8_t *out = NULL;
        size_t n = 0;
        if (vxr_save_mesh(s, (vxr_mesh_format)f, VXR_MESH_GREEDY, &out, &n, NULL) != VXR_OK)
            abort();
        free(out);
    }
    vxr_scene_destroy(s);
    return 0;
}
