/* libFuzzer target: the command line's text readers (tools/cli/lines.c,
 * tools/cli/text.c, tools/edit_script.c), through their real open and read
 * path.
 *
 * Input: byte 0 picks the reader (bits 0-1) and a variant (bit 2); the rest
 * is the file's text, written into a memfd (created once per process) that
 * the reader opens as /proc/self/fd/N.
 *   0, 1, 2: cli_read_floats with 6 (rays), 4 (spheres) or 3 (points)
 *            numbers a line; bit 2 passes no `lines`. Checked: a failure
 *            leaves nothing (dest NULL, count 0, lines NULL) and any NUL byte
 *            fails; a success has one record per line that is neither blank
 *            nor a comment (counted here from the bytes), each at its own
 *            1-based line, and every value finite.
 *   3:       edit_script_open/next (`vxr edit --ops`), read as applied to
 *            a scene of three models, model 1 removed (paletted; bit 2:
 *            RGBA8). Checked: every operation read is sane (a model of the
 *            scene, a value it takes, cells, boxes and spheres within the
 *            editor's reach and its 2^27-cell step limit, lines increasing),
 *            a failure is EXIT_INPUT, and while they touch fewer than
 *            MAX_APPLY cells in all they are applied through a vxr_editor,
 *            every step VXR_OK.
 *
 * The readers print their refusals ("vxr: FILE:LINE: ...") on stderr:
 * tests/fuzz/run.sh passes -close_fd_mask=2 to silence them (libFuzzer then
 * keeps its own output and the sanitizers' reports on a copy of stderr).
 * Run a reproducer without it to see the message. */
#define _GNU_SOURCE /* memfd_create */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "cli.h"
#include "edit_script.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_APPLY = 20000 /* cells applied through the editor, at most */ };

static int memfd = -1;
static char memfd_path[64];
static vxr_scene *scenes[2]; /* parsed against, never edited: paletted, RGBA8 */

/* Three models (a 4^3 cube of colours, a single voxel, a second voxel),
 * each placed once; model 1 is removed when remove_now. */
static vxr_scene *make_scene(uint32_t attr_size, bool remove_now) {
    vxr_scene_src src;
    vxr_scene_src_init(&src, attr_size);
    for (uint32_t i = 1; i < 256; i++) src.palette[i] = 0xff000000u | i * 0x010305u;
    uint32_t m[3];
    for (int k = 0; k < 3; k++)
        if (vxr_scene_src_add_model(&src, &m[k]) != VXR_OK) abort();
    for (int32_t x = 0; x < 4; x++)
        for (int32_t y = 0; y < 4; y++)
            for (int32_t z = 0; z < 4; z++) {
                uint32_t c = 1 + (uint32_t)(x + y + z) % 4;
                if (attr_size == 4) c = 0xff000000u | c * 0x102030u; /* RGBA8 */
                if (vxr_model_src_push(&src.models[m[0]], x, y, z, c) != VXR_OK) abort();
            }
    bool rgba = attr_size == 4;
    if (vxr_model_src_push(&src.models[m[1]], -8, 5, 7, rgba ? 0xff0000ffu : 7) != VXR_OK ||
        vxr_model_src_push(&src.models[m[2]], 3, -2, 1, rgba ? 0xff00ff00u : 9) != VXR_OK)
        abort();
    for (int k = 0; k < 3; k++) {
        vxr_instance in = {m[k], 0, vxr_transform_identity(), INFINITY};
        in.transform.translation[0] = 20.0f * (float)k;
        if (vxr_scene_src_add_instance(&src, &in) != VXR_OK) abort();
    }
    vxr_scene *scene;
    if (vxr_scene_build(&src, &scene, NULL) != VXR_OK) abort();
    vxr_scene_src_free(&src);
    if (remove_now && vxr_scene_remove_model(scene, 1) != VXR_OK) abort();
    return scene;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    memfd = memfd_create("fuzz_text", 0);
    if (memfd < 0) abort();
    snprintf(memfd_path, sizeof memfd_path, "/proc/self/fd/%d", memfd);
    scenes[0] = make_scene(1, true);
    scenes[1] = make_scene(4, true);
    return 0;
}

/* The file's text becomes exactly text[0..n). */
static void write_file(const uint8_t *text, size_t n) {
    if (ftruncate(memfd, (off_t)n) != 0) abort();
    for (size_t at = 0; at < n;) {
        ssize_t w = pwrite(memfd, text + at, n - at, (off_t)at);
        if (w <= 0) abort();
        at += (size_t)w;
    }
}

/* ---- numbers a line ---- */

static void fuzz_floats(const uint8_t *text, size_t n, int per_line, bool want_lines) {
    static const char *const names[CLI_MAX_PER_LINE + 1] = {
        [3] = "x y z", [4] = "x y z r", [6] = "ox oy oz dx dy dz"};
    float *dest = (float *)&memfd; /* must be overwritten */
    size_t count = 12345, *lines = (size_t *)&memfd;
    int status = cli_read_floats(memfd_path, per_line, names[per_line], &dest, &count,
                                 want_lines ? &lines : NULL);
    if (!want_lines) lines = NULL;
    if (status != EXIT_OK) {
        if (status != EXIT_INPUT || dest || count || lines) abort();
        return;
    }
    if (memchr(text, 0, n)) abort(); /* a NUL byte is refused */
    /* Each line that is neither blank nor a comment is a record, in order. */
    size_t records = 0, line_no = 0;
    /* a byte order mark opening the text is skipped (cli_lines) */
    size_t first = n >= 3 && !memcmp(text, "\xef\xbb\xbf", 3) ? 3 : 0;
    for (size_t at = first; at < n;) {
        const uint8_t *nl = memchr(text + at, '\n', n - at);
        size_t end = nl ? (size_t)(nl - text) : n;
        line_no++;
        size_t p = at;
        while (p < end && (text[p] == ' ' || text[p] == '\t')) p++;
        if (p < end && text[p] != '\r' && text[p] != '#') {
            if (records >= count) abort();
            if (lines && lines[records] != line_no) abort();
            records++;
        }
        at = end + 1;
    }
    if (records != count) abort();
    if (count && !dest) abort();
    for (size_t i = 0; i < count * (size_t)per_line; i++)
        if (!isfinite(dest[i])) abort();
    for (size_t i = 1; lines && i < count; i++)
        if (lines[i] <= lines[i - 1]) abort();
    free(dest);
    free(lines);
}

