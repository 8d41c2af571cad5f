/* vxr render and vxr bench render: the GPU renderer from the command line. */
#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include "render.h"

/* Default image size: a common 4:3 size, large enough to look at, small
 * enough for lavapipe to render in a fraction of a second. */
enum { DEFAULT_WIDTH = 1024, DEFAULT_HEIGHT = 768 };

static bool parse_vec3(const char *s, float dest[3]) {
    char *end;
    for (int k = 0; k < 3; k++) {
        dest[k] = strtof(s, &end);
        if (end == s || !isfinite(dest[k])) return false;
        if (k < 2 && *end != ',') return false;
        s = end + (k < 2);
    }
    return *end == 0;
}

static bool parse_size(const char *s, uint32_t *w, uint32_t *h) {
    char *end;
    unsigned long a = strtoul(s, &end, 10);
    if (end == s || (*end != 'x' && *end != 'X')) return false;
    const char *p = end + 1;
    unsigned long b = strtoul(p, &end, 10);
    if (end == p || *end || a < 1 || b < 1 || a > 16384 || b > 16384) return false;
    *w = (uint32_t)a;
    *h = (uint32_t)b;
    return true;
}

/* SCENE [--eye X,Y,Z --target X,Y,Z] [--fov DEG] [--size WxH] [--grid N]
 * [--out IMG.png] [--hits FILE] [--json] [--validate] [--no-cull]; false
 * after a usage message. */
bool parse_render_args(const char *cmd, int argc, char **argv, uint32_t width, uint32_t height,
                       render_args *a) {
    memset(a, 0, sizeof *a);
    a->cam.width = width;
    a->cam.height = height;
    a->grid = 1;
    a->cull = true;
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i];
        bool has_value = i + 1 < argc;
        if (!strcmp(o, "--json")) {
            a->json = true;
        } else if (!strcmp(o, "--validate")) {
            a->validate = true;
        } else if (!strcmp(o, "--no-cull")) {
            a->cull = false;
        } else if (!strcmp(o, "--eye") && has_value) {
            if (!parse_vec3(argv[++i], a->cam.eye))
                return cli_usage("%s: --eye takes X,Y,Z, not '%s'", cmd, argv[i]), false;
            a->have_eye = true;
        } else if (!strcmp(o, "--target") && has_value) {
            if (!parse_vec3(argv[++i], a->cam.target))
                return cli_usage("%s: --target takes X,Y,Z, not '%s'", cmd, argv[i]), false;
            a->have_target = true;
        } else if (!strcmp(o, "--fov") && has_value) {
            char *end;
            a->cam.fov_deg = strtof(argv[++i], &end);
            if (*end || !(a->cam.fov_deg > 0.0f && a->cam.fov_deg < 180.0f))
                return cli_usage("%s: --fov takes degrees in (0, 180), not '%s'", cmd, argv[i]),
                       false;
        } else if (!strcmp(o, "--size") && has_value) {
            if (!parse_size(argv[++i], &a->cam.width, &a->cam.height))
                return cli_usage("%s: --size takes WxH (1..16384 each), not '%s'", cmd, argv[i]),
                       false;
        } else if (!strcmp(o, "--grid") && has_value) {
            char *end;
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (*end || v == 0 || v > (1ul << 20) || (v & (v - 1)))
                return cli_usage("%s: --grid takes a power of two from 1 to 2^20, not '%s'", cmd,
                                 argv[i]),
                       false;
            a->grid = (uint32_t)v;
        } else if (!strcmp(o, "--out") && has_value) {
            a->out = argv[++i];
        } else if (!strcmp(o, "--hits") && has_value) {
            a->hits = argv[++i];
        } else if (o[0] == '-' && o[1]) {
            return cli_usage("%s: unknown or incomplete option '%s'", cmd, o), false;
        } else if (!a->scene) {
            a->scene = o;
        } else {
            return cli_usage("%s: more than one SCENE", cmd), false;
        }
    }
    if (!a->scene) return cli_usage("%s: missing SCENE", cmd), false;
    if (a->have_eye != a->have_target)
        return cli_usage("%s: --eye and --target go together", cmd), false;
    return true;
}

