/* The renderer embedded in a host (DESIGN.md §6): this test is the host. It
 * creates its own instance (validation layer with synchronization
 * validation, and a messenger), device,
 * queue, command pool and buffer, hands them to the renderer, submits the
 * recorded work itself, and checks that the renderer destroyed none of its
 * objects: they stay usable after the renderer is gone, and the host's own
 * teardown raises no validation message. */
#include <volk.h>
#include "vxr/formats.h"
#include "vxr/renderer.h"
#include "vxr_test.h"

static uint32_t host_messages;

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                 void *user) {
    (void)severity, (void)types, (void)user;
    host_messages++;
    fprintf(stderr, "host validation: %s\n", data->pMessage);
    return VK_FALSE;
}

typedef struct host {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical;
    uint32_t family;
    VkDevice device;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cmd;
} host;

static bool host_create(host *h) {
    memset(h, 0, sizeof *h);
    if (volkInitialize() != VK_SUCCESS) return false;
    const char *layer = "VK_LAYER_KHRONOS_validation";
    const char *exts[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME,
                          VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME};
    VkDebugUtilsMessengerCreateInfoEXT mi = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = on_message};
    const VkValidationFeatureEnableEXT sync =
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT vf = {.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
                                  .pNext = &mi,
                                  .enabledValidationFeatureCount = 1,
                                  .pEnabledValidationFeatures = &sync};
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .apiVersion = VK_API_VERSION_1_2};
    VkInstanceCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                               .pNext = &vf,
                               .pApplicationInfo = &app,
                               .enabledLayerCount = 1,
                               .ppEnabledLayerNames = &layer,
                               .enabledExtensionCount = 2,
                               .ppEnabledExtensionNames = exts};
    if (vkCreateInstance(&ii, NULL, &h->instance) != VK_SUCCESS) return false;
    volkLoadInstance(h->instance);
    if (vkCreateDebugUtilsMessengerEXT(h->instance, &mi, NULL, &h->messenger) != VK_SUCCESS)
        return false;
    uint32_t n = 1;
    vkEnumeratePhysicalDevices(h->instance, &n, &h->physical);
    if (n == 0) return false;
    VkQueueFamilyProperties fam[16];
    uint32_t nf = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(h->physical, &nf, fam);
    for (h->family = 0; h->family < nf; h->family++)
        if (fam[h->family].queueFlags & VK_QUEUE_COMPUTE_BIT) break;
    float prio = 1;
    VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                  .queueFamilyIndex = h->family,
                                  .queueCount = 1,
                                  .pQueuePriorities = &prio};
    /* what vxr needs of a host device */
    VkPhysicalDeviceFeatures features = {.shaderStorageImageWriteWithoutFormat = VK_TRUE};
    VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                             .queueCreateInfoCount = 1,
                             .pQueueCreateInfos = &qi,
                             .pEnabledFeatures = &features};
    if (vkCreateDevice(h->physical, &di, NULL, &h->device) != VK_SUCCESS) return false;
    volkLoadDevice(h->device);
    vkGetDeviceQueue(h->device, h->family, 0, &h->queue);
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .queueFamilyIndex = h->family};
    if (vkCreateCommandPool(h->device, &pi, NULL, &h->pool) != VK_SUCCESS) return false;
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = h->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    return vkAllocateCommandBuffers(h->device, &ai, &h->cmd) == VK_SUCCESS;
}

static void host_destroy(host *h) {
    if (h->device) {
        vkDeviceWaitIdle(h->device);
        if (h->pool) vkDestroyCommandPool(h->device, h->pool, NULL);
        vkDestroyDevice(h->device, NULL);
    }
    if (h->messenger) vkDestroyDebugUtilsMessengerEXT(h->instance, h->messenger, NULL);
    if (h->instance) vkDestroyInstance(h->instance, NULL);
}

