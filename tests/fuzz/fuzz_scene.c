/* libFuzzer target: random call sequences through the scene and edit API
 * (vxr/scene.h, vxr/edit.h) -- models and instances added, removed and
 * reused, instances set, moved, hidden and given their own model, hostile
 * records and ids, picks turned into cube edits, and an editor's shaped
 * edits, undo and redo -- checked against a plain model of the scene.
 *
 * Input: byte 0 sets the scene up:
 *   bit 0     RGBA8 models (attr_size 4) instead of palette indices
 *   bits 1-3  the journal's budget: 64 MiB (0), 4 MiB, or a small one of
 *             256, 512, 1024, 2048, 4096 or 16384 bytes (steps overflow it,
 *             old steps are forgotten)
 *   bit 4     the editor starts with VXR_JOURNAL_FORGET (else REFUSE)
 *   bit 5     the editor is made at once (else at the first call that
 *             needs it, so that other calls meet compact models first)
 *   bit 6     a third model, built empty
 *   bit 7     two more instances (one rotated and hidden, one scaled)
 * The scene: model 0 a 4^3 cube at [-3, 1)^3 of varied colours, model 1
 * four voxels within [-2, 2)^3, instances of both. Then records of 8
 * bytes, at most 64 (the rest of the input is ignored):
 *   b0 & 31   the call (table `calls` below: edits 9 in 32, undo 3, redo 2,
 *             each scene call 1 or 2), b0 >> 5 a few extra bits
 *   b1..b7    its arguments: ids (0xff: UINT32_MAX, 0xf0..0xfe: at or past
 *             the end), a value, indices into tables of instance records
 *             (flags, rotation, scale, translation, view distance, each
 *             valid or not), pick fields, and for an edit the op and shape
 *             in b3 and the cells, box or sphere packed in b4..b7
 *             (little-endian; b3 shape 3: a hostile shape, cell or box
 *             beyond reach, NaN sphere, a box of more than 2^27 cells).
 * Coordinates stay within [-4, 4)^3, so the oracle holds a dense 8^3 grid
 * and a voxel count for each of at most 8 model slots (a slot's
 * generation is bumped when its id is reused), the records of at most 16
 * instances and the ones changed since the scene's journal was last read,
 * and the journal as a list of steps (model slot, generation, cell changes
 * before and after) with the index of the top. Every call's result is
 * predicted: ids (a removed model's id is reused, lowest first), refusals
 * (they change nothing, not even scene->version), the cells an edit
 * changes (vxr_edit_result.changed), what vxr_edit_check counts, overflow
 * of a small journal (REFUSE: VXR_ERROR_LIMIT, nothing changed; FORGET:
 * applied, the journal emptied) and the cube of a pick. After each call
 * the models it changed must hold the oracle's voxels (vxr_octree_foreach,
 * voxel_count, tight bounds), the instances its records, the editor its
 * undo and redo depths and next sizes (steps of removed models retired),
 * and a take of the change list must name exactly the instances changed.
 * A small journal forgets old steps at byte counts the oracle does not
 * model: after each step it takes the editor's undo depth and forgets its
 * own oldest steps to match (only when the budget is small, never the new
 * step). At the end everything is undone and redone, every model walked,
 * for one input in four one changed model compacted to a valid octree
 * (as COMPACT records do), everything freed.
 *
 * It found three core bugs, fixed in b72ceb0 (unit_edit_api
 * test_fuzz_scene_findings): an editor made after a model's removal
 * revived it, an own copy of a compact one-brick root was read out of
 * bounds when grown, and a take of an empty change list computed NULL + 0. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "vxr/edit.h"
#include "vxr/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
    SIDE = 8,
    HALF = SIDE / 2,
    CELLS = SIDE * SIDE * SIDE,
    MODELS = 8,
    INSTANCES = 16,
    MAX_RECORDS = 64,
    REC = 8,
    /* every record is at most one step, the final undo and redo add none */
    MAX_STEPS = MAX_RECORDS,
    MAX_CHANGES = MAX_RECORDS * CELLS
};

/* The oracle's loops are the harness, not code under test: no coverage
 * tracing for them (nor inlining into the traced entry point). */
#define ORACLE __attribute__((no_sanitize("coverage"), noinline))

typedef struct slot {
    bool used;
    bool dirty; /* changed since built or last compacted by the harness */
    uint32_t gen;
    uint32_t count;    /* voxels */
    uint32_t v[CELLS]; /* attr values, 0: empty */
} slot;

typedef struct change {
    uint16_t cell;
    uint32_t before, after;
} change;

typedef struct ostep {
    uint32_t model, gen;
    uint32_t first, count; /* in pool */
} ostep;

typedef struct oracle {
    uint32_t attr_size;
    slot m[MODELS];
    uint32_t model_count;
    vxr_instance in[INSTANCES];
    uint32_t instance_count;
    bool touched[INSTANCES]; /* changed since the journal was last read */
    uint64_t since;
    /* the journal: steps[0, top) undoable, [top, n) redoable */
    ostep steps[MAX_STEPS];
    uint32_t n, top;
    change pool[MAX_CHANGES];
    uint32_t pooled;
    size_t journal, budget; /* vxr_editor_create's argument, the bytes it means */
    bool small;             /* a budget that may forget steps */
    vxr_journal_overflow overflow;
} oracle;

static oracle o;
static uint32_t scratch[CELLS];

static uint32_t cell_index(int32_t x, int32_t y, int32_t z) {
    return (uint32_t)(((x + HALF) * SIDE + (y + HALF)) * SIDE + (z + HALF));
}

/* ---- checks ---- */

/* What a walk of a model found: every voxel one of the oracle's, and their
 * count and bounds (with the oracle's count, the same set). */
typedef struct check {
    const uint32_t *v;
    uint32_t count;
    int32_t lo[3], hi[3];
} check;

ORACLE static void check_voxel(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    check *c = user;
    if (x < -HALF || x >= HALF || y < -HALF || y >= HALF || z < -HALF || z >= HALF) abort();
    if (attr == 0 || c->v[cell_index(x, y, z)] != attr) abort();
    const int32_t p[3] = {x, y, z};
    for (int k = 0; k < 3; k++) {
        if (!c->count || p[k] < c->lo[k]) c->lo[k] = p[k];
        if (!c->count || p[k] + 1 > c->hi[k]) c->hi[k] = p[k] + 1;
    }
    c->count++;
}

