/* vxr pick and vxr bench pick. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "render.h"
#include "vxr/camera.h"

void cli_print_pick(FILE *out, const vxr_pick *p) {
    if (!p->hit) {
        fputs("{\"hit\":false}\n", out);
        return;
    }
    fprintf(out,
            "{\"hit\":true,\"instance\":%u,\"voxel\":[%d,%d,%d],\"size\":%u,"
            "\"world_min\":[%.9g,%.9g,%.9g],\"world_max\":[%.9g,%.9g,%.9g],\"t\":%.9g,"
            "\"point\":[%.9g,%.9g,%.9g],\"face\":%d,\"normal\":[%.9g,%.9g,%.9g],\"corner\":%d,"
            "\"corner_point\":[%.9g,%.9g,%.9g],\"edge\":%d,\"edge_mid\":[%.9g,%.9g,%.9g],"
            "\"color\":[%u,%u,%u,%u]}\n",
            p->instance, p->voxel[0], p->voxel[1], p->voxel[2], p->size, (double)p->world_min[0],
            (double)p->world_min[1], (double)p->world_min[2], (double)p->world_max[0],
            (double)p->world_max[1], (double)p->world_max[2], (double)p->t, (double)p->point[0],
            (double)p->point[1], (double)p->point[2], p->face, (double)p->normal[0] + 0.0,
            (double)p->normal[1] + 0.0, (double)p->normal[2] + 0.0, p->corner,
            (double)p->corner_point[0], (double)p->corner_point[1], (double)p->corner_point[2],
            p->edge, (double)p->edge_mid[0], (double)p->edge_mid[1], (double)p->edge_mid[2],
            p->color & 255, (p->color >> 8) & 255, (p->color >> 16) & 255, p->color >> 24);
}

_Static_assert(sizeof(vxr_ray) == 6 * sizeof(float), "vxr_ray is six packed floats");

/* Reads "ox oy oz dx dy dz" lines into rays. */
static int read_rays(const char *path, vxr_ray **rays, size_t *count) {
    float *v;
    int status = cli_read_floats(path, 6, "ox oy oz dx dy dz", &v, count, NULL);
    *rays = (vxr_ray *)v; /* six packed floats, the layout of vxr_ray */
    return status;
}

static int parse_grid(const char *s, uint32_t *grid) {
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (*end || v == 0 || v > (1ul << 20) || (v & (v - 1))) return 0;
    *grid = (uint32_t)v;
    return 1;
}

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
                           uint32_t grid, vxr_pick *dest, double *seconds, vxr_error *err) {
    vxr_result r = VXR_OK;
    for (size_t i = 0; r == VXR_OK && i < n; i += g->capacity) {
        uint32_t k = n - i < g->capacity ? (uint32_t)(n - i) : g->capacity;
        memcpy(vxr_rays_input(g->batch), rays + i, k * sizeof *rays);
        double t0 = cli_now();
        if ((r = cli_gpu_begin(&g->gpu, err)) == VXR_OK &&
            (r = vxr_renderer_pick_rays(g->ren, g->batch, k, grid, g->gpu.cmd, err)) == VXR_OK)
            r = cli_gpu_submit(&g->gpu, err);
        *seconds += cli_now() - t0;
        const vxr_gpu_pick *rec = vxr_rays_picks(g->batch);
        for (uint32_t j = 0; r == VXR_OK && j < k; j++)
            r = vxr_pick_expand(s, &rays[i + j], &rec[j], &dest[i + j]);
    }
    return r;
}

