/* vxr bench instances: what moving instances costs. Each update moves k
 * random instances (1, 10, 100 and 1000, or --moves N) by a few units with
 * vxr_scene_set_transform and records vxr_renderer_update: CPU time covers
 * the set calls and the recording (best and median of the runs, after a
 * warm-up), with the bytes uploaded, the records and hierarchy nodes
 * written, and whether the hierarchy was refitted or built afresh. Each
 * timed update is submitted and waited for, then undone (the instances
 * moved back, untimed), so every run meets the same scene. The baseline is
 * what an update cost before the change list and refits: every instance
 * record computed and compared, the hierarchy built afresh and uploaded
 * whole (CPU time of the records and the build, and those bytes); and the
 * CPU time of recording vxr_renderer_update_instances, the API's path that
 * rewrites everything. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "gpu.h"
#include "vxr/bvh.h"
#include "vxr/edit.h"
#include "vxr/formats.h"

enum { WARMUP = 3, BASELINE_RUNS = 5 };

typedef struct bench {
    cli_gpu gpu;
    vxr_scene *s;
    vxr_renderer *r;
    uint32_t *ids; /* the instances that may move (not removed) */
    uint32_t n_ids;
    vxr_transform *saved; /* the moved ones' transforms before the move */
    uint64_t state;       /* xorshift */
    vxr_error err;
} bench;

static uint32_t rnd(bench *b) {
    return cli_xorshift(&b->state);
}

/* Records vxr_renderer_update into a fresh command buffer; submits and
 * waits, and tells the renderer it completed. */
static vxr_result update(bench *b, vxr_update_info *info) {
    vxr_result r = vxr_renderer_update(b->r, b->s, b->gpu.cmd, info, &b->err);
    if (r != VXR_OK) {
        vkEndCommandBuffer(b->gpu.cmd);
        return r;
    }
    if ((r = cli_gpu_submit(&b->gpu, &b->err)) == VXR_OK) vxr_renderer_complete(b->r, info->serial);
    return r;
}

/* One timed run: k distinct random instances (the first k of ids after a
 * partial shuffle) moved by 1 to 4 units along x and y, and the update;
 * then moved back and updated, untimed. */
static vxr_result run(bench *b, uint32_t k, double *cpu_ms, vxr_update_info *info) {
    vxr_scene *s = b->s;
    for (uint32_t j = 0; j < k; j++) {
        uint32_t x = j + rnd(b) % (b->n_ids - j), t = b->ids[j];
        b->ids[j] = b->ids[x];
        b->ids[x] = t;
    }
    vxr_result r = cli_gpu_begin(&b->gpu, &b->err);
    if (r != VXR_OK) return r;
    double t0 = cli_now();
    for (uint32_t j = 0; j < k && r == VXR_OK; j++) {
        uint32_t i = b->ids[j];
        vxr_transform t = s->instances[i].transform;
        b->saved[j] = t;
        for (int a = 0; a < 2; a++)
            t.translation[a] += (float)(1 + rnd(b) % 4) * (rnd(b) % 2 ? 1.0f : -1.0f);
        r = vxr_scene_set_transform(s, i, &t, &b->err);
    }
    if (r == VXR_OK) r = vxr_renderer_update(b->r, s, b->gpu.cmd, info, &b->err);
    *cpu_ms = 1e3 * (cli_now() - t0);
    if (r != VXR_OK) {
        vkEndCommandBuffer(b->gpu.cmd);
        return r;
    }
    if ((r = cli_gpu_submit(&b->gpu, &b->err)) != VXR_OK) return r;
    vxr_renderer_complete(b->r, info->serial);
    if ((r = cli_gpu_begin(&b->gpu, &b->err)) != VXR_OK) return r;
    for (uint32_t j = 0; j < k && r == VXR_OK; j++)
        r = vxr_scene_set_transform(s, b->ids[j], &b->saved[j], &b->err);
    vxr_update_info back;
    if (r == VXR_OK) return update(b, &back);
    vkEndCommandBuffer(b->gpu.cmd);
    return r;
}

/* The update as it was: every record computed (and compared with the
 * uploaded ones), the hierarchy built afresh; best CPU time of a few runs,
 * and the bytes it uploaded besides the k changed records. */
