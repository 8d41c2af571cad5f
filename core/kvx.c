/* Ken Silverman's voxel formats: the Build engine's .kvx, Slab6 and
 * Voxlap's .kv6, and SLAB6's raw .vox. Layouts from the documentation that
 * ships with SLAB6 (slab6.txt, "KVX/KV6 file format") and Build's
 * buildinf.txt.
 *
 * All three share Build's axes: x east, y south, z down (right-handed). A
 * half turn about x makes them vxr's Z-up without a mirror: the file's cell
 * (x, y, z) is vxr's (x, ysiz-1-y, zsiz-1-z). The origin is the file's pivot
 * (the point the engine places and turns the model about), rounded to the
 * nearest cell corner so that the model stays on the grid; SLAB6's .vox has
 * no pivot and sits at its cells. Palettes are VGA's 6-bit values (0..63,
 * scaled to 0..255); a palette with a byte over 63 is read as 8-bit. */
#include <math.h>
#include <string.h>
#include "internal.h"

enum { PALETTE = 768, KVX_HEADER = 28, KV6_HEADER = 32, SLAB6_HEADER = 12 };

static vxr_result truncated(vxr_error *err, const char *what, uint64_t need, size_t have) {
    return vxr_fail(err, VXR_ERROR_FORMAT, "truncated: %s needs %llu bytes, the file has %zu", what,
                    (unsigned long long)need, have);
}

/* The 256 colours of a 768-byte palette as RGBA8. */
static void read_palette(const uint8_t *p, uint32_t rgba[256]) {
    bool six = true;
    for (int i = 0; i < PALETTE; i++) six &= p[i] <= 63;
    for (int i = 0; i < 256; i++) {
        uint32_t c[3];
        for (int k = 0; k < 3; k++) c[k] = six ? (p[3 * i + k] * 255u + 31) / 63 : p[3 * i + k];
        rgba[i] = vxr_rgba(c[0], c[1], c[2], 255);
    }
}

/* One model and its instance being read, in the file's axes. */
typedef struct reader {
    vxr_scene_src *dest;
    vxr_color_map *map;
    int32_t n[3];
} reader;

static vxr_result begin(reader *r, vxr_scene_src *dest, const uint32_t n[3], vxr_error *err) {
    vxr_scene_src_init(dest, 1);
    r->dest = dest;
    for (int k = 0; k < 3; k++) {
        if (n[k] > (1u << 20))
            return vxr_fail(err, VXR_ERROR_FORMAT, "size %u is beyond the coordinate range of 2^20",
                            n[k]);
        r->n[k] = (int32_t)n[k];
    }
    uint32_t model;
    r->map = calloc(1, sizeof *r->map);
    if (!r->map || vxr_scene_src_add_model(dest, &model) != VXR_OK) {
        free(r->map);
        return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    }
    return VXR_OK;
}

static vxr_result put(reader *r, uint32_t x, uint32_t y, uint32_t z, uint32_t rgba) {
    const uint32_t color = vxr_color_attr(r->map, r->dest, rgba);
    return vxr_model_src_push(&r->dest->models[0], (int32_t)x, r->n[1] - 1 - (int32_t)y,
                              r->n[2] - 1 - (int32_t)z, color);
}

/* Ends a read begun with begin: on VXR_OK adds the instance, its origin at
 * the pivot (in the file's axes, in cells); else frees everything. */
static vxr_result end(reader *r, vxr_result res, const double pivot[3], vxr_error *err) {
    if (res == VXR_OK) r->dest->attr_size = r->map->rgba ? 4 : 1;
    free(r->map);
    vxr_instance in = {0, 0, vxr_transform_identity(), INFINITY};
    const double p[3] = {pivot[0], r->n[1] - pivot[1], r->n[2] - pivot[2]};
    for (int k = 0; k < 3; k++) in.transform.translation[k] = -(float)floor(p[k] + 0.5);
    if (res == VXR_OK && vxr_scene_src_add_instance(r->dest, &in) != VXR_OK)
        res = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    if (res == VXR_ERROR_MEMORY) vxr_fail(err, res, "out of memory");
    if (res != VXR_OK) vxr_scene_src_free(r->dest);
    return res;
}

/* .kvx: int32 numbytes (of the first mip level, after this field), xsiz,
 * ysiz, zsiz, the pivot in 1/256 cells, int32 xoffset[xsiz+1], uint16
 * xyoffset[xsiz][ysiz+1] (offsets from the start of xoffset, then within
 * the x slice), then slabs: ztop, zleng, a face mask, zleng palette
 * indices. Smaller mip levels follow; the palette is the last 768 bytes. */
