/* The format tests' common measure of a scene: its world voxels as sorted
 * .vl32 records (big-endian x, y, z, ARGB), which format_files holds
 * against a brute-force walk of the instanced voxels. Include after
 * vxr_test.h. */
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

/* vengi's rgb and rgb_small saved as ext (".qb", ".cub", ...) hold the
 * same world voxels and colours as the same models saved as .vox. */
static inline void check_stems_match_vox(const char *ext) {
    static const char *stems[] = {"rgb", "rgb_small"};
    for (size_t i = 0; i < 2; i++) {
        char path[512], vox[512];
        snprintf(path, sizeof path, VXR_TEST_DATA "/vengi__%s%s", stems[i], ext);
        snprintf(vox, sizeof vox, VXR_TEST_DATA "/vengi__%s.vox", stems[i]);
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
