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
 * Threading (Vulkan's own rules apply to the host's objects: a command
 * buffer is recorded by one thread at a time):
 *  - a context may be used from several threads at once to create and
 *    destroy renderers, targets and ray batches; its renderers share its
 *    descriptor set layouts, pipeline layout, shader module and pipelines
 *    (one set per scene shape, made once under a lock, kept until the
 *    context goes). Destroy it on one thread once nothing uses it. The log
 *    callback may be called from any thread that uses the context.
 *  - vxr_renderer_render, _render_frame and _pick_rays only read the
 *    renderer: several threads may record frames of one renderer at once,
 *    each into its own target (or ray batch) and command buffer.
 *    vxr_renderer_update, _update_instances, _complete, _upload_done and
 *    _destroy need the renderer to themselves (no recording meanwhile).
 *  - a target or ray batch is used by one thread at a time.
 *  - the scene of an update must not change during the call; CPU picks
 *    (vxr/pick.h) may read a scene from several threads while nothing
 *    changes it.
 *
 * volk users: include volk.h before this header (it includes
 * <vulkan/vulkan.h>), and pass volk's vkGetInstanceProcAddr.
 */
#ifndef VXR_RENDERER_H
#define VXR_RENDERER_H

#include <stdbool.h>
#include <vulkan/vulkan.h>
#include "vxr/camera.h"
#include "vxr/light.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Receives validation messages and failure reasons, one line each. */
typedef void (*vxr_log_fn)(void *user, const char *message);

