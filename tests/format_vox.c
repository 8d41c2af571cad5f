/* MagicaVoxel .vox: the real files against the figures of an independent
 * reader (MANIFEST.md), one synthetic file per rule of the format and of
 * DESIGN.md §2 (palette, placement, hidden nodes and layers, frames), and
 * hostile files that must fail cleanly. The synthetic files come from a small
 * writer below (chunk: id, content, children). */
#include <math.h>
#include <time.h>
#include "vxr/formats.h"
#include "vxr_test.h"

/* ------------------------------------------------------------------ writer */

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *data, size_t n) {
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n) cap *= 2;
        b->p = realloc(b->p, cap);
        if (!b->p) abort();
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, data, n);
    b->n += n;
}

static void put_i32(buf *b, int32_t v) {
    uint32_t u = (uint32_t)v;
    const uint8_t le[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
    put(b, le, 4);
}

static void set_i32(buf *b, size_t at, int32_t v) {
    uint32_t u = (uint32_t)v;
    for (int k = 0; k < 4; k++) b->p[at + (size_t)k] = (uint8_t)(u >> (8 * k));
}

static void put_str(buf *b, const char *s) {
    put_i32(b, (int32_t)strlen(s));
    put(b, s, strlen(s));
}

/* A DICT from a NULL-terminated list of key, value strings (NULL: empty). */
static void put_dict(buf *b, const char *const *kv) {
    int32_t n = 0;
    while (kv && kv[2 * n]) n++;
    put_i32(b, n);
    for (int32_t i = 0; i < n; i++) {
        put_str(b, kv[2 * i]);
        put_str(b, kv[2 * i + 1]);
    }
}

/* A chunk: id, content size, children size, content, children. */
static void chunk(buf *out, const char *id, const buf *content, const buf *children) {
    put(out, id, 4);
    put_i32(out, content ? (int32_t)content->n : 0);
    put_i32(out, children ? (int32_t)children->n : 0);
    if (content) put(out, content->p, content->n);
    if (children) put(out, children->p, children->n);
}

/* SIZE and XYZI of one model; xyzi holds n voxels (x, y, z, colour index). */
static void model(buf *b, int32_t sx, int32_t sy, int32_t sz, int32_t n, const uint8_t *xyzi) {
    buf c = {0};
    put_i32(&c, sx);
    put_i32(&c, sy);
    put_i32(&c, sz);
    chunk(b, "SIZE", &c, NULL);
    c.n = 0;
    put_i32(&c, n);
    put(&c, xyzi, 4 * (size_t)n);
    chunk(b, "XYZI", &c, NULL);
    free(c.p);
}

static void ntrn_frames(buf *b, int32_t id, const char *const *attrs, int32_t child, int32_t layer,
                        int32_t frames, const char *const *const *frame) {
    buf c = {0};
    put_i32(&c, id);
    put_dict(&c, attrs);
    put_i32(&c, child);
    put_i32(&c, -1);
    put_i32(&c, layer);
    put_i32(&c, frames);
    for (int32_t f = 0; f < frames; f++) put_dict(&c, frame[f]);
    chunk(b, "nTRN", &c, NULL);
    free(c.p);
}

/* An nTRN with one frame (frame may be NULL: no rotation or translation). */
static void ntrn(buf *b, int32_t id, const char *const *attrs, int32_t child, int32_t layer,
                 const char *const *frame) {
    ntrn_frames(b, id, attrs, child, layer, 1, &frame);
}

static void ngrp(buf *b, int32_t id, int32_t n, const int32_t *children) {
    buf c = {0};
    put_i32(&c, id);
    put_dict(&c, NULL);
    put_i32(&c, n);
    for (int32_t i = 0; i < n; i++) put_i32(&c, children[i]);
    chunk(b, "nGRP", &c, NULL);
    free(c.p);
}

/* An nSHP with n models; f[i] is model i's "_f" value (NULL: none). */
static void nshp_frames(buf *b, int32_t id, int32_t n, const int32_t *models,
                        const char *const *f) {
    buf c = {0};
    put_i32(&c, id);
    put_dict(&c, NULL);
    put_i32(&c, n);
    for (int32_t i = 0; i < n; i++) {
        put_i32(&c, models[i]);
        put_dict(&c, f && f[i] ? (const char *const[]){"_f", f[i], NULL} : NULL);
    }
    chunk(b, "nSHP", &c, NULL);
    free(c.p);
}

static void nshp(buf *b, int32_t id, int32_t model_index) {
    nshp_frames(b, id, 1, &model_index, NULL);
}

static void layr(buf *b, int32_t id, const char *const *attrs) {
    buf c = {0};
    put_i32(&c, id);
    put_dict(&c, attrs);
    put_i32(&c, -1);
    chunk(b, "LAYR", &c, NULL);
    free(c.p);
}

/* "VOX " version, then MAIN with the given children. */
static buf vox_file_version(const buf *children, int32_t version) {
    buf out = {0};
    put(&out, "VOX ", 4);
    put_i32(&out, version);
    chunk(&out, "MAIN", NULL, children);
    return out;
}

static buf vox_file(const buf *children) {
    return vox_file_version(children, 150);
}

/* ------------------------------------------------------------------ helpers */

/* Loads and builds a synthetic file; NULL (and a failed check) on error. */
/* The file at animation frame `frame`. */
static vxr_scene *load_frame(const buf *file, uint32_t frame) {
    vxr_scene_src src;
    vxr_error err = {{0}};
    vxr_scene *scene = NULL;
    vxr_result r = vxr_load_vox_frame(file->p, file->n, frame, &src, &err);
    if (r == VXR_OK) r = vxr_scene_build(&src, &scene, &err);
    if (r != VXR_OK) fprintf(stderr, "  load failed: %s\n", err.message);
    CHECK(r == VXR_OK);
    vxr_scene_src_free(&src);
    return scene;
}

static vxr_scene *load_built(const buf *file) {
    return load_frame(file, 0);
}

/* A hostile input must fail with a format (or limit) error, give a one-line
 * reason, and leave the source empty. Prints the case when it does not. */
static int rejects(const uint8_t *data, size_t size, const char *what) {
    vxr_scene_src src;
    vxr_error err;
    memset(&err, 0, sizeof err);
    vxr_result r = vxr_load_vox(data, size, &src, &err);
    int ok = (r == VXR_ERROR_FORMAT || r == VXR_ERROR_LIMIT) && err.message[0] &&
             !strchr(err.message, '\n') && src.model_count == 0 && src.models == NULL &&
             src.instance_count == 0 && src.instances == NULL;
    if (!ok)
        fprintf(stderr, "  %s (%zu bytes): result %d, message '%s'\n", what, size, (int)r,
                err.message);
    if (r == VXR_OK) vxr_scene_src_free(&src);
    return ok;
}

static int rejects_buf(const buf *file, const char *what) {
    return rejects(file->p, file->n, what);
}

/* A truncated or cut-down file must either fail as above or load a source
 * that builds into valid octrees. Returns 1 when it loaded. */
static int fails_cleanly_or_loads(const uint8_t *data, size_t size, int *bad) {
    vxr_scene_src src;
    vxr_error err = {{0}};
    vxr_result r = vxr_load_vox(data, size, &src, &err);
    if (r != VXR_OK) {
        if (!rejects(data, size, "prefix")) (*bad)++;
        return 0;
    }
    vxr_scene *scene;
    if (vxr_scene_build(&src, &scene, &err) != VXR_OK) {
        fprintf(stderr, "  prefix of %zu bytes loads but does not build: %s\n", size, err.message);
        (*bad)++;
    } else {
        for (uint32_t i = 0; i < scene->model_count; i++)
            if (vxr_octree_validate(&scene->models[i], NULL) != VXR_OK) (*bad)++;
        vxr_scene_destroy(scene);
    }
    vxr_scene_src_free(&src);
    return 1;
}

static uint8_t *read_all(const char *path, size_t *size) {
    uint8_t *data;
    vxr_error err;
    if (vxr_read_file(path, &data, size, &err) != VXR_OK) return NULL;
    return data;
}

static int file_exists(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}

static int ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

/* ------------------------------------------------------------------ manifest */

/* One file's figures from the two tables of MANIFEST.md; -1 where blank. */
typedef struct manifest_row {
    char file[160];
    long long models, stored, all_instances;      /* first table */
    long long instances, instanced, lo[3], hi[3]; /* second table */
    int in_world_table;
} manifest_row;

enum { MAX_ROWS = 64, MAX_CELLS = 10 };

static long long parse_count(const char *cell) {
    char *end;
    if (!*cell) return -1;
    long long v = strtoll(cell, &end, 10);
    return *end ? -2 : v;
}

/* "[-190, -31, -27]" */
static int parse_vec(const char *cell, long long out[3]) {
    const char *s = cell;
    if (*s++ != '[') return 0;
    for (int k = 0; k < 3; k++) {
        char *end;
        out[k] = strtoll(s, &end, 10);
        if (end == s) return 0;
        s = end;
        while (*s == ',' || *s == ' ') s++;
    }
    return *s == ']';
}

static manifest_row *find_row(manifest_row *rows, int *count, const char *file) {
    for (int i = 0; i < *count; i++)
        if (!strcmp(rows[i].file, file)) return &rows[i];
    if (*count == MAX_ROWS) return NULL;
    manifest_row *r = &rows[(*count)++];
    memset(r, 0, sizeof *r);
    snprintf(r->file, sizeof r->file, "%s", file);
    r->models = r->stored = r->all_instances = r->instances = r->instanced = -1;
    return r;
}

/* Splits a table row "| a | b |" into trimmed cells (modifies line). */
static int split_cells(char *line, char **cells) {
    int n = 0;
    char *s = strchr(line, '|');
    while (s && n < MAX_CELLS) {
        char *next = strchr(s + 1, '|');
        if (!next) break;
        *next = 0;
        char *c = s + 1;
        while (*c == ' ' || *c == '`') c++;
        char *e = c + strlen(c);
        while (e > c && (e[-1] == ' ' || e[-1] == '`')) *--e = 0;
        cells[n++] = c;
        s = next;
    }
    return n;
}

/* Reads both tables; returns the number of files, -1 when unreadable. */
static int read_manifest(const char *path, manifest_row *rows) {
    size_t size;
    uint8_t *data = read_all(path, &size);
    if (!data) return -1;
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    free(data);
    int count = 0, table = 0, bad = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strncmp(line, "| file |", 8)) table++;
        if (strncmp(line, "| `", 3)) continue;
        char *cells[MAX_CELLS];
        int n = split_cells(line, cells);
        manifest_row *r = find_row(rows, &count, cells[0]);
        if (!r) break;
        if (table == 1 && n == 8) {
            r->models = parse_count(cells[3]);
            r->stored = parse_count(cells[4]);
            r->all_instances = parse_count(cells[5]);
        } else if (table == 2 && n == 6) {
            r->in_world_table = 1;
            r->instances = parse_count(cells[1]);
            r->instanced = parse_count(cells[2]);
            if (!parse_vec(cells[4], r->lo) || !parse_vec(cells[5], r->hi)) bad++;
        } else {
            bad++;
        }
        if (r->models < -1 || r->stored < -1 || r->all_instances < -1 || r->instances < -1 ||
            r->instanced < -1)
            bad++;
    }
    free(text);
    CHECK_EQ_INT(bad, 0);
    return count;
}

