/* A scene on the GPU: the blob's sections in storage buffers (large ones
 * split over several bindings), the picker's instance hierarchy, and the
 * compute pipeline specialised for the scene's split and attribute size. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

enum { LOCAL_X = 8, LOCAL_Y = 8 };

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

static vxr_result upload(vxr_renderer *r, uint32_t b, const void *data, uint64_t bytes,
                         VkCommandBuffer cmd, vxr_error *err) {
    return upload_cap(r, b, data, bytes, bytes, cmd, err);
}

/* The picker's instance hierarchy into *dest, and what the shader needs
 * of it besides the buffers: its node count and the grid pads. */
static void take_hierarchy(vxr_renderer *r, const vxr_picker *picker, vxr_bvh *dest) {
    vxr_picker_bvh(picker, dest);
    r->bvh_nodes = dest->node_count;
    for (uint32_t level = 0; level < 21; level++)
        r->grid_pad[level] = vxr_picker_grid_pad(picker, 1u << level);
}

/* Uploads count elements of elem bytes split into chunks of 2^shift, to
 * bindings first .. first + chunks - 1. */
static vxr_result upload_split(vxr_renderer *r, uint32_t first, const uint8_t *data, uint64_t count,
                               uint32_t elem, uint32_t shift, VkCommandBuffer cmd, vxr_error *err) {
    uint64_t per = 1ull << shift;
    uint32_t chunks = chunk_count(count, shift);
    for (uint32_t i = 0; i < chunks; i++) {
        uint64_t at = (uint64_t)i * per, n = count - at < per ? count - at : per;
        vxr_result res = upload(r, first + i, data + at * elem, n * elem, cmd, err);
        if (res != VXR_OK) return res;
    }
    return VXR_OK;
}

vxr_result vxr_renderer_pipeline(vxr_renderer *r, uint32_t grid_level, vxr_mode mode,
                                 VkPipeline *dest) {
    vxr_context *c = r->ctx;
    VkPipeline *p = &r->pipeline[grid_level][mode];
    if (!*p) {
        uint32_t spec[12];
        memcpy(spec, r->spec, sizeof spec);
        spec[9] = grid_level;
        spec[10] = mode != VXR_MODE_FRAME;
        spec[11] = mode == VXR_MODE_RAYS;
        VkSpecializationMapEntry map[12];
        for (uint32_t i = 0; i < 12; i++) map[i] = (VkSpecializationMapEntry){i, 4 * i, 4};
        VkSpecializationInfo si = {12, map, sizeof spec, spec};
        VkComputePipelineCreateInfo pi = {
            .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
            .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                      .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                      .module = c->module,
                      .pName = "main",
                      .pSpecializationInfo = &si},
            .layout = c->pipeline_layout};
        vxr_result res = vxr_vk_check(
            c, NULL, c->vk.vkCreateComputePipelines(c->device, VK_NULL_HANDLE, 1, &pi, NULL, p),
            "vkCreateComputePipelines");
        if (res != VXR_OK) return res;
    }
    *dest = *p;
    return VXR_OK;
}

static vxr_result create_set(vxr_renderer *r, vxr_error *err) {
    vxr_context *c = r->ctx;
    vxr_result res = VXR_OK;
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, VXR_SET_BINDINGS};
    VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = 1,
                                     .poolSizeCount = 1,
                                     .pPoolSizes = &ps};
    VXR_VK_TRY(c, err, c->vk.vkCreateDescriptorPool(c->device, &pi, NULL, &r->pool));
    VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = r->pool,
                                      .descriptorSetCount = 1,
                                      .pSetLayouts = &c->set_layout[0]};
    VXR_VK_TRY(c, err, c->vk.vkAllocateDescriptorSets(c->device, &ai, &r->set));
    VkWriteDescriptorSet w[VXR_SET_BINDINGS];
    for (uint32_t b = 0; b < VXR_SET_BINDINGS; b++) {
        VkFormat format = b == BIND_MODELS || b == BIND_INSTANCES || b == BIND_BVH
                              ? VK_FORMAT_R32G32B32A32_UINT
                          : b >= BIND_NODES && b < BIND_BATTR ? VK_FORMAT_R32G32_UINT
                                                              : VK_FORMAT_R32_UINT;
        if (r->buf[b].buffer) {
            VkBufferViewCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO,
                                         .buffer = r->buf[b].buffer,
                                         .format = format,
                                         .range = VK_WHOLE_SIZE};
            VXR_VK_TRY(c, err, c->vk.vkCreateBufferView(c->device, &vi, NULL, &r->view[b]));
        }
    }
    for (uint32_t b = 0; b < VXR_SET_BINDINGS; b++) {
        /* an unused chunk binding shows its section's first chunk */
        uint32_t src = b;
        if (!r->view[b])
            src = b >= BIND_ATTRS ? BIND_ATTRS : b >= BIND_BATTR ? BIND_BATTR : BIND_NODES;
        w[b] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                      .dstSet = r->set,
                                      .dstBinding = b,
                                      .descriptorCount = 1,
                                      .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER,
                                      .pTexelBufferView = &r->view[src]};
    }
    c->vk.vkUpdateDescriptorSets(c->device, VXR_SET_BINDINGS, w, 0, NULL);
