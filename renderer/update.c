/* Scenes that change on the GPU (vxr_renderer_update): the renderer reads
 * the scene's journal from its cursor, plans which models to rewrite (each
 * owns a range of each octree section with room to grow: sections.c),
 * records their changed spans, the table records that differ and the
 * instance hierarchy's changed nodes through the staging ring
 * (staging.c), and moves on the GPU the models that outgrew their ranges;
 * a section without room is laid out afresh in new buffers. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "update.h"
#include "vxr/bvh.h"
#include "vxr/edit.h"

/* ---- planning ---- */

static vxr_result grow_models(update *u, uint32_t need) {
    vxr_renderer *r = u->r;
    if (need <= r->model_cap) return VXR_OK;
    uint32_t cap = r->model_cap * 2 > need ? r->model_cap * 2 : need;
    vxr_resident *res = realloc(r->res, cap * sizeof *res);
    if (res) r->res = res;
    vxr_gpu_model *rec = realloc(r->model_rec, cap * sizeof *rec);
    if (rec) r->model_rec = rec;
    if (!res || !rec) return vxr_ctx_fail(r->ctx, u->err, VXR_ERROR_MEMORY, "out of memory");
    memset(r->res + r->model_cap, 0, (cap - r->model_cap) * sizeof *res);
    memset(r->model_rec + r->model_cap, 0, (cap - r->model_cap) * sizeof *rec);
    r->model_cap = cap;
    return VXR_OK;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_model_span(const void *a, const void *b) {
    const model_span *x = a, *y = b;
    if (x->model != y->model) return (x->model > y->model) - (x->model < y->model);
    return (x->start > y->start) - (x->start < y->start);
}

/* Sorts spans by model and start (unless they are already: one edit's
 * are) and joins those that touch. */
static uint32_t merge_spans(model_span *sp, uint32_t n) {
    if (n < 2) return n;
    uint32_t i = 1;
    while (i < n && cmp_model_span(&sp[i - 1], &sp[i]) <= 0) i++;
    if (i < n) qsort(sp, n, sizeof *sp, cmp_model_span);
    uint32_t out = 0;
    for (i = 1; i < n; i++) {
        model_span *o = &sp[out];
        if (sp[i].model == o->model && sp[i].start <= o->start + o->count) {
            uint32_t end = sp[i].start + sp[i].count;
            if (end > o->start + o->count) o->count = end - o->start;
        } else {
            sp[++out] = sp[i];
        }
    }
    return out + 1;
}

/* Room for need elements of elem bytes in *p (capacity *cap); false when
 * out of memory. */
static bool reserve(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return true;
    size_t c = *cap * 2 > need ? *cap * 2 : need;
    void *q = realloc(*p, c * elem);
    if (!q) return false;
    *p = q;
    *cap = c;
    return true;
}

/* Reads the scene's journal from the renderer's cursor (vxr/journal.h)
 * into r->follow, whose arrays stay from update to update. */
static vxr_result follow_journal(update *u) {
    vxr_renderer *r = u->r;
    const vxr_scene *s = u->s;
    followed *f = u->f = &r->follow;
    const vxr_change *e;
    uint32_t n, want[3] = {0};
    f->resync = !vxr_journal_read(s, &r->cursor, &e, &n, NULL);
    f->n_ids = f->n_sp[0] = f->n_sp[1] = 0;
    for (uint32_t j = 0; j < n; j++)
        want[e[j].kind == VXR_CHANGE_INSTANCE ? 0 : e[j].kind == VXR_CHANGE_NODES ? 1 : 2]++;
    if (!reserve((void **)&f->mark, &f->cap_mark, (size_t)s->model_count + 1, 1) ||
        !reserve((void **)&f->ids, &f->cap_ids, (size_t)want[0] + 1, sizeof *f->ids) ||
        !reserve((void **)&f->sp[0], &f->cap_sp[0], (size_t)want[1] + 1, sizeof *f->sp[0]) ||
        !reserve((void **)&f->sp[1], &f->cap_sp[1], (size_t)want[2] + 1, sizeof *f->sp[1]))
        return vxr_ctx_fail(r->ctx, u->err, VXR_ERROR_MEMORY, "out of memory");
    memset(f->mark, 0, (size_t)s->model_count + 1);
    for (uint32_t j = 0; j < n; j++) {
        const vxr_change *c = &e[j];
        if (c->kind == VXR_CHANGE_INSTANCE) {
            if (c->id < s->instance_count) f->ids[f->n_ids++] = c->id;
            continue;
        }
        if (c->id >= s->model_count) continue;
        if (c->kind == VXR_CHANGE_MODEL_ALL) {
            f->mark[c->id] = MARK_ALL;
        } else if (c->kind == VXR_CHANGE_MODEL) {
            if (!f->mark[c->id]) f->mark[c->id] = MARK_SPANS;
        } else if (c->kind == VXR_CHANGE_NODES || c->kind == VXR_CHANGE_ATTRS) {
            int k = c->kind == VXR_CHANGE_ATTRS;
            if (c->count) f->sp[k][f->n_sp[k]++] = (model_span){c->id, c->start, c->count};
        }
    }
    for (int k = 0; k < 2; k++) f->n_sp[k] = merge_spans(f->sp[k], f->n_sp[k]);
    return VXR_OK;
}

/* The models that changed since the last update (the journal's, or on a
 * resync those whose version moved): their new ranges (moves within a
 * section, or a new layout of it) recorded. */
static vxr_result plan_models(update *u, todo **list, uint32_t *count, bool *hierarchy) {
    vxr_renderer *r = u->r;
    const vxr_scene *s = u->s;
    vxr_result res = grow_models(u, s->model_count);
    if (res == VXR_OK) res = follow_journal(u);
    if (res != VXR_OK) return res;
    todo *t = malloc(((size_t)s->model_count + 1) * sizeof *t);
    if (!t) return vxr_ctx_fail(r->ctx, u->err, VXR_ERROR_MEMORY, "out of memory");
    *list = t;
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->model_count; i++) {
        const vxr_octree *m = &s->models[i];
        vxr_resident *res_i = &r->res[i];
        bool known = i < r->model_count;
        if (known && (u->f->resync ? res_i->version == s->model_version[i] : !u->f->mark[i]))
            continue;
        todo *d = &t[n++];
        memset(d, 0, sizeof *d);
        d->model = i;
        d->all = u->f->resync || u->f->mark[i] == MARK_ALL || !res_i->placed || !m->live;
        bool empty = m->voxel_count == 0;
        if (!res_i->placed || empty != res_i->empty) *hierarchy = true;
        if (!m->live && m->node_count == 0 && m->attr_size == 0) { /* removed */
            d->removed = true;
            if (res_i->placed)
                for (int k = 0; k < VXR_SECTIONS; k++)
                    vxr_range_free(&r->sec[k], res_i->base[k], res_i->cap[k]);
            vxr_resident_drop_colors(res_i);
            memset(res_i, 0, sizeof *res_i);
        }
    }
    if (s->model_count > r->model_count) r->model_count = s->model_count;
    *count = n;
    return VXR_OK;
}

