/* The format table, files in and out, and the dispatch from a SCENE
 * argument to a loader (vxr/formats.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

vxr_result vxr_read_file(const char *path, uint8_t **data, size_t *size, vxr_error *err) {
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return vxr_fail(err, VXR_ERROR_IO, "cannot open: %s", strerror(errno));
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory reading %zu bytes", n);
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        uint8_t *b = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
        if (!b) free(buf);
        buf = b;
        cap *= 2;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        free(buf);
        return vxr_fail(err, VXR_ERROR_IO, "read error");
    }
    *data = buf;
    *size = n;
    return VXR_OK;
}

vxr_result vxr_write_file(const char *path, const void *data, size_t size, vxr_error *err) {
    size_t len = strlen(path);
    const size_t suffix = sizeof ".tmp" + 20; /* and a pid's digits */
    char *tmp = malloc(len + suffix);
    if (!tmp) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    snprintf(tmp, len + suffix, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        vxr_result r = vxr_fail(err, VXR_ERROR_IO, "cannot create: %s", strerror(errno));
        free(tmp);
        return r;
    }
    int ok = fwrite(data, 1, size, f) == size;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        vxr_result r = vxr_fail(err, VXR_ERROR_IO, "cannot write: %s", strerror(errno));
        remove(tmp);
        free(tmp);
        return r;
    }
    free(tmp);
    return VXR_OK;
}

static const vxr_format formats[] = {
    {"MagicaVoxel", ".vox", "VOX ", 4, vxr_load_vox, NULL, vxr_save_vox},
    {"voxel-io", ".vl32", NULL, 0, vxr_load_vl32, NULL, vxr_save_vl32},
    {"vxr octree", ".vxo", "VXO\0", 4, NULL, vxr_load_vxo, vxr_save_vxo},
};
enum { FORMATS = sizeof formats / sizeof formats[0] };

const vxr_format *vxr_formats(size_t *count) {
    *count = FORMATS;
    return formats;
}

static bool has_extension(const char *path, const char *ext) {
    size_t a = strlen(path), b = strlen(ext);
    if (a < b) return false;
    for (size_t i = 0; i < b; i++)
        if (tolower((unsigned char)path[a - b + i]) != ext[i]) return false;
    return true;
}

const vxr_format *vxr_format_detect(const char *path, const uint8_t *data, size_t size) {
    for (size_t i = 0; i < FORMATS; i++)
        if (formats[i].magic && size >= formats[i].magic_size &&
            !memcmp(data, formats[i].magic, formats[i].magic_size))
            return &formats[i];
    for (size_t i = 0; i < FORMATS; i++)
        if (!formats[i].magic && has_extension(path, formats[i].extension)) return &formats[i];
    return NULL;
}

const vxr_format *vxr_format_for_output(const char *path) {
    for (size_t i = 0; i < FORMATS; i++)
        if (formats[i].save && has_extension(path, formats[i].extension)) return &formats[i];
    return NULL;
}

/* "a, b or c" of the extensions of the formats with (writable) or without
 * that condition. */
static void list_extensions(bool writable, char *dest, size_t size) {
    size_t n = 0, listed = 0, total = 0;
    for (size_t i = 0; i < FORMATS; i++) total += !writable || formats[i].save;
    dest[0] = 0;
    for (size_t i = 0; i < FORMATS && n < size; i++) {
        if (writable && !formats[i].save) continue;
        const char *sep = listed == 0 ? "" : listed + 1 == total ? " or " : ", ";
        n += (size_t)snprintf(dest + n, size - n, "%s%s", sep, formats[i].extension);
        listed++;
    }
}

void vxr_format_output_list(char *dest, size_t size) {
    list_extensions(true, dest, size);
}

static vxr_result unknown_format(vxr_error *err) {
    char list[128];
    list_extensions(false, list, sizeof list);
    return vxr_fail(err, VXR_ERROR_FORMAT,
                    "unknown format (expected a %s file, or @demo, @menger:L, @terrain:N, "
                    "@world:K)",
                    list);
}

/* A scene argument's source or built scene: "@spec" generates, a file is
 * read once and handed to its format's loader. Exactly one of *src and
 * *scene is set on success (scene NULL: sources only). */
static vxr_result load_any(const char *path, vxr_scene_src *src, vxr_scene **scene,
                           vxr_error *err) {
    vxr_scene_src_init(src, 1);
    if (path[0] == '@') return vxr_scene_generate(path + 1, src, err);
    uint8_t *data;
    size_t size;
    vxr_result r = vxr_read_file(path, &data, &size, err);
    if (r != VXR_OK) return r;
    const vxr_format *f = vxr_format_detect(path, data, size);
    if (!f)
        r = unknown_format(err);
    else if (f->load_src)
        r = f->load_src(data, size, src, err);
    else if (scene)
        r = f->load(data, size, scene, err);
    else
        r = vxr_fail(err, VXR_ERROR_ARGUMENT, "a %s file holds built octrees, not voxel lists",
                     f->extension);
    free(data);
    return r;
}

vxr_result vxr_scene_src_load(const char *path, vxr_scene_src *dest, vxr_error *err) {
    return load_any(path, dest, NULL, err);
}

vxr_result vxr_scene_load(const char *path, vxr_scene **dest, vxr_error *err) {
    *dest = NULL;
    vxr_scene_src src;
    vxr_result r = load_any(path, &src, dest, err);
    if (r == VXR_OK && !*dest) r = vxr_scene_build(&src, dest, err);
    vxr_scene_src_free(&src);
    return r;
}
