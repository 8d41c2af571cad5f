/* vxr view's edit mode: voxels placed, removed and painted at the mouse,
 * the current colour picked or cycled, undo and redo, saving, and the
 * steps of --edit-script, which go through the same view_edit_do as the
 * mouse and the keys.
 *
 * Edit mode picks on the CPU, with a vxr_picker over the scene as it is
 * now, instead of the GPU pick that arrives two frames late: the cube
 * under the overlay is then the one a click edits, also right after an
 * edit. The two agree bit for bit (vxr/pick.h). The picker is made once
 * and follows the scene's journal before each pick (vxr_picker_update):
 * edits, undo, redo and culling refit its hierarchy in place, never a
 * new picker. Each placed, removed or painted cube is one undoable step;
 * a paint drag makes one step per cube it passes over. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "app.h"

#define DRAG_PIXELS   4.0 /* a press that moves further drags instead of clicking */
#define PAINT_SAMPLES 256 /* picks along one mouse move of a paint drag, at most */
#define INFO_SECONDS  3.0 /* how long a message stays in the title */
#define MAX_TOKENS    9   /* read per line: one more than any step has */

static const char *const action_names[EDIT_ACTIONS] = {"place",       "remove",      "paint",
                                                       "pick-colour", "next-colour", "prev-colour",
                                                       "undo",        "redo",        "save"};

static bool at_pixel(view_edit_action what) {
    return what <= EDIT_PICK_COLOUR;
}

/* --- messages ---------------------------------------------------------- */

/* Puts a message in the title (errors on stderr too, unless a script
 * runs: its failure line says it); returns outcome. */
static int say(app *a, int outcome, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int say(app *a, int outcome, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->message, sizeof a->message, fmt, ap);
    va_end(ap);
    a->message_until = glfwGetTime() + (outcome == EDIT_FAILED ? ERROR_SECONDS : INFO_SECONDS);
    if (outcome == EDIT_FAILED && !a->script.steps) fprintf(stderr, "vxr: view: %s\n", a->message);
    return outcome;
}

static const char *why(vxr_result r, const vxr_error *err) {
    return err->message[0] ? err->message : vxr_result_string(r);
}

/* --- the editor and the picker ------------------------------------------ */

void view_edit_release(app *a) {
    vxr_editor_destroy(a->editor);
    a->editor = NULL;
    vxr_picker_destroy(a->picker);
    a->picker = NULL;
}

static bool ensure_editor(app *a) {
    if (a->editor) return true;
    vxr_error err = {{0}};
    vxr_result r = vxr_editor_create(a->scene, 0, &a->editor, &err);
    if (r != VXR_OK) say(a, EDIT_FAILED, "cannot edit: %s", why(r, &err));
    return r == VXR_OK;
}

static vxr_result cpu_pick(app *a, const vxr_ray *ray, uint32_t grid, vxr_pick *dest) {
    memset(dest, 0, sizeof *dest);
    vxr_result r =
        a->picker ? vxr_picker_update(a->picker, NULL) : vxr_picker_create(a->scene, &a->picker);
    return r == VXR_OK ? vxr_pick_ray(a->picker, ray, grid, dest) : r;
}

void view_edit_hover(app *a, const uint32_t px[2]) {
    vxr_camera_ray(&a->cam, px[0], px[1], &a->pick_ray);
    if (cpu_pick(a, &a->pick_ray, a->grid, &a->pick) != VXR_OK) memset(&a->pick, 0, sizeof a->pick);
}

/* The ray through window coordinates (x, y) for the camera as the next
 * frame sets it up: the swapchain's size, or the framebuffer's before
 * there is one. False outside the image. */
static bool window_ray(app *a, double x, double y, vxr_ray *dest) {
    int ww, wh, fw, fh;
    glfwGetWindowSize(a->window, &ww, &wh);
    glfwGetFramebufferSize(a->window, &fw, &fh);
    vxr_camera c = a->cam;
    bool swapchain = a->vk.extent.width && !a->swapchain_dirty;
    c.width = swapchain ? a->vk.extent.width : (uint32_t)(fw > 0 ? fw : 0);
    c.height = swapchain ? a->vk.extent.height : (uint32_t)(fh > 0 ? fh : 0);
    if (ww <= 0 || wh <= 0 || !c.width || !c.height || vxr_camera_setup(&c) != VXR_OK) return false;
    double px = x * c.width / ww, py = y * c.height / wh;
    if (!(px >= 0 && py >= 0 && px < c.width && py < c.height)) return false;
    vxr_camera_ray(&c, (uint32_t)px, (uint32_t)py, dest);
    return true;
}