/* New ranges for the todo models that outgrew theirs or are new, their
 * old content moved over on the GPU; a section without room for all of
 * them is laid out afresh instead (nothing moved twice). */
static vxr_result place_todo(update *u, todo *t, uint32_t n) {
    vxr_renderer *r = u->r;
    const vxr_scene *s = u->s;
    uint64_t *at = malloc(((size_t)n + 1) * sizeof *at);
    if (!at) return vxr_ctx_fail(r->ctx, u->err, VXR_ERROR_MEMORY, "out of memory");
    vxr_result res = VXR_OK;
    for (int k = 0; k < VXR_SECTIONS && res == VXR_OK; k++) {
        uint32_t j = 0;
        for (; j < n; j++) {
            vxr_resident *m = &r->res[t[j].model];
            uint64_t need[VXR_SECTIONS];
            vxr_model_needs(r, &s->models[t[j].model], need);
            at[j] = UINT64_MAX;
            if (t[j].removed || (m->placed && need[k] <= m->cap[k])) continue;
            if (!vxr_range_alloc(&r->sec[k], vxr_range_size(&s->models[t[j].model], k, need[k]),
                                 &at[j]))
                break;
        }
        if (j < n) { /* no room: give back what was taken, lay the section out */
            uint64_t *want = calloc((size_t)r->model_count + 1, sizeof *want);
            if (!want) {
                res = vxr_ctx_fail(r->ctx, u->err, VXR_ERROR_MEMORY, "out of memory");
                break;
            }
            for (uint32_t q = 0; q < r->model_count; q++) want[q] = r->res[q].cap[k];
            for (uint32_t q = 0; q < n; q++) {
                const vxr_octree *o = &s->models[t[q].model];
                uint64_t need[VXR_SECTIONS];
                vxr_model_needs(r, o, need);
                if (q < j && at[q] != UINT64_MAX)
                    vxr_range_free(&r->sec[k], at[q], vxr_range_size(o, k, need[k]));
                if (!t[q].removed && need[k] > want[t[q].model])
                    want[t[q].model] = vxr_range_size(o, k, need[k]);
                if (!t[q].removed) r->res[t[q].model].placed = true;
            }
            res = vxr_relayout(u, k, want, u->err);
            free(want);
            continue;
        }
        for (j = 0; j < n; j++) {
            if (at[j] == UINT64_MAX) continue;
            vxr_resident *m = &r->res[t[j].model];
            uint64_t need[VXR_SECTIONS];
            vxr_model_needs(r, &s->models[t[j].model], need);
            if (m->placed) {
                if (!t[j].all)
                    vxr_move_section(u, k, &r->buf[r->sec[k].first], m->base[k], at[j], m->used[k]);
                vxr_range_free(&r->sec[k], m->base[k], m->cap[k]);
            }
            m->base[k] = at[j];
            m->cap[k] = vxr_range_size(&s->models[t[j].model], k, need[k]);
        }
    }
    free(at);
    for (uint32_t j = 0; j < n && res == VXR_OK; j++)
        if (!t[j].removed) r->res[t[j].model].placed = true;
    return res;
}

