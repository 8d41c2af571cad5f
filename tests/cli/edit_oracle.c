/* The expectation of `vxr edit`, computed without the editor.
 *
 *   edit_oracle SCENE OPS OUT...   applies OPS to SCENE's voxels with plain
 *       per-model hash maps (undo and redo by whole copies of the model)
 *       and checks each OUT that `vxr edit SCENE --ops OPS --out OUT`
 *       wrote: a .vxo holds exactly those voxels, model by model, with the
 *       same instances; a .vox or .vl32 holds the same visible world voxels
 *       (world cell and colour, as a multiset: the sorted records of
 *       vxr_save_vl32 of the expected scene against those of the file).
 *   edit_oracle --same A B         A and B hold the same visible world voxels.
 *   edit_oracle --rgba-vl32 OUT    writes a .vl32 of 16 x 16 x 2 voxels in 512
 *       distinct colours (an RGBA8 scene: more than a palette holds).
 *
 * It trusts OPS to be well formed (the hostile scripts have tests of their
 * own): one operation a line, '#' followed by six hex digits is a colour,
 * any other field starting with '#' starts a comment. Exit status 0 when
 * every check holds, 1 with a line per difference otherwise. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vxr/formats.h"

/* ---- a model: cell -> value, open addressing ---- */

typedef struct entry {
    int32_t x, y, z;
    uint32_t value; /* palette index or RGBA8 */
    bool used;
} entry;

typedef struct model {
    entry *slot;
    size_t cap, n;
} model;

static void *must(void *p) {
    if (!p) {
        fputs("edit_oracle: out of memory\n", stderr);
        exit(2);
    }
    return p;
}

static size_t slot_of(const model *m, int32_t x, int32_t y, int32_t z) {
    uint64_t h = (uint64_t)(uint32_t)x * 0x9e3779b97f4a7c15ull ^
                 (uint64_t)(uint32_t)y * 0xc2b2ae3d27d4eb4full ^
                 (uint64_t)(uint32_t)z * 0x165667b19e3779f9ull;
    size_t i = (size_t)(h ^ h >> 29) & (m->cap - 1);
    while (m->slot[i].used && (m->slot[i].x != x || m->slot[i].y != y || m->slot[i].z != z))
        i = (i + 1) & (m->cap - 1);
    return i;
}

static void put_voxel(model *m, int32_t x, int32_t y, int32_t z, uint32_t v);

static void rehash(model *m, size_t cap) {
    model n = {must(calloc(cap, sizeof *n.slot)), cap, 0};
    for (size_t i = 0; i < m->cap; i++)
        if (m->slot[i].used)
            put_voxel(&n, m->slot[i].x, m->slot[i].y, m->slot[i].z, m->slot[i].value);
    free(m->slot);
    *m = n;
}

static void put_voxel(model *m, int32_t x, int32_t y, int32_t z, uint32_t v) {
    if (2 * (m->n + 1) > m->cap) rehash(m, m->cap ? 2 * m->cap : 64);
    size_t i = slot_of(m, x, y, z);
    if (!m->slot[i].used) m->n++;
    m->slot[i] = (entry){x, y, z, v, true};
}

static void clear_voxel(model *m, int32_t x, int32_t y, int32_t z) {
    if (!m->cap) return;
    size_t i = slot_of(m, x, y, z);
    if (!m->slot[i].used) return;
    m->slot[i].used = false;
    m->n--;
    /* the rest of the run goes in again */
    for (size_t j = (i + 1) & (m->cap - 1); m->slot[j].used; j = (j + 1) & (m->cap - 1)) {
        entry e = m->slot[j];
        m->slot[j].used = false;
        m->n--;
        put_voxel(m, e.x, e.y, e.z, e.value);
    }
}

static bool has_voxel(const model *m, int32_t x, int32_t y, int32_t z) {
    return m->cap && m->slot[slot_of(m, x, y, z)].used;
}

static model copy_model(const model *m) {
    model c = {must(calloc(m->cap ? m->cap : 1, sizeof *c.slot)), m->cap, m->n};
    if (m->cap) memcpy(c.slot, m->slot, m->cap * sizeof *c.slot);
    return c;
}

static void load_voxel(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    put_voxel(user, x, y, z, attr);
}

static int cmp_voxel(const void *a, const void *b) {
    const vxr_voxel *p = a, *q = b;
    if (p->x != q->x) return p->x < q->x ? -1 : 1;
    if (p->y != q->y) return p->y < q->y ? -1 : 1;
    if (p->z != q->z) return p->z < q->z ? -1 : 1;
    return (p->color > q->color) - (p->color < q->color);
}

