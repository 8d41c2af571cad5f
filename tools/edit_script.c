/* The script of `vxr edit --ops FILE`: reading and checking it against a
 * scene (tools/edit_script.h). Every message names the file and the line. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "edit_script.h"

enum {
    MAX_FIELDS = 9, /* box: the operation and eight fields */
    SHOWN = 40      /* bytes of a bad field quoted in a message */
};
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

static int parse_cell(const parser *p, char **f, edit_op *o) {
    for (int k = 0; k < 3; k++) {
        int status = parse_coord(p, f[k], -EDIT_CELL_LIMIT, EDIT_CELL_LIMIT - 1, &o->cell[0][k]);
        if (status != EXIT_OK) return status;
    }
    o->edit.shape = VXR_SHAPE_CELLS;
    o->edit.count = 1;
    return EXIT_OK;
}

static int parse_box(const parser *p, char **f, edit_op *o) {
    vxr_edit *ed = &o->edit;
    for (int k = 0; k < 6; k++) {
        int32_t *dest = k < 3 ? &ed->lo[k] : &ed->hi[k - 3];
        int status = parse_coord(p, f[k], -EDIT_CELL_LIMIT, EDIT_CELL_LIMIT, dest);
        if (status != EXIT_OK) return status;
    }
    uint64_t cells = 1;
    for (int k = 0; k < 3; k++) {
        uint64_t side = ed->hi[k] > ed->lo[k] ? (uint64_t)((int64_t)ed->hi[k] - ed->lo[k]) : 0;
        cells = cells * side > EDIT_MAX_STEP_CELLS ? EDIT_MAX_STEP_CELLS + 1 : cells * side;
    }
    if (cells > EDIT_MAX_STEP_CELLS)
        return bad_line(p, "box of more than 2^27 cells (the most one step may name)");
    ed->shape = VXR_SHAPE_BOX;
    return EXIT_OK;
}

static int parse_sphere(const parser *p, char **f, edit_op *o) {
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
        if (lo < (double)-EDIT_CELL_LIMIT || hi > (double)EDIT_CELL_LIMIT)
            return bad_line(p, "sphere reaches beyond the cells the editor reaches (%lld..%lld)",
                            (long long)-EDIT_CELL_LIMIT, (long long)EDIT_CELL_LIMIT - 1);
        cells *= hi - lo;
    }
    if (cells > (double)EDIT_MAX_STEP_CELLS)
        return bad_line(p,
                        "sphere of radius %s spans more than 2^27 cells (the most one step "
                        "may name)",
                        shown(f[3]));
    ed->shape = VXR_SHAPE_SPHERE;
    return EXIT_OK;
}

/* One line (NUL-terminated, changed in place) into *o; *empty when it
 * holds nothing but blanks and comments. */
static int parse_line(const parser *p, char *line, edit_op *o, bool *empty) {
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
        o->kind = syn->name[0] == 'u' ? EDIT_OP_UNDO : EDIT_OP_REDO;
        return EXIT_OK;
    }
    o->kind = EDIT_OP_EDIT;
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

static bool push(edit_script *s, const edit_op *o) {
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        edit_op *ops = realloc(s->ops, cap * sizeof *ops);
        if (!ops) return false;
        s->ops = ops;
        s->cap = cap;
    }
    s->ops[s->n++] = *o;
    return true;
}

int edit_script_read(const char *path, const vxr_scene *scene, edit_script *dest) {
    memset(dest, 0, sizeof *dest);
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
        edit_op o;
        bool empty;
        status = parse_line(&p, in.line, &o, &empty);
        if (status == EXIT_OK && !empty && !push(dest, &o))
            status = cli_fail(path, VXR_ERROR_MEMORY, NULL);
    }
    cli_lines_close(&in);
    if (status != EXIT_OK) {
        edit_script_free(dest);
        return status;
    }
    /* The ops have stopped moving: cells edits point at their own cell. */
    for (size_t i = 0; i < dest->n; i++)
        if (dest->ops[i].kind == EDIT_OP_EDIT && dest->ops[i].edit.shape == VXR_SHAPE_CELLS)
            dest->ops[i].edit.cells = (const int32_t(*)[3])dest->ops[i].cell;
    return EXIT_OK;
}

void edit_script_free(edit_script *s) {
    free(s->ops);
    memset(s, 0, sizeof *s);
}
