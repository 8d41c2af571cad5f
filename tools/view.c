/* vxr view: the GLFW viewer (DESIGN.md §5).
 *
 * Each frame: cull by view distance from the eye (recording an instance
 * update into the frame's own command buffer when the visible set changed:
 * frames in flight keep reading the instances they were recorded with),
 * render into the
 * offscreen target, pick the ray under the mouse on the GPU, blit into the
 * swapchain image and draw the pick overlay over it (tools/view_vulkan.c).
 * A pick's record is read when its frame's fence is next waited for, so the
 * overlay trails the mouse by VIEW_FRAMES frames. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "render.h"
#include "view.h"

enum { DEFAULT_WIDTH = 1024, DEFAULT_HEIGHT = 768 };

static const char keys_help[] =
    "vxr view: left drag orbit, middle or shift+left drag pan, wheel zoom,\n"
    "  Tab/V fly mode (WASD move, mouse look, Q/E down/up, shift faster, wheel speed),\n"
    "  F frame the picked cube, R reset the camera, [ ] halve/double the grid,\n"
    "  C culling on/off, P screenshot, H this help, Esc leave fly mode or quit;\n"
    "  drop a file on the window to open it.\n";

typedef struct view_args {
    render_args r;
    long frames;            /* 0: until the window closes */
    const char *screenshot; /* with frames: the last frame's image */
    uint32_t resize_w, resize_h;
    bool have_cursor;
    uint32_t cursor[2];
    const char *drop; /* with frames: opened as if dropped, a third of the way */
} view_args;

typedef struct app {
    GLFWwindow *window;
    view_vk vk;
    const view_args *args;
    vxr_scene *scene;
    vxr_culler *culler;
    char scene_name[512];
    uint32_t scene_gen;
    vxr_renderer *renderer;
    vxr_target *target, *shot; /* shot: with readback, for screenshots */
    bool swapchain_dirty;

    vxr_camera cam;                    /* eye, target, fov; derived per frame */
    float home_eye[3], home_target[3]; /* R */
    bool fly, skip_delta;
    float fly_speed; /* world units per second */
    int drag;        /* 0, 1 orbit, 2 pan */
    double last_x, last_y;

    uint32_t grid;
    bool cull, cull_changed;
    uint32_t visible;
    vxr_pick pick; /* hit == 0: nothing under the mouse */
    vxr_ray pick_ray;

    char drop[4096];
    bool want_shot;
    const char *shot_path;
    char shot_name[64];
    char message[600];
    double message_until;

    double title_at;
    double frame_sum, gpu_sum; /* since the title was last set */
    uint32_t frame_n, gpu_n;
    double all_frame_sum, all_gpu_sum; /* the whole run after 2 frames, for --frames */
    uint32_t all_frame_n, all_gpu_n, frame_index, gpu_index;
    double frame_ms, gpu_ms;
    double last_time;
} app;

/* --- camera control --------------------------------------------------- */

static void sub3(const float a[3], const float b[3], float dest[3]) {
    for (int k = 0; k < 3; k++) dest[k] = a[k] - b[k];
}