#define CHECK_FIELD(want, got)                                                                     \
    do {                                                                                           \
        if ((want) >= 0) CHECK_EQ_INT(got, want);                                                  \
    } while (0)

/* Checks every .vox and .vl32 file of the manifest that is present under
 * dir (with its folder prefix, or without when strip is set); returns the
 * number of files checked. */
static int check_manifest(const char *manifest, const char *dir, int strip) {
    manifest_row rows[MAX_ROWS];
    int n = read_manifest(manifest, rows), checked = 0;
    CHECK(n > 0);
    for (int i = 0; i < n; i++) {
        const manifest_row *m = &rows[i];
        if (!ends_with(m->file, ".vox") && !ends_with(m->file, ".vl32")) continue;
        const char *name = m->file;
        if (strip && strrchr(name, '/')) name = strrchr(name, '/') + 1;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        if (!file_exists(path)) continue;
        int before = vxr_test_failures_;
        vxr_scene *scene;
        vxr_error err = {{0}};
        vxr_result r = vxr_scene_load(path, &scene, &err);
        CHECK(r == VXR_OK);
        if (r == VXR_OK) {
            vxr_scene_stats st;
            vxr_scene_get_stats(scene, &st);
            CHECK_FIELD(m->models, st.models);
            CHECK_FIELD(m->stored, st.model_voxels);
            CHECK_FIELD(m->all_instances, scene->instance_count);
            CHECK_FIELD(m->instances, st.instances);
            CHECK_FIELD(m->instanced, st.instanced_voxels);
            if (m->in_world_table)
                for (int k = 0; k < 3; k++) {
                    CHECK_EQ_INT(st.aabb_min[k], m->lo[k]);
                    CHECK_EQ_INT(st.aabb_max[k], m->hi[k]);
                }
            vxr_scene_destroy(scene);
        }
        if (vxr_test_failures_ != before) fprintf(stderr, "  in %s: %s\n", path, err.message);
        checked++;
    }
    return checked;
}

