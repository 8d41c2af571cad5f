/* .vl32 and .vxo: reading a real .vl32 against its raw bytes, .vl32 export
 * against a brute-force enumeration of the instanced world voxels, the
 * RGBA fallback, and .vxo round trips and hostile .vxo files (truncations,
 * random and targeted corruptions) that must fail cleanly or load a scene
 * that validates. */
#include <dirent.h>
#include <math.h>
#include <unistd.h>
#include "internal.h" /* core/: the byte order helpers */
#include "vxr_test.h"

VXR_TEST_RNG(0x2545f4914f6cdd1dull)

static void put_le32(uint8_t *p, uint32_t v) {
    for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint8_t *read_all(const char *path, size_t *size) {
    uint8_t *data;
    if (vxr_read_file(path, &data, size, NULL) != VXR_OK) return NULL;
    return data;
}

static vxr_scene *load_scene(const char *path) {
    vxr_scene *s;
    vxr_error err = {{0}};
    vxr_result r = vxr_scene_load(path, &s, &err);
    if (r != VXR_OK) fprintf(stderr, "  %s: %s\n", path, err.message);
    CHECK(r == VXR_OK);
    return s;
}

/* ------------------------------------------------------------------ world cells */

typedef struct cell {
    int32_t x, y, z;
    uint32_t rgba;
    size_t order;
} cell;

typedef struct cells {
    cell *c;
    size_t n, cap;
    const vxr_scene *scene;
    const vxr_transform *t;
} cells;

static void push_cell(cells *cs, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    if (cs->n == cs->cap) {
        cs->cap = cs->cap ? cs->cap * 2 : 1024;
        cs->c = realloc(cs->c, cs->cap * sizeof *cs->c);
        if (!cs->c) abort();
    }
    uint32_t rgba = cs->scene->attr_size == 1 ? cs->scene->palette[attr] : attr;
    cs->c[cs->n] = (cell){x, y, z, rgba, cs->n};
    cs->n++;
}

/* DESIGN.md §2: the world cell of a voxel holds the image of its centre. */
static void world_voxel(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    cells *cs = user;
    const vxr_transform *t = cs->t;
    const double p[3] = {x + 0.5, y + 0.5, z + 0.5};
    int32_t w[3];
    for (int i = 0; i < 3; i++) {
        double v = t->translation[i];
        for (int k = 0; k < 3; k++) v += (double)t->rotation[3 * i + k] * t->scale * p[k];
        w[i] = (int32_t)floor(v);
    }
    push_cell(cs, w[0], w[1], w[2], attr);
}

static void local_voxel(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    push_cell(user, x, y, z, attr);
}

static int cmp_cell(const void *a, const void *b) {
    const cell *p = a, *q = b;
    if (p->x != q->x) return p->x < q->x ? -1 : 1;
    if (p->y != q->y) return p->y < q->y ? -1 : 1;
    if (p->z != q->z) return p->z < q->z ? -1 : 1;
    return (p->order > q->order) - (p->order < q->order);
}

/* Sorts by cell and keeps the last record of each cell. */
static void last_wins(cells *cs) {
    qsort(cs->c, cs->n, sizeof *cs->c, cmp_cell);
    size_t m = 0;
    for (size_t i = 0; i < cs->n; i++) {
        const cell *a = &cs->c[i], *b = &cs->c[i + 1];
        if (i + 1 < cs->n && a->x == b->x && a->y == b->y && a->z == b->z) continue;
        cs->c[m++] = *a;
    }
    cs->n = m;
}

/* Every visible instanced voxel in world cells, instance order. */
static cells world_cells(const vxr_scene *s) {
    cells cs = {0};
    cs.scene = s;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const vxr_instance *in = &s->instances[i];
        if (in->flags & VXR_INSTANCE_HIDDEN) continue;
        cs.t = &in->transform;
        vxr_octree_foreach(&s->models[in->model], world_voxel, &cs);
    }
    return cs;
}

/* ------------------------------------------------------------------ .vl32 */

