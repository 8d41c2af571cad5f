/* The context's memory, allocator, names and up-front checks on lavapipe,
 * with validation (synchronization validation included) on:
 *  - buffers and images share a few memory blocks, the memory query adds
 *    up, and everything is freed again;
 *  - a host's VkAllocationCallbacks are called, and every allocation made
 *    through them is freed by the time the context is destroyed;
 *  - with debug utils vxr names its objects, without it names nothing;
 *  - synchronization validation is on (a deliberate hazard is reported)
 *    and vxr's own work in one command buffer raises no message;
 *  - a host instance of Vulkan 1.0 is refused up front with a clear reason;
 *  - pipelines built ahead (vxr_renderer_prepare, on a worker thread) are
 *    the ones renderers of that scene's shape then use: creating one builds
 *    none, a scene of another shape builds its own, a prepare racing a
 *    create builds them once;
 *  - a lazy context (lazy_pipelines) creates a renderer compiling nothing
 *    and a frame compiling only what it uses, with the records of an eager
 *    context, whose flat frames compile nothing; a prepare then builds the
 *    rest of the eager set. */
#include <pthread.h>
#include "gpu.h"
#include "vxr/formats.h"
#include "vxr_test.h"

static vxr_scene *load_scene(void) {
    vxr_scene *s = NULL;
    vxr_error err = {{0}};
    if (vxr_scene_load(VXR_TEST_DATA "/vengi__test-transform.vox", &s, &err) != VXR_OK)
        fprintf(stderr, "%s\n", err.message);
    return s;
}

enum { FRAME_W = 48, FRAME_H = 32, FRAME_PIXELS = FRAME_W * FRAME_H };

/* One frame of s at FRAME_W x FRAME_H with picks on g's context: the pipelines the
 * context held after the renderer's creation and after the frame, and the
 * frame's records into picks. */
static void frame_counts(cli_gpu *g, const vxr_scene *s, uint32_t made[2], vxr_gpu_pick *picks) {
    vxr_error err = {{0}};
    vxr_camera cam = {0};
    vxr_camera_orbit(s, 0.7f, 0.5f, 2.0f, &cam); /* with sky around the scene */
    cam.width = FRAME_W;
    cam.height = FRAME_H;
    CHECK(vxr_camera_setup(&cam) == VXR_OK);
    vxr_renderer *r = NULL;
    vxr_target *t = NULL;
    vxr_target_desc td = {.width = cam.width, .height = cam.height, .picks = true};
    CHECK(cli_gpu_begin(g, &err) == VXR_OK);
    CHECK(vxr_renderer_create(g->ctx, s, g->cmd, &r, &err) == VXR_OK);
    made[0] = vxr_context_pipeline_count(g->ctx);
    CHECK(vxr_target_create(g->ctx, &td, &t, &err) == VXR_OK);
    if (r && t) CHECK(vxr_renderer_render(r, t, &cam, 1, g->cmd, &err) == VXR_OK);
    made[1] = vxr_context_pipeline_count(g->ctx);
    CHECK(cli_gpu_submit(g, &err) == VXR_OK);
    if (t) memcpy(picks, vxr_target_picks(t), cam.width * cam.height * sizeof *picks);
    vxr_target_destroy(t);
    vxr_renderer_destroy(r);
}

static uint32_t hits_of(const vxr_gpu_pick picks[FRAME_PIXELS]) {
    uint32_t hits = 0;
    for (uint32_t i = 0; i < FRAME_PIXELS; i++) hits += (picks[i].flags & VXR_PICK_HIT) != 0;
    return hits;
}

/* Renders one frame of s with a fresh renderer and target on g and checks
 * that some pixel hit. */
static void render_once(cli_gpu *g, const vxr_scene *s) {
    static vxr_gpu_pick picks[FRAME_PIXELS];
    uint32_t made[2];
    frame_counts(g, s, made, picks);
    CHECK(hits_of(picks) > 0);
}