static void test_manifest_test_data(void) {
    int checked = check_manifest(VXR_TEST_DATA "/MANIFEST.md", VXR_TEST_DATA, 1);
    fprintf(stderr, "  %d files of tests/data checked against the manifest\n", checked);
    CHECK(checked >= 10);
}

static void test_manifest_shared_data(void) {
    if (!file_exists(VXR_SHARED_DATA "/MANIFEST.md")) SKIP("no shared data folder");
    int checked = check_manifest(VXR_SHARED_DATA "/MANIFEST.md", VXR_SHARED_DATA, 0);
    fprintf(stderr, "  %d files of the shared data checked against the manifest\n", checked);
    CHECK(checked >= 10);
}

/* ------------------------------------------------------------------ rules */

static const uint8_t one_voxel[4] = {0, 0, 0, 1};

static void test_default_palette(void) {
    buf c = {0};
    const uint8_t v[] = {0, 0, 0, 1, 1, 0, 0, 2, 2, 0, 0, 0}; /* index 0 is empty */
    model(&c, 3, 1, 1, 3, v);
    buf f = vox_file(&c);
    vxr_scene_src src;
    CHECK(vxr_load_vox(f.p, f.n, &src, NULL) == VXR_OK);
    CHECK_EQ_INT(src.attr_size, 1);
    CHECK_EQ_INT(src.palette[0], 0);
    CHECK_EQ_INT(src.palette[1], 0xffffffffu);
    CHECK_EQ_INT(src.palette[2], 0xffccffffu);
    CHECK_EQ_INT(src.palette[2], vxr_rgba(0xff, 0xff, 0xcc, 0xff));
    CHECK_EQ_INT(src.model_count, 1);
    CHECK_EQ_INT(src.models[0].count, 2);
    /* No scene graph: each model once, visible. */
    CHECK_EQ_INT(src.instance_count, 1);
    CHECK_EQ_INT(src.instances[0].flags, 0);
    vxr_scene_src_free(&src);
    free(f.p);
    free(c.p);
}

static void test_rgba_shift(void) {
    uint32_t entry[256];
    buf c = {0}, pal = {0};
    for (uint32_t i = 0; i < 256; i++) {
        entry[i] = vxr_rgba(i, 255 - i, i * 7, 128 + i / 2);
        const uint8_t b[4] = {(uint8_t)i, (uint8_t)(255 - i), (uint8_t)(i * 7),
                              (uint8_t)(128 + i / 2)};
        put(&pal, b, 4);
    }
    const uint8_t v[] = {1, 2, 3, 5};
    model(&c, 4, 4, 4, 1, v);
    chunk(&c, "RGBA", &pal, NULL);
    buf f = vox_file(&c);
    vxr_scene_src src;
    CHECK(vxr_load_vox(f.p, f.n, &src, NULL) == VXR_OK);
    CHECK_EQ_INT(src.palette[0], 0);
    int bad = 0;
    for (int i = 0; i < 255; i++) bad += src.palette[i + 1] != entry[i];
    CHECK_EQ_INT(bad, 0);
    vxr_scene_src_free(&src);
    vxr_scene *s = load_built(&f);
    if (s) {
        uint32_t a = 0;
        CHECK(vxr_octree_lookup(&s->models[0], 1, 2, 3, &a));
        CHECK_EQ_INT(a, 5);
        CHECK_EQ_INT(s->palette[a], entry[4]); /* file entry 4 is colour 5 */
        vxr_scene_destroy(s);
    }
    free(f.p);
    free(c.p);
    free(pal.p);
}

/* The rotation byte, decoded here independently from the extension spec. */
static int rotation_of(int b, int R[9]) {
    int c0 = b & 3, c1 = (b >> 2) & 3;
    if (c0 == 3 || c1 == 3 || c0 == c1) return 0;
    memset(R, 0, 9 * sizeof *R);
    R[c0] = b & 16 ? -1 : 1;
    R[3 + c1] = b & 32 ? -1 : 1;
    R[6 + 3 - c0 - c1] = b & 64 ? -1 : 1;
    return 1;
}

/* DESIGN.md §2: world cell min = floor(R (v + 1/2 - floor(S/2))) + t. */
static void expected_cell(const int R[9], const int t[3], const int v[3], const int S[3],
                          int out[3]) {
    for (int i = 0; i < 3; i++) {
        double w = 0;
        for (int k = 0; k < 3; k++) w += R[3 * i + k] * (v[k] + 0.5 - floor(S[k] / 2));
        out[i] = (int)floor(w) + t[i];
    }
}

