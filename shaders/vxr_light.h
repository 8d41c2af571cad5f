/* vxr_light.h: light as both sides compute it (C11 and GLSL, spelled
 * through vxr_layout.h's macros), so that core/light.c's CPU reference
 * and shaders/trace.comp give the same lit colour from the same floats.
 *
 * Samples are reproducible: a ray's random numbers come from a hash of the
 * pixel, the sample index and the ray's role (PCG, Jarzynski and Olano
 * 2020, "Hash Functions for GPU Rendering"), never from a clock. Every
 * direction is built from integer hashing, + - * /, comparisons and sqrt
 * (correctly rounded on both sides: IEEE 754 on the CPU, and lavapipe's
 * sqrt is the CPU's); no transcendental function, whose results differ
 * between libm and a shader, is evaluated per ray. The host turns angles
 * into vectors once (vxr_light_resolve) and both sides read those floats.
 *
 * Colour: palette colours are sRGB-encoded; they are decoded by table,
 * lit in linear light and encoded back by comparisons against a table of
 * thresholds (vxr_srgb.h), so the 8-bit result is exact on both sides. */
#ifndef VXR_LIGHT_H
#define VXR_LIGHT_H

#include "vxr_trace.h"
#include "vxr_srgb.h"

/* PCG hash (Jarzynski and Olano 2020). */
VXR_FN vxr_uint vxr_hash(vxr_uint v) {
    vxr_uint state = v * 747796405u + 2891336453u;
    vxr_uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

/* The key of ray `role` of sample k at pixel (x, y): vxr_sample_uv's
 * jitter comes from it; hash it again for further numbers. */
VXR_FN vxr_uint vxr_sample_key(vxr_uint x, vxr_uint y, vxr_uint k, vxr_uint role) {
    return vxr_hash(vxr_hash(x + vxr_hash(y)) ^ vxr_hash(k * 16u + role));
}

/* 24 bits of h as a float in [0, 1), exactly. */
VXR_FN float vxr_unit(vxr_uint h) {
    return VXR_F(h >> 8u) * (1.0f / 16777216.0f);
}

VXR_STRUCT(vxr_xy) {
    float x;
    float y;
};

/* The two numbers in [0, 1) (24 bits each) of ray `role` of sample k at
 * pixel (x, y), stratified across pixels: a 4 x 4 tile of pixels takes the
 * 16 cells of a 4 x 4 grid over [0, 1)^2, each 2 x 2 block of it one cell
 * in each quadrant, and the point is uniform in its cell. The cells are
 * xor'ed with a hash of the tile, sample and role, so each pixel's cell is
 * uniform and its samples unbiased; a filter that averages neighbouring
 * pixels averages stratified samples (the idea of Heitz and Belcour 2019,
 * "Distributing Monte Carlo Errors as a Blue Noise in Screen Space"). */
VXR_FN vxr_xy vxr_sample_uv(vxr_uint x, vxr_uint y, vxr_uint k, vxr_uint role) {
    vxr_uint tile = vxr_hash(vxr_hash((x >> 2u) + vxr_hash((y >> 2u) ^ 0x9e3779b9u)) ^
                             vxr_hash(k * 16u + role));
    vxr_uint key = vxr_sample_key(x, y, k, role);
    vxr_uint cx = (((x & 1u) << 1u) | ((y >> 1u) & 1u)) ^ (tile & 3u);
    vxr_uint cy = (((y & 1u) << 1u) | ((x >> 1u) & 1u)) ^ ((tile >> 2u) & 3u);
    vxr_xy u;
    u.x = VXR_F((cx << 22u) | (key >> 10u)) * (1.0f / 16777216.0f);
    u.y = VXR_F((cy << 22u) | (vxr_hash(key) >> 10u)) * (1.0f / 16777216.0f);
    return u;
}

/* Taylor coefficients of sin and cos, each the float nearest to it written
 * as an exact quotient (so every compiler reads the same float). */
#define VXR_SIN3    (-11184811.0f / 67108864.0f)
#define VXR_SIN5    (8947849.0f / 1073741824.0f)
#define VXR_SIN7    (-13634817.0f / 68719476736.0f)
#define VXR_SIN9    (12119837.0f / 4398046511104.0f)
#define VXR_COS4    (11184811.0f / 268435456.0f)
#define VXR_COS6    (-11930465.0f / 8589934592.0f)
#define VXR_COS8    (13634817.0f / 549755813888.0f)
#define VXR_COS10   (-9695870.0f / 35184372088832.0f)
#define VXR_HALF_PI (13176795.0f / 8388608.0f)

/* (cos, sin) of 2 pi u for u in [0, 1): the quadrant and the octant's
 * mirror exactly, then Taylor polynomials on [0, pi / 4] (within 2e-7):
 * arithmetic only, so both sides agree. */
VXR_FN vxr_xy vxr_circle(float u) {
    VXR_PRECISE float a = u * 4.0f;
    int q = 0;
    if (a >= 2.0f) {
        a = a - 2.0f;
        q = 2;
    }
    if (a >= 1.0f) {
        a = a - 1.0f;
        q = q + 1;
    }
    bool mirror = a > 0.5f;
    VXR_PRECISE float g = mirror ? 1.0f - a : a;
    VXR_PRECISE float x = g * VXR_HALF_PI;
    VXR_PRECISE float x2 = x * x;
    VXR_PRECISE float sn =
        x * (1.0f + x2 * (VXR_SIN3 + x2 * (VXR_SIN5 + x2 * (VXR_SIN7 + x2 * VXR_SIN9))));
    VXR_PRECISE float cs =
        1.0f + x2 * (-0.5f + x2 * (VXR_COS4 + x2 * (VXR_COS6 + x2 * (VXR_COS8 + x2 * VXR_COS10))));
    float c = mirror ? sn : cs, s = mirror ? cs : sn;
    vxr_xy r;
    r.x = q == 0 ? c : q == 1 ? -s : q == 2 ? -c : s;
    r.y = q == 0 ? s : q == 1 ? c : q == 2 ? -s : -c;
    return r;
}

/* A uniform point of the unit disk from u: radius sqrt(u.x), angle 2 pi
 * u.y (area-preserving, so u's strata stay strata of the disk). */
VXR_FN vxr_xy vxr_disk(vxr_xy u) {
    vxr_xy c = vxr_circle(u.y);
    VXR_PRECISE float r = VXR_SQRT(u.x);
    VXR_PRECISE float x = r * c.x;
    VXR_PRECISE float y = r * c.y;
    c.x = x;
    c.y = y;
    return c;
}

/* An orthonormal basis (t, b) around the unit vector n: Duff et al. 2017,
 * "Building an Orthonormal Basis, Revisited" (arithmetic only). */
VXR_FN void vxr_basis(VXR_IN_VEC3(n), VXR_OUT_VEC3(t), VXR_OUT_VEC3(b)) {
    VXR_PRECISE float sign = n[2] >= 0.0f ? 1.0f : -1.0f;
    VXR_PRECISE float a = -1.0f / (sign + n[2]);
    VXR_PRECISE float c = n[0] * n[1] * a;
    VXR_PRECISE float t0 = 1.0f + sign * n[0] * n[0] * a;
    VXR_PRECISE float t1 = sign * c;
    VXR_PRECISE float t2 = -sign * n[0];
    VXR_PRECISE float b1 = sign + n[1] * n[1] * a;
    VXR_PRECISE float b2 = -n[1];
    t[0] = t0;
    t[1] = t1;
    t[2] = t2;
    b[0] = c;
    b[1] = b1;
    b[2] = b2;
}

/* x t + y b + z n, normalised. */
VXR_FN void vxr_frame_dir(VXR_IN_VEC3(t), VXR_IN_VEC3(b), VXR_IN_VEC3(n), float x, float y, float z,
                          VXR_OUT_VEC3(dest)) {
    VXR_PRECISE float d0 = x * t[0] + y * b[0] + z * n[0];
    VXR_PRECISE float d1 = x * t[1] + y * b[1] + z * n[1];
    VXR_PRECISE float d2 = x * t[2] + y * b[2] + z * n[2];
    vxr_normalize(d0, d1, d2, dest);
}

/* A direction around the unit normal n with density cos / pi (Malley's
 * method: a uniform disk point lifted onto the hemisphere). */
VXR_FN void vxr_cosine_dir(VXR_IN_VEC3(n), vxr_xy u, VXR_OUT_VEC3(dest)) {
    VXR_VEC3(t);
    VXR_VEC3(b);
    vxr_basis(n, t, b);
    vxr_xy p = vxr_disk(u);
    VXR_PRECISE float z = VXR_SQRT(1.0f - u.x);
    vxr_frame_dir(t, b, n, p.x, p.y, z, dest);
}

/* A direction towards the sun: sun (unit, with tangents t, b) tilted by a
 * uniform point of the disk of radius tan(diameter / 2), so within half
 * the diameter of it; the sun itself for diameter 0. */
VXR_FN void vxr_sun_dir(VXR_IN_VEC3(sun), VXR_IN_VEC3(t), VXR_IN_VEC3(b), float tan_half, vxr_xy u,
                        VXR_OUT_VEC3(dest)) {
    if (tan_half == 0.0f) {
        dest[0] = sun[0];
        dest[1] = sun[1];
        dest[2] = sun[2];
        return;
    }
    vxr_xy p = vxr_disk(u);
    VXR_PRECISE float x = p.x * tan_half;
    VXR_PRECISE float y = p.y * tan_half;
    vxr_frame_dir(t, b, sun, x, y, 1.0f, dest);
}

/* The direction of a lit sample's ray `role`: 0 towards the sun (the
 * floats of vxr_sun_dir), 1 an occlusion ray around the unit normal n (the
 * floats of vxr_cosine_dir), from one disk point and one frame: lavapipe
 * runs both sides of a branch, so the two functions would cost twice. */
VXR_FN void vxr_lit_dir(vxr_uint role, VXR_IN_VEC3(n), VXR_IN_VEC3(sun), VXR_IN_VEC3(sun_t),
                        VXR_IN_VEC3(sun_b), float tan_half, vxr_xy u, VXR_OUT_VEC3(dest)) {
    bool sunward = role == 0u;
    VXR_VEC3(t);
    VXR_VEC3(b);
    VXR_VEC3(ft);
    VXR_VEC3(fb);
    VXR_VEC3(fz);
    vxr_basis(n, t, b);
    for (int k = 0; k < 3; k++) {
        ft[k] = sunward ? sun_t[k] : t[k];
        fb[k] = sunward ? sun_b[k] : b[k];
        fz[k] = sunward ? sun[k] : n[k];
    }
    vxr_xy p = vxr_disk(u);
    VXR_PRECISE float sx = p.x * tan_half;
    VXR_PRECISE float sy = p.y * tan_half;
    VXR_PRECISE float z = VXR_SQRT(1.0f - u.x);
    vxr_frame_dir(ft, fb, fz, sunward ? sx : p.x, sunward ? sy : p.y, sunward ? 1.0f : z, dest);
    if (sunward && tan_half == 0.0f)
        for (int k = 0; k < 3; k++) dest[k] = sun[k];
}

/* The sky's linear radiance in the direction whose z is dz. */
VXR_FN float vxr_sky(float zenith, float horizon, float dz) {
    VXR_PRECISE float s = dz > 0.0f ? (dz < 1.0f ? dz : 1.0f) : 0.0f;
    VXR_PRECISE float v = horizon + (zenith - horizon) * s;
    return v;
}

/* The world normal of face `face` of an instance whose local-to-world rows
 * are m and whose scale is scale (DESIGN.md §2 numbers the faces). */
VXR_FN void vxr_face_normal(VXR_IN_ROWS(m), float scale, int face, VXR_OUT_VEC3(dest)) {
    int ax = face >> 1;
    bool plus = ax < 2 ? (face & 1) != 0 : (face & 1) == 0; /* the face on the +axis side */
    for (int r = 0; r < 3; r++) {
        VXR_PRECISE float v = VXR_ROW(m, r, ax) / scale;
        dest[r] = plus ? v : -v;
    }
}

/* Where the light rays of a hit start: the entry point o + t d of the hit
 * cube [lo, lo + size)^3 (model space) on the plane of its entry face
 * (axis), taken to world space by the rows m. */
VXR_FN void vxr_hit_point(VXR_IN_VEC3(o), VXR_IN_VEC3(d), float t, VXR_IN_IVEC3(lo), int size,
                          int axis, VXR_IN_ROWS(m), VXR_OUT_VEC3(dest)) {
    VXR_VEC3(q);
    for (int k = 0; k < 3; k++) {
        VXR_PRECISE float v = o[k] + t * d[k];
        q[k] = v;
    }
    q[axis] = VXR_F(d[axis] > 0.0f ? lo[axis] : lo[axis] + size);
    vxr_affine_point(m, q, dest);
}

/* a . b, in one order. */
VXR_FN float vxr_dot3(VXR_IN_VEC3(a), VXR_IN_VEC3(b)) {
    VXR_PRECISE float v = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    return v;
}

/* Where a world point p (or, with point false, the point at infinity in
 * direction p) was in the previous frame's image of w x h pixels: pixel
 * coordinates, (0, 0) the top left corner. eye, m0..m2: vxr_gpu_frame's
 * prev_*. x < 0 (-1e30) when it was behind that camera. */
VXR_FN vxr_xy vxr_prev_pixel(VXR_IN_VEC4(eye), VXR_IN_VEC4(m0), VXR_IN_VEC4(m1), VXR_IN_VEC4(m2),
                             VXR_IN_VEC3(p), bool point, vxr_uint w, vxr_uint h) {
    VXR_VEC3(q);
    for (int k = 0; k < 3; k++) {
        VXR_PRECISE float v = point ? p[k] - eye[k] : p[k];
        q[k] = v;
    }
    VXR_PRECISE float c0 = m0[0] * q[0] + m0[1] * q[1] + m0[2] * q[2];
    VXR_PRECISE float c1 = m1[0] * q[0] + m1[1] * q[1] + m1[2] * q[2];
    VXR_PRECISE float c2 = m2[0] * q[0] + m2[1] * q[1] + m2[2] * q[2];
    bool ortho = eye[3] == VXR_F(VXR_FRAME_ORTHO);
    vxr_xy r;
    r.x = -1e30f;
    r.y = -1e30f;
    if (!ortho && !(c0 > 0.0f)) return r;
    VXR_PRECISE float x = ortho ? c1 : c1 / c0 / m0[3];
    VXR_PRECISE float y = ortho ? c2 : c2 / c0 / m1[3];
    VXR_PRECISE float px = (x + 1.0f) * 0.5f * VXR_F(w);
    VXR_PRECISE float py = (1.0f - y) * 0.5f * VXR_F(h);
    r.x = px;
    r.y = py;
    return r;
}

/* ---- path tracing (VXR_LIGHT_PATH) ---- */

/* The bounces a path takes after its primary hit. */
#define VXR_PATH_BOUNCES 3u

/* d reflected about the unit normal n. */
VXR_FN void vxr_reflect(VXR_IN_VEC3(d), VXR_IN_VEC3(n), VXR_OUT_VEC3(dest)) {
    VXR_PRECISE float k = 2.0f * vxr_dot3(d, n);
    for (int c = 0; c < 3; c++) {
        VXR_PRECISE float v = d[c] - k * n[c];
        dest[c] = v;
    }
}

/* The unit d refracted at unit normal n (facing against d) with eta =
 * n1 / n2 (Snell's law); false, dest untouched, on total internal
 * reflection. */
VXR_FN bool vxr_refract(VXR_IN_VEC3(d), VXR_IN_VEC3(n), float eta, VXR_OUT_VEC3(dest)) {
    VXR_PRECISE float c = -vxr_dot3(d, n);
    VXR_PRECISE float k = 1.0f - eta * eta * (1.0f - c * c);
    if (k < 0.0f) return false;
    VXR_PRECISE float m = eta * c - VXR_SQRT(k);
    VXR_PRECISE float x = eta * d[0] + m * n[0];
    VXR_PRECISE float y = eta * d[1] + m * n[1];
    VXR_PRECISE float z = eta * d[2] + m * n[2];
    vxr_normalize(x, y, z, dest);
    return true;
}

/* Schlick's approximation of the Fresnel reflectance. */
VXR_FN float vxr_fresnel(float cos_i, float ior) {
    VXR_PRECISE float r = (1.0f - ior) / (1.0f + ior);
    VXR_PRECISE float r0 = r * r;
    VXR_PRECISE float m = 1.0f - cos_i;
    VXR_PRECISE float f = r0 + (1.0f - r0) * (m * m * m * m * m);
    return f;
}

/* One bounce of a path at a surface: point p, unit normal n (towards the
 * incoming ray), incoming unit direction din, albedo, material (kind,
 * rough, ior), random key. The new ray (o, d), the throughput's factor w,
 * and `through`: the ray passes through glass (its trace sees no glass
 * voxel). Glass is traced as slabs with parallel faces: a ray that is not
 * reflected (Schlick's Fresnel term) refracts in and out again, so it
 * leaves in its own direction, tinted by the albedo; the sideways shift
 * inside a thick slab is not modelled. */
VXR_STRUCT(vxr_bounce) {
    VXR_VEC3(o);
    VXR_VEC3(d);
    VXR_VEC3(w);
    bool through;
};

VXR_FN vxr_bounce vxr_scatter(VXR_IN_VEC3(p), VXR_IN_VEC3(n), VXR_IN_VEC3(din), VXR_IN_VEC3(albedo),
                              vxr_uint kind, float rough, float ior, vxr_xy u, vxr_uint key) {
    vxr_bounce b;
    b.through = false;
    for (int c = 0; c < 3; c++) {
        b.o[c] = p[c];
        b.w[c] = albedo[c];
    }
    if (kind == VXR_MATERIAL_METAL) {
        VXR_VEC3(r);
        vxr_reflect(din, n, r);
        vxr_xy q = vxr_disk(u);
        VXR_PRECISE float z = vxr_unit(vxr_hash(key ^ 0x5bd1e995u)) * 2.0f - 1.0f;
        VXR_PRECISE float x = r[0] + rough * q.x;
        VXR_PRECISE float y = r[1] + rough * q.y;
        VXR_PRECISE float w = r[2] + rough * z;
        vxr_normalize(x, y, w, b.d);
        if (!(vxr_dot3(b.d, n) > 0.0f)) {
            for (int c = 0; c < 3; c++) b.d[c] = r[c];
        }
        return b;
    }
    if (kind == VXR_MATERIAL_GLASS) {
        VXR_PRECISE float eta = ior > 1.0f ? ior : 1.5f;
        VXR_PRECISE float cos_i = -vxr_dot3(din, n);
        VXR_VEC3(inside);
        if (u.x < vxr_fresnel(cos_i, eta) || !vxr_refract(din, n, 1.0f / eta, inside)) {
            vxr_reflect(din, n, b.d);
            for (int c = 0; c < 3; c++) b.w[c] = 1.0f;
            return b;
        }
        for (int c = 0; c < 3; c++) b.d[c] = din[c];
        b.through = true;
        return b;
    }
    vxr_cosine_dir(n, u, b.d);
    return b;
}

/* The 8-bit sRGB code of a linear value (round to nearest; 0 for NaN). */
VXR_FN vxr_uint vxr_srgb_encode(float v) {
    vxr_uint pos = 0u;
    for (vxr_uint step = 128u; step > 0u; step >>= 1u)
        if (VXR_SRGB_MID[pos + step - 1u] <= v) pos += step;
    return pos;
}

#ifndef VXR_GLSL
#include <string.h>
/* The palette binding's sRGB words from VXR_SRGB_AT (vxr_layout.h): the
 * two tables, the float 2 after the thresholds, and the encoding's
 * buckets, bucket i holding vxr_srgb_encode's answer at the float whose
 * top 16 bits are VXR_SRGB_BUCKET_LO + i. */
static inline void vxr_srgb_tables(vxr_uint dest[VXR_PALETTE_WORDS - VXR_SRGB_AT]) {
    const float above = 2.0f;
    memcpy(dest, VXR_SRGB_LINEAR, sizeof VXR_SRGB_LINEAR);
    memcpy(dest + 256, VXR_SRGB_MID, sizeof VXR_SRGB_MID);
    memcpy(dest + 511, &above, sizeof above);
    for (vxr_uint i = 0; i < VXR_SRGB_BUCKET_COUNT; i++) {
        vxr_uint bits = (VXR_SRGB_BUCKET_LO + i) << 16u;
        float v;
        memcpy(&v, &bits, sizeof v);
        dest[VXR_SRGB_BUCKETS - VXR_SRGB_AT + i] = vxr_srgb_encode(v);
    }
}
#endif

/* A `lit` pixel's linear colour, one channel: albedo times the sun's
 * light (radiance, cos of the angle to the normal, the sum of the
 * samples' visibility) and the sky's (the sum of the radiance the
 * occlusion rays found), both over n samples, plus emission. */
VXR_FN float vxr_lit_channel(float albedo, float sun_color, float cos_sun, float vis_sum,
                             float sky_sum, float n, float emit) {
    VXR_PRECISE float sun = sun_color * cos_sun * (vis_sum / n);
    VXR_PRECISE float v = albedo * (sun + sky_sum / n) + emit;
    return v;
}

#endif
