/* The Vulkan context: the loader, an own or adopted instance and device, the
 * renderer's dispatch table, and what every pipeline shares. */
#include <ctype.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"

const char *vxr_vk_result_name(VkResult r) {
    switch (r) {
#define NAME(x)                                                                                    \
    case x:                                                                                        \
        return #x;
        NAME(VK_SUCCESS)
        NAME(VK_NOT_READY)
        NAME(VK_TIMEOUT)
        NAME(VK_INCOMPLETE)
        NAME(VK_ERROR_OUT_OF_HOST_MEMORY)
        NAME(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        NAME(VK_ERROR_INITIALIZATION_FAILED)
        NAME(VK_ERROR_DEVICE_LOST)
        NAME(VK_ERROR_MEMORY_MAP_FAILED)
        NAME(VK_ERROR_LAYER_NOT_PRESENT)
        NAME(VK_ERROR_EXTENSION_NOT_PRESENT)
        NAME(VK_ERROR_FEATURE_NOT_PRESENT)
        NAME(VK_ERROR_INCOMPATIBLE_DRIVER)
        NAME(VK_ERROR_TOO_MANY_OBJECTS)
        NAME(VK_ERROR_FORMAT_NOT_SUPPORTED)
        NAME(VK_ERROR_UNKNOWN)
#undef NAME
    default:
        return "VkResult error";
    }
}

vxr_result vxr_ctx_fail(vxr_context *c, vxr_error *err, vxr_result r, const char *fmt, ...) {
    vxr_error local;
    vxr_error *e = err ? err : &local;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    if (c && c->log) c->log(c->log_user, e->message);
    return r;
}

vxr_result vxr_vk_check(vxr_context *c, vxr_error *err, VkResult r, const char *call) {
    if (r == VK_SUCCESS) return VXR_OK;
    /* name the function, not its arguments */
    int len = 0;
    while (call[len] && call[len] != '(') len++;
    while (len > 0 && !(isalnum((unsigned char)call[len - 1]))) len--;
    int start = len;
    while (start > 0 && (isalnum((unsigned char)call[start - 1]) || call[start - 1] == '_'))
        start--;
    vxr_result res = r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY
                         ? VXR_ERROR_MEMORY
                         : VXR_ERROR_VULKAN;
    return vxr_ctx_fail(c, err, res, "%.*s failed: %s", len - start, call + start,
                        vxr_vk_result_name(r));
}

int vxr_memory_type(const vxr_context *c, uint32_t type_bits, VkMemoryPropertyFlags flags) {
    for (uint32_t i = 0; i < c->memory.memoryTypeCount; i++)
        if ((type_bits & (1u << i)) && (c->memory.memoryTypes[i].propertyFlags & flags) == flags)
            return (int)i;
    return -1;
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
    VXR_VK_TRY(c, err, c->vk.vkCreateBuffer(c->device, &bi, NULL, &dest->buffer));
    VkMemoryRequirements req;
    c->vk.vkGetBufferMemoryRequirements(c->device, dest->buffer, &req);
    int type = vxr_memory_type(c, req.memoryTypeBits, want | need);
    if (type < 0) type = vxr_memory_type(c, req.memoryTypeBits, need);
    if (type < 0) {
        res = vxr_ctx_fail(c, err, VXR_ERROR_VULKAN, "no memory type with flags 0x%x for a buffer",
                           (unsigned)need);
        goto fail;
    }
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = req.size,
                               .memoryTypeIndex = (uint32_t)type};
    VXR_VK_TRY(c, err, c->vk.vkAllocateMemory(c->device, &ai, NULL, &dest->memory));
    VXR_VK_TRY(c, err, c->vk.vkBindBufferMemory(c->device, dest->buffer, dest->memory, 0));
    dest->flags = c->memory.memoryTypes[type].propertyFlags;
    if (c->memory.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
        VXR_VK_TRY(c, err,
                   c->vk.vkMapMemory(c->device, dest->memory, 0, VK_WHOLE_SIZE, 0, &dest->map));
    return VXR_OK;
fail:
    vxr_buf_destroy(c, dest);
    return res;
}

void vxr_buf_destroy(vxr_context *c, vxr_buf *b) {
    if (b->buffer) c->vk.vkDestroyBuffer(c->device, b->buffer, NULL);
    if (b->memory) c->vk.vkFreeMemory(c->device, b->memory, NULL); /* unmaps */
    memset(b, 0, sizeof *b);
}

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

/* A family with compute, preferring one that also has graphics; -1 when none. */
static int compute_family(vxr_context *c, VkPhysicalDevice pd) {
    VkQueueFamilyProperties fam[32];
    uint32_t n = 32;
    c->vk.vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, fam);
    int best = -1;
    for (uint32_t i = 0; i < n; i++) {
        if (!(fam[i].queueFlags & VK_QUEUE_COMPUTE_BIT) || fam[i].queueCount == 0) continue;
        if (best < 0 || (fam[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)) {
            if (best < 0 || !(fam[best].queueFlags & VK_QUEUE_GRAPHICS_BIT)) best = (int)i;
        }
    }
    return best;
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

static vxr_result pick_device(vxr_context *c, const char *selector, vxr_error *err) {
    VkPhysicalDevice devs[16];
    uint32_t n = 16;
    VkResult vr = c->vk.vkEnumeratePhysicalDevices(c->instance, &n, devs);
    if (vr != VK_SUCCESS && vr != VK_INCOMPLETE)
        return vxr_ctx_fail(c, err, VXR_ERROR_DEVICE,
                            "no Vulkan device: vkEnumeratePhysicalDevices: %s",
                            vxr_vk_result_name(vr));
    if (n == 0) return vxr_ctx_fail(c, err, VXR_ERROR_DEVICE, "no Vulkan device found");
    char list[512] = "";
    int best = -1, best_rank = -1;
    bool by_index = selector && *selector && strspn(selector, "0123456789") == strlen(selector);
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties p;
        c->vk.vkGetPhysicalDeviceProperties(devs[i], &p);
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%u '%s'", i ? ", " : "", i, p.deviceName);
        bool usable = p.apiVersion >= VK_API_VERSION_1_2 && compute_family(c, devs[i]) >= 0;
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
    if (best < 0) {
        if (selector && *selector)
            return vxr_ctx_fail(c, err, VXR_ERROR_DEVICE,
                                "VXR_DEVICE '%s' names no usable Vulkan device (devices: %s)",
                                selector, list);
        return vxr_ctx_fail(c, err, VXR_ERROR_DEVICE,
                            "no Vulkan device with Vulkan 1.2 and a compute queue (devices: %s)",
                            list);
    }
    c->physical_device = devs[best];
    c->queue_family = (uint32_t)compute_family(c, devs[best]);
    return VXR_OK;
}

static vxr_result create_instance(vxr_context *c, const vxr_context_desc *d, vxr_error *err) {
    vxr_result res = VXR_OK;
    const char *layers[1] = {VALIDATION_LAYER};
    const char *exts[1] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    if (d->validation) {
        VkLayerProperties props[64];
        uint32_t n = 64;
        bool found = false;
        c->vk.vkEnumerateInstanceLayerProperties(&n, props);
        for (uint32_t i = 0; i < n; i++) found |= !strcmp(props[i].layerName, VALIDATION_LAYER);
        if (!found)
            return vxr_ctx_fail(c, err, VXR_ERROR_VULKAN,
                                "validation asked for but " VALIDATION_LAYER " is not installed");
    }
    VkDebugUtilsMessengerCreateInfoEXT mi = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = on_message,
        .pUserData = c};
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "vxr",
                             .pEngineName = "vxr",
                             .apiVersion = VK_API_VERSION_1_2};
    VkInstanceCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                               .pNext = d->validation ? &mi : NULL,
                               .pApplicationInfo = &app,
                               .enabledLayerCount = d->validation ? 1u : 0u,
                               .ppEnabledLayerNames = layers,
                               .enabledExtensionCount = d->validation ? 1u : 0u,
                               .ppEnabledExtensionNames = exts};
    VkResult vr = c->vk.vkCreateInstance(&ii, NULL, &c->instance);
    if (vr == VK_ERROR_INCOMPATIBLE_DRIVER || vr == VK_ERROR_INITIALIZATION_FAILED)
        return vxr_ctx_fail(c, err, VXR_ERROR_DEVICE, "no Vulkan driver: vkCreateInstance: %s",
                            vxr_vk_result_name(vr));
    VXR_VK_TRY(c, err, vr);