/* A one-voxel model of size S under nTRN 0 -> nGRP 1 -> nTRN 2 (_r, _t) ->
 * nSHP 3; returns the loaded instance's world bounds. */
static int place_one(const int S[3], const int v[3], const char *r, const char *t, float lo[3],
                     float hi[3]) {
    buf c = {0};
    const uint8_t xyzi[4] = {(uint8_t)v[0], (uint8_t)v[1], (uint8_t)v[2], 7};
    model(&c, S[0], S[1], S[2], 1, xyzi);
    ntrn(&c, 0, NULL, 1, -1, NULL);
    ngrp(&c, 1, 1, (const int32_t[]){2});
    ntrn(&c, 2, NULL, 3, 0, (const char *const[]){"_r", r, "_t", t, NULL});
    nshp(&c, 3, 0);
    buf f = vox_file(&c);
    vxr_scene *s = load_built(&f);
    int ok = s && s->instance_count == 1;
    if (ok) vxr_instance_world_bounds(s, 0, lo, hi);
    vxr_scene_destroy(s);
    free(f.p);
    free(c.p);
    return ok;
}

static void test_placement_rule(void) {
    /* Worked by hand: S = 3x4x5, v = (2,1,3), byte 89 = column 1 for row 0,
     * column 2 for row 1, rows 0 and 2 negative: R = [0 -1 0; 0 0 1; -1 0 0].
     * v + 1/2 - floor(S/2) = (1.5, -0.5, 1.5); R of that = (0.5, 1.5, -1.5);
     * floor = (0, 1, -2); + t (10, -20, 30) = (10, -19, 28). */
    const int S[3] = {3, 4, 5}, v[3] = {2, 1, 3}, t[3] = {10, -20, 30};
    float lo[3], hi[3];
    CHECK(place_one(S, v, "89", "10 -20 30", lo, hi));
    CHECK(lo[0] == 10 && lo[1] == -19 && lo[2] == 28);
    CHECK(hi[0] == 11 && hi[1] == -18 && hi[2] == 29);
    /* Every valid rotation byte, a few voxels, against the formula. */
    const int voxels[4][3] = {{0, 0, 0}, {2, 3, 4}, {2, 1, 3}, {1, 2, 0}};
    int rotations = 0, bad = 0;
    for (int b = 0; b < 128; b++) {
        int R[9];
        if (!rotation_of(b, R)) continue;
        rotations++;
        char rs[12]; /* "%d" of any int */
        snprintf(rs, sizeof rs, "%d", b);
        for (int i = 0; i < 4; i++) {
            int want[3];
            expected_cell(R, t, voxels[i], S, want);
            if (!place_one(S, voxels[i], rs, "10 -20 30", lo, hi)) {
                bad++;
                continue;
            }
            for (int k = 0; k < 3; k++)
                if (lo[k] != (float)want[k] || hi[k] != (float)(want[k] + 1)) {
                    fprintf(stderr, "  rotation %d voxel %d axis %d: [%g, %g) want %d\n", b, i, k,
                            (double)lo[k], (double)hi[k], want[k]);
                    bad++;
                }
        }
    }
    CHECK_EQ_INT(rotations, 48);
    CHECK_EQ_INT(bad, 0);
}

static void test_placement_composes(void) {
    /* nTRN 0 -> nGRP 1 -> nTRN 2 (A) -> nGRP 3 -> nTRN 4 (B) -> nSHP 5:
     * R = RA RB, t = tA + RA tB. */
    const int S[3] = {5, 2, 7}, v[3] = {4, 0, 1};
    const int ta[3] = {3, -8, 1}, tb[3] = {-2, 6, 11};
    int RA[9], RB[9], R[9], t[3];
    CHECK(rotation_of(89, RA) && rotation_of(34, RB));
    for (int i = 0; i < 3; i++) {
        t[i] = ta[i];
        for (int k = 0; k < 3; k++) {
            R[3 * i + k] = 0;
            for (int j = 0; j < 3; j++) R[3 * i + k] += RA[3 * i + j] * RB[3 * j + k];
            t[i] += RA[3 * i + k] * tb[k];
        }
    }
    int want[3];
    expected_cell(R, t, v, S, want);
    buf c = {0};
    const uint8_t xyzi[4] = {4, 0, 1, 9};
    model(&c, S[0], S[1], S[2], 1, xyzi);
    ntrn(&c, 0, NULL, 1, -1, NULL);
    ngrp(&c, 1, 1, (const int32_t[]){2});
    ntrn(&c, 2, NULL, 3, 0, (const char *const[]){"_r", "89", "_t", "3 -8 1", NULL});
    ngrp(&c, 3, 1, (const int32_t[]){4});
    ntrn(&c, 4, NULL, 5, 0, (const char *const[]){"_t", "-2 6 11", "_r", "34", NULL});
    nshp(&c, 5, 0);
    buf f = vox_file(&c);
    vxr_scene *s = load_built(&f);
    if (s) {
        float lo[3], hi[3];
        vxr_instance_world_bounds(s, 0, lo, hi);
        for (int k = 0; k < 3; k++) {
            CHECK_EQ_INT(lo[k], want[k]);
            CHECK_EQ_INT(hi[k], want[k] + 1);
        }
        vxr_scene_destroy(s);
    }
    free(f.p);
    free(c.p);
}

/* Two models; model 0 under a hidden nTRN, again under an nTRN on a hidden
 * layer, and model 1 visible on a visible layer. */