/* Many buffers in few blocks; the query adds up; all freed. */
static void test_memory(void) {
    cli_gpu g;
    vxr_error err = {{0}};
    if (cli_gpu_open(&g, &(vxr_context_desc){.validation = true}, &err) != VXR_OK) {
        fprintf(stderr, "%s\n", err.message);
        SKIP("no device");
    }
    vxr_memory_info m0, m1, m2;
    vxr_context_memory(g.ctx, &m0);
    CHECK_EQ_INT(m0.allocations, 0);
    CHECK_EQ_INT(m0.blocks, 0);
    enum { N = 100 };
    vxr_rays *q[N];
    for (int i = 0; i < N; i++)
        CHECK(vxr_rays_create(g.ctx, 64 + 7 * (uint32_t)i, &q[i], &err) == VXR_OK);
    vxr_context_memory(g.ctx, &m1);
    /* each batch: a 1x1 image, pick records and rays */
    fprintf(stderr, "  %u batches: %u allocations in %u blocks (%u own), %llu of %llu bytes\n", N,
            m1.allocations, m1.blocks, m1.dedicated, (unsigned long long)m1.host_visible_used,
            (unsigned long long)m1.host_visible_bytes);
    CHECK(m1.allocations >= 2 * N);
    CHECK(m1.blocks <= 4);
    CHECK(m1.blocks >= 1);
    uint64_t used =
        m1.device_local_used > m1.host_visible_used ? m1.device_local_used : m1.host_visible_used;
    CHECK(used >= (uint64_t)N * 64 * (sizeof(vxr_ray) + sizeof(vxr_gpu_pick)));
    CHECK(m1.host_visible_used <= m1.host_visible_bytes);
    CHECK(m1.device_local_used <= m1.device_local_bytes);
    CHECK(m1.host_visible_used > 0); /* rays are written by the host */
    /* half of them gone: fewer allocations, no more blocks */
    for (int i = 0; i < N; i += 2) vxr_rays_destroy(q[i]);
    vxr_context_memory(g.ctx, &m2);
    CHECK(m2.allocations < m1.allocations && m2.allocations >= N);
    CHECK(m2.blocks <= m1.blocks);
    CHECK(m2.host_visible_used < m1.host_visible_used);
    /* and back into the holes */
    for (int i = 0; i < N; i += 2)
        CHECK(vxr_rays_create(g.ctx, 64 + 7 * (uint32_t)i, &q[i], &err) == VXR_OK);
    vxr_context_memory(g.ctx, &m2);
    CHECK_EQ_INT(m2.allocations, m1.allocations);
    CHECK(m2.blocks <= m1.blocks);
    /* a scene and a frame on top */
    vxr_scene *s = load_scene();
    CHECK(s != NULL);
    if (s) render_once(&g, s);
    for (int i = 0; i < N; i++) vxr_rays_destroy(q[i]);
    vxr_context_memory(g.ctx, &m2);
    CHECK_EQ_INT(m2.allocations, 0);
    CHECK_EQ_INT(m2.blocks, 0);
    CHECK_EQ_INT(m2.device_local_bytes + m2.host_visible_bytes, 0);
    CHECK_EQ_INT(vxr_context_validation_messages(g.ctx), 0);
    vxr_scene_destroy(s);
    cli_gpu_close(&g);
}

/* A counting allocator: each block carries its size before the pointer. */
typedef struct counts {
    size_t allocations, reallocations, frees, live;
} counts;

enum { HEADER = 64 }; /* at least any alignment Vulkan asks for here */

static void *VKAPI_CALL count_alloc(void *user, size_t size, size_t align,
                                    VkSystemAllocationScope scope) {
    (void)scope;
    counts *n = user;
    if (align > HEADER) return NULL;
    char *p = aligned_alloc(HEADER, (HEADER + size + HEADER - 1) / HEADER * HEADER);
    if (!p) return NULL;
    memcpy(p, &size, sizeof size);
    n->allocations++;
    n->live++;
    return p + HEADER;
}

static void VKAPI_CALL count_free(void *user, void *mem) {
    if (!mem) return;
    counts *n = user;
    n->frees++;
    n->live--;
    free((char *)mem - HEADER);
}

static void *VKAPI_CALL count_realloc(void *user, void *old, size_t size, size_t align,
                                      VkSystemAllocationScope scope) {
    counts *n = user;
    if (!old) return count_alloc(user, size, align, scope);
    if (!size) {
        count_free(user, old);
        return NULL;
    }
    void *p = count_alloc(user, size, align, scope);
    if (!p) return NULL;
    size_t was;
    memcpy(&was, (char *)old - HEADER, sizeof was);
    memcpy(p, old, was < size ? was : size);
    count_free(user, old);
    n->allocations--, n->frees--; /* counted as a reallocation */
    n->reallocations++;
    return p;
}

