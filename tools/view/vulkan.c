/* vxr view's Vulkan plumbing: swapchain, frames, overlay pipeline.
 *
 * The instance and device are the renderer's own context (cli_gpu_open),
 * asked for the window system's extensions, VK_KHR_swapchain and a queue
 * family that computes, draws and presents to the window's surface (made
 * by the context's instance_ready hook). Frames reach the screen by
 * vkCmdBlitImage from the renderer's RGBA8 target into the swapchain image
 * (storage-capable swapchain images are not required), then a small render
 * pass draws the pick overlay on top. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "view.h"

/* The overlay shader's push constants: its view_proj matrix. */
#define VIEW_PROJ_BYTES (16 * sizeof(float))
/* Bounds on what the surface lists; more is never seen, the rest ignored. */
enum { MAX_FORMATS = 64, MAX_PRESENT_MODES = 16 };

static const uint32_t overlay_vert_spv[] =
#include "overlay.vert.inc"
    ;
static const uint32_t overlay_frag_spv[] =
#include "overlay.frag.inc"
    ;

static vxr_result fail(vxr_error *err, vxr_result r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static vxr_result fail(vxr_error *err, vxr_result r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err) vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return r;
}

/* Runs a Vulkan call; on failure returns its reason (the function's name
 * and the VkResult's). */
#define VK_TRY(fn, args)                                                                           \
    do {                                                                                           \
        VkResult vr_ = fn args;                                                                    \
        if (vr_ != VK_SUCCESS) return cli_vk_error(err, vr_, #fn);                                 \
    } while (0)

static vxr_result create_pipelines(view_vk *v, vxr_error *err) {
    VkShaderModule vs = VK_NULL_HANDLE, fs = VK_NULL_HANDLE;
    VkShaderModuleCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                   .codeSize = sizeof overlay_vert_spv,
                                   .pCode = overlay_vert_spv};
    VK_TRY(vkCreateShaderModule, (v->device, &si, NULL, &vs));
    si.codeSize = sizeof overlay_frag_spv;
    si.pCode = overlay_frag_spv;
    VkResult vr = vkCreateShaderModule(v->device, &si, NULL, &fs);
    VkPushConstantRange pr = {VK_SHADER_STAGE_VERTEX_BIT, 0, VIEW_PROJ_BYTES};
    VkPipelineLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .pushConstantRangeCount = 1,
                                     .pPushConstantRanges = &pr};
    if (vr == VK_SUCCESS) vr = vkCreatePipelineLayout(v->device, &li, NULL, &v->layout);
    VkPipelineShaderStageCreateInfo stages[2] = {
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
         .stage = VK_SHADER_STAGE_VERTEX_BIT,
         .module = vs,
         .pName = "main"},
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
         .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
         .module = fs,
         .pName = "main"}};
    VkVertexInputBindingDescription bind = {0, sizeof(view_vertex), VK_VERTEX_INPUT_RATE_VERTEX};
    VkVertexInputAttributeDescription attrs[2] = {
        {0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0},
        {1, 0, VK_FORMAT_R8G8B8A8_UNORM, (uint32_t)offsetof(view_vertex, color)}};
    VkPipelineVertexInputStateCreateInfo vi = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
        .vertexBindingDescriptionCount = 1,
        .pVertexBindingDescriptions = &bind,
        .vertexAttributeDescriptionCount = 2,
        .pVertexAttributeDescriptions = attrs};
    VkPipelineInputAssemblyStateCreateInfo ia = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
        .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST};
    VkPipelineViewportStateCreateInfo vp = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
        .viewportCount = 1,
        .scissorCount = 1};
    VkPipelineRasterizationStateCreateInfo rs = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
        .polygonMode = VK_POLYGON_MODE_FILL,
        .cullMode = VK_CULL_MODE_NONE,
        .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE,
        .lineWidth = 1.0f};
    VkPipelineMultisampleStateCreateInfo ms = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
        .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT};
    /* colour: alpha blending (ops ADD, the zero value); the frame's alpha
     * stays as it was (ZERO x overlay + ONE x frame) */
    VkPipelineColorBlendAttachmentState blend = {
        .blendEnable = VK_TRUE,
        .srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA,
        .dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
        .dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
        .colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
                          VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT};
    VkPipelineColorBlendStateCreateInfo cb = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
        .attachmentCount = 1,
        .pAttachments = &blend};
    VkDynamicState dyn[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo ds = {.sType =
                                               VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
                                           .dynamicStateCount = 2,
                                           .pDynamicStates = dyn};
    VkGraphicsPipelineCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
                                       .stageCount = 2,
                                       .pStages = stages,
                                       .pVertexInputState = &vi,
                                       .pInputAssemblyState = &ia,
                                       .pViewportState = &vp,
                                       .pRasterizationState = &rs,
                                       .pMultisampleState = &ms,
                                       .pColorBlendState = &cb,
                                       .pDynamicState = &ds,
                                       .layout = v->layout,
                                       .renderPass = v->pass};
    if (vr == VK_SUCCESS)
        vr = vkCreateGraphicsPipelines(v->device, VK_NULL_HANDLE, 1, &pi, NULL, &v->triangles);
    ia.topology = VK_PRIMITIVE_TOPOLOGY_LINE_LIST;
    if (vr == VK_SUCCESS)
        vr = vkCreateGraphicsPipelines(v->device, VK_NULL_HANDLE, 1, &pi, NULL, &v->lines);
    vkDestroyShaderModule(v->device, vs, NULL);
    if (fs) vkDestroyShaderModule(v->device, fs, NULL);
    return vr == VK_SUCCESS ? VXR_OK : cli_vk_error(err, vr, "overlay pipeline creation");
}

