/* The Vulkan context: the loader, an own or adopted instance and device,
 * the renderer's dispatch table, and the validation messenger. Every own
 * Vulkan set-up of vxr (the tools, the viewer, the tests) comes through
 * here: the viewer adds its window system's extensions and a present test
 * through the desc. */
#include <ctype.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"
/* Bounds on what the set-up enumerates; more is never seen in practice and
 * the rest would be ignored, not overrun. */
#define MAX_DEVICES          16
#define MAX_QUEUE_FAMILIES   32
#define MAX_LAYERS           64
#define MAX_EXTRA_EXTENSIONS 16
/* The smallest binding size a desc may ask for: a texel of every table. */
#define MIN_BINDING_BYTES 256

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                 void *user) {
    (void)types;
    vxr_context *c = user;
    __atomic_fetch_add(&c->messages, 1u, __ATOMIC_RELAXED);
    char line[1024];
    snprintf(line, sizeof line, "validation %s: %s",
             severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "error" : "warning",
             data && data->pMessage ? data->pMessage : "(no message)");
    if (c->log)
        c->log(c->log_user, line);
    else
        fprintf(stderr, "vxr: %s\n", line);
    return VK_FALSE;
}

static int type_rank(VkPhysicalDeviceType t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
        return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
        return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        return 1;
    default:
        return 0;
    }
}

/* A family with compute, the desc's queue flags and its queue test,
 * preferring one that also has graphics; -1 when none. */
static int usable_family(vxr_context *c, const vxr_context_desc *d, VkPhysicalDevice pd) {
    VkQueueFamilyProperties fam[MAX_QUEUE_FAMILIES];
    uint32_t n = MAX_QUEUE_FAMILIES;
    c->vk.vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, fam);
    const VkQueueFlags need = VK_QUEUE_COMPUTE_BIT | d->queue_flags;
    int best = -1;
    for (uint32_t i = 0; i < n; i++) {
        if ((fam[i].queueFlags & need) != need || fam[i].queueCount == 0) continue;
        if (d->queue_family_ok && !d->queue_family_ok(d->user, pd, i)) continue;
        if (best < 0 || ((fam[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) &&
                         !(fam[best].queueFlags & VK_QUEUE_GRAPHICS_BIT)))
            best = (int)i;
    }
    return best;
}

static bool has_device_extensions(vxr_context *c, const vxr_context_desc *d, VkPhysicalDevice pd) {
    if (!d->device_extension_count) return true;
    uint32_t n = 0;
    if (c->vk.vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS) return false;
    VkExtensionProperties *ext = malloc((n ? n : 1) * sizeof *ext);
    if (!ext) return false;
    VkResult vr = c->vk.vkEnumerateDeviceExtensionProperties(pd, NULL, &n, ext);
    bool all = vr == VK_SUCCESS || vr == VK_INCOMPLETE;
    for (uint32_t j = 0; all && j < d->device_extension_count; j++) {
        bool found = false;
        for (uint32_t i = 0; i < n && !found; i++)
            found = !strcmp(ext[i].extensionName, d->device_extensions[j]);
        all = found;
    }
    free(ext);
    return all;
}

/* Whether the device has the features vxr's shader needs. */
static bool has_features(vxr_context *c, VkPhysicalDevice pd) {
    VkPhysicalDeviceFeatures f;
    c->vk.vkGetPhysicalDeviceFeatures(pd, &f);
    return f.shaderStorageImageWriteWithoutFormat;
}

/* Whether extension name is among those of a layer (NULL: the
 * implementation's and implicit layers'). */
static bool has_instance_extension(vxr_context *c, const char *layer, const char *name) {
    uint32_t n = 0;
    if (c->vk.vkEnumerateInstanceExtensionProperties(layer, &n, NULL) != VK_SUCCESS) return false;
    VkExtensionProperties *ext = malloc((n ? n : 1) * sizeof *ext);
    if (!ext) return false;
    VkResult vr = c->vk.vkEnumerateInstanceExtensionProperties(layer, &n, ext);
    bool found = false;
    for (uint32_t i = 0; (vr == VK_SUCCESS || vr == VK_INCOMPLETE) && i < n && !found; i++)
        found = !strcmp(ext[i].extensionName, name);
    free(ext);
    return found;
}

