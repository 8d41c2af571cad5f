/* vxr: the command line (DESIGN.md §5). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"

static const char usage_text[] =
    "usage: vxr COMMAND [options]\n"
    "  info SCENE [--json]          models, instances, voxels, bounds, octree size\n"
    "  convert IN OUT               write OUT as .vxo (built octrees) or .vl32\n"
    "  pick SCENE --rays FILE [--grid N] [--no-cull] [--gpu [--validate]] [--json]\n"
    "                               nearest cube, face, point, corner, edge per ray;\n"
    "                               --gpu: the same records from the GPU renderer\n"
    "  bench build SCENE [--json]   octree build speed and size, bulk vs incremental\n"
    "  bench pick SCENE [--json]    pick speed, BVH vs the seed's loop over instances\n"
    "  render SCENE --eye X,Y,Z --target X,Y,Z [--fov DEG] [--size WxH] [--grid N]\n"
    "         --out IMG.png [--hits FILE] [--no-cull] [--validate]\n"
    "                               render on the GPU (default size 1024x768); --hits:\n"
    "                               the GPU's pick record per pixel, as `pick` prints them\n"
    "  pickcheck SCENE [camera options | --view K] [--size WxH] [--grid N] [--tolerance EPS]\n"
    "         [--out MASK.png] [--validate]  GPU pick records against CPU picks, per pixel\n"
    "  bench render SCENE [--eye X,Y,Z --target X,Y,Z] [--fov DEG] [--size WxH] [--json]\n"
    "                               GPU frame time from timestamps, Mrays/s\n"
    "  bench spheres --n N [--json] sphere tree query/insert/remove/move vs brute force\n"
    "  spheres query SPHERES POINTS [--json] [--brute]\n"
    "                               per point, the sorted ids of the spheres holding it\n"
    "  view [SCENE] [camera options] [--grid N] [--no-cull] [--validate]\n"
    "       [--frames N [--screenshot IMG.png] [--resize WxH] [--drop FILE] [--json]]\n"
    "       [--cursor X,Y]          the GLFW viewer (default @demo, 1024x768; keys: H);\n"
    "                               --frames: render N frames, save the last, exit\n"
    "SCENE is a .vox, .vl32 or .vxo file, or @demo, @menger:L, @terrain:N, @world:K.\n";

void cli_print_json_string(FILE *out, const char *s) {
    for (const char *c = s; *c; c++) {
        if (*c == '"' || *c == '\\') fputc('\\', out);
        if ((unsigned char)*c >= 0x20) fputc(*c, out);
    }
}

int cli_fail(const char *what, vxr_result r, const vxr_error *err) {
    fprintf(stderr, "vxr: %s: %s\n", what,
            err && err->message[0] ? err->message : vxr_result_string(r));
    if (r == VXR_ERROR_DEVICE) return EXIT_NO_DEVICE;
    return r == VXR_ERROR_ARGUMENT ? EXIT_USAGE : EXIT_INPUT;
}

int cli_usage(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("vxr: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n", stderr);
    va_end(ap);
    fputs("run 'vxr --help' for the commands\n", stderr);
    return EXIT_USAGE;
}

double cli_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool cli_progress(bool json) {
    return !json && isatty(2);
}

bool cli_scene_args(const char *cmd, int argc, char **argv, const char **path, bool *json) {
    *path = NULL;
    *json = false;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            *json = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            cli_usage("%s: unknown option '%s'", cmd, argv[i]);
            return false;
        } else if (!*path) {
            *path = argv[i];
        } else {
            cli_usage("%s: more than one SCENE", cmd);
            return false;
        }
    }
    if (!*path) cli_usage("%s: missing SCENE", cmd);
    return *path != NULL;
}

int cli_read_floats(const char *path, int per_line, const char *names, float **dest, size_t *count,
                    size_t **lines) {
    static const char *const words[] = {"", "one", "two", "three", "four", "five", "six"};
    FILE *f = fopen(path, "r");
    *dest = NULL;
    *count = 0;
    if (lines) *lines = NULL;
    if (!f) {
        fprintf(stderr, "vxr: %s: cannot open: %s\n", path, strerror(errno));
        return EXIT_INPUT;
    }
    char line[1024];
    size_t cap = 0, lineno = 0;
    int status = EXIT_OK;
    while (status == EXIT_OK && fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line, *end;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '\n' || *p == '\r' || *p == '#' || *p == 0) continue;
        float v[8];
        int n = 0;
        for (; n < per_line; n++) {
            v[n] = strtof(p, &end);
            if (end == p || !isfinite(v[n])) break;
            p = end;
        }
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
        if (n != per_line || *p) {
            fprintf(stderr, "vxr: %s:%zu: expected %s finite numbers '%s'\n", path, lineno,
                    words[per_line], names);
            status = EXIT_INPUT;
            break;
        }
        if (*count == cap) {
            cap = cap ? cap * 2 : 1024;
            float *d = realloc(*dest, cap * (size_t)per_line * sizeof *d);
            size_t *l = lines ? realloc(*lines, cap * sizeof *l) : NULL;
            if (d) *dest = d;
            if (l) *lines = l;
            if (!d || (lines && !l)) {
                status = cli_fail(path, VXR_ERROR_MEMORY, NULL);
                break;
            }
        }
        memcpy(*dest + *count * (size_t)per_line, v, (size_t)per_line * sizeof *v);
        if (lines) (*lines)[*count] = lineno;
        (*count)++;
    }
    fclose(f);
    if (status != EXIT_OK) {
        free(*dest);
        *dest = NULL;
        *count = 0;
        if (lines) {
            free(*lines);
            *lines = NULL;
        }
    }
    return status;
}

static int cmd_info(int argc, char **argv) {
    const char *path;
    bool json;
    if (!cli_scene_args("info", argc, argv, &path, &json)) return EXIT_USAGE;
    if (cli_progress(json)) fprintf(stderr, "loading %s ...\r", path);
    vxr_scene *scene;
    vxr_error err = {{0}};
    vxr_result r = vxr_scene_load(path, &scene, &err);
    if (cli_progress(json)) fprintf(stderr, "\033[K");
    if (r != VXR_OK) return cli_fail(path, r, &err);
    vxr_scene_stats s;
    vxr_scene_get_stats(scene, &s);
    double bpv = s.model_voxels ? (double)s.bytes / (double)s.model_voxels : 0.0;
    if (json) {
        printf("{\"scene\":\"");
        cli_print_json_string(stdout, path);
        printf("\",\"models\":%u,\"instances\":%u,\"instanced_voxels\":%llu,"
               "\"aabb_min\":[%lld,%lld,%lld],\"aabb_max\":[%lld,%lld,%lld],\"nodes\":%llu,"
               "\"bricks\":%llu,\"model_voxels\":%llu,\"bytes\":%llu,\"bytes_per_voxel\":%.4f,"
               "\"build_s\":%.6f}\n",
               s.models, s.instances, (unsigned long long)s.instanced_voxels,
               (long long)s.aabb_min[0], (long long)s.aabb_min[1], (long long)s.aabb_min[2],
               (long long)s.aabb_max[0], (long long)s.aabb_max[1], (long long)s.aabb_max[2],
               (unsigned long long)s.nodes, (unsigned long long)s.bricks,
               (unsigned long long)s.model_voxels, (unsigned long long)s.bytes, bpv,
               scene->build_s);
    } else {
        printf("scene             %s\n", path);
        printf("models            %u\n", s.models);
        printf("instances         %u visible of %u\n", s.instances, scene->instance_count);
        printf("instanced voxels  %llu\n", (unsigned long long)s.instanced_voxels);
        printf(
            "world bounds      [%lld, %lld, %lld] .. [%lld, %lld, %lld] (cells, max exclusive)\n",
            (long long)s.aabb_min[0], (long long)s.aabb_min[1], (long long)s.aabb_min[2],
            (long long)s.aabb_max[0], (long long)s.aabb_max[1], (long long)s.aabb_max[2]);
        printf("model voxels      %llu\n", (unsigned long long)s.model_voxels);
        printf("octree nodes      %llu (%llu bricks of 4^3)\n", (unsigned long long)s.nodes,
               (unsigned long long)s.bricks);
        printf("GPU bytes         %llu (%.3f per voxel)\n", (unsigned long long)s.bytes, bpv);
        printf("build             %.3f ms\n", scene->build_s * 1e3);
    }
    vxr_scene_destroy(scene);
    return EXIT_OK;
}

static bool ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

static int cmd_convert(int argc, char **argv) {
    if (argc != 2) return cli_usage("convert: expected IN OUT");
    const char *in = argv[0], *out = argv[1];
    bool vxo = ends_with(out, ".vxo"), vl32 = ends_with(out, ".vl32");
    if (!vxo && !vl32) return cli_usage("convert: OUT must end in .vxo or .vl32 ('%s')", out);
    vxr_scene *scene;
    vxr_error err = {{0}};
    vxr_result r = vxr_scene_load(in, &scene, &err);
    if (r != VXR_OK) return cli_fail(in, r, &err);
    uint8_t *data = NULL;
    size_t size = 0;
    r = vxo ? vxr_save_vxo(scene, &data, &size, &err) : vxr_save_vl32(scene, &data, &size, &err);
    vxr_scene_destroy(scene);
    if (r != VXR_OK) {
        free(data);
        return cli_fail(out, r, &err);
    }
    r = vxr_write_file(out, data, size, &err);
    free(data);
    if (r != VXR_OK) return cli_fail(out, r, &err);
    return EXIT_OK;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage_text, stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "info")) return cmd_info(argc - 2, argv + 2);
    if (!strcmp(cmd, "convert")) return cmd_convert(argc - 2, argv + 2);
    if (!strcmp(cmd, "bench")) return cmd_bench(argc - 2, argv + 2);
    if (!strcmp(cmd, "pick")) return cmd_pick(argc - 2, argv + 2);
    if (!strcmp(cmd, "render")) return cmd_render(argc - 2, argv + 2);
    if (!strcmp(cmd, "pickcheck")) return cmd_pickcheck(argc - 2, argv + 2);
    if (!strcmp(cmd, "view")) return cmd_view(argc - 2, argv + 2);
    if (!strcmp(cmd, "spheres")) return cmd_spheres(argc - 2, argv + 2);
    return cli_usage("unknown command '%s'", cmd);
}
