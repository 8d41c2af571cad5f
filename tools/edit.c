/* vxr edit: a script of voxel edits applied to a scene through the editor
 * (vxr/edit.h), then saved by OUT's extension (DESIGN.md §5).
 *
 * The whole script is read and checked against the scene before anything is
 * applied (tools/edit_script.c), so that a bad line names itself and OUT is
 * never written. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "edit_script.h"

/* ---- applying ---- */

/* What the script did. changed counts every voxel change: a step's, and
 * again those an undo or a redo makes. */
typedef struct tally {
    uint64_t steps, undone, redone, changed;
    /* the changes of each step that can be undone, and redone */
    uint64_t *done, *undo_stack;
    size_t n_done, n_undone;
} tally;

static int apply(const char *path, vxr_editor *e, const edit_script *s, tally *t) {
    t->done = malloc((s->n ? s->n : 1) * sizeof *t->done);
    t->undo_stack = malloc((s->n ? s->n : 1) * sizeof *t->undo_stack);
    if (!t->done || !t->undo_stack) return cli_fail(path, VXR_ERROR_MEMORY, NULL);
    for (size_t i = 0; i < s->n; i++) {
        const edit_op *o = &s->ops[i];
        vxr_error err = {{0}};
        vxr_result r;
        bool done = false;
        if (o->kind == EDIT_OP_EDIT) {
            vxr_edit_result res;
            r = vxr_editor_apply(e, &o->edit, &res, &err);
            t->steps++;
            t->changed += res.changed;
            t->done[t->n_done++] = res.changed;
            t->n_undone = 0;
        } else if (o->kind == EDIT_OP_UNDO) {
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
        if (r != VXR_OK) {
            fprintf(stderr, "vxr: %s:%zu: %s\n", path, o->line,
                    err.message[0] ? err.message : vxr_result_string(r));
            return EXIT_INPUT;
        }
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
    edit_script s = {0};
    tally t = {0};
    vxr_editor *editor = NULL;
    size_t size = 0;
    double seconds = 0;
    int status = edit_script_read(ops_path, scene, &s);
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
    edit_script_free(&s);
    vxr_editor_destroy(editor);
    vxr_scene_destroy(scene);
    return status;
}