/* Walks a model against the oracle's slot id. */
static void walk(const vxr_octree *t, uint32_t id) {
    check k = {o.m[id].v, 0, {0, 0, 0}, {0, 0, 0}};
    vxr_octree_foreach(t, check_voxel, &k);
    if (k.count != o.m[id].count || t->voxel_count != k.count) abort();
    for (int a = 0; a < 3; a++)
        if (t->vmin[a] != k.lo[a] || t->vmax[a] != k.hi[a]) abort();
}

/* Voxels changed in a slot: its count follows. */
static void count_change(slot *m, uint32_t before, uint32_t after) {
    m->count += (after != 0) - (before != 0);
}

/* Voxels of a grid and their tight bounds (0, 0 when empty). */
ORACLE static uint32_t grid_bounds(const uint32_t *v, int32_t lo[3], int32_t hi[3]) {
    uint32_t n = 0;
    for (int k = 0; k < 3; k++) lo[k] = hi[k] = 0;
    for (int32_t x = -HALF; x < HALF; x++)
        for (int32_t y = -HALF; y < HALF; y++)
            for (int32_t z = -HALF; z < HALF; z++) {
                if (!v[cell_index(x, y, z)]) continue;
                const int32_t c[3] = {x, y, z};
                for (int k = 0; k < 3; k++) {
                    if (!n || c[k] < lo[k]) lo[k] = c[k];
                    if (!n || c[k] + 1 > hi[k]) hi[k] = c[k] + 1;
                }
                n++;
            }
    return n;
}

static bool has_model(uint32_t id) {
    return id < o.model_count && o.m[id].used;
}

static bool placed(uint32_t id) {
    return id < o.instance_count && !(o.in[id].flags & VXR_INSTANCE_REMOVED);
}

/* Model id holds the oracle's voxels (a removed one: none). */
static void verify_model(const vxr_scene *s, uint32_t id) {
    const vxr_octree *t = &s->models[id];
    if (!o.m[id].used) {
        if (t->voxel_count || t->node_count) abort();
        return;
    }
    if (t->attr_size != o.attr_size) abort();
    walk(t, id);
}

/* Its compact form is a valid octree of the same voxels. */
static void verify_compact(const vxr_scene *s, uint32_t id) {
    vxr_octree c;
    if (vxr_octree_compact_copy(&s->models[id], &c, NULL) != VXR_OK) abort();
    if (vxr_octree_validate(&c, NULL) != VXR_OK) abort();
    walk(&c, id);
    vxr_octree_free(&c);
    o.m[id].dirty = false;
}

static void verify_scene(const vxr_scene *s) {
    if (s->model_count != o.model_count || s->instance_count != o.instance_count) abort();
    if (s->attr_size != o.attr_size) abort();
    for (uint32_t i = 0; i < o.instance_count; i++) {
        const vxr_instance *a = &s->instances[i], *b = &o.in[i];
        if (a->model != b->model || a->flags != b->flags ||
            memcmp(&a->transform, &b->transform, sizeof a->transform) ||
            memcmp(&a->view_distance, &b->view_distance, sizeof a->view_distance))
            abort();
    }
}

/* The editor's depths and next sizes are the oracle's journal. */
static void verify_journal(const vxr_editor *e) {
    if (!e) return;
    uint32_t undo, redo;
    size_t bytes;
    vxr_editor_depth(e, &undo, &redo, &bytes);
    if (undo != o.top || redo != o.n - o.top) abort();
    if (bytes > o.budget && undo + redo > 1) abort();
    uint64_t nu, nr;
    vxr_editor_next(e, &nu, &nr);
    if (nu != (o.top ? o.steps[o.top - 1].count : 0)) abort();
    if (nr != (o.top < o.n ? o.steps[o.top].count : 0)) abort();
}

/* ---- the journal ---- */

/* Drops steps [i, i + count) of the oracle's journal. */
static void drop_steps(uint32_t i, uint32_t count) {
    const uint32_t top = o.top;
    for (uint32_t k = i; k < i + count; k++)
        if (k < top) o.top--;
    memmove(&o.steps[i], &o.steps[i + count], (o.n - i - count) * sizeof *o.steps);
    o.n -= count;
}

/* Steps of a removed model are retired. */
static void retire(uint32_t model) {
    for (uint32_t i = o.n; i-- > 0;)
        if (o.steps[i].model == model) drop_steps(i, 1);
}

/* Replays a step on the oracle (forward: its after values). */
ORACLE static void replay(const ostep *st, bool forward) {
    if (!o.m[st->model].used || o.m[st->model].gen != st->gen) abort();
    slot *m = &o.m[st->model];
    m->dirty = true;
    for (uint32_t k = 0; k < st->count; k++) {
        const change *c = &o.pool[st->first + k];
        const uint32_t now = forward ? c->after : c->before;
        count_change(m, m->v[c->cell], now);
        m->v[c->cell] = now;
    }
}

/* An undo or a redo; walk: the model is walked after it (else only its
 * voxel count is checked, and the caller walks later). */
static void do_undo(vxr_scene *s, vxr_editor *e, bool redo, bool walk) {
    bool done = !(o.n & 1); /* must be written */
    vxr_error err;
    vxr_result r = redo ? vxr_editor_redo(e, &done, &err) : vxr_editor_undo(e, &done, &err);
    if (r != VXR_OK) abort();
    bool expect = redo ? o.top < o.n : o.top > 0;
    if (done != expect) abort();
    if (done) {
        const ostep *st = &o.steps[redo ? o.top : o.top - 1];
        replay(st, redo);
        if (s->model_version[st->model] != s->version) abort();
        if (redo)
            o.top++;
        else
            o.top--;
        if (walk)
            verify_model(s, st->model);
        else if (s->models[st->model].voxel_count != o.m[st->model].count)
            abort();
    }
    verify_journal(e);
}

/* ---- edits ---- */

static void oracle_cell(uint32_t *c, const vxr_edit *ed) {
    if (ed->op == VXR_EDIT_CLEAR)
        *c = 0;
    else if (ed->op == VXR_EDIT_SET || *c)
        *c = ed->value;
}

/* The edit's effect on model cur into next; the changed cells go to the
 * pool (not yet a step). Returns their count. */
