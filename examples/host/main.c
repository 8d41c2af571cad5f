/* vxr embedded in an engine-style Vulkan host: the code to copy when you
 * start embedding vxr.
 *
 * The host owns everything an engine owns: the instance (with validation
 * and synchronization validation on --validate), the device, a GLFW window
 * and its swapchain, its own colour and depth images, and a raster
 * pipeline that draws a spinning cube through the middle of a voxel scene.
 * vxr draws the scene into the host's colour image, in the same command
 * buffer, composited with the cube by depth.
 *
 * What vxr needs from the host:
 *  - a Vulkan 1.2+ instance and device, created with the
 *    shaderStorageImageWriteWithoutFormat feature, and a queue family with
 *    compute (here one family does graphics, compute and present);
 *  - vkGetInstanceProcAddr: vxr loads every function through it;
 *  - a colour image with STORAGE usage to draw into (RGBA8 here), and for
 *    depth compositing a D32_SFLOAT (or R32_SFLOAT) image with TRANSFER_SRC
 *    (read by depth_in) and TRANSFER_DST (written by depth_out) usage.
 * What vxr records (it never submits, waits or touches other queues):
 *  - vxr_renderer_create: the scene upload (vxr_renderer_upload_done once
 *    it completed); vxr_renderer_update: a scene change (vxr_renderer_complete
 *    with its serial once that completed);
 *  - vxr_renderer_render_frame: copy depth_in in, one compute dispatch into
 *    the colour image, copy depth out; vxr_renderer_pick_rays: a pick.
 * The sync contract (vxr_frame in vxr/renderer.h): vxr's first use of each
 * host image waits for ALL earlier work on the queue, from the layout the
 * host states (`before`), and leaves it in the layout the host asks for
 * (`after`) with its writes visible to ALL later work. So the host needs no
 * barrier of its own around vxr's work, only for its own transitions.
 *
 * Frames in flight: two, each with its own command buffer, fence, acquire
 * semaphore and pick batch; one colour/depth image pair and one vxr target
 * are shared, which is safe because everything runs on one queue and the
 * barriers order each frame after the previous one (the CPU records frame
 * n + 1 while the GPU runs frame n; a host that wants frames to overlap on
 * the GPU keeps an image pair and a target per frame).
 *
 * Both orders (--order):
 *  raster-first  the cube (clear, depth LESS), then vxr with depth_in =
 *                depth_out = the host's depth: a voxel replaces a pixel only
 *                where it is strictly nearer; elsewhere (misses included) the
 *                host's colour and depth stay.
 *  voxels-first  vxr (every pixel: voxels or its sky) with depth_out into the
 *                host's depth, then the cube with LOAD ops and depth LESS.
 * Either way the nearer layer wins; a tie goes to the layer drawn first.
 *
 * The window tests (tests/window/host_example.cmake) run it with --frames N --check:
 * the last frame must equal, pixel for pixel, a reference composited on the
 * CPU from a raster-only pass, a voxel-only frame and vxr's CPU picks.
 *
 * Usage: vxr_example_host [SCENE] [--order raster-first|voxels-first]
 *   [--size WxH] [--frames N] [--screenshot OUT.png] [--reference OUT.png]
 *   [--check] [--pick X,Y] [--move] [--validate]
 * SCENE: a .vox (any format vxr reads) or @demo (default). In the window: a
 * click prints the pick under the mouse, O switches the order, M the
 * movement of instance 0, Escape quits. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <cglm/cglm.h>
#include <cglm/clipspace/persp_rh_zo.h> /* depth 0..1, as Vulkan */
#include <png.h>
#include "vxr/edit.h"
#include "vxr/formats.h"
#include "vxr/renderer.h"

static const uint32_t cube_vert_spv[] =
#include "cube.vert.inc"
    ;
static const uint32_t cube_frag_spv[] =
#include "cube.frag.inc"
    ;

#define FRAMES           2 /* frames in flight */
#define MAX_IMAGES       8
#define COLOR_FORMAT     VK_FORMAT_R8G8B8A8_UNORM /* the scene colour vxr draws into */
#define DEPTH_FORMAT     VK_FORMAT_D32_SFLOAT
#define ATTACHMENT       VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL
#define DEPTH_ATTACHMENT VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL
#define TRANSFER_SRC     VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL

