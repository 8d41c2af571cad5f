/* The format table, files in and out, and the dispatch from a SCENE
 * argument to a loader (vxr/formats.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"

/* Opens path for reading ("-": standard input, left open); refuses
 * directories. */
static vxr_result open_input(const char *path, int *fd, vxr_error *err) {
    if (!strcmp(path, "-")) {
        *fd = STDIN_FILENO;
    } else {
        do *fd = open(path, O_RDONLY | O_CLOEXEC);
        while (*fd < 0 && errno == EINTR);
        if (*fd < 0) return vxr_fail(err, VXR_ERROR_IO, "cannot open: %s", strerror(errno));
    }
    struct stat st;
    if (fstat(*fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (*fd != STDIN_FILENO) close(*fd);
        return vxr_fail(err, VXR_ERROR_IO, "is a directory, not a file");
    }
    return VXR_OK;
}

static void close_input(int fd) {
    if (fd != STDIN_FILENO) close(fd);
}

static vxr_result too_large(vxr_error *err, uint64_t max) {
    return vxr_fail(err, VXR_ERROR_LIMIT, "file too large (over %llu bytes)",
                    (unsigned long long)max);
}

/* A regular file's size when fstat knows it, else UINT64_MAX. */
static uint64_t known_size(int fd) {
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : UINT64_MAX;
}

/* Reads from fd into buf[*n..want) until want bytes are there or the input
 * ends (*eof). */
static vxr_result read_some(int fd, uint8_t *buf, size_t *n, size_t want, bool *eof,
                            vxr_error *err) {
    while (*n < want) {
        size_t ask = want - *n < ((size_t)1 << 30) ? want - *n : (size_t)1 << 30;
        ssize_t got = read(fd, buf + *n, ask);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return vxr_fail(err, VXR_ERROR_IO, "read error: %s", strerror(errno));
        if (got == 0) {
            *eof = true;
            break;
        }
        *n += (size_t)got;
    }
    return VXR_OK;
}

/* Reads the rest of fd after the n bytes already in *buf (capacity *cap),
 * keeping at most max bytes; one more is over the limit. */
static vxr_result read_rest(int fd, uint64_t max, uint8_t **buf, size_t *n, size_t *cap, bool eof,
                            vxr_error *err) {
    if (max > SIZE_MAX - 1) max = SIZE_MAX - 1;
    uint64_t known = known_size(fd);
    if (known != UINT64_MAX && known > max) return too_large(err, max);
    while (!eof) {
        if (*n == *cap) {
            if (*cap > max) return too_large(err, max);
            /* Exact for a regular file: one more byte tells whether it grew. */
            size_t next = *cap <= (max + 1) / 2 ? *cap * 2 : (size_t)max + 1;
            if (known < next && known + 1 > *cap) next = (size_t)known + 1;
            uint8_t *b = realloc(*buf, next);
            if (!b) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory reading %zu bytes", next);
            *buf = b;
            *cap = next;
        }
        vxr_result r = read_some(fd, *buf, n, *cap, &eof, err);
        if (r != VXR_OK) return r;
    }
    if (*n > max) return too_large(err, max);
    return VXR_OK;
}

/* Reads and drops the rest of fd after n bytes: VXR_OK when it ends within
 * max bytes in all, else too large. For inputs whose bytes are not wanted. */
static vxr_result drain(int fd, uint64_t max, size_t n, bool eof, vxr_error *err) {
    uint64_t known = known_size(fd);
    if (known != UINT64_MAX) return known > max ? too_large(err, max) : VXR_OK;
    enum { SCRATCH = 1 << 20 };
    uint8_t *scratch = eof ? NULL : malloc(SCRATCH);
    if (!eof && !scratch) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    uint64_t total = n;
    vxr_result r = VXR_OK;
    while (r == VXR_OK && !eof && total <= max) {
        size_t got = 0;
        r = read_some(fd, scratch, &got, SCRATCH, &eof, err);
        total += got;
    }
    free(scratch);
    if (r == VXR_OK && total > max) r = too_large(err, max);
    return r;
}

vxr_result vxr_read_file_max(const char *path, uint64_t max, uint8_t **data, size_t *size,
                             vxr_error *err) {
    *data = NULL;
    *size = 0;
    int fd;
    vxr_result r = open_input(path, &fd, err);
    if (r != VXR_OK) return r;
    size_t n = 0, cap = 1 << 16;
    uint8_t *buf = malloc(cap);
    r = buf ? read_rest(fd, max, &buf, &n, &cap, false, err)
            : vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    close_input(fd);
    if (r != VXR_OK) {
        free(buf);
        return r;
    }
    *data = buf;
    *size = n;
    return VXR_OK;
}

vxr_result vxr_read_file(const char *path, uint8_t **data, size_t *size, vxr_error *err) {
    return vxr_read_file_max(path, UINT64_MAX, data, size, err);
}

vxr_result vxr_write_file(const char *path, const void *data, size_t size, vxr_error *err) {
    vxr_output *o;
    vxr_result r = vxr_output_open(path, &o, err);
    if (r != VXR_OK) return r;
    if (fwrite(data, 1, size, vxr_output_file(o)) != size) {
        vxr_output_abort(o);
        return vxr_fail(err, VXR_ERROR_IO, "cannot write: %s", strerror(errno));
    }
    return vxr_output_commit(o, err);
}

static const vxr_format formats[] = {
    {"MagicaVoxel", ".vox", "VOX ", 4, vxr_load_vox, NULL, vxr_save_vox, VXR_VOX_MAX_BYTES, NULL},
    {"voxel-io", ".vl32", NULL, 0, vxr_load_vl32, NULL, vxr_save_vl32, VXR_VL32_MAX_BYTES,
     vxr_save_vl32_file},
    {"vxr octree", ".vxo", "VXO\0", 4, NULL, vxr_load_vxo, vxr_save_vxo, VXR_VXO_MAX_BYTES, NULL},
    {"binvox", ".binvox", "#binvox", 7, vxr_load_binvox, NULL, vxr_save_binvox,
     VXR_BINVOX_MAX_BYTES, NULL},
    {"CubeWorld", ".cub", NULL, 0, vxr_load_cub, NULL, NULL, VXR_CUB_MAX_BYTES, NULL},
    {"Qubicle", ".qb", NULL, 0, vxr_load_qb, NULL, vxr_save_qb, VXR_QB_MAX_BYTES, NULL},
    {"Qubicle Binary Tree", ".qbt", "QB 2", 4, vxr_load_qbt, NULL, NULL, VXR_QBT_MAX_BYTES, NULL},
    {"Qubicle project", ".qbcl", "QBCL", 4, vxr_load_qbcl, NULL, NULL, VXR_QBT_MAX_BYTES, NULL},
    {"Goxel", ".gox", "GOX ", 4, vxr_load_gox, NULL, NULL, VXR_GOX_MAX_BYTES, NULL},
    {"Westwood", ".vxl", "Voxel Animation", 16, vxr_load_westwood_vxl, NULL, NULL,
     VXR_VXL_MAX_BYTES, NULL},
    /* after Westwood's: a .vxl without its magic */
    {"Ace of Spades", ".vxl", NULL, 0, vxr_load_aos_vxl, NULL, NULL, VXR_VXL_MAX_BYTES, NULL},
    {"Litematica", ".litematic", NULL, 0, vxr_load_litematic, NULL, NULL, VXR_LITEMATIC_MAX_BYTES,
     NULL},
    {"Schematic", ".schematic", NULL, 0, vxr_load_schematic, NULL, NULL, VXR_LITEMATIC_MAX_BYTES,
     NULL},
    {"VoxEdit", ".vxm", "VXM", 3, vxr_load_vxm, NULL, NULL, VXR_VXM_MAX_BYTES, NULL},
    {"Build engine", ".kvx", NULL, 0, vxr_load_kvx, NULL, NULL, VXR_KVX_MAX_BYTES, NULL},
    {"Slab6", ".kv6", "Kvxl", 4, vxr_load_kv6, NULL, NULL, VXR_KV6_MAX_BYTES, NULL},
    /* after MagicaVoxel's: a .vox without its magic */
    {"SLAB6", ".vox", NULL, 0, vxr_load_slab6_vox, NULL, NULL, VXR_SLAB6_MAX_BYTES, NULL},
    /* meshes: written only (vxr/mesh.h) */
    {"glTF binary", ".glb", NULL, 0, NULL, NULL, vxr_save_glb, 0, NULL},
    {"glTF", ".gltf", NULL, 0, NULL, NULL, vxr_save_gltf, 0, NULL},
    {"Wavefront OBJ", ".obj", NULL, 0, NULL, NULL, vxr_save_obj, 0, NULL},
    {"PLY", ".ply", NULL, 0, NULL, NULL, vxr_save_ply, 0, NULL},
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
        if (!formats[i].magic && (formats[i].load || formats[i].load_src) &&
            has_extension(path, formats[i].extension))
            return &formats[i];
    return NULL;
}

const vxr_format *vxr_format_for_output(const char *path) {
    for (size_t i = 0; i < FORMATS; i++)
        if (formats[i].save && has_extension(path, formats[i].extension)) return &formats[i];
    return NULL;
}

/* Whether formats[i] is listed: writable when that is asked, and the first
 * of its extension (two formats share .vox). */
static bool listed_format(size_t i, bool writable) {
    for (size_t k = 0; k < i; k++)
        if (!strcmp(formats[k].extension, formats[i].extension)) return false;
    return writable ? formats[i].save != NULL : formats[i].load || formats[i].load_src;
}

/* "a, b or c" of the extensions of the formats with (writable) or without
 * that condition. */
static void list_extensions(bool writable, char *dest, size_t size) {
    size_t n = 0, listed = 0, total = 0;
    for (size_t i = 0; i < FORMATS; i++) total += listed_format(i, writable);
    dest[0] = 0;
    for (size_t i = 0; i < FORMATS && n < size; i++) {
        if (!listed_format(i, writable)) continue;
        const char *sep = listed == 0 ? "" : listed + 1 == total ? " or " : ", ";
        n += (size_t)snprintf(dest + n, size - n, "%s%s", sep, formats[i].extension);
        listed++;
    }
}

void vxr_format_output_list(char *dest, size_t size) {
    list_extensions(true, dest, size);
}

/* The largest limit of the table: inputs of no known format. */
static uint64_t largest_limit(void) {
    uint64_t max = 0;
    for (size_t i = 0; i < FORMATS; i++)
        if (formats[i].max_size > max) max = formats[i].max_size;
    return max;
}

/* Reads a scene file once: its format from the first bytes read (else from
 * the name), then the rest up to that format's limit. When no format fits,
 * *format is NULL, nothing is kept, and the input is still read through (up
 * to the largest limit) to tell "too large" from "unknown". */
static vxr_result read_scene_file(const char *path, uint8_t **data, size_t *size,
                                  const vxr_format **format, vxr_error *err) {
    enum { SNIFF = 1 << 16 };
    *data = NULL;
    *size = 0;
    *format = NULL;
    int fd;
    vxr_result r = open_input(path, &fd, err);
    if (r != VXR_OK) return r;
    size_t n = 0, cap = SNIFF;
    bool eof = false;
    uint8_t *buf = malloc(cap);
    r = buf ? read_some(fd, buf, &n, cap, &eof, err)
            : vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    const vxr_format *f = r == VXR_OK ? vxr_format_detect(path, buf, n) : NULL;
    if (r == VXR_OK && f) r = read_rest(fd, f->max_size, &buf, &n, &cap, eof, err);
    if (r == VXR_OK && !f) r = drain(fd, largest_limit(), n, eof, err);
    close_input(fd);
    if (r != VXR_OK || !f) {
        free(buf);
        return r;
    }
    *data = buf;
    *size = n;
    *format = f;
    return VXR_OK;
}

static vxr_result unknown_format(vxr_error *err) {
    char list[160];
    list_extensions(false, list, sizeof list);
    return vxr_fail(err, VXR_ERROR_FORMAT,
                    "unknown format (expected a %s file, or @demo, @menger:L, @terrain:N, "
                    "@world:K)",
                    list);
}

/* A scene argument's source or built scene: "@spec" generates, a file is
 * read once and handed to its format's loader. Exactly one of *src and
 * *scene is set on success (scene NULL: sources only). */
vxr_result vxr_load_any_file(const char *path, const vxr_load_options *options, vxr_scene_src *src,
                             vxr_scene **scene, const vxr_format **format, vxr_file_survey *survey,
                             vxr_error *err) {
    vxr_scene_src_init(src, 1);
    if (format) *format = NULL;
    if (survey) memset(survey, 0, sizeof *survey);
    if (path[0] == '@') return vxr_scene_generate(path + 1, src, err);
    uint8_t *data;
    size_t size;
    const vxr_format *f;
    vxr_result r = read_scene_file(path, &data, &size, &f, err);
    if (r != VXR_OK) return r;
    if (format) *format = f;
    if (f && survey) vxr_survey_file(f, data, size, survey);
    if (!f)
        r = unknown_format(err);
    else if (f->load_src == vxr_load_vox && options && options->frame)
        r = vxr_load_vox_frame(data, size, options->frame, src, err);
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