/* The swapchain format: 8-bit UNORM, so that the blit copies the
 * renderer's bytes unchanged (an sRGB format would encode them again). */
static vxr_result choose_format(view_vk *v, VkSurfaceFormatKHR *dest, vxr_error *err) {
    VkSurfaceFormatKHR formats[MAX_FORMATS];
    uint32_t n = MAX_FORMATS;
    VkResult vr = vkGetPhysicalDeviceSurfaceFormatsKHR(v->physical, v->surface, &n, formats);
    if (vr != VK_SUCCESS && vr != VK_INCOMPLETE)
        return cli_vk_error(err, vr, "vkGetPhysicalDeviceSurfaceFormatsKHR");
    const VkFormat wanted[2] = {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM};
    for (int w = 0; w < 2; w++)
        for (uint32_t i = 0; i < n; i++) {
            VkFormatProperties fp;
            vkGetPhysicalDeviceFormatProperties(v->physical, formats[i].format, &fp);
            const VkFormatFeatureFlags need =
                VK_FORMAT_FEATURE_BLIT_DST_BIT | VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT;
            if (formats[i].format == wanted[w] &&
                formats[i].colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR &&
                (fp.optimalTilingFeatures & need) == need) {
                *dest = formats[i];
                return VXR_OK;
            }
        }
    return fail(err, VXR_ERROR_DEVICE,
                "the window offers no 8-bit UNORM swapchain format that can be blitted to");
}

static vxr_result create_pass(view_vk *v, vxr_error *err) {
    /* load and store (the zero values of the ops): the overlay goes over the
     * blitted frame; a colour format has no stencil to care about */
    VkAttachmentDescription att = {.format = v->format,
                                   .samples = VK_SAMPLE_COUNT_1_BIT,
                                   .initialLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                   .finalLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR};
    VkAttachmentReference ref = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription sub = {.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
                                .colorAttachmentCount = 1,
                                .pColorAttachments = &ref};
    /* the blit's writes before the overlay's; presentation needs no more
     * (the submit's semaphore signal waits for all commands) */
    VkSubpassDependency dep = {.srcSubpass = VK_SUBPASS_EXTERNAL,
                               .dstSubpass = 0,
                               .srcStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT,
                               .dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                               .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_READ_BIT |
                                                VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT};
    VkRenderPassCreateInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
                                 .attachmentCount = 1,
                                 .pAttachments = &att,
                                 .subpassCount = 1,
                                 .pSubpasses = &sub,
                                 .dependencyCount = 1,
                                 .pDependencies = &dep};
    VK_TRY(vkCreateRenderPass, (v->device, &ri, NULL, &v->pass));
    return VXR_OK;
}

