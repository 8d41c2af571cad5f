/* vxr render: a frame on the GPU to a PNG, and (--hits) its pick records,
 * (--depth) its depths and (--aov NAME:FILE) its other per-pixel outputs.
 * All outputs land together or none does: each is a temporary file until
 * every one has been written. */
#include <errno.h>
#include <string.h>
#include "commands.h"
#include "gpu.h"

/* The GPU's pick records as `vxr pick` prints them, row by row from the top. */
static vxr_result write_hits(FILE *f, const vxr_scene *scene, const vxr_camera *cam,
                             const vxr_gpu_pick *recs, vxr_error *err) {
    for (uint32_t j = 0; j < cam->height; j++)
        for (uint32_t i = 0; i < cam->width; i++) {
            vxr_ray ray;
            vxr_pick p;
            vxr_camera_ray(cam, i, j, &ray);
            char what[48];
            snprintf(what, sizeof what, "pixel %u,%u", i, j);
            vxr_result r =
                cli_expand_record(scene, &ray, &recs[(size_t)j * cam->width + i], what, &p, err);
            if (r != VXR_OK) return r;
            cli_print_pick(f, &p);
        }
    return VXR_OK;
}

static vxr_result write_bytes(FILE *f, const void *data, size_t size, vxr_error *err) {
    if (fwrite(data, 1, size, f) == size) return VXR_OK;
    snprintf(err->message, sizeof err->message, "cannot write: %s", strerror(errno));
    return VXR_ERROR_IO;
}

enum { OUT_PNG, OUT_DEPTH, OUT_HITS, OUT_AOV, OUTPUTS = OUT_AOV + CLI_AOV_KINDS };

/* One --aov output: its plane of the target's outputs (or the depth). */
static vxr_result write_aov(FILE *f, const vxr_target *t, const vxr_camera *cam, int kind,
                            vxr_error *err) {
    const size_t pixels = (size_t)cam->width * cam->height;
    const cli_aov_kind *k = &cli_aov_kinds[kind];
    const float *data =
        kind == CLI_AOV_DEPTH ? vxr_target_depth(t) : vxr_target_aovs(t) + k->plane * pixels;
    return write_bytes(f, data, pixels * k->floats * sizeof(float), err);
}

