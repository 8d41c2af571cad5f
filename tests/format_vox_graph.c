/* What a .vox saved by vxr keeps of the file it was read from: the scene
 * graph (node names and attributes, groups, nodes shared by several paths,
 * layers, every animation frame of nTRN and nSHP), MATL, IMAP, rOBJ, rCAM
 * and NOTE, byte for byte while the scene is unchanged. Edited scenes are
 * held against the original file at every frame: the saved file read at
 * frame k has the world voxels of the original read at k with the same
 * model edits, moved instances move at the frame they were read at only,
 * and hidden, removed and added instances come back as they were left. */
#include <math.h>
#include "vxr/edit.h"
#include "vxr/formats.h"
#include "vxr_test.h"
#include "internal.h"
#include "format_records.h"

/* ------------------------------------------------------------------ files */

/* The chunks among MAIN's children whose ids are in `ids` (4 characters
 * each), whole and in order, into a new buffer (*n bytes). */
static uint8_t *chunks_of(const uint8_t *d, size_t size, const char *ids, size_t *n) {
    uint8_t *out = malloc(size + 1);
    *n = 0;
    size_t at = size >= 20 ? 20 + vxr_get32(d + 12) : size;
    while (out && at + 12 <= size) {
        const size_t whole = 12 + (size_t)vxr_get32(d + at + 4) + vxr_get32(d + at + 8);
        if (whole > size - at) break;
        for (const char *k = ids; *k; k += 4)
            if (!memcmp(d + at, k, 4)) {
                memcpy(out + *n, d + at, whole);
                *n += whole;
            }
        at += whole;
    }
    return out;
}

/* Whether n bytes of p occur in hay[0..size). */
static bool contains(const uint8_t *hay, size_t size, const void *p, size_t n) {
    for (size_t i = 0; hay && i + n <= size; i++)
        if (!memcmp(hay + i, p, n)) return true;
    return false;
}

static const char kept_ids[] = "nTRNnGRPnSHPLAYRMATLIMAPrOBJrCAMNOTE";

static vxr_scene *load_frame(const uint8_t *d, size_t n, uint32_t frame) {
    vxr_scene_src src;
    vxr_scene *s = NULL;
    vxr_error err = {{0}};
    vxr_result r = vxr_load_vox_frame(d, n, frame, &src, &err);
    if (r == VXR_OK) {
        r = vxr_scene_build(&src, &s, &err);
        vxr_scene_src_free(&src);
    }
    if (r != VXR_OK) fprintf(stderr, "  loading frame %u: %s\n", frame, err.message);
    CHECK(r == VXR_OK);
    return s;
}

static uint8_t *save(const vxr_scene *s, size_t *n) {
    uint8_t *d = NULL;
    vxr_error err = {{0}};
    const vxr_result r = vxr_save_vox(s, &d, n, &err);
    if (r != VXR_OK) fprintf(stderr, "  saving: %s\n", err.message);
    CHECK(r == VXR_OK);
    return d;
}

/* The world voxels of every instance not removed, hidden ones included
 * (flagged by a colour bit), as sorted records. */
static uint8_t *all_records(vxr_scene *s, size_t *n) {
    uint32_t *flags = malloc((s->instance_count + 1) * sizeof *flags);
    size_t nv = 0;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        flags[i] = s->instances[i].flags;
        if (!(flags[i] & VXR_INSTANCE_REMOVED))
            s->instances[i].flags &= ~(uint32_t)VXR_INSTANCE_HIDDEN;
    }
    uint8_t *all = records(s, n);
    for (uint32_t i = 0; i < s->instance_count; i++) s->instances[i].flags = flags[i];
    uint8_t *shown = records(s, &nv);
    free(flags);
    /* hidden voxels: those of all not among the shown ones */
    for (size_t i = 0, j = 0; all && i < *n; i++) {
        while (j < nv && memcmp(shown + 16 * j, all + 16 * i, 16) < 0) j++;
        if (!(j < nv && !memcmp(shown + 16 * j, all + 16 * i, 16)))
            all[16 * i + 12] ^= 0x80;
        else
            j++;
    }
    free(shown);
    if (all) qsort(all, *n, 16, cmp_record);
    return all;
}