static vxr_result create_frames(view_vk *v, vxr_error *err) {
    if (v->gpu.info.timestamp_bits) {
        VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                    .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                    .queryCount = 2 * VIEW_FRAMES};
        VK_TRY(vkCreateQueryPool, (v->device, &qi, NULL, &v->queries));
    }
    for (int i = 0; i < VIEW_FRAMES; i++) {
        view_frame *f = &v->frames[i];
        VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = v->gpu.pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
        VK_TRY(vkAllocateCommandBuffers, (v->device, &ai, &f->cmd));
        VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
                                .flags = VK_FENCE_CREATE_SIGNALED_BIT};
        VK_TRY(vkCreateFence, (v->device, &fi, NULL, &f->fence));
        VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        VK_TRY(vkCreateSemaphore, (v->device, &si, NULL, &f->acquired));
        vxr_result r = vxr_rays_create(v->gpu.ctx, 1, &f->rays, err);
        if (r != VXR_OK) return r;
        VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                                 .size = VIEW_MAX_VERTICES * sizeof(view_vertex),
                                 .usage = VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                                 .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
        VK_TRY(vkCreateBuffer, (v->device, &bi, NULL, &f->vertices));
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(v->device, f->vertices, &req);
        const VkMemoryPropertyFlags host =
            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        uint32_t type;
        if (!cli_gpu_memory_type(v->physical, req.memoryTypeBits, host, &type))
            return fail(err, VXR_ERROR_VULKAN, "no host-visible coherent memory");
        VkMemoryAllocateInfo mi = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                   .allocationSize = req.size,
                                   .memoryTypeIndex = type};
        VK_TRY(vkAllocateMemory, (v->device, &mi, NULL, &f->vertex_memory));
        VK_TRY(vkBindBufferMemory, (v->device, f->vertices, f->vertex_memory, 0));
        VK_TRY(vkMapMemory,
               (v->device, f->vertex_memory, 0, VK_WHOLE_SIZE, 0, (void **)&f->vertex_map));
    }
    return VXR_OK;
}

/* The context's hooks (vxr_context_desc): the window's surface, made once
 * the instance exists and destroyed before it is; a family must present. */
static vxr_result make_surface(void *user, VkInstance instance, vxr_error *err) {
    view_vk *v = user;
    volkLoadInstanceOnly(instance);
    v->instance = instance;
    VkResult vr = glfwCreateWindowSurface(instance, v->window, NULL, &v->surface);
    if (vr == VK_SUCCESS) return VXR_OK;
    return fail(err, VXR_ERROR_DEVICE, "cannot create a Vulkan surface: %s",
                vxr_vk_result_string(vr));
}

static void release_surface(void *user, VkInstance instance) {
    view_vk *v = user;
    if (v->surface) vkDestroySurfaceKHR(instance, v->surface, NULL);
    v->surface = VK_NULL_HANDLE;
}

static bool presents(void *user, VkPhysicalDevice pd, uint32_t family) {
    view_vk *v = user;
    VkBool32 ok = VK_FALSE;
    return vkGetPhysicalDeviceSurfaceSupportKHR(pd, family, v->surface, &ok) == VK_SUCCESS && ok;
}

vxr_result view_vk_open(view_vk *v, GLFWwindow *window, bool validate, vxr_error *err) {
    memset(v, 0, sizeof *v);
    v->window = window;
    uint32_t n_exts = 0;
    const char **exts = glfwGetRequiredInstanceExtensions(&n_exts);
    if (!exts)
        return fail(err, VXR_ERROR_DEVICE, "the window system has no Vulkan surface support");
    static const char *const device_exts[] = {VK_KHR_SWAPCHAIN_EXTENSION_NAME};
    /* lazy: the viewer's default light frames use none of the flat set */
    vxr_context_desc d = {.validation = validate,
                          .lazy_pipelines = true,
                          .instance_extensions = exts,
                          .instance_extension_count = n_exts,
                          .device_extensions = device_exts,
                          .device_extension_count = 1,
                          .queue_flags = VK_QUEUE_GRAPHICS_BIT,
                          .queue_family_ok = presents,
                          .instance_ready = make_surface,
                          .instance_release = release_surface,
                          .user = v};
    vxr_result r = cli_gpu_open(&v->gpu, &d, err);
    if (r != VXR_OK) return r;
    v->device = v->gpu.info.device;
    v->physical = v->gpu.info.physical_device;
    VkSurfaceFormatKHR format = {0};
    if ((r = choose_format(v, &format, err)) != VXR_OK) return r;
    v->format = format.format;
    VkFormatProperties fp;
    vkGetPhysicalDeviceFormatProperties(v->physical, VK_FORMAT_R8G8B8A8_UNORM, &fp);
    if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_BLIT_SRC_BIT))
        return fail(err, VXR_ERROR_DEVICE, "the device cannot blit from RGBA8 images");
    if ((r = create_pass(v, err)) != VXR_OK || (r = create_pipelines(v, err)) != VXR_OK) return r;
    return create_frames(v, err);
}

