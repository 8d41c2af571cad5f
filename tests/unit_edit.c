/* Editing (vxr/edit.h) against a brute-force oracle: a hash map of the cells
 * that hold voxels. After every batch of random edits the live octree holds
 * exactly the oracle's voxels, and its compact form is byte for byte the
 * bulk build of the oracle's list; undo and redo walk back and forth
 * through the states; a single-voxel edit touches O(depth) nodes. */
#include <math.h>
#include "vxr/cull.h"
#include "vxr/edit.h"
#include "vxr/spheres.h"
#include "vxr/formats.h"
#include "vxr_test.h"

VXR_TEST_RNG(0x51f15eedull)

/* ---- the oracle: cell -> value, open addressing ---- */

typedef struct oracle {
    vxr_voxel *slot; /* color 0: empty */
    size_t cap, n;
} oracle;

static size_t hash3(int32_t x, int32_t y, int32_t z, size_t cap) {
    uint64_t h = (uint64_t)(uint32_t)x * 0x9e3779b97f4a7c15ull ^
                 (uint64_t)(uint32_t)y * 0xc2b2ae3d27d4eb4full ^
                 (uint64_t)(uint32_t)z * 0x165667b19e3779f9ull;
    return (size_t)(h ^ h >> 29) & (cap - 1);
}

static vxr_voxel *find(oracle *o, int32_t x, int32_t y, int32_t z) {
    size_t i = hash3(x, y, z, o->cap);
    while (o->slot[i].color && (o->slot[i].x != x || o->slot[i].y != y || o->slot[i].z != z))
        i = (i + 1) & (o->cap - 1);
    return &o->slot[i];
}

static void rehash(oracle *o, size_t cap) {
    oracle n = {calloc(cap, sizeof *n.slot), cap, 0};
    for (size_t i = 0; i < o->cap; i++)
        if (o->slot[i].color) {
            *find(&n, o->slot[i].x, o->slot[i].y, o->slot[i].z) = o->slot[i];
            n.n++;
        }
    free(o->slot);
    *o = n;
}

static void o_set(oracle *o, int32_t x, int32_t y, int32_t z, uint32_t v) {
    if (4 * (o->n + 1) > 3 * o->cap) rehash(o, o->cap ? o->cap * 2 : 1024);
    vxr_voxel *s = find(o, x, y, z);
    if (!s->color) o->n++;
    *s = (vxr_voxel){x, y, z, v};
}

static void o_clear(oracle *o, int32_t x, int32_t y, int32_t z) {
    if (!o->cap) return;
    vxr_voxel *s = find(o, x, y, z);
    if (!s->color) return;
    /* rebuild the cluster after the hole (simple and correct) */
    s->color = 0;
    o->n--;
    size_t i = (size_t)(s - o->slot);
    for (size_t j = (i + 1) & (o->cap - 1); o->slot[j].color; j = (j + 1) & (o->cap - 1)) {
        vxr_voxel v = o->slot[j];
        o->slot[j].color = 0;
        *find(o, v.x, v.y, v.z) = v;
    }
}

static uint32_t o_get(oracle *o, int32_t x, int32_t y, int32_t z) {
    return o->cap ? find(o, x, y, z)->color : 0;
}

/* ---- comparison ---- */

typedef struct seen {
    oracle *o;
    size_t n, bad;
} seen;

static void check_voxel(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    seen *s = user;
    s->n++;
    if (o_get(s->o, x, y, z) != attr && s->bad++ < 3)
        fprintf(stderr, "  voxel %d,%d,%d holds %u, the oracle %u\n", x, y, z, attr,
                o_get(s->o, x, y, z));
}

/* The tree holds the oracle's voxels; its compact form is the bulk build of
 * the oracle's list, and its bounds are tight. */
