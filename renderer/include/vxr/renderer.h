/* vxr renderer: Vulkan compute ray traversal of vxr scenes (DESIGN.md §4, §6).
 *
 * Three objects:
 *  - vxr_context: a Vulkan instance and device, either created here (tools,
 *    tests) or adopted from a host application, with the renderer's own
 *    dispatch table (every Vulkan function is loaded through
 *    vkGetInstanceProcAddr / vkGetDeviceProcAddr; nothing links libvulkan).
 *  - vxr_renderer: one scene on the GPU (models, instances, palette, octree
 *    nodes, brick attribute bases, attributes, the instance
 *    hierarchy) and the compute pipeline specialised for it.
 *  - vxr_target: an offscreen RGBA8 storage image, optionally the per-pixel
 *    pick records (vxr_gpu_pick) and a host-readable copy of the colours.
 *
 * Record, don't submit: functions that take a VkCommandBuffer record into it
 * (which must be in the recording state, on a queue of the context's queue
 * family); the caller submits and waits. The renderer never submits, waits
 * idle or destroys objects it did not create.
 *
 * Errors: functions return a vxr_result and write a one-line reason to err
 * (may be NULL); outputs are NULL on failure. VXR_ERROR_DEVICE: no Vulkan
 * loader, no device, or no device matching the selector; VXR_ERROR_VULKAN: a
 * Vulkan call failed (the reason names the call and its VkResult);
 * VXR_ERROR_LIMIT: the scene does not fit the device's binding limits.
 *
 * volk users: include volk.h before this header (it includes
 * <vulkan/vulkan.h>), and pass volk's vkGetInstanceProcAddr.
 */
#ifndef VXR_RENDERER_H
#define VXR_RENDERER_H

#include <stdbool.h>
#include <vulkan/vulkan.h>
#include "vxr/camera.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Receives validation messages and failure reasons, one line each. */
typedef void (*vxr_log_fn)(void *user, const char *message);

/* A zero-initialised desc is valid: own instance and device, the loader
 * found with dlopen("libvulkan.so.1"), the device chosen by VXR_DEVICE or
 * by type, no validation. Defaults of each field:
 *
 * Own context (instance == VK_NULL_HANDLE):
 *   get_instance_proc_addr  NULL: dlopen libvulkan.so.1 (a missing loader is
 *                           VXR_ERROR_DEVICE, not a link error)
 *   validation              false: no validation. true: enable
 *                           VK_LAYER_KHRONOS_validation and a debug-utils
 *                           messenger that counts warnings and errors
 *                           (vxr_context_validation_messages) and passes
 *                           them to log (stderr when log is NULL)
 *   device_selector         NULL: the VXR_DEVICE environment variable; an
 *                           index into vkEnumeratePhysicalDevices' list, or
 *                           a case-insensitive substring of the device
 *                           name; unset: the first discrete GPU, else
 *                           integrated, virtual, CPU. The device needs
 *                           Vulkan 1.2 and a queue family as below.
 *   instance_extensions     none: extensions to enable besides the
 *                           renderer's own (a window system's, for one)
 *   device_extensions       none: likewise for the device; a device that
 *                           lacks one is not chosen
 *   queue_flags             0: the queue family needs compute only; more
 *                           flags (VK_QUEUE_GRAPHICS_BIT) it must have too
 *   queue_family_ok         NULL: no further test; else a family must pass
 *                           it too (a viewer asks for present support)
 *   instance_ready          NULL: nothing; else called once the instance
 *                           exists, before a device is chosen (a viewer
 *                           creates its window surface there); a result
 *                           other than VXR_OK ends vxr_context_create
 *   instance_release        NULL: nothing; else called before the context
 *                           destroys its instance (on failure too, once
 *                           instance_ready ran): destroy what it made
 *   user                    passed to the callbacks
 * Host context (instance, physical_device and device all set): the host's
 *   objects are used and never destroyed; get_instance_proc_addr is
 *   required; queue_family is a family with compute of the host's device,
 *   which must have been created for Vulkan 1.2 or later.
 * Both:
 *   max_binding_bytes       0: the device's maxStorageBufferRange; lower it
 *                           to split scenes over more bindings (tests).
 *                           Scene data is bound as uniform texel buffers,
 *                           so a binding also holds at most
 *                           maxTexelBufferElements texels.
 *   force_staging           false: write scene data straight into mapped
 *                           device-local memory when there is some; true:
 *                           always through staging buffers and copies
 *   log, log_user           NULL: silent (except validation, see above) */
