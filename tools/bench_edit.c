/* vxr bench edit: what a live edit costs, against a full build and upload
 * of the same scene. Each operation (one voxel, a 16^3 box, a radius-32
 * sphere carved out) is applied through the editor at a random place in
 * the scene's largest model and uploaded with vxr_renderer_update; CPU
 * time covers the edit and recording the upload, GPU time the update's
 * commands (timestamps). Every measured edit is undone (untimed) before
 * the next, so each one meets the same scene. Last, rendering after
 * thousands of random single-voxel edits against a fresh build of the
 * same voxels, alternating. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "gpu.h"
#include "vxr/edit.h"
#include "vxr/formats.h"

enum { WARMUP = 3, FRAMES = 5, ROUNDS = 3 };

typedef struct bench {
    cli_gpu gpu;
    VkQueryPool qp;
    vxr_scene *s;
    vxr_editor *e;
    vxr_renderer *r;
    uint32_t model;      /* the largest */
    int32_t (*cells)[3]; /* its voxels, where edits go */
    size_t n_cells;
    uint64_t state; /* xorshift */
    vxr_error err;
} bench;

static uint32_t rnd(bench *b) {
    return cli_xorshift(&b->state);
}

/* Submits and waits, reads the two timestamps (when ts is not NULL) and
 * tells the renderer the update completed. */