static bool same(const vxr_octree *t, oracle *o) {
    seen s = {o, 0, 0};
    vxr_octree_foreach(t, check_voxel, &s);
    CHECK_EQ_INT(s.bad, 0);
    CHECK_EQ_INT(s.n, o->n);
    CHECK_EQ_INT(t->voxel_count, o->n);
    vxr_voxel *list = malloc((o->n + 1) * sizeof *list);
    size_t n = 0;
    for (size_t i = 0; i < o->cap; i++)
        if (o->slot[i].color) list[n++] = o->slot[i];
    vxr_octree bulk, compact;
    CHECK(vxr_octree_build(list, n, t->attr_size, &bulk, NULL) == VXR_OK);
    CHECK(vxr_octree_compact_copy(t, &compact, NULL) == VXR_OK);
    bool eq = vxr_octree_equal(&bulk, &compact);
    CHECK(eq);
    for (int k = 0; k < 3; k++) CHECK(t->vmin[k] == bulk.vmin[k] && t->vmax[k] == bulk.vmax[k]);
    vxr_octree_free(&bulk);
    vxr_octree_free(&compact);
    free(list);
    return eq && s.bad == 0;
}

/* A random cell: mostly in a small region (dense edits), some near the
 * root's edge or far out (growth), negative coordinates included. */
static void random_cell(int32_t c[3], int32_t span) {
    uint32_t kind = rnd() % 16;
    for (int k = 0; k < 3; k++) {
        if (kind == 0)
            c[k] = (int32_t)(rnd() % (1u << 20)) - (1 << 19); /* far */
        else if (kind == 1)
            c[k] = (rnd() & 1 ? 1 : -1) * (int32_t)(1u << (rnd() % 12)) - (int32_t)(rnd() % 2);
        else
            c[k] = (int32_t)(rnd() % (uint32_t)(2 * span)) - span;
    }
}

/* count random single-voxel edits on t, checked against the oracle every
 * `every` edits; clear-heavy phases empty the tree now and then. */
static void random_edits(vxr_octree *t, oracle *o, long count, long every, int32_t span) {
    int32_t c[3];
    for (long i = 1; i <= count; i++) {
        bool clearing = (i / 3000) % 4 == 3; /* a quarter of the time mostly clears */
        uint32_t op = rnd() % 10, v = 1 + rnd() % 255;
        if (t->attr_size == 4) v = rnd() | 0xff000000u;
        if (clearing && o->n && rnd() % 4) { /* an existing voxel */
            size_t at = rnd() % o->cap;
            while (!o->slot[at].color) at = (at + 1) % o->cap;
            c[0] = o->slot[at].x, c[1] = o->slot[at].y, c[2] = o->slot[at].z;
            op = 0;
        } else {
            random_cell(c, span);
        }
        vxr_voxel_change ch;
        if (op < (clearing ? 9u : 3u)) {
            CHECK(vxr_octree_clear_voxel(t, c[0], c[1], c[2], &ch) == VXR_OK);
            CHECK(ch.had == (o_get(o, c[0], c[1], c[2]) != 0) && !ch.has);
            o_clear(o, c[0], c[1], c[2]);
        } else if (op < 5) {
            bool had = o_get(o, c[0], c[1], c[2]) != 0;
            CHECK(vxr_octree_set_voxel(t, c[0], c[1], c[2], v, true, &ch) == VXR_OK);
            CHECK(ch.had == had && ch.has == had);
            if (had) o_set(o, c[0], c[1], c[2], v);
        } else {
            CHECK(vxr_octree_set_voxel(t, c[0], c[1], c[2], v, false, &ch) == VXR_OK);
            o_set(o, c[0], c[1], c[2], v);
        }
        if (i % every == 0) {
            vxr_octree_refresh_bounds(t);
            if (!same(t, o)) {
                fprintf(stderr, "  after %ld edits (%zu voxels)\n", i, o->n);
                return;
            }
        }
    }
}

/* Millions of random single-voxel edits, from empty and from real models,
 * palette and RGBA; trees emptied on the way. */
static void test_random_edits(void) {
    long total = 0;
    for (int round = 0; round < 12; round++) {
        oracle o = {0};
        vxr_octree t = {.attr_size = round % 3 == 2 ? 4u : 1u};
        CHECK(vxr_octree_make_live(&t) == VXR_OK);
        int32_t span = round < 4 ? 6 : round < 8 ? 40 : 300;
        random_edits(&t, &o, 200000, 20000, span);
        total += 200000;
        vxr_octree_free(&t);
        free(o.slot);
    }
    fprintf(stderr, "  %ld random single-voxel edits checked\n", total);
}

