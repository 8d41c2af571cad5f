/* MagicaVoxel .vox primitives shared by the reader (core/vox.c) and the
 * writer's scene-graph patcher (core/vox_graph.c): bounds-checked reads of
 * INT32, STRING and DICT, the integers of a DICT value, the rotation byte
 * and which key frame an animation frame shows. Format:
 * ephtracy/voxel-model MagicaVoxel-file-format-vox(-extension).txt. */
#ifndef VXR_VOX_PARSE_H
#define VXR_VOX_PARSE_H

#include <stdint.h>
#include <string.h>

typedef struct span {
    const uint8_t *p;
    size_t size;
    size_t base; /* file offset of p, for messages */
} span;

static inline int rd_i32(const span *s, size_t *pos, int32_t *v) {
    if (*pos > s->size || s->size - *pos < 4) return 0;
    const uint8_t *b = s->p + *pos;
    *v = (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                   (uint32_t)b[3] << 24);
    *pos += 4;
    return 1;
}

/* A STRING (int32 length, bytes). */
static inline int rd_str(const span *s, size_t *pos, const uint8_t **str, uint32_t *len) {
    int32_t n;
    if (!rd_i32(s, pos, &n) || n < 0 || (size_t)n > s->size - *pos) return 0;
    *str = s->p + *pos;
    *len = (uint32_t)n;
    *pos += (size_t)n;
    return 1;
}

/* Scans a DICT for key (NULL: only skips it); the value is returned when
 * found (first match). Returns 0 on a malformed dict. */
static inline int rd_dict(const span *s, size_t *pos, const char *key, const uint8_t **val,
                          uint32_t *vlen, int *found) {
    int32_t n;
    *found = 0;
    *val = NULL;
    *vlen = 0;
    if (!rd_i32(s, pos, &n) || n < 0) return 0;
    size_t klen = key ? strlen(key) : 0;
    for (int32_t i = 0; i < n; i++) {
        const uint8_t *k, *v;
        uint32_t kl, vl;
        if (!rd_str(s, pos, &k, &kl) || !rd_str(s, pos, &v, &vl)) return 0;
        if (key && !*found && kl == klen && !memcmp(k, key, klen)) {
            *val = v;
            *vlen = vl;
            *found = 1;
        }
    }
    return 1;
}

/* Parses up to `count` decimal integers separated by spaces; returns the
 * number read, or -1 on junk. */
static inline int parse_ints(const uint8_t *s, uint32_t len, int64_t *out, int count) {
    int n = 0;
    uint32_t i = 0;
    while (i < len) {
        if (s[i] == ' ') {
            i++;
            continue;
        }
        if (n == count) return -1;
        int neg = 0;
        if (s[i] == '-' || s[i] == '+') neg = s[i++] == '-';
        if (i >= len || s[i] < '0' || s[i] > '9') return -1;
        int64_t v = 0;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            v = v * 10 + (s[i++] - '0');
            if (v > INT32_MAX) return -1;
        }
        out[n++] = neg ? -v : v;
    }
    return n;
}

/* Rotation byte (extension spec): bits 0-1 the column of row 0's non-zero
 * entry, bits 2-3 row 1's, bits 4-6 the signs of rows 0-2 (1 = negative). */
static inline int decode_rotation(uint32_t b, int32_t R[9]) {
    uint32_t c0 = b & 3, c1 = (b >> 2) & 3;
    if (c0 > 2 || c1 > 2 || c0 == c1 || b > 127) return 0;
    uint32_t c2 = 3 - c0 - c1;
    memset(R, 0, 9 * sizeof *R);
    R[0 + c0] = b & 16 ? -1 : 1;
    R[3 + c1] = b & 32 ? -1 : 1;
    R[6 + c2] = b & 64 ? -1 : 1;
    return 1;
}

/* Which of a list of key frames animation frame k shows: the one with the
 * largest key (_f, 0 without) <= k, else the one with the smallest key,
 * else the first. Feed the keys in order; `pick` ends as the index. */
typedef struct frame_pick {
    size_t pos; /* index (or offset) of the chosen frame */
    int64_t f;  /* its key */
    int have;
} frame_pick;

static inline void consider_frame(frame_pick *fp, size_t pos, int64_t key, int64_t k) {
    int better = !fp->have || (key <= k ? (fp->f > k || key > fp->f) : (fp->f > k && key < fp->f));
    if (better) *fp = (frame_pick){pos, key, 1};
}

#endif
