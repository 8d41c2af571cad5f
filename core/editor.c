/* Shaped, undoable edits (vxr/edit.h): each step lists the voxels it
 * changed, before and after, in a journal of bounded size; undo puts the
 * "before" back, redo the "after". A step names its model by id and by
 * the version at which the model was added, so that a step of a removed
 * model is retired and never replayed into a later model of the same id. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "internal.h"
#include "vxr/edit.h"

#define DEFAULT_JOURNAL (64u << 20)
/* Cells between two progress reports. */
#define PROGRESS_CELLS (1u << 20)

typedef struct step {
    uint32_t model;
    uint64_t added; /* scene->model_added[model] when the step was made */
    vxr_voxel_change *c;
    size_t n, cap;
} step;

struct vxr_editor {
    vxr_scene *scene;
    step *steps; /* [head, top) done, [top, n) undone */
    size_t head, top, n, cap;
    size_t bytes, budget;
    vxr_journal_overflow overflow;
    uint64_t seen; /* scene->version after this editor's last call */
    vxr_edit_progress progress;
    void *progress_user;
};

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
    e->seen = scene->version;
    *dest = e;
    return VXR_OK;
}

void vxr_editor_destroy(vxr_editor *e) {
    if (!e) return;
    for (size_t i = e->head; i < e->n; i++) free(e->steps[i].c);
    free(e->steps);
    free(e);
}

void vxr_editor_set_overflow(vxr_editor *e, vxr_journal_overflow overflow) {
    e->overflow = overflow == VXR_JOURNAL_FORGET ? VXR_JOURNAL_FORGET : VXR_JOURNAL_REFUSE;
}

void vxr_editor_set_progress(vxr_editor *e, vxr_edit_progress progress, void *user) {
    e->progress = progress;
    e->progress_user = user;
}

/* The model a step edited is still the one it knew. */
static bool step_live(const vxr_scene *s, const step *st) {
    return vxr_scene_has_model(s, st->model) && s->model_added[st->model] == st->added;
}

/* Retires the steps of models removed since the editor last looked (the
 * scene's version tells when anything changed behind its back). */
static void retire(vxr_editor *e) {
    if (e->scene->version == e->seen) return;
    size_t w = e->head, top = e->top;
    for (size_t i = e->head; i < e->n; i++) {
        if (!step_live(e->scene, &e->steps[i])) {
            if (i < e->top) top--;
            drop(e, i);
            continue;
        }
        e->steps[w++] = e->steps[i];
    }
    e->n = w;
    e->top = top;
    e->seen = e->scene->version;
}

void vxr_editor_depth(const vxr_editor *e, uint32_t *undo, uint32_t *redo, size_t *bytes) {
    /* const: count around steps that retire() has not dropped yet */
    uint32_t u = 0, d = 0;
    for (size_t i = e->head; i < e->n; i++)
        if (step_live(e->scene, &e->steps[i])) *(i < e->top ? &u : &d) += 1;
    if (undo) *undo = u;
    if (redo) *redo = d;
    if (bytes) *bytes = e->bytes;
}

void vxr_editor_next(const vxr_editor *e, uint64_t *undo, uint64_t *redo) {
    if (undo) *undo = 0;
    if (redo) *redo = 0;
    for (size_t i = e->top; undo && i > e->head; i--)
        if (step_live(e->scene, &e->steps[i - 1])) {
            *undo = e->steps[i - 1].n;
            break;
        }
    for (size_t i = e->top; redo && i < e->n; i++)
        if (step_live(e->scene, &e->steps[i])) {
            *redo = e->steps[i].n;
            break;
        }
}

/* Forgets every step (a step applied without undo cuts the history). */
static void forget_all(vxr_editor *e) {
    for (size_t i = e->head; i < e->n; i++) drop(e, i);
    e->head = e->top = e->n = 0;
}

/* Puts a made step at the top: what could be redone goes. False when out
 * of memory (the journal is then as it was). */
