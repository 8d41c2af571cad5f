/* Offscreen targets (the colour image, the pick records, the readback copy,
 * the beam pre-pass's distances) and ray batches. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static vxr_result create_image(vxr_target *t, vxr_error *err) {
    vxr_context *c = t->ctx;
    vxr_result res = VXR_OK;
    VkImageCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
                            .imageType = VK_IMAGE_TYPE_2D,
                            .format = VK_FORMAT_R8G8B8A8_UNORM,
                            .extent = {t->width, t->height, 1},
                            .mipLevels = 1,
                            .arrayLayers = 1,
                            .samples = VK_SAMPLE_COUNT_1_BIT,
                            .tiling = VK_IMAGE_TILING_OPTIMAL,
                            .usage = VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                                     VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                            .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
                            .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
    VXR_VK_TRY(c, err, c->vk.vkCreateImage(c->device, &ii, c->alloc, &t->image));
    vxr_name(c, VK_OBJECT_TYPE_IMAGE, (uint64_t)t->image, "vxr target image %ux%u", t->width,
             t->height);
    res = vxr_image_memory(c, t->image, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &t->image_memory,
                           err);
    if (res != VXR_OK) goto fail;
    VkImageViewCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
                                .image = t->image,
                                .viewType = VK_IMAGE_VIEW_TYPE_2D,
                                .format = VK_FORMAT_R8G8B8A8_UNORM,
                                .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    VXR_VK_TRY(c, err, c->vk.vkCreateImageView(c->device, &vi, c->alloc, &t->view));
fail:
    return res;
}

static vxr_result create_set(vxr_target *t, vxr_error *err) {
    vxr_context *c = t->ctx;
    enum { BUFFERS = VXR_TARGET_BINDINGS - 1 };
    VkDescriptorPoolSize ps[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1},
                                  {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, BUFFERS}};
    vxr_result res = vxr_set_create(c, VXR_SET_TARGET, ps, 2, &t->pool, &t->set, err);
    if (res != VXR_OK) return res;
    VkDescriptorImageInfo ii = {VK_NULL_HANDLE, t->view, VK_IMAGE_LAYOUT_GENERAL};
    /* a frame's shader never reads rays: its picks stand in */
    VkDescriptorBufferInfo bi[BUFFERS] = {
        {t->picks.buffer, 0, VK_WHOLE_SIZE},
        {t->rays.buffer ? t->rays.buffer : t->picks.buffer, 0, VK_WHOLE_SIZE},
        {t->depth.buffer, 0, VK_WHOLE_SIZE},
        {t->beam.buffer, 0, VK_WHOLE_SIZE},
        {t->frame.buffer, 0, VK_WHOLE_SIZE},
        {t->accum.buffer, 0, VK_WHOLE_SIZE},
        {t->aovs.buffer, 0, VK_WHOLE_SIZE},
        {t->denoise.buffer, 0, VK_WHOLE_SIZE},
        {t->tiles.buffer, 0, VK_WHOLE_SIZE}};
    static const uint32_t binding[BUFFERS] = {VXR_BIND_PICKS, VXR_BIND_RAYS,    VXR_BIND_DEPTH,
                                              VXR_BIND_BEAM,  VXR_BIND_FRAME,   VXR_BIND_ACCUM,
                                              VXR_BIND_AOV,   VXR_BIND_DENOISE, VXR_BIND_TILES};
    VkWriteDescriptorSet w[VXR_TARGET_BINDINGS];
    for (int k = 0; k < VXR_TARGET_BINDINGS; k++)
        w[k] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                      .dstSet = t->set,
                                      .dstBinding = k ? binding[k - 1] : VXR_BIND_IMAGE,
                                      .descriptorCount = 1,
                                      .descriptorType = k ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
                                                          : VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                                      .pImageInfo = k ? NULL : &ii,
                                      .pBufferInfo = k ? &bi[k - 1] : NULL};
    c->vk.vkUpdateDescriptorSets(c->device, VXR_TARGET_BINDINGS, w, 0, NULL);
    return VXR_OK;
}

/* A target of w x h pixels with `records` pick records (0: none) and, for
 * a ray batch, room for `rays` rays; d (may be NULL) says the rest. */