/* Uploads the journal's spans of live model i and the node colours they
 * change (at[k]: the first span of kind k not yet passed; models ascend). */
static vxr_result upload_spans(update *u, uint32_t i, const vxr_octree *m,
                               const uint64_t need[VXR_SECTIONS], uint32_t at[2]) {
    const vxr_resident *d = &u->r->res[i];
    const model_span *sp = u->f->sp[0], *ap = u->f->sp[1];
    vxr_result res = VXR_OK;
    while (at[0] < u->f->n_sp[0] && sp[at[0]].model < i) at[0]++;
    const uint32_t first = at[0];
    for (; at[0] < u->f->n_sp[0] && sp[at[0]].model == i && res == VXR_OK; at[0]++) {
        uint64_t start = sp[at[0]].start, end = start + sp[at[0]].count;
        if (end > need[VXR_SEC_NODES]) end = need[VXR_SEC_NODES];
        if (start >= end) continue;
        res = vxr_upload_section(u, VXR_SEC_NODES, d->base[VXR_SEC_NODES] + start, end - start, m,
                                 start);
        if (res == VXR_OK)
            res = vxr_upload_section(u, VXR_SEC_BATTR, d->base[VXR_SEC_BATTR] + start, end - start,
                                     m, start);
    }
    uint32_t size = m->attr_size;
    while (at[1] < u->f->n_sp[1] && ap[at[1]].model < i) at[1]++;
    for (; at[1] < u->f->n_sp[1] && ap[at[1]].model == i && res == VXR_OK; at[1]++) {
        uint64_t w0 = (uint64_t)ap[at[1]].start * size / 4,
                 w1 = (((uint64_t)ap[at[1]].start + ap[at[1]].count) * size + 3) / 4;
        if (w1 > need[VXR_SEC_ATTRS]) w1 = need[VXR_SEC_ATTRS];
        if (w0 >= w1) continue;
        res = vxr_upload_section(u, VXR_SEC_ATTRS, d->base[VXR_SEC_ATTRS] + w0, w1 - w0, m, w0);
    }
    return res == VXR_OK ? vxr_upload_colors(u, i, m, sp + first, at[0] - first) : res;
}