static float len3(const float a[3]) {
    return sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

/* Direction from eye to target as yaw (about +Z) and pitch, and distance. */
static void cam_angles(const vxr_camera *c, float *yaw, float *pitch, float *dist) {
    float d[3];
    sub3(c->target, c->eye, d);
    *dist = len3(d);
    if (*dist == 0.0f) *dist = 1.0f;
    *yaw = atan2f(d[1], d[0]);
    *pitch = asinf(fmaxf(-1.0f, fminf(1.0f, d[2] / *dist)));
}

static void dir_of(float yaw, float pitch, float dest[3]) {
    const float limit = 1.5620697f; /* 89.5 degrees: up stays +Z */
    pitch = fmaxf(-limit, fminf(limit, pitch));
    dest[0] = cosf(pitch) * cosf(yaw);
    dest[1] = cosf(pitch) * sinf(yaw);
    dest[2] = sinf(pitch);
}

/* Orbit (the eye moves around the target) or look (the target around the eye). */
static void cam_rotate(app *a, float dyaw, float dpitch, bool around_eye) {
    float yaw, pitch, dist, d[3];
    cam_angles(&a->cam, &yaw, &pitch, &dist);
    dir_of(yaw + dyaw, pitch + dpitch, d);
    for (int k = 0; k < 3; k++) {
        if (around_eye)
            a->cam.target[k] = a->cam.eye[k] + d[k] * dist;
        else
            a->cam.eye[k] = a->cam.target[k] - d[k] * dist;
    }
}

static void cam_move(app *a, const float by[3]) {
    for (int k = 0; k < 3; k++) {
        a->cam.eye[k] += by[k];
        a->cam.target[k] += by[k];
    }
}

/* Pan: what lies at the target's depth follows the mouse. */
static void cam_pan(app *a, double dx, double dy) {
    float d[3];
    sub3(a->cam.target, a->cam.eye, d);
    float px = 2.0f * len3(d) * a->cam.tan_half_fov / (float)(a->cam.height ? a->cam.height : 1);
    float by[3];
    for (int k = 0; k < 3; k++)
        by[k] = px * (-(float)dx * a->cam.right[k] + (float)dy * a->cam.up[k]);
    cam_move(a, by);
}

static void cam_zoom(app *a, double steps) {
    float d[3];
    sub3(a->cam.target, a->cam.eye, d);
    float dist = len3(d);
    if (dist == 0.0f) return;
    float nd = fmaxf(dist * powf(0.85f, (float)steps), 0.05f);
    for (int k = 0; k < 3; k++) a->cam.eye[k] = a->cam.target[k] - d[k] * (nd / dist);
}

/* F: the camera moves along the pick's ray to a few cube diagonals from
 * the entry point, which becomes the target. Along that ray the view was
 * clear, so the cube stays in sight (a cube centre seen past a grazing
 * face may lie behind its neighbours). */
static void cam_frame_pick(app *a) {
    const vxr_pick *p = &a->pick;
    float d[3], e[3], to[3];
    for (int k = 0; k < 3; k++) {
        d[k] = a->pick_ray.dir[k];
        e[k] = p->world_max[k] - p->world_min[k];
    }
    sub3(p->point, a->pick_ray.origin, to);
    float n = len3(d), dist = fminf(fmaxf(3.0f * len3(e), 2.0f), len3(to));
    if (!p->hit || !(n > 0.0f) || dist < 0.05f) {
        snprintf(a->message, sizeof a->message, "F: nothing under the mouse to frame");
        a->message_until = glfwGetTime() + 3.0;
        return;
    }
    for (int k = 0; k < 3; k++) {
        a->cam.target[k] = p->point[k];
        a->cam.eye[k] = p->point[k] - d[k] * (dist / n);
    }
}

static void set_home(app *a) {
    memcpy(a->cam.eye, a->home_eye, sizeof a->home_eye);
    memcpy(a->cam.target, a->home_target, sizeof a->home_target);
}

static void set_fly(app *a, bool fly) {
    a->fly = fly;
    a->skip_delta = true;
    a->drag = 0;
    glfwSetInputMode(a->window, GLFW_CURSOR, fly ? GLFW_CURSOR_DISABLED : GLFW_CURSOR_NORMAL);
    if (glfwRawMouseMotionSupported())
        glfwSetInputMode(a->window, GLFW_RAW_MOUSE_MOTION, fly ? GLFW_TRUE : GLFW_FALSE);
}

/* WASD, Q/E in fly mode, scaled by the frame's duration. */
static void fly_keys(app *a, float dt) {
    if (!a->fly) return;
    GLFWwindow *w = a->window;
    float speed = a->fly_speed * dt;
    if (glfwGetKey(w, GLFW_KEY_LEFT_SHIFT) == GLFW_PRESS ||
        glfwGetKey(w, GLFW_KEY_RIGHT_SHIFT) == GLFW_PRESS)
        speed *= 4.0f;
    float fwd = (float)(glfwGetKey(w, GLFW_KEY_W) == GLFW_PRESS) -
                (float)(glfwGetKey(w, GLFW_KEY_S) == GLFW_PRESS);
    float side = (float)(glfwGetKey(w, GLFW_KEY_D) == GLFW_PRESS) -
                 (float)(glfwGetKey(w, GLFW_KEY_A) == GLFW_PRESS);
    float rise = (float)(glfwGetKey(w, GLFW_KEY_E) == GLFW_PRESS) -
                 (float)(glfwGetKey(w, GLFW_KEY_Q) == GLFW_PRESS);
    if (fwd == 0.0f && side == 0.0f && rise == 0.0f) return;
    /* the axes of the last vxr_camera_setup (DESIGN.md §2), unit length */
    float by[3];
    for (int k = 0; k < 3; k++) by[k] = speed * (fwd * a->cam.forward[k] + side * a->cam.right[k]);
    by[2] += speed * rise;
    cam_move(a, by);
}

/* --- input callbacks ---------------------------------------------------- */

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods) {
    (void)scancode, (void)mods;
    app *a = glfwGetWindowUserPointer(w);
    if (action != GLFW_PRESS) return;
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
        set_home(a);
        break;
    case GLFW_KEY_F:
        cam_frame_pick(a);
        break;
    case GLFW_KEY_C:
        a->cull = !a->cull;
        a->cull_changed = true;
        break;
    case GLFW_KEY_LEFT_BRACKET:
        if (a->grid > 1) a->grid /= 2;
        break;
    case GLFW_KEY_RIGHT_BRACKET:
        if (a->grid < (1u << 20)) a->grid *= 2;
        break;
    case GLFW_KEY_P:
        a->want_shot = true;
        break;
    case GLFW_KEY_H:
        fputs(keys_help, stdout);
        fflush(stdout);
        break;
    default:
        break;
    }
}

static void on_button(GLFWwindow *w, int button, int action, int mods) {
    app *a = glfwGetWindowUserPointer(w);
    if (a->fly) return;
    if (action == GLFW_RELEASE) {
        a->drag = 0;
        return;
    }
    glfwGetCursorPos(w, &a->last_x, &a->last_y);
    if (button == GLFW_MOUSE_BUTTON_LEFT) a->drag = mods & GLFW_MOD_SHIFT ? 2 : 1;
    if (button == GLFW_MOUSE_BUTTON_MIDDLE) a->drag = 2;
}

static void on_cursor(GLFWwindow *w, double x, double y) {
    app *a = glfwGetWindowUserPointer(w);
    double dx = x - a->last_x, dy = y - a->last_y;
    a->last_x = x;
    a->last_y = y;
    if (a->skip_delta) {
        a->skip_delta = false;
        return;
    }
    if (a->fly)
        cam_rotate(a, -0.0025f * (float)dx, -0.0025f * (float)dy, true);
    else if (a->drag == 1)
        cam_rotate(a, -0.006f * (float)dx, 0.006f * (float)dy, false);
    else if (a->drag == 2)
        cam_pan(a, dx, dy);
}

