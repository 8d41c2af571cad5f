/* Recording shaders/trace.comp: a frame (after shaders/beam.comp's
 * pre-pass when the context has it), or a batch of rays. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "internal.h"
#include "vxr/bvh.h"

/* How far a level of detail k (0: none) lets the rays of a frame of cam
 * reach: the highest level at which a cube can stop one (vxr_bvh_lod_reach
 * from the eye; camera rays are unit), and how far the hierarchy's boxes
 * must be widened for it (vxr_bvh_lod_pad). The padding and the beam's
 * cells need go no further (pad: VXR_LOD_MAX_LEVEL's 55 voxels cost
 * terrain frames a third). Without a camera (ray batches):
 * VXR_LOD_MAX_LEVEL. */
typedef struct lod_reach {
    uint32_t level;
    float pad;
} lod_reach;

static lod_reach reach_of(const vxr_renderer *r, const vxr_camera *cam, float lod) {
    if (!(lod > 0.0f)) return (lod_reach){0, 0.0f};
    if (!cam || !r->bvh) return (lod_reach){VXR_LOD_MAX_LEVEL, r->grid_pad[VXR_LOD_MAX_LEVEL]};
    const bool fixed = cam->projection == VXR_PROJECTION_ORTHOGRAPHIC;
    return (lod_reach){vxr_bvh_lod_reach(r->bvh, r->min_scale, cam->eye, 1.0, lod, fixed),
                       vxr_bvh_lod_pad(r->bvh, r->min_scale, cam->eye, 1.0, lod, fixed)};
}

/* The push constants every dispatch shares (camera fields zero); lod, the
 * level of detail's k (0: none), reach its lod_reach. */
static vxr_result begin(vxr_renderer *r, vxr_target *t, uint32_t grid, float lod, lod_reach reach,
                        vxr_mode mode, vxr_push *p, VkPipeline *pipeline, vxr_error *err) {
    if (grid > VXR_MAX_GRID || (grid & (grid - 1)))
        return vxr_ctx_fail(r->ctx, err, VXR_ERROR_ARGUMENT,
                            "grid %u is not a power of two from 1 to %u", grid, VXR_MAX_GRID);
    if (!(lod >= 0.0f && lod < INFINITY))
        return vxr_ctx_fail(r->ctx, err, VXR_ERROR_ARGUMENT,
                            "level of detail %g: it must be 0 or more, and finite", (double)lod);
    if (lod < FLT_MIN) lod = 0.0f; /* as vxr_pick_ray_lod: no denormal footprints */
    if (r->pipes_due || r->rebind_due)
        return vxr_ctx_fail(r->ctx, err, VXR_ERROR_VULKAN,
                            "the last update failed before its buffers were bound and its "
                            "pipelines made: update again");
    memset(p, 0, sizeof *p);
    p->width = t->width;
    p->height = t->height;
    uint32_t level = grid > 1 ? (uint32_t)__builtin_ctz(grid) : 0;
    /* the hierarchy's boxes reach as far as a level of detail's cubes */
    if (lod == 0.0f) reach = (lod_reach){0, 0.0f};
    p->grid_pad = r->grid_pad[level] > reach.pad ? r->grid_pad[level] : reach.pad;
    p->grid_level = level | reach.level << VXR_REACH_SHIFT;
    p->bvh_nodes = r->bvh_nodes;
    p->lod = lod;
    p->flags = VXR_LOOP_PROBE << VXR_PROBE_SHIFT;
    p->magnitude = vxr_renderer_magnitude(r);
    if (!pipeline) return VXR_OK;
    if (lod > 0.0f) return vxr_lod_pipeline(r, level, true, mode, pipeline, err);
    return vxr_frame_pipeline(r, level, mode, pipeline, err);
}

/* A layout change of an image (and, when mb is not NULL, a memory
 * barrier), from work at src_stage with src access to work at dst_stage
 * with dst access. */