/* The voxels of m, sorted by cell. */
static vxr_voxel *sorted(const model *m) {
    vxr_voxel *v = must(malloc((m->n ? m->n : 1) * sizeof *v));
    size_t k = 0;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slot[i].used)
            v[k++] = (vxr_voxel){m->slot[i].x, m->slot[i].y, m->slot[i].z, m->slot[i].value};
    qsort(v, k, sizeof *v, cmp_voxel);
    return v;
}

/* ---- the script ---- */

typedef struct step {
    uint32_t model;
    model before, after;
} step;

typedef struct state {
    const vxr_scene *scene;
    model *models;
    step *steps;
    size_t done, total, cap;
} state;

static uint32_t nearest(const vxr_scene *s, uint32_t r, uint32_t g, uint32_t b) {
    if (s->attr_size == 4) return r | g << 8 | b << 16 | 0xff000000u;
    uint32_t best = 1;
    long best_d = -1;
    for (uint32_t i = 1; i < 256; i++) {
        long dr = (long)r - (long)(s->palette[i] & 255),
             dg = (long)g - (long)(s->palette[i] >> 8 & 255),
             db = (long)b - (long)(s->palette[i] >> 16 & 255);
        long d = dr * dr + dg * dg + db * db;
        if (best_d < 0 || d < best_d) best = i, best_d = d;
    }
    return best;
}

/* VALUE into *v; false for "clear". */
static bool value_of(const vxr_scene *s, const char *f, uint32_t *v) {
    if (!strcmp(f, "clear")) return false;
    if (f[0] == '#') {
        unsigned long rgb = strtoul(f + 1, NULL, 16);
        *v = nearest(s, rgb >> 16 & 255, rgb >> 8 & 255, rgb & 255);
    } else {
        *v = (uint32_t)strtoul(f, NULL, 10);
    }
    return true;
}

/* op: 's'et, 'c'lear, 'p'aint. */
static void edit_cell(model *m, char op, int64_t x, int64_t y, int64_t z, uint32_t v) {
    if (op == 'c')
        clear_voxel(m, (int32_t)x, (int32_t)y, (int32_t)z);
    else if (op == 's' || has_voxel(m, (int32_t)x, (int32_t)y, (int32_t)z))
        put_voxel(m, (int32_t)x, (int32_t)y, (int32_t)z, v);
}

static void run_step(state *st, char **f, int n) {
    uint32_t mi = (uint32_t)atoi(f[1]);
    model *m = &st->models[mi];
    if (st->done == st->cap) {
        st->cap = st->cap ? 2 * st->cap : 64;
        st->steps = must(realloc(st->steps, st->cap * sizeof *st->steps));
    }
    for (size_t k = st->done; k < st->total; k++) {
        free(st->steps[k].before.slot);
        free(st->steps[k].after.slot);
    }
    step *sp = &st->steps[st->done++];
    st->total = st->done;
    sp->model = mi;
    sp->before = copy_model(m);
    const char *op = f[0];
    uint32_t v = 0;
    if (!strcmp(op, "set") || !strcmp(op, "paint") || !strcmp(op, "clear")) {
        if (op[0] != 'c') value_of(st->scene, f[5], &v);
        edit_cell(m, op[0], atoll(f[2]), atoll(f[3]), atoll(f[4]), v);
    } else if (!strcmp(op, "box")) {
        char how = value_of(st->scene, f[8], &v) ? 's' : 'c';
        for (int64_t x = atoll(f[2]); x < atoll(f[5]); x++)
            for (int64_t y = atoll(f[3]); y < atoll(f[6]); y++)
                for (int64_t z = atoll(f[4]); z < atoll(f[7]); z++) edit_cell(m, how, x, y, z, v);
    } else if (!strcmp(op, "sphere")) {
        double c[3] = {atof(f[2]), atof(f[3]), atof(f[4])}, r = atof(f[5]);
        char how = value_of(st->scene, f[6], &v) ? 's' : 'c';
        for (int64_t x = (int64_t)floor(c[0] - r - 1); x <= (int64_t)ceil(c[0] + r + 1); x++)
            for (int64_t y = (int64_t)floor(c[1] - r - 1); y <= (int64_t)ceil(c[1] + r + 1); y++)
                for (int64_t z = (int64_t)floor(c[2] - r - 1); z <= (int64_t)ceil(c[2] + r + 1);
                     z++) {
                    double dx = (double)x + 0.5 - c[0], dy = (double)y + 0.5 - c[1],
                           dz = (double)z + 0.5 - c[2];
                    if (dx * dx + dy * dy + dz * dz <= r * r) edit_cell(m, how, x, y, z, v);
                }
    }
    (void)n;
    sp->after = copy_model(m);
}

