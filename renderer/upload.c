/* A scene on the GPU: the model and instance tables, the palette, the
 * instance hierarchy of vxr/bvh.h and the octree sections in texel buffers
 * (large ones split over several bindings, each model in ranges of its
 * own: renderer/update.c), and the specialisation of the compute pipeline
 * for the scene's split and attribute size. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "vxr_light.h"
#include "vxr/bvh.h"

/* The most bytes one vkCmdUpdateBuffer takes. */
#define UPDATE_MAX 65536u

/* Copies bytes into binding b's buffer of capacity bytes (>= bytes):
 * mapped device-local memory when there is some, else a staging buffer and
 * a copy recorded into cmd. */
static vxr_result upload_cap(vxr_renderer *r, uint32_t b, const void *data, uint64_t bytes,
                             uint64_t capacity, VkCommandBuffer cmd, vxr_error *err) {
    vxr_context *c = r->ctx;
    const VkMemoryPropertyFlags mapped = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                         VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    /* transfers both ways: updates write it and move models out of it */
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |
                               VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
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
    uint32_t chunks = vxr_chunk_count(count, shift);
    for (uint32_t i = 0; i < chunks; i++) {
        uint64_t at = (uint64_t)i * per, n = count - at < per ? count - at : per;
        vxr_result res = upload_cap(r, first + i, data + at * elem, n * elem, n * elem, cmd, err);
        if (res != VXR_OK) return res;
    }
    return VXR_OK;
}

/* The scene's shape, without allocating: refuses tables and sections that
 * do not fit; sets up the sections (chunk sizes, capacities with room to
 * grow when a model is live) and the scene's part of r->spec, which picks
 * the pipelines. */
