/* vxr world build: a scene cut into a world of chunks on disk (vxr/world.h);
 * @terrain:N made a chunk at a time (vxr_world_build_generated). */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "vxr/world.h"

int cmd_world_build(int argc, char **argv) {
    const char *in = NULL, *out = NULL;
    uint64_t chunk = VXR_WORLD_CHUNK_DEFAULT;
    bool json = false;
    for (int i = 0; i < argc; i++) {
        const int frame = cli_load_arg("world build", argc, argv, &i);
        if (frame < 0) return EXIT_USAGE;
        if (frame) continue;
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--json")) {
            json = true;
        } else if (!strcmp(o, "--out") && v) {
            out = argv[++i];
        } else if (!strcmp(o, "--chunk") && v) {
            if (!cli_uint_option("world build", o, v, VXR_WORLD_CHUNK_MIN, VXR_WORLD_CHUNK_MAX,
                                 &chunk))
                return EXIT_USAGE;
            if (chunk & (chunk - 1))
                return cli_usage("world build: --chunk takes a power of two, not '%s'",
                                 CLI_SHOWN(v));
            i++;
        } else if (o[0] != '-' && !in) {
            in = o;
        } else {
            return cli_usage("world build: expected SCENE --out WORLD [--chunk N] [--json], not "
                             "'%s'",
                             CLI_SHOWN(o));
        }
    }
    if (!in || !out)
        return cli_usage("world build: expected SCENE --out WORLD [--chunk N] [--json]");
    vxr_error err = {{0}};
    vxr_world_stats st;
    vxr_result r;
    if (!strncmp(in, "@terrain:", 9)) { /* made a chunk at a time, never whole */
        r = vxr_world_build_generated(in, out, (uint32_t)chunk, 0, &st, &err);
        if (r == VXR_ERROR_ARGUMENT && strstr(err.message, "@terrain:N"))
            return cli_fail(in, r, &err);
    } else {
        vxr_scene *scene;
        r = cli_scene_load(in, &scene, NULL, NULL, &err);
        if (r != VXR_OK) return cli_fail(in, r, &err);
        r = vxr_world_build(scene, out, (uint32_t)chunk, 0, &st, &err);
        vxr_scene_destroy(scene);
    }
    if (r != VXR_OK) return cli_fail(out, r, &err);
    if (json) printf("{\"world\":\"");
    if (json) cli_print_json_string(stdout, out);
    if (json)
        printf("\",\"chunk\":%llu,\"chunks\":%llu,\"voxels\":%llu,\"bytes\":%llu}\n",
               (unsigned long long)chunk, (unsigned long long)st.chunks,
               (unsigned long long)st.voxels, (unsigned long long)st.bytes);
    else
        printf("%s: %llu chunks of %llu^3, %llu voxels, %llu bytes\n", out,
               (unsigned long long)st.chunks, (unsigned long long)chunk,
               (unsigned long long)st.voxels, (unsigned long long)st.bytes);
    return EXIT_OK;
}
