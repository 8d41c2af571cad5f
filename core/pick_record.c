/* Pick records (vxr_gpu_pick, what the GPU writes per pixel and the CPU
 * picker builds) expanded into full picks: world AABB, entry point,
 * normal, corner and edge from the instance's transform, one code path
 * for both sides (DESIGN.md §3); and the face, corner and edge tables of
 * DESIGN.md §2. */
#include <math.h>
#include <string.h>
#include "picker.h"
#include "vxr/pick.h"
#include "vxr_trace.h"

#define FACE_CORNERS(f)                                                                            \
    { VXR_FACE_CORNER(f, 0), VXR_FACE_CORNER(f, 1), VXR_FACE_CORNER(f, 2), VXR_FACE_CORNER(f, 3) }
#define FACE_EDGES(f)                                                                              \
    { VXR_FACE_EDGE(f, 0), VXR_FACE_EDGE(f, 1), VXR_FACE_EDGE(f, 2), VXR_FACE_EDGE(f, 3) }
#define EDGE_CORNERS(e)                                                                            \
    { VXR_EDGE_CORNER(e, 0), VXR_EDGE_CORNER(e, 1) }
const uint8_t vxr_face_corners[6][4] = {FACE_CORNERS(0u), FACE_CORNERS(1u), FACE_CORNERS(2u),
                                        FACE_CORNERS(3u), FACE_CORNERS(4u), FACE_CORNERS(5u)};
const uint8_t vxr_face_edges[6][4] = {FACE_EDGES(0u), FACE_EDGES(1u), FACE_EDGES(2u),
                                      FACE_EDGES(3u), FACE_EDGES(4u), FACE_EDGES(5u)};
const uint8_t vxr_edge_corners[12][2] = {EDGE_CORNERS(0u), EDGE_CORNERS(1u),  EDGE_CORNERS(2u),
                                         EDGE_CORNERS(3u), EDGE_CORNERS(4u),  EDGE_CORNERS(5u),
                                         EDGE_CORNERS(6u), EDGE_CORNERS(7u),  EDGE_CORNERS(8u),
                                         EDGE_CORNERS(9u), EDGE_CORNERS(10u), EDGE_CORNERS(11u)};

static int8_t id8(uint32_t shape, int shift) {
    return (int8_t)(uint8_t)(shape >> shift);
}

/* The corners of the cube [lo, lo + n)^3, corner c at bit 2 - k of axis k. */
static void cube_corners(const int32_t lo[3], float n, float dest[8][3]) {
    for (uint32_t corner = 0; corner < 8; corner++)
        for (int k = 0; k < 3; k++) dest[corner][k] = vxr_corner_at(lo, n, corner, k);
}

/* The world-space part of a pick from its record: one code path for CPU
 * picks and GPU records. R is the instance's rotation. */
void vxr_pick_expand_record(const vxr_gpu_instance *g, const float R[9], const vxr_ray *ray,
                            const vxr_gpu_pick *rec, vxr_pick *out) {
    memset(out, 0, sizeof *out);
    out->hit = 1;
    out->instance = rec->instance;
    memcpy(out->voxel, rec->voxel, sizeof out->voxel);
    out->size = 1u << (rec->shape & 255);
    float cp[8][3];
    cube_corners(rec->voxel, (float)out->size, cp);
    for (int k = 0; k < 3; k++) {
        out->world_min[k] = INFINITY;
        out->world_max[k] = -INFINITY;
    }
    for (int corner = 0; corner < 8; corner++) {
        float wp[3];
        vxr_affine_point(g->local_to_world, cp[corner], wp);
        for (int k = 0; k < 3; k++) {
            if (wp[k] < out->world_min[k]) out->world_min[k] = wp[k];
            if (wp[k] > out->world_max[k]) out->world_max[k] = wp[k];
        }
    }
    out->t = rec->t;
    for (int k = 0; k < 3; k++) out->point[k] = ray->origin[k] + rec->t * ray->dir[k];
    out->color = rec->color;
    out->face = id8(rec->shape, 8);
    if (out->face < 0) {
        out->face = out->corner = out->edge = -1;
        return;
    }
    out->corner = id8(rec->shape, 16);
    out->edge = id8(rec->shape, 24);
    const int ax = out->face >> 1, neg = ax < 2 ? out->face & 1 : !(out->face & 1);
    for (int r = 0; r < 3; r++) out->normal[r] = neg ? R[3 * r + ax] : -R[3 * r + ax];
    float mid[3];
    for (int k = 0; k < 3; k++)
        mid[k] =
            (cp[vxr_edge_corners[out->edge][0]][k] + cp[vxr_edge_corners[out->edge][1]][k]) * 0.5f;
    vxr_affine_point(g->local_to_world, cp[out->corner], out->corner_point);
    vxr_affine_point(g->local_to_world, mid, out->edge_mid);
}

vxr_result vxr_pick_expand(const vxr_scene *s, uint64_t seen, const vxr_ray *ray,
                           const vxr_gpu_pick *rec, vxr_pick *dest, vxr_error *err) {
    memset(dest, 0, sizeof *dest);
    if (seen > s->version)
        return vxr_fail(err, VXR_ERROR_ARGUMENT,
                        "pick record of version %llu: the scene is at %llu (another scene?)",
                        (unsigned long long)seen, (unsigned long long)s->version);
    if (rec->flags & VXR_PICK_INCOMPLETE)
        return vxr_fail(err, VXR_ERROR_LIMIT, "the device stopped the trace (incomplete record)");
    if (!(rec->flags & VXR_PICK_HIT)) return VXR_OK;
    const int face = id8(rec->shape, 8), corner = id8(rec->shape, 16), edge = id8(rec->shape, 24);
    int ok = rec->instance < s->instance_count && (rec->shape & 255) <= VXR_MAX_DEPTH &&
             face >= -1 && face < 6;
    if (ok && face >= 0) {
        int corner_ok = 0, edge_ok = 0;
        for (int j = 0; j < 4; j++) {
            corner_ok |= vxr_face_corners[face][j] == corner;
            edge_ok |= vxr_face_edges[face][j] == edge;
        }
        ok = corner_ok && edge_ok;
    } else if (ok) {
        ok = corner == -1 && edge == -1;
    }
    if (!ok) return vxr_fail(err, VXR_ERROR_ARGUMENT, "a pick record that fits no instance");
    if (s->instance_moved[rec->instance] > seen)
        return vxr_fail(err, VXR_ERROR_STALE,
                        "the pick record is stale: instance %u moved at version %llu, after its "
                        "frame (version %llu)",
                        rec->instance, (unsigned long long)s->instance_moved[rec->instance],
                        (unsigned long long)seen);
    vxr_gpu_instance g;
    vxr_instance_gpu(s, rec->instance, &g);
    vxr_pick_expand_record(&g, s->instances[rec->instance].transform.rotation, ray, rec, dest);
    return VXR_OK;
}