static void test_vl32_read_debug(void) {
    size_t size;
    uint8_t *raw = read_all(VXR_TEST_DATA "/voxelio__debug.vl32", &size);
    CHECK(raw != NULL);
    if (!raw) return;
    CHECK_EQ_INT(size, 427 * 16);
    vxr_scene_src src;
    vxr_error err = {{0}};
    CHECK(vxr_load_vl32(raw, size, &src, &err) == VXR_OK);
    CHECK_EQ_INT(src.model_count, 1);
    CHECK_EQ_INT(src.instance_count, 1);
    CHECK_EQ_INT(src.attr_size, 1);
    if (src.model_count == 1 && src.models[0].count == 427) {
        const size_t records[] = {0, 1, 2, 100, 213, 426};
        for (size_t r = 0; r < sizeof records / sizeof records[0]; r++) {
            const uint8_t *p = raw + 16 * records[r];
            const vxr_voxel *v = &src.models[0].voxels[records[r]];
            uint32_t argb = vxr_get_be32(p + 12);
            CHECK_EQ_INT(v->x, (int32_t)vxr_get_be32(p));
            CHECK_EQ_INT(v->y, (int32_t)vxr_get_be32(p + 4));
            CHECK_EQ_INT(v->z, (int32_t)vxr_get_be32(p + 8));
            CHECK_EQ_INT(src.palette[v->color], vxr_rgba(argb >> 16, argb >> 8, argb, argb >> 24));
        }
    }
    CHECK_EQ_INT(src.models[0].count, 427);
    vxr_scene *s;
    CHECK(vxr_scene_build(&src, &s, &err) == VXR_OK);
    if (s) {
        vxr_scene_stats st;
        vxr_scene_get_stats(s, &st);
        CHECK_EQ_INT(st.instanced_voxels, 427);
        vxr_scene_destroy(s);
    }
    vxr_scene_src_free(&src);
    free(raw);
}

/* Real scenes through .vl32 and back, against the brute-force world voxels;
 * distinct counts are the manifest's "distinct world cells" column. */
static void test_vl32_round_trip(void) {
    static const struct {
        const char *file;
        long long distinct;
    } files[] = {
        {"vengi__8ontop.vox", 8946},
        {"vengi__test-transform.vox", 621096},
        {"ogt__test_multiple_model_scene.vox", 12926},
        {"bevy_vox_scene__study.vox", 751164},
        {"vengi__animation.0.99.7.1.vox", 9911},
        {"mmmm__chr_robot.vox", 112},
        {"voxelio__debug.vl32", 427},
    };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", VXR_TEST_DATA, files[f].file);
        int before = vxr_test_failures_;
        vxr_scene *s = load_scene(path);
        if (!s) continue;
        uint8_t *data;
        size_t size;
        vxr_error err = {{0}};
        CHECK(vxr_save_vl32(s, &data, &size, &err) == VXR_OK);
        vxr_scene_stats st;
        vxr_scene_get_stats(s, &st);
        CHECK_EQ_INT(size, st.instanced_voxels * 16); /* one record per instanced voxel */
        vxr_scene_src src;
        vxr_scene *back = NULL;
        CHECK(vxr_load_vl32(data, size, &src, &err) == VXR_OK);
        CHECK(vxr_scene_build(&src, &back, &err) == VXR_OK);
        if (back) {
            CHECK_EQ_INT(back->instance_count, 1);
            cells want = world_cells(s);
            last_wins(&want);
            cells got = {0};
            got.scene = back;
            vxr_octree_foreach(&back->models[0], local_voxel, &got);
            last_wins(&got);
            CHECK_EQ_INT(want.n, files[f].distinct);
            CHECK_EQ_INT(got.n, want.n);
            size_t diff = 0;
            for (size_t i = 0; i < got.n && i < want.n; i++) {
                const cell *a = &got.c[i], *b = &want.c[i];
                diff += a->x != b->x || a->y != b->y || a->z != b->z || a->rgba != b->rgba;
            }
            CHECK_EQ_INT(diff, 0);
            free(want.c);
            free(got.c);
        }
        if (vxr_test_failures_ != before) fprintf(stderr, "  in %s\n", path);
        vxr_scene_destroy(back);
        vxr_scene_src_free(&src);
        free(data);
        vxr_scene_destroy(s);
    }
}