vxr_result vxr_load_kvx(const uint8_t *data, size_t size, vxr_scene_src *dest, vxr_error *err) {
    vxr_scene_src_init(dest, 1);
    if (size < KVX_HEADER + PALETTE) return truncated(err, "the header and palette", 796, size);
    const uint64_t numbytes = vxr_get32(data);
    const uint32_t n[3] = {vxr_get32(data + 4), vxr_get32(data + 8), vxr_get32(data + 12)};
    if (numbytes + 4 > size - PALETTE)
        return truncated(err, "the first mip level", numbytes + 4 + PALETTE, size);
    if (n[0] > 1024 || n[1] > 1024 || n[2] > 256)
        return vxr_fail(err, VXR_ERROR_FORMAT,
                        "%u x %u x %u cells: the format holds at most 1024 x 1024 x 256", n[0],
                        n[1], n[2]);
    /* the level's bytes after the header, where every offset points */
    const uint8_t *level = data + KVX_HEADER;
    const uint64_t level_size = numbytes >= 24 ? numbytes - 24 : 0;
    const uint64_t tables = 4ull * (n[0] + 1) + 2ull * n[0] * (n[1] + 1);
    if (tables > level_size)
        return vxr_fail(err, VXR_ERROR_FORMAT,
                        "the offset tables of %u x %u columns need %llu bytes, the level has %llu",
                        n[0], n[1], (unsigned long long)tables, (unsigned long long)level_size);
    uint32_t palette[256];
    read_palette(data + size - PALETTE, palette);
    reader rd;
    vxr_result res = begin(&rd, dest, n, err);
    if (res != VXR_OK) return res;
    const uint8_t *xy = level + 4ull * (n[0] + 1);
    for (uint32_t x = 0; res == VXR_OK && x < n[0]; x++) {
        const uint64_t xo = vxr_get32(level + 4 * x), xo_end = vxr_get32(level + 4 * (x + 1));
        if (xo < tables || xo > xo_end || xo_end > level_size) {
            res = vxr_fail(err, VXR_ERROR_FORMAT, "xoffset[%u] = %llu is outside the slabs", x,
                           (unsigned long long)xo);
            break;
        }
        for (uint32_t y = 0; res == VXR_OK && y < n[1]; y++) {
            const uint8_t *o = xy + 2ull * ((uint64_t)x * (n[1] + 1) + y);
            const uint64_t a = xo + vxr_get16(o), b = xo + vxr_get16(o + 2);
            if (a > b || b > xo_end) {
                res = vxr_fail(err, VXR_ERROR_FORMAT,
                               "column (%u, %u): its slabs [%llu, %llu) leave its slice", x, y,
                               (unsigned long long)a, (unsigned long long)b);
                break;
            }
            for (uint64_t p = a; res == VXR_OK && p < b;) {
                const uint32_t ztop = level[p], zleng = p + 1 < b ? level[p + 1] : 0;
                if (p + 3 + zleng > b || ztop + zleng > n[2]) {
                    res = vxr_fail(err, VXR_ERROR_FORMAT,
                                   "column (%u, %u): a slab at byte %llu overruns its column", x, y,
                                   (unsigned long long)(KVX_HEADER + p));
                    break;
                }
                for (uint32_t k = 0; res == VXR_OK && k < zleng; k++)
                    res = put(&rd, x, y, ztop + k, palette[level[p + 3 + k]]);
                p += 3 + zleng;
            }
        }
    }
    const double pivot[3] = {(int32_t)vxr_get32(data + 16) / 256.0,
                             (int32_t)vxr_get32(data + 20) / 256.0,
                             (int32_t)vxr_get32(data + 24) / 256.0};
    return end(&rd, res, pivot, err);
}

/* .kv6: "Kvxl", int32 xsiz, ysiz, zsiz, float pivot, uint32 numvoxs, then
 * numvoxs voxels of 8 bytes (B, G, R, brightness, uint16 z, face mask,
 * normal index) in x, then y, then z order, uint32 xlen[xsiz], uint16
 * ylen[xsiz][ysiz] (voxels per column), and an optional "SPal" palette that
 * the voxels' own colours make unneeded. */
