/* .vl32 (Eisenwave/voxel-io): headerless records of big-endian int32 x, y, z
 * and a big-endian ARGB colour; alpha 0 means empty. Saving streams (the
 * records are made instance by instance into a small buffer) into a
 * whole-or-nothing output file (vxr_output_*, core/output.c). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

enum { RECORD = 16 };

/* ARGB as stored -> RGBA8 with red in the low byte. */
static uint32_t argb_to_rgba(uint32_t argb) {
    return vxr_rgba(argb >> 16, argb >> 8, argb, argb >> 24);
}

vxr_result vxr_load_vl32(const uint8_t *data, size_t size, vxr_scene_src *dest, vxr_error *err) {
    vxr_scene_src_init(dest, 1);
    if (size % RECORD)
        return vxr_fail(err, VXR_ERROR_FORMAT,
                        "size %zu is not a multiple of 16-byte records (truncated at byte %zu)",
                        size, size - size % RECORD);
    size_t n = size / RECORD;
    vxr_color_map *map = calloc(1, sizeof *map);
    uint32_t index;
    vxr_result r = map ? vxr_scene_src_add_model(dest, &index) : VXR_ERROR_MEMORY;
    vxr_model_src *m = r == VXR_OK ? &dest->models[0] : NULL;
    if (m) {
        m->voxels = malloc((n ? n : 1) * sizeof *m->voxels);
        m->capacity = n;
        if (!m->voxels) r = VXR_ERROR_MEMORY;
    }
    for (size_t i = 0; r == VXR_OK && i < n; i++) {
        const uint8_t *p = data + i * RECORD;
        uint32_t argb = vxr_get_be32(p + 12);
        if ((argb >> 24) == 0) continue;
        const uint32_t c = vxr_color_attr(map, dest, argb_to_rgba(argb));
        m->voxels[m->count++] = (vxr_voxel){(int32_t)vxr_get_be32(p), (int32_t)vxr_get_be32(p + 4),
                                            (int32_t)vxr_get_be32(p + 8), c};
    }
    if (map && r == VXR_OK) dest->attr_size = map->rgba ? 4 : 1;
    free(map);
    if (r != VXR_OK) {
        vxr_scene_src_free(dest);
        return vxr_fail(err, r, "out of memory reading %zu records", n);
    }
    vxr_instance in = {0, 0, vxr_transform_identity(), INFINITY};
    r = vxr_scene_src_add_instance(dest, &in);
    if (r != VXR_OK) {
        vxr_scene_src_free(dest);
        return vxr_fail(err, r, "out of memory");
    }
    return VXR_OK;
}

/* ---- saving ---- */

enum { CHUNK = 1 << 16 }; /* records buffered between writes */

typedef struct export_ctx {
    const vxr_scene *scene;
    int32_t R[9];
    int64_t t[3];
    uint8_t *out; /* the records so far, or (f) a buffer of CHUNK */
    size_t n;
    FILE *f; /* streaming: full buffers go here */
    int failed;
} export_ctx;

static void export_voxel(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    export_ctx *e = user;
    const int64_t v[3] = {x, y, z};
    if (e->f && e->n == CHUNK) {
        if (!e->failed && fwrite(e->out, RECORD, CHUNK, e->f) != CHUNK) e->failed = 1;
        e->n = 0;
    }
    uint8_t *p = e->out + e->n++ * RECORD;
    int64_t w[3];
    vxr_place_cell(e->R, e->t, v, w);
    for (int i = 0; i < 3; i++) vxr_put_be32(p + 4 * i, (uint32_t)(int32_t)w[i]);
    uint32_t c = e->scene->attr_size == 1 ? e->scene->palette[attr] : attr;
    vxr_put_be32(p + 12, (c & 0xff000000u) | (c & 255) << 16 | (c & 0xff00) | ((c >> 16) & 255));
}

int vxr_integer_placement(const vxr_transform *t, int32_t R[9], int64_t tr[3]) {
    if (t->scale != 1) return 0;
    for (int i = 0; i < 3; i++) {
        int nonzero = 0;
        for (int k = 0; k < 3; k++) {
            float v = t->rotation[3 * i + k];
            if (v != 0 && v != 1 && v != -1) return 0;
            R[3 * i + k] = (int32_t)v;
            nonzero += v != 0;
        }
        if (nonzero != 1 || t->translation[i] != floorf(t->translation[i]) ||
            fabsf(t->translation[i]) > 16777216.0f)
            return 0;
        tr[i] = (int64_t)t->translation[i];
    }
    return 1;
}