fail:
    return res;
}

vxr_result vxr_renderer_create(vxr_context *c, const vxr_scene *s, VkCommandBuffer cmd,
                               vxr_renderer **dest, vxr_error *err) {
    *dest = NULL;
    vxr_renderer *r = calloc(1, sizeof *r);
    vxr_picker *picker = NULL;
    uint8_t *blob = NULL;
    if (!r) return vxr_ctx_fail(c, err, VXR_ERROR_MEMORY, "out of memory");
    r->ctx = c;
    vxr_result res = vxr_picker_create(s, &picker);
    size_t blob_size = vxr_scene_blob_size(s);
    if (res == VXR_OK && !(blob = malloc(blob_size))) res = VXR_ERROR_MEMORY;
    if (res != VXR_OK) {
        res = vxr_ctx_fail(c, err, res, "out of memory");
        goto fail;
    }
    vxr_scene_write_blob(s, blob);
    vxr_blob_header h;
    memcpy(&h, blob, sizeof h);
    vxr_bvh bvh;
    take_hierarchy(r, picker, &bvh);
    uint64_t attr_bytes = 0;
    for (uint32_t i = 0; i < s->model_count; i++)
        attr_bytes += (uint64_t)s->models[i].voxel_count * s->attr_size;
    uint64_t attr_words = (attr_bytes + 3) / 4;

    /* Tables stay in one binding each; the octree sections may split. The
     * hierarchy's buffers have room for every instance: updates reuse them. */
    const uint64_t bvh_capacity = 2 * (uint64_t)(s->instance_count ? s->instance_count : 1);
    r->instance_count = s->instance_count;
    r->model_count = s->model_count;
    const uint64_t texels = c->props.limits.maxTexelBufferElements;
    const struct {
        const char *what;
        uint64_t texels;
    } tables[] = {{"instance table", (uint64_t)h.instance_count * sizeof(vxr_gpu_instance) / 16},
                  {"model table", (uint64_t)h.model_count * sizeof(vxr_gpu_model) / 16},
                  {"instance hierarchy", bvh_capacity * sizeof(vxr_gpu_bvh_node) / 16},
                  {"instance list", s->instance_count}};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (tables[i].texels > texels) {
            res = vxr_ctx_fail(c, err, VXR_ERROR_LIMIT,
                               "the scene's %s needs %llu texels, more than one binding's %llu",
                               tables[i].what, (unsigned long long)tables[i].texels,
                               (unsigned long long)texels);
            goto fail;
        }
    const uint32_t node_shift = chunk_shift(c->max_binding, sizeof(vxr_node), texels),
                   battr_shift = chunk_shift(c->max_binding, 4, texels),
                   attr_shift = chunk_shift(c->max_binding, 4, texels);
    const struct {
        const char *what;
        uint64_t count;
        uint32_t elem, shift, bindings;
    } split[] = {
        {"octree nodes", h.node_count, sizeof(vxr_node), node_shift, BIND_BATTR - BIND_NODES},
        {"brick attribute bases", h.brick_count, 4, battr_shift, BIND_ATTRS - BIND_BATTR},
        {"voxel attributes", attr_words, 4, attr_shift, VXR_SET_BINDINGS - BIND_ATTRS}};
    for (size_t i = 0; i < 3; i++)
        if (chunk_count(split[i].count, split[i].shift) > split[i].bindings) {
            res = vxr_ctx_fail(c, err, VXR_ERROR_LIMIT,
                               "the scene's %s need %llu bytes, more than %u bindings of %llu",
                               split[i].what, (unsigned long long)(split[i].count * split[i].elem),
                               split[i].bindings, (unsigned long long)c->max_binding);
            goto fail;
        }

    if ((res = upload(r, BIND_MODELS, blob + h.models_offset,
                      (uint64_t)h.model_count * sizeof(vxr_gpu_model), cmd, err)) ||
        (res = upload(r, BIND_INSTANCES, blob + h.instances_offset,
                      (uint64_t)h.instance_count * sizeof(vxr_gpu_instance), cmd, err)) ||
        (res = upload(r, BIND_PALETTE, blob + h.palette_offset, VXR_PALETTE_SIZE * 4, cmd, err)) ||
        (res =
             upload_cap(r, BIND_BVH, bvh.nodes, (uint64_t)bvh.node_count * sizeof(vxr_gpu_bvh_node),
                        bvh_capacity * sizeof(vxr_gpu_bvh_node), cmd, err)) ||
        (res = upload_cap(r, BIND_ITEMS, bvh.items, (uint64_t)bvh.item_count * 4,
                          (uint64_t)s->instance_count * 4, cmd, err)) ||
        (res = upload_split(r, BIND_NODES, blob + h.nodes_offset, h.node_count, sizeof(vxr_node),
                            node_shift, cmd, err)) ||
        (res = upload_split(r, BIND_BATTR, blob + h.brick_attr_offset, h.brick_count, 4,
                            battr_shift, cmd, err)) ||
        (res = upload_split(r, BIND_ATTRS, blob + h.attrs_offset, attr_words, 4, attr_shift, cmd,
                            err)))
        goto fail;
    bool staged = false;
    for (uint32_t b = 0; b < VXR_SET_BINDINGS; b++)
        staged |= r->staging[b].buffer != VK_NULL_HANDLE;
    if (staged) {
        VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                              .dstAccessMask = VK_ACCESS_SHADER_READ_BIT};
        c->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0,
                                   NULL);
    }
    const uint32_t spec[12] = {LOCAL_X,
                               LOCAL_Y,
                               chunk_count(h.node_count, node_shift),
                               node_shift,
                               chunk_count(h.brick_count, battr_shift),
                               battr_shift,
                               chunk_count(attr_words, attr_shift),
                               attr_shift,
                               s->attr_size,
                               0,
                               0,
                               0};
    memcpy(r->spec, spec, sizeof spec);
    /* the voxel pipeline now, so that a shader the device rejects shows here */
    VkPipeline pipeline;
    if ((res = create_set(r, err)) != VXR_OK ||
        (res = vxr_renderer_pipeline(r, 0, VXR_MODE_FRAME, &pipeline)) != VXR_OK) {
        if (res != VXR_OK && err && !err->message[0])
            vxr_ctx_fail(c, err, res, "vkCreateComputePipelines failed");
        goto fail;
    }
    free(blob);
    vxr_picker_destroy(picker);
    *dest = r;
    return VXR_OK;
