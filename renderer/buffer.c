/* Device memory: buffers and images sub-allocated from a few large
 * VkDeviceMemory blocks per memory type, host-visible blocks mapped once.
 *
 * Blocks hold either buffers or images, never both (no
 * bufferImageGranularity conflict between them); in image blocks every
 * range starts on a bufferImageGranularity boundary as well, so linear and
 * optimal images may share one. Ranges in host-visible memory that is not
 * coherent start and end on nonCoherentAtomSize boundaries (flushable).
 * A resource larger than half the block size, or one the driver prefers or
 * requires in its own memory, gets a VkDeviceMemory of its own. Blocks
 * grow: the first of a kind is an eighth of the full size, each next one
 * twice the last, up to VXR_BLOCK_BYTES (or an eighth of a small heap).
 * Each block keeps its free ranges sorted and coalesced; a block left
 * empty is freed. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define VXR_BLOCK_BYTES ((VkDeviceSize)64 << 20)
#define MIN_BLOCK_BYTES ((VkDeviceSize)1 << 20)

typedef struct vxr_block {
    struct vxr_block *next;
    VkDeviceMemory memory;
    VkDeviceSize size, used; /* used: the ranges handed out, padding excluded */
    void *map;
    uint32_t type;
    uint32_t allocations;
    bool image;      /* images only */
    bool dedicated;  /* one resource */
    vxr_range *free; /* sorted by start, coalesced; bytes */
    uint32_t free_count, free_cap;
} vxr_block;

int vxr_memory_type(const vxr_context *c, uint32_t type_bits, VkMemoryPropertyFlags flags) {
    for (uint32_t i = 0; i < c->memory.memoryTypeCount; i++)
        if ((type_bits & (1u << i)) && (c->memory.memoryTypes[i].propertyFlags & flags) == flags)
            return (int)i;
    return -1;
}

static VkDeviceSize align_up(VkDeviceSize v, VkDeviceSize a) {
    return (v + a - 1) / a * a;
}

static VkDeviceSize max_size(VkDeviceSize a, VkDeviceSize b) {
    return a > b ? a : b;
}

/* The least common multiple of two alignments. */
static VkDeviceSize lcm(VkDeviceSize a, VkDeviceSize b) {
    VkDeviceSize x = a, y = b;
    while (y) {
        VkDeviceSize t = x % y;
        x = y;
        y = t;
    }
    return a / x * b;
}

/* The full block size for a memory type: VXR_BLOCK_BYTES, or an eighth of
 * a heap smaller than 1 GiB. */
static VkDeviceSize full_block(const vxr_context *c, uint32_t type) {
    VkDeviceSize heap = c->memory.memoryHeaps[c->memory.memoryTypes[type].heapIndex].size;
    VkDeviceSize full = VXR_BLOCK_BYTES;
    if (heap < ((VkDeviceSize)1 << 30)) full = align_up(heap / 8, MIN_BLOCK_BYTES);
    return max_size(full, MIN_BLOCK_BYTES);
}

/* Frees a block's memory (unmapping it) and its record. */
static void block_destroy(vxr_context *c, vxr_block *b) {
    if (b->memory) c->vk.vkFreeMemory(c->device, b->memory, c->alloc);
    free(b->free);
    free(b);
}

/* Allocates a block of size bytes of a type, mapped when host-visible.
 * dedicated_buffer/image: VkMemoryDedicatedAllocateInfo for that resource.
 * err is not NULL; VXR_ERROR_MEMORY is not logged (memory_alloc does). */
