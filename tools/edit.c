/* vxr edit: a script of voxel edits applied to a scene through the editor
 * (vxr/edit.h), then saved by OUT's extension (DESIGN.md §5), or written
 * back into a world edited in place (OUT the SCENE world).
 *
 * The script is read a line at a time as it is applied (tools/edit_script.c),
 * in memory bounded by its longest line; a bad line names itself and stops
 * the run before OUT is written. The work is bounded too: the cells the
 * edits visit and the voxels undo and redo replay, at most --max-cells in
 * all (EDIT_DEFAULT_CELLS by default). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "commands.h"
#include "edit_script.h"
#include "vxr/world.h"

/* The work one `vxr edit` may do unless --max-cells says more: as much as
 * the largest step (a 512^3 box), some seconds on one core. */
#define EDIT_DEFAULT_CELLS VXR_EDIT_MAX_CELLS

/* ---- applying ---- */

/* What the script did. changed counts every voxel change: a step's, and
 * again those an undo or a redo makes. unjournaled: steps applied without
 * undo (larger than the journal). */
typedef struct tally {
    uint64_t steps, undone, redone, changed, unjournaled, work;
} tally;

typedef struct progress {
    const char *path;
    size_t line;
    bool shown;
} progress;

static void show_progress(void *user, uint64_t visited, uint64_t total) {
    progress *p = user;
    fprintf(stderr, "\rvxr: %s:%zu: %3.0f%% of %" PRIu64 " cells", p->path, p->line,
            total ? 100.0 * (double)visited / (double)total : 100.0, total);
    fflush(stderr);
    p->shown = true;
}

static int apply(edit_script *s, vxr_editor *e, uint64_t max_cells, bool json, tally *t) {
    const char *path = edit_script_path(s);
    progress pr = {path, 0, false};
    if (cli_progress(json)) vxr_editor_set_progress(e, show_progress, &pr);
    edit_op o;
    int got;
    while ((got = edit_script_next(s, &o)) > 0) {
        vxr_error err = {{0}};
        vxr_result r;
        bool done = false;
        uint64_t undo = 0, redo = 0; /* what the next undo and redo replay: their work */
        if (o.kind != EDIT_OP_EDIT)
            vxr_editor_next(e, o.kind == EDIT_OP_UNDO ? &undo : NULL,
                            o.kind == EDIT_OP_REDO ? &redo : NULL);
        uint64_t work = o.kind == EDIT_OP_EDIT ? o.cells : o.kind == EDIT_OP_UNDO ? undo : redo;
        if (work > max_cells - t->work) {
            fprintf(stderr,
                    "vxr: %s:%zu: the script's work would pass %" PRIu64
                    " cells (--max-cells N allows more)\n",
                    path, o.line, max_cells);
            return EXIT_INPUT;
        }
        t->work += work;
        pr.line = o.line;
        if (o.kind == EDIT_OP_EDIT) {
            vxr_edit_result res;
            r = vxr_editor_apply(e, &o.edit, &res, &err);
            t->steps++;
            t->changed += res.changed;
            if (r == VXR_OK && !res.journaled) {
                t->unjournaled++;
                if (!json)
                    fprintf(stderr,
                            "%svxr: %s:%zu: note: %" PRIu64
                            " voxels changed, more than the undo journal holds; applied "
                            "without undo\n",
                            pr.shown ? "\r\033[K" : "", path, o.line, res.changed);
                pr.shown = false;
            }
        } else if (o.kind == EDIT_OP_UNDO) {
            r = vxr_editor_undo(e, &done, &err);
            if (r == VXR_OK && done) t->undone++, t->changed += undo;
        } else {
            r = vxr_editor_redo(e, &done, &err);
            if (r == VXR_OK && done) t->redone++, t->changed += redo;
        }
        if (pr.shown) fputs("\r\033[K", stderr), pr.shown = false;
        if (r != VXR_OK) {
            fprintf(stderr, "vxr: %s:%zu: %s\n", path, o.line,
                    err.message[0] ? err.message : vxr_result_string(r));
            return EXIT_INPUT;
        }
    }
    return got < 0 ? s->in.status : EXIT_OK;
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
        printf("\",\"bytes\":%zu,\"seconds\":%.6f,\"unjournaled\":%llu,\"work\":%llu}\n", bytes,
               seconds, (unsigned long long)t->unjournaled, (unsigned long long)t->work);
        return;
    }
    printf("%s: %llu steps (%llu undone, %llu redone), %llu voxel changes in %.3f ms\n", scene_path,
           (unsigned long long)t->steps, (unsigned long long)t->undone,
           (unsigned long long)t->redone, (unsigned long long)t->changed, seconds * 1e3);
    printf("wrote %s: %u models, %llu voxels, %zu bytes\n", out_path, scene->model_count,
           (unsigned long long)voxels, bytes);
}