static bool same_world(vxr_scene *a, vxr_scene *b) {
    size_t na = 0, nb = 0;
    uint8_t *x = a ? all_records(a, &na) : NULL, *y = b ? all_records(b, &nb) : NULL;
    const bool same = x && y && na == nb && !memcmp(x, y, 16 * na);
    free(x);
    free(y);
    return same;
}

/* Sets one cell of a model (live) through an editor. */
static void set_cell(vxr_scene *s, uint32_t model, int32_t x, int32_t y, int32_t z,
                     uint32_t colour) {
    vxr_editor *e = NULL;
    CHECK(vxr_editor_create(s, 0, &e, NULL) == VXR_OK);
    vxr_edit ed = {0};
    ed.op = VXR_EDIT_SET;
    ed.model = model;
    ed.value = colour;
    ed.shape = VXR_SHAPE_BOX;
    const int32_t lo[3] = {x, y, z}, hi[3] = {x + 1, y + 1, z + 1};
    memcpy(ed.lo, lo, sizeof lo);
    memcpy(ed.hi, hi, sizeof hi);
    if (e) CHECK(vxr_editor_apply(e, &ed, NULL, NULL) == VXR_OK);
    vxr_editor_destroy(e);
}

typedef struct cell_edit {
    uint32_t model;
    int32_t x, y, z;
    uint32_t colour;
} cell_edit;

/* Reads d at frame `from`, applies the edits, saves; then at each frame
 * k < frames the saved file is the original read at k with the same edits. */
static void check_frames(const uint8_t *d, size_t n, uint32_t from, const cell_edit *edits,
                         size_t n_edits, uint32_t frames, const char *name) {
    const int before = vxr_test_failures_;
    vxr_scene *s = load_frame(d, n, from);
    for (size_t i = 0; s && i < n_edits; i++)
        set_cell(s, edits[i].model, edits[i].x, edits[i].y, edits[i].z, edits[i].colour);
    size_t ns = 0;
    uint8_t *saved = s ? save(s, &ns) : NULL;
    for (uint32_t k = 0; saved && k < frames; k++) {
        vxr_scene *want = load_frame(d, n, k), *got = load_frame(saved, ns, k);
        for (size_t i = 0; want && i < n_edits; i++)
            set_cell(want, edits[i].model, edits[i].x, edits[i].y, edits[i].z, edits[i].colour);
        if (!same_world(want, got)) {
            fprintf(stderr, "  frame %u differs\n", k);
            CHECK(0);
        }
        vxr_scene_destroy(want);
        vxr_scene_destroy(got);
    }
    if (vxr_test_failures_ != before) fprintf(stderr, "  in %s, read at frame %u\n", name, from);
    free(saved);
    vxr_scene_destroy(s);
}

/* ------------------------------------------------------------ a hand-made file */

typedef struct builder {
    uint8_t b[4096];
    size_t n;
} builder;

static void b32(builder *o, int32_t v) {
    vxr_put32(o->b + o->n, (uint32_t)v);
    o->n += 4;
}

static void bstr(builder *o, const char *s) {
    b32(o, (int32_t)strlen(s));
    memcpy(o->b + o->n, s, strlen(s));
    o->n += strlen(s);
}

/* A DICT of the pairs in kv (NULL-terminated). */
static void bdict(builder *o, const char *const *kv) {
    int32_t n = 0;
    while (kv && kv[2 * n]) n++;
    b32(o, n);
    for (int32_t i = 0; i < 2 * n; i++) bstr(o, kv[i]);
}

static size_t bchunk(builder *o, const char *id) {
    memcpy(o->b + o->n, id, 4);
    o->n += 12;
    memset(o->b + o->n - 8, 0, 8);
    return o->n;
}

static void bend(builder *o, size_t start) {
    vxr_put32(o->b + start - 8, (uint32_t)(o->n - start));
}

static void bmodel(builder *o, int32_t sx, int32_t sy, int32_t sz, const uint8_t (*v)[4],
                   int32_t count) {
    size_t c = bchunk(o, "SIZE");
    b32(o, sx), b32(o, sy), b32(o, sz);
    bend(o, c);
    c = bchunk(o, "XYZI");
    b32(o, count);
    memcpy(o->b + o->n, v, 4 * (size_t)count);
    o->n += 4 * (size_t)count;
    bend(o, c);
}

