/* vxr view's input: keys, mouse and drops turned into camera moves
 * (camera.h), edits (edit.c, in edit mode first) and requests the frame
 * loop (main.c) carries out. */
#include <math.h>
#include <string.h>
#include "app.h"

/* Radians per pixel of mouse motion: orbiting (left drag) and looking
 * (fly mode); the fly speed's factors for shift and per wheel click; how
 * long a message stays in the title. */
#define MAX_FRAMES      1000000L /* --frames */
#define ORBIT_RADIANS   0.006f
#define LOOK_RADIANS    0.0025f
#define FLY_FAST        4.0f
#define FLY_WHEEL       1.25f
#define MESSAGE_SECONDS 3.0

const char view_keys_help[] =
    "vxr view: left drag orbit, middle or shift+left drag pan, wheel zoom,\n"
    "  Tab/V fly mode (WASD move, mouse look, Q/E down/up, shift faster, wheel speed),\n"
    "  F frame the picked cube, R reset the camera, [ ] halve/double the grid,\n"
    "  C culling on/off, P screenshot, H this help, Esc leave fly mode or quit;\n"
    "  L light model (flat, lit, path), arrows move the sun, O occlusion on/off;\n"
    "  0-9 the camera slots a .vox file saved (MagicaVoxel's rCAM);\n"
    "  drop a file on the window to open it.\n"
    "E edit mode (outside fly mode): left click place the grid cube against the face,\n"
    "  left drag paint, right click remove, right drag orbit, I take the colour under\n"
    "  the mouse, , . previous/next palette colour, Ctrl+Z undo, Ctrl+Y or Ctrl+Shift+Z\n"
    "  redo, Ctrl+S save (--save FILE, default " VIEW_SAVE_DEFAULT ").\n";

void view_home(app *a) {
    memcpy(a->cam.eye, a->home_eye, sizeof a->home_eye);
    memcpy(a->cam.target, a->home_target, sizeof a->home_target);
}

static void set_fly(app *a, bool fly) {
    a->fly = fly;
    a->skip_delta = true;
    a->drag = DRAG_NONE;
    glfwSetInputMode(a->window, GLFW_CURSOR, fly ? GLFW_CURSOR_DISABLED : GLFW_CURSOR_NORMAL);
    if (glfwRawMouseMotionSupported())
        glfwSetInputMode(a->window, GLFW_RAW_MOUSE_MOTION, fly ? GLFW_TRUE : GLFW_FALSE);
}

void view_fly_keys(app *a, float dt) {
    if (!a->fly) return;
    GLFWwindow *w = a->window;
    float speed = a->fly_speed * dt;
    if (glfwGetKey(w, GLFW_KEY_LEFT_SHIFT) == GLFW_PRESS ||
        glfwGetKey(w, GLFW_KEY_RIGHT_SHIFT) == GLFW_PRESS)
        speed *= FLY_FAST;
    float fwd = (float)(glfwGetKey(w, GLFW_KEY_W) == GLFW_PRESS) -
                (float)(glfwGetKey(w, GLFW_KEY_S) == GLFW_PRESS);
    float side = (float)(glfwGetKey(w, GLFW_KEY_D) == GLFW_PRESS) -
                 (float)(glfwGetKey(w, GLFW_KEY_A) == GLFW_PRESS);
    float rise = (float)(glfwGetKey(w, GLFW_KEY_E) == GLFW_PRESS) -
                 (float)(glfwGetKey(w, GLFW_KEY_Q) == GLFW_PRESS);
    if (fwd != 0.0f || side != 0.0f || rise != 0.0f) view_fly(&a->cam, fwd, side, rise, speed);
}

bool view_file_camera(app *a, int slot) {
    vxr_file_camera fc[64];
    const uint32_t n = vxr_scene_file_cameras(a->scene, fc, 64);
    vxr_error err = {{0}};
    vxr_result r = VXR_ERROR_ARGUMENT;
    snprintf(err.message, sizeof err.message, "no camera %d in the file", slot);
    for (uint32_t k = 0; k < n && k < 64; k++)
        if (fc[k].id == slot) {
            vxr_camera c = a->cam;
            if ((r = vxr_file_camera_apply(&fc[k], &c, &err)) == VXR_OK) {
                memcpy(a->cam.eye, c.eye, sizeof c.eye);
                memcpy(a->cam.target, c.target, sizeof c.target);
                a->cam.fov_deg = c.fov_deg;
            }
            break;
        }
    if (r == VXR_OK)
        snprintf(a->message, sizeof a->message, "the file's camera %d", slot);
    else
        snprintf(a->message, sizeof a->message, "%d: %.500s", slot, err.message);
    a->message_until = glfwGetTime() + MESSAGE_SECONDS;
    return r == VXR_OK;
}

