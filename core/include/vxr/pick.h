/* vxr picking: a ray against every visible instance of a scene (DESIGN.md §3).
 *
 * Semantics. A ray is origin + t * dir, t >= 0, dir not necessarily unit;
 * t is measured along dir as given. Cells are half-open, and the ray is
 * taken to occupy a cell at t when the points just after t lie in it, so a
 * ray along a face plane belongs to the cells on the plane's upper side and
 * a ray through an edge or corner passes diagonally into the cell beyond.
 * The hit is the smallest entry t over all visible instances (ties: the
 * lower instance index). The entry face is that of the axis whose slab gives
 * t (ties: the lower axis x, y, z); an origin strictly inside a solid cell
 * gives t = 0 and face -1. The nearest corner and edge are chosen on that
 * face by squared distance from the entry point to the corner and to the
 * edge midpoint (ties: the lower id). Ids are in the model frame with the
 * tables of DESIGN.md §2; normal, corner_point and edge_mid are world space.
 *
 * Grid N (a power of two, 1..2^20): the hit is the first non-empty,
 * N-aligned cube of N^3 voxels (model coordinates) that the ray enters.
 *
 * Precision: all traversal arithmetic is float, in one fixed order, with
 * slab parameters computed as (plane - origin) / dir, so that the GPU can
 * repeat it bit for bit; core/ is compiled with -ffp-contract=off. (The
 * hierarchy's box tests, which only choose what to trace, multiply by
 * 1 / dir with a margin that never skips a box the GPU's test enters.)
 */
#ifndef VXR_PICK_H
#define VXR_PICK_H

#include "vxr/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vxr_ray {
    float origin[3];
    float dir[3];
} vxr_ray;

/* One pick record. With hit == 0 every other field is zero. */
typedef struct vxr_pick {
    int32_t hit;
    uint32_t instance;
    int32_t voxel[3]; /* model-local min corner of the hit cube */
    uint32_t size;    /* its edge: 1, the grid N, or a level of detail's 2^k */
    float world_min[3], world_max[3];
    float t;
    float point[3];  /* world-space entry point */
    int32_t face;    /* 0..5, or -1 when the origin is inside */
    float normal[3]; /* world-space outward normal of the face */
    int32_t corner;  /* 0..7 or -1 */
    float corner_point[3];
    int32_t edge; /* 0..11 or -1 */
    float edge_mid[3];
    uint32_t color; /* RGBA8, red in the low byte */
} vxr_pick;

typedef struct vxr_picker vxr_picker;

/* Level of detail (DESIGN.md §5, "Level of detail"): a ray stops at an
 * occupied cube of 2^VXR_LOD_MIN_LEVEL to 2^VXR_LOD_MAX_LEVEL voxels
 * (vxr_layout.h) whose
 * world edge is below its footprint there: k times the cube's entry t
 * (rays from one eye, unit directions: t is the distance), or k alone when
 * `fixed` (parallel rays). Its pick names that cube (size 2^level) with
 * the mean colour of what it holds. k = 0 (or under FLT_MIN, which a
 * device flushing denormals would not keep): voxels everywhere. The root
 * cube itself never stops a ray.
 * vxr_camera_lod gives a camera's. */
typedef struct vxr_lod {
    float k;
    bool fixed;
} vxr_lod;

/* Builds a picker over the scene's visible instances (not hidden, not
 * culled): their records and instance hierarchy (vxr/bvh.h) as the scene is
 * now. The scene must outlive the picker; vxr_picker_update follows its
 * changes. Returns VXR_ERROR_MEMORY on allocation failure (or what
 * vxr_bvh_build returns). */
VXR_API vxr_result vxr_picker_create(const vxr_scene *scene, vxr_picker **dest);
/* Brings the picker up to date with its scene: it reads the scene's
 * journal (vxr/journal.h) from where it last did, refreshes the records of
 * the instances that changed (moved, hidden, shown, culled, added,
 * removed, or whose model's voxels changed) and updates its hierarchy in
 * place (vxr_bvh_update: refits, or a build when that wore it down). Picks
 * afterwards equal a new picker's, bit for bit. O(changed log instances),
 * plus O(instances) when a model changed or the journal cannot tell. Not
 * while a pick of this picker runs. VXR_ERROR_MEMORY (or VXR_ERROR_LIMIT as
 * vxr_bvh_build), err saying why; the next update then looks at every
 * instance. */
VXR_API vxr_result vxr_picker_update(vxr_picker *picker, vxr_error *err);
/* NULL is a no-op. */
VXR_API void vxr_picker_destroy(vxr_picker *picker);

/* Picks one ray. grid is N (0 or 1 mean voxels); a grid that is not a
 * power of two up to 2^20 gives VXR_ERROR_ARGUMENT. VXR_ERROR_LIMIT would
 * mean a hierarchy deeper than its walk's stack, which the builder rules
 * out. */
VXR_API vxr_result vxr_pick_ray(const vxr_picker *picker, const vxr_ray *ray, uint32_t grid,
                                vxr_pick *dest);