static vxr_result finish(bench *b, uint64_t serial, double *gpu_ms) {
    vxr_result r = cli_gpu_submit(&b->gpu, &b->err);
    if (r != VXR_OK || !gpu_ms) {
        if (r == VXR_OK) vxr_renderer_complete(b->r, serial);
        return r;
    }
    uint64_t ts[2];
    VkResult vr =
        vkGetQueryPoolResults(b->gpu.info.device, b->qp, 0, 2, sizeof ts, ts, sizeof ts[0],
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (vr != VK_SUCCESS) return cli_vk_error(&b->err, vr, "vkGetQueryPoolResults");
    *gpu_ms = cli_gpu_ms(&b->gpu.info, ts);
    vxr_renderer_complete(b->r, serial);
    return VXR_OK;
}

/* One edit and its upload, timed; then undone and uploaded, untimed. */
static vxr_result timed_edit(bench *b, const vxr_edit *ed, double *cpu_ms, double *gpu_ms,
                             uint64_t *bytes, uint64_t *changed) {
    vxr_result r = cli_gpu_begin(&b->gpu, &b->err);
    if (r != VXR_OK) return r;
    vkCmdResetQueryPool(b->gpu.cmd, b->qp, 0, 2);
    vkCmdWriteTimestamp(b->gpu.cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, b->qp, 0);
    vxr_update_info info;
    vxr_edit_result er;
    double t0 = cli_now();
    if ((r = vxr_editor_apply(b->e, ed, &er, &b->err)) != VXR_OK ||
        (r = vxr_renderer_update(b->r, b->s, b->gpu.cmd, &info, &b->err)) != VXR_OK) {
        vkEndCommandBuffer(b->gpu.cmd);
        return r;
    }
    *cpu_ms = 1e3 * (cli_now() - t0);
    vkCmdWriteTimestamp(b->gpu.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, b->qp, 1);
    *bytes = info.upload_bytes;
    *changed = er.changed;
    if ((r = finish(b, info.serial, gpu_ms)) != VXR_OK) return r;
    bool done;
    if ((r = cli_gpu_begin(&b->gpu, &b->err)) != VXR_OK) return r;
    if ((r = vxr_editor_undo(b->e, &done, &b->err)) != VXR_OK ||
        (r = vxr_renderer_update(b->r, b->s, b->gpu.cmd, &info, &b->err)) != VXR_OK) {
        vkEndCommandBuffer(b->gpu.cmd);
        return r;
    }
    return finish(b, info.serial, NULL);
}

/* The edit of operation op at a random voxel of the model (as it was at
 * the start): a voxel cleared or one set on top of it; a 16^3 box set or
 * a radius-32 sphere carved out around it. */
static vxr_edit random_edit(bench *b, int op, uint32_t run) {
    vxr_edit ed = {.model = b->model, .shape = VXR_SHAPE_BOX, .op = VXR_EDIT_SET};
    ed.value = b->s->attr_size == 4 ? (rnd(b) | 0xff000000u) : 1 + rnd(b) % 255;
    const int32_t *c = b->cells[rnd(b) % b->n_cells];
    int32_t size = op == 1 ? 16 : 1;
    for (int k = 0; k < 3; k++) {
        ed.lo[k] = c[k] - size / 2;
        ed.hi[k] = ed.lo[k] + size;
        ed.centre[k] = c[k] + 0.5;
    }
    if (op == 0 && run % 2) {
        ed.op = VXR_EDIT_CLEAR;
    } else if (op == 0) {
        ed.lo[2]++;
        ed.hi[2]++;
    } else if (op == 2) {
        ed.op = VXR_EDIT_CLEAR;
        ed.shape = VXR_SHAPE_SPHERE;
        ed.radius = 32.0;
    }
    return ed;
}

static void add_cell(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    bench *b = user;
    (void)attr;
    b->cells[b->n_cells][0] = x;
    b->cells[b->n_cells][1] = y;
    b->cells[b->n_cells][2] = z;
    b->n_cells++;
}

/* A full build of the scene's voxel lists and its upload, best of runs
 * (wall time: build, vxr_renderer_create, submit and wait). */
static vxr_result rebuild(bench *b, const char *path, int runs, double *ms, uint64_t *bytes) {
    vxr_scene_src src;
    vxr_result r = vxr_scene_src_load(path, &src, &b->err);
    if (r != VXR_OK) return r;
    *ms = 1e30;
    for (int i = 0; i < runs && r == VXR_OK; i++) {
        vxr_scene *s = NULL;
        vxr_renderer *ren = NULL;
        double t0 = cli_now();
        if ((r = vxr_scene_build(&src, &s, &b->err)) == VXR_OK &&
            (r = cli_gpu_begin(&b->gpu, &b->err)) == VXR_OK &&
            (r = vxr_renderer_create(b->gpu.ctx, s, b->gpu.cmd, &ren, &b->err)) == VXR_OK)
            r = cli_gpu_submit(&b->gpu, &b->err);
        double dt = 1e3 * (cli_now() - t0);
        if (dt < *ms) *ms = dt;
        if (s) {
            vxr_scene_stats st;
            vxr_scene_get_stats(s, &st);
            *bytes = st.bytes;
        }
        vxr_renderer_destroy(ren);
        vxr_scene_destroy(s);
    }
    vxr_scene_src_free(&src);
    return r;
}

/* The best GPU time of FRAMES frames (after WARMUP) of renderer ren. */
static vxr_result frame_ms(bench *b, vxr_renderer *ren, vxr_target *t, const vxr_camera *cam,
                           double *best) {
    *best = 1e30;
    for (int f = 0; f < WARMUP + FRAMES; f++) {
        vxr_result r = cli_gpu_begin(&b->gpu, &b->err);
        if (r != VXR_OK) return r;
        vkCmdResetQueryPool(b->gpu.cmd, b->qp, 0, 2);
        vkCmdWriteTimestamp(b->gpu.cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, b->qp, 0);
        if ((r = vxr_renderer_render(ren, t, cam, 1, b->gpu.cmd, &b->err)) != VXR_OK) {
            vkEndCommandBuffer(b->gpu.cmd);
            return r;
        }
        vkCmdWriteTimestamp(b->gpu.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, b->qp, 1);
        double ms;
        if ((r = finish(b, 0, &ms)) != VXR_OK) return r;
        if (f >= WARMUP && ms < *best) *best = ms;
    }
    return VXR_OK;
}

/* `edits` random single-voxel sets and clears in the largest model,
 * uploaded ten at a time; then frames of the edited scene against frames
 * of a fresh build of its voxels (compact copies), alternating. */
static vxr_result render_after(bench *b, uint32_t edits, uint32_t w, uint32_t h, double *live,
                               double *fresh) {
    vxr_result r = VXR_OK;
    for (uint32_t i = 0; i < edits && r == VXR_OK; i += 10) {
        if ((r = cli_gpu_begin(&b->gpu, &b->err)) != VXR_OK) break;
        for (uint32_t k = 0; k < 10 && r == VXR_OK; k++) {
            vxr_edit ed = random_edit(b, 0, rnd(b));
            r = vxr_editor_apply(b->e, &ed, NULL, &b->err);
        }
        vxr_update_info info = {0};
        if (r == VXR_OK) r = vxr_renderer_update(b->r, b->s, b->gpu.cmd, &info, &b->err);
        if (r != VXR_OK) {
            vkEndCommandBuffer(b->gpu.cmd);
            break;
        }
        r = finish(b, info.serial, NULL);
    }
    if (r != VXR_OK) return r;
    vxr_scene copy = *b->s; /* shares the instances and palette */
    copy.models = calloc(b->s->model_count + 1, sizeof *copy.models);
    if (!copy.models) return VXR_ERROR_MEMORY;
    for (uint32_t i = 0; i < b->s->model_count && r == VXR_OK; i++)
        r = vxr_octree_compact_copy(&b->s->models[i], &copy.models[i], &b->err);
    vxr_renderer *ren = NULL;
    vxr_target *t = NULL;
    vxr_target_desc td = {.width = w, .height = h, .picks = false, .readback = false};
    vxr_camera cam = {0};
    vxr_camera_orbit(b->s, 0.3f, 0.35f, 0.9f, &cam);
    cam.width = w;
    cam.height = h;
    vxr_camera_setup(&cam);
    if (r == VXR_OK && (r = cli_gpu_begin(&b->gpu, &b->err)) == VXR_OK &&
        (r = vxr_renderer_create(b->gpu.ctx, &copy, b->gpu.cmd, &ren, &b->err)) == VXR_OK &&
        (r = vxr_target_create(b->gpu.ctx, &td, &t, &b->err)) == VXR_OK)
        r = cli_gpu_submit(&b->gpu, &b->err);
    *live = *fresh = 1e30;
    for (int round = 0; round < ROUNDS && r == VXR_OK; round++) {
        double a = 1e30, c = 1e30;
        if ((r = frame_ms(b, b->r, t, &cam, &a)) == VXR_OK) r = frame_ms(b, ren, t, &cam, &c);
        if (a < *live) *live = a;
        if (c < *fresh) *fresh = c;
    }
    vxr_target_destroy(t);
    vxr_renderer_destroy(ren);
    for (uint32_t i = 0; i < b->s->model_count; i++) vxr_octree_free(&copy.models[i]);
    free(copy.models);
    return r;
}

#define USAGE       "bench edit: SCENE [--json] [--runs N] [--edits N] [--size WxH]"
#define MAX_RUNS    1000000 /* --runs and --edits */
#define MAX_EDIT_WH 8192    /* --size, each side */

int cmd_bench_edit(int argc, char **argv) {
    const char *path;
    bool json;
    uint32_t runs = 30, edits = 10000, w = 512, h = 384;
    const cli_count counts[] = {{"--runs", 1, MAX_RUNS, &runs, NULL},
                                {"--edits", 1, MAX_RUNS, &edits, NULL},
                                {"--size", 1, MAX_EDIT_WH, &w, &h}};
    if (!cli_scene_counts("bench edit", USAGE, argc, argv, counts, 3, &path, &json))
        return EXIT_USAGE;
    bench b = {.state = 0x9e3779b97f4a7c15ull};
    vxr_result r = vxr_scene_load(path, &b.s, &b.err);
    if (r != VXR_OK) return cli_fail(path, r, &b.err);
    for (uint32_t i = 1; i < b.s->model_count; i++)
        if (b.s->models[i].voxel_count > b.s->models[b.model].voxel_count) b.model = i;
    b.cells = malloc(((size_t)b.s->models[b.model].voxel_count + 1) * sizeof *b.cells);
    if (!b.cells || !b.s->models[b.model].voxel_count) {
        vxr_scene_destroy(b.s);
        free(b.cells);
        fprintf(stderr, "vxr: %s: %s\n", path,
                b.cells ? "the scene has no voxels" : "out of memory");
        return EXIT_INPUT;
    }
    vxr_octree_foreach(&b.s->models[b.model], add_cell, &b);
    VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                .queryCount = 2};
    VkResult vr;
    if ((r = cli_gpu_open(&b.gpu, NULL, &b.err)) == VXR_OK &&
        (vr = vkCreateQueryPool(b.gpu.info.device, &qi, NULL, &b.qp)) != VK_SUCCESS)
        r = cli_vk_error(&b.err, vr, "vkCreateQueryPool");
    if (r == VXR_OK) r = vxr_editor_create(b.s, 0, &b.e, &b.err);
    if (r == VXR_OK && (r = cli_gpu_begin(&b.gpu, &b.err)) == VXR_OK &&
        (r = vxr_renderer_create(b.gpu.ctx, b.s, b.gpu.cmd, &b.r, &b.err)) == VXR_OK)
        r = cli_gpu_submit(&b.gpu, &b.err);
    double rebuild_ms = 0;
    uint64_t rebuild_bytes = 0;
    if (r == VXR_OK) r = rebuild(&b, path, 5, &rebuild_ms, &rebuild_bytes);
    static const char *ops[] = {"voxel", "box16", "sphere32"};
    double *cpu = malloc((WARMUP + runs) * sizeof *cpu);
    for (int op = 0; op < 3 && r == VXR_OK; op++) {
        double best_gpu = 1e30, gpu_ms;
        uint64_t max_bytes = 0, bytes, changed = 0, ch;
        uint32_t n = 0;
        for (uint32_t i = 0; i < WARMUP + runs && r == VXR_OK; i++) {
            if (cli_progress(json)) fprintf(stderr, "%s: run %u\r", ops[op], i + 1);
            vxr_edit ed = random_edit(&b, op, i);
            double cpu_ms;
            r = timed_edit(&b, &ed, &cpu_ms, &gpu_ms, &bytes, &ch);
            if (r != VXR_OK || i < WARMUP) continue;
            cpu[n++] = cpu_ms;
            if (gpu_ms < best_gpu) best_gpu = gpu_ms;
            if (bytes > max_bytes) max_bytes = bytes;
            if (ch > changed) changed = ch;
        }
        if (cli_progress(json)) fprintf(stderr, "\033[K");
        if (r != VXR_OK) break;
        qsort(cpu, n, sizeof *cpu, cli_cmp_double);
        if (json)
            printf("{\"op\":\"%s\",\"cpu_ms\":%.4f,\"cpu_ms_median\":%.4f,\"upload_bytes\":%llu,"
                   "\"gpu_ms\":%.4f,\"rebuild_ms\":%.3f,\"rebuild_upload_bytes\":%llu,"
                   "\"voxels_changed\":%llu,\"runs\":%u}\n",
                   ops[op], cpu[0], cpu[n / 2], (unsigned long long)max_bytes, best_gpu, rebuild_ms,
                   (unsigned long long)rebuild_bytes, (unsigned long long)changed, n);
        else
            printf("%-9s cpu %8.4f ms (median %.4f)  upload %9llu B  gpu %8.4f ms  | rebuild "
                   "%.3f ms, %llu B  (up to %llu voxels changed, %u runs)\n",
                   ops[op], cpu[0], cpu[n / 2], (unsigned long long)max_bytes, best_gpu, rebuild_ms,
                   (unsigned long long)rebuild_bytes, (unsigned long long)changed, n);
    }
    free(cpu);
    double live = 0, fresh = 0;
    if (r == VXR_OK && edits) {
        if (cli_progress(json)) fprintf(stderr, "%u random edits, then frames\r", edits);
        r = render_after(&b, edits, w, h, &live, &fresh);
        if (cli_progress(json)) fprintf(stderr, "\033[K");
    }
    if (r == VXR_OK && edits) {
        double mr = (double)w * h / (live * 1e-3) * 1e-6,
               mf = (double)w * h / (fresh * 1e-3) * 1e-6;
        if (json)
            printf("{\"op\":\"render_after_edits\",\"edits\":%u,\"width\":%u,\"height\":%u,"
                   "\"mrays_s\":%.3f,\"fresh_mrays_s\":%.3f,\"ratio\":%.4f}\n",
                   edits, w, h, mr, mf, mr / mf);
        else
            printf("render after %u edits: %.3f Mrays/s, fresh build %.3f Mrays/s (%.1f%%), "
                   "%ux%u, best of %d frames x %d rounds\n",
                   edits, mr, mf, 100.0 * mr / mf, w, h, FRAMES, ROUNDS);
    }
    int status = r == VXR_OK ? EXIT_OK : cli_fail(path, r, &b.err);
    if (b.gpu.info.device) vkDeviceWaitIdle(b.gpu.info.device);
    if (b.qp) vkDestroyQueryPool(b.gpu.info.device, b.qp, NULL);
    vxr_renderer_destroy(b.r);
    vxr_editor_destroy(b.e);
    cli_gpu_close(&b.gpu);
    vxr_scene_destroy(b.s);
    free(b.cells);
    return status;
}
