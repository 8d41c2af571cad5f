/* What the two halves of the instance hierarchy (core/bvh.c builds,
 * core/bvh_update.c changes it in place) share. */
#ifndef VXR_CORE_BVH_H
#define VXR_CORE_BVH_H

#include "internal.h"
#include "vxr/bvh.h"

/* Boxes grow by this fraction of (1 + |min| + |max|) per axis: float
 * rounding in the instance transform can never cut a grazing hit. */
#define BOX_PAD 1e-4f
/* sqrt(3), rounded up: a grid cube's reach past its voxels under any rotation. */
#define SQRT3_UP 1.7321f

/* leaf_of[] states besides a leaf: not an item (hidden, culled, empty
 * model, removed), or a visible duplicate collapsed onto a lower index
 * (dup_item[] says which, next_dup[] chains them ascending from the item);
 * an item's entry has SHARED set when duplicates collapsed onto it. */
#define NOT_HELD  UINT32_MAX
#define DUPLICATE (UINT32_MAX - 1)
#define SHARED    0x80000000u
#define LEAF_MASK 0x7fffffffu
#define NONE      UINT32_MAX
/* Items beyond this make node indices reach SHARED. */
#define MAX_ITEMS (1u << 29)
/* Updates split a leaf that would hold more items than this. */
#define LEAF_MAX 4u

/* Surface area of a box. */
static inline double area(const float lo[3], const float hi[3]) {
    double d[3];
    for (int k = 0; k < 3; k++) d[k] = (double)hi[k] - (double)lo[k];
    return 2.0 * (d[0] * d[1] + d[1] * d[2] + d[2] * d[0]);
}

/* A node's share of the hierarchy's cost: its area, times its items for a
 * leaf. */
static inline double weight(const vxr_gpu_bvh_node *nd) {
    return area(nd->lo, nd->hi) * (nd->count ? (double)nd->count : 1.0);
}

#endif
