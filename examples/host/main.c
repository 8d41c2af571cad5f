/* vxr embedded in an engine-style Vulkan host: the code to copy when you
 * start embedding vxr.
 *
 * The host owns everything an engine owns: the instance (with validation
 * and synchronization validation on --validate), the device, a GLFW window
 * and its swapchain, its own colour and depth images, and a raster
 * pipeline that draws a spinning cube through the middle of a voxel scene.
 * vxr draws the scene into the host's colour image, in the same command
 * buffer, composited with the cube by depth.
 *
 * What vxr needs from the host:
 *  - a Vulkan 1.2+ instance and device, created with the
 *    shaderStorageImageWriteWithoutFormat feature, and a queue family with
 *    compute (here one family does graphics, compute and present);
 *  - vkGetInstanceProcAddr: vxr loads every function through it;
 *  - a colour image with STORAGE usage to draw into (RGBA8 here), and for
 *    depth compositing a D32_SFLOAT (or R32_SFLOAT) image with TRANSFER_SRC
 *    (read by depth_in) and TRANSFER_DST (written by depth_out) usage.
 * What vxr records (it never submits, waits or touches other queues):
 *  - vxr_renderer_create: the scene upload (vxr_renderer_upload_done once
 *    it completed); vxr_renderer_update: a scene change (vxr_renderer_complete
 *    with its serial once that completed);
 *  - vxr_renderer_render_frame: copy depth_in in, one compute dispatch into
 *    the colour image, copy depth out; vxr_renderer_pick_rays: a pick.
 * The sync contract (vxr_frame in vxr/renderer.h): vxr's first use of each
 * host image waits for ALL earlier work on the queue, from the layout the
 * host states (`before`), and leaves it in the layout the host asks for
 * (`after`) with its writes visible to ALL later work. So the host needs no
 * barrier of its own around vxr's work, only for its own transitions.
 *
 * Frames in flight: two, each with its own command buffer, fence, acquire
 * semaphore and pick batch; one colour/depth image pair and one vxr target
 * are shared, which is safe because everything runs on one queue and the
 * barriers order each frame after the previous one (the CPU records frame
 * n + 1 while the GPU runs frame n; a host that wants frames to overlap on
 * the GPU keeps an image pair and a target per frame).
 *
 * Both orders (--order):
 *  raster-first  the cube (clear, depth LESS), then vxr with depth_in =
 *                depth_out = the host's depth: a voxel replaces a pixel only
 *                where it is strictly nearer; elsewhere (misses included) the
 *                host's colour and depth stay.
 *  voxels-first  vxr (every pixel: voxels or its sky) with depth_out into the
 *                host's depth, then the cube with LOAD ops and depth LESS.
 * Either way the nearer layer wins; a tie goes to the layer drawn first.
 *
 * The window tests (tests/window/host_example.cmake) run it with --frames N --check:
 * the last frame must equal, pixel for pixel, a reference composited on the
 * CPU from a raster-only pass, a voxel-only frame and vxr's CPU picks.
 *
 * Usage: vxr_example_host [SCENE] [--order raster-first|voxels-first]
 *   [--size WxH] [--frames N] [--screenshot OUT.png] [--reference OUT.png]
 *   [--check] [--pick X,Y] [--move] [--validate]
 * SCENE: a .vox (any format vxr reads) or @demo (default). In the window: a
 * click prints the pick under the mouse, O switches the order, M the
 * movement of instance 0, Escape quits. */
#include "host.h"

vxr_error err;

void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("vxr_example_host: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* ---- a frame ---- */

void barrier(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect,
             VkPipelineStageFlags src_stage, VkAccessFlags src, VkPipelineStageFlags dst_stage,
             VkAccessFlags dst, VkImageLayout from, VkImageLayout to) {
    /* members in order: type, next, accesses, layouts, queue families (none
     * transferred), the image's one level and layer */
    VkImageMemoryBarrier b = {VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                              NULL,
                              src,
                              dst,
                              from,
                              to,
                              VK_QUEUE_FAMILY_IGNORED,
                              VK_QUEUE_FAMILY_IGNORED,
                              image,
                              {aspect, 0, 1, 0, 1}};
    vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 0, NULL, 0, NULL, 1, &b);
}

