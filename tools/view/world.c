/* Streaming worlds in the viewer (vxr/world.h): `vxr view WORLD` opens the
 * world with nothing resident and, every frame, asks for the chunks within
 * view distance of the eye; the renderer follows the scene's changes. */
#include <math.h>
#include <string.h>
#include "app.h"

vxr_result view_open_scene(const view_args *va, const char *path, vxr_scene **scene,
                           vxr_world **world, vxr_error *err) {
    *scene = NULL;
    *world = NULL;
    if (path[0] == '@' || !vxr_is_world(path)) return cli_scene_load(path, scene, NULL, NULL, err);
    const vxr_world_desc desc = {path, va ? va->view_distance : 0, va ? va->budget : 0, 2};
    const vxr_result r = vxr_world_open(&desc, world, err);
    if (r == VXR_OK) *scene = vxr_world_scene(*world);
    return r;
}

void view_scene_free(vxr_scene *scene, vxr_world *world) {
    if (world)
        vxr_world_close(world); /* its scene with it */
    else
        vxr_scene_destroy(scene);
}

void view_world_home(app *a, float eye[3], float target[3]) {
    int64_t lo[3], hi[3];
    uint32_t side;
    vxr_world_bounds(a->world, lo, hi, &side);
    float diag = 0;
    for (int k = 0; k < 3; k++) {
        target[k] = 0.5f * (float)(lo[k] + hi[k]);
        diag += (float)(hi[k] - lo[k]) * (float)(hi[k] - lo[k]);
    }
    /* the status (the view distance), and the chunks around the target asked for */
    vxr_world_update(a->world, target, &a->world_status, NULL);
    /* near enough that the chunks around the target are within view distance */
    float r = 0.9f * sqrtf(diag), near = 0.5f * a->world_status.view_distance;
    if (r > near) r = near;
    if (r < 1) r = 1;
    const float angle = 0.3f, elevation = 0.35f;
    eye[0] = target[0] + r * cosf(elevation) * cosf(angle);
    eye[1] = target[1] + r * cosf(elevation) * sinf(angle);
    eye[2] = target[2] + r * sinf(elevation);
}

void view_world_frame(app *a, bool complete) {
    if (!a->world) return;
    vxr_error err = {{0}};
    vxr_result r = vxr_world_update(a->world, a->cam.eye, &a->world_status, &err);
    /* --frames runs end on a complete view: the last frame is deterministic */
    while (r == VXR_OK && complete && a->world_status.loading) {
        vxr_world_wait(a->world);
        r = vxr_world_update(a->world, a->cam.eye, &a->world_status, &err);
    }
    if (r != VXR_OK) {
        fprintf(stderr, "vxr: %s\n", err.message);
        snprintf(a->message, sizeof a->message, "%.590s", err.message);
        a->message_until = glfwGetTime() + ERROR_SECONDS;
    }
}