int gpu_fail(const char *what, vxr_result r, const vxr_error *err) {
    if (r == VXR_ERROR_DEVICE) {
        fprintf(stderr, "vxr: %s: no usable Vulkan device: %s\n", what,
                err->message[0] ? err->message : vxr_result_string(r));
        return EXIT_NO_DEVICE;
    }
    return cli_fail(what, r, err);
}

vxr_result write_png(const char *path, const uint32_t *rgba, uint32_t w, uint32_t h,
                     vxr_error *err) {
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = w;
    img.height = h;
    img.format = PNG_FORMAT_RGBA;
    png_alloc_size_t size = 0;
    if (!png_image_write_to_memory(&img, NULL, &size, 0, rgba, 0, NULL)) {
        snprintf(err->message, sizeof err->message, "cannot encode PNG: %s", img.message);
        return VXR_ERROR_IO;
    }
    void *mem = malloc(size);
    if (!mem) return VXR_ERROR_MEMORY;
    vxr_result r = VXR_OK;
    if (!png_image_write_to_memory(&img, mem, &size, 0, rgba, 0, NULL)) {
        snprintf(err->message, sizeof err->message, "cannot encode PNG: %s", img.message);
        r = VXR_ERROR_IO;
    }
    if (r == VXR_OK) r = vxr_write_file(path, mem, size, err);
    free(mem);
    return r;
}

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
            if (vxr_pick_expand(scene, &ray, &recs[(size_t)j * cam->width + i], &p) != VXR_OK) {
                fclose(f);
                fprintf(stderr, "vxr: %s: the GPU wrote an invalid pick record at pixel %u,%u\n",
                        path, i, j);
                return EXIT_INPUT;
            }
            cli_print_pick(f, &p);
        }
    if (ferror(f) | fclose(f)) {
        fprintf(stderr, "vxr: %s: cannot write: %s\n", path, strerror(errno));
        return EXIT_INPUT;
    }
    return EXIT_OK;
}

/* Culls the scene by view distance from eye, once. */
static vxr_result cull_once(vxr_scene *scene, const float eye[3]) {
    vxr_culler *c;
    vxr_result r = vxr_culler_create(scene, &c);
    if (r == VXR_OK) r = vxr_culler_update(c, scene, eye, NULL, NULL);
    vxr_culler_destroy(c);
    return r;
}

int render_open(const char *cmd, render_args *a, int view, vxr_scene **scene, cli_gpu *gpu) {
    vxr_error err = {{0}};
    vxr_result r = vxr_scene_load(a->scene, scene, &err);
    if (r != VXR_OK) return cli_fail(a->scene, r, &err);
    if (!a->have_eye) /* the orbit cameras of bench pick */
        vxr_camera_orbit(*scene, 6.2831853f * (float)view / 8.0f + 0.3f,
                         0.35f + 0.25f * (float)(view % 3), 0.9f, &a->cam);
    int status = EXIT_OK;
    if (vxr_camera_setup(&a->cam) != VXR_OK)
        status = cli_usage("%s: the camera needs --eye different from --target", cmd);
    /* What the eye sees (view distances), as `vxr pick` does per origin. */
    else if (a->cull && (r = cull_once(*scene, a->cam.eye)) != VXR_OK)
        status = cli_fail(a->scene, r, &err);
    else if ((r = cli_gpu_open(gpu, &(vxr_context_desc){.validation = a->validate}, &err)) !=
             VXR_OK)
        status = gpu_fail(cmd, r, &err);
    if (status != EXIT_OK) {
        vxr_scene_destroy(*scene);
        *scene = NULL;
    }
    return status;
}