static buf hidden_scene(void) {
    buf c = {0};
    const uint8_t v0[] = {0, 0, 0, 1, 1, 0, 0, 2};
    const uint8_t v1[] = {0, 0, 0, 3, 0, 1, 0, 3, 0, 0, 1, 3};
    model(&c, 2, 1, 1, 2, v0);
    model(&c, 1, 2, 2, 3, v1);
    ntrn(&c, 0, NULL, 1, -1, NULL);
    ngrp(&c, 1, 3, (const int32_t[]){2, 4, 6});
    ntrn(&c, 2, (const char *const[]){"_name", "gone", "_hidden", "1", NULL}, 3, 0,
         (const char *const[]){"_t", "5 5 5", NULL});
    nshp(&c, 3, 0);
    ntrn(&c, 4, NULL, 5, 1, (const char *const[]){"_t", "-5 0 0", NULL});
    nshp(&c, 5, 0);
    ntrn(&c, 6, (const char *const[]){"_hidden", "0", NULL}, 7, 0,
         (const char *const[]){"_r", "4", "_t", "0 9 0", NULL});
    nshp(&c, 7, 1);
    layr(&c, 0, (const char *const[]){"_name", "shown", NULL});
    layr(&c, 1, (const char *const[]){"_hidden", "1", NULL});
    buf f = vox_file(&c);
    free(c.p);
    return f;
}

static void test_hidden_node_and_layer(void) {
    buf f = hidden_scene();
    vxr_scene *s = load_built(&f);
    if (s) {
        CHECK_EQ_INT(s->instance_count, 3);
        CHECK_EQ_INT(s->instances[0].flags & VXR_INSTANCE_HIDDEN, VXR_INSTANCE_HIDDEN);
        CHECK_EQ_INT(s->instances[1].flags & VXR_INSTANCE_HIDDEN, VXR_INSTANCE_HIDDEN);
        CHECK_EQ_INT(s->instances[2].flags & VXR_INSTANCE_HIDDEN, 0);
        CHECK_EQ_INT(s->instances[2].model, 1);
        vxr_scene_stats st;
        vxr_scene_get_stats(s, &st);
        CHECK_EQ_INT(st.instances, 1);
        CHECK_EQ_INT(st.instanced_voxels, 3);
        CHECK_EQ_INT(st.model_voxels, 5);
        vxr_scene_destroy(s);
    }
    free(f.p);
}

static void test_model_instanced_twice_stored_once(void) {
    buf c = {0};
    const uint8_t v[] = {0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3};
    model(&c, 3, 3, 3, 3, v);
    ntrn(&c, 0, NULL, 1, -1, NULL);
    ngrp(&c, 1, 2, (const int32_t[]){2, 4});
    ntrn(&c, 2, NULL, 3, 0, (const char *const[]){"_t", "0 0 0", NULL});
    nshp(&c, 3, 0);
    ntrn(&c, 4, NULL, 5, 0, (const char *const[]){"_t", "100 0 0", NULL});
    nshp(&c, 5, 0);
    buf f = vox_file(&c);
    vxr_scene *s = load_built(&f);
    if (s) {
        CHECK_EQ_INT(s->model_count, 1);
        CHECK_EQ_INT(s->instance_count, 2);
        CHECK(s->instances[0].model == 0 && s->instances[1].model == 0);
        vxr_scene_stats st;
        vxr_scene_get_stats(s, &st);
        CHECK_EQ_INT(st.model_voxels, 3);
        CHECK_EQ_INT(st.instanced_voxels, 6);
        CHECK_EQ_INT(st.aabb_min[0], -1);
        CHECK_EQ_INT(st.aabb_max[0], 102);
        vxr_scene_destroy(s);
    }
    free(f.p);
    free(c.p);
}

/* MATL: a material id names its palette entry; kind, roughness, index of
 * refraction (stored as ior - 1) and emission (_emit * 2^_flux). */
static void test_materials(void) {
    buf c = {0}, glass = {0}, lamp = {0};
    const char *g[] = {"_type", "_glass", "_ior", "0.3"},
               *l[] = {"_type", "_emit", "_emit", "0.5", "_flux", "2"};
    put_i32(&glass, 7);
    put_i32(&glass, 2);
    for (int k = 0; k < 4; k++) put_str(&glass, g[k]);
    put_i32(&lamp, 9);
    put_i32(&lamp, 3);
    for (int k = 0; k < 6; k++) put_str(&lamp, l[k]);
    model(&c, 2, 2, 2, 1, one_voxel);
    chunk(&c, "MATL", &glass, NULL);
    chunk(&c, "MATL", &lamp, NULL);
    buf f = vox_file(&c);
    vxr_scene_src src;
    vxr_error err = {{0}};
    CHECK(vxr_load_vox(f.p, f.n, &src, &err) == VXR_OK);
    CHECK_EQ_INT(src.materials[7].kind, VXR_MATERIAL_GLASS);
    CHECK(fabsf(src.materials[7].ior - 1.3f) < 1e-6f);
    CHECK_EQ_INT(src.materials[9].kind, VXR_MATERIAL_EMIT);
    CHECK(fabsf(src.materials[9].emit - 2.0f) < 1e-6f);
    CHECK_EQ_INT(src.materials[8].kind, VXR_MATERIAL_DIFFUSE);
    vxr_scene_src_free(&src);
    free(f.p);
    free(c.p);
    free(glass.p);
    free(lamp.p);
}

static void test_unknown_chunks_skipped(void) {
    buf c = {0}, content = {0}, children = {0};
    put_str(&content, "anything");
    /* Children of an unknown chunk are not read, even when they look like models. */
    model(&children, 0, 0, 0, 0, NULL);
    chunk(&c, "ZZZZ", &content, &children);
    chunk(&c, "PACK", &content, NULL);
    model(&c, 2, 2, 2, 1, one_voxel);
    chunk(&c, "MATL", &content, NULL);
    chunk(&c, "rOBJ", NULL, NULL);
    chunk(&c, "NOTE", &content, NULL);
    chunk(&c, "IMAP", &content, NULL);
    chunk(&c, "\x01\x02\x03\x04", &content, &children);
    buf f = vox_file(&c);
    vxr_scene_src src;
    vxr_error err = {{0}};
    CHECK(vxr_load_vox(f.p, f.n, &src, &err) == VXR_OK);
    CHECK_EQ_INT(src.model_count, 1);
    CHECK_EQ_INT(src.instance_count, 1);
    vxr_scene_src_free(&src);
    free(f.p);
    free(c.p);
    free(content.p);
    free(children.p);
}