static uint8_t *vl32_records(size_t n, uint32_t (*argb_of)(size_t)) {
    uint8_t *d = malloc(16 * n);
    for (size_t i = 0; i < n; i++) {
        vxr_put_be32(d + 16 * i, (uint32_t)(int32_t)(i % 17) - 8);
        vxr_put_be32(d + 16 * i + 4, (uint32_t)(i / 17));
        vxr_put_be32(d + 16 * i + 8, (uint32_t) - (int32_t)(i % 3));
        vxr_put_be32(d + 16 * i + 12, argb_of(i));
    }
    return d;
}

static uint32_t distinct_argb(size_t i) {
    if (i % 50 == 49) return 0x00ffffffu; /* alpha 0: empty */
    return 0xff000000u | (uint32_t)(i * 2654435761u & 0xffffffu);
}

static uint32_t few_argb(size_t i) {
    return 0x80000000u | (uint32_t)(i % 255) * 0x010101u;
}

/* Loads n records; checks every solid record's colour after a build. */
static void check_colours(size_t n, uint32_t (*argb_of)(size_t), uint32_t attr_size) {
    uint8_t *d = vl32_records(n, argb_of);
    vxr_scene_src src;
    vxr_scene *s = NULL;
    CHECK(vxr_load_vl32(d, 16 * n, &src, NULL) == VXR_OK);
    CHECK_EQ_INT(src.attr_size, attr_size);
    CHECK(vxr_scene_build(&src, &s, NULL) == VXR_OK);
    size_t solid = 0, bad = 0;
    for (size_t i = 0; s && i < n; i++) {
        const uint8_t *p = d + 16 * i;
        uint32_t argb = vxr_get_be32(p + 12), a = 0;
        bool found =
            vxr_octree_lookup(&s->models[0], (int32_t)vxr_get_be32(p), (int32_t)vxr_get_be32(p + 4),
                              (int32_t)vxr_get_be32(p + 8), &a);
        if (!(argb >> 24)) {
            bad += found;
            continue;
        }
        solid++;
        uint32_t rgba = attr_size == 1 ? s->palette[a] : a;
        bad += !found || rgba != vxr_rgba(argb >> 16, argb >> 8, argb, argb >> 24);
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(src.models[0].count, solid);
    vxr_scene_destroy(s);
    vxr_scene_src_free(&src);
    free(d);
}

static void test_vl32_colours(void) {
    /* Every 50th record is empty. */
    check_colours(300, distinct_argb, 4); /* 294 colours: RGBA8 */
    check_colours(261, distinct_argb, 4); /* 256 colours: RGBA8 */
    check_colours(260, distinct_argb, 1); /* 255 colours: a palette */
    check_colours(2000, few_argb, 1);
}

static void test_vl32_hostile(void) {
    size_t size;
    uint8_t *raw = read_all(VXR_TEST_DATA "/voxelio__debug.vl32", &size);
    CHECK(raw != NULL);
    if (!raw) return;
    const size_t cut[] = {size - 1, size - 15, 17, 15, 1};
    for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
        vxr_scene_src src;
        vxr_error err;
        memset(&err, 0, sizeof err);
        CHECK(vxr_load_vl32(raw, cut[i], &src, &err) == VXR_ERROR_FORMAT);
        CHECK(err.message[0] != 0);
        CHECK(src.model_count == 0 && src.models == NULL && src.instances == NULL);
    }
    /* An empty file is an empty scene. */
    vxr_scene_src src;
    vxr_scene *s = NULL;
    CHECK(vxr_load_vl32(raw, 0, &src, NULL) == VXR_OK);
    CHECK(vxr_scene_build(&src, &s, NULL) == VXR_OK);
    if (s) CHECK_EQ_INT(s->models[0].voxel_count, 0);
    vxr_scene_destroy(s);
    vxr_scene_src_free(&src);
    /* Coordinates beyond the octree limit load, and the build says why. */
    vxr_put_be32(raw + 16 * 5, 0x7fffffffu);
    vxr_error err = {{0}};
    CHECK(vxr_load_vl32(raw, size, &src, NULL) == VXR_OK);
    CHECK(vxr_scene_build(&src, &s, &err) == VXR_ERROR_LIMIT);
    CHECK(s == NULL && err.message[0]);
    vxr_scene_src_free(&src);
    free(raw);
}

/* ------------------------------------------------------------------ .vxo */

