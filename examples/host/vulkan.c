/* The host's Vulkan setup (examples/host): instance, device, images,
 * swapchain, the cube's passes and pipeline, one-time command buffers.
 * Nothing here is vxr-specific except the one device feature vxr needs. */
#include "host.h"

static const uint32_t cube_vert_spv[] =
#include "cube.vert.inc"
    ;
static const uint32_t cube_frag_spv[] =
#include "cube.frag.inc"
    ;

uint32_t validation_messages;

static VKAPI_ATTR VkBool32 VKAPI_CALL on_validation(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
    (void)severity, (void)types, (void)user;
    validation_messages++;
    fprintf(stderr, "validation: %s\n", data->pMessage);
    return VK_FALSE;
}

void create_instance(app *a) {
    uint32_t n = 0;
    const char **glfw_exts = glfwGetRequiredInstanceExtensions(&n);
    if (!glfw_exts || n > 8) die("the window system offers no Vulkan surface");
    const char *exts[10];
    memcpy(exts, glfw_exts, n * sizeof *exts);
    /* --validate: the validation layer with synchronization validation; the
     * messenger counts every warning and error, and any fails the run */
    VkDebugUtilsMessengerCreateInfoEXT mi = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = on_validation};
    const VkValidationFeatureEnableEXT sync =
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT features = {.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
                                        .pNext = &mi,
                                        .enabledValidationFeatureCount = 1,
                                        .pEnabledValidationFeatures = &sync};
    const char *layer = "VK_LAYER_KHRONOS_validation";
    if (a->validate) {
        exts[n++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
        exts[n++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
    }
    VkApplicationInfo info = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                              .pApplicationName = "vxr host example",
                              .apiVersion = VK_API_VERSION_1_2};
    VkInstanceCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                               .pNext = a->validate ? &features : NULL,
                               .pApplicationInfo = &info,
                               .enabledLayerCount = a->validate ? 1 : 0,
                               .ppEnabledLayerNames = &layer,
                               .enabledExtensionCount = n,
                               .ppEnabledExtensionNames = exts};
    VK_CHECK(vkCreateInstance(&ii, NULL, &a->instance));
    if (a->validate) {
        PFN_vkCreateDebugUtilsMessengerEXT create =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
                a->instance, "vkCreateDebugUtilsMessengerEXT");
        VK_CHECK(create(a->instance, &mi, NULL, &a->messenger));
    }
    VK_CHECK(glfwCreateWindowSurface(a->instance, a->window, NULL, &a->surface));
}

/* The first device with Vulkan 1.2, shaderStorageImageWriteWithoutFormat
 * (for vxr) and a queue family that draws, computes and presents. */
void create_device(app *a) {
    VkPhysicalDevice devices[16];
    uint32_t count = 16;
    vkEnumeratePhysicalDevices(a->instance, &count, devices);
    for (uint32_t d = 0; d < count && !a->physical; d++) {
        VkPhysicalDeviceProperties props;
        VkPhysicalDeviceFeatures features;
        vkGetPhysicalDeviceProperties(devices[d], &props);
        vkGetPhysicalDeviceFeatures(devices[d], &features);
        if (props.apiVersion < VK_API_VERSION_1_2 || !features.shaderStorageImageWriteWithoutFormat)
            continue;
        VkQueueFamilyProperties families[16];
        uint32_t nf = 16;
        vkGetPhysicalDeviceQueueFamilyProperties(devices[d], &nf, families);
        const VkQueueFlags need = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
        for (uint32_t i = 0; i < nf; i++) {
            VkBool32 present = VK_FALSE;
            vkGetPhysicalDeviceSurfaceSupportKHR(devices[d], i, a->surface, &present);
            if ((families[i].queueFlags & need) == need && present) {
                a->physical = devices[d];
                a->family = i;
                break;
            }
        }
    }
    if (!a->physical) die("no Vulkan 1.2 device draws, computes and presents to the window");
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                  .queueFamilyIndex = a->family,
                                  .queueCount = 1,
                                  .pQueuePriorities = &priority};
    /* vxr writes the host's colour image as a storage image without a
     * format qualifier: the one feature it needs the host to enable */
    VkPhysicalDeviceFeatures features = {.shaderStorageImageWriteWithoutFormat = VK_TRUE};
    const char *ext = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
    VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                             .queueCreateInfoCount = 1,
                             .pQueueCreateInfos = &qi,
                             .enabledExtensionCount = 1,
                             .ppEnabledExtensionNames = &ext,
                             .pEnabledFeatures = &features};
    VK_CHECK(vkCreateDevice(a->physical, &di, NULL, &a->device));
    vkGetDeviceQueue(a->device, a->family, 0, &a->queue);
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                  .queueFamilyIndex = a->family};
    VK_CHECK(vkCreateCommandPool(a->device, &pi, NULL, &a->pool));
}

