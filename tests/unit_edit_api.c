/* The edit and scene API under hostile use (issue 26): bad ids, flags,
 * transforms and colours are refused with a reason and change nothing;
 * undo never replays into a model that reused a removed model's id and
 * never blocks on a removed model's step; one step never holds more than
 * the journal's budget; a pick cube near the edge of int32 is refused. */
#include <math.h>
#include "vxr/edit.h"
#include "vxr/formats.h"
#include "vxr_test.h"

static vxr_scene *robot(void) {
    vxr_scene *s = NULL;
    CHECK(vxr_scene_load(VXR_TEST_DATA "/mmmm__chr_robot.vox", &s, NULL) == VXR_OK);
    return s;
}

/* A scene of one model holding one voxel at (x, 0, 0), placed once. */
static vxr_scene *one_voxel(uint32_t attr_size, int32_t x, uint32_t value) {
    vxr_scene_src src;
    vxr_scene_src_init(&src, attr_size);
    uint32_t m;
    CHECK(vxr_scene_src_add_model(&src, &m) == VXR_OK);
    CHECK(vxr_model_src_push(&src.models[m], x, 0, 0, value) == VXR_OK);
    CHECK(vxr_scene_src_add_instance(
              &src, &(vxr_instance){m, 0, vxr_transform_identity(), INFINITY}) == VXR_OK);
    vxr_scene *s = NULL;
    CHECK(vxr_scene_build(&src, &s, NULL) == VXR_OK);
    vxr_scene_src_free(&src);
    return s;
}

static vxr_edit box(uint32_t model, vxr_edit_op op, uint32_t value, int32_t lo, int32_t hi) {
    return (vxr_edit){.op = op,
                      .model = model,
                      .value = value,
                      .shape = VXR_SHAPE_BOX,
                      .lo = {lo, lo, lo},
                      .hi = {hi, hi, hi}};
}

/* Item 1: ids past the end are refused, nothing written out of bounds
 * (ASan sees the write when there is one). */
static void test_touch_bad_ids(void) {
    vxr_scene *s = robot();
    if (!s) return;
    vxr_error err = {{0}};
    uint64_t v = s->version;
    CHECK(vxr_scene_touch_model(s, s->model_count, &err) == VXR_ERROR_ARGUMENT);
    CHECK(strstr(err.message, "no model") != NULL);
    CHECK(vxr_scene_touch_model(s, UINT32_MAX, NULL) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_scene_touch_instance(s, s->instance_count, &err) == VXR_ERROR_ARGUMENT);
    CHECK(strstr(err.message, "no instance") != NULL);
    CHECK(s->version == v);
    CHECK(vxr_scene_touch_model(s, 0, NULL) == VXR_OK && s->version == v + 1);
    /* a removed model is not there to touch */
    uint32_t id;
    CHECK(vxr_scene_add_model(s, &id) == VXR_OK);
    CHECK(vxr_scene_remove_model(s, id) == VXR_OK);
    CHECK(vxr_scene_touch_model(s, id, &err) == VXR_ERROR_ARGUMENT);
    CHECK(strstr(err.message, "removed") != NULL);
    vxr_scene_destroy(s);
}

/* Items 2 and 3: a model removed and its id reused by vxr_scene_add_model;
 * undo and redo never replay the old model's steps into the new one, and
 * the steps before them still undo. */
