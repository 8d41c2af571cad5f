/* The pinhole camera of DESIGN.md §2, shared by CPU picks and GPU renders. */
#ifndef VXR_CAMERA_H
#define VXR_CAMERA_H

#include "vxr/pick.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A camera as given (eye, target, vertical field of view in degrees; 0
 * means 60) and its derived frame. Fill eye/target/fov_deg, then call
 * vxr_camera_setup once; the GPU gets the derived fields as they are, so
 * both sides build each pixel's ray from the same floats. */
typedef struct vxr_camera {
    float eye[3], target[3];
    float fov_deg;
    uint32_t width, height;
    /* derived by vxr_camera_setup */
    float forward[3], right[3], up[3];
    float tan_half_fov, aspect;
} vxr_camera;

/* Derives the frame: f = normalize(target - eye), up = +Z (+Y when f is
 * parallel to Z), r = normalize(cross(f, up)), u = cross(r, f).
 * Returns VXR_ERROR_ARGUMENT when eye == target, the size is zero, the fov
 * is not in (0, 180) or any input is not finite. */
VXR_API vxr_result vxr_camera_setup(vxr_camera *cam);

/* The ray through the centre of pixel (i, j), row 0 at the top:
 * d = normalize(f + (2(i+0.5)/W - 1) tan(fov/2) (W/H) r + (1 - 2(j+0.5)/H) tan(fov/2) u). */
VXR_API void vxr_camera_ray(const vxr_camera *cam, uint32_t i, uint32_t j, vxr_ray *dest);

/* A camera orbiting the scene's world bounds: angle in radians about Z,
 * elevation in radians, distance as a multiple of the bounds' diagonal. */
VXR_API void vxr_camera_orbit(const vxr_scene *scene, float angle, float elevation, float distance,
                              vxr_camera *dest);

#ifdef __cplusplus
}
#endif
#endif
