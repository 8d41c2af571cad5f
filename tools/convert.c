/* vxr convert: a scene into any format of the table vxr_formats writes;
 * meshes (.glb, .gltf, .obj, .ply) greedy or one quad per face. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli.h"
#include "commands.h"
#include "vxr/mesh.h"

static const struct {
    const char *extension;
    vxr_mesh_format format;
} meshes[] = {{".glb", VXR_MESH_GLB},
              {".gltf", VXR_MESH_GLTF},
              {".obj", VXR_MESH_OBJ},
              {".ply", VXR_MESH_PLY}};

int cmd_convert(int argc, char **argv) {
    const char *paths[2] = {NULL, NULL}, *mesh = NULL;
    int n = 0;
    for (int i = 0; i < argc; i++) {
        const int frame = cli_load_arg("convert", argc, argv, &i);
        if (frame < 0) return EXIT_USAGE;
        if (frame) continue;
        if (!strcmp(argv[i], "--mesh")) {
            if (++i == argc) return cli_usage("convert: --mesh needs greedy or cubes");
            mesh = argv[i];
            if (strcmp(mesh, "greedy") && strcmp(mesh, "cubes"))
                return cli_usage("convert: --mesh takes greedy or cubes ('%s')", mesh);
        } else if (n < 2) {
            paths[n++] = argv[i];
        } else {
            return cli_usage("convert: expected IN OUT [--mesh greedy|cubes]");
        }
    }
    if (n != 2) return cli_usage("convert: expected IN OUT [--mesh greedy|cubes]");
    const char *in = paths[0], *out = paths[1];
    int kind = -1;
    for (size_t k = 0; k < sizeof meshes / sizeof meshes[0]; k++) {
        const size_t a = strlen(out), b = strlen(meshes[k].extension);
        if (a >= b && !strcasecmp(out + a - b, meshes[k].extension)) kind = (int)k;
    }
    if (mesh && kind < 0)
        return cli_usage("convert: --mesh is for .glb, .gltf, .obj or .ply ('%s')", out);
    const vxr_format *format;
    vxr_scene *scene;
    int status = cli_output_and_scene("convert", out, in, &format, &scene);
    if (status != EXIT_OK) return status;
    vxr_error err = {{0}};
    vxr_result r;
    if (kind >= 0) {
        uint8_t *data = NULL;
        size_t size = 0;
        const vxr_mesh_mode mode =
            mesh && !strcmp(mesh, "cubes") ? VXR_MESH_CUBES : VXR_MESH_GREEDY;
        r = vxr_save_mesh(scene, meshes[kind].format, mode, &data, &size, &err);
        if (r == VXR_OK) r = vxr_write_file(out, data, size, &err);
        free(data);
    } else {
        /* .vl32 streams: memory stays bounded whatever the instance count */
        r = cli_save_scene(out, format, scene, NULL, &err);
    }
    vxr_scene_destroy(scene);
    return r == VXR_OK ? EXIT_OK : cli_fail(out, r, &err);
}
