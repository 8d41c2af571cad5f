/* Private pieces of the renderer: the dispatch table, the context, buffers. */
#ifndef VXR_RENDERER_INTERNAL_H
#define VXR_RENDERER_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include "vxr/renderer.h"
#include "vxr/scene.h"

/* Every Vulkan function the renderer calls, by the level it is loaded at. */
#define VXR_VK_GLOBAL(X)                                                                           \
    X(vkCreateInstance)                                                                            \
    X(vkEnumerateInstanceLayerProperties)                                                          \
    X(vkEnumerateInstanceExtensionProperties)                                                      \
    X(vkEnumerateInstanceVersion)

#define VXR_VK_INSTANCE(X)                                                                         \
    X(vkDestroyInstance)                                                                           \
    X(vkEnumeratePhysicalDevices)                                                                  \
    X(vkGetPhysicalDeviceProperties)                                                               \
    X(vkGetPhysicalDeviceFeatures)                                                                 \
    X(vkGetPhysicalDeviceQueueFamilyProperties)                                                    \
    X(vkGetPhysicalDeviceMemoryProperties)                                                         \
    X(vkEnumerateDeviceExtensionProperties)                                                        \
    X(vkCreateDevice)                                                                              \
    X(vkGetDeviceProcAddr)

/* VK_EXT_debug_utils: loaded only when the instance has it enabled. */
#define VXR_VK_DEBUG(X)                                                                            \
    X(vkCreateDebugUtilsMessengerEXT)                                                              \
    X(vkDestroyDebugUtilsMessengerEXT)                                                             \
    X(vkSetDebugUtilsObjectNameEXT)

#define VXR_VK_DEVICE(X)                                                                           \
    X(vkDestroyDevice)                                                                             \
    X(vkCreateBuffer)                                                                              \
    X(vkDestroyBuffer)                                                                             \
    X(vkGetBufferMemoryRequirements)                                                               \
    X(vkGetBufferMemoryRequirements2)                                                              \
    X(vkAllocateMemory)                                                                            \
    X(vkFreeMemory)                                                                                \
    X(vkBindBufferMemory)                                                                          \
    X(vkCreateBufferView)                                                                          \
    X(vkDestroyBufferView)                                                                         \
    X(vkMapMemory)                                                                                 \
    X(vkCreateImage)                                                                               \
    X(vkDestroyImage)                                                                              \
    X(vkGetImageMemoryRequirements)                                                                \
    X(vkGetImageMemoryRequirements2)                                                               \
    X(vkBindImageMemory)                                                                           \
    X(vkCreateImageView)                                                                           \
    X(vkDestroyImageView)                                                                          \
    X(vkCreateShaderModule)                                                                        \
    X(vkDestroyShaderModule)                                                                       \
    X(vkCreateDescriptorSetLayout)                                                                 \
    X(vkDestroyDescriptorSetLayout)                                                                \
    X(vkCreatePipelineLayout)                                                                      \
    X(vkDestroyPipelineLayout)                                                                     \
    X(vkCreateComputePipelines)                                                                    \
    X(vkDestroyPipeline)                                                                           \
    X(vkCreateDescriptorPool)                                                                      \
    X(vkDestroyDescriptorPool)                                                                     \
    X(vkAllocateDescriptorSets)                                                                    \
    X(vkUpdateDescriptorSets)                                                                      \
    X(vkCmdBindPipeline)                                                                           \
    X(vkCmdBindDescriptorSets)                                                                     \
    X(vkCmdPushConstants)                                                                          \
    X(vkCmdDispatch)                                                                               \
    X(vkCmdDispatchBase)                                                                           \
    X(vkCmdPipelineBarrier)                                                                        \
    X(vkCmdCopyBuffer)                                                                             \
    X(vkCmdUpdateBuffer)                                                                           \
    X(vkCmdCopyImageToBuffer)                                                                      \
    X(vkCmdCopyBufferToImage)                                                                      \
    X(vkCmdBlitImage)

#define VXR_VK_FIELD(name) PFN_##name name;
typedef struct vxr_vk {
    PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
    VXR_VK_GLOBAL(VXR_VK_FIELD)
    VXR_VK_INSTANCE(VXR_VK_FIELD)
    VXR_VK_DEBUG(VXR_VK_FIELD)
    VXR_VK_DEVICE(VXR_VK_FIELD)
} vxr_vk;
#undef VXR_VK_FIELD