/* nTRN id -> child on layer, with key frames (each a NULL-terminated dict). */
static void btrn(builder *o, int32_t id, const char *const *attr, int32_t child, int32_t layer,
                 const char *const *const *frames, int32_t n) {
    const size_t c = bchunk(o, "nTRN");
    b32(o, id);
    bdict(o, attr);
    b32(o, child), b32(o, -1), b32(o, layer), b32(o, n);
    for (int32_t i = 0; i < n; i++) bdict(o, frames[i]);
    bend(o, c);
}

/* Two models; a group of three nTRNs: "mover" with key frames 0 and 5 over
 * an nSHP showing model 0 then model 1 (_f 5), "twin" over the same nSHP,
 * and "ghost" on a hidden layer over model 0; two named layers. */
static size_t animated_file(uint8_t *dest) {
    builder o = {{0}, 0};
    memcpy(o.b, "VOX ", 4);
    o.n = 8;
    vxr_put32(o.b + 4, 200);
    const size_t main_at = bchunk(&o, "MAIN");
    static const uint8_t m0[][4] = {{0, 0, 0, 1}, {2, 1, 0, 2}, {1, 0, 2, 3}, {2, 0, 2, 4}};
    static const uint8_t m1[][4] = {{0, 0, 0, 5}, {1, 1, 1, 6}, {1, 0, 0, 7}};
    bmodel(&o, 3, 2, 3, m0, 4);
    bmodel(&o, 2, 2, 2, m1, 3);
    static const char *const none[] = {NULL};
    static const char *const f0[] = {"_f", "0", "_t", "4 -2 7", NULL};
    static const char *const f5[] = {"_f", "5", "_r", "17", "_t", "-6 3 1", NULL};
    static const char *const twin[] = {"_r", "20", "_t", "10 10 0", NULL};
    static const char *const ghost[] = {"_t", "0 20 3", NULL};
    static const char *const *const root_frames[] = {none};
    static const char *const *const mover_frames[] = {f0, f5};
    static const char *const *const twin_frames[] = {twin};
    static const char *const *const ghost_frames[] = {ghost};
    static const char *const mover[] = {"_name", "mover", NULL};
    static const char *const twin_name[] = {"_name", "twin", "_hidden", "0", NULL};
    static const char *const ghost_name[] = {"_name", "ghost", NULL};
    btrn(&o, 0, NULL, 1, -1, root_frames, 1);
    size_t c = bchunk(&o, "nGRP");
    b32(&o, 1), bdict(&o, NULL), b32(&o, 3), b32(&o, 2), b32(&o, 4), b32(&o, 5);
    bend(&o, c);
    btrn(&o, 2, mover, 3, 0, mover_frames, 2);
    c = bchunk(&o, "nSHP");
    static const char *const e5[] = {"_f", "5", NULL};
    b32(&o, 3), bdict(&o, NULL), b32(&o, 2), b32(&o, 0), bdict(&o, NULL), b32(&o, 1), bdict(&o, e5);
    bend(&o, c);
    btrn(&o, 4, twin_name, 3, 0, twin_frames, 1);
    btrn(&o, 5, ghost_name, 6, 1, ghost_frames, 1);
    c = bchunk(&o, "nSHP");
    b32(&o, 6), bdict(&o, NULL), b32(&o, 1), b32(&o, 0), bdict(&o, NULL);
    bend(&o, c);
    static const char *const l0[] = {"_name", "ground", NULL};
    static const char *const l1[] = {"_name", "hidden things", "_hidden", "1", NULL};
    c = bchunk(&o, "LAYR");
    b32(&o, 0), bdict(&o, l0), b32(&o, -1);
    bend(&o, c);
    c = bchunk(&o, "LAYR");
    b32(&o, 1), bdict(&o, l1), b32(&o, -1);
    bend(&o, c);
    vxr_put32(o.b + main_at - 4, (uint32_t)(o.n - main_at));
    memcpy(dest, o.b, o.n);
    return o.n;
}