/* The host's camera, as an engine keeps it: cglm's right-handed look-at
 * (world Z up, as in .vox scenes) and a perspective with depth 0..1,
 * its y flipped for Vulkan's clip space (y down). vxr takes the same two
 * matrices as they are. The cube spins with the frame number. */
static void update_camera(app *a, uint64_t n) {
    mat4 view, proj, model;
    vec3 up = {0, 0, 1}, eye;
    const float azimuth = -1.1f, elevation = 0.45f, distance = 1.2f * a->diag;
    eye[0] = a->center[0] + distance * cosf(elevation) * cosf(azimuth);
    eye[1] = a->center[1] + distance * cosf(elevation) * sinf(azimuth);
    eye[2] = a->center[2] + distance * sinf(elevation);
    glm_lookat(eye, a->center, up, view);
    float aspect = (float)a->extent.width / (float)a->extent.height;
    glm_perspective_rh_zo(glm_rad(50.0f), aspect, 0.01f * a->diag, 10.0f * a->diag, proj);
    proj[1][1] = -proj[1][1];
    VXR_CHECK(vxr_camera_from_matrices(&a->camera, view, proj, a->extent.width, a->extent.height, 0,
                                       NULL, &err));
    glm_translate_make(model, a->center);
    glm_rotate_z(model, 0.6f + 0.02f * (float)(n % 314), model);
    glm_rotate_x(model, 0.5f, model);
    glm_scale_uni(model, 0.2f * a->diag);
    mat4 view_proj;
    glm_mat4_mul(proj, view, view_proj);
    glm_mat4_mul(view_proj, model, a->cube_mvp);
}

/* The host's pass: the cube. clear: into fresh colour and depth (from
 * UNDEFINED, after the previous frame's reads by transfers and writes by
 * depth tests or vxr's copies); else over what vxr drew (LOAD; vxr left both
 * images in attachment layouts with its writes visible). */
void draw_cube(app *a, VkCommandBuffer cmd, bool clear) {
    if (clear) {
        barrier(cmd, a->color, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                VK_IMAGE_LAYOUT_UNDEFINED, ATTACHMENT);
        const VkPipelineStageFlags tests =
            VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
        barrier(cmd, a->depth, VK_IMAGE_ASPECT_DEPTH_BIT, tests | VK_PIPELINE_STAGE_TRANSFER_BIT,
                VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, tests,
                VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                    VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                VK_IMAGE_LAYOUT_UNDEFINED, DEPTH_ATTACHMENT);
    }
    VkClearValue clear_values[2] = {{.color = {{0.1f, 0.1f, 0.125f, 1.0f}}},
                                    {.depthStencil = {1.0f, 0}}};
    VkRenderPassBeginInfo rb = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
                                .renderPass = a->pass[clear ? 0 : 1],
                                .framebuffer = a->framebuffer,
                                .renderArea = {{0, 0}, a->extent},
                                .clearValueCount = 2,
                                .pClearValues = clear_values};
    vkCmdBeginRenderPass(cmd, &rb, VK_SUBPASS_CONTENTS_INLINE);
    VkViewport viewport = {0, 0, (float)a->extent.width, (float)a->extent.height, 0, 1};
    VkRect2D scissor = {{0, 0}, a->extent};
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &scissor);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, a->cube);
    vkCmdPushConstants(cmd, a->layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(mat4), a->cube_mvp);
    vkCmdDraw(cmd, 36, 1, 0, 0);
    vkCmdEndRenderPass(cmd);
}

/* vxr's part of a frame in either order; the colour image ends in
 * TRANSFER_SRC (raster-first: for the blit) or ATTACHMENT (voxels-first:
 * for the cube). */