struct vxr_block;

struct vxr_context {
    vxr_vk vk;
    void *loader; /* dlopen handle when the context loaded libvulkan itself */
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    uint32_t queue_family;
    bool adopted;
    bool force_staging;
    void (*instance_release)(void *user, VkInstance instance); /* the desc's, once ready */
    void *user;
    VkDebugUtilsMessengerEXT messenger;
    uint32_t messages;
    vxr_log_fn log;
    void *log_user;
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties memory;
    uint32_t timestamp_bits;
    uint64_t max_binding;
    VkShaderModule module;
    VkShaderModule beam_module;     /* shaders/beam.comp, when beam */
    VkShaderModule denoise_module;  /* shaders/denoise.comp, made at its first use */
    VkPipelineCache pipeline_cache; /* the host's, or VK_NULL_HANDLE */
    /* the per-device choices (context.c's choose, DESIGN.md "Per-device
     * choices"): the beam pre-pass, the workgroup */
    bool beam;
    uint32_t local_x, local_y;
    bool lazy; /* the desc's lazy_pipelines: a frame's pipeline made at its first use */
    /* the pipelines of every scene shape seen, shared by renderers and
     * kept until the context goes (renderer/pipeline.c) */
    struct vxr_pipes **pipes;
    uint32_t pipes_count, pipes_cap;
    pthread_mutex_t pipes_lock;
    bool pipes_ready;                    /* the lock was initialised */
    VkDescriptorSetLayout set_layout[2]; /* VXR_SET_SCENE, VXR_SET_TARGET */
    VkPipelineLayout pipeline_layout;
    /* the desc's allocator (alloc_copy), or NULL: pAllocator of every
     * Vulkan create, destroy, allocate and free the renderer makes */
    const VkAllocationCallbacks *alloc;
    VkAllocationCallbacks alloc_copy;
    bool names; /* VK_EXT_debug_utils is enabled: vxr_name names objects */
    /* renderer/buffer.c: the memory blocks, under mem_lock */
    pthread_mutex_t mem_lock;
    struct vxr_block *blocks;
    uint32_t block_serial;             /* blocks made so far, for their names */
    uint64_t device_used, device_peak; /* device-local bytes in use, and the most ever */
};

/* Where a buffer or image lives: a range of a memory block, or a
 * VkDeviceMemory of its own (renderer/buffer.c). All zero: nothing. */
typedef struct vxr_alloc {
    struct vxr_block *block;
    VkDeviceMemory memory; /* the block's */
    VkDeviceSize offset, size;
    void *map; /* at offset, when host-visible (blocks stay mapped) */
    VkMemoryPropertyFlags flags;
} vxr_alloc;

/* A buffer in sub-allocated memory, mapped when host-visible. */
typedef struct vxr_buf {
    VkBuffer buffer;
    vxr_alloc mem;
    void *map; /* mem.map */
    VkDeviceSize size;
    VkMemoryPropertyFlags flags; /* of the memory type */
} vxr_buf;

/* What a dispatch traces: a frame, a frame with pick records, a ray batch. */
/* FRAME_HOST: a frame with a host's needs (depth in and out), compiled
 * apart so that a plain frame does not carry them. Pick records come with
 * them too. */
typedef enum vxr_mode {
    VXR_MODE_FRAME,
    VXR_MODE_FRAME_HOST,
    VXR_MODE_PICKS,
    VXR_MODE_RAYS,
    VXR_MODES
} vxr_mode;

/* The octree data of a scene, in five sections (nodes, brick attribute
 * bases, attribute words, node colours for the level of detail, wide
 * nodes), each split over chunk buffers of 2^shift elements bound at
 * first .. first + bindings - 1. Each model owns a range of each section
 * with room to grow (renderer/update.c). */
enum { VXR_SEC_NODES, VXR_SEC_BATTR, VXR_SEC_ATTRS, VXR_SEC_COLORS, VXR_SEC_WIDE, VXR_SECTIONS };

typedef struct vxr_range {
    uint64_t start, count;
} vxr_range;

typedef struct vxr_section {
    uint32_t first, bindings; /* first binding, the most chunks */
    uint32_t elem, shift;     /* bytes per element; elements per chunk: 2^shift */
    uint64_t capacity;        /* elements in the chunk buffers */
    vxr_range *free;          /* free ranges, sorted and coalesced */
    uint32_t free_count, free_cap;
} vxr_section;

