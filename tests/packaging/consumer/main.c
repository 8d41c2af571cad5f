/* Links vxr::core and vxr::renderer from outside the project: checks the
 * library's version against its headers', builds the demo scene, picks one
 * ray, and opens a renderer context (exit 3 when no Vulkan device is usable,
 * like the vxr tool). */
#include <stdio.h>
#include <string.h>
#include <vxr/formats.h>
#include <vxr/pick.h>
#include <vxr/renderer.h>
#include <vxr/version.h>
#include <vxr/vxr_layout.h>

int main(void) {
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", VXR_VERSION_MAJOR, VXR_VERSION_MINOR,
             VXR_VERSION_PATCH);
    if (strcmp(vxr_version(), VXR_VERSION_STRING) || strcmp(version, VXR_VERSION_STRING)) {
        fprintf(stderr, "consumer: library %s, headers %s (%s)\n", vxr_version(),
                VXR_VERSION_STRING, version);
        return 1;
    }
    vxr_scene *scene;
    vxr_error err = {{0}};
    if (vxr_scene_load("@demo", &scene, &err) != VXR_OK) {
        fprintf(stderr, "consumer: @demo: %s\n", err.message);
        return 1;
    }
    vxr_picker *picker;
    vxr_pick pick;
    vxr_ray ray = {{0.5f, 0.5f, 1000.0f}, {0.001f, 0.002f, -1.0f}};
    int ok = vxr_picker_create(scene, &picker) == VXR_OK &&
             vxr_pick_ray(picker, &ray, 1, &pick) == VXR_OK && pick.hit;
    vxr_picker_destroy(picker);
    vxr_scene_destroy(scene);
    if (!ok) {
        fprintf(stderr, "consumer: the pick straight down on @demo missed\n");
        return 1;
    }
    vxr_context_desc desc = {0};
    vxr_context *ctx;
    vxr_result r = vxr_context_create(&desc, &ctx, &err);
    if (r != VXR_OK) {
        fprintf(stderr, "consumer: %s\n", err.message);
        return r == VXR_ERROR_DEVICE ? 3 : 1;
    }
    vxr_context_info info;
    vxr_context_get_info(ctx, &info);
    printf("consumer: vxr %s (blob version %u); picked instance %u; renderer on %s\n",
           vxr_version(), VXR_BLOB_VERSION, pick.instance, info.device_name);
    vxr_context_destroy(ctx);
    return 0;
}
