/* vxr worlds: a scene cut into a grid of chunks stored on disk (issue 31).
 *
 * A world is a directory: WORLD/world.vxw, the index, and WORLD/chunks/,
 * one file per chunk that holds voxels. A directory, not one file, so that
 * writing a chunk back is one atomic rename of its own file (vxr_write_file)
 * and a crash never loses a saved chunk nor needs a compaction; the index
 * is replaced the same way, last.
 *
 * world.vxw is text, one item a line:
 *     vxr world 2              (1 in worlds whose chunk files are .vxo: read too)
 *     chunk N                  (the chunk's side in cells, a power of two, 16..4096)
 *     chunks K                 (how many lines follow)
 *     CX CY CZ VOXELS          (K lines: a chunk's grid coordinates and voxel count)
 * The voxel count is the chunk's when the index was last written: a guide
 * for budgets before the chunk is read. A crash between a chunk's
 * write-back and the index's leaves it stale, so readers do not hold the
 * chunk to it.
 * Chunk (CX, CY, CZ) covers the world cells [C*N, C*N + N) on each axis and
 * is stored in chunks/CX.CY.CZ.vxc: its coarse forms (vxr_octree_coarse,
 * with their node colours) ahead of a .vxo (vxr's octree file) of one
 * model, its voxels in chunk cells 0..N-1, under one instance translated
 * to the chunk's first cell, with the world's palette and materials; a
 * chunk far from the eye is read from its coarse form's bytes alone
 * (layout: core/world_chunk.c). Worlds written before the coarse forms
 * hold chunks/CX.CY.CZ.vxo, the .vxo alone: read as they are, and a chunk
 * written back becomes a .vxc. */
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

/* A generated world, name "@terrain:N" (N 1..65536), written as a world
 * of files as vxr_world_build writes the @terrain:N scene, byte for byte,
 * but made a chunk at a time: memory holds one chunk, never the terrain.
 * Fails as vxr_world_build, and VXR_ERROR_ARGUMENT for another name,
 * VXR_ERROR_LIMIT past VXR_WORLD_MAX_CHUNKS chunks. */
VXR_API vxr_result vxr_world_build_generated(const char *name, const char *dir, uint32_t chunk,
                                             uint32_t threads, vxr_world_stats *stats,
                                             vxr_error *err);

/* True when path names a world: a directory holding world.vxw, or a file
 * named world.vxw. */
VXR_API bool vxr_is_world(const char *path);

/* True when path names a generated world that is not also a scene:
 * "@terrain:N" with N past VXR_TERRAIN_SCENE_MAX, up to 65536 (smaller
 * terrains are scenes, and open as generated worlds too). */
#define VXR_TERRAIN_SCENE_MAX 8192
VXR_API bool vxr_is_generated_world(const char *path);

/* Opens a world with every chunk resident: a scene of one model and one
 * instance per chunk, in the index's order (instance i is chunk i at its
 * first cell). Fails, naming the file (and the index's line), on an index
 * that is not one (VXR_ERROR_FORMAT), a chunk file missing or unreadable
 * (VXR_ERROR_IO), or one that does not hold what the index says: one model
 * of at least one voxel within the chunk, one instance at the chunk's
 * cell, the world's palette (VXR_ERROR_FORMAT). */
VXR_API vxr_result vxr_world_load(const char *path, vxr_scene **dest, vxr_error *err);

/* ---- streaming ----
 *
 * A world opened for streaming keeps a scene of the chunks resident now:
 * a model and an instance per chunk, added and removed through the
 * scene's change API (vxr/edit.h), so that renderers and pickers follow
 * with their update calls (vxr_renderer_update, vxr_picker_update). A
 * chunk is wanted while the eye lies within the view distance of its
 * bounding sphere (a view-distance sphere tree over the chunks, vxr/
 * spheres.h). Loader threads read wanted chunks, nearest first;
 * vxr_world_update puts those they finished into the scene and never
 * waits for one. Over the budget, resident chunks no longer wanted leave,
 * farthest first; a chunk whose model was changed is written back first
 * (vxr_world_save), and stays while that fails.
 *
 * Edits go to the resident chunks' models through the scene's change API
 * (an editor, vxr/edit.h). A voxel placed past its chunk's side belongs
 * to the chunk that owns its cell: vxr_world_save moves it there. */
typedef struct vxr_world vxr_world;

