/* A scene on the GPU: the blob's sections in texel buffers (large ones
 * split over several bindings), the instance hierarchy of vxr/bvh.h, and
 * the specialisation of the compute pipeline for the scene's split and
 * attribute size. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "vxr/blob.h"
#include "vxr/bvh.h"

/* The workgroup: 8 x 8 pixels, a row being one SIMD vector on lavapipe. */
enum { LOCAL_X = 8, LOCAL_Y = 8 };
/* The most bytes one vkCmdUpdateBuffer takes. */
#define UPDATE_MAX 65536u

/* Elements per chunk: the largest power of two of elem-byte elements in one
 * binding of `limit` bytes and at most max_texels texels. */
static uint32_t chunk_shift(uint64_t limit, uint32_t elem, uint64_t max_texels) {
    uint64_t per = limit / elem;
    if (per > max_texels) per = max_texels;
    uint32_t shift = 0;
    while (shift < 31 && (2ull << shift) <= per) shift++;
    return shift;
}

static uint32_t chunk_count(uint64_t count, uint32_t shift) {
    uint64_t per = 1ull << shift;
    uint64_t n = (count + per - 1) / per;
    return n ? (uint32_t)(n > 0xffffffffu ? 0xffffffffu : n) : 1u;
}

/* Copies bytes into binding b's buffer of capacity bytes (>= bytes):
 * mapped device-local memory when there is some, else a staging buffer and
 * a copy recorded into cmd. */
static vxr_result upload_cap(vxr_renderer *r, uint32_t b, const void *data, uint64_t bytes,
                             uint64_t capacity, VkCommandBuffer cmd, vxr_error *err) {
    vxr_context *c = r->ctx;
    const VkMemoryPropertyFlags mapped = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                         VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    VkBufferUsageFlags usage =
        VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    vxr_result res = vxr_buf_create(c, capacity, usage,
                                    c->force_staging ? VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT : mapped,
                                    0, &r->buf[b], err);
    if (res != VXR_OK) return res;
    if (!c->force_staging && (r->buf[b].flags & mapped) == mapped) {
        if (bytes) memcpy(r->buf[b].map, data, bytes);
        return VXR_OK;
    }
    if (!cmd)
        return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                            "the scene must be staged: vxr_renderer_create needs a command buffer");
    res = vxr_buf_create(c, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, 0,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                         &r->staging[b], err);
    if (res != VXR_OK) return res;
    if (bytes) memcpy(r->staging[b].map, data, bytes);
    VkBufferCopy region = {0, 0, r->staging[b].size};
    c->vk.vkCmdCopyBuffer(cmd, r->staging[b].buffer, r->buf[b].buffer, 1, &region);
    return VXR_OK;
}

/* Uploads count elements of elem bytes split into chunks of 2^shift, to
 * bindings first .. first + chunks - 1. */
static vxr_result upload_split(vxr_renderer *r, uint32_t first, const uint8_t *data, uint64_t count,
                               uint32_t elem, uint32_t shift, VkCommandBuffer cmd, vxr_error *err) {
    uint64_t per = 1ull << shift;
    uint32_t chunks = chunk_count(count, shift);
    for (uint32_t i = 0; i < chunks; i++) {
        uint64_t at = (uint64_t)i * per, n = count - at < per ? count - at : per;
        vxr_result res = upload_cap(r, first + i, data + at * elem, n * elem, n * elem, cmd, err);
        if (res != VXR_OK) return res;
    }
    return VXR_OK;
}

/* The texel format of a binding of set 0 (vxr_layout.h). */
static VkFormat binding_format(uint32_t b) {
    if (b == VXR_BIND_MODELS || b == VXR_BIND_INSTANCES || b == VXR_BIND_BVH)
        return VK_FORMAT_R32G32B32A32_UINT;
    if (b >= VXR_BIND_NODES && b < VXR_BIND_NODES + VXR_NODE_CHUNKS) return VK_FORMAT_R32G32_UINT;
    return VK_FORMAT_R32_UINT;
}

