/* vxr bench build: the bulk build against the seed's incremental one,
 * from the scene source (voxel lists, or a generator's regions) to the
 * finished GPU blob; the bulk build on one thread and on --threads N. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "vxr/blob.h"
#ifdef VXR_HAVE_PEERS
#include "peers/peer.h"
#endif

typedef vxr_result (*build_fn)(const vxr_voxel *, size_t, uint32_t, vxr_octree *, vxr_error *);

/* The bulk path: vxr_scene_build_threads (models side by side, large
 * ones over the threads), its octrees moved into scene. */
static vxr_result build_bulk(const vxr_scene_src *src, uint32_t threads, vxr_scene *scene,
                             vxr_error *err) {
    vxr_scene *built;
    vxr_result r = vxr_scene_build_threads(src, threads, &built, err);
    if (r != VXR_OK) return r;
    for (uint32_t i = 0; i < src->model_count; i++) {
        vxr_octree_free(&scene->models[i]);
        scene->models[i] = built->models[i];
        memset(&built->models[i], 0, sizeof built->models[i]);
    }
    vxr_scene_destroy(built);
    return VXR_OK;
}

/* Builds every model of src with fn (NULL: the bulk path on `threads`
 * threads) and writes the GPU blob: the whole way from the scene source
 * to the finished linear layout. */
static vxr_result build_all(const vxr_scene_src *src, build_fn fn, uint32_t threads,
                            vxr_scene *scene, void **blob, size_t *blob_size, vxr_error *err) {
    vxr_result r = fn ? VXR_OK : build_bulk(src, threads, scene, err);
    for (uint32_t i = 0; fn && r == VXR_OK && i < src->model_count; i++) {
        vxr_octree_free(&scene->models[i]);
        r = fn(src->models[i].voxels, src->models[i].count, src->attr_size, &scene->models[i], err);
    }
    if (r != VXR_OK) return r;
    size_t size = vxr_scene_blob_size(scene);
    if (size > *blob_size) {
        free(*blob);
        *blob = malloc(size);
        *blob_size = *blob ? size : 0;
        if (!*blob) return VXR_ERROR_MEMORY;
    }
    vxr_scene_write_blob(scene, *blob);
    return VXR_OK;
}

#ifdef VXR_HAVE_PEERS
/* OpenVDB's build of the same lists (peers/peer.h): the best time of its
 * runs, its bytes, or the reason it failed. */
typedef struct peer_figures {
    double best;
    uint64_t bytes;
    int runs;
    bool failed;
    char err[256];
} peer_figures;

static void peer_run(const vxr_scene_src *src, peer_figures *v) {
    double t0 = cli_now();
    peer_openvdb_grids *g = peer_openvdb_build(src, v->err, sizeof v->err);
    double dt = cli_now() - t0;
    v->failed = !g;
    if (!g) return;
    if (!v->runs++ || dt < v->best) v->best = dt;
    if (v->runs == 1) v->bytes = peer_openvdb_bytes(g);
    peer_openvdb_free(g);
}

/* The peer's figures after the bulk path's, against them, or why it has
 * none. */
static void peer_print(const peer_figures *v, uint64_t voxels, double bulk_s, bool json) {
    double mvox = v->best > 0 ? (double)voxels / v->best * 1e-6 : 0;
    double bpv = voxels ? (double)v->bytes / (double)voxels : 0;
    double ratio = bulk_s > 0 ? v->best / bulk_s : 0;
    if (v->failed && json) {
        printf(",\"openvdb\":{\"skipped\":\"");
        cli_print_json_string(stdout, v->err);
        printf("\"}");
    } else if (v->failed) {
        printf("openvdb      skipped: %s\n", v->err);
    } else if (json)
        printf(",\"openvdb\":{\"build_s\":%.6f,\"mvox_s\":%.2f,\"bytes\":%llu,"
               "\"bytes_per_voxel\":%.4f,\"runs\":%d,\"vxr_over_openvdb\":%.2f}",
               v->best, mvox, (unsigned long long)v->bytes, bpv, v->runs, ratio);
    else
        printf("%-12s %10llu voxels  %9.3f ms  %8.2f Mvox/s  %10llu bytes  %.3f B/voxel  (bulk "
               "%.2fx its speed, one thread, alternating)\n",
               "openvdb", (unsigned long long)voxels, v->best * 1e3, mvox,
               (unsigned long long)v->bytes, bpv, ratio);
}
#endif

