/* VoxEdit (The Sandbox) .vxm, versions 4 to 12 ("VXM4" .. "VXMC"; no
 * published description: the layout as VoxEdit's files hold it, which the
 * vengi project's reader also follows). Little-endian:
 *   version >= 6: size (uint32 x3); >= 5: pivot (3 floats); >= 9: a surface
 *   flag, with a surface (7 words; >= 10: its width and height) and
 *   width * height bytes; >= 8: a LOD scale and pivot (4 floats);
 *   LOD levels (>= 7: uint32, else 1), each a texture size (2 words), its
 *   textures (>= 11: a byte count and bytes; else a count of named
 *   textures, zipped (>= 6) or run-length coded) and 6 lists of quads (a
 *   count and 80 bytes each); version <= 5: the size here;
 *   >= 11: two 1024-byte palettes and a list of named chunks;
 *   the materials (a count, then B, G, R, A and an emissive byte each);
 *   >= 12: a layer count, each layer a name and a visible flag; the cells
 *   of each layer as runs (length, material; 0xff empty; length 0 ends),
 *   cell i at x = i / (size.y * size.z), y = i / size.z % size.y,
 *   z = i % size.z.
 * VoxEdit is Y-up and left-handed: a cell (x, y, z) is vxr's (x, z, y) (a
 * swap, the change of handedness), as vengi's rgb.vxm and rgb_small.vxm
 * hold their .vox's voxels and colours under it. Each layer is one model
 * and one instance at its cells (the pivot is not read), hidden when the
 * layer is; the textures, quads and surfaces (render caches) are skipped. */
#include <math.h>
#include <string.h>
#include "internal.h"

enum { MAX_QUADS = 1 << 18, MAX_TEXTURE = 2048 };

static vxr_result skip(vxr_cursor *c, uint64_t n, const char *what) {
    if (n > c->size - c->at) return vxr_cursor_need(c, (size_t)n, what);
    c->at += (size_t)n;
    return VXR_OK;
}

static vxr_result word(vxr_cursor *c, uint32_t *v, const char *what) {
    vxr_result r = vxr_cursor_need(c, 4, what);
    if (r == VXR_OK) *v = vxr_cursor_u32(c);
    return r;
}

static vxr_result byte(vxr_cursor *c, uint8_t *v, const char *what) {
    vxr_result r = vxr_cursor_need(c, 1, what);
    if (r == VXR_OK) *v = c->data[c->at++];
    return r;
}

/* Skips a NUL-terminated string. */
static vxr_result skip_name(vxr_cursor *c, const char *what) {
    const uint8_t *end = memchr(c->data + c->at, 0, c->size - c->at);
    if (!end) return vxr_cursor_need(c, c->size - c->at + 1, what);
    c->at = (size_t)(end - c->data) + 1;
    return VXR_OK;
}

/* The render caches before the cells: surface, LOD levels, textures,
 * quads; *n gets the size where the version keeps it. */
static vxr_result caches(vxr_cursor *c, int version, uint32_t n[3]) {
    vxr_result r = VXR_OK;
    for (int k = 0; r == VXR_OK && version >= 6 && k < 3; k++) r = word(c, &n[k], "size");
    if (r == VXR_OK && version >= 5) r = skip(c, 12, "pivot");
    uint8_t surface = 0;
    if (r == VXR_OK && version >= 9) r = byte(c, &surface, "surface flag");
    if (r == VXR_OK && surface) {
        uint32_t s[9] = {0};
        for (int k = 0; r == VXR_OK && k < (version >= 10 ? 9 : 7); k++)
            r = word(c, &s[k], "surface");
        if (r == VXR_OK && version < 10)
            return vxr_fail(c->err, VXR_ERROR_FORMAT, "a version %d surface (vxr reads 10 on)",
                            version);
        if (r == VXR_OK) r = skip(c, (uint64_t)s[7] * s[8], "surface");
    }
    if (r == VXR_OK && version >= 8) r = skip(c, 16, "LOD scale and pivot");
    uint32_t lods = 1;
    if (r == VXR_OK && version >= 7) r = word(c, &lods, "LOD count");
    for (uint32_t l = 0; r == VXR_OK && l < lods; l++) {
        uint32_t tex[2], amount;
        if ((r = word(c, &tex[0], "texture size")) != VXR_OK ||
            (r = word(c, &tex[1], "texture size")) != VXR_OK)
            break;
        if (tex[0] > MAX_TEXTURE || tex[1] > MAX_TEXTURE)
            return vxr_fail(c->err, VXR_ERROR_FORMAT, "byte %zu: a %u x %u texture", c->at - 8,
                            tex[0], tex[1]);
        if ((r = word(c, &amount, "textures")) != VXR_OK) break;
        if (version >= 11) {
            r = skip(c, amount, "textures");
        } else {
            for (uint32_t t = 0; r == VXR_OK && t < amount; t++) {
                if ((r = skip_name(c, "texture name")) != VXR_OK) break;
                if (version >= 6) {
                    uint32_t zipped;
                    if ((r = word(c, &zipped, "texture")) == VXR_OK) r = skip(c, zipped, "texture");
                    continue;
                }
                for (uint8_t stride = 1; r == VXR_OK && stride;)
                    if ((r = byte(c, &stride, "texture run")) == VXR_OK && stride)
                        r = skip(c, 3, "texture run");
            }
        }
        for (int f = 0; r == VXR_OK && f < 6; f++) {
            uint32_t quads;
            if ((r = word(c, &quads, "quad count")) != VXR_OK) break;
            if (quads > MAX_QUADS)
                return vxr_fail(c->err, VXR_ERROR_FORMAT, "byte %zu: %u quads", c->at - 4, quads);
            r = skip(c, 80ull * quads, "quads");
        }
    }
    for (int k = 0; r == VXR_OK && version <= 5 && k < 3; k++) r = word(c, &n[k], "size");
    if (r == VXR_OK && version >= 11) {
        uint8_t chunks;
        if ((r = skip(c, 2048, "palettes")) == VXR_OK) r = byte(c, &chunks, "chunk count");
        for (uint32_t i = 0; r == VXR_OK && i < chunks; i++)
            if ((r = skip_name(c, "chunk name")) == VXR_OK) r = skip(c, 2, "chunk");
    }
    return r;
}