static void image_barrier(vxr_context *c, VkCommandBuffer cmd, VkImage image,
                          VkImageAspectFlags aspect, VkPipelineStageFlags src_stage,
                          VkAccessFlags src, VkPipelineStageFlags dst_stage, VkAccessFlags dst,
                          VkImageLayout from, VkImageLayout to, const VkMemoryBarrier *mb) {
    VkImageMemoryBarrier ib = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                               .srcAccessMask = src,
                               .dstAccessMask = dst,
                               .oldLayout = from,
                               .newLayout = to,
                               .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                               .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                               .image = image,
                               .subresourceRange = {aspect, 0, 1, 0, 1}};
    c->vk.vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, mb ? 1 : 0, mb, 0, NULL, 1, &ib);
}

static void memory_barrier(vxr_context *c, VkCommandBuffer cmd, VkPipelineStageFlags src_stage,
                           VkAccessFlags src, VkPipelineStageFlags dst_stage, VkAccessFlags dst) {
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = src, .dstAccessMask = dst};
    c->vk.vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &mb, 0, NULL, 0, NULL);
}

static const VkPipelineStageFlags COMPUTE = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
static const VkPipelineStageFlags TRANSFER = VK_PIPELINE_STAGE_TRANSFER_BIT;
static const VkPipelineStageFlags ALL = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
static const VkAccessFlags HOST_WRITES = VK_ACCESS_MEMORY_WRITE_BIT;
static const VkAccessFlags HOST_USES = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;

/* Binds for a dispatch. Earlier writes of the target's buffers (pick
 * records, depth: by shaders or copies) land before the dispatch reads or
 * writes them; earlier reads finish first. */
static void bind(vxr_renderer *r, vxr_target *t, const vxr_push *p, VkPipeline pipeline,
                 VkCommandBuffer cmd) {
    vxr_context *c = r->ctx;
    memory_barrier(c, cmd, COMPUTE | TRANSFER,
                   VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, COMPUTE,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    c->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    VkDescriptorSet sets[2];
    sets[VXR_SET_SCENE] = r->set;
    sets[VXR_SET_TARGET] = t->set;
    c->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, c->pipeline_layout, 0, 2,
                                  sets, 0, NULL);
    c->vk.vkCmdPushConstants(cmd, c->pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof *p, p);
}

/* Binds and dispatches over w x h invocations. */
static void dispatch(vxr_renderer *r, vxr_target *t, const vxr_push *p, VkPipeline pipeline,
                     uint32_t w, uint32_t h, VkCommandBuffer cmd) {
    bind(r, t, p, pipeline, cmd);
    r->ctx->vk.vkCmdDispatch(cmd, (w + r->spec.local_x - 1) / r->spec.local_x,
                             (h + r->spec.local_y - 1) / r->spec.local_y, 1);
}

/* Binds and dispatches workgroups g (none when g is empty). */
static void dispatch_groups(vxr_renderer *r, vxr_target *t, const vxr_push *p, VkPipeline pipeline,
                            vxr_groups g, VkCommandBuffer cmd) {
    if (g.x0 >= g.x1 || g.y0 >= g.y1) return;
    bind(r, t, p, pipeline, cmd);
    r->ctx->vk.vkCmdDispatchBase(cmd, g.x0, g.y0, 0, g.x1 - g.x0, g.y1 - g.y0, 1);
}

/* The workgroups of outer outside inner (at most four bands) by pipeline. */
static void dispatch_around(vxr_renderer *r, vxr_target *t, const vxr_push *p, vxr_groups outer,
                            vxr_groups inner, VkPipeline pipeline, VkCommandBuffer cmd) {
    vxr_groups g = inner;
    if (g.x0 < outer.x0) g.x0 = outer.x0;
    if (g.y0 < outer.y0) g.y0 = outer.y0;
    if (g.x1 > outer.x1) g.x1 = outer.x1;
    if (g.y1 > outer.y1) g.y1 = outer.y1;
    if (g.x0 >= g.x1 || g.y0 >= g.y1) g = (vxr_groups){outer.x0, outer.y0, outer.x0, outer.y0};
    const vxr_groups band[4] = {{outer.x0, outer.y0, outer.x1, g.y0},
                                {outer.x0, g.y1, outer.x1, outer.y1},
                                {outer.x0, g.y0, g.x0, g.y1},
                                {g.x1, g.y0, outer.x1, g.y1}};
    for (int k = 0; k < 4; k++) dispatch_groups(r, t, p, pipeline, band[k], cmd);
}

