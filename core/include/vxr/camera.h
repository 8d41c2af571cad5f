/* The pinhole camera of DESIGN.md §2, shared by CPU picks and GPU renders. */
#ifndef VXR_CAMERA_H
#define VXR_CAMERA_H

#include <stdbool.h>
#include "vxr/pick.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A 4x4 matrix, column-major: m[column][row]. The layout of cglm's mat4
 * (and of GLSL's mat4), so a cglm mat4 is passed as it is. */
typedef float vxr_mat4[4][4];

/* Projections (vxr_camera.projection). */
typedef enum vxr_projection {
    VXR_PROJECTION_PINHOLE = 0,     /* eye, target, fov: DESIGN.md §2 */
    VXR_PROJECTION_PERSPECTIVE = 1, /* host matrices, rays from the eye */
    VXR_PROJECTION_ORTHOGRAPHIC = 2 /* host matrices, parallel rays */
} vxr_projection;

/* vxr_camera_from_matrices flags. */
#define VXR_CAMERA_REVERSE_Z 1u /* depth 1 at the near plane, 0 at the far one */

/* A camera: what the CPU's and the GPU's rays and depths are made of. Two
 * ways to fill one: set eye/target/fov_deg/width/height and call
 * vxr_camera_setup (a pinhole camera, Z up), or call
 * vxr_camera_from_matrices with a host's view and projection. The GPU gets
 * the derived fields as they are, so both sides build each pixel's ray and
 * depth from the same floats. */
typedef struct vxr_camera {
    float eye[3], target[3]; /* pinhole: as given; matrices: eye = the ray origin o */
    float fov_deg;           /* pinhole: vertical field of view in degrees, 0 means 60 */
    uint32_t width, height;
    /* derived */
    vxr_projection projection;
    bool reverse_z;
    /* pinhole: the frame (f, r, u); matrices: the direction d through the
     * image centre and the steps of one unit of x and y in normalised device
     * coordinates (up: towards the top row), with tan_half_fov = aspect = 1,
     * so that vxr_camera_dir gives a perspective camera's rays as it does a
     * pinhole's; an orthographic camera's rays leave eye + x right + y up
     * along forward (vxr_ortho_origin) */
    float forward[3], right[3], up[3];
    float tan_half_fov, aspect;
    /* rows of the view-projection for clip z and w: depth = z / w */
    float depth_z[4], depth_w[4];
} vxr_camera;

/* Derives a pinhole camera's frame: f = normalize(target - eye), up = +Z
 * (+Y when f is parallel to Z), r = normalize(cross(f, up)), u = cross(r, f);
 * its depth is a perspective projection's with near 0.1 and far 10^5 world
 * units (Vulkan's 0..1, not reversed).
 * Returns VXR_ERROR_ARGUMENT when eye == target, the size is zero, the fov
 * is not in (0, 180), any input is not finite, target - eye is too short or
 * too long to normalise in float (its squared length, taken in double, is
 * not a normal float: below FLT_MIN or above FLT_MAX, e.g. eye 1e-30 or
 * 1e20 from the target) or a derived field (forward, right, up,
 * tan_half_fov, the depth rows) is not finite. */
VXR_API vxr_result vxr_camera_setup(vxr_camera *cam);

/* A camera from a host's view (world to view space) and projection (view
 * to Vulkan clip space: x right, y down, depth 0 near .. 1 far, or 1 .. 0
 * with VXR_CAMERA_REVERSE_Z; a far plane at infinity is fine), perspective
 * (clip w = a multiple of view z, the last row (0, 0, ±1, 0)) or
 * orthographic (last row (0, 0, 0, 1)), any up axis, for a width x height
 * image. jitter (may be NULL) moves every pixel's sample from its centre by
 * (jitter[0], jitter[1]) pixels (x right, y down), as a jittered projection
 * would. The ray of pixel (i, j) is the line through the unprojected near
 * and far points of its sample, from the eye (perspective) or from the near
 * point (orthographic); depth is clip z / w of the hit point.
 * Everything is derived in double precision from the matrices.
 * VXR_ERROR_ARGUMENT, with the reason in err (may be NULL), for a size of
 * zero, non-finite entries, a projection that is neither kind, matrices
 * that cannot be inverted, or a derived field (eye, forward, right, up,
 * target, the depth rows) that is not finite in float (entries near
 * FLT_MAX); *cam is then zeroed. */
VXR_API vxr_result vxr_camera_from_matrices(vxr_camera *cam, const vxr_mat4 view,
                                            const vxr_mat4 proj, uint32_t width, uint32_t height,
                                            uint32_t flags, const float jitter[2], vxr_error *err);

/* The ray through pixel (i, j)'s sample, row 0 at the top (the formula of
 * DESIGN.md §2 with the derived fields, or vxr_ortho_origin). */
VXR_API void vxr_camera_ray(const vxr_camera *cam, uint32_t i, uint32_t j, vxr_ray *dest);

/* The pixels whose rays may meet the box [lo - pad, hi + pad]: a rectangle
 * rect = {x0, y0, x1, y1} (columns x0 .. x1 - 1, rows y0 .. y1 - 1) that
 * holds every pixel (i, j) whose vxr_camera_ray enters that box
 * (vxr_box_enter of shaders/vxr_trace.h, in float), with a margin for
 * rounding: the box, widened, clipped to what lies in front of a
 * perspective camera's eye and projected in double. A frame need trace
 * only these pixels; every other one misses. The whole image when the eye
 * is in the box or an input is not finite. Returns false, rect
 * {0, 0, 0, 0}, when no pixel can meet the box. */
VXR_API bool vxr_camera_box_pixels(const vxr_camera *cam, const float lo[3], const float hi[3],
                                   float pad, uint32_t rect[4]);

/* The depth a frame writes for a pick at t along ray (vxr_camera_ray's),
 * in the camera's convention, clamped to [0, 1]; a miss (t infinite or a
 * pick without a hit) is the far value: 1, or 0 with reverse Z. */
VXR_API float vxr_camera_depth(const vxr_camera *cam, const vxr_ray *ray, float t);

/* The level of detail (vxr_lod) of a frame of the camera at `bias`: a
 * cube stops a ray when its edge is below bias pixels at its distance,
 * a pixel spanning 2 tan(fov/2) / height per unit of distance (the
 * image's centre; orthographic: the view's height / height, fixed).
 * bias 0 (or negative, or not finite): k = 0, voxels everywhere. */
VXR_API vxr_lod vxr_camera_lod(const vxr_camera *cam, float bias);

/* The camera's far depth value: 1, or 0 with reverse Z. */
VXR_API float vxr_camera_far_depth(const vxr_camera *cam);

/* A camera orbiting the scene's world bounds: angle in radians about Z,
 * elevation in radians, distance as a multiple of the bounds' diagonal. */
VXR_API void vxr_camera_orbit(const vxr_scene *scene, float angle, float elevation, float distance,
                              vxr_camera *dest);

#ifdef __cplusplus
}
#endif
#endif
