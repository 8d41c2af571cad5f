/* vxr view: the GLFW viewer (DESIGN.md §5).
 *
 * Each frame: cull by view distance from the eye and, when the visible set
 * or the scene changed (edits), record a renderer update into the frame's
 * own command buffer (frames in flight keep reading what they were
 * recorded with; the update's serial is completed once the frame's fence
 * signalled), render into the offscreen target, pick the ray under the
 * mouse on the GPU, blit into the swapchain image and draw the pick
 * overlay over it (vulkan.c, overlay.c). A pick's record is read when its
 * frame's fence is next waited for, so the overlay trails the mouse by
 * VIEW_FRAMES frames; edit mode (edit.c) picks on the CPU instead. Input
 * (input.c) moves the camera (camera.c). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "app.h"
#include "commands.h"

#define FLY_SPEED        0.25f  /* scene diagonals per second */
#define MAX_FLY_STEP     0.1    /* seconds a frame moves the camera at most */
#define RESIZE_SECONDS   10.0   /* how long --frames waits for --resize */
#define SCREENSHOT_TRIES 100000 /* vxr-screenshot-N.png names tried */

/* --- scenes --------------------------------------------------------------- */

/* A new scene: everything drawn from the old one is finished first. */
static void set_scene(app *a, vxr_scene *scene, vxr_world *world, const char *name,
                      const view_args *va) {
    if (a->vk.device) vkDeviceWaitIdle(a->vk.device);
    for (int i = 0; i < VIEW_FRAMES; i++) { /* freed with it */
        a->vk.frames[i].upload = NULL;
        a->vk.frames[i].serial = 0;
    }
    vxr_renderer_destroy(a->renderer);
    a->renderer = NULL;
    vxr_culler_destroy(a->culler);
    a->culler = NULL;
    view_edit_release(a);
    memset(&a->update, 0, sizeof a->update);
    view_scene_free(a->scene, a->world);
    a->scene = scene;
    a->world = world;
    a->scene_gen++;
    memset(&a->pick, 0, sizeof a->pick);
    snprintf(a->scene_name, sizeof a->scene_name, "%s", name);
    vxr_scene_stats st;
    vxr_scene_get_stats(scene, &st);
    float d2 = 0;
    for (int k = 0; k < 3; k++) {
        float e = (float)(st.aabb_max[k] - st.aabb_min[k]);
        d2 += e * e;
    }
    a->fly_speed = FLY_SPEED * (d2 > 0 ? sqrtf(d2) : 1.0f);
    if (va && va->r.have_eye) {
        memcpy(a->home_eye, va->r.cam.eye, sizeof a->home_eye);
        memcpy(a->home_target, va->r.cam.target, sizeof a->home_target);
    } else if (va && va->r.camera && a->host_cam_ok) {
        /* home: the host camera's eye, looking along it at the scene's distance */
        vxr_camera c = {0};
        cli_orbit_camera(scene, 0, &c);
        float dist = 0;
        for (int k = 0; k < 3; k++)
            dist += (c.target[k] - a->host_cam.eye[k]) * (c.target[k] - a->host_cam.eye[k]);
        dist = sqrtf(dist) > 1.0f ? sqrtf(dist) : 1.0f;
        for (int k = 0; k < 3; k++) {
            a->home_eye[k] = a->host_cam.eye[k];
            a->home_target[k] = a->host_cam.eye[k] + dist * a->host_cam.forward[k];
        }
    } else if (world) {
        cli_world_home(world, a->home_eye, a->home_target); /* the first frame asks for chunks */
    } else {                                                /* what `vxr bench render` looks at */
        vxr_camera c = {0};
        cli_orbit_camera(scene, 0, &c);
        memcpy(a->home_eye, c.eye, sizeof a->home_eye);
        memcpy(a->home_target, c.target, sizeof a->home_target);
    }
    view_home(a);
    a->cull_changed = true;
    if (a->editing) view_edit_mode(a, true);
}

/* Whether this frame uses --camera FILE: given, readable, and the camera
 * still at home (any move hands over to the viewer's own camera). The file
 * is read again when the window's size changes. */