typedef struct vxr_context_desc {
    PFN_vkGetInstanceProcAddr get_instance_proc_addr;
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    uint32_t queue_family;
    bool validation;
    const char *device_selector;
    const char *const *instance_extensions;
    uint32_t instance_extension_count;
    const char *const *device_extensions;
    uint32_t device_extension_count;
    VkQueueFlags queue_flags;
    bool (*queue_family_ok)(void *user, VkPhysicalDevice device, uint32_t family);
    vxr_result (*instance_ready)(void *user, VkInstance instance, vxr_error *err);
    void (*instance_release)(void *user, VkInstance instance);
    void *user;
    uint64_t max_binding_bytes;
    bool force_staging;
    vxr_log_fn log;
    void *log_user;
} vxr_context_desc;

typedef struct vxr_context vxr_context;

/* What a context runs on. For an own context the caller creates its
 * command pool on queue_family and gets the queue with vkGetDeviceQueue
 * (family queue_family, index 0). */
typedef struct vxr_context_info {
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    uint32_t queue_family;
    bool adopted;          /* the host's objects */
    char device_name[256]; /* VkPhysicalDeviceProperties.deviceName */
    VkPhysicalDeviceType device_type;
    float timestamp_period;     /* nanoseconds per timestamp tick */
    uint32_t timestamp_bits;    /* valid bits on queue_family; 0: no timestamps */
    uint64_t max_binding_bytes; /* the binding size scenes are split by */
} vxr_context_info;

VXR_API vxr_result vxr_context_create(const vxr_context_desc *desc, vxr_context **dest,
                                      vxr_error *err);
/* Destroys what the context created (device, messenger, instance for an own
 * context; only the renderer's objects for a host context). Everything
 * created from it must be destroyed first. NULL is a no-op. */
VXR_API void vxr_context_destroy(vxr_context *ctx);
VXR_API void vxr_context_get_info(const vxr_context *ctx, vxr_context_info *dest);
/* Validation warnings and errors seen so far (own context with validation). */
VXR_API uint32_t vxr_context_validation_messages(const vxr_context *ctx);
/* The name of a VkResult ("VK_ERROR_DEVICE_LOST"); never NULL. */
VXR_API const char *vxr_vk_result_string(VkResult result);

typedef struct vxr_renderer vxr_renderer;

/* Uploads a built scene: its GPU blob's sections and the instance hierarchy
 * (vxr/bvh.h) over the visible instances (flags HIDDEN and CULLED as
 * set now are honoured). The scene is not referenced afterwards. Nodes and
 * brick attribute bases larger than the binding size are split over up to
 * 4 bindings each, attributes over up to 8; beyond that, or for instance
 * tables beyond one binding, VXR_ERROR_LIMIT.
 * cmd may be VK_NULL_HANDLE when the memory is mappable and staging is not
 * forced; otherwise the copies are recorded into cmd (with a barrier before
 * compute reads), and the staging memory is kept until
 * vxr_renderer_upload_done or destroy. */
VXR_API vxr_result vxr_renderer_create(vxr_context *ctx, const vxr_scene *scene,
                                       VkCommandBuffer cmd, vxr_renderer **dest, vxr_error *err);
/* Records an update of the instances into cmd: the scene must be the one
 * the renderer was created from (same models and instance count); its
 * instances' transforms and flags (HIDDEN, and CULLED as a culler left
 * them) may have changed. Rewrites the instance table and the instance
 * hierarchy in place with vkCmdUpdateBuffer, between
 * barriers, so that work recorded earlier (in cmd or in command buffers
 * submitted before it) reads the old instances and work recorded after it
 * the new ones; no octree is uploaded again and no pipeline is rebuilt.
 * Costs O(instances) on the CPU and in the command buffer.
 * VXR_ERROR_ARGUMENT for another scene or no cmd, VXR_ERROR_MEMORY. */
