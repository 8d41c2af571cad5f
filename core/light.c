/* Light settings, their frame data, and the CPU reference of a lit pixel:
 * the walk of shaders/trace.comp's light frames written with
 * vxr_pick_ray and vxr_pick_blocked, every float from shaders/vxr_light.h
 * in the shader's order. */
#include <math.h>
#include <string.h>
#include "picker.h"
#include "vxr/light.h"
#include "vxr_light.h"

void vxr_light_defaults(vxr_light *dest) {
    /* The sun of the flat model's light, (3, 2, 6) / 7; a sky between
     * the flat background's colours, decoded. */
    *dest =
        (vxr_light){.model = VXR_LIGHT_LIT,
                    .samples = 1,
                    .sun_azimuth = 33.690067f,
                    .sun_elevation = 58.997280f,
                    .sun_diameter = 0.0f,
                    .sun_color = {1.6f, 1.5f, 1.35f},
                    .zenith = {VXR_SRGB_LINEAR[76], VXR_SRGB_LINEAR[112], VXR_SRGB_LINEAR[160]},
                    .horizon = {VXR_SRGB_LINEAR[200], VXR_SRGB_LINEAR[216], VXR_SRGB_LINEAR[232]},
                    .ao_radius = 8.0f};
}

static bool finite_nonneg3(const float v[3]) {
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]) && v[0] >= 0 && v[1] >= 0 &&
           v[2] >= 0;
}

/* The previous camera's rows: the inverse of the columns (f, r, u). */
static void previous_rows(const vxr_camera *c, vxr_gpu_frame *d) {
    const float *f = c->forward, *r = c->right, *u = c->up;
    double m[3][3] = {{f[0], r[0], u[0]}, {f[1], r[1], u[1]}, {f[2], r[2], u[2]}}, inv[3][3];
    double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                 m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                 m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            int a1 = (b + 1) % 3, a2 = (b + 2) % 3, b1 = (a + 1) % 3, b2 = (a + 2) % 3;
            inv[a][b] = (m[a1][b1] * m[a2][b2] - m[a1][b2] * m[a2][b1]) / det;
        }
    float *rows[3] = {d->prev_m0, d->prev_m1, d->prev_m2};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) rows[a][b] = (float)inv[a][b];
    memcpy(d->prev_eye, c->eye, sizeof c->eye);
    d->prev_eye[3] = (float)c->projection;
    d->prev_m0[3] = c->tan_half_fov * c->aspect;
    d->prev_m1[3] = c->tan_half_fov;
}

vxr_result vxr_light_frame(const vxr_light *l, const vxr_camera *previous, vxr_gpu_frame *dest,
                           vxr_error *err) {
    memset(dest, 0, sizeof *dest);
    if (l->model > VXR_LIGHT_PATH)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "light: model %u is not flat, lit or path",
                        l->model);
    if (l->samples == 0)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "light: samples must be at least 1");
    if (!isfinite(l->sun_azimuth) || !isfinite(l->sun_elevation) ||
        !(l->sun_elevation >= -90.0f && l->sun_elevation <= 90.0f))
        return vxr_fail(err, VXR_ERROR_ARGUMENT,
                        "light: the sun's azimuth and elevation must be finite, elevation in "
                        "[-90, 90] degrees");
    if (!(l->sun_diameter >= 0.0f && l->sun_diameter <= 90.0f))
        return vxr_fail(err, VXR_ERROR_ARGUMENT,
                        "light: the sun's diameter must be in [0, 90] degrees");
    if (!(l->ao_radius >= 0.0f) || !isfinite(l->ao_radius))
        return vxr_fail(err, VXR_ERROR_ARGUMENT,
                        "light: the occlusion radius must be finite and not negative");
    if (!finite_nonneg3(l->sun_color) || !finite_nonneg3(l->zenith) || !finite_nonneg3(l->horizon))
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "light: colours must be finite and not negative");
    const double rad = 3.14159265358979323846 / 180.0, az = l->sun_azimuth * rad,
                 el = l->sun_elevation * rad;
    double v[3] = {cos(el) * cos(az), cos(el) * sin(az), sin(el)};
    double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; k++) dest->sun[k] = (float)(v[k] / len);
    dest->sun[3] = l->sun_diameter > 0.0f ? (float)tan(0.5 * l->sun_diameter * rad) : 0.0f;
    vxr_basis(dest->sun, dest->sun_t, dest->sun_b);
    dest->sun_t[3] = l->ao_radius;
    memcpy(dest->sun_color, l->sun_color, sizeof l->sun_color);
    memcpy(dest->zenith, l->zenith, sizeof l->zenith);
    memcpy(dest->horizon, l->horizon, sizeof l->horizon);
    dest->prev_eye[3] = -1.0f;
    if (previous) previous_rows(previous, dest);
    dest->model = l->model;
    dest->samples = l->samples;
    return VXR_OK;
}

