/* .vxo: vxr's own file of built octrees. Little-endian 32-bit words:
 *
 *   "VXO\0" version attr_size model_count instance_count 0 0 0   (8 words)
 *   palette[256]
 *   per model: origin[3] depth voxel_count node_count brick_count
 *              vmin[3] vmax[3]                                    (13 words)
 *              nodes[node_count] (2 words each), brick_attr[brick_count],
 *              attrs (voxel_count * attr_size bytes, zero-padded to 4)
 *   per instance: model flags rotation[9] scale translation[3]
 *                 view_distance                                   (16 words)
 *
 * Words are uint32, int32 (origin, vmin, vmax) or float (the instance's
 * last 14). A rotation is row-major and a signed axis permutation: one entry
 * of each row and column is +1 or -1, the rest 0. That is the 24 rotations
 * and their 24 mirror images, which MagicaVoxel files carry; vxr_save_vxo
 * refuses any other rotation.
 *
 * The loader trusts nothing: every count is checked against the bytes left,
 * every octree is validated (vxr_octree_validate), padding must be zero and
 * nothing may follow, so a file that loads is exactly what save writes. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "vxr/edit.h"

#define VXO_VERSION 1u
enum { HEADER_WORDS = 8, MODEL_WORDS = 13, INSTANCE_WORDS = 16 };

static size_t pad4(size_t v) {
    return (v + 3) & ~(size_t)3;
}

static size_t model_bytes(const vxr_octree *m) {
    return MODEL_WORDS * 4 + (size_t)m->node_count * 8 + (size_t)m->brick_count * 4 +
           pad4((size_t)m->voxel_count * m->attr_size);
}

/* The models as compact octrees: the scene's own, or compact copies of
 * live ones (in copies[], freed by the caller). */
static vxr_result compact_models(const vxr_scene *s, const vxr_octree **dest, vxr_octree *copies,
                                 vxr_error *err) {
    for (uint32_t i = 0; i < s->model_count; i++) {
        dest[i] = &s->models[i];
        if (!s->models[i].live) continue;
        vxr_result r = vxr_octree_compact_copy(&s->models[i], &copies[i], err);
        if (r != VXR_OK) return r;
        dest[i] = &copies[i];
    }
    return VXR_OK;
}

/* Whether R (row-major) is a signed axis permutation: per row exactly one
 * entry +-1 and the others 0, each column used once. */
static bool signed_permutation(const float R[9]) {
    uint32_t used = 0;
    for (int i = 0; i < 3; i++) {
        int ones = 0, column = 0;
        for (int k = 0; k < 3; k++) {
            float v = R[3 * i + k];
            if (v == 1 || v == -1) {
                ones++;
                column = k;
            } else if (v != 0) {
                return false;
            }
        }
        if (ones != 1 || used & 1u << column) return false;
        used |= 1u << column;
    }
    return true;
}

static bool saved(const vxr_instance *in) {
    return !(in->flags & VXR_INSTANCE_REMOVED);
}

static void put_model(const vxr_octree *m, uint8_t **at) {
    uint8_t *p = *at;
    const uint32_t w[MODEL_WORDS] = {(uint32_t)m->origin[0], (uint32_t)m->origin[1],
                                     (uint32_t)m->origin[2], m->depth,
                                     m->voxel_count,         m->node_count,
                                     m->brick_count,         (uint32_t)m->vmin[0],
                                     (uint32_t)m->vmin[1],   (uint32_t)m->vmin[2],
                                     (uint32_t)m->vmax[0],   (uint32_t)m->vmax[1],
                                     (uint32_t)m->vmax[2]};
    for (int k = 0; k < MODEL_WORDS; k++, p += 4) vxr_put32(p, w[k]);
    for (uint32_t k = 0; k < m->node_count; k++, p += 8) {
        vxr_put32(p, m->nodes[k].a);
        vxr_put32(p + 4, m->nodes[k].b);
    }
    for (uint32_t k = 0; k < m->brick_count; k++, p += 4) vxr_put32(p, m->brick_attr[k]);
    if (m->attr_size == 1) {
        if (m->voxel_count) memcpy(p, m->attrs, m->voxel_count); /* attrs: NULL when empty */
    } else {
        for (uint32_t k = 0; k < m->voxel_count; k++) {
            uint32_t c;
            memcpy(&c, m->attrs + 4 * (size_t)k, 4);
            vxr_put32(p + 4 * (size_t)k, c);
        }
    }
    *at = p + pad4((size_t)m->voxel_count * m->attr_size);
}

