/* The renderer's memory sub-allocator (renderer/buffer.c) against a fake
 * device: every buffer and image bound in range, aligned and apart from
 * every other live one; buffers and images in different blocks, image
 * ranges on bufferImageGranularity, non-coherent host ranges on
 * nonCoherentAtomSize; many resources share few blocks, blocks grow, freed
 * ranges coalesce, empty blocks are freed, large and driver-preferred
 * resources get their own memory, an allocation failure retries smaller
 * blocks and then the other type, and the memory query adds up. */
#include "internal.h"
#include "vxr_test.h"

VXR_TEST_RNG(0x3e3017ull)

enum { MAX_OBJECTS = 1 << 14, MAX_MEMORY = 1024 };

/* The fake device's state. */
static struct {
    /* buffers and images: handle = index + 1 */
    struct {
        bool live, image, dedicated, bound;
        VkDeviceSize size, alignment;
        uint32_t type_bits;
        uint64_t memory; /* index + 1 */
        VkDeviceSize offset;
    } obj[MAX_OBJECTS];
    uint32_t objects;                    /* slots used */
    uint32_t spare[MAX_OBJECTS], spares; /* dead slots */
    struct {
        bool live, dedicated_info;
        VkDeviceSize size;
        uint32_t type;
    } mem[MAX_MEMORY];
    uint32_t memories, allocs, frees, live_memory;
    VkDeviceSize fail_above[2]; /* vkAllocateMemory fails above this size, per type; 0: never */
    /* the next object's requirements */
    VkDeviceSize alignment;
    uint32_t type_bits;
    bool prefer_dedicated;
} dev;

static uint64_t obj_new(bool image, VkDeviceSize size) {
    uint32_t i = dev.spares ? dev.spare[--dev.spares] : dev.objects++;
    CHECK(i < MAX_OBJECTS);
    memset(&dev.obj[i], 0, sizeof dev.obj[i]);
    dev.obj[i].live = true;
    dev.obj[i].image = image;
    dev.obj[i].size = size;
    dev.obj[i].alignment = dev.alignment;
    dev.obj[i].type_bits = dev.type_bits;
    dev.obj[i].dedicated = dev.prefer_dedicated;
    return i + 1;
}