static vxr_result baseline(bench *b, double *ms, uint64_t *bytes) {
    const vxr_scene *s = b->s;
    size_t n = (size_t)s->instance_count + 1;
    vxr_gpu_instance *now = malloc(n * sizeof *now), *old = malloc(n * sizeof *old);
    if (!now || !old) {
        free(now);
        free(old);
        snprintf(b->err.message, sizeof b->err.message, "out of memory");
        return VXR_ERROR_MEMORY;
    }
    vxr_instance_records(s, old);
    *ms = 1e30;
    vxr_result r = VXR_OK;
    volatile uint32_t differ = 0;
    for (int i = 0; i < BASELINE_RUNS && r == VXR_OK; i++) {
        vxr_bvh bvh;
        double t0 = cli_now();
        vxr_instance_records(s, now);
        uint32_t d = 0;
        for (uint32_t j = 0; j < s->instance_count; j++)
            d += memcmp(&now[j], &old[j], sizeof now[j]) != 0;
        r = vxr_bvh_build(s, now, &bvh);
        double dt = 1e3 * (cli_now() - t0);
        differ += d;
        if (dt < *ms) *ms = dt;
        *bytes = (uint64_t)bvh.node_count * sizeof *bvh.nodes + (uint64_t)bvh.item_count * 4;
        vxr_bvh_free(&bvh);
    }
    free(now);
    free(old);
    (void)differ; /* a sink: the comparisons must not be optimised away */
    if (r != VXR_OK) snprintf(b->err.message, sizeof b->err.message, "instance hierarchy");
    return r;
}

/* The API's full path for comparison: vxr_renderer_update_instances, which
 * rewrites every record and a hierarchy built afresh; best CPU time of its
 * recording. */
static vxr_result full_update(bench *b, double *ms) {
    *ms = 1e30;
    vxr_result r = VXR_OK;
    for (int i = 0; i < BASELINE_RUNS && r == VXR_OK; i++) {
        if ((r = cli_gpu_begin(&b->gpu, &b->err)) != VXR_OK) break;
        double t0 = cli_now();
        r = vxr_renderer_update_instances(b->r, b->s, b->gpu.cmd, &b->err);
        double dt = 1e3 * (cli_now() - t0);
        if (dt < *ms) *ms = dt;
        if (r != VXR_OK) {
            vkEndCommandBuffer(b->gpu.cmd);
            break;
        }
        r = cli_gpu_submit(&b->gpu, &b->err);
    }
    return r;
}

#define USAGE "bench instances: SCENE [--moves N] [--runs N] [--json]"

