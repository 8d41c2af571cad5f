/* Host cameras on lavapipe (validation and synchronisation validation on):
 * cameras from view and projection matrices (perspective with any up axis,
 * orthographic, reverse-Z with an infinite far plane, jittered) give every
 * pixel the pick the CPU computes for vxr_camera_ray of that pixel, and the
 * depth vxr_camera_depth gives for the CPU's t, bit for bit, on every file
 * in tests/data. Also: the depth of eye/target cameras, rectangles of a
 * host image, and the depth written into and read from host images. */
#include <math.h>
#include "gpu.h"
#include "vxr/formats.h"
#include "vxr/pickcheck.h"
#include "vxr_test.h"

static cli_gpu gpu;

/* ---- matrices, built here in double (the test's own, not vxr's) ---- */

static void look_at(const double eye[3], const double at[3], const double up[3], vxr_mat4 m) {
    double f[3], s[3], u[3], n = 0;
    for (int k = 0; k < 3; k++) n += (at[k] - eye[k]) * (at[k] - eye[k]);
    for (int k = 0; k < 3; k++) f[k] = (at[k] - eye[k]) / sqrt(n);
    s[0] = f[1] * up[2] - f[2] * up[1];
    s[1] = f[2] * up[0] - f[0] * up[2];
    s[2] = f[0] * up[1] - f[1] * up[0];
    n = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    for (int k = 0; k < 3; k++) s[k] /= n;
    u[0] = s[1] * f[2] - s[2] * f[1];
    u[1] = s[2] * f[0] - s[0] * f[2];
    u[2] = s[0] * f[1] - s[1] * f[0];
    /* view space: x right, y down, z forward (Vulkan clip y points down) */
    memset(m, 0, sizeof(vxr_mat4));
    for (int k = 0; k < 3; k++) {
        m[k][0] = (float)s[k];
        m[k][1] = (float)-u[k];
        m[k][2] = (float)f[k];
    }
    m[3][0] = (float)-(s[0] * eye[0] + s[1] * eye[1] + s[2] * eye[2]);
    m[3][1] = (float)(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]);
    m[3][2] = (float)-(f[0] * eye[0] + f[1] * eye[1] + f[2] * eye[2]);
    m[3][3] = 1;
}

/* Perspective for a +z-forward view space; far 0: infinite. */
static void perspective(double fovy, double aspect, double n, double f, bool reverse, vxr_mat4 m) {
    double t = 1.0 / tan(fovy / 2);
    memset(m, 0, sizeof(vxr_mat4));
    m[0][0] = (float)(t / aspect);
    m[1][1] = (float)t;
    m[2][3] = 1;
    if (reverse && f == 0) { /* depth = n / z */
        m[3][2] = (float)n;
    } else if (reverse) {
        m[2][2] = (float)(n / (n - f));
        m[3][2] = (float)(-f * n / (n - f));
    } else {
        m[2][2] = (float)(f / (f - n));
        m[3][2] = (float)(-f * n / (f - n));
    }
}

static void ortho(double half_w, double half_h, double n, double f, vxr_mat4 m) {
    memset(m, 0, sizeof(vxr_mat4));
    m[0][0] = (float)(1 / half_w);
    m[1][1] = (float)(1 / half_h);
    m[2][2] = (float)(1 / (f - n));
    m[3][2] = (float)(-n / (f - n));
    m[3][3] = 1;
}

enum { KINDS = 5, W = 96, H = 72 };
static const char *const kind_names[KINDS] = {"perspective", "orthographic", "reverse-z",
                                              "jittered", "eye/target"};

