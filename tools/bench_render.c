/* vxr bench render: GPU time per frame from timestamp queries (with and
 * without depth output, alternating; with --light lit or path, flat frames
 * and light frames alternating), what a scene's upload and an instance
 * update cost, and whether the first frame at a new grid costs more than the
 * frames after it (a pipeline compiled on first use would). */
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "gpu.h"
#ifdef VXR_HAVE_PEERS
#include "peers/peer.h"

/* OpenVDB's first hits on the frame's primary rays (peers/peer.h), on one
 * CPU thread: the rays of every pixel, its world grid (built untimed), the
 * best of its runs. */
typedef struct peer_state {
    vxr_ray *rays;
    uint8_t *hit;
    size_t n, hits;
    peer_openvdb_world *world;
    double best;
    int runs;
    char err[256];
} peer_state;

static void peer_open(peer_state *p, const vxr_scene *scene, const vxr_camera *cam) {
    p->n = (size_t)cam->width * cam->height;
    p->rays = malloc(p->n * sizeof *p->rays);
    p->hit = malloc(p->n);
    if (!p->rays || !p->hit) {
        snprintf(p->err, sizeof p->err, "out of memory");
        return;
    }
    memset(p->hit, 0, p->n); /* first touches, outside the timed runs */
    for (uint32_t j = 0; j < cam->height; j++)
        for (uint32_t i = 0; i < cam->width; i++)
            vxr_camera_ray(cam, i, j, &p->rays[(size_t)j * cam->width + i]);
    p->world = peer_openvdb_world_create(scene, p->err, sizeof p->err);
}

static void peer_run(peer_state *p) {
    if (!p->world) return;
    double t0 = cli_now();
    p->hits = peer_openvdb_first_hits(p->world, p->rays, p->n, p->hit);
    double dt = cli_now() - t0;
    if (!p->runs++ || dt < p->best) p->best = dt;
}

static void peer_close(peer_state *p) {
    peer_openvdb_world_destroy(p->world);
    free(p->rays);
    free(p->hit);
}
#endif

/* Frames: the first WARMUP untimed, then at least MIN_FRAMES and more
 * while under MIN_SECONDS, at most MAX_FRAMES; the median counts. The
 * instance update: the median of UPDATES. */
enum { WARMUP = 2, MIN_FRAMES = 5, MAX_FRAMES = 50, UPDATES = 5 };
#define MIN_SECONDS 3.0

int cmd_bench_render(int argc, char **argv) {
    cli_view_args a;
    if (!cli_view_args_parse(&a, "bench render", argc, argv, CLI_WIDTH, CLI_HEIGHT))
        return EXIT_USAGE;
    if (a.out || a.hits) return cli_usage("bench render: --out and --hits belong to render");
    a.eager = true; /* upload_ms and new_grid_extra_ms are what a host gets by default */
    vxr_error err = {{0}};
    vxr_result r = VXR_OK;
    vxr_scene *scene;
    cli_gpu gpu;
    int status = cli_view_open("bench render", &a, 0, &scene, &gpu);
    if (status != EXIT_OK) return status;
    if (gpu.info.timestamp_bits == 0) {
        fprintf(stderr, "vxr: bench render: %s has no timestamps on its compute queue\n",
                gpu.info.device_name);
        cli_gpu_close(&gpu);
        vxr_scene_destroy(scene);
        return EXIT_NO_DEVICE;
    }
    vxr_renderer *ren = NULL;
    vxr_target *target = NULL, *depth_target = NULL;
    VkQueryPool qp = VK_NULL_HANDLE;
    VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                .queryCount = 2};
    vxr_target_desc td = {
        .width = a.cam.width, .height = a.cam.height, .picks = false, .readback = false};
    /* wall time, submit and wait included: the whole upload, then the
     * median of instance updates (what a moving eye costs the viewer) */
    double upload_ms = cli_now(), update_ms[UPDATES];
    if ((r = cli_gpu_begin(&gpu, &err)) == VXR_OK &&
        (r = vxr_renderer_create(gpu.ctx, scene, gpu.cmd, &ren, &err)) == VXR_OK &&
        (r = cli_gpu_submit(&gpu, &err)) == VXR_OK)
        upload_ms = 1e3 * (cli_now() - upload_ms);
    for (int i = 0; i < UPDATES && r == VXR_OK; i++) {
        update_ms[i] = cli_now();
        if ((r = cli_gpu_begin(&gpu, &err)) == VXR_OK &&
            (r = vxr_renderer_update_instances(ren, scene, gpu.cmd, &err)) == VXR_OK)
            r = cli_gpu_submit(&gpu, &err);
        update_ms[i] = 1e3 * (cli_now() - update_ms[i]);
    }
    if (r == VXR_OK) qsort(update_ms, UPDATES, sizeof update_ms[0], cli_cmp_double);
    /* the second kind of frame: with depth output, or with light */
    const vxr_light *light = &a.light.light;
    const bool lit = light->model != VXR_LIGHT_FLAT;
    vxr_target_desc dd = td;
    dd.depth = !lit;
    dd.light = lit;
    dd.aovs = lit && a.light.denoise;
    vxr_frame lf = {.camera = &a.cam, .light = light, .denoise = a.light.denoise};
    vxr_frame flat = {.camera = &a.cam,
                      .grid = a.grid,
                      .color_before = VK_IMAGE_LAYOUT_GENERAL,
                      .color_after = VK_IMAGE_LAYOUT_GENERAL,
                      .lod = a.lod};
    if (r == VXR_OK && (r = cli_gpu_begin(&gpu, &err)) == VXR_OK &&
        (r = vxr_target_create(gpu.ctx, &td, &target, &err)) == VXR_OK &&
        (r = vxr_target_create(gpu.ctx, &dd, &depth_target, &err)) == VXR_OK)
        r = cli_gpu_submit(&gpu, &err);
    VkResult vr;
    if (r == VXR_OK && (vr = vkCreateQueryPool(gpu.info.device, &qi, NULL, &qp)) != VK_SUCCESS)
        r = cli_vk_error(&err, vr, "vkCreateQueryPool");
