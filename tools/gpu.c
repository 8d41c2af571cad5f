/* The command line's Vulkan plumbing: volk, a queue, submit-and-wait. */
#include "gpu.h"
#include <stdio.h>
#include <string.h>

static vxr_result vk_fail(vxr_error *err, VkResult r, const char *call) {
    if (err) snprintf(err->message, sizeof err->message, "%s failed: VkResult %d", call, (int)r);
    return r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY
               ? VXR_ERROR_MEMORY
               : VXR_ERROR_VULKAN;
}

vxr_result cli_gpu_open(cli_gpu *g, const vxr_context_desc *desc, vxr_error *err) {
    memset(g, 0, sizeof *g);
    if (volkInitialize() != VK_SUCCESS) {
        if (err)
            snprintf(err->message, sizeof err->message,
                     "no Vulkan loader: cannot load libvulkan.so.1");
        return VXR_ERROR_DEVICE;
    }
    vxr_context_desc d = {0};
    if (desc) d = *desc;
    d.get_instance_proc_addr = vkGetInstanceProcAddr;
    vxr_result r = vxr_context_create(&d, &g->ctx, err);
    if (r != VXR_OK) return r;
    vxr_context_get_info(g->ctx, &g->info);
    volkLoadInstanceOnly(g->info.instance);
    volkLoadDevice(g->info.device);
    vkGetDeviceQueue(g->info.device, g->info.queue_family, 0, &g->queue);
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                  .queueFamilyIndex = g->info.queue_family};
    VkResult vr = vkCreateCommandPool(g->info.device, &pi, NULL, &g->pool);
    if (vr != VK_SUCCESS) r = vk_fail(err, vr, "vkCreateCommandPool");
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = g->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    if (r == VXR_OK && (vr = vkAllocateCommandBuffers(g->info.device, &ai, &g->cmd)) != VK_SUCCESS)
        r = vk_fail(err, vr, "vkAllocateCommandBuffers");
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (r == VXR_OK && (vr = vkCreateFence(g->info.device, &fi, NULL, &g->fence)) != VK_SUCCESS)
        r = vk_fail(err, vr, "vkCreateFence");
    if (r != VXR_OK) cli_gpu_close(g);
    return r;
}

vxr_result cli_gpu_begin(cli_gpu *g, vxr_error *err) {
    VkResult vr = vkResetCommandBuffer(g->cmd, 0);
    if (vr != VK_SUCCESS) return vk_fail(err, vr, "vkResetCommandBuffer");
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    vr = vkBeginCommandBuffer(g->cmd, &bi);
    return vr == VK_SUCCESS ? VXR_OK : vk_fail(err, vr, "vkBeginCommandBuffer");
}

vxr_result cli_gpu_submit(cli_gpu *g, vxr_error *err) {
    VkResult vr = vkEndCommandBuffer(g->cmd);
    if (vr != VK_SUCCESS) return vk_fail(err, vr, "vkEndCommandBuffer");
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                       .commandBufferCount = 1,
                       .pCommandBuffers = &g->cmd};
    if ((vr = vkQueueSubmit(g->queue, 1, &si, g->fence)) != VK_SUCCESS)
        return vk_fail(err, vr, "vkQueueSubmit");
    if ((vr = vkWaitForFences(g->info.device, 1, &g->fence, VK_TRUE, UINT64_MAX)) != VK_SUCCESS)
        return vk_fail(err, vr, "vkWaitForFences");
    vr = vkResetFences(g->info.device, 1, &g->fence);
    return vr == VK_SUCCESS ? VXR_OK : vk_fail(err, vr, "vkResetFences");
}

void cli_gpu_close(cli_gpu *g) {
    if (!g || !g->ctx) return;
    VkDevice dev = g->info.device;
    vkDeviceWaitIdle(dev);
    if (g->fence) vkDestroyFence(dev, g->fence, NULL);
    if (g->pool) vkDestroyCommandPool(dev, g->pool, NULL); /* frees cmd */
    vxr_context_destroy(g->ctx);
    memset(g, 0, sizeof *g);
}