static int cmp_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .vox and .vl32 files of tests/data, sorted; free each and the list. */
static char **data_files(size_t *count) {
    char **names = NULL;
    size_t n = 0;
    DIR *d = opendir(VXR_TEST_DATA);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (!(len > 4 && !strcmp(e->d_name + len - 4, ".vox")) &&
            !(len > 5 && !strcmp(e->d_name + len - 5, ".vl32")))
            continue;
        names = realloc(names, (n + 1) * sizeof *names);
        names[n] = malloc(sizeof VXR_TEST_DATA + len + 1);
        sprintf(names[n], "%s/%s", VXR_TEST_DATA, e->d_name);
        n++;
    }
    if (d) closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_name);
    *count = n;
    return names;
}

static int same_scene(const vxr_scene *a, const vxr_scene *b) {
    if (a->model_count != b->model_count || a->instance_count != b->instance_count ||
        a->attr_size != b->attr_size || memcmp(a->palette, b->palette, sizeof a->palette) ||
        memcmp(a->instances, b->instances, a->instance_count * sizeof *a->instances))
        return 0;
    for (uint32_t i = 0; i < a->model_count; i++)
        if (!vxr_octree_equal(&a->models[i], &b->models[i])) return 0;
    return 1;
}

/* save -> load -> save is byte-identical, the loaded octrees equal the
 * built ones, and loading (from memory and from a file) builds nothing. */
static void check_vxo_round_trip(const char *path) {
    int before = vxr_test_failures_;
    vxr_scene *s = load_scene(path), *back = NULL, *from_file = NULL;
    if (!s) return;
    uint8_t *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    vxr_error err = {{0}};
    CHECK(vxr_save_vxo(s, &a, &na, NULL) == VXR_OK);
    CHECK(vxr_load_vxo(a, na, &back, &err) == VXR_OK);
    if (back) {
        CHECK(back->build_s == 0);
        CHECK(same_scene(s, back));
        CHECK(vxr_save_vxo(back, &b, &nb, NULL) == VXR_OK);
        CHECK(nb == na && !memcmp(a, b, na));
    }
    char tmp[] = "/tmp/vxr_format_files_XXXXXX";
    int fd = mkstemp(tmp);
    CHECK(fd >= 0);
    if (fd >= 0) {
        close(fd);
        CHECK(vxr_write_file(tmp, a, na, &err) == VXR_OK);
        CHECK(vxr_scene_load(tmp, &from_file, &err) == VXR_OK);
        if (from_file) {
            CHECK(from_file->build_s == 0);
            CHECK(same_scene(s, from_file));
        }
        remove(tmp);
    }
    if (vxr_test_failures_ != before) fprintf(stderr, "  in %s: %s\n", path, err.message);
    vxr_scene_destroy(from_file);
    vxr_scene_destroy(back);
    vxr_scene_destroy(s);
    free(a);
    free(b);
}

static void test_vxo_round_trip(void) {
    size_t n;
    char **files = data_files(&n);
    CHECK(n >= 10);
    for (size_t i = 0; i < n; i++) {
        check_vxo_round_trip(files[i]);
        free(files[i]);
    }
    free(files);
    check_vxo_round_trip("@demo");
}

/* Two models (7 voxels over several bricks, so the attributes need padding
 * when paletted; and one voxel), three instances: plain, hidden, rotated. */
static vxr_scene *small_scene(uint32_t attr_size) {
    vxr_scene_src src;
    vxr_scene_src_init(&src, attr_size);
    uint32_t m;
    vxr_scene_src_add_model(&src, &m);
    const int32_t p[7][3] = {{0, 0, 0},     {5, 1, 2}, {-9, 3, 3},  {1, -6, 7},
                             {12, 12, -12}, {2, 2, 2}, {-1, -1, -1}};
    for (uint32_t i = 0; i < 7; i++)
        vxr_model_src_push(&src.models[m], p[i][0], p[i][1], p[i][2],
                           attr_size == 1 ? 1 + i : 0xff000000u | (i * 0x1234567u));
    vxr_scene_src_add_model(&src, &m);
    vxr_model_src_push(&src.models[m], 3, 4, 5, attr_size == 1 ? 9 : 0xff00ff00u);
    for (uint32_t k = 0; k < 256; k++) src.palette[k] = k * 0x01010101u;
    vxr_instance in = {0, 0, vxr_transform_identity(), INFINITY};
    vxr_scene_src_add_instance(&src, &in);
    in.model = 1;
    in.flags = VXR_INSTANCE_HIDDEN;
    in.transform.translation[0] = -4;
    vxr_scene_src_add_instance(&src, &in);
    const float quarter[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1};
    memcpy(in.transform.rotation, quarter, sizeof quarter);
    in.model = 0;
    in.flags = 0;
    in.view_distance = 100;
    vxr_scene_src_add_instance(&src, &in);
    vxr_scene *s = NULL;
    CHECK(vxr_scene_build(&src, &s, NULL) == VXR_OK);
    vxr_scene_src_free(&src);
    return s;
}