static void destroy_swapchain_images(view_vk *v) {
    for (uint32_t i = 0; i < v->image_count; i++) {
        if (v->framebuffers[i]) vkDestroyFramebuffer(v->device, v->framebuffers[i], NULL);
        if (v->views[i]) vkDestroyImageView(v->device, v->views[i], NULL);
        if (v->presented[i]) vkDestroySemaphore(v->device, v->presented[i], NULL);
        v->framebuffers[i] = VK_NULL_HANDLE;
        v->views[i] = VK_NULL_HANDLE;
        v->presented[i] = VK_NULL_HANDLE;
    }
    v->image_count = 0;
}

vxr_result view_vk_swapchain(view_vk *v, uint32_t width, uint32_t height, vxr_error *err) {
    vkDeviceWaitIdle(v->device);
    destroy_swapchain_images(v);
    VkSurfaceCapabilitiesKHR caps;
    VK_TRY(vkGetPhysicalDeviceSurfaceCapabilitiesKHR, (v->physical, v->surface, &caps));
    VkExtent2D e = caps.currentExtent;
    if (e.width == UINT32_MAX) { /* the surface takes the swapchain's size */
        e.width = width;
        e.height = height;
    }
    if (e.width < caps.minImageExtent.width) e.width = caps.minImageExtent.width;
    if (e.height < caps.minImageExtent.height) e.height = caps.minImageExtent.height;
    if (e.width > caps.maxImageExtent.width) e.width = caps.maxImageExtent.width;
    if (e.height > caps.maxImageExtent.height) e.height = caps.maxImageExtent.height;
    if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT))
        return fail(err, VXR_ERROR_DEVICE, "swapchain images cannot be blitted to");
    uint32_t count = caps.minImageCount + 1;
    if (caps.maxImageCount && count > caps.maxImageCount) count = caps.maxImageCount;
    /* FIFO (vsync) is always there; MAILBOX presents without waiting */
    VkPresentModeKHR modes[MAX_PRESENT_MODES];
    uint32_t nm = MAX_PRESENT_MODES;
    VkPresentModeKHR mode = VK_PRESENT_MODE_FIFO_KHR;
    if (vkGetPhysicalDeviceSurfacePresentModesKHR(v->physical, v->surface, &nm, modes) >= 0)
        for (uint32_t i = 0; i < nm; i++)
            if (modes[i] == VK_PRESENT_MODE_MAILBOX_KHR) mode = modes[i];
    VkCompositeAlphaFlagBitsKHR alpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    if (!(caps.supportedCompositeAlpha & alpha))
        alpha = (VkCompositeAlphaFlagBitsKHR)(caps.supportedCompositeAlpha &
                                              -caps.supportedCompositeAlpha);
    VkSwapchainKHR old = v->swapchain;
    VkSwapchainCreateInfoKHR ci = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
                                   .surface = v->surface,
                                   .minImageCount = count,
                                   .imageFormat = v->format,
                                   .imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR,
                                   .imageExtent = e,
                                   .imageArrayLayers = 1,
                                   .imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                                 VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
                                   .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
                                   .preTransform = caps.currentTransform,
                                   .compositeAlpha = alpha,
                                   .presentMode = mode,
                                   .clipped = VK_TRUE,
                                   .oldSwapchain = old};
    VkResult vr = vkCreateSwapchainKHR(v->device, &ci, NULL, &v->swapchain);
    if (old) vkDestroySwapchainKHR(v->device, old, NULL);
    if (vr != VK_SUCCESS) {
        v->swapchain = VK_NULL_HANDLE;
        return cli_vk_error(err, vr, "vkCreateSwapchainKHR");
    }
    v->extent = e;
    uint32_t n = VIEW_MAX_IMAGES;
    vr = vkGetSwapchainImagesKHR(v->device, v->swapchain, &n, v->images);
    if (vr != VK_SUCCESS) return cli_vk_error(err, vr, "vkGetSwapchainImagesKHR");
    v->image_count = n;
    for (uint32_t i = 0; i < n; i++) {
        VkImageViewCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
                                    .image = v->images[i],
                                    .viewType = VK_IMAGE_VIEW_TYPE_2D,
                                    .format = v->format,
                                    .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
        VK_TRY(vkCreateImageView, (v->device, &vi, NULL, &v->views[i]));
        VkFramebufferCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
                                      .renderPass = v->pass,
                                      .attachmentCount = 1,
                                      .pAttachments = &v->views[i],
                                      .width = e.width,
                                      .height = e.height,
                                      .layers = 1};
        VK_TRY(vkCreateFramebuffer, (v->device, &fi, NULL, &v->framebuffers[i]));
        VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        VK_TRY(vkCreateSemaphore, (v->device, &si, NULL, &v->presented[i]));
    }
    return VXR_OK;
}