static bool host_camera(app *a) {
    const char *path = a->args->r.camera;
    if (!path || !a->host_cam_ok) return false;
    if (memcmp(a->cam.eye, a->home_eye, sizeof a->home_eye) ||
        memcmp(a->cam.target, a->home_target, sizeof a->home_target))
        return false;
    if (a->host_cam.width != a->cam.width || a->host_cam.height != a->cam.height)
        a->host_cam_ok =
            cli_read_camera(path, a->cam.width, a->cam.height, &a->host_cam) == EXIT_OK;
    return a->host_cam_ok;
}

static bool open_dropped(app *a) {
    char path[sizeof a->drop];
    memcpy(path, a->drop, sizeof path);
    a->drop[0] = 0;
    vxr_scene *scene;
    vxr_world *world;
    vxr_error err = {{0}};
    vxr_result r = view_open_scene(a->args, path, &scene, &world, &err);
    if (r != VXR_OK) {
        const char *why = err.message[0] ? err.message : vxr_result_string(r);
        fprintf(stderr, "vxr: %s: %s\n", path, why);
        snprintf(a->message, sizeof a->message, "cannot open %.200s: %.300s", path, why);
        a->message_until = glfwGetTime() + ERROR_SECONDS;
        return false;
    }
    if (view_world_exit(a) != EXIT_OK) { /* the open world's edits stay with it */
        view_scene_free(scene, world);
        snprintf(a->message, sizeof a->message, "not leaving %.200s: its edits could not be saved",
                 a->scene_name);
        a->message_until = glfwGetTime() + ERROR_SECONDS;
        return false;
    }
    set_scene(a, scene, world, path, NULL);
    return true;
}

/* --- frames ---------------------------------------------------------------------- */

/* The exit status for a failed Vulkan call, after its message. */
static int vk_error(VkResult vr, const char *call) {
    vxr_error err = {{0}};
    return cli_fail("view", cli_vk_error(&err, vr, call), &err);
}

/* What a finished frame left: its GPU time, its pick (outside edit mode),
 * its staging memory and what its renderer update kept. */
static void finish_frame(app *a, view_frame *f) {
    view_vk *v = &a->vk;
    if (f->timed) {
        uint64_t ts[2];
        if (vkGetQueryPoolResults(v->device, v->queries, (uint32_t)(f - v->frames) * 2, 2,
                                  sizeof ts, ts, sizeof ts[0],
                                  VK_QUERY_RESULT_64_BIT) == VK_SUCCESS) {
            double ms = cli_gpu_ms(&v->gpu.info, ts);
            a->gpu_sum += ms;
            a->gpu_n++;
            if (a->gpu_index++ >= 2) {
                a->all_gpu_sum += ms;
                a->all_gpu_n++;
            }
        }
        f->timed = false;
    }
    if (f->submitted && !a->editing) {
        if (f->picked && f->scene_gen == a->scene_gen) {
            if (vxr_pick_expand(a->scene, f->seen, &f->ray, vxr_rays_picks(f->rays), &a->pick,
                                NULL) != VXR_OK)
                memset(&a->pick, 0, sizeof a->pick);
            a->pick_ray = f->ray;
        } else if (!f->picked) {
            memset(&a->pick, 0, sizeof a->pick);
        }
    }
    f->submitted = false;
    if (f->upload) vxr_renderer_upload_done(f->upload);
    f->upload = NULL;
    if (f->serial && a->renderer) vxr_renderer_complete(a->renderer, f->serial);
    f->serial = 0;
}

/* The pixel to pick: the window centre in fly mode, else the mouse's. */
static bool pick_pixel(const app *a, uint32_t w, uint32_t h, uint32_t dest[2]) {
    if (a->fly) {
        dest[0] = w / 2;
        dest[1] = h / 2;
        return true;
    }
    if (a->args->have_cursor) {
        dest[0] = a->args->cursor[0];
        dest[1] = a->args->cursor[1];
        return dest[0] < w && dest[1] < h;
    }
    /* not enter events: a window opened under the pointer gets none */
    if (!glfwGetWindowAttrib(a->window, GLFW_HOVERED)) return false;
    double x, y;
    int ww, wh;
    glfwGetCursorPos(a->window, &x, &y);
    glfwGetWindowSize(a->window, &ww, &wh);
    if (ww <= 0 || wh <= 0) return false;
    x *= (double)w / ww;
    y *= (double)h / wh;
    if (!(x >= 0 && y >= 0 && x < w && y < h)) return false;
    dest[0] = (uint32_t)x;
    dest[1] = (uint32_t)y;
    return true;
}