vxr_result vxr_save_vxo(const vxr_scene *s, uint8_t **data, size_t *size, vxr_error *err) {
    *data = NULL;
    *size = 0;
    size_t n = s->model_count ? s->model_count : 1;
    const vxr_octree **models = malloc(n * sizeof *models);
    vxr_octree *copies = calloc(n, sizeof *copies);
    vxr_result r = models && copies ? compact_models(s, models, copies, err)
                                    : vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    uint32_t instances = 0;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        if (!saved(&s->instances[i])) continue;
        instances++;
        if (r == VXR_OK && !signed_permutation(s->instances[i].transform.rotation))
            r = vxr_fail(err, VXR_ERROR_LIMIT,
                         "instance %u has a rotation other than a signed axis permutation: .vxo "
                         "cannot hold it",
                         i);
    }
    size_t total = (HEADER_WORDS + VXR_PALETTE_SIZE) * 4 + (size_t)instances * INSTANCE_WORDS * 4;
    for (uint32_t i = 0; r == VXR_OK && i < s->model_count; i++) total += model_bytes(models[i]);
    uint8_t *out = r == VXR_OK ? calloc(1, total) : NULL, *p = out;
    if (r == VXR_OK && !out)
        r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory for %zu bytes", total);
    if (r == VXR_OK) {
        const uint32_t header[HEADER_WORDS] = {0x004f5856u, VXO_VERSION, s->attr_size,
                                               s->model_count, instances};
        for (int k = 0; k < HEADER_WORDS; k++, p += 4) vxr_put32(p, header[k]);
        for (uint32_t k = 0; k < VXR_PALETTE_SIZE; k++, p += 4) vxr_put32(p, s->palette[k]);
        for (uint32_t i = 0; i < s->model_count; i++) put_model(models[i], &p);
        for (uint32_t i = 0; i < s->instance_count; i++) {
            const vxr_instance *in = &s->instances[i];
            if (!saved(in)) continue;
            uint32_t w[INSTANCE_WORDS];
            w[0] = in->model;
            w[1] = in->flags & VXR_INSTANCE_HIDDEN; /* culling is not the file's */
            memcpy(w + 2, in->transform.rotation, 9 * 4);
            memcpy(w + 11, &in->transform.scale, 4);
            memcpy(w + 12, in->transform.translation, 3 * 4);
            memcpy(w + 15, &in->view_distance, 4);
            for (int k = 0; k < INSTANCE_WORDS; k++, p += 4) vxr_put32(p, w[k]);
        }
        *data = out;
        *size = total;
    }
    for (uint32_t i = 0; copies && i < s->model_count; i++) vxr_octree_free(&copies[i]);
    free(copies);
    free(models);
    return r;
}

typedef struct cursor {
    const uint8_t *p;
    size_t size, pos;
} cursor;

static int take(cursor *c, size_t bytes, const uint8_t **at) {
    if (bytes > c->size - c->pos) return 0;
    *at = c->p + c->pos;
    c->pos += bytes;
    return 1;
}

static vxr_result read_model(cursor *c, uint32_t attr_size, vxr_octree *m, uint32_t index,
                             vxr_error *err) {
    const uint8_t *w;
    size_t at = c->pos;
    if (!take(c, MODEL_WORDS * 4, &w))
        return vxr_fail(err, VXR_ERROR_FORMAT, "byte %zu: model %u header is truncated", at, index);
    for (int k = 0; k < 3; k++) {
        m->origin[k] = (int32_t)vxr_get32(w + 4 * k);
        m->vmin[k] = (int32_t)vxr_get32(w + 28 + 4 * k);
        m->vmax[k] = (int32_t)vxr_get32(w + 40 + 4 * k);
    }
    m->depth = vxr_get32(w + 12);
    m->voxel_count = vxr_get32(w + 16);
    m->node_count = vxr_get32(w + 20);
    m->brick_count = vxr_get32(w + 24);
    m->attr_size = attr_size;
    size_t attr_bytes = (size_t)m->voxel_count * attr_size;
    uint64_t need = (uint64_t)m->node_count * 8 + (uint64_t)m->brick_count * 4 + pad4(attr_bytes);
    if (need > c->size - c->pos)
        return vxr_fail(
            err, VXR_ERROR_FORMAT,
            "byte %zu: model %u claims %u nodes, %u bricks and %u voxels, more than the "
            "%zu bytes left",
            at, index, m->node_count, m->brick_count, m->voxel_count, c->size - c->pos);
    m->nodes = malloc(((size_t)m->node_count ? m->node_count : 1) * sizeof *m->nodes);
    m->brick_attr = malloc(((size_t)m->brick_count ? m->brick_count : 1) * sizeof *m->brick_attr);
    m->attrs = malloc(attr_bytes ? attr_bytes : 1);
    if (!m->nodes || !m->brick_attr || !m->attrs)
        return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory for model %u", index);
    take(c, (size_t)m->node_count * 8, &w);
    for (uint32_t k = 0; k < m->node_count; k++) {
        m->nodes[k].a = vxr_get32(w + 8 * (size_t)k);
        m->nodes[k].b = vxr_get32(w + 8 * (size_t)k + 4);
    }
    take(c, (size_t)m->brick_count * 4, &w);
    for (uint32_t k = 0; k < m->brick_count; k++) m->brick_attr[k] = vxr_get32(w + 4 * (size_t)k);
    take(c, pad4(attr_bytes), &w);
    if (attr_size == 1) {
        memcpy(m->attrs, w, attr_bytes);
    } else {
        for (uint32_t k = 0; k < m->voxel_count; k++) {
            uint32_t v = vxr_get32(w + 4 * (size_t)k);
            memcpy(m->attrs + 4 * (size_t)k, &v, 4);
        }
    }
    for (size_t k = attr_bytes; k < pad4(attr_bytes); k++)
        if (w[k]) return vxr_fail(err, VXR_ERROR_FORMAT, "model %u: non-zero padding", index);
    vxr_error inner;
    if (vxr_octree_validate(m, &inner) != VXR_OK)
        return vxr_fail(err, VXR_ERROR_FORMAT, "byte %zu: model %u: %s", at, index, inner.message);
    return VXR_OK;
}

