/* What vxr render, vxr bench render and vxr pickcheck share: the camera
 * options of DESIGN.md §5, PNG output and the GPU failure exit. */
#ifndef VXR_TOOLS_RENDER_H
#define VXR_TOOLS_RENDER_H

#include "cli.h"
#include "gpu.h"

typedef struct render_args {
    const char *scene, *out, *hits;
    vxr_camera cam;
    bool have_eye, have_target;
    uint32_t grid;
    bool json, validate, cull;
} render_args;

/* SCENE [--eye X,Y,Z --target X,Y,Z] [--fov DEG] [--size WxH] [--grid N]
 * [--out IMG.png] [--hits FILE] [--json] [--validate] [--no-cull]; the size
 * defaults to width x height. False after a usage message. */
bool parse_render_args(const char *cmd, int argc, char **argv, uint32_t width, uint32_t height,
                       render_args *a);
/* Loads a->scene, sets the camera (bench pick's orbit camera `view`, 0..7,
 * when no --eye was given), culls by view distance from the eye unless
 * --no-cull and opens the GPU with validation as asked. EXIT_OK with
 * *scene (to destroy) and *gpu (to close); else the exit status, after a
 * message, with nothing left open. */
int render_open(const char *cmd, render_args *a, int view, vxr_scene **scene, cli_gpu *gpu);
/* Prints the failure; VXR_ERROR_DEVICE gives exit status 3. */
int gpu_fail(const char *what, vxr_result r, const vxr_error *err);
/* Writes w x h RGBA8 pixels (red low, rows from the top) as a PNG. */
vxr_result write_png(const char *path, const uint32_t *rgba, uint32_t w, uint32_t h,
                     vxr_error *err);

#endif
