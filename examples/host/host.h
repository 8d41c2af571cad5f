/* The host example's parts (main.c says what it shows): its state, and
 * what each file gives the others. */
#ifndef VXR_EXAMPLE_HOST_H
#define VXR_EXAMPLE_HOST_H

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
#include "vxr/edit.h"
#include "vxr/formats.h"
#include "vxr/renderer.h"

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
    uint64_t seen;   /* the scene version the pick traced (vxr_renderer_version) */
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

/* validation messages the host's messenger counted (vulkan.c) */
extern uint32_t validation_messages;

/* Prints the reason and exits 1 (main.c). */
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
#define VK_CHECK(call)                                                                             \
    do {                                                                                           \
        VkResult vr_ = (call);                                                                     \
        if (vr_ != VK_SUCCESS) die("%s: %s", #call, vxr_vk_result_string(vr_));                    \
    } while (0)
/* vxr's functions write a one-line reason for a failure into a vxr_error */
extern vxr_error err;
#define VXR_CHECK(call)                                                                            \
    do {                                                                                           \
        if ((call) != VXR_OK) die("%s: %s", #call, err.message);                                   \
    } while (0)

/* vulkan.c: the host's own Vulkan setup, nothing vxr-specific but one
 * device feature */
void create_instance(app *a);
void create_device(app *a);
VkDeviceMemory allocate(app *a, VkMemoryRequirements req, VkMemoryPropertyFlags want);
void create_image(app *a, VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect,
                  VkImage *image, VkDeviceMemory *memory, VkImageView *view);
void create_swapchain(app *a);
void destroy_swapchain_images(app *a);
void resize(app *a);
void create_passes(app *a);
void create_pipeline(app *a);
VkCommandBuffer begin_once(app *a);
void submit_once(app *a, VkCommandBuffer cmd);

/* main.c: an image barrier (one layout change, one access pair); the
 * cube alone (clear: into cleared colour and depth) */
void barrier(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect,
             VkPipelineStageFlags src_stage, VkAccessFlags src, VkPipelineStageFlags dst_stage,
             VkAccessFlags dst, VkImageLayout from, VkImageLayout to);
void draw_cube(app *a, VkCommandBuffer cmd, bool clear);

/* check.c: --screenshot, --reference, --check after the last frame;
 * returns the exit status */
int finish_images(app *a);

#endif