vxr_result vxr_load_kv6(const uint8_t *data, size_t size, vxr_scene_src *dest, vxr_error *err) {
    vxr_scene_src_init(dest, 1);
    if (size < KV6_HEADER) return truncated(err, "the header", KV6_HEADER, size);
    if (memcmp(data, "Kvxl", 4))
        return vxr_fail(err, VXR_ERROR_FORMAT, "not a .kv6 file (no \"Kvxl\" magic)");
    const uint32_t n[3] = {vxr_get32(data + 4), vxr_get32(data + 8), vxr_get32(data + 12)};
    const uint64_t voxels = vxr_get32(data + 28);
    for (int k = 0; k < 3; k++)
        if (n[k] > 65536)
            return vxr_fail(err, VXR_ERROR_FORMAT, "size %u is over the format's 65536", n[k]);
    const uint64_t need = KV6_HEADER + 8 * voxels + 4ull * n[0] + 2ull * n[0] * n[1];
    if (need > size) return truncated(err, "the voxels and column lengths", need, size);
    const uint8_t *vox = data + KV6_HEADER, *ylen = vox + 8 * voxels + 4ull * n[0];
    double pivot[3];
    for (int k = 0; k < 3; k++) {
        float f;
        uint32_t u = vxr_get32(data + 16 + 4 * k);
        memcpy(&f, &u, 4);
        pivot[k] = f;
        if (!(fabs(pivot[k]) < 1e7))
            return vxr_fail(err, VXR_ERROR_FORMAT, "pivot %d is %g, not a coordinate", k, f);
    }
    uint64_t total = 0;
    for (uint64_t i = 0; i < (uint64_t)n[0] * n[1]; i++) total += vxr_get16(ylen + 2 * i);
    if (total != voxels)
        return vxr_fail(err, VXR_ERROR_FORMAT, "the columns hold %llu voxels, the header says %llu",
                        (unsigned long long)total, (unsigned long long)voxels);
    reader rd;
    vxr_result res = begin(&rd, dest, n, err);
    if (res != VXR_OK) return res;
    const uint8_t *v = vox;
    for (uint32_t x = 0; x < n[0]; x++)
        for (uint32_t y = 0; y < n[1]; y++)
            for (uint32_t i = vxr_get16(ylen + 2 * ((uint64_t)x * n[1] + y)); i > 0; i--, v += 8) {
                const uint32_t z = vxr_get16(v + 4);
                if (res != VXR_OK) continue;
                if (z >= n[2])
                    res = vxr_fail(err, VXR_ERROR_FORMAT, "voxel %llu: z %u is outside 0..%u",
                                   (unsigned long long)(v - vox) / 8, z, n[2] - 1);
                else
                    res = put(&rd, x, y, z, vxr_rgba(v[2], v[1], v[0], 255));
            }
    return end(&rd, res, pivot, err);
}

/* SLAB6's .vox: int32 xsiz, ysiz, zsiz, a palette index per cell (x
 * slowest, z fastest; 255 is empty), then the palette. It has no magic: a
 * .vox without MagicaVoxel's "VOX " is this when its size is exactly
 * 12 + xsiz * ysiz * zsiz + 768. */
vxr_result vxr_load_slab6_vox(const uint8_t *data, size_t size, vxr_scene_src *dest,
                              vxr_error *err) {
    vxr_scene_src_init(dest, 1);
    if (size < SLAB6_HEADER + PALETTE)
        return vxr_fail(err, VXR_ERROR_FORMAT,
                        "neither MagicaVoxel's .vox (no \"VOX \" magic) nor SLAB6's (%zu bytes, "
                        "under its 780)",
                        size);
    const uint32_t n[3] = {vxr_get32(data), vxr_get32(data + 4), vxr_get32(data + 8)};
    const uint64_t cells = (uint64_t)n[0] * n[1] * n[2];
    if (n[0] > (1u << 20) || n[1] > (1u << 20) || n[2] > (1u << 20) ||
        cells != size - SLAB6_HEADER - PALETTE)
        return vxr_fail(err, VXR_ERROR_FORMAT,
                        "neither MagicaVoxel's .vox (no \"VOX \" magic) nor SLAB6's (%u x %u x %u "
                        "cells do not fill its %zu bytes)",
                        n[0], n[1], n[2], size);
    uint32_t palette[256];
    read_palette(data + size - PALETTE, palette);
    reader rd;
    vxr_result res = begin(&rd, dest, n, err);
    if (res != VXR_OK) return res;
    const uint8_t *c = data + SLAB6_HEADER;
    for (uint32_t x = 0; x < n[0]; x++)
        for (uint32_t y = 0; y < n[1]; y++)
            for (uint32_t z = 0; z < n[2]; z++, c++)
                if (res == VXR_OK && *c != 255) res = put(&rd, x, y, z, palette[*c]);
    const double pivot[3] = {0, n[1], n[2]};
    return end(&rd, res, pivot, err);
}