static bool push_step(vxr_editor *e, const step *made) {
    if (e->top == e->cap && e->head == 0) {
        size_t cap = e->cap ? e->cap * 2 : 64;
        step *p = realloc(e->steps, cap * sizeof *p);
        if (!p) return false;
        e->steps = p;
        e->cap = cap;
    }
    while (e->n > e->top) drop(e, --e->n);
    if (e->head > 0 && (e->head * 2 >= e->n || e->n == e->cap)) { /* reclaim the dropped front */
        memmove(e->steps, e->steps + e->head, (e->n - e->head) * sizeof *e->steps);
        e->n -= e->head;
        e->top -= e->head;
        e->head = 0;
    }
    e->steps[e->n++] = *made;
    e->top = e->n;
    e->bytes += step_bytes(made);
    return true;
}

/* The journal over budget: the oldest steps go, never the newest. */
static void trim_journal(vxr_editor *e) {
    while (e->bytes > e->budget && e->top - e->head > 1) drop(e, e->head++);
}

/* ---- checking an edit ---- */

/* Cells in the box [lo, hi), saturated past VXR_EDIT_MAX_CELLS. */
static uint64_t box_cells(const int64_t lo[3], const int64_t hi[3]) {
    uint64_t n = 1;
    for (int k = 0; k < 3; k++) {
        uint64_t side = hi[k] > lo[k] ? (uint64_t)(hi[k] - lo[k]) : 0;
        n = side && n > VXR_EDIT_MAX_CELLS / side ? VXR_EDIT_MAX_CELLS + 1 : n * side;
    }
    return n;
}

/* The cells of a box or sphere edit as [lo, hi) (clear and paint clipped to
 * the model's voxels), and how many that is; false when the shape is bad,
 * or visits more than VXR_EDIT_MAX_CELLS. */
static bool shape_box(const vxr_edit *ed, const vxr_octree *t, int64_t lo[3], int64_t hi[3],
                      uint64_t *cells) {
    const int64_t limit = (int64_t)1 << (VXR_MAX_DEPTH - 1);
    *cells = 0;
    for (int k = 0; k < 3; k++) {
        if (ed->shape == VXR_SHAPE_BOX) {
            lo[k] = ed->lo[k];
            hi[k] = ed->hi[k];
            if (lo[k] < -limit || hi[k] > limit) return false;
        } else {
            if (!isfinite(ed->centre[k]) || !(ed->radius >= 0) || ed->radius > (double)limit ||
                fabs(ed->centre[k]) > (double)limit)
                return false;
            lo[k] = (int64_t)floor(ed->centre[k] - ed->radius - 0.5);
            hi[k] = (int64_t)ceil(ed->centre[k] + ed->radius + 0.5);
            if (lo[k] < -limit || hi[k] > limit) return false;
        }
    }
    for (int k = 0; k < 3; k++) {
        /* clear and paint need only cells that may hold voxels */
        if (ed->op != VXR_EDIT_SET) {
            if (lo[k] < t->vmin[k]) lo[k] = t->vmin[k];
            if (hi[k] > t->vmax[k]) hi[k] = t->vmax[k];
        }
        if (hi[k] < lo[k]) hi[k] = lo[k];
    }
    *cells = box_cells(lo, hi);
    if (*cells > VXR_EDIT_MAX_CELLS) return false;
    if (!*cells)
        for (int k = 0; k < 3; k++) hi[k] = lo[k]; /* nothing to visit */
    return true;
}

