/* Litematica .litematic (the Litematica mod's schematic format, as its
 * source and the Minecraft wiki describe it): gzip-compressed NBT whose
 * "Regions" compound holds regions of a "Position" and a "Size" (x, y, z
 * ints; a negative size extends the region the other way from its
 * position), a "BlockStatePalette" (a list of compounds with a block
 * "Name") and "BlockStates", a long array of palette indices of
 * max(2, ceil(log2(palette size))) bits each, packed tightly (an index may
 * straddle two longs), cell x + z * size.x + y * size.x * size.z.
 *
 * Minecraft is Y-up and right-handed: a cell (x, y, z) is vxr's
 * (x, -z-1, y), the turn about x from Y-up to Z-up. Each region is one
 * model and one instance; blocks take colours through core/mc_blocks.c,
 * air is empty. */
#include <math.h>
#include <string.h>
#include "internal.h"

static vxr_result region(const vxr_nbt *r, const uint8_t *name, size_t name_len, vxr_color_map *map,
                         uint64_t *voxels, vxr_scene_src *dest, vxr_error *err) {
    vxr_nbt pos, size, palette, states;
    int32_t p[3], s[3];
    static const char *const axis[3] = {"x", "y", "z"};
    bool ok = vxr_nbt_get(r, "Position", 10, &pos) && vxr_nbt_get(r, "Size", 10, &size) &&
              vxr_nbt_get(r, "BlockStatePalette", 9, &palette) &&
              vxr_nbt_get(r, "BlockStates", 12, &states);
    for (int k = 0; ok && k < 3; k++)
        ok = vxr_nbt_int(&pos, axis[k], &p[k]) && vxr_nbt_int(&size, axis[k], &s[k]);
    const int nl = (int)(name_len < 64 ? name_len : 64);
    if (!ok)
        return vxr_fail(err, VXR_ERROR_FORMAT,
                        "region \"%.*s\": no Position, Size, BlockStatePalette or BlockStates", nl,
                        (const char *)name);
    uint64_t n[3], volume = 1;
    int64_t lo[3];
    for (int k = 0; k < 3; k++) {
        n[k] = (uint64_t)llabs((long long)s[k]);
        lo[k] = (int64_t)p[k] + (s[k] < 0 ? s[k] + 1 : 0);
        if (n[k] == 0 || n[k] > (1u << 20) || lo[k] < -(1 << 20) ||
            lo[k] + (int64_t)n[k] > (1 << 20))
            return vxr_fail(err, VXR_ERROR_FORMAT,
                            "region \"%.*s\": size %d x %d x %d at %d, %d, %d is outside the "
                            "coordinate range of +-2^20",
                            nl, (const char *)name, s[0], s[1], s[2], p[0], p[1], p[2]);
        volume *= n[k];
    }
    if (volume > VXR_RLE_VOXEL_LIMIT)
        return vxr_fail(err, VXR_ERROR_LIMIT, "region \"%.*s\": %llu cells, over the limit of %llu",
                        nl, (const char *)name, (unsigned long long)volume,
                        (unsigned long long)VXR_RLE_VOXEL_LIMIT);
    const uint32_t entries = vxr_nbt_count(&palette);
    if (entries == 0 || (entries > 1 && vxr_nbt_list_type(&palette) != 10))
        return vxr_fail(err, VXR_ERROR_FORMAT,
                        "region \"%.*s\": its palette is not a list of "
                        "block compounds",
                        nl, (const char *)name);
    uint32_t bits = 2;
    while (bits < 32 && (1ull << bits) < entries) bits++;
    const uint64_t need = (volume * bits + 63) / 64;
    if (vxr_nbt_count(&states) < need)
        return vxr_fail(err, VXR_ERROR_FORMAT,
                        "region \"%.*s\": %u longs of block states for %llu cells of %u bits", nl,
                        (const char *)name, vxr_nbt_count(&states), (unsigned long long)volume,
                        bits);
    uint32_t *color = malloc(entries * sizeof *color);
    if (!color) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    size_t cursor = 0;
    vxr_nbt block, id;
    for (uint32_t i = 0; i < entries; i++) {
        color[i] = 0;
        if (!vxr_nbt_list_next(&palette, &cursor, &block) || block.type != 10 ||
            !vxr_nbt_get(&block, "Name", 8, &id)) {
            free(color);
            return vxr_fail(err, VXR_ERROR_FORMAT,
                            "region \"%.*s\": palette entry %u has no block Name", nl,
                            (const char *)name, i);
        }
        size_t len;
        const uint8_t *s8 = vxr_nbt_string(&id, &len);
        bool known;
        color[i] = vxr_mc_block_color(s8, len, &known);
    }
    uint32_t model;
    vxr_result res = vxr_scene_src_add_model(dest, &model);
    const uint64_t mask = (1ull << bits) - 1;
    for (uint64_t i = 0; res == VXR_OK && i < volume; i++) {
        const uint64_t at = i * bits, word = at / 64, off = at % 64;
        uint64_t v = vxr_nbt_long(&states, (uint32_t)word) >> off;
        if (off + bits > 64) v |= vxr_nbt_long(&states, (uint32_t)word + 1) << (64 - off);
        v &= mask;
        if (v >= entries) {
            free(color);
            return vxr_fail(
                err, VXR_ERROR_FORMAT, "region \"%.*s\": cell %llu names palette entry %llu of %u",
                nl, (const char *)name, (unsigned long long)i, (unsigned long long)v, entries);
        }
        if (!color[v]) continue;
        if (++*voxels > VXR_RLE_VOXEL_LIMIT) {
            free(color);
            return vxr_fail(err, VXR_ERROR_LIMIT, "more than %llu blocks in all regions",
                            (unsigned long long)VXR_RLE_VOXEL_LIMIT);
        }
        const uint64_t x = i % n[0], z = i / n[0] % n[2], y = i / (n[0] * n[2]);
        res = vxr_model_src_push(&dest->models[model], (int32_t)x, (int32_t)(n[2] - 1 - z),
                                 (int32_t)y, vxr_color_attr(map, dest, color[v]));
    }
    free(color);
    vxr_instance in = {model, 0, vxr_transform_identity(), INFINITY};
    in.transform.translation[0] = (float)lo[0];
    in.transform.translation[1] = (float)(-lo[2] - (int64_t)n[2]);
    in.transform.translation[2] = (float)lo[1];
    if (res == VXR_OK) res = vxr_scene_src_add_instance(dest, &in);
    return res == VXR_OK ? VXR_OK : vxr_fail(err, res, "out of memory");
}

