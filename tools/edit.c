/* vxr edit: a script of voxel edits applied to a scene through the editor
 * (vxr/edit.h), then saved by OUT's extension (DESIGN.md §5).
 *
 * The whole script is read and checked against the scene before anything is
 * applied, so that a bad line names itself and OUT is never written. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "vxr/edit.h"

enum {
    MAX_FIELDS = 9, /* box: the operation and eight fields */
    SHOWN = 40      /* bytes of a bad field quoted in a message */
};
/* What one step may touch (the editor's own limit, checked up front for
 * every operation) and the cells the editor reaches, -2^20 .. 2^20 - 1. */
#define MAX_STEP_CELLS (1ull << 27)
#define CELL_LIMIT     ((int64_t)1 << (VXR_MAX_DEPTH - 1))

typedef enum op_kind { OP_EDIT, OP_UNDO, OP_REDO } op_kind;

/* One line of the script that does something. */
typedef struct op {
    op_kind kind;
    size_t line;
    vxr_edit edit;
    int32_t cell[1][3]; /* the cell of set, clear and paint */
} op;

typedef struct script {
    op *ops;
    size_t n, cap;
} script;

/* The operations: name, the fields after it, and where VALUE is (0: none). */
typedef struct op_syntax {
    const char *name, *fields;
    int count, value;
} op_syntax;

static const op_syntax syntaxes[] = {
    {"set", "MODEL X Y Z VALUE", 5, 5},
    {"clear", "MODEL X Y Z", 4, 0},
    {"paint", "MODEL X Y Z VALUE", 5, 5},
    {"box", "MODEL X0 Y0 Z0 X1 Y1 Z1 VALUE|clear", 8, 8},
    {"sphere", "MODEL CX CY CZ R VALUE|clear", 6, 6},
    {"undo", "", 0, 0},
    {"redo", "", 0, 0},
};
enum { SYNTAXES = sizeof syntaxes / sizeof syntaxes[0] };

/* ---- parsing one line ---- */

typedef struct parser {
    const char *path; /* the ops file, for messages */
    size_t line;
    const vxr_scene *scene;
} parser;

static int bad_line(const parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad_line(const parser *p, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "vxr: %s:%zu: ", p->path, p->line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return EXIT_INPUT;
}

/* A field as a message quotes it: printable, at most SHOWN bytes. */
static const char *shown(const char *field) {
    static char buf[SHOWN + 4];
    size_t n = 0;
    for (; field[n] && n < SHOWN; n++) buf[n] = isprint((unsigned char)field[n]) ? field[n] : '?';
    if (field[n]) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = 0;
    return buf;
}

static bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* The index of the VALUE field of operation `name` (-1: none). */
static int value_field(const char *name) {
    for (int k = 0; k < SYNTAXES; k++)
        if (!strcmp(name, syntaxes[k].name)) return syntaxes[k].value ? syntaxes[k].value : -1;
    return -1;
}

/* Splits a line (NUL-terminated, changed in place) into at most
 * MAX_FIELDS + 1 fields and returns their number. A '#' starts a comment,
 * except where it starts the VALUE field: "#RRGGBB" is a colour. */
static int split(char *s, char **fields) {
    int n = 0, value = -1;
    for (;;) {
        while (is_space(*s)) s++;
        if (!*s || n == MAX_FIELDS + 1) return n;
        if (*s == '#' && !(n == value && s[1] && !is_space(s[1]) && s[1] != '#')) return n;
        fields[n] = s++;
        while (*s && !is_space(*s) && *s != '#') s++;
        bool last = *s == 0 || *s == '#'; /* the end, or a comment right after */
        *s = 0;
        if (n++ == 0) value = value_field(fields[0]);
        if (last) return n;
        s++;
    }
}

/* A whole decimal integer within [lo, hi] into *v; false else, *is_int
 * telling a number out of range from something else. */
static bool parse_int(const char *s, int64_t lo, int64_t hi, int64_t *v, bool *is_int) {
    const char *p = s;
    bool neg = *p == '-';
    if (*p == '-' || *p == '+') p++;
    *is_int = *p != 0;
    int64_t x = 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9') {
            *is_int = false;
            return false;
        }
        if (x < ((int64_t)1 << 40)) x = x * 10 + (*p - '0');
    }
    if (!*is_int) return false;
    x = neg ? -x : x;
    if (x < lo || x > hi) return false;
    *v = x;
    return true;
}

static int parse_coord(const parser *p, const char *s, int64_t lo, int64_t hi, int32_t *dest) {
    int64_t v;
    bool is_int;
    if (parse_int(s, lo, hi, &v, &is_int)) {
        *dest = (int32_t)v;
        return EXIT_OK;
    }
    if (!is_int) return bad_line(p, "coordinate '%s' is not an integer", shown(s));
    return bad_line(p, "coordinate %s beyond the cells the editor reaches (%lld..%lld)", shown(s),
                    (long long)lo, (long long)hi);
}

