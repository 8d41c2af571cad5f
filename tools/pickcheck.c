/* vxr pickcheck: the GPU's pick record for every pixel against the CPU
 * picker on the same ray (DESIGN.md §5, issue "pick validation"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "gpu.h"
#include "vxr/pickcheck.h"

enum { SHOW = 20 }; /* mismatch lines before only a count */
/* Default size: small enough to check every pixel in a moment. */
enum { DEFAULT_WIDTH = 128, DEFAULT_HEIGHT = 96 };
/* The vendor-GPU tolerance, voxels (vxr/pickcheck.h). */
#define DEFAULT_EPS 1e-4
/* The mismatch mask: the image dimmed, failures red, forgiven yellow. */
#define MASK_FAILED   0xff0000ffu
#define MASK_FORGIVEN 0xff00ffffu

/* A light frame's pixel k against the CPU reference: 0 when every output
 * is equal bit for bit, else the names of those that differ in dest. */
static int light_diff(const vxr_target *t, size_t pixels, size_t k, uint32_t gpu_rgba,
                      const vxr_lit_pixel *ref, char *dest, size_t size) {
    const float *aov = vxr_target_aovs(t);
    struct {
        const char *name;
        const void *gpu, *cpu;
        size_t bytes;
    } field[] = {
        {"colour", &gpu_rgba, &ref->rgba, 4},
        {"sun", aov + VXR_AOV_SUN * pixels + k, &ref->sun, 4},
        {"ao", aov + VXR_AOV_AO * pixels + k, &ref->ao, 4},
        {"albedo", aov + VXR_AOV_ALBEDO * pixels + 3 * k, ref->albedo, 12},
        {"normal", aov + VXR_AOV_NORMAL * pixels + 3 * k, ref->normal, 12},
        {"instance", aov + VXR_AOV_INSTANCE * pixels + k, &ref->instance, 4},
    };
    int n = 0;
    dest[0] = 0;
    for (size_t f = 0; f < sizeof field / sizeof *field; f++)
        if (memcmp(field[f].gpu, field[f].cpu, field[f].bytes)) {
            size_t used = strlen(dest);
            snprintf(dest + used, size - used, "%s%s", n++ ? ", " : "", field[f].name);
        }
    if (n) {
        float gs = aov[VXR_AOV_SUN * pixels + k], ga = aov[VXR_AOV_AO * pixels + k];
        size_t used = strlen(dest);
        snprintf(dest + used, size - used,
                 " (gpu colour %08x sun %.9g ao %.9g; cpu colour %08x sun %.9g ao %.9g)", gpu_rgba,
                 (double)gs, (double)ga, ref->rgba, (double)ref->sun, (double)ref->ao);
    }
    return n;
}

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
    cli_view_args a;
    double eps = -1;
    int view = -1;
    cli_view_args_init(&a, DEFAULT_WIDTH, DEFAULT_HEIGHT);
    for (int i = 0; i < argc; i++) {
        int took = cli_view_arg(&a, "pickcheck", argc, argv, &i);
        if (took < 0) return EXIT_USAGE;
        if (took) continue;
        if (!strcmp(argv[i], "--tolerance") && i + 1 < argc) {
            if (cli_parse_double(argv[++i], &eps) != CLI_NUMBER_OK || !(eps >= 0 && eps < 1))
                return cli_usage("pickcheck: --tolerance takes voxels in [0, 1), not '%s'",
                                 CLI_SHOWN(argv[i]));
        } else if (!strcmp(argv[i], "--view") && i + 1 < argc) {
            uint64_t v;
            if (cli_parse_uint(argv[++i], 0, CLI_ORBIT_VIEWS - 1, &v) != CLI_NUMBER_OK)
                return cli_usage("pickcheck: --view takes an orbit camera 0..%d, not '%s'",
                                 CLI_ORBIT_VIEWS - 1, CLI_SHOWN(argv[i]));
            view = (int)v;
        } else {
            return cli_usage("pickcheck: unknown or incomplete option '%s'", CLI_SHOWN(argv[i]));
        }
    }
    if (!cli_view_args_done(&a, "pickcheck")) return EXIT_USAGE;
    if (a.hits) return cli_usage("pickcheck: --hits belongs to render");
    if (view >= 0 && a.have_eye) return cli_usage("pickcheck: --view or --eye, not both");
    const char *mask_path = a.out ? a.out : "pickcheck-mask.png";
    vxr_scene *scene;
    cli_gpu gpu;
    int status = cli_view_open("pickcheck", &a, view > 0 ? view : 0, &scene, &gpu);
    if (status != EXIT_OK) return status;
    vxr_error err = {{0}};
    vxr_result r;
    /* Exact on a CPU device (lavapipe); elsewhere the documented tolerance. */
    if (eps < 0) eps = gpu.info.device_type == VK_PHYSICAL_DEVICE_TYPE_CPU ? 0.0 : DEFAULT_EPS;
    vxr_renderer *ren = NULL;
    vxr_target *target = NULL;
    vxr_picker *picker = NULL;
    const vxr_light *light = &a.light.light;
    const bool lit = light->model != VXR_LIGHT_FLAT;
    vxr_gpu_frame data;
    vxr_target_desc td = {.width = a.cam.width,
                          .height = a.cam.height,
                          .picks = true,
                          .readback = true,
                          .light = lit,
                          .aovs = lit};
    if ((r = vxr_light_frame(light, NULL, &data, &err)) == VXR_OK &&
        (r = cli_gpu_begin(&gpu, &err)) == VXR_OK &&
        (r = vxr_renderer_create(gpu.ctx, scene, gpu.cmd, &ren, &err)) == VXR_OK &&
        (r = vxr_target_create(gpu.ctx, &td, &target, &err)) == VXR_OK &&
        (r = cli_gpu_submit(&gpu, &err)) == VXR_OK)
        r = cli_render_frames(&gpu, ren, target, &a, NULL, &err);
    if (r != VXR_OK) status = cli_fail(a.scene, r, &err);
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
        /* light frames trace voxels (vxr_frame.lod) */
        const vxr_lod lod = vxr_camera_lod(&a.cam, lit ? 0.0f : a.lod);
        for (uint32_t j = 0; j < a.cam.height; j++)
            for (uint32_t i = 0; i < a.cam.width; i++) {
                size_t k = (size_t)j * a.cam.width + i;
                vxr_ray ray;
                vxr_pick cpu, g;
                vxr_camera_ray(&a.cam, i, j, &ray);
                vxr_pick_ray_lod(picker, &ray, a.grid, &lod, &cpu);
                vxr_error why = {{0}};
                char what[48];
                snprintf(what, sizeof what, "pixel %u,%u", i, j);
                vxr_result x = cli_expand_record(scene, &ray, &recs[k], what, &g, &why);
                uint32_t diff = x == VXR_OK ? vxr_pick_diff(&cpu, &g) : VXR_DIFF_HIT;
                hits += cpu.hit != 0;
                char light_names[256] = "";
                vxr_lit_pixel ref;
                if (lit &&
                    vxr_light_pixel(picker, &a.cam, &data, i, j, light->samples, &ref) == VXR_OK &&
                    light_diff(target, pixels, k, colors[k], &ref, light_names,
                               sizeof light_names)) {
                    mask[k] = MASK_FAILED;
                    if (failed++ < SHOW)
                        printf("pixel %u,%u: light differs: %s\n", i, j, light_names);
                    continue;
                }
                /* The mask: the image dimmed, failures red, forgiven yellow. */
                uint32_t c = colors[k], grey = ((c & 255) + (c >> 8 & 255) + (c >> 16 & 255)) / 6;
                mask[k] = 0xff000000u | grey * 0x010101u;
                if (!diff) {
                    passed++;
                    continue;
                }
                if (eps > 0 && vxr_pick_near_boundary(scene, &ray, &cpu, &g, eps)) {
                    forgiven++;
                    mask[k] = MASK_FORGIVEN;
                    continue;
                }
                mask[k] = MASK_FAILED;
                if (failed++ >= SHOW) continue;
                if (x != VXR_OK) {
                    printf("%s\n", why.message);
                    continue;
                }
                char names[96], a_s[160], b_s[160];
                vxr_pick_diff_names(diff, names, sizeof names);
                describe(&cpu, a_s, sizeof a_s);
                describe(&g, b_s, sizeof b_s);
                printf("pixel %u,%u: %s differ: cpu %s; gpu %s\n", i, j, names, a_s, b_s);
            }
        if (failed > SHOW) printf("... and %zu more mismatching pixels\n", failed - SHOW);
        printf("%s: %ux%u on %s, grid %u, lod %g, light %s (%u samples), %zu hits; tolerance %s "
               "voxels: %zu forgiven near cell boundaries\n",
               a.scene, a.cam.width, a.cam.height, gpu.info.device_name, a.grid,
               lit ? 0.0 : (double)a.lod, cli_light_name(light->model), lit ? light->samples : 0,
               hits, CLI_DOUBLE(eps), forgiven);
        if (failed) {
            r = cli_write_png(mask_path, mask, a.cam.width, a.cam.height, &err);
            if (r != VXR_OK)
                cli_fail(mask_path, r, &err);
            else
                printf("mismatch mask: %s\n", mask_path);
        }
        printf("%zu passed, %zu failed\n", passed + forgiven, failed);
        status = failed ? EXIT_INPUT : EXIT_OK;
    }
    status = cli_validation_status("pickcheck", &gpu, a.validate, status);
    free(mask);
    vxr_picker_destroy(picker);
    if (gpu.info.device) vkDeviceWaitIdle(gpu.info.device);
    vxr_target_destroy(target);
    vxr_renderer_destroy(ren);
    cli_gpu_close(&gpu);
    vxr_scene_destroy(scene);
    return status;
}