/* The pick at window coordinates, at grid N: EDIT_DONE with a hit. */
static int pick_at(app *a, view_edit_action what, double x, double y, uint32_t grid,
                   vxr_pick *dest) {
    vxr_ray ray;
    memset(dest, 0, sizeof *dest);
    if (!window_ray(a, x, y, &ray))
        return say(a, EDIT_NOTHING, "%s: %s,%s is outside the image", action_names[what],
                   CLI_DOUBLE(x), CLI_DOUBLE(y));
    vxr_result r = cpu_pick(a, &ray, grid, dest);
    /* a chunk held coarse is read whole first and the pick made again (it
     * may then meet another coarse chunk behind): edits are of voxels */
    vxr_error err = {{0}};
    for (int k = 0; r == VXR_OK && dest->hit && a->world && k < 256; k++) {
        bool whole = false;
        r = vxr_world_refine(a->world, a->scene->instances[dest->instance].model, &whole, &err);
        if (r != VXR_OK || !whole) break;
        r = cpu_pick(a, &ray, grid, dest);
    }
    if (r != VXR_OK && err.message[0]) return say(a, EDIT_FAILED, "%s", err.message);
    if (r != VXR_OK) return say(a, EDIT_FAILED, "pick: %s", vxr_result_string(r));
    if (dest->hit && a->world && a->scene->instances[dest->instance].transform.scale != 1.0f)
        return say(a, EDIT_NOTHING, "%s: the chunk at %s,%s is not loaded whole yet",
                   action_names[what], CLI_DOUBLE(x), CLI_DOUBLE(y));
    if (!dest->hit)
        return say(a, EDIT_NOTHING, "%s: nothing at %s,%s", action_names[what], CLI_DOUBLE(x),
                   CLI_DOUBLE(y));
    return EDIT_DONE;
}

/* --- edits --------------------------------------------------------------- */

/* The attr value of the current colour in this scene. */
static uint32_t colour_value(const app *a) {
    if (a->scene->attr_size == 1 && a->colour_index) return a->colour_index;
    return vxr_scene_color_value(a->scene, a->colour_rgba);
}

static bool same_cube(const vxr_pick *p, const vxr_pick *q) {
    return p->hit && q->hit && p->instance == q->instance && p->size == q->size &&
           !memcmp(p->voxel, q->voxel, sizeof p->voxel);
}

/* Place (the cube beside the picked face), remove or paint (the picked
 * cube) at the viewer's grid. A paint drag skips the cube it just did. */
static int edit_cube(app *a, view_edit_action what, double x, double y) {
    if (!ensure_editor(a)) return EDIT_FAILED;
    vxr_pick p;
    int outcome = pick_at(a, what, x, y, a->grid, &p);
    if (outcome != EDIT_DONE) return outcome;
    if (what == EDIT_PAINT && a->painting && same_cube(&p, &a->painted)) return EDIT_DONE;
    vxr_edit_op op = what == EDIT_PLACE    ? VXR_EDIT_SET
                     : what == EDIT_REMOVE ? VXR_EDIT_CLEAR
                                           : VXR_EDIT_PAINT;
    vxr_edit e;
    if (vxr_edit_pick_cube(a->scene, &p, what == EDIT_PLACE, op, colour_value(a), &e, NULL) !=
        VXR_OK)
        return say(a, EDIT_NOTHING, "%s: no face at %s,%s to place against", action_names[what],
                   CLI_DOUBLE(x), CLI_DOUBLE(y));
    vxr_edit_result res = {0};
    vxr_error err = {{0}};
    vxr_result r = vxr_editor_apply(a->editor, &e, &res, &err);
    if (r != VXR_OK) return say(a, EDIT_FAILED, "%s: %s", action_names[what], why(r, &err));
    a->painted = p;
    return say(a, EDIT_DONE, "%s: %llu voxel%s changed in %.2f ms", action_names[what],
               (unsigned long long)res.changed, res.changed == 1 ? "" : "s", 1e3 * res.seconds);
}