#ifdef VXR_HAVE_PEERS
    peer_state peer = {0};
    if (r == VXR_OK) peer_open(&peer, scene, &a.cam);
#endif
    double ms[MAX_FRAMES], depth_ms[MAX_FRAMES];
    int frames = 0, depth_frames = 0;
    double spent = 0;
    /* At least MIN_FRAMES measured frames, more while under MIN_SECONDS. */
    /* alternating: even frames plain, odd ones with depth output */
    for (int f = 0; r == VXR_OK && f < 2 * (WARMUP + MAX_FRAMES); f++) {
        if (f >= 2 * (WARMUP + MIN_FRAMES) && spent > 2 * MIN_SECONDS) break;
        bool depth = f & 1;
        if (cli_progress(a.json)) fprintf(stderr, "frame %d\r", f + 1);
        if ((r = cli_gpu_begin(&gpu, &err)) != VXR_OK) break;
        vkCmdResetQueryPool(gpu.cmd, qp, 0, 2);
        vkCmdWriteTimestamp(gpu.cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, qp, 0);
        if ((r = vxr_renderer_render_frame(ren, depth ? depth_target : target,
                                           depth && lit ? &lf : &flat, gpu.cmd, &err)) != VXR_OK)
            break;
        vkCmdWriteTimestamp(gpu.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, qp, 1);
        double t0 = cli_now();
        if ((r = cli_gpu_submit(&gpu, &err)) != VXR_OK) break;
        uint64_t ts[2];
        if ((vr = vkGetQueryPoolResults(gpu.info.device, qp, 0, 2, sizeof ts, ts, sizeof ts[0],
                                        VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT)) !=
            VK_SUCCESS) {
            r = cli_vk_error(&err, vr, "vkGetQueryPoolResults");
            break;
        }
        if (f < 2 * WARMUP) continue;
        spent += cli_now() - t0;
        if (depth)
            depth_ms[depth_frames++] = cli_gpu_ms(&gpu.info, ts);
        else
            ms[frames++] = cli_gpu_ms(&gpu.info, ts);
#ifdef VXR_HAVE_PEERS
        /* frame, frame with depth, OpenVDB, ... for its first 3 runs */
        if (depth && peer.runs < 3) peer_run(&peer);
#endif
    }
    /* the first frame at each new grid against the frames after it: wall
     * time of recording, submitting and waiting; the renderer has drawn
     * only grid 1 (voxels) so far */
    static const uint32_t grids[] = {2, 16, 256};
    enum { GRIDS = sizeof grids / sizeof grids[0], AFTER = 3 };
    double extra_ms = -1e30; /* the worst of: first frame - median of the frames after it */
    for (uint32_t g = 0; g < GRIDS && r == VXR_OK; g++) {
        double first = 0, later[AFTER];
        for (int k = 0; k <= AFTER && r == VXR_OK; k++) {
            double t0 = cli_now();
            if ((r = cli_gpu_begin(&gpu, &err)) == VXR_OK &&
                (r = vxr_renderer_render(ren, target, &a.cam, grids[g], gpu.cmd, &err)) == VXR_OK)
                r = cli_gpu_submit(&gpu, &err);
            double wall = 1e3 * (cli_now() - t0);
            if (k == 0)
                first = wall;
            else
                later[k - 1] = wall;
        }
        qsort(later, AFTER, sizeof later[0], cli_cmp_double);
        if (first - later[AFTER / 2] > extra_ms) extra_ms = first - later[AFTER / 2];
    }
    if (cli_progress(a.json)) fprintf(stderr, "\033[K");
    if (r != VXR_OK) {
        status = cli_fail(a.scene, r, &err);
    } else {
        qsort(ms, (size_t)frames, sizeof ms[0], cli_cmp_double);
        qsort(depth_ms, (size_t)depth_frames, sizeof ms[0], cli_cmp_double);
        double median = ms[frames / 2], depth_median = depth_ms[depth_frames / 2];
        double mrays = (double)a.cam.width * a.cam.height / (median * 1e-3) * 1e-6;
#ifdef VXR_HAVE_PEERS
        double peer_mrays = peer.runs ? (double)peer.n / peer.best * 1e-6 : 0;
#endif
        if (a.json) {
            printf("{\"width\":%u,\"height\":%u,\"ms\":%.3f,\"mrays_s\":%.3f,\"depth_ms\":%.3f,"
                   "\"upload_ms\":%.3f,\"update_ms\":%.3f,\"new_grid_extra_ms\":%.3f,"
                   "\"device\":\"",
                   a.cam.width, a.cam.height, median, mrays, depth_median, upload_ms,
                   update_ms[UPDATES / 2], extra_ms);
            cli_print_json_string(stdout, gpu.info.device_name);
            printf("\"");
            if (a.lod > 0.0f) printf(",\"lod\":%g", (double)a.lod);
            if (lit)
                printf(",\"light\":\"%s\",\"samples\":%u,\"denoise\":%s,\"light_ms\":%.3f,"
                       "\"light_over_flat\":%.3f",
                       cli_light_name(light->model), light->samples,
                       a.light.denoise ? "true" : "false", depth_median, depth_median / median);
#ifdef VXR_HAVE_PEERS
            if (peer.runs)
                printf(",\"openvdb\":{\"mrays_s\":%.3f,\"rays\":%zu,\"hits\":%zu,"
                       "\"vxr_over_openvdb\":%.2f}",
                       peer_mrays, peer.n, peer.hits, mrays / peer_mrays);
            else {
                printf(",\"openvdb\":{\"skipped\":\"");
                cli_print_json_string(stdout, peer.err);
                printf("\"}");
            }
#endif
            printf("}\n");
        } else {
            printf("%s: %ux%u on %s\n  %.3f ms per frame (median of %d, GPU timestamps), "
                   "%.3f Mrays/s\n  %.3f ms with depth output (%+.1f%%)\n"
                   "  scene upload %.3f ms, instance update %.3f ms (wall time)\n"
                   "  first frame at a new grid %+.3f ms against the frames after it (the worst of "
                   "grids 2, 16, 256; wall time)\n",
                   a.scene, a.cam.width, a.cam.height, gpu.info.device_name, median, frames, mrays,
                   depth_median, 100.0 * (depth_median / median - 1.0), upload_ms,
                   update_ms[UPDATES / 2], extra_ms);
            if (a.lod > 0.0f)
                printf("  level of detail: bias %g pixels (flat frames)\n", (double)a.lod);
            if (lit)
                printf("  light %s, %u samples%s: %.3f ms per frame, %.2fx the flat frame "
                       "(alternating; the depth figure above is this frame's)\n",
                       cli_light_name(light->model), light->samples,
                       a.light.denoise ? ", denoised" : "", depth_median, depth_median / median);
#ifdef VXR_HAVE_PEERS
            if (peer.runs)
                printf("  OpenVDB %.3f Mrays/s on the same primary rays (one CPU thread, first "
                       "hit only), the GPU %.2fx its rate\n",
                       peer_mrays, mrays / peer_mrays);
            else
                printf("  OpenVDB skipped: %s\n", peer.err);
#endif
        }
    }
#ifdef VXR_HAVE_PEERS
    peer_close(&peer);
#endif
    if (gpu.info.device) vkDeviceWaitIdle(gpu.info.device);
    if (qp) vkDestroyQueryPool(gpu.info.device, qp, NULL);
    vxr_target_destroy(target);
    vxr_target_destroy(depth_target);
    vxr_renderer_destroy(ren);
    cli_gpu_close(&gpu);
    vxr_scene_destroy(scene);
    return status;
}