static void draw_voxels(app *a, VkCommandBuffer cmd, order o) {
    vxr_host_image depth = {a->depth, DEPTH_FORMAT, DEPTH_ATTACHMENT, DEPTH_ATTACHMENT};
    vxr_frame f = {.camera = &a->camera, .grid = 1};
    if (o == RASTER_FIRST) {
        /* over the cube: its colour kept (say its layout, not UNDEFINED),
         * its depth read and the nearer depth written back */
        f.color_before = ATTACHMENT;
        f.color_after = TRANSFER_SRC;
        f.depth_in = depth;
        f.depth_out = depth;
    } else {
        /* first: every pixel written, colour and depth dropped */
        f.color_before = VK_IMAGE_LAYOUT_UNDEFINED;
        f.color_after = ATTACHMENT;
        depth.before = VK_IMAGE_LAYOUT_UNDEFINED;
        f.depth_out = depth;
    }
    VXR_CHECK(vxr_renderer_render_frame(a->renderer, a->target, &f, cmd, &err));
}

/* --move: instance 0 steps a cell up per frame, over three cells. The edit
 * goes through vxr/edit.h; vxr_renderer_update records its upload into
 * this frame's command buffer, before the frame reads it. Its serial is
 * given back with vxr_renderer_complete once this frame's fence signalled. */
static void move_instance(app *a, frame *f, VkCommandBuffer cmd, uint64_t n) {
    vxr_transform t = a->home;
    t.translation[2] += (float)(n % 3);
    VXR_CHECK(vxr_scene_set_transform(a->scene, 0, &t, &err));
    vxr_update_info info;
    VXR_CHECK(vxr_renderer_update(a->renderer, a->scene, cmd, &info, &err));
    f->serial = info.serial;
}