fail:
    free(blob);
    vxr_picker_destroy(picker);
    vxr_renderer_destroy(r);
    return res;
}

/* Records a write of bytes at the start of binding b's buffer (which holds
 * them: sized at creation for every instance). vkCmdUpdateBuffer keeps the
 * data in the command buffer, so frames in flight keep reading theirs. */
static void update_binding(vxr_renderer *r, uint32_t b, const void *data, uint64_t bytes,
                           VkCommandBuffer cmd) {
    const uint8_t *p = data;
    for (uint64_t at = 0; at < bytes; at += 65536) {
        uint64_t n = bytes - at < 65536 ? bytes - at : 65536;
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
    vxr_picker *picker = NULL;
    size_t table = (size_t)s->instance_count * sizeof(vxr_gpu_instance);
    vxr_gpu_instance *inst = malloc(table ? table : 1);
    if (!inst || vxr_picker_create(s, &picker) != VXR_OK) {
        free(inst);
        return vxr_ctx_fail(c, err, VXR_ERROR_MEMORY, "out of memory");
    }
    for (uint32_t i = 0; i < s->instance_count; i++) vxr_instance_gpu(s, i, &inst[i]);
    vxr_bvh bvh;
    take_hierarchy(r, picker, &bvh);
    /* earlier reads of these buffers (frames already recorded or
     * submitted) before the writes; the writes before later reads */
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = 0,
                          .dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT};
    c->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                               VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    update_binding(r, BIND_INSTANCES, inst, table, cmd);
    update_binding(r, BIND_BVH, bvh.nodes, (uint64_t)bvh.node_count * sizeof(vxr_gpu_bvh_node),
                   cmd);
    update_binding(r, BIND_ITEMS, bvh.items, (uint64_t)bvh.item_count * 4, cmd);
    mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
    c->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                               VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    vxr_picker_destroy(picker);
    free(inst);
    return VXR_OK;
}

void vxr_renderer_upload_done(vxr_renderer *r) {
    for (uint32_t b = 0; b < VXR_SET_BINDINGS; b++) vxr_buf_destroy(r->ctx, &r->staging[b]);
}

void vxr_renderer_destroy(vxr_renderer *r) {
    if (!r) return;
    vxr_context *c = r->ctx;
    for (int level = 0; level < 21; level++)
        for (int mode = 0; mode < 3; mode++)
            if (r->pipeline[level][mode])
                c->vk.vkDestroyPipeline(c->device, r->pipeline[level][mode], NULL);
    if (r->pool) c->vk.vkDestroyDescriptorPool(c->device, r->pool, NULL);
    for (uint32_t b = 0; b < VXR_SET_BINDINGS; b++) {
        if (r->view[b]) c->vk.vkDestroyBufferView(c->device, r->view[b], NULL);
        vxr_buf_destroy(c, &r->buf[b]);
        vxr_buf_destroy(c, &r->staging[b]);
    }
    free(r);
}
