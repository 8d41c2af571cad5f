/* MagicaVoxel .vox writer: the nodes of vxr's own scene graph (core/vox_save.c
 * writes the whole graph; core/vox_graph.c adds instances to a file's), and
 * the placements .vox can hold. */
#include <math.h>
#include <stdlib.h>
#include "vox_write.h"

vxr_result vxr_vox_get_placement(const vxr_instance *in, uint32_t index, placement *p,
                                 vxr_error *err) {
    const vxr_transform *tf = &in->transform;
    if (tf->scale != 1)
        return vxr_fail(err, VXR_ERROR_LIMIT, "instance %u has scale %g: .vox holds scale 1 only",
                        index, (double)tf->scale);
    uint32_t column[3] = {0, 0, 0}, used = 0;
    for (int i = 0; i < 3; i++) {
        int nonzero = 0;
        for (int k = 0; k < 3; k++) {
            float v = tf->rotation[3 * i + k];
            if (v != 0 && v != 1 && v != -1) nonzero = 2;
            p->R[3 * i + k] = (int32_t)v;
            if (v != 0) {
                nonzero++;
                column[i] = (uint32_t)k;
            }
        }
        if (nonzero != 1 || (used & 1u << column[i]))
            return vxr_fail(err, VXR_ERROR_LIMIT,
                            "instance %u has a rotation other than an axis permutation: .vox "
                            "cannot hold it",
                            index);
        used |= 1u << column[i];
    }
    for (int i = 0; i < 3; i++) {
        float v = tf->translation[i];
        if (v != floorf(v) || fabsf(v) > (float)MAX_TRANSLATION)
            return vxr_fail(err, VXR_ERROR_LIMIT,
                            "instance %u has translation (%g, %g, %g), not whole cells within "
                            "+-2^24: .vox cannot hold it",
                            index, (double)tf->translation[0], (double)tf->translation[1],
                            (double)tf->translation[2]);
        p->t[i] = (int64_t)v;
    }
    p->rot = encode_rotation(p->R);
    return VXR_OK;
}

void vxr_vox_put_trn(out *o, int32_t id, int32_t child, int32_t layer, bool hidden, uint32_t rot,
                     const int64_t t[3]) {
    size_t at = chunk_begin(o, "nTRN");
    put_i32(o, id);
    static const char *const hide[] = {"_hidden", "1"};
    put_dict(o, hide, hidden ? 1 : 0);
    put_i32(o, child);
    put_i32(o, -1); /* reserved */
    put_i32(o, layer);
    put_i32(o, 1); /* frames */
    if (t) {
        char r[16], tr[64];
        snprintf(r, sizeof r, "%u", rot);
        snprintf(tr, sizeof tr, "%lld %lld %lld", (long long)t[0], (long long)t[1],
                 (long long)t[2]);
        const char *const frame[] = {"_r", r, "_t", tr};
        put_dict(o, frame, 2);
    } else {
        put_dict(o, NULL, 0);
    }
    chunk_end(o, at);
}

static void put_shp(out *o, int32_t id, uint32_t model) {
    size_t at = chunk_begin(o, "nSHP");
    put_i32(o, id);
    put_dict(o, NULL, 0);
    put_i32(o, 1);
    put_i32(o, (int32_t)model);
    put_dict(o, NULL, 0);
    chunk_end(o, at);
}

void vxr_vox_put_grp(out *o, int32_t id, const int32_t *children, uint32_t n) {
    size_t at = chunk_begin(o, "nGRP");
    put_i32(o, id);
    put_dict(o, NULL, 0);
    put_i32(o, (int32_t)n);
    for (uint32_t i = 0; i < n; i++) put_i32(o, children[i]);
    chunk_end(o, at);
}

/* Node ids of instance i's subtree: its nTRN, then (one piece) its nSHP,
 * or (several) its nGRP and an nTRN, nSHP pair per piece. */
int32_t vxr_vox_subtree_nodes(const saver *s, uint32_t model) {
    return s->count[model] == 1 ? 2 : 2 + 2 * (int32_t)s->count[model];
}

/* The nTRN of a piece p of a model under R: t = T + R (shift + floor(S/2)). */
static void piece_translation(const piece *p, const placement *pl, int64_t dest[3]) {
    for (int i = 0; i < 3; i++) {
        dest[i] = pl ? pl->t[i] : 0;
        for (int k = 0; k < 3; k++) {
            int32_t r = pl ? pl->R[3 * i + k] : i == k;
            dest[i] += r * ((int64_t)p->shift[k] + p->size[k] / 2);
        }
    }
}

vxr_result vxr_vox_write_instance(saver *s, uint32_t i, int32_t id, int32_t layer) {
    const vxr_instance *in = &s->scene->instances[i];
    placement pl;
    vxr_vox_get_placement(in, i, &pl, NULL); /* checked before */
    bool hidden = (in->flags & VXR_INSTANCE_HIDDEN) != 0;
    uint32_t first = s->first[in->model], n = s->count[in->model];
    /* What the reader composes for each piece must stay within its limit. */
    for (uint32_t k = 0; k < n; k++) {
        int64_t t[3];
        piece_translation(&s->pieces[first + k], &pl, t);
        for (int j = 0; j < 3; j++)
            if (t[j] < -MAX_TRANSLATION || t[j] > MAX_TRANSLATION)
                return vxr_fail(s->err, VXR_ERROR_LIMIT,
                                "instance %u: its .vox translation lies beyond +-2^24", i);
    }
    if (n == 1) {
        int64_t t[3];
        piece_translation(&s->pieces[first], &pl, t);
        vxr_vox_put_trn(&s->o, id, id + 1, layer, hidden, pl.rot, t);
        put_shp(&s->o, id + 1, first);
        return VXR_OK;
    }
    vxr_vox_put_trn(&s->o, id, id + 1, layer, hidden, pl.rot, pl.t);
    int32_t *children = calloc(n, sizeof *children);
    if (!children) return vxr_fail(s->err, VXR_ERROR_MEMORY, "out of memory");
    for (uint32_t k = 0; k < n; k++) children[k] = id + 2 + 2 * (int32_t)k;
    vxr_vox_put_grp(&s->o, id + 1, children, n);
    free(children);
    for (uint32_t k = 0; k < n; k++) {
        int64_t t[3];
        piece_translation(&s->pieces[first + k], NULL, t);
        vxr_vox_put_trn(&s->o, id + 2 + 2 * (int32_t)k, id + 3 + 2 * (int32_t)k, layer, false,
                        IDENTITY_ROTATION, t);
        put_shp(&s->o, id + 3 + 2 * (int32_t)k, first + k);
    }
    return VXR_OK;
}
