/* vxr info: a scene's figures (DESIGN.md §5). */
#include "cli.h"
#include "commands.h"

int cmd_info(int argc, char **argv) {
    const char *path;
    bool json;
    if (!cli_scene_args("info", argc, argv, &path, &json)) return EXIT_USAGE;
    if (cli_progress(json)) fprintf(stderr, "loading %s ...\r", path);
    vxr_scene *scene;
    vxr_error err = {{0}};
    const vxr_format *format;
    vxr_file_survey survey;
    vxr_result r = cli_scene_load(path, &scene, &format, &survey, &err);
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
               "\"build_s\":%.6f,\"format\":\"%s\",\"read\":\"%s\",\"skipped\":\"%s\","
               "\"kept\":\"%s\"}\n",
               s.models, s.instances, (unsigned long long)s.instanced_voxels,
               (long long)s.aabb_min[0], (long long)s.aabb_min[1], (long long)s.aabb_min[2],
               (long long)s.aabb_max[0], (long long)s.aabb_max[1], (long long)s.aabb_max[2],
               (unsigned long long)s.nodes, (unsigned long long)s.bricks,
               (unsigned long long)s.model_voxels, (unsigned long long)s.bytes, bpv, scene->build_s,
               format ? format->name : "built-in", survey.kept, survey.skipped, survey.saved);
    } else {
        printf("scene             %s\n", path);
        if (format)
            printf("format            %s (%s)\n", format->name, format->extension);
        else
            printf("format            built-in\n");
        if (survey.kept[0]) printf("read              %s\n", survey.kept);
        if (survey.skipped[0]) printf("skipped           %s\n", survey.skipped);
        if (survey.saved[0]) printf("kept for saving   %s\n", survey.saved);
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