int cmd_render(int argc, char **argv) {
    render_args a;
    if (!parse_render_args("render", argc, argv, DEFAULT_WIDTH, DEFAULT_HEIGHT, &a))
        return EXIT_USAGE;
    if (!a.have_eye) return cli_usage("render: expected --eye X,Y,Z --target X,Y,Z");
    if (!a.out) return cli_usage("render: expected --out IMG.png");
    vxr_scene *scene;
    cli_gpu gpu;
    int status = render_open("render", &a, 0, &scene, &gpu);
    if (status != EXIT_OK) return status;
    vxr_error err = {{0}};
    vxr_result r;
    vxr_renderer *ren = NULL;
    vxr_target *target = NULL;
    vxr_target_desc td = {a.cam.width, a.cam.height, a.hits != NULL, true};
    if ((r = cli_gpu_begin(&gpu, &err)) == VXR_OK &&
        (r = vxr_renderer_create(gpu.ctx, scene, gpu.cmd, &ren, &err)) == VXR_OK &&
        (r = vxr_target_create(gpu.ctx, &td, &target, &err)) == VXR_OK &&
        (r = vxr_renderer_render(ren, target, &a.cam, a.grid, gpu.cmd, &err)) == VXR_OK)
        r = cli_gpu_submit(&gpu, &err);
    if (r != VXR_OK) {
        status = gpu_fail(a.scene, r, &err);
    } else if ((r = write_png(a.out, vxr_target_colors(target), a.cam.width, a.cam.height, &err)) !=
               VXR_OK) {
        status = cli_fail(a.out, r, &err);
    } else if (a.hits) {
        status = write_hits(a.hits, scene, &a.cam, vxr_target_picks(target));
    }
    if (status == EXIT_OK && a.validate && vxr_context_validation_messages(gpu.ctx)) {
        fprintf(stderr, "vxr: render: %u validation messages\n",
                vxr_context_validation_messages(gpu.ctx));
        status = EXIT_INPUT;
    }
    vkDeviceWaitIdle(gpu.info.device);
    vxr_target_destroy(target);
    vxr_renderer_destroy(ren);
    cli_gpu_close(&gpu);
    vxr_scene_destroy(scene);
    return status;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int bench_render(int argc, char **argv) {
    render_args a;
    if (!parse_render_args("bench render", argc, argv, DEFAULT_WIDTH, DEFAULT_HEIGHT, &a))
        return EXIT_USAGE;
    if (a.out || a.hits) return cli_usage("bench render: --out and --hits belong to render");
    vxr_scene *scene;
    cli_gpu gpu;
    int status = render_open("bench render", &a, 0, &scene, &gpu);
    if (status != EXIT_OK) return status;
    vxr_error err = {{0}};
    vxr_result r;
    if (gpu.info.timestamp_bits == 0) {
        fprintf(stderr, "vxr: bench render: %s has no timestamps on its compute queue\n",
                gpu.info.device_name);
        cli_gpu_close(&gpu);
        vxr_scene_destroy(scene);
        return EXIT_NO_DEVICE;
    }
    vxr_renderer *ren = NULL;
    vxr_target *target = NULL;
    VkQueryPool qp = VK_NULL_HANDLE;
    VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                .queryCount = 2};
    vxr_target_desc td = {a.cam.width, a.cam.height, false, false};
    /* wall time, submit and wait included: the whole upload, then the
     * median of instance updates (what a moving eye costs the viewer) */
    double upload_ms = cli_now(), update_ms[5];
    if ((r = cli_gpu_begin(&gpu, &err)) == VXR_OK &&
        (r = vxr_renderer_create(gpu.ctx, scene, gpu.cmd, &ren, &err)) == VXR_OK &&
        (r = cli_gpu_submit(&gpu, &err)) == VXR_OK)
        upload_ms = 1e3 * (cli_now() - upload_ms);
    for (int i = 0; i < 5 && r == VXR_OK; i++) {
        update_ms[i] = cli_now();
        if ((r = cli_gpu_begin(&gpu, &err)) == VXR_OK &&
            (r = vxr_renderer_update_instances(ren, scene, gpu.cmd, &err)) == VXR_OK)
            r = cli_gpu_submit(&gpu, &err);
        update_ms[i] = 1e3 * (cli_now() - update_ms[i]);
    }
    if (r == VXR_OK) qsort(update_ms, 5, sizeof update_ms[0], cmp_double);
    if (r == VXR_OK && (r = cli_gpu_begin(&gpu, &err)) == VXR_OK &&
        (r = vxr_target_create(gpu.ctx, &td, &target, &err)) == VXR_OK)
        r = cli_gpu_submit(&gpu, &err);
    if (r == VXR_OK && vkCreateQueryPool(gpu.info.device, &qi, NULL, &qp) != VK_SUCCESS) {
        snprintf(err.message, sizeof err.message, "vkCreateQueryPool failed");
        r = VXR_ERROR_VULKAN;
    }
    enum { WARMUP = 2, MAX_FRAMES = 50 };
    double ms[MAX_FRAMES];
    int frames = 0;
    double spent = 0;
    const uint64_t mask =
        gpu.info.timestamp_bits >= 64 ? ~0ull : (1ull << gpu.info.timestamp_bits) - 1;
    /* At least 5 measured frames, more while under 3 seconds. */
    for (int f = 0; r == VXR_OK && f < WARMUP + MAX_FRAMES; f++) {
        if (f >= WARMUP + 5 && spent > 3.0) break;
        if (cli_progress(a.json)) fprintf(stderr, "frame %d\r", f + 1);
        if ((r = cli_gpu_begin(&gpu, &err)) != VXR_OK) break;
        vkCmdResetQueryPool(gpu.cmd, qp, 0, 2);
        vkCmdWriteTimestamp(gpu.cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, qp, 0);
        if ((r = vxr_renderer_render(ren, target, &a.cam, a.grid, gpu.cmd, &err)) != VXR_OK) break;
        vkCmdWriteTimestamp(gpu.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, qp, 1);
        double t0 = cli_now();
        if ((r = cli_gpu_submit(&gpu, &err)) != VXR_OK) break;
        uint64_t ts[2];
        if (vkGetQueryPoolResults(gpu.info.device, qp, 0, 2, sizeof ts, ts, sizeof ts[0],
                                  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) !=
            VK_SUCCESS) {
            snprintf(err.message, sizeof err.message, "vkGetQueryPoolResults failed");
            r = VXR_ERROR_VULKAN;
            break;
        }
        if (f < WARMUP) continue;
        spent += cli_now() - t0;
        ms[frames++] = (double)((ts[1] - ts[0]) & mask) * (double)gpu.info.timestamp_period * 1e-6;
    }
    if (cli_progress(a.json)) fprintf(stderr, "\033[K");
    if (r != VXR_OK) {
        status = gpu_fail(a.scene, r, &err);
    } else {
        qsort(ms, (size_t)frames, sizeof ms[0], cmp_double);
        double median = ms[frames / 2];
        double mrays = (double)a.cam.width * a.cam.height / (median * 1e-3) * 1e-6;
        if (a.json) {
            printf("{\"width\":%u,\"height\":%u,\"ms\":%.3f,\"mrays_s\":%.3f,\"upload_ms\":%.3f,"
                   "\"update_ms\":%.3f,\"device\":\"",
                   a.cam.width, a.cam.height, median, mrays, upload_ms, update_ms[2]);
            cli_print_json_string(stdout, gpu.info.device_name);
            printf("\"}\n");
        } else {
            printf("%s: %ux%u on %s\n  %.3f ms per frame (median of %d, GPU timestamps), "
                   "%.3f Mrays/s\n  scene upload %.3f ms, instance update %.3f ms (wall time)\n",
                   a.scene, a.cam.width, a.cam.height, gpu.info.device_name, median, frames, mrays,
                   upload_ms, update_ms[2]);
        }
    }
    if (gpu.info.device) vkDeviceWaitIdle(gpu.info.device);
    if (qp) vkDestroyQueryPool(gpu.info.device, qp, NULL);
    vxr_target_destroy(target);
    vxr_renderer_destroy(ren);
    cli_gpu_close(&gpu);
    vxr_scene_destroy(scene);
    return status;
}
