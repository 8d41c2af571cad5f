/* GPU-assisted validation (GPU-AV) on lavapipe, the positive control: a
 * compute shader of the test's own (tests/gpu_assisted.comp) writes a
 * storage buffer and reads a uniform texel buffer at indices the test
 * passes, on the device of a vxr context with validation.
 *  - with desc.gpu_assisted, a write past the end of the storage buffer is
 *    reported once ("out of bounds"), and in-range indices raise nothing;
 *  - so is a read past the end of the texel buffer, by the shader built
 *    for SPIR-V 1.3; built for SPIR-V 1.5 as vxr's own shader is, its
 *    texelFetch carries the ZeroExtend operand, which the layer of Debian
 *    12 (1.3.239) does not instrument: printed, not checked (TESTING.md);
 *  - without gpu_assisted no message comes, unless VK_LAYER_ENABLES names
 *    VK_VALIDATION_FEATURE_ENABLE_GPU_ASSISTED_EXT (the label gpu_assisted
 *    reruns the GPU tests so): then the layer honours the variable next to
 *    the context's own VkValidationFeaturesEXT and the write is reported;
 *  - gpu_assisted without validation is refused. */
#include "gpu.h"
#include "vxr_test.h"

/* --target-env=vulkan1.2, as the renderer's shader */
static const uint32_t shader_spv15[] =
#include "gpu_assisted.comp.inc"
    ;
/* --target-env=vulkan1.1: texelFetch without ZeroExtend */
static const uint32_t shader_spv13[] =
#include "gpu_assisted_spv13.comp.inc"
    ;

typedef struct shader {
    const uint32_t *code;
    size_t size;
} shader;
static const shader spv15 = {shader_spv15, sizeof shader_spv15};
static const shader spv13 = {shader_spv13, sizeof shader_spv13};

enum {
    BUFFER_BYTES = 64,   /* each buffer, all bound: 16 words, 16 r32ui texels */
    MEMORY_BYTES = 4096, /* each buffer's memory */
    OUT_OF_RANGE = 32    /* a word and a texel past the buffers, inside their memory */
};

/* The validation messages of a context, as its log receives them. */
typedef struct messages {
    uint32_t count, out_of_bounds;
} messages;

static void on_log(void *user, const char *line) {
    messages *m = user;
    if (strncmp(line, "validation", 10)) return;
    m->count++;
    m->out_of_bounds += strstr(line, "out of bounds") != NULL;
    fprintf(stderr, "  %.600s\n", line);
}

/* Whether VK_LAYER_ENABLES turns GPU-AV on for every instance. */
static bool env_gpu_assisted(void) {
    const char *e = getenv("VK_LAYER_ENABLES");
    return e && strstr(e, "VK_VALIDATION_FEATURE_ENABLE_GPU_ASSISTED_EXT");
}

typedef struct resources {
    VkBuffer data, texels;
    VkDeviceMemory data_mem, texel_mem;
    VkBufferView view;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkShaderModule module;
    VkPipeline pipeline;
    VkDescriptorPool pool;
    VkDescriptorSet set;
} resources;

/* A host-visible buffer of BUFFER_BYTES at the start of MEMORY_BYTES of
 * fresh memory, filled with 100, 101, ... */
static bool make_buffer(const cli_gpu *g, VkBufferUsageFlags usage, VkBuffer *buf,
                        VkDeviceMemory *mem) {
    VkDevice dev = g->info.device;
    VkBufferCreateInfo bi = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = BUFFER_BYTES, .usage = usage};
    if (vkCreateBuffer(dev, &bi, NULL, buf) != VK_SUCCESS) return false;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, *buf, &req);
    const VkMemoryPropertyFlags want =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type;
    if (!cli_gpu_memory_type(g->info.physical_device, req.memoryTypeBits, want, &type))
        return false;
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = req.size > MEMORY_BYTES ? req.size : MEMORY_BYTES,
                               .memoryTypeIndex = type};
    if (vkAllocateMemory(dev, &ai, NULL, mem) != VK_SUCCESS) return false;
    if (vkBindBufferMemory(dev, *buf, *mem, 0) != VK_SUCCESS) return false;
    uint32_t *p = NULL;
    if (vkMapMemory(dev, *mem, 0, VK_WHOLE_SIZE, 0, (void **)&p) != VK_SUCCESS) return false;
    for (uint32_t i = 0; i < MEMORY_BYTES / 4; i++) p[i] = 100 + i;
    vkUnmapMemory(dev, *mem);
    return true;
}