static void load_oracle(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    o_set(user, x, y, z, attr);
}

/* Real models: edited live, then emptied voxel by voxel. */
static void test_real_models(void) {
    static const char *files[] = {"mmmm__scene_store8.vox", "vengi__test-transform.vox",
                                  "bevy_vox_scene__study.vox", "voxelio__debug.vl32"};
    for (int f = 0; f < 4; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", VXR_TEST_DATA, files[f]);
        vxr_scene *s = NULL;
        CHECK(vxr_scene_load(path, &s, NULL) == VXR_OK);
        if (!s) continue;
        for (uint32_t m = 0; m < s->model_count && m < 3; m++) {
            vxr_octree *t = &s->models[m];
            oracle o = {0};
            vxr_octree_foreach(t, load_oracle, &o);
            CHECK(vxr_octree_make_live(t) == VXR_OK);
            CHECK(same(t, &o));
            random_edits(t, &o, 30000, 10000, 40);
            /* empty it completely */
            vxr_voxel *left = malloc((o.n + 1) * sizeof *left);
            size_t n = 0;
            for (size_t i = 0; i < o.cap; i++)
                if (o.slot[i].color) left[n++] = o.slot[i];
            for (size_t i = 0; i < n; i++) {
                CHECK(vxr_octree_clear_voxel(t, left[i].x, left[i].y, left[i].z, NULL) == VXR_OK);
                o_clear(&o, left[i].x, left[i].y, left[i].z);
            }
            free(left);
            CHECK(t->node_count == 0 && t->depth == 0 && t->voxel_count == 0);
            CHECK(same(t, &o));
            free(o.slot);
        }
        vxr_scene_destroy(s);
    }
}

/* A single-voxel edit rewrites O(depth) node slots and one brick's
 * attributes, not the model. */
static void test_edit_cost(void) {
    vxr_scene *s = NULL;
    CHECK(vxr_scene_load(VXR_TEST_DATA "/mmmm__scene_store8.vox", &s, NULL) == VXR_OK);
    if (!s) return;
    uint32_t big = 0;
    for (uint32_t m = 1; m < s->model_count; m++)
        if (s->models[m].voxel_count > s->models[big].voxel_count) big = m;
    vxr_octree *t = &s->models[big];
    CHECK(vxr_octree_make_live(t) == VXR_OK);
    uint32_t worst_nodes = 0, worst_attrs = 0;
    for (int i = 0; i < 2000; i++) {
        vxr_octree_changes_taken(t);
        int32_t c[3];
        for (int k = 0; k < 3; k++)
            c[k] = t->vmin[k] + (int32_t)(rnd() % (uint32_t)(t->vmax[k] - t->vmin[k]));
        if (i % 2)
            CHECK(vxr_octree_set_voxel(t, c[0], c[1], c[2], 1 + rnd() % 255, false, NULL) ==
                  VXR_OK);
        else
            CHECK(vxr_octree_clear_voxel(t, c[0], c[1], c[2], NULL) == VXR_OK);
        vxr_octree_changes ch;
        vxr_octree_get_changes(t, &ch);
        CHECK(!ch.all);
        uint32_t nodes = 0, attrs = 0;
        for (uint32_t k = 0; k < ch.node_spans; k++) nodes += ch.nodes[k].count;
        for (uint32_t k = 0; k < ch.attr_spans; k++) attrs += ch.attrs[k].count;
        if (nodes > worst_nodes) worst_nodes = nodes;
        if (attrs > worst_attrs) worst_attrs = attrs;
    }
    fprintf(stderr,
            "  model %u (%u voxels, depth %u): at most %u node slots and %u attributes "
            "rewritten by one edit\n",
            big, t->voxel_count, t->depth, worst_nodes, worst_attrs);
    CHECK(worst_nodes <= 2 * 8 * t->depth); /* a block of 8 per level, twice */
    CHECK(worst_attrs <= 2 * 64);
    vxr_scene_destroy(s);
}

