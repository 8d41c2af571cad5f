/* --screenshot, --reference, --check (examples/host): after the last
 * frame, one more frame and each layer alone are read back; the check
 * composites the reference on the CPU from the raster-only pass and vxr's
 * CPU picks, and holds the GPU pick to the CPU's. */
#include <png.h>
#include "host.h"

static void write_png(const char *path, uint32_t w, uint32_t h, const uint32_t *rgba) {
    png_image image = {
        .version = PNG_IMAGE_VERSION, .width = w, .height = h, .format = PNG_FORMAT_RGBA};
    if (!png_image_write_to_file(&image, path, 0, rgba, 0, NULL))
        die("cannot write %s: %s", path, image.message);
}

/* After the last frame: reads back its colour, then draws the two layers
 * of the same frame alone (the cube over a cleared frame, the voxels
 * without depth_in) and reads them back; composites them on the CPU with
 * vxr's CPU picks for the voxels' depth. Returns the exit status. */
int finish_images(app *a) {
    uint32_t w = a->extent.width, h = a->extent.height;
    size_t pixels = (size_t)w * h, bytes = pixels * 4;
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = 4 * bytes,
                             .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    VkBuffer buffer;
    VK_CHECK(vkCreateBuffer(a->device, &bi, NULL, &buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(a->device, buffer, &req);
    VkDeviceMemory memory = allocate(
        a, req, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    VK_CHECK(vkBindBufferMemory(a->device, buffer, memory, 0));
    uint8_t *map;
    VK_CHECK(vkMapMemory(a->device, memory, 0, VK_WHOLE_SIZE, 0, (void **)&map));
    /* buffer: the frame, the cube's colour and depth, the voxels' colour */
    VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                .imageExtent = {w, h, 1}};
    VkCommandBuffer cmd = begin_once(a);
    vkCmdCopyImageToBuffer(cmd, a->color, TRANSFER_SRC, buffer, 1, &region);
    draw_cube(a, cmd, true);
    barrier(cmd, a->color, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
            VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_READ_BIT, ATTACHMENT, TRANSFER_SRC);
    barrier(cmd, a->depth, VK_IMAGE_ASPECT_DEPTH_BIT,
            VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
            VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_READ_BIT, DEPTH_ATTACHMENT, TRANSFER_SRC);
    region.bufferOffset = bytes;
    vkCmdCopyImageToBuffer(cmd, a->color, TRANSFER_SRC, buffer, 1, &region);
    region.bufferOffset = 2 * bytes;
    region.imageSubresource.aspectMask = VK_IMAGE_ASPECT_DEPTH_BIT;
    vkCmdCopyImageToBuffer(cmd, a->depth, TRANSFER_SRC, buffer, 1, &region);
    vxr_frame f = {.camera = &a->camera,
                   .grid = 1,
                   .color_before = VK_IMAGE_LAYOUT_UNDEFINED,
                   .color_after = TRANSFER_SRC};
    VXR_CHECK(vxr_renderer_render_frame(a->renderer, a->target, &f, cmd, &err));
    region.bufferOffset = 3 * bytes;
    region.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    vkCmdCopyImageToBuffer(cmd, a->color, TRANSFER_SRC, buffer, 1, &region);
    VkMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                         &to_host, 0, NULL, 0, NULL);
    submit_once(a, cmd);
    const uint32_t *shot = (const uint32_t *)map, *cube = (const uint32_t *)(map + bytes);
    const float *cube_depth = (const float *)(map + 2 * bytes);
    const uint32_t *voxels = (const uint32_t *)(map + 3 * bytes);
    if (a->screenshot) write_png(a->screenshot, w, h, shot);
    int status = 0;
    if (a->reference || a->check) {
        /* Each pixel: the voxels' depth from the CPU pick of the frame's ray
         * at that pixel, against the cube's; the nearer layer wins, a tie
         * goes to the layer drawn first (depth_in keeps the host's pixel
         * unless a voxel is strictly nearer; the cube's LESS test keeps
         * vxr's). Misses are at the far depth, like the cleared depth. */
        uint32_t *ref = malloc(bytes);
        vxr_picker *picker;
        if (!ref || vxr_picker_create(a->scene, &picker) != VXR_OK) die("out of memory");
        size_t differ = 0;
        for (uint32_t j = 0; j < h; j++)
            for (uint32_t i = 0; i < w; i++) {
                size_t k = (size_t)j * w + i;
                vxr_ray ray;
                vxr_pick p;
                vxr_camera_ray(&a->camera, i, j, &ray);
                vxr_pick_ray(picker, &ray, 1, &p);
                float voxel_depth = vxr_camera_depth(&a->camera, &ray, p.hit ? p.t : INFINITY);
                bool voxel = a->order == RASTER_FIRST ? voxel_depth < cube_depth[k]
                                                      : voxel_depth <= cube_depth[k];
                ref[k] = voxel ? voxels[k] : cube[k];
                differ += ref[k] != shot[k];
            }
        if (a->reference) write_png(a->reference, w, h, ref);
        if (a->check) {
            printf("check: %zu of %zu pixels differ from the reference (%s)\n", differ, pixels,
                   a->order == RASTER_FIRST ? "raster-first" : "voxels-first");
            if (differ) status = 1;
            /* the GPU's pick equals the CPU's for the same ray */
            vxr_pick cpu = {0};
            if (a->picked) vxr_pick_ray(picker, &a->pick_ray, 1, &cpu);
            if (a->picked && (a->pick_result != VXR_OK || memcmp(&cpu, &a->pick, sizeof cpu))) {
                printf("check: the pick differs from the CPU's pick of its ray\n");
                status = 1;
            }
        }
        vxr_picker_destroy(picker);
        free(ref);
    }
    vkDestroyBuffer(a->device, buffer, NULL);
    vkFreeMemory(a->device, memory, NULL);
    return status;
}
