/* Goxel .gox, version 2 (as Goxel's gox.c writes it): "GOX ", int32
 * version, then chunks of a 4-byte type, int32 length, data and a 4-byte
 * CRC that Goxel leaves 0. BL16 holds a block of 16^3 voxels as a 64 x 64
 * 8-bit RGBA PNG, voxel (x, y, z) at pixel x + 16 y + 256 z, alpha 0
 * empty. LAYR holds a layer: int32 block count, per block its BL16 index
 * (in file order), corner x, y, z and a spare int32, then a dictionary of
 * int32-length keys and values ("name", "visible", "mat", "base_id", ...)
 * ended by an empty key. Other chunks (PREV, IMG, MATE, CAMR, LIGH) are
 * skipped.
 *
 * Goxel is Z-up and right-handed as vxr: a voxel's cell is its block corner
 * plus (x, y, z). Each layer with blocks is one model and one instance,
 * hidden when the layer is; clone layers (blocks of another layer) and the
 * layer matrix are not read. */
#include <math.h>
#include <string.h>
#include <zlib.h>
#include "internal.h"

enum { SIDE = 16, BLOCK_VOXELS = SIDE * SIDE * SIDE, PNG_W = 64, ROW = 1 + 4 * PNG_W };

static uint32_t be32(const uint8_t *p) {
    return vxr_get_be32(p);
}

/* The Paeth predictor of PNG's filter type 4 (PNG specification, 9.4). */
static uint8_t paeth(uint8_t a, uint8_t b, uint8_t c) {
    const int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Decodes block `index`, a 64 x 64 RGBA PNG, into rgba (4096 pixels). */
static vxr_result png_block(const uint8_t *p, size_t n, uint32_t index, uint8_t *rgba,
                            vxr_error *err) {
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n < 8 || memcmp(p, signature, 8))
        return vxr_fail(err, VXR_ERROR_FORMAT, "block %u: not a PNG image", index);
    vxr_bytes idat = {0};
    bool header = false, end = false;
    vxr_result r = VXR_OK;
    for (size_t at = 8; r == VXR_OK && !end;) {
        if (n - at < 12) {
            r = vxr_fail(err, VXR_ERROR_FORMAT, "block %u: its PNG is cut short", index);
            break;
        }
        const uint32_t len = be32(p + at);
        const uint8_t *type = p + at + 4, *data = p + at + 8;
        if (len > n - at - 12) {
            r = vxr_fail(err, VXR_ERROR_FORMAT, "block %u: its PNG is cut short", index);
            break;
        }
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
        if ((uint32_t)crc32(0, type, len + 4) != be32(data + len)) {
            r = vxr_fail(err, VXR_ERROR_FORMAT, "block %u: PNG chunk %.4s fails its CRC", index,
                         (const char *)type);
            break;
        }
#endif
        at += 12 + (size_t)len;
        if (!memcmp(type, "IHDR", 4)) {
            /* 8-bit RGBA (colour type 6), deflate, filter method 0, no
             * interlace: what Goxel writes */
            if (len != 13 || be32(data) != PNG_W || be32(data + 4) != PNG_W || data[8] != 8 ||
                data[9] != 6 || data[10] || data[11] || data[12])
                r = vxr_fail(err, VXR_ERROR_FORMAT,
                             "block %u: not a 64 x 64 8-bit RGBA PNG without interlace", index);
            header = true;
        } else if (!memcmp(type, "IDAT", 4)) {
            vxr_bytes_put(&idat, data, len);
        } else if (!memcmp(type, "IEND", 4)) {
            end = true;
        }
    }
    if (r == VXR_OK && (!header || !idat.n))
        r = vxr_fail(err, VXR_ERROR_FORMAT, "block %u: its PNG has no %s", index,
                     header ? "image data" : "header");
    if (r == VXR_OK && idat.failed) r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    uint8_t *raw = NULL;
    size_t got = 0;
    const char *why = NULL;
    if (r == VXR_OK) {
        r = vxr_inflate(idat.p, idat.n, false, ROW * PNG_W, &raw, &got, &why);
        if (r != VXR_OK) r = vxr_fail(err, r, "block %u: its PNG data: %s", index, why);
    }
    if (r == VXR_OK && got != ROW * PNG_W)
        r = vxr_fail(err, VXR_ERROR_FORMAT, "block %u: %zu bytes of PNG rows, not %d", index, got,
                     ROW * PNG_W);
    for (int y = 0; r == VXR_OK && y < PNG_W; y++) {
        const uint8_t filter = raw[y * ROW], *in = raw + y * ROW + 1;
        uint8_t *out = rgba + 4 * PNG_W * y;
        const uint8_t *up = y ? out - 4 * PNG_W : NULL;
        if (filter > 4) {
            r = vxr_fail(err, VXR_ERROR_FORMAT, "block %u: PNG row %d has filter %u", index, y,
                         filter);
            break;
        }
        for (int i = 0; i < 4 * PNG_W; i++) {
            const uint8_t a = i >= 4 ? out[i - 4] : 0, b = up ? up[i] : 0,
                          c = up && i >= 4 ? up[i - 4] : 0;
            const uint8_t pred = filter == 1   ? a
                                 : filter == 2 ? b
                                 : filter == 3 ? (uint8_t)((a + b) / 2)
                                 : filter == 4 ? paeth(a, b, c)
                                               : 0;
            out[i] = (uint8_t)(in[i] + pred);
        }
    }
    free(raw);
    free(idat.p);
    return r;
}