static void on_scroll(GLFWwindow *w, double dx, double dy) {
    (void)dx;
    app *a = glfwGetWindowUserPointer(w);
    if (a->fly)
        a->fly_speed *= powf(1.25f, (float)dy);
    else
        cam_zoom(a, dy);
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

/* --- scenes --------------------------------------------------------------- */

/* A new scene: everything drawn from the old one is finished first. */
static void set_scene(app *a, vxr_scene *scene, const char *name, const view_args *va) {
    if (a->vk.device) vkDeviceWaitIdle(a->vk.device);
    for (int i = 0; i < VIEW_FRAMES; i++) a->vk.frames[i].upload = NULL; /* freed with it */
    vxr_renderer_destroy(a->renderer);
    a->renderer = NULL;
    vxr_culler_destroy(a->culler);
    a->culler = NULL;
    vxr_scene_destroy(a->scene);
    a->scene = scene;
    a->scene_gen++;
    memset(&a->pick, 0, sizeof a->pick);
    snprintf(a->scene_name, sizeof a->scene_name, "%s", name);
    vxr_scene_stats st;
    vxr_scene_get_stats(scene, &st);
    float d2 = 0;
    for (int k = 0; k < 3; k++) {
        float e = (float)(st.aabb_max[k] - st.aabb_min[k]);
        d2 += e * e;
    }
    a->fly_speed = 0.25f * (d2 > 0 ? sqrtf(d2) : 1.0f);
    if (va && va->r.have_eye) {
        memcpy(a->home_eye, va->r.cam.eye, sizeof a->home_eye);
        memcpy(a->home_target, va->r.cam.target, sizeof a->home_target);
    } else { /* view 0 of render_open: what `vxr bench render` looks at */
        vxr_camera c = {0};
        vxr_camera_orbit(scene, 0.3f, 0.35f, 0.9f, &c);
        memcpy(a->home_eye, c.eye, sizeof a->home_eye);
        memcpy(a->home_target, c.target, sizeof a->home_target);
    }
    set_home(a);
    a->cull_changed = true;
}

static bool open_dropped(app *a) {
    char path[sizeof a->drop];
    memcpy(path, a->drop, sizeof path);
    a->drop[0] = 0;
    vxr_scene *scene;
    vxr_error err = {{0}};
    vxr_result r = vxr_scene_load(path, &scene, &err);
    if (r != VXR_OK) {
        const char *why = err.message[0] ? err.message : vxr_result_string(r);
        fprintf(stderr, "vxr: %s: %s\n", path, why);
        snprintf(a->message, sizeof a->message, "cannot open %.200s: %.300s", path, why);
        a->message_until = glfwGetTime() + 8.0;
        return false;
    }
    set_scene(a, scene, path, NULL);
    return true;
}

/* --- overlay ---------------------------------------------------------------- */

static uint32_t put(view_vertex *v, uint32_t n, const double p[3], const float eye[3],
                    uint32_t color) {
    for (int k = 0; k < 3; k++) v[n].pos[k] = (float)(p[k] - (double)eye[k]);
    v[n].color = color;
    return n + 1;
}

/* p + s * (q - p) */
static void toward(const double p[3], const double q[3], double s, double dest[3]) {
    for (int k = 0; k < 3; k++) dest[k] = p[k] + s * (q[k] - p[k]);
}

/* The two corners of face f next to corner c (ids differ in one bit). */
static void face_neighbours(int f, int c, int dest[2]) {
    int n = 0;
    for (int i = 0; i < 4; i++) {
        int o = vxr_face_corners[f][i], x = o ^ c;
        if (x && !(x & (x - 1)) && n < 2) dest[n++] = o;
    }
}

/* Overlay vertices: triangles (face tint, nearest-corner square,
 * nearest-edge band) then lines (cube outline, nearest edge, fly crosshair). */
static void build_overlay(const app *a, view_vertex *v, uint32_t *tri, uint32_t *line) {
    const vxr_pick *p = &a->pick;
    const float *eye = a->cam.eye;
    uint32_t n = 0;
    double w[8][3];
    if (p->hit) {
        const vxr_transform *t = &a->scene->instances[p->instance].transform;
        for (int c = 0; c < 8; c++) {
            double l[3] = {(double)p->voxel[0] + (double)p->size * (c >> 2 & 1),
                           (double)p->voxel[1] + (double)p->size * (c >> 1 & 1),
                           (double)p->voxel[2] + (double)p->size * (c & 1)};
            for (int i = 0; i < 3; i++)
                w[c][i] = (double)t->scale * ((double)t->rotation[3 * i] * l[0] +
                                              (double)t->rotation[3 * i + 1] * l[1] +
                                              (double)t->rotation[3 * i + 2] * l[2]) +
                          (double)t->translation[i];
        }
    }
    if (p->hit && p->face >= 0) {
        const uint8_t *fc = vxr_face_corners[p->face];
        const int quad[6] = {fc[0], fc[1], fc[3], fc[0], fc[3], fc[2]};
        for (int i = 0; i < 6; i++) n = put(v, n, w[quad[i]], eye, vxr_rgba(60, 200, 255, 90));
        if (p->edge >= 0) { /* a band along the edge, an eighth of the face wide */
            int e0 = vxr_edge_corners[p->edge][0], e1 = vxr_edge_corners[p->edge][1], n0[2], n1[2];
            face_neighbours(p->face, e0, n0);
            face_neighbours(p->face, e1, n1);
            int o0 = n0[0] == e1 ? n0[1] : n0[0], o1 = n1[0] == e0 ? n1[1] : n1[0];
            double b0[3], b1[3];
            toward(w[e0], w[o0], 0.125, b0);
            toward(w[e1], w[o1], 0.125, b1);
            const double *band[6] = {w[e0], w[e1], b1, w[e0], b1, b0};
            for (int i = 0; i < 6; i++) n = put(v, n, band[i], eye, vxr_rgba(255, 150, 0, 200));
        }
        if (p->corner >= 0) { /* a square at the corner, a quarter of the face */
            int c = p->corner, nb[2];
            face_neighbours(p->face, c, nb);
            double s0[3], s1[3], s2[3];
            toward(w[c], w[nb[0]], 0.25, s0);
            toward(w[c], w[nb[1]], 0.25, s1);
            for (int k = 0; k < 3; k++) s2[k] = s0[k] + s1[k] - w[c][k];
            const double *sq[6] = {w[c], s0, s2, w[c], s2, s1};
            for (int i = 0; i < 6; i++) n = put(v, n, sq[i], eye, vxr_rgba(255, 40, 40, 230));
        }
    }
    *tri = n;
    if (p->hit) {
        for (int e = 0; e < 12; e++)
            for (int i = 0; i < 2; i++)
                n = put(v, n, w[vxr_edge_corners[e][i]], eye, vxr_rgba(255, 230, 0, 255));
        if (p->face >= 0 && p->edge >= 0)
            for (int i = 0; i < 2; i++)
                n = put(v, n, w[vxr_edge_corners[p->edge][i]], eye, vxr_rgba(255, 150, 0, 255));
    }
    if (a->fly) { /* a crosshair 8 pixels wide at depth 1 */
        float s = 8.0f * 2.0f * a->cam.tan_half_fov / (float)a->cam.height;
        for (int axis = 0; axis < 2; axis++)
            for (int sign = -1; sign <= 1; sign += 2) {
                const float *dir = axis ? a->cam.up : a->cam.right;
                double q[3];
                for (int k = 0; k < 3; k++)
                    q[k] = (double)eye[k] + (double)a->cam.forward[k] +
                           (double)(s * (float)sign) * (double)dir[k];
                n = put(v, n, q, eye, vxr_rgba(255, 255, 255, 255));
            }
    }
    *line = n - *tri;
}

/* Clip space of DESIGN.md §2's camera for eye-relative points: x, y as the
 * pixel rays map them (row 0 at the top), w the depth along forward, and a
 * constant z = near so that depth = near / w: only points behind the near
 * plane are clipped, and there is no far plane. Column-major. */
static void view_proj(const vxr_camera *c, float dest[16]) {
    const float near = 0.01f;
    memset(dest, 0, 16 * sizeof *dest);
    for (int j = 0; j < 3; j++) {
        dest[4 * j + 0] = c->right[j] / (c->tan_half_fov * c->aspect);
        dest[4 * j + 1] = -c->up[j] / c->tan_half_fov;
        dest[4 * j + 3] = c->forward[j];
    }
    dest[14] = near;
}

/* --- the title ----------------------------------------------------------------- */

static const char *const face_names[6] = {"left", "right", "front", "back", "top", "bottom"};

static void readout(const app *a, char *dest, size_t size) {
    const vxr_pick *p = &a->pick;
    int n = snprintf(dest, size, "vxr view | %s | %.1f ms", a->scene_name, a->frame_ms);
    if (a->gpu_ms > 0) n += snprintf(dest + n, size - (size_t)n, ", GPU %.2f ms", a->gpu_ms);
    n += snprintf(dest + n, size - (size_t)n, " | %u/%u visible%s | grid %u%s", a->visible,
                  a->scene->instance_count, a->cull ? "" : " (cull off)", a->grid,
                  a->fly ? " | fly" : "");
    if (p->hit)
        n += snprintf(dest + n, size - (size_t)n,
                      " | instance %u %s %d,%d,%d face %d%s%s corner %d edge %d colour "
                      "#%02x%02x%02x t %.3f",
                      p->instance, p->size > 1 ? "cube" : "voxel", p->voxel[0], p->voxel[1],
                      p->voxel[2], p->face, p->face >= 0 ? " " : "",
                      p->face >= 0 ? face_names[p->face] : "", p->corner, p->edge, p->color & 255u,
                      p->color >> 8 & 255u, p->color >> 16 & 255u, (double)p->t);
    if (a->message[0] && glfwGetTime() < a->message_until)
        snprintf(dest + n, size - (size_t)n, " | %s", a->message);
}

/* After --frames: the readout, or with --json the last pick record (as
 * `vxr pick` prints it) and a line with the scene, the window, the camera
 * (eye and target round-trip as floats) and the mean frame and GPU times
 * after the first two frames. */
static void print_summary(const app *a) {
    if (!a->args->r.json) {
        char line[1024];
        readout(a, line, sizeof line);
        printf("%s\n", line);
        return;
    }
    cli_print_pick(stdout, &a->pick);
    const float *e = a->cam.eye, *t = a->cam.target;
    printf("{\"scene\":\"");
    cli_print_json_string(stdout, a->scene_name);
    printf("\",\"width\":%u,\"height\":%u,\"grid\":%u,\"visible\":%u,\"instances\":%u,"
           "\"cull\":%s,\"eye\":[%.9g,%.9g,%.9g],\"target\":[%.9g,%.9g,%.9g],\"fov\":%.9g,"
           "\"frame_ms\":%.3f,\"gpu_ms\":%.3f}\n",
           a->cam.width, a->cam.height, a->grid, a->visible, a->scene->instance_count,
           a->cull ? "true" : "false", (double)e[0], (double)e[1], (double)e[2], (double)t[0],
           (double)t[1], (double)t[2], (double)a->cam.fov_deg,
           a->all_frame_n ? 1e3 * a->all_frame_sum / a->all_frame_n : a->frame_ms,
           a->all_gpu_n ? a->all_gpu_sum / a->all_gpu_n : a->gpu_ms);
}

/* --- frames ---------------------------------------------------------------------- */

static int vk_error(VkResult vr, const char *call) {
    vxr_error err = {{0}};
    snprintf(err.message, sizeof err.message, "%s failed: VkResult %d", call, (int)vr);
    return gpu_fail("view", vr == VK_ERROR_DEVICE_LOST ? VXR_ERROR_DEVICE : VXR_ERROR_VULKAN, &err);
}

/* What a finished frame left: its GPU time, its pick, its staging memory. */
static void finish_frame(app *a, view_frame *f) {
    view_vk *v = &a->vk;
    if (f->timed) {
        uint64_t ts[2];
        if (vkGetQueryPoolResults(v->device, v->queries, (uint32_t)(f - v->frames) * 2, 2,
                                  sizeof ts, ts, sizeof ts[0],
                                  VK_QUERY_RESULT_64_BIT) == VK_SUCCESS) {
            uint32_t bits = v->info.timestamp_bits;
            uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
            double ms = (double)((ts[1] - ts[0]) & mask) * (double)v->info.timestamp_period * 1e-6;
            a->gpu_sum += ms;
            a->gpu_n++;
            if (a->gpu_index++ >= 2) {
                a->all_gpu_sum += ms;
                a->all_gpu_n++;
            }
        }
        f->timed = false;
    }
    if (f->submitted) {
        if (f->picked && f->scene_gen == a->scene_gen) {
            if (vxr_pick_expand(a->scene, &f->ray, vxr_rays_picks(f->rays), &a->pick) != VXR_OK)
                memset(&a->pick, 0, sizeof a->pick);
            a->pick_ray = f->ray;
        } else if (!f->picked) {
            memset(&a->pick, 0, sizeof a->pick);
        }
    }
    f->submitted = false;
    if (f->upload) vxr_renderer_upload_done(f->upload);
    f->upload = NULL;
}

/* The pixel to pick: the window centre in fly mode, else the mouse's. */
static bool pick_pixel(const app *a, uint32_t w, uint32_t h, uint32_t dest[2]) {
    if (a->fly) {
        dest[0] = w / 2;
        dest[1] = h / 2;
        return true;
    }
    if (a->args->have_cursor) {
        dest[0] = a->args->cursor[0];
        dest[1] = a->args->cursor[1];
        return dest[0] < w && dest[1] < h;
    }
    /* not enter events: a window opened under the pointer gets none */
    if (!glfwGetWindowAttrib(a->window, GLFW_HOVERED)) return false;
    double x, y;
    int ww, wh;
    glfwGetCursorPos(a->window, &x, &y);
    glfwGetWindowSize(a->window, &ww, &wh);
    if (ww <= 0 || wh <= 0) return false;
    x *= (double)w / ww;
    y *= (double)h / wh;
    if (!(x >= 0 && y >= 0 && x < w && y < h)) return false;
    dest[0] = (uint32_t)x;
    dest[1] = (uint32_t)y;
    return true;
}

/* Culls from the eye; when the visible set changed, records the instance
 * update into cmd (the first frame of a scene uploads it whole). */
static vxr_result update_renderer(app *a, view_frame *f, vxr_error *err) {
    bool changed = false;
    if (!a->cull && !a->cull_changed && a->renderer) return VXR_OK;
    vxr_result r = a->culler ? VXR_OK : vxr_culler_create(a->scene, &a->culler);
    if (r == VXR_OK)
        r = vxr_culler_update(a->culler, a->scene, a->cull ? a->cam.eye : NULL, &a->visible,
                              &changed);
    if (r != VXR_OK) return r;
    if (!changed && !a->cull_changed && a->renderer) return VXR_OK;
    a->cull_changed = false;
    if (a->renderer) return vxr_renderer_update_instances(a->renderer, a->scene, f->cmd, err);
    if ((r = vxr_renderer_create(a->vk.ctx, a->scene, f->cmd, &a->renderer, err)) != VXR_OK)
        return r;
    f->upload = a->renderer;
    return VXR_OK;
}

static vxr_result ensure_targets(app *a, vxr_error *err) {
    uint32_t w = a->vk.extent.width, h = a->vk.extent.height;
    vxr_target_desc td = {w, h, false, false};
    vxr_result r = VXR_OK;
    if (!a->target) r = vxr_target_create(a->vk.ctx, &td, &a->target, err);
    td.readback = true;
    if (r == VXR_OK && a->want_shot && !a->shot)
        r = vxr_target_create(a->vk.ctx, &td, &a->shot, err);
    return r;
}

static int next_screenshot_name(app *a) {
    for (int i = 1; i < 100000; i++) {
        snprintf(a->shot_name, sizeof a->shot_name, "vxr-screenshot-%d.png", i);
        if (access(a->shot_name, F_OK) != 0) return EXIT_OK;
    }
    return EXIT_INPUT;
}

/* One frame; EXIT_OK, or the exit status after a message. *shown is false
 * when nothing was presented (swapchain out of date). */
static int frame(app *a, uint64_t index, bool *shown) {
    view_vk *v = &a->vk;
    vxr_error err = {{0}};
    vxr_result r;
    *shown = false;
    if (a->swapchain_dirty) {
        int w, h;
        glfwGetFramebufferSize(a->window, &w, &h);
        if (w <= 0 || h <= 0) return EXIT_OK;
        if ((r = view_vk_swapchain(v, (uint32_t)w, (uint32_t)h, &err)) != VXR_OK)
            return gpu_fail("view", r, &err);
        a->swapchain_dirty = false;
        for (int i = 0; i < VIEW_FRAMES; i++) finish_frame(a, &v->frames[i]); /* device idle */
        vxr_target_destroy(a->target);
        vxr_target_destroy(a->shot);
        a->target = a->shot = NULL;
    }
    view_frame *f = &v->frames[index % VIEW_FRAMES];
    VkResult vr = vkWaitForFences(v->device, 1, &f->fence, VK_TRUE, UINT64_MAX);
    if (vr != VK_SUCCESS) return vk_error(vr, "vkWaitForFences");
    finish_frame(a, f);
    uint32_t image;
    vr = vkAcquireNextImageKHR(v->device, v->swapchain, UINT64_MAX, f->acquired, VK_NULL_HANDLE,
                               &image);
    if (vr == VK_ERROR_OUT_OF_DATE_KHR) {
        a->swapchain_dirty = true;
        return EXIT_OK;
    }
    if (vr == VK_SUBOPTIMAL_KHR)
        a->swapchain_dirty = true; /* after this frame */
    else if (vr != VK_SUCCESS)
        return vk_error(vr, "vkAcquireNextImageKHR");
    if ((r = ensure_targets(a, &err)) != VXR_OK) return gpu_fail("view", r, &err);

    vkResetFences(v->device, 1, &f->fence);
    vkResetCommandBuffer(f->cmd, 0);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    vkBeginCommandBuffer(f->cmd, &bi);
    uint32_t q = (uint32_t)(f - v->frames) * 2;
    if (v->queries) {
        vkCmdResetQueryPool(f->cmd, v->queries, q, 2);
        vkCmdWriteTimestamp(f->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, v->queries, q);
    }
    a->cam.width = v->extent.width;
    a->cam.height = v->extent.height;
    if (vxr_camera_setup(&a->cam) != VXR_OK) { /* eye on the target: back home */
        set_home(a);
        vxr_camera_setup(&a->cam);
    }
    if ((r = update_renderer(a, f, &err)) != VXR_OK) {
        vkEndCommandBuffer(f->cmd);
        return gpu_fail(a->scene_name, r, &err);
    }
    bool shot = a->want_shot;
    vxr_target *t = shot ? a->shot : a->target;
    r = vxr_renderer_render(a->renderer, t, &a->cam, 1, f->cmd, &err); /* the grid is for picking */
    uint32_t px[2];
    f->picked = r == VXR_OK && pick_pixel(a, a->cam.width, a->cam.height, px);
    if (f->picked) {
        vxr_camera_ray(&a->cam, px[0], px[1], &f->ray);
        vxr_rays_input(f->rays)[0] = f->ray;
        f->scene_gen = a->scene_gen;
        r = vxr_renderer_pick_rays(a->renderer, f->rays, 1, a->grid, f->cmd, &err);
    }
    if (r != VXR_OK) {
        vkEndCommandBuffer(f->cmd);
        return gpu_fail("view", r, &err);
    }
    uint32_t tri, line;
    float m[16];
    build_overlay(a, f->vertex_map, &tri, &line);
    view_proj(&a->cam, m);
    view_vk_record_present(v, f, image, vxr_target_image(t), m, tri, line);
    if (v->queries) {
        vkCmdWriteTimestamp(f->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, v->queries, q + 1);
        f->timed = true;
    }
    if ((vr = vkEndCommandBuffer(f->cmd)) != VK_SUCCESS) return vk_error(vr, "vkEndCommandBuffer");
    VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                       .waitSemaphoreCount = 1,
                       .pWaitSemaphores = &f->acquired,
                       .pWaitDstStageMask = &wait_stage,
                       .commandBufferCount = 1,
                       .pCommandBuffers = &f->cmd,
                       .signalSemaphoreCount = 1,
                       .pSignalSemaphores = &v->presented[image]};
    if ((vr = vkQueueSubmit(v->queue, 1, &si, f->fence)) != VK_SUCCESS)
        return vk_error(vr, "vkQueueSubmit");
    f->submitted = true;
    VkPresentInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
                           .waitSemaphoreCount = 1,
                           .pWaitSemaphores = &v->presented[image],
                           .swapchainCount = 1,
                           .pSwapchains = &v->swapchain,
                           .pImageIndices = &image};
    vr = vkQueuePresentKHR(v->queue, &pi);
    if (vr == VK_ERROR_OUT_OF_DATE_KHR || vr == VK_SUBOPTIMAL_KHR)
        a->swapchain_dirty = true;
    else if (vr != VK_SUCCESS)
        return vk_error(vr, "vkQueuePresentKHR");
    *shown = true;
    if (shot) { /* the screenshot waits for its frame: a rare stall */
        a->want_shot = false;
        if ((vr = vkWaitForFences(v->device, 1, &f->fence, VK_TRUE, UINT64_MAX)) != VK_SUCCESS)
            return vk_error(vr, "vkWaitForFences");
        const char *path = a->shot_path;
        if (!path) {
            if (next_screenshot_name(a) != EXIT_OK) return cli_fail("view", VXR_ERROR_IO, NULL);
            path = a->shot_name;
        }
        if ((r = write_png(path, vxr_target_colors(a->shot), a->cam.width, a->cam.height, &err)) !=
            VXR_OK) {
            if (a->shot_path) return cli_fail(path, r, &err);
            fprintf(stderr, "vxr: %s: %s\n", path, err.message);
        } else if (!a->args->r.json) {
            printf("wrote %s\n", path);
            fflush(stdout);
        }
    }
    return EXIT_OK;
}

