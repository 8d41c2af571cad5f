/* Recording shaders/trace.comp: a frame, or a batch of rays. */
#include <math.h>
#include <string.h>
#include "internal.h"

/* The push constants every dispatch shares (camera fields zero). */
static vxr_result begin(vxr_renderer *r, vxr_target *t, uint32_t grid, vxr_mode mode, vxr_push *p,
                        VkPipeline *pipeline, vxr_error *err) {
    if (grid > VXR_MAX_GRID || (grid & (grid - 1)))
        return vxr_ctx_fail(r->ctx, err, VXR_ERROR_ARGUMENT,
                            "grid %u is not a power of two from 1 to %u", grid, VXR_MAX_GRID);
    memset(p, 0, sizeof *p);
    p->width = t->width;
    p->height = t->height;
    uint32_t level = grid > 1 ? (uint32_t)__builtin_ctz(grid) : 0;
    p->grid_pad = r->grid_pad[level];
    p->bvh_nodes = r->bvh_nodes;
    p->loop_probe = VXR_LOOP_PROBE;
    return vxr_renderer_pipeline(r, level, mode, pipeline, err);
}

/* A layout change of a colour image (and, when mb is not NULL, a memory
 * barrier), from work at src_stage with src access to work at dst_stage
 * with dst access. */
static void image_barrier(vxr_context *c, VkCommandBuffer cmd, VkImage image,
                          VkPipelineStageFlags src_stage, VkAccessFlags src,
                          VkPipelineStageFlags dst_stage, VkAccessFlags dst, VkImageLayout from,
                          VkImageLayout to, const VkMemoryBarrier *mb) {
    VkImageMemoryBarrier ib = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                               .srcAccessMask = src,
                               .dstAccessMask = dst,
                               .oldLayout = from,
                               .newLayout = to,
                               .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                               .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                               .image = image,
                               .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    c->vk.vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, mb ? 1 : 0, mb, 0, NULL, 1, &ib);
}

/* Binds and dispatches over w x h invocations, the image made writable
 * first (its old contents dropped; earlier reads of it finish first). */
static void dispatch(vxr_renderer *r, vxr_target *t, const vxr_push *p, VkPipeline pipeline,
                     uint32_t w, uint32_t h, VkCommandBuffer cmd) {
    vxr_context *c = r->ctx;
    /* and the pick records: earlier shader writes land before these */
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT};
    image_barrier(c, cmd, t->image,
                  VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                  VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, &mb);
    c->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    VkDescriptorSet sets[2];
    sets[VXR_SET_SCENE] = r->set;
    sets[VXR_SET_TARGET] = t->set;
    c->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, c->pipeline_layout, 0, 2,
                                  sets, 0, NULL);
    c->vk.vkCmdPushConstants(cmd, c->pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof *p, p);
    c->vk.vkCmdDispatch(cmd, (w + r->spec.local_x - 1) / r->spec.local_x,
                        (h + r->spec.local_y - 1) / r->spec.local_y, 1);
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
                               VkCommandBuffer cmd, vxr_error *err) {
    vxr_context *c = r->ctx;
    if (cam->width != t->width || cam->height != t->height)
        return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                            "the camera is %ux%u, the target %ux%u: they must be equal", cam->width,
                            cam->height, t->width, t->height);
    if (!(cam->tan_half_fov > 0.0f))
        return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                            "the camera has no field of view: call vxr_camera_setup first");
    vxr_push p;
    VkPipeline pipeline;
    vxr_result res =
        begin(r, t, grid, t->has_picks ? VXR_MODE_PICKS : VXR_MODE_FRAME, &p, &pipeline, err);
    if (res != VXR_OK) return res;
    memcpy(p.eye, cam->eye, sizeof p.eye);
    memcpy(p.forward, cam->forward, sizeof p.forward);
    memcpy(p.right, cam->right, sizeof p.right);
    memcpy(p.up, cam->up, sizeof p.up);
    p.tan_half_fov = cam->tan_half_fov;
    p.aspect = cam->aspect;
    dispatch(r, t, &p, pipeline, t->width, t->height, cmd);

    const VkImageLayout copied = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    image_barrier(c, cmd, t->image, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                  VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_GENERAL,
                  t->readback.buffer ? copied : VK_IMAGE_LAYOUT_GENERAL, NULL);
    if (t->readback.buffer) {
        VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                    .imageExtent = {t->width, t->height, 1}};
        c->vk.vkCmdCopyImageToBuffer(cmd, t->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                     t->readback.buffer, 1, &region);
        /* back to GENERAL, still readable by later transfers */
        image_barrier(c, cmd, t->image, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                      VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, copied,
                      VK_IMAGE_LAYOUT_GENERAL, NULL);
        VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                              .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
        c->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                                   0, 1, &mb, 0, NULL, 0, NULL);
    }
    if (t->has_picks) picks_to_host(c, cmd);
    return VXR_OK;
}

void vxr_target_blit(vxr_target *t, VkImage dst, VkImageLayout dst_layout, VkCommandBuffer cmd) {
    vxr_context *c = t->ctx;
    const VkPipelineStageFlags transfer = VK_PIPELINE_STAGE_TRANSFER_BIT;
    const VkImageLayout from = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    image_barrier(c, cmd, dst, transfer, 0, transfer, VK_ACCESS_TRANSFER_WRITE_BIT, dst_layout,
                  VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, NULL);
    /* the render made its writes available to transfers; GENERAL again after */
    image_barrier(c, cmd, t->image, transfer, 0, transfer, VK_ACCESS_TRANSFER_READ_BIT,
                  VK_IMAGE_LAYOUT_GENERAL, from, NULL);
    int32_t w = (int32_t)t->width, h = (int32_t)t->height;
    VkImageBlit blit = {.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                        .srcOffsets = {{0, 0, 0}, {w, h, 1}},
                        .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                        .dstOffsets = {{0, 0, 0}, {w, h, 1}}};
    c->vk.vkCmdBlitImage(cmd, t->image, from, dst, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit,
                         VK_FILTER_NEAREST);
    image_barrier(c, cmd, t->image, transfer, 0, transfer, VK_ACCESS_TRANSFER_READ_BIT, from,
                  VK_IMAGE_LAYOUT_GENERAL, NULL);
}

/* Rays go in rows of this many invocations (a multiple of the workgroup
 * width), so that a large batch fills whole workgroups. */
#define RAY_ROW 128u

vxr_result vxr_renderer_pick_rays(vxr_renderer *r, vxr_rays *q, uint32_t count, uint32_t grid,
                                  VkCommandBuffer cmd, vxr_error *err) {
    vxr_target *t = q->t;
    if (count < 1 || count > t->capacity)
        return vxr_ctx_fail(r->ctx, err, VXR_ERROR_ARGUMENT,
                            "%u rays: a pick takes 1 to the batch's capacity of %u", count,
                            t->capacity);
    vxr_push p;
    VkPipeline pipeline;
    vxr_result res = begin(r, t, grid, VXR_MODE_RAYS, &p, &pipeline, err);
    if (res != VXR_OK) return res;
    p.width = count < RAY_ROW ? count : RAY_ROW;
    p.height = (count + RAY_ROW - 1) / RAY_ROW;
    p.ray_count = count;
    dispatch(r, t, &p, pipeline, p.width, p.height, cmd);
    picks_to_host(r->ctx, cmd);
    return VXR_OK;
}
