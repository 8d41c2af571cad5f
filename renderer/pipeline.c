/* shaders/trace.comp's pipelines: the layouts every renderer of a context
 * shares, the embedded SPIR-V, and one pipeline per grid level and mode,
 * specialised for a renderer's scene (vxr_layout.h has the interface). */
#include <stddef.h>
#include <string.h>
#include "internal.h"

const uint32_t vxr_trace_spv[] =
#include "trace.comp.inc"
    ;
const size_t vxr_trace_spv_size = sizeof vxr_trace_spv;

vxr_result vxr_pipelines_init(vxr_context *c, vxr_error *err) {
    vxr_result res = VXR_OK;
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
        c->vk.vkCreateDescriptorSetLayout(c->device, &li, NULL, &c->set_layout[VXR_SET_SCENE]));
    b[VXR_BIND_IMAGE].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    b[VXR_BIND_PICKS].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    b[VXR_BIND_RAYS].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    li.bindingCount = VXR_TARGET_BINDINGS;
    VXR_VK_TRY(
        c, err,
        c->vk.vkCreateDescriptorSetLayout(c->device, &li, NULL, &c->set_layout[VXR_SET_TARGET]));
    VkPushConstantRange pr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(vxr_push)};
    VkPipelineLayoutCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 2,
                                     .pSetLayouts = c->set_layout,
                                     .pushConstantRangeCount = 1,
                                     .pPushConstantRanges = &pr};
    VXR_VK_TRY(c, err, c->vk.vkCreatePipelineLayout(c->device, &pi, NULL, &c->pipeline_layout));
    VkShaderModuleCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                   .codeSize = vxr_trace_spv_size,
                                   .pCode = vxr_trace_spv};
    VXR_VK_TRY(c, err, c->vk.vkCreateShaderModule(c->device, &si, NULL, &c->module));
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
    VXR_VK_TRY(c, err, c->vk.vkCreateDescriptorPool(c->device, &pi, NULL, pool));
    VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = *pool,
                                      .descriptorSetCount = 1,
                                      .pSetLayouts = &c->set_layout[set]};
    VXR_VK_TRY(c, err, c->vk.vkAllocateDescriptorSets(c->device, &ai, dest));
fail:
    return res;
}

void vxr_pipelines_destroy(vxr_context *c) {
    if (c->module) c->vk.vkDestroyShaderModule(c->device, c->module, NULL);
    if (c->pipeline_layout) c->vk.vkDestroyPipelineLayout(c->device, c->pipeline_layout, NULL);
    for (int i = 0; i < 2; i++)
        if (c->set_layout[i]) c->vk.vkDestroyDescriptorSetLayout(c->device, c->set_layout[i], NULL);
}

vxr_result vxr_renderer_pipeline(vxr_renderer *r, uint32_t grid_level, vxr_mode mode,
                                 VkPipeline *dest, vxr_error *err) {
    vxr_context *c = r->ctx;
    VkPipeline *p = &r->pipeline[grid_level][mode];
    if (!*p) {
        vxr_spec spec = r->spec;
        spec.grid_level = grid_level;
        spec.picks = mode != VXR_MODE_FRAME;
        spec.rays = mode == VXR_MODE_RAYS;
        VkSpecializationMapEntry map[VXR_SPEC_COUNT];
        for (uint32_t i = 0; i < VXR_SPEC_COUNT; i++)
            map[i] = (VkSpecializationMapEntry){i, 4 * i, 4};
        VkSpecializationInfo si = {VXR_SPEC_COUNT, map, sizeof spec, &spec};
        VkComputePipelineCreateInfo pi = {
            .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
            .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                      .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                      .module = c->module,
                      .pName = "main",
                      .pSpecializationInfo = &si},
            .layout = c->pipeline_layout};
        vxr_result res = vxr_vk_check(
            c, err, c->vk.vkCreateComputePipelines(c->device, VK_NULL_HANDLE, 1, &pi, NULL, p),
            "vkCreateComputePipelines");
        if (res != VXR_OK) return res;
    }
    *dest = *p;
    return VXR_OK;
}

void vxr_renderer_pipelines_destroy(vxr_renderer *r) {
    vxr_context *c = r->ctx;
    for (uint32_t level = 0; level < VXR_GRID_LEVELS; level++)
        for (uint32_t mode = 0; mode < VXR_MODES; mode++)
            if (r->pipeline[level][mode])
                c->vk.vkDestroyPipeline(c->device, r->pipeline[level][mode], NULL);
}