ORACLE static uint32_t oracle_edit(const vxr_edit *ed, const uint32_t *cur, uint32_t *next) {
    memcpy(next, cur, CELLS * sizeof *next);
    if (ed->shape == VXR_SHAPE_CELLS) {
        for (size_t i = 0; i < ed->count; i++)
            oracle_cell(&next[cell_index(ed->cells[i][0], ed->cells[i][1], ed->cells[i][2])], ed);
    } else {
        const double r2 = ed->radius * ed->radius;
        for (int32_t x = -HALF; x < HALF; x++)
            for (int32_t y = -HALF; y < HALF; y++)
                for (int32_t z = -HALF; z < HALF; z++) {
                    if (ed->shape == VXR_SHAPE_BOX) {
                        if (x < ed->lo[0] || x >= ed->hi[0] || y < ed->lo[1] || y >= ed->hi[1] ||
                            z < ed->lo[2] || z >= ed->hi[2])
                            continue;
                    } else {
                        double dx = (double)x + 0.5 - ed->centre[0],
                               dy = (double)y + 0.5 - ed->centre[1],
                               dz = (double)z + 0.5 - ed->centre[2];
                        if (dx * dx + dy * dy + dz * dz > r2) continue;
                    }
                    oracle_cell(&next[cell_index(x, y, z)], ed);
                }
    }
    uint32_t n = 0;
    for (uint32_t c = 0; c < CELLS; c++)
        if (next[c] != cur[c]) o.pool[o.pooled + n++] = (change){(uint16_t)c, cur[c], next[c]};
    return n;
}

/* The cells vxr_edit_check says a valid box or sphere edit visits: its box,
 * clipped to the model's voxels for clear and paint. */
static uint64_t visited_cells(const vxr_edit *ed) {
    if (ed->shape == VXR_SHAPE_CELLS) return ed->count;
    int64_t lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        if (ed->shape == VXR_SHAPE_BOX) {
            lo[k] = ed->lo[k];
            hi[k] = ed->hi[k];
        } else {
            lo[k] = (int64_t)floor(ed->centre[k] - ed->radius - 0.5);
            hi[k] = (int64_t)ceil(ed->centre[k] + ed->radius + 0.5);
        }
    }
    if (ed->op != VXR_EDIT_SET) {
        int32_t vmin[3], vmax[3];
        grid_bounds(o.m[ed->model].v, vmin, vmax);
        for (int k = 0; k < 3; k++) {
            if (lo[k] < vmin[k]) lo[k] = vmin[k];
            if (hi[k] > vmax[k]) hi[k] = vmax[k];
        }
    }
    uint64_t n = 1;
    for (int k = 0; k < 3; k++) n *= hi[k] > lo[k] ? (uint64_t)(hi[k] - lo[k]) : 0;
    return n;
}

/* What vxr_edit_check should say: OK, or the refusal (ARGUMENT or LIMIT;
 * an edit bad both ways may get either: *either). `shape_arg` and
 * `shape_limit` are what the record made bad about the shape. */
static vxr_result expect_edit(const vxr_edit *ed, bool shape_arg, bool shape_limit, bool *either) {
    bool arg =
        shape_arg || !has_model(ed->model) || ed->op < VXR_EDIT_SET || ed->op > VXR_EDIT_PAINT;
    if (ed->op != VXR_EDIT_CLEAR)
        arg = arg || (o.attr_size == 1 ? ed->value == 0 || ed->value > 255 : !(ed->value >> 24));
    *either = arg && shape_limit;
    return arg ? VXR_ERROR_ARGUMENT : shape_limit ? VXR_ERROR_LIMIT : VXR_OK;
}

static void do_check(const vxr_scene *s, const vxr_edit *ed, bool shape_arg, bool shape_limit) {
    bool either;
    vxr_result expect = expect_edit(ed, shape_arg, shape_limit, &either);
    uint64_t cells = 1;
    vxr_error err;
    err.message[0] = 0;
    vxr_result r = vxr_edit_check(s, ed, &cells, &err);
    if (r != expect && !(either && (r == VXR_ERROR_ARGUMENT || r == VXR_ERROR_LIMIT))) abort();
    if (r != VXR_OK && (cells != 0 || !err.message[0])) abort();
    if (r == VXR_OK && cells != visited_cells(ed)) abort();
}

static void do_edit(vxr_scene *s, vxr_editor *e, const vxr_edit *ed, bool shape_arg,
                    bool shape_limit) {
    bool either;
    vxr_result expect = expect_edit(ed, shape_arg, shape_limit, &either);
    uint64_t version = s->version;
    vxr_edit_result res;
    vxr_error err;
    err.message[0] = 0;
    vxr_result r = vxr_editor_apply(e, ed, &res, &err);
    if (expect != VXR_OK) { /* refused: nothing changes */
        if (r != expect && !(either && (r == VXR_ERROR_ARGUMENT || r == VXR_ERROR_LIMIT))) abort();
        if (!err.message[0] || res.changed || s->version != version) abort();
        /* (the voxels are walked at the end) */
        if (has_model(ed->model) && s->models[ed->model].voxel_count != o.m[ed->model].count)
            abort();
        verify_journal(e);
        return;
    }
    slot *m = &o.m[ed->model];
    uint32_t k = oracle_edit(ed, m->v, scratch);
    /* the journal holds about 24..32 bytes a change and some per step */
    size_t need = (size_t)k * sizeof(vxr_voxel_change);
    bool must = need > o.budget, may = need + 128 > o.budget;
    if (r == VXR_ERROR_LIMIT) { /* REFUSE: as if never tried */
        if (!may || o.overflow != VXR_JOURNAL_REFUSE || res.changed || !err.message[0]) abort();
        verify_model(s, ed->model);
        verify_journal(e);
        return;
    }
    if (r != VXR_OK || res.changed != k) abort();
    memcpy(m->v, scratch, sizeof scratch);
    for (uint32_t i = 0; i < k; i++)
        count_change(m, o.pool[o.pooled + i].before, o.pool[o.pooled + i].after);
    m->dirty = true;
    if (!res.journaled) { /* FORGET: applied, every step forgotten */
        if (!may || o.overflow != VXR_JOURNAL_FORGET) abort();
        o.n = o.top = 0;
    } else {
        if (must) abort();
        o.n = o.top; /* the redo steps go */
        o.steps[o.n++] = (ostep){ed->model, m->gen, o.pooled, k};
        o.top = o.n;
        o.pooled += k;
        /* a small journal forgets its oldest steps (never the new one) */
        uint32_t undo, redo;
        vxr_editor_depth(e, &undo, &redo, NULL);
        if (redo != 0 || undo == 0 || undo > o.top || (undo < o.top && !o.small)) abort();
        drop_steps(0, o.top - undo);
    }
    if (s->model_version[ed->model] != s->version) abort();
    verify_model(s, ed->model);
    verify_journal(e);
}