static void test_undo_after_remove(void) {
    vxr_scene *s = robot();
    if (!s) return;
    vxr_editor *e = NULL;
    CHECK(vxr_editor_create(s, 0, &e, NULL) == VXR_OK);
    if (!e) return;
    const uint64_t robot_voxels = s->models[0].voxel_count;
    vxr_edit carve = box(0, VXR_EDIT_CLEAR, 0, -1000, 1000);
    carve.lo[2] = 0;
    carve.hi[2] = 1; /* one layer */
    CHECK(vxr_editor_apply(e, &carve, NULL, NULL) == VXR_OK);
    const uint64_t carved = s->models[0].voxel_count;
    CHECK(carved < robot_voxels);
    uint32_t old;
    CHECK(vxr_scene_add_model(s, &old) == VXR_OK);
    vxr_edit fill = box(old, VXR_EDIT_SET, 7, 0, 2); /* 8 voxels */
    vxr_edit_result res;
    CHECK(vxr_editor_apply(e, &fill, &res, NULL) == VXR_OK && res.changed == 8);
    CHECK(vxr_editor_apply(e, &fill, NULL, NULL) == VXR_OK); /* a second, empty step */
    CHECK(vxr_editor_undo(e, &(bool){0}, NULL) == VXR_OK);   /* one to redo */
    CHECK(vxr_scene_remove_model(s, old) == VXR_OK);
    uint32_t reused;
    CHECK(vxr_scene_add_model(s, &reused) == VXR_OK);
    CHECK_EQ_INT(reused, old);
    uint32_t undo, redo;
    vxr_editor_depth(e, &undo, &redo, NULL);
    CHECK_EQ_INT(undo, 1); /* the carve; the new model's two steps are retired */
    CHECK_EQ_INT(redo, 0);
    uint64_t next_undo, next_redo;
    vxr_editor_next(e, &next_undo, &next_redo);
    CHECK(next_undo == robot_voxels - carved && next_redo == 0);
    bool done = false;
    vxr_error err = {{0}};
    CHECK(vxr_editor_undo(e, &done, &err) == VXR_OK && done);
    CHECK(!err.message[0]);
    CHECK(s->models[reused].voxel_count == 0);       /* nothing replayed into it */
    CHECK(s->models[0].voxel_count == robot_voxels); /* the carve undone */
    CHECK(vxr_editor_undo(e, &done, NULL) == VXR_OK && !done);
    CHECK(vxr_editor_redo(e, &done, NULL) == VXR_OK && done);
    CHECK(s->models[0].voxel_count == carved);
    CHECK(vxr_editor_redo(e, &done, NULL) == VXR_OK && !done);
    CHECK(s->models[reused].voxel_count == 0);
    /* the reused id's own steps undo as usual */
    CHECK(vxr_editor_apply(e, &fill, NULL, NULL) == VXR_OK);
    CHECK(vxr_editor_undo(e, &done, NULL) == VXR_OK && done);
    CHECK(s->models[reused].voxel_count == 0);
    vxr_editor_destroy(e);
    vxr_scene_destroy(s);
}

/* Item 5: a step larger than the journal is refused (model and journal as
 * before) or applied without undo, and the caller can tell; the journal
 * never holds more than its budget. */
static void test_step_over_budget(void) {
    vxr_scene *s = robot();
    if (!s) return;
    const size_t budget = 1u << 20;
    vxr_editor *e = NULL;
    CHECK(vxr_editor_create(s, budget, &e, NULL) == VXR_OK);
    if (!e) return;
    uint32_t m;
    CHECK(vxr_scene_add_model(s, &m) == VXR_OK);
    vxr_edit small = box(m, VXR_EDIT_SET, 3, 0, 4);
    CHECK(vxr_editor_apply(e, &small, NULL, NULL) == VXR_OK);
    CHECK(vxr_editor_apply(e, &small, NULL, NULL) == VXR_OK);
    CHECK(vxr_editor_undo(e, &(bool){0}, NULL) == VXR_OK); /* one to undo, one to redo */
    const uint64_t before = s->models[m].voxel_count;
    vxr_edit big = box(m, VXR_EDIT_SET, 5, 0, 128); /* 2^21 voxels, 48 MiB of changes */
    vxr_edit_result res;
    vxr_error err = {{0}};
    CHECK(vxr_editor_apply(e, &big, &res, &err) == VXR_ERROR_LIMIT);
    CHECK(strstr(err.message, "journal") != NULL && res.changed == 0);
    CHECK(s->models[m].voxel_count == before);
    uint32_t undo, redo;
    size_t bytes;
    vxr_editor_depth(e, &undo, &redo, &bytes);
    CHECK(undo == 1 && redo == 1 && bytes <= budget);
    vxr_octree compact;
    CHECK(vxr_octree_compact_copy(&s->models[m], &compact, NULL) == VXR_OK);
    CHECK(compact.voxel_count == 64);
    vxr_octree_free(&compact);

    vxr_editor_set_overflow(e, VXR_JOURNAL_FORGET);
    CHECK(vxr_editor_apply(e, &big, &res, NULL) == VXR_OK);
    CHECK(!res.journaled && res.changed == (1u << 21));
    CHECK(s->models[m].voxel_count == (1u << 21));
    vxr_editor_depth(e, &undo, &redo, &bytes);
    CHECK(undo == 0 && redo == 0 && bytes <= budget);
    bool done = true;
    CHECK(vxr_editor_undo(e, &done, NULL) == VXR_OK && !done);
    /* a step that fits is journaled again */
    CHECK(vxr_editor_apply(e, &small, &res, NULL) == VXR_OK && res.journaled);
    vxr_editor_depth(e, &undo, NULL, &bytes);
    CHECK(undo == 1 && bytes <= budget);
    vxr_editor_destroy(e);
    vxr_scene_destroy(s);
}