/* Camera `kind` around the scene's bounds; up is tilted (a rolled view). */
static void make_camera(const vxr_scene *s, int kind, vxr_camera *cam) {
    vxr_scene_stats st;
    vxr_scene_get_stats(s, &st);
    double c[3], diag = 0;
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5 * (double)(st.aabb_min[k] + st.aabb_max[k]);
        double e = (double)(st.aabb_max[k] - st.aabb_min[k]);
        diag += e * e;
    }
    diag = sqrt(diag) + 1;
    double eye[3] = {c[0] + 0.8 * diag, c[1] - 0.6 * diag, c[2] + 0.5 * diag};
    double up[3] = {0.3, 0.2, 1}; /* not Z: a rolled camera */
    vxr_mat4 view, proj;
    look_at(eye, c, up, view);
    double aspect = (double)W / H;
    vxr_error err = {{0}};
    vxr_result r = VXR_OK;
    switch (kind) {
    case 0:
        perspective(0.9, aspect, 0.05 * diag, 4 * diag, false, proj);
        r = vxr_camera_from_matrices(cam, view, proj, W, H, 0, NULL, &err);
        break;
    case 1:
        ortho(0.5 * diag * aspect, 0.5 * diag, 0.01 * diag, 4 * diag, proj);
        r = vxr_camera_from_matrices(cam, view, proj, W, H, 0, NULL, &err);
        break;
    case 2:
        perspective(0.7, aspect, 0.05 * diag, 0, true, proj);
        r = vxr_camera_from_matrices(cam, view, proj, W, H, VXR_CAMERA_REVERSE_Z, NULL, &err);
        break;
    case 3: {
        perspective(0.9, aspect, 0.05 * diag, 4 * diag, false, proj);
        const float jitter[2] = {0.3125f, -0.4375f};
        r = vxr_camera_from_matrices(cam, view, proj, W, H, 0, jitter, &err);
        break;
    }
    default:
        memset(cam, 0, sizeof *cam);
        for (int k = 0; k < 3; k++) {
            cam->eye[k] = (float)eye[k];
            cam->target[k] = (float)c[k];
        }
        cam->width = W;
        cam->height = H;
        r = vxr_camera_setup(cam);
        break;
    }
    if (r != VXR_OK) fprintf(stderr, "camera %s: %s\n", kind_names[kind], err.message);
    CHECK(r == VXR_OK);
}

static bool render_frame(vxr_renderer *ren, vxr_target *t, const vxr_frame *f) {
    vxr_error err = {{0}};
    vxr_result r = cli_gpu_begin(&gpu, &err);
    if (r == VXR_OK) r = vxr_renderer_render_frame(ren, t, f, gpu.cmd, &err);
    if (r == VXR_OK) r = cli_gpu_submit(&gpu, &err);
    if (r != VXR_OK) fprintf(stderr, "render: %s\n", err.message);
    return r == VXR_OK;
}

static const char *const files[] = {VXR_TEST_REAL_FILES};
enum { FILES = sizeof files / sizeof files[0] };

