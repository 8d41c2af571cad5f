/* Private pieces of the renderer: the dispatch table, the context, buffers. */
#ifndef VXR_RENDERER_INTERNAL_H
#define VXR_RENDERER_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>
#include "vxr/renderer.h"
#include "vxr/scene.h"

/* Every Vulkan function the renderer calls, by the level it is loaded at. */
#define VXR_VK_GLOBAL(X) X(vkCreateInstance) X(vkEnumerateInstanceLayerProperties)

#define VXR_VK_INSTANCE(X)                                                                         \
    X(vkDestroyInstance)                                                                           \
    X(vkEnumeratePhysicalDevices)                                                                  \
    X(vkGetPhysicalDeviceProperties)                                                               \
    X(vkGetPhysicalDeviceQueueFamilyProperties)                                                    \
    X(vkGetPhysicalDeviceMemoryProperties)                                                         \
    X(vkEnumerateDeviceExtensionProperties)                                                        \
    X(vkCreateDevice)                                                                              \
    X(vkGetDeviceProcAddr)

#define VXR_VK_DEBUG(X) X(vkCreateDebugUtilsMessengerEXT) X(vkDestroyDebugUtilsMessengerEXT)

#define VXR_VK_DEVICE(X)                                                                           \
    X(vkDestroyDevice)                                                                             \
    X(vkCreateBuffer)                                                                              \
    X(vkDestroyBuffer)                                                                             \
    X(vkGetBufferMemoryRequirements)                                                               \
    X(vkAllocateMemory)                                                                            \
    X(vkFreeMemory)                                                                                \
    X(vkBindBufferMemory)                                                                          \
    X(vkCreateBufferView)                                                                          \
    X(vkDestroyBufferView)                                                                         \
    X(vkMapMemory)                                                                                 \
    X(vkCreateImage)                                                                               \
    X(vkDestroyImage)                                                                              \
    X(vkGetImageMemoryRequirements)                                                                \
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
    X(vkCmdPipelineBarrier)                                                                        \
    X(vkCmdCopyBuffer)                                                                             \
    X(vkCmdUpdateBuffer)                                                                           \
    X(vkCmdCopyImageToBuffer)                                                                      \
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
    VkDescriptorSetLayout set_layout[2]; /* VXR_SET_SCENE, VXR_SET_TARGET */
    VkPipelineLayout pipeline_layout;
};

/* A buffer with its own memory, mapped when host-visible. */
typedef struct vxr_buf {
    VkBuffer buffer;
    VkDeviceMemory memory;
    void *map;
    VkDeviceSize size;
    VkMemoryPropertyFlags flags;
} vxr_buf;

/* What a dispatch traces: a frame, a frame with pick records, a ray batch. */
typedef enum vxr_mode { VXR_MODE_FRAME, VXR_MODE_PICKS, VXR_MODE_RAYS, VXR_MODES } vxr_mode;

/* The octree data of a scene, in three sections (nodes, brick attribute
 * bases, attribute words), each split over chunk buffers of 2^shift
 * elements bound at first .. first + bindings - 1. Each model owns a range
 * of each section with room to grow (renderer/update.c). */
enum { VXR_SEC_NODES, VXR_SEC_BATTR, VXR_SEC_ATTRS, VXR_SECTIONS };

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

/* Where one model lives on the GPU. */
typedef struct vxr_resident {
    uint64_t base[VXR_SECTIONS], cap[VXR_SECTIONS], used[VXR_SECTIONS]; /* elements */
    uint64_t version; /* the model_version uploaded */
    bool placed, empty;
} vxr_resident;

/* A Vulkan object that goes once the GPU is done with it: after
 * vxr_renderer_complete(serial) (or destroy). */