static vxr_result plan_shape(vxr_renderer *r, const vxr_scene *s, vxr_error *err) {
    vxr_context *c = r->ctx;
    const uint64_t texels = c->props.limits.maxTexelBufferElements;
    const struct {
        const char *what;
        uint64_t texels;
    } tables[] = {{"instance table", (uint64_t)s->instance_count * VXR_INSTANCE_TEXELS},
                  {"model table", (uint64_t)s->model_count * VXR_MODEL_TEXELS},
                  {"instance hierarchy", vxr_bvh_node_bound(s->instance_count) * VXR_BVH_TEXELS},
                  {"instance list", s->instance_count}};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (tables[i].texels > texels)
            return vxr_ctx_fail(c, err, VXR_ERROR_LIMIT,
                                "the scene's %s needs %llu texels, more than one binding's %llu",
                                tables[i].what, (unsigned long long)tables[i].texels,
                                (unsigned long long)texels);
    /* room to add models and instances without a new table */
    uint64_t models = s->model_count + s->model_count / 4 + 4,
             instances = s->instance_count + s->instance_count / 4 + 4;
    if (models * VXR_MODEL_TEXELS > texels) models = s->model_count;
    if (vxr_bvh_node_bound((uint32_t)(instances > UINT32_MAX ? UINT32_MAX : instances)) *
            VXR_BVH_TEXELS >
        texels)
        instances = s->instance_count;
    r->model_cap = (uint32_t)models;
    r->instance_cap = (uint32_t)instances;
    static const uint32_t first[VXR_SECTIONS] = {VXR_BIND_NODES, VXR_BIND_BATTR, VXR_BIND_ATTRS,
                                                 VXR_BIND_COLORS, VXR_BIND_WIDE},
                          bindings[VXR_SECTIONS] = {VXR_NODE_CHUNKS, VXR_BATTR_CHUNKS,
                                                    VXR_ATTR_CHUNKS, VXR_COLOR_CHUNKS,
                                                    VXR_WIDE_CHUNKS},
                          elem[VXR_SECTIONS] = {sizeof(vxr_node), 4, 4, 4, sizeof(vxr_wide_node)};
    for (int k = 0; k < VXR_SECTIONS; k++)
        r->sec[k] = (vxr_section){
            first[k], bindings[k], elem[k], vxr_chunk_shift(c->max_binding, elem[k], texels),
            0,        NULL,        0,       0};
    vxr_spec *sp = &r->spec;
    sp->local_x = c->local_x; /* the context's choice (context.c) */
    sp->local_y = c->local_y;
    sp->attr_size = s->attr_size;
    sp->node_shift = r->sec[VXR_SEC_NODES].shift;
    sp->battr_shift = r->sec[VXR_SEC_BATTR].shift;
    sp->attr_shift = r->sec[VXR_SEC_ATTRS].shift;
    sp->color_shift = r->sec[VXR_SEC_COLORS].shift;
    sp->wide_shift = r->sec[VXR_SEC_WIDE].shift;
    uint64_t total[VXR_SECTIONS] = {0};
    bool live = false;
    for (uint32_t i = 0; i < s->model_count; i++) {
        uint64_t need[VXR_SECTIONS];
        vxr_model_needs(r, &s->models[i], need);
        live |= s->models[i].live != NULL;
        for (int k = 0; k < VXR_SECTIONS; k++)
            total[k] += vxr_range_size(&s->models[i], k, need[k]);
    }
    static const char *what[VXR_SECTIONS] = {"octree nodes", "brick attribute bases",
                                             "voxel attributes", "node colours", "wide nodes"};
    if (total[VXR_SEC_WIDE] > vxr_section_limit(&r->sec[VXR_SEC_WIDE], VXR_SEC_WIDE)) {
        r->wide_off = true; /* the octree walk, which needs no wide nodes */
        total[VXR_SEC_WIDE] = 0;
    }
    for (int k = 0; k < VXR_SECTIONS; k++) {
        vxr_section *sec = &r->sec[k];
        uint64_t limit = vxr_section_limit(sec, k);
        if (total[k] > limit)
            return vxr_ctx_fail(c, err, VXR_ERROR_LIMIT,
                                "the scene's %s need %llu bytes, more than %u bindings of %llu",
                                what[k], (unsigned long long)(total[k] * sec->elem), sec->bindings,
                                (unsigned long long)c->max_binding);
        uint64_t cap = total[k] + (live ? total[k] / 4 + 4096 : 0);
        sec->capacity = cap < limit ? cap : limit;
        if (sec->capacity == 0) sec->capacity = 1;
    }
    vxr_spec_chunks(r);
    vxr_spec_wide(r, s);
    return VXR_OK;
}

/* Places every model in the planned sections and writes their contents
 * into host arrays. */
static vxr_result place_models(vxr_renderer *r, const vxr_scene *s, void *host[VXR_SECTIONS],
                               vxr_error *err) {
    vxr_context *c = r->ctx;
    for (int k = 0; k < VXR_SECTIONS; k++) {
        vxr_section *sec = &r->sec[k];
        if (!(sec->free = malloc(sizeof *sec->free)) ||
            !(host[k] = calloc(sec->capacity, sec->elem)))
            return vxr_ctx_fail(c, err, VXR_ERROR_MEMORY, "out of memory");
        sec->free[0] = (vxr_range){0, sec->capacity};
        sec->free_count = sec->free_cap = 1;
    }
    for (uint32_t i = 0; i < s->model_count; i++) {
        const vxr_octree *m = &s->models[i];
        if (!vxr_resident_place(r, i, m))
            return vxr_ctx_fail(c, err, VXR_ERROR_MEMORY, "placing model %u", i);
        vxr_resident *res = &r->res[i];
        const vxr_wide_node *wide = NULL;
        if (!m->live && !r->wide_off && vxr_renderer_wide(r, s, i, &wide) != VXR_OK)
            return vxr_ctx_fail(c, err, VXR_ERROR_MEMORY, "the wide nodes of model %u", i);
        for (int k = 0; k < VXR_SECTIONS; k++)
            vxr_model_section(m, wide, s->palette, k, 0, res->used[k],
                              (uint8_t *)host[k] + res->base[k] * r->sec[k].elem);
        if (m->live) { /* the colours kept for its edits' updates (vxr_upload_colors) */
            uint64_t n = res->used[VXR_SEC_COLORS];
            if (!(res->colors = malloc((n ? n : 1) * 4)))
                return vxr_ctx_fail(c, err, VXR_ERROR_MEMORY, "out of memory");
            memcpy(res->colors, (uint32_t *)host[VXR_SEC_COLORS] + res->base[VXR_SEC_COLORS],
                   n * 4);
            res->color_count = n;
        }
        res->version = s->model_version[i];
        vxr_resident_occupancy(res, m);
        vxr_renderer_model_record(r, s, i, &r->model_rec[i]);
        vxr_renderer_grow_model(r, &r->model_rec[i]);
    }
    return VXR_OK;
}