static int parse_real(const parser *p, const char *s, const char *what, double *dest) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v))
        return bad_line(p, "%s '%s' is not a finite number", what, shown(s));
    *dest = v;
    return EXIT_OK;
}

static int parse_model(const parser *p, const char *s, uint32_t *dest) {
    int64_t v;
    bool is_int;
    const vxr_scene *sc = p->scene;
    if (!parse_int(s, 0, INT64_MAX, &v, &is_int) || v >= sc->model_count ||
        sc->models[v].attr_size == 0) {
        if (!is_int) return bad_line(p, "model '%s' is not an index", shown(s));
        if (!sc->model_count) return bad_line(p, "model %s: the scene has no models", shown(s));
        return bad_line(p, "model %s is not in the scene (models 0..%u)", shown(s),
                        sc->model_count - 1);
    }
    *dest = (uint32_t)v;
    return EXIT_OK;
}

static int hex(char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* VALUE (or, where clear_ok, "clear") into the edit's op and value. */
static int parse_value(const parser *p, const char *s, bool clear_ok, vxr_edit *ed) {
    if (clear_ok && !strcmp(s, "clear")) {
        ed->op = VXR_EDIT_CLEAR;
        return EXIT_OK;
    }
    if (s[0] == '#') {
        uint32_t rgb = 0;
        bool ok = strlen(s) == 7;
        for (int k = 1; ok && k < 7; k++) {
            ok = hex(s[k]) >= 0;
            rgb = rgb << 4 | (uint32_t)(ok ? hex(s[k]) : 0);
        }
        if (!ok) return bad_line(p, "colour '%s' (expected #RRGGBB)", shown(s));
        ed->value = vxr_scene_color_value(p->scene, vxr_rgba(rgb >> 16, rgb >> 8, rgb, 255));
        return EXIT_OK;
    }
    int64_t v;
    bool is_int;
    const char *alt = clear_ok ? ", #RRGGBB or clear" : " or #RRGGBB";
    if (!parse_int(s, 1, 255, &v, &is_int)) {
        if (!is_int)
            return bad_line(p, "value '%s' (expected a palette index 1..255%s)", shown(s), alt);
        return bad_line(p, "palette index %s (expected 1..255%s)", shown(s), alt);
    }
    if (p->scene->attr_size != 1)
        return bad_line(p, "palette index %s in an RGBA scene, which has no palette (use #RRGGBB)",
                        shown(s));
    ed->value = (uint32_t)v;
    return EXIT_OK;
}

static int parse_cell(const parser *p, char **f, op *o) {
    for (int k = 0; k < 3; k++) {
        int status = parse_coord(p, f[k], -CELL_LIMIT, CELL_LIMIT - 1, &o->cell[0][k]);
        if (status != EXIT_OK) return status;
    }
    o->edit.shape = VXR_SHAPE_CELLS;
    o->edit.count = 1;
    return EXIT_OK;
}

static int parse_box(const parser *p, char **f, op *o) {
    vxr_edit *ed = &o->edit;
    for (int k = 0; k < 6; k++) {
        int32_t *dest = k < 3 ? &ed->lo[k] : &ed->hi[k - 3];
        int status = parse_coord(p, f[k], -CELL_LIMIT, CELL_LIMIT, dest);
        if (status != EXIT_OK) return status;
    }
    uint64_t cells = 1;
    for (int k = 0; k < 3; k++) {
        uint64_t side = ed->hi[k] > ed->lo[k] ? (uint64_t)((int64_t)ed->hi[k] - ed->lo[k]) : 0;
        cells = cells * side > MAX_STEP_CELLS ? MAX_STEP_CELLS + 1 : cells * side;
    }
    if (cells > MAX_STEP_CELLS)
        return bad_line(p, "box of more than 2^27 cells (the most one step may name)");
    ed->shape = VXR_SHAPE_BOX;
    return EXIT_OK;
}

static int parse_sphere(const parser *p, char **f, op *o) {
    vxr_edit *ed = &o->edit;
    static const char *const what[4] = {"CX", "CY", "CZ", "R"};
    for (int k = 0; k < 4; k++) {
        int status = parse_real(p, f[k], what[k], k < 3 ? &ed->centre[k] : &ed->radius);
        if (status != EXIT_OK) return status;
    }
    if (ed->radius < 0) return bad_line(p, "radius %s is negative", shown(f[3]));
    /* The cells the editor visits: the same bounding box it takes. */
    double cells = 1;
    for (int k = 0; k < 3; k++) {
        double lo = floor(ed->centre[k] - ed->radius - 0.5),
               hi = ceil(ed->centre[k] + ed->radius + 0.5);
        if (lo < (double)-CELL_LIMIT || hi > (double)CELL_LIMIT)
            return bad_line(p, "sphere reaches beyond the cells the editor reaches (%lld..%lld)",
                            (long long)-CELL_LIMIT, (long long)CELL_LIMIT - 1);
        cells *= hi - lo;
    }
    if (cells > (double)MAX_STEP_CELLS)
        return bad_line(p,
                        "sphere of radius %s spans more than 2^27 cells (the most one step "
                        "may name)",
                        shown(f[3]));
    ed->shape = VXR_SHAPE_SPHERE;
    return EXIT_OK;
}

/* One line (NUL-terminated, changed in place) into *o; *empty when it
 * holds nothing but blanks and comments. */
static int parse_line(const parser *p, char *line, op *o, bool *empty) {
    char *f[MAX_FIELDS + 1];
    int n = split(line, f);
    *empty = n == 0;
    if (n == 0) return EXIT_OK;
    const op_syntax *syn = NULL;
    for (int k = 0; k < SYNTAXES; k++)
        if (!strcmp(f[0], syntaxes[k].name)) syn = &syntaxes[k];
    if (!syn)
        return bad_line(p,
                        "unknown operation '%s' (expected set, clear, paint, box, sphere, undo "
                        "or redo)",
                        shown(f[0]));
    if (n - 1 > syn->count)
        return bad_line(p, "unexpected '%s' after %s%s%s", shown(f[syn->count + 1]), syn->name,
                        syn->count ? " " : "", syn->fields);
    if (n - 1 < syn->count)
        return bad_line(p, "%s takes %d fields (%s), got %d", syn->name, syn->count, syn->fields,
                        n - 1);
    memset(o, 0, sizeof *o);
    o->line = p->line;
    if (syn->count == 0) {
        o->kind = syn->name[0] == 'u' ? OP_UNDO : OP_REDO;
        return EXIT_OK;
    }
    o->kind = OP_EDIT;
    vxr_edit *ed = &o->edit;
    ed->op = !strcmp(syn->name, "clear")   ? VXR_EDIT_CLEAR
             : !strcmp(syn->name, "paint") ? VXR_EDIT_PAINT
                                           : VXR_EDIT_SET;
    int status = parse_model(p, f[1], &ed->model);
    if (status == EXIT_OK && syn->value)
        status = parse_value(p, f[syn->value], syn->count > 5, ed); /* box, sphere */
    if (status != EXIT_OK) return status;
    if (!strcmp(syn->name, "box")) return parse_box(p, f + 2, o);
    if (!strcmp(syn->name, "sphere")) return parse_sphere(p, f + 2, o);
    return parse_cell(p, f + 2, o);
}

/* ---- the script ---- */

static bool push(script *s, const op *o) {
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        op *ops = realloc(s->ops, cap * sizeof *ops);
        if (!ops) return false;
        s->ops = ops;
        s->cap = cap;
    }
    s->ops[s->n++] = *o;
    return true;
}