static void record_frame(app *a, frame *f, uint32_t image, uint64_t n) {
    VkCommandBuffer cmd = f->cmd;
    VK_CHECK(vkResetCommandBuffer(cmd, 0));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VK_CHECK(vkBeginCommandBuffer(cmd, &bi));
    if (a->move) move_instance(a, f, cmd, n);
    update_camera(a, n);
    if (a->order == RASTER_FIRST) {
        draw_cube(a, cmd, true);
        draw_voxels(a, cmd, RASTER_FIRST);
    } else {
        draw_voxels(a, cmd, VOXELS_FIRST);
        draw_cube(a, cmd, false);
        barrier(cmd, a->color, VK_IMAGE_ASPECT_COLOR_BIT,
                VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, ATTACHMENT,
                TRANSFER_SRC);
    }
    /* A pick: vxr traces the ray of the pixel (vxr_camera_ray gives the ray
     * the frame traced there) into this frame's batch; the result is read
     * once this frame's fence signalled (finish_frame). The batch is this
     * frame slot's, so the host may write its ray now: the slot's previous
     * frame has completed. It sees voxels only: an engine compares the
     * pick's t with its own geometry. */
    if (a->pick_request) {
        a->pick_request = false;
        f->picking = true;
        f->pick_x = a->pick_x < a->extent.width ? a->pick_x : a->extent.width - 1;
        f->pick_y = a->pick_y < a->extent.height ? a->pick_y : a->extent.height - 1;
        vxr_camera_ray(&a->camera, f->pick_x, f->pick_y, &f->ray);
        vxr_rays_input(f->rays)[0] = f->ray;
        f->seen = vxr_renderer_version(a->renderer);
        VXR_CHECK(vxr_renderer_pick_rays(a->renderer, f->rays, 1, 1, cmd, &err));
    }
    /* to the window: the acquire semaphore is waited at the transfer stage */
    VkImage target = a->images[image];
    barrier(cmd, target, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
            VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    int32_t w = (int32_t)a->extent.width, h = (int32_t)a->extent.height;
    VkImageBlit blit = {.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                        .srcOffsets = {{0, 0, 0}, {w, h, 1}},
                        .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                        .dstOffsets = {{0, 0, 0}, {w, h, 1}}};
    vkCmdBlitImage(cmd, a->color, TRANSFER_SRC, target, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                   &blit, VK_FILTER_NEAREST);
    barrier(cmd, target, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0,
            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);
    VK_CHECK(vkEndCommandBuffer(cmd));
}

/* After frame f's fence: what vxr kept for its update can go, and its pick
 * can be read. */
static void finish_frame(app *a, frame *f) {
    if (f->serial) vxr_renderer_complete(a->renderer, f->serial);
    f->serial = 0;
    if (!f->picking) return;
    f->picking = false;
    vxr_pick p;
    vxr_error why = {{0}};
    /* the scene may have changed since the frame (--move): expand refuses a
     * record whose instance moved after it, rather than place it wrong */
    vxr_result r =
        vxr_pick_expand(a->scene, f->seen, &f->ray, &vxr_rays_picks(f->rays)[0], &p, &why);
    if (r != VXR_OK)
        printf("pick %u,%u: no result (%s)\n", f->pick_x, f->pick_y, why.message);
    else if (!p.hit)
        printf("pick %u,%u: nothing\n", f->pick_x, f->pick_y);
    else
        printf("pick %u,%u: instance %u voxel %d,%d,%d colour #%02x%02x%02x face %d t %.9g "
               "point %.6g,%.6g,%.6g\n",
               f->pick_x, f->pick_y, p.instance, p.voxel[0], p.voxel[1], p.voxel[2], p.color & 255,
               p.color >> 8 & 255, p.color >> 16 & 255, p.face, (double)p.t, (double)p.point[0],
               (double)p.point[1], (double)p.point[2]);
    fflush(stdout);
    a->picked = true;
    a->pick_result = r;
    a->pick_ray = f->ray;
    a->pick = p;
}

/* ---- the window's input ---- */

static void on_key(GLFWwindow *window, int key, int scancode, int action, int mods) {
    (void)scancode, (void)mods;
    app *a = glfwGetWindowUserPointer(window);
    if (action != GLFW_PRESS) return;
    if (key == GLFW_KEY_ESCAPE) glfwSetWindowShouldClose(window, GLFW_TRUE);
    if (key == GLFW_KEY_O) a->order = a->order == RASTER_FIRST ? VOXELS_FIRST : RASTER_FIRST;
    if (key == GLFW_KEY_M) a->move = !a->move;
}

static void on_click(GLFWwindow *window, int button, int action, int mods) {
    (void)mods;
    app *a = glfwGetWindowUserPointer(window);
    if (button != GLFW_MOUSE_BUTTON_LEFT || action != GLFW_PRESS) return;
    double x, y;
    int ww, wh, fw, fh;
    glfwGetCursorPos(window, &x, &y);
    glfwGetWindowSize(window, &ww, &wh);
    glfwGetFramebufferSize(window, &fw, &fh);
    if (x < 0 || y < 0 || ww <= 0 || wh <= 0) return;
    a->pick_x = (uint32_t)(x * fw / ww);
    a->pick_y = (uint32_t)(y * fh / wh);
    a->pick_request = true;
}

static void on_resize(GLFWwindow *window, int w, int h) {
    (void)w, (void)h;
    ((app *)glfwGetWindowUserPointer(window))->resized = true;
}

static void usage(void) __attribute__((noreturn));
static void usage(void) {
    fprintf(stderr, "usage: vxr_example_host [SCENE] [--order raster-first|voxels-first] "
                    "[--size WxH] [--frames N] [--screenshot OUT.png] [--reference OUT.png] "
                    "[--check] [--pick X,Y] [--move] [--validate]\n");
    exit(2);
}

static void parse_args(app *a, int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value;
        char end;
        bool ok;
        if (!strcmp(arg, "--validate"))
            a->validate = true;
        else if (!strcmp(arg, "--check"))
            a->check = true;
        else if (!strcmp(arg, "--move"))
            a->move = true;
        else if (arg[0] != '-' && !a->scene_path)
            a->scene_path = arg;
        else if (!(value = ++i < argc ? argv[i] : NULL))
            usage();
        else {
            if (!strcmp(arg, "--order")) {
                ok = !strcmp(value, "raster-first") || !strcmp(value, "voxels-first");
                a->order = !strcmp(value, "voxels-first") ? VOXELS_FIRST : RASTER_FIRST;
            } else if (!strcmp(arg, "--size"))
                ok = sscanf(value, "%ux%u%c", &a->width, &a->height, &end) == 2 && a->width &&
                     a->height;
            else if (!strcmp(arg, "--frames"))
                ok = sscanf(value, "%u%c", &a->frames, &end) == 1 && a->frames;
            else if (!strcmp(arg, "--pick"))
                ok = a->pick_once = sscanf(value, "%u,%u%c", &a->pick_x, &a->pick_y, &end) == 2;
            else if (!strcmp(arg, "--screenshot"))
                ok = (a->screenshot = value) != NULL;
            else if (!strcmp(arg, "--reference"))
                ok = (a->reference = value) != NULL;
            else
                ok = false;
            if (!ok) usage();
        }
    }
    if ((a->screenshot || a->reference || a->check) && !a->frames) {
        fprintf(stderr, "vxr_example_host: --screenshot, --reference and --check need --frames\n");
        exit(2);
    }
}