static vxr_result make_target(vxr_context *c, uint32_t w, uint32_t h, uint64_t records,
                              uint32_t rays, const vxr_target_desc *d, vxr_target **dest,
                              vxr_error *err) {
    *dest = NULL;
    bool readback = d && d->readback, depth = d && d->depth, light = d && d->light,
         aovs = d && d->aovs;
    const uint64_t range = c->props.limits.maxStorageBufferRange;
    if ((depth && (uint64_t)w * h * 4 > range) ||
        (light && (uint64_t)w * h * 4 * VXR_ACCUM_FLOATS > range) ||
        (aovs && (uint64_t)w * h * 4 * VXR_AOV_FLOATS > range) ||
        (aovs && (uint64_t)w * h * 4 * VXR_DENOISE_FLOATS > range))
        return vxr_ctx_fail(c, err, VXR_ERROR_LIMIT,
                            "%ux%u pixels of %s exceed one storage binding (%llu bytes)", w, h,
                            aovs    ? "outputs"
                            : light ? "light sums"
                                    : "depth",
                            (unsigned long long)range);
    if (records * sizeof(vxr_gpu_pick) > c->props.limits.maxStorageBufferRange)
        return vxr_ctx_fail(c, err, VXR_ERROR_LIMIT, "%llu pick records exceed one storage binding",
                            (unsigned long long)records);
    vxr_target *t = calloc(1, sizeof *t);
    if (!t) return vxr_ctx_fail(c, err, VXR_ERROR_MEMORY, "out of memory");
    t->ctx = c;
    t->width = w;
    t->height = h;
    t->has_picks = records > 0;
    t->capacity = rays;
    t->has_depth = depth;
    t->has_light = light || aovs;
    t->has_aovs = aovs;
    if (d) {
        t->x = d->x;
        t->y = d->y;
    }
    const VkMemoryPropertyFlags host =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    vxr_result res = VXR_OK;
    if (d && d->image) {
        t->host_image = true;
        t->image = d->image;
        t->view = d->view;
    } else {
        res = create_image(t, err);
    }
    if (res == VXR_OK)
        res = vxr_buf_create(c, depth ? (VkDeviceSize)w * h * 4 : 16,
                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                 VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             readback ? VK_MEMORY_PROPERTY_HOST_CACHED_BIT
                                      : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                             readback && depth ? host : 0, &t->depth, err);
    if (res == VXR_OK)
        res = vxr_buf_create(c, (records ? records : 1) * sizeof(vxr_gpu_pick),
                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                             host, &t->picks, err);
    if (res == VXR_OK && rays)
        res = vxr_buf_create(c, (VkDeviceSize)rays * sizeof(vxr_ray),
                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, 0, host, &t->rays, err);
    /* the beam's distances: a float per tile, a 16-byte stand-in for a
     * batch or a context without the beam */
    t->tiles_x = (w + VXR_BEAM_TILE - 1) / VXR_BEAM_TILE;
    t->tiles_y = (h + VXR_BEAM_TILE - 1) / VXR_BEAM_TILE;
    if (res == VXR_OK)
        res = vxr_buf_create(c, c->beam && !rays ? (VkDeviceSize)t->tiles_x * t->tiles_y * 4 : 16,
                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                             VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &t->beam, err);
    /* the workgroups' list: written by each frame's commands */
    const bool listed = !c->beam && !rays;
    t->groups_x = (w + c->local_x - 1) / c->local_x;
    t->groups_y = (h + c->local_y - 1) / c->local_y;
    const size_t groups = (size_t)t->groups_x * t->groups_y;
    if (res == VXR_OK)
        res = vxr_buf_create(c, listed ? groups * 4 : 16,
                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &t->tiles, err);
    if (res == VXR_OK && listed &&
        (!(t->tile_list = malloc(groups * 4)) || !(t->tile_mark = calloc(groups, 1))))
        res = vxr_ctx_fail(c, err, VXR_ERROR_MEMORY, "out of memory");
    if (res == VXR_OK && readback)
        res = vxr_buf_create(c, (VkDeviceSize)w * h * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             VK_MEMORY_PROPERTY_HOST_CACHED_BIT, host, &t->readback, err);
    /* light frames: their data, the sums over frames, the outputs */
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    if (res == VXR_OK)
        res = vxr_buf_create(c, sizeof(vxr_gpu_frame), storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &t->frame, err);
    if (res == VXR_OK)
        res = vxr_buf_create(c, t->has_light ? (VkDeviceSize)w * h * 4 * VXR_ACCUM_FLOATS : 16,
                             storage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &t->accum, err);
    if (res == VXR_OK)
        res = vxr_buf_create(c, aovs ? (VkDeviceSize)w * h * 4 * VXR_AOV_FLOATS : 16,
                             storage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                             readback ? VK_MEMORY_PROPERTY_HOST_CACHED_BIT
                                      : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                             readback && aovs ? host : 0, &t->aovs, err);
    if (res == VXR_OK)
        res = vxr_buf_create(c, aovs ? (VkDeviceSize)w * h * 4 * VXR_DENOISE_FLOATS : 16, storage,
                             VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &t->denoise, err);
    if (res == VXR_OK) res = create_set(t, err);
    if (res != VXR_OK) {
        vxr_target_destroy(t);
        return res;
    }
    /* First touches now, not in the first timed frame or batch: on a CPU
     * driver, or wherever the host pages in mapped memory lazily, the first
     * write to each page costs more than tracing it (BENCHMARKS.md). The
     * memory is host-coherent, so the zeros need no flush. */
    const vxr_buf *mapped[] = {&t->depth, &t->picks, &t->rays, &t->readback, &t->beam, &t->aovs};
    for (size_t i = 0; i < sizeof mapped / sizeof mapped[0]; i++)
        if (mapped[i]->map) memset(mapped[i]->map, 0, mapped[i]->size);
    *dest = t;
    return VXR_OK;
}