vxr_result vxr_load_vxo(const uint8_t *data, size_t size, vxr_scene **dest, vxr_error *err) {
    *dest = NULL;
    cursor c = {data, size, 0};
    const uint8_t *w;
    if (!take(&c, (HEADER_WORDS + VXR_PALETTE_SIZE) * 4, &w) || memcmp(w, "VXO", 4))
        return vxr_fail(err, VXR_ERROR_FORMAT, "not a .vxo file (bad magic or truncated header)");
    uint32_t version = vxr_get32(w + 4), attr_size = vxr_get32(w + 8);
    uint32_t models = vxr_get32(w + 12), instances = vxr_get32(w + 16);
    if (version != VXO_VERSION)
        return vxr_fail(err, VXR_ERROR_FORMAT, ".vxo version %u (this build reads %u)", version,
                        VXO_VERSION);
    if (attr_size != 1 && attr_size != 4)
        return vxr_fail(err, VXR_ERROR_FORMAT, "attribute size %u (expected 1 or 4)", attr_size);
    if (vxr_get32(w + 20) || vxr_get32(w + 24) || vxr_get32(w + 28))
        return vxr_fail(err, VXR_ERROR_FORMAT, "reserved header words are not zero");
    /* Each model needs at least its header, each instance its record. */
    if ((uint64_t)models * MODEL_WORDS * 4 + (uint64_t)instances * INSTANCE_WORDS * 4 >
        size - c.pos)
        return vxr_fail(err, VXR_ERROR_FORMAT, "%u models and %u instances do not fit in %zu bytes",
                        models, instances, size);
    vxr_scene *s = vxr_scene_alloc(models, instances);
    if (!s) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    s->attr_size = attr_size;
    for (uint32_t k = 0; k < VXR_PALETTE_SIZE; k++) s->palette[k] = vxr_get32(w + 32 + 4 * k);
    vxr_result r = VXR_OK;
    for (uint32_t i = 0; r == VXR_OK && i < models; i++)
        r = read_model(&c, attr_size, &s->models[i], i, err);
    for (uint32_t i = 0; r == VXR_OK && i < instances; i++) {
        size_t at = c.pos;
        if (!take(&c, INSTANCE_WORDS * 4, &w)) {
            r = vxr_fail(err, VXR_ERROR_FORMAT, "byte %zu: instance %u is truncated", at, i);
            break;
        }
        uint32_t v[INSTANCE_WORDS];
        for (int k = 0; k < INSTANCE_WORDS; k++) v[k] = vxr_get32(w + 4 * k);
        vxr_instance *in = &s->instances[i];
        in->model = v[0];
        in->flags = v[1];
        memcpy(in->transform.rotation, v + 2, 9 * 4);
        memcpy(&in->transform.scale, v + 11, 4);
        memcpy(in->transform.translation, v + 12, 3 * 4);
        memcpy(&in->view_distance, v + 15, 4);
        if (in->flags & ~(uint32_t)VXR_INSTANCE_HIDDEN)
            r = vxr_fail(err, VXR_ERROR_FORMAT, "byte %zu: instance %u has unknown flags 0x%x", at,
                         i, in->flags);
        else if (!signed_permutation(in->transform.rotation))
            r = vxr_fail(err, VXR_ERROR_FORMAT,
                         "byte %zu: instance %u has rotation [%g %g %g; %g %g %g; %g %g %g], not a "
                         "signed axis permutation (one entry +-1 per row and column, the rest 0)",
                         at, i, (double)in->transform.rotation[0],
                         (double)in->transform.rotation[1], (double)in->transform.rotation[2],
                         (double)in->transform.rotation[3], (double)in->transform.rotation[4],
                         (double)in->transform.rotation[5], (double)in->transform.rotation[6],
                         (double)in->transform.rotation[7], (double)in->transform.rotation[8]);
        else
            r = vxr_instance_check(in, i, models, err);
    }
    if (r == VXR_OK && c.pos != size)
        r = vxr_fail(err, VXR_ERROR_FORMAT, "%zu unexpected bytes after the last instance",
                     size - c.pos);
    if (r != VXR_OK) {
        vxr_scene_destroy(s);
        return r;
    }
    *dest = s;
    return VXR_OK;
}
