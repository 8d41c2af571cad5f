/* What the GPU tests that change scenes share: the CPU picks of a camera's
 * pixels, and a GPU record held against a CPU pick field by field. */
#ifndef VXR_TEST_GPU_PICKS_H
#define VXR_TEST_GPU_PICKS_H

#include <stdbool.h>
#include <string.h>
#include "vxr/camera.h"
#include "vxr/pick.h"
#include "vxr_test.h"

/* The CPU picks of every pixel of cam, for the scene as it is now, at a
 * level of detail's bias (0: voxels; vxr_frame.lod). */
static inline void expect_picks_lod(const vxr_scene *s, const vxr_camera *cam, uint32_t grid,
                                    float bias, vxr_pick *dest) {
    const vxr_lod lod = vxr_camera_lod(cam, bias);
    vxr_picker *p = NULL;
    CHECK(vxr_picker_create(s, &p) == VXR_OK);
    if (!p) return;
    for (uint32_t j = 0; j < cam->height; j++)
        for (uint32_t i = 0; i < cam->width; i++) {
            vxr_ray ray;
            vxr_camera_ray(cam, i, j, &ray);
            vxr_pick_ray_lod(p, &ray, grid, &lod, &dest[(size_t)j * cam->width + i]);
        }
    vxr_picker_destroy(p);
}

static inline void expect_picks(const vxr_scene *s, const vxr_camera *cam, uint32_t grid,
                                vxr_pick *dest) {
    expect_picks_lod(s, cam, grid, 0.0f, dest);
}

/* A GPU record against a CPU pick: every field the record carries. */
static inline bool same_pick(const vxr_gpu_pick *g, const vxr_pick *c) {
    bool hit = (g->flags & VXR_PICK_HIT) != 0;
    if (g->flags & VXR_PICK_INCOMPLETE) return false;
    if (hit != (c->hit != 0)) return false;
    if (!hit) return true;
    uint32_t shape = (uint32_t)__builtin_ctz(c->size) | ((uint32_t)c->face & 255u) << 8 |
                     ((uint32_t)c->corner & 255u) << 16 | ((uint32_t)c->edge & 255u) << 24;
    return g->instance == c->instance && !memcmp(g->voxel, c->voxel, sizeof g->voxel) &&
           !memcmp(&g->t, &c->t, sizeof g->t) && g->shape == shape && g->color == c->color;
}

#endif
