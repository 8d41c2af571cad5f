/* shaders/trace.comp's pipelines: the layouts every renderer of a context
 * shares, the embedded SPIR-V, and the pipelines of each scene shape
 * (voxels or grids, by mode), specialised for a renderer's scene
 * (vxr_layout.h has the interface) and shared by the context's renderers;
 * with the beam pre-pass, shaders/beam.comp's pipeline beside them. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

const uint32_t vxr_trace_spv[] =
#include "trace.comp.inc"
    ;
const size_t vxr_trace_spv_size = sizeof vxr_trace_spv;
const uint32_t vxr_beam_spv[] =
#include "beam.comp.inc"
    ;
const size_t vxr_beam_spv_size = sizeof vxr_beam_spv;
const uint32_t vxr_denoise_spv[] =
#include "denoise.comp.inc"
    ;
const size_t vxr_denoise_spv_size = sizeof vxr_denoise_spv;

vxr_result vxr_pipelines_init(vxr_context *c, vxr_error *err) {
    vxr_result res = VXR_OK;
    pthread_mutex_init(&c->pipes_lock, NULL);
    c->pipes_ready = true;
    VkDescriptorSetLayoutBinding b[VXR_SCENE_BINDINGS];
    for (uint32_t i = 0; i < VXR_SCENE_BINDINGS; i++)
        b[i] = (VkDescriptorSetLayoutBinding){i, VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, 1,
                                              VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo li = {.sType =
                                              VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = VXR_SCENE_BINDINGS,
                                          .pBindings = b};
    VXR_VK_TRY(
        c, err,
        c->vk.vkCreateDescriptorSetLayout(c->device, &li, c->alloc, &c->set_layout[VXR_SET_SCENE]));
    b[VXR_BIND_IMAGE].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    b[VXR_BIND_PICKS].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    b[VXR_BIND_RAYS].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    b[VXR_BIND_DEPTH].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    b[VXR_BIND_BEAM].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    b[VXR_BIND_FRAME].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    b[VXR_BIND_ACCUM].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    b[VXR_BIND_AOV].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    b[VXR_BIND_DENOISE].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    b[VXR_BIND_TILES].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    li.bindingCount = VXR_TARGET_BINDINGS;
    VXR_VK_TRY(c, err,
               c->vk.vkCreateDescriptorSetLayout(c->device, &li, c->alloc,
                                                 &c->set_layout[VXR_SET_TARGET]));
    VkPushConstantRange pr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(vxr_push)};
    VkPipelineLayoutCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 2,
                                     .pSetLayouts = c->set_layout,
                                     .pushConstantRangeCount = 1,
                                     .pPushConstantRanges = &pr};
    VXR_VK_TRY(c, err, c->vk.vkCreatePipelineLayout(c->device, &pi, c->alloc, &c->pipeline_layout));
    VkShaderModuleCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                   .codeSize = vxr_trace_spv_size,
                                   .pCode = vxr_trace_spv};
    VXR_VK_TRY(c, err, c->vk.vkCreateShaderModule(c->device, &si, c->alloc, &c->module));
    if (c->beam) {
        si.codeSize = vxr_beam_spv_size;
        si.pCode = vxr_beam_spv;
        VXR_VK_TRY(c, err, c->vk.vkCreateShaderModule(c->device, &si, c->alloc, &c->beam_module));
    }
fail:
    return res;
}

vxr_result vxr_set_create(vxr_context *c, uint32_t set, const VkDescriptorPoolSize *sizes,
                          uint32_t n, VkDescriptorPool *pool, VkDescriptorSet *dest,
                          vxr_error *err) {
    vxr_result res = VXR_OK;
    VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = 1,
                                     .poolSizeCount = n,
                                     .pPoolSizes = sizes};
    VXR_VK_TRY(c, err, c->vk.vkCreateDescriptorPool(c->device, &pi, c->alloc, pool));
    VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = *pool,
                                      .descriptorSetCount = 1,
                                      .pSetLayouts = &c->set_layout[set]};
    VXR_VK_TRY(c, err, c->vk.vkAllocateDescriptorSets(c->device, &ai, dest));
fail:
    return res;
}

/* Every pipeline slot of a set, into dest; their count. */
enum {
    PIPES_SLOTS =
        2 * VXR_MODES + 1 + 2 * 2 * VXR_MODE_RAYS + 1 + 2 * 2 * VXR_MODES + 3 * 2 * VXR_MODE_RAYS
};
_Static_assert(PIPES_SLOTS * sizeof(VkPipeline) ==
                   sizeof(vxr_pipes) - offsetof(vxr_pipes, pipeline),
               "pipes_slots names every pipeline of vxr_pipes");
