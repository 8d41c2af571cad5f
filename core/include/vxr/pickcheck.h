/* Holding two pick records of the same ray against each other (DESIGN.md
 * §3, §4): what `vxr pickcheck` compares, and the one tolerance allowed on
 * vendor GPUs.
 *
 * Exact agreement (lavapipe): hit, instance, voxel, size, face, corner,
 * edge, t (bit for bit) and colour must all be equal.
 *
 * Tolerance (vendor GPUs, whose float units may differ in the last bit):
 * a difference is forgiven only when the ray passes within eps of a cell
 * boundary at the contested hit, judged in double precision in the
 * instance's model space (voxel units), with eps scaled by the distance
 * travelled (eps * (1 + t * |dir|), since float error grows along the ray):
 *   - both hit and their entry parameters differ by at most that much
 *     (the ray meets two cells at practically the same point: an edge,
 *     a corner, or a face between neighbours), or
 *   - a reported cube is only grazed: at its entry, a second slab of the
 *     cube is within eps of the entry slab (the entry point lies on an edge
 *     or corner of the entry face), or the ray leaves it within eps of
 *     entering (the ray clips a corner or an edge).
 * Nothing else is forgiven: a different cube, face, corner or edge anywhere
 * else, a miss against a solid hit, or a t that differs by more than eps. */
#ifndef VXR_PICKCHECK_H
#define VXR_PICKCHECK_H

#include "vxr/pick.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    VXR_DIFF_HIT = 1u << 0,
    VXR_DIFF_INSTANCE = 1u << 1,
    VXR_DIFF_VOXEL = 1u << 2,
    VXR_DIFF_SIZE = 1u << 3,
    VXR_DIFF_FACE = 1u << 4,
    VXR_DIFF_CORNER = 1u << 5,
    VXR_DIFF_EDGE = 1u << 6,
    VXR_DIFF_T = 1u << 7,
    VXR_DIFF_COLOR = 1u << 8,
};

/* The fields in which a and b differ (VXR_DIFF_* bits; 0: equal). t is
 * compared bit for bit; two misses are equal. */
VXR_API uint32_t vxr_pick_diff(const vxr_pick *a, const vxr_pick *b);

/* Writes the names of the differing fields ("face,t") into dest. */
VXR_API void vxr_pick_diff_names(uint32_t diff, char *dest, size_t size);

/* Whether the difference between picks a and b of ray is one the tolerance
 * above forgives (eps in voxel units; 1e-4 is vxr pickcheck's default).
 * Equal picks are trivially forgiven. */
VXR_API bool vxr_pick_near_boundary(const vxr_scene *scene, const vxr_ray *ray, const vxr_pick *a,
                                    const vxr_pick *b, double eps);

#ifdef __cplusplus
}
#endif
#endif
