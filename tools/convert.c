/* vxr convert: a scene into any format of the table vxr_formats writes. */
#include "cli.h"
#include "commands.h"

int cmd_convert(int argc, char **argv) {
    if (argc != 2) return cli_usage("convert: expected IN OUT");
    const char *in = argv[0], *out = argv[1];
    const vxr_format *format = vxr_format_for_output(out);
    if (!format) {
        char list[128];
        vxr_format_output_list(list, sizeof list);
        return cli_usage("convert: OUT must end in %s ('%s')", list, out);
    }
    vxr_scene *scene;
    vxr_error err = {{0}};
    vxr_result r = vxr_scene_load(in, &scene, &err);
    if (r != VXR_OK) return cli_fail(in, r, &err);
    /* .vl32 streams: memory stays bounded whatever the instance count */
    r = cli_save_scene(out, format, scene, NULL, &err);
    vxr_scene_destroy(scene);
    return r == VXR_OK ? EXIT_OK : cli_fail(out, r, &err);
}