static uint32_t pipes_slots(vxr_pipes *p, VkPipeline *dest[PIPES_SLOTS]) {
    uint32_t n = 0;
    for (uint32_t g = 0; g < 2; g++)
        for (uint32_t m = 0; m < VXR_MODES; m++) {
            dest[n++] = &p->pipeline[g][m];
            dest[n++] = &p->lod[0][g][m];
            dest[n++] = &p->lod[1][g][m];
        }
    dest[n++] = &p->beam;
    dest[n++] = &p->denoise;
    for (uint32_t a = 0; a < 2; a++)
        for (uint32_t m = 0; m < VXR_MODE_RAYS; m++) {
            for (uint32_t l = 0; l < 2; l++) dest[n++] = &p->light[l][a][m];
            for (uint32_t l = 0; l < 3; l++) dest[n++] = &p->miss[l][a][m];
        }
    return n;
}

void vxr_pipelines_destroy(vxr_context *c) {
    VkPipeline *slot[PIPES_SLOTS];
    for (uint32_t i = 0; i < c->pipes_count; i++) {
        for (uint32_t k = 0, n = pipes_slots(c->pipes[i], slot); k < n; k++)
            if (*slot[k]) c->vk.vkDestroyPipeline(c->device, *slot[k], c->alloc);
        free(c->pipes[i]);
    }
    free(c->pipes);
    c->pipes = NULL;
    c->pipes_count = c->pipes_cap = 0;
    if (c->pipes_ready) pthread_mutex_destroy(&c->pipes_lock);
    c->pipes_ready = false;
    if (c->module) c->vk.vkDestroyShaderModule(c->device, c->module, c->alloc);
    if (c->beam_module) c->vk.vkDestroyShaderModule(c->device, c->beam_module, c->alloc);
    if (c->denoise_module) c->vk.vkDestroyShaderModule(c->device, c->denoise_module, c->alloc);
    if (c->pipeline_layout) c->vk.vkDestroyPipelineLayout(c->device, c->pipeline_layout, c->alloc);
    for (int i = 0; i < 2; i++)
        if (c->set_layout[i])
            c->vk.vkDestroyDescriptorSetLayout(c->device, c->set_layout[i], c->alloc);
}

/* The specialisation of trace.comp for grids or voxels (g), a mode and
 * a light model. */
static void mode_spec(const vxr_context *c, const vxr_spec *base, uint32_t g, uint32_t m,
                      uint32_t light, bool aovs, vxr_spec *dest) {
    *dest = *base;
    dest->grid = g;
    dest->picks = m == VXR_MODE_PICKS || m == VXR_MODE_RAYS;
    dest->rays = m == VXR_MODE_RAYS;
    dest->host = m == VXR_MODE_FRAME_HOST || m == VXR_MODE_PICKS;
    dest->beam = c->beam && m != VXR_MODE_RAYS;
    dest->light = light;
    dest->aovs = aovs;
}

static VkComputePipelineCreateInfo trace_info(const vxr_context *c,
                                              const VkSpecializationInfo *si) {
    /* frames dispatch parts of the image (vkCmdDispatchBase) */
    return (VkComputePipelineCreateInfo){
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .flags = VK_PIPELINE_CREATE_DISPATCH_BASE_BIT,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = c->module,
                  .pName = "main",
                  .pSpecializationInfo = si},
        .layout = c->pipeline_layout};
}

/* Every constant at 4 * id (vxr_spec). */
static void spec_map(VkSpecializationMapEntry map[VXR_SPEC_COUNT]) {
    for (uint32_t i = 0; i < VXR_SPEC_COUNT; i++) map[i] = (VkSpecializationMapEntry){i, 4 * i, 4};
}

/* A slot is written once, under the context's pipes_lock, by a release
 * store; a frame whose slot is made reads it by an acquire load without
 * the lock, so it never waits for a batch another thread is compiling
 * (vxr_renderer_prepare on a worker). */
static void slot_set(VkPipeline *slot, VkPipeline p) {
    __atomic_store_n(slot, p, __ATOMIC_RELEASE);
}

static VkPipeline slot_get(VkPipeline *slot) {
    return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}

/* Makes *slot, one pipeline of module with spec, unless it is made;
 * under the context's pipes_lock. */
