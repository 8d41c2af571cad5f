/* The command line's Vulkan plumbing: volk, a queue, submit-and-wait. */
#include "gpu.h"
#include <string.h>
#include <time.h>

vxr_result cli_vk_error(vxr_error *err, VkResult vr, const char *call) {
    if (err)
        snprintf(err->message, sizeof err->message, "%s failed: %s", call,
                 vxr_vk_result_string(vr));
    if (vr == VK_ERROR_DEVICE_LOST) return VXR_ERROR_DEVICE;
    return vr == VK_ERROR_OUT_OF_HOST_MEMORY || vr == VK_ERROR_OUT_OF_DEVICE_MEMORY
               ? VXR_ERROR_MEMORY
               : VXR_ERROR_VULKAN;
}

bool cli_gpu_memory_type(VkPhysicalDevice physical, uint32_t bits, VkMemoryPropertyFlags want,
                         uint32_t *type) {
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(physical, &mp);
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) {
            *type = i;
            return true;
        }
    return false;
}

double cli_gpu_ms(const vxr_context_info *info, const uint64_t ts[2]) {
    uint32_t bits = info->timestamp_bits;
    uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
    return (double)((ts[1] - ts[0]) & mask) * (double)info->timestamp_period * 1e-6;
}

void cli_gpu_use(const cli_gpu *g) {
    volkLoadInstanceOnly(g->info.instance);
    volkLoadDevice(g->info.device);
}

vxr_result cli_gpu_open(cli_gpu *g, const vxr_context_desc *desc, vxr_error *err) {
    memset(g, 0, sizeof *g);
    if (volkInitialize() != VK_SUCCESS) {
        if (err)
            snprintf(err->message, sizeof err->message,
                     "no Vulkan loader: cannot load libvulkan.so.1");
        return VXR_ERROR_DEVICE;
    }
    vxr_context_desc d = {0};
    if (desc) d = *desc;
    d.get_instance_proc_addr = vkGetInstanceProcAddr;
    vxr_result r = vxr_context_create(&d, &g->ctx, err);
    if (r != VXR_OK) return r;
    vxr_context_get_info(g->ctx, &g->info);
    cli_gpu_use(g);
    vkGetDeviceQueue(g->info.device, g->info.queue_family, 0, &g->queue);
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                  .queueFamilyIndex = g->info.queue_family};
    VkResult vr = vkCreateCommandPool(g->info.device, &pi, NULL, &g->pool);
    if (vr != VK_SUCCESS) r = cli_vk_error(err, vr, "vkCreateCommandPool");
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = g->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    if (r == VXR_OK && (vr = vkAllocateCommandBuffers(g->info.device, &ai, &g->cmd)) != VK_SUCCESS)
        r = cli_vk_error(err, vr, "vkAllocateCommandBuffers");
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (r == VXR_OK && (vr = vkCreateFence(g->info.device, &fi, NULL, &g->fence)) != VK_SUCCESS)
        r = cli_vk_error(err, vr, "vkCreateFence");
    if (r != VXR_OK) cli_gpu_close(g);
    return r;
}

vxr_result cli_gpu_begin(cli_gpu *g, vxr_error *err) {
    VkResult vr = vkResetCommandBuffer(g->cmd, 0);
    if (vr != VK_SUCCESS) return cli_vk_error(err, vr, "vkResetCommandBuffer");
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    vr = vkBeginCommandBuffer(g->cmd, &bi);
    return vr == VK_SUCCESS ? VXR_OK : cli_vk_error(err, vr, "vkBeginCommandBuffer");
}

vxr_result cli_gpu_submit(cli_gpu *g, vxr_error *err) {
    VkResult vr = vkEndCommandBuffer(g->cmd);
    if (vr != VK_SUCCESS) return cli_vk_error(err, vr, "vkEndCommandBuffer");
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                       .commandBufferCount = 1,
                       .pCommandBuffers = &g->cmd};
    if ((vr = vkQueueSubmit(g->queue, 1, &si, g->fence)) != VK_SUCCESS)
        return cli_vk_error(err, vr, "vkQueueSubmit");
    if ((vr = vkWaitForFences(g->info.device, 1, &g->fence, VK_TRUE, UINT64_MAX)) != VK_SUCCESS)
        return cli_vk_error(err, vr, "vkWaitForFences");
    vr = vkResetFences(g->info.device, 1, &g->fence);
    return vr == VK_SUCCESS ? VXR_OK : cli_vk_error(err, vr, "vkResetFences");
}

void cli_gpu_close(cli_gpu *g) {
    if (!g || !g->ctx) return;
    VkDevice dev = g->info.device;
    vkDeviceWaitIdle(dev);
    if (g->fence) vkDestroyFence(dev, g->fence, NULL);
    if (g->pool) vkDestroyCommandPool(dev, g->pool, NULL); /* frees cmd */
    vxr_context_destroy(g->ctx);
    memset(g, 0, sizeof *g);
}

vxr_result cli_expand_record(const vxr_scene *scene, const vxr_ray *ray, const vxr_gpu_pick *rec,
                             const char *what, vxr_pick *dest, vxr_error *err) {
    vxr_result r = vxr_pick_expand(scene, scene->version, ray, rec, dest, NULL);
    if (r == VXR_ERROR_LIMIT) {
        if (err)
            snprintf(err->message, sizeof err->message,
                     "the device stopped tracing %s early (its loop limit: lavapipe ends a "
                     "shader's loops after 65,535 iterations in all)",
                     what);
        return r;
    }
    if (r != VXR_OK) {
        if (err)
            snprintf(err->message, sizeof err->message,
                     "the GPU wrote an invalid pick record for %s", what);
        return VXR_ERROR_FORMAT;
    }
    return VXR_OK;
}