/* Blocks decoded (16 KiB each) are capped so that they can hold no more
 * than the voxel limit, which also caps the voxels the layers place (a
 * block may be placed many times). */
#define MAX_BLOCKS (VXR_RLE_VOXEL_LIMIT / BLOCK_VOXELS)

typedef struct gox {
    vxr_scene_src *dest;
    vxr_color_map *map;
    uint8_t *blocks; /* 4 * 4096 bytes each, decoded */
    uint16_t *solid; /* each block's solid voxels (up to 4096) */
    uint32_t block_count;
    uint32_t layers;
    uint64_t voxels;
    vxr_error *err;
} gox;

/* A LAYR chunk's dictionary value for key, or NULL (*n its length). */
static const uint8_t *dict_value(const uint8_t *p, size_t n, const char *key, uint32_t *len) {
    const size_t want = strlen(key);
    for (size_t at = 0; n - at >= 4;) {
        const uint32_t kl = vxr_get32(p + at);
        if (kl == 0 || kl > n - at - 4) break;
        const uint8_t *k = p + at + 4;
        at += 4 + (size_t)kl;
        if (n - at < 4) break;
        const uint32_t vl = vxr_get32(p + at);
        if (vl > n - at - 4) break;
        if (kl == want && !memcmp(k, key, want)) {
            *len = vl;
            return p + at + 4;
        }
        at += 4 + (size_t)vl;
    }
    return NULL;
}

static vxr_result layer(gox *g, const uint8_t *p, size_t n) {
    vxr_error *err = g->err;
    if (n < 4) return vxr_fail(err, VXR_ERROR_FORMAT, "layer %u: cut short", g->layers);
    const uint32_t count = vxr_get32(p);
    if (count > (n - 4) / 20)
        return vxr_fail(err, VXR_ERROR_FORMAT, "layer %u: %u blocks cannot fit in its %zu bytes",
                        g->layers, count, n);
    const uint8_t *dict = p + 4 + 20 * (size_t)count;
    uint32_t vl = 0;
    const uint8_t *visible = dict_value(dict, n - 4 - 20 * (size_t)count, "visible", &vl);
    const bool hidden = visible && vl >= 1 && visible[0] == 0;
    g->layers++;
    if (count == 0) return VXR_OK; /* empty, or a clone */
    uint32_t model;
    if (vxr_scene_src_add_model(g->dest, &model) != VXR_OK)
        return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    /* cells relative to the layer's least block corner */
    int64_t lo[3] = {INT64_MAX, INT64_MAX, INT64_MAX};
    for (uint32_t b = 0; b < count; b++)
        for (int k = 0; k < 3; k++) {
            const int64_t c = (int32_t)vxr_get32(p + 4 + 20 * (size_t)b + 4 + 4 * k);
            if (c < -(1 << 20) || c > (1 << 20) - SIDE)
                return vxr_fail(err, VXR_ERROR_FORMAT,
                                "layer %u, block %u: corner %lld is outside the coordinate range "
                                "of +-2^20",
                                g->layers - 1, b, (long long)c);
            lo[k] = c < lo[k] ? c : lo[k];
        }
    for (uint32_t b = 0; b < count; b++) {
        const uint8_t *e = p + 4 + 20 * (size_t)b;
        const uint32_t index = vxr_get32(e);
        if (index >= g->block_count)
            return vxr_fail(err, VXR_ERROR_FORMAT,
                            "layer %u, block %u: block index %u of %u BL16 chunks", g->layers - 1,
                            b, index, g->block_count);
        int64_t corner[3];
        for (int k = 0; k < 3; k++) corner[k] = (int32_t)vxr_get32(e + 4 + 4 * k) - lo[k];
        if (!g->solid[index]) continue;
        g->voxels += g->solid[index];
        if (g->voxels > VXR_RLE_VOXEL_LIMIT)
            return vxr_fail(err, VXR_ERROR_LIMIT, "layer %u: more than %llu voxels placed",
                            g->layers - 1, (unsigned long long)VXR_RLE_VOXEL_LIMIT);
        const uint8_t *v = g->blocks + (size_t)index * 4 * BLOCK_VOXELS;
        for (int i = 0; i < BLOCK_VOXELS; i++, v += 4) {
            if (!v[3]) continue;
            const uint32_t color = vxr_color_attr(g->map, g->dest, vxr_rgba(v[0], v[1], v[2], 255));
            if (vxr_model_src_push(&g->dest->models[model], (int32_t)(corner[0] + i % SIDE),
                                   (int32_t)(corner[1] + i / SIDE % SIDE),
                                   (int32_t)(corner[2] + i / (SIDE * SIDE)), color) != VXR_OK)
                return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
        }
    }
    vxr_instance in = {model, hidden ? VXR_INSTANCE_HIDDEN : 0, vxr_transform_identity(), INFINITY};
    for (int k = 0; k < 3; k++) in.transform.translation[k] = (float)lo[k];
    if (vxr_scene_src_add_instance(g->dest, &in) != VXR_OK)
        return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    return VXR_OK;
}

