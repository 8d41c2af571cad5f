/* The two .vxl formats, told apart by content: Westwood's voxel models
 * (Command & Conquer: Tiberian Sun, Red Alert 2; magic "Voxel Animation")
 * and Ace of Spades maps (Voxlap's column format, no magic).
 *
 * Westwood (the layout as XCC and the games' modding documentation give
 * it): an 802-byte header ("Voxel Animation\0", palette count, limb count,
 * tailer count, body size, two remap bytes, a 256-colour RGB palette), a
 * 28-byte header per limb (name, number, two words), the body, then a
 * 92-byte tailer per limb: offsets into the body of its span start and end
 * tables and its span data, a scale, a 3x4 transform, bounds (min and max,
 * 3 floats each), its size (x, y, z bytes) and a normals mode. Column
 * x + y * xsize starts at span_start (-1: empty) and is a run of segments:
 * skip (empty cells), count, count pairs of palette index and normal, count
 * again, reaching z = zsize at the span's last byte. Westwood is Z-up and right-handed as vxr: a
 * cell (x, y, z) stays, placed at the limb's min bound (rounded); limb transforms and the .hva
 * animation that moves them are not read. A palette of all zeros (files
 * that use the game's palette) is replaced by MagicaVoxel's default one.
 *
 * Ace of Spades (Voxlap's .vxl as Ace of Spades saves its 512 x 512 x 64
 * maps): 512 * 512 columns, y slowest; a column is spans of a 4-byte header
 * (N: the span's length in 4-byte words, 0 for the last; S, E: the first and
 * last z of its top colours; A: where the air above it ends, for the span
 * before) and BGRA colours: E - S + 1 top colours, then bottom colours on
 * the ceiling of the next span's air. Every cell from S down is solid
 * until the next air; cells without a colour take the colour above them.
 * Voxlap's axes are Build's (x east, y south, z down): a cell (x, y, z) is
 * vxr's (x, 511-y, 63-z), as in core/kvx.c. */
#include <math.h>
#include <string.h>
#include "internal.h"

enum { WW_HEADER = 802, LIMB_HEADER = 28, TAILER = 92 };