/* Whether a and b name one world (its index, the same file). */
static bool same_world(const char *a, const char *b) {
    char ia[4200], ib[4200];
    struct stat sa, sb;
    snprintf(ia, sizeof ia, "%s%s", a, strstr(a, VXR_WORLD_INDEX) ? "" : "/" VXR_WORLD_INDEX);
    snprintf(ib, sizeof ib, "%s%s", b, strstr(b, VXR_WORLD_INDEX) ? "" : "/" VXR_WORLD_INDEX);
    return stat(ia, &sa) == 0 && stat(ib, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* The scene to edit: a world edited in place (--out the same world: every
 * chunk made resident, the changed ones written back), else any SCENE,
 * saved by OUT's extension. */
static int open_scene(const char *path, const char *out, const vxr_format **format,
                      vxr_scene **scene, vxr_world **world) {
    const bool in_world = path[0] != '@' && vxr_is_world(path);
    if (out[0] != '@' && vxr_is_world(out)) {
        if (!in_world || !same_world(path, out))
            return cli_usage("edit: --out %s is a world: a world is edited in place (--out the "
                             "SCENE world itself)",
                             out);
        const vxr_world_desc desc = {path, 0, 0, 2, 0};
        vxr_error err = {{0}};
        vxr_result r = vxr_world_open(&desc, world, &err);
        if (r == VXR_OK) r = vxr_world_make_resident(*world, &err);
        if (r != VXR_OK) {
            vxr_world_close(*world);
            *world = NULL;
            return cli_fail(path, r, &err);
        }
        *scene = vxr_world_scene(*world);
        return EXIT_OK;
    }
    return cli_output_and_scene("edit", out, path, format, scene);
}

int cmd_edit(int argc, char **argv) {
    const char *path = NULL, *ops_path = NULL, *out_path = NULL;
    bool json = false;
    uint64_t max_cells = EDIT_DEFAULT_CELLS;
    size_t journal = 0; /* the editor's default, 64 MiB */
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (!strcmp(argv[i], "--max-cells") && i + 1 < argc) {
            if (!cli_uint_option("edit", "--max-cells", argv[++i], 1, UINT64_MAX, &max_cells))
                return EXIT_USAGE;
        } else if (!strcmp(argv[i], "--journal") && i + 1 < argc) {
            uint64_t v;
            if (!cli_uint_option("edit", "--journal", argv[++i], 4096, SIZE_MAX, &v))
                return EXIT_USAGE;
            journal = (size_t)v;
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
        return cli_usage(
            "edit: expected SCENE --ops FILE --out OUT [--max-cells N] [--journal BYTES] [--json]");
    if (!strcmp(path, "-") && !strcmp(ops_path, "-"))
        return cli_usage("edit: SCENE and --ops cannot both be standard input ('-')");
    const vxr_format *format = NULL;
    vxr_scene *scene = NULL;
    vxr_world *world = NULL;
    int status = open_scene(path, out_path, &format, &scene, &world);
    if (status != EXIT_OK) return status;
    vxr_error err = {{0}};
    edit_script s;
    tally t = {0};
    vxr_editor *editor = NULL;
    size_t size = 0;
    double seconds = 0;
    vxr_result r = vxr_editor_create(scene, journal, &editor, &err);
    status = r == VXR_OK ? edit_script_open(&s, ops_path, scene) : cli_fail(path, r, &err);
    if (status == EXIT_OK) {
        vxr_editor_set_overflow(editor, VXR_JOURNAL_FORGET);
        double t0 = cli_now();
        status = apply(&s, editor, max_cells, json, &t);
        seconds = cli_now() - t0;
        edit_script_close(&s);
    }
    if (status == EXIT_OK && world) {
        r = vxr_world_save(world, NULL, &err);
        vxr_world_status st = {0};
        if (r == VXR_OK) r = vxr_world_update(world, (const float[3]){0, 0, 0}, &st, &err);
        if (r != VXR_OK) status = cli_fail(out_path, r, &err);
        size = (size_t)st.file_bytes;
    } else if (status == EXIT_OK) {
        r = cli_save_scene(out_path, format, scene, &size, &err);
        /* A scene .vox or .vl32 cannot hold is bad input, not a usage error. */
        if (r != VXR_OK)
            status = cli_fail(out_path, r == VXR_ERROR_ARGUMENT ? VXR_ERROR_LIMIT : r, &err);
    }
    if (status == EXIT_OK) report(path, out_path, scene, &t, size, seconds, json);
    vxr_editor_destroy(editor);
    if (world)
        vxr_world_close(world); /* its scene with it */
    else
        vxr_scene_destroy(scene);
    return status;
}