#define LOAD(name) c->vk.name = (PFN_##name)c->vk.vkGetInstanceProcAddr(c->instance, #name);
    VXR_VK_INSTANCE(LOAD)
    if (d->validation) {
        VXR_VK_DEBUG(LOAD)
        if (!c->vk.vkCreateDebugUtilsMessengerEXT)
            return vxr_ctx_fail(c, err, VXR_ERROR_VULKAN, "vkCreateDebugUtilsMessengerEXT missing");
        VXR_VK_TRY(c, err,
                   c->vk.vkCreateDebugUtilsMessengerEXT(c->instance, &mi, NULL, &c->messenger));
    }
#undef LOAD
fail:
    return res;
}

static vxr_result create_device(vxr_context *c, vxr_error *err) {
    vxr_result res = VXR_OK;
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                  .queueFamilyIndex = c->queue_family,
                                  .queueCount = 1,
                                  .pQueuePriorities = &priority};
    VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                             .queueCreateInfoCount = 1,
                             .pQueueCreateInfos = &qi};
    VXR_VK_TRY(c, err, c->vk.vkCreateDevice(c->physical_device, &di, NULL, &c->device));
fail:
    return res;
}

/* The descriptor set layouts and pipeline layout every renderer shares. */
static vxr_result create_layouts(vxr_context *c, vxr_error *err) {
    vxr_result res = VXR_OK;
    VkDescriptorSetLayoutBinding b[VXR_SET_BINDINGS];
    for (uint32_t i = 0; i < VXR_SET_BINDINGS; i++)
        b[i] = (VkDescriptorSetLayoutBinding){i, VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, 1,
                                              VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo li = {.sType =
                                              VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = VXR_SET_BINDINGS,
                                          .pBindings = b};
    VXR_VK_TRY(c, err, c->vk.vkCreateDescriptorSetLayout(c->device, &li, NULL, &c->set_layout[0]));
    b[0].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    b[1].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER; /* pick records */
    b[2].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER; /* a batch's rays */
    li.bindingCount = 3;
    VXR_VK_TRY(c, err, c->vk.vkCreateDescriptorSetLayout(c->device, &li, NULL, &c->set_layout[1]));
    VkPushConstantRange pr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, VXR_PUSH_BYTES};
    VkPipelineLayoutCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 2,
                                     .pSetLayouts = c->set_layout,
                                     .pushConstantRangeCount = 1,
                                     .pPushConstantRanges = &pr};
    VXR_VK_TRY(c, err, c->vk.vkCreatePipelineLayout(c->device, &pi, NULL, &c->pipeline_layout));
    VkShaderModuleCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                   .codeSize = vxr_trace_spv_size,
                                   .pCode = vxr_trace_spv};
    VXR_VK_TRY(c, err, c->vk.vkCreateShaderModule(c->device, &si, NULL, &c->module));