/* A zero-initialised desc is valid: vxr loads libvulkan.so.1 itself and
 * creates its own Vulkan 1.2 instance and device, on the device VXR_DEVICE
 * names or else the best by type, without validation. For each field: what
 * leaving it zero does, then what setting it does.
 *
 * Own context (instance left VK_NULL_HANDLE):
 *   get_instance_proc_addr  NULL: vxr dlopens libvulkan.so.1 (a missing
 *                           loader is VXR_ERROR_DEVICE, not a link error).
 *                           Set: every Vulkan function is loaded through it.
 *   validation              false: no validation layer. true: vxr enables
 *                           VK_LAYER_KHRONOS_validation with synchronization
 *                           validation (VK_EXT_validation_features) and a
 *                           VK_EXT_debug_utils messenger, which counts each
 *                           warning and error (see
 *                           vxr_context_validation_messages) and passes it
 *                           to log (stderr when log is NULL); vxr also
 *                           names its objects. A missing layer is
 *                           VXR_ERROR_VULKAN.
 *   gpu_assisted            false: no GPU-assisted validation (the layer's
 *                           VK_LAYER_ENABLES may still turn it on). true,
 *                           with validation: the layer's GPU-assisted
 *                           validation too (VK_VALIDATION_FEATURE_ENABLE_
 *                           GPU_ASSISTED_EXT): it instruments every shader
 *                           and reports the out-of-bounds accesses it sees
 *                           at run time as validation messages (counted
 *                           and logged as above) from within the
 *                           vkQueueSubmit that ran them (the layer waits
 *                           for the queue there); it takes the device's
 *                           last descriptor set slot for itself. What it
 *                           checks depends on the layer's version (vxr's
 *                           TESTING.md lists the gaps of 1.3.239). Without
 *                           validation it is VXR_ERROR_ARGUMENT; a layer
 *                           without VK_EXT_validation_features is
 *                           VXR_ERROR_VULKAN; a device it cannot run on
 *                           (below Vulkan 1.1, or without
 *                           fragmentStoresAndAtomics and
 *                           vertexPipelineStoresAndAtomics) still gets a
 *                           context, with the layer's "GPU-Assisted
 *                           Validation" setup error as a message.
 *   device_selector         NULL: the VXR_DEVICE environment variable, and
 *                           when that is unset too, the first discrete GPU,
 *                           else integrated, virtual, CPU. Set (or
 *                           VXR_DEVICE): an index into
 *                           vkEnumeratePhysicalDevices' list, or a
 *                           case-insensitive substring of the device name.
 *                           Either way the device needs Vulkan 1.2, the
 *                           shaderStorageImageWriteWithoutFormat feature
 *                           (vxr enables it) and a queue family as below.
 *   instance_extensions     none: only the renderer's own extensions. Set:
 *                           enabled too (a window system's, for one).
 *   device_extensions       none: likewise. Set: enabled too; a device that
 *                           lacks one is not chosen.
 *   queue_flags             0: the queue family needs compute only. Set
 *                           (VK_QUEUE_GRAPHICS_BIT): it needs these too.
 *   queue_family_ok         NULL: no further test. Set: a family must pass
 *                           it too (a viewer asks for present support).
 *   instance_ready          NULL: nothing. Set: called once the instance
 *                           exists, before a device is chosen (a viewer
 *                           creates its window surface there); a result
 *                           other than VXR_OK ends vxr_context_create.
 *   instance_release        NULL: nothing. Set: called before the context
 *                           destroys its instance (on failure too, once
 *                           instance_ready ran): destroy what it made.
 *   user                    passed to the callbacks.
 * Host context (instance, physical_device and device all set): vxr uses
 *   the host's objects and never destroys them. get_instance_proc_addr is
 *   required; queue_family is a family with compute of the host's device.
 *   api_version             required: the apiVersion the host created its
 *                           instance with (VkApplicationInfo::apiVersion;
 *                           0 means 1.0, as there). vxr_context_create
 *                           fails with VXR_ERROR_DEVICE, saying so, unless
 *                           both it and the physical device's apiVersion
 *                           are VK_API_VERSION_1_2 or later.
 *   The host's device must have the shaderStorageImageWriteWithoutFormat
 *   feature enabled (VkDeviceCreateInfo::pEnabledFeatures): vxr writes
 *   host images without a format. vxr_context_create fails with
 *   VXR_ERROR_DEVICE when the device does not support it; it cannot see
 *   whether the host enabled it.
 * Both:
 *   debug_names             false: vxr names its Vulkan objects only when
 *                           validation is on (own context). true: own
 *                           context: vxr enables VK_EXT_debug_utils even
 *                           without validation and names its objects (for
 *                           debuggers and captures); host context: the
 *                           host says it enabled VK_EXT_debug_utils on its
 *                           instance, and vxr names its objects ("vxr
 *                           memory block 0 (type 1, buffers, 8 MiB)").
 *   allocator               NULL: Vulkan's own host allocation. Set: the
 *                           pAllocator of every Vulkan create, destroy,
 *                           allocate and free vxr makes (for an own
 *                           context, of the instance, device and messenger
 *                           too). vxr copies the struct; its callbacks and
 *                           pUserData must stay valid until the context is
 *                           destroyed.
 *   max_binding_bytes       0: the device's maxStorageBufferRange. Set
 *                           lower: scenes split over more bindings (tests).
 *                           Scene data is bound as uniform texel buffers,
 *                           so a binding also holds at most
 *                           maxTexelBufferElements texels.
 *   pipeline_cache          VK_NULL_HANDLE: none; else the host's cache,
 *                           used for every pipeline vxr creates (a host
 *                           that saves it skips compiling next run).
 *   force_staging           false: scene data is written straight into
 *                           mapped device-local memory when the device has
 *                           some. true: always through staging buffers and
 *                           copies.
 *   log, log_user           NULL: failure reasons go only to err, and
 *                           validation messages to stderr. Set: each reason
 *                           and validation message is passed to log too.
 *   beam                    VXR_CHOICE_AUTO: the VXR_BEAM environment
 *                           variable (on, off or auto), and when that is
 *                           unset or auto, the device's choice (off on a
 *                           CPU device, on elsewhere; DESIGN.md, "Per-device
 *                           choices"). VXR_CHOICE_ON / _OFF: the beam
 *                           pre-pass (shaders/beam.comp) on or off for
 *                           every perspective frame. It never changes a
 *                           pick record or a colour, only the time a frame
 *                           takes. Another VXR_BEAM value, or another
 *                           enum value here, is VXR_ERROR_ARGUMENT.
 *   workgroup_width, workgroup_height
 *                           0 and 0: the VXR_WORKGROUP environment variable
 *                           ("WxH"), and when that is unset, the device's
 *                           choice (8 x 8 everywhere so far). Set (both):
 *                           the compute workgroup of every dispatch, in
 *                           pixels (rays); the device's limits
 *                           (maxComputeWorkGroupSize, ...Invocations) must
 *                           allow it, else VXR_ERROR_ARGUMENT, as for one
 *                           of them zero or a bad VXR_WORKGROUP.
 *   lazy_pipelines          false: vxr creates the pipelines of flat
 *                           frames, picks and ray batches (at full
 *                           resolution) in
 *                           vxr_renderer_create (or vxr_renderer_prepare)
 *                           and in an update that re-lays a scene out,
 *                           never while recording such a frame; frames and
 *                           batches at a level of detail and light frames
 *                           create theirs at their first use. true: every
 *                           pipeline at its first use, while recording
 *                           the frame or batch that needs it (about 0.5 s
 *                           each on lavapipe, and a renderer uses a few of
 *                           the dozen it may): for short-lived programs
 *                           (the vxr command line); vxr_renderer_prepare
 *                           still builds a shape's flat pipelines ahead. */