static vxr_result lazy_pipeline(vxr_context *c, VkShaderModule module, const vxr_spec *spec,
                                VkPipeline *slot, vxr_error *err) {
    if (*slot) return VXR_OK;
    VkSpecializationMapEntry map[VXR_SPEC_COUNT];
    spec_map(map);
    VkSpecializationInfo si = {VXR_SPEC_COUNT, map, sizeof *spec, spec};
    VkComputePipelineCreateInfo pi = trace_info(c, &si);
    pi.stage.module = module;
    VkPipeline made = VK_NULL_HANDLE;
    vxr_result res = vxr_vk_check(
        c, err,
        c->vk.vkCreateComputePipelines(c->device, c->pipeline_cache, 1, &pi, c->alloc, &made),
        "vkCreateComputePipelines");
    if (res == VXR_OK) slot_set(slot, made);
    return res;
}

/* *dest: *slot, made now from module and spec when it is the first. */
static vxr_result slot_pipeline(vxr_context *c, VkShaderModule module, const vxr_spec *spec,
                                VkPipeline *slot, VkPipeline *dest, vxr_error *err) {
    if ((*dest = slot_get(slot)) != VK_NULL_HANDLE) return VXR_OK;
    pthread_mutex_lock(&c->pipes_lock);
    vxr_result res = lazy_pipeline(c, module, spec, slot, err);
    *dest = *slot;
    pthread_mutex_unlock(&c->pipes_lock);
    return res;
}

vxr_result vxr_light_pipeline(vxr_renderer *r, uint32_t model, bool aovs, vxr_mode mode,
                              VkPipeline *dest, vxr_error *err) {
    vxr_context *c = r->ctx;
    vxr_result res = VXR_OK;
    pthread_mutex_lock(&c->pipes_lock);
    /* model 0: the denoiser */
    VkPipeline *slot = model ? &r->pipes->light[model - 1][aovs][mode] : &r->pipes->denoise;
    if (!*slot && !model && !c->denoise_module) {
        VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                       .codeSize = vxr_denoise_spv_size,
                                       .pCode = vxr_denoise_spv};
        res = vxr_vk_check(c, err,
                           c->vk.vkCreateShaderModule(c->device, &mi, c->alloc, &c->denoise_module),
                           "vkCreateShaderModule");
    }
    if (res == VXR_OK) {
        vxr_spec spec;
        mode_spec(c, &r->pipes->spec, 0, mode, model, aovs, &spec);
        res = lazy_pipeline(c, model ? c->module : c->denoise_module, &spec, slot, err);
    }
    *dest = *slot;
    pthread_mutex_unlock(&c->pipes_lock);
    return res;
}

/* *dest: *slot, the trace module's pipeline for a frame of (grid, mode,
 * model, aovs) with one switch on: the level of detail when lod (its
 * LOD_STOPS, 1 or 2), else the miss switch; made now when it is the
 * first. */
static vxr_result variant_pipeline(vxr_renderer *r, VkPipeline *slot, bool grid, vxr_mode mode,
                                   uint32_t model, bool aovs, uint32_t lod, VkPipeline *dest,
                                   vxr_error *err) {
    vxr_context *c = r->ctx;
    vxr_spec spec;
    mode_spec(c, &r->pipes->spec, grid, mode, model, aovs, &spec);
    spec.lod = lod;
    spec.miss = !lod;
    return slot_pipeline(c, c->module, &spec, slot, dest, err);
}

vxr_result vxr_lod_pipeline(vxr_renderer *r, uint32_t grid_level, bool odd, vxr_mode mode,
                            VkPipeline *dest, vxr_error *err) {
    return variant_pipeline(r, &r->pipes->lod[odd][grid_level > 0][mode], grid_level > 0, mode,
                            VXR_LIGHT_FLAT, false, odd ? 2u : 1u, dest, err);
}

vxr_result vxr_miss_pipeline(vxr_renderer *r, uint32_t model, bool aovs, vxr_mode mode,
                             VkPipeline *dest, vxr_error *err) {
    return variant_pipeline(r, &r->pipes->miss[model][aovs][mode], false, mode, model, aovs, 0u,
                            dest, err);
}