static void restore(state *st, const step *sp, bool after) {
    model *m = &st->models[sp->model];
    free(m->slot);
    *m = copy_model(after ? &sp->after : &sp->before);
}

static void run_script(state *st, const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "edit_oracle: cannot open %s\n", path);
        exit(2);
    }
    char line[8192];
    while (fgets(line, sizeof line, f)) {
        char *fields[16];
        int n = 0;
        for (char *t = strtok(line, " \t\r\n"); t && n < 16; t = strtok(NULL, " \t\r\n")) {
            bool colour = t[0] == '#' && strlen(t) >= 7 && (!t[7] || t[7] == '#');
            for (int k = 1; colour && k < 7; k++) colour = isxdigit((unsigned char)t[k]);
            if (t[0] == '#' && !colour) break;
            fields[n++] = t;
            if (colour && t[7]) {
                t[7] = 0; /* "#RRGGBB#comment" */
                break;
            }
        }
        if (n == 0) continue;
        if (!strcmp(fields[0], "undo")) {
            if (st->done) restore(st, &st->steps[--st->done], false);
        } else if (!strcmp(fields[0], "redo")) {
            if (st->done < st->total) restore(st, &st->steps[st->done++], true);
        } else {
            run_step(st, fields, n);
        }
    }
    fclose(f);
}

/* ---- checks ---- */

static int cmp_record(const void *a, const void *b) {
    return memcmp(a, b, 16);
}

/* The sorted .vl32 records of a scene's visible world voxels. */
static uint8_t *records(const vxr_scene *s, size_t *size) {
    uint8_t *d;
    vxr_error err = {{0}};
    if (vxr_save_vl32(s, &d, size, &err) != VXR_OK) {
        fprintf(stderr, "edit_oracle: world voxels: %s\n", err.message);
        exit(2);
    }
    if (*size) qsort(d, *size / 16, 16, cmp_record);
    return d;
}

static int same_records(const char *what, const uint8_t *want, size_t nw, uint8_t *got, size_t ng) {
    if (ng > 1) qsort(got, ng / 16, 16, cmp_record);
    if (nw == ng && (nw == 0 || !memcmp(want, got, nw))) return 0;
    fprintf(stderr, "edit_oracle: %s: %zu world voxel records, expected %zu%s\n", what, ng / 16,
            nw / 16, nw == ng ? " (different cells or colours)" : "");
    return 1;
}

static vxr_scene *load(const char *path) {
    vxr_scene *s;
    vxr_error err = {{0}};
    if (vxr_scene_load(path, &s, &err) != VXR_OK) {
        fprintf(stderr, "edit_oracle: %s: %s\n", path, err.message);
        exit(2);
    }
    return s;
}

/* The scene as the oracle has it: its voxels, the original instances. */
static vxr_scene *expected_scene(const state *st) {
    const vxr_scene *s = st->scene;
    vxr_scene_src src;
    vxr_scene_src_init(&src, s->attr_size);
    memcpy(src.palette, s->palette, sizeof src.palette);
    for (uint32_t i = 0; i < s->model_count; i++) {
        uint32_t id;
        must(vxr_scene_src_add_model(&src, &id) == VXR_OK ? &src : NULL);
        const model *m = &st->models[i];
        for (size_t k = 0; k < m->cap; k++)
            if (m->slot[k].used)
                vxr_model_src_push(&src.models[id], m->slot[k].x, m->slot[k].y, m->slot[k].z,
                                   m->slot[k].value);
    }
    for (uint32_t i = 0; i < s->instance_count; i++)
        vxr_scene_src_add_instance(&src, &s->instances[i]);
    vxr_scene *e;
    vxr_error err = {{0}};
    if (vxr_scene_build(&src, &e, &err) != VXR_OK) {
        fprintf(stderr, "edit_oracle: expected scene: %s\n", err.message);
        exit(2);
    }
    vxr_scene_src_free(&src);
    return e;
}