/* A per-device choice that a host may force (vxr_context_desc). */
typedef enum vxr_choice {
    VXR_CHOICE_AUTO = 0, /* the environment's, else the device's */
    VXR_CHOICE_ON = 1,
    VXR_CHOICE_OFF = 2
} vxr_choice;

typedef struct vxr_context_desc {
    PFN_vkGetInstanceProcAddr get_instance_proc_addr;
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    uint32_t queue_family;
    uint32_t api_version; /* host context */
    bool validation;
    bool gpu_assisted; /* with validation */
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
    VkPipelineCache pipeline_cache;
    vxr_log_fn log;
    void *log_user;
    bool debug_names;
    const VkAllocationCallbacks *allocator;
    vxr_choice beam;
    uint32_t workgroup_width, workgroup_height;
    bool lazy_pipelines;
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
    /* the per-device choices as made (vxr_context_desc) */
    bool beam;                                  /* the beam pre-pass runs before frames */
    uint32_t workgroup_width, workgroup_height; /* pixels per workgroup */
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
/* The scene shapes the context holds pipelines for (each set made once,
 * by vxr_renderer_prepare, vxr_renderer_create, or an update that split a
 * section over more bindings; a lazy context's fills as frames need them). */
VXR_API uint32_t vxr_context_pipeline_sets(vxr_context *ctx);
/* The pipelines the context holds, of every set (each made once; none
 * is freed before the context). May be called from any thread. */
VXR_API uint32_t vxr_context_pipeline_count(vxr_context *ctx);
/* The device memory vxr allocated. vxr sub-allocates its buffers and
 * images from a few large VkDeviceMemory blocks per memory type (64 MiB
 * once grown, smaller first) and gives a resource larger than half a
 * block, or one the driver prefers in its own memory, a VkDeviceMemory of
 * its own; blocks left empty are freed. Memory types that are both
 * device-local and host-visible (integrated GPUs, lavapipe, resizable BAR)
 * count in both. */
typedef struct vxr_memory_info {
    uint64_t device_local_bytes; /* VkDeviceMemory allocated in device-local types */
    uint64_t device_local_used;  /* of it, the bytes buffers and images take */
    uint64_t host_visible_bytes; /* VkDeviceMemory allocated in host-visible types */
    uint64_t host_visible_used;  /* of it, the bytes buffers and images take */
    uint32_t blocks;             /* VkDeviceMemory allocations, own ones included */
    uint32_t dedicated;          /* of them, those holding one resource of its own */
    uint32_t allocations;        /* buffers and images in them */
    uint64_t device_local_peak;  /* the most device_local_used has been since the context
                                    was made (within an update too: old and new buffers
                                    of a section laid out afresh both count) */
} vxr_memory_info;

/* Fills dest with the context's memory now (all renderers and targets of
 * the context together). May be called from any thread. */
VXR_API void vxr_context_memory(const vxr_context *ctx, vxr_memory_info *dest);
/* The name of a VkResult ("VK_ERROR_DEVICE_LOST"); never NULL. */
VXR_API const char *vxr_vk_result_string(VkResult result);

typedef struct vxr_renderer vxr_renderer;

/* Uploads a built scene: its GPU blob's sections and the instance hierarchy
 * (vxr/bvh.h) over the visible instances (flags HIDDEN and CULLED as
 * set now are honoured). The scene is not referenced afterwards. Nodes and
 * brick attribute bases larger than the binding size (and node colours and
 * wide nodes, vxr_layout.h) are split over up to 4 bindings each,
 * attributes over up to 8; beyond that, or for instance tables beyond one
 * binding, VXR_ERROR_LIMIT.
 * cmd may be VK_NULL_HANDLE when the memory is mappable and staging is not
 * forced; otherwise the copies are recorded into cmd (with a barrier before
 * compute reads), and the staging memory is kept until
 * vxr_renderer_upload_done or destroy. */
VXR_API vxr_result vxr_renderer_create(vxr_context *ctx, const vxr_scene *scene,
                                       VkCommandBuffer cmd, vxr_renderer **dest, vxr_error *err);
/* Builds ahead the pipelines of flat frames, picks and ray batches that a
 * renderer of scene would use (they depend on the scene's shape only: its
 * attribute size, how its sections split over bindings and whether a
 * model is live, which turns the wide walk off), into the context's set,
 * so that vxr_renderer_create of this scene, or of another of the same
 * shape, compiles nothing (3 to 5 s on lavapipe), nor do its flat frames,
 * in a lazy context too. Any thread may call it, for example a worker while the
 * host loads, also while other threads create renderers of the context:
 * a creator that needs the same pipelines meanwhile waits for them instead
 * of compiling them again. Reads the scene only (nothing is kept or
 * uploaded); with the context's pipeline cache (the desc's), a later run
 * compiles from the cache. Failures as vxr_renderer_create's: the scene
 * does not fit (VXR_ERROR_LIMIT), VXR_ERROR_VULKAN, VXR_ERROR_MEMORY. */
VXR_API vxr_result vxr_renderer_prepare(vxr_context *ctx, const vxr_scene *scene, vxr_error *err);
/* Records an update of every instance into cmd: the scene must be the one
 * the renderer was created from (same models and instance count); its
 * instances' transforms and flags (HIDDEN, and CULLED as a culler left
 * them) may have changed, also by writes that went around vxr/edit.h.
 * Rewrites the whole instance table and a hierarchy built afresh in place
 * with vkCmdUpdateBuffer, between barriers, so that work recorded earlier
 * (in cmd or in command buffers submitted before it) reads the old
 * instances and work recorded after it the new ones; no octree is uploaded
 * again and no pipeline is rebuilt. Costs O(instances log instances) on
 * the CPU and O(instances) in the command buffer: a host that moves
 * instances through vxr/edit.h calls vxr_renderer_update instead, which
 * costs O(changed). VXR_ERROR_ARGUMENT for another scene or no cmd,
 * VXR_ERROR_MEMORY. */
VXR_API vxr_result vxr_renderer_update_instances(vxr_renderer *r, const vxr_scene *scene,
                                                 VkCommandBuffer cmd, vxr_error *err);
/* What vxr_renderer_update did. */
typedef struct vxr_update_info {
    uint64_t serial;       /* this update's serial, for vxr_renderer_complete */
    uint64_t upload_bytes; /* copied from the host (staging) */
    uint64_t moved_bytes;  /* copied on the GPU: models that outgrew their ranges, new layouts */
    uint32_t models;       /* models whose octree data was written */
    uint32_t instances;    /* instance records written */
    uint32_t instances_checked; /* instance records computed and compared */
    uint32_t bvh_nodes;         /* instance hierarchy nodes written */
    bool hierarchy;             /* the instance hierarchy was rebuilt and uploaded whole */
    bool refit;                 /* it was refitted: only its changed nodes were written */
    bool relayout;              /* a section was laid out afresh in new buffers */
    double cpu_ms;              /* CPU time of the call, recording included */
} vxr_update_info;

/* Records into cmd the upload of what changed in scene since the last
 * update (or since creation): the models whose version changed (only
 * their changed node slots and attributes when they are live, vxr/edit.h;
 * everything of a compact or new one), the model table records, the
 * instance records that differ (transforms, flags including CULLED, bounds
 * that followed a model) and, when any did, the instance hierarchy. Removed
 * models give their ranges back.
 *
 * The update reads the scene's journal (vxr/journal.h) from where this
 * renderer last read it; any number of renderers follow one scene, each
 * with its own cursor, and none writes into the scene. The first update
 * after vxr_renderer_create uploads only what changed after it.
 *
 * Instances: the update looks only at the instances the journal lists and
 * the instances of models that changed, writes the records among them
 * that differ from the uploaded ones (coalesced runs), and brings the
 * renderer's instance hierarchy up to date with vxr_bvh_update (vxr/bvh.h):
 * in place (boxes refitted above moved items, instances that appeared or
 * disappeared put into or taken out of leaves), writing only the nodes and
 * item entries that changed, or built afresh and uploaded whole when many
 * changed or the changes wore it down. Moving, hiding, showing or culling
 * k instances costs O(k log instances) on the CPU and in the command
 * buffer (info says which way it went). Changes written
 * into scene->instances around vxr/edit.h are not seen (unless stamped
 * with vxr_scene_touch_instance). An update the journal cannot answer
 * (this renderer fell behind by more than it keeps) uploads every model
 * whose version moved in full and compares every instance
 * (O(models + instances)).
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
 * scene must be the one the renderer was created from. On failure (VXR_ERROR_MEMORY,
 * VXR_ERROR_VULKAN, VXR_ERROR_LIMIT) what was recorded is consistent with the old scene for what it
 * did not reach; err says why, and the next update reads the same changes again. If it failed
 * after replacing buffers or changing the pipelines the scene needs, frames and ray batches are
 * refused (VXR_ERROR_VULKAN) until an update succeeds. info may be NULL.
 */
VXR_API vxr_result vxr_renderer_update(vxr_renderer *r, const vxr_scene *scene, VkCommandBuffer cmd,
                                       vxr_update_info *info, vxr_error *err);
/* The scene version the renderer's buffers hold: scene->version at its
 * creation or last update. A frame recorded now traces that scene; keep
 * the value with the frame's pick records for vxr_pick_expand. */
VXR_API uint64_t vxr_renderer_version(const vxr_renderer *r);
/* The device bytes the renderer's octree sections take now: the buffers
 * its models' nodes, attributes and colours live in, their room to grow
 * included (at most half again of what the models need). Not counted: the
 * old buffers of a section laid out afresh, kept until the update that
 * replaced them is complete (vxr_renderer_complete). What grows with the
 * scene; 0 for NULL. */
VXR_API uint64_t vxr_renderer_section_bytes(const vxr_renderer *r);
/* The host says: the command buffers holding updates up to serial (and
 * everything submitted before them) completed. Frees what they kept. */
VXR_API void vxr_renderer_complete(vxr_renderer *r, uint64_t serial);

/* Frees staging memory; call once the upload's command buffer completed. */
VXR_API void vxr_renderer_upload_done(vxr_renderer *r);
/* The caller makes sure the GPU no longer uses it. NULL is a no-op. */
VXR_API void vxr_renderer_destroy(vxr_renderer *r);

#include "vxr/target.h"

/* A host image a frame copies depth from or to (through the target's
 * depth), and its layouts around the frame. */
typedef struct vxr_host_image {
    VkImage image;        /* VK_NULL_HANDLE: none */
    VkFormat format;      /* VK_FORMAT_D32_SFLOAT, D32_SFLOAT_S8_UINT (the depth
                             aspect) or R32_SFLOAT */
    VkImageLayout before; /* its layout when the frame's work starts */
    VkImageLayout after;  /* the layout the frame leaves it in */
} vxr_host_image;

/* One frame, for vxr_renderer_render_frame.
 *   light         NULL or model VXR_LIGHT_FLAT: the flat image. Lit or path
 *                 (vxr/light.h; a target made with `light`, grid 0 or 1):
 *                 light->samples samples a pixel, each pixel's sums kept
 *                 in the target, the colour their mean. The first light
 *                 frame of a scene shape compiles its model's pipelines
 *                 (vxr_renderer_prepare does not).
 *   accumulate    add to the target's earlier samples (the host vouches
 *                 that camera, scene and light are those of the frames
 *                 before): the image converges; else start afresh. Sample
 *                 k of a pixel is the same whatever frame it comes in.
 *   previous      NULL, or the previous frame's camera: motion vectors.
 *   denoise       a light frame's colour is its sums filtered (an
 *                 edge-avoiding a-trous filter guided by normal, hit plane
 *                 and albedo: shaders/denoise.comp) instead of their mean;
 *                 needs a target with aovs. Outputs and records unchanged.
 *   camera        the camera (vxr_camera_setup or vxr_camera_from_matrices),
 *                 its size the target's
 *   grid          0 or 1: voxels; N = 2^k: the editor grid of vxr_pick_ray
 *   color_before, color_after  a target over a host image: the image's
 *                 layout when the frame starts (UNDEFINED drops the whole
 *                 image's contents, other rectangles included: say the real
 *                 layout to keep them, and always with depth_in) and the
 *                 layout to leave it in. Ignored for vxr's own image.
 *   depth_in      none, or the host's depth (TRANSFER_SRC usage), copied
 *                 into the target's depth first: a pixel whose voxel is not
 *                 nearer than it (or that misses) keeps the host's colour and
 *                 depth, and rays stop once they pass it. Needs `depth`.
 *   depth_out     none, or a host image (TRANSFER_DST usage) the frame's
 *                 depth is copied into: the voxels' depth, or with depth_in
 *                 the nearer of the two; the far value where nothing was hit.
 *                 May be depth_in's image (its `before` is then ignored).
 *                 Needs `depth`.
 *   lod           the level of detail's bias (vxr_camera_lod; 0: voxels
 *                 everywhere): a flat frame's rays, and its pick records,
 *                 stop at cubes under bias pixels (vxr_pick_ray_lod gives
 *                 the same records). Light frames trace voxels whatever it
 *                 is. Negative or not finite: VXR_ERROR_ARGUMENT. The first
 *                 such frame (or batch) of a scene shape and mode compiles
 *                 its pipeline, as a light frame does: the walk's stop rule
 *                 is compiled out of the others.
 * Synchronisation with the host: vxr's first use of each host image waits
 * for all earlier work on the queue (ALL_COMMANDS, memory writes), and its
 * writes are made available and visible to all later work (ALL_COMMANDS,
 * memory reads and writes) as the image reaches its `after` layout. Images
 * stay on the context's queue family. */
typedef struct vxr_frame {
    const vxr_camera *camera;
    uint32_t grid;
    VkImageLayout color_before, color_after;
    vxr_host_image depth_in, depth_out;
    const vxr_light *light;
    bool accumulate;
    const vxr_camera *previous;
    bool denoise;
    float lod;
} vxr_frame;

/* Records one frame (see vxr_frame): a ray per pixel from the camera, traced
 * through the scene, shaded into the target's colour, with its depth and pick
 * records as the target keeps them. Compiles no pipeline but a light or
 * level-of-detail frame's first (see above). Returns
 * VXR_ERROR_ARGUMENT, with the reason in err (may be NULL), for a camera
 * that was not set up or whose size is not the target's, a bad grid, depth
 * images without a target depth or of another format. The recorded work
 * reads the renderer's buffers and writes the target (and host images); all
 * must stay alive until it completes. */
VXR_API vxr_result vxr_renderer_render_frame(vxr_renderer *r, vxr_target *t, const vxr_frame *frame,
                                             VkCommandBuffer cmd, vxr_error *err);
/* vxr_renderer_render_frame with only a camera and a grid (a host image
 * target goes from and back to GENERAL). */
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
/* vxr_renderer_pick_rays at a level of detail (NULL or k 0: none): the
 * records of vxr_pick_ray_lod with the same vxr_lod, bit for bit on
 * lavapipe. */
VXR_API vxr_result vxr_renderer_pick_rays_lod(vxr_renderer *r, vxr_rays *q, uint32_t count,
                                              uint32_t grid, const vxr_lod *lod,
                                              VkCommandBuffer cmd, vxr_error *err);

#ifdef __cplusplus
}
#endif
#endif
