/* The workgroups of a frame that its dispatches cover (renderer/internal.h,
 * vxr_groups): the pixels that may meet the scene, and those whose rays
 * may stop at a level of detail's coarse cubes. */
#include <math.h>
#include "internal.h"
#include "vxr/bvh.h"

vxr_groups vxr_pixel_groups(const vxr_renderer *r, const uint32_t px[4], vxr_groups g) {
    const uint32_t lx = r->spec.local_x, ly = r->spec.local_y;
    vxr_groups f = {px[0] / lx, px[1] / ly, (px[2] + lx - 1) / lx, (px[3] + ly - 1) / ly};
    if (f.x0 < g.x0) f.x0 = g.x0;
    if (f.y0 < g.y0) f.y0 = g.y0;
    if (f.x1 > g.x1) f.x1 = g.x1;
    if (f.y1 > g.y1) f.y1 = g.y1;
    return f;
}

/* The workgroups of a frame whose pixels may meet the hierarchy's root box
 * (padded by pad, as trace.comp tests it): the pixels of
 * vxr_camera_box_pixels. Every pixel outside misses, so a frame traces
 * these and writes the rest as misses (VXR_SPEC_MISS): on lavapipe a pixel
 * of sky otherwise runs every loop of the walk once under a lane mask.
 * All of them on a device with the beam pre-pass (a GPU, DESIGN.md
 * "Per-device choices"). */
vxr_groups vxr_scene_groups(const vxr_renderer *r, const vxr_target *t, const vxr_camera *cam,
                            float pad) {
    const uint32_t lx = r->spec.local_x, ly = r->spec.local_y;
    vxr_groups all = {0, 0, (t->width + lx - 1) / lx, (t->height + ly - 1) / ly};
    if (r->ctx->beam) return all; /* the beam starts an empty tile past everything */
    if (r->bvh_nodes == 0) return (vxr_groups){0, 0, 0, 0};
    if (!r->bvh || r->bvh->node_count == 0) return all;
    const vxr_gpu_bvh_node *root = &r->bvh->nodes[0];
    uint32_t px[4];
    if (!vxr_camera_box_pixels(cam, root->lo, root->hi, pad, px)) return (vxr_groups){0, 0, 0, 0};
    return vxr_pixel_groups(r, px, all);
}

/* Whether g leaves workgroups of the target out. */
bool vxr_leaves_out(const vxr_renderer *r, const vxr_target *t, vxr_groups g) {
    const uint32_t lx = r->spec.local_x, ly = r->spec.local_y;
    return !(g.x0 == 0 && g.y0 == 0 && g.x1 == (t->width + lx - 1) / lx &&
             g.y1 == (t->height + ly - 1) / ly);
}

/* Whether a and b are the same workgroups (both empty, or equal). */
bool vxr_same_groups(vxr_groups a, vxr_groups b) {
    const bool ea = a.x0 >= a.x1 || a.y0 >= a.y1, eb = b.x0 >= b.x1 || b.y0 >= b.y1;
    return ea || eb ? ea == eb : a.x0 == b.x0 && a.y0 == b.y0 && a.x1 == b.x1 && a.y1 == b.y1;
}

/* VXR_LOD_MIN_LEVEL + 1 is the least odd level: an octant of a wide node. */
_Static_assert(VXR_LOD_MIN_LEVEL % 2 == 0, "the level of detail's least level is a wide cell's");

/* Where a flat frame at level of detail k > 0 may stop a ray at a cube of
 * `level` or above: the workgroups of g whose rays may meet one. Such a
 * cube is of 2^level voxels or more, of an instance of scale min_scale or
 * more, under the footprint k t (k, orthographic) at its entry t
 * (vxr_lod_stop), and lies in its instance's box padded by pad
 * (vxr_bvh_lod_pad). So no ray stops at one before T, 2^level min_scale /
 * k less a margin for float rounding, and no ray of a pixel outside the
 * boxes of the hierarchy's leaves that reach past T
 * (vxr_camera_box_pixels) does at all: such pixels need not pay for
 * those stops' tests (on lavapipe about a quarter of a frame for all of
 * them), and a pipeline without them gives the same records. A leaf's
 * box is looked at in parts, those that reach past T projected; past
 * LOD_LEAVES leaves, g whole. */