static bool make_resources(const cli_gpu *g, shader code, resources *r) {
    VkDevice dev = g->info.device;
    memset(r, 0, sizeof *r);
    if (!make_buffer(g, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &r->data, &r->data_mem) ||
        !make_buffer(g, VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT, &r->texels, &r->texel_mem))
        return false;
    VkBufferViewCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO,
                                 .buffer = r->texels,
                                 .format = VK_FORMAT_R32_UINT,
                                 .range = VK_WHOLE_SIZE};
    if (vkCreateBufferView(dev, &vi, NULL, &r->view) != VK_SUCCESS) return false;
    VkDescriptorSetLayoutBinding b[2] = {
        {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
        {1, VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL}};
    VkDescriptorSetLayoutCreateInfo li = {.sType =
                                              VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = 2,
                                          .pBindings = b};
    if (vkCreateDescriptorSetLayout(dev, &li, NULL, &r->set_layout) != VK_SUCCESS) return false;
    VkPushConstantRange pc = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 8};
    VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                      .setLayoutCount = 1,
                                      .pSetLayouts = &r->set_layout,
                                      .pushConstantRangeCount = 1,
                                      .pPushConstantRanges = &pc};
    if (vkCreatePipelineLayout(dev, &pli, NULL, &r->layout) != VK_SUCCESS) return false;
    VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                   .codeSize = code.size,
                                   .pCode = code.code};
    if (vkCreateShaderModule(dev, &mi, NULL, &r->module) != VK_SUCCESS) return false;
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = r->module,
                  .pName = "main"},
        .layout = r->layout};
    if (vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &ci, NULL, &r->pipeline) != VK_SUCCESS)
        return false;
    VkDescriptorPoolSize ps[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1},
                                  {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, 1}};
    VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                      .maxSets = 1,
                                      .poolSizeCount = 2,
                                      .pPoolSizes = ps};
    if (vkCreateDescriptorPool(dev, &dpi, NULL, &r->pool) != VK_SUCCESS) return false;
    VkDescriptorSetAllocateInfo dai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                       .descriptorPool = r->pool,
                                       .descriptorSetCount = 1,
                                       .pSetLayouts = &r->set_layout};
    if (vkAllocateDescriptorSets(dev, &dai, &r->set) != VK_SUCCESS) return false;
    VkDescriptorBufferInfo dbi = {r->data, 0, VK_WHOLE_SIZE};
    VkWriteDescriptorSet w[2] = {{.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                  .dstSet = r->set,
                                  .dstBinding = 0,
                                  .descriptorCount = 1,
                                  .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  .pBufferInfo = &dbi},
                                 {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                  .dstSet = r->set,
                                  .dstBinding = 1,
                                  .descriptorCount = 1,
                                  .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER,
                                  .pTexelBufferView = &r->view}};
    vkUpdateDescriptorSets(dev, 2, w, 0, NULL);
    return true;
}

static void destroy_resources(const cli_gpu *g, resources *r) {
    VkDevice dev = g->info.device;
    vkDestroyDescriptorPool(dev, r->pool, NULL);
    vkDestroyPipeline(dev, r->pipeline, NULL);
    vkDestroyShaderModule(dev, r->module, NULL);
    vkDestroyPipelineLayout(dev, r->layout, NULL);
    vkDestroyDescriptorSetLayout(dev, r->set_layout, NULL);
    vkDestroyBufferView(dev, r->view, NULL);
    vkDestroyBuffer(dev, r->data, NULL);
    vkDestroyBuffer(dev, r->texels, NULL);
    vkFreeMemory(dev, r->data_mem, NULL);
    vkFreeMemory(dev, r->texel_mem, NULL);
}

/* One dispatch of code with data index `index` and texel `texel` on a
 * fresh context (validation on; GPU-AV as gpu_assisted says); the messages
 * it raised into m, the first four data words into words. false when no
 * device. */