/* rCAM slot id with the attributes kv (NULL-terminated). */
static void bcam(builder *o, int32_t id, const char *const *kv) {
    const size_t c = bchunk(o, "rCAM");
    b32(o, id);
    bdict(o, kv);
    bend(o, c);
}

/* ------------------------------------------------------------------ tests */

/* Every file of tests/data with a scene graph keeps its chunks whole. */
static void test_chunks_kept(void) {
    static const char *const files[] = {"bevy_vox_scene__study.vox",
                                        "ogt__test_multiple_model_scene.vox",
                                        "vengi__8ontop.vox",
                                        "vengi__animation.0.99.7.1.vox",
                                        "vengi__test-transform.vox",
                                        "voxelio__debug.vox",
                                        "vengi__rgb.vox",
                                        "vengi__rgb_small.vox"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        size_t n = 0, ns = 0, ka = 0, kb = 0;
        uint8_t *d = read_data(files[i], &n);
        vxr_scene *s = d ? load_frame(d, n, 0) : NULL;
        uint8_t *saved = s ? save(s, &ns) : NULL;
        uint8_t *a = d ? chunks_of(d, n, kept_ids, &ka) : NULL,
                *b = saved ? chunks_of(saved, ns, kept_ids, &kb) : NULL;
        CHECK(ka > 0 && a && b && ka == kb && !memcmp(a, b, ka));
        if (!(a && b && ka == kb && !memcmp(a, b, ka))) fprintf(stderr, "  in %s\n", files[i]);
        VXR_FREE(a, b, d, saved);
        vxr_scene_destroy(s);
    }
}

/* vengi's animation (key frames 0, 9 and 30): saved from any frame, every
 * frame comes back; a model edited past its SIZE keeps its place in all. */
static void test_animation(void) {
    size_t n = 0;
    uint8_t *d = read_data("vengi__animation.0.99.7.1.vox", &n);
    if (!d) return;
    check_frames(d, n, 0, NULL, 0, 34, "animation");
    check_frames(d, n, 12, NULL, 0, 34, "animation");
    const cell_edit grow[] = {{0, -3, 0, 0, 9}, {0, 40, 2, 1, 12}};
    check_frames(d, n, 30, grow, 2, 34, "animation, grown");
    free(d);
}

/* The hand-made file: unchanged it comes back byte for byte (both layers,
 * the shared nSHP, both of its models); edits to either model, read at
 * either frame, keep every frame. */
static void test_model_frames(void) {
    static uint8_t d[4096];
    const size_t n = animated_file(d);
    vxr_scene *s = load_frame(d, n, 0);
    if (!s) return;
    CHECK_EQ_INT(s->instance_count, 3);
    CHECK(s->instances[2].flags & VXR_INSTANCE_HIDDEN);
    size_t ns = 0, ka = 0, kb = 0;
    uint8_t *saved = save(s, &ns);
    uint8_t *a = chunks_of(d, n, kept_ids, &ka),
            *b = saved ? chunks_of(saved, ns, kept_ids, &kb) : NULL;
    CHECK(a && b && ka == kb && !memcmp(a, b, ka));
    VXR_FREE(a, b, saved);
    vxr_scene_destroy(s);
    check_frames(d, n, 0, NULL, 0, 8, "hand-made");
    const cell_edit grow[] = {{0, -2, 0, 0, 9}, {1, 4, 1, 1, 10}, {1, 0, 0, 5, 11}};
    check_frames(d, n, 0, grow, 3, 8, "hand-made, grown");
    check_frames(d, n, 5, grow, 3, 8, "hand-made, grown");
}

/* Moving "mover" at frame 5 moves it at frames 5 on only; showing "ghost"
 * (on a hidden layer) cannot be kept in the graph, and still saves. */
