/* libFuzzer target: a .vox from memory (as fuzz_vox), and when it loads,
 * its built scene through the CPU picker (vxr/pick.h) with a fixed set of
 * rays aimed at its bounds, at voxel and grid resolution, checked against
 * the per-instance loop, and through the GPU blob writer (vxr/blob.h). No
 * GPU is needed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "vxr/blob.h"
#include "vxr/formats.h"
#include "vxr/pick.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Rays from outside the scene's box towards its centre along the axes and
 * diagonals, one through a corner, one from the centre, one along a face
 * plane. */
static size_t make_rays(const vxr_scene_stats *st, vxr_ray *rays) {
    float lo[3], hi[3], c[3], ext = 1;
    for (int a = 0; a < 3; a++) {
        lo[a] = (float)st->aabb_min[a];
        hi[a] = (float)st->aabb_max[a];
        c[a] = 0.5f * (lo[a] + hi[a]);
        if (hi[a] - lo[a] > ext) ext = hi[a] - lo[a];
    }
    static const float dirs[][3] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},          {0, -1, 0},
                                    {0, 0, 1},  {0, 0, -1}, {1, 1, 1},          {-1, -1, -1},
                                    {1, -1, 1}, {-1, 1, 1}, {0.3f, 0.7f, -0.2f}};
    size_t n = 0;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++, n++)
        for (int a = 0; a < 3; a++) {
            rays[n].dir[a] = dirs[i][a];
            rays[n].origin[a] = c[a] - 2 * ext * dirs[i][a];
        }
    for (int a = 0; a < 3; a++) { /* corner to corner */
        rays[n].origin[a] = lo[a] - 1;
        rays[n].dir[a] = hi[a] - lo[a] + 2;
    }
    n++;
    for (int a = 0; a < 3; a++) { /* from inside */
        rays[n].origin[a] = c[a];
        rays[n].dir[a] = a == 0 ? 1.0f : 0.0f;
    }
    n++;
    for (int a = 0; a < 3; a++) { /* along the plane of the box's low faces */
        rays[n].origin[a] = a == 0 ? lo[a] - 2 * ext : lo[a];
        rays[n].dir[a] = a == 0 ? 1.0f : 0.0f;
    }
    return n + 1;
}

static int same_pick(const vxr_pick *a, const vxr_pick *b) {
    return a->hit == b->hit && a->instance == b->instance &&
           !memcmp(a->voxel, b->voxel, sizeof a->voxel) && a->size == b->size &&
           a->face == b->face && (a->t == b->t || (isnan(a->t) && isnan(b->t)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    vxr_scene_src src;
    vxr_error err;
    if (vxr_load_vox(data, size, &src, &err) != VXR_OK) return 0;
    vxr_scene *scene;
    vxr_result r = vxr_scene_build(&src, &scene, &err);
    vxr_scene_src_free(&src);
    if (r != VXR_OK) return 0;
    vxr_scene_stats st;
    vxr_scene_get_stats(scene, &st);

    vxr_picker *picker;
    if (vxr_picker_create(scene, &picker) == VXR_OK) {
        vxr_ray rays[16];
        size_t n = make_rays(&st, rays);
        static const uint32_t grids[] = {1, 4, 1u << 20};
        for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++)
            for (size_t i = 0; i < n; i++) {
                vxr_pick a, b;
                vxr_result ra = vxr_pick_ray(picker, &rays[i], grids[g], &a);
                vxr_result rb = vxr_pick_ray_loop(picker, &rays[i], grids[g], &b);
                if (ra != rb) abort();
                if (ra == VXR_OK && !same_pick(&a, &b)) abort();
                if (ra == VXR_OK && a.hit && a.instance >= scene->instance_count) abort();
            }
        vxr_pick bad;
        if (vxr_pick_ray(picker, &rays[0], 3, &bad) != VXR_ERROR_ARGUMENT) abort();
        vxr_picker_destroy(picker);
    }

    size_t bytes = vxr_scene_blob_size(scene);
    if (bytes != st.bytes) abort();
    if (bytes <= (size_t)512 << 20) {
        void *blob = malloc(bytes);
        if (blob) vxr_scene_write_blob(scene, blob);
        free(blob);
    }
    vxr_scene_destroy(scene);
    return 0;
}