int cmd_pick(int argc, char **argv) {
    const char *path = NULL, *rays_path = NULL;
    uint32_t grid = 1;
    bool cull = true, use_gpu = false, validate = false;
    for (int i = 0; i < argc; i++) {
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
            if (!parse_grid(argv[++i], &grid))
                return cli_usage("pick: --grid takes a power of two from 1 to 2^20, not '%s'",
                                 argv[i]);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage("pick: unknown or incomplete option '%s'", argv[i]);
        } else if (!path) {
            path = argv[i];
        } else {
            return cli_usage("pick: more than one SCENE");
        }
    }
    if (!path || !rays_path) return cli_usage("pick: expected SCENE --rays FILE");
    if (validate && !use_gpu) return cli_usage("pick: --validate goes with --gpu");
    vxr_ray *rays;
    size_t n;
    int status = read_rays(rays_path, &rays, &n);
    if (status != EXIT_OK) return status;
    vxr_scene *scene;
    vxr_error err = {{0}};
    vxr_result r = vxr_scene_load(path, &scene, &err);
    if (r != VXR_OK) {
        free(rays);
        return cli_fail(path, r, &err);
    }
    vxr_picker *picker = NULL;
    gpu_picker g = {.capacity = n < (1u << 20) ? (uint32_t)(n ? n : 1) : (1u << 20)};
    if (use_gpu) {
        r = cli_gpu_open(&g.gpu, &(vxr_context_desc){.validation = validate}, &err);
        if (r == VXR_OK) r = vxr_rays_create(g.gpu.ctx, g.capacity, &g.batch, &err);
        if (r != VXR_OK) {
            cli_gpu_close(&g.gpu);
            free(rays);
            vxr_scene_destroy(scene);
            return gpu_fail("pick", r, &err);
        }
    }
    vxr_pick *picks = malloc((n ? n : 1) * sizeof *picks);
    r = picks ? VXR_OK : VXR_ERROR_MEMORY;
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
            r = gpu_pick(&g, scene, rays + i, j - i, grid, picks + i, &dt, &err);
            continue;
        }
        double t0 = cli_now();
        r = vxr_pick_rays(picker, rays + i, j - i, grid, picks + i);
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
    if (r != VXR_OK) status = use_gpu ? gpu_fail(path, r, &err) : cli_fail(path, r, &err);
    if (use_gpu) {
        uint32_t messages = vxr_context_validation_messages(g.gpu.ctx);
        if (status == EXIT_OK && messages) {
            fprintf(stderr, "vxr: pick: %u validation messages\n", messages);
            status = EXIT_INPUT;
        }
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

/* Rays of `cameras` cameras orbiting the scene, w x h pixels each. */
static vxr_ray *orbit_rays(const vxr_scene *s, int cameras, uint32_t w, uint32_t h, size_t *n) {
    *n = (size_t)cameras * w * h;
    vxr_ray *rays = malloc(*n * sizeof *rays);
    if (!rays) return NULL;
    size_t k = 0;
    for (int c = 0; c < cameras; c++) {
        vxr_camera cam = {0};
        vxr_camera_orbit(s, 6.2831853f * (float)c / (float)cameras + 0.3f,
                         0.35f + 0.25f * (float)(c % 3), 0.9f, &cam);
        cam.width = w;
        cam.height = h;
        vxr_camera_setup(&cam);
        for (uint32_t j = 0; j < h; j++)
            for (uint32_t i = 0; i < w; i++) vxr_camera_ray(&cam, i, j, &rays[k++]);
    }
    return rays;
}

int bench_pick(int argc, char **argv) {
    const char *path;
    bool json;
    if (!cli_scene_args("bench pick", argc, argv, &path, &json)) return EXIT_USAGE;
    vxr_scene *scene;
    vxr_error err = {{0}};
    vxr_result r = vxr_scene_load(path, &scene, &err);
    if (r != VXR_OK) return cli_fail(path, r, &err);
    const int cameras = 8;
    const uint32_t w = 160, h = 120;
    size_t n;
    vxr_ray *rays = orbit_rays(scene, cameras, w, h, &n);
    vxr_picker *picker = NULL;
    vxr_pick *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    if (!rays || !a || !b || vxr_picker_create(scene, &picker) != VXR_OK) {
        free(rays);
        free(a);
        free(b);
        vxr_scene_destroy(scene);
        return cli_fail(path, VXR_ERROR_MEMORY, NULL);
    }
    if (cli_progress(json)) fprintf(stderr, "picking %zu rays with the BVH ...\r", n);
    double best_bvh = 1e30, best_loop = 1e30;
    for (int run = 0; run < 3; run++) {
        double t0 = cli_now();
        for (size_t i = 0; i < n; i++) vxr_pick_ray(picker, &rays[i], 1, &a[i]);
        double dt = cli_now() - t0;
        if (dt < best_bvh) best_bvh = dt;
    }
    if (cli_progress(json)) fprintf(stderr, "picking %zu rays with the loop ...\r", n);
    /* The loop is slow on large scenes: one run, or a sample of the rays
     * when even that would take long. */
    size_t stride = 1;
    {
        double t0 = cli_now();
        size_t probe = n < 2000 ? n : 2000;
        for (size_t i = 0; i < probe; i++)
            vxr_pick_ray_loop(picker, &rays[i * (n / probe)], 1, &b[0]);
        double est = (cli_now() - t0) / (double)probe * (double)n;
        while (est / (double)stride > 20.0) stride *= 2;
    }
    size_t looped = 0, differ = 0, hits = 0;
    double t0 = cli_now();
    for (size_t i = 0; i < n; i += stride, looped++) vxr_pick_ray_loop(picker, &rays[i], 1, &b[i]);
    best_loop = cli_now() - t0;
    for (size_t i = 0; i < n; i += stride) differ += memcmp(&a[i], &b[i], sizeof a[i]) != 0;
    for (size_t i = 0; i < n; i++) hits += a[i].hit != 0;
    if (cli_progress(json)) fprintf(stderr, "\033[K");
    double bvh = (double)n / best_bvh * 1e-6, loop = (double)looped / best_loop * 1e-6;
    if (json)
        printf("{\"scene\":\"%s\",\"instances\":%u,\"rays\":%zu,\"hits\":%zu,\"bvh_mrays_s\":%.3f,"
               "\"loop_mrays_s\":%.4f,\"loop_rays\":%zu,\"speedup\":%.1f,\"differ\":%zu}\n",
               path, scene->instance_count, n, hits, bvh, loop, looped, bvh / loop, differ);
    else
        printf("%s: %zu rays (%d cameras of %ux%u), %zu hits\n  BVH  %.3f Mrays/s\n  loop %.4f "
               "Mrays/s (seed: every instance in turn; %zu rays)\n  speedup %.1fx, %zu "
               "results differ\n",
               path, n, cameras, w, h, hits, bvh, loop, looped, bvh / loop, differ);
    vxr_picker_destroy(picker);
    free(rays);
    free(a);
    free(b);
    vxr_scene_destroy(scene);
    return differ ? EXIT_INPUT : EXIT_OK;
}