/* Every Vulkan object of vxr goes through the host's callbacks (the
 * validation layer checks that each destroy passes the callbacks its
 * create did), and all that they allocated is freed with the context. */
static void test_allocator(void) {
    counts n = {0};
    VkAllocationCallbacks cb = {.pUserData = &n,
                                .pfnAllocation = count_alloc,
                                .pfnReallocation = count_realloc,
                                .pfnFree = count_free};
    cli_gpu g;
    vxr_error err = {{0}};
    if (cli_gpu_open(&g, &(vxr_context_desc){.validation = true, .allocator = &cb}, &err) !=
        VXR_OK) {
        fprintf(stderr, "%s\n", err.message);
        SKIP("no device");
    }
    size_t after_create = n.allocations;
    CHECK(after_create > 0); /* the instance, the device, the layouts */
    vxr_scene *s = load_scene();
    CHECK(s != NULL);
    if (s) render_once(&g, s);
    vxr_rays *q = NULL;
    CHECK(vxr_rays_create(g.ctx, 100, &q, &err) == VXR_OK);
    vxr_rays_destroy(q);
    CHECK(n.allocations > after_create);
    CHECK_EQ_INT(vxr_context_validation_messages(g.ctx), 0);
    fprintf(stderr, "  %zu allocations, %zu reallocations, %zu frees\n", n.allocations,
            n.reallocations, n.frees);
    cli_gpu_close(&g);
    CHECK_EQ_INT(n.live, 0);
    CHECK_EQ_INT(n.allocations, n.frees);
    vxr_scene_destroy(s);
}

/* vkSetDebugUtilsObjectNameEXT as vxr sees it: through a wrapped
 * vkGetInstanceProcAddr that records each name. */
static PFN_vkSetDebugUtilsObjectNameEXT real_set_name;
static char names[64][128];
static uint32_t name_count;