/* The workgroups of the target outside g by the miss pipeline. */
static void dispatch_misses(vxr_renderer *r, vxr_target *t, const vxr_push *p, vxr_groups g,
                            VkPipeline miss, VkCommandBuffer cmd) {
    const uint32_t lx = r->spec.local_x, ly = r->spec.local_y;
    const vxr_groups all = {0, 0, (t->width + lx - 1) / lx, (t->height + ly - 1) / ly};
    dispatch_around(r, t, p, all, g, miss, cmd);
}

/* A frame's workgroups: g, or (listed) the first `traced` of the
 * target's tile list (vxr_scene_tiles), the rest missing. */
typedef struct plan {
    vxr_groups g;
    bool listed;
    uint32_t traced, total;
    uint32_t part[3]; /* of the traced: in the odd, the coarse, the rest (vxr_scene_tiles) */
} plan;

/* Binds and dispatches the listed workgroups first .. first + count - 1:
 * workgroup (x, y) takes entry y VXR_TILE_ROW + x (trace.comp), in up to
 * three dispatches (a row's end, whole rows, a row's start). */
static void dispatch_listed(vxr_renderer *r, vxr_target *t, const vxr_push *p, VkPipeline pipeline,
                            uint32_t first, uint32_t count, VkCommandBuffer cmd) {
    if (!count) return;
    vxr_push q = *p;
    q.flags |= VXR_FRAME_TILES;
    bind(r, t, &q, pipeline, cmd);
    const uint32_t end = first + count, row = VXR_TILE_ROW;
    while (first < end) {
        const uint32_t x = first % row, y = first / row;
        uint32_t rows = 1, n = end - first < row - x ? end - first : row - x;
        if (x == 0 && end - first >= 2 * row) { /* whole rows */
            rows = (end - first) / row;
            n = row;
        }
        r->ctx->vk.vkCmdDispatchBase(cmd, x, y, 0, n, rows, 1);
        first += n * rows;
    }
}

/* The workgroups of a plan that trace, by pipeline. */
static void dispatch_traced(vxr_renderer *r, vxr_target *t, const vxr_push *p, VkPipeline pipeline,
                            const plan *w, VkCommandBuffer cmd) {
    if (w->listed)
        dispatch_listed(r, t, p, pipeline, 0, w->traced, cmd);
    else
        dispatch_groups(r, t, p, pipeline, w->g, cmd);
}

/* The workgroups of a plan that miss, by the miss pipeline (if any). */
static void dispatch_missed(vxr_renderer *r, vxr_target *t, const vxr_push *p, VkPipeline miss,
                            const plan *w, VkCommandBuffer cmd) {
    if (!miss) return;
    if (w->listed)
        dispatch_listed(r, t, p, miss, w->traced, w->total - w->traced, cmd);
    else
        dispatch_misses(r, t, p, w->g, miss, cmd);
}

/* The tile list into the target's buffer: after the last frame's reads. */
static void upload_tiles(vxr_context *c, vxr_target *t, VkCommandBuffer cmd) {
    memory_barrier(c, cmd, COMPUTE, VK_ACCESS_SHADER_READ_BIT, TRANSFER,
                   VK_ACCESS_TRANSFER_WRITE_BIT);
    const VkDeviceSize bytes = (VkDeviceSize)t->groups_x * t->groups_y * 4, most = 65536;
    for (VkDeviceSize at = 0; at < bytes; at += most)
        c->vk.vkCmdUpdateBuffer(cmd, t->tiles.buffer, at, bytes - at < most ? bytes - at : most,
                                (const uint8_t *)t->tile_list + at);
}

/* Makes the pick records' shader writes visible to host reads. */
static void picks_to_host(vxr_context *c, VkCommandBuffer cmd) {
    memory_barrier(c, cmd, COMPUTE, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                   VK_ACCESS_HOST_READ_BIT);
}

/* vxr's own image made writable by the shader, its old contents dropped:
 * after earlier shader writes of it and transfers (and sampling) from it. */
static void own_image_writable(vxr_context *c, vxr_target *t, VkCommandBuffer cmd) {
    image_barrier(c, cmd, t->image, VK_IMAGE_ASPECT_COLOR_BIT,
                  TRANSFER | COMPUTE | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                  VK_ACCESS_SHADER_WRITE_BIT, COMPUTE, VK_ACCESS_SHADER_WRITE_BIT,
                  VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, NULL);
}