/* ---- decoding ---- */

static uint32_t model_id(uint8_t b) {
    if (b == 0xff) return UINT32_MAX;
    if (b >= 0xf0) return o.model_count + (b & 7u);
    if (b & 0x80) return b & 7u; /* any slot: past the end or removed, maybe */
    return (b & 7u) % o.model_count;
}

static uint32_t instance_id(uint8_t b) {
    if (b == 0xff) return UINT32_MAX;
    if (b >= 0xf0) return o.instance_count + (b & 7u);
    return b % INSTANCES;
}

static uint32_t value_of(uint8_t b, bool wide) {
    if (o.attr_size == 4) /* alpha b: 0 is refused */
        return (uint32_t)b << 24 | ((uint32_t)b * 0x010307u & 0xffffffu);
    return b + (wide ? 256u : 0u);
}

static const float ROT30C = 0.8660254f;

/* Rotations (row-major) and whether the scene takes them: orthonormal
 * within 1e-4, entries within 1.001. */
static const struct {
    float r[9];
    bool ok;
} rotations[16] = {
    {{1, 0, 0, 0, 1, 0, 0, 0, 1}, true},
    {{0, -1, 0, 1, 0, 0, 0, 0, 1}, true}, /* 90 degrees about z */
    {{-1, 0, 0, 0, 1, 0, 0, 0, 1}, true}, /* a reflection */
    {{ROT30C, 0, 0.5f, 0, 1, 0, -0.5f, 0, ROT30C}, true},
    {{0, 0, 0, 0, 0, 0, 0, 0, 0}, false}, /* zero */
    {{0.5f, 0, 0, 0, 0.5f, 0, 0, 0, 0.5f}, false},
    {{1, 0.5f, 0, 0, 1, 0, 0, 0, 1}, false}, /* shear */
    {{NAN, 0, 0, 0, 1, 0, 0, 0, 1}, false},
    {{1.5f, 0, 0, 0, 1, 0, 0, 0, 1}, false},
    {{0, 0, 1, 1, 0, 0, 0, 1, 0}, true}, /* an axis permutation */
    {{INFINITY, 0, 0, 0, 1, 0, 0, 0, 1}, false},
    {{1.00001f, 0, 0, 0, 1, 0, 0, 0, 1}, true},
    {{1.01f, 0, 0, 0, 1, 0, 0, 0, 1}, false},
    {{-1, 0, 0, 0, -1, 0, 0, 0, -1}, true},
    {{1, 0, 0, 1, 0, 0, 0, 0, 1}, false}, /* two equal rows */
    {{1, 0, 0, 0, 0, 1, 0, -1, 0}, true},
};

/* Scales: finite, > 0, at most 2^20. */
static const struct {
    float s;
    bool ok;
} scales[16] = {
    {1, true},       {2, true},          {0.25f, true},     {0, false},
    {-1, false},     {NAN, false},       {INFINITY, false}, {0x1p21f, false},
    {0x1p20f, true}, {1e-30f, true},     {-0.0f, false},    {3, true},
    {1, true},       {-INFINITY, false}, {1e30f, false},    {0.5f, true},
};

/* Translations: finite, within 2^31. */
static const struct {
    float t[3];
    bool ok;
} translations[16] = {
    {{0, 0, 0}, true},          {{40, 0, 0}, true},
    {{-3, 7, 100}, true},       {{0.5f, 0.25f, -8}, true},
    {{NAN, 0, 0}, false},       {{0, INFINITY, 0}, false},
    {{0, 0, -INFINITY}, false}, {{3e9f, 0, 0}, false},
    {{0x1p31f, 0, 0}, true},    {{0, -0x1p31f, 0}, true},
    {{0, 1e20f, 0}, false},     {{1e6f, -1e6f, 5}, true},
    {{0, 0, 0}, true},          {{0, 0, -0x1.000002p31f}, false},
    {{-20, -20, -20}, true},    {{0, 0, 0x1p24f}, true},
};

/* View distances: >= 0 (INFINITY too), not NaN. */
static const struct {
    float d;
    bool ok;
} distances[8] = {
    {INFINITY, true}, {0, true},     {10, true},         {-1, false},
    {NAN, false},     {-0.0f, true}, {-INFINITY, false}, {1e30f, true},
};

/* Flags of a record: HIDDEN and CULLED only. */
static const uint32_t record_flags[8] = {
    0,
    VXR_INSTANCE_HIDDEN,
    VXR_INSTANCE_CULLED,
    VXR_INSTANCE_HIDDEN | VXR_INSTANCE_CULLED,
    VXR_INSTANCE_REMOVED,
    0xffffffffu,
    8,
    VXR_INSTANCE_HIDDEN | VXR_INSTANCE_REMOVED,
};

/* An instance record from b[0..4]; *ok: whether the scene takes it. */
static vxr_instance make_record(const uint8_t *b, bool *ok) {
    vxr_instance in;
    memset(&in, 0, sizeof in);
    in.model = model_id(b[0]);
    in.flags = record_flags[b[1] & 7];
    const int rot = b[1] >> 3 & 15, sc = b[2] & 15, tr = b[2] >> 4, vd = b[3] & 7;
    memcpy(in.transform.rotation, rotations[rot].r, sizeof in.transform.rotation);
    in.transform.scale = scales[sc].s;
    memcpy(in.transform.translation, translations[tr].t, sizeof in.transform.translation);
    in.view_distance = distances[vd].d;
    *ok = has_model(in.model) &&
          !(in.flags & ~(uint32_t)(VXR_INSTANCE_HIDDEN | VXR_INSTANCE_CULLED)) &&
          rotations[rot].ok && scales[sc].ok && translations[tr].ok && distances[vd].ok;
    return in;
}

