/* vxr core: results, errors and the plain types every module shares.
 *
 * Conventions (DESIGN.md §2): right-handed, Z up, one voxel is one unit in
 * model space, voxel (x,y,z) occupies the half-open cell [x,x+1)x[y,y+1)x[z,z+1).
 * Child and corner index 4x + 2y + z (x is the most significant bit).
 *
 * Errors: functions return a vxr_result. Functions that read outside input
 * also take an optional vxr_error* (may be NULL) that receives a one-line,
 * human-readable reason naming what is wrong and where. Outputs are set to
 * NULL/zero on failure. The library never prints and never exits.
 */
#ifndef VXR_CORE_H
#define VXR_CORE_H

#include <stddef.h>
#include <stdint.h>

/* Marks the public API: the only symbols a shared vxr library exports (it is
 * built with hidden visibility). */
#if defined(__GNUC__) || defined(__clang__)
#define VXR_API __attribute__((visibility("default")))
#else
#define VXR_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vxr_result {
    VXR_OK = 0,
    VXR_ERROR_IO = 1,       /* the file could not be opened, read or written */
    VXR_ERROR_FORMAT = 2,   /* the input is malformed, truncated or hostile */
    VXR_ERROR_LIMIT = 3,    /* valid input beyond a documented limit */
    VXR_ERROR_MEMORY = 4,   /* an allocation failed */
    VXR_ERROR_ARGUMENT = 5, /* the caller passed an invalid argument */
    VXR_ERROR_DEVICE = 6,   /* no usable Vulkan loader or device (renderer) */
    VXR_ERROR_VULKAN = 7,   /* a Vulkan call failed on a usable device (renderer) */
    VXR_ERROR_STALE = 8,    /* a record made of an older scene than the one given */
} vxr_result;

/* One-line reason for a failure; message is always NUL-terminated. */
typedef struct vxr_error {
    char message[256];
} vxr_error;

/* Short name of a result code ("format error", ...); never NULL. */
VXR_API const char *vxr_result_string(vxr_result r);

/* A voxel: its integer cell and its colour. In a paletted list colour is a
 * palette index 1..255 (0 is never stored); otherwise it is RGBA8 packed with
 * red in the low byte (0xAABBGGRR). */
typedef struct vxr_voxel {
    int32_t x, y, z;
    uint32_t color;
} vxr_voxel;

/* Instance transform: world = R * (scale * local) + translation, R a rotation
 * stored row-major, scale > 0 (DESIGN.md §2). */
typedef struct vxr_transform {
    float rotation[9];
    float scale;
    float translation[3];
} vxr_transform;

/* The identity transform. */
VXR_API vxr_transform vxr_transform_identity(void);

/* Packs r,g,b,a into RGBA8 (red in the low byte). */
static inline uint32_t vxr_rgba(uint32_t r, uint32_t g, uint32_t b, uint32_t a) {
    return (r & 255u) | (g & 255u) << 8 | (b & 255u) << 16 | (a & 255u) << 24;
}

#ifdef __cplusplus
}
#endif
#endif
