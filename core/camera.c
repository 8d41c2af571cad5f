/* The camera of DESIGN.md §2. Compiled like the rest of core/ with
 * -ffp-contract=off: a pixel's ray comes from shaders/vxr_trace.h, as on the GPU. */
#include <float.h>
#include <math.h>
#include <stdio.h>
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

/* Every derived field finite, the steps' scale tan_half_fov positive. */
static bool camera_finite(const vxr_camera *c) {
    bool ok = isfinite(c->tan_half_fov) && c->tan_half_fov > 0.0f && isfinite(c->aspect) &&
              c->aspect > 0.0f;
    for (int k = 0; k < 3; k++)
        ok = ok && isfinite(c->eye[k]) && isfinite(c->target[k]) && isfinite(c->forward[k]) &&
             isfinite(c->right[k]) && isfinite(c->up[k]);
    for (int k = 0; k < 4; k++) ok = ok && isfinite(c->depth_z[k]) && isfinite(c->depth_w[k]);
    return ok;
}

/* Pinhole depth: a perspective projection looking along f from the eye,
 * near 0.1, far 10^5, Vulkan's 0..1 range. */
#define PINHOLE_NEAR 0.1
#define PINHOLE_FAR  1e5

vxr_result vxr_camera_setup(vxr_camera *c) {
    if (c->fov_deg == 0.0f) c->fov_deg = 60.0f;
    int ok =
        isfinite(c->fov_deg) && c->fov_deg > 0.0f && c->fov_deg < 180.0f && c->width && c->height;
    for (int k = 0; k < 3; k++) ok = ok && isfinite(c->eye[k]) && isfinite(c->target[k]);
    if (!ok) return VXR_ERROR_ARGUMENT;
    float f[3] = {c->target[0] - c->eye[0], c->target[1] - c->eye[1], c->target[2] - c->eye[2]};
    /* The float length normalize3 takes needs a squared length that is a
     * normal float: checked in double, which neither overflows nor
     * underflows here (eye 1e20 from the target, or 1e-30, is refused). */
    double len2 = 0;
    for (int k = 0; k < 3; k++) len2 += (double)f[k] * (double)f[k];
    if (!(len2 >= (double)FLT_MIN && len2 <= (double)FLT_MAX)) return VXR_ERROR_ARGUMENT;
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
    c->projection = VXR_PROJECTION_PINHOLE;
    c->reverse_z = false;
    memcpy(c->forward, f, sizeof f);
    memcpy(c->right, r, sizeof r);
    memcpy(c->up, u, sizeof u);
    c->tan_half_fov = (float)tan((double)c->fov_deg * 3.14159265358979323846 / 360.0);
    c->aspect = (float)c->width / (float)c->height;
    /* view z = f.(p - eye); clip z = a z + b, clip w = z */
    double a = PINHOLE_FAR / (PINHOLE_FAR - PINHOLE_NEAR), b = -PINHOLE_NEAR * a, fe = 0;
    for (int k = 0; k < 3; k++) fe += (double)f[k] * (double)c->eye[k];
    for (int k = 0; k < 3; k++) {
        c->depth_z[k] = (float)(a * (double)f[k]);
        c->depth_w[k] = f[k];
    }
    c->depth_z[3] = (float)(b - a * fe);
    c->depth_w[3] = (float)-fe;
    return camera_finite(c) ? VXR_OK : VXR_ERROR_ARGUMENT;
}

/* 4x4 matrices in double, column-major m[column][row]. */
typedef double dmat4[4][4];

static void mat_mul(const dmat4 a, const dmat4 b, dmat4 dest) {
    for (int col = 0; col < 4; col++)
        for (int row = 0; row < 4; row++) {
            double v = 0;
            for (int k = 0; k < 4; k++) v += a[k][row] * b[col][k];
            dest[col][row] = v;
        }
}

/* Gauss-Jordan with partial pivoting; false when singular. */
static bool mat_inverse(const dmat4 m, dmat4 dest) {
    double a[4][8];
    for (int row = 0; row < 4; row++)
        for (int col = 0; col < 4; col++) {
            a[row][col] = m[col][row];
            a[row][col + 4] = row == col;
        }
    for (int col = 0; col < 4; col++) {
        int p = col;
        for (int row = col + 1; row < 4; row++)
            if (fabs(a[row][col]) > fabs(a[p][col])) p = row;
        if (!(fabs(a[p][col]) > 1e-300)) return false;
        for (int k = 0; k < 8; k++) {
            double t = a[col][k];
            a[col][k] = a[p][k];
            a[p][k] = t;
        }
        double inv = 1.0 / a[col][col];
        for (int k = 0; k < 8; k++) a[col][k] *= inv;
        for (int row = 0; row < 4; row++) {
            if (row == col || a[row][col] == 0.0) continue;
            double s = a[row][col];
            for (int k = 0; k < 8; k++) a[row][k] -= s * a[col][k];
        }
    }
    for (int row = 0; row < 4; row++)
        for (int col = 0; col < 4; col++) dest[col][row] = a[row][col + 4];
    return true;
}

