/* Shaped, undoable edits (vxr/edit.h): each step lists the voxels it
 * changed, before and after, in a journal of bounded size; undo puts the
 * "before" back, redo the "after". */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "internal.h"
#include "vxr/edit.h"

/* The most cells one step may name (a box of 512^3), and the journal's
 * default size. */
#define MAX_STEP_CELLS  (1ull << 27)
#define DEFAULT_JOURNAL (64u << 20)

typedef struct step {
    uint32_t model;
    vxr_voxel_change *c;
    size_t n, cap;
} step;

struct vxr_editor {
    vxr_scene *scene;
    step *steps; /* [head, top) done, [top, n) undone */
    size_t head, top, n, cap;
    size_t bytes, budget;
};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static size_t step_bytes(const step *s) {
    return sizeof *s + s->cap * sizeof *s->c;
}

static void drop(vxr_editor *e, size_t i) {
    e->bytes -= step_bytes(&e->steps[i]);
    free(e->steps[i].c);
    memset(&e->steps[i], 0, sizeof e->steps[i]);
}

vxr_result vxr_editor_create(vxr_scene *scene, size_t journal_bytes, vxr_editor **dest,
                             vxr_error *err) {
    *dest = NULL;
    vxr_result r = vxr_scene_make_live(scene);
    if (r != VXR_OK) return vxr_fail(err, r, "out of memory making the models editable");
    vxr_editor *e = calloc(1, sizeof *e);
    if (!e) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    e->scene = scene;
    e->budget = journal_bytes ? journal_bytes : DEFAULT_JOURNAL;
    *dest = e;
    return VXR_OK;
}

void vxr_editor_destroy(vxr_editor *e) {
    if (!e) return;
    for (size_t i = e->head; i < e->n; i++) free(e->steps[i].c);
    free(e->steps);
    free(e);
}

void vxr_editor_depth(const vxr_editor *e, uint32_t *undo, uint32_t *redo, size_t *bytes) {
    if (undo) *undo = (uint32_t)(e->top - e->head);
    if (redo) *redo = (uint32_t)(e->n - e->top);
    if (bytes) *bytes = e->bytes;
}

/* A new step at the top: what could be redone goes, then, while the
 * journal is over budget, the oldest steps. */
static step *new_step(vxr_editor *e, uint32_t model) {
    while (e->n > e->top) drop(e, --e->n);
    if (e->head > 0 && e->head * 2 >= e->n) { /* reclaim the dropped front */
        memmove(e->steps, e->steps + e->head, (e->n - e->head) * sizeof *e->steps);
        e->n -= e->head;
        e->top -= e->head;
        e->head = 0;
    }
    if (e->n == e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 64;
        step *p = realloc(e->steps, cap * sizeof *p);
        if (!p) return NULL;
        e->steps = p;
        e->cap = cap;
    }
    step *s = &e->steps[e->n++];
    memset(s, 0, sizeof *s);
    s->model = model;
    e->top = e->n;
    e->bytes += step_bytes(s);
    return s;
}

static bool record(vxr_editor *e, step *s, const vxr_voxel_change *c) {
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        vxr_voxel_change *p = realloc(s->c, cap * sizeof *p);
        if (!p) return false;
        e->bytes += (cap - s->cap) * sizeof *p;
        s->c = p;
        s->cap = cap;
    }
    s->c[s->n++] = *c;
    return true;
}

static void trim_journal(vxr_editor *e) {
    while (e->bytes > e->budget && e->top - e->head > 1) drop(e, e->head++);
}

/* One cell of an edit. */
static vxr_result edit_cell(vxr_octree *t, vxr_edit_op op, uint32_t value, int32_t x, int32_t y,
                            int32_t z, vxr_voxel_change *c) {
    if (op == VXR_EDIT_CLEAR) return vxr_octree_clear_voxel(t, x, y, z, c);
    return vxr_octree_set_voxel(t, x, y, z, value, op == VXR_EDIT_PAINT, c);
}