static void test_host_cameras(void) {
    for (int f = 0; f < FILES; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", VXR_TEST_DATA, files[f]);
        vxr_scene *s = NULL;
        vxr_error err = {{0}};
        CHECK(vxr_scene_load(path, &s, &err) == VXR_OK);
        if (!s) continue;
        vxr_renderer *ren = NULL;
        vxr_target *t = NULL;
        vxr_target_desc td = {
            .width = W, .height = H, .picks = true, .readback = true, .depth = true};
        CHECK(cli_gpu_begin(&gpu, &err) == VXR_OK);
        CHECK(vxr_renderer_create(gpu.ctx, s, gpu.cmd, &ren, &err) == VXR_OK);
        CHECK(cli_gpu_submit(&gpu, &err) == VXR_OK);
        CHECK(vxr_target_create(gpu.ctx, &td, &t, &err) == VXR_OK);
        vxr_picker *picker = NULL;
        CHECK(vxr_picker_create(s, &picker) == VXR_OK);
        for (int kind = 0; ren && t && picker && kind < KINDS; kind++) {
            vxr_camera cam;
            make_camera(s, kind, &cam);
            vxr_frame fr = {.camera = &cam, .grid = 1};
            if (!render_frame(ren, t, &fr)) {
                CHECK(false);
                continue;
            }
            const vxr_gpu_pick *recs = vxr_target_picks(t);
            const float *depth = vxr_target_depth(t);
            size_t bad = 0, bad_depth = 0, hits = 0;
            for (uint32_t j = 0; j < H; j++)
                for (uint32_t i = 0; i < W; i++) {
                    vxr_ray ray;
                    vxr_pick a, b;
                    vxr_camera_ray(&cam, i, j, &ray);
                    vxr_pick_ray(picker, &ray, 1, &a);
                    size_t at = (size_t)j * W + i;
                    bool same =
                        vxr_pick_expand(s, s->version, &ray, &recs[at], &b, NULL) == VXR_OK &&
                        vxr_pick_diff(&a, &b) == 0;
                    float want = vxr_camera_depth(&cam, &ray, a.hit ? a.t : INFINITY);
                    hits += a.hit ? 1u : 0u;
                    bad += !same;
                    if (memcmp(&want, &depth[at], sizeof want)) {
                        if (bad_depth++ < 3)
                            fprintf(stderr, "  %s %s pixel %u,%u depth %.9g, cpu %.9g\n", files[f],
                                    kind_names[kind], i, j, (double)depth[at], (double)want);
                    }
                }
            fprintf(stderr, "  %-34s %-12s %zu hits, %zu picks and %zu depths differ\n", files[f],
                    kind_names[kind], hits, bad, bad_depth);
            CHECK(hits > 0);
            CHECK_EQ_INT(bad, 0);
            CHECK_EQ_INT(bad_depth, 0);
        }
        vxr_picker_destroy(picker);
        vxr_target_destroy(t);
        vxr_renderer_destroy(ren);
        vxr_scene_destroy(s);
    }
    CHECK_EQ_INT(vxr_context_validation_messages(gpu.ctx), 0);
}

/* ---- host images: a rectangle of the host's colour image, the host's
 * depth in and out (R32_SFLOAT and D32_SFLOAT) ---- */

typedef struct host_image {
    VkImage image;
    VkImageView view;
    VkDeviceMemory memory;
} host_image;

static bool host_image_create(VkFormat format, uint32_t w, uint32_t h, VkImageUsageFlags usage,
                              host_image *dest) {
    VkDevice dev = gpu.info.device;
    memset(dest, 0, sizeof *dest);
    VkImageCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
                            .imageType = VK_IMAGE_TYPE_2D,
                            .format = format,
                            .extent = {w, h, 1},
                            .mipLevels = 1,
                            .arrayLayers = 1,
                            .samples = VK_SAMPLE_COUNT_1_BIT,
                            .tiling = VK_IMAGE_TILING_OPTIMAL,
                            .usage = usage,
                            .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
    if (vkCreateImage(dev, &ii, NULL, &dest->image) != VK_SUCCESS) return false;
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(dev, dest->image, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(gpu.info.physical_device, &mp);
    uint32_t type = 0;
    while (!(req.memoryTypeBits & (1u << type))) type++;
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = req.size,
                               .memoryTypeIndex = type};
    if (vkAllocateMemory(dev, &ai, NULL, &dest->memory) != VK_SUCCESS ||
        vkBindImageMemory(dev, dest->image, dest->memory, 0) != VK_SUCCESS)
        return false;
    if (!(usage & VK_IMAGE_USAGE_STORAGE_BIT)) return true;
    VkImageViewCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
                                .image = dest->image,
                                .viewType = VK_IMAGE_VIEW_TYPE_2D,
                                .format = format,
                                .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    return vkCreateImageView(dev, &vi, NULL, &dest->view) == VK_SUCCESS;
}

static void host_image_destroy(host_image *h) {
    VkDevice dev = gpu.info.device;
    if (h->view) vkDestroyImageView(dev, h->view, NULL);
    if (h->image) vkDestroyImage(dev, h->image, NULL);
    if (h->memory) vkFreeMemory(dev, h->memory, NULL);
}

