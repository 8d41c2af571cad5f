/* vxr: the command line (DESIGN.md §5). The table below lists every
 * command: a new one is a file of its own (declared in commands.h) and a
 * row here. */
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "vxr/version.h"

typedef struct command {
    const char *name, *sub; /* "bench" "pick"; sub NULL for a plain command */
    int (*run)(int argc, char **argv);
    const char *usage; /* the arguments, then what it does */
} command;

static const command commands[] = {
    {"info", NULL, cmd_info,
     "SCENE [--json]          models, instances, voxels, bounds, octree size"},
    {"convert", NULL, cmd_convert,
     "IN OUT [--mesh greedy|cubes]\n"
     "                               write OUT as .vxo (built octrees), .vox, .qb, .binvox,\n"
     "                               .vl32, or a mesh: .glb, .gltf, .obj, .ply"},
    {"edit", NULL, cmd_edit,
     "SCENE --ops FILE --out OUT [--max-cells N] [--journal BYTES] [--json]\n"
     "                               apply FILE's voxel edits (set, clear, paint, box,\n"
     "                               sphere, undo, redo; a line each) and save OUT"},
    {"pick", NULL, cmd_pick,
     "SCENE --rays FILE [--grid N] [--lod BIAS [--fov DEG] [--size WxH]] [--no-cull]\n"
     "         [--gpu [--validate]] [--json]\n"
     "                               nearest cube, face, point, corner, edge per ray;\n"
     "                               --gpu: the same records from the GPU renderer"},
    {"render", NULL, cmd_render,
     "SCENE --eye X,Y,Z --target X,Y,Z [--fov DEG] [--size WxH] [--grid N] [--lod BIAS]\n"
     "         --out IMG.png [--hits FILE] [--no-cull] [--validate]\n"
     "                               render on the GPU (default size 1024x768); --hits:\n"
     "                               the GPU's pick record per pixel, as `pick` prints them"},
    {"pickcheck", NULL, cmd_pickcheck,
     "SCENE [camera options | --view K] [--size WxH] [--grid N] [--lod BIAS] [--tolerance EPS]\n"
     "         [--out MASK.png] [--validate]  GPU pick records against CPU picks, per pixel"},
    {"spheres", "query", cmd_spheres_query,
     "SPHERES POINTS [--json] [--brute]\n"
     "                               per point, the sorted ids of the spheres holding it"},
    {"view", NULL, cmd_view,
     "[SCENE] [camera options] [--grid N] [--lod BIAS] [--no-cull] [--validate]\n"
     "       [--frames N [--screenshot IMG.png] [--resize WxH] [--drop FILE]\n"
     "       [--edit-script FILE] [--json]] [--cursor X,Y] [--edit] [--save FILE]\n"
     "                               the GLFW viewer (default @demo, 1024x768; keys: H);\n"
     "                               --frames: render N frames, save the last, exit;\n"
     "                               --edit: start in edit mode (E), Ctrl+S saves to\n"
     "                               --save FILE (default vxr-edit.vox); --edit-script:\n"
     "                               lines FRAME ACTION [X Y] applied at those frames"},
    {"world", "build", cmd_world_build,
     "SCENE --out WORLD [--chunk N] [--json]\n"
     "                               cut SCENE into a world: a directory of chunks of N^3\n"
     "                               cells (default 256) that every SCENE argument opens"},
    {"bench", "build", cmd_bench_build,
     "SCENE [--json]   octree build speed and size, bulk vs incremental"},
    {"bench", "pick", cmd_bench_pick,
     "SCENE [--rays FILE [--fov DEG] [--size WxH]] [--lod BIAS] [--json]\n"
     "                               pick speed, BVH vs the seed's loop over instances"},
    {"bench", "render", cmd_bench_render,
     "SCENE [--eye X,Y,Z --target X,Y,Z] [--fov DEG] [--size WxH] [--lod BIAS] [--json]\n"
     "                               GPU frame time from timestamps, Mrays/s"},
    {"bench", "world", cmd_bench_world,
     "WORLD --path FILE [--size WxH] [--view-distance D] [--budget BYTES] [--lod BIAS]\n"
     "         [--json]\n"
     "                               fly a streamed world along FILE's cameras: per frame\n"
     "                               ms, resident bytes, loads, evictions, uploads"},
    {"bench", "edit", cmd_bench_edit,
     "SCENE [--json] [--runs N] [--edits N] [--size WxH]\n"
     "                               live edits (voxel, 16^3 box, r32 sphere): CPU, upload\n"
     "                               and GPU cost vs a full rebuild; rendering after edits"},
    {"bench", "instances", cmd_bench_instances,
     "SCENE [--moves N] [--runs N] [--json]\n"
     "                               instances moved through the scene API and updated:\n"
     "                               CPU, upload, refit or build, vs a full rebuild"},
    {"bench", "spheres", cmd_bench_spheres,
     "--n N [--json] sphere tree query/insert/remove/move vs brute force"},
};
enum { COMMANDS = sizeof commands / sizeof commands[0] };

static void usage(FILE *out) {
    fputs("usage: vxr COMMAND [options]\n", out);
    for (int i = 0; i < COMMANDS; i++) {
        const command *c = &commands[i];
        fprintf(out, "  %s%s%s %s\n", c->name, c->sub ? " " : "", c->sub ? c->sub : "", c->usage);
    }
    fputs("SCENE is a .vox, .vl32 or .vxo file, or @demo, @menger:L, @terrain:N, @world:K.\n", out);
}

/* The subcommands of name, "a, b or c", into dest. */
static void subcommands(const char *name, char *dest, size_t size) {
    size_t n = 0, total = 0, listed = 0;
    for (int i = 0; i < COMMANDS; i++) total += !strcmp(commands[i].name, name);
    dest[0] = 0;
    for (int i = 0; i < COMMANDS && n < size; i++) {
        if (strcmp(commands[i].name, name)) continue;
        const char *sep = listed == 0 ? "" : listed + 1 == total ? " or " : ", ";
        n += (size_t)snprintf(dest + n, size - n, "%s%s", sep, commands[i].sub);
        listed++;
    }
}

int main(int argc, char **argv) {
    /* an interrupted command leaves no temporary output files */
    vxr_output_cleanup_on_signals();
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
        usage(stdout);
        return EXIT_OK;
    }
    if (!strcmp(name, "--version")) {
        printf("vxr %s\n", vxr_version());
        return EXIT_OK;
    }
    bool known = false;
    for (int i = 0; i < COMMANDS; i++) {
        const command *c = &commands[i];
        if (strcmp(c->name, name)) continue;
        known = true;
        if (!c->sub) return c->run(argc - 2, argv + 2);
        if (argc >= 3 && !strcmp(c->sub, argv[2])) return c->run(argc - 3, argv + 3);
    }
    if (!known) return cli_usage("unknown command '%s'", CLI_SHOWN(name));
    char list[128];
    subcommands(name, list, sizeof list);
    if (argc < 3) return cli_usage("%s: expected %s", name, list);
    return cli_usage("%s: unknown '%s' (expected %s)", name, argv[2], list);
}
