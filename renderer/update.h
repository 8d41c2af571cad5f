/* Private to the update of a renderer (renderer/update.c) and the copies
 * it records (renderer/staging.c). */
#ifndef VXR_RENDERER_UPDATE_H
#define VXR_RENDERER_UPDATE_H

#include "internal.h"

typedef struct update {
    vxr_renderer *r;
    const vxr_scene *s;
    followed *f; /* the renderer's (r->follow) */
    VkCommandBuffer cmd;
    uint64_t serial;
    vxr_update_info *info;
    vxr_error *err;
    VkBuffer src, dst; /* the batch of regions being gathered */
    VkBufferCopy regions[64];
    uint32_t n_regions;
} update;

/* A model this update rewrites. */
typedef struct todo {
    uint32_t model;
    bool all;     /* upload everything (new layout, compact or new model) */
    bool removed; /* the model was removed: its ranges go */
} todo;

/* renderer/staging.c */
/* Keeps what until the work of serial what->serial completed. */
vxr_result vxr_retire(vxr_renderer *r, const vxr_retired *what, vxr_error *err);
/* Records the copies gathered so far. */
void vxr_update_flush(update *u);
/* Records an upload of model m's elements [from, from + count) of section
 * k to elements at .. at + count, through the staging ring. */
/* A live model's node colours: with its changed node spans (sorted,
 * merged; a changed voxel's path among them, core/live.c), those nodes
 * recomputed from the copy kept (vxr_lod_colors_update) and uploaded;
 * with sp NULL (or no copy yet), all of them. */
vxr_result vxr_upload_colors(update *u, uint32_t i, const vxr_octree *m, const model_span *sp,
                             uint32_t n_sp);
vxr_result vxr_upload_section(update *u, int k, uint64_t at, uint64_t count, const vxr_octree *m,
                              uint64_t from);
/* Records an upload of bytes from data into binding b at byte `at`. */
vxr_result vxr_upload_table(update *u, uint32_t b, uint64_t at, const void *data, uint64_t bytes);
/* Records a GPU copy of count elements of section k from `from` in the
 * chunk buffers old[] to `to` in the current ones. */
void vxr_move_section(update *u, int k, const vxr_buf *old, uint64_t from, uint64_t to,
                      uint64_t count);
/* Lays section k out afresh in new buffers (want[i]: model i's range). */
vxr_result vxr_relayout(update *u, int k, const uint64_t *want, vxr_error *err);
/* Records a memory barrier (after the copies gathered so far). */
void vxr_update_barrier(update *u, VkPipelineStageFlags src_stage, VkAccessFlags src,
                        VkPipelineStageFlags dst_stage, VkAccessFlags dst);
/* Replaces binding b's buffer by one of `bytes` (the old one retired). */
vxr_result vxr_new_table(update *u, uint32_t b, uint64_t bytes);

/* renderer/motion.c */
/* A new motion table for cap instances, when the instance tables grow:
 * the update then writes every instance's map. */
vxr_result vxr_motion_table(update *u, uint32_t cap);
/* The motion maps of the instances ids[0 .. m) (ascending) whose records
 * become now[], from their records before (r->inst_rec), and identity
 * again for those moved in the last update but not in this one. */
vxr_result vxr_motion_update(update *u, const uint32_t *ids, const vxr_gpu_instance *now,
                             uint32_t m);

#endif
