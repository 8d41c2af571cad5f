/* The .vox writer's shared parts (core/vox_save.c, core/vox_graph.c):
 * the output buffer, placements, written models and the saver's state. */
#ifndef VXR_VOX_WRITE_H
#define VXR_VOX_WRITE_H

#include <string.h>
#include "internal.h"

enum {
    BLOCK = 256,               /* the largest .vox model side */
    MAX_SHAPES = 1 << 24,      /* the reader's instance limit */
    MAX_TRANSLATION = 1 << 24, /* the reader's translation limit */
    IDENTITY_ROTATION = 4      /* the rotation byte of the identity */
};

/* ---- output buffer: appends, with a sticky failure ---- */

typedef vxr_bytes out;

static inline void put_i32(out *o, int32_t v) {
    vxr_bytes_put32(o, (uint32_t)v);
}

static inline void put_str(out *o, const char *s) {
    put_i32(o, (int32_t)strlen(s));
    vxr_bytes_put(o, s, strlen(s));
}

/* A DICT of `pairs` key, value strings. */
static inline void put_dict(out *o, const char *const *kv, int pairs) {
    put_i32(o, pairs);
    for (int i = 0; i < 2 * pairs; i++) put_str(o, kv[i]);
}

/* A chunk header with no children; chunk_end fills in the content size. */
static inline size_t chunk_begin(out *o, const char *id) {
    size_t at = o->n;
    vxr_bytes_put(o, id, 4);
    put_i32(o, 0);
    put_i32(o, 0);
    return at;
}

static inline void chunk_end(out *o, size_t at) {
    if (!o->failed) vxr_put32(o->p + at + 4, (uint32_t)(o->n - at - 12));
}

/* The rotation byte of a signed axis permutation (core/vox_parse.h
 * decode_rotation, backwards). */
static inline uint32_t encode_rotation(const int32_t R[9]) {
    uint32_t column[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            if (R[3 * i + k]) column[i] = (uint32_t)k;
    return column[0] | column[1] << 2 | (uint32_t)(R[column[0]] < 0) << 4 |
           (uint32_t)(R[3 + column[1]] < 0) << 5 | (uint32_t)(R[6 + column[2]] < 0) << 6;
}

/* An instance as .vox holds it: a signed axis permutation, its rotation
 * byte, and a whole-cell translation. */
typedef struct placement {
    int32_t R[9];
    int64_t t[3];
    uint32_t rot;
} placement;

/* One written .vox model: a model's voxels v with v - shift in 0..size-1. */
typedef struct piece {
    int32_t shift[3], size[3];
} piece;

typedef struct saver {
    const vxr_scene *scene;
    vxr_error *err;
    out o;
    struct colours *rgba; /* NULL for a paletted scene */
    piece *pieces;
    uint32_t n_pieces, cap_pieces;
    uint32_t *first, *count; /* per scene model: its pieces; count 0: not written */
    int32_t (*file_size)[3]; /* the file's models' SIZE (scene->vox_chunks); owned */
    uint32_t file_models;
} saver;

/* The chunk at *at of MAIN's children kept in `blob` (scene->vox_chunks):
 * its id and content; false at the end or at a malformed chunk. */
static inline bool vxr_vox_next_chunk(const uint8_t *blob, size_t size, size_t *at,
                                      const uint8_t **id, const uint8_t **content, size_t *n) {
    if (*at > size || size - *at < 12) return false;
    const size_t c = vxr_get32(blob + *at + 4), k = vxr_get32(blob + *at + 8);
    if (c > size - *at - 12 || k > size - *at - 12 - c) return false;
    *id = blob + *at;
    *content = blob + *at + 12;
    *n = c;
    *at += 12 + c + k;
    return true;
}

/* An instance's placement; VXR_ERROR_LIMIT for one .vox cannot hold (a
 * scale other than 1, a rotation other than an axis permutation,
 * translations not in whole cells within +-2^24). */
vxr_result vxr_vox_get_placement(const vxr_instance *in, uint32_t index, placement *p,
                                 vxr_error *err);
/* The file's scene graph written back, patched (core/vox_graph.c): *kept
 * false when the scene no longer fits it, and nothing was written; then
 * the saver writes a graph of its own. */
vxr_result vxr_vox_write_kept_graph(saver *s, bool *kept);
/* An nTRN of one key frame (rotation byte rot, translation t; NULL: none)
 * and an nGRP, without attributes but _hidden (core/vox_nodes.c). */
void vxr_vox_put_trn(out *o, int32_t id, int32_t child, int32_t layer, bool hidden, uint32_t rot,
                     const int64_t t[3]);
void vxr_vox_put_grp(out *o, int32_t id, const int32_t *children, uint32_t n);
/* Instance i's nodes, ids id on (core/vox_nodes.c); `layer` its layer. */
vxr_result vxr_vox_write_instance(saver *s, uint32_t i, int32_t id, int32_t layer);
/* Node ids instance subtrees of `model` take. */
int32_t vxr_vox_subtree_nodes(const saver *s, uint32_t model);
/* Whether the instance is written (not removed). */
static inline bool vxr_vox_saved(const vxr_instance *in) {
    return !(in->flags & VXR_INSTANCE_REMOVED);
}

#endif
