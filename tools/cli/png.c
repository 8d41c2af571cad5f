/* PNG output through libpng's simplified API (tools/cli/cli.h). */
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

vxr_result cli_write_png(const char *path, const uint32_t *rgba, uint32_t w, uint32_t h,
                         vxr_error *err) {
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = w;
    img.height = h;
    img.format = PNG_FORMAT_RGBA;
    png_alloc_size_t size = 0;
    void *mem = NULL;
    vxr_result r = VXR_OK;
    /* the first call sizes the encoding, the second writes it */
    if (!png_image_write_to_memory(&img, NULL, &size, 0, rgba, 0, NULL))
        r = VXR_ERROR_IO;
    else if (!(mem = malloc(size)))
        r = VXR_ERROR_MEMORY;
    else if (!png_image_write_to_memory(&img, mem, &size, 0, rgba, 0, NULL))
        r = VXR_ERROR_IO;
    if (r == VXR_ERROR_IO && err)
        snprintf(err->message, sizeof err->message, "cannot encode PNG: %s", img.message);
    else if (r == VXR_ERROR_MEMORY && err)
        snprintf(err->message, sizeof err->message, "out of memory encoding %ux%u pixels", w, h);
    if (r == VXR_OK) r = vxr_write_file(path, mem, size, err);
    free(mem);
    return r;
}