VkDeviceMemory allocate(app *a, VkMemoryRequirements req, VkMemoryPropertyFlags want) {
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(a->physical, &mp);
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
        if ((req.memoryTypeBits >> i & 1) && (mp.memoryTypes[i].propertyFlags & want) == want) {
            VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                       .allocationSize = req.size,
                                       .memoryTypeIndex = i};
            VkDeviceMemory memory;
            VK_CHECK(vkAllocateMemory(a->device, &ai, NULL, &memory));
            return memory;
        }
    die("no memory type with properties %#x", want);
}

void create_image(app *a, VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect,
                  VkImage *image, VkDeviceMemory *memory, VkImageView *view) {
    VkImageCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
                            .imageType = VK_IMAGE_TYPE_2D,
                            .format = format,
                            .extent = {a->extent.width, a->extent.height, 1},
                            .mipLevels = 1,
                            .arrayLayers = 1,
                            .samples = VK_SAMPLE_COUNT_1_BIT,
                            .tiling = VK_IMAGE_TILING_OPTIMAL,
                            .usage = usage};
    VK_CHECK(vkCreateImage(a->device, &ii, NULL, image));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(a->device, *image, &req);
    *memory = allocate(a, req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    VK_CHECK(vkBindImageMemory(a->device, *image, *memory, 0));
    VkImageViewCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
                                .image = *image,
                                .viewType = VK_IMAGE_VIEW_TYPE_2D,
                                .format = format,
                                .subresourceRange = {aspect, 0, 1, 0, 1}};
    VK_CHECK(vkCreateImageView(a->device, &vi, NULL, view));
}

/* The swapchain and what has its size: the scene colour and depth images
 * and the vxr target over the colour image. Swapchain images only receive a
 * blit (TRANSFER_DST): they need not support storage. */