vxr_result vxr_frame_pipeline(vxr_renderer *r, uint32_t grid_level, vxr_mode mode, VkPipeline *dest,
                              vxr_error *err) {
    vxr_context *c = r->ctx;
    vxr_spec spec;
    mode_spec(c, &r->pipes->spec, grid_level > 0, mode, VXR_LIGHT_FLAT, false, &spec);
    return slot_pipeline(c, c->module, &spec, &r->pipes->pipeline[grid_level > 0][mode], dest, err);
}

vxr_result vxr_beam_pipeline(vxr_renderer *r, VkPipeline *dest, vxr_error *err) {
    vxr_context *c = r->ctx;
    *dest = VK_NULL_HANDLE;
    if (!c->beam) return VXR_OK;
    /* the scene's split and the workgroup (grid and the rest are push
     * constants or not in its shader) */
    return slot_pipeline(c, c->beam_module, &r->pipes->spec, &r->pipes->beam, dest, err);
}

/* The set's pipelines for flat frames, picks and batches that are not
 * made yet (2 x VXR_MODES; the beam pass's, or without it the flat miss
 * pipelines of the modes that have them), in one call: drivers may
 * compile them in parallel, and the host's cache sees them all. Frames
 * read the beam's distances when the context has it; ray batches never
 * do. Under the context's pipes_lock. */
static vxr_result pipes_compile(vxr_context *c, vxr_pipes *p, vxr_error *err) {
    enum { MAX = 2 * VXR_MODES + VXR_MODE_RAYS };
    vxr_spec spec[MAX];
    VkSpecializationMapEntry map[VXR_SPEC_COUNT];
    spec_map(map);
    VkSpecializationInfo si[MAX];
    VkComputePipelineCreateInfo pi[MAX];
    VkPipeline *slot[MAX];
    uint32_t n = 0;
    for (uint32_t g = 0; g < 2; g++)
        for (uint32_t m = 0; m < VXR_MODES; m++) {
            if (p->pipeline[g][m]) continue;
            mode_spec(c, &p->spec, g, m, VXR_LIGHT_FLAT, false, &spec[n]);
            slot[n++] = &p->pipeline[g][m];
        }
    for (uint32_t m = 0; !c->beam && m < VXR_MODE_RAYS; m++) {
        if (p->miss[VXR_LIGHT_FLAT][0][m]) continue;
        mode_spec(c, &p->spec, 0, m, VXR_LIGHT_FLAT, false, &spec[n]);
        spec[n].miss = true; /* as vxr_miss_pipeline's */
        slot[n++] = &p->miss[VXR_LIGHT_FLAT][0][m];
    }
    for (uint32_t i = 0; i < n; i++) {
        si[i] = (VkSpecializationInfo){VXR_SPEC_COUNT, map, sizeof spec[i], &spec[i]};
        pi[i] = trace_info(c, &si[i]);
    }
    VkSpecializationInfo beam_si = {VXR_SPEC_COUNT, map, sizeof p->spec, &p->spec};
    if (c->beam && !p->beam) {
        pi[n] = trace_info(c, &beam_si);
        pi[n].stage.module = c->beam_module;
        slot[n++] = &p->beam;
    }
    if (n == 0) return VXR_OK;
    VkPipeline made[MAX] = {VK_NULL_HANDLE};
    vxr_result res = vxr_vk_check(
        c, err, c->vk.vkCreateComputePipelines(c->device, c->pipeline_cache, n, pi, c->alloc, made),
        "vkCreateComputePipelines");
    for (uint32_t i = 0; i < n; i++) { /* a failed call may leave some made: none is kept */
        if (res == VXR_OK)
            slot_set(slot[i], made[i]);
        else if (made[i])
            c->vk.vkDestroyPipeline(c->device, made[i], c->alloc);
    }
    return res;
}

vxr_result vxr_renderer_pipelines_make(vxr_renderer *r, bool ahead, vxr_error *err) {
    vxr_context *c = r->ctx;
    vxr_spec key = r->spec;
    key.grid = key.picks = key.rays = key.host = key.beam = key.light = key.lod = key.miss = 0;
    vxr_result res = VXR_OK;
    pthread_mutex_lock(&c->pipes_lock);
    vxr_pipes *p = NULL;
    for (uint32_t i = 0; i < c->pipes_count && !p; i++)
        if (!memcmp(&c->pipes[i]->spec, &key, sizeof key)) p = c->pipes[i];
    if (!p && c->pipes_count == c->pipes_cap) {
        uint32_t cap = c->pipes_cap ? 2 * c->pipes_cap : 4;
        vxr_pipes **grown = realloc(c->pipes, cap * sizeof *grown);
        if (!grown) {
            res = vxr_ctx_fail(c, err, VXR_ERROR_MEMORY, "out of memory for pipelines");
            goto done;
        }
        c->pipes = grown;
        c->pipes_cap = cap;
    }
    if (!p) {
        if (!(p = calloc(1, sizeof *p))) {
            res = vxr_ctx_fail(c, err, VXR_ERROR_MEMORY, "out of memory for pipelines");
            goto done;
        }
        p->spec = key;
        c->pipes[c->pipes_count++] = p;
    }
    if (ahead || !c->lazy) res = pipes_compile(c, p, err);
    if (res == VXR_OK) r->pipes = p;
done:
    pthread_mutex_unlock(&c->pipes_lock);
    return res;
}