static vxr_result block_create(vxr_context *c, uint32_t type, VkDeviceSize size, bool image,
                               bool dedicated, VkBuffer dedicated_buffer, VkImage dedicated_image,
                               vxr_block **dest, vxr_error *err) {
    vxr_result res = VXR_OK;
    *dest = NULL;
    vxr_block *b = calloc(1, sizeof *b);
    if (!b) return vxr_ctx_fail(c, err, VXR_ERROR_MEMORY, "out of memory");
    b->size = size;
    b->type = type;
    b->image = image;
    b->dedicated = dedicated;
    VkMemoryDedicatedAllocateInfo dai = {.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
                                         .buffer = dedicated_buffer,
                                         .image = dedicated_image};
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .pNext = dedicated_buffer || dedicated_image ? &dai : NULL,
                               .allocationSize = size,
                               .memoryTypeIndex = type};
    VkResult vr = c->vk.vkAllocateMemory(c->device, &ai, c->alloc, &b->memory);
    if (vr == VK_ERROR_OUT_OF_DEVICE_MEMORY || vr == VK_ERROR_OUT_OF_HOST_MEMORY) {
        /* the caller may try smaller or elsewhere: the reason, not logged */
        snprintf(err->message, sizeof err->message,
                 "vkAllocateMemory failed: %s (%llu bytes of memory type %u)",
                 vxr_vk_result_string(vr), (unsigned long long)size, type);
        res = VXR_ERROR_MEMORY;
        goto fail;
    }
    VXR_VK_TRY(c, err, vr);
    if (c->memory.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
        VXR_VK_TRY(c, err, c->vk.vkMapMemory(c->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->map));
    if (!dedicated) {
        b->free = malloc(4 * sizeof *b->free);
        if (!b->free) {
            res = vxr_ctx_fail(c, err, VXR_ERROR_MEMORY, "out of memory");
            goto fail;
        }
        b->free[0] = (vxr_range){0, size};
        b->free_count = 1;
        b->free_cap = 4;
    }
    uint32_t serial = c->block_serial++;
    if (dedicated)
        vxr_name(c, VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)b->memory,
                 "vxr memory %u (type %u, own, %llu bytes)", serial, type,
                 (unsigned long long)size);
    else
        vxr_name(c, VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)b->memory,
                 "vxr memory block %u (type %u, %s, %llu MiB)", serial, type,
                 image ? "images" : "buffers", (unsigned long long)(size >> 20));
    *dest = b;
    return VXR_OK;
fail:
    block_destroy(c, b);
    return res;
}

/* The best-fitting free range of b for size bytes at align: its index, and
 * the aligned start; -1 when none fits. */
static int block_fit(const vxr_block *b, VkDeviceSize size, VkDeviceSize align,
                     VkDeviceSize *start) {
    int best = -1;
    for (uint32_t i = 0; i < b->free_count; i++) {
        VkDeviceSize s = align_up(b->free[i].start, align);
        VkDeviceSize end = b->free[i].start + b->free[i].count;
        if (s > end || end - s < size) continue;
        if (best < 0 || b->free[i].count < b->free[best].count) {
            best = (int)i;
            *start = s;
        }
    }
    return best;
}

/* Room for n free ranges; false when out of memory. A block of k
 * allocations has at most k + 1 (the gaps around them): with room for
 * allocations + 2 before an allocation, taking and giving back never need
 * more. */
static bool free_reserve(vxr_block *b, uint32_t n) {
    if (n <= b->free_cap) return true;
    uint32_t cap = b->free_cap * 2 > n ? b->free_cap * 2 : n;
    vxr_range *f = realloc(b->free, cap * sizeof *f);
    if (!f) return false;
    b->free = f;
    b->free_cap = cap;
    return true;
}

/* Takes [start, start + size) out of free range i (which holds; room
 * reserved). */
static void block_take(vxr_block *b, uint32_t i, VkDeviceSize start, VkDeviceSize size) {
    vxr_range r = b->free[i];
    bool before = start > r.start, after = start + size < r.start + r.count;
    if (before && after) {
        memmove(&b->free[i + 2], &b->free[i + 1], (b->free_count - i - 1) * sizeof *b->free);
        b->free_count++;
        b->free[i] = (vxr_range){r.start, start - r.start};
        b->free[i + 1] = (vxr_range){start + size, r.start + r.count - start - size};
    } else if (before) {
        b->free[i].count = start - r.start;
    } else if (after) {
        b->free[i] = (vxr_range){start + size, r.start + r.count - start - size};
    } else {
        memmove(&b->free[i], &b->free[i + 1], (b->free_count - i - 1) * sizeof *b->free);
        b->free_count--;
    }
}

