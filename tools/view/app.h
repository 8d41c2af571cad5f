/* vxr view's state, shared by its window loop (main.c), its input
 * handlers (input.c) and its edit mode (edit.c). */
#ifndef VXR_VIEW_APP_H
#define VXR_VIEW_APP_H

#include "camera.h"
#include "view.h"
#include "vxr/edit.h"
#include "vxr/world.h"

enum { DRAG_NONE, DRAG_ORBIT, DRAG_PAN };

typedef struct view_args {
    cli_view_args r;
    long frames;            /* 0: until the window closes */
    const char *screenshot; /* with frames: the last frame's image */
    uint32_t resize_w, resize_h;
    bool have_cursor;
    uint32_t cursor[2];
    const char *drop;        /* with frames: opened as if dropped, a third of the way */
    bool edit;               /* start in edit mode */
    const char *save;        /* Ctrl+S's file (VIEW_SAVE_DEFAULT when NULL) */
    const char *edit_script; /* with frames: edits applied at given frames */
    float view_distance;     /* a world's (0: its default) */
    uint64_t budget;         /* a world's resident bytes (0: no limit) */
} view_args;

#define VIEW_SAVE_DEFAULT "vxr-edit.vox"
#define ERROR_SECONDS     8.0 /* how long an error stays in the title */

/* What edit mode does (view_edit_do); the first four at a window pixel. */
typedef enum view_edit_action {
    EDIT_PLACE,
    EDIT_REMOVE,
    EDIT_PAINT,
    EDIT_PICK_COLOUR,
    EDIT_NEXT_COLOUR,
    EDIT_PREV_COLOUR,
    EDIT_UNDO,
    EDIT_REDO,
    EDIT_SAVE,
    EDIT_ACTIONS
} view_edit_action;

/* view_edit_do's outcome: done, nothing to do (nothing under the pixel,
 * nothing to undo), or failed (a vxr error). The title says which. */
enum { EDIT_DONE, EDIT_NOTHING, EDIT_FAILED };

/* --edit-script: one step a line, frames never decreasing: an edit
 * action, or (for scripted runs such as the soak test) a camera or a
 * culling change. */
typedef enum view_step_kind { STEP_EDIT, STEP_CAMERA, STEP_CULL, STEP_FILE_CAMERA } view_step_kind;

typedef struct view_step {
    long frame;
    view_step_kind kind;
    view_edit_action action; /* STEP_EDIT */
    double x, y;
    char *path;              /* save's file, or NULL */
    float eye[3], target[3]; /* STEP_CAMERA */
    bool cull;               /* STEP_CULL */
    int slot;                /* STEP_FILE_CAMERA */
    size_t line;
} view_step;

typedef struct view_script {
    const char *path;
    view_step *steps;
    size_t count, next;
} view_script;

typedef struct app {
    GLFWwindow *window;
    view_vk vk;
    const view_args *args;
    vxr_scene *scene;
    vxr_world *world; /* a streamed world: it owns scene (world.c) */
    vxr_world_status world_status;
    bool world_complete; /* this frame waits for the chunks it wants */
    vxr_culler *culler;
    char scene_name[512];
    uint32_t scene_gen;
    vxr_renderer *renderer;
    vxr_target *target, *shot; /* shot: with readback, for screenshots */
    bool swapchain_dirty;

    vxr_camera cam;                    /* eye, target, fov; derived per frame */
    float home_eye[3], home_target[3]; /* R */
    vxr_camera host_cam;               /* --camera FILE at the window's size: while the
                                          camera is at home, frames use it (no overlay) */
    bool host_cam_ok;
    bool fly, skip_delta;
    float fly_speed; /* world units per second */
    int drag;        /* DRAG_* */
    double last_x, last_y;

    uint32_t grid;
    float lod; /* the level of detail's bias of flat frames (--lod); mouse picks are of voxels */
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
    /* with --frames: resident memory after the warm-up (the first tenth of
     * the frames), lowest and highest, in KiB; 0 where unknown */
    uint64_t rss_min_kb, rss_max_kb;

    /* edit mode (edit.c) */
    bool editing;
    vxr_editor *editor;       /* made on first use; it made the models live */
    vxr_picker *picker;       /* edit mode's CPU picks, over the scene as it is now */
    uint32_t colour_index;    /* palette index of the current colour; 0: colour_rgba only */
    uint32_t colour_rgba;     /* the current colour, RGBA8 */
    int press;                /* the mouse button that may still click, or -1 */
    double press_x, press_y;  /* where it was pressed (window coordinates) */
    bool painting;            /* a left drag paints */
    vxr_pick painted;         /* the cube the drag painted last */
    vxr_update_info update;   /* the last renderer update */
    uint64_t updated_version; /* the scene's version the renderer has */
    view_script script;

    /* light (light.c) */
    vxr_light light;      /* the frames' light (a sample a frame) */
    float ao_radius;      /* O turns occlusion off (radius 0) and back to this */
    vxr_camera accum_cam; /* what the target's sums were made with */
    vxr_light accum_light;
    uint64_t accum_version;
    uint32_t samples; /* per pixel in the image shown */
    bool denoised;    /* it was denoised */
} app;