static void update_title(app *a, double now) {
    a->frame_n++;
    a->frame_sum += now - a->last_time;
    if (a->frame_index++ >= 2) {
        a->all_frame_sum += now - a->last_time;
        a->all_frame_n++;
    }
    a->last_time = now;
    if (now < a->title_at) return;
    a->title_at = now + 0.25;
    if (a->frame_n) a->frame_ms = 1e3 * a->frame_sum / a->frame_n;
    if (a->gpu_n) a->gpu_ms = a->gpu_sum / a->gpu_n;
    a->frame_sum = a->gpu_sum = 0;
    a->frame_n = a->gpu_n = 0;
    char title[1024];
    readout(a, title, sizeof title);
    glfwSetWindowTitle(a->window, title);
}

static int run(app *a) {
    const view_args *va = a->args;
    uint64_t index = 0;
    long shown_frames = 0;
    bool resized = false, dropped = false;
    double deadline = 0;
    a->last_time = glfwGetTime();
    while (!glfwWindowShouldClose(a->window)) {
        glfwPollEvents();
        if (a->drop[0] && !open_dropped(a) && va->drop) return EXIT_INPUT;
        int w, h;
        glfwGetFramebufferSize(a->window, &w, &h);
        if (w <= 0 || h <= 0) { /* minimised: nothing to draw into */
            glfwWaitEvents();
            a->last_time = glfwGetTime();
            continue;
        }
        double now = glfwGetTime();
        fly_keys(a, (float)fmin(now - a->last_time, 0.1));
        bool last = va->frames && shown_frames == va->frames - 1;
        if (last && va->resize_w && (w != (int)va->resize_w || h != (int)va->resize_h)) {
            /* the resize has not arrived yet: keep drawing, for 10 s at most */
            if (deadline == 0) deadline = now + 10.0;
            last = false;
            if (now > deadline) {
                fprintf(stderr, "vxr: view: the window did not become %ux%u (it is %dx%d)\n",
                        va->resize_w, va->resize_h, w, h);
                return EXIT_INPUT;
            }
        }
        if (last && va->screenshot) {
            a->want_shot = true;
            a->shot_path = va->screenshot;
        }
        bool shown;
        int status = frame(a, index, &shown);
        if (status != EXIT_OK) return status;
        if (!shown) continue;
        index++;
        update_title(a, now);
        if (va->frames && !last && shown_frames < va->frames - 1) shown_frames++;
        if (va->resize_w && !resized && shown_frames >= va->frames / 2) {
            glfwSetWindowSize(a->window, (int)va->resize_w, (int)va->resize_h);
            resized = true;
        }
        if (va->drop && !dropped && shown_frames >= va->frames / 3) {
            snprintf(a->drop, sizeof a->drop, "%s", va->drop);
            dropped = true;
        }
        if (last) break;
    }
    if (va->frames && shown_frames < va->frames - 1) {
        fprintf(stderr, "vxr: view: the window was closed after %ld of %ld frames\n", shown_frames,
                va->frames);
        return EXIT_INPUT;
    }
    /* the picks of the frames still in flight, oldest first */
    vkDeviceWaitIdle(a->vk.device);
    for (uint64_t i = 0; i < VIEW_FRAMES; i++)
        finish_frame(a, &a->vk.frames[(index + i) % VIEW_FRAMES]);
    return EXIT_OK;
}