vxr_result vxr_edit_check(const vxr_scene *s, const vxr_edit *ed, uint64_t *cells, vxr_error *err) {
    if (cells) *cells = 0;
    if (!ed) return vxr_fail(err, VXR_ERROR_ARGUMENT, "no edit");
    if (!vxr_scene_has_model(s, ed->model))
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "no model %u (the scene has %u)", ed->model,
                        s->model_count);
    if (ed->op < VXR_EDIT_SET || ed->op > VXR_EDIT_PAINT)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "unknown edit operation %d", (int)ed->op);
    if (ed->op != VXR_EDIT_CLEAR && s->attr_size == 1 && (ed->value == 0 || ed->value > 255))
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "palette index %u (expected 1..255)", ed->value);
    if (ed->op != VXR_EDIT_CLEAR && s->attr_size == 4 && !(ed->value >> 24))
        return vxr_fail(err, VXR_ERROR_ARGUMENT,
                        "colour 0x%08x has alpha 0 (it would read as empty)", ed->value);
    const vxr_octree *t = &s->models[ed->model];
    if (ed->shape == VXR_SHAPE_CELLS) {
        if (ed->count && !ed->cells) return vxr_fail(err, VXR_ERROR_ARGUMENT, "no cells");
        if (ed->count > VXR_EDIT_MAX_CELLS)
            return vxr_fail(err, VXR_ERROR_LIMIT, "%zu cells (at most 2^27 a step)", ed->count);
        const int32_t reach = 1 << (VXR_MAX_DEPTH - 1);
        for (size_t i = 0; i < ed->count; i++)
            for (int k = 0; k < 3; k++)
                if (ed->cells[i][k] < -reach || ed->cells[i][k] >= reach)
                    return vxr_fail(err, VXR_ERROR_LIMIT,
                                    "cell %zu (%d,%d,%d) lies beyond a model's reach (2^%u)", i,
                                    ed->cells[i][0], ed->cells[i][1], ed->cells[i][2],
                                    VXR_MAX_DEPTH - 1);
        if (cells) *cells = ed->count;
        return VXR_OK;
    }
    if (ed->shape != VXR_SHAPE_BOX && ed->shape != VXR_SHAPE_SPHERE)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "unknown edit shape %d", (int)ed->shape);
    int64_t lo[3], hi[3];
    uint64_t n;
    if (!shape_box(ed, t, lo, hi, &n))
        return vxr_fail(err, VXR_ERROR_LIMIT,
                        ed->shape == VXR_SHAPE_BOX
                            ? "box of more than 2^27 cells (the most one step may name), or "
                              "beyond a model's reach (2^20)"
                            : "sphere spans more than 2^27 cells (the most one step may name), "
                              "or is not finite or beyond a model's reach (2^20)");
    if (cells) *cells = n;
    return VXR_OK;
}

/* ---- applying ---- */

typedef struct applying {
    vxr_editor *e;
    step *s;      /* NULL once the step goes unrecorded */
    size_t limit; /* changes a step may record */
    vxr_octree *t;
    const vxr_edit *edit;
    uint64_t changed, visited, total;
    bool overflowed;
} applying;

/* Records one change; false when the step outgrows the journal (or memory,
 * which is told apart by a->overflowed staying false). */
static bool record(applying *a, const vxr_voxel_change *c) {
    step *s = a->s;
    if (s->n == s->cap) {
        if (s->cap >= a->limit) {
            a->overflowed = true;
            return false;
        }
        size_t cap = s->cap ? s->cap * 2 : 16;
        if (cap > a->limit) cap = a->limit;
        vxr_voxel_change *p = realloc(s->c, cap * sizeof *p);
        if (!p) return false;
        s->c = p;
        s->cap = cap;
    }
    s->c[s->n++] = *c;
    return true;
}

/* Puts back one change. */
static void revert(vxr_octree *t, const vxr_voxel_change *c) {
    if (c->had)
        vxr_octree_set_voxel(t, c->cell[0], c->cell[1], c->cell[2], c->old, false, NULL);
    else
        vxr_octree_clear_voxel(t, c->cell[0], c->cell[1], c->cell[2], NULL);
}

/* Puts back what the step recorded (newest first). */
static void unwind(vxr_octree *t, const step *s) {
    for (size_t k = s->n; k-- > 0;) revert(t, &s->c[k]);
}

