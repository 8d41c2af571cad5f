/* MagicaVoxel .vox export (vxr_save_vox): every real file, built-in scenes,
 * all 48 axis rotations and edited scenes whose models grew to negative
 * cells and past 256 are saved, loaded back with the reader and compared:
 * the visible instanced voxels as a multiset of (world cell, colour) (the
 * sorted records of vxr_save_vl32), hidden voxels, and, where no model had
 * to be split into 256^3 blocks, the figures of `vxr info` and the bytes of
 * a second save, and the palette's materials (MATL). Placements and palettes
 * .vox cannot hold fail cleanly. */
#include <dirent.h>
#include <math.h>
#include "vxr/edit.h"
#include "vxr/formats.h"
#include "vxr_test.h"

/* ------------------------------------------------------------------ helpers */

static int cmp_record(const void *a, const void *b) {
    return memcmp(a, b, 16);
}

/* The scene's visible instanced voxels as sorted .vl32 records. */
static uint8_t *world_records(const vxr_scene *s, size_t *size) {
    uint8_t *data = NULL;
    vxr_error err = {{0}};
    if (vxr_save_vl32(s, &data, size, &err) != VXR_OK) {
        fprintf(stderr, "  vl32: %s\n", err.message);
        CHECK(0);
        return NULL;
    }
    if (*size) qsort(data, *size / 16, 16, cmp_record);
    return data;
}

/* Voxels of the hidden (not removed) instances. */
static uint64_t hidden_voxels(const vxr_scene *s) {
    uint64_t n = 0;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const vxr_instance *in = &s->instances[i];
        if ((in->flags & VXR_INSTANCE_HIDDEN) && !(in->flags & VXR_INSTANCE_REMOVED))
            n += s->models[in->model].voxel_count;
    }
    return n;
}

static vxr_scene *load_vox(const uint8_t *data, size_t size) {
    vxr_scene_src src;
    vxr_scene *s = NULL;
    vxr_error err = {{0}};
    vxr_result r = vxr_load_vox(data, size, &src, &err);
    if (r == VXR_OK) {
        r = vxr_scene_build(&src, &s, &err);
        vxr_scene_src_free(&src);
    }
    if (r != VXR_OK) fprintf(stderr, "  reloading: %s\n", err.message);
    CHECK(r == VXR_OK);
    return s;
}

static uint8_t *save_vox(const vxr_scene *s, size_t *size) {
    uint8_t *data = NULL;
    vxr_error err = {{0}};
    vxr_result r = vxr_save_vox(s, &data, size, &err);
    if (r != VXR_OK) fprintf(stderr, "  saving: %s\n", err.message);
    CHECK(r == VXR_OK);
    return data;
}

/* True when some model spans more than 256 cells on an axis. */
static bool needs_split(const vxr_scene *s) {
    for (uint32_t m = 0; m < s->model_count; m++)
        for (int k = 0; k < 3; k++)
            if (s->models[m].voxel_count && s->models[m].vmax[k] - s->models[m].vmin[k] > 256)
                return true;
    return false;
}

static void check_same_stats(const vxr_scene *a, const vxr_scene *b) {
    vxr_scene_stats x, y;
    vxr_scene_get_stats(a, &x);
    vxr_scene_get_stats(b, &y);
    CHECK_EQ_INT(x.models, y.models);
    CHECK_EQ_INT(x.instances, y.instances);
    CHECK_EQ_INT(x.instanced_voxels, y.instanced_voxels);
    for (int k = 0; k < 3; k++) {
        CHECK_EQ_INT(x.aabb_min[k], y.aabb_min[k]);
        CHECK_EQ_INT(x.aabb_max[k], y.aabb_max[k]);
    }
    CHECK_EQ_INT(x.nodes, y.nodes);
    CHECK_EQ_INT(x.bricks, y.bricks);
    CHECK_EQ_INT(x.model_voxels, y.model_voxels);
    CHECK_EQ_INT(x.bytes, y.bytes);
}

/* Saves s, loads it back and compares (see the top); same_info: s is
 * built (not edited) and so must report the same figures when no model
 * was split. Returns the reloaded scene when keep (else NULL). */