typedef enum order { RASTER_FIRST, VOXELS_FIRST } order;

typedef struct frame {
    VkCommandBuffer cmd;
    VkFence done;         /* signalled when the GPU finished this frame */
    VkSemaphore acquired; /* the swapchain image may be written */
    vxr_rays *rays;       /* this frame's pick ray, host-visible */
    bool picking;
    uint32_t pick_x, pick_y;
    vxr_ray ray;
    uint64_t serial; /* the vxr_renderer_update this frame recorded, 0: none */
} frame;

typedef struct app {
    /* options */
    const char *scene_path, *screenshot, *reference;
    order order;
    uint32_t width, height, frames;
    bool check, validate, move, pick_once;
    uint32_t pick_x, pick_y;
    /* the window and the host's Vulkan objects */
    GLFWwindow *window;
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkSurfaceKHR surface;
    VkPhysicalDevice physical;
    uint32_t family;
    VkDevice device;
    VkQueue queue;
    VkCommandPool pool;
    VkSwapchainKHR swapchain;
    VkFormat swap_format;
    VkExtent2D extent;
    uint32_t image_count;
    VkImage images[MAX_IMAGES];
    VkSemaphore presented[MAX_IMAGES]; /* per swapchain image */
    VkImage color, depth;
    VkDeviceMemory color_memory, depth_memory;
    VkImageView color_view, depth_view;
    VkRenderPass pass[2]; /* the cube's: [0] clears colour and depth, [1] loads them */
    VkFramebuffer framebuffer;
    VkPipelineLayout layout;
    VkPipeline cube;
    frame frame[FRAMES];
    bool resized, pick_request;
    /* vxr */
    vxr_scene *scene;
    vxr_context *vxr;
    vxr_renderer *renderer;
    vxr_target *target;
    vxr_camera camera; /* of the last frame recorded */
    mat4 cube_mvp;
    vec3 center;
    float diag;
    vxr_transform home; /* instance 0 as loaded (--move) */
    /* the last pick read back */
    bool picked;
    vxr_result pick_result;
    vxr_ray pick_ray;
    vxr_pick pick;
} app;