static float get_float(const uint8_t *p) {
    const uint32_t u = vxr_get32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static vxr_result limb(const uint8_t *body, uint64_t body_size, const uint8_t *t, uint32_t index,
                       const uint32_t palette[256], vxr_color_map *map, vxr_scene_src *dest,
                       vxr_error *err) {
    const uint64_t starts = vxr_get32(t), ends = vxr_get32(t + 4), data = vxr_get32(t + 8);
    const uint32_t n[3] = {t[88], t[89], t[90]};
    const uint64_t columns = (uint64_t)n[0] * n[1];
    if (starts + 4 * columns > body_size || ends + 4 * columns > body_size || data > body_size)
        return vxr_fail(err, VXR_ERROR_FORMAT, "limb %u: its span tables leave the body", index);
    float lo[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = get_float(t + 64 + 4 * k);
        if (!(fabsf(lo[k]) < (float)(1 << 20)))
            return vxr_fail(err, VXR_ERROR_FORMAT, "limb %u: bound %g is not a coordinate", index,
                            (double)lo[k]);
    }
    uint32_t model;
    if (vxr_scene_src_add_model(dest, &model) != VXR_OK)
        return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    const uint8_t *span = body + data;
    const uint64_t span_size = body_size - data;
    for (uint64_t col = 0; col < columns; col++) {
        const int32_t s = (int32_t)vxr_get32(body + starts + 4 * col),
                      e = (int32_t)vxr_get32(body + ends + 4 * col);
        if (s == -1) continue;
        if (s < 0 || e < s || (uint64_t)e >= span_size)
            return vxr_fail(err, VXR_ERROR_FORMAT, "limb %u, column %llu: span %d..%d is outside",
                            index, (unsigned long long)col, s, e);
        const uint8_t *p = span + s, *end = span + e + 1;
        for (uint32_t z = 0; z < n[2];) {
            if (end - p < 2)
                return vxr_fail(err, VXR_ERROR_FORMAT,
                                "limb %u, column %llu: its span ends at z %u of %u", index,
                                (unsigned long long)col, z, n[2]);
            const uint32_t skip = p[0], count = p[1];
            if (z + skip + count > n[2] || (uint64_t)(end - p) < 3 + 2ull * count)
                return vxr_fail(err, VXR_ERROR_FORMAT,
                                "limb %u, column %llu: a segment at z %u overruns its column",
                                index, (unsigned long long)col, z);
            z += skip;
            for (uint32_t i = 0; i < count; i++, z++) {
                const uint32_t color = vxr_color_attr(map, dest, palette[p[2 + 2 * i]]);
                if (vxr_model_src_push(&dest->models[model], (int32_t)(col % n[0]),
                                       (int32_t)(col / n[0]), (int32_t)z, color) != VXR_OK)
                    return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
            }
            p += 3 + 2 * count;
        }
        if (p != end)
            return vxr_fail(err, VXR_ERROR_FORMAT,
                            "limb %u, column %llu: %zu bytes after its last segment", index,
                            (unsigned long long)col, (size_t)(end - p));
    }
    vxr_instance in = {model, 0, vxr_transform_identity(), INFINITY};
    for (int k = 0; k < 3; k++) in.transform.translation[k] = floorf(lo[k] + 0.5f);
    if (vxr_scene_src_add_instance(dest, &in) != VXR_OK)
        return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    return VXR_OK;
}

vxr_result vxr_load_westwood_vxl(const uint8_t *data, size_t size, vxr_scene_src *dest,
                                 vxr_error *err) {
    vxr_scene_src_init(dest, 1);
    if (size < WW_HEADER || memcmp(data, "Voxel Animation", 16))
        return vxr_fail(err, VXR_ERROR_FORMAT,
                        size < WW_HEADER ? "truncated: the 802-byte header needs %zu more bytes"
                                         : "not a Westwood voxel model (no \"Voxel Animation\")",
                        size < WW_HEADER ? WW_HEADER - size : 0);
    const uint64_t limbs = vxr_get32(data + 20), tailers = vxr_get32(data + 24),
                   body_size = vxr_get32(data + 28);
    const uint64_t need = WW_HEADER + LIMB_HEADER * limbs + body_size + TAILER * tailers;
    if (limbs != tailers || limbs == 0 || limbs > size || need > size)
        return vxr_fail(err, VXR_ERROR_FORMAT,
                        "%llu limbs, %llu tailers and a body of %llu bytes do not fit its %zu",
                        (unsigned long long)limbs, (unsigned long long)tailers,
                        (unsigned long long)body_size, size);
    uint32_t palette[256];
    bool any = false;
    for (int i = 0; i < 768; i++) any |= data[34 + i] != 0;
    for (int i = 0; i < 256; i++) {
        const uint8_t *c = data + 34 + 3 * i;
        palette[i] =
            any ? vxr_rgba(c[0], c[1], c[2], 255) : vxr_vox_default_palette()[i] | 0xff000000u;
    }
    vxr_color_map *map = calloc(1, sizeof *map);
    vxr_result r = map ? VXR_OK : vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    const uint8_t *body = data + WW_HEADER + LIMB_HEADER * limbs, *tail = body + body_size;
    for (uint32_t i = 0; r == VXR_OK && i < limbs; i++)
        r = limb(body, body_size, tail + TAILER * (size_t)i, i, palette, map, dest, err);
    if (r == VXR_OK) dest->attr_size = map->rgba ? 4 : 1;
    free(map);
    if (r != VXR_OK) vxr_scene_src_free(dest);
    return r;
}

/* ---- Ace of Spades ---- */

enum { AOS_SIDE = 512, AOS_HEIGHT = 64 };

static vxr_result aos_column(const uint8_t **at, const uint8_t *end, uint32_t x, uint32_t y,
                             vxr_color_map *map, vxr_scene_src *dest, vxr_error *err) {
    const uint8_t *v = *at;
    /* colours of the column by z, 0 where a solid cell has none */
    uint32_t color[AOS_HEIGHT] = {0};
    bool solid[AOS_HEIGHT] = {false};
    for (;;) {
        if (end - v < 4) return vxr_fail(err, VXR_ERROR_FORMAT, "column (%u, %u): cut short", x, y);
        const uint32_t n = v[0], s = v[1], e = v[2];
        if (s > e + 1 || e >= AOS_HEIGHT)
            return vxr_fail(err, VXR_ERROR_FORMAT, "column (%u, %u): a span of z %u..%u", x, y, s,
                            e);
        const uint32_t top = e + 1 - s;
        const uint64_t words = n ? n : top + 1;
        if (n && n < top + 1)
            return vxr_fail(err, VXR_ERROR_FORMAT,
                            "column (%u, %u): a span of %u words holds %u "
                            "colours",
                            x, y, n, top);
        if ((uint64_t)(end - v) < 4 * words)
            return vxr_fail(err, VXR_ERROR_FORMAT, "column (%u, %u): cut short", x, y);
        for (uint32_t z = s; z <= e; z++) {
            const uint8_t *c = v + 4 + 4 * (z - s);
            color[z] = vxr_rgba(c[2], c[1], c[0], 255);
        }
        if (n == 0) { /* solid from s down */
            for (uint32_t z = s; z < AOS_HEIGHT; z++) solid[z] = true;
            v += 4 * words;
            break;
        }
        const uint32_t bottom = n - 1 - top;
        const uint8_t *next = v + 4 * n;
        if (end - next < 4)
            return vxr_fail(err, VXR_ERROR_FORMAT, "column (%u, %u): cut short", x, y);
        const uint32_t air = next[3]; /* the next span's air ends here */
        if (air < bottom || air - bottom < s || air > AOS_HEIGHT)
            return vxr_fail(err, VXR_ERROR_FORMAT,
                            "column (%u, %u): %u bottom colours end at z %u, under a span from %u",
                            x, y, bottom, air, s);
        for (uint32_t z = s; z < air; z++) solid[z] = true;
        for (uint32_t i = 0; i < bottom; i++) {
            const uint8_t *c = v + 4 + 4 * (top + i);
            color[air - bottom + i] = vxr_rgba(c[2], c[1], c[0], 255);
        }
        v = next;
    }
    *at = v;
    uint32_t above = vxr_rgba(128, 128, 128, 255);
    for (uint32_t z = 0; z < AOS_HEIGHT; z++) {
        if (!solid[z]) continue;
        if (color[z]) above = color[z];
        const uint32_t attr = vxr_color_attr(map, dest, color[z] ? color[z] : above);
        if (vxr_model_src_push(&dest->models[0], (int32_t)x, AOS_SIDE - 1 - (int32_t)y,
                               AOS_HEIGHT - 1 - (int32_t)z, attr) != VXR_OK)
            return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    }
    return VXR_OK;
}

vxr_result vxr_load_aos_vxl(const uint8_t *data, size_t size, vxr_scene_src *dest, vxr_error *err) {
    vxr_scene_src_init(dest, 1);
    uint32_t model;
    vxr_color_map *map = calloc(1, sizeof *map);
    vxr_result r = map && vxr_scene_src_add_model(dest, &model) == VXR_OK
                       ? VXR_OK
                       : vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    const uint8_t *at = data, *end = data + size;
    for (uint32_t y = 0; r == VXR_OK && y < AOS_SIDE; y++)
        for (uint32_t x = 0; r == VXR_OK && x < AOS_SIDE; x++)
            r = aos_column(&at, end, x, y, map, dest, err);
    if (r == VXR_ERROR_FORMAT && err) {
        char why[sizeof err->message];
        memcpy(why, err->message, sizeof why);
        vxr_fail(err, r,
                 "neither Westwood's .vxl (no \"Voxel Animation\") nor an Ace of Spades "
                 "map: %s",
                 why);
    }
    if (r == VXR_OK && at != end)
        r = vxr_fail(err, VXR_ERROR_FORMAT,
                     "%zu bytes after the 512 x 512 columns of an Ace of Spades map",
                     (size_t)(end - at));
    if (r == VXR_OK) {
        dest->attr_size = map->rgba ? 4 : 1;
        vxr_instance in = {0, 0, vxr_transform_identity(), INFINITY};
        if (vxr_scene_src_add_instance(dest, &in) != VXR_OK)
            r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    }
    free(map);
    if (r != VXR_OK) vxr_scene_src_free(dest);
    return r;
}