/* A surface of a path: where it is and what it is made of. */
typedef struct surface {
    float p[3], n[3], albedo[3], din[3];
    vxr_material m;
    uint32_t i;
    int32_t lo[3];
} surface;

static void decode(uint32_t color, float dest[3]) {
    for (int k = 0; k < 3; k++) dest[k] = VXR_SRGB_LINEAR[(color >> (8 * k)) & 255];
}

/* The material of a voxel of attribute attr (paletted scenes only). */
static vxr_material material(const vxr_scene *s, uint32_t attr) {
    vxr_material none = {0};
    return s->attr_size == 1 ? s->materials[attr & 255] : none;
}

/* Path samples 0 .. samples - 1 from the primary surface s0 (emission
 * emit): trace.comp's path_samples, ray for ray. */
static void path_samples(const vxr_picker *p, const vxr_gpu_frame *f, uint32_t x, uint32_t y,
                         uint32_t samples, const surface *first, const float emit[3],
                         float sums[VXR_ACCUM_FLOATS]) {
    for (uint32_t s = 0; s < samples; s++) {
        surface sf = *first;
        float thr[3] = {1, 1, 1}, rad[3] = {emit[0], emit[1], emit[2]};
        uint32_t ray = 0;
        for (uint32_t depth = 0;; depth++) {
            vxr_ray r;
            memcpy(r.origin, sf.p, sizeof r.origin);
            /* the sun */
            float cs = vxr_dot3(sf.n, f->sun);
            bool go =
                cs > 0.0f && (sf.m.kind == VXR_MATERIAL_DIFFUSE || sf.m.kind == VXR_MATERIAL_EMIT);
            vxr_sun_dir(f->sun, f->sun_t, f->sun_b, f->sun[3], vxr_sample_uv(x, y, s, 2 + ray),
                        r.dir);
            ray++;
            if (go && !vxr_pick_blocked(p, &r, INFINITY, sf.i, sf.lo)) {
                for (int c = 0; c < 3; c++) rad[c] += thr[c] * sf.albedo[c] * f->sun_color[c] * cs;
                if (depth == 0) sums[3] += 1.0f;
            }
            /* the bounce */
            vxr_bounce b =
                vxr_scatter(sf.p, sf.n, sf.din, sf.albedo, sf.m.kind, sf.m.rough, sf.m.ior,
                            vxr_sample_uv(x, y, s, 2 + ray), vxr_sample_key(x, y, s, 2 + ray));
            ray++;
            for (int c = 0; c < 3; c++) thr[c] = thr[c] * b.w[c];
            memcpy(r.origin, b.o, sizeof r.origin);
            memcpy(r.dir, b.d, sizeof r.dir);
            vxr_pick h;
            uint32_t hattr;
            vxr_pick_skip(p, &r, sf.i, sf.lo, b.through, &h, &hattr);
            if (depth == 0 && (!h.hit || h.t > f->sun_t[3])) sums[4] += 1.0f;
            if (!h.hit) {
                for (int c = 0; c < 3; c++)
                    rad[c] += thr[c] * vxr_sky(f->zenith[c], f->horizon[c], r.dir[2]);
                break;
            }
            sf.m = material(p->scene, hattr);
            decode(h.color, sf.albedo);
            for (int c = 0; c < 3; c++) rad[c] += thr[c] * (sf.albedo[c] * sf.m.emit);
            if (h.face < 0 || depth + 1 >= VXR_PATH_BOUNCES) break;
            const vxr_gpu_instance *hg = &p->records[h.instance];
            float o[3], d[3];
            vxr_affine_point(hg->world_to_local, r.origin, o);
            vxr_affine_dir(hg->world_to_local, r.dir, d);
            vxr_face_normal(hg->local_to_world, hg->scale, h.face, sf.n);
            vxr_hit_point(o, d, h.t, h.voxel, 1, h.face >> 1, hg->local_to_world, sf.p);
            memcpy(sf.din, r.dir, sizeof sf.din);
            sf.i = h.instance;
            memcpy(sf.lo, h.voxel, sizeof sf.lo);
        }
        for (int c = 0; c < 3; c++) sums[c] += rad[c];
    }
}

/* A miss: the sky behind the pixel. */
static void lit_miss(const vxr_gpu_frame *f, const vxr_ray *ray, vxr_lit_pixel *d) {
    for (int k = 0; k < 3; k++) d->color[k] = vxr_sky(f->zenith[k], f->horizon[k], ray->dir[2]);
    d->instance = VXR_PICK_MISS;
    d->sun = d->ao = -1.0f;
}

