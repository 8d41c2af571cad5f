/* vxr render: a frame on the GPU to a PNG, and (--hits) its pick records. */
#include <errno.h>
#include <string.h>
#include "commands.h"
#include "gpu.h"

/* The GPU's pick records as `vxr pick` prints them, row by row from the top. */
static int write_hits(const char *path, const vxr_scene *scene, const vxr_camera *cam,
                      const vxr_gpu_pick *recs) {
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "vxr: %s: cannot open: %s\n", path, strerror(errno));
        return EXIT_INPUT;
    }
    for (uint32_t j = 0; j < cam->height; j++)
        for (uint32_t i = 0; i < cam->width; i++) {
            vxr_ray ray;
            vxr_pick p;
            vxr_camera_ray(cam, i, j, &ray);
            char what[48];
            vxr_error err = {{0}};
            snprintf(what, sizeof what, "pixel %u,%u", i, j);
            vxr_result r =
                cli_expand_record(scene, &ray, &recs[(size_t)j * cam->width + i], what, &p, &err);
            if (r != VXR_OK) {
                fclose(f);
                return cli_fail(path, r, &err);
            }
            cli_print_pick(f, &p);
        }
    if (ferror(f) | fclose(f)) {
        fprintf(stderr, "vxr: %s: cannot write: %s\n", path, strerror(errno));
        return EXIT_INPUT;
    }
    return EXIT_OK;
}

int cmd_render(int argc, char **argv) {
    cli_view_args a;
    if (!cli_view_args_parse(&a, "render", argc, argv, CLI_WIDTH, CLI_HEIGHT)) return EXIT_USAGE;
    if (!a.have_eye && !a.camera)
        return cli_usage("render: expected --eye X,Y,Z --target X,Y,Z or --camera FILE");
    if (!a.out) return cli_usage("render: expected --out IMG.png");
    vxr_scene *scene;
    cli_gpu gpu;
    int status = cli_view_open("render", &a, 0, &scene, &gpu);
    if (status != EXIT_OK) return status;
    vxr_error err = {{0}};
    vxr_result r;
    vxr_renderer *ren = NULL;
    vxr_target *target = NULL;
    vxr_target_desc td = {.width = a.cam.width,
                          .height = a.cam.height,
                          .picks = a.hits != NULL,
                          .readback = true,
                          .depth = a.depth != NULL};
    if ((r = cli_gpu_begin(&gpu, &err)) == VXR_OK &&
        (r = vxr_renderer_create(gpu.ctx, scene, gpu.cmd, &ren, &err)) == VXR_OK &&
        (r = vxr_target_create(gpu.ctx, &td, &target, &err)) == VXR_OK &&
        (r = vxr_renderer_render(ren, target, &a.cam, a.grid, gpu.cmd, &err)) == VXR_OK)
        r = cli_gpu_submit(&gpu, &err);
    if (r != VXR_OK) {
        status = cli_fail(a.scene, r, &err);
    } else if ((r = cli_write_png(a.out, vxr_target_colors(target), a.cam.width, a.cam.height,
                                  &err)) != VXR_OK) {
        status = cli_fail(a.out, r, &err);
    } else if (a.depth && (r = vxr_write_file(a.depth, vxr_target_depth(target),
                                              (size_t)a.cam.width * a.cam.height * sizeof(float),
                                              &err)) != VXR_OK) {
        status = cli_fail(a.depth, r, &err);
    } else if (a.hits) {
        status = write_hits(a.hits, scene, &a.cam, vxr_target_picks(target));
    }
    status = cli_validation_status("render", &gpu, a.validate, status);
    vkDeviceWaitIdle(gpu.info.device);
    vxr_target_destroy(target);
    vxr_renderer_destroy(ren);
    cli_gpu_close(&gpu);
    vxr_scene_destroy(scene);
    return status;
}
