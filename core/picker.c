/* The CPU picker (vxr/pick.h): its records, the hierarchy over them and
 * the seed loop's spheres and boxes, made from a scene and then kept up
 * to date with it by following the scene's journal. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "picker.h"

void vxr_picker_set_threads(vxr_picker *p, uint32_t threads) {
    p->threads = threads;
}

uint32_t vxr_picker_threads(const vxr_picker *p) {
    return p->threads ? p->threads : vxr_cpu_count();
}

/* Arrays for n instances; false when out of memory (those grown stay). */
static bool reserve(vxr_picker *p, uint32_t n) {
    if (n <= p->capacity) return true;
    size_t cap = n > 2 * (size_t)p->capacity ? n : 2 * (size_t)p->capacity;
    void *a = realloc(p->records, cap * sizeof *p->records);
    if (a) p->records = a;
    void *b = realloc(p->sphere, cap * 4 * sizeof *p->sphere);
    if (b) p->sphere = b;
    void *c = realloc(p->box, cap * 6 * sizeof *p->box);
    if (c) p->box = c;
    void *d = realloc(p->visible, cap * sizeof *p->visible);
    if (d) p->visible = d;
    if (!a || !b || !c || !d) return false;
    p->capacity = (uint32_t)cap;
    return true;
}

/* Instance i's record, box and sphere as the scene has them now. */
static void refresh(vxr_picker *p, uint32_t i) {
    vxr_gpu_instance *g = &p->records[i];
    vxr_instance_gpu(p->scene, i, g);
    if (!(g->scale >= p->min_scale)) p->min_scale = g->scale;
    float *lo = &p->box[6 * (size_t)i], *hi = lo + 3, r2 = 0;
    vxr_bvh_instance_box(g, lo, hi);
    for (int k = 0; k < 3; k++) {
        p->sphere[4 * (size_t)i + (size_t)k] = 0.5f * (lo[k] + hi[k]);
        float e = 0.5f * (hi[k] - lo[k]);
        r2 += e * e;
    }
    p->sphere[4 * (size_t)i + 3] = sqrtf(r2);
}

/* The seed loop's list: every instance the hierarchy holds. */
static void list_visible(vxr_picker *p) {
    p->n_visible = 0;
    for (uint32_t i = 0; i < p->scene->instance_count; i++)
        if (vxr_bvh_holds(p->scene, &p->records[i])) p->visible[p->n_visible++] = i;
}

vxr_result vxr_picker_create(const vxr_scene *s, vxr_picker **dest) {
    *dest = NULL;
    vxr_picker *p = calloc(1, sizeof *p);
    if (!p) return VXR_ERROR_MEMORY;
    p->scene = s;
    p->min_scale = INFINITY;
    p->cursor = vxr_journal_end(s);
    p->instances = s->instance_count;
    vxr_result r =
        reserve(p, s->instance_count ? s->instance_count : 1) ? VXR_OK : VXR_ERROR_MEMORY;
    if (r == VXR_OK) {
        for (uint32_t i = 0; i < s->instance_count; i++) refresh(p, i);
        r = vxr_bvh_build(s, p->records, &p->bvh);
    }
    if (r != VXR_OK) {
        vxr_picker_destroy(p);
        return r;
    }
    list_visible(p);
    *dest = p;
    return VXR_OK;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The instances to refresh, ascending and once each (*ids malloc'd): those
 * the journal lists from the picker's cursor, those of the models it lists
 * (their bounds follow the model) and the new ones; every instance when it
 * cannot tell. */
static bool changed_ids(vxr_picker *p, uint32_t **ids, uint32_t *count) {
    const vxr_scene *s = p->scene;
    const vxr_change *e;
    uint32_t listed, k = 0;
    bool known = vxr_journal_read(s, &p->cursor, &e, &listed, NULL), models = !known;
    for (uint32_t j = 0; j < listed; j++) models |= e[j].kind != VXR_CHANGE_INSTANCE;
    uint32_t *out = malloc(((size_t)listed + s->instance_count + 1) * sizeof *out);
    uint8_t *mark = models ? calloc((size_t)s->model_count + 1, 1) : NULL;
    if (!out || (models && !mark)) {
        free(out);
        free(mark);
        p->cursor = vxr_journal_end(s) + 1; /* the next update looks at everything */
        return false;
    }
    for (uint32_t j = 0; j < listed; j++) {
        if (e[j].kind == VXR_CHANGE_INSTANCE && e[j].id < s->instance_count)
            out[k++] = e[j].id;
        else if (e[j].kind != VXR_CHANGE_INSTANCE && e[j].id < s->model_count)
            mark[e[j].id] = 1;
    }
    for (uint32_t i = 0; i < s->instance_count; i++)
        if (i >= p->instances || (models && (!known || mark[s->instances[i].model]))) out[k++] = i;
    free(mark);
    qsort(out, k, sizeof *out, cmp_u32);
    uint32_t kept = 0;
    for (uint32_t j = 0; j < k; j++)
        if (!kept || out[j] != out[kept - 1]) out[kept++] = out[j];
    *ids = out;
    *count = kept;
    return true;
}

vxr_result vxr_picker_update(vxr_picker *p, vxr_error *err) {
    const vxr_scene *s = p->scene;
    uint32_t *ids, n;
    if (!reserve(p, s->instance_count) || !changed_ids(p, &ids, &n))
        return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    for (uint32_t j = 0; j < n; j++) refresh(p, ids[j]);
    vxr_result r = VXR_OK;
    if (n) r = vxr_bvh_update(&p->bvh, s, p->records, ids, n, !p->bvh.node_count, 0, NULL);
    free(ids);
    p->instances = s->instance_count;
    if (r != VXR_OK) {                      /* the hierarchy is freed: the next update builds it */
        p->cursor = vxr_journal_end(s) + 1; /* and looks at every instance */
        return vxr_fail(err, r, "the instance hierarchy: %s", vxr_result_string(r));
    }
    if (n) list_visible(p);
    return VXR_OK;
}

void vxr_picker_destroy(vxr_picker *p) {
    if (!p) return;
    vxr_bvh_free(&p->bvh);
    VXR_FREE(p->records, p->sphere, p->box, p->visible, p);
}