int cmd_render(int argc, char **argv) {
    cli_view_args a;
    if (!cli_view_args_parse(&a, "render", argc, argv, CLI_WIDTH, CLI_HEIGHT)) return EXIT_USAGE;
    if (!a.out) return cli_usage("render: expected --out IMG.png");
    /* no two outputs over each other: the last written would win */
    static const char *const options[OUTPUTS] = {"--out", "--depth", "--hits", "--aov", "--aov",
                                                 "--aov", "--aov",   "--aov",  "--aov", "--aov"};
    const char *paths[OUTPUTS] = {a.out, a.depth, a.hits};
    for (int k = 0; k < CLI_AOV_KINDS; k++) paths[OUT_AOV + k] = a.light.aov_path[k];
    int status = cli_distinct_outputs(OUTPUTS, options, paths);
    if (status != EXIT_OK) return status;
    /* every output's temporary file first: a path that cannot be written
     * fails before the frame is rendered, and leaves nothing behind */
    vxr_output *outs[OUTPUTS] = {NULL};
    vxr_error err = {{0}};
    vxr_result r = VXR_OK;
    for (int k = 0; k < OUTPUTS && status == EXIT_OK; k++)
        if (paths[k] && (r = vxr_output_open(paths[k], &outs[k], &err)) != VXR_OK)
            status = cli_fail(paths[k], r, &err);
    vxr_scene *scene = NULL;
    cli_gpu gpu;
    if (status == EXIT_OK) status = cli_view_open("render", &a, 0, &scene, &gpu);
    if (status != EXIT_OK) {
        for (int k = 0; k < OUTPUTS; k++) vxr_output_abort(outs[k]);
        return status;
    }
    vxr_renderer *ren = NULL;
    vxr_target *target = NULL;
    const bool lit = a.light.light.model != VXR_LIGHT_FLAT;
    vxr_target_desc td = {.width = a.cam.width,
                          .height = a.cam.height,
                          .picks = a.hits != NULL,
                          .readback = true,
                          .depth = a.depth != NULL || a.light.aov_path[CLI_AOV_DEPTH],
                          .light = lit,
                          .aovs = a.light.denoise ||
                                  a.light.aovs > (a.light.aov_path[CLI_AOV_DEPTH] ? 1 : 0)};
    vxr_camera prev;
    if (a.light.prev_camera && (status = cli_read_camera(a.light.prev_camera, a.cam.width,
                                                         a.cam.height, &prev)) != EXIT_OK) {
        for (int k = 0; k < OUTPUTS; k++) vxr_output_abort(outs[k]);
        cli_gpu_close(&gpu);
        vxr_scene_destroy(scene);
        return status;
    }
    if ((r = cli_gpu_begin(&gpu, &err)) == VXR_OK &&
        (r = vxr_renderer_create(gpu.ctx, scene, gpu.cmd, &ren, &err)) == VXR_OK &&
        (r = vxr_target_create(gpu.ctx, &td, &target, &err)) == VXR_OK &&
        (r = cli_gpu_submit(&gpu, &err)) == VXR_OK)
        r = cli_render_frames(&gpu, ren, target, &a, a.light.prev_camera ? &prev : NULL, &err);
    int failed = -1; /* the output that failed, if any */
    if (r != VXR_OK) {
        status = cli_fail(a.scene, r, &err);
    } else {
        const size_t depth_bytes = (size_t)a.cam.width * a.cam.height * sizeof(float);
        if ((r = cli_png_to(vxr_output_file(outs[OUT_PNG]), vxr_target_colors(target), a.cam.width,
                            a.cam.height, &err)) != VXR_OK ||
            (r = vxr_output_finish(outs[OUT_PNG], &err)) != VXR_OK) {
            failed = OUT_PNG;
        } else if (outs[OUT_DEPTH] &&
                   ((r = write_bytes(vxr_output_file(outs[OUT_DEPTH]), vxr_target_depth(target),
                                     depth_bytes, &err)) != VXR_OK ||
                    (r = vxr_output_finish(outs[OUT_DEPTH], &err)) != VXR_OK)) {
            failed = OUT_DEPTH;
        } else if (outs[OUT_HITS] &&
                   ((r = write_hits(vxr_output_file(outs[OUT_HITS]), scene, &a.cam,
                                    vxr_target_picks(target), &err)) != VXR_OK ||
                    (r = vxr_output_finish(outs[OUT_HITS], &err)) != VXR_OK)) {
            failed = OUT_HITS;
        }
        for (int k = 0; k < CLI_AOV_KINDS && failed < 0; k++)
            if (outs[OUT_AOV + k] && ((r = write_aov(vxr_output_file(outs[OUT_AOV + k]), target,
                                                     &a.cam, k, &err)) != VXR_OK ||
                                      (r = vxr_output_finish(outs[OUT_AOV + k], &err)) != VXR_OK))
                failed = OUT_AOV + k;
        if (failed >= 0) status = cli_fail(paths[failed], r, &err);
    }
    /* all written: put them in place */
    for (int k = 0; k < OUTPUTS; k++) {
        if (status == EXIT_OK && outs[k] && (r = vxr_output_commit(outs[k], &err)) != VXR_OK)
            status = cli_fail(paths[k], r, &err);
        else if (outs[k] && status != EXIT_OK)
            vxr_output_abort(outs[k]);
        outs[k] = NULL;
    }
    status = cli_validation_status("render", &gpu, a.validate, status);
    vkDeviceWaitIdle(gpu.info.device);
    vxr_target_destroy(target);
    vxr_renderer_destroy(ren);
    cli_gpu_close(&gpu);
    vxr_scene_destroy(scene);
    return status;
}