static uint8_t *small_vxo(uint32_t attr_size, size_t *size) {
    vxr_scene *s = small_scene(attr_size);
    uint8_t *data = NULL;
    *size = 0;
    if (s) CHECK(vxr_save_vxo(s, &data, size, NULL) == VXR_OK);
    vxr_scene_destroy(s);
    return data;
}

/* A hostile .vxo must fail with a format error, a reason, and no scene. */
static int vxo_rejects(const uint8_t *data, size_t size, const char *what) {
    static vxr_scene sentinel;
    vxr_scene *s = &sentinel; /* the loader must set it to NULL */
    vxr_error err;
    memset(&err, 0, sizeof err);
    vxr_result r = vxr_load_vxo(data, size, &s, &err);
    int ok = r == VXR_ERROR_FORMAT && s == NULL && err.message[0] && !strchr(err.message, '\n');
    if (!ok)
        fprintf(stderr, "  %s (%zu bytes): result %d, message '%s'\n", what, size, (int)r,
                err.message);
    if (r == VXR_OK) vxr_scene_destroy(s);
    return ok;
}

static void test_vxo_truncated(void) {
    for (uint32_t attr_size = 1; attr_size <= 4; attr_size += 3) {
        size_t size;
        uint8_t *data = small_vxo(attr_size, &size);
        if (!data) continue;
        int bad = 0;
        for (size_t n = 0; n < size; n++) bad += !vxo_rejects(data, n, "prefix");
        CHECK_EQ_INT(bad, 0);
        uint8_t *longer = malloc(size + 4);
        memcpy(longer, data, size);
        memset(longer + size, 0, 4);
        CHECK(vxo_rejects(longer, size + 1, "a byte more"));
        CHECK(vxo_rejects(longer, size + 4, "a word more"));
        free(longer);
        free(data);
    }
}

/* A corrupted .vxo either fails with a format error or loads a scene whose
 * octrees validate, whose instances name its models, and which saves back
 * to exactly the corrupted bytes. Returns 1 when it loaded. */
static int check_corrupted(const uint8_t *data, size_t size, int *bad) {
    vxr_scene *s;
    vxr_error err = {{0}};
    vxr_result r = vxr_load_vxo(data, size, &s, &err);
    if (r != VXR_OK) {
        if (r != VXR_ERROR_FORMAT || s != NULL || !err.message[0]) (*bad)++;
        return 0;
    }
    for (uint32_t i = 0; i < s->model_count; i++)
        if (vxr_octree_validate(&s->models[i], NULL) != VXR_OK) (*bad)++;
    for (uint32_t i = 0; i < s->instance_count; i++)
        if (s->instances[i].model >= s->model_count) (*bad)++;
    uint8_t *again;
    size_t n;
    if (vxr_save_vxo(s, &again, &n, NULL) != VXR_OK || n != size || memcmp(again, data, size))
        (*bad)++;
    free(again);
    vxr_scene_stats st;
    vxr_scene_get_stats(s, &st); /* must not crash */
    vxr_scene_destroy(s);
    return 1;
}

