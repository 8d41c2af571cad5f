/* Pick comparison and the vendor-GPU tolerance (see vxr/pickcheck.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "vxr/pickcheck.h"

uint32_t vxr_pick_diff(const vxr_pick *a, const vxr_pick *b) {
    if (!a->hit != !b->hit) return VXR_DIFF_HIT;
    if (!a->hit) return 0;
    uint32_t d = 0;
    if (a->instance != b->instance) d |= VXR_DIFF_INSTANCE;
    if (memcmp(a->voxel, b->voxel, sizeof a->voxel)) d |= VXR_DIFF_VOXEL;
    if (a->size != b->size) d |= VXR_DIFF_SIZE;
    if (a->face != b->face) d |= VXR_DIFF_FACE;
    if (a->corner != b->corner) d |= VXR_DIFF_CORNER;
    if (a->edge != b->edge) d |= VXR_DIFF_EDGE;
    if (memcmp(&a->t, &b->t, sizeof a->t)) d |= VXR_DIFF_T;
    if (a->color != b->color) d |= VXR_DIFF_COLOR;
    return d;
}

void vxr_pick_diff_names(uint32_t diff, char *dest, size_t size) {
    static const char *const names[] = {"hit",    "instance", "voxel", "size", "face",
                                        "corner", "edge",     "t",     "color"};
    size_t n = 0;
    if (size) dest[0] = 0;
    for (int i = 0; i < 9; i++)
        if (diff & (1u << i) && n < size)
            n += (size_t)snprintf(dest + n, size - n, "%s%s", n ? "," : "", names[i]);
}

/* The ray in the model space of instance i, in double: local = R^T (w - t) / s. */
static void model_ray(const vxr_scene *s, uint32_t i, const vxr_ray *ray, double o[3],
                      double d[3]) {
    const vxr_transform *x = &s->instances[i].transform;
    for (int k = 0; k < 3; k++) {
        o[k] = d[k] = 0;
        for (int r = 0; r < 3; r++) {
            o[k] += (double)x->rotation[3 * r + k] * ((double)ray->origin[r] - x->translation[r]);
            d[k] += (double)x->rotation[3 * r + k] * ray->dir[r];
        }
        o[k] /= x->scale;
        d[k] /= x->scale;
    }
}

/* Whether the reported cube of p is only grazed by the ray. */
static bool grazed(const vxr_scene *s, const vxr_ray *ray, const vxr_pick *p, double eps) {
    if (!p->hit || p->instance >= s->instance_count) return false;
    double o[3], d[3], enter[3], exit_t = INFINITY, len = 0;
    model_ray(s, p->instance, ray, o, d);
    int axes = 0;
    for (int k = 0; k < 3; k++) {
        len += d[k] * d[k];
        double lo = p->voxel[k], hi = lo + p->size;
        if (d[k] == 0.0) {
            if (o[k] < lo - eps || o[k] > hi + eps) return false;
            continue;
        }
        double a = (lo - o[k]) / d[k], b = (hi - o[k]) / d[k];
        if (a > b) {
            double x = a;
            a = b;
            b = x;
        }
        enter[axes++] = a;
        if (b < exit_t) exit_t = b;
    }
    if (axes == 0) return false;
    double t_in = -INFINITY;
    for (int k = 0; k < axes; k++) t_in = fmax(t_in, enter[k]);
    double tol = eps * (1.0 + fabs(t_in) * sqrt(len)) / sqrt(len);
    if (exit_t - fmax(t_in, 0.0) <= tol) return true; /* clipped an edge or corner */
    int near = 0;
    for (int k = 0; k < axes; k++) near += t_in - enter[k] <= tol;
    return near >= 2; /* the entry point lies on an edge or corner of the face */
}

/* The hit's model-space entry point and the corner-position helper. */
static void entry_point(const vxr_scene *s, const vxr_ray *ray, const vxr_pick *p, double dest[3]) {
    double o[3], d[3];
    model_ray(s, p->instance, ray, o, d);
    for (int k = 0; k < 3; k++) dest[k] = o[k] + (double)p->t * d[k];
}

static double dist_to_corner(const vxr_pick *p, const double x[3], int corner) {
    double r = 0;
    for (int k = 0; k < 3; k++) {
        double c = p->voxel[k] + ((corner >> (2 - k)) & 1 ? (double)p->size : 0.0);
        r += (x[k] - c) * (x[k] - c);
    }
    return sqrt(r);
}

static double dist_to_edge_mid(const vxr_pick *p, const double x[3], int edge) {
    double r = 0;
    for (int k = 0; k < 3; k++) {
        double m = 0;
        for (int j = 0; j < 2; j++)
            m += p->voxel[k] + ((vxr_edge_corners[edge][j] >> (2 - k)) & 1 ? (double)p->size : 0.0);
        r += (x[k] - 0.5 * m) * (x[k] - 0.5 * m);
    }
    return sqrt(r);
}

bool vxr_pick_near_boundary(const vxr_scene *s, const vxr_ray *ray, const vxr_pick *a,
                            const vxr_pick *b, double eps) {
    uint32_t diff = vxr_pick_diff(a, b);
    if (!diff) return true;
    if (diff & VXR_DIFF_HIT) return grazed(s, ray, a, eps) || grazed(s, ray, b, eps);
    if (a->instance >= s->instance_count) return false;
    double len = sqrt((double)ray->dir[0] * ray->dir[0] + (double)ray->dir[1] * ray->dir[1] +
                      (double)ray->dir[2] * ray->dir[2]);
    double t = fmax(fabs((double)a->t), fabs((double)b->t));
    double scale = s->instances[a->instance].transform.scale;
    /* eps voxels, grown with the distance travelled (in voxels), along the ray */
    double tol_t = eps * scale * (1.0 + t * len / scale) / (len > 0 ? len : 1.0);
    bool near_t = fabs((double)a->t - (double)b->t) <= tol_t;
    if (diff & (VXR_DIFF_INSTANCE | VXR_DIFF_VOXEL | VXR_DIFF_SIZE))
        return near_t || grazed(s, ray, a, eps) || grazed(s, ray, b, eps);
    /* The same cube. */
    if (!near_t) return false;
    if (diff & VXR_DIFF_FACE) return grazed(s, ray, a, eps);
    double x[3], tol = eps * (1.0 + t * len / scale);
    entry_point(s, ray, a, x);
    if ((diff & VXR_DIFF_CORNER) &&
        (a->corner < 0 || b->corner < 0 ||
         fabs(dist_to_corner(a, x, a->corner) - dist_to_corner(a, x, b->corner)) > tol))
        return false;
    if ((diff & VXR_DIFF_EDGE) &&
        (a->edge < 0 || b->edge < 0 ||
         fabs(dist_to_edge_mid(a, x, a->edge) - dist_to_edge_mid(a, x, b->edge)) > tol))
        return false;
    return !(diff & VXR_DIFF_COLOR);
}