/* vxr_pick_ray at a level of detail (NULL or k = 0: vxr_pick_ray); its
 * record equals the GPU's for the same ray and vxr_lod, bit for bit on
 * lavapipe. VXR_ERROR_ARGUMENT also for a k that is negative or not
 * finite. */
VXR_API vxr_result vxr_pick_ray_lod(const vxr_picker *picker, const vxr_ray *ray, uint32_t grid,
                                    const vxr_lod *lod, vxr_pick *dest);

/* Whether a voxel of the visible scene meets the ray at some t in
 * [0, t_max] (t_max may be INFINITY), voxel skip_lo of instance skip_i
 * excepted (skip_i UINT32_MAX: none): the shadow and occlusion rays of
 * vxr/light.h, with the walk and the tie rules of vxr_pick_ray. Any hit,
 * not the nearest: the walk ends at the first one. */
VXR_API bool vxr_pick_blocked(const vxr_picker *picker, const vxr_ray *ray, float t_max,
                              uint32_t skip_i, const int32_t skip_lo[3]);

/* Picks count rays into dest[count]: dest[i] is vxr_pick_ray of rays[i],
 * bit for bit, on any number of threads. A batch larger than a few hundred
 * rays is split over the picker's threads (vxr_picker_set_threads): the
 * core's worker threads, made on the first such batch (one per online CPU
 * but one, the caller being the last) and kept until the process ends.
 * Calls from several threads at once are safe (the picker is only read);
 * while one batch has the workers, the others run on their callers alone.
 * A bad grid is VXR_ERROR_ARGUMENT with dest untouched. */
VXR_API vxr_result vxr_pick_rays(const vxr_picker *picker, const vxr_ray *rays, size_t count,
                                 uint32_t grid, vxr_pick *dest);
/* vxr_pick_rays at a level of detail (vxr_pick_ray_lod). */
VXR_API vxr_result vxr_pick_rays_lod(const vxr_picker *picker, const vxr_ray *rays, size_t count,
                                     uint32_t grid, const vxr_lod *lod, vxr_pick *dest);
/* The threads vxr_pick_rays may use, the caller's included: 0 (the
 * default) every online CPU, 1 the caller only (for single-thread
 * figures), else at most that many. Not to be called while a
 * vxr_pick_rays of this picker runs. */
VXR_API void vxr_picker_set_threads(vxr_picker *picker, uint32_t threads);
/* The threads vxr_pick_rays asks for: the count set, or for 0 the online
 * CPUs (it may get fewer, when the system gave the core fewer workers). */
VXR_API uint32_t vxr_picker_threads(const vxr_picker *picker);

/* The seed's method for comparison: every visible instance in turn,
 * bounding sphere, then AABB, then the octree; same results as
 * vxr_pick_ray, without the hierarchy. */
VXR_API vxr_result vxr_pick_ray_loop(const vxr_picker *picker, const vxr_ray *ray, uint32_t grid,
                                     vxr_pick *dest);
/* vxr_pick_ray_loop at a level of detail: vxr_pick_ray_lod's record,
 * without the hierarchy. */
VXR_API vxr_result vxr_pick_ray_loop_lod(const vxr_picker *picker, const vxr_ray *ray,
                                         uint32_t grid, const vxr_lod *lod, vxr_pick *dest);

/* Expands one compact pick record (vxr_gpu_pick, shaders/vxr_layout.h: what
 * the GPU writes per pixel, and what the CPU picker builds internally) into
 * a full pick for the ray it was traced with, of the scene as the record's
 * frame saw it: world AABB, entry point, normal, corner point and edge
 * midpoint from the instance's transform, the same code path the CPU
 * picker takes. seen: the scene version that frame saw
 * (vxr_renderer_version when it was recorded; scene->version for a record
 * of the scene as it is now). A record without VXR_PICK_HIT gives a zero
 * pick. Fails, with dest zeroed and err (may be NULL) saying why:
 * VXR_ERROR_STALE for a record whose instance moved after seen
 * (scene->instance_moved: its transform is no longer the one traced);
 * VXR_ERROR_ARGUMENT for a seen past scene->version, or a record that names
 * no instance of the scene or ids that do not fit together;
 * VXR_ERROR_LIMIT for one the device marked VXR_PICK_INCOMPLETE. */
VXR_API vxr_result vxr_pick_expand(const vxr_scene *scene, uint64_t seen, const vxr_ray *ray,
                                   const vxr_gpu_pick *rec, vxr_pick *dest, vxr_error *err);

/* The corners (4 per face) and edges (4 per face) of DESIGN.md §2, and the
 * two corners of each edge, ascending (the tables of shaders/vxr_trace.h). */
extern VXR_API const uint8_t vxr_face_corners[6][4];
extern VXR_API const uint8_t vxr_face_edges[6][4];
extern VXR_API const uint8_t vxr_edge_corners[12][2];

#ifdef __cplusplus
}
#endif
#endif