/* --- arguments and setup ------------------------------------------------------- */

static bool parse_pair(const char *s, char sep, uint32_t *x, uint32_t *y) {
    char *end;
    unsigned long a = strtoul(s, &end, 10);
    if (end == s || *end != sep) return false;
    const char *p = end + 1;
    unsigned long b = strtoul(p, &end, 10);
    if (end == p || *end || a > 16384 || b > 16384) return false;
    *x = (uint32_t)a;
    *y = (uint32_t)b;
    return true;
}

/* [SCENE] [camera options] [--grid N] [--no-cull] [--validate] [--frames N
 * [--screenshot IMG.png] [--resize WxH]] [--cursor X,Y]. */
static bool parse_view_args(int argc, char **argv, view_args *va) {
    memset(va, 0, sizeof *va);
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest) return cli_usage("view: out of memory"), false;
    int n = 0;
    bool scene = false, ok = true;
    for (int i = 0; i < argc && ok; i++) {
        const char *o = argv[i];
        bool has_value = i + 1 < argc;
        if (!strcmp(o, "--frames") && has_value) {
            char *end;
            va->frames = strtol(argv[++i], &end, 10);
            if (*end || va->frames < 1 || va->frames > 1000000)
                ok = !cli_usage("view: --frames takes 1..1000000, not '%s'", argv[i]);
        } else if (!strcmp(o, "--screenshot") && has_value) {
            va->screenshot = argv[++i];
        } else if (!strcmp(o, "--resize") && has_value) {
            if (!parse_pair(argv[++i], 'x', &va->resize_w, &va->resize_h) || !va->resize_w ||
                !va->resize_h)
                ok = !cli_usage("view: --resize takes WxH (1..16384 each), not '%s'", argv[i]);
        } else if (!strcmp(o, "--drop") && has_value) {
            va->drop = argv[++i];
        } else if (!strcmp(o, "--cursor") && has_value) {
            if (!parse_pair(argv[++i], ',', &va->cursor[0], &va->cursor[1]))
                ok = !cli_usage("view: --cursor takes X,Y pixels, not '%s'", argv[i]);
            va->have_cursor = true;
        } else {
            /* the options of parse_render_args that take a value */
            static const char *const valued[] = {"--eye",  "--target", "--fov", "--size",
                                                 "--grid", "--out",    "--hits"};
            bool takes = false;
            for (size_t k = 0; k < sizeof valued / sizeof *valued; k++)
                takes |= !strcmp(o, valued[k]);
            rest[n++] = argv[i];
            if (takes && has_value)
                rest[n++] = argv[++i];
            else if (o[0] != '-' || !o[1])
                scene = true;
        }
    }
    if (ok && !scene) rest[n++] = "@demo";
    ok = ok && parse_render_args("view", n, rest, DEFAULT_WIDTH, DEFAULT_HEIGHT, &va->r);
    free(rest);
    if (!ok) return false;
    if (va->r.out || va->r.hits) return cli_usage("view: --out and --hits belong to render"), false;
    if ((va->screenshot || va->resize_w || va->drop || va->r.json) && !va->frames)
        return cli_usage("view: --screenshot, --resize, --drop and --json need --frames N"), false;
    return true;
}