static vxr_scene *round_trip(const vxr_scene *s, const char *name, bool same_info, bool keep) {
    int before = vxr_test_failures_;
    size_t na = 0, nb = 0, nc = 0, nw = 0, nv = 0;
    uint8_t *a = save_vox(s, &na), *b = NULL, *c = NULL;
    vxr_scene *back = a ? load_vox(a, na) : NULL, *again = NULL;
    if (back) {
        CHECK(na > 8 && !memcmp(a, "VOX ", 4) && a[4] == 200 && !a[5] && !a[6] && !a[7]);
        uint8_t *want = world_records(s, &nw), *got = world_records(back, &nv);
        CHECK(nw == nv && (nw == 0 || (want && got && !memcmp(want, got, nw))));
        free(want);
        free(got);
        CHECK_EQ_INT(hidden_voxels(s), hidden_voxels(back));
        /* the palette's materials (MATL) come back as they were */
        size_t differ = 0;
        for (int k = 1; s->attr_size == 1 && k < 256; k++) {
            const vxr_material *x = &s->materials[k], *y = &back->materials[k];
            differ += x->kind != y->kind || x->rough != y->rough || x->ior != y->ior ||
                      x->emit != y->emit;
        }
        CHECK_EQ_INT(differ, 0);
        bool split = needs_split(s);
        if (same_info && !split) check_same_stats(s, back);
        b = save_vox(back, &nb);
        if (!split) {
            CHECK(b && nb == na && !memcmp(a, b, na));
        } else if (b) {
            /* Blocks come back as models of their own: from then on stable. */
            again = load_vox(b, nb);
            c = again ? save_vox(again, &nc) : NULL;
            CHECK(c && nc == nb && !memcmp(b, c, nb));
        }
    }
    if (vxr_test_failures_ != before) fprintf(stderr, "  in %s\n", name);
    free(a);
    free(b);
    free(c);
    vxr_scene_destroy(again);
    if (keep) return back;
    vxr_scene_destroy(back);
    return NULL;
}

static vxr_scene *load_scene(const char *path) {
    vxr_scene *s = NULL;
    vxr_error err = {{0}};
    vxr_result r = vxr_scene_load(path, &s, &err);
    if (r != VXR_OK) fprintf(stderr, "  %s: %s\n", path, err.message);
    CHECK(r == VXR_OK);
    return s;
}

/* A save that must fail with VXR_ERROR_LIMIT and a one-line reason
 * containing want. */
static void check_refused(const vxr_scene *s, const char *want) {
    static uint8_t dummy;
    uint8_t *data = &dummy; /* the saver must reset it */
    size_t size = 1;
    vxr_error err = {{0}};
    CHECK(vxr_save_vox(s, &data, &size, &err) == VXR_ERROR_LIMIT);
    CHECK(data == NULL && size == 0);
    CHECK(strstr(err.message, want) != NULL && !strchr(err.message, '\n'));
    if (!strstr(err.message, want))
        fprintf(stderr, "  message '%s' lacks '%s'\n", err.message, want);
}

/* ------------------------------------------------------------------ tests */

static void count_colour(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    (void)x, (void)y, (void)z;
    uint32_t *c = user; /* c[0] the count, then up to 256 colours */
    for (uint32_t i = 1; i <= c[0]; i++)
        if (c[i] == attr) return;
    if (c[0] < 256) c[++c[0]] = attr;
}

/* Every .vox and .vl32 file of tests/data; an RGBA8 one (a .vl32 of more
 * than 255 colours) must be refused. */
static void test_data_files(void) {
    DIR *d = opendir(VXR_TEST_DATA);
    struct dirent *e;
    int files = 0;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (!(len > 4 && !strcmp(e->d_name + len - 4, ".vox")) &&
            !(len > 5 && !strcmp(e->d_name + len - 5, ".vl32")))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", VXR_TEST_DATA, e->d_name);
        vxr_scene *s = load_scene(path);
        if (!s) continue;
        files++;
        static uint32_t colours[257];
        colours[0] = 0;
        for (uint32_t m = 0; s->attr_size == 4 && m < s->model_count; m++)
            vxr_octree_foreach(&s->models[m], count_colour, colours);
        if (colours[0] > 255)
            check_refused(s, "more than 255 distinct RGBA colours");
        else
            round_trip(s, e->d_name, true, false);
        vxr_scene_destroy(s);
    }
    if (d) closedir(d);
    CHECK(files >= 13);
}

static void test_builtin_scenes(void) {
    static const char *const specs[] = {"@menger:2", "@terrain:300", "@menger:3"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        vxr_scene *s = load_scene(specs[i]);
        if (!s) continue;
        if (!strcmp(specs[i], "@terrain:300")) CHECK(needs_split(s));
        round_trip(s, specs[i], true, false);
        vxr_scene_destroy(s);
    }
}

/* @demo scales some instances (2 and 0.5): refused, naming one; with every
 * scale set to 1 (quarter turns, many models) it round-trips. */