static bool contains_nocase(const char *hay, const char *needle) {
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] &&
               tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n) return true;
    }
    return n == 0;
}

static vxr_result pick_device(vxr_context *c, const vxr_context_desc *d, const char *selector,
                              vxr_error *err) {
    VkPhysicalDevice devs[MAX_DEVICES];
    uint32_t n = MAX_DEVICES;
    VkResult vr = c->vk.vkEnumeratePhysicalDevices(c->instance, &n, devs);
    if (vr != VK_SUCCESS && vr != VK_INCOMPLETE)
        return vxr_ctx_fail(c, err, VXR_ERROR_DEVICE,
                            "no Vulkan device: vkEnumeratePhysicalDevices: %s",
                            vxr_vk_result_string(vr));
    if (n == 0) return vxr_ctx_fail(c, err, VXR_ERROR_DEVICE, "no Vulkan device found");
    char list[512] = "";
    int best = -1, best_rank = -1;
    bool by_index = selector && *selector && strspn(selector, "0123456789") == strlen(selector);
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties p;
        c->vk.vkGetPhysicalDeviceProperties(devs[i], &p);
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%u '%s'", i ? ", " : "", i, p.deviceName);
        bool usable = p.apiVersion >= VK_API_VERSION_1_2 && has_features(c, devs[i]) &&
                      has_device_extensions(c, d, devs[i]) && usable_family(c, d, devs[i]) >= 0;
        if (!usable) continue;
        if (selector && *selector) {
            bool match = by_index ? strtoul(selector, NULL, 10) == i
                                  : contains_nocase(p.deviceName, selector);
            if (match && best < 0) best = (int)i;
        } else if (type_rank(p.deviceType) > best_rank) {
            best_rank = type_rank(p.deviceType);
            best = (int)i;
        }
    }
    const char *what = d->queue_flags || d->queue_family_ok || d->device_extension_count
                           ? "the queue and extensions asked for"
                           : "a compute queue";
    if (best < 0) {
        if (selector && *selector)
            return vxr_ctx_fail(c, err, VXR_ERROR_DEVICE,
                                "VXR_DEVICE '%s' names no usable Vulkan device (devices: %s)",
                                selector, list);
        return vxr_ctx_fail(
            c, err, VXR_ERROR_DEVICE,
            "no Vulkan device with Vulkan 1.2, shaderStorageImageWriteWithoutFormat "
            "and %s (devices: %s)",
            what, list);
    }
    c->physical_device = devs[best];
    c->queue_family = (uint32_t)usable_family(c, d, devs[best]);
    return VXR_OK;
}

