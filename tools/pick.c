/* vxr pick: picks of a file of rays, on the CPU or (--gpu) the GPU. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "gpu.h"

/* Rays a GPU batch holds at most: 32 MiB of pick records. */
#define BATCH_RAYS (1u << 20)

/* `pick --gpu`: the renderer's ray picks, expanded as `render --hits` does.
 * The scene is uploaded again whenever culling changes the visible set. */
typedef struct gpu_picker {
    cli_gpu gpu;
    vxr_renderer *ren;
    vxr_rays *batch;
    uint32_t capacity;
} gpu_picker;

static vxr_result gpu_upload(gpu_picker *g, const vxr_scene *s, vxr_error *err) {
    vxr_renderer_destroy(g->ren); /* idle: every submit waits */
    g->ren = NULL;
    vxr_result r = cli_gpu_begin(&g->gpu, err);
    if (r == VXR_OK) r = vxr_renderer_create(g->gpu.ctx, s, g->gpu.cmd, &g->ren, err);
    if (r == VXR_OK) r = cli_gpu_submit(&g->gpu, err);
    if (r == VXR_OK) vxr_renderer_upload_done(g->ren);
    return r;
}

/* Picks n rays in batches; *seconds grows by the submit-and-wait time. */
static vxr_result gpu_pick(gpu_picker *g, const vxr_scene *s, const vxr_ray *rays, size_t n,
                           uint32_t grid, const vxr_lod *lod, vxr_pick *dest, double *seconds,
                           vxr_error *err) {
    vxr_result r = VXR_OK;
    for (size_t i = 0; r == VXR_OK && i < n; i += g->capacity) {
        uint32_t k = n - i < g->capacity ? (uint32_t)(n - i) : g->capacity;
        memcpy(vxr_rays_input(g->batch), rays + i, k * sizeof *rays);
        double t0 = cli_now();
        if ((r = cli_gpu_begin(&g->gpu, err)) == VXR_OK &&
            (r = vxr_renderer_pick_rays_lod(g->ren, g->batch, k, grid, lod, g->gpu.cmd, err)) ==
                VXR_OK)
            r = cli_gpu_submit(&g->gpu, err);
        *seconds += cli_now() - t0;
        const vxr_gpu_pick *rec = vxr_rays_picks(g->batch);
        for (uint32_t j = 0; r == VXR_OK && j < k; j++) {
            char what[32];
            snprintf(what, sizeof what, "ray %zu", i + j + 1);
            r = cli_expand_record(s, &rays[i + j], &rec[j], what, &dest[i + j], err);
        }
    }
    return r;
}