static VKAPI_ATTR VkResult VKAPI_CALL record_name(VkDevice device,
                                                  const VkDebugUtilsObjectNameInfoEXT *info) {
    if (name_count < 64) snprintf(names[name_count], sizeof names[0], "%s", info->pObjectName);
    name_count++;
    CHECK(info->objectHandle != 0);
    return real_set_name(device, info);
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL wrap_gipa(VkInstance instance, const char *name) {
    PFN_vkVoidFunction f = vkGetInstanceProcAddr(instance, name);
    if (f && !strcmp(name, "vkSetDebugUtilsObjectNameEXT")) {
        real_set_name = (PFN_vkSetDebugUtilsObjectNameEXT)f;
        return (PFN_vkVoidFunction)record_name;
    }
    return f;
}

static bool named(const char *prefix) {
    for (uint32_t i = 0; i < name_count && i < 64; i++)
        if (!strncmp(names[i], prefix, strlen(prefix))) return true;
    return false;
}

static void test_names(void) {
    if (volkInitialize() != VK_SUCCESS) SKIP("no loader");
    for (int with = 0; with < 3; with++) {
        /* 0: no validation, no names; 1: validation; 2: debug_names alone */
        name_count = 0;
        vxr_context_desc d = {
            .get_instance_proc_addr = wrap_gipa, .validation = with == 1, .debug_names = with == 2};
        vxr_context *c = NULL;
        vxr_error err = {{0}};
        vxr_result r = vxr_context_create(&d, &c, &err);
        if (r == VXR_ERROR_DEVICE) SKIP("no device");
        CHECK(r == VXR_OK);
        vxr_rays *q = NULL;
        CHECK(vxr_rays_create(c, 100, &q, &err) == VXR_OK);
        if (with) {
            CHECK(named("vxr memory block 0 "));
            CHECK(named("vxr "));
            for (uint32_t i = 0; i < name_count && i < 64; i++)
                if (with == 1) fprintf(stderr, "  named: %s\n", names[i]);
        } else {
            CHECK_EQ_INT(name_count, 0);
        }
        vxr_rays_destroy(q);
        if (with == 1) CHECK_EQ_INT(vxr_context_validation_messages(c), 0);
        vxr_context_destroy(c);
    }
}

/* The validation messages of a context, as its log receives them. */
typedef struct messages {
    uint32_t count, hazards;
} messages;

static void on_log(void *user, const char *line) {
    messages *m = user;
    if (strncmp(line, "validation", 10)) return;
    m->count++;
    m->hazards += strstr(line, "SYNC-HAZARD") != NULL;
    fprintf(stderr, "  %.300s\n", line);
}

/* Synchronization validation is on with validation: a hazard of the
 * test's own (two fills of one buffer without a barrier) is reported;
 * vxr's work (the same target rendered and blitted to a host image twice,
 * a ray batch picked twice, an instance update between, in one command
 * buffer) raises none. */
static void test_sync_validation(void) {
    messages m = {0};
    cli_gpu g;
    vxr_error err = {{0}};
    if (cli_gpu_open(&g, &(vxr_context_desc){.validation = true, .log = on_log, .log_user = &m},
                     &err) != VXR_OK) {
        fprintf(stderr, "%s\n", err.message);
        SKIP("no device");
    }
    VkDevice dev = g.info.device;
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = 256,
                             .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    VkBuffer buf = VK_NULL_HANDLE;
    VkDeviceMemory mem = VK_NULL_HANDLE;
    CHECK(vkCreateBuffer(dev, &bi, NULL, &buf) == VK_SUCCESS);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, buf, &req);
    uint32_t type = 0;
    while (!(req.memoryTypeBits & (1u << type))) type++;
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = req.size,
                               .memoryTypeIndex = type};
    CHECK(vkAllocateMemory(dev, &ai, NULL, &mem) == VK_SUCCESS);
    CHECK(vkBindBufferMemory(dev, buf, mem, 0) == VK_SUCCESS);
    CHECK(cli_gpu_begin(&g, &err) == VXR_OK);
    vkCmdFillBuffer(g.cmd, buf, 0, 256, 1);
    vkCmdFillBuffer(g.cmd, buf, 0, 256, 2);
    CHECK(cli_gpu_submit(&g, &err) == VXR_OK);
    CHECK(m.hazards >= 1);
    vkDestroyBuffer(dev, buf, NULL);
    vkFreeMemory(dev, mem, NULL);
    m.count = m.hazards = 0;
    /* a host image to blit the frames into */
    VkImageCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
                            .imageType = VK_IMAGE_TYPE_2D,
                            .format = VK_FORMAT_B8G8R8A8_UNORM,
                            .extent = {32, 24, 1},
                            .mipLevels = 1,
                            .arrayLayers = 1,
                            .samples = VK_SAMPLE_COUNT_1_BIT,
                            .tiling = VK_IMAGE_TILING_OPTIMAL,
                            .usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT};
    VkImage dst = VK_NULL_HANDLE;
    CHECK(vkCreateImage(dev, &ii, NULL, &dst) == VK_SUCCESS);
    vkGetImageMemoryRequirements(dev, dst, &req);
    for (type = 0; !(req.memoryTypeBits & (1u << type));) type++;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = type;
    CHECK(vkAllocateMemory(dev, &ai, NULL, &mem) == VK_SUCCESS);
    CHECK(vkBindImageMemory(dev, dst, mem, 0) == VK_SUCCESS);

    vxr_scene *s = load_scene();
    CHECK(s != NULL);
    if (!s) {
        cli_gpu_close(&g);
        return;
    }
    vxr_camera cam = {0};
    vxr_camera_orbit(s, 0.7f, 0.5f, 0.8f, &cam);
    cam.width = 32;
    cam.height = 24;
    CHECK(vxr_camera_setup(&cam) == VXR_OK);
    vxr_renderer *r = NULL;
    vxr_target *t = NULL;
    vxr_rays *q = NULL;
    vxr_target_desc td = {
        .width = cam.width, .height = cam.height, .picks = true, .readback = true};
    CHECK(cli_gpu_begin(&g, &err) == VXR_OK);
    CHECK(vxr_renderer_create(g.ctx, s, g.cmd, &r, &err) == VXR_OK);
    CHECK(vxr_target_create(g.ctx, &td, &t, &err) == VXR_OK);
    CHECK(vxr_rays_create(g.ctx, 16, &q, &err) == VXR_OK);
    for (uint32_t i = 0; q && i < 16; i++) vxr_camera_ray(&cam, i, i, &vxr_rays_input(q)[i]);
    CHECK(cli_gpu_submit(&g, &err) == VXR_OK);
    CHECK(cli_gpu_begin(&g, &err) == VXR_OK);
    for (int k = 0; r && t && q && k < 2; k++) {
        CHECK(vxr_renderer_render(r, t, &cam, 1, g.cmd, &err) == VXR_OK);
        vxr_target_blit(t, dst, VK_IMAGE_LAYOUT_UNDEFINED, g.cmd);
        CHECK(vxr_renderer_pick_rays(r, q, 16, 1, g.cmd, &err) == VXR_OK);
        CHECK(vxr_renderer_update_instances(r, s, g.cmd, &err) == VXR_OK);
    }
    CHECK(cli_gpu_submit(&g, &err) == VXR_OK);
    CHECK_EQ_INT(m.count, 0);
    vkDestroyImage(dev, dst, NULL);
    vkFreeMemory(dev, mem, NULL);
    vxr_rays_destroy(q);
    vxr_target_destroy(t);
    vxr_renderer_destroy(r);
    vxr_scene_destroy(s);
    cli_gpu_close(&g);
}