/* m times the column vector v. */
static void mat_apply(const dmat4 m, const double v[4], double dest[4]) {
    for (int row = 0; row < 4; row++)
        dest[row] = m[0][row] * v[0] + m[1][row] * v[1] + m[2][row] * v[2] + m[3][row] * v[3];
}

static vxr_result matrix_fail(vxr_error *err, const char *why) {
    if (err) snprintf(err->message, sizeof err->message, "camera matrices: %s", why);
    return VXR_ERROR_ARGUMENT;
}

vxr_result vxr_camera_from_matrices(vxr_camera *c, const vxr_mat4 view, const vxr_mat4 proj,
                                    uint32_t width, uint32_t height, uint32_t flags,
                                    const float jitter[2], vxr_error *err) {
    memset(c, 0, sizeof *c);
    if (!width || !height) return matrix_fail(err, "the image size is zero");
    dmat4 v, p;
    for (int col = 0; col < 4; col++)
        for (int row = 0; row < 4; row++) {
            v[col][row] = view[col][row];
            p[col][row] = proj[col][row];
            if (!isfinite(v[col][row]) || !isfinite(p[col][row]))
                return matrix_fail(err, "an entry is not finite");
        }
    bool ortho;
    if (p[0][3] == 0 && p[1][3] == 0 && p[2][3] != 0 && p[3][3] == 0)
        ortho = false;
    else if (p[0][3] == 0 && p[1][3] == 0 && p[2][3] == 0 && p[3][3] != 0)
        ortho = true;
    else
        return matrix_fail(err, "the projection's last row is neither perspective (0, 0, +-1, 0) "
                                "nor orthographic (0, 0, 0, 1)");
    if (jitter) {
        if (!isfinite(jitter[0]) || !isfinite(jitter[1]))
            return matrix_fail(err, "the jitter is not finite");
        /* a sample moved by j pixels is the pixel centre of an image moved by -j */
        double jx = 2.0 * jitter[0] / width, jy = 2.0 * jitter[1] / height;
        for (int col = 0; col < 4; col++) {
            p[col][0] -= jx * p[col][3];
            p[col][1] -= jy * p[col][3];
        }
    }
    dmat4 clip, inv, view_inv;
    mat_mul(p, v, clip);
    if (!mat_inverse(clip, inv) || !mat_inverse(v, view_inv))
        return matrix_fail(err, "the view-projection cannot be inverted");
    bool reverse = flags & VXR_CAMERA_REVERSE_Z;
    double zn = reverse ? 1 : 0, zf = reverse ? 0 : 1;
    double o[3], d[3], vx[3], vy[3];
    if (ortho) {
        double n0[4], dz[4], w = inv[3][3] + zn * inv[2][3];
        mat_apply(inv, (const double[4]){0, 0, zn, 1}, n0);
        mat_apply(inv, (const double[4]){0, 0, zf - zn, 0}, dz);
        if (!(fabs(w) > 0) || inv[0][3] != 0 || inv[1][3] != 0)
            return matrix_fail(err, "an orthographic projection needs an affine view");
        for (int k = 0; k < 3; k++) {
            o[k] = n0[k] / w;
            d[k] = dz[k] / w;
            vx[k] = inv[0][k] / w;
            vy[k] = inv[1][k] / w;
        }
    } else {
        /* direction to the unprojected point of depth 0.5 (finite for an
         * infinite far plane too): (H.xyz - eye H.w) / H.w, linear in x, y */
        double h0[4];
        mat_apply(inv, (const double[4]){0, 0, 0.5, 1}, h0);
        double s = h0[3] < 0 ? -1 : 1;
        for (int k = 0; k < 3; k++) {
            o[k] = view_inv[3][k] / view_inv[3][3];
            d[k] = s * (h0[k] - o[k] * h0[3]);
            vx[k] = s * (inv[0][k] - o[k] * inv[0][3]);
            vy[k] = s * (inv[1][k] - o[k] * inv[1][3]);
        }
    }
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (!(len > 0) || !isfinite(len)) return matrix_fail(err, "the view direction is degenerate");
    for (int k = 0; k < 3; k++) {
        c->eye[k] = (float)o[k];
        c->forward[k] = (float)(d[k] / len);
        /* a perspective camera's steps scale with d; an orthographic one's do
         * not. up: vxr_camera_dir's y grows upwards, clip space's downwards */
        c->right[k] = (float)(ortho ? vx[k] : vx[k] / len);
        c->up[k] = (float)(ortho ? -vy[k] : -vy[k] / len);
        c->target[k] = c->eye[k] + c->forward[k];
    }
    for (int k = 0; k < 4; k++) {
        c->depth_z[k] = (float)clip[k][2];
        c->depth_w[k] = (float)clip[k][3];
    }
    c->width = width;
    c->height = height;
    c->projection = ortho ? VXR_PROJECTION_ORTHOGRAPHIC : VXR_PROJECTION_PERSPECTIVE;
    c->reverse_z = reverse;
    c->tan_half_fov = 1.0f; /* the steps hold the field of view and aspect */
    c->aspect = 1.0f;
    if (!camera_finite(c)) {
        memset(c, 0, sizeof *c);
        return matrix_fail(err, "a derived camera vector is not finite in float (entries too "
                                "large or too small)");
    }
    return VXR_OK;
}

