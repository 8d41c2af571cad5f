/* Failure reasons: VkResult names and the one-line messages every renderer
 * function writes to its vxr_error (and to the context's log); the names
 * that debuggers and validation messages show for Vulkan objects. */
#include <ctype.h>
#include "internal.h"

const char *vxr_vk_result_string(VkResult r) {
    switch (r) {
#define NAME(x)                                                                                    \
    case x:                                                                                        \
        return #x;
        NAME(VK_SUCCESS)
        NAME(VK_NOT_READY)
        NAME(VK_TIMEOUT)
        NAME(VK_INCOMPLETE)
        NAME(VK_SUBOPTIMAL_KHR)
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
        NAME(VK_ERROR_SURFACE_LOST_KHR)
        NAME(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR)
        NAME(VK_ERROR_OUT_OF_DATE_KHR)
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
                        vxr_vk_result_string(r));
}

void vxr_name(vxr_context *c, VkObjectType type, uint64_t handle, const char *fmt, ...) {
    if (!c->names || !handle) return;
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    VkDebugUtilsObjectNameInfoEXT ni = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
                                        .objectType = type,
                                        .objectHandle = handle,
                                        .pObjectName = name};
    c->vk.vkSetDebugUtilsObjectNameEXT(c->device, &ni);
}