static char glfw_message[512];

static void on_glfw_error(int code, const char *description) {
    (void)code;
    snprintf(glfw_message, sizeof glfw_message, "%s", description ? description : "");
}

int cmd_view(int argc, char **argv) {
    view_args va;
    if (!parse_view_args(argc, argv, &va)) return EXIT_USAGE;
    if (va.r.have_eye) {
        vxr_camera c = va.r.cam;
        if (vxr_camera_setup(&c) != VXR_OK)
            return cli_usage("view: the camera needs --eye different from --target");
    }
    vxr_scene *scene;
    vxr_error err = {{0}};
    vxr_result r = vxr_scene_load(va.r.scene, &scene, &err);
    if (r != VXR_OK) return cli_fail(va.r.scene, r, &err);

    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) {
        fprintf(stderr, "vxr: view: no display (%s)\n",
                glfw_message[0] ? glfw_message : "glfwInit failed");
        vxr_scene_destroy(scene);
        return EXIT_NO_DEVICE;
    }
    int status = EXIT_OK;
    app *a = calloc(1, sizeof *a);
    if (!a) {
        glfwTerminate();
        vxr_scene_destroy(scene);
        return cli_fail("view", VXR_ERROR_MEMORY, NULL);
    }
    a->args = &va;
    a->grid = va.r.grid;
    a->cull = va.r.cull;
    a->cam.fov_deg = va.r.cam.fov_deg;
    set_scene(a, scene, va.r.scene, &va);
    if (!glfwVulkanSupported()) {
        fprintf(stderr, "vxr: view: no usable Vulkan device: GLFW finds no Vulkan loader\n");
        status = EXIT_NO_DEVICE;
    } else {
        glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
        a->window =
            glfwCreateWindow((int)va.r.cam.width, (int)va.r.cam.height, "vxr view", NULL, NULL);
        if (!a->window) {
            fprintf(stderr, "vxr: view: no display: cannot open a window (%s)\n", glfw_message);
            status = EXIT_NO_DEVICE;
        }
    }
    if (status == EXIT_OK && (r = view_vk_open(&a->vk, a->window, va.r.validate, &err)) != VXR_OK)
        status = gpu_fail("view", r, &err);
    if (status == EXIT_OK) {
        glfwSetWindowUserPointer(a->window, a);
        glfwSetKeyCallback(a->window, on_key);
        glfwSetMouseButtonCallback(a->window, on_button);
        glfwSetCursorPosCallback(a->window, on_cursor);
        glfwSetScrollCallback(a->window, on_scroll);
        glfwSetDropCallback(a->window, on_drop);
        glfwSetFramebufferSizeCallback(a->window, on_resize);
        a->swapchain_dirty = true;
        if (!va.frames && isatty(STDOUT_FILENO)) fputs(keys_help, stdout);
        status = run(a);
    }
    if (a->vk.device) {
        vkDeviceWaitIdle(a->vk.device);
        for (int i = 0; i < VIEW_FRAMES; i++) a->vk.frames[i].upload = NULL;
        vxr_renderer_destroy(a->renderer);
        vxr_target_destroy(a->target);
        vxr_target_destroy(a->shot);
    }
    if (status == EXIT_OK && va.frames) print_summary(a);
    uint32_t messages = view_vk_close(&a->vk);
    if (status == EXIT_OK && va.r.validate && messages) {
        fprintf(stderr, "vxr: view: %u validation messages\n", messages);
        status = EXIT_INPUT;
    }
    if (a->window) glfwDestroyWindow(a->window);
    glfwTerminate();
    vxr_culler_destroy(a->culler);
    vxr_scene_destroy(a->scene);
    free(a);
    return status;
}