static vxr_result create_instance(vxr_context *c, const vxr_context_desc *d, vxr_error *err) {
    vxr_result res = VXR_OK;
    const char *layers[1] = {VALIDATION_LAYER};
    const char *exts[MAX_EXTRA_EXTENSIONS + 2];
    uint32_t n_exts = 0;
    if (d->instance_extension_count > MAX_EXTRA_EXTENSIONS)
        return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                            "desc->instance_extension_count %u is above the %d vxr takes",
                            d->instance_extension_count, MAX_EXTRA_EXTENSIONS);
    for (uint32_t i = 0; i < d->instance_extension_count; i++)
        exts[n_exts++] = d->instance_extensions[i];
    if (d->gpu_assisted && !d->validation)
        return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                            "desc->gpu_assisted needs desc->validation (GPU-assisted validation is "
                            "part of the validation layer)");
    if (d->validation) {
        VkLayerProperties props[MAX_LAYERS];
        uint32_t n = MAX_LAYERS;
        bool found = false;
        c->vk.vkEnumerateInstanceLayerProperties(&n, props);
        for (uint32_t i = 0; i < n; i++) found |= !strcmp(props[i].layerName, VALIDATION_LAYER);
        if (!found)
            return vxr_ctx_fail(c, err, VXR_ERROR_VULKAN,
                                "validation asked for but " VALIDATION_LAYER " is not installed");
    }
    /* debug utils: the messenger, object names */
    bool debug_utils =
        d->validation ||
        (d->debug_names && has_instance_extension(c, NULL, VK_EXT_DEBUG_UTILS_EXTENSION_NAME));
    if (debug_utils) exts[n_exts++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    /* synchronization validation, where the layer has validation features */
    bool sync = d->validation && has_instance_extension(c, VALIDATION_LAYER,
                                                        VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
    if (sync) exts[n_exts++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
    if (d->gpu_assisted && !sync)
        return vxr_ctx_fail(c, err, VXR_ERROR_VULKAN,
                            "GPU-assisted validation asked for but " VALIDATION_LAYER
                            " lacks " VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
    VkDebugUtilsMessengerCreateInfoEXT mi = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = on_message,
        .pUserData = c};
    /* GPU-assisted validation instruments the shaders; the layer takes the
     * last descriptor set slot (maxBoundDescriptorSets - 1, at least 3) for
     * its own, above vxr's two sets */
    const VkValidationFeatureEnableEXT enables[] = {
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT,
        VK_VALIDATION_FEATURE_ENABLE_GPU_ASSISTED_EXT};
    VkValidationFeaturesEXT vf = {.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
                                  .pNext = &mi,
                                  .enabledValidationFeatureCount = d->gpu_assisted ? 2u : 1u,
                                  .pEnabledValidationFeatures = enables};
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "vxr",
                             .pEngineName = "vxr",
                             .apiVersion = VK_API_VERSION_1_2};
    VkInstanceCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                               .pNext = sync            ? (const void *)&vf
                                        : d->validation ? (const void *)&mi
                                                        : NULL,
                               .pApplicationInfo = &app,
                               .enabledLayerCount = d->validation ? 1u : 0u,
                               .ppEnabledLayerNames = layers,
                               .enabledExtensionCount = n_exts,
                               .ppEnabledExtensionNames = exts};
    VkResult vr = c->vk.vkCreateInstance(&ii, c->alloc, &c->instance);
    if (vr == VK_ERROR_INCOMPATIBLE_DRIVER || vr == VK_ERROR_INITIALIZATION_FAILED ||
        vr == VK_ERROR_EXTENSION_NOT_PRESENT)
        return vxr_ctx_fail(c, err, VXR_ERROR_DEVICE, "no Vulkan driver: vkCreateInstance: %s",
                            vxr_vk_result_string(vr));
    VXR_VK_TRY(c, err, vr);
#define LOAD(name) c->vk.name = (PFN_##name)c->vk.vkGetInstanceProcAddr(c->instance, #name);
    VXR_VK_INSTANCE(LOAD)
    if (debug_utils) {
        VXR_VK_DEBUG(LOAD)
        c->names = c->vk.vkSetDebugUtilsObjectNameEXT != NULL;
    }
    if (d->validation) {
        if (!c->vk.vkCreateDebugUtilsMessengerEXT)
            return vxr_ctx_fail(c, err, VXR_ERROR_VULKAN, "vkCreateDebugUtilsMessengerEXT missing");
        VXR_VK_TRY(c, err,
                   c->vk.vkCreateDebugUtilsMessengerEXT(c->instance, &mi, c->alloc, &c->messenger));
    }
#undef LOAD
fail:
    return res;
}

static vxr_result create_device(vxr_context *c, const vxr_context_desc *d, vxr_error *err) {
    vxr_result res = VXR_OK;
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                  .queueFamilyIndex = c->queue_family,
                                  .queueCount = 1,
                                  .pQueuePriorities = &priority};
    /* the shader writes host images without a format qualifier */
    VkPhysicalDeviceFeatures features = {.shaderStorageImageWriteWithoutFormat = VK_TRUE};
    VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                             .queueCreateInfoCount = 1,
                             .pQueueCreateInfos = &qi,
                             .enabledExtensionCount = d->device_extension_count,
                             .ppEnabledExtensionNames = d->device_extensions,
                             .pEnabledFeatures = &features};
    VXR_VK_TRY(c, err, c->vk.vkCreateDevice(c->physical_device, &di, c->alloc, &c->device));
fail:
    return res;
}

/* An own instance and device: the loader, the instance, the host's hook,
 * the device. */