static bool depth_format(VkFormat f, VkImageAspectFlags *aspect) {
    *aspect = f == VK_FORMAT_R32_SFLOAT ? VK_IMAGE_ASPECT_COLOR_BIT : VK_IMAGE_ASPECT_DEPTH_BIT;
    return f == VK_FORMAT_R32_SFLOAT || f == VK_FORMAT_D32_SFLOAT ||
           f == VK_FORMAT_D32_SFLOAT_S8_UINT;
}

/* The target's rectangle of a host depth image, as a copy region of the
 * target's depth buffer. */
static VkBufferImageCopy depth_region(const vxr_target *t, VkImageAspectFlags aspect) {
    return (VkBufferImageCopy){.bufferRowLength = t->width,
                               .imageSubresource = {aspect, 0, 0, 1},
                               .imageOffset = {(int32_t)t->x, (int32_t)t->y, 0},
                               .imageExtent = {t->width, t->height, 1}};
}

/* Samples a light dispatch adds: lavapipe ends an invocation's loops after
 * 65,535 iterations in all (VXR_PICK_INCOMPLETE), so a dispatch traces a
 * bounded number of rays. */
#define LIT_SAMPLES_PER_DISPATCH  4u
#define PATH_SAMPLES_PER_DISPATCH 1u

/* A light frame's dispatches: its data written first (after the last
 * frame's reads of it), then one dispatch per few samples, each adding to
 * the sums the one before wrote. */
static void light_dispatches(vxr_renderer *r, vxr_target *t, const vxr_frame *f,
                             vxr_gpu_frame *data, vxr_push *p, VkPipeline pipeline, const plan *w,
                             VkPipeline miss, VkCommandBuffer cmd) {
    vxr_context *c = r->ctx;
    const uint32_t base = f->accumulate ? t->samples : 0, end = base + f->light->samples;
    data->samples =
        data->model == VXR_LIGHT_PATH ? PATH_SAMPLES_PER_DISPATCH : LIT_SAMPLES_PER_DISPATCH;
    data->sample_end = end;
    memory_barrier(c, cmd, COMPUTE, VK_ACCESS_SHADER_READ_BIT, TRANSFER,
                   VK_ACCESS_TRANSFER_WRITE_BIT);
    c->vk.vkCmdUpdateBuffer(cmd, t->frame.buffer, 0, sizeof *data, data);
    memory_barrier(c, cmd, TRANSFER, VK_ACCESS_TRANSFER_WRITE_BIT, COMPUTE,
                   VK_ACCESS_SHADER_READ_BIT);
    for (uint32_t s = base; s < end; s += data->samples) {
        p->ray_count = s;
        dispatch_traced(r, t, p, pipeline, w, cmd);
    }
    /* a miss's outputs do not depend on the samples: once */
    dispatch_missed(r, t, p, miss, w, cmd);
    if (t->has_aovs)
        memory_barrier(c, cmd, COMPUTE, VK_ACCESS_SHADER_WRITE_BIT,
                       ALL | VK_PIPELINE_STAGE_HOST_BIT, HOST_USES | VK_ACCESS_HOST_READ_BIT);
    t->samples = end;
}

static vxr_result check_frame(vxr_renderer *r, vxr_target *t, const vxr_frame *f, vxr_error *err) {
    vxr_context *c = r->ctx;
    const vxr_camera *cam = f->camera;
    if (!cam) return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT, "render: the frame has no camera");
    if (cam->width != t->width || cam->height != t->height)
        return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                            "render: the camera is %ux%u, the target %ux%u: they must be equal",
                            cam->width, cam->height, t->width, t->height);
    bool ready = cam->projection == VXR_PROJECTION_PINHOLE
                     ? cam->tan_half_fov > 0.0f
                     : (cam->projection == VXR_PROJECTION_PERSPECTIVE ||
                        cam->projection == VXR_PROJECTION_ORTHOGRAPHIC) &&
                           (cam->depth_w[0] != 0.0f || cam->depth_w[1] != 0.0f ||
                            cam->depth_w[2] != 0.0f || cam->depth_w[3] != 0.0f);
    if (!ready)
        return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                            "render: the camera is not set up: call vxr_camera_setup or "
                            "vxr_camera_from_matrices first");
    const vxr_host_image *hi[2] = {&f->depth_in, &f->depth_out};
    const char *name[2] = {"depth_in", "depth_out"};
    for (int k = 0; k < 2; k++) {
        if (!hi[k]->image) continue;
        VkImageAspectFlags aspect;
        if (!t->has_depth)
            return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                                "render: %s needs a target created with depth", name[k]);
        if (!depth_format(hi[k]->format, &aspect))
            return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                                "render: %s's format %d is not D32_SFLOAT, D32_SFLOAT_S8_UINT or "
                                "R32_SFLOAT",
                                name[k], (int)hi[k]->format);
    }
    return VXR_OK;
}