/* The texel format of a binding of set 0 (vxr_layout.h). */
VkFormat vxr_binding_format(uint32_t b) {
    if (b == VXR_BIND_MODELS || b == VXR_BIND_INSTANCES || b == VXR_BIND_BVH ||
        b == VXR_BIND_MOTION || b >= VXR_BIND_WIDE)
        return VK_FORMAT_R32G32B32A32_UINT;
    if (b >= VXR_BIND_NODES && b < VXR_BIND_NODES + VXR_NODE_CHUNKS) return VK_FORMAT_R32G32_UINT;
    return VK_FORMAT_R32_UINT;
}

/* The section a binding belongs to: its first binding. */
static uint32_t section_of(uint32_t b) {
    return b == VXR_BIND_MOTION   ? b
           : b >= VXR_BIND_WIDE   ? VXR_BIND_WIDE
           : b >= VXR_BIND_COLORS ? VXR_BIND_COLORS
           : b >= VXR_BIND_ATTRS  ? VXR_BIND_ATTRS
           : b >= VXR_BIND_BATTR  ? VXR_BIND_BATTR
           : b >= VXR_BIND_NODES  ? VXR_BIND_NODES
                                  : b;
}

vxr_result vxr_renderer_bind(vxr_renderer *r, vxr_error *err) {
    vxr_context *c = r->ctx;
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, VXR_SCENE_BINDINGS};
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VkDescriptorSet set = VK_NULL_HANDLE;
    vxr_result res = vxr_set_create(c, VXR_SET_SCENE, &ps, 1, &pool, &set, err);
    if (res != VXR_OK) goto fail;
    VkWriteDescriptorSet w[VXR_SCENE_BINDINGS];
    for (uint32_t b = 0; b < VXR_SCENE_BINDINGS; b++) {
        if (!r->buf[b].buffer || r->view[b]) continue;
        VkBufferViewCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO,
                                     .buffer = r->buf[b].buffer,
                                     .format = vxr_binding_format(b),
                                     .range = VK_WHOLE_SIZE};
        VXR_VK_TRY(c, err, c->vk.vkCreateBufferView(c->device, &vi, c->alloc, &r->view[b]));
    }
    for (uint32_t b = 0; b < VXR_SCENE_BINDINGS; b++) {
        /* an unused chunk binding shows its section's first chunk */
        uint32_t src = r->view[b] ? b : section_of(b);
        w[b] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                      .dstSet = set,
                                      .dstBinding = b,
                                      .descriptorCount = 1,
                                      .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER,
                                      .pTexelBufferView = &r->view[src]};
    }
    c->vk.vkUpdateDescriptorSets(c->device, VXR_SCENE_BINDINGS, w, 0, NULL);
    r->pool = pool; /* the caller retired the old one */
    r->set = set;
    return VXR_OK;
fail:
    if (pool) c->vk.vkDestroyDescriptorPool(c->device, pool, c->alloc);
    return res;
}

uint32_t vxr_context_pipeline_sets(vxr_context *c) {
    pthread_mutex_lock(&c->pipes_lock);
    uint32_t n = c->pipes_count;
    pthread_mutex_unlock(&c->pipes_lock);
    return n;
}

uint32_t vxr_context_pipeline_count(vxr_context *c) {
    pthread_mutex_lock(&c->pipes_lock);
    uint32_t n = 0;
    VkPipeline *slot[PIPES_SLOTS];
    for (uint32_t i = 0; i < c->pipes_count; i++)
        for (uint32_t k = 0, m = pipes_slots(c->pipes[i], slot); k < m; k++)
            n += *slot[k] != VK_NULL_HANDLE;
    pthread_mutex_unlock(&c->pipes_lock);
    return n;
}