fail:
    return res;
}

vxr_result vxr_context_create(const vxr_context_desc *desc, vxr_context **dest, vxr_error *err) {
    static const vxr_context_desc zero = {0};
    const vxr_context_desc *d = desc ? desc : &zero;
    *dest = NULL;
    vxr_context *c = calloc(1, sizeof *c);
    if (!c) return vxr_ctx_fail(NULL, err, VXR_ERROR_MEMORY, "out of memory");
    c->log = d->log;
    c->log_user = d->log_user;
    c->force_staging = d->force_staging;
    vxr_result res = VXR_OK;
    c->adopted = d->instance != VK_NULL_HANDLE;
    c->vk.vkGetInstanceProcAddr = d->get_instance_proc_addr;
    if (c->adopted) {
        if (!d->physical_device || !d->device || !d->get_instance_proc_addr) {
            res = vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT,
                               "a host context needs instance, physical device, device and "
                               "vkGetInstanceProcAddr");
            goto fail;
        }
        c->instance = d->instance;
        c->physical_device = d->physical_device;
        c->device = d->device;
        c->queue_family = d->queue_family;
#define LOAD(name) c->vk.name = (PFN_##name)c->vk.vkGetInstanceProcAddr(c->instance, #name);
        VXR_VK_INSTANCE(LOAD)
#undef LOAD
    } else {
        if (!c->vk.vkGetInstanceProcAddr) {
            c->loader = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
            if (!c->loader) {
                res = vxr_ctx_fail(c, err, VXR_ERROR_DEVICE,
                                   "no Vulkan loader: cannot load libvulkan.so.1");
                goto fail;
            }
            *(void **)&c->vk.vkGetInstanceProcAddr = dlsym(c->loader, "vkGetInstanceProcAddr");
            if (!c->vk.vkGetInstanceProcAddr) {
                res = vxr_ctx_fail(c, err, VXR_ERROR_DEVICE,
                                   "no Vulkan loader: libvulkan.so.1 lacks vkGetInstanceProcAddr");
                goto fail;
            }
        }
#define LOAD(name) c->vk.name = (PFN_##name)c->vk.vkGetInstanceProcAddr(NULL, #name);
        VXR_VK_GLOBAL(LOAD)
#undef LOAD
        if ((res = create_instance(c, d, err)) != VXR_OK) goto fail;
        const char *sel = d->device_selector ? d->device_selector : getenv("VXR_DEVICE");
        if ((res = pick_device(c, sel, err)) != VXR_OK) goto fail;
    }
    c->vk.vkGetPhysicalDeviceProperties(c->physical_device, &c->props);
    c->vk.vkGetPhysicalDeviceMemoryProperties(c->physical_device, &c->memory);
    {
        VkQueueFamilyProperties fam[32];
        uint32_t n = 32;
        c->vk.vkGetPhysicalDeviceQueueFamilyProperties(c->physical_device, &n, fam);
        if (c->queue_family >= n || !(fam[c->queue_family].queueFlags & VK_QUEUE_COMPUTE_BIT)) {
            res = vxr_ctx_fail(c, err, VXR_ERROR_ARGUMENT, "queue family %u has no compute queue",
                               c->queue_family);
            goto fail;
        }
        c->timestamp_bits = fam[c->queue_family].timestampValidBits;
    }
    if (!c->adopted && (res = create_device(c, err)) != VXR_OK) goto fail;
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
        c->max_binding = d->max_binding_bytes < 256 ? 256 : d->max_binding_bytes;
    if ((res = create_layouts(c, err)) != VXR_OK) goto fail;
    *dest = c;
    return VXR_OK;
fail:
    vxr_context_destroy(c);
    return res;
}

void vxr_context_destroy(vxr_context *c) {
    if (!c) return;
    if (c->device && c->vk.vkDestroyDevice) {
        if (c->module) c->vk.vkDestroyShaderModule(c->device, c->module, NULL);
        if (c->pipeline_layout) c->vk.vkDestroyPipelineLayout(c->device, c->pipeline_layout, NULL);
        for (int i = 0; i < 2; i++)
            if (c->set_layout[i])
                c->vk.vkDestroyDescriptorSetLayout(c->device, c->set_layout[i], NULL);
        if (!c->adopted) c->vk.vkDestroyDevice(c->device, NULL);
    }
    if (!c->adopted && c->instance) {
        if (c->messenger) c->vk.vkDestroyDebugUtilsMessengerEXT(c->instance, c->messenger, NULL);
        c->vk.vkDestroyInstance(c->instance, NULL);
    }
    if (c->loader) dlclose(c->loader);
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
}

uint32_t vxr_context_validation_messages(const vxr_context *c) {
    return __atomic_load_n(&c->messages, __ATOMIC_RELAXED);
}
