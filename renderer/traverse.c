/* Recording one frame of shaders/trace.comp. */
#include <math.h>
#include <string.h>
#include "internal.h"

/* The push constants of shaders/trace.comp, std430. */
typedef struct push {
    float eye[3], tan_half_fov;
    float forward[3], aspect;
    float right[3], grid_pad;
    float up[3], unused;
    uint32_t width, height, grid_level, flags;
    uint32_t bvh_nodes, reserved[3];
} push;
_Static_assert(sizeof(push) == VXR_PUSH_BYTES, "push constants");

vxr_result vxr_renderer_render(vxr_renderer *r, vxr_target *t, const vxr_camera *cam, uint32_t grid,
                               VkCommandBuffer cmd) {
    vxr_context *c = r->ctx;
    if (cam->width != t->width || cam->height != t->height || !(cam->tan_half_fov > 0.0f))
        return VXR_ERROR_ARGUMENT;
    if (grid > (1u << 20) || (grid & (grid - 1))) return VXR_ERROR_ARGUMENT;
    push p;
    memset(&p, 0, sizeof p);
    memcpy(p.eye, cam->eye, sizeof p.eye);
    memcpy(p.forward, cam->forward, sizeof p.forward);
    memcpy(p.right, cam->right, sizeof p.right);
    memcpy(p.up, cam->up, sizeof p.up);
    p.tan_half_fov = cam->tan_half_fov;
    p.aspect = cam->aspect;
    p.width = t->width;
    p.height = t->height;
    p.grid_level = grid > 1 ? (uint32_t)__builtin_ctz(grid) : 0;
    p.grid_pad = r->grid_pad[p.grid_level];
    p.flags = t->has_picks ? 1u : 0u;
    p.bvh_nodes = r->bvh_nodes;
    VkPipeline pipeline;
    vxr_result res = vxr_renderer_pipeline(r, p.grid_level, t->has_picks, &pipeline);
    if (res != VXR_OK) return res;

    /* Every pixel is written: the old contents are dropped, and the
     * previous frame's reads of the image finish first. */
    VkImageMemoryBarrier ib = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                               .srcAccessMask = 0,
                               .dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                               .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
                               .newLayout = VK_IMAGE_LAYOUT_GENERAL,
                               .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                               .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                               .image = t->image,
                               .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    c->vk.vkCmdPipelineBarrier(
        cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0, NULL, 0, NULL, 1, &ib);
    c->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    VkDescriptorSet sets[2] = {r->set, t->set};
    c->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, c->pipeline_layout, 0, 2,
                                  sets, 0, NULL);
    c->vk.vkCmdPushConstants(cmd, c->pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof p, &p);
    c->vk.vkCmdDispatch(cmd, (t->width + r->spec[0] - 1) / r->spec[0],
                        (t->height + r->spec[1] - 1) / r->spec[1], 1);

    ib.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    ib.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    ib.oldLayout = VK_IMAGE_LAYOUT_GENERAL;
    if (t->readback.buffer) ib.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    c->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                               VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0, NULL, 1, &ib);
    if (t->readback.buffer) {
        VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                    .imageExtent = {t->width, t->height, 1}};
        c->vk.vkCmdCopyImageToBuffer(cmd, t->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                     t->readback.buffer, 1, &region);
        /* back to GENERAL, still readable by later transfers */
        ib.srcAccessMask = 0;
        ib.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
        ib.newLayout = VK_IMAGE_LAYOUT_GENERAL;
        c->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                   VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0, NULL, 1, &ib);
        VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                              .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
        c->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                                   0, 1, &mb, 0, NULL, 0, NULL);
    }
    if (t->has_picks) {
        VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                              .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
        c->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                   VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    }
    return VXR_OK;
}