vxr_result vxr_renderer_render_frame(vxr_renderer *r, vxr_target *t, const vxr_frame *f,
                                     VkCommandBuffer cmd, vxr_error *err) {
    vxr_context *c = r->ctx;
    if (!f) return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT, "render: no frame");
    vxr_result res = check_frame(r, t, f, err);
    if (res != VXR_OK) return res;
    const vxr_camera *cam = f->camera;
    vxr_push p;
    VkPipeline pipeline = VK_NULL_HANDLE;
    vxr_mode mode = t->has_picks   ? VXR_MODE_PICKS
                    : t->has_depth ? VXR_MODE_FRAME_HOST
                                   : VXR_MODE_FRAME;
    if (!(f->lod >= 0.0f && f->lod < INFINITY))
        return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                            "render: level of detail bias %g: it must be 0 or more, and finite",
                            (double)f->lod);
    const uint32_t model = f->light ? f->light->model : VXR_LIGHT_FLAT;
    /* light frames are of voxels: the level of detail is for flat ones */
    const float lod = model == VXR_LIGHT_FLAT ? vxr_camera_lod(cam, f->lod).k : 0.0f;
    /* a light frame's pipeline is its model's (below) */
    res = begin(r, t, f->grid, lod, reach_of(r, cam, lod), mode, &p,
                model == VXR_LIGHT_FLAT ? &pipeline : NULL, err);
    if (res != VXR_OK) return res;
    vxr_gpu_frame data;
    if (model != VXR_LIGHT_FLAT) {
        if (!t->has_light)
            return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                                "render: a light frame needs a target created with light");
        if (f->grid > 1)
            return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                                "render: light frames are of voxels (grid 0 or 1), not grid %u",
                                f->grid);
        if ((res = vxr_light_frame(f->light, f->previous, &data, err)) != VXR_OK) return res;
        if ((res = vxr_light_pipeline(r, model, t->has_aovs, mode, &pipeline, err)) != VXR_OK)
            return res;
    }
    VkPipeline denoise = VK_NULL_HANDLE;
    if (f->denoise && model != VXR_LIGHT_FLAT) {
        if (!t->has_aovs)
            return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                                "render: denoising needs a target created with aovs");
        if ((res = vxr_light_pipeline(r, 0, false, VXR_MODE_FRAME, &denoise, err)) != VXR_OK)
            return res;
    }
    /* the pixels that may meet the scene, and the pipeline of the rest */
    const vxr_groups g = vxr_scene_groups(r, t, cam, p.grid_pad);
    /* at a level of detail, the workgroups whose rays may stop coarse, at
     * an odd level (an octant) or only at an even one (a cell); on a
     * device with the beam pre-pass (a GPU), g whole, as the misses are */
    const bool split = lod > 0.0f && !c->beam;
    const vxr_groups coarse =
        split ? vxr_lod_groups(r, cam, lod, p.grid_pad, VXR_LOD_MIN_LEVEL, g) : g;
    const vxr_groups odd =
        split ? vxr_lod_groups(r, cam, lod, p.grid_pad, VXR_LOD_MIN_LEVEL + 1, coarse) : g;
    /* without the beam, of those the ones that may see an occupied cell */
    plan w = {g, t->tile_list != NULL, 0, t->groups_x * t->groups_y, {0, 0, 0}};
    const uint32_t level = p.grid_level & 255u, reach = p.grid_level >> VXR_REACH_SHIFT;
    const vxr_groups parts[3] = {odd, coarse, g};
    if (w.listed)
        w.traced =
            vxr_scene_tiles(r, t, cam, p.grid_pad, level > reach ? level : reach, parts, w.part);
    /* a list that spares under 1/16 of the rectangle is not worth its reads */
    if (w.listed && g.x0 < g.x1 && w.traced * 16ull > (g.x1 - g.x0) * (g.y1 - g.y0) * 15ull)
        w.listed = false;
    VkPipeline miss = VK_NULL_HANDLE;
    if ((w.listed ? w.traced < w.total : vxr_leaves_out(r, t, g)) &&
        (res = vxr_miss_pipeline(r, model, t->has_aovs && model != VXR_LIGHT_FLAT, mode, &miss,
                                 err)) != VXR_OK)
        return res;
    VkPipeline beam = VK_NULL_HANDLE;
    if (cam->projection != VXR_PROJECTION_ORTHOGRAPHIC &&
        (res = vxr_beam_pipeline(r, &beam, err)) != VXR_OK)
        return res;
    memcpy(p.eye, cam->eye, sizeof p.eye);
    memcpy(p.forward, cam->forward, sizeof p.forward);
    memcpy(p.right, cam->right, sizeof p.right);
    memcpy(p.up, cam->up, sizeof p.up);
    memcpy(p.depth_z, cam->depth_z, sizeof p.depth_z);
    memcpy(p.depth_w, cam->depth_w, sizeof p.depth_w);
    p.tan_half_fov = cam->tan_half_fov;
    p.aspect = cam->aspect;
    p.flags |= (uint32_t)cam->projection | (cam->reverse_z ? VXR_FRAME_REVERSE_Z : 0u) |
               (t->has_depth ? VXR_FRAME_DEPTH_OUT : 0u) |
               (f->depth_in.image ? VXR_FRAME_DEPTH_IN : 0u);
    p.offset = t->x | t->y << 16;

    /* the host's depth into the target's: after earlier uses of both */
    VkImageAspectFlags aspect;
    const VkImageLayout src_opt = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    if (f->depth_in.image) {
        depth_format(f->depth_in.format, &aspect);
        memory_barrier(c, cmd, COMPUTE | TRANSFER,
                       VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, TRANSFER,
                       VK_ACCESS_TRANSFER_WRITE_BIT);
        image_barrier(c, cmd, f->depth_in.image, aspect, ALL, HOST_WRITES, TRANSFER,
                      VK_ACCESS_TRANSFER_READ_BIT, f->depth_in.before, src_opt, NULL);
        VkBufferImageCopy region = depth_region(t, aspect);
        c->vk.vkCmdCopyImageToBuffer(cmd, f->depth_in.image, src_opt, t->depth.buffer, 1, &region);
        if (f->depth_in.image != f->depth_out.image)
            image_barrier(c, cmd, f->depth_in.image, aspect, TRANSFER, 0, ALL, HOST_USES, src_opt,
                          f->depth_in.after, NULL);
    }
    /* the colour image made writable: its old contents dropped (own image)
     * or kept (the host's, from the layout it states) */
    if (t->host_image) {
        VkImageLayout before = f->color_before;
        image_barrier(c, cmd, t->image, VK_IMAGE_ASPECT_COLOR_BIT, ALL, HOST_WRITES, COMPUTE,
                      VK_ACCESS_SHADER_WRITE_BIT, before, VK_IMAGE_LAYOUT_GENERAL, NULL);
    } else {
        own_image_writable(c, t, cmd);
    }
    /* The beam pre-pass: a start distance per tile for a perspective
     * frame. dispatch's barriers order it after the last frame's reads of
     * the distances (write after read) and before this frame's reads. */
    if (beam) {
        p.flags |= VXR_FRAME_BEAM;
        dispatch(r, t, &p, beam, t->tiles_x, t->tiles_y, cmd);
    }
    if (w.listed) upload_tiles(c, t, cmd);
    if (model == VXR_LIGHT_FLAT) {
        /* at a level of detail, its pipeline where a ray may stop coarse */
        VkPipeline fine = VK_NULL_HANDLE, even = VK_NULL_HANDLE;
        if ((w.listed ? w.part[2] > 0 : !vxr_same_groups(coarse, g)) &&
            (res = vxr_frame_pipeline(r, level, mode, &fine, err)) != VXR_OK)
            return res;
        if ((w.listed ? w.part[1] > 0 : !vxr_same_groups(odd, coarse)) &&
            (res = vxr_lod_pipeline(r, level, false, mode, &even, err)) != VXR_OK)
            return res;
        if (w.listed) {
            const uint32_t a = w.part[0], b = a + w.part[1];
            dispatch_listed(r, t, &p, pipeline, 0, a, cmd);
            dispatch_listed(r, t, &p, even, a, w.part[1], cmd);
            dispatch_listed(r, t, &p, fine, b, w.part[2], cmd);
        } else {
            dispatch_groups(r, t, &p, pipeline, odd, cmd);
            if (even) dispatch_around(r, t, &p, coarse, odd, even, cmd);
            if (fine) dispatch_around(r, t, &p, g, coarse, fine, cmd);
        }
        dispatch_missed(r, t, &p, miss, &w, cmd);
    } else {
        light_dispatches(r, t, f, &data, &p, pipeline, &w, miss, cmd);
        /* the denoiser's passes over the frame's light, the last into
         * the image (bind orders each after the one before), over the
         * workgroups that may meet the scene: the rest are sky, which it
         * would write as the misses did */
        for (uint32_t k = 0; denoise && k < VXR_DENOISE_PASSES; k++) {
            p.ray_count = k;
            dispatch_groups(r, t, &p, denoise, g, cmd);
        }
    }

    if (t->host_image) {
        image_barrier(c, cmd, t->image, VK_IMAGE_ASPECT_COLOR_BIT, COMPUTE,
                      VK_ACCESS_SHADER_WRITE_BIT, ALL, HOST_USES, VK_IMAGE_LAYOUT_GENERAL,
                      f->color_after, NULL);
    } else {
        const VkImageLayout copied = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
        image_barrier(
            c, cmd, t->image, VK_IMAGE_ASPECT_COLOR_BIT, COMPUTE, VK_ACCESS_SHADER_WRITE_BIT,
            TRANSFER | COMPUTE | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
            VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_SHADER_READ_BIT, VK_IMAGE_LAYOUT_GENERAL,
            t->readback.buffer ? copied : VK_IMAGE_LAYOUT_GENERAL, NULL);
        if (t->readback.buffer) {
            VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                        .imageExtent = {t->width, t->height, 1}};
            c->vk.vkCmdCopyImageToBuffer(cmd, t->image, copied, t->readback.buffer, 1, &region);
            /* back to GENERAL, still readable by later transfers and shaders */
            image_barrier(c, cmd, t->image, VK_IMAGE_ASPECT_COLOR_BIT, TRANSFER, 0,
                          TRANSFER | COMPUTE | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                          VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_SHADER_READ_BIT, copied,
                          VK_IMAGE_LAYOUT_GENERAL, NULL);
            /* visible to the host; and the copy done before a later
             * frame's copy into the same readback (write after write) */
            memory_barrier(c, cmd, TRANSFER | COMPUTE,
                           VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                           VK_PIPELINE_STAGE_HOST_BIT | TRANSFER,
                           VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
        }
    }
    if (f->depth_out.image) {
        depth_format(f->depth_out.format, &aspect);
        const VkImageLayout dst_opt = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
        bool same = f->depth_out.image == f->depth_in.image;
        memory_barrier(c, cmd, COMPUTE, VK_ACCESS_SHADER_WRITE_BIT, TRANSFER,
                       VK_ACCESS_TRANSFER_READ_BIT);
        image_barrier(c, cmd, f->depth_out.image, aspect, same ? TRANSFER : ALL,
                      same ? 0 : HOST_WRITES, TRANSFER, VK_ACCESS_TRANSFER_WRITE_BIT,
                      same ? src_opt : f->depth_out.before, dst_opt, NULL);
        VkBufferImageCopy region = depth_region(t, aspect);
        c->vk.vkCmdCopyBufferToImage(cmd, t->depth.buffer, f->depth_out.image, dst_opt, 1, &region);
        image_barrier(c, cmd, f->depth_out.image, aspect, TRANSFER, VK_ACCESS_TRANSFER_WRITE_BIT,
                      ALL, HOST_USES, dst_opt, f->depth_out.after, NULL);
    }
    if (t->has_picks) picks_to_host(c, cmd);
    return VXR_OK;
}