/* A host whose instance is Vulkan 1.0: refused before anything is made. */
static void test_host_api_1_0(void) {
    if (volkInitialize() != VK_SUCCESS) SKIP("no loader");
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .apiVersion = VK_API_VERSION_1_0};
    VkInstanceCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                               .pApplicationInfo = &app};
    VkInstance instance = VK_NULL_HANDLE;
    if (vkCreateInstance(&ii, NULL, &instance) != VK_SUCCESS) SKIP("no driver");
    volkLoadInstance(instance);
    VkPhysicalDevice pd = VK_NULL_HANDLE;
    uint32_t n = 1;
    vkEnumeratePhysicalDevices(instance, &n, &pd);
    VkDevice device = VK_NULL_HANDLE;
    float prio = 1;
    VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                  .queueCount = 1,
                                  .pQueuePriorities = &prio};
    VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                             .queueCreateInfoCount = 1,
                             .pQueueCreateInfos = &qi};
    CHECK(n == 1 && vkCreateDevice(pd, &di, NULL, &device) == VK_SUCCESS);
    for (int v = 0; v < 2; v++) {
        /* api_version left 0 means 1.0, as in VkApplicationInfo */
        vxr_context_desc d = {.get_instance_proc_addr = vkGetInstanceProcAddr,
                              .instance = instance,
                              .physical_device = pd,
                              .device = device,
                              .api_version = v ? VK_API_VERSION_1_0 : 0};
        vxr_context *c = (vxr_context *)1;
        vxr_error err = {{0}};
        CHECK(vxr_context_create(&d, &c, &err) == VXR_ERROR_DEVICE);
        CHECK(c == NULL);
        fprintf(stderr, "  %s\n", err.message);
        CHECK(strstr(err.message, "Vulkan API version 1.0") != NULL);
        CHECK(strstr(err.message, "below the 1.2") != NULL);
    }
    /* the desc's reason for missing handles names them */
    vxr_context_desc d = {.instance = instance, .physical_device = pd};
    vxr_context *c = NULL;
    vxr_error err = {{0}};
    CHECK(vxr_context_create(&d, &c, &err) == VXR_ERROR_ARGUMENT);
    CHECK(strstr(err.message, "device") != NULL);
    vkDestroyDevice(device, NULL);
    vkDestroyInstance(instance, NULL);
}

typedef struct prepare_job {
    vxr_context *ctx;
    const vxr_scene *scene;
    vxr_result result;
} prepare_job;

static void *prepare_thread(void *user) {
    prepare_job *j = user;
    vxr_error err = {{0}};
    j->result = vxr_renderer_prepare(j->ctx, j->scene, &err);
    if (j->result != VXR_OK) fprintf(stderr, "prepare: %s\n", err.message);
    return NULL;
}

static vxr_scene *load_file(const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", VXR_TEST_DATA, name);
    vxr_scene *s = NULL;
    vxr_error err = {{0}};
    if (vxr_scene_load(path, &s, &err) != VXR_OK) fprintf(stderr, "%s\n", err.message);
    return s;
}

/* Bindings of 64 KiB: test-transform splits over several, the robot
 * (1.5 KB) does not, so the two have pipelines of their own. */