static vxr_result create_own(vxr_context *c, const vxr_context_desc *d, vxr_error *err) {
    if (!c->vk.vkGetInstanceProcAddr) {
        c->loader = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!c->loader)
            return vxr_ctx_fail(c, err, VXR_ERROR_DEVICE,
                                "no Vulkan loader: cannot load libvulkan.so.1");
        *(void **)&c->vk.vkGetInstanceProcAddr = dlsym(c->loader, "vkGetInstanceProcAddr");
        if (!c->vk.vkGetInstanceProcAddr)
            return vxr_ctx_fail(c, err, VXR_ERROR_DEVICE,
                                "no Vulkan loader: libvulkan.so.1 lacks vkGetInstanceProcAddr");
    }
#define LOAD(name) c->vk.name = (PFN_##name)c->vk.vkGetInstanceProcAddr(NULL, #name);
    VXR_VK_GLOBAL(LOAD)
#undef LOAD
    /* a 1.0 loader has no vkEnumerateInstanceVersion, and refuses 1.2 */
    uint32_t version = VK_API_VERSION_1_0;
    if (c->vk.vkEnumerateInstanceVersion) c->vk.vkEnumerateInstanceVersion(&version);
    if (version < VK_API_VERSION_1_2)
        return vxr_ctx_fail(c, err, VXR_ERROR_DEVICE,
                            "the Vulkan loader supports Vulkan %u.%u, below the 1.2 vxr needs",
                            VK_API_VERSION_MAJOR(version), VK_API_VERSION_MINOR(version));
    vxr_result res = create_instance(c, d, err);
    if (res == VXR_OK && d->instance_ready) {
        res = d->instance_ready(d->user, c->instance, err);
        c->instance_release = d->instance_release;
        c->user = d->user;
    }
    if (res != VXR_OK) return res;
    const char *sel = d->device_selector ? d->device_selector : getenv("VXR_DEVICE");
    return pick_device(c, d, sel, err);
}

/* What a host's instance and device must offer, checked up front: Vulkan
 * 1.2 (instance and device) and the features vxr's shader needs. */
static vxr_result check_host(vxr_context *c, const vxr_context_desc *d, vxr_error *err) {
    uint32_t v = d->api_version ? d->api_version : VK_API_VERSION_1_0;
    if (v < VK_API_VERSION_1_2)
        return vxr_ctx_fail(c, err, VXR_ERROR_DEVICE,
                            "the host's Vulkan API version %u.%u (desc api_version) is below the "
                            "1.2 vxr needs: create the instance and device with "
                            "VkApplicationInfo::apiVersion VK_API_VERSION_1_2 or later and pass it "
                            "as api_version",
                            VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v));
    VkPhysicalDeviceProperties p;
    c->vk.vkGetPhysicalDeviceProperties(c->physical_device, &p);
    if (p.apiVersion < VK_API_VERSION_1_2)
        return vxr_ctx_fail(c, err, VXR_ERROR_DEVICE,
                            "the host's device '%s' supports Vulkan %u.%u, below the 1.2 vxr needs",
                            p.deviceName, VK_API_VERSION_MAJOR(p.apiVersion),
                            VK_API_VERSION_MINOR(p.apiVersion));
    if (!has_features(c, c->physical_device))
        return vxr_ctx_fail(c, err, VXR_ERROR_DEVICE,
                            "the host's device '%s' lacks shaderStorageImageWriteWithoutFormat, "
                            "which vxr needs (and the host must enable)",
                            p.deviceName);
    return VXR_OK;
}

/* The per-device choices (DESIGN.md, "Per-device choices"): the desc's,
 * else the environment's (VXR_BEAM, VXR_WORKGROUP), else the device's.
 * A CPU device (lavapipe) keeps what was measured there: no beam pre-pass
 * (it measured slower: BENCHMARKS.md, issue 5) and 8 x 8 workgroups (a row
 * of 8 is one SIMD vector). A GPU gets the beam pre-pass (after Laine and
 * Karras 2010: fewer steps per ray, the pass itself one invocation per 64
 * pixels) and 8 x 8: 64 invocations fill two 32-wide warps or one 64-wide
 * wave, and a square tile keeps a warp's rays together. */