static void test_moved_hidden(void) {
    static uint8_t d[4096];
    const size_t n = animated_file(d);
    vxr_scene *s = load_frame(d, n, 5), *before = load_frame(d, n, 0);
    if (!s || !before) return;
    vxr_transform t = s->instances[0].transform;
    t.translation[0] += 7;
    t.translation[2] -= 3;
    CHECK(vxr_scene_set_transform(s, 0, &t, NULL) == VXR_OK);
    CHECK(vxr_scene_set_flags(s, 1, VXR_INSTANCE_HIDDEN, NULL) == VXR_OK);
    size_t ns = 0;
    uint8_t *saved = save(s, &ns);
    vxr_scene *at5 = saved ? load_frame(saved, ns, 5) : NULL,
              *at0 = saved ? load_frame(saved, ns, 0) : NULL;
    CHECK(same_world(s, at5));
    if (at0) {
        /* frame 0: mover where it was, twin hidden as it is now */
        CHECK(at0->instances[1].flags & VXR_INSTANCE_HIDDEN);
        at0->instances[1].flags &= ~(uint32_t)VXR_INSTANCE_HIDDEN;
        CHECK(same_world(before, at0));
    }
    /* names and layers survive */
    CHECK(contains(saved, ns, "hidden things", 13) && contains(saved, ns, "mover", 5));
    vxr_scene_destroy(at5);
    vxr_scene_destroy(at0);
    free(saved);
    CHECK(vxr_scene_set_flags(s, 2, 0, NULL) == VXR_OK);
    saved = save(s, &ns);
    at5 = saved ? load_frame(saved, ns, 5) : NULL;
    CHECK(same_world(s, at5));
    CHECK(at5 && !(at5->instances[2].flags & VXR_INSTANCE_HIDDEN));
    vxr_scene_destroy(at5);
    free(saved);
    vxr_scene_destroy(s);
    vxr_scene_destroy(before);
}

/* vengi's 8ontop (72 named shapes): one moved, one hidden, one removed and
 * one added; the others' nodes stay byte for byte, the world is the
 * scene's. */
static void test_instances_changed(void) {
    size_t n = 0;
    uint8_t *d = read_data("vengi__8ontop.vox", &n);
    vxr_scene *s = d ? load_frame(d, n, 0) : NULL;
    if (!s) {
        free(d);
        return;
    }
    vxr_transform t = s->instances[5].transform;
    t.translation[1] += 11;
    CHECK(vxr_scene_set_transform(s, 5, &t, NULL) == VXR_OK);
    CHECK(vxr_scene_set_flags(s, 6, VXR_INSTANCE_HIDDEN, NULL) == VXR_OK);
    vxr_instance in = s->instances[0];
    in.transform.translation[2] += 40;
    uint32_t id;
    CHECK(vxr_scene_add_instance(s, &in, &id, NULL) == VXR_OK);
    CHECK(vxr_scene_remove_instance(s, 7) == VXR_OK);
    size_t ns = 0, ka = 0, kb = 0;
    uint8_t *saved = save(s, &ns);
    vxr_scene *back = saved ? load_frame(saved, ns, 0) : NULL;
    CHECK(same_world(s, back));
    if (back) CHECK_EQ_INT(back->instance_count, s->instance_count - 1);
    /* every original node chunk but those of instances 5, 6 and 7 and the
     * root group is in the saved file, whole */
    uint8_t *a = chunks_of(d, n, "nTRNnGRPnSHPLAYR", &ka),
            *b = saved ? chunks_of(saved, ns, "nTRNnGRPnSHPLAYR", &kb) : NULL;
    size_t missing = 0;
    for (size_t at = 0; a && b && at < ka;) {
        const size_t whole = 12 + (size_t)vxr_get32(a + at + 4);
        missing += !contains(b, kb, a + at, whole);
        at += whole;
    }
    CHECK_EQ_INT(missing, 5); /* moved, hidden and removed nTRN, removed nSHP, the group */
    VXR_FREE(a, b, d, saved);
    vxr_scene_destroy(back);
    vxr_scene_destroy(s);
}

/* test-transform shares a group between four nTRNs: moving one of its
 * instances alone cannot be kept in the graph; the save still holds the
 * scene. */
static void test_shared_moved(void) {
    vxr_scene *s = load_file(VXR_TEST_DATA "/vengi__test-transform.vox");
    if (!s) return;
    vxr_transform t = s->instances[0].transform;
    t.translation[0] += 5;
    CHECK(vxr_scene_set_transform(s, 0, &t, NULL) == VXR_OK);
    size_t ns = 0;
    uint8_t *saved = save(s, &ns);
    vxr_scene *back = saved ? load_frame(saved, ns, 0) : NULL;
    CHECK(same_world(s, back));
    free(saved);
    vxr_scene_destroy(back);
    vxr_scene_destroy(s);
}