vxr_result vxr_renderer_create(vxr_context *c, const vxr_scene *s, VkCommandBuffer cmd,
                               vxr_renderer **dest, vxr_error *err) {
    *dest = NULL;
    vxr_renderer *r = calloc(1, sizeof *r);
    void *host[VXR_SECTIONS] = {NULL};
    vxr_bvh bvh = {0};
    if (!r) return vxr_ctx_fail(c, err, VXR_ERROR_MEMORY, "out of memory");
    r->ctx = c;
    r->min_scale = INFINITY;
    r->scene = s;
    r->instance_count = s->instance_count;
    r->model_count = s->model_count;
    r->cursor = vxr_journal_end(s); /* the scene as it is now goes up whole */
    r->version = s->version;
    vxr_result res = plan_shape(r, s, err);
    if (res != VXR_OK) goto fail;
    r->res = calloc(r->model_cap, sizeof *r->res);
    r->model_rec = calloc(r->model_cap, sizeof *r->model_rec);
    r->inst_rec = calloc(r->instance_cap, sizeof *r->inst_rec);
    if (!r->res || !r->model_rec || !r->inst_rec) {
        res = vxr_ctx_fail(c, err, VXR_ERROR_MEMORY, "out of memory");
        goto fail;
    }
    res = place_models(r, s, host, err);
    vxr_renderer_wide_drop(r);
    if (res != VXR_OK) goto fail;
    vxr_instance_records(s, r->inst_rec);
    for (uint32_t i = 0; i < s->instance_count; i++) vxr_renderer_grow_instance(r, &r->inst_rec[i]);
    if ((res = vxr_bvh_build(s, r->inst_rec, &bvh))) {
        vxr_ctx_fail(c, err, res, "the instance hierarchy: %s", vxr_result_string(res));
        goto fail;
    }
    vxr_renderer_take_hierarchy(r, &bvh);

    /* The palette, its materials, the sRGB tables (vxr_layout.h). */
    uint32_t palette[VXR_PALETTE_WORDS];
    memcpy(palette, s->palette, sizeof s->palette);
    memcpy(palette + VXR_MATERIALS_AT, s->materials, sizeof s->materials);
    vxr_srgb_tables(palette + VXR_SRGB_AT);
    /* Tables stay in one binding each; the octree sections may split. */
    if ((res = upload_cap(r, VXR_BIND_MODELS, r->model_rec,
                          (uint64_t)s->model_count * sizeof(vxr_gpu_model),
                          (uint64_t)r->model_cap * sizeof(vxr_gpu_model), cmd, err)) ||
        (res = upload_cap(r, VXR_BIND_INSTANCES, r->inst_rec,
                          (uint64_t)s->instance_count * sizeof(vxr_gpu_instance),
                          (uint64_t)r->instance_cap * sizeof(vxr_gpu_instance), cmd, err)) ||
        (res =
             upload_cap(r, VXR_BIND_PALETTE, palette, sizeof palette, sizeof palette, cmd, err)) ||
        (res = upload_cap(
             r, VXR_BIND_BVH, bvh.nodes, (uint64_t)bvh.node_count * sizeof(vxr_gpu_bvh_node),
             vxr_bvh_node_bound(r->instance_cap) * sizeof(vxr_gpu_bvh_node), cmd, err)) ||
        (res = upload_cap(r, VXR_BIND_ITEMS, bvh.items, (uint64_t)bvh.item_count * 4,
                          (uint64_t)r->instance_cap * 4, cmd, err)))
        goto fail;
    float *still = malloc((size_t)r->instance_cap * 48);
    if (!still) {
        res = vxr_ctx_fail(c, err, VXR_ERROR_MEMORY, "out of memory");
        goto fail;
    }
    vxr_motion_identity(still, r->instance_cap);
    res = upload_cap(r, VXR_BIND_MOTION, still, (uint64_t)r->instance_cap * 48,
                     (uint64_t)r->instance_cap * 48, cmd, err);
    free(still);
    if (res != VXR_OK) goto fail;
    for (int k = 0; k < VXR_SECTIONS; k++)
        if ((res = upload_split(r, r->sec[k].first, host[k], r->sec[k].capacity, r->sec[k].elem,
                                r->sec[k].shift, cmd, err)))
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
    /* every flat pipeline now, unless the context is lazy */
    if ((res = vxr_renderer_bind(r, err)) != VXR_OK ||
        (res = vxr_renderer_pipelines_make(r, false, err)) != VXR_OK)
        goto fail;
    for (int k = 0; k < VXR_SECTIONS; k++) free(host[k]);
    vxr_renderer_keep_hierarchy(r, &bvh); /* updates refit it */
    *dest = r;
    return VXR_OK;
fail:
    for (int k = 0; k < VXR_SECTIONS; k++) free(host[k]);
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
    if (!cmd || s != r->scene || s->instance_count != r->instance_count ||
        s->model_count != r->model_count)
        return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                            "instance update: needs a command buffer and the scene the renderer "
                            "was created from");
    size_t table = (size_t)s->instance_count * sizeof(vxr_gpu_instance);
    vxr_gpu_instance *records = r->inst_rec;
    vxr_instance_records(s, records);
    for (uint32_t i = 0; i < s->instance_count; i++) vxr_renderer_grow_instance(r, &records[i]);
    vxr_bvh bvh;
    vxr_result res = vxr_bvh_build(s, records, &bvh);
    if (res != VXR_OK) {
        return vxr_ctx_fail(c, err, res, "the instance hierarchy: %s", vxr_result_string(res));
    }
    vxr_renderer_take_hierarchy(r, &bvh);
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
    vxr_renderer_keep_hierarchy(r, &bvh);                 /* vxr_renderer_update refits it */
    if (s->version > r->version) r->version = s->version; /* transforms as they are now */
    return VXR_OK;
}