int cmd_pick(int argc, char **argv) {
    const char *path = NULL, *rays_path = NULL;
    uint32_t grid = 1;
    bool cull = true, use_gpu = false, validate = false, lod_given = false;
    /* the level of detail's pixel: render's default camera's unless given */
    vxr_camera pixel = {
        .eye = {0, 0, 0}, .target = {1, 0, 0}, .width = CLI_WIDTH, .height = CLI_HEIGHT};
    float bias = 0;
    for (int i = 0, taken; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            /* records are JSON either way */
        } else if (!strcmp(argv[i], "--no-cull")) {
            cull = false;
        } else if (!strcmp(argv[i], "--gpu")) {
            use_gpu = true;
        } else if (!strcmp(argv[i], "--validate")) {
            validate = true;
        } else if (!strcmp(argv[i], "--rays") && i + 1 < argc) {
            rays_path = argv[++i];
        } else if (!strcmp(argv[i], "--grid") && i + 1 < argc) {
            if (!cli_parse_grid(argv[++i], &grid))
                return cli_usage("pick: --grid takes a power of two from 1 to %u, not '%s'",
                                 VXR_MAX_GRID, CLI_SHOWN(argv[i]));
        } else if (!strcmp(argv[i], "--lod") && i + 1 < argc) {
            if (!cli_lod_arg("pick", argv[++i], &bias)) return EXIT_USAGE;
            lod_given = true;
        } else if ((taken = cli_pixel_arg("pick", argc, argv, &i, &pixel)) != 0) {
            if (taken < 0) return EXIT_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage("pick: unknown or incomplete option '%s'", CLI_SHOWN(argv[i]));
        } else if (!path) {
            path = argv[i];
        } else {
            return cli_usage("pick: more than one SCENE");
        }
    }
    if (!path || !rays_path) return cli_usage("pick: expected SCENE --rays FILE");
    if (validate && !use_gpu) return cli_usage("pick: --validate goes with --gpu");
    if (!lod_given) bias = cli_lod_default(path);
    vxr_camera_setup(&pixel); /* fov 0: the default, as render's */
    const vxr_lod lod = vxr_camera_lod(&pixel, bias);
    vxr_ray *rays;
    size_t n;
    vxr_scene *scene;
    int status;
    vxr_error err = {{0}};
    vxr_result r = VXR_OK;
    if (vxr_is_generated_world(path)) { /* the chunks the rays' origins see */
        if ((status = cli_read_rays(rays_path, &rays, &n)) != EXIT_OK) return status;
        float *eyes = malloc((n ? n : 1) * 3 * sizeof *eyes);
        r = eyes ? VXR_OK : VXR_ERROR_MEMORY;
        for (size_t i = 0; eyes && i < n; i++)
            memcpy(eyes + 3 * i, rays[i].origin, 3 * sizeof *eyes);
        if (r == VXR_OK) r = cli_world_around(path, eyes, n, NULL, NULL, &scene, &err);
        free(eyes);
        if (r != VXR_OK) {
            free(rays);
            return cli_fail(path, r, &err);
        }
    } else if ((status = cli_rays_and_scene(rays_path, false, path, &rays, &n, &scene)) !=
               EXIT_OK) {
        return status;
    }
    vxr_picker *picker = NULL;
    gpu_picker g = {.capacity = n < BATCH_RAYS ? (uint32_t)(n ? n : 1) : BATCH_RAYS};
    if (use_gpu) {
        r = cli_gpu_open(&g.gpu,
                         &(vxr_context_desc){.validation = validate, .lazy_pipelines = true}, &err);
        if (r == VXR_OK) r = vxr_rays_create(g.gpu.ctx, g.capacity, &g.batch, &err);
        if (r != VXR_OK) {
            cli_gpu_close(&g.gpu);
            free(rays);
            vxr_scene_destroy(scene);
            return cli_fail("pick", r, &err);
        }
    }
    vxr_pick *picks = malloc((n ? n : 1) * sizeof *picks);
    r = picks ? VXR_OK : VXR_ERROR_MEMORY;
    /* first touches of the records, outside the timed picks: on some
     * machines they cost more than the picking */
    if (picks) memset(picks, 0, (n ? n : 1) * sizeof *picks);
    vxr_culler *culler = NULL;
    if (r == VXR_OK && cull) r = vxr_culler_create(scene, &culler);
    /* Each ray sees what its origin sees (view distances, DESIGN.md §4):
     * the scene is culled again whenever the origin changes, and the picker
     * rebuilt when the visible set does. Only the picks are timed. */
    double dt = 0;
    for (size_t i = 0, j; r == VXR_OK && i < n; i = j) {
        for (j = i + 1; j < n && !memcmp(rays[j].origin, rays[i].origin, sizeof rays[i].origin);)
            j++;
        bool changed = picker == NULL && g.ren == NULL;
        if (cull) {
            bool moved;
            r = vxr_culler_update(culler, scene, rays[i].origin, NULL, &moved);
            changed = changed || moved;
        }
        if (r == VXR_OK && changed && use_gpu) {
            r = gpu_upload(&g, scene, &err);
        } else if (r == VXR_OK && changed) {
            vxr_picker_destroy(picker);
            picker = NULL;
            r = vxr_picker_create(scene, &picker);
        }
        if (r != VXR_OK) break;
        if (use_gpu) {
            r = gpu_pick(&g, scene, rays + i, j - i, grid, &lod, picks + i, &dt, &err);
            continue;
        }
        double t0 = cli_now();
        r = vxr_pick_rays_lod(picker, rays + i, j - i, grid, &lod, picks + i);
        dt += cli_now() - t0;
    }
    if (r == VXR_OK) {
        size_t hits = 0;
        for (size_t i = 0; i < n; i++) {
            cli_print_pick(stdout, &picks[i]);
            hits += picks[i].hit != 0;
        }
        printf("{\"rays\":%zu,\"hits\":%zu,\"seconds\":%.6f,\"mrays_s\":%.3f}\n", n, hits, dt,
               dt > 0 ? (double)n / dt * 1e-6 : 0.0);
    }
    if (r != VXR_OK) status = cli_fail(path, r, &err);
    if (use_gpu) {
        status = cli_validation_status("pick", &g.gpu, validate, status);
        vxr_rays_destroy(g.batch);
        vxr_renderer_destroy(g.ren);
        cli_gpu_close(&g.gpu);
    }
    vxr_picker_destroy(picker);
    vxr_culler_destroy(culler);
    free(picks);
    free(rays);
    vxr_scene_destroy(scene);
    return status;
}