/* Culls from the eye; when the visible set or the scene changed, records
 * the renderer's update into cmd (the first frame of a scene uploads it
 * whole), its serial the frame's. */
static vxr_result update_renderer(app *a, view_frame *f, vxr_error *err) {
    bool changed = false;
    vxr_result r = VXR_OK;
    if (a->cull || a->cull_changed || !a->renderer) {
        r = a->culler ? VXR_OK : vxr_culler_create(a->scene, &a->culler);
        if (r == VXR_OK)
            r = vxr_culler_update(a->culler, a->scene, a->cull ? a->cam.eye : NULL, &a->visible,
                                  &changed);
        if (r != VXR_OK) return r;
    }
    if (!changed && !a->cull_changed && a->renderer && a->scene->version == a->updated_version)
        return VXR_OK;
    a->cull_changed = false;
    a->updated_version = a->scene->version;
    if (a->renderer) {
        r = vxr_renderer_update(a->renderer, a->scene, f->cmd, &a->update, err);
        if (r == VXR_OK) f->serial = a->update.serial;
        return r;
    }
    if ((r = vxr_renderer_create(a->vk.gpu.ctx, a->scene, f->cmd, &a->renderer, err)) != VXR_OK)
        return r;
    f->upload = a->renderer;
    return VXR_OK;
}

static vxr_result ensure_targets(app *a, vxr_error *err) {
    uint32_t w = a->vk.extent.width, h = a->vk.extent.height;
    vxr_target_desc td = {.width = w, .height = h, .light = true, .aovs = true};
    vxr_result r = VXR_OK;
    if (!a->target) r = vxr_target_create(a->vk.gpu.ctx, &td, &a->target, err);
    td.readback = true;
    if (r == VXR_OK && a->want_shot && !a->shot)
        r = vxr_target_create(a->vk.gpu.ctx, &td, &a->shot, err);
    return r;
}

static int next_screenshot_name(app *a) {
    for (int i = 1; i < SCREENSHOT_TRIES; i++) {
        snprintf(a->shot_name, sizeof a->shot_name, "vxr-screenshot-%d.png", i);
        if (access(a->shot_name, F_OK) != 0) return EXIT_OK;
    }
    return EXIT_INPUT;
}

/* One frame; EXIT_OK, or the exit status after a message. *shown is false
 * when nothing was presented (swapchain out of date). */