typedef struct applying {
    vxr_editor *e;
    step *s;
    vxr_octree *t;
    const vxr_edit *edit;
    uint64_t changed;
} applying;

static vxr_result apply_cell(applying *a, int32_t x, int32_t y, int32_t z) {
    vxr_voxel_change c;
    vxr_result r = edit_cell(a->t, a->edit->op, a->edit->value, x, y, z, &c);
    if (r != VXR_OK) return r;
    if (c.had == c.has && (!c.has || c.old == c.now)) return VXR_OK;
    a->changed++;
    return record(a->e, a->s, &c) ? VXR_OK : VXR_ERROR_MEMORY;
}

/* The cells of a box or sphere, as [lo, hi); false when the shape is bad
 * or too large. */
static bool shape_box(const vxr_edit *ed, const vxr_octree *t, int64_t lo[3], int64_t hi[3]) {
    const int64_t limit = (int64_t)1 << (VXR_MAX_DEPTH - 1);
    for (int k = 0; k < 3; k++) {
        if (ed->shape == VXR_SHAPE_BOX) {
            lo[k] = ed->lo[k];
            hi[k] = ed->hi[k];
        } else {
            if (!isfinite(ed->centre[k]) || !(ed->radius >= 0) || ed->radius > (double)limit ||
                fabs(ed->centre[k]) > (double)limit)
                return false;
            lo[k] = (int64_t)floor(ed->centre[k] - ed->radius - 0.5);
            hi[k] = (int64_t)ceil(ed->centre[k] + ed->radius + 0.5);
        }
        /* clear and paint need only cells that may hold voxels */
        if (ed->op != VXR_EDIT_SET) {
            if (lo[k] < t->vmin[k]) lo[k] = t->vmin[k];
            if (hi[k] > t->vmax[k]) hi[k] = t->vmax[k];
        }
        if (hi[k] < lo[k]) hi[k] = lo[k];
    }
    /* an empty side makes an empty shape, however long the others are
     * (and nothing to visit) */
    uint64_t side[3];
    for (int k = 0; k < 3; k++) side[k] = (uint64_t)(hi[k] - lo[k]);
    if (!side[0] || !side[1] || !side[2]) {
        for (int k = 0; k < 3; k++) hi[k] = lo[k];
        return true;
    }
    uint64_t cells = side[0] * side[1];
    return cells <= MAX_STEP_CELLS && cells * side[2] <= MAX_STEP_CELLS;
}

static vxr_result apply_shape(applying *a, vxr_error *err) {
    const vxr_edit *ed = a->edit;
    if (ed->shape == VXR_SHAPE_CELLS) {
        for (size_t i = 0; i < ed->count; i++) {
            vxr_result r = apply_cell(a, ed->cells[i][0], ed->cells[i][1], ed->cells[i][2]);
            if (r != VXR_OK)
                return vxr_fail(err, r, "cell %zu (%d,%d,%d): %s", i, ed->cells[i][0],
                                ed->cells[i][1], ed->cells[i][2], vxr_result_string(r));
        }
        return VXR_OK;
    }
    if (ed->shape != VXR_SHAPE_BOX && ed->shape != VXR_SHAPE_SPHERE)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "unknown edit shape %d", (int)ed->shape);
    int64_t lo[3], hi[3];
    if (!shape_box(ed, a->t, lo, hi))
        return vxr_fail(err, VXR_ERROR_LIMIT,
                        "the edit names more than 2^27 cells, or its sphere is not finite");
    const double r2 = ed->radius * ed->radius;
    for (int64_t x = lo[0]; x < hi[0]; x++)
        for (int64_t y = lo[1]; y < hi[1]; y++)
            for (int64_t z = lo[2]; z < hi[2]; z++) {
                if (ed->shape == VXR_SHAPE_SPHERE) {
                    double dx = (double)x + 0.5 - ed->centre[0],
                           dy = (double)y + 0.5 - ed->centre[1],
                           dz = (double)z + 0.5 - ed->centre[2];
                    if (dx * dx + dy * dy + dz * dz > r2) continue;
                }
                vxr_result r = apply_cell(a, (int32_t)x, (int32_t)y, (int32_t)z);
                if (r != VXR_OK)
                    return vxr_fail(err, r, "cell (%lld,%lld,%lld): %s", (long long)x, (long long)y,
                                    (long long)z, vxr_result_string(r));
            }
    return VXR_OK;
}