void vxr_camera_ray(const vxr_camera *c, uint32_t i, uint32_t j, vxr_ray *dest) {
    if (c->projection == VXR_PROJECTION_ORTHOGRAPHIC) {
        vxr_ortho_origin(c->eye, c->right, c->up, i, j, c->width, c->height, dest->origin);
        memcpy(dest->dir, c->forward, sizeof dest->dir);
        return;
    }
    vxr_camera_dir(c->forward, c->right, c->up, c->tan_half_fov, c->aspect, i, j, c->width,
                   c->height, dest->dir);
    memcpy(dest->origin, c->eye, sizeof dest->origin);
}

static void cross3d(const double x[3], const double y[3], double dest[3]) {
    dest[0] = x[1] * y[2] - x[2] * y[1];
    dest[1] = x[2] * y[0] - x[0] * y[2];
    dest[2] = x[0] * y[1] - x[1] * y[0];
}

/* The rows of the inverse of the matrix of columns f, r, u (Cramer's
 * rule: a f + b r + c u = v has a = v.(r x u) / det, b = v.(u x f) / det,
 * c = v.(f x r) / det, det = f.(r x u)); false when f, r, u are (nearly)
 * dependent. */
static bool camera_inverse(const vxr_camera *cam, double inv[3][3]) {
    double f[3], r[3], u[3];
    for (int k = 0; k < 3; k++) {
        f[k] = cam->forward[k];
        r[k] = cam->right[k];
        u[k] = cam->up[k];
    }
    cross3d(r, u, inv[0]);
    cross3d(u, f, inv[1]);
    cross3d(f, r, inv[2]);
    double det = f[0] * inv[0][0] + f[1] * inv[0][1] + f[2] * inv[0][2];
    if (!(fabs(det) > 1e-12)) return false;
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) inv[i][k] /= det;
    return true;
}