static int frame(app *a, uint64_t index, bool *shown) {
    view_vk *v = &a->vk;
    vxr_error err = {{0}};
    vxr_result r;
    *shown = false;
    if (a->swapchain_dirty) {
        int w, h;
        glfwGetFramebufferSize(a->window, &w, &h);
        if (w <= 0 || h <= 0) return EXIT_OK;
        if ((r = view_vk_swapchain(v, (uint32_t)w, (uint32_t)h, &err)) != VXR_OK)
            return cli_fail("view", r, &err);
        a->swapchain_dirty = false;
        for (int i = 0; i < VIEW_FRAMES; i++) finish_frame(a, &v->frames[i]); /* device idle */
        vxr_target_destroy(a->target);
        vxr_target_destroy(a->shot);
        a->target = a->shot = NULL;
    }
    view_frame *f = &v->frames[index % VIEW_FRAMES];
    VkResult vr = vkWaitForFences(v->device, 1, &f->fence, VK_TRUE, UINT64_MAX);
    if (vr != VK_SUCCESS) return vk_error(vr, "vkWaitForFences");
    finish_frame(a, f);
    uint32_t image;
    vr = vkAcquireNextImageKHR(v->device, v->swapchain, UINT64_MAX, f->acquired, VK_NULL_HANDLE,
                               &image);
    if (vr == VK_ERROR_OUT_OF_DATE_KHR) {
        a->swapchain_dirty = true;
        return EXIT_OK;
    }
    if (vr == VK_SUBOPTIMAL_KHR)
        a->swapchain_dirty = true; /* after this frame */
    else if (vr != VK_SUCCESS)
        return vk_error(vr, "vkAcquireNextImageKHR");
    if ((r = ensure_targets(a, &err)) != VXR_OK) return cli_fail("view", r, &err);

    if ((vr = vkResetFences(v->device, 1, &f->fence)) != VK_SUCCESS)
        return vk_error(vr, "vkResetFences");
    if ((vr = vkResetCommandBuffer(f->cmd, 0)) != VK_SUCCESS)
        return vk_error(vr, "vkResetCommandBuffer");
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    if ((vr = vkBeginCommandBuffer(f->cmd, &bi)) != VK_SUCCESS)
        return vk_error(vr, "vkBeginCommandBuffer");
    uint32_t q = (uint32_t)(f - v->frames) * 2;
    if (v->queries) {
        vkCmdResetQueryPool(f->cmd, v->queries, q, 2);
        vkCmdWriteTimestamp(f->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, v->queries, q);
    }
    a->cam.width = v->extent.width;
    a->cam.height = v->extent.height;
    bool host = host_camera(a);
    if (host) {
        a->cam = a->host_cam;
        memcpy(a->cam.target, a->home_target, sizeof a->cam.target);
    } else if (vxr_camera_setup(&a->cam) != VXR_OK) { /* eye on the target: back home */
        view_home(a);
        vxr_camera_setup(&a->cam);
    }
    view_world_frame(a, a->world_complete);
    if ((r = update_renderer(a, f, &err)) != VXR_OK) {
        vkEndCommandBuffer(f->cmd); /* abandoned: the command buffer is reset next time */
        return cli_fail(a->scene_name, r, &err);
    }
    bool shot = a->want_shot;
    vxr_target *t = NULL;
    r = view_light_render(a, &t, shot, f->cmd, &err); /* grid 1: the grid is for picking */
    uint32_t px[2];
    bool pixel = r == VXR_OK && pick_pixel(a, a->cam.width, a->cam.height, px);
    f->picked = pixel && !a->editing;
    if (a->editing) { /* the CPU pick of the scene as it is now: what a click edits */
        memset(&a->pick, 0, sizeof a->pick);
        if (pixel) view_edit_hover(a, px);
    }
    if (f->picked) {
        vxr_camera_ray(&a->cam, px[0], px[1], &f->ray);
        vxr_rays_input(f->rays)[0] = f->ray;
        f->scene_gen = a->scene_gen;
        f->seen = vxr_renderer_version(a->renderer);
        r = vxr_renderer_pick_rays(a->renderer, f->rays, 1, a->grid, f->cmd, &err);
    }
    if (r != VXR_OK) {
        vkEndCommandBuffer(f->cmd); /* abandoned: the command buffer is reset next time */
        return cli_fail("view", r, &err);
    }
    uint32_t tri, line;
    float m[16];
    /* the overlay projects like a pinhole camera: none over a host camera */
    view_overlay(&a->pick, a->pick.hit ? &a->scene->instances[a->pick.instance].transform : NULL,
                 &a->cam, a->fly, f->vertex_map, &tri, &line);
    if (host) tri = line = 0;
    view_proj(&a->cam, m);
    view_vk_record_present(v, f, image, t, m, tri, line);
    if (v->queries) {
        vkCmdWriteTimestamp(f->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, v->queries, q + 1);
        f->timed = true;
    }
    if ((vr = vkEndCommandBuffer(f->cmd)) != VK_SUCCESS) return vk_error(vr, "vkEndCommandBuffer");
    VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                       .waitSemaphoreCount = 1,
                       .pWaitSemaphores = &f->acquired,
                       .pWaitDstStageMask = &wait_stage,
                       .commandBufferCount = 1,
                       .pCommandBuffers = &f->cmd,
                       .signalSemaphoreCount = 1,
                       .pSignalSemaphores = &v->presented[image]};
    if ((vr = vkQueueSubmit(v->gpu.queue, 1, &si, f->fence)) != VK_SUCCESS)
        return vk_error(vr, "vkQueueSubmit");
    f->submitted = true;
    VkPresentInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
                           .waitSemaphoreCount = 1,
                           .pWaitSemaphores = &v->presented[image],
                           .swapchainCount = 1,
                           .pSwapchains = &v->swapchain,
                           .pImageIndices = &image};
    vr = vkQueuePresentKHR(v->gpu.queue, &pi);
    if (vr == VK_ERROR_OUT_OF_DATE_KHR || vr == VK_SUBOPTIMAL_KHR)
        a->swapchain_dirty = true;
    else if (vr != VK_SUCCESS)
        return vk_error(vr, "vkQueuePresentKHR");
    *shown = true;
    if (shot) { /* the screenshot waits for its frame: a rare stall */
        a->want_shot = false;
        if ((vr = vkWaitForFences(v->device, 1, &f->fence, VK_TRUE, UINT64_MAX)) != VK_SUCCESS)
            return vk_error(vr, "vkWaitForFences");
        const char *path = a->shot_path;
        if (!path) {
            if (next_screenshot_name(a) != EXIT_OK) return cli_fail("view", VXR_ERROR_IO, NULL);
            path = a->shot_name;
        }
        if ((r = cli_write_png(path, vxr_target_colors(a->shot), a->cam.width, a->cam.height,
                               &err)) != VXR_OK) {
            if (a->shot_path) return cli_fail(path, r, &err);
            fprintf(stderr, "vxr: %s: %s\n", path, err.message);
        } else if (!a->args->r.json) {
            printf("wrote %s\n", path);
            fflush(stdout);
        }
    }
    return EXIT_OK;
}