void create_swapchain(app *a) {
    VkSurfaceCapabilitiesKHR caps;
    VK_CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(a->physical, a->surface, &caps));
    VkExtent2D e = caps.currentExtent;
    if (e.width == UINT32_MAX) e = (VkExtent2D){a->width, a->height};
    if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT))
        die("swapchain images cannot be blitted to");
    VkSurfaceFormatKHR formats[64];
    uint32_t nf = 64;
    vkGetPhysicalDeviceSurfaceFormatsKHR(a->physical, a->surface, &nf, formats);
    a->swap_format = VK_FORMAT_UNDEFINED;
    for (uint32_t i = 0; i < nf; i++) /* UNORM: the blit copies vxr's bytes as they are */
        if ((formats[i].format == VK_FORMAT_B8G8R8A8_UNORM ||
             formats[i].format == VK_FORMAT_R8G8B8A8_UNORM) &&
            formats[i].colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR)
            a->swap_format = formats[i].format;
    if (!a->swap_format) die("the window offers no 8-bit UNORM swapchain format");
    uint32_t count = caps.minImageCount + 1;
    if (caps.maxImageCount && count > caps.maxImageCount) count = caps.maxImageCount;
    VkSwapchainKHR old = a->swapchain;
    VkSwapchainCreateInfoKHR ci = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
                                   .surface = a->surface,
                                   .minImageCount = count,
                                   .imageFormat = a->swap_format,
                                   .imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR,
                                   .imageExtent = e,
                                   .imageArrayLayers = 1,
                                   .imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                   .preTransform = caps.currentTransform,
                                   .compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
                                   .presentMode = VK_PRESENT_MODE_FIFO_KHR,
                                   .clipped = VK_TRUE,
                                   .oldSwapchain = old};
    VK_CHECK(vkCreateSwapchainKHR(a->device, &ci, NULL, &a->swapchain));
    if (old) vkDestroySwapchainKHR(a->device, old, NULL);
    a->extent = e;
    a->image_count = MAX_IMAGES;
    VK_CHECK(vkGetSwapchainImagesKHR(a->device, a->swapchain, &a->image_count, a->images));
    for (uint32_t i = 0; i < a->image_count; i++) {
        VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        VK_CHECK(vkCreateSemaphore(a->device, &si, NULL, &a->presented[i]));
    }
    /* colour: the cube's attachment, vxr's storage image, the blit's source */
    create_image(a, COLOR_FORMAT,
                 VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_STORAGE_BIT |
                     VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                 VK_IMAGE_ASPECT_COLOR_BIT, &a->color, &a->color_memory, &a->color_view);
    /* depth: the cube's attachment, vxr's depth_in (a copy from it) and
     * depth_out (a copy into it) */
    create_image(a, DEPTH_FORMAT,
                 VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                     VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                 VK_IMAGE_ASPECT_DEPTH_BIT, &a->depth, &a->depth_memory, &a->depth_view);
    VkImageView views[2] = {a->color_view, a->depth_view};
    VkFramebufferCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
                                  .renderPass = a->pass[0],
                                  .attachmentCount = 2,
                                  .pAttachments = views,
                                  .width = e.width,
                                  .height = e.height,
                                  .layers = 1};
    VK_CHECK(vkCreateFramebuffer(a->device, &fi, NULL, &a->framebuffer));
    /* vxr's target: the host's colour image (the whole of it: x, y, width
     * and height may pick a rectangle) and a depth buffer of vxr's own that
     * depth_in and depth_out copy from and to */
    vxr_target_desc td = {.width = e.width,
                          .height = e.height,
                          .depth = true,
                          .image = a->color,
                          .view = a->color_view,
                          .format = COLOR_FORMAT};
    VXR_CHECK(vxr_target_create(a->vxr, &td, &a->target, &err));
}

void destroy_swapchain_images(app *a) {
    vxr_target_destroy(a->target);
    vkDestroyFramebuffer(a->device, a->framebuffer, NULL);
    vkDestroyImageView(a->device, a->color_view, NULL);
    vkDestroyImageView(a->device, a->depth_view, NULL);
    vkDestroyImage(a->device, a->color, NULL);
    vkDestroyImage(a->device, a->depth, NULL);
    vkFreeMemory(a->device, a->color_memory, NULL);
    vkFreeMemory(a->device, a->depth_memory, NULL);
    for (uint32_t i = 0; i < a->image_count; i++)
        vkDestroySemaphore(a->device, a->presented[i], NULL);
}

void resize(app *a) {
    int w = 0, h = 0;
    for (glfwGetFramebufferSize(a->window, &w, &h); w == 0 || h == 0;) { /* minimised */
        glfwWaitEvents();
        glfwGetFramebufferSize(a->window, &w, &h);
    }
    a->width = (uint32_t)w;
    a->height = (uint32_t)h;
    vkDeviceWaitIdle(a->device); /* nothing in flight uses what is replaced */
    destroy_swapchain_images(a);
    create_swapchain(a);
    a->resized = false;
}

/* The cube's render passes: one clears colour and depth (a fresh frame),
 * one loads them (over what vxr drew). The images stay in their attachment
 * layouts inside; the host's barriers and vxr's `after` layouts put them
 * there and take them out. */
void create_passes(app *a) {
    for (int load = 0; load < 2; load++) {
        VkAttachmentLoadOp op = load ? VK_ATTACHMENT_LOAD_OP_LOAD : VK_ATTACHMENT_LOAD_OP_CLEAR;
        VkAttachmentDescription att[2] = {{.format = COLOR_FORMAT,
                                           .samples = VK_SAMPLE_COUNT_1_BIT,
                                           .loadOp = op,
                                           .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                           .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
                                           .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
                                           .initialLayout = ATTACHMENT,
                                           .finalLayout = ATTACHMENT}};
        att[1] = att[0];
        att[1].format = DEPTH_FORMAT;
        att[1].initialLayout = att[1].finalLayout = DEPTH_ATTACHMENT;
        VkAttachmentReference color = {0, ATTACHMENT}, depth = {1, DEPTH_ATTACHMENT};
        VkSubpassDescription sub = {.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
                                    .colorAttachmentCount = 1,
                                    .pColorAttachments = &color,
                                    .pDepthStencilAttachment = &depth};
        VkRenderPassCreateInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
                                     .attachmentCount = 2,
                                     .pAttachments = att,
                                     .subpassCount = 1,
                                     .pSubpasses = &sub};
        VK_CHECK(vkCreateRenderPass(a->device, &ri, NULL, &a->pass[load]));
    }
}