/* Item 9: a pick cube whose box would leave int32 (or a model's reach) is
 * refused; faces outside -1..5 and bad sizes are refused. */
static void test_pick_cube_bounds(void) {
    vxr_scene *s = robot();
    if (!s) return;
    vxr_pick p = {.hit = 1, .instance = 0, .size = 1, .face = 1};
    vxr_edit ed;
    vxr_error err = {{0}};
    p.voxel[0] = INT32_MAX;
    CHECK(vxr_edit_pick_cube(s, &p, true, VXR_EDIT_SET, 3, &ed, &err) == VXR_ERROR_LIMIT);
    CHECK(strstr(err.message, "reach") != NULL);
    p.voxel[0] = (1 << 20) - 1; /* the last cell: beside it (+x) is beyond */
    CHECK(vxr_edit_pick_cube(s, &p, false, VXR_EDIT_SET, 3, &ed, NULL) == VXR_OK);
    CHECK(vxr_edit_pick_cube(s, &p, true, VXR_EDIT_SET, 3, &ed, NULL) == VXR_ERROR_LIMIT);
    p.voxel[0] = 0;
    p.face = 7;
    CHECK(vxr_edit_pick_cube(s, &p, false, VXR_EDIT_SET, 3, &ed, &err) == VXR_ERROR_ARGUMENT);
    CHECK(strstr(err.message, "face 7") != NULL);
    p.face = 1;
    p.size = 3;
    CHECK(vxr_edit_pick_cube(s, &p, false, VXR_EDIT_SET, 3, &ed, NULL) == VXR_ERROR_ARGUMENT);
    p.size = 4;
    CHECK(vxr_edit_pick_cube(s, &p, true, VXR_EDIT_SET, 3, &ed, NULL) == VXR_OK);
    CHECK(ed.lo[0] == 4 && ed.hi[0] == 8 && ed.lo[1] == 0 && ed.hi[1] == 4);
    p.instance = s->instance_count;
    CHECK(vxr_edit_pick_cube(s, &p, true, VXR_EDIT_SET, 3, &ed, NULL) == VXR_ERROR_ARGUMENT);
    vxr_scene_destroy(s);
}

/* Item 10: transforms that are not rotations, flags the host may not set,
 * own copies of removed instances and colours that read as empty. */
