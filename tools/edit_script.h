/* The script of `vxr edit --ops FILE` (DESIGN.md §5), read and checked
 * against a scene before anything is applied (tools/edit_script.c): one
 * operation a line,
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
#include "vxr/edit.h"

/* What one step may touch (the editor's own limit, checked up front for
 * every operation) and the cells the editor reaches, -2^20 .. 2^20 - 1 (a
 * box's hi may be 2^20). */
#define EDIT_MAX_STEP_CELLS (1ull << 27)
#define EDIT_CELL_LIMIT     ((int64_t)1 << (VXR_MAX_DEPTH - 1))

typedef enum edit_op_kind { EDIT_OP_EDIT, EDIT_OP_UNDO, EDIT_OP_REDO } edit_op_kind;

/* One line of the script that does something. For EDIT_OP_EDIT, edit is
 * complete and checked: model names a model of the scene that holds voxels
 * (attr_size != 0), value suits the scene (an index 1..255 in a paletted
 * one, vxr_scene_color_value of #RRGGBB), a cells edit names the one cell
 * of `cell` within the reach above, a box lies within it (lo >= -2^20,
 * hi <= 2^20) and spans at most EDIT_MAX_STEP_CELLS, a sphere has a finite
 * centre, a finite radius >= 0 and a bounding box within the reach of at
 * most EDIT_MAX_STEP_CELLS cells. */
typedef struct edit_op {
    edit_op_kind kind;
    size_t line; /* its 1-based line in the file, for messages */
    vxr_edit edit;
    /* The cell of set, clear and paint; edit.cells points at it once the
     * script is read (so an op must not be copied to another place and
     * applied from there without pointing edit.cells at its own cell). */
    int32_t cell[1][3];
} edit_op;

typedef struct edit_script {
    edit_op *ops; /* malloc'd, n of them */
    size_t n, cap;
} edit_script;

/* Reads the script at path (through cli_lines: any line length; a NUL byte,
 * a directory or more than CLI_TEXT_MAX bytes is refused) and checks every
 * line against scene, which it only reads. On success returns EXIT_OK with
 * *dest holding the operations in order (possibly none), to be released
 * with edit_script_free. On failure prints one line, "vxr: FILE:LINE:
 * reason" ("vxr: FILE: reason" when the file cannot be opened), on stderr
 * and returns EXIT_INPUT, with *dest empty (ops NULL, n 0) and nothing
 * allocated. *dest's previous contents are ignored (not freed). */
int edit_script_read(const char *path, const vxr_scene *scene, edit_script *dest);

/* Frees the operations and leaves *s empty; an empty script is a no-op. */
void edit_script_free(edit_script *s);

#endif
