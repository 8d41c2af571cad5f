/* The figures `vxr info` reports (DESIGN.md §5). */
#include <math.h>
#include <string.h>
#include "vxr/blob.h"

void vxr_scene_get_stats(const vxr_scene *s, vxr_scene_stats *d) {
    memset(d, 0, sizeof *d);
    d->models = s->model_count;
    for (uint32_t i = 0; i < s->model_count; i++) {
        d->nodes += s->models[i].node_count;
        d->bricks += s->models[i].brick_count;
        d->model_voxels += s->models[i].voxel_count;
    }
    int any = 0;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const vxr_instance *in = &s->instances[i];
        if (in->flags & VXR_INSTANCE_HIDDEN) continue;
        d->instances++;
        const vxr_octree *m = &s->models[in->model];
        if (m->voxel_count == 0) continue;
        d->instanced_voxels += m->voxel_count;
        float lo[3], hi[3];
        vxr_instance_world_bounds(s, i, lo, hi);
        for (int k = 0; k < 3; k++) {
            int64_t a = (int64_t)floorf(lo[k]), b = (int64_t)ceilf(hi[k]);
            if (!any || a < d->aabb_min[k]) d->aabb_min[k] = a;
            if (!any || b > d->aabb_max[k]) d->aabb_max[k] = b;
        }
        any = 1;
    }
    d->bytes = vxr_scene_blob_size(s);
}
