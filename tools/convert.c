/* vxr convert: a scene into any format of the table vxr_formats writes. */
#include "cli.h"
#include "commands.h"

int cmd_convert(int argc, char **argv) {
    if (argc != 2) return cli_usage("convert: expected IN OUT");
    const char *in = argv[0], *out = argv[1];
    const vxr_format *format;
    vxr_scene *scene;
    int status = cli_output_and_scene("convert", out, in, &format, &scene);
    if (status != EXIT_OK) return status;
    vxr_error err = {{0}};
    /* .vl32 streams: memory stays bounded whatever the instance count */
    vxr_result r = cli_save_scene(out, format, scene, NULL, &err);
    vxr_scene_destroy(scene);
    return r == VXR_OK ? EXIT_OK : cli_fail(out, r, &err);
}