static void test_bad_values(void) {
    vxr_scene *s = robot();
    if (!s) return;
    vxr_error err = {{0}};
    const vxr_transform good = s->instances[0].transform;
    const float bad[3][9] = {
        {0}, {0.5f, 0, 0, 0, 0.5f, 0, 0, 0, 0.5f}, {1, 0.5f, 0, 0, 1, 0, 0, 0, 1}};
    const uint64_t v = s->version;
    for (int k = 0; k < 3; k++) {
        vxr_transform t = good;
        memcpy(t.rotation, bad[k], sizeof t.rotation);
        CHECK(vxr_scene_set_transform(s, 0, &t, &err) == VXR_ERROR_ARGUMENT);
        CHECK(strstr(err.message, "orthonormal") != NULL);
        vxr_instance in = s->instances[0];
        in.transform = t;
        uint32_t id;
        CHECK(vxr_scene_add_instance(s, &in, &id, NULL) == VXR_ERROR_ARGUMENT);
    }
    /* a rotation about z by 30 degrees, and a mirror, are fine */
    vxr_transform t = good;
    const float c = cosf(0.5235988f), sn = sinf(0.5235988f);
    const float turn[9] = {c, -sn, 0, sn, c, 0, 0, 0, 1};
    memcpy(t.rotation, turn, sizeof turn);
    CHECK(vxr_scene_set_transform(s, 0, &t, NULL) == VXR_OK);
    t.rotation[8] = -1;
    CHECK(vxr_scene_set_transform(s, 0, &t, NULL) == VXR_OK);
    CHECK(vxr_scene_set_transform(s, 0, &good, NULL) == VXR_OK);
    CHECK(s->version == v + 3);

    vxr_instance in = s->instances[0];
    in.flags = 0xffffffffu;
    uint32_t id, count = s->instance_count;
    CHECK(vxr_scene_add_instance(s, &in, &id, &err) == VXR_ERROR_ARGUMENT);
    CHECK(strstr(err.message, "flags") != NULL && s->instance_count == count);
    in.flags = VXR_INSTANCE_REMOVED;
    CHECK(vxr_scene_set_instance(s, 0, &in, NULL) == VXR_ERROR_ARGUMENT);
    in.flags = VXR_INSTANCE_HIDDEN;
    CHECK(vxr_scene_add_instance(s, &in, &id, NULL) == VXR_OK);

    CHECK(vxr_scene_remove_instance(s, id) == VXR_OK);
    uint32_t models = s->model_count, copy = 99;
    CHECK(vxr_scene_own_model(s, id, &copy, &err) == VXR_ERROR_ARGUMENT);
    CHECK(strstr(err.message, "removed") != NULL && copy == 99 && s->model_count == models);
    CHECK(vxr_scene_own_model(s, 0, &copy, NULL) == VXR_OK && copy == models);
    CHECK(s->models[copy].voxel_count == s->models[0].voxel_count);
    vxr_scene_destroy(s);

    /* RGBA: alpha 0 reads as empty, so no edit may write it */
    s = one_voxel(4, 0, 0xff102030u);
    if (!s) return;
    vxr_editor *e = NULL;
    CHECK(vxr_editor_create(s, 0, &e, NULL) == VXR_OK);
    vxr_edit ed = box(0, VXR_EDIT_SET, 0x00ff8040u, 0, 2);
    CHECK(vxr_editor_apply(e, &ed, NULL, &err) == VXR_ERROR_ARGUMENT);
    CHECK(strstr(err.message, "alpha 0") != NULL);
    ed.op = VXR_EDIT_PAINT;
    CHECK(vxr_editor_apply(e, &ed, NULL, NULL) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_octree_set_voxel(&s->models[0], 0, 0, 0, 0x00ff8040u, false, NULL) ==
          VXR_ERROR_ARGUMENT);
    ed.value = 0x80ff8040u;
    CHECK(vxr_editor_apply(e, &ed, NULL, NULL) == VXR_OK);
    vxr_editor_destroy(e);
    vxr_scene_destroy(s);
}

/* Found by fuzz_scene: a removed model stayed removed only until an editor
 * was made (vxr_scene_make_live made it live again); an own copy of a
 * compact model whose root is one brick was a live tree with that root,
 * which the next edit that grew it read out of bounds (ASan); and a take
 * of an empty change list computed NULL + 0 (UBSan: a read of the journal
 * now). */
static void test_fuzz_scene_findings(void) {
    vxr_scene *s = robot();
    if (!s) return;
    uint32_t id, again;
    CHECK(vxr_scene_add_model(s, &id) == VXR_OK);
    CHECK(vxr_scene_remove_model(s, id) == VXR_OK);
    uint64_t since = vxr_journal_end(s);
    const vxr_change *list = NULL;
    uint32_t count = 99;
    CHECK(vxr_journal_read(s, &since, &list, &count, NULL) && count == 0 && !list);
    CHECK(vxr_scene_touch_model(s, 0, NULL) == VXR_OK); /* no instance listed */
    CHECK(vxr_journal_read(s, &since, &list, &count, NULL) && count >= 1 && list);
    for (uint32_t j = 0; j < count; j++) CHECK(list[j].kind != VXR_CHANGE_INSTANCE);
    vxr_editor *e = NULL;
    CHECK(vxr_editor_create(s, 0, &e, NULL) == VXR_OK);
    vxr_error err = {{0}};
    vxr_edit ed = box(id, VXR_EDIT_SET, 3, 0, 1);
    CHECK(vxr_editor_apply(e, &ed, NULL, &err) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_scene_add_model(s, &again) == VXR_OK && again == id);
    vxr_editor_destroy(e);
    vxr_scene_destroy(s);

    /* one voxel: a compact root of one brick */
    s = one_voxel(1, 1, 9);
    if (!s) return;
    CHECK(!s->models[0].live && s->models[0].depth < 3);
    uint32_t copy;
    CHECK(vxr_scene_own_model(s, 0, &copy, NULL) == VXR_OK);
    CHECK(vxr_octree_set_voxel(&s->models[copy], 300, -200, 100, 4, false, NULL) == VXR_OK);
    uint32_t attr = 0;
    CHECK(vxr_octree_lookup(&s->models[copy], 1, 0, 0, &attr) && attr == 9);
    CHECK(vxr_octree_lookup(&s->models[copy], 300, -200, 100, &attr) && attr == 4);
    CHECK(s->models[copy].voxel_count == 2);
    vxr_octree compact;
    CHECK(vxr_octree_compact_copy(&s->models[copy], &compact, NULL) == VXR_OK);
    CHECK(vxr_octree_validate(&compact, NULL) == VXR_OK && compact.voxel_count == 2);
    vxr_octree_free(&compact);
    vxr_scene_destroy(s);
}

