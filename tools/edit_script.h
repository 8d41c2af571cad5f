/* The script of `vxr edit --ops FILE` (DESIGN.md §5), read and checked
 * against a scene a line at a time as it is applied (tools/edit_script.c):
 * one operation a line,
 *
 *   set MODEL X Y Z VALUE          clear MODEL X Y Z
 *   paint MODEL X Y Z VALUE
 *   box MODEL X0 Y0 Z0 X1 Y1 Z1 VALUE|clear
 *   sphere MODEL CX CY CZ R VALUE|clear
 *   undo                           redo
 *
 * with VALUE a palette index 1..255 or #RRGGBB; blanks and '#' comments
 * are skipped. tools/edit.c applies the result; tests/fuzz/fuzz_text.c
 * fuzzes the reader. */
#ifndef VXR_EDIT_SCRIPT_H
#define VXR_EDIT_SCRIPT_H

#include <stddef.h>
#include <stdint.h>
#include "cli.h"
#include "vxr/edit.h"

/* The cells the editor reaches, -2^20 .. 2^20 - 1 (a box's hi may be
 * 2^20); the cells one step may name are the core's (vxr_edit_check). */
#define EDIT_CELL_LIMIT ((int64_t)1 << (VXR_MAX_DEPTH - 1))

typedef enum edit_op_kind { EDIT_OP_EDIT, EDIT_OP_UNDO, EDIT_OP_REDO } edit_op_kind;

/* One line of the script that does something. For EDIT_OP_EDIT, edit is
 * complete and passed vxr_edit_check against the scene: model names a
 * model of the scene that is there, value suits the scene (an index
 * 1..255 in a paletted one, vxr_scene_color_value of #RRGGBB), cells,
 * boxes and spheres lie within the reach above and name at most
 * VXR_EDIT_MAX_CELLS cells; cells is what the edit visits. */
typedef struct edit_op {
    edit_op_kind kind;
    size_t line; /* its 1-based line in the file, for messages */
    vxr_edit edit;
    uint64_t cells;
    /* The cell of set, clear and paint; edit.cells points at it (so an op
     * must not be copied to another place and applied from there without
     * pointing edit.cells at its own cell). */
    int32_t cell[1][3];
} edit_op;

/* A script read a line at a time, as it is applied: memory stays bounded
 * by the longest line, whatever the script's length. */
typedef struct edit_script {
    cli_lines in;
    const vxr_scene *scene;
} edit_script;

/* Opens the script at path ("-": standard input) through cli_lines (any
 * line length; a NUL byte, a directory or more than CLI_TEXT_MAX bytes is
 * refused when reached). EXIT_OK, or EXIT_INPUT after printing why, with
 * nothing to close. scene is read by each edit_script_next, and may change
 * between calls (the script is checked against the scene as it is then). */
int edit_script_open(edit_script *s, const char *path, const vxr_scene *scene);
/* The next operation into *dest: 1; 0 at the end of the script; -1 after
 * printing one line, "vxr: FILE:LINE: reason", on stderr (the script's
 * status, s->in.status, is then EXIT_INPUT). */
int edit_script_next(edit_script *s, edit_op *dest);
/* NULL-safe on a closed script. */
void edit_script_close(edit_script *s);
/* The script's path, for messages. */
static inline const char *edit_script_path(const edit_script *s) {
    return s->in.path;
}

#endif