static uint32_t validation_messages;

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("vxr_example_host: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

#define VK_CHECK(call)                                                                             \
    do {                                                                                           \
        VkResult vr_ = (call);                                                                     \
        if (vr_ != VK_SUCCESS) die("%s: %s", #call, vxr_vk_result_string(vr_));                    \
    } while (0)
/* vxr's functions write a one-line reason for a failure into a vxr_error */
static vxr_error err;
#define VXR_CHECK(call)                                                                            \
    do {                                                                                           \
        if ((call) != VXR_OK) die("%s: %s", #call, err.message);                                   \
    } while (0)

static VKAPI_ATTR VkBool32 VKAPI_CALL on_validation(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
    (void)severity, (void)types, (void)user;
    validation_messages++;
    fprintf(stderr, "validation: %s\n", data->pMessage);
    return VK_FALSE;
}

/* ---- the host's Vulkan setup: nothing here is vxr-specific except the
 * one device feature ---- */

static void create_instance(app *a) {
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
static void create_device(app *a) {
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

static VkDeviceMemory allocate(app *a, VkMemoryRequirements req, VkMemoryPropertyFlags want) {
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

static void create_image(app *a, VkFormat format, VkImageUsageFlags usage,
                         VkImageAspectFlags aspect, VkImage *image, VkDeviceMemory *memory,
                         VkImageView *view) {
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
static void create_swapchain(app *a) {
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

static void destroy_swapchain_images(app *a) {
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

static void resize(app *a) {
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
static void create_passes(app *a) {
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
static void create_pipeline(app *a) {
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

static VkCommandBuffer begin_once(app *a) {
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

static void submit_once(app *a, VkCommandBuffer cmd) {
    VK_CHECK(vkEndCommandBuffer(cmd));
    VkSubmitInfo si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    VK_CHECK(vkQueueSubmit(a->queue, 1, &si, VK_NULL_HANDLE));
    VK_CHECK(vkQueueWaitIdle(a->queue));
    vkFreeCommandBuffers(a->device, a->pool, 1, &cmd);
}

/* ---- a frame ---- */

static void barrier(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect,
                    VkPipelineStageFlags src_stage, VkAccessFlags src,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst, VkImageLayout from,
                    VkImageLayout to) {
    VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                              .srcAccessMask = src,
                              .dstAccessMask = dst,
                              .oldLayout = from,
                              .newLayout = to,
                              .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                              .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                              .image = image,
                              .subresourceRange = {aspect, 0, 1, 0, 1}};
    vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 0, NULL, 0, NULL, 1, &b);
}

/* The host's camera, as an engine keeps it: cglm's right-handed look-at
 * (world Z up, as in .vox scenes) and a perspective with depth 0..1,
 * its y flipped for Vulkan's clip space (y down). vxr takes the same two
 * matrices as they are. The cube spins with the frame number. */
static void update_camera(app *a, uint64_t n) {
    mat4 view, proj, model;
    vec3 up = {0, 0, 1}, eye;
    const float azimuth = -1.1f, elevation = 0.45f, distance = 1.2f * a->diag;
    eye[0] = a->center[0] + distance * cosf(elevation) * cosf(azimuth);
    eye[1] = a->center[1] + distance * cosf(elevation) * sinf(azimuth);
    eye[2] = a->center[2] + distance * sinf(elevation);
    glm_lookat(eye, a->center, up, view);
    float aspect = (float)a->extent.width / (float)a->extent.height;
    glm_perspective_rh_zo(glm_rad(50.0f), aspect, 0.01f * a->diag, 10.0f * a->diag, proj);
    proj[1][1] = -proj[1][1];
    VXR_CHECK(vxr_camera_from_matrices(&a->camera, view, proj, a->extent.width, a->extent.height, 0,
                                       NULL, &err));
    glm_translate_make(model, a->center);
    glm_rotate_z(model, 0.6f + 0.02f * (float)(n % 314), model);
    glm_rotate_x(model, 0.5f, model);
    glm_scale_uni(model, 0.2f * a->diag);
    mat4 view_proj;
    glm_mat4_mul(proj, view, view_proj);
    glm_mat4_mul(view_proj, model, a->cube_mvp);
}

/* The host's pass: the cube. clear: into fresh colour and depth (from
 * UNDEFINED, after the previous frame's reads by transfers and writes by
 * depth tests or vxr's copies); else over what vxr drew (LOAD; vxr left both
 * images in attachment layouts with its writes visible). */
static void draw_cube(app *a, VkCommandBuffer cmd, bool clear) {
    if (clear) {
        barrier(cmd, a->color, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                VK_IMAGE_LAYOUT_UNDEFINED, ATTACHMENT);
        const VkPipelineStageFlags tests =
            VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
        barrier(cmd, a->depth, VK_IMAGE_ASPECT_DEPTH_BIT, tests | VK_PIPELINE_STAGE_TRANSFER_BIT,
                VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, tests,
                VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                    VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                VK_IMAGE_LAYOUT_UNDEFINED, DEPTH_ATTACHMENT);
    }
    VkClearValue clear_values[2] = {{.color = {{0.1f, 0.1f, 0.125f, 1.0f}}},
                                    {.depthStencil = {1.0f, 0}}};
    VkRenderPassBeginInfo rb = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
                                .renderPass = a->pass[clear ? 0 : 1],
                                .framebuffer = a->framebuffer,
                                .renderArea = {{0, 0}, a->extent},
                                .clearValueCount = 2,
                                .pClearValues = clear_values};
    vkCmdBeginRenderPass(cmd, &rb, VK_SUBPASS_CONTENTS_INLINE);
    VkViewport viewport = {0, 0, (float)a->extent.width, (float)a->extent.height, 0, 1};
    VkRect2D scissor = {{0, 0}, a->extent};
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &scissor);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, a->cube);
    vkCmdPushConstants(cmd, a->layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(mat4), a->cube_mvp);
    vkCmdDraw(cmd, 36, 1, 0, 0);
    vkCmdEndRenderPass(cmd);
}

/* vxr's part of a frame in either order; the colour image ends in
 * TRANSFER_SRC (raster-first: for the blit) or ATTACHMENT (voxels-first:
 * for the cube). */
static void draw_voxels(app *a, VkCommandBuffer cmd, order o) {
    vxr_host_image depth = {a->depth, DEPTH_FORMAT, DEPTH_ATTACHMENT, DEPTH_ATTACHMENT};
    vxr_frame f = {.camera = &a->camera, .grid = 1};
    if (o == RASTER_FIRST) {
        /* over the cube: its colour kept (say its layout, not UNDEFINED),
         * its depth read and the nearer depth written back */
        f.color_before = ATTACHMENT;
        f.color_after = TRANSFER_SRC;
        f.depth_in = depth;
        f.depth_out = depth;
    } else {
        /* first: every pixel written, colour and depth dropped */
        f.color_before = VK_IMAGE_LAYOUT_UNDEFINED;
        f.color_after = ATTACHMENT;
        depth.before = VK_IMAGE_LAYOUT_UNDEFINED;
        f.depth_out = depth;
    }
    VXR_CHECK(vxr_renderer_render_frame(a->renderer, a->target, &f, cmd, &err));
}

/* --move: instance 0 steps a cell up per frame, over three cells. The edit
 * goes through vxr/edit.h; vxr_renderer_update records its upload into
 * this frame's command buffer, before the frame reads it. Its serial is
 * given back with vxr_renderer_complete once this frame's fence signalled. */
static void move_instance(app *a, frame *f, VkCommandBuffer cmd, uint64_t n) {
    vxr_transform t = a->home;
    t.translation[2] += (float)(n % 3);
    VXR_CHECK(vxr_scene_set_transform(a->scene, 0, &t, &err));
    vxr_update_info info;
    VXR_CHECK(vxr_renderer_update(a->renderer, a->scene, cmd, &info, &err));
    f->serial = info.serial;
}

static void record_frame(app *a, frame *f, uint32_t image, uint64_t n) {
    VkCommandBuffer cmd = f->cmd;
    VK_CHECK(vkResetCommandBuffer(cmd, 0));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VK_CHECK(vkBeginCommandBuffer(cmd, &bi));
    if (a->move) move_instance(a, f, cmd, n);
    update_camera(a, n);
    if (a->order == RASTER_FIRST) {
        draw_cube(a, cmd, true);
        draw_voxels(a, cmd, RASTER_FIRST);
    } else {
        draw_voxels(a, cmd, VOXELS_FIRST);
        draw_cube(a, cmd, false);
        barrier(cmd, a->color, VK_IMAGE_ASPECT_COLOR_BIT,
                VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, ATTACHMENT,
                TRANSFER_SRC);
    }
    /* A pick: vxr traces the ray of the pixel (vxr_camera_ray gives the ray
     * the frame traced there) into this frame's batch; the result is read
     * once this frame's fence signalled (finish_frame). The batch is this
     * frame slot's, so the host may write its ray now: the slot's previous
     * frame has completed. It sees voxels only: an engine compares the
     * pick's t with its own geometry. */
    if (a->pick_request) {
        a->pick_request = false;
        f->picking = true;
        f->pick_x = a->pick_x < a->extent.width ? a->pick_x : a->extent.width - 1;
        f->pick_y = a->pick_y < a->extent.height ? a->pick_y : a->extent.height - 1;
        vxr_camera_ray(&a->camera, f->pick_x, f->pick_y, &f->ray);
        vxr_rays_input(f->rays)[0] = f->ray;
        VXR_CHECK(vxr_renderer_pick_rays(a->renderer, f->rays, 1, 1, cmd, &err));
    }
    /* to the window: the acquire semaphore is waited at the transfer stage */
    VkImage target = a->images[image];
    barrier(cmd, target, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
            VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    int32_t w = (int32_t)a->extent.width, h = (int32_t)a->extent.height;
    VkImageBlit blit = {.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                        .srcOffsets = {{0, 0, 0}, {w, h, 1}},
                        .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                        .dstOffsets = {{0, 0, 0}, {w, h, 1}}};
    vkCmdBlitImage(cmd, a->color, TRANSFER_SRC, target, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                   &blit, VK_FILTER_NEAREST);
    barrier(cmd, target, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0,
            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);
    VK_CHECK(vkEndCommandBuffer(cmd));
}

/* After frame f's fence: what vxr kept for its update can go, and its pick
 * can be read. */
static void finish_frame(app *a, frame *f) {
    if (f->serial) vxr_renderer_complete(a->renderer, f->serial);
    f->serial = 0;
    if (!f->picking) return;
    f->picking = false;
    vxr_pick p;
    vxr_result r = vxr_pick_expand(a->scene, &f->ray, &vxr_rays_picks(f->rays)[0], &p);
    if (r != VXR_OK)
        printf("pick %u,%u: no result (%s)\n", f->pick_x, f->pick_y, vxr_result_string(r));
    else if (!p.hit)
        printf("pick %u,%u: nothing\n", f->pick_x, f->pick_y);
    else
        printf("pick %u,%u: instance %u voxel %d,%d,%d colour #%02x%02x%02x face %d t %.9g "
               "point %.6g,%.6g,%.6g\n",
               f->pick_x, f->pick_y, p.instance, p.voxel[0], p.voxel[1], p.voxel[2], p.color & 255,
               p.color >> 8 & 255, p.color >> 16 & 255, p.face, (double)p.t, (double)p.point[0],
               (double)p.point[1], (double)p.point[2]);
    fflush(stdout);
    a->picked = true;
    a->pick_result = r;
    a->pick_ray = f->ray;
    a->pick = p;
}

/* ---- --screenshot, --reference, --check ---- */

static void write_png(const char *path, uint32_t w, uint32_t h, const uint32_t *rgba) {
    png_image image = {
        .version = PNG_IMAGE_VERSION, .width = w, .height = h, .format = PNG_FORMAT_RGBA};
    if (!png_image_write_to_file(&image, path, 0, rgba, 0, NULL))
        die("cannot write %s: %s", path, image.message);
}

/* After the last frame: reads back its colour, then draws the two layers
 * of the same frame alone (the cube over a cleared frame, the voxels
 * without depth_in) and reads them back; composites them on the CPU with
 * vxr's CPU picks for the voxels' depth. Returns the exit status. */
static int finish_images(app *a) {
    uint32_t w = a->extent.width, h = a->extent.height;
    size_t pixels = (size_t)w * h, bytes = pixels * 4;
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = 4 * bytes,
                             .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    VkBuffer buffer;
    VK_CHECK(vkCreateBuffer(a->device, &bi, NULL, &buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(a->device, buffer, &req);
    VkDeviceMemory memory = allocate(
        a, req, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    VK_CHECK(vkBindBufferMemory(a->device, buffer, memory, 0));
    uint8_t *map;
    VK_CHECK(vkMapMemory(a->device, memory, 0, VK_WHOLE_SIZE, 0, (void **)&map));
    /* buffer: the frame, the cube's colour and depth, the voxels' colour */
    VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                .imageExtent = {w, h, 1}};
    VkCommandBuffer cmd = begin_once(a);
    vkCmdCopyImageToBuffer(cmd, a->color, TRANSFER_SRC, buffer, 1, &region);
    draw_cube(a, cmd, true);
    barrier(cmd, a->color, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
            VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_READ_BIT, ATTACHMENT, TRANSFER_SRC);
    barrier(cmd, a->depth, VK_IMAGE_ASPECT_DEPTH_BIT,
            VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
            VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_READ_BIT, DEPTH_ATTACHMENT, TRANSFER_SRC);
    region.bufferOffset = bytes;
    vkCmdCopyImageToBuffer(cmd, a->color, TRANSFER_SRC, buffer, 1, &region);
    region.bufferOffset = 2 * bytes;
    region.imageSubresource.aspectMask = VK_IMAGE_ASPECT_DEPTH_BIT;
    vkCmdCopyImageToBuffer(cmd, a->depth, TRANSFER_SRC, buffer, 1, &region);
    vxr_frame f = {.camera = &a->camera,
                   .grid = 1,
                   .color_before = VK_IMAGE_LAYOUT_UNDEFINED,
                   .color_after = TRANSFER_SRC};
    VXR_CHECK(vxr_renderer_render_frame(a->renderer, a->target, &f, cmd, &err));
    region.bufferOffset = 3 * bytes;
    region.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    vkCmdCopyImageToBuffer(cmd, a->color, TRANSFER_SRC, buffer, 1, &region);
    VkMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                         &to_host, 0, NULL, 0, NULL);
    submit_once(a, cmd);
    const uint32_t *shot = (const uint32_t *)map, *cube = (const uint32_t *)(map + bytes);
    const float *cube_depth = (const float *)(map + 2 * bytes);
    const uint32_t *voxels = (const uint32_t *)(map + 3 * bytes);
    if (a->screenshot) write_png(a->screenshot, w, h, shot);
    int status = 0;
    if (a->reference || a->check) {
        /* Each pixel: the voxels' depth from the CPU pick of the frame's ray
         * at that pixel, against the cube's; the nearer layer wins, a tie
         * goes to the layer drawn first (depth_in keeps the host's pixel
         * unless a voxel is strictly nearer; the cube's LESS test keeps
         * vxr's). Misses are at the far depth, like the cleared depth. */
        uint32_t *ref = malloc(bytes);
        vxr_picker *picker;
        if (!ref || vxr_picker_create(a->scene, &picker) != VXR_OK) die("out of memory");
        size_t differ = 0;
        for (uint32_t j = 0; j < h; j++)
            for (uint32_t i = 0; i < w; i++) {
                size_t k = (size_t)j * w + i;
                vxr_ray ray;
                vxr_pick p;
                vxr_camera_ray(&a->camera, i, j, &ray);
                vxr_pick_ray(picker, &ray, 1, &p);
                float voxel_depth = vxr_camera_depth(&a->camera, &ray, p.hit ? p.t : INFINITY);
                bool voxel = a->order == RASTER_FIRST ? voxel_depth < cube_depth[k]
                                                      : voxel_depth <= cube_depth[k];
                ref[k] = voxel ? voxels[k] : cube[k];
                differ += ref[k] != shot[k];
            }
        if (a->reference) write_png(a->reference, w, h, ref);
        if (a->check) {
            printf("check: %zu of %zu pixels differ from the reference (%s)\n", differ, pixels,
                   a->order == RASTER_FIRST ? "raster-first" : "voxels-first");
            if (differ) status = 1;
            /* the GPU's pick equals the CPU's for the same ray */
            vxr_pick cpu = {0};
            if (a->picked) vxr_pick_ray(picker, &a->pick_ray, 1, &cpu);
            if (a->picked && (a->pick_result != VXR_OK || memcmp(&cpu, &a->pick, sizeof cpu))) {
                printf("check: the pick differs from the CPU's pick of its ray\n");
                status = 1;
            }
        }
        vxr_picker_destroy(picker);
        free(ref);
    }
    vkDestroyBuffer(a->device, buffer, NULL);
    vkFreeMemory(a->device, memory, NULL);
    return status;
}

/* ---- the window's input ---- */

static void on_key(GLFWwindow *window, int key, int scancode, int action, int mods) {
    (void)scancode, (void)mods;
    app *a = glfwGetWindowUserPointer(window);
    if (action != GLFW_PRESS) return;
    if (key == GLFW_KEY_ESCAPE) glfwSetWindowShouldClose(window, GLFW_TRUE);
    if (key == GLFW_KEY_O) a->order = a->order == RASTER_FIRST ? VOXELS_FIRST : RASTER_FIRST;
    if (key == GLFW_KEY_M) a->move = !a->move;
}

static void on_click(GLFWwindow *window, int button, int action, int mods) {
    (void)mods;
    app *a = glfwGetWindowUserPointer(window);
    if (button != GLFW_MOUSE_BUTTON_LEFT || action != GLFW_PRESS) return;
    double x, y;
    int ww, wh, fw, fh;
    glfwGetCursorPos(window, &x, &y);
    glfwGetWindowSize(window, &ww, &wh);
    glfwGetFramebufferSize(window, &fw, &fh);
    if (x < 0 || y < 0 || ww <= 0 || wh <= 0) return;
    a->pick_x = (uint32_t)(x * fw / ww);
    a->pick_y = (uint32_t)(y * fh / wh);
    a->pick_request = true;
}

static void on_resize(GLFWwindow *window, int w, int h) {
    (void)w, (void)h;
    ((app *)glfwGetWindowUserPointer(window))->resized = true;
}

static void usage(void) __attribute__((noreturn));
static void usage(void) {
    fprintf(stderr, "usage: vxr_example_host [SCENE] [--order raster-first|voxels-first] "
                    "[--size WxH] [--frames N] [--screenshot OUT.png] [--reference OUT.png] "
                    "[--check] [--pick X,Y] [--move] [--validate]\n");
    exit(2);
}

static void parse_args(app *a, int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value;
        char end;
        bool ok;
        if (!strcmp(arg, "--validate"))
            a->validate = true;
        else if (!strcmp(arg, "--check"))
            a->check = true;
        else if (!strcmp(arg, "--move"))
            a->move = true;
        else if (arg[0] != '-' && !a->scene_path)
            a->scene_path = arg;
        else if (!(value = ++i < argc ? argv[i] : NULL))
            usage();
        else {
            if (!strcmp(arg, "--order")) {
                ok = !strcmp(value, "raster-first") || !strcmp(value, "voxels-first");
                a->order = !strcmp(value, "voxels-first") ? VOXELS_FIRST : RASTER_FIRST;
            } else if (!strcmp(arg, "--size"))
                ok = sscanf(value, "%ux%u%c", &a->width, &a->height, &end) == 2 && a->width &&
                     a->height;
            else if (!strcmp(arg, "--frames"))
                ok = sscanf(value, "%u%c", &a->frames, &end) == 1 && a->frames;
            else if (!strcmp(arg, "--pick"))
                ok = a->pick_once = sscanf(value, "%u,%u%c", &a->pick_x, &a->pick_y, &end) == 2;
            else if (!strcmp(arg, "--screenshot"))
                ok = (a->screenshot = value) != NULL;
            else if (!strcmp(arg, "--reference"))
                ok = (a->reference = value) != NULL;
            else
                ok = false;
            if (!ok) usage();
        }
    }
    if ((a->screenshot || a->reference || a->check) && !a->frames) {
        fprintf(stderr, "vxr_example_host: --screenshot, --reference and --check need --frames\n");
        exit(2);
    }
}

int main(int argc, char **argv) {
    static app app_state = {.scene_path = NULL, .width = 640, .height = 480};
    app *a = &app_state;
    parse_args(a, argc, argv);
    if (!a->scene_path) a->scene_path = "@demo";
    if (vxr_scene_load(a->scene_path, &a->scene, &err) != VXR_OK)
        die("%s: %s", a->scene_path, err.message);
    if (a->scene->instance_count == 0) die("%s: the scene has no instances", a->scene_path);
    a->home = a->scene->instances[0].transform;
    vxr_scene_stats stats;
    vxr_scene_get_stats(a->scene, &stats);
    for (int k = 0; k < 3; k++) {
        a->center[k] = 0.5f * (float)(stats.aabb_min[k] + stats.aabb_max[k]);
        float e = (float)(stats.aabb_max[k] - stats.aabb_min[k]);
        a->diag += e * e;
    }
    a->diag = a->diag > 0 ? sqrtf(a->diag) : 1.0f;

    if (!glfwInit()) die("no display: GLFW cannot start");
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    a->window = glfwCreateWindow((int)a->width, (int)a->height, "vxr host example", NULL, NULL);
    if (!a->window) die("cannot open a window");
    glfwSetWindowUserPointer(a->window, a);
    glfwSetKeyCallback(a->window, on_key);
    glfwSetMouseButtonCallback(a->window, on_click);
    glfwSetFramebufferSizeCallback(a->window, on_resize);
    create_instance(a);
    create_device(a);
    create_passes(a);
    create_pipeline(a);

    /* vxr adopts the host's instance and device; it creates its own
     * pipelines, buffers and descriptors on them (and names them for the
     * validation messages with debug_names) and never destroys the host's */
    vxr_context_desc desc = {.get_instance_proc_addr = vkGetInstanceProcAddr,
                             .instance = a->instance,
                             .physical_device = a->physical,
                             .device = a->device,
                             .queue_family = a->family,
                             .api_version = VK_API_VERSION_1_2,
                             .debug_names = a->validate};
    VXR_CHECK(vxr_context_create(&desc, &a->vxr, &err));
    /* The scene's upload, recorded by vxr, submitted by the host; once it
     * completed, upload_done frees vxr's staging memory. */
    VkCommandBuffer cmd = begin_once(a);
    VXR_CHECK(vxr_renderer_create(a->vxr, a->scene, cmd, &a->renderer, &err));
    submit_once(a, cmd);
    vxr_renderer_upload_done(a->renderer);
    create_swapchain(a);

    for (int i = 0; i < FRAMES; i++) {
        frame *f = &a->frame[i];
        VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = a->pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
        VK_CHECK(vkAllocateCommandBuffers(a->device, &ai, &f->cmd));
        VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
                                .flags = VK_FENCE_CREATE_SIGNALED_BIT};
        VK_CHECK(vkCreateFence(a->device, &fi, NULL, &f->done));
        VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        VK_CHECK(vkCreateSemaphore(a->device, &si, NULL, &f->acquired));
        VXR_CHECK(vxr_rays_create(a->vxr, 1, &f->rays, &err));
    }

    /* The frame loop: wait for the frame slot's previous use, finish it,
     * acquire, record, submit, present. */
    for (uint64_t n = 0; !glfwWindowShouldClose(a->window) && (!a->frames || n < a->frames);) {
        glfwPollEvents();
        frame *f = &a->frame[n % FRAMES];
        VK_CHECK(vkWaitForFences(a->device, 1, &f->done, VK_TRUE, UINT64_MAX));
        finish_frame(a, f);
        if (a->resized) resize(a);
        uint32_t image;
        VkResult vr = vkAcquireNextImageKHR(a->device, a->swapchain, UINT64_MAX, f->acquired,
                                            VK_NULL_HANDLE, &image);
        if (vr == VK_ERROR_OUT_OF_DATE_KHR) {
            resize(a);
            continue;
        }
        if (vr != VK_SUCCESS && vr != VK_SUBOPTIMAL_KHR)
            die("vkAcquireNextImageKHR: %s", vxr_vk_result_string(vr));
        if (a->pick_once && n + 1 == a->frames) a->pick_request = true; /* --pick: last frame */
        record_frame(a, f, image, n);
        VK_CHECK(vkResetFences(a->device, 1, &f->done));
        VkPipelineStageFlags wait = VK_PIPELINE_STAGE_TRANSFER_BIT;
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .waitSemaphoreCount = 1,
                           .pWaitSemaphores = &f->acquired,
                           .pWaitDstStageMask = &wait,
                           .commandBufferCount = 1,
                           .pCommandBuffers = &f->cmd,
                           .signalSemaphoreCount = 1,
                           .pSignalSemaphores = &a->presented[image]};
        VK_CHECK(vkQueueSubmit(a->queue, 1, &si, f->done));
        VkPresentInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
                               .waitSemaphoreCount = 1,
                               .pWaitSemaphores = &a->presented[image],
                               .swapchainCount = 1,
                               .pSwapchains = &a->swapchain,
                               .pImageIndices = &image};
        vr = vkQueuePresentKHR(a->queue, &pi);
        if (vr == VK_ERROR_OUT_OF_DATE_KHR || vr == VK_SUBOPTIMAL_KHR)
            a->resized = true;
        else if (vr != VK_SUCCESS)
            die("vkQueuePresentKHR: %s", vxr_vk_result_string(vr));
        n++;
    }
    VK_CHECK(vkDeviceWaitIdle(a->device));
    for (int i = 0; i < FRAMES; i++) finish_frame(a, &a->frame[i]);
    int status = a->screenshot || a->reference || a->check ? finish_images(a) : 0;

    /* vxr's objects first, then the context, then the host's */
    for (int i = 0; i < FRAMES; i++) {
        vxr_rays_destroy(a->frame[i].rays);
        vkDestroyFence(a->device, a->frame[i].done, NULL);
        vkDestroySemaphore(a->device, a->frame[i].acquired, NULL);
    }
    destroy_swapchain_images(a); /* and the target */
    vxr_renderer_destroy(a->renderer);
    vxr_context_destroy(a->vxr);
    vkDestroySwapchainKHR(a->device, a->swapchain, NULL);
    vkDestroyPipeline(a->device, a->cube, NULL);
    vkDestroyPipelineLayout(a->device, a->layout, NULL);
    vkDestroyRenderPass(a->device, a->pass[0], NULL);
    vkDestroyRenderPass(a->device, a->pass[1], NULL);
    vkDestroyCommandPool(a->device, a->pool, NULL);
    vkDestroyDevice(a->device, NULL);
    vkDestroySurfaceKHR(a->instance, a->surface, NULL);
    if (a->messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy =
            (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
                a->instance, "vkDestroyDebugUtilsMessengerEXT");
        destroy(a->instance, a->messenger, NULL);
    }
    vkDestroyInstance(a->instance, NULL);
    glfwDestroyWindow(a->window);
    glfwTerminate();
    vxr_scene_destroy(a->scene);
    if (validation_messages) {
        fprintf(stderr, "vxr_example_host: %u validation messages\n", validation_messages);
        status = 1;
    }
    return status;
}