vxr_result vxr_renderer_prepare(vxr_context *c, const vxr_scene *s, vxr_error *err) {
    vxr_renderer shape = {.ctx = c};
    vxr_result res = plan_shape(&shape, s, err);
    return res == VXR_OK ? vxr_renderer_pipelines_make(&shape, true, err) : res;
}

void vxr_renderer_upload_done(vxr_renderer *r) {
    for (uint32_t b = 0; b < VXR_SCENE_BINDINGS; b++) vxr_buf_destroy(r->ctx, &r->staging[b]);
}

void vxr_renderer_destroy(vxr_renderer *r) {
    if (!r) return;
    vxr_context *c = r->ctx;
    vxr_renderer_update_free(r);
    if (r->pool) c->vk.vkDestroyDescriptorPool(c->device, r->pool, c->alloc);
    for (uint32_t b = 0; b < VXR_SCENE_BINDINGS; b++) {
        if (r->view[b]) c->vk.vkDestroyBufferView(c->device, r->view[b], c->alloc);
        vxr_buf_destroy(c, &r->buf[b]);
        vxr_buf_destroy(c, &r->staging[b]);
    }
    for (int k = 0; k < VXR_SECTIONS; k++) free(r->sec[k].free);
    for (uint32_t i = 0; r->res && i < r->model_cap; i++) vxr_resident_drop_colors(&r->res[i]);
    free(r->res);
    free(r->wide);
    free(r->model_rec);
    free(r->inst_rec);
    free(r->moving);
    free(r);
}