typedef struct vxr_world_desc {
    const char *path;      /* the world: its directory or its world.vxw; or a generated world,
                              "@terrain:N" (N 1..65536: @terrain:N's voxels, made a chunk at a
                              time by the loaders, nothing on disk) */
    float view_distance;   /* world units, finite; 0: four chunk sides */
    uint64_t budget_bytes; /* the resident chunks' bytes at most, as vxr_octree_gpu_bytes
                              counts them (their octrees as a renderer holds them, at least
                              what they take in memory), 0: no limit. Chunks not wanted are
                              evicted past it, and reading stops once the resident chunks and
                              those asked for reach it (a guess from their voxel counts until
                              read): the last one asked for may pass it. Wanted chunks are
                              never evicted */
    uint32_t threads;      /* loader threads (0: 1) */
    uint32_t chunk;        /* a generated world's chunk side (0: VXR_WORLD_CHUNK_DEFAULT) */
} vxr_world_desc;

typedef struct vxr_world_status {
    uint32_t chunks;          /* in the world */
    float view_distance;      /* the one in use */
    uint32_t wanted;          /* within view distance of the eye */
    uint32_t resident;        /* in the scene */
    uint32_t missing;         /* wanted and not resident: the view is complete at 0 */
    uint32_t loading;         /* asked for, being read, or read and not yet taken in */
    uint64_t loaded, evicted; /* since the world was opened */
    uint64_t resident_bytes;  /* the resident chunks' vxr_octree_gpu_bytes: the budget's */
    uint32_t unsaved;         /* resident chunks changed since read or written back */
    uint64_t made_voxels;     /* voxels of the chunks the loaders read or generated */
    double made_seconds;      /* the loaders' time on them, summed over the threads */
    uint64_t file_bytes;      /* the resident chunks' files, as read or last written back (a
                                 generated chunk: its octree's arrays) */
    uint32_t coarse;          /* resident chunks held as a coarse form (vxr_world_set_lod) */
} vxr_world_status;

/* The view distance in use (desc's, or its default). */
VXR_API float vxr_world_view_distance(const vxr_world *world);
/* Whether the world is generated (its edits cannot be written back). */
VXR_API bool vxr_world_generated(const vxr_world *world);
/* Opens a world for streaming, nothing resident yet. Fails as
 * vxr_world_load on its index and palette, VXR_ERROR_ARGUMENT for a view
 * distance that is negative or not finite, VXR_ERROR_MEMORY. */
VXR_API vxr_result vxr_world_open(const vxr_world_desc *desc, vxr_world **dest, vxr_error *err);
/* The scene of the resident chunks, owned by the world; changed only by
 * vxr_world_update (on the caller's thread). */
VXR_API vxr_scene *vxr_world_scene(vxr_world *world);
/* Hands the scene of the resident chunks to the caller (who destroys it):
 * the world keeps no scene, and is to be closed next. */
VXR_API vxr_scene *vxr_world_detach_scene(vxr_world *world);
/* Changes the budget (vxr_world_desc.budget_bytes) from the next update
 * on: a host that sets it from the memory its renderer has left. On the
 * thread that calls vxr_world_update. */
VXR_API void vxr_world_set_budget(vxr_world *world, uint64_t budget_bytes);
/* Levels of detail for residency: k and fixed as a frame's vxr_lod
 * (vxr/pick.h; vxr_camera_lod of its camera and bias), set before each
 * vxr_world_update on its thread; k 0 (the default) keeps every chunk
 * whole, as light frames need (they trace voxels: a coarse form would
 * show its coarse voxels). A chunk whose box is far enough from the eye that every ray
 * from it stops at the chunk's levels L + 2 and up (2^(L + 2) under 0.98
 * k d, d the distance from the eye to the chunk's box; 0.98 k when
 * fixed), for L of 1 to 3 and at most its octree's depth less 3, is
 * loaded as the coarse form of its octree at the highest such L
 * (vxr_octree_coarse; a model of its cubes of 2^L cells, under an
 * instance of scale 2^L at the chunk's first cell): a quarter of the
 * bytes or less a level for surfaces, and the same cubes and colours
 * for those rays (flat frames and picks equal the whole chunk's, as long
 * as no footprint in the view passes 2^(VXR_LOD_MAX_LEVEL + 1), where the
 * coarse form may stop higher). As the eye comes nearer, a finer form is
 * read and takes the coarse one's place in one update (meanwhile the
 * chunk is drawn coarse and counts as missing). As it goes away, a chunk
 * not edited is read again coarser, once the rule gives that level at 0.8
 * of its distance (so that a chunk at a bound does not go back and forth;
 * it is complete meanwhile), and a coarser form ready when the eye has come
 * back nearer is dropped. A coarse chunk is never written back: edit a chunk only once
 * vxr_world_refine made it whole (vxr_world_save refuses an edited
 * coarse one, keeping the edits). */