static int run(app *a) {
    const view_args *va = a->args;
    uint64_t index = 0;
    long shown_frames = 0;
    bool resized = false, dropped = false;
    double deadline = 0;
    a->last_time = glfwGetTime();
    while (!glfwWindowShouldClose(a->window)) {
        glfwPollEvents();
        if (a->drop[0] && !open_dropped(a) && va->drop) return EXIT_INPUT;
        int w, h;
        glfwGetFramebufferSize(a->window, &w, &h);
        if (w <= 0 || h <= 0) { /* minimised: nothing to draw into */
            glfwWaitEvents();
            a->last_time = glfwGetTime();
            continue;
        }
        double now = glfwGetTime();
        view_fly_keys(a, (float)fmin(now - a->last_time, MAX_FLY_STEP));
        bool last = va->frames && shown_frames == va->frames - 1;
        if (last && va->resize_w && (w != (int)va->resize_w || h != (int)va->resize_h)) {
            /* the resize has not arrived yet: keep drawing, for 10 s at most */
            if (deadline == 0) deadline = now + RESIZE_SECONDS;
            last = false;
            if (now > deadline) {
                fprintf(stderr, "vxr: view: the window did not become %ux%u (it is %dx%d)\n",
                        va->resize_w, va->resize_h, w, h);
                return EXIT_INPUT;
            }
        }
        /* a scripted run (--frames) waits each frame for the chunks it wants, so
         * that what it shows and the instances' order do not depend on timing */
        a->world_complete = va->frames > 0;
        if (last && va->screenshot) {
            a->want_shot = true;
            a->shot_path = va->screenshot;
        }
        int status = view_script_run(a, (long)index); /* index: frames shown so far */
        if (status != EXIT_OK) return status;
        bool shown;
        status = frame(a, index, &shown);
        if (status != EXIT_OK) return status;
        if (!shown) continue;
        index++;
        view_update_title(a, now);
        if (va->frames && !last && shown_frames < va->frames - 1) shown_frames++;
        view_sample_rss(a, shown_frames);
        if (va->resize_w && !resized && shown_frames >= va->frames / 2) {
            glfwSetWindowSize(a->window, (int)va->resize_w, (int)va->resize_h);
            resized = true;
        }
        if (va->drop && !dropped && shown_frames >= va->frames / 3) {
            snprintf(a->drop, sizeof a->drop, "%s", va->drop);
            dropped = true;
        }
        if (last) break;
    }
    if (va->frames && shown_frames < va->frames - 1) {
        fprintf(stderr, "vxr: view: the window was closed after %ld of %ld frames\n", shown_frames,
                va->frames);
        return EXIT_INPUT;
    }
    /* the picks of the frames still in flight, oldest first */
    VkResult vr = vkDeviceWaitIdle(a->vk.device);
    if (vr != VK_SUCCESS) return vk_error(vr, "vkDeviceWaitIdle");
    for (uint64_t i = 0; i < VIEW_FRAMES; i++)
        finish_frame(a, &a->vk.frames[(index + i) % VIEW_FRAMES]);
    return EXIT_OK;
}

/* --- arguments and setup ------------------------------------------------------- */

static char glfw_message[512];

static void on_glfw_error(int code, const char *description) {
    (void)code;
    snprintf(glfw_message, sizeof glfw_message, "%s", description ? description : "");
}

/* The script, the scene, the window and the device: EXIT_OK, or the exit
 * status after a message; *glfw says whether GLFW was initialised. */
