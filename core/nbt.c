/* Minecraft's NBT (Named Binary Tag, big-endian; as the Minecraft wiki's
 * "NBT format" page describes it): a reader that walks tags in place. */
#include <string.h>
#include "internal.h"

enum { MAX_DEPTH = 512 }; /* what Minecraft itself allows */

static uint64_t be(const uint8_t *p, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v = v << 8 | p[i];
    return v;
}

/* Moves *at past a payload of type within d[0..n); false when it does not
 * fit or nests too deep. */
static bool skip(const uint8_t *d, size_t n, uint8_t type, size_t *at, int depth) {
    static const uint8_t fixed[13] = {0, 1, 2, 4, 8, 4, 8, 0, 0, 0, 0, 0, 0};
    static const uint8_t element[13] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 4, 8};
    if (depth > MAX_DEPTH || type == 0 || type > 12) return false;
    const size_t left = n - *at;
    if (fixed[type]) {
        if (left < fixed[type]) return false;
        *at += fixed[type];
        return true;
    }
    if (element[type]) { /* byte, int and long arrays */
        if (left < 4) return false;
        const uint64_t count = (uint32_t)be(d + *at, 4);
        if (count > 0x7fffffff || count * element[type] > left - 4) return false;
        *at += 4 + (size_t)count * element[type];
        return true;
    }
    if (type == 8) { /* string */
        if (left < 2) return false;
        const size_t len = (size_t)be(d + *at, 2);
        if (len > left - 2) return false;
        *at += 2 + len;
        return true;
    }
    if (type == 9) { /* list: element type, count, payloads */
        if (left < 5) return false;
        const uint8_t et = d[*at];
        const uint64_t count = (uint32_t)be(d + *at + 1, 4);
        *at += 5;
        if (count > 0x7fffffff || (count && (et == 0 || et > 12))) return false;
        for (uint64_t i = 0; i < count; i++)
            if (!skip(d, n, et, at, depth + 1)) return false;
        return true;
    }
    for (;;) { /* compound: named tags up to an end tag */
        if (*at >= n) return false;
        const uint8_t t = d[(*at)++];
        if (t == 0) return true;
        if (!skip(d, n, 8, at, depth + 1) || !skip(d, n, t, at, depth + 1)) return false;
    }
}

bool vxr_nbt_root(const uint8_t *d, size_t n, vxr_nbt *root) {
    size_t at = 0;
    if (n < 3 || d[0] != 10) return false;
    at = 1;
    if (!skip(d, n, 8, &at, 0)) return false;
    const size_t start = at;
    if (!skip(d, n, 10, &at, 0)) return false;
    *root = (vxr_nbt){d, 10, start, at};
    return true;
}

bool vxr_nbt_next(const vxr_nbt *compound, size_t *cursor, vxr_nbt *child, const uint8_t **name,
                  size_t *name_len) {
    const uint8_t *d = compound->data;
    size_t at = *cursor ? *cursor : compound->at;
    if (compound->type != 10 || at >= compound->end) return false;
    const uint8_t t = d[at++];
    if (t == 0) return false;
    const size_t len = (size_t)be(d + at, 2); /* checked when the compound was skipped */
    *name = d + at + 2;
    *name_len = len;
    at += 2 + len;
    const size_t start = at;
    skip(d, compound->end, t, &at, 1);
    *child = (vxr_nbt){d, t, start, at};
    *cursor = at;
    return true;
}

bool vxr_nbt_get(const vxr_nbt *compound, const char *name, uint8_t type, vxr_nbt *child) {
    size_t cursor = 0, len;
    const uint8_t *key;
    const size_t want = strlen(name);
    while (vxr_nbt_next(compound, &cursor, child, &key, &len))
        if (len == want && !memcmp(key, name, want)) return child->type == type;
    return false;
}

bool vxr_nbt_int(const vxr_nbt *compound, const char *name, int32_t *v) {
    vxr_nbt c;
    if (!vxr_nbt_get(compound, name, 3, &c)) return false;
    *v = (int32_t)(uint32_t)be(c.data + c.at, 4);
    return true;
}

uint32_t vxr_nbt_count(const vxr_nbt *array) {
    const size_t at = array->at + (array->type == 9 ? 1 : 0);
    return (uint32_t)be(array->data + at, 4);
}

uint8_t vxr_nbt_list_type(const vxr_nbt *list) {
    return list->data[list->at];
}

bool vxr_nbt_list_next(const vxr_nbt *list, size_t *cursor, vxr_nbt *item) {
    const uint8_t t = list->data[list->at];
    size_t at = *cursor ? *cursor : list->at + 5;
    if (at >= list->end) return false;
    const size_t start = at;
    skip(list->data, list->end, t, &at, 1);
    *item = (vxr_nbt){list->data, t, start, at};
    *cursor = at;
    return true;
}

uint64_t vxr_nbt_long(const vxr_nbt *array, uint32_t i) {
    return be(array->data + array->at + 4 + 8 * (size_t)i, 8);
}

const uint8_t *vxr_nbt_string(const vxr_nbt *s, size_t *len) {
    *len = (size_t)be(s->data + s->at, 2);
    return s->data + s->at + 2;
}

/* The NBT a file may unpack to. */
#define MAX_NBT ((size_t)1 << 30)

vxr_result vxr_load_gzip_nbt(const uint8_t *data, size_t size, vxr_scene_src *dest, vxr_error *err,
                             const char *what,
                             vxr_result (*load)(const uint8_t *, size_t, vxr_scene_src *,
                                                vxr_error *)) {
    vxr_scene_src_init(dest, 1);
    if (size < 2 || data[0] != 0x1f || data[1] != 0x8b)
        return vxr_fail(err, VXR_ERROR_FORMAT, "not %s (not gzip data)", what);
    uint8_t *nbt;
    size_t n;
    const char *why = NULL;
    vxr_result r = vxr_inflate(data, size, true, MAX_NBT, &nbt, &n, &why);
    if (r != VXR_OK) return vxr_fail(err, r, "its gzip data: %s", why);
    r = load(nbt, n, dest, err);
    free(nbt);
    return r;
}
