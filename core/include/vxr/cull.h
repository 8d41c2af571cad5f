/* vxr view-distance culling (DESIGN.md §4).
 *
 * An instance with a finite view distance is visible from an eye when its
 * sphere (centre: the centre of its world AABB, radius: its view distance)
 * contains the eye; instances with an infinite view distance are always
 * visible. A culler keeps those spheres in a sphere tree (vxr/spheres.h)
 * and sets VXR_INSTANCE_CULLED on the scene's instances; pickers and
 * renderer updates made afterwards see only the visible ones. Each flag it
 * changes is stamped and written to the scene's journal
 * (vxr_scene_touch_instance, vxr/edit.h), so that a renderer's update
 * rewrites only those instances; flags that stay are not touched.
 */
#ifndef VXR_CULL_H
#define VXR_CULL_H

#include "vxr/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vxr_culler vxr_culler;

/* A culler for scene as it is now (its non-hidden instances, their bounds
 * and view distances); culling starts off. VXR_ERROR_MEMORY. */
VXR_API vxr_result vxr_culler_create(const vxr_scene *scene, vxr_culler **dest);
/* NULL is a no-op. */
VXR_API void vxr_culler_destroy(vxr_culler *culler);

/* Sets VXR_INSTANCE_CULLED on every instance of scene (the one the culler
 * was made for) not visible from eye and clears it on the others; eye NULL
 * turns culling off (clears the flag everywhere). *visible receives the
 * number of visible, non-hidden instances and *changed whether the visible
 * set differs from the previous call's (either may be NULL). The culler
 * follows the instances changed since its last call through the scene's
 * journal (vxr/journal.h): a call costs O(visible + changed), plus
 * O(instances) when a model changed (instances' bounds follow their
 * model), when the journal cannot tell, when culling starts,
 * and with eye NULL. VXR_ERROR_ARGUMENT for a non-finite eye or another
 * scene (the flags stay as they were); VXR_ERROR_MEMORY. */
VXR_API vxr_result vxr_culler_update(vxr_culler *culler, vxr_scene *scene, const float eye[3],
                                     uint32_t *visible, bool *changed);

#ifdef __cplusplus
}
#endif
#endif