/* Gives [start, start + size) back, coalescing with its neighbours. */
static void block_give(vxr_block *b, VkDeviceSize start, VkDeviceSize size) {
    uint32_t i = 0;
    while (i < b->free_count && b->free[i].start < start) i++;
    bool join_prev = i > 0 && b->free[i - 1].start + b->free[i - 1].count == start;
    bool join_next = i < b->free_count && start + size == b->free[i].start;
    if (join_prev && join_next) {
        b->free[i - 1].count += size + b->free[i].count;
        memmove(&b->free[i], &b->free[i + 1], (b->free_count - i - 1) * sizeof *b->free);
        b->free_count--;
    } else if (join_prev) {
        b->free[i - 1].count += size;
    } else if (join_next) {
        b->free[i].start = start;
        b->free[i].count += size;
    } else {
        /* room reserved at allocation */
        memmove(&b->free[i + 1], &b->free[i], (b->free_count - i) * sizeof *b->free);
        b->free_count++;
        b->free[i] = (vxr_range){start, size};
    }
}

/* Fills a for [offset, offset + size) of b. */
static void alloc_from(vxr_context *c, vxr_block *b, VkDeviceSize offset, VkDeviceSize size,
                       vxr_alloc *a) {
    b->used += size;
    b->allocations++;
    if (c->memory.memoryTypes[b->type].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) {
        c->device_used += size;
        if (c->device_used > c->device_peak) c->device_peak = c->device_used;
    }
    a->block = b;
    a->memory = b->memory;
    a->offset = offset;
    a->size = size;
    a->map = b->map ? (char *)b->map + offset : NULL;
    a->flags = c->memory.memoryTypes[b->type].propertyFlags;
}

/* Memory of a type for req: a range of a block of the kind, else a new
 * block; or its own memory when large or dedicated. Caller holds the lock. */
