/* Output files (tools/cli/cli.h): PNG through libpng's simplified API, and
 * buffers, each whole or not at all (vxr_output_*). */
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

vxr_result cli_png_to(FILE *f, const uint32_t *rgba, uint32_t w, uint32_t h, vxr_error *err) {
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = w;
    img.height = h;
    img.format = PNG_FORMAT_RGBA;
    if (png_image_write_to_stdio(&img, f, 0, rgba, 0, NULL)) return VXR_OK;
    if (err) snprintf(err->message, sizeof err->message, "cannot write PNG: %s", img.message);
    png_image_free(&img);
    return VXR_ERROR_IO;
}

vxr_result cli_write_png(const char *path, const uint32_t *rgba, uint32_t w, uint32_t h,
                         vxr_error *err) {
    vxr_output *o;
    vxr_result r = vxr_output_open(path, &o, err);
    if (r == VXR_OK && (r = cli_png_to(vxr_output_file(o), rgba, w, h, err)) != VXR_OK)
        vxr_output_abort(o);
    else if (r == VXR_OK)
        r = vxr_output_commit(o, err);
    return r;
}

vxr_result cli_save_scene(const char *path, const vxr_format *format, const vxr_scene *scene,
                          size_t *size, vxr_error *err) {
    if (format->save_file) {
        uint64_t bytes = 0;
        vxr_result r = format->save_file(scene, path, &bytes, err);
        if (size) *size = (size_t)bytes;
        return r;
    }
    uint8_t *data = NULL;
    size_t n = 0;
    vxr_result r = format->save(scene, &data, &n, err);
    if (r == VXR_OK) r = vxr_write_file(path, data, n, err);
    free(data);
    if (size) *size = r == VXR_OK ? n : 0;
    return r;
}
