/* binvox (Patrick Min's voxelizer, "binvox file format" on its site): a
 * text header, "#binvox 1", then lines "dim D H W", "translate X Y Z" and
 * "scale S" (the mesh-space placement, not kept: cells are read at their
 * indices), then "data" and byte pairs (value, count) run-length coding
 * the D x W x H cells with index x*W*H + z*W + y (y fastest, then z, then
 * x); a value other than 0 is solid. No colours: solid cells take palette
 * entry 1, grey (180).
 *
 * Axes: binvox is right-handed and Y-up (its viewer's), so its cell
 * (x, y, z) is vxr's (x, -z-1, y): a turn about x, as DESIGN.md §4 says. */
#include <math.h>
#include <string.h>
#include "internal.h"

enum { MAX_LINE = 256 };

/* The next header line at *at (without its newline) into line; false at
 * the end of the bytes or on an overlong line. */
static bool header_line(const uint8_t *data, size_t size, size_t *at, char line[MAX_LINE]) {
    size_t n = 0;
    while (*at < size && data[*at] != '\n') {
        if (n + 1 == MAX_LINE || data[*at] == 0) return false;
        line[n++] = (char)data[(*at)++];
    }
    if (*at == size) return false;
    (*at)++;
    if (n && line[n - 1] == '\r') n--;
    line[n] = 0;
    return true;
}

/* "dim D H W": three counts of 1..2^20. */
static bool parse_dim(const char *s, uint32_t dim[3]) {
    for (int k = 0; k < 3; k++) {
        while (*s == ' ' || *s == '\t') s++;
        if (*s < '0' || *s > '9') return false;
        uint64_t v = 0;
        while (*s >= '0' && *s <= '9' && v <= (1u << 20)) v = v * 10 + (uint64_t)(*s++ - '0');
        if (v == 0 || v > (1u << 20) || (*s >= '0' && *s <= '9')) return false;
        dim[k] = (uint32_t)v;
    }
    while (*s == ' ' || *s == '\t') s++;
    return *s == 0;
}

vxr_result vxr_load_binvox(const uint8_t *data, size_t size, vxr_scene_src *dest, vxr_error *err) {
    vxr_scene_src_init(dest, 1);
    size_t at = 0, line_at = 0;
    char line[MAX_LINE];
    if (!header_line(data, size, &at, line) || strncmp(line, "#binvox", 7) != 0)
        return vxr_fail(err, VXR_ERROR_FORMAT, "byte 0: not a binvox file (no \"#binvox\" line)");
    uint32_t dim[3] = {0, 0, 0};
    for (;;) {
        line_at = at;
        if (!header_line(data, size, &at, line))
            return vxr_fail(err, VXR_ERROR_FORMAT,
                            "byte %zu: the header ends without a \"data\" line (or a line is "
                            "over %d bytes)",
                            line_at, MAX_LINE - 1);
        if (!strcmp(line, "data")) break;
        if (!strncmp(line, "dim", 3)) {
            if (!parse_dim(line + 3, dim))
                return vxr_fail(err, VXR_ERROR_FORMAT,
                                "byte %zu: \"%s\" is not \"dim D H W\" with sizes 1 to 2^20",
                                line_at, line);
        } else if (strncmp(line, "translate", 9) != 0 && strncmp(line, "scale", 5) != 0) {
            return vxr_fail(err, VXR_ERROR_FORMAT, "byte %zu: unknown header line \"%.40s\"",
                            line_at, line);
        }
    }
    if (!dim[0])
        return vxr_fail(err, VXR_ERROR_FORMAT, "byte %zu: \"data\" before any \"dim\" line",
                        line_at);
    /* d, h, w: x counts d, z counts h, y (fastest) counts w */
    const uint64_t w = dim[2], h = dim[1], cells = (uint64_t)dim[0] * dim[1] * dim[2];
    uint32_t model;
    vxr_result r = vxr_scene_src_add_model(dest, &model);
    if (r != VXR_OK) return vxr_fail(err, r, "out of memory");
    vxr_model_src *m = &dest->models[0];
    dest->palette[1] = vxr_rgba(180, 180, 180, 255);
    uint64_t index = 0, solid = 0;
    while (index < cells) {
        if (size - at < 2) {
            vxr_scene_src_free(dest);
            return vxr_fail(err, VXR_ERROR_FORMAT,
                            "truncated: byte %zu: the runs end at cell %llu of %llu", at,
                            (unsigned long long)index, (unsigned long long)cells);
        }
        const uint8_t value = data[at], count = data[at + 1];
        if (count > cells - index) {
            vxr_scene_src_free(dest);
            return vxr_fail(err, VXR_ERROR_FORMAT,
                            "byte %zu: a run of %u cells passes the last of %llu", at, count,
                            (unsigned long long)cells);
        }
        at += 2;
        if (value && count) {
            if (solid + count > VXR_RLE_VOXEL_LIMIT) {
                vxr_scene_src_free(dest);
                return vxr_fail(err, VXR_ERROR_LIMIT, "byte %zu: more than %llu solid voxels",
                                at - 2, (unsigned long long)VXR_RLE_VOXEL_LIMIT);
            }
            solid += count;
            for (uint64_t i = index; i < index + count; i++) {
                const uint64_t x = i / (w * h), z = i / w % h, y = i % w;
                /* (x, -z-1, y), shifted by h to keep the model's cells >= 0 */
                r = vxr_model_src_push(m, (int32_t)x, (int32_t)(h - 1 - z), (int32_t)y, 1);
                if (r != VXR_OK) {
                    vxr_scene_src_free(dest);
                    return vxr_fail(err, r, "out of memory");
                }
            }
        }
        index += count;
    }
    if (at != size) {
        vxr_scene_src_free(dest);
        return vxr_fail(err, VXR_ERROR_FORMAT, "byte %zu: %zu bytes after the last cell's run", at,
                        size - at);
    }
    vxr_instance in = {model, 0, vxr_transform_identity(), INFINITY};
    in.transform.translation[1] = -(float)h;
    r = vxr_scene_src_add_instance(dest, &in);
    if (r != VXR_OK) {
        vxr_scene_src_free(dest);
        return vxr_fail(err, r, "out of memory");
    }
    return VXR_OK;
}