static vxr_result alloc_type(vxr_context *c, const VkMemoryRequirements *req, uint32_t type,
                             bool image, bool dedicated, VkBuffer buffer, VkImage img,
                             vxr_alloc *dest, vxr_error *err) {
    VkDeviceSize full = full_block(c, type);
    if (dedicated || req->size > full / 2) {
        vxr_block *b;
        vxr_result res = block_create(c, type, req->size, image, true, dedicated ? buffer : 0,
                                      dedicated ? img : 0, &b, err);
        if (res != VXR_OK) return res;
        b->next = c->blocks;
        c->blocks = b;
        alloc_from(c, b, 0, req->size, dest);
        return VXR_OK;
    }
    VkDeviceSize align = req->alignment ? req->alignment : 1, size = req->size;
    VkMemoryPropertyFlags flags = c->memory.memoryTypes[type].propertyFlags;
    if ((flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) &&
        !(flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) {
        VkDeviceSize atom = c->props.limits.nonCoherentAtomSize;
        if (atom > 1) {
            align = lcm(align, atom);
            size = align_up(size, atom);
        }
    }
    if (image && c->props.limits.bufferImageGranularity > 1)
        align = lcm(align, c->props.limits.bufferImageGranularity);
    VkDeviceSize largest = 0;
    uint32_t count = 0;
    for (vxr_block *b = c->blocks; b; b = b->next) {
        if (b->type != type || b->image != image || b->dedicated) continue;
        count++;
        largest = max_size(largest, b->size);
        VkDeviceSize start;
        int i = block_fit(b, size, align, &start);
        if (i < 0 || !free_reserve(b, b->allocations + 2)) continue;
        block_take(b, (uint32_t)i, start, size);
        alloc_from(c, b, start, size, dest);
        return VXR_OK;
    }
    /* a new block: twice the largest of its kind (an eighth of full for
     * the first), up to full, at least the size asked for */
    VkDeviceSize want = count ? largest * 2 : full / 8;
    if (want > full) want = full;
    want = max_size(want, MIN_BLOCK_BYTES);
    while (want < size) want *= 2; /* offset 0 is aligned */
    vxr_result res = VXR_ERROR_MEMORY;
    vxr_block *b = NULL;
    /* out of memory: smaller blocks, down to 1 MiB or what this resource needs */
    for (VkDeviceSize s = want; res != VXR_OK; s /= 2) {
        if (s < size || s < MIN_BLOCK_BYTES) break;
        res = block_create(c, type, s, image, false, 0, 0, &b, err);
        if (res != VXR_ERROR_MEMORY) break;
    }
    if (res != VXR_OK) return res;
    b->next = c->blocks;
    c->blocks = b;
    VkDeviceSize start;
    int i = block_fit(b, size, align, &start); /* the whole block: fits at 0 */
    if (i < 0 || !free_reserve(b, 2)) {
        c->blocks = b->next;
        block_destroy(c, b);
        return vxr_ctx_fail(c, err, VXR_ERROR_MEMORY, "out of memory");
    }
    block_take(b, (uint32_t)i, start, size);
    alloc_from(c, b, start, size, dest);
    return VXR_OK;
}

/* Memory for req with all need flags, preferring want: the types with
 * want and need flags first, then (out of memory there) those with the
 * needed flags only. */
static vxr_result memory_alloc(vxr_context *c, const VkMemoryRequirements *req, bool image,
                               bool dedicated, VkBuffer buffer, VkImage img,
                               VkMemoryPropertyFlags want, VkMemoryPropertyFlags need,
                               vxr_alloc *dest, vxr_error *err) {
    memset(dest, 0, sizeof *dest);
    vxr_error local;
    vxr_error *e = err ? err : &local;
    if (vxr_memory_type(c, req->memoryTypeBits, need) < 0)
        return vxr_ctx_fail(c, err, VXR_ERROR_VULKAN, "no memory type with flags 0x%x for %s",
                            (unsigned)need, image ? "an image" : "a buffer");
    pthread_mutex_lock(&c->mem_lock);
    vxr_result res = VXR_ERROR_MEMORY;
    for (int pass = 0; pass < 2 && res == VXR_ERROR_MEMORY; pass++)
        for (uint32_t i = 0; i < c->memory.memoryTypeCount && res == VXR_ERROR_MEMORY; i++) {
            VkMemoryPropertyFlags f = c->memory.memoryTypes[i].propertyFlags;
            bool preferred = (f & (want | need)) == (want | need);
            if (!(req->memoryTypeBits & (1u << i)) || (f & need) != need || preferred != !pass)
                continue;
            res = alloc_type(c, req, i, image, dedicated, buffer, img, dest, e);
        }
    pthread_mutex_unlock(&c->mem_lock);
    if (res == VXR_ERROR_MEMORY) { /* the last reason, logged once */
        char why[sizeof e->message];
        memcpy(why, e->message, sizeof why);
        return vxr_ctx_fail(c, err, res, "%s", why);
    }
    return res;
}

void vxr_memory_free(vxr_context *c, vxr_alloc *a) {
    vxr_block *b = a->block;
    if (!b) return;
    pthread_mutex_lock(&c->mem_lock);
    b->used -= a->size;
    b->allocations--;
    if (c->memory.memoryTypes[b->type].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)
        c->device_used -= a->size;
    if (!b->dedicated) block_give(b, a->offset, a->size);
    if (!b->allocations) {
        vxr_block **p = &c->blocks;
        while (*p != b) p = &(*p)->next;
        *p = b->next;
        block_destroy(c, b);
    }
    pthread_mutex_unlock(&c->mem_lock);
    memset(a, 0, sizeof *a);
}

void vxr_memory_release(vxr_context *c) {
    while (c->blocks) {
        vxr_block *b = c->blocks;
        c->blocks = b->next;
        block_destroy(c, b);
    }
}

/* The requirements of a buffer or image, and whether the driver prefers or
 * requires it in its own memory. */
static void requirements(vxr_context *c, VkBuffer buffer, VkImage image, VkMemoryRequirements *req,
                         bool *dedicated) {
    VkMemoryDedicatedRequirements dr = {.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
    VkMemoryRequirements2 r2 = {.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, .pNext = &dr};
    if (buffer) {
        VkBufferMemoryRequirementsInfo2 bi = {
            .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2, .buffer = buffer};
        c->vk.vkGetBufferMemoryRequirements2(c->device, &bi, &r2);
    } else {
        VkImageMemoryRequirementsInfo2 ii = {
            .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2, .image = image};
        c->vk.vkGetImageMemoryRequirements2(c->device, &ii, &r2);
    }
    *req = r2.memoryRequirements;
    *dedicated = dr.prefersDedicatedAllocation || dr.requiresDedicatedAllocation;
}

/* A short name for what a buffer is for, from its usage. */
static const char *usage_name(VkBufferUsageFlags usage) {
    if (usage & VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT) return "scene data";
    if (usage & VK_BUFFER_USAGE_STORAGE_BUFFER_BIT) return "storage";
    if (usage == VK_BUFFER_USAGE_TRANSFER_SRC_BIT) return "staging";
    if (usage == VK_BUFFER_USAGE_TRANSFER_DST_BIT) return "readback";
    return "buffer";
}

vxr_result vxr_buf_create(vxr_context *c, VkDeviceSize size, VkBufferUsageFlags usage,
                          VkMemoryPropertyFlags want, VkMemoryPropertyFlags need, vxr_buf *dest,
                          vxr_error *err) {
    vxr_result res = VXR_OK;
    memset(dest, 0, sizeof *dest);
    dest->size = size < 16 ? 16 : (size + 3) & ~(VkDeviceSize)3;
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = dest->size,
                             .usage = usage,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VXR_VK_TRY(c, err, c->vk.vkCreateBuffer(c->device, &bi, c->alloc, &dest->buffer));
    VkMemoryRequirements req;
    bool dedicated;
    requirements(c, dest->buffer, VK_NULL_HANDLE, &req, &dedicated);
    res = memory_alloc(c, &req, false, dedicated, dest->buffer, VK_NULL_HANDLE, want, need,
                       &dest->mem, err);
    if (res != VXR_OK) goto fail;
    VXR_VK_TRY(
        c, err,
        c->vk.vkBindBufferMemory(c->device, dest->buffer, dest->mem.memory, dest->mem.offset));
    dest->map = dest->mem.map;
    dest->flags = dest->mem.flags;
    /* callers give a better name */
    vxr_name(c, VK_OBJECT_TYPE_BUFFER, (uint64_t)dest->buffer, "vxr %s buffer (%llu bytes)",
             usage_name(usage), (unsigned long long)dest->size);
    return VXR_OK;
fail:
    vxr_buf_destroy(c, dest);
    return res;
}

void vxr_buf_destroy(vxr_context *c, vxr_buf *b) {
    if (b->buffer) c->vk.vkDestroyBuffer(c->device, b->buffer, c->alloc);
    vxr_memory_free(c, &b->mem);
    memset(b, 0, sizeof *b);
}

vxr_result vxr_image_memory(vxr_context *c, VkImage image, VkMemoryPropertyFlags want,
                            VkMemoryPropertyFlags need, vxr_alloc *dest, vxr_error *err) {
    VkMemoryRequirements req;
    bool dedicated;
    requirements(c, VK_NULL_HANDLE, image, &req, &dedicated);
    vxr_result res =
        memory_alloc(c, &req, true, dedicated, VK_NULL_HANDLE, image, want, need, dest, err);
    if (res != VXR_OK) return res;
    res =
        vxr_vk_check(c, err, c->vk.vkBindImageMemory(c->device, image, dest->memory, dest->offset),
                     "vkBindImageMemory");
    if (res != VXR_OK) vxr_memory_free(c, dest);
    return res;
}

void vxr_context_memory(const vxr_context *ctx, vxr_memory_info *dest) {
    vxr_context *c = (vxr_context *)ctx; /* the lock */
    memset(dest, 0, sizeof *dest);
    pthread_mutex_lock(&c->mem_lock);
    dest->device_local_peak = c->device_peak;
    for (const vxr_block *b = c->blocks; b; b = b->next) {
        VkMemoryPropertyFlags f = c->memory.memoryTypes[b->type].propertyFlags;
        if (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) {
            dest->device_local_bytes += b->size;
            dest->device_local_used += b->used;
        }
        if (f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
            dest->host_visible_bytes += b->size;
            dest->host_visible_used += b->used;
        }
        dest->blocks++;
        dest->dedicated += b->dedicated;
        dest->allocations += b->allocations;
    }
    pthread_mutex_unlock(&c->mem_lock);
}