static void test_prepare(void) {
    cli_gpu g;
    vxr_error err = {{0}};
    const vxr_context_desc small = {.validation = true, .max_binding_bytes = 64 << 10};
    if (cli_gpu_open(&g, &small, &err) != VXR_OK) {
        fprintf(stderr, "%s\n", err.message);
        SKIP("no device");
    }
    vxr_scene *s = load_scene();
    CHECK(s != NULL);
    CHECK_EQ_INT(vxr_context_pipeline_sets(g.ctx), 0);
    /* ahead, on a worker, while this thread loads another scene */
    prepare_job job = {g.ctx, s, VXR_ERROR_ARGUMENT};
    pthread_t worker;
    CHECK(pthread_create(&worker, NULL, prepare_thread, &job) == 0);
    vxr_scene *other = load_file("mmmm__chr_robot.vox");
    CHECK(other != NULL);
    pthread_join(worker, NULL);
    CHECK(job.result == VXR_OK);
    CHECK_EQ_INT(vxr_context_pipeline_sets(g.ctx), 1);
    if (s) render_once(&g, s); /* creates a renderer: it builds nothing */
    CHECK_EQ_INT(vxr_context_pipeline_sets(g.ctx), 1);
    CHECK(vxr_renderer_prepare(g.ctx, s, &err) == VXR_OK); /* found, not built again */
    CHECK_EQ_INT(vxr_context_pipeline_sets(g.ctx), 1);
    if (other) render_once(&g, other); /* another shape: its own */
    CHECK_EQ_INT(vxr_context_pipeline_sets(g.ctx), 2);
    CHECK_EQ_INT(vxr_context_validation_messages(g.ctx), 0);
    cli_gpu_close(&g);
    /* a prepare racing a create of the same scene: built once */
    if (cli_gpu_open(&g, &small, &err) == VXR_OK) {
        prepare_job race = {g.ctx, s, VXR_ERROR_ARGUMENT};
        CHECK(pthread_create(&worker, NULL, prepare_thread, &race) == 0);
        if (s) render_once(&g, s);
        pthread_join(worker, NULL);
        CHECK(race.result == VXR_OK);
        CHECK_EQ_INT(vxr_context_pipeline_sets(g.ctx), 1);
        CHECK_EQ_INT(vxr_context_validation_messages(g.ctx), 0);
        cli_gpu_close(&g);
    }
    vxr_scene_destroy(s);
    vxr_scene_destroy(other);
}

static void test_lazy(void) {
    vxr_scene *s = load_scene();
    CHECK(s != NULL);
    if (!s) return;
    static vxr_gpu_pick eager_picks[FRAME_PIXELS], lazy_picks[FRAME_PIXELS];
    uint32_t eager[2] = {0}, lazy[2] = {0};
    cli_gpu g;
    vxr_error err = {{0}};
    if (cli_gpu_open(&g, &(vxr_context_desc){.validation = true}, &err) != VXR_OK) {
        fprintf(stderr, "%s\n", err.message);
        vxr_scene_destroy(s);
        SKIP("no device");
    }
    /* voxels and grids, each of 4 modes; the beam pass's, or the flat
     * frame's misses of 3 modes */
    const bool beam = g.info.beam;
    frame_counts(&g, s, eager, eager_picks);
    CHECK_EQ_INT(eager[0], 8 + (beam ? 1 : 3));
    CHECK_EQ_INT(eager[1], eager[0]);
    CHECK_EQ_INT(vxr_context_validation_messages(g.ctx), 0);
    cli_gpu_close(&g);
    const vxr_context_desc lazy_desc = {.validation = true, .lazy_pipelines = true};
    if (cli_gpu_open(&g, &lazy_desc, &err) != VXR_OK) {
        fprintf(stderr, "%s\n", err.message);
        CHECK(!"a lazy context opens where an eager one did");
        vxr_scene_destroy(s);
        return;
    }
    frame_counts(&g, s, lazy, lazy_picks);
    CHECK_EQ_INT(lazy[0], 0);
    /* the frame's, and the beam pass's or (the view leaves sky out) its
     * misses' */
    CHECK_EQ_INT(lazy[1], 2);
    CHECK(vxr_renderer_prepare(g.ctx, s, &err) == VXR_OK);
    CHECK_EQ_INT(vxr_context_pipeline_count(g.ctx), eager[0]);
    CHECK_EQ_INT(vxr_context_pipeline_sets(g.ctx), 1);
    CHECK_EQ_INT(vxr_context_validation_messages(g.ctx), 0);
    cli_gpu_close(&g);
    CHECK(hits_of(eager_picks) > 0);
    CHECK(!memcmp(eager_picks, lazy_picks, sizeof eager_picks));
    vxr_scene_destroy(s);
}

VXR_TEST_MAIN(TEST(test_memory), TEST(test_allocator), TEST(test_names), TEST(test_sync_validation),
              TEST(test_host_api_1_0), TEST(test_prepare), TEST(test_lazy))