vxr_result vxr_renderer_render(vxr_renderer *r, vxr_target *t, const vxr_camera *cam, uint32_t grid,
                               VkCommandBuffer cmd, vxr_error *err) {
    vxr_frame f = {.camera = cam,
                   .grid = grid,
                   .color_before = VK_IMAGE_LAYOUT_GENERAL,
                   .color_after = VK_IMAGE_LAYOUT_GENERAL};
    return vxr_renderer_render_frame(r, t, &f, cmd, err);
}

void vxr_target_blit(vxr_target *t, VkImage dst, VkImageLayout dst_layout, VkCommandBuffer cmd) {
    vxr_context *c = t->ctx;
    const VkPipelineStageFlags transfer = VK_PIPELINE_STAGE_TRANSFER_BIT;
    const VkImageLayout from = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    /* after earlier transfer writes of dst (an earlier blit) */
    image_barrier(c, cmd, dst, VK_IMAGE_ASPECT_COLOR_BIT, transfer, VK_ACCESS_TRANSFER_WRITE_BIT,
                  transfer, VK_ACCESS_TRANSFER_WRITE_BIT, dst_layout,
                  VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, NULL);
    /* after the render's shader writes (the layout change is a write too);
     * GENERAL again after */
    image_barrier(c, cmd, t->image, VK_IMAGE_ASPECT_COLOR_BIT,
                  transfer | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                  transfer, VK_ACCESS_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_GENERAL, from, NULL);
    int32_t w = (int32_t)t->width, h = (int32_t)t->height;
    VkImageBlit blit = {.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                        .srcOffsets = {{0, 0, 0}, {w, h, 1}},
                        .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                        .dstOffsets = {{0, 0, 0}, {w, h, 1}}};
    c->vk.vkCmdBlitImage(cmd, t->image, from, dst, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit,
                         VK_FILTER_NEAREST);
    image_barrier(c, cmd, t->image, VK_IMAGE_ASPECT_COLOR_BIT, transfer, 0, transfer,
                  VK_ACCESS_TRANSFER_READ_BIT, from, VK_IMAGE_LAYOUT_GENERAL, NULL);
}