/* --- input callbacks ---------------------------------------------------- */

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods) {
    (void)scancode;
    app *a = glfwGetWindowUserPointer(w);
    if (view_edit_key(a, key, action, mods) || action != GLFW_PRESS || view_light_key(a, key))
        return;
    switch (key) {
    case GLFW_KEY_ESCAPE:
        if (a->fly)
            set_fly(a, false);
        else
            glfwSetWindowShouldClose(w, GLFW_TRUE);
        break;
    case GLFW_KEY_TAB:
    case GLFW_KEY_V:
        set_fly(a, !a->fly);
        break;
    case GLFW_KEY_R:
        view_home(a);
        break;
    case GLFW_KEY_F:
        if (!view_frame_pick(&a->cam, &a->pick, &a->pick_ray)) {
            snprintf(a->message, sizeof a->message, "F: nothing under the mouse to frame");
            a->message_until = glfwGetTime() + MESSAGE_SECONDS;
        }
        break;
    case GLFW_KEY_C:
        a->cull = !a->cull;
        a->cull_changed = true;
        break;
    case GLFW_KEY_LEFT_BRACKET:
        if (a->grid > 1) a->grid /= 2;
        break;
    case GLFW_KEY_RIGHT_BRACKET:
        if (a->grid < VXR_MAX_GRID) a->grid *= 2;
        break;
    case GLFW_KEY_P:
        a->want_shot = true;
        break;
    case GLFW_KEY_H:
        fputs(view_keys_help, stdout);
        fflush(stdout);
        break;
    default:
        if (key >= GLFW_KEY_0 && key <= GLFW_KEY_9) view_file_camera(a, key - GLFW_KEY_0);
        break;
    }
}

static void on_button(GLFWwindow *w, int button, int action, int mods) {
    app *a = glfwGetWindowUserPointer(w);
    if (a->fly) return;
    double x, y;
    glfwGetCursorPos(w, &x, &y);
    if (view_edit_button(a, button, action, mods, x, y)) return;
    if (action == GLFW_RELEASE) {
        a->drag = DRAG_NONE;
        return;
    }
    a->last_x = x;
    a->last_y = y;
    if (button == GLFW_MOUSE_BUTTON_LEFT) a->drag = mods & GLFW_MOD_SHIFT ? DRAG_PAN : DRAG_ORBIT;
    if (button == GLFW_MOUSE_BUTTON_MIDDLE) a->drag = DRAG_PAN;
}

static void on_cursor(GLFWwindow *w, double x, double y) {
    app *a = glfwGetWindowUserPointer(w);
    double x0 = a->last_x, y0 = a->last_y, dx = x - x0, dy = y - y0;
    a->last_x = x;
    a->last_y = y;
    if (a->skip_delta) {
        a->skip_delta = false;
        return;
    }
    if (a->fly) {
        view_look(&a->cam, -LOOK_RADIANS * (float)dx, -LOOK_RADIANS * (float)dy);
        return;
    }
    if (view_edit_cursor(a, x0, y0, x, y)) return;
    if (a->drag == DRAG_ORBIT)
        view_orbit(&a->cam, -ORBIT_RADIANS * (float)dx, ORBIT_RADIANS * (float)dy);
    else if (a->drag == DRAG_PAN)
        view_pan(&a->cam, dx, dy);
}

static void on_scroll(GLFWwindow *w, double dx, double dy) {
    (void)dx;
    app *a = glfwGetWindowUserPointer(w);
    if (a->fly)
        a->fly_speed *= powf(FLY_WHEEL, (float)dy);
    else
        view_zoom(&a->cam, dy);
}

static void on_drop(GLFWwindow *w, int count, const char **paths) {
    app *a = glfwGetWindowUserPointer(w);
    if (count > 0) snprintf(a->drop, sizeof a->drop, "%s", paths[0]);
}

