/* Benchmark peers (built with -DVXR_BUILD_PEERS=ON, which defines
 * VXR_HAVE_PEERS for the bench commands): another library answering the
 * same questions as vxr, so that `vxr bench` reports both in one run.
 * A C API over C++ (tools/peers/openvdb_peer.cpp). Everything runs on the
 * calling thread: the peer caps OpenVDB's thread pool (TBB) at one thread
 * for the whole process. Failures (an exception inside OpenVDB, a scene the
 * peer cannot hold) return NULL with a one-line reason in err (err_size
 * bytes, NUL-terminated). */
#ifndef VXR_PEER_H
#define VXR_PEER_H

#include <stddef.h>
#include <stdint.h>
#include "vxr/pick.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- OpenVDB 10 ---- */

/* One openvdb::Int32Grid per model of src, each filled from the model's
 * voxel list through a value accessor's setValue (the voxel's colour as
 * the value), as vxr's bulk build reads the same lists. Freeing is not part
 * of the build: time peer_openvdb_build alone. */
typedef struct peer_openvdb_grids peer_openvdb_grids;
peer_openvdb_grids *peer_openvdb_build(const vxr_scene_src *src, char *err, size_t err_size);
/* The grids' memory, the sum of Grid::memUsage(). */
uint64_t peer_openvdb_bytes(const peer_openvdb_grids *grids);
/* NULL is a no-op. */
void peer_openvdb_free(peer_openvdb_grids *grids);

/* One grid of the world: every instance not hidden or culled, its voxels
 * placed in world cells (voxel size 1, cell [x,x+1) at index x, vxr's
 * convention). Holds instances placed on whole cells only (scale 1, a
 * signed axis permutation, whole translations: every .vox scene);
 * others fail. */
typedef struct peer_openvdb_world peer_openvdb_world;
peer_openvdb_world *peer_openvdb_world_create(const vxr_scene *scene, char *err, size_t err_size);
/* NULL is a no-op. */
void peer_openvdb_world_destroy(peer_openvdb_world *world);
/* The first hit of each ray (origin + t dir, t >= 0, world units) against
 * the world's voxels: VolumeRayIntersector's active leaf spans, a voxel DDA
 * (math::DDA) inside each testing isValueOn. hit[i] is 1 for a hit, else
 * 0. Returns the number of hits. */
size_t peer_openvdb_first_hits(peer_openvdb_world *world, const vxr_ray *rays, size_t count,
                               uint8_t *hit);

#ifdef __cplusplus
}
#endif
#endif