/* A host-visible buffer of size bytes. */
static bool readback_create(VkDeviceSize size, VkBuffer *buf, VkDeviceMemory *mem, void **map) {
    VkDevice dev = gpu.info.device;
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = size,
                             .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    if (vkCreateBuffer(dev, &bi, NULL, buf) != VK_SUCCESS) return false;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, *buf, &req);
    const VkMemoryPropertyFlags want =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type;
    if (!cli_gpu_memory_type(gpu.info.physical_device, req.memoryTypeBits, want, &type))
        return false;
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = req.size,
                               .memoryTypeIndex = type};
    return vkAllocateMemory(dev, &ai, NULL, mem) == VK_SUCCESS &&
           vkBindBufferMemory(dev, *buf, *mem, 0) == VK_SUCCESS &&
           vkMapMemory(dev, *mem, 0, size, 0, map) == VK_SUCCESS;
}

static void image_layout(VkImage image, VkImageAspectFlags aspect, VkImageLayout from,
                         VkImageLayout to) {
    VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                              .dstAccessMask =
                                  VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
                              .oldLayout = from,
                              .newLayout = to,
                              .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                              .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                              .image = image,
                              .subresourceRange = {aspect, 0, 1, 0, 1}};
    vkCmdPipelineBarrier(gpu.cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                         VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL, 1, &b);
}

/* Two cameras side by side in one host RGBA8 image, each rectangle over a
 * host depth cleared to a plane at depth `plane`: each pixel keeps the
 * clear colour and the plane unless the voxel is strictly nearer, where it
 * has the colour vxr's own target gets and the CPU's depth. */