/* The model an edit names, live. */
static vxr_result edit_model(vxr_editor *e, uint32_t model, vxr_octree **dest, vxr_error *err) {
    vxr_scene *s = e->scene;
    if (model >= s->model_count || s->models[model].attr_size == 0)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "no model %u (the scene has %u)", model,
                        s->model_count);
    vxr_result r = vxr_octree_make_live(&s->models[model]);
    if (r != VXR_OK) return vxr_fail(err, r, "out of memory");
    *dest = &s->models[model];
    return VXR_OK;
}

vxr_result vxr_editor_apply(vxr_editor *e, const vxr_edit *ed, vxr_edit_result *result,
                            vxr_error *err) {
    double t0 = now_s();
    if (result) memset(result, 0, sizeof *result);
    vxr_octree *t = NULL;
    vxr_result r = edit_model(e, ed->model, &t, err);
    if (r != VXR_OK) return r;
    if (ed->op < VXR_EDIT_SET || ed->op > VXR_EDIT_PAINT)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "unknown edit operation %d", (int)ed->op);
    if (ed->op != VXR_EDIT_CLEAR && t->attr_size == 1 && (ed->value == 0 || ed->value > 255))
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "palette index %u (expected 1..255)", ed->value);
    step *s = new_step(e, ed->model);
    if (!s) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    applying a = {e, s, t, ed, 0};
    r = apply_shape(&a, err);
    vxr_octree_refresh_bounds(t);
    vxr_scene_touch_model(e->scene, ed->model);
    trim_journal(e);
    if (result) {
        result->changed = a.changed;
        result->seconds = now_s() - t0;
    }
    return r;
}

/* Applies a step's changes backwards (undo: the state before) or forwards
 * (redo: the state after). */
static vxr_result replay(vxr_editor *e, const step *s, bool forward, vxr_error *err) {
    vxr_octree *t = NULL;
    vxr_result r = edit_model(e, s->model, &t, err);
    if (r != VXR_OK) return r;
    for (size_t k = 0; r == VXR_OK && k < s->n; k++) {
        const vxr_voxel_change *c = &s->c[forward ? k : s->n - 1 - k];
        bool present = forward ? c->has : c->had;
        uint32_t value = forward ? c->now : c->old;
        r = present
                ? vxr_octree_set_voxel(t, c->cell[0], c->cell[1], c->cell[2], value, false, NULL)
                : vxr_octree_clear_voxel(t, c->cell[0], c->cell[1], c->cell[2], NULL);
        if (r != VXR_OK) vxr_fail(err, r, "replaying an edit: %s", vxr_result_string(r));
    }
    vxr_octree_refresh_bounds(t);
    vxr_scene_touch_model(e->scene, s->model);
    return r;
}

vxr_result vxr_editor_undo(vxr_editor *e, bool *done, vxr_error *err) {
    *done = false;
    if (e->top == e->head) return VXR_OK;
    vxr_result r = replay(e, &e->steps[e->top - 1], false, err);
    if (r == VXR_OK) {
        e->top--;
        *done = true;
    }
    return r;
}

vxr_result vxr_editor_redo(vxr_editor *e, bool *done, vxr_error *err) {
    *done = false;
    if (e->top == e->n) return VXR_OK;
    vxr_result r = replay(e, &e->steps[e->top], true, err);
    if (r == VXR_OK) {
        e->top++;
        *done = true;
    }
    return r;
}