/* The keys, printed on H and at the start on a terminal. */
extern const char view_keys_help[];

/* Back to the starting camera (R). */
void view_home(app *a);
/* The number keys: the camera to slot K of the .vox the scene came from;
 * false (a->message says why, the camera unchanged) when it has no usable
 * slot K. */
bool view_file_camera(app *a, int slot);
/* Installs the GLFW input callbacks on a's window (its user pointer is a). */
void view_input_install(app *a);
/* Reads vxr view's arguments (argv without the command) into va; false,
 * with the reason on stderr, for a bad one. */
bool view_parse_args(int argc, char **argv, view_args *va);
/* Moves the camera by the fly keys held now (WASD, Q/E, shift), scaled by
 * the frame's duration dt in seconds; nothing outside fly mode. */
void view_fly_keys(app *a, float dt);

/* The title: scene, times, instances, grid, the pick, edit mode's part
 * and the latest message (title.c). */
void view_readout(const app *a, char *dest, size_t size);

/* Worlds (world.c). A SCENE argument opened for the viewer: a world
 * streams (*world set, *scene its scene), anything else loads whole. */
vxr_result view_open_scene(const view_args *va, const char *path, vxr_scene **scene,
                           vxr_world **world, vxr_error *err);
/* Frees what view_open_scene gave. */
void view_scene_free(vxr_scene *scene, vxr_world *world);
/* Each frame: residency around the eye (complete: waits for the chunks it
 * asks for, every frame of a --frames run). */
void view_world_frame(app *a, bool complete);
/* On leaving: a world's chunks edited since they were saved are written
 * back (a generated world's, like a built-in scene's, are not kept).
 * EXIT_OK, or the failure printed and EXIT_INPUT. */
int view_world_exit(app *a);
/* A frame was shown at `now` (seconds): the title's averages, and the
 * title itself every TITLE_SECONDS. */
void view_update_title(app *a, double now);
/* Samples resident memory after a shown frame, once a tenth of --frames
 * is over (the summary's rss range). */
void view_sample_rss(app *a, long shown_frames);
/* After --frames: the readout, or with --json the last pick record and a
 * summary line (title.c). */
void view_print_summary(const app *a);

/* Edit mode (edit.c). Releases the editor and the picker, before the
 * scene they read goes. */
void view_edit_release(app *a);
/* Edit mode on or off; on makes the editor when there is none (the
 * models go live) and takes the current colour from the scene's palette. */
void view_edit_mode(app *a, bool on);
/* Edit mode's pick for the overlay: the CPU pick of image pixel px with
 * a's camera (after setup) into a->pick and a->pick_ray. */
void view_edit_hover(app *a, const uint32_t px[2]);
/* Does one action, at window coordinates x, y for the first four; path
 * (may be NULL: --save's) for EDIT_SAVE. The title says what happened.
 * Returns EDIT_DONE, EDIT_NOTHING or EDIT_FAILED. */
int view_edit_do(app *a, view_edit_action what, double x, double y, const char *path);
/* Edit mode's share of the input callbacks; true when it took the event.
 * view_edit_cursor gets the previous position (x0, y0) and the new one. */
bool view_edit_key(app *a, int key, int action, int mods);
bool view_edit_button(app *a, int button, int action, int mods, double x, double y);
bool view_edit_cursor(app *a, double x0, double y0, double x, double y);
/* The title's edit part: " | edit ..." (nothing outside edit mode). */
void view_edit_readout(const app *a, char *dest, size_t size);

/* light.c: the frames' light from the arguments; L, O and the arrow keys
 * (true when key was one of them); the frame into the window's target (or,
 * with shot, the samples it shows into the screenshot target): *dest is
 * the target to present. */
void view_light_init(app *a);
bool view_light_key(app *a, int key);
vxr_result view_light_render(app *a, vxr_target **dest, bool shot, VkCommandBuffer cmd,
                             vxr_error *err);
/* Releases the editor, the picker and the script. */
void view_edit_free(app *a);

/* Reads an --edit-script FILE for a run of frames frames: EXIT_OK, or
 * EXIT_INPUT after "vxr: FILE:LINE: ..." on stderr. */
int view_script_load(view_script *s, const char *path, long frames);
/* Applies the script's steps up to frame: EXIT_OK, or EXIT_INPUT after a
 * line naming the step that did nothing or failed. */
int view_script_run(app *a, long frame);

#endif
