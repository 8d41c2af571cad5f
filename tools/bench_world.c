/* vxr bench world: a camera flown along a path through a streamed world
 * (vxr/world.h), a frame per camera: the world's residency update, the
 * renderer's update and the frame, all on the wall clock; then frames at
 * the last camera until every wanted chunk is resident. */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "commands.h"
#include "gpu.h"
#include "vxr/world.h"

enum { COMPLETE_SECONDS = 60 }; /* after the stop, frames at most this long */

typedef struct bench_frame {
    double ms;
    double world_ms;  /* of it, vxr_world_update */
    double update_ms; /* of it, vxr_renderer_update (its cpu_ms: recording, no GPU work) */
    uint64_t upload;
} bench_frame;

/* One frame: residency around cam's eye, the renderer's update, the frame. */
static vxr_result frame(vxr_world *w, uint64_t budget, cli_gpu *gpu, vxr_renderer *ren,
                        vxr_target *target, const vxr_camera *cam, float lod, vxr_world_status *st,
                        bench_frame *f, vxr_error *err) {
    const double t0 = cli_now();
    vxr_update_info info = {0};
    cli_world_budget(w, budget, gpu->ctx, ren);
    const vxr_lod k = vxr_camera_lod(cam, lod); /* far chunks coarse */
    vxr_world_set_lod(w, k.k, k.fixed);
    vxr_result r = vxr_world_update(w, cam->eye, st, err);
    f->world_ms = 1e3 * (cli_now() - t0);
    if (r == VXR_OK) r = cli_gpu_begin(gpu, err);
    if (r == VXR_OK) r = vxr_renderer_update(ren, vxr_world_scene(w), gpu->cmd, &info, err);
    const vxr_frame fr = {.camera = cam,
                          .grid = 1,
                          .color_before = VK_IMAGE_LAYOUT_GENERAL,
                          .color_after = VK_IMAGE_LAYOUT_GENERAL,
                          .lod = lod};
    if (r == VXR_OK) r = vxr_renderer_render_frame(ren, target, &fr, gpu->cmd, err);
    if (r == VXR_OK) r = cli_gpu_submit(gpu, err);
    if (r == VXR_OK) vxr_renderer_complete(ren, info.serial); /* submit waited for it */
    f->ms = 1e3 * (cli_now() - t0);
    f->upload = info.upload_bytes;
    f->update_ms = info.cpu_ms;
    return r;
}