/* Culls the scene by view distance from eye, once. */
static vxr_result cull_once(vxr_scene *scene, const float eye[3]) {
    vxr_culler *c;
    vxr_result r = vxr_culler_create(scene, &c);
    if (r == VXR_OK) r = vxr_culler_update(c, scene, eye, NULL, NULL);
    vxr_culler_destroy(c);
    return r;
}

int cli_view_open(const char *cmd, cli_view_args *a, int view, vxr_scene **scene, cli_gpu *gpu) {
    vxr_error err = {{0}};
    const bool generated = vxr_is_generated_world(a->scene);
    int status = EXIT_OK;
    if (generated && (a->camera || a->have_file_camera)) { /* the chunks at the camera's eye */
        if (a->camera)
            status = cli_read_camera(a->camera, a->cam.width, a->cam.height, &a->cam);
        else
            status = cli_usage("%s: %s has no file cameras", cmd, a->scene);
        if (status != EXIT_OK) return status;
    }
    const bool home = !a->have_eye && !a->camera;
    vxr_result r = generated ? cli_world_around(a->scene, home ? NULL : a->cam.eye, 1, a->cam.eye,
                                                a->cam.target, scene, &err)
                             : cli_scene_load(a->scene, scene, NULL, NULL, &err);
    if (r != VXR_OK) return cli_fail(a->scene, r, &err);
    if (home && !generated) cli_orbit_camera(*scene, view, &a->cam);
    if (a->have_file_camera) status = cli_file_camera(*scene, a->scene, a->file_camera, &a->cam);
    if (status == EXIT_OK && a->camera)
        status = cli_read_camera(a->camera, a->cam.width, a->cam.height, &a->cam);
    else if (status == EXIT_OK && vxr_camera_setup(&a->cam) != VXR_OK)
        status = cli_usage("%s: the camera needs --eye different from --target, at a distance "
                           "a float can normalise (squared, between 1e-38 and 3e38)",
                           cmd);
    /* What the eye sees (view distances), as `vxr pick` does per origin. */
    if (status == EXIT_OK && a->cull && (r = cull_once(*scene, a->cam.eye)) != VXR_OK)
        status = cli_fail(a->scene, r, &err);
    /* a command renders a few kinds of frame: each pipeline at its first use */
    const vxr_context_desc desc = {.validation = a->validate, .lazy_pipelines = !a->eager};
    if (status == EXIT_OK && (r = cli_gpu_open(gpu, &desc, &err)) != VXR_OK)
        status = cli_fail(cmd, r, &err);
    if (status != EXIT_OK) {
        vxr_scene_destroy(*scene);
        *scene = NULL;
    }
    return status;
}

int cli_validation_status(const char *cmd, const cli_gpu *g, bool validate, int status) {
    uint32_t messages = g->ctx ? vxr_context_validation_messages(g->ctx) : 0;
    if (status != EXIT_OK || !validate || !messages) return status;
    fprintf(stderr, "vxr: %s: %u validation messages\n", cmd, messages);
    return EXIT_INPUT;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

vxr_result cli_render_frames(cli_gpu *gpu, vxr_renderer *ren, vxr_target *t, const cli_view_args *a,
                             const vxr_camera *prev, vxr_error *err) {
    const vxr_light *light = &a->light.light;
    vxr_light chunk = *light;
    const uint32_t total = light->model == VXR_LIGHT_FLAT ? 1 : light->samples;
    const uint32_t per = light->model == VXR_LIGHT_PATH ? 2 : 8;
    const double start = now_s();
    bool shown = false;
    vxr_result r = VXR_OK;
    for (uint32_t done = 0; done < total && r == VXR_OK;) {
        chunk.samples = total - done < per ? total - done : per;
        vxr_frame f = {.camera = &a->cam,
                       .grid = a->grid,
                       .color_before = VK_IMAGE_LAYOUT_GENERAL,
                       .color_after = VK_IMAGE_LAYOUT_GENERAL,
                       .light = &chunk,
                       .accumulate = done > 0,
                       .previous = prev,
                       .denoise = a->light.denoise && done + chunk.samples == total,
                       .lod = a->lod};
        if ((r = cli_gpu_begin(gpu, err)) == VXR_OK &&
            (r = vxr_renderer_render_frame(ren, t, &f, gpu->cmd, err)) == VXR_OK)
            r = cli_gpu_submit(gpu, err);
        done += chunk.samples;
        if (cli_progress(a->json) && (shown || now_s() - start > 1.0)) {
            int bar = (int)(40.0 * done / total);
            fprintf(stderr, "\rrender: [%.*s%*s] %u/%u samples", bar,
                    "########################################", 40 - bar, "", done, total);
            shown = true;
        }
    }
    if (shown) fprintf(stderr, "\r\033[K");
    return r;
}

void cli_world_budget(vxr_world *world, uint64_t budget, const vxr_context *ctx,
                      const vxr_renderer *ren) {
    if (!budget) return;
    vxr_memory_info m;
    vxr_context_memory(ctx, &m);
    const uint64_t sections = vxr_renderer_section_bytes(ren);
    const uint64_t other =
        (m.device_local_used > sections ? m.device_local_used - sections : 0) + CLI_STAGING_ROOM;
    vxr_world_set_budget(world, budget > other + 4 ? (budget - other) / 4 : 1);
}