/* Reads and checks every line of the ops file (cli_lines: any length). */
static int read_script(const char *path, const vxr_scene *scene, script *dest) {
    cli_lines in;
    int status = cli_lines_open(&in, path);
    if (status != EXIT_OK) return status;
    parser p = {path, 0, scene};
    int got;
    while (status == EXIT_OK && (got = cli_lines_next(&in)) != 0) {
        if (got < 0) {
            status = in.status;
            break;
        }
        p.line = in.line_no;
        op o;
        bool empty;
        status = parse_line(&p, in.line, &o, &empty);
        if (status == EXIT_OK && !empty && !push(dest, &o))
            status = cli_fail(path, VXR_ERROR_MEMORY, NULL);
    }
    cli_lines_close(&in);
    return status;
}

/* ---- applying ---- */

/* What the script did. changed counts every voxel change: a step's, and
 * again those an undo or a redo makes. */
typedef struct tally {
    uint64_t steps, undone, redone, changed;
    /* the changes of each step that can be undone, and redone */
    uint64_t *done, *undo_stack;
    size_t n_done, n_undone;
} tally;

static int apply(const char *path, vxr_editor *e, script *s, tally *t) {
    t->done = malloc((s->n ? s->n : 1) * sizeof *t->done);
    t->undo_stack = malloc((s->n ? s->n : 1) * sizeof *t->undo_stack);
    if (!t->done || !t->undo_stack) return cli_fail(path, VXR_ERROR_MEMORY, NULL);
    for (size_t i = 0; i < s->n; i++) {
        op *o = &s->ops[i];
        parser p = {path, o->line, NULL};
        vxr_error err = {{0}};
        vxr_result r;
        bool done = false;
        if (o->kind == OP_EDIT) {
            vxr_edit_result res;
            o->edit.cells = (const int32_t(*)[3])o->cell;
            r = vxr_editor_apply(e, &o->edit, &res, &err);
            t->steps++;
            t->changed += res.changed;
            t->done[t->n_done++] = res.changed;
            t->n_undone = 0;
        } else if (o->kind == OP_UNDO) {
            r = vxr_editor_undo(e, &done, &err);
            if (r == VXR_OK && done) {
                t->undone++;
                t->changed += t->done[--t->n_done];
                t->undo_stack[t->n_undone++] = t->done[t->n_done];
            }
        } else {
            r = vxr_editor_redo(e, &done, &err);
            if (r == VXR_OK && done) {
                t->redone++;
                t->changed += t->undo_stack[--t->n_undone];
                t->done[t->n_done++] = t->undo_stack[t->n_undone];
            }
        }
        if (r != VXR_OK)
            return bad_line(&p, "%s", err.message[0] ? err.message : vxr_result_string(r));
    }
    return EXIT_OK;
}