static int check_vxo(const state *st, const char *path) {
    vxr_scene *got = load(path);
    int bad = 0;
    const vxr_scene *s = st->scene;
    if (got->model_count != s->model_count || got->instance_count != s->instance_count ||
        memcmp(got->instances, s->instances, s->instance_count * sizeof *s->instances)) {
        fprintf(stderr, "edit_oracle: %s: models or instances differ from the scene's\n", path);
        bad = 1;
    }
    for (uint32_t i = 0; !bad && i < s->model_count; i++) {
        model m = {0};
        vxr_octree_foreach(&got->models[i], load_voxel, &m);
        vxr_voxel *a = sorted(&st->models[i]), *b = sorted(&m);
        if (m.n != st->models[i].n || memcmp(a, b, m.n * sizeof *a)) {
            fprintf(stderr, "edit_oracle: %s: model %u holds %zu voxels, expected %zu%s\n", path, i,
                    m.n, st->models[i].n, m.n == st->models[i].n ? " (others)" : "");
            bad = 1;
        }
        free(a);
        free(b);
        free(m.slot);
    }
    vxr_scene_destroy(got);
    return bad;
}

static bool ends_with(const char *s, const char *ext) {
    size_t a = strlen(s), b = strlen(ext);
    return a >= b && !strcmp(s + a - b, ext);
}

/* A .vl32 file's records as they are (a scene loaded from it would keep
 * one voxel a cell), else the records of the scene a file holds. */
static int check_records(const uint8_t *want, size_t nw, const char *path) {
    uint8_t *got;
    size_t ng;
    if (ends_with(path, ".vl32")) {
        if (vxr_read_file(path, &got, &ng, NULL) != VXR_OK) {
            fprintf(stderr, "edit_oracle: cannot read %s\n", path);
            return 1;
        }
    } else {
        vxr_scene *s = load(path);
        got = records(s, &ng);
        vxr_scene_destroy(s);
    }
    int bad = same_records(path, want, nw, got, ng);
    free(got);
    return bad;
}

static int check_out(const state *st, const uint8_t *want, size_t nw, const char *path) {
    return ends_with(path, ".vxo") ? check_vxo(st, path) : check_records(want, nw, path);
}

static int write_rgba(const char *path) {
    uint8_t rec[512 * 16];
    for (uint32_t i = 0; i < 512; i++) {
        const uint32_t w[4] = {i % 16, i / 16 % 16, i / 256,
                               0xff000000u | (i * 0x9e3779u & 0xffffffu)};
        for (int k = 0; k < 16; k++)
            rec[16 * i + (uint32_t)k] = (uint8_t)(w[k / 4] >> (24 - 8 * (k % 4)));
    }
    vxr_error err = {{0}};
    if (vxr_write_file(path, rec, sizeof rec, &err) == VXR_OK) return 0;
    fprintf(stderr, "edit_oracle: %s: %s\n", path, err.message);
    return 2;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "--rgba-vl32")) return write_rgba(argv[2]);
    if (argc == 4 && !strcmp(argv[1], "--same")) {
        vxr_scene *a = load(argv[2]);
        size_t na;
        uint8_t *ra = records(a, &na);
        int bad = check_records(ra, na, argv[3]);
        free(ra);
        vxr_scene_destroy(a);
        return bad;
    }
    if (argc < 4) {
        fputs("usage: edit_oracle SCENE OPS OUT... | edit_oracle --same A B\n", stderr);
        return 2;
    }
    vxr_scene *scene = load(argv[1]);
    state st = {scene, must(calloc(scene->model_count + 1, sizeof *st.models)), NULL, 0, 0, 0};
    for (uint32_t i = 0; i < scene->model_count; i++)
        vxr_octree_foreach(&scene->models[i], load_voxel, &st.models[i]);
    run_script(&st, argv[2]);
    vxr_scene *e = expected_scene(&st);
    size_t nw;
    uint8_t *want = records(e, &nw);
    int bad = 0;
    for (int i = 3; i < argc; i++) bad |= check_out(&st, want, nw, argv[i]);
    if (!bad)
        printf("edit_oracle: %d outputs hold the %zu expected world voxels\n", argc - 3, nw / 16);
    free(want);
    vxr_scene_destroy(e);
    for (size_t k = 0; k < st.total; k++) {
        free(st.steps[k].before.slot);
        free(st.steps[k].after.slot);
    }
    free(st.steps);
    for (uint32_t i = 0; i < scene->model_count; i++) free(st.models[i].slot);
    free(st.models);
    vxr_scene_destroy(scene);
    return bad;
}
