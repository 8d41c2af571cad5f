/* vxr view's light: the light model, sun and occlusion keys, and the
 * frames: while camera, scene and light stay as they were the target's
 * sums grow a sample a frame and the image converges; any change starts
 * afresh, and an image of few samples is denoised. A screenshot renders
 * the samples the window shows, at once, into the readback target. */
#include <string.h>
#include "app.h"

/* Samples after which the image stops changing (no more frames are
 * traced until something changes), and below which it is denoised. */
#define VIEW_MAX_SAMPLES   4096u
#define VIEW_DENOISE_BELOW 32u
#define SUN_STEP_DEGREES   5.0f

void view_light_init(app *a) {
    a->light = a->args->r.light.light;
    a->ao_radius = a->light.ao_radius;
}

static void say(app *a, const char *what) {
    snprintf(a->message, sizeof a->message, "%s", what);
    a->message_until = glfwGetTime() + 3.0;
}

bool view_light_key(app *a, int key) {
    vxr_light *l = &a->light;
    char line[96];
    switch (key) {
    case GLFW_KEY_L:
        l->model = (l->model + 1) % 3;
        snprintf(line, sizeof line, "light %s", cli_light_name(l->model));
        break;
    case GLFW_KEY_O:
        l->ao_radius = l->ao_radius > 0.0f ? 0.0f : a->ao_radius;
        snprintf(line, sizeof line, "ambient occlusion %s", l->ao_radius > 0.0f ? "on" : "off");
        break;
    case GLFW_KEY_LEFT:
    case GLFW_KEY_RIGHT:
        l->sun_azimuth += key == GLFW_KEY_LEFT ? -SUN_STEP_DEGREES : SUN_STEP_DEGREES;
        l->sun_azimuth -= l->sun_azimuth >= 360.0f ? 360.0f : l->sun_azimuth < 0.0f ? -360.0f : 0;
        snprintf(line, sizeof line, "sun azimuth %.0f", (double)l->sun_azimuth);
        break;
    case GLFW_KEY_UP:
    case GLFW_KEY_DOWN: {
        float e = l->sun_elevation + (key == GLFW_KEY_UP ? SUN_STEP_DEGREES : -SUN_STEP_DEGREES);
        l->sun_elevation = e > 90.0f ? 90.0f : e < -90.0f ? -90.0f : e;
        snprintf(line, sizeof line, "sun elevation %.0f", (double)l->sun_elevation);
        break;
    }
    default:
        return false;
    }
    say(a, line);
    return true;
}

/* Whether the target's sums were made with this camera, scene and light. */
static bool unchanged(const app *a, const vxr_target *t) {
    vxr_light now = a->light, then = a->accum_light;
    now.samples = then.samples = 1;
    return vxr_target_samples(t) > 0 && !memcmp(&a->cam, &a->accum_cam, sizeof a->cam) &&
           !memcmp(&now, &then, sizeof now) &&
           a->accum_version == vxr_renderer_version(a->renderer);
}

vxr_result view_light_render(app *a, vxr_target **dest, bool shot, VkCommandBuffer cmd,
                             vxr_error *err) {
    vxr_target *t = a->target;
    vxr_light l = a->light;
    l.samples = 1;
    if (l.model == VXR_LIGHT_FLAT) {
        a->samples = 1;
        a->denoised = false;
        *dest = shot ? a->shot : t;
        vxr_frame flat = {.camera = &a->cam,
                          .grid = 1,
                          .color_before = VK_IMAGE_LAYOUT_GENERAL,
                          .color_after = VK_IMAGE_LAYOUT_GENERAL,
                          .lod = a->lod};
        return vxr_renderer_render_frame(a->renderer, *dest, &flat, cmd, err);
    }
    bool keep = unchanged(a, t);
    uint32_t have = keep ? vxr_target_samples(t) : 0;
    vxr_frame f = {.camera = &a->cam,
                   .grid = 1,
                   .color_before = VK_IMAGE_LAYOUT_GENERAL,
                   .color_after = VK_IMAGE_LAYOUT_GENERAL,
                   .light = &l,
                   .accumulate = keep};
    *dest = t;
    if (shot) { /* the window's samples and one more, at once */
        l.samples = have < VIEW_MAX_SAMPLES ? have + 1 : have;
        f.accumulate = false;
        f.denoise = l.samples < VIEW_DENOISE_BELOW;
        a->samples = l.samples;
        a->denoised = f.denoise;
        *dest = a->shot;
        return vxr_renderer_render_frame(a->renderer, a->shot, &f, cmd, err);
    }
    if (have >= VIEW_MAX_SAMPLES) return VXR_OK; /* converged: the image stays */
    f.denoise = have + 1 < VIEW_DENOISE_BELOW;
    a->accum_cam = a->cam;
    a->accum_light = a->light;
    a->accum_version = vxr_renderer_version(a->renderer);
    a->samples = have + 1;
    a->denoised = f.denoise;
    return vxr_renderer_render_frame(a->renderer, t, &f, cmd, err);
}