vxr_result vxr_load_gox(const uint8_t *data, size_t size, vxr_scene_src *dest, vxr_error *err) {
    vxr_scene_src_init(dest, 1);
    if (size < 8 || memcmp(data, "GOX ", 4))
        return vxr_fail(err, VXR_ERROR_FORMAT, "not a Goxel file (no \"GOX \" magic)");
    const uint32_t version = vxr_get32(data + 4);
    if (version != 2)
        return vxr_fail(err, VXR_ERROR_FORMAT, "Goxel file version %u (vxr reads version 2)",
                        version);
    gox g = {dest, calloc(1, sizeof(vxr_color_map)), NULL, NULL, 0, 0, 0, err};
    vxr_result r = g.map ? VXR_OK : vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    for (size_t at = 8; r == VXR_OK && at < size;) {
        if (size - at < 12) {
            r = vxr_fail(err, VXR_ERROR_FORMAT, "truncated: a chunk at byte %zu", at);
            break;
        }
        const uint8_t *type = data + at;
        const uint32_t len = vxr_get32(data + at + 4);
        if (len > size - at - 12) {
            r = vxr_fail(err, VXR_ERROR_FORMAT,
                         "truncated: chunk %.4s at byte %zu of %u bytes, %zu left",
                         (const char *)type, at, len, size - at - 12);
            break;
        }
        const uint8_t *body = data + at + 8;
        if (!memcmp(type, "BL16", 4)) {
            if (g.block_count == MAX_BLOCKS) {
                r = vxr_fail(err, VXR_ERROR_LIMIT, "more than %llu blocks (BL16 chunks)",
                             (unsigned long long)MAX_BLOCKS);
                break;
            }
            if ((g.block_count & (g.block_count - 1)) == 0) {
                const size_t cap = g.block_count ? 2 * (size_t)g.block_count : 1;
                uint8_t *b = realloc(g.blocks, cap * 4 * BLOCK_VOXELS);
                if (b) g.blocks = b;
                uint16_t *c = b ? realloc(g.solid, cap * sizeof *c) : NULL;
                if (c) g.solid = c;
                if (!c) {
                    r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
                    break;
                }
            }
            uint8_t *block = g.blocks + (size_t)g.block_count * 4 * BLOCK_VOXELS;
            r = png_block(body, len, g.block_count, block, err);
            uint16_t solid = 0;
            for (int i = 0; r == VXR_OK && i < BLOCK_VOXELS; i++)
                solid = (uint16_t)(solid + (block[4 * i + 3] != 0));
            g.solid[g.block_count++] = solid;
        } else if (!memcmp(type, "LAYR", 4)) {
            r = layer(&g, body, len);
        }
        at += 12 + (size_t)len;
    }
    if (r == VXR_OK) dest->attr_size = g.map->rgba ? 4 : 1;
    free(g.map);
    free(g.blocks);
    free(g.solid);
    if (r != VXR_OK) vxr_scene_src_free(dest);
    return r;
}
