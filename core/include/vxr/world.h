/* vxr worlds: a scene cut into a grid of chunks stored on disk (issue 31).
 *
 * A world is a directory: WORLD/world.vxw, the index, and WORLD/chunks/,
 * one file per chunk that holds voxels. A directory, not one file, so that
 * writing a chunk back is one atomic rename of its own file (vxr_write_file)
 * and a crash never loses a saved chunk nor needs a compaction; the index
 * is replaced the same way, last.
 *
 * world.vxw is text, one item a line:
 *     vxr world 1
 *     chunk N                  (the chunk's side in cells, a power of two, 16..4096)
 *     chunks K                 (how many lines follow)
 *     CX CY CZ VOXELS          (K lines: a chunk's grid coordinates and voxel count)
 * Chunk (CX, CY, CZ) covers the world cells [C*N, C*N + N) on each axis and
 * is stored in chunks/CX.CY.CZ.vxo: a .vxo (vxr's octree file) of one model,
 * its voxels in chunk cells 0..N-1, under one instance translated to the
 * chunk's first cell, with the world's palette and materials. */
#ifndef VXR_WORLD_H
#define VXR_WORLD_H

#include <stdbool.h>
#include "vxr/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VXR_WORLD_INDEX         "world.vxw"
#define VXR_WORLD_CHUNK_DEFAULT 256u
#define VXR_WORLD_CHUNK_MIN     16u
#define VXR_WORLD_CHUNK_MAX     4096u
/* The most chunks an index may list. */
#define VXR_WORLD_MAX_CHUNKS (1u << 24)

/* What vxr_world_build wrote. */
typedef struct vxr_world_stats {
    uint64_t chunks; /* chunk files (chunks holding voxels) */
    uint64_t voxels; /* voxels over all chunks: the scene's visible world cells */
    uint64_t bytes;  /* of the chunk files and the index */
} vxr_world_stats;

/* Cuts the visible instances of scene into chunks of chunk^3 world cells
 * and writes them as a new world in directory dir, which must not exist
 * (its parent must). A world cell that several instances fill takes the
 * colour of the last (as .vl32). Every instance must be placed on whole
 * cells (VXR_ERROR_LIMIT otherwise, naming it); chunk must be a power of
 * two in VXR_WORLD_CHUNK_MIN..MAX (VXR_ERROR_ARGUMENT). The chunk files are
 * written first, the index last, each whole or not at all: a world that
 * failed half way has no index, and vxr_world_load says so. stats may be
 * NULL. Builds each chunk on up to `threads` threads (vxr_model_build).
 * Holds the scene's visible voxels once more in memory meanwhile (16 bytes
 * each): worlds larger than memory come from generators, later. */
VXR_API vxr_result vxr_world_build(const vxr_scene *scene, const char *dir, uint32_t chunk,
                                   uint32_t threads, vxr_world_stats *stats, vxr_error *err);

/* True when path names a world: a directory holding world.vxw, or a file
 * named world.vxw. */
VXR_API bool vxr_is_world(const char *path);

/* Opens a world with every chunk resident: a scene of one model and one
 * instance per chunk, in the index's order (instance i is chunk i at its
 * first cell). Fails, naming the file (and the index's line), on an index
 * that is not one (VXR_ERROR_FORMAT), a chunk file missing or unreadable
 * (VXR_ERROR_IO), or one that does not hold what the index says: one model
 * of its voxel count within the chunk, one instance at the chunk's cell,
 * the first chunk's palette (VXR_ERROR_FORMAT). */
VXR_API vxr_result vxr_world_load(const char *path, vxr_scene **dest, vxr_error *err);

#ifdef __cplusplus
}
#endif

#endif
