/* The command line's own Vulkan plumbing (shared with the viewer and the
 * GPU tests): a context created through volk, one queue, one command
 * buffer, and a submit-and-wait. The renderer itself only records. */
#ifndef VXR_TOOLS_GPU_H
#define VXR_TOOLS_GPU_H

#include <volk.h>
#include "cli.h"
#include "vxr/renderer.h"

typedef struct cli_gpu {
    vxr_context *ctx;
    vxr_context_info info;
    VkQueue queue;
    VkCommandPool pool; /* command buffers may be reset one by one */
    VkCommandBuffer cmd;
    VkFence fence;
} cli_gpu;

/* Loads Vulkan with volk, creates an own context from desc (may be NULL;
 * its get_instance_proc_addr is replaced by volk's), loads volk's functions
 * for it, and makes the queue, pool, command buffer and fence.
 * VXR_ERROR_DEVICE when no device is usable. On failure everything is
 * released and err says why. */
vxr_result cli_gpu_open(cli_gpu *g, const vxr_context_desc *desc, vxr_error *err);
/* --budget BYTES caps every device byte of ctx and the chunks' host
 * bytes: sets world's budget (its chunks' bytes, vxr_octree_gpu_bytes)
 * to a quarter of what is left of it once the device bytes not in ren's
 * sections (images, tables, staging) and CLI_STAGING_ROOM are taken off.
 * A quarter, because the sections hold up to 1.5 times their models'
 * bytes, and a section laid out afresh holds its old buffers too until
 * the update is complete: 3 times at most. Left nothing, the budget is 1
 * byte (the nearest chunk alone). Before each vxr_world_update; nothing
 * for budget 0 (no limit); ren may be NULL (no section yet). */
#define CLI_STAGING_ROOM (4u << 20)
void cli_world_budget(vxr_world *world, uint64_t budget, const vxr_context *ctx,
                      const vxr_renderer *ren);
/* Resets and begins the command buffer. */
vxr_result cli_gpu_begin(cli_gpu *g, vxr_error *err);
/* Ends the command buffer, submits it, and waits for it. */
vxr_result cli_gpu_submit(cli_gpu *g, vxr_error *err);
/* Waits for the device to be idle and releases everything; NULL-safe. */
void cli_gpu_close(cli_gpu *g);
/* Points volk's global functions at g's instance and device again (after
 * another context was used). */
void cli_gpu_use(const cli_gpu *g);

/* The first memory type of physical allowed by bits (a
 * VkMemoryRequirements' memoryTypeBits) with every flag of want: true with
 * *type, false when there is none. */
bool cli_gpu_memory_type(VkPhysicalDevice physical, uint32_t bits, VkMemoryPropertyFlags want,
                         uint32_t *type);

/* Milliseconds between two timestamps of the context's queue. */
double cli_gpu_ms(const vxr_context_info *info, const uint64_t ts[2]);

/* The reason "CALL failed: VK_..." into err (may be NULL) and the result
 * for vr: VXR_ERROR_DEVICE for a lost device, VXR_ERROR_MEMORY when out of
 * memory, else VXR_ERROR_VULKAN. */
vxr_result cli_vk_error(vxr_error *err, VkResult vr, const char *call);

/* vxr_pick_expand of a GPU record of `what` ("pixel 3,4", "ray 7"), with
 * a reason in err on failure: VXR_ERROR_LIMIT when the device stopped the
 * trace early (VXR_PICK_INCOMPLETE), VXR_ERROR_FORMAT for a record that
 * does not fit the scene. */
vxr_result cli_expand_record(const vxr_scene *scene, const vxr_ray *ray, const vxr_gpu_pick *rec,
                             const char *what, vxr_pick *dest, vxr_error *err);

/* a's frame into t (samples, light, grid and camera from a; previous
 * camera prev or NULL): one submit for flat, else the samples in submits
 * of a few (the sums carry over), with a progress bar on a terminal (not
 * --json) once it has taken a second. */
vxr_result cli_render_frames(cli_gpu *gpu, vxr_renderer *ren, vxr_target *t, const cli_view_args *a,
                             const vxr_camera *prev, vxr_error *err);

/* What render, bench render and pickcheck do first: loads a->scene, sets
 * the camera (orbit camera `view` when no --eye was given), culls by view
 * distance from the eye unless --no-cull, and opens the GPU with
 * validation as asked. EXIT_OK with *scene (to destroy) and *gpu (to
 * close); else the exit status, after a message, with nothing left open. */
int cli_view_open(const char *cmd, cli_view_args *a, int view, vxr_scene **scene, cli_gpu *gpu);
/* status, or EXIT_INPUT after a message when it is EXIT_OK but validation
 * was asked for and reported anything. */
int cli_validation_status(const char *cmd, const cli_gpu *g, bool validate, int status);

#endif
