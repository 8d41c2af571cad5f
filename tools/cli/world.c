/* Worlds for the commands that take a SCENE (vxr/world.h): a world's home
 * view, and a generated world opened at a camera. */
#include <math.h>
#include "cli.h"

void cli_world_home(vxr_world *w, float eye[3], float target[3]) {
    int64_t lo[3], hi[3];
    uint32_t side;
    vxr_world_bounds(w, lo, hi, &side);
    float diag = 0;
    for (int k = 0; k < 3; k++) {
        target[k] = 0.5f * (float)(lo[k] + hi[k]);
        diag += (float)(hi[k] - lo[k]) * (float)(hi[k] - lo[k]);
    }
    /* near enough that the chunks around the target are within view distance */
    float r = 0.9f * sqrtf(diag), near = 0.5f * vxr_world_view_distance(w);
    if (r > near) r = near;
    if (r < 1) r = 1;
    const float angle = 0.3f, elevation = 0.35f;
    eye[0] = target[0] + r * cosf(elevation) * cosf(angle);
    eye[1] = target[1] + r * cosf(elevation) * sinf(angle);
    eye[2] = target[2] + r * sinf(elevation);
}

vxr_result cli_world_around(const char *path, const float *eyes, size_t n, float *home_eye,
                            float *home_target, vxr_scene **scene, vxr_error *err) {
    *scene = NULL;
    vxr_world *w = NULL;
    const vxr_world_desc desc = {path, 0, 0, 2, 0};
    vxr_result r = vxr_world_open(&desc, &w, err);
    if (r != VXR_OK) return r;
    if (!eyes) {
        cli_world_home(w, home_eye, home_target);
        eyes = home_eye;
        n = 1;
    }
    r = vxr_world_load_around(w, eyes, n, err);
    if (r == VXR_OK) *scene = vxr_world_detach_scene(w);
    vxr_world_close(w);
    return r;
}