/* The compact record of a CPU pick, as the GPU writes it. */
static vxr_gpu_pick record_of(const vxr_pick *p) {
    vxr_gpu_pick r = {p->instance, {p->voxel[0], p->voxel[1], p->voxel[2]}, p->t, 0, p->color,
                      VXR_PICK_HIT};
    r.shape = (uint32_t)__builtin_ctz(p->size) | ((uint32_t)p->face & 255u) << 8 |
              ((uint32_t)p->corner & 255u) << 16 | ((uint32_t)p->edge & 255u) << 24;
    return r;
}

/* A pick record expands to the pick of the scene its frame saw, or fails
 * as stale once its instance moved; edits, hiding and culling do not make
 * it stale (they leave the transform it was traced with). */
static void test_stale_record(void) {
    vxr_scene *s = robot();
    if (!s) return;
    vxr_picker *pk = NULL;
    CHECK(vxr_picker_create(s, &pk) == VXR_OK);
    vxr_ray ray;
    memset(&ray, 0, sizeof ray);
    vxr_pick cpu = {0}, got;
    float lo[3], hi[3];
    vxr_instance_world_bounds(s, 0, lo, hi);
    for (int k = 0; k < 3; k++) ray.origin[k] = (lo[k] + hi[k]) / 2;
    ray.origin[0] = lo[0] - 50;
    ray.dir[0] = 1;
    CHECK(vxr_pick_ray(pk, &ray, 1, &cpu) == VXR_OK && cpu.hit);
    vxr_picker_destroy(pk);
    const vxr_gpu_pick rec = record_of(&cpu);
    uint64_t seen = s->version;
    vxr_error err = {{0}};
    CHECK(vxr_pick_expand(s, seen, &ray, &rec, &got, &err) == VXR_OK);
    CHECK(!memcmp(&got, &cpu, sizeof got));
    /* an edit of the model, and hiding: still the frame's pick */
    vxr_editor *e = NULL;
    CHECK(vxr_editor_create(s, 0, &e, NULL) == VXR_OK);
    vxr_edit ed = box(s->instances[0].model, VXR_EDIT_CLEAR, 0, -1000, 1000);
    CHECK(vxr_editor_apply(e, &ed, NULL, NULL) == VXR_OK);
    CHECK(vxr_scene_set_flags(s, 0, VXR_INSTANCE_HIDDEN, NULL) == VXR_OK);
    CHECK(vxr_pick_expand(s, seen, &ray, &rec, &got, NULL) == VXR_OK);
    CHECK(!memcmp(&got, &cpu, sizeof got));
    /* moved after the frame: stale, with a reason; a frame after the move
     * expands it against the new transform */
    vxr_transform t = s->instances[0].transform;
    t.translation[2] += 1;
    CHECK(vxr_scene_set_transform(s, 0, &t, NULL) == VXR_OK);
    CHECK(vxr_pick_expand(s, seen, &ray, &rec, &got, &err) == VXR_ERROR_STALE);
    CHECK(strstr(err.message, "stale") != NULL && !got.hit);
    CHECK(vxr_pick_expand(s, s->version, &ray, &rec, &got, NULL) == VXR_OK && got.hit);
    CHECK(got.world_min[2] == cpu.world_min[2] + 1);
    /* a version the scene never had */
    CHECK(vxr_pick_expand(s, s->version + 1, &ray, &rec, &got, &err) == VXR_ERROR_ARGUMENT);
    /* a host that wrote the instance in place and touched it: stale too */
    uint64_t now = s->version;
    CHECK(vxr_scene_touch_instance(s, 0, NULL) == VXR_OK);
    CHECK(vxr_pick_expand(s, now, &ray, &rec, &got, NULL) == VXR_ERROR_STALE);
    vxr_editor_destroy(e);
    vxr_scene_destroy(s);
}

VXR_TEST_MAIN(TEST(test_touch_bad_ids), TEST(test_undo_after_remove), TEST(test_step_over_budget),
              TEST(test_pick_cube_bounds), TEST(test_bad_values), TEST(test_fuzz_scene_findings),
              TEST(test_stale_record))