int cmd_bench_world(int argc, char **argv) {
    const char *path = NULL, *cams_path = NULL;
    uint32_t width = 640, height = 360;
    float distance = 0, lod = CLI_LOD_WORLD;
    uint64_t budget = 0;
    bool json = false, validate = false;
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--json")) {
            json = true;
        } else if (!strcmp(o, "--validate")) {
            validate = true;
        } else if (!strcmp(o, "--path") && v) {
            cams_path = argv[++i];
        } else if (!strcmp(o, "--size") && v) {
            if (!cli_parse_pair(argv[++i], "xX", &width, &height) || !width || !height)
                return cli_usage("bench world: --size takes WxH, not '%s'", CLI_SHOWN(v));
        } else if (!strcmp(o, "--view-distance") && v) {
            if (cli_parse_float(argv[++i], &distance) != CLI_NUMBER_OK || !(distance > 0))
                return cli_usage("bench world: --view-distance takes world units > 0, not '%s'",
                                 CLI_SHOWN(v));
        } else if (!strcmp(o, "--lod") && v) {
            if (!cli_lod_arg("bench world", argv[++i], &lod)) return EXIT_USAGE;
        } else if (!strcmp(o, "--budget") && v) {
            if (!cli_parse_bytes(argv[++i], &budget))
                return cli_usage("bench world: --budget takes bytes (a K, M or G suffix "
                                 "allowed), not '%s'",
                                 CLI_SHOWN(v));
        } else if (o[0] != '-' && !path) {
            path = o;
        } else {
            return cli_usage("bench world: expected WORLD --path FILE [--size WxH] "
                             "[--view-distance D] [--budget BYTES] [--lod BIAS] [--json], not '%s'",
                             CLI_SHOWN(o));
        }
    }
    if (!path || !cams_path)
        return cli_usage("bench world: expected WORLD --path FILE [--size WxH] "
                         "[--view-distance D] [--budget BYTES] [--lod BIAS] [--json]");
    if (strncmp(path, "@terrain:", 9) && (path[0] == '@' || !vxr_is_world(path)))
        return cli_usage("bench world: %s is not a world (vxr world build writes one; "
                         "@terrain:N is generated)",
                         CLI_SHOWN(path));
    float *cams = NULL;
    size_t n = 0;
    int status = cli_read_floats(cams_path, 6, "ex ey ez tx ty tz", &cams, &n, NULL);
    if (status != EXIT_OK) return status;
    if (!n) {
        free(cams);
        fprintf(stderr, "vxr: %s: no camera\n", cams_path);
        return EXIT_INPUT;
    }
    vxr_error err = {{0}};
    vxr_world *w = NULL;
    const vxr_world_desc desc = {path, distance, budget, 2, 0}; /* cli_world_budget's, later */
    vxr_result r = vxr_world_open(&desc, &w, &err);
    if (r != VXR_OK) {
        free(cams);
        return cli_fail(path, r, &err);
    }
    cli_gpu gpu;
    vxr_renderer *ren = NULL;
    vxr_target *target = NULL;
    const vxr_target_desc td = {.width = width, .height = height};
    r = cli_gpu_open(&gpu, &(vxr_context_desc){.validation = validate, .lazy_pipelines = true},
                     &err);
    if (r != VXR_OK) {
        vxr_world_close(w);
        free(cams);
        return cli_fail("bench world", r, &err);
    }
    if ((r = cli_gpu_begin(&gpu, &err)) == VXR_OK &&
        (r = vxr_renderer_create(gpu.ctx, vxr_world_scene(w), gpu.cmd, &ren, &err)) == VXR_OK &&
        (r = vxr_target_create(gpu.ctx, &td, &target, &err)) == VXR_OK)
        r = cli_gpu_submit(&gpu, &err);
    bench_frame *f = calloc(n, sizeof *f);
    double *sorted = calloc(n, sizeof *sorted);
    if (r == VXR_OK && (!f || !sorted)) {
        snprintf(err.message, sizeof err.message, "out of memory");
        r = VXR_ERROR_MEMORY;
    }
    vxr_world_status st = {0};
    vxr_memory_info mem;
    vxr_camera cam = {0};
    uint64_t loaded = 0, evicted = 0, resident_peak = 0;
    for (size_t k = 0; r == VXR_OK && k < n; k++) {
        memcpy(cam.eye, cams + 6 * k, sizeof cam.eye);
        memcpy(cam.target, cams + 6 * k + 3, sizeof cam.target);
        cam.width = width;
        cam.height = height;
        if (vxr_camera_setup(&cam) != VXR_OK) {
            fprintf(stderr, "vxr: %s: camera %zu: the eye must differ from the target\n", cams_path,
                    k + 1);
            status = EXIT_INPUT;
            break;
        }
        if (cli_progress(json)) fprintf(stderr, "frame %zu of %zu\r", k + 1, n);
        r = frame(w, budget, &gpu, ren, target, &cam, lod, &st, &f[k], &err);
        vxr_context_memory(gpu.ctx, &mem);
        if (json && r == VXR_OK)
            printf("{\"frame\":%zu,\"ms\":%.3f,\"world_ms\":%.3f,\"update_ms\":%.3f,"
                   "\"resident_bytes\":%llu,\"gpu_bytes\":%llu,"
                   "\"loaded\":%llu,\"evicted\":%llu,\"upload_bytes\":%llu,\"resident\":%u,"
                   "\"wanted\":%u,\"missing\":%u,\"coarse\":%u}\n",
                   k, f[k].ms, f[k].world_ms, f[k].update_ms, (unsigned long long)st.resident_bytes,
                   (unsigned long long)mem.device_local_used,
                   (unsigned long long)(st.loaded - loaded),
                   (unsigned long long)(st.evicted - evicted), (unsigned long long)f[k].upload,
                   st.resident, st.wanted, st.missing, st.coarse);
        loaded = st.loaded;
        evicted = st.evicted;
        if (st.resident_bytes > resident_peak) resident_peak = st.resident_bytes;
        sorted[k] = f[k].ms;
    }
    /* stopped at the last camera: frames until the view is complete */
    const double stop = cli_now();
    bench_frame extra;
    /* (a view the budget leaves incomplete asks for nothing more: it ends) */
    /* (complete: no wanted chunk missing, or coarser than wanted; reads
     * of chunks left behind, to make them coarser, may go on) */
    while (r == VXR_OK && st.missing && st.loading && cli_now() - stop < COMPLETE_SECONDS) {
        r = frame(w, budget, &gpu, ren, target, &cam, lod, &st, &extra, &err);
        if (st.resident_bytes > resident_peak) resident_peak = st.resident_bytes;
    }
    const double complete = cli_now() - stop;
    vxr_context_memory(gpu.ctx, &mem); /* its peak: the frames after the stop too */
    if (cli_progress(json)) fprintf(stderr, "\033[K");
    if (r == VXR_OK && status == EXIT_OK) {
        qsort(sorted, n, sizeof *sorted, cli_cmp_double);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        const unsigned long long rss = (unsigned long long)ru.ru_maxrss * 1024ull;
        const bool done = !st.missing;
        /* the loaders' rate: their voxels over their busy time, times the two threads */
        const double mvox_s =
            st.made_seconds > 0 ? 2e-6 * (double)st.made_voxels / st.made_seconds : 0;
        if (json)
            printf("{\"frames\":%zu,\"worst_ms\":%.3f,\"median_ms\":%.3f,\"peak_rss_bytes\":%llu,"
                   "\"complete_after_stop_s\":%.3f,\"complete\":%s,\"chunks\":%u,"
                   "\"view_distance\":%g,\"budget\":%llu,\"made_voxels\":%llu,"
                   "\"made_s\":%.3f,\"worker_mvox_s\":%.2f,\"lod\":%g,\"gpu_peak_bytes\":%llu,"
                   "\"resident_peak_bytes\":%llu,\"file_bytes\":%llu}\n",
                   n, sorted[n - 1], sorted[n / 2], rss, complete, done ? "true" : "false",
                   st.chunks, (double)st.view_distance, (unsigned long long)budget,
                   (unsigned long long)st.made_voxels, st.made_seconds, mvox_s, (double)lod,
                   (unsigned long long)mem.device_local_peak, (unsigned long long)resident_peak,
                   (unsigned long long)st.file_bytes);
        else
            printf("%zu frames: median %.2f ms, worst %.2f ms; peak resident memory %llu "
                   "bytes; the view complete %.3f s after the stop%s; loaders %.1f Mvoxels/s "
                   "(%llu voxels in %.2f thread-seconds); level of detail bias %g; GPU bytes "
                   "at most %llu, chunks' bytes at most %llu\n",
                   n, sorted[n / 2], sorted[n - 1], rss, complete,
                   done ? "" : " (not complete: over the budget or timed out)", mvox_s,
                   (unsigned long long)st.made_voxels, st.made_seconds, (double)lod,
                   (unsigned long long)mem.device_local_peak, (unsigned long long)resident_peak);
    }
    if (r != VXR_OK) status = cli_fail(path, r, &err);
    free(f);
    free(sorted);
    free(cams);
    vxr_target_destroy(target);
    vxr_renderer_destroy(ren);
    cli_gpu_close(&gpu);
    vxr_world_close(w);
    return status;
}
