/* The state of a world opened for streaming (vxr/world.h), shared by its
 * residency (core/world_stream.c) and its write-back (core/world_save.c). */
#ifndef VXR_WORLD_STREAM_H
#define VXR_WORLD_STREAM_H

#include <pthread.h>
#include "internal.h"
#include "vxr/spheres.h"
#include "vxr/world.h"

enum { PATH_BYTES = 4096 };

enum chunk_state { ABSENT, QUEUED, LOADING, READY, RESIDENT, FAILED };

struct vxr_world {
    char dir[PATH_BYTES];
    uint32_t side, count, cap; /* chunks in the index (and emptied ones); the arrays' room */
    int32_t gen_n;             /* a generated world's @terrain:N (dir holds its name), else 0 */
    vxr_world_entry *e;
    float view_distance;
    uint64_t budget;
    vxr_scene *scene;
    vxr_scene *colours; /* the palette alone: what the loaders read */
    vxr_spheres *spheres;
    /* per chunk; state, ready and the queue are the loaders' too (lock) */
    uint8_t *state;
    uint32_t *model;   /* RESIDENT: its model in the scene */
    uint64_t *bytes;   /* READY, RESIDENT: the bytes read of its file, its coarse form's
                          alone when coarse (a generated one's arrays) */
    uint64_t *seen;    /* the last update that wanted it */
    uint64_t *version; /* RESIDENT: its model's version when read or last written back */
    uint64_t *gpu;     /* READY, RESIDENT: vxr_octree_gpu_bytes of its tree (O(nodes)), */
    uint64_t *gpu_at;  /* RESIDENT: as of this version of its model (vxr_world_chunk_gpu) */
    vxr_octree *ready; /* READY: loaded, not yet in the scene; RESIDENT, refine READY: the
                          finer tree to take its model's place */
    /* levels of detail (vxr_world_set_lod): a chunk far enough away is
     * kept as the coarse form of its octree (vxr_octree_coarse) */
    uint8_t *level;     /* RESIDENT: its model's level, 0 when whole */
    uint8_t *ask;       /* the level asked of a loader; READY (or refine READY): the ready tree's */
    uint8_t *refine;    /* RESIDENT: a finer tree's state: ABSENT (none asked for), QUEUED,
                           LOADING, READY or FAILED */
    uint64_t *fine_gpu; /* RESIDENT, refine READY: vxr_octree_gpu_bytes of the finer tree */
    uint64_t *fine_bytes; /* and its bytes read */
    uint32_t *epoch;      /* evictions: a finer read begun before one is dropped */
    uint8_t *want_level;  /* the level the last update that wanted it wanted */
    float lod_k;          /* vxr_world_set_lod's footprint */
    bool lod_fixed;
    uint64_t updates;
    uint64_t resident_bytes; /* the resident models' vxr_octree_gpu_bytes (the budget's),
                                counted afresh by each update; evictions take theirs off */
    uint64_t file_bytes;     /* the resident chunks' bytes[] */
    uint64_t loaded, evicted;
    uint64_t made_bytes;  /* vxr_octree_gpu_bytes of the whole chunks the loaders made */
    uint64_t made_whole;  /* and their voxels */
    uint64_t made_voxels; /* the loaders': voxels of the chunks read or generated */
    double made_seconds;  /* and the time they took, summed over the loaders */
    uint32_t resident;
    /* the loaders */
    pthread_t *threads;
    uint32_t n_threads, started;
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    bool synced;     /* lock, wake and done made */
    uint32_t *queue; /* chunk indices, nearest first */
    uint32_t q_next, q_count;
    uint32_t busy;
    bool stop;
    vxr_error failure; /* the first load that failed, not yet reported */
    vxr_result failure_code;
    bool failed;
};

/* Whether chunk i is resident with a model changed since it was read or
 * last written back. */
bool vxr_world_chunk_edited(const vxr_world *w, uint32_t i);
/* Takes the chunks the loaders finished into the scene, in the world's
 * order, until they add `limit` bytes (vxr_octree_gpu_bytes; at least one
 * chunk is taken). Under the lock. */
/* vxr_octree_gpu_bytes of chunk i's tree (READY or RESIDENT), counted
 * again only when an edit changed it. */
uint64_t vxr_world_chunk_gpu(vxr_world *w, uint32_t i);
vxr_result vxr_world_take_ready(vxr_world *w, uint64_t limit, vxr_error *err);
/* Forgets the chunks asked for and not yet taken by a loader (under the
 * lock). */
void vxr_world_drop_queue(vxr_world *w);
/* r, or when it is VXR_OK and a load failed since last said, that failure
 * (said once; the chunk is not asked for again). Under the lock. */
vxr_result vxr_world_take_failure(vxr_world *w, vxr_result r, vxr_error *err);
/* Empties the loaders' queue and waits until none is reading: the entries
 * may then grow (under the lock; the loaders stay idle until asked). */
void vxr_world_quiesce(vxr_world *w);
/* Takes chunk i out of the scene (RESIDENT; under the lock), with a finer
 * tree asked for or ready. */
void vxr_world_evict(vxr_world *w, uint32_t i);
/* Reads or generates chunk i (a loader's work, on any thread, without the
 * lock): *tree whole, or its coarse form of level *level when `level` asks
 * for one and the tree is deep enough (vxr_world_set_lod), with its
 * level-of-detail colours and wide form; *bytes the bytes read of its
 * file (a generated one's arrays), *whole the voxels of the whole chunk. */
vxr_result vxr_world_make_chunk(const vxr_world *w, uint32_t i, uint32_t *level, vxr_octree *tree,
                                uint64_t *bytes, uint32_t *whole, vxr_error *err);
/* Grows the per-chunk arrays to hold `count` chunks (loaders quiesced). */
vxr_result vxr_world_grow(vxr_world *w, uint32_t count, vxr_error *err);
/* Puts chunks from..to-1 into the sphere tree. */
vxr_result vxr_world_add_spheres(vxr_world *w, uint32_t from, uint32_t to, vxr_error *err);

#endif