/* Applies a box or sphere edit to the oracle by brute force over its cells. */
static void o_apply(oracle *o, const vxr_edit *ed) {
    int64_t lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] =
            ed->shape == VXR_SHAPE_BOX ? ed->lo[k] : (int64_t)floor(ed->centre[k] - ed->radius) - 1;
        hi[k] =
            ed->shape == VXR_SHAPE_BOX ? ed->hi[k] : (int64_t)ceil(ed->centre[k] + ed->radius) + 1;
    }
    for (int64_t x = lo[0]; x < hi[0]; x++)
        for (int64_t y = lo[1]; y < hi[1]; y++)
            for (int64_t z = lo[2]; z < hi[2]; z++) {
                if (ed->shape == VXR_SHAPE_SPHERE) {
                    double d[3] = {(double)x + 0.5 - ed->centre[0], (double)y + 0.5 - ed->centre[1],
                                   (double)z + 0.5 - ed->centre[2]};
                    if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] > ed->radius * ed->radius) continue;
                }
                int32_t c[3] = {(int32_t)x, (int32_t)y, (int32_t)z};
                bool had = o_get(o, c[0], c[1], c[2]) != 0;
                if (ed->op == VXR_EDIT_CLEAR)
                    o_clear(o, c[0], c[1], c[2]);
                else if (ed->op == VXR_EDIT_SET || had)
                    o_set(o, c[0], c[1], c[2], ed->value);
            }
}

/* Boxes and spheres through the editor against the oracle; then undo walks
 * back through every state (compact snapshots) and redo forward again; a
 * new step drops the redo list; a small journal forgets old steps. */
static void test_editor(void) {
    vxr_scene *s = NULL;
    CHECK(vxr_scene_load(VXR_TEST_DATA "/vengi__test-transform.vox", &s, NULL) == VXR_OK);
    if (!s) return;
    vxr_editor *e = NULL;
    CHECK(vxr_editor_create(s, 0, &e, NULL) == VXR_OK);
    const uint32_t model = 0, steps = 60;
    oracle o = {0};
    vxr_octree_foreach(&s->models[model], load_oracle, &o);
    vxr_octree *snap = calloc(steps + 1, sizeof *snap);
    CHECK(vxr_octree_compact_copy(&s->models[model], &snap[0], NULL) == VXR_OK);
    for (uint32_t i = 1; i <= steps; i++) {
        const vxr_octree *t = &s->models[model];
        vxr_edit ed = {
            .op = (vxr_edit_op)(1 + rnd() % 3), .model = model, .value = 1 + rnd() % 255};
        ed.shape = rnd() % 2 ? VXR_SHAPE_BOX : VXR_SHAPE_SPHERE;
        for (int k = 0; k < 3; k++) { /* around the model, sometimes past its root */
            int32_t c = t->vmin[k] - 4 + (int32_t)(rnd() % (uint32_t)(t->vmax[k] - t->vmin[k] + 8));
            if (i % 7 == 0) c += (int32_t)(1u << t->depth) * (rnd() % 2 ? 1 : -1);
            ed.lo[k] = c;
            ed.hi[k] = c + 1 + (int32_t)(rnd() % 9);
            ed.centre[k] = c + (double)(rnd() % 100) / 100.0;
        }
        ed.radius = (double)(rnd() % 700) / 100.0;
        vxr_edit_result res;
        CHECK(vxr_editor_apply(e, &ed, &res, NULL) == VXR_OK);
        o_apply(&o, &ed);
        CHECK(same(&s->models[model], &o));
        CHECK(vxr_octree_compact_copy(&s->models[model], &snap[i], NULL) == VXR_OK);
    }
    uint32_t undo, redo;
    vxr_editor_depth(e, &undo, &redo, NULL);
    CHECK(undo == steps && redo == 0);
    bool done;
    for (uint32_t i = steps; i-- > 0;) {
        CHECK(vxr_editor_undo(e, &done, NULL) == VXR_OK && done);
        vxr_octree now;
        CHECK(vxr_octree_compact_copy(&s->models[model], &now, NULL) == VXR_OK);
        CHECK(vxr_octree_equal(&now, &snap[i]));
        vxr_octree_free(&now);
    }
    CHECK(vxr_editor_undo(e, &done, NULL) == VXR_OK && !done);
    for (uint32_t i = 1; i <= steps / 2; i++) {
        CHECK(vxr_editor_redo(e, &done, NULL) == VXR_OK && done);
        vxr_octree now;
        CHECK(vxr_octree_compact_copy(&s->models[model], &now, NULL) == VXR_OK);
        CHECK(vxr_octree_equal(&now, &snap[i]));
        vxr_octree_free(&now);
    }
    /* a new step (even one that changes nothing) drops what could be redone */
    vxr_edit none = {.op = VXR_EDIT_PAINT,
                     .model = model,
                     .value = 3,
                     .shape = VXR_SHAPE_BOX,
                     .lo = {1 << 20, 0, 0},
                     .hi = {1 << 20, 1, 1}};
    CHECK(vxr_editor_apply(e, &none, NULL, NULL) == VXR_OK);
    vxr_editor_depth(e, &undo, &redo, NULL);
    CHECK(undo == steps / 2 + 1 && redo == 0);
    vxr_editor_destroy(e);
    for (uint32_t i = 0; i <= steps; i++) vxr_octree_free(&snap[i]);
    free(snap);

    /* a journal of 64 KiB keeps the newest steps only */
    CHECK(vxr_editor_create(s, 65536, &e, NULL) == VXR_OK);
    for (int i = 0; i < 40; i++) {
        vxr_edit ed = {.op = i % 2 ? VXR_EDIT_CLEAR : VXR_EDIT_SET,
                       .model = model,
                       .value = 5,
                       .shape = VXR_SHAPE_BOX,
                       .lo = {0, 0, 0},
                       .hi = {12, 12, 12}};
        CHECK(vxr_editor_apply(e, &ed, NULL, NULL) == VXR_OK);
    }
    size_t bytes;
    vxr_editor_depth(e, &undo, &redo, &bytes);
    CHECK(undo >= 1 && undo < 40 && bytes <= 65536);
    vxr_editor_destroy(e);
    free(o.slot);
    vxr_scene_destroy(s);
}