int main(int argc, char **argv) {
    static app app_state = {.scene_path = NULL, .width = 640, .height = 480};
    app *a = &app_state;
    parse_args(a, argc, argv);
    if (!a->scene_path) a->scene_path = "@demo";
    if (vxr_scene_load(a->scene_path, &a->scene, &err) != VXR_OK)
        die("%s: %s", a->scene_path, err.message);
    if (a->scene->instance_count == 0) die("%s: the scene has no instances", a->scene_path);
    a->home = a->scene->instances[0].transform;
    vxr_scene_stats stats;
    vxr_scene_get_stats(a->scene, &stats);
    for (int k = 0; k < 3; k++) {
        a->center[k] = 0.5f * (float)(stats.aabb_min[k] + stats.aabb_max[k]);
        float e = (float)(stats.aabb_max[k] - stats.aabb_min[k]);
        a->diag += e * e;
    }
    a->diag = a->diag > 0 ? sqrtf(a->diag) : 1.0f;

    if (!glfwInit()) die("no display: GLFW cannot start");
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    a->window = glfwCreateWindow((int)a->width, (int)a->height, "vxr host example", NULL, NULL);
    if (!a->window) die("cannot open a window");
    glfwSetWindowUserPointer(a->window, a);
    glfwSetKeyCallback(a->window, on_key);
    glfwSetMouseButtonCallback(a->window, on_click);
    glfwSetFramebufferSizeCallback(a->window, on_resize);
    create_instance(a);
    create_device(a);
    create_passes(a);
    create_pipeline(a);

    /* vxr adopts the host's instance and device; it creates its own
     * pipelines, buffers and descriptors on them (and names them for the
     * validation messages with debug_names) and never destroys the host's */
    vxr_context_desc desc = {.get_instance_proc_addr = vkGetInstanceProcAddr,
                             .instance = a->instance,
                             .physical_device = a->physical,
                             .device = a->device,
                             .queue_family = a->family,
                             .api_version = VK_API_VERSION_1_2,
                             .debug_names = a->validate};
    VXR_CHECK(vxr_context_create(&desc, &a->vxr, &err));
    /* The scene's upload, recorded by vxr, submitted by the host; once it
     * completed, upload_done frees vxr's staging memory. */
    VkCommandBuffer cmd = begin_once(a);
    VXR_CHECK(vxr_renderer_create(a->vxr, a->scene, cmd, &a->renderer, &err));
    submit_once(a, cmd);
    vxr_renderer_upload_done(a->renderer);
    create_swapchain(a);

    for (int i = 0; i < FRAMES; i++) {
        frame *f = &a->frame[i];
        VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = a->pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
        VK_CHECK(vkAllocateCommandBuffers(a->device, &ai, &f->cmd));
        VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
                                .flags = VK_FENCE_CREATE_SIGNALED_BIT};
        VK_CHECK(vkCreateFence(a->device, &fi, NULL, &f->done));
        VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        VK_CHECK(vkCreateSemaphore(a->device, &si, NULL, &f->acquired));
        VXR_CHECK(vxr_rays_create(a->vxr, 1, &f->rays, &err));
    }

    /* The frame loop: wait for the frame slot's previous use, finish it,
     * acquire, record, submit, present. */
    for (uint64_t n = 0; !glfwWindowShouldClose(a->window) && (!a->frames || n < a->frames);) {
        glfwPollEvents();
        frame *f = &a->frame[n % FRAMES];
        VK_CHECK(vkWaitForFences(a->device, 1, &f->done, VK_TRUE, UINT64_MAX));
        finish_frame(a, f);
        if (a->resized) resize(a);
        uint32_t image;
        VkResult vr = vkAcquireNextImageKHR(a->device, a->swapchain, UINT64_MAX, f->acquired,
                                            VK_NULL_HANDLE, &image);
        if (vr == VK_ERROR_OUT_OF_DATE_KHR) {
            resize(a);
            continue;
        }
        if (vr != VK_SUCCESS && vr != VK_SUBOPTIMAL_KHR)
            die("vkAcquireNextImageKHR: %s", vxr_vk_result_string(vr));
        if (a->pick_once && n + 1 == a->frames) a->pick_request = true; /* --pick: last frame */
        record_frame(a, f, image, n);
        VK_CHECK(vkResetFences(a->device, 1, &f->done));
        VkPipelineStageFlags wait = VK_PIPELINE_STAGE_TRANSFER_BIT;
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .waitSemaphoreCount = 1,
                           .pWaitSemaphores = &f->acquired,
                           .pWaitDstStageMask = &wait,
                           .commandBufferCount = 1,
                           .pCommandBuffers = &f->cmd,
                           .signalSemaphoreCount = 1,
                           .pSignalSemaphores = &a->presented[image]};
        VK_CHECK(vkQueueSubmit(a->queue, 1, &si, f->done));
        VkPresentInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
                               .waitSemaphoreCount = 1,
                               .pWaitSemaphores = &a->presented[image],
                               .swapchainCount = 1,
                               .pSwapchains = &a->swapchain,
                               .pImageIndices = &image};
        vr = vkQueuePresentKHR(a->queue, &pi);
        if (vr == VK_ERROR_OUT_OF_DATE_KHR || vr == VK_SUBOPTIMAL_KHR)
            a->resized = true;
        else if (vr != VK_SUCCESS)
            die("vkQueuePresentKHR: %s", vxr_vk_result_string(vr));
        n++;
    }
    VK_CHECK(vkDeviceWaitIdle(a->device));
    for (int i = 0; i < FRAMES; i++) finish_frame(a, &a->frame[i]);
    int status = a->screenshot || a->reference || a->check ? finish_images(a) : 0;

    /* vxr's objects first, then the context, then the host's */
    for (int i = 0; i < FRAMES; i++) {
        vxr_rays_destroy(a->frame[i].rays);
        vkDestroyFence(a->device, a->frame[i].done, NULL);
        vkDestroySemaphore(a->device, a->frame[i].acquired, NULL);
    }
    destroy_swapchain_images(a); /* and the target */
    vxr_renderer_destroy(a->renderer);
    vxr_context_destroy(a->vxr);
    vkDestroySwapchainKHR(a->device, a->swapchain, NULL);
    vkDestroyPipeline(a->device, a->cube, NULL);
    vkDestroyPipelineLayout(a->device, a->layout, NULL);
    vkDestroyRenderPass(a->device, a->pass[0], NULL);
    vkDestroyRenderPass(a->device, a->pass[1], NULL);
    vkDestroyCommandPool(a->device, a->pool, NULL);
    vkDestroyDevice(a->device, NULL);
    vkDestroySurfaceKHR(a->instance, a->surface, NULL);
    if (a->messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy =
            (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
                a->instance, "vkDestroyDebugUtilsMessengerEXT");
        destroy(a->instance, a->messenger, NULL);
    }
    vkDestroyInstance(a->instance, NULL);
    glfwDestroyWindow(a->window);
    glfwTerminate();
    vxr_scene_destroy(a->scene);
    if (validation_messages) {
        fprintf(stderr, "vxr_example_host: %u validation messages\n", validation_messages);
        status = 1;
    }
    return status;
}