vxr_result vxr_load_litematic(const uint8_t *data, size_t size, vxr_scene_src *dest,
                              vxr_error *err) {
    return vxr_load_gzip_nbt(data, size, dest, err, "a Litematica schematic",
                             vxr_load_litematic_nbt);
}

vxr_result vxr_load_litematic_nbt(const uint8_t *nbt, size_t n, vxr_scene_src *dest,
                                  vxr_error *err) {
    vxr_scene_src_init(dest, 1);
    vxr_nbt root, regions, reg;
    if (!vxr_nbt_root(nbt, n, &root) || !vxr_nbt_get(&root, "Regions", 10, &regions))
        return vxr_fail(err, VXR_ERROR_FORMAT,
                        "not a Litematica schematic (no NBT compound with \"Regions\")");
    vxr_color_map *map = calloc(1, sizeof *map);
    vxr_result r = map ? VXR_OK : vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    size_t cursor = 0, name_len;
    const uint8_t *name;
    uint64_t voxels = 0;
    while (r == VXR_OK && vxr_nbt_next(&regions, &cursor, &reg, &name, &name_len))
        if (reg.type == 10) r = region(&reg, name, name_len, map, &voxels, dest, err);
    if (r == VXR_OK && dest->model_count == 0) r = vxr_fail(err, VXR_ERROR_FORMAT, "no regions");
    if (r == VXR_OK) dest->attr_size = map->rgba ? 4 : 1;
    free(map);
    if (r != VXR_OK) vxr_scene_src_free(dest);
    return r;
}