/* Instances whose culled flag is not what brute force says for eye. */
static uint32_t cull_errors(const vxr_scene *s, const float eye[3]) {
    uint32_t bad = 0;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const vxr_instance *in = &s->instances[i];
        bool culled = false;
        if (!(in->flags & VXR_INSTANCE_HIDDEN) && isfinite(in->view_distance)) {
            float lo[3], hi[3], c[3];
            vxr_instance_world_bounds(s, i, lo, hi);
            for (int k = 0; k < 3; k++) c[k] = 0.5f * (lo[k] + hi[k]);
            culled = !vxr_sphere_contains(c, in->view_distance, eye);
        }
        bad += culled != ((in->flags & VXR_INSTANCE_CULLED) != 0);
    }
    return bad;
}

/* The culler follows a changing scene: instances moved, added, removed,
 * hidden, given finite or infinite view distances, and models that grow. */
/* The 2^27-cell limit counts cells: a box with an empty side is empty
 * (nothing changes), however long its other sides; a box over the limit
 * is refused (fuzz_text found the first refused). */
static void test_step_limit(void) {
    vxr_scene *s = NULL;
    CHECK(vxr_scene_load(VXR_TEST_DATA "/mmmm__chr_robot.vox", &s, NULL) == VXR_OK);
    if (!s) return;
    vxr_editor *e = NULL;
    CHECK(vxr_editor_create(s, 0, &e, NULL) == VXR_OK);
    const int32_t reach = 1 << (VXR_MAX_DEPTH - 1);
    vxr_edit ed = {.op = VXR_EDIT_SET, .model = 0, .value = 5, .shape = VXR_SHAPE_BOX};
    for (int k = 0; k < 3; k++) ed.hi[k] = reach; /* from 0 */
    for (int empty = 0; empty < 3; empty++) {
        ed.hi[empty] = 0;
        vxr_edit_result res = {.changed = 99};
        CHECK(vxr_editor_apply(e, &ed, &res, NULL) == VXR_OK);
        CHECK(res.changed == 0);
        ed.hi[empty] = reach;
    }
    ed.hi[0] = 512; /* 512 x 512 x 513 cells: 2^27 + 2^18 */
    ed.hi[1] = 512;
    ed.hi[2] = 513;
    vxr_error err = {{0}};
    CHECK(vxr_editor_apply(e, &ed, NULL, &err) == VXR_ERROR_LIMIT && err.message[0]);
    vxr_editor_destroy(e);
    vxr_scene_destroy(s);
}

