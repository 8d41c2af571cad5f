/* vxr bench build: the bulk build against the seed's incremental one,
 * from voxel lists to the finished GPU blob. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "vxr/blob.h"

typedef vxr_result (*build_fn)(const vxr_voxel *, size_t, uint32_t, vxr_octree *, vxr_error *);

/* Builds every model of src with fn and writes the GPU blob: the whole way
 * from in-memory voxel lists to the finished linear layout. */
static vxr_result build_all(const vxr_scene_src *src, build_fn fn, vxr_scene *scene, void **blob,
                            size_t *blob_size, vxr_error *err) {
    for (uint32_t i = 0; i < src->model_count; i++) {
        vxr_octree_free(&scene->models[i]);
        vxr_result r =
            fn(src->models[i].voxels, src->models[i].count, src->attr_size, &scene->models[i], err);
        if (r != VXR_OK) return r;
    }
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

int cmd_bench_build(int argc, char **argv) {
    const char *path;
    bool json;
    if (!cli_scene_args("bench build", argc, argv, &path, &json)) return EXIT_USAGE;
    vxr_scene_src src;
    vxr_error err = {{0}};
    vxr_result r = vxr_scene_src_load(path, &src, &err);
    if (r != VXR_OK) return cli_fail(path, r, &err);
    vxr_scene *ref = NULL;
    r = vxr_scene_build(&src, &ref, &err);
    if (r != VXR_OK) {
        vxr_scene_src_free(&src);
        return cli_fail(path, r, &err);
    }
    uint64_t voxels = 0;
    for (uint32_t i = 0; i < src.model_count; i++) voxels += src.models[i].count;
    static const struct {
        const char *name;
        build_fn fn;
    } paths[] = {{"bulk", vxr_octree_build}, {"incremental", vxr_octree_build_incremental}};
    void *blob = NULL;
    size_t blob_size = 0;
    int status = EXIT_OK;
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
        /* Best of at least 5 runs, more while under half a second. */
        while (r == VXR_OK && (runs < 5 || (spent < 0.5 && runs < 1000))) {
            if (cli_progress(json)) fprintf(stderr, "%s: run %d\r", paths[p].name, runs + 1);
            double t0 = cli_now();
            r = build_all(&src, paths[p].fn, &work, &blob, &blob_size, &err);
            double dt = cli_now() - t0;
            spent += dt;
            if (dt < best) best = dt;
            runs++;
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
        if (!same) {
            fprintf(stderr, "vxr: %s: the %s build differs from the bulk build\n", path,
                    paths[p].name);
            status = EXIT_INPUT;
        }
        double mvox = best > 0 ? (double)voxels / best * 1e-6 : 0;
        double bpv = voxels ? (double)bytes / (double)voxels : 0;
        if (json)
            printf(
                "{\"path\":\"%s\",\"voxels\":%llu,\"build_s\":%.6f,\"mvox_s\":%.2f,\"bytes\":%zu,"
                "\"bytes_per_voxel\":%.4f,\"runs\":%d,\"identical\":%s}\n",
                paths[p].name, (unsigned long long)voxels, best, mvox, bytes, bpv, runs,
                same ? "true" : "false");
        else
            printf("%-12s %10llu voxels  %9.3f ms  %8.2f Mvox/s  %10zu bytes  %.3f B/voxel%s\n",
                   paths[p].name, (unsigned long long)voxels, best * 1e3, mvox, bytes, bpv,
                   p ? (same ? "  (identical to bulk)" : "  (DIFFERS)") : "");
    }
    free(blob);
    vxr_scene_destroy(ref);
    vxr_scene_src_free(&src);
    return status;
}