vxr_result vxr_load_vxm(const uint8_t *data, size_t size, vxr_scene_src *dest, vxr_error *err) {
    vxr_scene_src_init(dest, 1);
    vxr_cursor c = {data, size, 4, err};
    if (size < 4 || memcmp(data, "VXM", 3))
        return vxr_fail(err, VXR_ERROR_FORMAT, "not a VoxEdit model (no \"VXM\" magic)");
    const uint8_t v = data[3];
    const int version = v >= '0' && v <= '9' ? v - '0' : v >= 'A' && v <= 'C' ? 10 + v - 'A' : -1;
    if (version < 4)
        return vxr_fail(err, VXR_ERROR_FORMAT, "VoxEdit version '%c' (vxr reads 4 to C)",
                        v >= 0x20 && v < 0x7f ? v : '?');
    uint32_t n[3] = {0, 0, 0};
    vxr_result r = caches(&c, version, n);
    if (r != VXR_OK) return r;
    const uint64_t cells = (uint64_t)n[0] * n[1] * n[2];
    if (!cells || n[0] > (1u << 20) || n[1] > (1u << 20) || n[2] > (1u << 20) ||
        cells > VXR_RLE_VOXEL_LIMIT)
        return vxr_fail(err, cells > VXR_RLE_VOXEL_LIMIT ? VXR_ERROR_LIMIT : VXR_ERROR_FORMAT,
                        "a %u x %u x %u model", n[0], n[1], n[2]);
    uint8_t materials, layers = 1;
    if ((r = byte(&c, &materials, "material count")) != VXR_OK) return r;
    if ((r = vxr_cursor_need(&c, 5 * (size_t)materials, "materials")) != VXR_OK) return r;
    uint32_t rgba[256];
    for (uint32_t i = 0; i < materials; i++) {
        const uint8_t *m = data + c.at + 5 * i; /* B, G, R, A, emissive */
        rgba[i] = vxr_rgba(m[2], m[1], m[0], 255);
    }
    c.at += 5 * (size_t)materials;
    if (version >= 12 && (r = byte(&c, &layers, "layer count")) != VXR_OK) return r;
    vxr_color_map *map = calloc(1, sizeof *map);
    if (!map) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    for (uint32_t l = 0; r == VXR_OK && l < layers; l++) {
        uint8_t visible = 1;
        if (version >= 12 && (r = skip_name(&c, "layer name")) == VXR_OK)
            r = byte(&c, &visible, "layer flag");
        uint32_t model;
        if (r == VXR_OK && vxr_scene_src_add_model(dest, &model) != VXR_OK)
            r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
        for (uint64_t i = 0; r == VXR_OK;) {
            uint8_t run[2] = {0, 0};
            if ((r = byte(&c, &run[0], "run")) != VXR_OK || !run[0]) break;
            if ((r = byte(&c, &run[1], "run")) != VXR_OK) break;
            if (run[0] > cells - i || (run[1] != 0xff && run[1] >= materials)) {
                r = vxr_fail(err, VXR_ERROR_FORMAT,
                             "layer %u, byte %zu: a run of %u of material %u (of %u) at cell "
                             "%llu of %llu",
                             l, c.at - 2, run[0], run[1], materials, (unsigned long long)i,
                             (unsigned long long)cells);
                break;
            }
            for (uint32_t k = 0; run[1] != 0xff && r == VXR_OK && k < run[0]; k++) {
                const uint64_t j = i + k, x = j / ((uint64_t)n[1] * n[2]), y = j / n[2] % n[1],
                               z = j % n[2];
                if (vxr_model_src_push(&dest->models[model], (int32_t)x, (int32_t)z, (int32_t)y,
                                       vxr_color_attr(map, dest, rgba[run[1]])) != VXR_OK)
                    r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
            }
            i += run[0];
        }
        vxr_instance in = {model, visible ? 0 : VXR_INSTANCE_HIDDEN, vxr_transform_identity(),
                           INFINITY};
        if (r == VXR_OK && vxr_scene_src_add_instance(dest, &in) != VXR_OK)
            r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    }
    if (r == VXR_OK) dest->attr_size = map->rgba ? 4 : 1;
    free(map);
    if (r != VXR_OK) vxr_scene_src_free(dest);
    return r;
}
