/* The command line's own Vulkan plumbing (shared with the GPU tests): a
 * context created through volk, one queue, one command buffer, and a
 * submit-and-wait. The renderer itself only records. */
#ifndef VXR_TOOLS_GPU_H
#define VXR_TOOLS_GPU_H

#include <volk.h>
#include "vxr/renderer.h"

typedef struct cli_gpu {
    vxr_context *ctx;
    vxr_context_info info;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
} cli_gpu;

/* Loads Vulkan with volk, creates an own context from desc (may be NULL;
 * its get_instance_proc_addr is replaced by volk's), and the queue, pool,
 * command buffer and fence. VXR_ERROR_DEVICE when no device is usable. On
 * failure everything is released and err says why. */
vxr_result cli_gpu_open(cli_gpu *g, const vxr_context_desc *desc, vxr_error *err);
/* Resets and begins the command buffer. */
vxr_result cli_gpu_begin(cli_gpu *g, vxr_error *err);
/* Ends the command buffer, submits it, and waits for it. */
vxr_result cli_gpu_submit(cli_gpu *g, vxr_error *err);
/* Waits for the device to be idle and releases everything; NULL-safe. */
void cli_gpu_close(cli_gpu *g);

#endif