/* An edit from a record; *shape_arg, *shape_limit: what it made bad. */
static void make_edit(const uint8_t *b, vxr_edit *ed, int32_t cells[3][3], bool *shape_arg,
                      bool *shape_limit) {
    const unsigned extra = b[0] >> 5;
    memset(ed, 0, sizeof *ed);
    *shape_arg = *shape_limit = false;
    ed->model = model_id(b[1]);
    ed->value = value_of(b[2], extra == 7);
    const unsigned op = b[3] & 3, shape = b[3] >> 2 & 3, sub = b[3] >> 4;
    ed->op = op == 3 ? (vxr_edit_op)(extra & 1 ? 0 : 4) : (vxr_edit_op)(VXR_EDIT_SET + op);
    const uint32_t w =
        (uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;
    if (shape == 0) {
        ed->shape = VXR_SHAPE_CELLS;
        ed->count = sub & 3;
        for (size_t i = 0; i < ed->count; i++)
            for (int k = 0; k < 3; k++)
                cells[i][k] = (int32_t)(w >> (9 * (int)i + 3 * k) & 7) - HALF;
        ed->cells = (const int32_t(*)[3])cells;
    } else if (shape == 1) {
        ed->shape = VXR_SHAPE_BOX;
        for (int k = 0; k < 3; k++) {
            ed->lo[k] = (int32_t)(w >> (6 * k) & 7) - HALF;
            int32_t hi = ed->lo[k] + (int32_t)(w >> (6 * k + 3) & 7) - 1;
            ed->hi[k] = hi < HALF ? hi : HALF;
        }
    } else if (shape == 2) {
        ed->shape = VXR_SHAPE_SPHERE;
        double far = 0;
        for (int k = 0; k < 3; k++) {
            ed->centre[k] = ((int32_t)(w >> (5 * k) & 31) - 16) / 4.0;
            if (fabs(ed->centre[k]) > far) far = fabs(ed->centre[k]);
        }
        /* within the cube: every cell of it has |c + 1/2 - centre| <= radius
         * < 4.5 - |centre| */
        ed->radius = (w >> 15 & 127) / 16.0;
        if (ed->radius >= HALF + 0.5 - far) ed->radius = HALF + 0.5 - far - 1.0 / 16;
    } else {
        /* hostile shapes */
        switch (sub & 7) {
        case 0:
        case 1:
            ed->shape = (vxr_edit_shape)(sub & 1 ? 0 : 4);
            ed->count = 1;
            ed->cells = (const int32_t(*)[3])cells;
            memset(cells, 0, sizeof cells[0]);
            *shape_arg = true;
            break;
        case 2: /* cells without a list */
            ed->shape = VXR_SHAPE_CELLS;
            ed->count = 1 + (w & 3);
            *shape_arg = true;
            break;
        case 3:
        case 4: /* a cell beyond a model's reach after a good one */
            ed->shape = VXR_SHAPE_CELLS;
            ed->count = 2;
            ed->cells = (const int32_t(*)[3])cells;
            memset(cells, 0, 2 * sizeof cells[0]);
            cells[1][w % 3] = sub & 1 ? INT32_MAX - (int32_t)(w >> 8 & 15)
                                      : -(1 << 20) - 1 - (int32_t)(w >> 8 & 15);
            *shape_limit = true;
            break;
        case 5: /* a box beyond reach */
            ed->shape = VXR_SHAPE_BOX;
            ed->hi[0] = ed->hi[1] = ed->hi[2] = 1;
            if (w & 1)
                ed->hi[w % 3] = (1 << 20) + 1 + (int32_t)(w >> 8 & 15);
            else
                ed->lo[w % 3] = INT32_MIN + (int32_t)(w >> 8 & 15);
            *shape_limit = true;
            break;
        case 6: { /* a sphere that is not finite, a negative radius */
            ed->shape = VXR_SHAPE_SPHERE;
            ed->radius = 1;
            const int how = w & 3;
            if (how == 0) ed->radius = NAN;
            if (how == 1) ed->radius = -0.5;
            if (how == 2) ed->centre[w >> 2 & 1] = w & 8 ? INFINITY : -INFINITY;
            if (how == 3) ed->radius = 1e300;
            *shape_limit = true;
            break;
        }
        default: /* within reach, but more than 2^27 cells: refused for
                  * SET; clear and paint visit the model's box only */
            ed->shape = VXR_SHAPE_BOX;
            for (int k = 0; k < 3; k++) {
                ed->lo[k] = -(1 << 20) + (int32_t)(w >> (4 * k) & 15);
                ed->hi[k] = 1 << 20;
            }
            *shape_limit = ed->op == VXR_EDIT_SET;
            break;
        }
    }
}

/* ---- the scene ---- */

static uint32_t colour(int32_t x, int32_t y, int32_t z) {
    uint32_t i = 1 + (uint32_t)(x + y + z + 3 * HALF) % 5;
    return o.attr_size == 4 ? 0xff000000u | i * 0x00234567u : i;
}

static void oracle_instance(const vxr_instance *in) {
    o.in[o.instance_count++] = *in;
}

static vxr_scene *make_scene(uint8_t setup) {
    vxr_scene_src src;
    o.attr_size = setup & 1 ? 4 : 1;
    vxr_scene_src_init(&src, o.attr_size);
    for (int i = 1; i < 256; i++) src.palette[i] = 0xff000000u | (uint32_t)i * 0x010305u;
    uint32_t a, b, c = 0;
    if (vxr_scene_src_add_model(&src, &a) != VXR_OK || vxr_scene_src_add_model(&src, &b) != VXR_OK)
        abort();
    /* a root of depth 3, which vxr_octree_make_live copies, and one of
     * depth 2, which it rebuilds voxel by voxel */
    for (int32_t x = -3; x < 1; x++)
        for (int32_t y = -3; y < 1; y++)
            for (int32_t z = -3; z < 1; z++) {
                if (vxr_model_src_push(&src.models[a], x, y, z, colour(x, y, z)) != VXR_OK) abort();
                o.m[0].v[cell_index(x, y, z)] = colour(x, y, z);
                o.m[0].count++;
            }
    static const int32_t few[4][3] = {{-2, -2, -2}, {1, 1, 1}, {0, 1, -1}, {-1, 0, 1}};
    for (int i = 0; i < 4; i++) {
        uint32_t v = colour(few[i][0], few[i][1], few[i][2] + 1);
        if (vxr_model_src_push(&src.models[b], few[i][0], few[i][1], few[i][2], v) != VXR_OK)
            abort();
        o.m[1].v[cell_index(few[i][0], few[i][1], few[i][2])] = v;
        o.m[1].count++;
    }
    o.m[0].used = o.m[1].used = true;
    o.model_count = 2;
    if (setup & 0x40) {
        if (vxr_scene_src_add_model(&src, &c) != VXR_OK) abort();
        o.m[2].used = true;
        o.model_count = 3;
    }
    vxr_instance in = {a, 0, vxr_transform_identity(), INFINITY};
    oracle_instance(&in);
    in.model = b;
    in.transform.translation[0] = 20;
    in.view_distance = 100;
    oracle_instance(&in);
    if (setup & 0x80) {
        in.model = a;
        in.flags = VXR_INSTANCE_HIDDEN;
        memcpy(in.transform.rotation, rotations[1].r, sizeof in.transform.rotation);
        oracle_instance(&in);
        in.model = setup & 0x40 ? c : b;
        in.flags = 0;
        in.transform = vxr_transform_identity();
        in.transform.scale = 2;
        in.transform.translation[2] = -30;
        oracle_instance(&in);
    }
    for (uint32_t i = 0; i < o.instance_count; i++)
        if (vxr_scene_src_add_instance(&src, &o.in[i]) != VXR_OK) abort();
    vxr_scene *scene;
    /* on the calling thread: deterministic coverage, one core */
    if (vxr_scene_build_threads(&src, 1, &scene, NULL) != VXR_OK) abort();
    vxr_scene_src_free(&src);
    return scene;
}

static vxr_editor *editor_of(vxr_scene *s, vxr_editor **e) {
    if (!*e) {
        if (vxr_editor_create(s, o.journal, e, NULL) != VXR_OK) abort();
        vxr_editor_set_overflow(*e, o.overflow);
        for (uint32_t i = 0; i < o.model_count; i++) verify_model(s, i);
    }
    return *e;
}

/* The lowest free model slot, else the next one; MODELS when the oracle
 * has no room. */
static uint32_t next_model(void) {
    uint32_t i = 0;
    while (i < o.model_count && o.m[i].used) i++;
    return i;
}

static uint32_t take_model(uint32_t i) {
    slot *m = &o.m[i];
    m->used = m->dirty = true;
    m->gen++;
    memset(m->v, 0, sizeof m->v);
    m->count = 0;
    if (i == o.model_count) o.model_count++;
    return i;
}

static void remove_instance(uint32_t i) {
    o.in[i].flags |= VXR_INSTANCE_HIDDEN | VXR_INSTANCE_REMOVED;
    o.touched[i] = true;
}

/* Instance id changed by the call just made: stamped with the scene's
 * version, and due on the change list. */
static void touched(const vxr_scene *s, uint32_t id) {
    if (s->instance_version[id] != s->version) abort();
    o.touched[id] = true;
}

/* A refusal changed nothing. */
static void refused(const vxr_scene *s, vxr_result r, vxr_result expect, uint64_t version,
                    const vxr_error *err) {
    if (r != expect || s->version != version) abort();
    if (err && !err->message[0]) abort();
}

/* Reads the scene's journal: its instance entries name exactly the
 * instances the oracle saw change since the last read (repeats allowed),
 * its model entries models that exist, and the cursor ends at the end. */
static void take_changes(vxr_scene *s) {
    const vxr_change *list = NULL;
    uint32_t count = 0;
    if (!vxr_journal_read(s, &o.since, &list, &count, NULL)) abort();
    if (o.since != vxr_journal_end(s) || (count && !list)) abort();
    bool seen[INSTANCES] = {false};
    for (uint32_t i = 0; i < count; i++) {
        const vxr_change *c = &list[i];
        if (c->kind == VXR_CHANGE_INSTANCE) {
            if (c->id >= o.instance_count || !o.touched[c->id]) abort();
            seen[c->id] = true;
        } else if (c->kind < VXR_CHANGE_MODEL_ALL || c->kind > VXR_CHANGE_ATTRS ||
                   c->id >= s->model_count) {
            abort();
        }
    }
    for (uint32_t i = 0; i < INSTANCES; i++)
        if (o.touched[i] != seen[i]) abort();
    memset(o.touched, 0, sizeof o.touched);
}

enum call {
    EDIT,
    CHECK,
    UNDO,
    REDO,
    ADD_MODEL,
    REMOVE_MODEL,
    ADD_INSTANCE,
    SET_INSTANCE,
    REMOVE_INSTANCE,
    SET_TRANSFORM,
    SET_FLAGS,
    SET_VIEW,
    OWN_MODEL,
    TOUCH,
    PICK_CUBE,
    OVERFLOW,
    TAKE,
    COMPACT
};

static const enum call calls[32] = {
    EDIT,          EDIT,         EDIT,         EDIT,         EDIT,
    EDIT,          EDIT,         CHECK,        UNDO,         UNDO,
    UNDO,          REDO,         REDO,         ADD_MODEL,    ADD_MODEL,
    REMOVE_MODEL,  REMOVE_MODEL, ADD_INSTANCE, SET_INSTANCE, REMOVE_INSTANCE,
    SET_TRANSFORM, SET_FLAGS,    SET_VIEW,     OWN_MODEL,    OWN_MODEL,
    TOUCH,         PICK_CUBE,    PICK_CUBE,    OVERFLOW,     TAKE,
    COMPACT,       EDIT,
};

static const uint32_t pick_sizes[8] = {1, 2, 4, 1, 0, 3, VXR_MAX_GRID, VXR_MAX_GRID * 2u};
static const int32_t pick_faces[16] = {-1, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, -2, 6, 7};
/* faces 0, 1: -x, +x; 2, 3: -y, +y; 4: +z; 5: -z */
static const int32_t face_dir[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0},
                                       {0, 1, 0},  {0, 0, 1}, {0, 0, -1}};

