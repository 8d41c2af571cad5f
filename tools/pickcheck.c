/* vxr pickcheck: the GPU's pick record for every pixel against the CPU
 * picker on the same ray (DESIGN.md §5, issue "pick validation"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "render.h"
#include "vxr/pickcheck.h"

enum { SHOW = 20 }; /* mismatch lines before only a count */

static void describe(const vxr_pick *p, char *dest, size_t size) {
    if (!p->hit) {
        snprintf(dest, size, "miss");
        return;
    }
    snprintf(dest, size, "instance %u voxel %d,%d,%d size %u face %d corner %d edge %d t %.9g",
             p->instance, p->voxel[0], p->voxel[1], p->voxel[2], p->size, p->face, p->corner,
             p->edge, (double)p->t);
}

int cmd_pickcheck(int argc, char **argv) {
    render_args a;
    double eps = -1;
    int view = -1;
    /* --tolerance EPS is pickcheck's own; the rest are render's options. */
    char **rest = malloc(((size_t)argc + 1) * sizeof *rest);
    int n = 0;
    if (!rest) return cli_fail("pickcheck", VXR_ERROR_MEMORY, NULL);
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--tolerance") && i + 1 < argc) {
            char *end;
            eps = strtod(argv[++i], &end);
            if (*end || !(eps >= 0 && eps < 1)) {
                free(rest);
                return cli_usage("pickcheck: --tolerance takes voxels in [0, 1), not '%s'",
                                 argv[i]);
            }
        } else if (!strcmp(argv[i], "--view") && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 0 || v > 7) {
                free(rest);
                return cli_usage("pickcheck: --view takes an orbit camera 0..7, not '%s'", argv[i]);
            }
            view = (int)v;
        } else {
            rest[n++] = argv[i];
        }
    }
    bool ok = parse_render_args("pickcheck", n, rest, 128, 96, &a);
    free(rest);
    if (!ok) return EXIT_USAGE;
    if (a.hits) return cli_usage("pickcheck: --hits belongs to render");
    if (view >= 0 && a.have_eye) return cli_usage("pickcheck: --view or --eye, not both");
    const char *mask_path = a.out ? a.out : "pickcheck-mask.png";
    vxr_scene *scene;
    cli_gpu gpu;
    int status = render_open("pickcheck", &a, view > 0 ? view : 0, &scene, &gpu);
    if (status != EXIT_OK) return status;
    vxr_error err = {{0}};
    vxr_result r;
    /* Exact on a CPU device (lavapipe); elsewhere the documented tolerance. */
    if (eps < 0) eps = gpu.info.device_type == VK_PHYSICAL_DEVICE_TYPE_CPU ? 0.0 : 1e-4;
    vxr_renderer *ren = NULL;
    vxr_target *target = NULL;
    vxr_picker *picker = NULL;
    vxr_target_desc td = {a.cam.width, a.cam.height, true, true};
    if ((r = cli_gpu_begin(&gpu, &err)) == VXR_OK &&
        (r = vxr_renderer_create(gpu.ctx, scene, gpu.cmd, &ren, &err)) == VXR_OK &&
        (r = vxr_target_create(gpu.ctx, &td, &target, &err)) == VXR_OK &&
        (r = vxr_renderer_render(ren, target, &a.cam, a.grid, gpu.cmd, &err)) == VXR_OK)
        r = cli_gpu_submit(&gpu, &err);
    if (r != VXR_OK) status = gpu_fail(a.scene, r, &err);
    if (status == EXIT_OK && vxr_picker_create(scene, &picker) != VXR_OK)
        status = cli_fail(a.scene, VXR_ERROR_MEMORY, NULL);
    uint32_t *mask = NULL;
    size_t pixels = (size_t)a.cam.width * a.cam.height;
    if (status == EXIT_OK && !(mask = malloc(pixels * sizeof *mask)))
        status = cli_fail(a.scene, VXR_ERROR_MEMORY, NULL);
    if (status == EXIT_OK) {
        const vxr_gpu_pick *recs = vxr_target_picks(target);
        const uint32_t *colors = vxr_target_colors(target);
        size_t passed = 0, failed = 0, forgiven = 0, hits = 0;
        for (uint32_t j = 0; j < a.cam.height; j++)
            for (uint32_t i = 0; i < a.cam.width; i++) {
                size_t k = (size_t)j * a.cam.width + i;
                vxr_ray ray;
                vxr_pick cpu, g;
                vxr_camera_ray(&a.cam, i, j, &ray);
                vxr_pick_ray(picker, &ray, a.grid, &cpu);
                uint32_t diff = vxr_pick_expand(scene, &ray, &recs[k], &g) == VXR_OK
                                    ? vxr_pick_diff(&cpu, &g)
                                    : VXR_DIFF_HIT;
                hits += cpu.hit != 0;
                /* The mask: the image dimmed, failures red, forgiven yellow. */
                uint32_t c = colors[k], grey = ((c & 255) + (c >> 8 & 255) + (c >> 16 & 255)) / 6;
                mask[k] = 0xff000000u | grey * 0x010101u;
                if (!diff) {
                    passed++;
                    continue;
                }
                if (eps > 0 && vxr_pick_near_boundary(scene, &ray, &cpu, &g, eps)) {
                    forgiven++;
                    mask[k] = 0xff00ffffu;
                    continue;
                }
                mask[k] = 0xff0000ffu;
                if (failed++ < SHOW) {
                    char what[96], a_s[160], b_s[160];
                    vxr_pick_diff_names(diff, what, sizeof what);
                    describe(&cpu, a_s, sizeof a_s);
                    describe(&g, b_s, sizeof b_s);
                    printf("pixel %u,%u: %s differ: cpu %s; gpu %s\n", i, j, what, a_s, b_s);
                }
            }
        if (failed > SHOW) printf("... and %zu more mismatching pixels\n", failed - SHOW);
        printf("%s: %ux%u on %s, grid %u, %zu hits; tolerance %g voxels: %zu forgiven near "
               "cell boundaries\n",
               a.scene, a.cam.width, a.cam.height, gpu.info.device_name, a.grid, hits, eps,
               forgiven);
        if (failed) {
            r = write_png(mask_path, mask, a.cam.width, a.cam.height, &err);
            if (r != VXR_OK)
                cli_fail(mask_path, r, &err);
            else
                printf("mismatch mask: %s\n", mask_path);
        }
        printf("%zu passed, %zu failed\n", passed + forgiven, failed);
        status = failed ? EXIT_INPUT : EXIT_OK;
    }
    if (status == EXIT_OK && a.validate && vxr_context_validation_messages(gpu.ctx)) {
        fprintf(stderr, "vxr: pickcheck: %u validation messages\n",
                vxr_context_validation_messages(gpu.ctx));
        status = EXIT_INPUT;
    }
    free(mask);
    vxr_picker_destroy(picker);
    if (gpu.info.device) vkDeviceWaitIdle(gpu.info.device);
    vxr_target_destroy(target);
    vxr_renderer_destroy(ren);
    cli_gpu_close(&gpu);
    vxr_scene_destroy(scene);
    return status;
}
