/* Files in and out, and the dispatch from a SCENE argument to a loader. */
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
    char *tmp = malloc(len + 32);
    if (!tmp) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    snprintf(tmp, len + 32, "%s.tmp%ld", path, (long)getpid());
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

static int has_suffix(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    if (a < b) return 0;
    for (size_t i = 0; i < b; i++) {
        char c = s[a - b + i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != suffix[i]) return 0;
    }
    return 1;
}

static int is_vxo(const uint8_t *data, size_t size) {
    return size >= 4 && !memcmp(data, "VXO", 3) && data[3] == 0;
}

vxr_result vxr_scene_src_load(const char *path, vxr_scene_src *dest, vxr_error *err) {
    vxr_scene_src_init(dest, 1);
    if (path[0] == '@') return vxr_scene_generate(path + 1, dest, err);
    uint8_t *data;
    size_t size;
    vxr_result r = vxr_read_file(path, &data, &size, err);
    if (r != VXR_OK) return r;
    if (size >= 4 && !memcmp(data, "VOX ", 4))
        r = vxr_load_vox(data, size, dest, err);
    else if (has_suffix(path, ".vl32"))
        r = vxr_load_vl32(data, size, dest, err);
    else if (is_vxo(data, size))
        r = vxr_fail(err, VXR_ERROR_ARGUMENT, "a .vxo file holds built octrees, not voxel lists");
    else
        r = vxr_fail(err, VXR_ERROR_FORMAT,
                     "unknown format (expected a .vox, .vl32 or .vxo file, or @demo, @menger:L, "
                     "@terrain:N, @world:K)");
    free(data);
    return r;
}

vxr_result vxr_scene_load(const char *path, vxr_scene **dest, vxr_error *err) {
    *dest = NULL;
    if (path[0] != '@') {
        uint8_t head[4] = {0};
        FILE *f = fopen(path, "rb");
        if (!f) return vxr_fail(err, VXR_ERROR_IO, "cannot open: %s", strerror(errno));
        size_t n = fread(head, 1, 4, f);
        fclose(f);
        if (is_vxo(head, n)) {
            uint8_t *data;
            size_t size;
            vxr_result r = vxr_read_file(path, &data, &size, err);
            if (r != VXR_OK) return r;
            r = vxr_load_vxo(data, size, dest, err);
            free(data);
            return r;
        }
    }
    vxr_scene_src src;
    vxr_result r = vxr_scene_src_load(path, &src, err);
    if (r == VXR_OK) r = vxr_scene_build(&src, dest, err);
    vxr_scene_src_free(&src);
    return r;
}
