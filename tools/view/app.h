/* vxr view's state, shared by its window loop (main.c) and its input
 * handlers (input.c). */
#ifndef VXR_VIEW_APP_H
#define VXR_VIEW_APP_H

#include "camera.h"
#include "view.h"

enum { DRAG_NONE, DRAG_ORBIT, DRAG_PAN };

typedef struct view_args {
    cli_view_args r;
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
    int drag;        /* DRAG_* */
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

/* The keys, printed on H and at the start on a terminal. */
extern const char view_keys_help[];

/* Back to the starting camera (R). */
void view_home(app *a);
/* Installs the GLFW input callbacks on a's window (its user pointer is a). */
void view_input_install(app *a);
/* Moves the camera by the fly keys held now (WASD, Q/E, shift), scaled by
 * the frame's duration dt in seconds; nothing outside fly mode. */
void view_fly_keys(app *a, float dt);

#endif