static bool dispatch(bool gpu_assisted, shader code, uint32_t index, int32_t texel, messages *m,
                     uint32_t words[4]) {
    memset(m, 0, sizeof *m);
    cli_gpu g;
    vxr_error err = {{0}};
    vxr_context_desc d = {
        .validation = true, .gpu_assisted = gpu_assisted, .log = on_log, .log_user = m};
    if (cli_gpu_open(&g, &d, &err) != VXR_OK) {
        fprintf(stderr, "%s\n", err.message);
        return false;
    }
    resources r;
    bool made = make_resources(&g, code, &r);
    CHECK(made);
    if (made) {
        const uint32_t push[2] = {index, (uint32_t)texel};
        CHECK(cli_gpu_begin(&g, &err) == VXR_OK);
        vkCmdBindPipeline(g.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r.pipeline);
        vkCmdBindDescriptorSets(g.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r.layout, 0, 1, &r.set, 0,
                                NULL);
        vkCmdPushConstants(g.cmd, r.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
        vkCmdDispatch(g.cmd, 1, 1, 1);
        VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                              .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
        vkCmdPipelineBarrier(g.cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                             VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
        CHECK(cli_gpu_submit(&g, &err) == VXR_OK);
        uint32_t *p = NULL;
        CHECK(vkMapMemory(g.info.device, r.data_mem, 0, VK_WHOLE_SIZE, 0, (void **)&p) ==
              VK_SUCCESS);
        if (p) {
            memcpy(words, p, 4 * sizeof *words);
            vkUnmapMemory(g.info.device, r.data_mem);
        }
    }
    destroy_resources(&g, &r);
    cli_gpu_close(&g);
    return true;
}

/* In range with GPU-AV: the shader's accesses land, no message. */
static void test_in_range(void) {
    messages m;
    uint32_t w[4] = {0};
    if (!dispatch(true, spv15, 3, 5, &m, w)) SKIP("no device");
    CHECK_EQ_INT(m.count, 0);
    CHECK_EQ_INT(w[3], 7);
    CHECK_EQ_INT(w[1], 105); /* texel 5 */
    CHECK_EQ_INT(w[0], 100);
    if (!dispatch(true, spv13, 3, 5, &m, w)) SKIP("no device");
    CHECK_EQ_INT(m.count, 0);
    CHECK_EQ_INT(w[1], 105);
}

/* A write past the storage buffer with GPU-AV: reported, exactly once. */
static void test_storage_out_of_range(void) {
    messages m;
    uint32_t w[4] = {0};
    if (!dispatch(true, spv15, OUT_OF_RANGE, 5, &m, w)) SKIP("no device");
    CHECK_EQ_INT(m.out_of_bounds, 1);
    CHECK_EQ_INT(m.count, 1);
}

/* A read past the texel buffer with GPU-AV: reported, exactly once, from
 * SPIR-V 1.3; from SPIR-V 1.5 (ZeroExtend) whatever the layer does. */
static void test_texel_out_of_range(void) {
    messages m;
    uint32_t w[4] = {0};
    if (!dispatch(true, spv13, 3, OUT_OF_RANGE, &m, w)) SKIP("no device");
    CHECK_EQ_INT(m.out_of_bounds, 1);
    CHECK_EQ_INT(m.count, 1);
    if (!dispatch(true, spv15, 3, OUT_OF_RANGE, &m, w)) SKIP("no device");
    CHECK(m.count == m.out_of_bounds && m.count <= 1);
    fprintf(stderr, "  texelFetch with ZeroExtend (SPIR-V 1.5, as vxr's shader): %s\n",
            m.count ? "checked" : "not checked by this layer");
}

/* Without desc.gpu_assisted: silent, unless the environment turns GPU-AV
 * on for every instance. */
static void test_off(void) {
    messages m;
    uint32_t w[4] = {0};
    if (!dispatch(false, spv15, OUT_OF_RANGE, 5, &m, w)) SKIP("no device");
    uint32_t expect = env_gpu_assisted() ? 1 : 0;
    fprintf(stderr, "  VK_LAYER_ENABLES %s GPU-AV: expecting %u message\n",
            expect ? "names" : "does not name", expect);
    CHECK_EQ_INT(m.out_of_bounds, expect);
    CHECK_EQ_INT(m.count, expect);
}
/* gpu_assisted is part of validation. */
static void test_needs_validation(void) {
    cli_gpu g;
    vxr_error err = {{0}};
    vxr_result r = cli_gpu_open(&g, &(vxr_context_desc){.gpu_assisted = true}, &err);
    if (r == VXR_ERROR_DEVICE) SKIP("no device");
    CHECK_EQ_INT(r, VXR_ERROR_ARGUMENT);
    CHECK(strstr(err.message, "gpu_assisted") != NULL);
}

int main(int argc, char **argv) {
    static const vxr_test_case tests[] = {
        {"in_range", test_in_range},
        {"storage_out_of_range", test_storage_out_of_range},
        {"texel_out_of_range", test_texel_out_of_range},
        {"off", test_off},
        {"needs_validation", test_needs_validation},
    };
    return vxr_test_run(tests, (int)(sizeof tests / sizeof tests[0]), argc, argv);
}
