/* libFuzzer target: shaped edits, undo and redo through the core editor
 * (vxr/edit.h) on a small paletted scene of two models, checked against a
 * dense oracle of the cells.
 *
 * Input: byte 0 picks the journal size (a small one makes the editor forget
 * old steps, and refuses a step larger than itself, or with bit 1 applies
 * it without undo: VXR_JOURNAL_FORGET); then records, each
 *   b0: action (SET, CLEAR, PAINT, undo, redo, a bad op) and shape (cells,
 *       box, sphere, a bad shape) in its bits
 *   b1: model (0, 1, or now and then 2, which does not exist)
 *   b2: value (a palette index; 0 is refused; b1 bit 7 adds 256: refused)
 *   b3..b8: box corner and sides (-1..8 cells: -1 is an empty box), or
 *           sphere centre and radius (b8 == 255: NaN)
 *   cells: b3 % 5 cells of 3 bytes each after the record.
 * Coordinates stay within [-8, 8) so the oracle is 16^3 cells per model
 * (at 32^3, 40 box edits were up to 1.3 million voxel edits per run).
 * After the records: the models must hold the oracle's voxels; every step
 * is undone (back to the oldest state the journal keeps) and redone, with
 * the same check; then a few picks, and one pick-cube edit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "vxr/edit.h"
#include "vxr/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { R = 16, HALF = R / 2, CELLS = R * R * R, MODELS = 2, MAX_RECORDS = 40, REC = 9 };

typedef struct state {
    uint8_t v[MODELS][CELLS];
} state;

static state states[MAX_RECORDS + 2];

/* The oracle's loops are the harness, not code under test: no coverage
 * tracing for them (nor inlining into the traced entry point). */
#define ORACLE __attribute__((no_sanitize("coverage"), noinline))

static size_t cell_index(int32_t x, int32_t y, int32_t z) {
    return ((size_t)(x + HALF) * R + (size_t)(y + HALF)) * R + (size_t)(z + HALF);
}

typedef struct check {
    const uint8_t *v;
    size_t count;
} check;

static void check_voxel(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    check *c = user;
    if (x < -HALF || x >= HALF || y < -HALF || y >= HALF || z < -HALF || z >= HALF) abort();
    if (c->v[cell_index(x, y, z)] != attr) abort();
    c->count++;
}

/* The scene's models hold exactly the voxels of st, and compact to a valid
 * octree. */
ORACLE static size_t count_set(const uint8_t *v) {
    size_t n = 0;
    for (size_t i = 0; i < CELLS; i++) n += v[i] != 0;
    return n;
}

/* Cells whose presence or value differs between two states. */
ORACLE static uint64_t changes(const state *a, const state *b) {
    uint64_t n = 0;
    for (int m = 0; m < MODELS; m++)
        for (size_t i = 0; i < CELLS; i++) n += a->v[m][i] != b->v[m][i];
    return n;
}

static void verify(const vxr_scene *scene, const state *st) {
    for (int m = 0; m < MODELS; m++) {
        vxr_octree c;
        if (vxr_octree_compact_copy(&scene->models[m], &c, NULL) != VXR_OK) abort();
        if (vxr_octree_validate(&c, NULL) != VXR_OK) abort();
        check k = {st->v[m], 0};
        vxr_octree_foreach(&c, check_voxel, &k);
        if (count_set(st->v[m]) != k.count) abort();
        vxr_octree_free(&c);
    }
}

/* Two models: a 4^3 cube of colours 1..4 and a single voxel, each placed
 * once. */
static vxr_scene *make_scene(state *st) {
    vxr_scene_src src;
    vxr_scene_src_init(&src, 1);
    for (int i = 1; i < 256; i++) src.palette[i] = 0xff000000u | (uint32_t)i * 0x010305u;
    memset(st, 0, sizeof *st);
    uint32_t a, b;
    if (vxr_scene_src_add_model(&src, &a) != VXR_OK || vxr_scene_src_add_model(&src, &b) != VXR_OK)
        abort();
    for (int32_t x = 0; x < 4; x++)
        for (int32_t y = 0; y < 4; y++)
            for (int32_t z = 0; z < 4; z++) {
                uint32_t colour = 1 + (uint32_t)(x + y + z) % 4;
                if (vxr_model_src_push(&src.models[a], x, y, z, colour) != VXR_OK) abort();
                st->v[0][cell_index(x, y, z)] = (uint8_t)colour;
            }
    if (vxr_model_src_push(&src.models[b], -8, 5, 7, 7) != VXR_OK) abort();
    st->v[1][cell_index(-8, 5, 7)] = 7;
    vxr_instance in = {a, 0, vxr_transform_identity(), INFINITY};
    if (vxr_scene_src_add_instance(&src, &in) != VXR_OK) abort();
    in.model = b;
    in.transform.translation[0] = 40;
    if (vxr_scene_src_add_instance(&src, &in) != VXR_OK) abort();
    vxr_scene *scene;
    if (vxr_scene_build(&src, &scene, NULL) != VXR_OK) abort();
    vxr_scene_src_free(&src);
    return scene;
}