VXR_API vxr_result vxr_renderer_update_instances(vxr_renderer *r, const vxr_scene *scene,
                                                 VkCommandBuffer cmd, vxr_error *err);
/* What vxr_renderer_update did. */
typedef struct vxr_update_info {
    uint64_t serial;       /* this update's serial, for vxr_renderer_complete */
    uint64_t upload_bytes; /* copied from the host (staging) */
    uint64_t moved_bytes;  /* copied on the GPU: models that outgrew their ranges, new layouts */
    uint32_t models;       /* models whose octree data was written */
    uint32_t instances;    /* instance records written */
    bool hierarchy;        /* the instance hierarchy was rebuilt and uploaded */
    bool relayout;         /* a section was laid out afresh in new buffers */
    double cpu_ms;         /* CPU time of the call, recording included */
} vxr_update_info;

/* Records into cmd the upload of what changed in scene since the last
 * update (or since creation): the models whose version changed (only
 * their changed node slots and attributes when they are live, vxr/edit.h;
 * everything of a compact or new one), the model table records, the
 * instance records that differ (transforms, flags including CULLED, bounds
 * that followed a model) and, when any did, the instance hierarchy. Removed
 * models give their ranges back.
 *
 * Each model owns ranges of the node, brick-attribute and attribute
 * buffers with room to grow; one that outgrows them moves (a GPU copy),
 * and a section without room is laid out afresh in new buffers, also by
 * GPU copies (growth and compaction never upload again). Scenes keep
 * splitting over bindings as at creation; beyond the last binding
 * VXR_ERROR_LIMIT. The data goes through a staging ring.
 *
 * Ordering: work recorded before the update (in cmd, or in command buffers
 * submitted earlier on the queue) reads the old scene; work recorded after
 * it reads the new one. Submit command buffers in the order they were
 * recorded, on one queue of the context's family.
 *
 * Completion: staging memory, and buffers, views, descriptor sets and
 * pipelines that an update replaced, are kept until the host calls
 * vxr_renderer_complete with this update's serial (info->serial) or a
 * later one, which it does once the command buffer holding the update,
 * and everything submitted before it, has completed (a fence or timeline
 * semaphore wait). A host that never calls it keeps them all (memory grows).
 *
 * scene must be the one the renderer was created from, and this renderer
 * the only one taking its changes (the update marks them taken). On
 * failure (VXR_ERROR_MEMORY, VXR_ERROR_VULKAN, VXR_ERROR_LIMIT) what was
 * recorded is consistent with the old scene for what it did not reach;
 * err says why. info may be NULL. */
VXR_API vxr_result vxr_renderer_update(vxr_renderer *r, vxr_scene *scene, VkCommandBuffer cmd,
                                       vxr_update_info *info, vxr_error *err);
/* The host says: the command buffers holding updates up to serial (and
 * everything submitted before them) completed. Frees what they kept. */
VXR_API void vxr_renderer_complete(vxr_renderer *r, uint64_t serial);

/* Frees staging memory; call once the upload's command buffer completed. */
VXR_API void vxr_renderer_upload_done(vxr_renderer *r);
/* The caller makes sure the GPU no longer uses it. NULL is a no-op. */
VXR_API void vxr_renderer_destroy(vxr_renderer *r);

/* Target: width x height pixels (both 1..VXR_MAX_TARGET_SIZE).
 *   picks     false: also write a vxr_gpu_pick per pixel (row 0 at the top)
 *   readback  false: also copy the colours into host-visible memory */
#define VXR_MAX_TARGET_SIZE 16384u /* pixels per side */

typedef struct vxr_target_desc {
    uint32_t width, height;
    bool picks;
    bool readback;
} vxr_target_desc;

typedef struct vxr_target vxr_target;

VXR_API vxr_result vxr_target_create(vxr_context *ctx, const vxr_target_desc *desc,
                                     vxr_target **dest, vxr_error *err);