static void test_v200_frames(void) {
    buf c = {0};
    model(&c, 1, 1, 1, 1, one_voxel);
    model(&c, 1, 1, 1, 1, one_voxel);
    ntrn(&c, 0, NULL, 1, -1, NULL);
    ngrp(&c, 1, 2, (const int32_t[]){2, 4});
    /* Frame 0 is the second in the list. */
    const char *const f10[] = {"_f", "10", "_t", "100 100 100", NULL};
    const char *const f0[] = {"_t", "1 2 3", "_f", "0", NULL};
    const char *const f20[] = {"_f", "20", "_t", "200 200 200", NULL};
    ntrn_frames(&c, 2, NULL, 3, 0, 3, (const char *const *const[]){f10, f0, f20});
    /* The shape's frame 0 is model 1. */
    nshp_frames(&c, 3, 3, (const int32_t[]){0, 1, 0}, (const char *const[]){"4", "0", "9"});
    /* Frames without _f: the first. */
    const char *const a[] = {"_t", "-7 0 0", NULL};
    const char *const b[] = {"_t", "-70 0 0", NULL};
    ntrn_frames(&c, 4, NULL, 5, 0, 2, (const char *const *const[]){a, b});
    nshp(&c, 5, 0);
    buf f = vox_file_version(&c, 200);
    vxr_scene *s = load_built(&f);
    if (s) {
        CHECK_EQ_INT(s->instance_count, 2);
        CHECK_EQ_INT(s->instances[0].model, 1);
        float lo[3], hi[3];
        vxr_instance_world_bounds(s, 0, lo, hi);
        CHECK(lo[0] == 1 && lo[1] == 2 && lo[2] == 3);
        vxr_instance_world_bounds(s, 1, lo, hi);
        CHECK(lo[0] == -7 && lo[1] == 0 && lo[2] == 0);
        vxr_scene_destroy(s);
    }
    /* Frame K: each node's frame with the largest _f <= K (no _f: 0). The
     * transform's keys are 0, 10, 20; the shape's 0 (model 1), 4 and 9
     * (model 0). */
    static const struct {
        uint32_t frame;
        float x;
        uint32_t model;
    } at[] = {{3, 1, 1}, {5, 1, 0}, {10, 100, 0}, {19, 100, 0}, {25, 200, 0}};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        s = load_frame(&f, at[i].frame);
        if (!s) continue;
        float lo[3], hi[3];
        vxr_instance_world_bounds(s, 0, lo, hi);
        CHECK(lo[0] == at[i].x && s->instances[0].model == at[i].model);
        vxr_instance_world_bounds(s, 1, lo, hi);
        CHECK(lo[0] == -7); /* frames without _f: the first, whatever K */
        vxr_scene_destroy(s);
    }
    free(f.p);
    free(c.p);
}

static void test_empty_scenes(void) {
    /* Found by fuzz_vox: a MAIN chunk with no children loads an empty source,
     * whose build copied from its NULL instance array. */
    const uint8_t empty[20] = {'V', 'O', 'X', ' ', 150, 0, 0, 0, 'M', 'A', 'I', 'N'};
    vxr_scene_src src;
    vxr_scene *s = NULL;
    CHECK(vxr_load_vox(empty, sizeof empty, &src, NULL) == VXR_OK);
    CHECK(src.model_count == 0 && src.instance_count == 0);
    CHECK(vxr_scene_build(&src, &s, NULL) == VXR_OK);
    vxr_scene_destroy(s);
    vxr_scene_src_free(&src);
    /* Models, and a scene graph without shapes: no instances. */
    buf c = {0};
    model(&c, 1, 1, 1, 1, one_voxel);
    ntrn(&c, 0, NULL, 1, -1, NULL);
    ngrp(&c, 1, 0, NULL);
    buf f = vox_file(&c);
    s = load_built(&f);
    if (s) {
        vxr_scene_stats st;
        vxr_scene_get_stats(s, &st);
        CHECK(st.models == 1 && st.instances == 0 && st.instanced_voxels == 0);
        vxr_scene_destroy(s);
    }
    free(f.p);
    free(c.p);
}

/* ------------------------------------------------------------------ hostile */

static void test_truncated_real_file(void) {
    size_t size;
    uint8_t *data = read_all(VXR_TEST_DATA "/mmmm__chr_robot.vox", &size);
    CHECK(data != NULL);
    if (!data) return;
    int bad = 0, loaded = 0;
    for (size_t n = 0; n < size; n++) bad += !rejects(data, n, "prefix");
    /* The same prefixes with MAIN's children size cut to fit: now the chunk
     * reader meets the truncation (at a chunk boundary the file may load). */
    uint8_t *copy = malloc(size);
    for (size_t n = 20; n < size; n++) {
        memcpy(copy, data, n);
        buf b = {copy, n, size};
        set_i32(&b, 16, (int32_t)(n - 20));
        loaded += fails_cleanly_or_loads(copy, n, &bad);
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(loaded < 10);
    free(copy);
    free(data);
}

static void test_truncated_scene_graph(void) {
    buf f = hidden_scene();
    int bad = 0;
    for (size_t n = 0; n < f.n; n++) bad += !rejects(f.p, n, "prefix");
    uint8_t *copy = malloc(f.n);
    for (size_t n = 20; n < f.n; n++) {
        memcpy(copy, f.p, n);
        buf b = {copy, n, f.n};
        set_i32(&b, 16, (int32_t)(n - 20));
        fails_cleanly_or_loads(copy, n, &bad);
    }
    CHECK_EQ_INT(bad, 0);
    free(copy);
    free(f.p);
}

static void test_lying_chunk_sizes(void) {
    buf c = {0};
    model(&c, 2, 2, 2, 1, one_voxel);
    buf f = vox_file(&c);
    /* Offsets: 8 MAIN, 12 its content size, 16 its children size, 20 SIZE,
     * 24 SIZE's content size, 28 its children size. */
    const vxr_test_patch lies[] = {
        {12, 1000, "MAIN content past the end"},
        {12, -1, "MAIN content negative"},
        {16, 1000, "MAIN children past the end"},
        {16, -4, "MAIN children negative"},
        {16, INT32_MAX, "MAIN children huge"},
        {24, 1000, "SIZE content past the end"},
        {24, -12, "SIZE content negative"},
        {24, INT32_MIN, "SIZE content INT32_MIN"},
        {28, 8, "SIZE children past MAIN"},
        {28, -1, "SIZE children negative"},
        {24, 8, "SIZE content short"},
        {4, 149, "version 149"},
        {4, 201, "version 201"},
    };
    for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++) {
        buf g = {malloc(f.n), f.n, f.n};
        memcpy(g.p, f.p, f.n);
        set_i32(&g, lies[i].at, (int32_t)lies[i].word);
        CHECK(rejects_buf(&g, lies[i].what));
        free(g.p);
    }
    CHECK(rejects((const uint8_t *)"VOX ", 4, "magic only"));
    CHECK(rejects((const uint8_t *)"VOY \x96\0\0\0MAIN\0\0\0\0\0\0\0\0", 20, "bad magic"));
    free(f.p);
    free(c.p);
}