/* SCENE [--json] [--threads N]: --threads is taken out, the rest goes to
 * cli_scene_args. threads: 0 (every online CPU) unless given. */
static bool bench_build_args(int argc, char **argv, const char **path, bool *json,
                             uint32_t *threads) {
    *threads = 0;
    char **rest = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *rest);
    if (!rest) {
        cli_usage("bench build: out of memory");
        return false;
    }
    int n = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--threads")) {
            rest[n++] = argv[i];
            continue;
        }
        const char *v = i + 1 < argc ? argv[++i] : NULL;
        uint64_t t;
        if (!v || cli_parse_uint(v, 1, 64, &t) != CLI_NUMBER_OK) {
            free(rest);
            if (v)
                cli_usage("bench build: --threads takes a thread count from 1 to 64, not '%s'",
                          CLI_SHOWN(v));
            else
                cli_usage("bench build: --threads takes a thread count from 1 to 64");
            return false;
        }
        *threads = (uint32_t)t;
    }
    bool ok = cli_scene_args("bench build", n, rest, path, json);
    free(rest);
    return ok;
}

int cmd_bench_build(int argc, char **argv) {
    const char *path;
    bool json;
    uint32_t threads;
    if (!bench_build_args(argc, argv, &path, &json, &threads)) return EXIT_USAGE;
    threads = vxr_build_threads(threads);
    vxr_scene_src src, lists;
    vxr_error err = {{0}};
    vxr_result r = vxr_scene_src_load_options(path, &cli_load, &src, &err);
    if (r != VXR_OK) return cli_fail(path, r, &err);
    /* The incremental path (and a peer) takes lists: a generator's model
     * is made into one, in a second source. */
    bool generated = false;
    for (uint32_t i = 0; i < src.model_count; i++) generated |= src.models[i].gen != NULL;
    if (generated) r = vxr_scene_src_load_options(path, &cli_load, &lists, &err);
    for (uint32_t i = 0; generated && r == VXR_OK && i < lists.model_count; i++)
        r = vxr_model_src_materialize(&lists.models[i], &err);
    if (!generated) lists = src;
    vxr_scene *ref = NULL;
    if (r == VXR_OK) r = vxr_scene_build(&src, &ref, &err);
    if (r != VXR_OK) {
        if (generated) vxr_scene_src_free(&lists);
        vxr_scene_src_free(&src);
        return cli_fail(path, r, &err);
    }
    uint64_t voxels = 0;
    for (uint32_t i = 0; i < lists.model_count; i++) voxels += lists.models[i].count;
    static const struct {
        const char *name;
        build_fn fn;
    } paths[] = {{"bulk", NULL}, {"incremental", vxr_octree_build_incremental}};
    /* The bulk path on `threads` threads, run alternately with its
     * one-thread runs: its best time and whether its octrees were the
     * reference's. */
    double best_mt = 1e30;
    bool same_1 = true; /* every one-thread bulk run (the last run is threaded) */
    void *blob = NULL;
    size_t blob_size = 0;
    int status = EXIT_OK;
#ifdef VXR_HAVE_PEERS
    peer_figures peer = {0};
#endif
    for (size_t p = 0; p < sizeof paths / sizeof paths[0] && status == EXIT_OK; p++) {
        /* A scratch scene shares the reference's instances and palette. */
        vxr_scene work = *ref;
        work.models = calloc(ref->model_count ? ref->model_count : 1, sizeof *work.models);
        if (!work.models) {
            status = cli_fail(path, VXR_ERROR_MEMORY, NULL);
            break;
        }
        double best = 1e30, spent = 0;
        int runs = 0;
        const vxr_scene_src *from = paths[p].fn ? &lists : &src;
        /* Best of at least 5 runs, more while under half a second. */
        while (r == VXR_OK && (runs < 5 || (spent < 0.5 && runs < 1000))) {
            if (cli_progress(json)) fprintf(stderr, "%s: run %d\r", paths[p].name, runs + 1);
            double t0 = cli_now();
            r = build_all(from, paths[p].fn, 1, &work, &blob, &blob_size, &err);
            double dt = cli_now() - t0;
            spent += dt;
            if (dt < best) best = dt;
            runs++;
            if (p == 0 && r == VXR_OK) { /* one thread, `threads` threads, one thread, ... */
                for (uint32_t i = 0; i < ref->model_count; i++)
                    same_1 = same_1 && vxr_octree_equal(&work.models[i], &ref->models[i]);
                t0 = cli_now();
                r = build_all(from, NULL, threads, &work, &blob, &blob_size, &err);
                dt = cli_now() - t0;
                if (dt < best_mt) best_mt = dt;
            }
#ifdef VXR_HAVE_PEERS
            /* bulk, OpenVDB, bulk, OpenVDB, ...: both under the same conditions */
            if (p == 0 && !peer.failed) peer_run(&lists, &peer);
#endif
        }
        if (cli_progress(json)) fprintf(stderr, "\033[K");
        bool same = r == VXR_OK;
        for (uint32_t i = 0; same && i < ref->model_count; i++)
            same = vxr_octree_equal(&work.models[i], &ref->models[i]);
        size_t bytes = vxr_scene_blob_size(&work);
        for (uint32_t i = 0; i < ref->model_count; i++) vxr_octree_free(&work.models[i]);
        free(work.models);
        if (r != VXR_OK) {
            status = cli_fail(path, r, &err);
            break;
        }
        bool same_mt = same;
        if (p == 0) same = same_1;
        if (!same || !same_mt) {
            fprintf(stderr, "vxr: %s: the %s build differs from the reference build\n", path,
                    same ? "threaded bulk" : paths[p].name);
            status = EXIT_INPUT;
        }
        double mvox = best > 0 ? (double)voxels / best * 1e-6 : 0;
        double bpv = voxels ? (double)bytes / (double)voxels : 0;
        double mvox_mt = best_mt > 0 ? (double)voxels / best_mt * 1e-6 : 0;
        if (json)
            printf(
                "{\"path\":\"%s\",\"voxels\":%llu,\"build_s\":%.6f,\"mvox_s\":%.2f,\"bytes\":%zu,"
                "\"bytes_per_voxel\":%.4f,\"runs\":%d,\"identical\":%s",
                paths[p].name, (unsigned long long)voxels, best, mvox, bytes, bpv, runs,
                same && same_mt ? "true" : "false");
        else
            printf("%-12s %10llu voxels  %9.3f ms  %8.2f Mvox/s  %10zu bytes  %.3f B/voxel%s\n",
                   paths[p].name, (unsigned long long)voxels, best * 1e3, mvox, bytes, bpv,
                   p ? (same ? "  (identical to bulk)" : "  (DIFFERS)") : "  (one thread)");
        if (p == 0 && json)
            printf(
                ",\"threads\":%u,\"threads_build_s\":%.6f,\"threads_mvox_s\":%.2f,\"isa\":\"%s\"",
                threads, best_mt, mvox_mt, vxr_build_isa());
        else if (p == 0)
            printf("%-12s %10llu voxels  %9.3f ms  %8.2f Mvox/s  (%u threads%s; code: %s)\n",
                   "bulk", (unsigned long long)voxels, best_mt * 1e3, mvox_mt, threads,
                   same_mt ? ", identical" : ", DIFFERS", vxr_build_isa());
#ifdef VXR_HAVE_PEERS
        if (p == 0) peer_print(&peer, voxels, best, json);
#endif
        if (json) printf("}\n");
    }
    free(blob);
    vxr_scene_destroy(ref);
    if (generated) vxr_scene_src_free(&lists);
    vxr_scene_src_free(&src);
    return status;
}