VXR_API void vxr_world_set_lod(vxr_world *world, float k, bool fixed);
/* When `model` is a chunk's held as a coarse form, reads the whole chunk
 * now (after waiting for the loaders' reads under way) and puts it in the
 * scene in place of the coarse one, with a new model index (*changed,
 * which may be NULL, says so; false for any other model, at once): a pick
 * about to edit, at full resolution, picks again after it (and again
 * while it meets another coarse chunk). Takes in the other chunks the
 * loaders finished too. Fails as a load does, changing nothing, and with
 * VXR_ERROR_ARGUMENT for a coarse model that was edited (the whole chunk
 * would drop the edits; a finer form never replaces an edited one). */
VXR_API vxr_result vxr_world_refine(vxr_world *world, uint32_t model, bool *changed,
                                    vxr_error *err);
/* Puts chunks the loaders finished into the scene (in the world's order,
 * until they reach a sixteenth of the budget's bytes, 1 to 16 MiB, and 16
 * MiB without a budget: a frame's uploads stay small; the rest wait for the
 * next update and count as loading; a chunk read that this update does
 * not want is dropped, and read again when wanted), evicts over the
 * budget and asks for the wanted chunks around eye that are not resident.
 * Never waits for a load.
 * st (may be NULL) says where residency stands. A chunk that failed to load is reported once, as
 * VXR_ERROR_IO or VXR_ERROR_FORMAT naming its file (the update is done all the same), and not asked
 * for again. */
VXR_API vxr_result vxr_world_update(vxr_world *world, const float eye[3], vxr_world_status *st,
                                    vxr_error *err);
/* Writes every resident chunk changed since it was read or last written
 * back (and the chunks its voxels past its side move to) into the world's
 * files, then the index: each file by one atomic rename, the chunk files
 * first, so that a crash at any point leaves every chunk the old one or
 * the new one and the world readable. A chunk left without voxels leaves
 * the index and its file is removed; a new one joins both. On the
 * caller's thread, as vxr_world_update; waits for loads under way. The
 * models then hold what was written (moved voxels included); *written
 * (may be NULL) counts the chunk files written or removed. Fails with
 * VXR_ERROR_IO naming the file, or VXR_ERROR_MEMORY; what was not written
 * stays changed, to be written by the next call. */
VXR_API vxr_result vxr_world_save(vxr_world *world, uint32_t *written, vxr_error *err);
/* Makes every chunk resident and whole (a coarse one not edited is read
 * whole), whatever the view distance and budget, and waits for them
 * (whole-world commands: edit). Fails as the loads do,
 * naming the first chunk file that failed. */
VXR_API vxr_result vxr_world_make_resident(vxr_world *world, vxr_error *err);
/* Makes resident and whole (as vxr_world_make_resident) every chunk
 * within the view distance of any of the n points eyes[3k..3k+2] (adding
 * to what is resident), whatever the budget,
 * and waits for them: the chunks a camera or a batch of rays' origins
 * see (render, pick). Fails as the loads do. */
VXR_API vxr_result vxr_world_load_around(vxr_world *world, const float *eyes, size_t n,
                                         vxr_error *err);
/* Blocks until no chunk is asked for or being read (tests, benchmarks:
 * call vxr_world_update after it to take them in). */
VXR_API void vxr_world_wait(vxr_world *world);
/* The world cells its chunks cover (min inclusive, max exclusive; all zero
 * for a world of no chunk) and the chunk side. */
VXR_API void vxr_world_bounds(const vxr_world *world, int64_t min[3], int64_t max[3],
                              uint32_t *side);
/* Stops the loaders and frees everything, the scene too, without writing
 * anything back (call vxr_world_save first to keep edits). NULL is a no-op. */
VXR_API void vxr_world_close(vxr_world *world);

#ifdef __cplusplus
}
#endif

#endif