static int open_view(app *a, bool *glfw) {
    const view_args *va = a->args;
    if (va->edit_script && view_script_load(&a->script, va->edit_script, va->frames) != EXIT_OK)
        return EXIT_INPUT;
    vxr_scene *scene;
    vxr_world *world;
    vxr_error err = {{0}};
    vxr_result r = view_open_scene(va, va->r.scene, &scene, &world, &err);
    if (r != VXR_OK) return cli_fail(va->r.scene, r, &err);
    a->grid = va->r.grid;
    a->lod = va->r.lod;
    a->cull = va->r.cull;
    a->cam.fov_deg = va->r.cam.fov_deg;
    vxr_camera file_cam = va->r.cam;
    if (va->r.have_file_camera) {
        const int status = cli_file_camera(scene, va->r.scene, va->r.file_camera, &file_cam);
        if (status != EXIT_OK) {
            view_scene_free(scene, world);
            return status;
        }
    }
    if (va->r.camera) {
        int status = cli_read_camera(va->r.camera, va->r.cam.width, va->r.cam.height, &a->host_cam);
        if (status != EXIT_OK) {
            view_scene_free(scene, world);
            return status;
        }
        a->host_cam_ok = true;
    }
    set_scene(a, scene, world, va->r.scene, va);
    if (va->r.have_file_camera) { /* the home view, as --eye would be */
        memcpy(a->home_eye, file_cam.eye, sizeof a->home_eye);
        memcpy(a->home_target, file_cam.target, sizeof a->home_target);
        a->cam.fov_deg = file_cam.fov_deg;
        view_home(a);
    }
    view_light_init(a);
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) {
        fprintf(stderr, "vxr: view: no display (%s)\n",
                glfw_message[0] ? glfw_message : "glfwInit failed");
        return EXIT_NO_DEVICE;
    }
    *glfw = true;
    if (va->edit || va->edit_script) view_edit_mode(a, true);
    if (!glfwVulkanSupported()) {
        fprintf(stderr, "vxr: view: no usable Vulkan device: GLFW finds no Vulkan loader\n");
        return EXIT_NO_DEVICE;
    }
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    a->window =
        glfwCreateWindow((int)va->r.cam.width, (int)va->r.cam.height, "vxr view", NULL, NULL);
    if (!a->window) {
        fprintf(stderr, "vxr: view: no display: cannot open a window (%s)\n", glfw_message);
        return EXIT_NO_DEVICE;
    }
    if ((r = view_vk_open(&a->vk, a->window, va->r.validate, &err)) != VXR_OK)
        return cli_fail("view", r, &err);
    return EXIT_OK;
}

int cmd_view(int argc, char **argv) {
    view_args va;
    if (!view_parse_args(argc, argv, &va)) return EXIT_USAGE;
    if (va.r.have_eye) {
        vxr_camera c = va.r.cam;
        if (vxr_camera_setup(&c) != VXR_OK)
            return cli_usage("view: the camera needs --eye different from --target, at a distance "
                             "a float can normalise (squared, between 1e-38 and 3e38)");
    }
    app *a = calloc(1, sizeof *a);
    if (!a) return cli_fail("view", VXR_ERROR_MEMORY, NULL);
    a->args = &va;
    a->press = -1;
    bool glfw = false;
    int status = open_view(a, &glfw);
    if (status == EXIT_OK) {
        view_input_install(a);
        a->swapchain_dirty = true;
        if (!va.frames && isatty(STDOUT_FILENO)) fputs(view_keys_help, stdout);
        status = run(a);
    }
    if (a->vk.device) {
        vkDeviceWaitIdle(a->vk.device);
        for (int i = 0; i < VIEW_FRAMES; i++) a->vk.frames[i].upload = NULL;
        vxr_renderer_destroy(a->renderer);
        vxr_target_destroy(a->target);
        vxr_target_destroy(a->shot);
    }
    if (status == EXIT_OK && va.frames) view_print_summary(a);
    const int saved = view_world_exit(a);
    if (status == EXIT_OK) status = saved;
    uint32_t messages = view_vk_close(&a->vk);
    if (status == EXIT_OK && va.r.validate && messages) {
        fprintf(stderr, "vxr: view: %u validation messages\n", messages);
        status = EXIT_INPUT;
    }
    if (a->window) glfwDestroyWindow(a->window);
    if (glfw) glfwTerminate();
    vxr_culler_destroy(a->culler);
    view_edit_free(a);
    view_scene_free(a->scene, a->world);
    free(a);
    return status;
}
