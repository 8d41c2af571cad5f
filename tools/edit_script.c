/* The script of `vxr edit --ops FILE`: reading and checking it against a
 * scene (tools/edit_script.h). Every message names the file and the line. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "edit_script.h"

enum { MAX_FIELDS = 9 /* box: the operation and eight fields */ };
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

static int parse_coord(const parser *p, const char *s, int64_t lo, int64_t hi, int32_t *dest) {
    int64_t v;
    cli_number got = cli_parse_int(s, lo, hi, &v);
    if (got == CLI_NUMBER_OK) {
        *dest = (int32_t)v;
        return EXIT_OK;
    }
    if (got == CLI_NUMBER_SYNTAX)
        return bad_line(p, "coordinate '%s' is not an integer", CLI_SHOWN(s));
    return bad_line(p, "coordinate %s beyond the cells the editor reaches (%lld..%lld)",
                    CLI_SHOWN(s), (long long)lo, (long long)hi);
}

static int parse_real(const parser *p, const char *s, const char *what, double *dest) {
    if (cli_parse_double(s, dest) != CLI_NUMBER_OK)
        return bad_line(p, "%s '%s' is not a finite number", what, CLI_SHOWN(s));
    return EXIT_OK;
}

static int parse_model(const parser *p, const char *s, uint32_t *dest) {
    uint64_t v;
    const vxr_scene *sc = p->scene;
    cli_number got = cli_parse_uint(s, 0, UINT64_MAX, &v);
    if (got != CLI_NUMBER_OK || v >= sc->model_count || sc->models[v].attr_size == 0) {
        if (got == CLI_NUMBER_SYNTAX)
            return bad_line(p, "model '%s' is not an index", CLI_SHOWN(s));
        if (!sc->model_count) return bad_line(p, "model %s: the scene has no models", CLI_SHOWN(s));
        return bad_line(p, "model %s is not in the scene (models 0..%u)", CLI_SHOWN(s),
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
        if (!ok) return bad_line(p, "colour '%s' (expected #RRGGBB)", CLI_SHOWN(s));
        ed->value = vxr_scene_color_value(p->scene, vxr_rgba(rgb >> 16, rgb >> 8, rgb, 255));
        return EXIT_OK;
    }
    int64_t v;
    const char *alt = clear_ok ? ", #RRGGBB or clear" : " or #RRGGBB";
    cli_number got = cli_parse_int(s, 1, 255, &v);
    if (got != CLI_NUMBER_OK) {
        if (got == CLI_NUMBER_SYNTAX)
            return bad_line(p, "value '%s' (expected a palette index 1..255%s)", CLI_SHOWN(s), alt);
        return bad_line(p, "palette index %s (expected 1..255%s)", CLI_SHOWN(s), alt);
    }
    if (p->scene->attr_size != 1)
        return bad_line(p, "palette index %s in an RGBA scene, which has no palette (use #RRGGBB)",
                        CLI_SHOWN(s));
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
    if (ed->radius < 0) return bad_line(p, "radius %s is negative", CLI_SHOWN(f[3]));
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
                        CLI_SHOWN(f[0]));
    if (n - 1 > syn->count)
        return bad_line(p, "unexpected '%s' after %s%s%s", CLI_SHOWN(f[syn->count + 1]), syn->name,
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
    status = !strcmp(syn->name, "box")      ? parse_box(p, f + 2, o)
             : !strcmp(syn->name, "sphere") ? parse_sphere(p, f + 2, o)
                                            : parse_cell(p, f + 2, o);
    if (status != EXIT_OK) return status;
    if (ed->shape == VXR_SHAPE_CELLS) ed->cells = (const int32_t(*)[3])o->cell;
    /* the core's limits, one place for them (the cells a step may name) */
    vxr_error err = {{0}};
    if (vxr_edit_check(p->scene, ed, &o->cells, &err) != VXR_OK)
        return bad_line(p, "%s", err.message);
    return EXIT_OK;
}

/* ---- the script ---- */

int edit_script_open(edit_script *s, const char *path, const vxr_scene *scene) {
    s->scene = scene;
    return cli_lines_open(&s->in, path);
}

int edit_script_next(edit_script *s, edit_op *dest) {
    for (;;) {
        int got = cli_lines_next(&s->in);
        if (got <= 0) return got;
        parser p = {s->in.path, s->in.line_no, s->scene};
        bool empty;
        if (parse_line(&p, s->in.line, dest, &empty) != EXIT_OK) {
            s->in.status = EXIT_INPUT;
            return -1;
        }
        if (!empty) return 1;
    }
}

void edit_script_close(edit_script *s) {
    cli_lines_close(&s->in);
}
