/* Recording shaders/trace.comp: a frame, or a batch of rays. */
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
    uint32_t bvh_nodes, rays, reserved[2];
} push;
_Static_assert(sizeof(push) == VXR_PUSH_BYTES, "push constants");

/* The push constants every dispatch shares (camera fields zero). */
static vxr_result begin(vxr_renderer *r, vxr_target *t, uint32_t grid, vxr_mode mode, push *p,
                        VkPipeline *pipeline) {
    if (grid > (1u << 20) || (grid & (grid - 1))) return VXR_ERROR_ARGUMENT;
    memset(p, 0, sizeof *p);
    p->width = t->width;
    p->height = t->height;
    p->grid_level = grid > 1 ? (uint32_t)__builtin_ctz(grid) : 0;
    p->grid_pad = r->grid_pad[p->grid_level];
    p->flags = mode != VXR_MODE_FRAME;
    p->bvh_nodes = r->bvh_nodes;
    return vxr_renderer_pipeline(r, p->grid_level, mode, pipeline);
}

/* Binds and dispatches over w x h invocations, the image made writable
 * first (its old contents dropped; earlier reads of it finish first). */
static void dispatch(vxr_renderer *r, vxr_target *t, const push *p, VkPipeline pipeline, uint32_t w,
                     uint32_t h, VkCommandBuffer cmd) {
    vxr_context *c = r->ctx;
    VkImageMemoryBarrier ib = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                               .srcAccessMask = 0,
                               .dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                               .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
                               .newLayout = VK_IMAGE_LAYOUT_GENERAL,
                               .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                               .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                               .image = t->image,
                               .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    /* and the pick records: earlier shader writes land before these */
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT};
    c->vk.vkCmdPipelineBarrier(
        cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 1, &ib);
    c->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    VkDescriptorSet sets[2] = {r->set, t->set};
    c->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, c->pipeline_layout, 0, 2,
                                  sets, 0, NULL);
    c->vk.vkCmdPushConstants(cmd, c->pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof *p, p);
    c->vk.vkCmdDispatch(cmd, (w + r->spec[0] - 1) / r->spec[0], (h + r->spec[1] - 1) / r->spec[1],
                        1);
}

/* Makes the pick records' shader writes visible to host reads. */
static void picks_to_host(vxr_context *c, VkCommandBuffer cmd) {
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    c->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                               VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
}

vxr_result vxr_renderer_render(vxr_renderer *r, vxr_target *t, const vxr_camera *cam, uint32_t grid,
                               VkCommandBuffer cmd) {
    vxr_context *c = r->ctx;
    if (cam->width != t->width || cam->height != t->height || !(cam->tan_half_fov > 0.0f))
        return VXR_ERROR_ARGUMENT;
    push p;
    VkPipeline pipeline;
    vxr_result res =
        begin(r, t, grid, t->has_picks ? VXR_MODE_PICKS : VXR_MODE_FRAME, &p, &pipeline);
    if (res != VXR_OK) return res;
    memcpy(p.eye, cam->eye, sizeof p.eye);
    memcpy(p.forward, cam->forward, sizeof p.forward);
    memcpy(p.right, cam->right, sizeof p.right);
    memcpy(p.up, cam->up, sizeof p.up);
    p.tan_half_fov = cam->tan_half_fov;
    p.aspect = cam->aspect;
    dispatch(r, t, &p, pipeline, t->width, t->height, cmd);

    VkImageMemoryBarrier ib = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT,
                               .oldLayout = VK_IMAGE_LAYOUT_GENERAL,
                               .newLayout = VK_IMAGE_LAYOUT_GENERAL,
                               .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                               .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                               .image = t->image,
                               .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
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
    if (t->has_picks) picks_to_host(c, cmd);
    return VXR_OK;
}

/* Rays go in rows of this many invocations (a multiple of the workgroup
 * width), so that a large batch fills whole workgroups. */
#define RAY_ROW 128u

vxr_result vxr_renderer_pick_rays(vxr_renderer *r, vxr_rays *q, uint32_t count, uint32_t grid,
                                  VkCommandBuffer cmd) {
    vxr_target *t = q->t;
    if (count < 1 || count > t->capacity) return VXR_ERROR_ARGUMENT;
    push p;
    VkPipeline pipeline;
    vxr_result res = begin(r, t, grid, VXR_MODE_RAYS, &p, &pipeline);
    if (res != VXR_OK) return res;
    p.width = count < RAY_ROW ? count : RAY_ROW;
    p.height = (count + RAY_ROW - 1) / RAY_ROW;
    p.rays = count;
    dispatch(r, t, &p, pipeline, p.width, p.height, cmd);
    picks_to_host(r->ctx, cmd);
    return VXR_OK;
}