static void test_host_images(void) {
    vxr_scene *s = NULL;
    vxr_error err = {{0}};
    CHECK(vxr_scene_load("@demo", &s, &err) == VXR_OK);
    if (!s) return;
    const VkFormat depth_formats[2] = {VK_FORMAT_R32_SFLOAT, VK_FORMAT_D32_SFLOAT};
    vxr_renderer *ren = NULL;
    CHECK(cli_gpu_begin(&gpu, &err) == VXR_OK);
    CHECK(vxr_renderer_create(gpu.ctx, s, gpu.cmd, &ren, &err) == VXR_OK);
    CHECK(cli_gpu_submit(&gpu, &err) == VXR_OK);
    vxr_picker *picker = NULL;
    CHECK(vxr_picker_create(s, &picker) == VXR_OK);
    for (int df = 0; ren && picker && df < 2; df++) {
        VkFormat dfmt = depth_formats[df];
        VkImageAspectFlags dasp = df ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT;
        host_image color, depth;
        CHECK(host_image_create(VK_FORMAT_R8G8B8A8_UNORM, 2 * W, H,
                                VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                    VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                &color));
        CHECK(host_image_create(dfmt, 2 * W, H,
                                VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                &depth));
        vxr_camera cam[2];
        make_camera(s, 0, &cam[0]);
        make_camera(s, 4, &cam[1]);
        vxr_target *t[2] = {NULL, NULL}, *own[2] = {NULL, NULL};
        for (int k = 0; k < 2; k++) {
            vxr_target_desc td = {.width = W,
                                  .height = H,
                                  .depth = true,
                                  .image = color.image,
                                  .view = color.view,
                                  .format = VK_FORMAT_R8G8B8A8_UNORM,
                                  .x = (uint32_t)k * W};
            vxr_target_desc od = {.width = W, .height = H, .readback = true};
            CHECK(vxr_target_create(gpu.ctx, &td, &t[k], &err) == VXR_OK);
            CHECK(vxr_target_create(gpu.ctx, &od, &own[k], &err) == VXR_OK);
        }
        const float plane = 0.9990f; /* between the near and far of camera 0 */
        VkBuffer rb = VK_NULL_HANDLE, db = VK_NULL_HANDLE;
        VkDeviceMemory rm = VK_NULL_HANDLE, dm = VK_NULL_HANDLE;
        void *rmap = NULL, *dmap = NULL;
        CHECK(readback_create((VkDeviceSize)2 * W * H * 4, &rb, &rm, &rmap));
        CHECK(readback_create((VkDeviceSize)2 * W * H * 4, &db, &dm, &dmap));
        if (!t[0] || !t[1] || !own[0] || !own[1] || !rmap || !dmap) goto done;
        CHECK(cli_gpu_begin(&gpu, &err) == VXR_OK);
        /* the host's frame so far: a clear colour, a depth plane */
        const VkImageLayout dst = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
        image_layout(color.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED, dst);
        image_layout(depth.image, dasp, VK_IMAGE_LAYOUT_UNDEFINED, dst);
        VkClearColorValue clear = {.float32 = {0.0f, 1.0f, 0.0f, 1.0f}};
        VkImageSubresourceRange cr = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        vkCmdClearColorImage(gpu.cmd, color.image, dst, &clear, 1, &cr);
        VkImageSubresourceRange dr = {dasp, 0, 1, 0, 1};
        if (df) {
            VkClearDepthStencilValue dv = {plane, 0};
            vkCmdClearDepthStencilImage(gpu.cmd, depth.image, dst, &dv, 1, &dr);
        } else {
            VkClearColorValue dv = {.float32 = {plane, 0, 0, 0}};
            vkCmdClearColorImage(gpu.cmd, depth.image, dst, &dv, 1, &dr);
        }
        for (int k = 0; k < 2; k++) {
            vxr_host_image hd = {depth.image, dfmt, dst, dst};
            vxr_frame fr = {.camera = &cam[k],
                            .grid = 1,
                            .color_before = dst,
                            .color_after = dst,
                            .depth_in = hd,
                            .depth_out = hd};
            CHECK(vxr_renderer_render_frame(ren, t[k], &fr, gpu.cmd, &err) == VXR_OK);
            CHECK(vxr_renderer_render(ren, own[k], &cam[k], 1, gpu.cmd, &err) == VXR_OK);
        }
        image_layout(color.image, VK_IMAGE_ASPECT_COLOR_BIT, dst,
                     VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        image_layout(depth.image, dasp, dst, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                    .imageExtent = {2 * W, H, 1}};
        vkCmdCopyImageToBuffer(gpu.cmd, color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rb, 1,
                               &region);
        region.imageSubresource.aspectMask = dasp;
        vkCmdCopyImageToBuffer(gpu.cmd, depth.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, db, 1,
                               &region);
        VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                              .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
        vkCmdPipelineBarrier(gpu.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0,
                             1, &mb, 0, NULL, 0, NULL);
        CHECK(cli_gpu_submit(&gpu, &err) == VXR_OK);
        const uint32_t *rgba = rmap;
        const float *z = dmap;
        size_t bad = 0, voxels = 0, kept = 0;
        for (int k = 0; k < 2; k++) {
            const uint32_t *ref = vxr_target_colors(own[k]);
            for (uint32_t j = 0; j < H; j++)
                for (uint32_t i = 0; i < W; i++) {
                    vxr_ray ray;
                    vxr_pick p;
                    vxr_camera_ray(&cam[k], i, j, &ray);
                    vxr_pick_ray(picker, &ray, 1, &p);
                    float d = vxr_camera_depth(&cam[k], &ray, p.hit ? p.t : INFINITY);
                    bool voxel = p.hit && d < plane;
                    uint32_t want_rgba = voxel ? ref[j * W + i] : 0xff00ff00u;
                    float want_z = voxel ? d : plane;
                    size_t at = (size_t)j * 2 * W + (size_t)k * W + i;
                    voxels += voxel;
                    kept += !voxel;
                    if (rgba[at] != want_rgba || memcmp(&z[at], &want_z, sizeof want_z)) {
                        if (bad++ < 3)
                            fprintf(stderr,
                                    "  depth %d camera %d pixel %u,%u: %08x z %.9g, want %08x "
                                    "z %.9g\n",
                                    df, k, i, j, rgba[at], (double)z[at], want_rgba,
                                    (double)want_z);
                    }
                }
        }
        fprintf(stderr, "  depth format %d: %zu voxel pixels, %zu kept, %zu differ\n", (int)dfmt,
                voxels, kept, bad);
        CHECK(voxels > 100 && kept > 100);
        CHECK_EQ_INT(bad, 0);
    done:
        if (rb) vkDestroyBuffer(gpu.info.device, rb, NULL);
        if (db) vkDestroyBuffer(gpu.info.device, db, NULL);
        if (rm) vkFreeMemory(gpu.info.device, rm, NULL);
        if (dm) vkFreeMemory(gpu.info.device, dm, NULL);
        for (int k = 0; k < 2; k++) {
            vxr_target_destroy(t[k]);
            vxr_target_destroy(own[k]);
        }
        host_image_destroy(&color);
        host_image_destroy(&depth);
    }
    vxr_picker_destroy(picker);
    vxr_renderer_destroy(ren);
    vxr_scene_destroy(s);
    CHECK_EQ_INT(vxr_context_validation_messages(gpu.ctx), 0);
}

static float half_to_float(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0 ? ldexpf((float)m, -24) : ldexpf((float)(m | 1024), e - 25);
    return h & 0x8000 ? -v : v;
}

/* A host image of another format (BGRA8, RGBA16F) holds the colours of
 * vxr's own RGBA8 image: the same bytes swapped, or the same values within
 * the 8-bit rounding. */
static void test_host_formats(void) {
    vxr_scene *s = NULL;
    vxr_error err = {{0}};
    CHECK(vxr_scene_load("@demo", &s, &err) == VXR_OK);
    if (!s) return;
    vxr_renderer *ren = NULL;
    CHECK(cli_gpu_begin(&gpu, &err) == VXR_OK);
    CHECK(vxr_renderer_create(gpu.ctx, s, gpu.cmd, &ren, &err) == VXR_OK);
    CHECK(cli_gpu_submit(&gpu, &err) == VXR_OK);
    const VkFormat formats[2] = {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R16G16B16A16_SFLOAT};
    for (int f = 0; ren && f < 2; f++) {
        VkFormatProperties fp;
        vkGetPhysicalDeviceFormatProperties(gpu.info.physical_device, formats[f], &fp);
        if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)) {
            fprintf(stderr, "  format %d: no storage support, skipped\n", (int)formats[f]);
            continue;
        }
        uint32_t texel = f ? 8 : 4;
        host_image color;
        CHECK(host_image_create(formats[f], W, H,
                                VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                &color));
        vxr_camera cam;
        make_camera(s, 2, &cam);
        vxr_target *t = NULL, *own = NULL;
        vxr_target_desc td = {.width = W,
                              .height = H,
                              .image = color.image,
                              .view = color.view,
                              .format = formats[f]};
        vxr_target_desc od = {.width = W, .height = H, .readback = true};
        CHECK(vxr_target_create(gpu.ctx, &td, &t, &err) == VXR_OK);
        CHECK(vxr_target_create(gpu.ctx, &od, &own, &err) == VXR_OK);
        VkBuffer rb = VK_NULL_HANDLE;
        VkDeviceMemory rm = VK_NULL_HANDLE;
        void *map = NULL;
        CHECK(readback_create((VkDeviceSize)W * H * texel, &rb, &rm, &map));
        if (t && own && map) {
            CHECK(cli_gpu_begin(&gpu, &err) == VXR_OK);
            const VkImageLayout src = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
            vxr_frame fr = {.camera = &cam,
                            .grid = 1,
                            .color_before = VK_IMAGE_LAYOUT_UNDEFINED,
                            .color_after = src};
            CHECK(vxr_renderer_render_frame(ren, t, &fr, gpu.cmd, &err) == VXR_OK);
            CHECK(vxr_renderer_render(ren, own, &cam, 1, gpu.cmd, &err) == VXR_OK);
            VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                        .imageExtent = {W, H, 1}};
            vkCmdCopyImageToBuffer(gpu.cmd, color.image, src, rb, 1, &region);
            VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                  .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                  .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
            vkCmdPipelineBarrier(gpu.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                 VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
            CHECK(cli_gpu_submit(&gpu, &err) == VXR_OK);
            const uint32_t *ref = vxr_target_colors(own);
            size_t bad = 0;
            for (size_t p = 0; p < (size_t)W * H; p++)
                for (int c = 0; c < 4; c++) {
                    int want = (int)(ref[p] >> (8 * c) & 255u), got;
                    if (f == 0) { /* B, G, R, A */
                        got = ((const uint8_t *)map)[4 * p + (size_t)(c == 3 ? 3 : 2 - c)];
                        bad += got != want;
                    } else {
                        float v = half_to_float(((const uint16_t *)map)[4 * p + (size_t)c]);
                        got = (int)lrintf(v * 255.0f);
                        bad += abs(got - want) > 1;
                    }
                }
            fprintf(stderr, "  format %d: %zu of %d channels differ\n", (int)formats[f], bad,
                    W * H * 4);
            CHECK_EQ_INT(bad, 0);
        }
        if (rb) vkDestroyBuffer(gpu.info.device, rb, NULL);
        if (rm) vkFreeMemory(gpu.info.device, rm, NULL);
        vxr_target_destroy(t);
        vxr_target_destroy(own);
        host_image_destroy(&color);
    }
    vxr_renderer_destroy(ren);
    vxr_scene_destroy(s);
    CHECK_EQ_INT(vxr_context_validation_messages(gpu.ctx), 0);
}

