/* The picker object (vxr/pick.h): shared by the picks (core/pick.c) and
 * its making and updating (core/picker.c). */
#ifndef VXR_CORE_PICKER_H
#define VXR_CORE_PICKER_H

#include "internal.h"
#include "vxr/bvh.h"
#include "vxr/pick.h"

struct vxr_picker {
    const vxr_scene *scene;
    vxr_gpu_instance *records; /* per scene instance */
    vxr_bvh bvh;
    /* the seed's loop: every visible instance (duplicates too), and per
     * scene instance its bounding sphere (centre xyz, radius) and the
     * hierarchy's box of it (lo xyz, hi xyz) */
    uint32_t *visible;
    uint32_t n_visible;
    float *sphere, *box;
    float min_scale;    /* the least scale of any record ever made, only lowered (reach_pad) */
    uint32_t threads;   /* of vxr_pick_rays; 0: every online CPU */
    uint32_t capacity;  /* instances the arrays hold */
    uint32_t instances; /* the scene's instance count at the last update */
    uint64_t cursor;    /* the scene's journal (vxr/journal.h), read up to here */
};

/* The full pick of a record (vxr_pick_expand's part after its checks): g
 * the record's instance as traced, R its rotation (core/pick_record.c). */
void vxr_pick_expand_record(const vxr_gpu_instance *g, const float R[9], const vxr_ray *ray,
                            const vxr_gpu_pick *rec, vxr_pick *out);

/* vxr_pick_ray at voxels, voxel skip_lo of instance skip_i excepted
 * (UINT32_MAX: none), and with through_glass every glass voxel; *attr the
 * hit voxel's attribute (palette index, or RGBA8), 0 on a miss. The rays
 * of core/light.c. */
vxr_result vxr_pick_skip(const vxr_picker *p, const vxr_ray *ray, uint32_t skip_i,
                         const int32_t skip_lo[3], bool through_glass, vxr_pick *dest,
                         uint32_t *attr);

#endif
