/* vxr view's Vulkan side (vulkan.c): the context with the window system's
 * extensions and a queue that computes, draws and presents, the swapchain,
 * frames in flight, and the pick overlay pipeline. main.c drives it. */
#ifndef VXR_TOOLS_VIEW_H
#define VXR_TOOLS_VIEW_H

#include <volk.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include "gpu.h"
#include "overlay.h"

enum { VIEW_FRAMES = 2, VIEW_MAX_IMAGES = 8 };

typedef struct view_frame {
    VkCommandBuffer cmd;
    VkFence fence;
    VkSemaphore acquired; /* safe to reuse once fence has signalled */
    vxr_rays *rays;       /* the mouse ray's GPU pick */
    VkBuffer vertices;
    VkDeviceMemory vertex_memory;
    view_vertex *vertex_map;
    bool submitted, timed, picked;
    vxr_ray ray;          /* the ray picked, for vxr_pick_expand */
    uint32_t scene_gen;   /* the scene it was picked in */
    uint64_t seen;        /* the scene version the frame traced (vxr_renderer_version) */
    vxr_renderer *upload; /* vxr_renderer_upload_done once the frame completed */
    uint64_t serial;      /* its renderer update's, for vxr_renderer_complete; 0: none */
} view_frame;

typedef struct view_vk {
    cli_gpu gpu; /* context, queue, command pool */
    GLFWwindow *window;
    VkInstance instance;
    VkSurfaceKHR surface;
    VkPhysicalDevice physical; /* gpu.info's, for short */
    VkDevice device;

    VkSwapchainKHR swapchain;
    VkFormat format;
    VkExtent2D extent;
    uint32_t image_count;
    VkImage images[VIEW_MAX_IMAGES];
    VkImageView views[VIEW_MAX_IMAGES];
    VkFramebuffer framebuffers[VIEW_MAX_IMAGES];
    VkSemaphore presented[VIEW_MAX_IMAGES]; /* per image: reused when it is acquired again */

    VkRenderPass pass;
    VkPipelineLayout layout;
    VkPipeline triangles, lines;
    VkQueryPool queries; /* 2 timestamps per frame; VK_NULL_HANDLE without timestamps */
    view_frame frames[VIEW_FRAMES];
} view_vk;

/* Creates everything up to the frames (not the swapchain) for window.
 * VXR_ERROR_DEVICE when no device can both compute and present to it. */
vxr_result view_vk_open(view_vk *v, GLFWwindow *window, bool validate, vxr_error *err);
/* (Re)creates the swapchain for a framebuffer of width x height (> 0),
 * after waiting for the device to go idle. */
vxr_result view_vk_swapchain(view_vk *v, uint32_t width, uint32_t height, vxr_error *err);
/* Records the copy of target src (rendered, the swapchain's size) into
 * swapchain image i (vxr_target_blit) and the overlay over it: triangles
 * then lines from the frame's vertices [0, tri) and [tri, tri + line),
 * with view_proj (column-major). Leaves the swapchain image ready to
 * present. */
void view_vk_record_present(view_vk *v, view_frame *f, uint32_t i, vxr_target *src,
                            const float view_proj[16], uint32_t tri, uint32_t line);
/* Waits for the device and releases everything (a zeroed v is fine);
 * returns the number of validation messages seen (any during the
 * teardown itself go to stderr). */
uint32_t view_vk_close(view_vk *v);

#endif