static void do_pick(vxr_scene *s, vxr_editor **e, const uint8_t *b) {
    vxr_pick p;
    memset(&p, 0, sizeof p);
    p.hit = (b[2] >> 5) != 7;
    p.instance = instance_id(b[1]);
    p.face = pick_faces[b[2] & 15];
    const bool beside = b[2] >> 4 & 1;
    p.size = pick_sizes[b[3] & 7];
    const unsigned where = b[3] >> 3 & 7;
    for (int k = 0; k < 3; k++)
        p.voxel[k] = where == 5   ? INT32_MAX - (int32_t)(b[4 + k] & 3)
                     : where == 6 ? INT32_MIN + (int32_t)(b[4 + k] & 3)
                     : where == 7 ? (1 << 20) - (int32_t)(b[4 + k] & 3)
                                  : (int32_t)(b[4 + k] & 7) - HALF;
    const vxr_edit_op op =
        (b[7] & 3) == 3 ? VXR_EDIT_SET : (vxr_edit_op)(VXR_EDIT_SET + (b[7] & 3));
    const uint32_t value = value_of(b[7] >> 2, false);
    vxr_result expect = VXR_OK;
    if (!p.hit || !placed(p.instance) || p.face < -1 || p.face > 5 || (beside && p.face < 0) ||
        p.size == 0 || p.size > VXR_MAX_GRID || (p.size & (p.size - 1)))
        expect = VXR_ERROR_ARGUMENT;
    int64_t lo[3], hi[3];
    bool near = true; /* within the oracle's cube */
    for (int k = 0; k < 3 && expect == VXR_OK; k++) {
        lo[k] = (int64_t)p.voxel[k] + (beside ? face_dir[p.face][k] * (int64_t)p.size : 0);
        hi[k] = lo[k] + p.size;
        if (lo[k] < -(1 << 20) || hi[k] > (1 << 20)) expect = VXR_ERROR_LIMIT;
        near = near && lo[k] >= -HALF && hi[k] <= HALF;
    }
    vxr_edit ed;
    vxr_error err;
    err.message[0] = 0;
    uint64_t version = s->version;
    vxr_result r = vxr_edit_pick_cube(s, &p, beside, op, value, &ed, &err);
    if (expect != VXR_OK) {
        refused(s, r, expect, version, &err);
        return;
    }
    if (r != VXR_OK || ed.op != op || ed.value != value || ed.shape != VXR_SHAPE_BOX ||
        ed.model != o.in[p.instance].model)
        abort();
    for (int k = 0; k < 3; k++)
        if (ed.lo[k] != lo[k] || ed.hi[k] != hi[k]) abort();
    if (near) do_edit(s, editor_of(s, e), &ed, false, false);
}