/* ---- edit scripts ---- */

/* The cells a checked edit spans (a sphere: its bounding box, as the parser
 * counts it); aborts on an edit the parser should have refused. */
static double check_edit(const vxr_scene *scene, const edit_op *o) {
    const vxr_edit *ed = &o->edit;
    const int64_t L = EDIT_CELL_LIMIT;
    if (ed->model >= scene->model_count || scene->models[ed->model].attr_size == 0) abort();
    if (ed->op == VXR_EDIT_CLEAR) {
        if (ed->value != 0) abort();
    } else if (ed->op == VXR_EDIT_SET || ed->op == VXR_EDIT_PAINT) {
        if (scene->attr_size == 1 ? ed->value < 1 || ed->value > 255 : ed->value >> 24 != 255)
            abort();
    } else {
        abort();
    }
    if (ed->shape == VXR_SHAPE_CELLS) {
        if (ed->count != 1 || ed->cells != (const int32_t(*)[3])o->cell) abort();
        for (int k = 0; k < 3; k++)
            if (o->cell[0][k] < -L || o->cell[0][k] > L - 1) abort();
        return 1;
    }
    if (ed->shape == VXR_SHAPE_BOX) {
        double cells = 1;
        for (int k = 0; k < 3; k++) {
            if (ed->lo[k] < -L || ed->lo[k] > L || ed->hi[k] < -L || ed->hi[k] > L) abort();
            cells *= ed->hi[k] > ed->lo[k] ? (double)ed->hi[k] - ed->lo[k] : 0;
        }
        /* what the core counts: every cell of a set, the cells in the
         * model's box of a clear or paint */
        if ((double)o->cells > cells || (ed->op == VXR_EDIT_SET && (double)o->cells != cells))
            abort();
        if (o->cells > VXR_EDIT_MAX_CELLS) abort();
        return (double)o->cells;
    }
    if (ed->shape != VXR_SHAPE_SPHERE || !isfinite(ed->radius) || ed->radius < 0) abort();
    double cells = 1;
    for (int k = 0; k < 3; k++) {
        if (!isfinite(ed->centre[k])) abort();
        double lo = floor(ed->centre[k] - ed->radius - 0.5),
               hi = ceil(ed->centre[k] + ed->radius + 0.5);
        if (lo < (double)-L || hi > (double)L) abort();
        cells *= hi - lo;
    }
    if ((double)o->cells > cells || o->cells > VXR_EDIT_MAX_CELLS) abort();
    return (double)o->cells;
}

static void fuzz_script(size_t n, bool rgba) {
    const vxr_scene *scene = scenes[rgba];
    /* The same scene, fresh, with model 1 removed once it is live: the
     * script is read against it as it is applied (edits do not change what
     * the reader checks: models and colours). */
    vxr_scene *copy = make_scene(rgba ? 4 : 1, false);
    vxr_editor *editor;
    if (vxr_editor_create(copy, 0, &editor, NULL) != VXR_OK) abort();
    if (vxr_scene_remove_model(copy, 1) != VXR_OK) abort();
    edit_script s;
    if (edit_script_open(&s, memfd_path, copy) != EXIT_OK) abort();
    edit_op o;
    int got;
    size_t ops = 0, last_line = 0;
    double cells = 0;
    while ((got = edit_script_next(&s, &o)) > 0) {
        if (++ops > n / 4) abort(); /* "undo" is the shortest op */
        if (o.line <= last_line) abort();
        last_line = o.line;
        if (o.kind == EDIT_OP_EDIT)
            cells += check_edit(scene, &o);
        else if (o.kind != EDIT_OP_UNDO && o.kind != EDIT_OP_REDO)
            abort();
        if (cells >= MAX_APPLY) continue; /* read on, apply no more */
        bool done;
        vxr_result r = o.kind == EDIT_OP_EDIT   ? vxr_editor_apply(editor, &o.edit, NULL, NULL)
                       : o.kind == EDIT_OP_UNDO ? vxr_editor_undo(editor, &done, NULL)
                                                : vxr_editor_redo(editor, &done, NULL);
        if (r != VXR_OK) abort();
    }
    if (got < 0 && s.in.status != EXIT_INPUT) abort();
    edit_script_close(&s);
    vxr_editor_destroy(editor);
    vxr_scene_destroy(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const uint8_t *text = data + 1;
    size_t n = size - 1;
    write_file(text, n);
    bool variant = data[0] & 4;
    static const int per_line[3] = {6, 4, 3}; /* rays, spheres, points */
    int reader = data[0] & 3;
    if (reader < 3)
        fuzz_floats(text, n, per_line[reader], !variant);
    else
        fuzz_script(n, variant);
    return 0;
}