static void report(const char *scene_path, const char *out_path, const vxr_scene *scene,
                   const tally *t, size_t bytes, double seconds, bool json) {
    uint64_t voxels = 0;
    for (uint32_t m = 0; m < scene->model_count; m++) voxels += scene->models[m].voxel_count;
    if (json) {
        printf("{\"steps\":%llu,\"undone\":%llu,\"redone\":%llu,\"changed\":%llu,\"models\":%u,"
               "\"voxels\":%llu,\"out\":\"",
               (unsigned long long)t->steps, (unsigned long long)t->undone,
               (unsigned long long)t->redone, (unsigned long long)t->changed, scene->model_count,
               (unsigned long long)voxels);
        cli_print_json_string(stdout, out_path);
        printf("\",\"bytes\":%zu,\"seconds\":%.6f}\n", bytes, seconds);
        return;
    }
    printf("%s: %llu steps (%llu undone, %llu redone), %llu voxel changes in %.3f ms\n", scene_path,
           (unsigned long long)t->steps, (unsigned long long)t->undone,
           (unsigned long long)t->redone, (unsigned long long)t->changed, seconds * 1e3);
    printf("wrote %s: %u models, %llu voxels, %zu bytes\n", out_path, scene->model_count,
           (unsigned long long)voxels, bytes);
}

int cmd_edit(int argc, char **argv) {
    const char *path = NULL, *ops_path = NULL, *out_path = NULL;
    bool json = false;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (!strcmp(argv[i], "--ops") && i + 1 < argc) {
            ops_path = argv[++i];
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            out_path = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage("edit: unknown or incomplete option '%s'", argv[i]);
        } else if (!path) {
            path = argv[i];
        } else {
            return cli_usage("edit: more than one SCENE");
        }
    }
    if (!path || !ops_path || !out_path)
        return cli_usage("edit: expected SCENE --ops FILE --out OUT");
    const vxr_format *format = vxr_format_for_output(out_path);
    if (!format) {
        char list[128];
        vxr_format_output_list(list, sizeof list);
        return cli_usage("edit: OUT must end in %s ('%s')", list, out_path);
    }
    vxr_scene *scene;
    vxr_error err = {{0}};
    vxr_result r = vxr_scene_load(path, &scene, &err);
    if (r != VXR_OK) return cli_fail(path, r, &err);
    script s = {0};
    tally t = {0};
    vxr_editor *editor = NULL;
    size_t size = 0;
    double seconds = 0;
    int status = read_script(ops_path, scene, &s);
    if (status == EXIT_OK) {
        r = vxr_editor_create(scene, 0, &editor, &err);
        if (r != VXR_OK) status = cli_fail(path, r, &err);
    }
    if (status == EXIT_OK) {
        double t0 = cli_now();
        status = apply(ops_path, editor, &s, &t);
        seconds = cli_now() - t0;
    }
    if (status == EXIT_OK) {
        r = cli_save_scene(out_path, format, scene, &size, &err);
        /* A scene .vox or .vl32 cannot hold is bad input, not a usage error. */
        if (r != VXR_OK)
            status = cli_fail(out_path, r == VXR_ERROR_ARGUMENT ? VXR_ERROR_LIMIT : r, &err);
    }
    if (status == EXIT_OK) report(path, out_path, scene, &t, size, seconds, json);
    free(t.done);
    free(t.undo_stack);
    free(s.ops);
    vxr_editor_destroy(editor);
    vxr_scene_destroy(scene);
    return status;
}