static void test_culler_follows(void) {
    vxr_scene *s = NULL;
    CHECK(vxr_scene_load(VXR_TEST_DATA "/mmmm__scene_store8.vox", &s, NULL) == VXR_OK);
    if (!s) return;
    vxr_editor *e = NULL;
    CHECK(vxr_editor_create(s, 0, &e, NULL) == VXR_OK);
    for (uint32_t i = 0; i < s->instance_count; i++) s->instances[i].view_distance = 60.0f;
    vxr_culler *c = NULL;
    CHECK(vxr_culler_create(s, &c) == VXR_OK);
    uint32_t worst = 0;
    for (int step = 0; step < 400; step++) {
        uint32_t i = rnd() % s->instance_count;
        vxr_instance in = s->instances[i];
        in.flags &= VXR_INSTANCE_HIDDEN;
        switch (rnd() % 6) {
        case 0: /* move */
            for (int k = 0; k < 3; k++) in.transform.translation[k] += (float)(rnd() % 41) - 20.0f;
            CHECK(vxr_scene_set_instance(s, i, &in, NULL) == VXR_OK);
            break;
        case 1: /* a new one */
            in.view_distance = rnd() % 4 ? (float)(rnd() % 100) : INFINITY;
            in.flags = 0;
            CHECK(vxr_scene_add_instance(s, &in, &i, NULL) == VXR_OK);
            break;
        case 2:
            if (s->instance_count > 4) CHECK(vxr_scene_remove_instance(s, i) == VXR_OK);
            break;
        case 3: /* hide, show, another distance */
            in.flags ^= VXR_INSTANCE_HIDDEN;
            in.view_distance = rnd() % 3 ? (float)(rnd() % 100) : INFINITY;
            if (in.model < s->model_count && s->models[in.model].attr_size)
                CHECK(vxr_scene_set_instance(s, i, &in, NULL) == VXR_OK);
            break;
        default: { /* grow the model far out, or carve it */
            vxr_edit ed = {.op = rnd() % 2 ? VXR_EDIT_SET : VXR_EDIT_CLEAR,
                           .model = s->instances[i].model,
                           .value = 7,
                           .shape = VXR_SHAPE_BOX};
            for (int k = 0; k < 3; k++) {
                ed.lo[k] = (int32_t)(rnd() % 200) - 100;
                ed.hi[k] = ed.lo[k] + 1 + (int32_t)(rnd() % 6);
            }
            if (s->models[ed.model].attr_size)
                CHECK(vxr_editor_apply(e, &ed, NULL, NULL) == VXR_OK);
        }
        }
        float eye[3] = {(float)(rnd() % 200) - 100.0f, (float)(rnd() % 200) - 100.0f,
                        (float)(rnd() % 100)};
        uint32_t visible;
        CHECK(vxr_culler_update(c, s, eye, &visible, NULL) == VXR_OK);
        uint32_t bad = cull_errors(s, eye), expect = 0;
        for (uint32_t k = 0; k < s->instance_count; k++)
            expect += !(s->instances[k].flags & (VXR_INSTANCE_HIDDEN | VXR_INSTANCE_CULLED));
        CHECK_EQ_INT(visible, expect);
        if (bad > worst) worst = bad;
    }
    CHECK_EQ_INT(worst, 0);
    vxr_culler_destroy(c);
    vxr_editor_destroy(e);
    vxr_scene_destroy(s);
}

VXR_TEST_MAIN(TEST(test_random_edits), TEST(test_real_models), TEST(test_edit_cost),
              TEST(test_editor), TEST(test_step_limit), TEST(test_culler_follows))