static void test_demo(void) {
    vxr_scene *s = load_scene("@demo");
    if (!s) return;
    check_refused(s, "instance 1 has scale 2");
    vxr_scene_destroy(s);
    vxr_scene_src src;
    CHECK(vxr_scene_generate("demo", &src, NULL) == VXR_OK);
    for (uint32_t i = 0; i < src.instance_count; i++) src.instances[i].transform.scale = 1;
    s = NULL;
    CHECK(vxr_scene_build(&src, &s, NULL) == VXR_OK);
    vxr_scene_src_free(&src);
    if (s) round_trip(s, "@demo at scale 1", true, false);
    vxr_scene_destroy(s);
}

/* An asymmetric model of odd and even sizes (the reader's pivot is
 * floor(S/2)) in its own cells 0..255, and one reaching negative cells,
 * under all 48 signed axis permutations. */
static void test_all_rotations(void) {
    vxr_scene_src src;
    vxr_scene_src_init(&src, 1);
    for (uint32_t m = 0; m < 2; m++) {
        uint32_t id;
        vxr_scene_src_add_model(&src, &id);
        const int32_t off = m == 0 ? 0 : -6;
        for (int32_t x = 0; x < 5; x++)
            for (int32_t y = 0; y < 2 + x; y++)
                for (int32_t z = 0; z < 4 - (x & 1); z++)
                    vxr_model_src_push(&src.models[id], x + off + (m == 0 ? 3 : 0), y + off,
                                       z + 2 * off, 1 + (uint32_t)(x + 3 * y + 7 * z) % 40);
    }
    for (uint32_t k = 0; k < 256; k++) src.palette[k] = 0xff000000u | k * 0x030507u;
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                    {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    uint32_t n = 0;
    for (int p = 0; p < 6; p++)
        for (int signs = 0; signs < 8; signs++, n++) {
            vxr_instance in = {n % 2, 0, vxr_transform_identity(), INFINITY};
            memset(in.transform.rotation, 0, sizeof in.transform.rotation);
            for (int i = 0; i < 3; i++)
                in.transform.rotation[3 * i + perms[p][i]] = signs >> i & 1 ? -1.0f : 1.0f;
            in.transform.translation[0] = (float)(20 * (int)(n % 7) - 60);
            in.transform.translation[1] = (float)(20 * (int)(n / 7) - 50);
            in.transform.translation[2] = (float)((int)n - 24);
            if (n % 5 == 3) in.flags = VXR_INSTANCE_HIDDEN;
            vxr_scene_src_add_instance(&src, &in);
        }
    vxr_scene *s = NULL;
    CHECK(vxr_scene_build(&src, &s, NULL) == VXR_OK);
    vxr_scene_src_free(&src);
    if (s) round_trip(s, "48 rotations", true, false);
    vxr_scene_destroy(s);
}

/* One model of `colours` distinct RGBA8 colours. */
static vxr_scene *rgba_scene(uint32_t colours) {
    vxr_scene_src src;
    vxr_scene_src_init(&src, 4);
    uint32_t id;
    vxr_scene_src_add_model(&src, &id);
    for (uint32_t i = 0; i < colours; i++)
        vxr_model_src_push(&src.models[id], (int32_t)(i % 17), (int32_t)(i / 17), 0,
                           0xff000000u | ((i * 0x9e3779u) & 0xffffffu));
    vxr_instance in = {0, 0, vxr_transform_identity(), INFINITY};
    vxr_scene_src_add_instance(&src, &in);
    vxr_scene *s = NULL;
    CHECK(vxr_scene_build(&src, &s, NULL) == VXR_OK);
    vxr_scene_src_free(&src);
    return s;
}

static void test_rgba(void) {
    vxr_scene *s = rgba_scene(255);
    if (s) {
        vxr_scene *back = round_trip(s, "255 RGBA colours", false, true);
        if (back) {
            CHECK_EQ_INT(back->attr_size, 1);
            for (uint32_t i = 2; i < 256; i++) CHECK(back->palette[i - 1] < back->palette[i]);
        }
        vxr_scene_destroy(back);
    }
    vxr_scene_destroy(s);
    s = rgba_scene(256);
    if (s) check_refused(s, "more than 255 distinct RGBA colours");
    vxr_scene_destroy(s);
}

/* Placements .vox cannot hold: a 45-degree turn, a half-cell translation,
 * a "rotation" whose rows share a column. */
static void test_refused_placements(void) {
    const float c = 0.70710678f;
    const float turns[3][9] = {
        {c, -c, 0, c, c, 0, 0, 0, 1}, {1, 0, 0, 0, 1, 0, 0, 0, 1}, {1, 0, 0, 1, 0, 0, 0, 0, 1}};
    const char *const want[3] = {"instance 1 has a rotation other than an axis permutation",
                                 "instance 1 has translation (0.5, 0, 0)",
                                 "instance 1 has a rotation other than an axis permutation"};
    for (int k = 0; k < 3; k++) {
        vxr_scene *s = load_scene(VXR_TEST_DATA "/mmmm__chr_robot.vox");
        if (!s) return;
        vxr_instance in = s->instances[0];
        memcpy(in.transform.rotation, turns[k], sizeof turns[k]);
        const float t[3] = {k == 1 ? 0.5f : 0, 0, 0};
        memcpy(in.transform.translation, t, sizeof t);
        uint32_t id;
        if (k == 2) {
            /* a shear is no rotation: the scene refuses it before any saver */
            vxr_error err = {{0}};
            CHECK(vxr_scene_add_instance(s, &in, &id, &err) == VXR_ERROR_ARGUMENT);
            CHECK(strstr(err.message, "not orthonormal") != NULL);
            vxr_scene_destroy(s);
            continue;
        }
        CHECK(vxr_scene_add_instance(s, &in, &id, NULL) == VXR_OK);
        CHECK_EQ_INT(id, 1);
        check_refused(s, want[k]);
        /* removed, it is no longer written */
        CHECK(vxr_scene_remove_instance(s, id) == VXR_OK);
        vxr_scene_destroy(round_trip(s, "robot, instance removed", false, false));
        vxr_scene_destroy(s);
    }
}

static vxr_result apply_box(vxr_editor *e, uint32_t model, vxr_edit_op op, uint32_t value,
                            int32_t x0, int32_t y0, int32_t z0, int32_t x1, int32_t y1,
                            int32_t z1) {
    vxr_edit ed = {0};
    ed.op = op;
    ed.model = model;
    ed.value = value;
    ed.shape = VXR_SHAPE_BOX;
    const int32_t lo[3] = {x0, y0, z0}, hi[3] = {x1, y1, z1};
    memcpy(ed.lo, lo, sizeof lo);
    memcpy(ed.hi, hi, sizeof hi);
    return vxr_editor_apply(e, &ed, NULL, NULL);
}

/* A file's model edited (live) to negative cells, then past 256 cells
 * (split into blocks), with a rotated copy, a hidden copy and a removed
 * model: the world cells survive each save. */
static void test_edited_growth(void) {
    vxr_scene *s = load_scene(VXR_TEST_DATA "/mmmm__chr_robot.vox");
    if (!s) return;
    vxr_instance in = s->instances[0];
    const float quarter[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1};
    memcpy(in.transform.rotation, quarter, sizeof quarter);
    in.transform.translation[0] += 40;
    uint32_t id, gone;
    CHECK(vxr_scene_add_instance(s, &in, &id, NULL) == VXR_OK);
    in.flags = VXR_INSTANCE_HIDDEN;
    in.transform.translation[2] += 30;
    CHECK(vxr_scene_add_instance(s, &in, &id, NULL) == VXR_OK);
    vxr_editor *e = NULL;
    CHECK(vxr_editor_create(s, 0, &e, NULL) == VXR_OK);
    if (!e) {
        vxr_scene_destroy(s);
        return;
    }
    /* A model that is removed again, with its instance: neither is saved. */
    CHECK(vxr_scene_add_model(s, &gone) == VXR_OK);
    in.model = gone;
    in.flags = 0;
    CHECK(vxr_scene_add_instance(s, &in, &id, NULL) == VXR_OK);
    CHECK(vxr_scene_remove_model(s, gone) == VXR_OK);
    CHECK(apply_box(e, 0, VXR_EDIT_SET, 3, -9, -4, -2, -5, 0, 1) == VXR_OK);
    CHECK(apply_box(e, 0, VXR_EDIT_CLEAR, 0, 2, 2, 2, 4, 4, 40) == VXR_OK);
    CHECK(s->models[0].vmin[0] < 0);
    vxr_scene *back = round_trip(s, "robot grown to negative cells", false, true);
    if (back) {
        CHECK_EQ_INT(back->model_count, 1);
        CHECK_EQ_INT(back->instance_count, 3);
        CHECK_EQ_INT(back->models[0].voxel_count, s->models[0].voxel_count);
    }
    vxr_scene_destroy(back);
    CHECK(apply_box(e, 0, VXR_EDIT_SET, 7, 300, 1, 1, 302, 3, 600) == VXR_OK);
    CHECK(apply_box(e, 0, VXR_EDIT_SET, 9, -200, 5, -30, -190, 6, -29) == VXR_OK);
    CHECK(needs_split(s));
    back = round_trip(s, "robot grown past 256 cells", false, true);
    if (back) CHECK(back->model_count > 1);
    vxr_scene_destroy(back);
    /* Undone back to the file's voxels: saved as the file's own figures. */
    bool done = true;
    for (int k = 0; done && k < 10; k++) CHECK(vxr_editor_undo(e, &done, NULL) == VXR_OK);
    CHECK(!done);
    vxr_scene *orig = load_scene(VXR_TEST_DATA "/mmmm__chr_robot.vox");
    back = round_trip(s, "robot edited and undone", false, true);
    if (back && orig) {
        CHECK_EQ_INT(back->model_count, 1);
        CHECK(vxr_octree_equal(&back->models[0], &orig->models[0]));
    }
    vxr_scene_destroy(back);
    vxr_scene_destroy(orig);
    vxr_editor_destroy(e);
    vxr_scene_destroy(s);
}

/* A model cleared of every voxel still saves (SIZE 1x1x1, no voxels) and
 * keeps its instance. */
static void test_empty_model(void) {
    vxr_scene *s = load_scene(VXR_TEST_DATA "/mmmm__obj_candle.vox");
    if (!s) return;
    vxr_editor *e = NULL;
    CHECK(vxr_editor_create(s, 0, &e, NULL) == VXR_OK);
    if (e)
        CHECK(apply_box(e, 0, VXR_EDIT_CLEAR, 0, -1000, -1000, -1000, 1000, 1000, 1000) == VXR_OK);
    CHECK_EQ_INT(s->models[0].voxel_count, 0);
    vxr_scene *back = round_trip(s, "emptied candle", false, true);
    if (back) {
        CHECK_EQ_INT(back->model_count, s->model_count);
        CHECK_EQ_INT(back->instance_count, s->instance_count);
    }
    vxr_scene_destroy(back);
    vxr_editor_destroy(e);
    vxr_scene_destroy(s);
}

static size_t le32(const uint8_t *p) {
    return (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
}

/* The rOBJ, rCAM and NOTE chunks among MAIN's children, whole, in order. */
static size_t render_chunks(const uint8_t *d, size_t n, uint8_t *out) {
    size_t kept = 0;
    if (n < 20) return 0;
    size_t at = 20 + le32(d + 12);
    while (at + 12 <= n) {
        const size_t whole = 12 + le32(d + at + 4) + le32(d + at + 8);
        if (whole > n - at) break;
        if (!memcmp(d + at, "rOBJ", 4) || !memcmp(d + at, "rCAM", 4) ||
            !memcmp(d + at, "NOTE", 4)) {
            memcpy(out + kept, d + at, whole);
            kept += whole;
        }
        at += whole;
    }
    return kept;
}

/* A saved .vox keeps the render settings, cameras and notes of the file it
 * was read from, byte for byte, in order. */
static void test_render_chunks_kept(void) {
    static const char *const files[] = {"vengi__8ontop.vox", "bevy_vox_scene__study.vox",
                                        "vengi__animation.0.99.7.1.vox", "mmmm__chr_robot.vox"};
    size_t with = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, VXR_TEST_DATA "/%s", files[i]);
        uint8_t *d = NULL, *saved = NULL;
        size_t n = 0, m = 0;
        CHECK(vxr_read_file(path, &d, &n, NULL) == VXR_OK);
        vxr_scene *s = d ? load_vox(d, n) : NULL;
        if (s) saved = save_vox(s, &m);
        uint8_t *a = malloc(n + 1), *b = malloc(m + 1);
        const size_t ka = d ? render_chunks(d, n, a) : 0,
                     kb = saved ? render_chunks(saved, m, b) : 0;
        CHECK_EQ_INT(ka, kb);
        CHECK(ka == kb && !memcmp(a, b, ka));
        with += ka > 0;
        free(a);
        free(b);
        free(d);
        free(saved);
        vxr_scene_destroy(s);
    }
    CHECK(with >= 3);
}

VXR_TEST_MAIN(TEST(test_data_files), TEST(test_builtin_scenes), TEST(test_demo),
              TEST(test_all_rotations), TEST(test_rgba), TEST(test_refused_placements),
              TEST(test_edited_growth), TEST(test_empty_model), TEST(test_render_chunks_kept))
