/* The live form's bookkeeping (core/live.c), shared with the files that
 * read a live tree (core/compact.c) and free one (core/octree.c). */
#ifndef VXR_CORE_LIVE_H
#define VXR_CORE_LIVE_H

#include <stdlib.h>
#include "internal.h"
#include "vxr/edit.h"

enum {
    NODE_CLASSES = 4,   /* blocks of 1, 2, 4, 8 nodes */
    ATTR_CLASSES = 7,   /* blocks of 1 .. 64 attributes */
    MIN_LIVE_DEPTH = 3, /* a root with bricks below: growth never splits a brick */
    FIRST_SLOTS = 64,
    SPAN_LIMIT = 1 << 16, /* changed spans a kind lists between takes (core/live.c) */
    RECENT_SPANS = 8,     /* the spans a new one is checked against */
};

typedef struct stack {
    uint32_t *v;
    uint32_t n, cap;
} stack;

struct vxr_live {
    uint32_t node_cap, attr_cap; /* allocated entries of nodes/brick_attr, attrs */
    uint32_t attr_top;           /* attributes in use or on free lists */
    stack free_nodes[NODE_CLASSES], free_attrs[ATTR_CLASSES];
    uint32_t free_slots, free_attrs_n; /* what the free lists hold */
    vxr_span *spans[2];                /* changed nodes, changed attributes */
    uint32_t n_spans[2], cap_spans[2];
    bool all_changed; /* since the changes were last taken: everything */
    /* the last path core/live.c noted as changed (note_path), by level:
     * a later voxel whose path meets it at some level has its ancestors
     * from there noted already; void after nodes move (path_valid) */
    uint32_t path_seen[VXR_LEVELS];
    bool path_valid;
    bool bounds_loose; /* vmin/vmax may be wider than the voxels */
    bool failed;       /* an allocation failed: the tree is unusable */
};

static inline void vxr_live_free(struct vxr_live *l) {
    if (!l) return;
    for (int c = 0; c < NODE_CLASSES; c++) free(l->free_nodes[c].v);
    for (int c = 0; c < ATTR_CLASSES; c++) free(l->free_attrs[c].v);
    free(l->spans[0]);
    free(l->spans[1]);
    free(l);
}

static inline uint32_t vxr_live_attr_top(const struct vxr_live *l) {
    return l->attr_top;
}

/* Sorts and merges a kind's changed spans (those that touch join). */
void vxr_live_merge(struct vxr_live *l, int kind);

static inline uint64_t brick_bits(const vxr_node *n) {
    return (uint64_t)n->b << 32 | n->a;
}

static inline void child_lo(int32_t lo[3], uint32_t o, uint32_t level) {
    for (int k = 0; k < 3; k++)
        if (o >> (2 - k) & 1) lo[k] += 1 << (level - 1);
}

#endif