static void test_bad_models(void) {
    static const int32_t sizes[][3] = {{-3, 4, 5},     {0, 1, 1},   {1, 0, 1},
                                       {1, 1, 100000}, {257, 1, 1}, {INT32_MIN, 1, 1}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        buf c = {0};
        model(&c, sizes[i][0], sizes[i][1], sizes[i][2], 1, one_voxel);
        buf f = vox_file(&c);
        CHECK(rejects_buf(&f, "bad SIZE"));
        free(f.p);
        free(c.p);
    }
    /* A voxel outside its model's size, on each axis. */
    for (int k = 0; k < 3; k++) {
        buf c = {0};
        uint8_t v[8] = {0, 0, 0, 1, 0, 0, 0, 1};
        v[4 + k] = (uint8_t)(k + 3);
        model(&c, 3, 4, 5, 2, v);
        buf f = vox_file(&c);
        CHECK(rejects_buf(&f, "voxel outside the model"));
        free(f.p);
        free(c.p);
    }
    /* XYZI counts beyond the chunk, or negative. */
    const int32_t counts[] = {2, 1000, INT32_MAX, -1};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        buf c = {0};
        model(&c, 2, 2, 2, 1, one_voxel);
        set_i32(&c, 24 + 12, counts[i]); /* after the SIZE chunk and XYZI's header */
        buf f = vox_file(&c);
        CHECK(rejects_buf(&f, "XYZI count"));
        free(f.p);
        free(c.p);
    }
    /* XYZI without SIZE, SIZE without XYZI, two SIZEs in a row. */
    {
        buf c = {0}, x = {0};
        put_i32(&x, 1);
        put(&x, one_voxel, 4);
        chunk(&c, "XYZI", &x, NULL);
        buf f = vox_file(&c);
        CHECK(rejects_buf(&f, "XYZI without SIZE"));
        free(f.p);
        c.n = 0;
        model(&c, 1, 1, 1, 1, one_voxel);
        x.n = 0;
        put_i32(&x, 1);
        put_i32(&x, 1);
        put_i32(&x, 1);
        chunk(&c, "SIZE", &x, NULL);
        f = vox_file(&c);
        CHECK(rejects_buf(&f, "SIZE without XYZI"));
        free(f.p);
        chunk(&c, "SIZE", &x, NULL);
        f = vox_file(&c);
        CHECK(rejects_buf(&f, "two SIZEs"));
        free(f.p);
        free(c.p);
        free(x.p);
    }
    /* An RGBA chunk shorter than 256 colours. */
    {
        buf c = {0}, p = {0};
        model(&c, 1, 1, 1, 1, one_voxel);
        for (int i = 0; i < 255; i++) put_i32(&p, -1);
        chunk(&c, "RGBA", &p, NULL);
        buf f = vox_file(&c);
        CHECK(rejects_buf(&f, "short RGBA"));
        free(f.p);
        free(c.p);
        free(p.p);
    }
}

/* A scene-graph file built by fn, with one 1x1x1 model before the nodes. */
static void graph_rejected(void (*fn)(buf *), const char *what) {
    buf c = {0};
    model(&c, 1, 1, 1, 1, one_voxel);
    fn(&c);
    buf f = vox_file(&c);
    clock_t t0 = clock();
    CHECK(rejects_buf(&f, what));
    double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
    if (s > 2) fprintf(stderr, "  %s took %.1f s to reject\n", what, s);
    CHECK(s < 5);
    free(f.p);
    free(c.p);
}

static void graph_cycle(buf *c) {
    ntrn(c, 0, NULL, 1, -1, NULL);
    ngrp(c, 1, 1, (const int32_t[]){0});
}

static void graph_cycle_through_group(buf *c) {
    ntrn(c, 0, NULL, 1, -1, NULL);
    ngrp(c, 1, 2, (const int32_t[]){2, 4});
    ntrn(c, 2, NULL, 3, -1, NULL);
    nshp(c, 3, 0);
    ntrn(c, 4, NULL, 1, -1, NULL);
}

static void graph_self_loop(buf *c) {
    ntrn(c, 0, NULL, 0, -1, NULL);
}

static void graph_deep_chain(buf *c) {
    for (int32_t i = 0; i < 1000; i += 2) {
        ntrn(c, i, NULL, i + 1, -1, NULL);
        ngrp(c, i + 1, 1, (const int32_t[]){i + 2});
    }
    nshp(c, 1000, 0);
}