/* Uploads what changed of the todo models, and their table records. */
static vxr_result upload_models(update *u, todo *t, uint32_t n) {
    vxr_renderer *r = u->r;
    const vxr_scene *s = u->s;
    vxr_result res = VXR_OK;
    uint32_t at[2] = {0, 0};
    for (uint32_t j = 0; j < n && res == VXR_OK; j++) {
        uint32_t i = t[j].model;
        const vxr_octree *m = &s->models[i];
        vxr_resident *d = &r->res[i];
        if (t[j].removed) {
            d->version = s->model_version[i];
            continue;
        }
        uint64_t need[VXR_SECTIONS];
        vxr_model_needs(r, m, need);
        if (t[j].all) {
            for (int k = 0; k < VXR_SECTIONS && res == VXR_OK; k++)
                res = k == VXR_SEC_COLORS && m->live
                          ? vxr_upload_colors(u, i, m, NULL, 0)
                          : vxr_upload_section(u, k, d->base[k], need[k], m, 0);
            if (!m->live) vxr_resident_drop_colors(d);
        } else {
            res = upload_spans(u, i, m, need, at);
        }
        if (res != VXR_OK) break;
        memcpy(d->used, need, sizeof d->used);
        d->version = s->model_version[i];
        d->empty = m->voxel_count == 0;
        vxr_resident_occupancy(d, m);
        u->info->models++;
    }
    return res;
}

/* ---- tables ---- */

/* Uploads the records of table b (elem bytes each, `count`) that differ
 * from `old` (all of them with `all`), in runs. */
static vxr_result upload_records(update *u, uint32_t b, const void *now, const void *old,
                                 uint32_t count, size_t elem, bool all, uint32_t *changed) {
    const uint8_t *a = now, *o = old;
    for (uint32_t i = 0; i < count;) {
        if (!all && !memcmp(a + i * elem, o + i * elem, elem)) {
            i++;
            continue;
        }
        uint32_t j = i + 1;
        while (j < count && (all || memcmp(a + j * elem, o + j * elem, elem))) j++;
        vxr_result res = vxr_upload_table(u, b, i * elem, a + i * elem, (uint64_t)(j - i) * elem);
        if (res != VXR_OK) return res;
        *changed += j - i;
        i = j;
    }
    return VXR_OK;
}