static VKAPI_ATTR VkResult VKAPI_CALL create_buffer(VkDevice d, const VkBufferCreateInfo *ci,
                                                    const VkAllocationCallbacks *a, VkBuffer *out) {
    (void)d, (void)a;
    *out = (VkBuffer)(uintptr_t)obj_new(false, ci->size);
    return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL destroy_buffer(VkDevice d, VkBuffer b,
                                                 const VkAllocationCallbacks *a) {
    (void)d, (void)a;
    uint64_t i = (uint64_t)(uintptr_t)b - 1;
    CHECK(dev.obj[i].live && !dev.obj[i].image);
    dev.obj[i].live = false;
    dev.spare[dev.spares++] = (uint32_t)i;
}

static void requirements(uint64_t handle, VkMemoryRequirements2 *r) {
    uint64_t i = handle - 1;
    VkDeviceSize a = dev.obj[i].alignment;
    r->memoryRequirements.size = (dev.obj[i].size + a - 1) / a * a;
    r->memoryRequirements.alignment = a;
    r->memoryRequirements.memoryTypeBits = dev.obj[i].type_bits;
    for (VkBaseOutStructure *p = r->pNext; p; p = p->pNext)
        if (p->sType == VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS) {
            VkMemoryDedicatedRequirements *dr = (VkMemoryDedicatedRequirements *)p;
            dr->prefersDedicatedAllocation = dev.obj[i].dedicated;
            dr->requiresDedicatedAllocation = VK_FALSE;
        }
}

static VKAPI_ATTR void VKAPI_CALL buffer_req(VkDevice d, const VkBufferMemoryRequirementsInfo2 *in,
                                             VkMemoryRequirements2 *r) {
    (void)d;
    requirements((uint64_t)(uintptr_t)in->buffer, r);
}

static VKAPI_ATTR void VKAPI_CALL image_req(VkDevice d, const VkImageMemoryRequirementsInfo2 *in,
                                            VkMemoryRequirements2 *r) {
    (void)d;
    requirements((uint64_t)(uintptr_t)in->image, r);
}

static VKAPI_ATTR VkResult VKAPI_CALL allocate(VkDevice d, const VkMemoryAllocateInfo *ai,
                                               const VkAllocationCallbacks *a,
                                               VkDeviceMemory *out) {
    (void)d, (void)a;
    if (dev.fail_above[ai->memoryTypeIndex] &&
        ai->allocationSize > dev.fail_above[ai->memoryTypeIndex])
        return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    uint32_t i = dev.memories++;
    CHECK(i < MAX_MEMORY);
    dev.mem[i].live = true;
    dev.mem[i].size = ai->allocationSize;
    dev.mem[i].type = ai->memoryTypeIndex;
    const VkBaseInStructure *p = ai->pNext;
    dev.mem[i].dedicated_info = p && p->sType == VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO;
    dev.allocs++;
    dev.live_memory++;
    *out = (VkDeviceMemory)(uintptr_t)(i + 1);
    return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL free_memory(VkDevice d, VkDeviceMemory m,
                                              const VkAllocationCallbacks *a) {
    (void)d, (void)a;
    uint64_t i = (uint64_t)(uintptr_t)m - 1;
    CHECK(dev.mem[i].live);
    /* nothing live still bound there */
    for (uint32_t k = 0; k < dev.objects; k++)
        CHECK(!(dev.obj[k].live && dev.obj[k].bound && dev.obj[k].memory == i + 1));
    dev.mem[i].live = false;
    dev.frees++;
    dev.live_memory--;
}

static VKAPI_ATTR VkResult VKAPI_CALL map(VkDevice d, VkDeviceMemory m, VkDeviceSize offset,
                                          VkDeviceSize size, VkMemoryMapFlags flags, void **out) {
    (void)d, (void)offset, (void)size, (void)flags;
    /* a fake address: only compared, never dereferenced */
    *out = (void *)(uintptr_t)((uint64_t)(uintptr_t)m << 32);
    return VK_SUCCESS;
}

/* Binds object handle at offset of m: in range, aligned, overlapping no
 * live object there. */
static void bind(uint64_t handle, VkDeviceMemory m, VkDeviceSize offset) {
    uint64_t i = handle - 1, mi = (uint64_t)(uintptr_t)m - 1;
    CHECK(dev.mem[mi].live);
    CHECK(offset % dev.obj[i].alignment == 0);
    VkDeviceSize a = dev.obj[i].alignment;
    VkDeviceSize size = (dev.obj[i].size + a - 1) / a * a;
    CHECK(offset + size <= dev.mem[mi].size);
    CHECK(dev.obj[i].type_bits & (1u << dev.mem[mi].type));
    for (uint32_t k = 0; k < dev.objects; k++) {
        if (!dev.obj[k].live || !dev.obj[k].bound || dev.obj[k].memory != mi + 1) continue;
        VkDeviceSize ka = dev.obj[k].alignment;
        VkDeviceSize ks = (dev.obj[k].size + ka - 1) / ka * ka;
        CHECK(offset + size <= dev.obj[k].offset || dev.obj[k].offset + ks <= offset);
        CHECK(dev.obj[k].image == dev.obj[i].image); /* buffers and images apart */
    }
    dev.obj[i].bound = true;
    dev.obj[i].memory = mi + 1;
    dev.obj[i].offset = offset;
}

static VKAPI_ATTR VkResult VKAPI_CALL bind_buffer(VkDevice d, VkBuffer b, VkDeviceMemory m,
                                                  VkDeviceSize offset) {
    (void)d;
    bind((uint64_t)(uintptr_t)b, m, offset);
    return VK_SUCCESS;
}

static VKAPI_ATTR VkResult VKAPI_CALL bind_image(VkDevice d, VkImage im, VkDeviceMemory m,
                                                 VkDeviceSize offset) {
    (void)d;
    bind((uint64_t)(uintptr_t)im, m, offset);
    return VK_SUCCESS;
}

#define HEAP_BIG    ((VkDeviceSize)8 << 30)
#define HEAP_SMALL  ((VkDeviceSize)256 << 20) /* blocks: an eighth, 32 MiB */
#define GRANULARITY 1024
#define ATOM        256
#define MIB         ((VkDeviceSize)1 << 20)

/* A context over the fake device: type 0 device-local, type 1
 * host-visible and not coherent in a small heap. */
static vxr_context *fake_context(void) {
    memset(&dev, 0, sizeof dev);
    dev.alignment = 256;
    dev.type_bits = 3;
    vxr_context *c = calloc(1, sizeof *c);
    pthread_mutex_init(&c->mem_lock, NULL);
    c->device = (VkDevice)(uintptr_t)1;
    c->vk.vkCreateBuffer = create_buffer;
    c->vk.vkDestroyBuffer = destroy_buffer;
    c->vk.vkGetBufferMemoryRequirements2 = buffer_req;
    c->vk.vkGetImageMemoryRequirements2 = image_req;
    c->vk.vkAllocateMemory = allocate;
    c->vk.vkFreeMemory = free_memory;
    c->vk.vkMapMemory = map;
    c->vk.vkBindBufferMemory = bind_buffer;
    c->vk.vkBindImageMemory = bind_image;
    c->memory.memoryTypeCount = 2;
    c->memory.memoryTypes[0] = (VkMemoryType){VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0};
    c->memory.memoryTypes[1] = (VkMemoryType){VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 1};
    c->memory.memoryHeapCount = 2;
    c->memory.memoryHeaps[0] = (VkMemoryHeap){HEAP_BIG, VK_MEMORY_HEAP_DEVICE_LOCAL_BIT};
    c->memory.memoryHeaps[1] = (VkMemoryHeap){HEAP_SMALL, 0};
    c->props.limits.bufferImageGranularity = GRANULARITY;
    c->props.limits.nonCoherentAtomSize = ATOM;
    return c;
}

static void fake_destroy(vxr_context *c) {
    vxr_memory_release(c);
    pthread_mutex_destroy(&c->mem_lock);
    free(c);
}

static vxr_buf buffer(vxr_context *c, VkDeviceSize size, VkMemoryPropertyFlags need) {
    vxr_buf b;
    vxr_error err = {{0}};
    vxr_result r = vxr_buf_create(c, size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, 0, need, &b, &err);
    if (r != VXR_OK) fprintf(stderr, "vxr_buf_create: %s\n", err.message);
    CHECK(r == VXR_OK);
    return b;
}

/* An image of size bytes: its handle and memory. */
typedef struct image {
    VkImage image;
    vxr_alloc mem;
} image;

static image image_new(vxr_context *c, VkDeviceSize size) {
    image im = {(VkImage)(uintptr_t)obj_new(true, size), {0}};
    vxr_error err = {{0}};
    CHECK(vxr_image_memory(c, im.image, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &im.mem, &err) ==
          VXR_OK);
    return im;
}

static void image_free(vxr_context *c, image *im) {
    uint64_t i = (uint64_t)(uintptr_t)im->image - 1;
    dev.obj[i].live = false;
    dev.spare[dev.spares++] = (uint32_t)i;
    vxr_memory_free(c, &im->mem);
}

/* The query against the fake device: live memory and the bytes bound. */
static void check_query(vxr_context *c) {
    vxr_memory_info mi;
    vxr_context_memory(c, &mi);
    uint64_t bytes[2] = {0}, used[2] = {0};
    uint32_t blocks = 0, allocations = 0;
    for (uint32_t i = 0; i < dev.memories; i++)
        if (dev.mem[i].live) {
            bytes[dev.mem[i].type] += dev.mem[i].size;
            blocks++;
        }
    for (uint32_t k = 0; k < dev.objects; k++)
        if (dev.obj[k].live && dev.obj[k].bound) {
            VkDeviceSize a = dev.obj[k].alignment;
            VkDeviceSize s = (dev.obj[k].size + a - 1) / a * a;
            uint32_t type = dev.mem[dev.obj[k].memory - 1].type;
            used[type] += type == 1 ? (s + ATOM - 1) / ATOM * ATOM : s;
            allocations++;
        }
    CHECK_EQ_INT(mi.device_local_bytes, bytes[0]);
    CHECK_EQ_INT(mi.host_visible_bytes, bytes[1]);
    CHECK_EQ_INT(mi.device_local_used, used[0]);
    CHECK_EQ_INT(mi.host_visible_used, used[1]);
    CHECK_EQ_INT(mi.blocks, blocks);
    CHECK_EQ_INT(mi.allocations, allocations);
}

/* Many buffers share few blocks, which grow; all freed, no memory is left. */
static void test_share(void) {
    vxr_context *c = fake_context();
    enum { N = 2000 };
    static vxr_buf b[N];
    VkDeviceSize total = 0;
    for (int i = 0; i < N; i++) {
        b[i] = buffer(c, 16 + rnd() % 32768, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        total += b[i].size;
        CHECK(b[i].flags == VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT && !b[i].map);
    }
    /* ~32 MiB: blocks of 8, 16, 32 MiB */
    CHECK(dev.allocs <= 3);
    CHECK_EQ_INT(dev.mem[0].size, 8 * MIB);
    if (dev.allocs > 1) CHECK_EQ_INT(dev.mem[1].size, 16 * MIB);
    check_query(c);
    vxr_memory_info mi;
    vxr_context_memory(c, &mi);
    CHECK(mi.device_local_used >= total && mi.device_local_bytes >= mi.device_local_used);
    CHECK_EQ_INT(mi.allocations, N);
    CHECK_EQ_INT(mi.dedicated, 0);
    /* churn: free and allocate at random */
    for (int step = 0; step < 20000; step++) {
        int i = (int)(rnd() % N);
        vxr_buf_destroy(c, &b[i]);
        b[i] = buffer(c, 16 + rnd() % (rnd() % 8 ? 4096 : 200000),
                      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        if (step % 1000 == 0) check_query(c);
    }
    CHECK(dev.live_memory <= 4);
    for (int i = 0; i < N; i++) vxr_buf_destroy(c, &b[i]);
    CHECK_EQ_INT(dev.live_memory, 0);
    CHECK_EQ_INT(dev.allocs, dev.frees);
    check_query(c);
    CHECK(c->blocks == NULL);
    fake_destroy(c);
}

/* Freed neighbours coalesce: a range as large as many freed ones fits
 * where they were, with no new block. */
static void test_coalesce(void) {
    vxr_context *c = fake_context();
    enum { N = 100 };
    vxr_buf b[N];
    for (int i = 0; i < N; i++) b[i] = buffer(c, 64 << 10, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    CHECK_EQ_INT(dev.allocs, 1); /* 6400 KiB of an 8 MiB block */
    /* free all but the last, in random order */
    int order[N - 1];
    for (int i = 0; i < N - 1; i++) order[i] = i;
    for (int i = N - 2; i > 0; i--) {
        int j = (int)(rnd() % (uint32_t)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < N - 1; i++) vxr_buf_destroy(c, &b[order[i]]);
    CHECK_EQ_INT(dev.live_memory, 1);
    /* 6000 KiB: more than the 1792 KiB tail, less than the 6336 KiB freed */
    vxr_buf big = buffer(c, 6000 << 10, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    CHECK_EQ_INT(dev.allocs, 1);
    CHECK_EQ_INT(big.mem.offset, 0);
    CHECK(big.mem.memory == b[N - 1].mem.memory);
    vxr_buf_destroy(c, &big);
    vxr_buf_destroy(c, &b[N - 1]);
    CHECK_EQ_INT(dev.live_memory, 0); /* the empty block is freed */
    fake_destroy(c);
}

/* Alignment, images apart from buffers on the granularity, non-coherent
 * host memory on the atom, mapped pointers at their offsets. */
static void test_alignment(void) {
    vxr_context *c = fake_context();
    static vxr_buf b[300];
    static image im[300];
    for (int i = 0; i < 300; i++) {
        dev.alignment = (VkDeviceSize)4 << (rnd() % 11); /* 4 .. 4096 */
        b[i] = buffer(c, 1 + rnd() % 5000,
                      i % 3 ? VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT
                            : VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
        dev.alignment = (VkDeviceSize)4 << (rnd() % 8);
        im[i] = image_new(c, 1 + rnd() % 70000);
        CHECK(im[i].mem.offset % GRANULARITY == 0);
        CHECK(im[i].mem.memory != b[i].mem.memory);
        if (i % 3 == 0) {
            CHECK(b[i].map != NULL);
            CHECK(b[i].mem.offset % ATOM == 0 && b[i].mem.size % ATOM == 0);
            CHECK((uintptr_t)b[i].map ==
                  (uintptr_t)((uint64_t)(uintptr_t)b[i].mem.memory << 32) + b[i].mem.offset);
        }
    }
    check_query(c);
    for (int i = 0; i < 300; i += 2) {
        vxr_buf_destroy(c, &b[i]);
        image_free(c, &im[i]);
    }
    check_query(c);
    for (int i = 0; i < 300; i += 2) {
        b[i] = buffer(c, 1 + rnd() % 5000, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
        CHECK(b[i].mem.offset % ATOM == 0);
        im[i] = image_new(c, 1 + rnd() % 70000);
        CHECK(im[i].mem.offset % GRANULARITY == 0);
    }
    check_query(c);
    for (int i = 0; i < 300; i++) {
        vxr_buf_destroy(c, &b[i]);
        image_free(c, &im[i]);
    }
    CHECK_EQ_INT(dev.live_memory, 0);
    fake_destroy(c);
}

/* Large resources and those the driver prefers alone get memory of their
 * own (with VkMemoryDedicatedAllocateInfo for the latter); the small heap
 * has smaller blocks. */
static void test_dedicated(void) {
    vxr_context *c = fake_context();
    vxr_buf small = buffer(c, 1000, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    vxr_buf large = buffer(c, 40 * MIB, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    CHECK_EQ_INT(dev.allocs, 2);
    CHECK_EQ_INT(dev.mem[1].size, 40 * MIB);
    CHECK(!dev.mem[1].dedicated_info);
    dev.prefer_dedicated = true;
    vxr_buf pref = buffer(c, 1000, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    image pim = image_new(c, 5000);
    dev.prefer_dedicated = false;
    CHECK_EQ_INT(dev.allocs, 4);
    CHECK(dev.mem[2].dedicated_info && dev.mem[3].dedicated_info);
    CHECK_EQ_INT(pref.mem.offset, 0);
    vxr_memory_info mi;
    vxr_context_memory(c, &mi);
    CHECK_EQ_INT(mi.blocks, 4);
    CHECK_EQ_INT(mi.dedicated, 3);
    check_query(c);
    /* host-visible in the 256 MiB heap: 32 MiB blocks, 4 MiB first; 20 MiB is its own */
    vxr_buf host = buffer(c, 1000, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
    CHECK_EQ_INT(dev.mem[4].size, 4 * MIB);
    vxr_buf host_large = buffer(c, 20 * MIB, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
    CHECK_EQ_INT(dev.mem[5].size, 20 * MIB);
    vxr_buf_destroy(c, &large);
    vxr_buf_destroy(c, &pref);
    image_free(c, &pim);
    CHECK_EQ_INT(dev.live_memory, 3);
    vxr_buf_destroy(c, &small);
    vxr_buf_destroy(c, &host);
    vxr_buf_destroy(c, &host_large);
    CHECK_EQ_INT(dev.live_memory, 0);
    fake_destroy(c);
}

/* Out of memory: smaller blocks, then the type with the needed flags only. */
static void test_out_of_memory(void) {
    vxr_context *c = fake_context();
    dev.fail_above[0] = 3 * MIB;
    vxr_buf b = buffer(c, 1000, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    CHECK_EQ_INT(dev.mem[0].size, 2 * MIB); /* 8 and 4 MiB failed */
    vxr_buf_destroy(c, &b);
    dev.fail_above[0] = 1000; /* type 0 full: want device-local, need nothing */
    vxr_buf o;
    vxr_error err = {{0}};
    CHECK(vxr_buf_create(c, 5000, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                         VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &o, &err) == VXR_OK);
    CHECK(o.flags == VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
    vxr_buf_destroy(c, &o);
    /* needing device-local: the failure, and nothing left behind */
    CHECK(vxr_buf_create(c, 5000, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, 0,
                         VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &o, &err) == VXR_ERROR_MEMORY);
    CHECK(strstr(err.message, "vkAllocateMemory") != NULL);
    CHECK(o.buffer == VK_NULL_HANDLE);
    /* no type at all */
    dev.type_bits = 2;
    CHECK(vxr_buf_create(c, 5000, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, 0,
                         VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &o, &err) == VXR_ERROR_VULKAN);
    CHECK(strstr(err.message, "no memory type") != NULL);
    CHECK_EQ_INT(dev.live_memory, 0);
    for (uint32_t k = 0; k < dev.objects; k++) CHECK(!dev.obj[k].live);
    fake_destroy(c);
}

VXR_TEST_MAIN(TEST(test_share), TEST(test_coalesce), TEST(test_alignment), TEST(test_dedicated),
              TEST(test_out_of_memory))