static void set_colour_index(app *a, uint32_t i) {
    a->colour_index = i;
    a->colour_rgba = a->scene->palette[i];
}

/* The colour of the voxel under (x, y) becomes the current one: its
 * palette entry in a paletted scene. */
static int pick_colour(app *a, double x, double y) {
    vxr_pick p;
    int outcome = pick_at(a, EDIT_PICK_COLOUR, x, y, 1, &p);
    if (outcome != EDIT_DONE) return outcome;
    if (a->scene->attr_size == 1) {
        set_colour_index(a, vxr_scene_color_value(a->scene, p.color));
    } else {
        a->colour_index = 0;
        a->colour_rgba = p.color;
    }
    return say(a, EDIT_DONE, "colour #%02x%02x%02x", p.color & 255u, p.color >> 8 & 255u,
               p.color >> 16 & 255u);
}

/* The next (step 1) or previous (-1) palette entry, 1..255 round. */
static int cycle_colour(app *a, int step) {
    uint32_t n = VXR_PALETTE_SIZE - 1, i = a->colour_index;
    if (step > 0)
        i = i >= n ? 1 : i + 1;
    else
        i = i <= 1 ? n : i - 1;
    set_colour_index(a, i);
    return EDIT_DONE;
}

static int undo_redo(app *a, bool redo) {
    const char *what = redo ? "redo" : "undo";
    bool done = false;
    vxr_error err = {{0}};
    vxr_result r = VXR_OK;
    if (a->editor)
        r = redo ? vxr_editor_redo(a->editor, &done, &err)
                 : vxr_editor_undo(a->editor, &done, &err);
    if (r != VXR_OK) return say(a, EDIT_FAILED, "%s: %s", what, why(r, &err));
    if (!done) return say(a, EDIT_NOTHING, "nothing to %s", what);
    uint32_t undo = 0, redos = 0;
    vxr_editor_depth(a->editor, &undo, &redos, NULL);
    return say(a, EDIT_DONE, "%s: %u to undo, %u to redo", what, undo, redos);
}

