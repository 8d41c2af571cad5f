/* CubeWorld .cub: little-endian int32 width, depth, height (x, y, z
 * sizes), then width * depth * height RGB triples, x fastest, then y, then
 * z; black (0, 0, 0) is empty. CubeWorld is Z-up with x the other way from
 * vxr's: its cell (x, y, z) is vxr's (-x-1, y, z), as vengi's rgb.cub and
 * rgb.vox (the same model, tests/data) hold the same voxels under it,
 * positions included. One model, one instance. */
#include <math.h>
#include "internal.h"

enum { HEADER = 12 };

vxr_result vxr_load_cub(const uint8_t *data, size_t size, vxr_scene_src *dest, vxr_error *err) {
    vxr_scene_src_init(dest, 1);
    if (size < HEADER)
        return vxr_fail(err, VXR_ERROR_FORMAT, "truncated: the 12-byte header needs %zu more bytes",
                        HEADER - size);
    uint32_t n[3];
    for (int k = 0; k < 3; k++) n[k] = vxr_get32(data + 4 * k);
    for (int k = 0; k < 3; k++)
        if (n[k] > (1u << 20))
            return vxr_fail(err, VXR_ERROR_FORMAT,
                            "byte %d: size %u is beyond the coordinate range of 2^20", 4 * k, n[k]);
    const uint64_t cells = (uint64_t)n[0] * n[1] * n[2];
    if (cells > (size - HEADER) / 3 || HEADER + 3 * cells != size)
        return vxr_fail(err, VXR_ERROR_FORMAT,
                        "%u x %u x %u cells need %llu bytes after the header, the file has %zu",
                        n[0], n[1], n[2], (unsigned long long)(3 * cells), size - HEADER);
    vxr_color_map *map = calloc(1, sizeof *map);
    uint32_t model;
    vxr_result r = map ? vxr_scene_src_add_model(dest, &model) : VXR_ERROR_MEMORY;
    const uint8_t *p = data + HEADER;
    for (uint64_t i = 0; r == VXR_OK && i < cells; i++, p += 3) {
        if (!(p[0] | p[1] | p[2])) continue;
        const uint32_t color = vxr_color_attr(map, dest, vxr_rgba(p[0], p[1], p[2], 255));
        const uint64_t x = i % n[0], y = i / n[0] % n[1], z = i / ((uint64_t)n[0] * n[1]);
        /* (-x-1, y, z), moved by the width to keep the model's cells >= 0 */
        r = vxr_model_src_push(&dest->models[0], (int32_t)(n[0] - 1 - x), (int32_t)y, (int32_t)z,
                               color);
    }
    if (map && r == VXR_OK) dest->attr_size = map->rgba ? 4 : 1;
    free(map);
    vxr_instance in = {0, 0, vxr_transform_identity(), INFINITY};
    in.transform.translation[0] = -(float)n[0];
    if (r == VXR_OK) r = vxr_scene_src_add_instance(dest, &in);
    if (r != VXR_OK) {
        vxr_scene_src_free(dest);
        return vxr_fail(err, r, "out of memory");
    }
    return VXR_OK;
}