static void test_vxo_random_corruption(void) {
    vxr_scene *s = load_scene(VXR_TEST_DATA "/ogt__test_multiple_model_scene.vox");
    if (!s) return;
    uint8_t *data;
    size_t size;
    CHECK(vxr_save_vxo(s, &data, &size, NULL) == VXR_OK);
    vxr_scene_destroy(s);
    uint8_t *copy = malloc(size);
    const size_t header = (8 + 256) * 4; /* corrupt the palette rarely: it always loads */
    int bad = 0, loaded = 0, tries = 0;
    for (int i = 0; i < 400; i++, tries++) {
        memcpy(copy, data, size);
        size_t at = i % 20 == 0 ? rnd() % size : header + rnd() % (size - header);
        copy[at] ^= (uint8_t)(1 + rnd() % 255);
        loaded += check_corrupted(copy, size, &bad);
    }
    const uint32_t special[] = {0, 1, 2, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0x3f800000u};
    for (int i = 0; i < 400; i++, tries++) {
        memcpy(copy, data, size);
        size_t at = (i % 20 == 0 ? rnd() % size : header + rnd() % (size - header)) & ~(size_t)3;
        uint32_t w = le32(copy + at);
        switch (i % 4) {
        case 0:
            w = rnd();
            break;
        case 1:
            w = special[rnd() % 7];
            break;
        case 2:
            w += 1;
            break;
        default:
            w -= 1;
            break;
        }
        put_le32(copy + at, w);
        loaded += check_corrupted(copy, size, &bad);
    }
    fprintf(stderr, "  %d corruptions: %d loaded and validated, %d rejected\n", tries, loaded,
            tries - loaded);
    CHECK_EQ_INT(bad, 0);
    free(copy);
    free(data);
}

typedef struct vxo_map {
    size_t model0, nodes0, bricks0, attrs0, model1, instances;
    uint32_t node_count0, brick_count0, voxel_count0;
} vxo_map;

/* Offsets of the parts of a .vxo (layout at the top of core/vxo.c). */
static vxo_map map_vxo(const uint8_t *d, uint32_t attr_size) {
    vxo_map m;
    m.model0 = (8 + 256) * 4;
    m.voxel_count0 = le32(d + m.model0 + 16);
    m.node_count0 = le32(d + m.model0 + 20);
    m.brick_count0 = le32(d + m.model0 + 24);
    m.nodes0 = m.model0 + 13 * 4;
    m.bricks0 = m.nodes0 + 8 * (size_t)m.node_count0;
    m.attrs0 = m.bricks0 + 4 * (size_t)m.brick_count0;
    m.model1 = m.attrs0 + (((size_t)m.voxel_count0 * attr_size + 3) & ~(size_t)3);
    uint32_t nodes1 = le32(d + m.model1 + 20), bricks1 = le32(d + m.model1 + 24);
    uint32_t voxels1 = le32(d + m.model1 + 16);
    m.instances = m.model1 + 13 * 4 + 8 * (size_t)nodes1 + 4 * (size_t)bricks1 +
                  (((size_t)voxels1 * attr_size + 3) & ~(size_t)3);
    return m;
}

