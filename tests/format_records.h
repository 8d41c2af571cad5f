/* The format tests' common measure of a scene: its world voxels as sorted
 * .vl32 records (big-endian x, y, z, ARGB), which format_files holds
 * against a brute-force walk of the instanced voxels. Include after
 * vxr_test.h and internal.h (the byte order helpers). */
#ifndef VXR_FORMAT_RECORDS_H
#define VXR_FORMAT_RECORDS_H

#include <string.h>

static inline int cmp_record(const void *a, const void *b) {
    return memcmp(a, b, 16);
}

/* The sorted records of s (*n of them, malloc'd; NULL when it fails). */
static inline uint8_t *records(const vxr_scene *s, size_t *n) {
    uint8_t *d = NULL;
    size_t size = 0;
    CHECK(vxr_save_vl32(s, &d, &size, NULL) == VXR_OK);
    *n = size / 16;
    if (d) qsort(d, *n, 16, cmp_record);
    return d;
}

/* vengi's `stem` saved as ext (".qb", ".cub", ...) holds the same world
 * voxels and colours as the same model saved as .vox. */
static inline void check_stem_matches_vox(const char *stem, const char *ext) {
    char path[512], vox[512];
    snprintf(path, sizeof path, VXR_TEST_DATA "/vengi__%s%s", stem, ext);
    snprintf(vox, sizeof vox, VXR_TEST_DATA "/vengi__%s.vox", stem);
    vxr_scene *a = NULL, *b = NULL;
    vxr_error err = {{0}};
    CHECK(vxr_scene_load(path, &a, &err) == VXR_OK);
    CHECK(vxr_scene_load(vox, &b, &err) == VXR_OK);
    if (!a || !b) fprintf(stderr, "  %s: %s\n", path, err.message);
    size_t na = 0, nb = 0;
    uint8_t *ra = a ? records(a, &na) : NULL, *rb = b ? records(b, &nb) : NULL;
    CHECK_EQ_INT(na, nb);
    CHECK(na > 0 && na == nb && ra && rb && !memcmp(ra, rb, 16 * na));
    free(ra);
    free(rb);
    vxr_scene_destroy(a);
    vxr_scene_destroy(b);
}

/* Both of vengi's rgb and rgb_small as ext. */
static inline void check_stems_match_vox(const char *ext) {
    check_stem_matches_vox("rgb", ext);
    check_stem_matches_vox("rgb_small", ext);
}

static inline int32_t record_coord(const uint8_t *r, int k) {
    return (int32_t)vxr_get_be32(r + 4 * k);
}

/* Moves records so that their box starts at 0 (sorted again). */
static inline void records_to_origin(uint8_t *r, size_t n) {
    for (int k = 0; k < 3; k++) {
        int32_t lo = INT32_MAX;
        for (size_t i = 0; i < n; i++)
            if (record_coord(r + 16 * i, k) < lo) lo = record_coord(r + 16 * i, k);
        for (size_t i = 0; i < n; i++)
            vxr_put_be32(r + 16 * i + 4 * k, (uint32_t)(record_coord(r + 16 * i, k) - lo));
    }
    qsort(r, n, 16, cmp_record);
}

/* The file at path holds the voxels and colours of the .vox at vox, up to a
 * move, and turned half about z when turn is set (vengi's Goxel and
 * Westwood files face the other way from its .vox). */
static inline void check_moved_matches_vox(const char *path, const char *vox, bool turn) {
    vxr_scene *a = NULL, *b = NULL;
    vxr_error err = {{0}};
    CHECK(vxr_scene_load(path, &a, &err) == VXR_OK);
    CHECK(vxr_scene_load(vox, &b, &err) == VXR_OK);
    if (!a || !b) {
        fprintf(stderr, "  %s: %s\n", path, err.message);
        vxr_scene_destroy(a);
        vxr_scene_destroy(b);
        return;
    }
    size_t na = 0, nb = 0;
    uint8_t *ra = records(a, &na), *rb = records(b, &nb);
    for (size_t i = 0; turn && i < na; i++)
        for (int k = 0; k < 2; k++)
            vxr_put_be32(ra + 16 * i + 4 * k, (uint32_t)(-record_coord(ra + 16 * i, k) - 1));
    records_to_origin(ra, na);
    records_to_origin(rb, nb);
    CHECK(na > 0);
    CHECK_EQ_INT(na, nb);
    CHECK(na == nb && !memcmp(ra, rb, 16 * na));
    free(ra);
    free(rb);
    vxr_scene_destroy(a);
    vxr_scene_destroy(b);
}

/* The scene of a file (NULL, saying why, when it fails to load). */
static inline vxr_scene *load_file(const char *path) {
    vxr_scene *s = NULL;
    vxr_error err = {{0}};
    CHECK(vxr_scene_load(path, &s, &err) == VXR_OK);
    if (!s) fprintf(stderr, "  %s: %s\n", path, err.message);
    return s;
}

/* The bytes of tests/data/name (NULL when unread). */
static inline uint8_t *read_data(const char *name, size_t *size) {
    char path[512];
    snprintf(path, sizeof path, VXR_TEST_DATA "/%s", name);
    uint8_t *d = NULL;
    CHECK(vxr_read_file(path, &d, size, NULL) == VXR_OK);
    return d;
}

typedef vxr_result (*records_loader)(const uint8_t *, size_t, vxr_scene_src *, vxr_error *);

/* load reads d[0..n) into *src (else says why and leaves it empty). */
static inline bool load_ok(records_loader load, const uint8_t *d, size_t n, vxr_scene_src *src) {
    vxr_error err = {{0}};
    const vxr_result r = load(d, n, src, &err);
    if (r != VXR_OK) fprintf(stderr, "  load failed: %s\n", err.message);
    CHECK(r == VXR_OK);
    return r == VXR_OK;
}

/* src, built (and freed), holds exactly the records want[0..nw) (sorted
 * here). */
static inline void check_src_records(vxr_scene_src *src, uint8_t *want, size_t nw) {
    qsort(want, nw, 16, cmp_record);
    vxr_scene *s = NULL;
    CHECK(vxr_scene_build(src, &s, NULL) == VXR_OK);
    vxr_scene_src_free(src);
    size_t n = 0;
    uint8_t *got = s ? records(s, &n) : NULL;
    CHECK(nw > 0);
    CHECK_EQ_INT(n, nw);
    CHECK(got && n == nw && !memcmp(got, want, 16 * nw));
    free(got);
    vxr_scene_destroy(s);
}

static inline void check_half_turn_matches_vox(const char *path, const char *vox) {
    check_moved_matches_vox(path, vox, true);
}

/* load refuses d[0..n) with want, says why, and leaves its source empty. */
static inline void check_rejects(vxr_result (*load)(const uint8_t *, size_t, vxr_scene_src *,
                                                    vxr_error *),
                                 const uint8_t *d, size_t n, vxr_result want, const char *what) {
    vxr_scene_src src;
    vxr_error err = {{0}};
    vxr_result r = load(d, n, &src, &err);
    if (r != want)
        fprintf(stderr, "  %s (%zu bytes): got %d, message %s\n", what, n, (int)r, err.message);
    CHECK(r == want);
    CHECK(err.message[0] != 0);
    CHECK(src.models == NULL && src.instances == NULL && src.model_count == 0);
}

#endif