static vxr_result apply_cell(applying *a, int32_t x, int32_t y, int32_t z) {
    if (a->e->progress && ++a->visited % PROGRESS_CELLS == 0)
        a->e->progress(a->e->progress_user, a->visited, a->total);
    vxr_voxel_change c;
    const vxr_edit *ed = a->edit;
    vxr_result r = ed->op == VXR_EDIT_CLEAR ? vxr_octree_clear_voxel(a->t, x, y, z, &c)
                                            : vxr_octree_set_voxel(a->t, x, y, z, ed->value,
                                                                   ed->op == VXR_EDIT_PAINT, &c);
    if (r != VXR_OK) return r;
    if (c.had == c.has && (!c.has || c.old == c.now)) return VXR_OK;
    a->changed++;
    if (!a->s || record(a, &c)) return VXR_OK;
    if (!a->overflowed || a->e->overflow == VXR_JOURNAL_REFUSE) {
        revert(a->t, &c); /* the step holds exactly what it records */
        a->changed--;
        return a->overflowed ? VXR_ERROR_LIMIT : VXR_ERROR_MEMORY;
    }
    /* VXR_JOURNAL_FORGET: the step goes on unrecorded, and the history
     * before it cannot be replayed across it */
    forget_all(a->e);
    free(a->s->c);
    a->s->c = NULL;
    a->s = NULL;
    return VXR_OK;
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
    int64_t lo[3], hi[3];
    uint64_t n;
    shape_box(ed, a->t, lo, hi, &n); /* checked by vxr_edit_check */
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

vxr_result vxr_editor_apply(vxr_editor *e, const vxr_edit *ed, vxr_edit_result *result,
                            vxr_error *err) {
    double t0 = vxr_seconds();
    if (result) memset(result, 0, sizeof *result);
    retire(e);
    uint64_t cells;
    vxr_result r = vxr_edit_check(e->scene, ed, &cells, err);
    if (r != VXR_OK) return r;
    vxr_octree *t = &e->scene->models[ed->model];
    if ((r = vxr_octree_make_live(t)) != VXR_OK) return vxr_fail(err, r, "out of memory");
    /* The step is made apart and pushed when done, so that a step the
     * journal refuses leaves the journal (its redo steps too) as it was. */
    step made = {ed->model, e->scene->model_added[ed->model], NULL, 0, 0};
    size_t room = e->budget > sizeof made ? e->budget - sizeof made : 0;
    applying a = {e, &made, room / sizeof *made.c, t, ed, 0, 0, cells, false};
    r = apply_shape(&a, err);
    if (r == VXR_ERROR_LIMIT && a.overflowed) {
        unwind(t, &made); /* VXR_JOURNAL_REFUSE: as if never tried */
        a.changed = 0;
        vxr_fail(err, r,
                 "the step changes more voxels than the undo journal holds (%zu bytes at %zu a "
                 "voxel); nothing was changed",
                 e->budget, sizeof *made.c);
    } else if (a.s && !push_step(e, &made)) {
        unwind(t, &made);
        a.changed = 0;
        r = vxr_fail(err, VXR_ERROR_MEMORY, "out of memory; nothing was changed");
    } else if (a.s) {
        made.c = NULL; /* the journal's now */
    }
    free(made.c);
    vxr_octree_refresh_bounds(t);
    vxr_scene_touch_model(e->scene, ed->model, NULL);
    trim_journal(e);
    e->seen = e->scene->version;
    if (result) {
        result->changed = a.changed;
        result->seconds = vxr_seconds() - t0;
        result->journaled = a.s != NULL;
    }
    return r;
}

/* Applies a step's changes backwards (undo: the state before) or forwards
 * (redo: the state after). */
static vxr_result replay(vxr_editor *e, const step *s, bool forward, vxr_error *err) {
    vxr_octree *t = &e->scene->models[s->model];
    vxr_result r = vxr_octree_make_live(t);
    if (r != VXR_OK) return vxr_fail(err, r, "out of memory");
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
    vxr_scene_touch_model(e->scene, s->model, NULL);
    e->seen = e->scene->version;
    return r;
}

vxr_result vxr_editor_undo(vxr_editor *e, bool *done, vxr_error *err) {
    *done = false;
    retire(e);
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
    retire(e);
    if (e->top == e->n) return VXR_OK;
    vxr_result r = replay(e, &e->steps[e->top], true, err);
    if (r == VXR_OK) {
        e->top++;
        *done = true;
    }
    return r;
}