static vxr_result update_models_table(update *u) {
    vxr_renderer *r = u->r;
    const vxr_scene *s = u->s;
    bool all = false;
    vxr_result res;
    uint32_t cap_records = (uint32_t)(r->buf[VXR_BIND_MODELS].size / sizeof(vxr_gpu_model));
    if (s->model_count > cap_records) {
        if ((res =
                 vxr_new_table(u, VXR_BIND_MODELS, (uint64_t)r->model_cap * sizeof(vxr_gpu_model))))
            return res;
        all = true;
    }
    vxr_gpu_model *now = malloc(((size_t)s->model_count + 1) * sizeof *now);
    if (!now) return vxr_ctx_fail(r->ctx, u->err, VXR_ERROR_MEMORY, "out of memory");
    for (uint32_t i = 0; i < s->model_count; i++) vxr_renderer_model_record(r, s, i, &now[i]);
    uint32_t changed = 0;
    res = upload_records(u, VXR_BIND_MODELS, now, r->model_rec, s->model_count,
                         sizeof(vxr_gpu_model), all, &changed);
    if (res == VXR_OK) memcpy(r->model_rec, now, (size_t)s->model_count * sizeof *now);
    for (uint32_t i = 0; res == VXR_OK && i < s->model_count; i++)
        vxr_renderer_grow_model(r, &now[i]);
    free(now);
    return res;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The instances to look at, ascending and once each: those the journal
 * lists since the last update, the instances of the todo models
 * (their bounds may have moved) and new ones; *every (dest NULL) when the
 * journal cannot tell, and each instance must be looked at. */
static vxr_result instances_to_check(update *u, const todo *t, uint32_t n_todo, bool *every,
                                     uint32_t **dest, uint32_t *count) {
    vxr_renderer *r = u->r;
    const vxr_scene *s = u->s;
    uint32_t listed = u->f->n_ids, n = s->instance_count, k = 0;
    *dest = NULL;
    *count = 0;
    *every = u->f->resync;
    if (*every) return VXR_OK;
    uint32_t models = 0;
    for (uint32_t j = 0; j < n_todo; j++) models += !t[j].removed;
    uint32_t fresh = n > r->instance_count ? n - r->instance_count : 0;
    size_t cap = (size_t)listed + fresh + (models ? n : 0) + 1;
    uint32_t *ids = malloc(cap * sizeof *ids);
    uint8_t *mark = models ? calloc((size_t)s->model_count + 1, 1) : NULL;
    if (!ids || (models && !mark)) {
        free(ids);
        free(mark);
        return vxr_ctx_fail(r->ctx, u->err, VXR_ERROR_MEMORY, "out of memory");
    }
    for (uint32_t j = 0; j < listed; j++) ids[k++] = u->f->ids[j];
    for (uint32_t i = n - fresh; i < n; i++) ids[k++] = i;
    if (models) {
        for (uint32_t j = 0; j < n_todo; j++)
            if (!t[j].removed) mark[t[j].model] = 1;
        for (uint32_t i = 0; i < n; i++)
            if (mark[s->instances[i].model]) ids[k++] = i;
        free(mark);
    }
    qsort(ids, k, sizeof *ids, cmp_u32);
    uint32_t kept = 0;
    for (uint32_t j = 0; j < k; j++)
        if (!kept || ids[j] != ids[kept - 1]) ids[kept++] = ids[j];
    *dest = ids;
    *count = kept;
    return VXR_OK;
}

/* Changed hierarchy nodes this close together go up as one copy, with the
 * nodes between them: fewer copy regions for a few bytes more. */
#define NODE_GAP 4

/* Uploads the entries list[count] (ascending indices into data, elem bytes
 * each) into binding `binding`, in runs: entries at most `gap` apart go up
 * as one copy with those between. *written grows by the entries copied. */
static vxr_result upload_runs(update *u, uint32_t binding, const void *data, size_t elem,
                              const uint32_t *list, uint32_t count, uint32_t gap,
                              uint32_t *written) {
    vxr_result res = VXR_OK;
    for (uint32_t a = 0; a < count && res == VXR_OK;) {
        uint32_t b = a + 1;
        while (b < count && list[b] - list[b - 1] <= gap) b++;
        uint32_t first = list[a], n = list[b - 1] + 1 - first;
        res = vxr_upload_table(u, binding, (uint64_t)first * elem,
                               (const uint8_t *)data + first * elem, (uint64_t)n * elem);
        *written += n;
        a = b;
    }
    return res;
}

/* Uploads what the hierarchy's update changed: everything after a build,
 * else the changed nodes and items in runs. */
static vxr_result upload_hierarchy(update *u) {
    vxr_renderer *r = u->r;
    vxr_bvh *h = r->bvh;
    vxr_bvh_changes ch;
    vxr_result res = VXR_OK;
    vxr_bvh_get_changes(h, &ch);
    if (ch.all) {
        if ((res = vxr_upload_table(u, VXR_BIND_BVH, 0, h->nodes,
                                    (uint64_t)h->node_count * sizeof *h->nodes)) == VXR_OK)
            res = vxr_upload_table(u, VXR_BIND_ITEMS, 0, h->items, (uint64_t)h->item_count * 4);
        u->info->bvh_nodes = h->node_count;
        u->info->hierarchy = true;
    } else {
        uint32_t items = 0;
        res = upload_runs(u, VXR_BIND_BVH, h->nodes, sizeof *h->nodes, ch.nodes, ch.node_count,
                          NODE_GAP, &u->info->bvh_nodes);
        if (res == VXR_OK)
            res = upload_runs(u, VXR_BIND_ITEMS, h->items, 4, ch.items, ch.item_count, 4 * NODE_GAP,
                              &items);
        u->info->refit = true;
    }
    if (res == VXR_OK) vxr_bvh_changes_taken(h);
    return res;
}

/* The instance records that differ among those that may have changed
 * (instances_to_check), in runs, and the hierarchy brought up to date:
 * refitted, or built afresh when `hierarchy` (a model appeared or emptied,
 * new tables) or the set of visible instances changed. */
static vxr_result update_instances(update *u, bool hierarchy, const todo *t, uint32_t n_todo) {
    vxr_renderer *r = u->r;
    const vxr_scene *s = u->s;
    vxr_context *c = r->ctx;
    vxr_result res = VXR_OK;
    bool all = false;
    if (s->instance_count > r->instance_cap) {
        uint32_t cap = s->instance_count + s->instance_count / 2 + 4;
        if (vxr_bvh_node_bound(cap) * VXR_BVH_TEXELS > c->props.limits.maxTexelBufferElements)
            cap = s->instance_count;
        if (vxr_bvh_node_bound(cap) * VXR_BVH_TEXELS > c->props.limits.maxTexelBufferElements)
            return vxr_ctx_fail(c, u->err, VXR_ERROR_LIMIT,
                                "%u instances: the hierarchy no longer fits one binding",
                                s->instance_count);
        vxr_gpu_instance *p = realloc(r->inst_rec, (size_t)cap * sizeof *p);
        if (!p) return vxr_ctx_fail(c, u->err, VXR_ERROR_MEMORY, "out of memory");
        r->inst_rec = p;
        r->instance_cap = cap;
        if ((res =
                 vxr_new_table(u, VXR_BIND_INSTANCES, (uint64_t)cap * sizeof(vxr_gpu_instance))) ||
            (res = vxr_new_table(u, VXR_BIND_BVH,
                                 vxr_bvh_node_bound(cap) * sizeof(vxr_gpu_bvh_node))) ||
            (res = vxr_new_table(u, VXR_BIND_ITEMS, (uint64_t)cap * 4)) ||
            (res = vxr_motion_table(u, cap)))
            return res;
        all = hierarchy = true;
    }
    uint32_t n = s->instance_count, k = 0, *check = NULL;
    bool every = false;
    if (!all && (res = instances_to_check(u, t, n_todo, &every, &check, &k)) != VXR_OK) return res;
    every |= all;
    if (every) k = n;
    u->info->instances_checked = k;
    /* the records that differ: ids ascending, their new records */
    vxr_gpu_instance *now = malloc(((size_t)k + 1) * sizeof *now);
    uint32_t *ids = malloc(((size_t)k + 1) * sizeof *ids), m = 0;
    if (!now || !ids) {
        free(check), free(now), free(ids);
        return vxr_ctx_fail(c, u->err, VXR_ERROR_MEMORY, "out of memory");
    }
    for (uint32_t j = 0; j < k; j++) {
        uint32_t i = every ? j : check[j];
        vxr_instance_gpu(s, i, &now[m]);
        if (all || i >= r->instance_count || memcmp(&now[m], &r->inst_rec[i], sizeof now[m]))
            ids[m++] = i;
    }
    free(check);
    for (uint32_t a = 0; a < m && res == VXR_OK;) {
        uint32_t b = a + 1;
        while (b < m && ids[b] == ids[b - 1] + 1) b++;
        res = vxr_upload_table(u, VXR_BIND_INSTANCES, (uint64_t)ids[a] * sizeof *now, &now[a],
                               (uint64_t)(b - a) * sizeof *now);
        a = b;
    }
    if (res == VXR_OK) res = vxr_motion_update(u, ids, now, m);
    if (res == VXR_OK) { /* the table is written: the records are the uploaded ones */
        for (uint32_t j = 0; j < m; j++) {
            r->inst_rec[ids[j]] = now[j];
            vxr_renderer_grow_instance(r, &now[j]);
        }
        u->info->instances = m;
        if (n != r->instance_count) hierarchy = true;
        r->instance_count = n;
        if (!r->bvh && !(r->bvh = calloc(1, sizeof *r->bvh)))
            res = vxr_ctx_fail(c, u->err, VXR_ERROR_MEMORY, "out of memory");
        else if (!r->bvh->instance_count && !r->bvh->node_count)
            hierarchy = true; /* none kept (or an empty one): build */
    }
    /* pending node changes (an upload failed before) go up too */
    if (res == VXR_OK && (m || hierarchy || r->bvh->fresh || r->bvh->nodes_changed.count ||
                          r->bvh->items_changed.count)) {
        res = vxr_bvh_update(r->bvh, s, r->inst_rec, ids, m, hierarchy, r->instance_cap, NULL);
        if (res != VXR_OK) { /* the next update builds it */
            vxr_bvh_free(r->bvh);
            res =
                vxr_ctx_fail(c, u->err, res, "the instance hierarchy: %s", vxr_result_string(res));
        } else {
            vxr_renderer_take_hierarchy(r, r->bvh);
            res = upload_hierarchy(u);
        }
    }
    free(now);
    free(ids);
    return res;
}

/* After a new layout: a descriptor set over the new buffers (the old one
 * retired), and new pipelines when the chunk counts changed. */
static vxr_result rebind(update *u) {
    vxr_renderer *r = u->r;
    vxr_retired d = {.serial = u->serial, .pool = r->pool};
    vxr_result res = vxr_retire(r, &d, u->err);
    if (res != VXR_OK) return res;
    r->pool = VK_NULL_HANDLE;
    return vxr_renderer_bind(r, u->err);
}

vxr_result vxr_renderer_update(vxr_renderer *r, const vxr_scene *s, VkCommandBuffer cmd,
                               vxr_update_info *info, vxr_error *err) {
    double t0 = now_ms();
    vxr_update_info scratch;
    if (!info) info = &scratch;
    memset(info, 0, sizeof *info);
    if (!cmd || s != r->scene || s->attr_size != r->spec.attr_size)
        return vxr_ctx_fail(r->ctx, err, VXR_ERROR_ARGUMENT,
                            "update: needs a command buffer and the scene the renderer was "
                            "created from");
    update u = {.r = r, .s = s, .cmd = cmd, .serial = r->serial + 1, .info = info, .err = err};
    uint64_t cursor = r->cursor; /* a failed update reads these changes again */
    todo *t = NULL;
    uint32_t n = 0;
    bool hierarchy = false;
    vxr_result res = plan_models(&u, &t, &n, &hierarchy);
    if (res != VXR_OK) goto done;
    /* earlier reads (frames recorded or submitted before) and transfers
     * (earlier updates) finish before these writes */
    vxr_update_barrier(&u, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    if ((res = place_todo(&u, t, n)) != VXR_OK) goto done;
    if (info->moved_bytes) /* moves land before the changes on top of them */
        vxr_update_barrier(&u, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                           VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
    if ((res = upload_models(&u, t, n)) != VXR_OK || (res = update_models_table(&u)) != VXR_OK ||
        (res = update_instances(&u, hierarchy, t, n)) != VXR_OK)
        goto done;
    vxr_update_barrier(&u, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
    /* a descriptor set over replaced buffers; until it is made (an update
     * failed before or while making it), frames are refused and every
     * update tries again, since the old set's views are retired */
    if (r->rebind_due && (res = rebind(&u)) != VXR_OK) goto done;
    r->rebind_due = false;
    /* new chunk counts or walk: new pipelines (the context keeps the old
     * ones, which frames in flight may use); until they are made, frames
     * are refused and every update tries again */
    r->pipes_due |= vxr_spec_chunks(r);
    r->pipes_due |= vxr_spec_wide(r, s);
    if (r->pipes_due && (res = vxr_renderer_pipelines_make(r, false, err)) != VXR_OK) goto done;
    r->pipes_due = false;
    r->serial = u.serial;
    r->version = s->version;
    vxr_ring *g = &r->ring;
    if (g->buf.buffer) { /* the staging this update used stays until it completed */
        if (g->mark_first + g->mark_count == g->mark_cap) {
            if (g->mark_first) {
                memmove(g->marks, g->marks + g->mark_first, g->mark_count * sizeof *g->marks);
                g->mark_first = 0;
            } else {
                uint32_t cap = g->mark_cap ? g->mark_cap * 2 : 16;
                void *p = realloc(g->marks, cap * sizeof *g->marks);
                if (!p) {
                    res = vxr_ctx_fail(r->ctx, err, VXR_ERROR_MEMORY, "out of memory");
                    goto done;
                }
                g->marks = p;
                g->mark_cap = cap;
            }
        }
        g->marks[g->mark_first + g->mark_count].serial = u.serial;
        g->marks[g->mark_first + g->mark_count].end = g->head;
        g->mark_count++;
    }
    info->serial = u.serial;
done:
    vxr_update_flush(&u);
    vxr_renderer_wide_drop(r);
    free(t);
    if (res != VXR_OK) r->cursor = cursor;
    info->cpu_ms = now_ms() - t0;
    return res;
}