/* The occupancy grid's cells a side (vxr_resident): a frame's workgroups
 * that meet none of its occupied cells miss (vxr_scene_tiles). */
#define VXR_OCC_CELLS 16

/* Where one model lives on the GPU. */
typedef struct vxr_resident {
    uint64_t base[VXR_SECTIONS], cap[VXR_SECTIONS], used[VXR_SECTIONS]; /* elements */
    uint64_t version; /* the model_version uploaded */
    bool placed, empty;
    /* a live model's node colours as uploaded (host copy): an edit's
     * update sends only those that changed (vxr_upload_colors) */
    uint32_t *colors;
    uint64_t color_count;
    /* the occupied cells of an occ_n^3 grid over the root cube as
     * uploaded, bit (x occ_n + y) occ_n + z (vxr_resident_occupancy);
     * occ_n 0: none */
    uint64_t occ[VXR_OCC_CELLS * VXR_OCC_CELLS * VXR_OCC_CELLS / 64];
    uint32_t occ_n;
} vxr_resident;

/* Sets res's occupancy to the model m's (as uploaded now): cells of
 * 2^(depth - k) voxels, k = log2 VXR_OCC_CELLS or less (no cell smaller
 * than a brick). O(cells); no allocation. */
void vxr_resident_occupancy(vxr_resident *res, const vxr_octree *m);

static inline void vxr_resident_drop_colors(vxr_resident *res) {
    free(res->colors);
    res->colors = NULL;
    res->color_count = 0;
}

/* A Vulkan object that goes once the GPU is done with it: after
 * vxr_renderer_complete(serial) (or destroy). */
typedef struct vxr_retired {
    uint64_t serial;
    vxr_buf buf;
    VkBufferView view;
    VkDescriptorPool pool;
} vxr_retired;

/* Host-visible staging memory used as a ring: [tail, head) is in flight,
 * marked by the serial of the update that wrote it. */
typedef struct vxr_ring {
    vxr_buf buf;
    uint64_t head, tail; /* running byte counts; position = count % size */
    struct {
        uint64_t serial, end;
    } * marks;
    uint32_t mark_first, mark_count, mark_cap;
} vxr_ring;

/* A model's span from the journal. */
typedef struct model_span {
    uint32_t model, start, count;
} model_span;

enum { MARK_SPANS = 1, MARK_ALL = 2 };

/* What the scene's journal says changed since the last update. */
typedef struct followed {
    bool resync;       /* the journal cannot tell: compare versions */
    uint8_t *mark;     /* per model: MARK_SPANS, MARK_ALL or 0 */
    uint32_t *ids;     /* instances listed (repeats possible) */
    model_span *sp[2]; /* node and attribute spans, sorted by model and start, merged */
    uint32_t n_ids, n_sp[2];
    size_t cap_mark, cap_ids, cap_sp[2]; /* kept from update to update */
} followed;

struct vxr_renderer {
    vxr_context *ctx;
    const vxr_scene *scene;              /* the one updates take */
    vxr_buf buf[VXR_SCENE_BINDINGS];     /* zero where a chunk is unused */
    vxr_buf staging[VXR_SCENE_BINDINGS]; /* creation's, until vxr_renderer_upload_done */
    VkBufferView view[VXR_SCENE_BINDINGS];
    VkDescriptorPool pool;
    VkDescriptorSet set;
    struct vxr_pipes *pipes; /* the context's pipelines for spec */
    vxr_spec spec;           /* grid, picks, rays, host zero: set per pipeline */
    /* bounds on what the tracer's coordinates are made of, only ever
     * raised: |translation| (1-norm) and scale over the instance records,
     * |origin| + 2^depth (1-norm) over the model records; the beam's
     * slack grows with their magnitude (vxr_renderer_magnitude) */
    float mag_shift, mag_scale, mag_extent;
    /* the least scale of a visible instance's record, only ever lowered:
     * how large a cube a level of detail can stop at (traverse.c) */
    float min_scale;
    uint32_t bvh_nodes;
    float grid_pad[VXR_GRID_LEVELS]; /* vxr_bvh_grid_pad per grid level */
    vxr_section sec[VXR_SECTIONS];
    vxr_resident *res;                    /* model_cap of them */
    vxr_gpu_model *model_rec;             /* the model table as uploaded, model_cap */
    vxr_gpu_instance *inst_rec;           /* the instance table as uploaded, instance_cap */
    uint32_t model_count, instance_count; /* in the tables */
    uint32_t model_cap, instance_cap;     /* records the table buffers hold */
    uint32_t *moving, moving_count;       /* instances whose motion map is not identity */
    uint64_t cursor;                      /* the scene's journal (vxr/journal.h), read up to here */
    uint64_t version;    /* the scene version the buffers hold (vxr_renderer_version) */
    followed follow;     /* what the last read of the journal found (renderer/update.c) */
    struct vxr_bvh *bvh; /* the hierarchy as uploaded, which updates refit; NULL: none kept */
    vxr_ring ring;
    uint64_t serial;    /* of the last update that recorded work */
    uint64_t completed; /* the host said: updates up to this serial completed */
    vxr_retired *retired;
    uint32_t retired_count, retired_cap;
    /* the wide form of one model, made for its upload (vxr_renderer_wide)
     * and kept while the model's version stays */
    vxr_wide_node *wide;
    uint32_t wide_model;
    uint64_t wide_version;
    /* the wide forms outgrew their section's bindings: every model is
     * walked as an octree, for the renderer's lifetime */
    bool wide_off;
    /* spec changed and its pipelines are not made yet (an update failed
     * making them): frames are refused until an update makes them */
    bool pipes_due;
    /* section or table buffers were replaced and the descriptor set over
     * them is not made yet: frames are refused until an update makes it */
    bool rebind_due;
};