static bool same_file(const char *p, const char *q) {
    struct stat x, y;
    return stat(p, &x) == 0 && stat(q, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* Saves the scene in the format path's extension names (path NULL:
 * --save's, else VIEW_SAVE_DEFAULT); never over the scene's own file. A
 * streamed world of files without a path named is written back into them
 * (a path, or a generated world, exports the resident chunks). */
static int save(app *a, const char *path) {
    if (a->world && !vxr_world_generated(a->world) && !path && !a->args->save) {
        uint32_t written = 0;
        vxr_error err = {{0}};
        vxr_result r = vxr_world_save(a->world, &written, &err);
        if (r != VXR_OK)
            return say(a, EDIT_FAILED, "cannot save %s: %s", a->scene_name, why(r, &err));
        if (!a->args->r.json) {
            printf("wrote %s: %u chunk files\n", a->scene_name, written);
            fflush(stdout);
        }
        return say(a, EDIT_DONE, "saved %s (%u chunk files)", a->scene_name, written);
    }
    if (!path) path = a->args->save ? a->args->save : VIEW_SAVE_DEFAULT;
    const vxr_format *f = vxr_format_for_output(path);
    if (!f) {
        char list[128];
        vxr_format_output_list(list, sizeof list);
        return say(a, EDIT_FAILED, "cannot save %s: the name must end in %s", path, list);
    }
    if (same_file(path, a->scene_name))
        return say(a, EDIT_FAILED, "not saving over the scene's own file %s (--save FILE)", path);
    size_t size = 0;
    vxr_error err = {{0}};
    vxr_result r = cli_save_scene(path, f, a->scene, &size, &err);
    if (r != VXR_OK) return say(a, EDIT_FAILED, "cannot save %s: %s", path, why(r, &err));
    if (!a->args->r.json) {
        printf("wrote %s\n", path);
        fflush(stdout);
    }
    return say(a, EDIT_DONE, "saved %s (%zu bytes)", path, size);
}

int view_edit_do(app *a, view_edit_action what, double x, double y, const char *path) {
    switch (what) {
    case EDIT_PLACE:
    case EDIT_REMOVE:
    case EDIT_PAINT:
        return edit_cube(a, what, x, y);
    case EDIT_PICK_COLOUR:
        return pick_colour(a, x, y);
    case EDIT_NEXT_COLOUR:
    case EDIT_PREV_COLOUR:
        return cycle_colour(a, what == EDIT_NEXT_COLOUR ? 1 : -1);
    case EDIT_UNDO:
    case EDIT_REDO:
        return undo_redo(a, what == EDIT_REDO);
    case EDIT_SAVE:
        return save(a, path);
    default:
        return EDIT_NOTHING;
    }
}

void view_edit_mode(app *a, bool on) {
    a->editing = on;
    a->press = -1;
    a->painting = false;
    if (!on) return;
    if (a->colour_index == 0 && a->colour_rgba == 0) a->colour_index = 1;
    if (a->colour_index) set_colour_index(a, a->colour_index); /* this scene's entry */
    ensure_editor(a);
}

/* --- input --------------------------------------------------------------- */

/* Where a key acts: the mouse, or the window centre in fly mode. */
static void key_position(app *a, double *x, double *y) {
    int w, h;
    glfwGetWindowSize(a->window, &w, &h);
    *x = w / 2.0;
    *y = h / 2.0;
    if (!a->fly) glfwGetCursorPos(a->window, x, y);
}

bool view_edit_key(app *a, int key, int action, int mods) {
    if (action == GLFW_RELEASE) return false;
    bool ctrl = mods & (GLFW_MOD_CONTROL | GLFW_MOD_SUPER), repeat = action == GLFW_REPEAT;
    if (key == GLFW_KEY_E && !ctrl && !a->fly) { /* in fly mode E is up */
        if (!repeat) view_edit_mode(a, !a->editing);
        return true;
    }
    if (!a->editing) return false;
    view_edit_action what;
    if (ctrl && key == GLFW_KEY_Z)
        what = mods & GLFW_MOD_SHIFT ? EDIT_REDO : EDIT_UNDO;
    else if (ctrl && key == GLFW_KEY_Y)
        what = EDIT_REDO;
    else if (ctrl && key == GLFW_KEY_S && !repeat)
        what = EDIT_SAVE;
    else if (!ctrl && key == GLFW_KEY_PERIOD)
        what = EDIT_NEXT_COLOUR;
    else if (!ctrl && key == GLFW_KEY_COMMA)
        what = EDIT_PREV_COLOUR;
    else if (!ctrl && key == GLFW_KEY_I && !repeat)
        what = EDIT_PICK_COLOUR;
    else
        return false;
    double x, y;
    key_position(a, &x, &y);
    view_edit_do(a, what, x, y, NULL);
    return true;
}

/* A left press places on release, unless it moved: then it paints; a
 * right press removes on release, unless it moved: then it orbits. */
bool view_edit_button(app *a, int button, int action, int mods, double x, double y) {
    if (!a->editing) return false;
    if (action == GLFW_RELEASE) {
        int pressed = a->press;
        bool painted = a->painting;
        a->press = -1;
        a->painting = false;
        if (pressed != button) return false;
        a->drag = DRAG_NONE;
        if (button == GLFW_MOUSE_BUTTON_LEFT && !painted)
            view_edit_do(a, EDIT_PLACE, a->press_x, a->press_y, NULL);
        else if (button == GLFW_MOUSE_BUTTON_RIGHT)
            view_edit_do(a, EDIT_REMOVE, a->press_x, a->press_y, NULL);
        return true;
    }
    if ((button != GLFW_MOUSE_BUTTON_LEFT || (mods & GLFW_MOD_SHIFT)) &&
        button != GLFW_MOUSE_BUTTON_RIGHT)
        return false;
    a->press = button;
    a->press_x = a->last_x = x;
    a->press_y = a->last_y = y;
    a->painting = false;
    memset(&a->painted, 0, sizeof a->painted);
    return true;
}

/* Paints the cubes along the mouse's move from (x0, y0) to (x, y), one
 * pick a pixel; from the start point too when first is true. */
static void paint_along(app *a, double x0, double y0, double x, double y, bool first) {
    double dx = x - x0, dy = y - y0;
    int n = (int)fmin(ceil(fmax(fabs(dx), fabs(dy))), PAINT_SAMPLES);
    for (int i = first ? 0 : 1; i <= n; i++) {
        double t = n ? (double)i / n : 1.0;
        view_edit_do(a, EDIT_PAINT, x0 + t * dx, y0 + t * dy, NULL);
    }
}

bool view_edit_cursor(app *a, double x0, double y0, double x, double y) {
    if (!a->editing || a->press < 0) return false;
    if (!a->painting && hypot(x - a->press_x, y - a->press_y) < DRAG_PIXELS) return true;
    if (a->press == GLFW_MOUSE_BUTTON_RIGHT) { /* a drag: orbit from here on */
        a->press = -1;
        a->drag = DRAG_ORBIT;
        return false;
    }
    bool first = !a->painting;
    a->painting = true;
    if (first) {
        x0 = a->press_x;
        y0 = a->press_y;
    }
    paint_along(a, x0, y0, x, y, first);
    return true;
}

void view_edit_readout(const app *a, char *dest, size_t size) {
    if (size) dest[0] = 0;
    if (!a->editing) return;
    uint32_t c = a->colour_rgba, undo = 0, redo = 0;
    if (a->editor) vxr_editor_depth(a->editor, &undo, &redo, NULL);
    char index[16] = "";
    if (a->colour_index) snprintf(index, sizeof index, "%u ", a->colour_index);
    snprintf(dest, size,
             " | edit colour %s#%02x%02x%02x, undo %u redo %u | update %.2f ms, %llu bytes", index,
             c & 255u, c >> 8 & 255u, c >> 16 & 255u, undo, redo, a->update.cpu_ms,
             (unsigned long long)a->update.upload_bytes);
}

/* --- scripts --------------------------------------------------------------- */

static void script_free(view_script *s) {
    for (size_t i = 0; i < s->count; i++) free(s->steps[i].path);
    free(s->steps);
    s->steps = NULL;
    s->count = s->next = 0;
}

void view_edit_free(app *a) {
    view_edit_release(a);
    script_free(&a->script);
}

static int bad_line(const view_script *s, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad_line(const view_script *s, size_t line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "vxr: %s:%zu: ", s->path, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return EXIT_INPUT;
}

/* Splits line at blanks into at most MAX_TOKENS tokens (in place). */
static int tokens(char *line, char *dest[MAX_TOKENS]) {
    int n = 0;
    for (char *p = strtok(line, " \t\r\n"); p && n < MAX_TOKENS; p = strtok(NULL, " \t\r\n"))
        dest[n++] = p;
    return n;
}

static bool finite_number(const char *s, double *dest) {
    return cli_parse_double(s, dest) == CLI_NUMBER_OK;
}

static bool coordinate(const char *s, double *dest) {
    return finite_number(s, dest) && *dest >= 0;
}

/* "camera EX EY EZ TX TY TZ" (t: the tokens after the frame) into st: eye
 * and target finite as floats, apart, and a difference that normalises. */
static bool camera_step(char **t, int n, view_step *st) {
    if (n != 8) return false;
    double v[6], d2 = 0;
    for (int k = 0; k < 6; k++) {
        if (!finite_number(t[2 + k], &v[k]) || fabs(v[k]) > 1e30) return false;
        (k < 3 ? st->eye : st->target)[k % 3] = (float)v[k];
    }
    for (int k = 0; k < 3; k++) {
        double d = (double)st->target[k] - st->eye[k];
        d2 += d * d;
    }
    return d2 > 1e-12;
}

/* One line into a step (or nothing: blank or a '#' comment). */
static int parse_step(view_script *s, char *line, size_t lineno, long frames, size_t *cap) {
    char *t[MAX_TOKENS];
    int n = tokens(line, t);
    if (n == 0 || t[0][0] == '#') return EXIT_OK;
    if (n < 2) return bad_line(s, lineno, "expected FRAME ACTION [X Y]");
    uint64_t at;
    if (cli_parse_uint(t[0], 0, (uint64_t)frames - 1, &at) != CLI_NUMBER_OK)
        return bad_line(s, lineno, "the frame must be 0..%ld (--frames %ld), not '%s'", frames - 1,
                        frames, CLI_SHOWN(t[0]));
    long frame = (long)at;
    if (s->count && frame < s->steps[s->count - 1].frame)
        return bad_line(s, lineno, "frame %ld comes after frame %ld", frame,
                        s->steps[s->count - 1].frame);
    view_step st = {.frame = frame, .line = lineno, .action = EDIT_ACTIONS};
    for (int i = 0; i < EDIT_ACTIONS; i++)
        if (!strcmp(t[1], action_names[i])) st.action = (view_edit_action)i;
    if (!strcmp(t[1], "camera")) {
        st.kind = STEP_CAMERA;
        if (!camera_step(t, n, &st))
            return bad_line(s, lineno,
                            "camera takes EX EY EZ TX TY TZ, finite numbers, eye and target "
                            "apart");
    } else if (!strcmp(t[1], "file-camera")) {
        st.kind = STEP_FILE_CAMERA;
        uint64_t k = 10;
        if (n != 3 || cli_parse_uint(t[2], 0, 9, &k) != CLI_NUMBER_OK)
            return bad_line(s, lineno, "file-camera takes a slot, 0..9 (the number keys)");
        st.slot = (int)k;
    } else if (!strcmp(t[1], "cull")) {
        st.kind = STEP_CULL;
        st.cull = n == 3 && !strcmp(t[2], "on");
        if (n != 3 || (!st.cull && strcmp(t[2], "off")))
            return bad_line(s, lineno, "cull takes on or off");
    } else if (st.action == EDIT_ACTIONS) {
        return bad_line(s, lineno,
                        "unknown action '%s' (place, remove, paint, pick-colour, next-colour, "
                        "prev-colour, undo, redo, save, camera, file-camera or cull)",
                        CLI_SHOWN(t[1]));
    }
    if (st.kind == STEP_EDIT) {
        if (at_pixel(st.action) && (n != 4 || !coordinate(t[2], &st.x) || !coordinate(t[3], &st.y)))
            return bad_line(s, lineno, "%s takes X Y, window pixel coordinates", t[1]);
        if (st.action == EDIT_SAVE && n > 3)
            return bad_line(s, lineno, "save takes at most a file name");
        if (!at_pixel(st.action) && st.action != EDIT_SAVE && n != 2)
            return bad_line(s, lineno, "%s takes nothing more", t[1]);
        if (st.action == EDIT_SAVE && n == 3) {
            size_t len = strlen(t[2]) + 1;
            if (!(st.path = malloc(len))) return cli_fail(s->path, VXR_ERROR_MEMORY, NULL);
            memcpy(st.path, t[2], len);
        }
    }
    if (s->count == *cap) {
        size_t c = *cap ? 2 * *cap : 16;
        view_step *p = realloc(s->steps, c * sizeof *p);
        if (!p) {
            free(st.path);
            return cli_fail(s->path, VXR_ERROR_MEMORY, NULL);
        }
        s->steps = p;
        *cap = c;
    }
    s->steps[s->count++] = st;
    return EXIT_OK;
}

int view_script_load(view_script *s, const char *path, long frames) {
    memset(s, 0, sizeof *s);
    s->path = path;
    cli_lines in;
    int status = cli_lines_open(&in, path);
    if (status != EXIT_OK) return status;
    size_t cap = 0;
    int got;
    while (status == EXIT_OK && (got = cli_lines_next(&in)) != 0)
        status = got < 0 ? in.status : parse_step(s, in.line, in.line_no, frames, &cap);
    cli_lines_close(&in);
    if (status != EXIT_OK) script_free(s);
    return status;
}

int view_script_run(app *a, long frame) {
    view_script *s = &a->script;
    while (s->next < s->count && s->steps[s->next].frame <= frame) {
        const view_step *st = &s->steps[s->next++];
        if (st->kind == STEP_CAMERA) {
            memcpy(a->cam.eye, st->eye, sizeof st->eye);
            memcpy(a->cam.target, st->target, sizeof st->target);
        } else if (st->kind == STEP_CULL) {
            a->cull_changed |= a->cull != st->cull;
            a->cull = st->cull;
        } else if (st->kind == STEP_FILE_CAMERA) {
            if (!view_file_camera(a, st->slot)) {
                fprintf(stderr, "vxr: %s:%zu: %s\n", s->path, st->line, a->message);
                return EXIT_INPUT;
            }
        } else if (view_edit_do(a, st->action, st->x, st->y, st->path) != EDIT_DONE) {
            fprintf(stderr, "vxr: %s:%zu: %s\n", s->path, st->line, a->message);
            return EXIT_INPUT;
        }
    }
    return EXIT_OK;
}