/* The camera slots of a file (rCAM): read in file order, malformed ones
 * left out, and placed as vxr_file_camera_apply documents: the eye at
 * radius from the focus, towards +Y at pitch 0 and yaw 0, +X at yaw 90,
 * +Z at pitch 90; modes other than perspective, unset slots and bad fields
 * of view refused. */
static void test_file_cameras(void) {
    builder o = {{0}, 0};
    memcpy(o.b, "VOX ", 4);
    o.n = 8;
    vxr_put32(o.b + 4, 200);
    const size_t main_at = bchunk(&o, "MAIN");
    static const uint8_t v[][4] = {{0, 0, 0, 1}};
    bmodel(&o, 1, 1, 1, v, 1);
    static const struct {
        int32_t id;
        const char *mode, *focus, *angle, *radius, *fov;
    } slots[] = {
        {3, "pers", "1 2 3", "0 0 0", "10", "45"},  {5, "free", "1 2 3", "90 0 0", "10", "45"},
        {6, "pers", "1 2 3", "0 90 0", "10", "30"}, {7, "pers", "0 0 0", "-30 180 0", "4", "45"},
        {8, "pers", NULL, "0 0 0", "10", "45"},     {9, "iso", "0 0 0", "0 0 0", "10", "45"},
        {10, "pers", "0 0 0", "0 0 0", "0", "45"},  {11, "pers", "0 0 0", "0 0 0", "5", "0"}};
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++) {
        const char *const with[] = {"_mode",  slots[i].mode,  "_focus",  slots[i].focus,
                                    "_angle", slots[i].angle, "_radius", slots[i].radius,
                                    "_fov",   slots[i].fov,   NULL};
        const char *const without[] = {"_mode",        slots[i].mode, "_angle",
                                       slots[i].angle, "_radius",     slots[i].radius,
                                       "_fov",         slots[i].fov,  NULL};
        bcam(&o, slots[i].id, slots[i].focus ? with : without);
    }
    vxr_put32(o.b + main_at - 4, (uint32_t)(o.n - main_at));
    vxr_scene *s = load_frame(o.b, o.n, 0);
    if (!s) return;
    vxr_file_camera fc[8];
    CHECK_EQ_INT(vxr_scene_file_cameras(s, NULL, 0), 7);
    CHECK_EQ_INT(vxr_scene_file_cameras(s, fc, 8), 7);
    static const int32_t ids[] = {3, 5, 6, 7, 9, 10, 11};
    for (int i = 0; i < 7; i++) CHECK_EQ_INT(fc[i].id, ids[i]);
    static const float eyes[4][3] = {{1, 12, 3}, {1, 2, 13}, {11, 2, 3}, {0, -3.4641016f, -2}};
    for (int i = 0; i < 4; i++) {
        vxr_camera cam = {0};
        cam.width = 16, cam.height = 16;
        CHECK(vxr_file_camera_apply(&fc[i], &cam, NULL) == VXR_OK);
        for (int k = 0; k < 3; k++) {
            CHECK(fabsf(cam.eye[k] - eyes[i][k]) < 1e-4f);
            CHECK(cam.target[k] == fc[i].focus[k]);
        }
        CHECK(cam.fov_deg == fc[i].fov_deg);
        CHECK(vxr_camera_setup(&cam) == VXR_OK);
    }
    static const char *const why[] = {"'iso'", "radius 0", "field of view of 0"};
    for (int i = 4; i < 7; i++) {
        vxr_camera cam = {0};
        vxr_error err = {{0}};
        CHECK(vxr_file_camera_apply(&fc[i], &cam, &err) == VXR_ERROR_ARGUMENT);
        CHECK(strstr(err.message, why[i - 4]) != NULL);
    }
    vxr_scene_destroy(s);
}

VXR_TEST_MAIN(TEST(test_chunks_kept), TEST(test_animation), TEST(test_model_frames),
              TEST(test_moved_hidden), TEST(test_instances_changed), TEST(test_shared_moved),
              TEST(test_file_cameras))