/* The oracle's effect of an edit of cell (x, y, z). */
ORACLE static void oracle_cell(state *st, const vxr_edit *ed, int32_t x, int32_t y, int32_t z) {
    uint8_t *c = &st->v[ed->model][cell_index(x, y, z)];
    if (ed->op == VXR_EDIT_CLEAR)
        *c = 0;
    else if (ed->op == VXR_EDIT_SET || *c)
        *c = (uint8_t)ed->value;
}

ORACLE static void oracle_apply(state *st, const vxr_edit *ed) {
    if (ed->shape == VXR_SHAPE_CELLS) {
        for (size_t i = 0; i < ed->count; i++)
            oracle_cell(st, ed, ed->cells[i][0], ed->cells[i][1], ed->cells[i][2]);
        return;
    }
    const double r2 = ed->radius * ed->radius;
    for (int32_t x = -HALF; x < HALF; x++)
        for (int32_t y = -HALF; y < HALF; y++)
            for (int32_t z = -HALF; z < HALF; z++) {
                if (ed->shape == VXR_SHAPE_BOX) {
                    if (x < ed->lo[0] || x >= ed->hi[0] || y < ed->lo[1] || y >= ed->hi[1] ||
                        z < ed->lo[2] || z >= ed->hi[2])
                        continue;
                } else {
                    double dx = x + 0.5 - ed->centre[0], dy = y + 0.5 - ed->centre[1],
                           dz = z + 0.5 - ed->centre[2];
                    if (dx * dx + dy * dy + dz * dz > r2) continue;
                }
                oracle_cell(st, ed, x, y, z);
            }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    vxr_scene *scene = make_scene(&states[0]);
    vxr_editor *editor;
    size_t journal = (data[0] & 1) ? 0 : 512 + (size_t)data[0] * 64;
    if (vxr_editor_create(scene, journal, &editor, NULL) != VXR_OK) abort();
    bool forget = data[0] & 2; /* a step larger than the journal: applied without undo */
    if (forget) vxr_editor_set_overflow(editor, VXR_JOURNAL_FORGET);
    /* The changes one step may journal: the budget less the editor's step
     * record (40 bytes on 64-bit targets), sizeof(vxr_voxel_change) each. */
    const uint64_t room = journal ? (journal - 40) / sizeof(vxr_voxel_change) : UINT64_MAX;
    /* states[base..n]: the oldest state the journal reaches back to, up to
     * the newest redo; states[top] is the models now. */
    size_t base = 0, top = 0, n = 0, records = 0;
    size_t at = 1;
    while (at + REC <= size && records < MAX_RECORDS) {
        const uint8_t *b = data + at;
        at += REC;
        records++;
        int action = b[0] % 8, shape = (b[0] >> 3) % 4;
        uint32_t before_undo, before_redo, undo, redo;
        size_t bytes;
        vxr_editor_depth(editor, &before_undo, &before_redo, &bytes);
        if (before_undo != top - base || before_redo != n - top) abort();
        if (action == 3 || action == 4) {
            bool done;
            vxr_result r = action == 3 ? vxr_editor_undo(editor, &done, NULL)
                                       : vxr_editor_redo(editor, &done, NULL);
            if (r != VXR_OK) abort();
            if (action == 3 && done != (top > base)) abort();
            if (action == 4 && done != (top < n)) abort();
            if (done) top = action == 3 ? top - 1 : top + 1;
            continue;
        }
        vxr_edit ed;
        memset(&ed, 0, sizeof ed);
        int32_t cells[4][3];
        ed.op = action == 5  ? (vxr_edit_op)(b[1] & 1 ? 0 : 4)
                : action > 5 ? VXR_EDIT_SET
                             : (vxr_edit_op)(VXR_EDIT_SET + action);
        ed.model = b[1] % 8 == 7 ? 2 : b[1] & 1;
        ed.value = b[2] + (b[1] & 0x80 ? 256u : 0u);
        ed.shape = shape == 3 ? (vxr_edit_shape)(b[1] & 2 ? 0 : 4) : (vxr_edit_shape)(shape + 1);
        if (ed.shape == VXR_SHAPE_CELLS) {
            ed.count = b[3] % 5;
            if (at + 3 * ed.count > size) break;
            for (size_t i = 0; i < ed.count; i++)
                for (int k = 0; k < 3; k++) cells[i][k] = data[at++] % R - HALF;
            ed.cells = (const int32_t(*)[3])cells;
        } else if (ed.shape == VXR_SHAPE_BOX) {
            for (int k = 0; k < 3; k++) {
                ed.lo[k] = b[3 + k] % (R + 1) - HALF;
                /* sides of at most 8 keep a run cheap (40 boxes of 16^3
                 * were 160,000 voxel edits before undo and redo) */
                int32_t hi = ed.lo[k] + b[6 + k] % 10 - 1;
                ed.hi[k] = hi < HALF ? hi : HALF;
            }
        } else {
            for (int k = 0; k < 3; k++) ed.centre[k] = (int8_t)b[3 + k] / 32.0;
            ed.radius = b[8] == 255 ? NAN : (b[6] ^ b[7]) / 64.0;
        }
        bool early = ed.model >= MODELS || ed.op < VXR_EDIT_SET || ed.op > VXR_EDIT_PAINT ||
                     (ed.op != VXR_EDIT_CLEAR && (ed.value == 0 || ed.value > 255));
        bool bad_shape = ed.shape < VXR_SHAPE_CELLS || ed.shape > VXR_SHAPE_SPHERE;
        vxr_result expect = early || bad_shape                                 ? VXR_ERROR_ARGUMENT
                            : ed.shape == VXR_SHAPE_SPHERE && isnan(ed.radius) ? VXR_ERROR_LIMIT
                                                                               : VXR_OK;
        /* an edit refused up front (vxr_edit_check) is no step; one that
         * changes more voxels than the journal holds is refused too
         * (VXR_JOURNAL_REFUSE), or applied without undo (FORGET) */
        bool over = false;
        static state next; /* not states[top + 1]: a refused step keeps the redo list */
        if (expect == VXR_OK) {
            next = states[top];
            oracle_apply(&next, &ed);
            over = changes(&states[top], &next) > room;
            if (over && !forget) expect = VXR_ERROR_LIMIT;
        }
        vxr_edit_result res;
        vxr_error err;
        vxr_result r = vxr_editor_apply(editor, &ed, &res, &err);
        if (r != expect) abort();
        if (r != VXR_OK && !err.message[0]) abort();
        if (r == VXR_OK) { /* a new step: the redo list goes */
            if (res.changed != changes(&states[top], &next)) abort();
            states[top + 1] = next;
            if (res.journaled == over) abort();
            n = ++top;
            if (over) base = top; /* the journal forgot every step */
        } else if (res.changed != 0) {
            abort();
        }
        vxr_editor_depth(editor, &undo, &redo, &bytes);
        if (redo != n - top || undo > top - base || (undo == 0 && r == VXR_OK && !over)) abort();
        if (journal && bytes > journal && undo > 1) abort();
        base = top - undo; /* steps the journal forgot */
    }
    verify(scene, &states[top]);
    for (bool done = true; done;) /* undo all it keeps */
        if (vxr_editor_undo(editor, &done, NULL) != VXR_OK) abort();
    verify(scene, &states[base]);
    for (bool done = true; done;)
        if (vxr_editor_redo(editor, &done, NULL) != VXR_OK) abort();
    verify(scene, &states[n]);

    /* A few picks over the edited scene, and the cube edit of one. */
    vxr_picker *picker;
    if (vxr_picker_create(scene, &picker) != VXR_OK) abort();
    vxr_ray ray = {{-40, 1.5f, 1.5f}, {1, 0.01f, 0.02f}};
    if (size >= 4) {
        ray.origin[1] = (int8_t)data[size - 3] / 8.0f;
        ray.origin[2] = (int8_t)data[size - 2] / 8.0f;
        ray.dir[1] = (int8_t)data[size - 1] / 256.0f;
    }
    vxr_pick pick;
    if (vxr_pick_ray(picker, &ray, 1, &pick) != VXR_OK) abort();
    vxr_edit ed;
    if (pick.hit) {
        if (pick.instance >= scene->instance_count) abort();
        if (vxr_edit_pick_cube(scene, &pick, size & 1, VXR_EDIT_SET, 9, &ed, NULL) == VXR_OK &&
            vxr_editor_apply(editor, &ed, NULL, NULL) != VXR_OK)
            abort();
    }
    vxr_picker_destroy(picker);
    for (int m = 0; m < MODELS; m++) {
        vxr_octree c;
        if (vxr_octree_compact_copy(&scene->models[m], &c, NULL) != VXR_OK) abort();
        if (vxr_octree_validate(&c, NULL) != VXR_OK) abort();
        vxr_octree_free(&c);
    }
    vxr_editor_destroy(editor);
    vxr_scene_destroy(scene);
    return 0;
}