int cmd_bench_instances(int argc, char **argv) {
    const char *path;
    bool json;
    uint32_t moves = 0, runs = 30;
    const cli_count counts[] = {{"--moves", 1, 1000000, &moves, NULL},
                                {"--runs", 1, 1000000, &runs, NULL}};
    if (!cli_scene_counts("bench instances", USAGE, argc, argv, counts, 2, &path, &json))
        return EXIT_USAGE;
    bench b = {.state = 0x9e3779b97f4a7c15ull};
    vxr_result r = vxr_scene_load(path, &b.s, &b.err);
    if (r != VXR_OK) return cli_fail(path, r, &b.err);
    vxr_scene *s = b.s;
    b.ids = malloc(((size_t)s->instance_count + 1) * sizeof *b.ids);
    b.saved = malloc(((size_t)s->instance_count + 1) * sizeof *b.saved);
    if (!b.ids || !b.saved) {
        free(b.ids);
        free(b.saved);
        vxr_scene_destroy(s);
        fprintf(stderr, "vxr: %s: out of memory\n", path);
        return EXIT_INPUT;
    }
    for (uint32_t i = 0; i < s->instance_count; i++)
        if (!(s->instances[i].flags & VXR_INSTANCE_REMOVED)) b.ids[b.n_ids++] = i;
    if (!b.n_ids) {
        free(b.ids);
        free(b.saved);
        vxr_scene_destroy(s);
        fprintf(stderr, "vxr: %s: the scene has no instances\n", path);
        return EXIT_INPUT;
    }
    if ((r = cli_gpu_open(&b.gpu, NULL, &b.err)) == VXR_OK &&
        (r = cli_gpu_begin(&b.gpu, &b.err)) == VXR_OK &&
        (r = vxr_renderer_create(b.gpu.ctx, s, b.gpu.cmd, &b.r, &b.err)) == VXR_OK)
        r = cli_gpu_submit(&b.gpu, &b.err);
    if (r == VXR_OK) vxr_renderer_upload_done(b.r);
    double base_ms = 0;
    uint64_t base_bytes = 0;
    double full_ms = 0;
    if (r == VXR_OK) r = baseline(&b, &base_ms, &base_bytes);
    if (r == VXR_OK) r = full_update(&b, &full_ms);
    static const uint32_t cases[] = {1, 10, 100, 1000};
    uint32_t n_cases = moves ? 1 : 4;
    double *cpu = malloc(((size_t)runs + 1) * sizeof *cpu);
    if (!cpu && r == VXR_OK) {
        snprintf(b.err.message, sizeof b.err.message, "out of memory");
        r = VXR_ERROR_MEMORY;
    }
    if (r == VXR_OK && !json)
        printf("%s: %u instances; baseline (every record, hierarchy built): %.3f ms CPU, "
               "%llu B + the records; vxr_renderer_update_instances %.3f ms\n",
               path, s->instance_count, base_ms, (unsigned long long)base_bytes, full_ms);
    for (uint32_t c = 0; c < n_cases && r == VXR_OK; c++) {
        uint32_t k = moves ? moves : cases[c];
        if (k > b.n_ids) k = b.n_ids;
        uint64_t max_bytes = 0;
        uint32_t refits = 0, rebuilds = 0, n = 0, written = 0, nodes = 0, checked = 0;
        for (uint32_t i = 0; i < WARMUP + runs && r == VXR_OK; i++) {
            if (cli_progress(json)) fprintf(stderr, "%u moves: run %u\r", k, i + 1);
            double ms;
            vxr_update_info info;
            if ((r = run(&b, k, &ms, &info)) != VXR_OK || i < WARMUP) continue;
            cpu[n++] = ms;
            if (info.upload_bytes > max_bytes) max_bytes = info.upload_bytes;
            if (info.instances > written) written = info.instances;
            if (info.bvh_nodes > nodes) nodes = info.bvh_nodes;
            if (info.instances_checked > checked) checked = info.instances_checked;
            refits += info.refit;
            rebuilds += info.hierarchy;
        }
        if (cli_progress(json)) fprintf(stderr, "\033[K");
        if (r != VXR_OK) break;
        qsort(cpu, n, sizeof *cpu, cli_cmp_double);
        uint64_t base_upload = base_bytes + (uint64_t)k * sizeof(vxr_gpu_instance);
        const char *how = rebuilds == 0 ? "refit" : refits == 0 ? "rebuild" : "mixed";
        if (json)
            printf("{\"moves\":%u,\"cpu_ms\":%.4f,\"cpu_ms_median\":%.4f,\"upload_bytes\":%llu,"
                   "\"instances_written\":%u,\"instances_checked\":%u,\"bvh_nodes\":%u,"
                   "\"hierarchy\":\"%s\",\"refits\":%u,\"rebuilds\":%u,\"baseline_ms\":%.3f,"
                   "\"baseline_upload_bytes\":%llu,\"update_instances_ms\":%.3f,"
                   "\"instances\":%u,\"runs\":%u}\n",
                   k, cpu[0], cpu[n / 2], (unsigned long long)max_bytes, written, checked, nodes,
                   how, refits, rebuilds, base_ms, (unsigned long long)base_upload, full_ms,
                   s->instance_count, n);
        else
            printf("%5u moves: cpu %8.4f ms (median %.4f)  upload %8llu B  %u records, %u "
                   "nodes, %s (%u refits, %u builds)  | baseline %.3f ms, %llu B  (%u runs)\n",
                   k, cpu[0], cpu[n / 2], (unsigned long long)max_bytes, written, nodes, how,
                   refits, rebuilds, base_ms, (unsigned long long)base_upload, n);
    }
    free(cpu);
    int status = r == VXR_OK ? EXIT_OK : cli_fail(path, r, &b.err);
    if (b.gpu.info.device) vkDeviceWaitIdle(b.gpu.info.device);
    vxr_renderer_destroy(b.r);
    cli_gpu_close(&b.gpu);
    vxr_scene_destroy(s);
    free(b.ids);
    free(b.saved);
    return status;
}