vxr_result vxr_target_create(vxr_context *c, const vxr_target_desc *d, vxr_target **dest,
                             vxr_error *err) {
    *dest = NULL;
    if (!d || d->width < 1 || d->height < 1 || d->width > VXR_MAX_TARGET_SIZE ||
        d->height > VXR_MAX_TARGET_SIZE)
        return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT, "target size must be 1..%u per side",
                            VXR_MAX_TARGET_SIZE);
    if (d->image) {
        if (!d->view || d->format == VK_FORMAT_UNDEFINED)
            return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                                "target: a host image needs its view and format");
        if (d->readback)
            return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                                "target: readback is for vxr's own image, not the host's");
        if ((uint64_t)d->x + d->width > VXR_MAX_TARGET_SIZE ||
            (uint64_t)d->y + d->height > VXR_MAX_TARGET_SIZE)
            return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                                "target: the rectangle (%u, %u) + %ux%u ends beyond %u", d->x, d->y,
                                d->width, d->height, VXR_MAX_TARGET_SIZE);
    } else if (d->x || d->y) {
        return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                            "target: a rectangle corner needs a host image");
    }
    uint64_t pixels = (uint64_t)d->width * d->height;
    return make_target(c, d->width, d->height, d->picks ? pixels : 0, 0, d, dest, err);
}

vxr_result vxr_rays_create(vxr_context *c, uint32_t capacity, vxr_rays **dest, vxr_error *err) {
    *dest = NULL;
    if (capacity < 1 || capacity > VXR_MAX_RAYS)
        return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT, "a ray batch holds 1..%u rays",
                            VXR_MAX_RAYS);
    vxr_rays *q = calloc(1, sizeof *q);
    if (!q) return vxr_ctx_fail(c, err, VXR_ERROR_MEMORY, "out of memory");
    vxr_result res = make_target(c, 1, 1, capacity, capacity, NULL, &q->t, err);
    if (res == VXR_OK)
        *dest = q;
    else
        free(q);
    return res;
}

void vxr_rays_destroy(vxr_rays *q) {
    if (!q) return;
    vxr_target_destroy(q->t);
    free(q);
}

vxr_ray *vxr_rays_input(vxr_rays *q) {
    return q->t->rays.map;
}

const vxr_gpu_pick *vxr_rays_picks(const vxr_rays *q) {
    return q->t->picks.map;
}

void vxr_target_destroy(vxr_target *t) {
    if (!t) return;
    vxr_context *c = t->ctx;
    if (t->pool) c->vk.vkDestroyDescriptorPool(c->device, t->pool, c->alloc);
    if (t->view && !t->host_image) c->vk.vkDestroyImageView(c->device, t->view, c->alloc);
    if (t->image && !t->host_image) c->vk.vkDestroyImage(c->device, t->image, c->alloc);
    vxr_buf_destroy(c, &t->depth);
    vxr_memory_free(c, &t->image_memory);
    vxr_buf_destroy(c, &t->picks);
    vxr_buf_destroy(c, &t->readback);
    vxr_buf_destroy(c, &t->rays);
    vxr_buf_destroy(c, &t->beam);
    vxr_buf_destroy(c, &t->frame);
    vxr_buf_destroy(c, &t->accum);
    vxr_buf_destroy(c, &t->aovs);
    vxr_buf_destroy(c, &t->denoise);
    vxr_buf_destroy(c, &t->tiles);
    free(t->tile_list);
    free(t->tile_mark);
    free(t);
}

VkImage vxr_target_image(const vxr_target *t) {
    return t->image;
}

VkImageView vxr_target_view(const vxr_target *t) {
    return t->view;
}

const float *vxr_target_depth(const vxr_target *t) {
    return t->has_depth && t->readback.buffer ? t->depth.map : NULL;
}

const uint32_t *vxr_target_colors(const vxr_target *t) {
    return t->readback.map;
}

const vxr_gpu_pick *vxr_target_picks(const vxr_target *t) {
    return t->has_picks ? t->picks.map : NULL;
}

const float *vxr_target_aovs(const vxr_target *t) {
    return t->has_aovs && t->readback.buffer ? t->aovs.map : NULL;
}

VkBuffer vxr_target_aov_buffer(const vxr_target *t) {
    return t->has_aovs ? t->aovs.buffer : VK_NULL_HANDLE;
}

uint32_t vxr_target_samples(const vxr_target *t) {
    return t->samples;
}
