#include "vxr/core.h"

const char *vxr_result_string(vxr_result r) {
    switch (r) {
    case VXR_OK:
        return "ok";
    case VXR_ERROR_IO:
        return "i/o error";
    case VXR_ERROR_FORMAT:
        return "format error";
    case VXR_ERROR_LIMIT:
        return "beyond a limit";
    case VXR_ERROR_MEMORY:
        return "out of memory";
    case VXR_ERROR_ARGUMENT:
        return "invalid argument";
    case VXR_ERROR_DEVICE:
        return "no usable Vulkan device";
    case VXR_ERROR_VULKAN:
        return "Vulkan error";
    case VXR_ERROR_STALE:
        return "stale record";
    }
    return "unknown error";
}

vxr_transform vxr_transform_identity(void) {
    vxr_transform t = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, 1, {0, 0, 0}};
    return t;
}