static void graph_doubling_dag(buf *c) {
    /* 40 levels of groups whose two children are the same node: 2^40 paths. */
    ntrn(c, 0, NULL, 1, -1, NULL);
    for (int32_t i = 1; i <= 40; i++) ngrp(c, i, 2, (const int32_t[]){i + 1, i + 1});
    ntrn(c, 41, NULL, 42, -1, NULL);
    nshp(c, 42, 0);
}

static void graph_missing_model(buf *c) {
    ntrn(c, 0, NULL, 1, -1, NULL);
    nshp(c, 1, 1);
}

static void graph_negative_model(buf *c) {
    ntrn(c, 0, NULL, 1, -1, NULL);
    nshp(c, 1, -1);
}

static void graph_missing_node(buf *c) {
    ntrn(c, 0, NULL, 1, -1, NULL);
    ngrp(c, 1, 2, (const int32_t[]){2, 99});
    ntrn(c, 2, NULL, 3, -1, NULL);
    nshp(c, 3, 0);
}

static void graph_no_root(buf *c) {
    ntrn(c, 5, NULL, 6, -1, NULL);
    nshp(c, 6, 0);
}

static void graph_duplicate_id(buf *c) {
    ntrn(c, 0, NULL, 1, -1, NULL);
    nshp(c, 1, 0);
    nshp(c, 1, 0);
}

static void graph_negative_id(buf *c) {
    ntrn(c, 0, NULL, -1, -1, NULL);
    nshp(c, -1, 0);
}

static void graph_bad_translation(buf *c) {
    ntrn(c, 0, NULL, 1, -1, (const char *const[]){"_t", "1 2 x", NULL});
    nshp(c, 1, 0);
}

static void graph_short_translation(buf *c) {
    ntrn(c, 0, NULL, 1, -1, (const char *const[]){"_t", "1 2", NULL});
    nshp(c, 1, 0);
}

static void graph_far_translation(buf *c) {
    ntrn(c, 0, NULL, 1, -1, (const char *const[]){"_t", "2147483647 0 0", NULL});
    nshp(c, 1, 0);
}

static void graph_bad_frame(buf *c) {
    ntrn(c, 0, NULL, 1, -1, (const char *const[]){"_f", "zero", NULL});
    nshp(c, 1, 0);
}

static void graph_negative_frames(buf *c) {
    ntrn_frames(c, 0, NULL, 1, -1, -1, NULL);
    nshp(c, 1, 0);
}

static void graph_group_count(buf *c) {
    ntrn(c, 0, NULL, 1, -1, NULL);
    ngrp(c, 1, 1, (const int32_t[]){2});
    set_i32(c, c->n - 8, 1000000); /* the child count */
    nshp(c, 2, 0);
}

static void graph_bad_layer(buf *c) {
    buf l = {0};
    put_i32(&l, 0);
    put_i32(&l, 5); /* a DICT of 5 pairs with none present */
    chunk(c, "LAYR", &l, NULL);
    free(l.p);
    ntrn(c, 0, NULL, 1, 0, NULL);
    nshp(c, 1, 0);
}

static void test_hostile_scene_graphs(void) {
    graph_rejected(graph_cycle, "cycle nTRN 0 -> nGRP 1 -> nTRN 0");
    graph_rejected(graph_cycle_through_group, "cycle through a group");
    graph_rejected(graph_self_loop, "nTRN naming itself");
    graph_rejected(graph_deep_chain, "1000 nested nTRN/nGRP");
    graph_rejected(graph_doubling_dag, "DAG doubling 40 times");
    graph_rejected(graph_missing_model, "nSHP naming a missing model");
    graph_rejected(graph_negative_model, "nSHP naming model -1");
    graph_rejected(graph_missing_node, "a missing node");
    graph_rejected(graph_no_root, "no node 0");
    graph_rejected(graph_duplicate_id, "a node id twice");
    graph_rejected(graph_negative_id, "a negative node id");
    graph_rejected(graph_bad_translation, "junk in _t");
    graph_rejected(graph_short_translation, "two numbers in _t");
    graph_rejected(graph_far_translation, "translation beyond 2^24");
    graph_rejected(graph_bad_frame, "junk in _f");
    graph_rejected(graph_negative_frames, "negative frame count");
    graph_rejected(graph_group_count, "nGRP count beyond the chunk");
    graph_rejected(graph_bad_layer, "malformed LAYR");
}

static void test_bad_rotation(void) {
    const char *bad[] = {"3", "5", "0", "10", "15", "128", "-1", "255", "1x", "", "99999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        buf c = {0};
        model(&c, 1, 1, 1, 1, one_voxel);
        ntrn(&c, 0, NULL, 1, -1, (const char *const[]){"_r", bad[i], NULL});
        nshp(&c, 1, 0);
        buf f = vox_file(&c);
        CHECK(rejects_buf(&f, bad[i]));
        free(f.p);
        free(c.p);
    }
}

static void test_message_is_one_line(void) {
    /* A chunk id with a newline and NUL in it still gives a one-line reason. */
    buf c = {0};
    chunk(&c, "\n\r\0\t", NULL, NULL);
    buf f = vox_file(&c);
    set_i32(&f, 24, 77); /* the chunk's content size, past the end */
    CHECK(rejects_buf(&f, "odd chunk id"));
    free(f.p);
    free(c.p);
}

VXR_TEST_MAIN(TEST(test_manifest_test_data), TEST(test_manifest_shared_data),
              TEST(test_default_palette), TEST(test_rgba_shift), TEST(test_placement_rule),
              TEST(test_placement_composes), TEST(test_hidden_node_and_layer),
              TEST(test_model_instanced_twice_stored_once), TEST(test_unknown_chunks_skipped),
              TEST(test_materials), TEST(test_v200_frames), TEST(test_empty_scenes),
              TEST(test_truncated_real_file), TEST(test_truncated_scene_graph),
              TEST(test_lying_chunk_sizes), TEST(test_bad_models), TEST(test_hostile_scene_graphs),
              TEST(test_bad_rotation), TEST(test_message_is_one_line))