/* The caller makes sure the GPU no longer uses it. NULL is a no-op. */
VXR_API void vxr_target_destroy(vxr_target *t);
/* The colour image: VK_FORMAT_R8G8B8A8_UNORM, usage STORAGE | TRANSFER_SRC,
 * in VK_IMAGE_LAYOUT_GENERAL after a render (shader writes made available
 * to transfer reads). */
VXR_API VkImage vxr_target_image(const vxr_target *t);
/* Records a copy of the target's last frame (recorded before it into cmd
 * or into a command buffer submitted earlier; the target must have been
 * rendered at least once) into a host image dst of the
 * target's size: dst goes from dst_layout (UNDEFINED drops its contents)
 * to TRANSFER_DST_OPTIMAL, waiting for earlier work at the transfer stage
 * (where a host waits on a swapchain's acquire semaphore), then a blit
 * (nearest, unscaled, converting the format) writes it; dst is left in
 * TRANSFER_DST_OPTIMAL with the writes done at the transfer stage. dst
 * needs TRANSFER_DST usage and a format with BLIT_DST support. */
VXR_API void vxr_target_blit(vxr_target *t, VkImage dst, VkImageLayout dst_layout,
                             VkCommandBuffer cmd);
/* After the command buffer of the last render completed: width * height
 * RGBA8 pixels (red in the low byte), rows from the top; NULL without
 * readback. */
VXR_API const uint32_t *vxr_target_colors(const vxr_target *t);
/* Likewise the pick records; NULL without picks. */
VXR_API const vxr_gpu_pick *vxr_target_picks(const vxr_target *t);

/* Records one frame: a ray per pixel from cam (after vxr_camera_setup, its
 * width and height equal to the target's), grid N as in vxr_pick_ray (0 or
 * 1: voxels). Returns VXR_ERROR_ARGUMENT for a mismatched camera or a bad
 * grid, or the failure of creating the grid's pipeline on first use; err
 * (may be NULL) says why. The recorded work reads the renderer's buffers
 * and writes the target; both must stay alive until it completes. */
VXR_API vxr_result vxr_renderer_render(vxr_renderer *r, vxr_target *t, const vxr_camera *cam,
                                       uint32_t grid, VkCommandBuffer cmd, vxr_error *err);

/* Ray picks: explicit rays (the viewer's mouse, a validator's ray file),
 * each traced by the code that traces a frame's pixels, into one
 * vxr_gpu_pick record per ray (vxr_pick_expand gives the full vxr_pick).
 * A batch holds up to capacity rays (1..VXR_MAX_RAYS) in host-visible
 * memory. */
#define VXR_MAX_RAYS (1u << 22)
typedef struct vxr_rays vxr_rays;

VXR_API vxr_result vxr_rays_create(vxr_context *ctx, uint32_t capacity, vxr_rays **dest,
                                   vxr_error *err);
/* The caller makes sure the GPU no longer uses it. NULL is a no-op. */
VXR_API void vxr_rays_destroy(vxr_rays *q);
/* The batch's capacity rays (origin, direction as vxr_pick_ray takes them),
 * mapped: the caller writes them before submitting the pick. */
VXR_API vxr_ray *vxr_rays_input(vxr_rays *q);
/* After the command buffer of the last vxr_renderer_pick_rays completed:
 * its count records, in ray order. */
VXR_API const vxr_gpu_pick *vxr_rays_picks(const vxr_rays *q);

/* Records a pick of the batch's rays [0, count), grid N as in vxr_pick_ray.
 * For ray i the record equals what vxr_pick_ray gives for the same ray on
 * the CPU (bit for bit on lavapipe). The ray of a frame's pixel (i, j) is
 * vxr_camera_ray(cam, i, j, ...): the pick of one pixel is then the record
 * the frame writes there. VXR_ERROR_ARGUMENT for count 0 or above the
 * capacity, or a bad grid; err (may be NULL) says why, as for render. */
VXR_API vxr_result vxr_renderer_pick_rays(vxr_renderer *r, vxr_rays *q, uint32_t count,
                                          uint32_t grid, VkCommandBuffer cmd, vxr_error *err);

#ifdef __cplusplus
}
#endif
#endif
