/* vxr sphere tree: which of many spheres contain a point.
 *
 * Each object is a sphere whose radius is its maximum view distance; the
 * visible objects for a camera are the spheres containing the eye. The tree
 * is the seed's "data structure for variable-radius spheres", a loose
 * octree of looseness 2: a node of edge S holds the spheres centred in its
 * cube [lo, lo + S)^3 with S/4 < r <= S/2; smaller spheres go down to the
 * child holding their centre (children are created when first needed),
 * larger ones stay higher. Every sphere in a node's subtree then lies within
 * S/2 of the node's cube, so a query at p visits a node only when p lies in
 * the cube widened by S/2: at most 2 nodes per axis, 8 per level.
 *
 * Beyond the seed: the root grows (doubling towards the new sphere, as the
 * octree builder grows its root) until it holds any finite sphere, so there
 * is no world size to choose; descent stops where nodes get smaller than the
 * centre's float precision (or 2^-30), so tiny and zero radii are fine. A
 * non-finite centre, a negative, NaN or infinite radius is rejected with
 * VXR_ERROR_ARGUMENT and changes nothing (an object that is always visible
 * needs no sphere).
 *
 * Containment is `|p - c|^2 <= r^2` evaluated in double from the float
 * inputs (vxr_sphere_contains); the filtered queries and any brute-force
 * check use that one predicate.
 *
 * Memory: spheres and nodes live in two pools indexed by 32-bit handles, so
 * steady-state insert/remove/update allocate nothing; removed entries are
 * reused, and both pools go back to nothing when the tree becomes empty.
 * Not thread-safe for writers; concurrent queries on an unchanging tree are
 * fine.
 */
#ifndef VXR_SPHERES_H
#define VXR_SPHERES_H

#include <stdbool.h>
#include <stddef.h>
#include "vxr/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vxr_spheres vxr_spheres;

/* Called once per reported sphere, in no particular order. */
typedef void (*vxr_sphere_fn)(void *ctx, uint32_t handle, uint64_t user);

/* An empty tree; VXR_ERROR_MEMORY on allocation failure. */
VXR_API vxr_result vxr_spheres_create(vxr_spheres **dest);
/* NULL is a no-op. */
VXR_API void vxr_spheres_destroy(vxr_spheres *tree);

/* Stores a sphere with a caller value; *handle names it until removed.
 * VXR_ERROR_ARGUMENT for bad input, VXR_ERROR_MEMORY when a pool cannot
 * grow (the tree is unchanged in both cases). */
VXR_API vxr_result vxr_spheres_insert(vxr_spheres *tree, const float centre[3], float radius,
                                      uint64_t user, uint32_t *handle);
/* Removes a sphere in O(1) plus the cleanup of emptied nodes upward.
 * VXR_ERROR_ARGUMENT when handle does not name a stored sphere. */
VXR_API vxr_result vxr_spheres_remove(vxr_spheres *tree, uint32_t handle);
/* Moves or resizes a sphere in place: unlinked without cleanup, changed,
 * reinserted starting from its old node (up only as far as needed), then
 * the old node is cleaned up. The handle stays valid. Errors as insert;
 * on error the sphere is unchanged. */
VXR_API vxr_result vxr_spheres_update(vxr_spheres *tree, uint32_t handle, const float centre[3],
                                      float radius);

/* Reports spheres for point p. filtered: exactly those containing p
 * (vxr_sphere_contains); otherwise every candidate in the visited nodes,
 * a superset. fn may be NULL. Returns the number reported. */
VXR_API size_t vxr_spheres_query(const vxr_spheres *tree, const float p[3], bool filtered,
                                 vxr_sphere_fn fn, void *ctx);
/* The same into caller storage: writes up to cap handles to dest and
 * returns how many there are in all (call again with more room if larger). */
VXR_API size_t vxr_spheres_collect(const vxr_spheres *tree, const float p[3], bool filtered,
                                   uint32_t *dest, size_t cap);

/* The containment predicate every query and test uses. */
VXR_API bool vxr_sphere_contains(const float centre[3], float radius, const float p[3]);

/* Reads back a stored sphere; false when handle names none. Any output
 * pointer may be NULL. */
VXR_API bool vxr_spheres_get(const vxr_spheres *tree, uint32_t handle, float centre[3],
                             float *radius, uint64_t *user);
/* Number of stored spheres. */
VXR_API size_t vxr_spheres_count(const vxr_spheres *tree);
/* Bytes held by the tree's pools (not counting the tree header). */
VXR_API size_t vxr_spheres_memory(const vxr_spheres *tree);

/* Diagnostics: the nodes a query at p visits, counted per level below the
 * root (per_level[0] is the root) into per_level[levels]; returns the
 * tree's current depth (levels used). */
VXR_API uint32_t vxr_spheres_visits(const vxr_spheres *tree, const float p[3], uint32_t *per_level,
                                    uint32_t levels);

#ifdef __cplusplus
}
#endif
#endif