/* The section a binding belongs to: its first binding. */
static uint32_t section_of(uint32_t b) {
    return b >= VXR_BIND_ATTRS   ? VXR_BIND_ATTRS
           : b >= VXR_BIND_BATTR ? VXR_BIND_BATTR
           : b >= VXR_BIND_NODES ? VXR_BIND_NODES
                                 : b;
}

static vxr_result create_set(vxr_renderer *r, vxr_error *err) {
    vxr_context *c = r->ctx;
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, VXR_SCENE_BINDINGS};
    vxr_result res = vxr_set_create(c, VXR_SET_SCENE, &ps, 1, &r->pool, &r->set, err);
    if (res != VXR_OK) return res;
    VkWriteDescriptorSet w[VXR_SCENE_BINDINGS];
    for (uint32_t b = 0; b < VXR_SCENE_BINDINGS; b++) {
        if (!r->buf[b].buffer) continue;
        VkBufferViewCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO,
                                     .buffer = r->buf[b].buffer,
                                     .format = binding_format(b),
                                     .range = VK_WHOLE_SIZE};
        VXR_VK_TRY(c, err, c->vk.vkCreateBufferView(c->device, &vi, NULL, &r->view[b]));
    }
    for (uint32_t b = 0; b < VXR_SCENE_BINDINGS; b++) {
        /* an unused chunk binding shows its section's first chunk */
        uint32_t src = r->view[b] ? b : section_of(b);
        w[b] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                      .dstSet = r->set,
                                      .dstBinding = b,
                                      .descriptorCount = 1,
                                      .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER,
                                      .pTexelBufferView = &r->view[src]};
    }
    c->vk.vkUpdateDescriptorSets(c->device, VXR_SCENE_BINDINGS, w, 0, NULL);
fail:
    return res;
}

/* What the shader needs of a hierarchy besides its buffers: its node
 * count and the grid pads. */
static void take_hierarchy(vxr_renderer *r, const vxr_bvh *bvh) {
    r->bvh_nodes = bvh->node_count;
    for (uint32_t level = 0; level < VXR_GRID_LEVELS; level++)
        r->grid_pad[level] = vxr_bvh_grid_pad(bvh, 1u << level);
}

/* Refuses scenes whose tables do not fit one binding or whose octree
 * sections need more chunks than the shader has bindings for; fills the
 * scene's part of r->spec. */
static vxr_result plan_bindings(vxr_renderer *r, const vxr_blob_header *h, uint64_t attr_words,
                                vxr_error *err) {
    vxr_context *c = r->ctx;
    const uint64_t texels = c->props.limits.maxTexelBufferElements;
    const struct {
        const char *what;
        uint64_t texels;
    } tables[] = {{"instance table", (uint64_t)h->instance_count * VXR_INSTANCE_TEXELS},
                  {"model table", (uint64_t)h->model_count * VXR_MODEL_TEXELS},
                  {"instance hierarchy", vxr_bvh_node_bound(h->instance_count) * VXR_BVH_TEXELS},
                  {"instance list", h->instance_count}};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (tables[i].texels > texels)
            return vxr_ctx_fail(c, err, VXR_ERROR_LIMIT,
                                "the scene's %s needs %llu texels, more than one binding's %llu",
                                tables[i].what, (unsigned long long)tables[i].texels,
                                (unsigned long long)texels);
    vxr_spec *s = &r->spec;
    s->local_x = LOCAL_X;
    s->local_y = LOCAL_Y;
    s->attr_size = h->attr_size;
    s->node_shift = chunk_shift(c->max_binding, sizeof(vxr_node), texels);
    s->battr_shift = chunk_shift(c->max_binding, sizeof(uint32_t), texels);
    s->attr_shift = chunk_shift(c->max_binding, sizeof(uint32_t), texels);
    s->node_chunks = chunk_count(h->node_count, s->node_shift);
    s->battr_chunks = chunk_count(h->brick_count, s->battr_shift);
    s->attr_chunks = chunk_count(attr_words, s->attr_shift);
    const struct {
        const char *what;
        uint64_t bytes;
        uint32_t chunks, bindings;
    } split[] = {
        {"octree nodes", (uint64_t)h->node_count * sizeof(vxr_node), s->node_chunks,
         VXR_NODE_CHUNKS},
        {"brick attribute bases", (uint64_t)h->brick_count * 4, s->battr_chunks, VXR_BATTR_CHUNKS},
        {"voxel attributes", attr_words * 4, s->attr_chunks, VXR_ATTR_CHUNKS}};
    for (size_t i = 0; i < sizeof split / sizeof split[0]; i++)
        if (split[i].chunks > split[i].bindings)
            return vxr_ctx_fail(c, err, VXR_ERROR_LIMIT,
                                "the scene's %s need %llu bytes, more than %u bindings of %llu",
                                split[i].what, (unsigned long long)split[i].bytes,
                                split[i].bindings, (unsigned long long)c->max_binding);
    return VXR_OK;
}

