/* The instances' motion table (VXR_BIND_MOTION): for each instance the map
 * from a world point now to where it was one update earlier, which light
 * frames' motion vectors apply before the previous camera's projection.
 * An update that moves an instance writes its map; the next update resets
 * the maps of instances it did not move again to the identity. */
#include <stdlib.h>
#include <string.h>
#include "update.h"

static const float identity[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};

/* a o b for 3x4 affines by rows: b first. */
static void compose(const float a[12], const float b[12], float dest[12]) {
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++) {
            float v = a[4 * r] * b[c] + a[4 * r + 1] * b[4 + c] + a[4 * r + 2] * b[8 + c];
            dest[4 * r + c] = c == 3 ? v + a[4 * r + 3] : v;
        }
}

void vxr_motion_identity(float *dest, uint32_t count) {
    for (uint32_t i = 0; i < count; i++) memcpy(dest + 12 * (size_t)i, identity, sizeof identity);
}

vxr_result vxr_motion_update(update *u, const uint32_t *ids, const vxr_gpu_instance *now,
                             uint32_t m) {
    vxr_renderer *r = u->r;
    vxr_result res = VXR_OK;
    uint32_t *moved = malloc(((size_t)m + 1) * sizeof *moved), n = 0;
    if (!moved) return vxr_ctx_fail(r->ctx, u->err, VXR_ERROR_MEMORY, "out of memory");
    /* ids ascend: a merge tells the instances moved before but not now */
    for (uint32_t a = 0, j = 0; a < r->moving_count && res == VXR_OK; a++) {
        while (j < m && ids[j] < r->moving[a]) j++;
        if (j < m && ids[j] == r->moving[a]) continue;
        res = vxr_upload_table(u, VXR_BIND_MOTION, 48 * (uint64_t)r->moving[a], identity, 48);
    }
    for (uint32_t j = 0; j < m && res == VXR_OK; j++) {
        float map[12];
        const vxr_gpu_instance *was = &r->inst_rec[ids[j]];
        bool moved_now =
            ids[j] < r->instance_count && memcmp(was->local_to_world, now[j].local_to_world, 48);
        if (moved_now)
            compose(was->local_to_world, now[j].world_to_local, map);
        else
            memcpy(map, identity, sizeof map);
        if (memcmp(map, identity, sizeof map)) moved[n++] = ids[j];
        res = vxr_upload_table(u, VXR_BIND_MOTION, 48 * (uint64_t)ids[j], map, 48);
    }
    if (res != VXR_OK) {
        free(moved);
        return res;
    }
    free(r->moving);
    r->moving = moved;
    r->moving_count = n;
    return VXR_OK;
}

vxr_result vxr_motion_table(update *u, uint32_t cap) {
    u->r->moving_count = 0; /* the update writes every instance's map */
    return vxr_new_table(u, VXR_BIND_MOTION, (uint64_t)cap * 48);
}
