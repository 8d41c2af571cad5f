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
    if (!vxr_is_generated_world(path) && (path[0] == '@' || !vxr_is_world(path)))
        return cli_scene_load(path, scene, NULL, NULL, err);
    /* the budget is cli_world_budget's, each frame */
    const vxr_world_desc desc = {path, va ? va->view_distance : 0, va ? va->budget : 0, 2, 0};
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

void view_world_frame(app *a, bool complete) {
    if (!a->world) return;
    vxr_error err = {{0}};
    cli_world_budget(a->world, a->args->budget, a->vk.gpu.ctx, a->renderer);
    /* far chunks coarse in flat frames; light frames trace voxels */
    const vxr_lod k = vxr_camera_lod(&a->cam, a->light.model == VXR_LIGHT_FLAT ? a->lod : 0.0f);
    vxr_world_set_lod(a->world, k.k, k.fixed);
    vxr_result r = vxr_world_update(a->world, a->cam.eye, &a->world_status, &err);
    /* complete: the chunks asked for, all taken in (in the world's order, a
     * share an update) before the frame goes on */
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

int view_world_exit(app *a) {
    if (!a->world || vxr_world_generated(a->world)) return EXIT_OK; /* as @demo's: not kept */
    uint32_t written = 0;
    vxr_error err = {{0}};
    if (vxr_world_save(a->world, &written, &err) != VXR_OK) {
        fprintf(stderr, "vxr: %s: edits not written back: %s\n", a->scene_name, err.message);
        return EXIT_INPUT;
    }
    if (written && !a->args->r.json) printf("wrote %s: %u chunk files\n", a->scene_name, written);
    return EXIT_OK;
}