vxr_result vxr_renderer_create(vxr_context *c, const vxr_scene *s, VkCommandBuffer cmd,
                               vxr_renderer **dest, vxr_error *err) {
    *dest = NULL;
    vxr_renderer *r = calloc(1, sizeof *r);
    uint8_t *blob = NULL;
    vxr_bvh bvh = {0};
    if (!r) return vxr_ctx_fail(c, err, VXR_ERROR_MEMORY, "out of memory");
    r->ctx = c;
    r->instance_count = s->instance_count;
    r->model_count = s->model_count;
    vxr_result res = VXR_OK;
    if (!(blob = malloc(vxr_scene_blob_size(s)))) {
        res = vxr_ctx_fail(c, err, VXR_ERROR_MEMORY, "out of memory");
        goto fail;
    }
    vxr_scene_write_blob(s, blob);
    vxr_blob_header h;
    memcpy(&h, blob, sizeof h);
    /* the blob's instance section is the records the hierarchy is built from */
    if ((res = vxr_bvh_build(s, (const vxr_gpu_instance *)(blob + h.instances_offset), &bvh))) {
        vxr_ctx_fail(c, err, res, "the instance hierarchy: %s", vxr_result_string(res));
        goto fail;
    }
    take_hierarchy(r, &bvh);
    uint64_t attr_words = 0;
    for (uint32_t i = 0; i < s->model_count; i++)
        attr_words += (uint64_t)s->models[i].voxel_count * s->attr_size;
    attr_words = (attr_words + 3) / 4;
    if ((res = plan_bindings(r, &h, attr_words, err)) != VXR_OK) goto fail;

    /* Tables stay in one binding each; the octree sections may split. The
     * hierarchy's buffers have room for every instance: updates reuse them. */
    const vxr_spec *sp = &r->spec;
    if ((res = upload_cap(r, VXR_BIND_MODELS, blob + h.models_offset,
                          (uint64_t)h.model_count * sizeof(vxr_gpu_model),
                          (uint64_t)h.model_count * sizeof(vxr_gpu_model), cmd, err)) ||
        (res = upload_cap(r, VXR_BIND_INSTANCES, blob + h.instances_offset,
                          (uint64_t)h.instance_count * sizeof(vxr_gpu_instance),
                          (uint64_t)h.instance_count * sizeof(vxr_gpu_instance), cmd, err)) ||
        (res = upload_cap(r, VXR_BIND_PALETTE, blob + h.palette_offset, VXR_PALETTE_SIZE * 4,
                          VXR_PALETTE_SIZE * 4, cmd, err)) ||
        (res = upload_cap(
             r, VXR_BIND_BVH, bvh.nodes, (uint64_t)bvh.node_count * sizeof(vxr_gpu_bvh_node),
             vxr_bvh_node_bound(s->instance_count) * sizeof(vxr_gpu_bvh_node), cmd, err)) ||
        (res = upload_cap(r, VXR_BIND_ITEMS, bvh.items, (uint64_t)bvh.item_count * 4,
                          (uint64_t)s->instance_count * 4, cmd, err)) ||
        (res = upload_split(r, VXR_BIND_NODES, blob + h.nodes_offset, h.node_count,
                            sizeof(vxr_node), sp->node_shift, cmd, err)) ||
        (res = upload_split(r, VXR_BIND_BATTR, blob + h.brick_attr_offset, h.brick_count, 4,
                            sp->battr_shift, cmd, err)) ||
        (res = upload_split(r, VXR_BIND_ATTRS, blob + h.attrs_offset, attr_words, 4, sp->attr_shift,
                            cmd, err)))
        goto fail;
    bool staged = false;
    for (uint32_t b = 0; b < VXR_SCENE_BINDINGS; b++)
        staged |= r->staging[b].buffer != VK_NULL_HANDLE;
    if (staged) {
        VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                              .dstAccessMask = VK_ACCESS_SHADER_READ_BIT};
        c->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0,
                                   NULL);
    }
    /* the voxel pipeline now, so that a shader the device rejects shows here */
    VkPipeline pipeline;
    if ((res = create_set(r, err)) != VXR_OK ||
        (res = vxr_renderer_pipeline(r, 0, VXR_MODE_FRAME, &pipeline, err)) != VXR_OK)
        goto fail;
    free(blob);
    vxr_bvh_free(&bvh);
    *dest = r;
    return VXR_OK;