vxr_result vxr_light_pixel(const vxr_picker *p, const vxr_camera *cam, const vxr_gpu_frame *f,
                           uint32_t i, uint32_t j, uint32_t samples, vxr_lit_pixel *d) {
    memset(d, 0, sizeof *d);
    if (i >= cam->width || j >= cam->height || samples == 0) return VXR_ERROR_ARGUMENT;
    vxr_ray ray;
    vxr_camera_ray(cam, i, j, &ray);
    vxr_pick pk;
    uint32_t attr;
    const int32_t none[3] = {0, 0, 0};
    vxr_result res = vxr_pick_skip(p, &ray, UINT32_MAX, none, false, &pk, &attr);
    if (res != VXR_OK) return res;
    const float px = (float)i + 0.5f, py = (float)j + 0.5f;
    float world[3];
    if (!pk.hit) {
        lit_miss(f, &ray, d);
        memcpy(world, ray.dir, sizeof world);
    } else {
        const vxr_gpu_instance *g = &p->records[pk.instance];
        d->instance = pk.instance;
        for (int k = 0; k < 3; k++) d->albedo[k] = VXR_SRGB_LINEAR[(pk.color >> (8 * k)) & 255];
        float o[3], dir[3], cos_sun = 0.0f;
        vxr_affine_point(g->world_to_local, ray.origin, o);
        vxr_affine_dir(g->world_to_local, ray.dir, dir);
        for (int k = 0; k < 3; k++) world[k] = ray.origin[k] + pk.t * ray.dir[k];
        if (pk.face >= 0) {
            vxr_face_normal(g->local_to_world, g->scale, pk.face, d->normal);
            vxr_hit_point(o, dir, pk.t, pk.voxel, 1, pk.face >> 1, g->local_to_world, world);
            cos_sun = vxr_dot3(d->normal, f->sun);
            cos_sun = cos_sun > 0.0f ? cos_sun : 0.0f;
            if (f->model == VXR_LIGHT_PATH) {
                surface first = {.m = material(p->scene, attr), .i = pk.instance};
                memcpy(first.p, world, sizeof world);
                memcpy(first.n, d->normal, sizeof first.n);
                memcpy(first.albedo, d->albedo, sizeof first.albedo);
                memcpy(first.din, ray.dir, sizeof first.din);
                memcpy(first.lo, pk.voxel, sizeof first.lo);
                float emit[3];
                for (int k = 0; k < 3; k++) emit[k] = d->albedo[k] * first.m.emit;
                path_samples(p, f, i, j, samples, &first, emit, d->sums);
            }
            for (uint32_t s = 0; f->model == VXR_LIGHT_LIT && s < samples; s++) {
                vxr_ray light;
                memcpy(light.origin, world, sizeof world);
                if (cos_sun > 0.0f) {
                    vxr_lit_dir(0, d->normal, f->sun, f->sun_t, f->sun_b, f->sun[3],
                                vxr_sample_uv(i, j, s, 0), light.dir);
                    if (!vxr_pick_blocked(p, &light, INFINITY, pk.instance, pk.voxel))
                        d->sums[3] += 1.0f;
                }
                vxr_lit_dir(1, d->normal, f->sun, f->sun_t, f->sun_b, f->sun[3],
                            vxr_sample_uv(i, j, s, 1), light.dir);
                if (!(f->sun_t[3] > 0.0f) ||
                    !vxr_pick_blocked(p, &light, f->sun_t[3], pk.instance, pk.voxel)) {
                    for (int k = 0; k < 3; k++)
                        d->sums[k] += vxr_sky(f->zenith[k], f->horizon[k], light.dir[2]);
                    d->sums[4] += 1.0f;
                }
            }
        }
        const float n = (float)samples, emit = material(p->scene, attr).emit;
        for (int k = 0; k < 3; k++) {
            d->emit[k] = d->albedo[k] * emit;
            d->color[k] = f->model == VXR_LIGHT_PATH
                              ? d->sums[k] / n
                              : vxr_lit_channel(d->albedo[k], f->sun_color[k], cos_sun, d->sums[3],
                                                d->sums[k], n, d->emit[k]);
        }
        d->sun = d->sums[3] / n;
        d->ao = d->sums[4] / n;
    }
    if (f->prev_eye[3] >= 0.0f) {
        vxr_xy at = vxr_prev_pixel(f->prev_eye, f->prev_m0, f->prev_m1, f->prev_m2, world, pk.hit,
                                   cam->width, cam->height);
        if (at.x > -1e29f) {
            d->motion[0] = at.x - px;
            d->motion[1] = at.y - py;
        }
    }
    d->rgba = 0xff000000u;
    for (int k = 0; k < 3; k++) d->rgba |= vxr_srgb_encode(d->color[k]) << (8 * k);
    return VXR_OK;
}