vxr_result vxr_vl32_size(const vxr_scene *s, uint64_t *size, vxr_error *err) {
    *size = 0;
    uint64_t total = 0;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const vxr_instance *in = &s->instances[i];
        int32_t R[9];
        int64_t t[3];
        if (in->flags & VXR_INSTANCE_HIDDEN) continue;
        if (!vxr_integer_placement(&in->transform, R, t))
            return vxr_fail(err, VXR_ERROR_LIMIT,
                            "instance %u is not placed on whole cells (rotation other than an "
                            "axis permutation, or scale != 1): .vl32 cannot hold it",
                            i);
        total += s->models[in->model].voxel_count; /* < 2^32 * 2^32: no overflow */
    }
    if (total > VXR_VL32_MAX_RECORDS)
        return vxr_fail(err, VXR_ERROR_LIMIT,
                        "the .vl32 would hold %llu records (%llu bytes), over the limit of %llu "
                        "records (%llu bytes)",
                        (unsigned long long)total, (unsigned long long)total * RECORD,
                        (unsigned long long)VXR_VL32_MAX_RECORDS,
                        (unsigned long long)VXR_VL32_MAX_RECORDS * RECORD);
    *size = total * RECORD;
    return VXR_OK;
}

/* Every visible instance's voxels through export_voxel, instance order. */
static void export_all(const vxr_scene *s, export_ctx *e) {
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const vxr_instance *in = &s->instances[i];
        if (in->flags & VXR_INSTANCE_HIDDEN) continue;
        vxr_integer_placement(&in->transform, e->R, e->t);
        vxr_octree_foreach(&s->models[in->model], export_voxel, e);
    }
}

vxr_result vxr_save_vl32(const vxr_scene *s, uint8_t **data, size_t *size, vxr_error *err) {
    *data = NULL;
    *size = 0;
    uint64_t bytes;
    vxr_result r = vxr_vl32_size(s, &bytes, err);
    if (r != VXR_OK) return r;
    if (bytes > SIZE_MAX) return vxr_fail(err, VXR_ERROR_LIMIT, "too many voxels");
    export_ctx e = {s, {0}, {0}, malloc(bytes ? (size_t)bytes : 1), 0, NULL, 0};
    if (!e.out)
        return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory for %llu bytes",
                        (unsigned long long)bytes);
    export_all(s, &e);
    *data = e.out;
    *size = e.n * RECORD;
    return VXR_OK;
}

vxr_result vxr_write_vl32(const vxr_scene *s, FILE *f, vxr_error *err) {
    uint64_t bytes;
    vxr_result r = vxr_vl32_size(s, &bytes, err);
    if (r != VXR_OK) return r;
    export_ctx e = {s, {0}, {0}, malloc((size_t)CHUNK * RECORD), 0, f, 0};
    if (!e.out) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    export_all(s, &e);
    if (!e.failed && e.n && fwrite(e.out, RECORD, e.n, f) != e.n) e.failed = 1;
    free(e.out);
    if (e.failed || ferror(f))
        return vxr_fail(err, VXR_ERROR_IO, "cannot write: %s", strerror(errno));
    return VXR_OK;
}

vxr_result vxr_save_vl32_file(const vxr_scene *s, const char *path, uint64_t *size,
                              vxr_error *err) {
    uint64_t bytes;
    if (size) *size = 0;
    vxr_result r = vxr_vl32_size(s, &bytes, err); /* before anything is created */
    if (r != VXR_OK) return r;
    vxr_output *o;
    if ((r = vxr_output_open(path, &o, err)) != VXR_OK) return r;
    if ((r = vxr_write_vl32(s, vxr_output_file(o), err)) != VXR_OK) {
        vxr_output_abort(o);
        return r;
    }
    if ((r = vxr_output_commit(o, err)) == VXR_OK && size) *size = bytes;
    return r;
}