static vxr_result choose(vxr_context *c, const vxr_context_desc *d, vxr_error *err) {
    const bool cpu = c->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    vxr_choice beam = d->beam;
    if (beam != VXR_CHOICE_AUTO && beam != VXR_CHOICE_ON && beam != VXR_CHOICE_OFF)
        return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT, "desc->beam %d is not a vxr_choice",
                            (int)beam);
    const char *env = getenv("VXR_BEAM");
    if (beam == VXR_CHOICE_AUTO && env && *env) {
        if (!strcmp(env, "on"))
            beam = VXR_CHOICE_ON;
        else if (!strcmp(env, "off"))
            beam = VXR_CHOICE_OFF;
        else if (strcmp(env, "auto"))
            return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT, "VXR_BEAM '%s' is not on, off or auto",
                                env);
    }
    c->beam = beam == VXR_CHOICE_AUTO ? !cpu : beam == VXR_CHOICE_ON;
    c->lazy = d->lazy_pipelines;
    uint32_t w = d->workgroup_width, h = d->workgroup_height;
    const char *what = "desc->workgroup_width and _height";
    env = getenv("VXR_WORKGROUP");
    if (!w && !h && env && *env) {
        char tail = 0;
        what = "VXR_WORKGROUP";
        if (sscanf(env, "%ux%u%c", &w, &h, &tail) != 2)
            return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT, "VXR_WORKGROUP '%s' is not WxH", env);
    }
    if (!w && !h) w = h = 8; /* every kind of device, so far (above) */
    const VkPhysicalDeviceLimits *l = &c->props.limits;
    if (!w || !h || w > l->maxComputeWorkGroupSize[0] || h > l->maxComputeWorkGroupSize[1] ||
        (uint64_t)w * h > l->maxComputeWorkGroupInvocations)
        return vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                            "%s %ux%u: the device takes 1..%u x 1..%u, at most %u invocations",
                            what, w, h, l->maxComputeWorkGroupSize[0],
                            l->maxComputeWorkGroupSize[1], l->maxComputeWorkGroupInvocations);
    c->local_x = w;
    c->local_y = h;
    return VXR_OK;
}

vxr_result vxr_context_create(const vxr_context_desc *desc, vxr_context **dest, vxr_error *err) {
    static const vxr_context_desc zero = {0};
    const vxr_context_desc *d = desc ? desc : &zero;
    if (!dest)
        return vxr_ctx_fail(NULL, err, VXR_ERROR_ARGUMENT, "vxr_context_create: dest is NULL");
    *dest = NULL;
    vxr_context *c = calloc(1, sizeof *c);
    if (!c) return vxr_ctx_fail(NULL, err, VXR_ERROR_MEMORY, "out of memory");
    pthread_mutex_init(&c->mem_lock, NULL);
    if (d->allocator) {
        c->alloc_copy = *d->allocator;
        c->alloc = &c->alloc_copy;
    }
    c->log = d->log;
    c->log_user = d->log_user;
    c->force_staging = d->force_staging;
    c->pipeline_cache = d->pipeline_cache;
    vxr_result res = VXR_OK;
    c->adopted = d->instance != VK_NULL_HANDLE;
    c->vk.vkGetInstanceProcAddr = d->get_instance_proc_addr;
    if (c->adopted) {
        if (!d->physical_device || !d->device || !d->get_instance_proc_addr) {
            res = vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                               "a host context needs desc->instance, physical_device, device and "
                               "get_instance_proc_addr (%s missing)",
                               !d->physical_device ? "physical_device"
                               : !d->device        ? "device"
                                                   : "get_instance_proc_addr");
            goto fail;
        }
        c->instance = d->instance;
        c->physical_device = d->physical_device;
        c->device = d->device;
        c->queue_family = d->queue_family;
#define LOAD(name) c->vk.name = (PFN_##name)c->vk.vkGetInstanceProcAddr(c->instance, #name);
        VXR_VK_INSTANCE(LOAD)
        if (d->debug_names) {
            VXR_VK_DEBUG(LOAD)
            c->names = c->vk.vkSetDebugUtilsObjectNameEXT != NULL;
        }
#undef LOAD
        if ((res = check_host(c, d, err)) != VXR_OK) goto fail;
    } else if ((res = create_own(c, d, err)) != VXR_OK) {
        goto fail;
    }
    c->vk.vkGetPhysicalDeviceProperties(c->physical_device, &c->props);
    c->vk.vkGetPhysicalDeviceMemoryProperties(c->physical_device, &c->memory);
    {
        VkQueueFamilyProperties fam[MAX_QUEUE_FAMILIES];
        uint32_t n = MAX_QUEUE_FAMILIES;
        c->vk.vkGetPhysicalDeviceQueueFamilyProperties(c->physical_device, &n, fam);
        if (c->queue_family >= n || !(fam[c->queue_family].queueFlags & VK_QUEUE_COMPUTE_BIT)) {
            res = vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                               "desc->queue_family %u has no compute queue", c->queue_family);
            goto fail;
        }
        c->timestamp_bits = fam[c->queue_family].timestampValidBits;
    }
    /* the scene's uniform texel buffers count as sampled images */
    if (c->props.limits.maxPerStageDescriptorSampledImages < VXR_SCENE_BINDINGS ||
        c->props.limits.maxDescriptorSetSampledImages < VXR_SCENE_BINDINGS) {
        res = vxr_ctx_fail(c, err, VXR_ERROR_DEVICE,
                           "the device binds %u sampled images (texel buffers) a stage, vxr "
                           "needs %u",
                           c->props.limits.maxPerStageDescriptorSampledImages, VXR_SCENE_BINDINGS);
        goto fail;
    }
    if (!c->adopted && (res = create_device(c, d, err)) != VXR_OK) goto fail;