struct vxr_target {
    vxr_context *ctx;
    uint32_t width, height;
    uint32_t x, y;   /* the rectangle's corner in the image */
    bool host_image; /* the host's image and view: not destroyed */
    VkImage image;
    vxr_alloc image_memory;
    VkImageView view;
    vxr_buf depth; /* a float per pixel; a 16-byte stand-in without depth */
    bool has_depth;
    vxr_buf picks;    /* a 32-byte stand-in without picks */
    vxr_buf readback; /* zero without readback */
    vxr_buf rays;     /* a ray batch's input; zero for a frame target */
    vxr_buf beam;     /* a float per VXR_BEAM_TILE^2 tile (beam.comp) */
    uint32_t tiles_x, tiles_y;
    /* a frame's workgroups in dispatch order (VXR_FRAME_TILES), on a
     * context without the beam: the GPU's copy, the host's (groups_x *
     * groups_y entries) and a mark per workgroup (vxr_scene_tiles); a
     * stand-in and NULL for a batch or a context with the beam */
    vxr_buf tiles;
    uint32_t *tile_list;
    uint8_t *tile_mark;
    uint32_t groups_x, groups_y;
    uint32_t capacity; /* rays in a batch */
    bool has_picks;
    vxr_buf frame;   /* vxr_gpu_frame, written by each light frame's commands */
    vxr_buf accum;   /* VXR_ACCUM_FLOATS per pixel with light; a stand-in without */
    vxr_buf aovs;    /* VXR_AOV_FLOATS per pixel with aovs; a stand-in without */
    vxr_buf denoise; /* VXR_DENOISE_FLOATS per pixel with aovs (denoise.comp); a stand-in without */
    bool has_light, has_aovs;
    uint32_t samples; /* the samples the sums hold (light frames) */
    VkDescriptorPool pool;
    VkDescriptorSet set;
};

