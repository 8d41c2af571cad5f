/* The camera of DESIGN.md §2. Compiled like the rest of core/ with
 * -ffp-contract=off: a pixel's ray comes from shaders/vxr_trace.h, as on the GPU. */
#include <math.h>
#include <string.h>
#include "internal.h"
#include "vxr/camera.h"
#include "vxr_trace.h"

static void normalize3(float v[3]) {
    float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; k++) v[k] = v[k] / len;
}

static void cross3(const float a[3], const float b[3], float dest[3]) {
    dest[0] = a[1] * b[2] - a[2] * b[1];
    dest[1] = a[2] * b[0] - a[0] * b[2];
    dest[2] = a[0] * b[1] - a[1] * b[0];
}

vxr_result vxr_camera_setup(vxr_camera *c) {
    if (c->fov_deg == 0.0f) c->fov_deg = 60.0f;
    int ok =
        isfinite(c->fov_deg) && c->fov_deg > 0.0f && c->fov_deg < 180.0f && c->width && c->height;
    for (int k = 0; k < 3; k++) ok = ok && isfinite(c->eye[k]) && isfinite(c->target[k]);
    if (!ok) return VXR_ERROR_ARGUMENT;
    float f[3] = {c->target[0] - c->eye[0], c->target[1] - c->eye[1], c->target[2] - c->eye[2]};
    if (f[0] == 0.0f && f[1] == 0.0f && f[2] == 0.0f) return VXR_ERROR_ARGUMENT;
    normalize3(f);
    float up[3] = {0, 0, 1};
    if (f[0] == 0.0f && f[1] == 0.0f) {
        up[1] = 1;
        up[2] = 0;
    }
    float r[3], u[3];
    cross3(f, up, r);
    normalize3(r);
    cross3(r, f, u);
    memcpy(c->forward, f, sizeof f);
    memcpy(c->right, r, sizeof r);
    memcpy(c->up, u, sizeof u);
    c->tan_half_fov = (float)tan((double)c->fov_deg * 3.14159265358979323846 / 360.0);
    c->aspect = (float)c->width / (float)c->height;
    return VXR_OK;
}

void vxr_camera_ray(const vxr_camera *c, uint32_t i, uint32_t j, vxr_ray *dest) {
    vxr_camera_dir(c->forward, c->right, c->up, c->tan_half_fov, c->aspect, i, j, c->width,
                   c->height, dest->dir);
    memcpy(dest->origin, c->eye, sizeof dest->origin);
}

void vxr_camera_orbit(const vxr_scene *s, float angle, float elevation, float distance,
                      vxr_camera *dest) {
    vxr_scene_stats st;
    vxr_scene_get_stats(s, &st);
    float centre[3], diag = 0;
    for (int k = 0; k < 3; k++) {
        centre[k] = 0.5f * (float)(st.aabb_min[k] + st.aabb_max[k]);
        float e = (float)(st.aabb_max[k] - st.aabb_min[k]);
        diag += e * e;
    }
    diag = sqrtf(diag);
    if (diag == 0.0f) diag = 1.0f;
    float r = distance * diag;
    memcpy(dest->target, centre, sizeof centre);
    dest->eye[0] = centre[0] + r * cosf(elevation) * cosf(angle);
    dest->eye[1] = centre[1] + r * cosf(elevation) * sinf(angle);
    dest->eye[2] = centre[2] + r * sinf(elevation);
}