bool vxr_camera_box_pixels(const vxr_camera *cam, const float lo[3], const float hi[3], float pad,
                           uint32_t rect[4]) {
    const uint32_t w = cam->width, h = cam->height;
    rect[0] = rect[1] = 0;
    rect[2] = w;
    rect[3] = h;
    double l[3], u[3], reach = 0.0;
    for (int k = 0; k < 3; k++) {
        l[k] = (double)lo[k] - pad;
        u[k] = (double)hi[k] + pad;
        double far = fmax(fabs(l[k] - cam->eye[k]), fabs(u[k] - cam->eye[k]));
        reach = fmax(reach, fmax(far, u[k] - l[k]));
    }
    if (!isfinite(reach) || !camera_finite(cam) || !(l[0] <= u[0] && l[1] <= u[1] && l[2] <= u[2]))
        return true;
    /* The rays and box tests are floats: widen the box by far more than
     * their rounding (a few ulps of the distances involved). */
    for (int k = 0; k < 3; k++) {
        l[k] -= 1e-4 * reach + 1e-3;
        u[k] += 1e-4 * reach + 1e-3;
    }
    const bool ortho = cam->projection == VXR_PROJECTION_ORTHOGRAPHIC;
    const double sx = ortho ? 1.0 : (double)cam->tan_half_fov * cam->aspect,
                 sy = ortho ? 1.0 : (double)cam->tan_half_fov;
    /* the corners in the camera's frame: v = a f + b r + c u */
    double inv[3][3], co[8][3];
    if (!camera_inverse(cam, inv)) return true;
    for (int corner = 0; corner < 8; corner++) {
        double v[3];
        for (int k = 0; k < 3; k++) v[k] = ((corner >> k) & 1 ? u[k] : l[k]) - cam->eye[k];
        for (int i = 0; i < 3; i++)
            co[corner][i] = inv[i][0] * v[0] + inv[i][1] * v[1] + inv[i][2] * v[2];
    }
    /* A perspective camera sees the box clipped to a >= eps: a ray's
     * points with a < eps lie within dist / 2 of the eye, short of the box
     * (on screen, |b| <= sx a and |c| <= sy a), so the clipped box's
     * vertices (corners, and edges cut by the plane) bound what it sees. */
    double eps = 0.0;
    if (!ortho) {
        double d2 = 0.0, nf = 0.0, nr = 0.0, nu = 0.0;
        for (int k = 0; k < 3; k++) {
            double out = fmax(fmax(l[k] - cam->eye[k], cam->eye[k] - u[k]), 0.0);
            d2 += out * out;
            nf += (double)cam->forward[k] * cam->forward[k];
            nr += (double)cam->right[k] * cam->right[k];
            nu += (double)cam->up[k] * cam->up[k];
        }
        if (!(d2 > 0.0)) return true; /* the eye in the box */
        eps = 0.5 * sqrt(d2) / (sqrt(nf) + 2.0 * sx * sqrt(nr) + 2.0 * sy * sqrt(nu));
    }
    double x_lo = INFINITY, x_hi = -INFINITY, y_lo = INFINITY, y_hi = -INFINITY;
    for (int n = 0; n < 8 + 12; n++) {
        double x, y;
        if (n < 8) { /* a corner */
            if (!ortho && !(co[n][0] >= eps)) continue;
            x = co[n][1];
            y = co[n][2];
        } else { /* edge n - 8 where the plane a = eps cuts it */
            int e = n - 8, k = e / 4, low = e % 4;
            int i0 = (low & ((1 << k) - 1)) | (low >> k) << (k + 1), i1 = i0 | 1 << k;
            double a0 = co[i0][0] - eps, a1 = co[i1][0] - eps;
            if (ortho || !((a0 < 0.0) != (a1 < 0.0))) continue;
            double f = a0 / (a0 - a1);
            x = co[i0][1] + f * (co[i1][1] - co[i0][1]);
            y = co[i0][2] + f * (co[i1][2] - co[i0][2]);
        }
        if (!ortho) { /* its direction */
            double a = n < 8 ? co[n][0] : eps;
            x /= a;
            y /= a;
        }
        /* the pixel whose centre's ray points there (vxr_camera_dir and
         * vxr_ortho_origin, solved for i and j), kept near the image */
        double i = (x / sx + 1.0) * 0.5 * w - 0.5, j = (1.0 - y / sy) * 0.5 * h - 0.5;
        if (isnan(i) || isnan(j)) return true;
        i = fmin(fmax(i, -8.0), w + 8.0);
        j = fmin(fmax(j, -8.0), h + 8.0);
        x_lo = fmin(x_lo, i);
        x_hi = fmax(x_hi, i);
        y_lo = fmin(y_lo, j);
        y_hi = fmax(y_hi, j);
    }
    if (!(x_lo <= x_hi)) { /* all of the box behind the eye */
        rect[2] = rect[3] = 0;
        return false;
    }
    /* a pixel's ray meets the box only if its centre lies within the
     * vertices' hull: one pixel more each side for what rounding moves */
    double x0 = fmax(floor(x_lo) - 1.0, 0.0), x1 = fmin(ceil(x_hi) + 2.0, w),
           y0 = fmax(floor(y_lo) - 1.0, 0.0), y1 = fmin(ceil(y_hi) + 2.0, h);
    if (!(x0 < x1 && y0 < y1)) {
        rect[2] = rect[3] = 0;
        return false;
    }
    rect[0] = (uint32_t)x0;
    rect[1] = (uint32_t)y0;
    rect[2] = (uint32_t)x1;
    rect[3] = (uint32_t)y1;
    return true;
}

vxr_lod vxr_camera_lod(const vxr_camera *c, float bias) {
    vxr_lod lod = {0.0f, c->projection == VXR_PROJECTION_ORTHOGRAPHIC};
    if (!(bias > 0.0f) || !isfinite(bias) || c->height == 0) return lod;
    /* a pinhole's up is a unit vector; a matrix camera's spans half the view */
    double up = c->projection == VXR_PROJECTION_PINHOLE
                    ? 1.0
                    : sqrt((double)c->up[0] * c->up[0] + (double)c->up[1] * c->up[1] +
                           (double)c->up[2] * c->up[2]);
    double tan_half = lod.fixed ? 1.0 : c->tan_half_fov;
    double k = bias * 2.0 * tan_half * up / c->height;
    lod.k = isfinite(k) && k < 3.0e38 && k >= FLT_MIN ? (float)k : 0.0f;
    return lod;
}

float vxr_camera_far_depth(const vxr_camera *c) {
    return c->reverse_z ? 0.0f : 1.0f;
}

float vxr_camera_depth(const vxr_camera *c, const vxr_ray *ray, float t) {
    if (!(t < INFINITY)) return vxr_camera_far_depth(c);
    return vxr_clip_depth(ray->origin, ray->dir, t, c->depth_z, c->depth_w);
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