/* The cube's pipeline: depth test LESS with writes, back faces culled
 * (it works with either pass: they differ only in load ops). */
void create_pipeline(app *a) {
    VkShaderModule modules[2];
    const uint32_t *code[2] = {cube_vert_spv, cube_frag_spv};
    size_t size[2] = {sizeof cube_vert_spv, sizeof cube_frag_spv};
    for (int i = 0; i < 2; i++) {
        VkShaderModuleCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                       .codeSize = size[i],
                                       .pCode = code[i]};
        VK_CHECK(vkCreateShaderModule(a->device, &si, NULL, &modules[i]));
    }
    VkPushConstantRange push = {VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(mat4)};
    VkPipelineLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .pushConstantRangeCount = 1,
                                     .pPushConstantRanges = &push};
    VK_CHECK(vkCreatePipelineLayout(a->device, &li, NULL, &a->layout));
    VkPipelineShaderStageCreateInfo stages[2] = {
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
         .stage = VK_SHADER_STAGE_VERTEX_BIT,
         .module = modules[0],
         .pName = "main"},
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
         .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
         .module = modules[1],
         .pName = "main"}};
    VkPipelineVertexInputStateCreateInfo vi = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo ia = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
        .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST};
    VkPipelineViewportStateCreateInfo vp = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
        .viewportCount = 1,
        .scissorCount = 1};
    /* The cube's faces are counter-clockwise seen from outside; the y flip
     * in the projection keeps the picture upright, so they stay
     * counter-clockwise on the screen. */
    VkPipelineRasterizationStateCreateInfo rs = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
        .polygonMode = VK_POLYGON_MODE_FILL,
        .cullMode = VK_CULL_MODE_BACK_BIT,
        .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE,
        .lineWidth = 1.0f};
    VkPipelineMultisampleStateCreateInfo ms = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
        .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT};
    VkPipelineDepthStencilStateCreateInfo ds = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
        .depthTestEnable = VK_TRUE,
        .depthWriteEnable = VK_TRUE,
        .depthCompareOp = VK_COMPARE_OP_LESS};
    VkPipelineColorBlendAttachmentState blend = {.colorWriteMask = 0xf};
    VkPipelineColorBlendStateCreateInfo cb = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
        .attachmentCount = 1,
        .pAttachments = &blend};
    VkDynamicState dyn[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dy = {.sType =
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
                                       .pDepthStencilState = &ds,
                                       .pColorBlendState = &cb,
                                       .pDynamicState = &dy,
                                       .layout = a->layout,
                                       .renderPass = a->pass[0]};
    VK_CHECK(vkCreateGraphicsPipelines(a->device, VK_NULL_HANDLE, 1, &pi, NULL, &a->cube));
    vkDestroyShaderModule(a->device, modules[0], NULL);
    vkDestroyShaderModule(a->device, modules[1], NULL);
}

VkCommandBuffer begin_once(app *a) {
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = a->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VkCommandBuffer cmd;
    VK_CHECK(vkAllocateCommandBuffers(a->device, &ai, &cmd));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VK_CHECK(vkBeginCommandBuffer(cmd, &bi));
    return cmd;
}

void submit_once(app *a, VkCommandBuffer cmd) {
    VK_CHECK(vkEndCommandBuffer(cmd));
    VkSubmitInfo si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    VK_CHECK(vkQueueSubmit(a->queue, 1, &si, VK_NULL_HANDLE));
    VK_CHECK(vkQueueWaitIdle(a->queue));
    vkFreeCommandBuffers(a->device, a->pool, 1, &cmd);
}