void view_vk_record_present(view_vk *v, view_frame *f, uint32_t i, vxr_target *src,
                            const float view_proj[16], uint32_t tri, uint32_t line) {
    VkCommandBuffer cmd = f->cmd;
    /* the swapchain image's old contents are not needed; the acquire
     * semaphore is waited at the transfer stage, where the blit starts */
    vxr_target_blit(src, v->images[i], VK_IMAGE_LAYOUT_UNDEFINED, cmd);
    int32_t w = (int32_t)v->extent.width, h = (int32_t)v->extent.height;
    VkRenderPassBeginInfo rb = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
                                .renderPass = v->pass,
                                .framebuffer = v->framebuffers[i],
                                .renderArea = {{0, 0}, v->extent}};
    vkCmdBeginRenderPass(cmd, &rb, VK_SUBPASS_CONTENTS_INLINE);
    if (tri + line) {
        VkViewport vp = {0, 0, (float)w, (float)h, 0, 1};
        VkRect2D sc = {{0, 0}, v->extent};
        VkDeviceSize offset = 0;
        vkCmdSetViewport(cmd, 0, 1, &vp);
        vkCmdSetScissor(cmd, 0, 1, &sc);
        vkCmdBindVertexBuffers(cmd, 0, 1, &f->vertices, &offset);
        vkCmdPushConstants(cmd, v->layout, VK_SHADER_STAGE_VERTEX_BIT, 0, VIEW_PROJ_BYTES,
                           view_proj);
        if (tri) {
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, v->triangles);
            vkCmdDraw(cmd, tri, 1, 0, 0);
        }
        if (line) {
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, v->lines);
            vkCmdDraw(cmd, line, 1, tri, 0);
        }
    }
    vkCmdEndRenderPass(cmd);
}

uint32_t view_vk_close(view_vk *v) {
    uint32_t messages = 0;
    if (v->device) {
        vkDeviceWaitIdle(v->device);
        for (int i = 0; i < VIEW_FRAMES; i++) {
            view_frame *f = &v->frames[i];
            vxr_rays_destroy(f->rays);
            if (f->vertices) vkDestroyBuffer(v->device, f->vertices, NULL);
            if (f->vertex_memory) vkFreeMemory(v->device, f->vertex_memory, NULL);
            if (f->fence) vkDestroyFence(v->device, f->fence, NULL);
            if (f->acquired) vkDestroySemaphore(v->device, f->acquired, NULL);
        }
        destroy_swapchain_images(v);
        if (v->swapchain) vkDestroySwapchainKHR(v->device, v->swapchain, NULL);
        if (v->queries) vkDestroyQueryPool(v->device, v->queries, NULL);
        if (v->triangles) vkDestroyPipeline(v->device, v->triangles, NULL);
        if (v->lines) vkDestroyPipeline(v->device, v->lines, NULL);
        if (v->layout) vkDestroyPipelineLayout(v->device, v->layout, NULL);
        if (v->pass) vkDestroyRenderPass(v->device, v->pass, NULL);
    }
    if (v->gpu.ctx) messages = vxr_context_validation_messages(v->gpu.ctx);
    cli_gpu_close(&v->gpu); /* the device, then the surface and the instance */
    memset(v, 0, sizeof *v);
    return messages;
}