static void test_vxo_targeted(void) {
    size_t size;
    uint8_t *data = small_vxo(1, &size);
    if (!data) return;
    vxo_map m = map_vxo(data, 1);
    CHECK_EQ_INT(m.instances + 3 * 16 * 4, size);
    CHECK(m.node_count0 > m.brick_count0 && m.brick_count0 > 1);
    CHECK(m.voxel_count0 % 4 != 0); /* so that there is padding */
    const float nan = NAN;
    uint32_t nan_bits;
    memcpy(&nan_bits, &nan, 4);
    const vxr_test_patch cases[] = {
        {4, 2, "version 2"},
        {8, 3, "attribute size 3"},
        {12, 0xffffffffu, "huge model count"},
        {16, 0xffffffffu, "huge instance count"},
        {12, 3, "one model too many"},
        {20, 1, "reserved word"},
        {m.model0 + 12, 0, "depth 0 with voxels"},
        {m.model0 + 12, 40, "depth 40"},
        {m.model0 + 16, 0xffffffffu, "huge voxel count"},
        {m.model0 + 20, 0xffffffffu, "huge node count"},
        {m.model0 + 20, 0x10000000u, "node count past the end"},
        {m.model0 + 24, 0xffffffffu, "huge brick count"},
        {m.model0 + 24, 0, "no bricks"},
        {m.model0 + 0, 12345, "misaligned origin"},
        {m.model0 + 28, 0x80000000u, "wrong vmin"},
        {m.nodes0 + 4, 1000000, "child index outside the node array"},
        {m.nodes0 + 4, 0, "child index pointing back at the root"},
        {m.nodes0, 0, "empty child mask"},
        {m.nodes0, 0x1ff, "child mask beyond 8 bits"},
        {m.bricks0 + 4 * (m.brick_count0 - 1), m.voxel_count0 + 5,
         "brick attribute base past the attributes"},
        {m.bricks0, 1, "first brick not at attribute 0"},
        {m.attrs0 + (m.voxel_count0 & ~3u), 0, "palette index 0"},
        {m.instances, 2, "instance model index out of range"},
        {m.instances, 0xffffffffu, "instance model index -1"},
        {m.instances + 4, 2, "unknown instance flag"},
        {m.instances + 4 * 11, 0, "scale 0"},
        {m.instances + 4 * 11, 0xbf800000u, "scale -1"},
        {m.instances + 4 * 12, nan_bits, "NaN translation"},
        {m.instances + 4 * 2, 0x7f800000u, "infinite rotation"},
        {m.instances + 4 * 15, 0xbf800000u, "negative view distance"},
        /* Found by fuzz_vxo: finite but absurd transforms overflowed the
         * int64 world bounds of vxr_scene_get_stats. */
        {m.instances + 4 * 12, 0xec000000u, "translation -6.2e26"},
        {m.instances + 4 * 13, 0x4f000001u, "translation just beyond 2^31"},
        {m.instances + 4 * 2, 0x40000000u, "rotation entry 2"},
        {m.instances + 4 * 11, 0x4a000001u, "scale beyond 2^20"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *copy = malloc(size);
        memcpy(copy, data, size);
        put_le32(copy + cases[i].at, (uint32_t)cases[i].word);
        CHECK(vxo_rejects(copy, size, cases[i].what));
        free(copy);
    }
    /* A non-zero padding byte after the paletted attributes. */
    uint8_t *copy = malloc(size);
    memcpy(copy, data, size);
    copy[m.attrs0 + m.voxel_count0] = 1;
    CHECK(vxo_rejects(copy, size, "padding"));
    /* A brick with no voxels. */
    memcpy(copy, data, size);
    put_le32(copy + m.nodes0 + 8 * (m.node_count0 - 1), 0);
    put_le32(copy + m.nodes0 + 8 * (m.node_count0 - 1) + 4, 0);
    CHECK(vxo_rejects(copy, size, "empty brick"));
    free(copy);
    free(data);
}

/* An empty model (no voxels) must be all zeros, as the builder writes it. */
static void test_vxo_empty_model(void) {
    vxr_scene_src src;
    vxr_scene_src_init(&src, 1);
    uint32_t m;
    vxr_scene_src_add_model(&src, &m);
    vxr_instance in = {0, 0, vxr_transform_identity(), INFINITY};
    vxr_scene_src_add_instance(&src, &in);
    vxr_scene *s = NULL;
    CHECK(vxr_scene_build(&src, &s, NULL) == VXR_OK);
    vxr_scene_src_free(&src);
    if (!s) return;
    uint8_t *data;
    size_t size;
    CHECK(vxr_save_vxo(s, &data, &size, NULL) == VXR_OK);
    vxr_scene_destroy(s);
    vxr_scene *back = NULL;
    CHECK(vxr_load_vxo(data, size, &back, NULL) == VXR_OK);
    vxr_scene_destroy(back);
    const size_t model0 = (8 + 256) * 4;
    for (int w = 0; w < 13; w++) {
        if (w == 4) continue; /* the voxel count */
        uint8_t *copy = malloc(size);
        memcpy(copy, data, size);
        put_le32(copy + model0 + 4 * (size_t)w, 3);
        char what[64];
        snprintf(what, sizeof what, "empty model with word %d set", w);
        CHECK(vxo_rejects(copy, size, what));
        free(copy);
    }
    free(data);
}

VXR_TEST_MAIN(TEST(test_vl32_read_debug), TEST(test_vl32_round_trip), TEST(test_vl32_colours),
              TEST(test_vl32_hostile), TEST(test_vxo_round_trip), TEST(test_vxo_truncated),
              TEST(test_vxo_random_corruption), TEST(test_vxo_targeted), TEST(test_vxo_empty_model))