static void do_record(vxr_scene *s, vxr_editor **e, const uint8_t *b) {
    enum call call = calls[b[0] & 31];
    /* compacting builds an octree, the costliest check: 1 in 4 of its
     * records, the others edit */
    if (call == COMPACT && (b[0] >> 5) > 1) call = EDIT;
    uint64_t version = s->version;
    vxr_error err;
    err.message[0] = 0;
    switch (call) {
    case EDIT:
    case CHECK: {
        vxr_edit ed;
        int32_t cells[3][3];
        bool shape_arg, shape_limit;
        make_edit(b, &ed, cells, &shape_arg, &shape_limit);
        if (call == CHECK) {
            do_check(s, &ed, shape_arg, shape_limit);
            if (s->version != version) abort();
        } else {
            do_edit(s, editor_of(s, e), &ed, shape_arg, shape_limit);
        }
        break;
    }
    case UNDO:
    case REDO:
        do_undo(s, editor_of(s, e), call == REDO, true);
        break;
    case ADD_MODEL: {
        uint32_t expect = next_model(), id = UINT32_MAX;
        if (expect >= MODELS) break;
        if (vxr_scene_add_model(s, &id) != VXR_OK || id != take_model(expect)) abort();
        if (s->model_added[id] != s->version || s->model_version[id] != s->version) abort();
        verify_model(s, id);
        break;
    }
    case REMOVE_MODEL: {
        version = s->version;
        uint32_t id = model_id(b[1]);
        vxr_result r = vxr_scene_remove_model(s, id);
        if (!has_model(id)) {
            refused(s, r, VXR_ERROR_ARGUMENT, version, NULL);
            break;
        }
        if (r != VXR_OK) abort();
        o.m[id].used = false;
        memset(o.m[id].v, 0, sizeof o.m[id].v);
        o.m[id].count = 0;
        for (uint32_t i = 0; i < o.instance_count; i++)
            if (placed(i) && o.in[i].model == id) remove_instance(i);
        retire(id);
        verify_model(s, id);
        verify_journal(*e);
        break;
    }
    case ADD_INSTANCE: {
        bool ok;
        vxr_instance in = make_record(b + 2, &ok);
        uint32_t i = 0, id = UINT32_MAX;
        while (i < o.instance_count && placed(i)) i++;
        if (i >= INSTANCES) break;
        vxr_result r = vxr_scene_add_instance(s, &in, &id, &err);
        if (!ok) {
            refused(s, r, VXR_ERROR_ARGUMENT, version, &err);
            break;
        }
        if (r != VXR_OK || id != i) abort();
        if (i == o.instance_count) o.instance_count++;
        o.in[i] = in;
        touched(s, i);
        break;
    }
    case SET_INSTANCE: {
        bool ok;
        vxr_instance in = make_record(b + 2, &ok);
        uint32_t id = instance_id(b[1]);
        const bool none = (b[0] >> 5) == 7; /* no record */
        vxr_result r = vxr_scene_set_instance(s, id, none ? NULL : &in, &err);
        if (none || !ok || id >= o.instance_count) {
            refused(s, r, VXR_ERROR_ARGUMENT, version, &err);
            break;
        }
        if (r != VXR_OK) abort();
        o.in[id] = in; /* a removed instance comes back */
        touched(s, id);
        break;
    }
    case REMOVE_INSTANCE: {
        uint32_t id = instance_id(b[1]);
        vxr_result r = vxr_scene_remove_instance(s, id);
        if (id >= o.instance_count) {
            refused(s, r, VXR_ERROR_ARGUMENT, version, NULL);
            break;
        }
        if (r != VXR_OK) abort();
        remove_instance(id);
        touched(s, id);
        break;
    }
    case SET_TRANSFORM: {
        uint32_t id = instance_id(b[1]);
        const int rot = b[2] & 15, sc = b[3] & 15, tr = b[4] & 15;
        vxr_transform t;
        memcpy(t.rotation, rotations[rot].r, sizeof t.rotation);
        t.scale = scales[sc].s;
        memcpy(t.translation, translations[tr].t, sizeof t.translation);
        const bool none = (b[0] >> 5) == 7;
        vxr_result r = vxr_scene_set_transform(s, id, none ? NULL : &t, &err);
        if (none || !placed(id) || !rotations[rot].ok || !scales[sc].ok || !translations[tr].ok) {
            refused(s, r, VXR_ERROR_ARGUMENT, version, &err);
            break;
        }
        if (r != VXR_OK) abort();
        bool same = !memcmp(&o.in[id].transform, &t, sizeof t);
        if (same != (s->version == version)) abort();
        o.in[id].transform = t;
        if (!same) touched(s, id);
        break;
    }
    case SET_FLAGS: {
        uint32_t id = instance_id(b[1]);
        uint32_t flags = record_flags[b[2] & 7];
        vxr_result r = vxr_scene_set_flags(s, id, flags, &err);
        if (!placed(id) || (flags & ~(uint32_t)VXR_INSTANCE_HIDDEN)) {
            refused(s, r, VXR_ERROR_ARGUMENT, version, &err);
            break;
        }
        if (r != VXR_OK) abort();
        uint32_t now = (o.in[id].flags & VXR_INSTANCE_CULLED) | flags;
        bool same = now == o.in[id].flags;
        if (same != (s->version == version)) abort();
        o.in[id].flags = now;
        if (!same) touched(s, id);
        break;
    }
    case SET_VIEW: {
        uint32_t id = instance_id(b[1]);
        const int vd = b[2] & 7;
        vxr_result r = vxr_scene_set_view_distance(s, id, distances[vd].d, &err);
        if (!placed(id) || !distances[vd].ok) {
            refused(s, r, VXR_ERROR_ARGUMENT, version, &err);
            break;
        }
        if (r != VXR_OK) abort();
        bool same = !memcmp(&o.in[id].view_distance, &distances[vd].d, sizeof(float));
        if (same != (s->version == version)) abort();
        o.in[id].view_distance = distances[vd].d;
        if (!same) touched(s, id);
        break;
    }
    case OWN_MODEL: {
        version = s->version;
        uint32_t id = instance_id(b[1]), model = UINT32_MAX;
        uint32_t expect = next_model();
        if (placed(id) && expect >= MODELS) break;
        vxr_result r = vxr_scene_own_model(s, id, b[2] & 1 ? NULL : &model, &err);
        if (!placed(id)) { /* no model made */
            refused(s, r, VXR_ERROR_ARGUMENT, version, &err);
            break;
        }
        if (r != VXR_OK || (!(b[2] & 1) && model != expect)) abort();
        uint32_t source = o.in[id].model;
        take_model(expect);
        memcpy(o.m[expect].v, o.m[source].v, sizeof o.m[expect].v);
        o.m[expect].count = o.m[source].count;
        o.in[id].model = expect;
        touched(s, id);
        if (s->model_added[expect] <= version) abort(); /* a new model, however its id */
        verify_model(s, expect);
        verify_model(s, source);
        break;
    }
    case TOUCH: {
        if (b[2] & 1) {
            uint32_t id = instance_id(b[1]);
            vxr_result r = vxr_scene_touch_instance(s, id, &err);
            if (id >= o.instance_count) {
                refused(s, r, VXR_ERROR_ARGUMENT, version, &err);
                break;
            }
            if (r != VXR_OK || s->version == version) abort();
            touched(s, id);
        } else {
            uint32_t id = model_id(b[1]);
            vxr_result r = vxr_scene_touch_model(s, id, &err);
            if (!has_model(id)) {
                refused(s, r, VXR_ERROR_ARGUMENT, version, &err);
                break;
            }
            if (r != VXR_OK || s->model_version[id] != s->version || s->version == version) abort();
        }
        break;
    }
    case PICK_CUBE:
        do_pick(s, e, b);
        break;
    case OVERFLOW:
        o.overflow = b[1] & 1 ? VXR_JOURNAL_FORGET : VXR_JOURNAL_REFUSE;
        vxr_editor_set_overflow(editor_of(s, e), o.overflow);
        break;
    case TAKE:
        take_changes(s);
        break;
    case COMPACT: {
        uint32_t id = model_id(b[1]);
        if (!has_model(id)) break;
        verify_compact(s, id);
        if (b[2] & 1) { /* in place, live again: the journal's steps still apply */
            if (vxr_octree_compact(&s->models[id], true, NULL) != VXR_OK) abort();
            o.m[id].dirty = true;
            verify_model(s, id);
        }
        break;
    }
    }
    verify_scene(s);
}

