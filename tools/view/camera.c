/* The viewer's camera control (camera.h). */
#include "camera.h"
#include <math.h>

static void sub3(const float a[3], const float b[3], float dest[3]) {
    for (int k = 0; k < 3; k++) dest[k] = a[k] - b[k];
}

static float len3(const float a[3]) {
    return sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

/* Direction from eye to target as yaw (about +Z) and pitch, and distance. */
static void angles(const vxr_camera *c, float *yaw, float *pitch, float *dist) {
    float d[3];
    sub3(c->target, c->eye, d);
    *dist = len3(d);
    if (*dist == 0.0f) *dist = 1.0f;
    *yaw = atan2f(d[1], d[0]);
    *pitch = asinf(fmaxf(-1.0f, fminf(1.0f, d[2] / *dist)));
}

static void dir_of(float yaw, float pitch, float dest[3]) {
    pitch = fmaxf(-VIEW_MAX_PITCH, fminf(VIEW_MAX_PITCH, pitch));
    dest[0] = cosf(pitch) * cosf(yaw);
    dest[1] = cosf(pitch) * sinf(yaw);
    dest[2] = sinf(pitch);
}

static void rotate(vxr_camera *c, float dyaw, float dpitch, bool around_eye) {
    float yaw, pitch, dist, d[3];
    angles(c, &yaw, &pitch, &dist);
    dir_of(yaw + dyaw, pitch + dpitch, d);
    for (int k = 0; k < 3; k++) {
        if (around_eye)
            c->target[k] = c->eye[k] + d[k] * dist;
        else
            c->eye[k] = c->target[k] - d[k] * dist;
    }
}

void view_orbit(vxr_camera *c, float dyaw, float dpitch) {
    rotate(c, dyaw, dpitch, false);
}

void view_look(vxr_camera *c, float dyaw, float dpitch) {
    rotate(c, dyaw, dpitch, true);
}

void view_move(vxr_camera *c, const float by[3]) {
    for (int k = 0; k < 3; k++) {
        c->eye[k] += by[k];
        c->target[k] += by[k];
    }
}

void view_pan(vxr_camera *c, double dx, double dy) {
    float d[3];
    sub3(c->target, c->eye, d);
    float px = 2.0f * len3(d) * c->tan_half_fov / (float)(c->height ? c->height : 1);
    float by[3];
    for (int k = 0; k < 3; k++) by[k] = px * (-(float)dx * c->right[k] + (float)dy * c->up[k]);
    view_move(c, by);
}

void view_zoom(vxr_camera *c, double steps) {
    float d[3];
    sub3(c->target, c->eye, d);
    float dist = len3(d);
    if (dist == 0.0f) return;
    float nd = fmaxf(dist * powf(VIEW_ZOOM_STEP, (float)steps), VIEW_MIN_DISTANCE);
    for (int k = 0; k < 3; k++) c->eye[k] = c->target[k] - d[k] * (nd / dist);
}

void view_fly(vxr_camera *c, float fwd, float side, float rise, float dist) {
    float by[3];
    for (int k = 0; k < 3; k++) by[k] = dist * (fwd * c->forward[k] + side * c->right[k]);
    by[2] += dist * rise;
    view_move(c, by);
}

bool view_frame_pick(vxr_camera *c, const vxr_pick *p, const vxr_ray *ray) {
    float e[3], to[3];
    sub3(p->world_max, p->world_min, e);
    sub3(p->point, ray->origin, to);
    float n = len3(ray->dir),
          dist = fminf(fmaxf(VIEW_FRAME_DIAGONALS * len3(e), VIEW_FRAME_MIN), len3(to));
    if (!p->hit || !(n > 0.0f) || dist < VIEW_MIN_DISTANCE) return false;
    for (int k = 0; k < 3; k++) {
        c->target[k] = p->point[k];
        c->eye[k] = p->point[k] - ray->dir[k] * (dist / n);
    }
    return true;
}