/* vxr_lod_groups: parts of a leaf's box an axis; parts, and leaves, at most */
enum { LOD_PARTS = 4, LOD_LOOKS = 2048, LOD_LEAVES = 256 };

/* The squared distance from eye to the farthest point of [lo - pad, hi + pad]. */
static double farthest2(const float eye[3], const float lo[3], const float hi[3], float pad) {
    double d2 = 0.0;
    for (int a = 0; a < 3; a++) {
        const double l = fabs((double)eye[a] - ((double)lo[a] - pad)),
                     h = fabs((double)eye[a] - ((double)hi[a] + pad));
        d2 += (l > h ? l : h) * (l > h ? l : h);
    }
    return d2;
}

vxr_groups vxr_lod_groups(const vxr_renderer *r, const vxr_camera *cam, float k, float pad,
                          uint32_t level, vxr_groups g) {
    const vxr_groups none = {g.x0, g.y0, g.x0, g.y0};
    const double edge = ldexp((double)r->min_scale, (int)level);
    if (!(edge < INFINITY)) return none; /* no instance shown */
    if (!(edge > 0.0) || !r->bvh || !r->bvh->node_count) return g;
    if (cam->projection == VXR_PROJECTION_ORTHOGRAPHIC) return edge >= 1.01 * k ? none : g;
    const double far = edge / (1.01 * (double)k), far2 = far * far;
    const vxr_gpu_bvh_node *nodes = r->bvh->nodes;
    uint32_t stack[64], n = 0, leaves = 0, rect[4] = {UINT32_MAX, UINT32_MAX, 0, 0};
    int looked = 0;
    stack[n++] = 0;
    while (n) {
        const vxr_gpu_bvh_node *nd = &nodes[stack[--n]];
        const double d2 = farthest2(cam->eye, nd->lo, nd->hi, pad);
        double near2 = 0.0; /* to the padded box's nearest point */
        for (int a = 0; a < 3; a++) {
            const double e = (double)cam->eye[a], l = (double)nd->lo[a] - pad,
                         h = (double)nd->hi[a] + pad,
                         in = e < l   ? l - e
                              : e > h ? e - h
                                      : 0.0;
            near2 += in * in;
        }
        if (!(d2 > far2) && d2 == d2) continue; /* all of it nearer than T */
        if (nd->count == 0 && n + 2 <= 64) {
            stack[n++] = nd->first;
            stack[n++] = nd->first + 1;
            continue;
        }
        if (nd->count == 0 || ++leaves > LOD_LEAVES) return g;
        /* the leaf's box in LOD_PARTS^3 parts (their shared faces the same
         * floats, each padded), those that reach past T; the box whole
         * when all of it lies past T, or past LOD_LOOKS parts */
        const int parts =
            near2 < far2 && looked + LOD_PARTS * LOD_PARTS * LOD_PARTS <= LOD_LOOKS ? LOD_PARTS : 1;
        float cut[3][LOD_PARTS + 1];
        for (int a = 0; a < 3; a++)
            for (int j = 0; j <= parts; j++)
                cut[a][j] = j == parts
                                ? nd->hi[a]
                                : nd->lo[a] + (nd->hi[a] - nd->lo[a]) * (float)j / (float)parts;
        for (int c = 0; c < parts * parts * parts; c++) {
            const int ix[3] = {c % parts, c / parts % parts, c / parts / parts};
            float lo[3], hi[3];
            for (int a = 0; a < 3; a++) {
                lo[a] = cut[a][ix[a]];
                hi[a] = cut[a][ix[a] + 1];
            }
            const double e2 = farthest2(cam->eye, lo, hi, pad);
            uint32_t px[4];
            if (!(e2 > far2) && e2 == e2) continue;
            looked++;
            if (!vxr_camera_box_pixels(cam, lo, hi, pad, px)) continue;
            for (int e = 0; e < 2; e++) {
                if (px[e] < rect[e]) rect[e] = px[e];
                if (px[e + 2] > rect[e + 2]) rect[e + 2] = px[e + 2];
            }
        }
    }
    if (rect[0] >= rect[2] || rect[1] >= rect[3]) return none;
    const vxr_groups f = vxr_pixel_groups(r, rect, g);
    return f.x0 < f.x1 && f.y0 < f.y1 ? f : none;
}