/* Formats a reason into err and sends it to the log; returns r. */
vxr_result vxr_ctx_fail(vxr_context *c, vxr_error *err, vxr_result r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* VK_SUCCESS: VXR_OK; else the reason "CALL failed: VK_ERROR_..." and
 * VXR_ERROR_MEMORY for out-of-memory results, VXR_ERROR_VULKAN otherwise. */
vxr_result vxr_vk_check(vxr_context *c, vxr_error *err, VkResult r, const char *call);

/* Runs a Vulkan call; on failure sets `res` and jumps to `fail`. */
#define VXR_VK_TRY(c, err, call)                                                                   \
    do {                                                                                           \
        res = vxr_vk_check((c), (err), (call), #call);                                             \
        if (res != VXR_OK) goto fail;                                                              \
    } while (0)

/* Creates a buffer of size bytes (at least 16) in memory with all `need`
 * flags, preferring all `want` flags; maps it when host-visible. */
vxr_result vxr_buf_create(vxr_context *c, VkDeviceSize size, VkBufferUsageFlags usage,
                          VkMemoryPropertyFlags want, VkMemoryPropertyFlags need, vxr_buf *dest,
                          vxr_error *err);
void vxr_buf_destroy(vxr_context *c, vxr_buf *b);
/* Allocates memory for an image (in blocks of images only, or its own
 * memory when large or when the driver prefers that), with all `need`
 * flags, preferring all `want` flags, and binds it. dest is zero on
 * failure; free it with vxr_memory_free after destroying the image (or
 * before: either order is valid). */
vxr_result vxr_image_memory(vxr_context *c, VkImage image, VkMemoryPropertyFlags want,
                            VkMemoryPropertyFlags need, vxr_alloc *dest, vxr_error *err);
/* Returns a range to its block (a block left empty is freed); a zero
 * alloc is a no-op. Zeroes a. */
void vxr_memory_free(vxr_context *c, vxr_alloc *a);
/* Frees the blocks left at context destruction. */
void vxr_memory_release(vxr_context *c);
/* Finds a memory type among type_bits with all flags; -1 when none. */
int vxr_memory_type(const vxr_context *c, uint32_t type_bits, VkMemoryPropertyFlags flags);
/* Names a Vulkan object ("vxr nodes chunk 0") when VK_EXT_debug_utils is
 * enabled (validation messages and debuggers show it); else nothing.
 * handle: the object cast to uint64_t. */
void vxr_name(vxr_context *c, VkObjectType type, uint64_t handle, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A ray batch is a 1x1 target (set 1 needs an image) whose pick records
 * and rays are sized for its capacity. */
struct vxr_rays {
    vxr_target *t;
};

/* r->pipes: the context's set of pipelines for r's spec, made (empty)
 * when it is the first. Unless the context is lazy, or with ahead
 * (vxr_renderer_prepare's call) in any context, every pipeline of the
 * set a flat frame, pick or ray batch can use (voxels and grids, each
 * mode; the beam pass's, or on a device without it the flat frames' miss
 * pipelines) not made yet is made now, in one vkCreateComputePipelines
 * call through the host's cache. Called at creation, when an update
 * changes the chunk counts, and by vxr_renderer_prepare. */
vxr_result vxr_renderer_pipelines_make(vxr_renderer *r, bool ahead, vxr_error *err);
typedef struct vxr_pipes {
    /* grid, picks, rays, host zero. Every slot is made under the
     * context's pipes_lock: by vxr_renderer_pipelines_make, or at its
     * first use. */
    vxr_spec spec;
    VkPipeline pipeline[2][VXR_MODES]; /* [grid > 1][mode] */
    VkPipeline beam;                   /* shaders/beam.comp; VK_NULL_HANDLE without beam */
    /* voxel frames of the lit and path models, [model - 1][aovs][mode]
     * for targets without and with per-pixel outputs and the modes FRAME,
     * FRAME_HOST and PICKS: made at their first use */
    VkPipeline light[2][2][VXR_MODE_RAYS];
    VkPipeline denoise; /* shaders/denoise.comp, made at its first use */
    /* flat frames and batches at a level of detail, [stops at octants
     * too][grid > 1][mode]: made at their first use, likewise */
    VkPipeline lod[2][2][VXR_MODES];
    /* a frame's pixels that miss the root box (VXR_SPEC_MISS), [model][aovs][mode]
     * for the models flat, lit and path: made at their first use, likewise,
     * but flat ones without outputs in the set's batch */
    VkPipeline miss[3][2][VXR_MODE_RAYS];
} vxr_pipes;
/* count identity motion maps (VXR_BIND_MOTION, 12 floats each) into
 * dest (renderer/motion.c). */
void vxr_motion_identity(float *dest, uint32_t count);
/* The pipeline of a light frame (model lit or path, for a target with
 * per-pixel outputs or not, mode FRAME, FRAME_HOST or PICKS), or for model
 * 0 the denoiser's (aovs unused), made now when it is the first. */
vxr_result vxr_light_pipeline(vxr_renderer *r, uint32_t model, bool aovs, vxr_mode mode,
                              VkPipeline *dest, vxr_error *err);
/* The pipeline of a flat frame or batch at a level of detail, made now
 * when it is the first: one that stops at cubes of every level when odd,
 * else one for dispatches whose rays cannot stop at an odd level. */
vxr_result vxr_lod_pipeline(vxr_renderer *r, uint32_t grid_level, bool odd, vxr_mode mode,
                            VkPipeline *dest, vxr_error *err);
/* The pipeline of a frame's pixels known to miss (light model, per-pixel
 * outputs or not, mode FRAME, FRAME_HOST or PICKS), made now when it is
 * the first. */
vxr_result vxr_miss_pipeline(vxr_renderer *r, uint32_t model, bool aovs, vxr_mode mode,
                             VkPipeline *dest, vxr_error *err);
/* The pipeline of a flat frame or batch at full resolution (grid level,
 * mode), made now when it is the first (a lazy context's). */
vxr_result vxr_frame_pipeline(vxr_renderer *r, uint32_t grid_level, vxr_mode mode, VkPipeline *dest,
                              vxr_error *err);

/* Workgroups x0 .. x1 - 1 by y0 .. y1 - 1 of a frame (renderer/groups.c);
 * empty when x0 >= x1 or y0 >= y1. */
typedef struct vxr_groups {
    uint32_t x0, y0, x1, y1;
} vxr_groups;
/* The workgroups that hold the pixels px[0] .. px[2] - 1 by px[1] ..
 * px[3] - 1 (vxr_camera_box_pixels's rectangle), clipped to g. */
vxr_groups vxr_pixel_groups(const vxr_renderer *r, const uint32_t px[4], vxr_groups g);
/* The workgroups of target t's frame through cam whose pixels may meet the
 * hierarchy's root box padded by pad: the rest miss. All of them on a
 * device with the beam pre-pass; none when nothing is shown. */
vxr_groups vxr_scene_groups(const vxr_renderer *r, const vxr_target *t, const vxr_camera *cam,
                            float pad);
/* Lists the workgroups of target t's frame through cam (t->tile_list, all
 * groups_x * groups_y of them) on a context without the beam: first those
 * of parts[2] (the scene's, vxr_scene_groups) whose pixels may see an
 * occupied cell of a visible instance's model (vxr_resident's occupancy
 * as uploaded), or the aligned cube of 2^level voxels holding one (a
 * grid's or a level of detail's largest cubes), each box padded by pad:
 * those in parts[0], then those in parts[1] but not parts[0], then the
 * rest of parts[2] (nested rectangles: a level of detail's, vxr_lod_groups;
 * counts[] says how many of each); then the rest, whose rays miss every
 * voxel. Returns the count of the first three. */
uint32_t vxr_scene_tiles(const vxr_renderer *r, vxr_target *t, const vxr_camera *cam, float pad,
                         uint32_t level, const vxr_groups parts[3], uint32_t counts[3]);
/* Whether g leaves workgroups of t out. */
bool vxr_leaves_out(const vxr_renderer *r, const vxr_target *t, vxr_groups g);
/* Whether a and b are the same workgroups (both empty, or equal). */
bool vxr_same_groups(vxr_groups a, vxr_groups b);
/* The workgroups of g whose rays, through cam at level of detail k > 0
 * with the hierarchy's boxes padded by pad, may stop at a cube of `level`
 * or above; empty when none can (groups.c says why it holds). */
vxr_groups vxr_lod_groups(const vxr_renderer *r, const vxr_camera *cam, float k, float pad,
                          uint32_t level, vxr_groups g);
/* The beam pre-pass's pipeline (VK_NULL_HANDLE on a context without the
 * pass), made now when it is the first. */
vxr_result vxr_beam_pipeline(vxr_renderer *r, VkPipeline *dest, vxr_error *err);
/* The descriptor set layouts, pipeline layout and shader module every
 * renderer of a context shares (renderer/pipeline.c); destroyed with the
 * context by vxr_pipelines_destroy. */
vxr_result vxr_pipelines_init(vxr_context *c, vxr_error *err);
void vxr_pipelines_destroy(vxr_context *c);
/* A descriptor pool for one set of layout `set` (VXR_SET_*) with the given
 * sizes, and the set; the pool is the caller's to destroy. */
vxr_result vxr_set_create(vxr_context *c, uint32_t set, const VkDescriptorPoolSize *sizes,
                          uint32_t n, VkDescriptorPool *pool, VkDescriptorSet *dest,
                          vxr_error *err);

/* renderer/pipeline.c: the texel format of a binding of set 0; a new
 * descriptor set over r->buf (views made for the buffers that have none). */
VkFormat vxr_binding_format(uint32_t b);
vxr_result vxr_renderer_bind(vxr_renderer *r, vxr_error *err);
/* renderer/sections.c: elements per chunk, the largest power of two of
 * elem-byte elements in one binding of `limit` bytes and at most
 * max_texels texels; the chunks count elements take (at least 1). */
uint32_t vxr_chunk_shift(uint64_t limit, uint32_t elem, uint64_t max_texels);
uint32_t vxr_chunk_count(uint64_t count, uint32_t shift);
/* First fit of count elements in a section; false when no free range
 * holds them. */
bool vxr_range_alloc(vxr_section *sec, uint64_t count, uint64_t *start);
/* Returns a range to the free list, joined with its neighbours (out of
 * memory for the list: it stays unused until the next layout). */
void vxr_range_free(vxr_section *sec, uint64_t start, uint64_t count);
/* The range a model gets for `need` elements of section k: half again
 * when it is live (edits grow it), but none of wide nodes, which a live
 * model never has. */
uint64_t vxr_range_size(const vxr_octree *m, int k, uint64_t need);
/* Places a model's ranges (with headroom when live); false when a section
 * has no free range that large. */
bool vxr_resident_place(vxr_renderer *r, uint32_t model, const vxr_octree *m);
/* The elements model m needs in each section of r: no wide nodes when it
 * is live or r walks without them (wide_off). */
void vxr_model_needs(const vxr_renderer *r, const vxr_octree *m, uint64_t need[VXR_SECTIONS]);
/* Copies elements [start, start + count) of a model's section (zero past
 * its data) into dest; wide: the model's wide form (section VXR_SEC_WIDE). */
void vxr_model_section(const vxr_octree *m, const vxr_wide_node *wide, const uint32_t *palette,
                       int sec, uint64_t start, uint64_t count, void *dest);
/* The wide form of model i of s as it is now: the tree's own when it
 * carries one, else made once per model version (the renderer keeps the
 * last one made); *dest NULL for a model without voxels.
 * VXR_ERROR_MEMORY. */
vxr_result vxr_renderer_wide(vxr_renderer *r, const vxr_scene *s, uint32_t i,
                             const vxr_wide_node **dest);
/* Sets spec's chunk counts from the sections; whether any changed (the
 * pipelines then need making). */
bool vxr_spec_chunks(vxr_renderer *r);
/* Frees the wide form vxr_renderer_wide kept (after an update's uploads). */
void vxr_renderer_wide_drop(vxr_renderer *r);
/* Sets spec's wide walk: on while every model of s is compact (only those
 * have their wide form uploaded) and r holds wide forms (not wide_off);
 * whether it changed. O(models). */
bool vxr_spec_wide(vxr_renderer *r, const vxr_scene *s);
/* The model table record of model i as placed (zero for a removed one). */
void vxr_renderer_model_record(const vxr_renderer *r, const vxr_scene *s, uint32_t i,
                               vxr_gpu_model *dest);
/* renderer/sections.c: the most elements section k may hold (its bindings,
 * and 32-bit bases: attribute bases count bytes); the chunks (bindings)
 * its capacity takes, at least 1. */
uint64_t vxr_section_limit(const vxr_section *sec, int k);
uint32_t vxr_section_chunks(const vxr_section *sec);
/* What the shader needs of a hierarchy besides its buffers: its node
 * count and the grid pads. */
struct vxr_bvh;
void vxr_renderer_take_hierarchy(vxr_renderer *r, const struct vxr_bvh *bvh);
/* renderer/staging.c: keeps bvh (uploaded whole by the caller) as the
 * hierarchy that updates refit; takes its arrays (bvh is zeroed). */
void vxr_renderer_keep_hierarchy(vxr_renderer *r, struct vxr_bvh *bvh);
/* renderer/sections.c: raise the renderer's magnitude bounds by an instance
 * record, or a model record; the bound on |translation| + scale * model
 * extent that push constant `magnitude` carries. */
void vxr_renderer_grow_instance(vxr_renderer *r, const vxr_gpu_instance *g);
void vxr_renderer_grow_model(vxr_renderer *r, const vxr_gpu_model *m);
float vxr_renderer_magnitude(const vxr_renderer *r);
/* Frees the renderer's update state (ranges, ring, retired objects). */
void vxr_renderer_update_free(vxr_renderer *r);

/* The embedded SPIR-V of shaders/trace.comp and shaders/beam.comp. */
extern const uint32_t vxr_trace_spv[];
extern const size_t vxr_trace_spv_size; /* bytes */
extern const uint32_t vxr_beam_spv[];
extern const size_t vxr_beam_spv_size;

#endif