static const size_t budgets[8] = {0, 4u << 20, 256, 512, 1024, 2048, 4096, 16384};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const uint8_t setup = data[0];
    o.model_count = o.instance_count = 0;
    o.n = o.top = o.pooled = 0;
    memset(o.m, 0, sizeof o.m);
    memset(o.in, 0, sizeof o.in);
    memset(o.touched, 0, sizeof o.touched);
    o.journal = budgets[setup >> 1 & 7];
    o.budget = o.journal ? o.journal : (size_t)64 << 20;
    o.small = o.budget < (1u << 20);
    o.overflow = setup & 0x10 ? VXR_JOURNAL_FORGET : VXR_JOURNAL_REFUSE;
    vxr_scene *scene = make_scene(setup);
    /* a reader of the journal starts at its end */
    o.since = vxr_journal_end(scene);
    vxr_editor *editor = NULL;
    if (setup & 0x20) editor_of(scene, &editor);
    verify_scene(scene);
    for (uint32_t i = 0; i < o.model_count; i++) verify_model(scene, i);

    size_t records = 0;
    for (size_t at = 1; at + REC <= size && records < MAX_RECORDS; at += REC, records++)
        do_record(scene, &editor, data + at);

    /* Everything undone, then redone, step by step (the models walked
     * after each way). */
    if (editor) {
        while (o.top) do_undo(scene, editor, false, false);
        do_undo(scene, editor, false, false); /* none left */
        for (uint32_t i = 0; i < o.model_count; i++) verify_model(scene, i);
        while (o.top < o.n) do_undo(scene, editor, true, false);
        do_undo(scene, editor, true, false);
    }
    take_changes(scene);
    verify_scene(scene);
    /* every model walked; for one input in four, one changed model (each in
     * turn, over the inputs) compacted to a valid octree, as COMPACT
     * records do */
    uint32_t dirty = 0;
    for (uint32_t i = 0; i < o.model_count; i++) {
        verify_model(scene, i);
        dirty += o.m[i].used && o.m[i].dirty;
    }
    for (uint32_t i = 0, k = dirty ? (uint32_t)(size / 4 % dirty) : 0;
         size % 4 == 0 && i < o.model_count; i++)
        if (o.m[i].used && o.m[i].dirty && k-- == 0) verify_compact(scene, i);
    vxr_editor_destroy(editor);
    vxr_scene_destroy(scene);
    return 0;
}