/* Bad cameras are refused with a reason. */
static void test_bad_matrices(void) {
    vxr_mat4 view = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}, proj;
    vxr_camera cam;
    vxr_error err = {{0}};
    memcpy(proj, view, sizeof proj);
    proj[2][3] = 0.5f; /* neither kind: last row (0, 0, 0.5, 1) */
    CHECK(vxr_camera_from_matrices(&cam, view, proj, 8, 8, 0, NULL, &err) == VXR_ERROR_ARGUMENT);
    CHECK(strstr(err.message, "projection") != NULL);
    perspective(1, 1, 0.1, 10, false, proj);
    CHECK(vxr_camera_from_matrices(&cam, view, proj, 0, 8, 0, NULL, &err) == VXR_ERROR_ARGUMENT);
    view[0][0] = NAN;
    CHECK(vxr_camera_from_matrices(&cam, view, proj, 8, 8, 0, NULL, &err) == VXR_ERROR_ARGUMENT);
    memset(view, 0, sizeof view);
    CHECK(vxr_camera_from_matrices(&cam, view, proj, 8, 8, 0, NULL, &err) == VXR_ERROR_ARGUMENT);
}

int main(int argc, char **argv) {
    vxr_error err = {{0}};
    vxr_context_desc d = {.validation = true};
    if (cli_gpu_open(&gpu, &d, &err) != VXR_OK) {
        fprintf(stderr, "no Vulkan device: %s\n", err.message);
        return 1;
    }
    fprintf(stderr, "device: %s\n", gpu.info.device_name);
    static const vxr_test_case tests[] = {TEST(test_host_cameras), TEST(test_host_images),
                                          TEST(test_host_formats), TEST(test_bad_matrices)};
    int status = RUN_TESTS(tests);
    uint32_t messages = vxr_context_validation_messages(gpu.ctx);
    cli_gpu_close(&gpu);
    if (messages) {
        fprintf(stderr, "%u validation messages\n", messages);
        return 1;
    }
    return status;
}