typedef struct vxr_retired {
    uint64_t serial;
    vxr_buf buf;
    VkBufferView view;
    VkDescriptorPool pool;
    VkPipeline pipeline;
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

struct vxr_renderer {
    vxr_context *ctx;
    const vxr_scene *scene;              /* the one updates take */
    vxr_buf buf[VXR_SCENE_BINDINGS];     /* zero where a chunk is unused */
    vxr_buf staging[VXR_SCENE_BINDINGS]; /* creation's, until vxr_renderer_upload_done */
    VkBufferView view[VXR_SCENE_BINDINGS];
    VkDescriptorPool pool;
    VkDescriptorSet set;
    VkPipeline pipeline[VXR_GRID_LEVELS][VXR_MODES]; /* made on first use */
    vxr_spec spec;                                   /* grid_level, picks, rays set per pipeline */
    uint32_t bvh_nodes;
    float grid_pad[VXR_GRID_LEVELS]; /* vxr_bvh_grid_pad per grid level */
    vxr_section sec[VXR_SECTIONS];
    vxr_resident *res;                    /* model_cap of them */
    vxr_gpu_model *model_rec;             /* the model table as uploaded, model_cap */
    vxr_gpu_instance *inst_rec;           /* the instance table as uploaded, instance_cap */
    uint32_t model_count, instance_count; /* in the tables */
    uint32_t model_cap, instance_cap;     /* records the table buffers hold */
    uint64_t scene_version;               /* of the last update */
    vxr_ring ring;
    uint64_t serial;    /* of the last update that recorded work */
    uint64_t completed; /* the host said: updates up to this serial completed */
    vxr_retired *retired;
    uint32_t retired_count, retired_cap;
};

struct vxr_target {
    vxr_context *ctx;
    uint32_t width, height;
    VkImage image;
    VkDeviceMemory image_memory;
    VkImageView view;
    vxr_buf picks;     /* a 32-byte stand-in without picks */
    vxr_buf readback;  /* zero without readback */
    vxr_buf rays;      /* a ray batch's input; zero for a frame target */
    uint32_t capacity; /* rays in a batch */
    bool has_picks;
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
/* Finds a memory type among type_bits with all flags; -1 when none. */
int vxr_memory_type(const vxr_context *c, uint32_t type_bits, VkMemoryPropertyFlags flags);

/* A ray batch is a 1x1 target (set 1 needs an image) whose pick records
 * and rays are sized for its capacity. */
struct vxr_rays {
    vxr_target *t;
};

/* The pipeline for a grid level and mode, created on first use; err says
 * why when that fails. */
vxr_result vxr_renderer_pipeline(vxr_renderer *r, uint32_t grid_level, vxr_mode mode,
                                 VkPipeline *dest, vxr_error *err);
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
/* Destroys the pipelines a renderer made. */
void vxr_renderer_pipelines_destroy(vxr_renderer *r);

/* renderer/upload.c: the texel format of a binding of set 0; a new
 * descriptor set over r->buf (views made for the buffers that have none). */
VkFormat vxr_binding_format(uint32_t b);
vxr_result vxr_renderer_bind(vxr_renderer *r, vxr_error *err);
/* renderer/update.c: places a model's ranges (with headroom when live);
 * false when a section has no free range that large. */
bool vxr_resident_place(vxr_renderer *r, uint32_t model, const vxr_octree *m);
/* The elements a model needs in each section. */
void vxr_model_needs(const vxr_octree *m, uint64_t need[VXR_SECTIONS]);
/* Copies elements [start, start + count) of a model's section (zero past
 * its data) into dest. */
void vxr_model_section(const vxr_octree *m, int sec, uint64_t start, uint64_t count, void *dest);
/* The model table record of model i as placed (zero for a removed one). */
void vxr_renderer_model_record(const vxr_renderer *r, const vxr_scene *s, uint32_t i,
                               vxr_gpu_model *dest);
/* renderer/upload.c: the most elements section k may hold (its bindings,
 * and 32-bit bases: attribute bases count bytes); the chunks (bindings)
 * its capacity takes, at least 1. */
uint64_t vxr_section_limit(const vxr_section *sec, int k);
uint32_t vxr_section_chunks(const vxr_section *sec);
/* What the shader needs of a hierarchy besides its buffers: its node
 * count and the grid pads. */
struct vxr_bvh;
void vxr_renderer_take_hierarchy(vxr_renderer *r, const struct vxr_bvh *bvh);
/* Frees the renderer's update state (ranges, ring, retired objects). */
void vxr_renderer_update_free(vxr_renderer *r);

/* The embedded SPIR-V of shaders/trace.comp. */
extern const uint32_t vxr_trace_spv[];
extern const size_t vxr_trace_spv_size; /* bytes */

#endif