fail:
    free(blob);
    vxr_bvh_free(&bvh);
    vxr_renderer_destroy(r);
    return res;
}

/* Records a write of bytes at the start of binding b's buffer (which holds
 * them: sized at creation for every instance). vkCmdUpdateBuffer keeps the
 * data in the command buffer, so frames in flight keep reading theirs. */
static void update_binding(vxr_renderer *r, uint32_t b, const void *data, uint64_t bytes,
                           VkCommandBuffer cmd) {
    const uint8_t *p = data;
    for (uint64_t at = 0; at < bytes; at += UPDATE_MAX) {
        uint64_t n = bytes - at < UPDATE_MAX ? bytes - at : UPDATE_MAX;
        r->ctx->vk.vkCmdUpdateBuffer(cmd, r->buf[b].buffer, at, n, p + at);
    }
}

vxr_result vxr_renderer_update_instances(vxr_renderer *r, const vxr_scene *s, VkCommandBuffer cmd,
                                         vxr_error *err) {
    vxr_context *c = r->ctx;
    if (!cmd || s->instance_count != r->instance_count || s->model_count != r->model_count)
        return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                            "instance update: needs a command buffer and the scene the renderer "
                            "was created from");
    size_t table = (size_t)s->instance_count * sizeof(vxr_gpu_instance);
    vxr_gpu_instance *records = malloc(table ? table : 1);
    if (!records) return vxr_ctx_fail(c, err, VXR_ERROR_MEMORY, "out of memory");
    vxr_instance_records(s, records);
    vxr_bvh bvh;
    vxr_result res = vxr_bvh_build(s, records, &bvh);
    if (res != VXR_OK) {
        free(records);
        return vxr_ctx_fail(c, err, res, "the instance hierarchy: %s", vxr_result_string(res));
    }
    take_hierarchy(r, &bvh);
    /* earlier reads of these buffers (frames already recorded or
     * submitted) before the writes; the writes before later reads */
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = 0,
                          .dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT};
    c->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                               VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    update_binding(r, VXR_BIND_INSTANCES, records, table, cmd);
    update_binding(r, VXR_BIND_BVH, bvh.nodes, (uint64_t)bvh.node_count * sizeof(vxr_gpu_bvh_node),
                   cmd);
    update_binding(r, VXR_BIND_ITEMS, bvh.items, (uint64_t)bvh.item_count * 4, cmd);
    mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
    c->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                               VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    vxr_bvh_free(&bvh);
    free(records);
    return VXR_OK;
}

void vxr_renderer_upload_done(vxr_renderer *r) {
    for (uint32_t b = 0; b < VXR_SCENE_BINDINGS; b++) vxr_buf_destroy(r->ctx, &r->staging[b]);
}

void vxr_renderer_destroy(vxr_renderer *r) {
    if (!r) return;
    vxr_context *c = r->ctx;
    vxr_renderer_pipelines_destroy(r);
    if (r->pool) c->vk.vkDestroyDescriptorPool(c->device, r->pool, NULL);
    for (uint32_t b = 0; b < VXR_SCENE_BINDINGS; b++) {
        if (r->view[b]) c->vk.vkDestroyBufferView(c->device, r->view[b], NULL);
        vxr_buf_destroy(c, &r->buf[b]);
        vxr_buf_destroy(c, &r->staging[b]);
    }
    free(r);
}