/* Rays go in rows of about this many invocations, rounded up to a
 * multiple of the workgroup width, so that a large batch fills whole
 * workgroups. */
#define RAY_ROW 128u

vxr_result vxr_renderer_pick_rays(vxr_renderer *r, vxr_rays *q, uint32_t count, uint32_t grid,
                                  VkCommandBuffer cmd, vxr_error *err) {
    return vxr_renderer_pick_rays_lod(r, q, count, grid, NULL, cmd, err);
}

vxr_result vxr_renderer_pick_rays_lod(vxr_renderer *r, vxr_rays *q, uint32_t count, uint32_t grid,
                                      const vxr_lod *lod, VkCommandBuffer cmd, vxr_error *err) {
    vxr_target *t = q->t;
    if (count < 1 || count > t->capacity)
        return vxr_ctx_fail(r->ctx, err, VXR_ERROR_ARGUMENT,
                            "%u rays: a pick takes 1 to the batch's capacity of %u", count,
                            t->capacity);
    vxr_push p;
    VkPipeline pipeline = VK_NULL_HANDLE;
    vxr_result res = begin(r, t, grid, lod ? lod->k : 0.0f, reach_of(r, NULL, 1.0f), VXR_MODE_RAYS,
                           &p, &pipeline, err);
    if (res != VXR_OK) return res;
    if (lod && lod->fixed) p.flags |= VXR_FRAME_ORTHO; /* a fixed footprint */
    const uint32_t lx = r->ctx->local_x, row = (RAY_ROW + lx - 1) / lx * lx;
    p.width = count < row ? count : row;
    p.height = (count + row - 1) / row;
    p.ray_count = count;
    own_image_writable(r->ctx, t, cmd); /* bound, never written: a batch's image stays empty */
    dispatch(r, t, &p, pipeline, p.width, p.height, cmd);
    picks_to_host(r->ctx, cmd);
    return VXR_OK;
}