static void on_resize(GLFWwindow *w, int width, int height) {
    (void)width, (void)height;
    app *a = glfwGetWindowUserPointer(w);
    a->swapchain_dirty = true;
}

void view_input_install(app *a) {
    glfwSetWindowUserPointer(a->window, a);
    glfwSetKeyCallback(a->window, on_key);
    glfwSetMouseButtonCallback(a->window, on_button);
    glfwSetCursorPosCallback(a->window, on_cursor);
    glfwSetScrollCallback(a->window, on_scroll);
    glfwSetDropCallback(a->window, on_drop);
    glfwSetFramebufferSizeCallback(a->window, on_resize);
}

/* [SCENE] [camera options] [--grid N] [--no-cull] [--validate] [--frames N
 * [--screenshot IMG.png] [--resize WxH] [--drop FILE] [--edit-script FILE]
 * [--json]] [--cursor X,Y] [--edit] [--save FILE]. */
bool view_parse_args(int argc, char **argv, view_args *va) {
    memset(va, 0, sizeof *va);
    cli_view_args_init(&va->r, CLI_WIDTH, CLI_HEIGHT);
    for (int i = 0; i < argc; i++) {
        int took = cli_view_arg(&va->r, "view", argc, argv, &i);
        if (took < 0) return false;
        if (took) continue;
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--edit")) {
            va->edit = true;
            continue;
        }
        if (!v) return cli_usage("view: unknown or incomplete option '%s'", CLI_SHOWN(o)), false;
        i++;
        if (!strcmp(o, "--frames")) {
            uint64_t frames;
            if (cli_parse_uint(v, 1, MAX_FRAMES, &frames) != CLI_NUMBER_OK)
                return cli_usage("view: --frames takes 1..%ld, not '%s'", MAX_FRAMES, CLI_SHOWN(v)),
                       false;
            va->frames = (long)frames;
        } else if (!strcmp(o, "--screenshot")) {
            va->screenshot = v;
        } else if (!strcmp(o, "--resize")) {
            if (!cli_parse_pair(v, "xX", &va->resize_w, &va->resize_h) || !va->resize_w ||
                !va->resize_h)
                return cli_usage("view: --resize takes WxH (1..%u each), not '%s'", CLI_MAX_SIZE,
                                 CLI_SHOWN(v)),
                       false;
        } else if (!strcmp(o, "--drop")) {
            va->drop = v;
        } else if (!strcmp(o, "--save")) {
            va->save = v;
        } else if (!strcmp(o, "--edit-script")) {
            va->edit_script = v;
        } else if (!strcmp(o, "--view-distance")) {
            if (cli_parse_float(v, &va->view_distance) != CLI_NUMBER_OK || !(va->view_distance > 0))
                return cli_usage("view: --view-distance takes world units > 0, not '%s'",
                                 CLI_SHOWN(v)),
                       false;
        } else if (!strcmp(o, "--budget")) {
            if (!cli_parse_bytes(v, &va->budget))
                return cli_usage("view: --budget takes bytes (a K, M or G suffix allowed), not "
                                 "'%s'",
                                 CLI_SHOWN(v)),
                       false;
        } else if (!strcmp(o, "--cursor")) {
            if (!cli_parse_pair(v, ",", &va->cursor[0], &va->cursor[1]))
                return cli_usage("view: --cursor takes X,Y pixels, not '%s'", CLI_SHOWN(v)), false;
            va->have_cursor = true;
        } else {
            return cli_usage("view: unknown option '%s'", CLI_SHOWN(o)), false;
        }
    }
    if (!va->r.scene) va->r.scene = "@demo";
    if (!cli_view_args_done(&va->r, "view")) return false;
    if (va->r.out || va->r.hits) return cli_usage("view: --out and --hits belong to render"), false;
    static const char *const options[] = {"--screenshot", "--save"};
    const char *const paths[] = {va->screenshot, va->save};
    if (cli_distinct_outputs(2, options, paths) != EXIT_OK) return false;
    if ((va->screenshot || va->resize_w || va->drop || va->edit_script || va->r.json) &&
        !va->frames)
        return cli_usage("view: --screenshot, --resize, --drop, --edit-script and --json need "
                         "--frames N"),
               false;
    return true;
}