#define LOAD(name) c->vk.name = (PFN_##name)c->vk.vkGetDeviceProcAddr(c->device, #name);
    VXR_VK_DEVICE(LOAD)
#undef LOAD
#define CHECK_LOADED(name)                                                                         \
    if (!c->vk.name) {                                                                             \
        res = vxr_ctx_fail(c, err, VXR_ERROR_VULKAN, "cannot load %s", #name);                     \
        goto fail;                                                                                 \
    }
    VXR_VK_DEVICE(CHECK_LOADED)
#undef CHECK_LOADED
    c->max_binding = c->props.limits.maxStorageBufferRange;
    if (d->max_binding_bytes && d->max_binding_bytes < c->max_binding)
        c->max_binding =
            d->max_binding_bytes < MIN_BINDING_BYTES ? MIN_BINDING_BYTES : d->max_binding_bytes;
    if ((res = choose(c, d, err)) != VXR_OK || (res = vxr_pipelines_init(c, err)) != VXR_OK)
        goto fail;
    *dest = c;
    return VXR_OK;
fail:
    vxr_context_destroy(c);
    return res;
}

void vxr_context_destroy(vxr_context *c) {
    if (!c) return;
    if (c->device && c->vk.vkDestroyDevice) {
        vxr_pipelines_destroy(c);
        vxr_memory_release(c);
        if (!c->adopted) c->vk.vkDestroyDevice(c->device, c->alloc);
    }
    if (!c->adopted && c->instance) {
        if (c->instance_release) c->instance_release(c->user, c->instance);
        if (c->messenger)
            c->vk.vkDestroyDebugUtilsMessengerEXT(c->instance, c->messenger, c->alloc);
        c->vk.vkDestroyInstance(c->instance, c->alloc);
    }
    if (c->loader) dlclose(c->loader);
    pthread_mutex_destroy(&c->mem_lock);
    free(c);
}

void vxr_context_get_info(const vxr_context *c, vxr_context_info *d) {
    memset(d, 0, sizeof *d);
    d->instance = c->instance;
    d->physical_device = c->physical_device;
    d->device = c->device;
    d->queue_family = c->queue_family;
    d->adopted = c->adopted;
    snprintf(d->device_name, sizeof d->device_name, "%s", c->props.deviceName);
    d->device_type = c->props.deviceType;
    d->timestamp_period = c->props.limits.timestampPeriod;
    d->timestamp_bits = c->timestamp_bits;
    d->max_binding_bytes = c->max_binding;
    d->beam = c->beam;
    d->workgroup_width = c->local_x;
    d->workgroup_height = c->local_y;
}

uint32_t vxr_context_validation_messages(const vxr_context *c) {
    return __atomic_load_n(&c->messages, __ATOMIC_RELAXED);
}