static void test_host_device(void) {
    host h;
    CHECK(host_create(&h));
    if (!h.cmd) {
        host_destroy(&h);
        return;
    }
    vxr_scene *s = NULL;
    vxr_error err = {{0}};
    CHECK(vxr_scene_load(VXR_TEST_DATA "/vengi__test-transform.vox", &s, &err) == VXR_OK);
    vxr_context_desc d = {.get_instance_proc_addr = vkGetInstanceProcAddr,
                          .instance = h.instance,
                          .physical_device = h.physical,
                          .device = h.device,
                          .queue_family = h.family,
                          .api_version = VK_API_VERSION_1_2,
                          .debug_names = true};
    vxr_context *ctx = NULL;
    CHECK(vxr_context_create(&d, &ctx, &err) == VXR_OK);
    vxr_context_info info;
    vxr_context_get_info(ctx, &info);
    CHECK(info.adopted && info.device == h.device && info.instance == h.instance);
    vxr_camera cam = {0};
    vxr_camera_orbit(s, 0.7f, 0.5f, 0.8f, &cam);
    cam.width = 64;
    cam.height = 48;
    CHECK(vxr_camera_setup(&cam) == VXR_OK);
    vxr_renderer *ren = NULL;
    vxr_target *t = NULL;
    vxr_target_desc td = {
        .width = cam.width, .height = cam.height, .picks = true, .readback = true};
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    CHECK(vkBeginCommandBuffer(h.cmd, &bi) == VK_SUCCESS);
    CHECK(vxr_renderer_create(ctx, s, h.cmd, &ren, &err) == VXR_OK);
    CHECK(vxr_target_create(ctx, &td, &t, &err) == VXR_OK);
    CHECK(vxr_renderer_render(ren, t, &cam, 1, h.cmd, NULL) == VXR_OK);
    CHECK(vkEndCommandBuffer(h.cmd) == VK_SUCCESS);
    VkSubmitInfo si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &h.cmd};
    CHECK(vkQueueSubmit(h.queue, 1, &si, VK_NULL_HANDLE) == VK_SUCCESS);
    CHECK(vkQueueWaitIdle(h.queue) == VK_SUCCESS);
    /* the frame is right: every pixel as the CPU picks it */
    vxr_picker *picker = NULL;
    CHECK(vxr_picker_create(s, &picker) == VXR_OK);
    size_t bad = 0, hits = 0;
    for (uint32_t j = 0; t && picker && j < cam.height; j++)
        for (uint32_t i = 0; i < cam.width; i++) {
            vxr_ray ray;
            vxr_pick a, b;
            vxr_camera_ray(&cam, i, j, &ray);
            vxr_pick_ray(picker, &ray, 1, &a);
            vxr_pick_expand(s, s->version, &ray, &vxr_target_picks(t)[j * cam.width + i], &b, NULL);
            bad += memcmp(&a, &b, sizeof a) != 0;
            hits += a.hit != 0;
        }
    CHECK(hits > 0);
    CHECK_EQ_INT(bad, 0);
    vxr_picker_destroy(picker);
    vxr_target_destroy(t);
    vxr_renderer_destroy(ren);
    vxr_context_destroy(ctx);
    /* the host's objects are alive: record and submit again */
    CHECK(vkResetCommandPool(h.device, h.pool, 0) == VK_SUCCESS);
    CHECK(vkBeginCommandBuffer(h.cmd, &bi) == VK_SUCCESS);
    CHECK(vkEndCommandBuffer(h.cmd) == VK_SUCCESS);
    CHECK(vkQueueSubmit(h.queue, 1, &si, VK_NULL_HANDLE) == VK_SUCCESS);
    CHECK(vkQueueWaitIdle(h.queue) == VK_SUCCESS);
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .size = 256,
                              .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
    VkBuffer buf = VK_NULL_HANDLE;
    CHECK(vkCreateBuffer(h.device, &bci, NULL, &buf) == VK_SUCCESS);
    vkDestroyBuffer(h.device, buf, NULL);
    host_destroy(&h);
    vxr_scene_destroy(s);
    CHECK_EQ_INT(host_messages, 0);
}

/* A host context needs all of its handles. */
static void test_host_incomplete(void) {
    vxr_context *ctx = (vxr_context *)1;
    vxr_error err = {{0}};
    vxr_context_desc d = {.instance = (VkInstance)(uintptr_t)1};
    CHECK(vxr_context_create(&d, &ctx, &err) == VXR_ERROR_ARGUMENT);
    CHECK(ctx == NULL && err.message[0]);
}

VXR_TEST_MAIN(TEST(test_host_device), TEST(test_host_incomplete))
