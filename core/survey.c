/* What a chunked file held and what of it vxr read (vxr_scene_load_survey,
 * `vxr info`): the chunks of a MagicaVoxel .vox (MAIN's children) and of a
 * Goxel .gox, counted by id, split into those the loaders read, those a
 * .vox keeps unread for the writer (with its other animation frames), and
 * those they skip. */
#include <string.h>
#include "internal.h"

enum { MAX_IDS = 32 };

typedef struct tally {
    char id[MAX_IDS][5];
    uint32_t count[MAX_IDS];
    uint32_t n;
    uint64_t frames; /* .vox: nTRN key frames past each node's first */
} tally;

static void count(tally *t, const uint8_t *id) {
    char s[5];
    /* printable, and safe inside a JSON string */
    for (int i = 0; i < 4; i++)
        s[i] = id[i] >= 0x20 && id[i] < 0x7f && id[i] != '"' && id[i] != '\\' ? (char)id[i] : '?';
    s[4] = 0;
    for (int i = 3; i > 0 && s[i] == ' '; i--) s[i] = 0; /* Goxel's "IMG " */
    for (uint32_t i = 0; i < t->n; i++)
        if (!strcmp(t->id[i], s)) {
            t->count[i]++;
            return;
        }
    if (t->n == MAX_IDS) return;
    memcpy(t->id[t->n], s, 5);
    t->count[t->n++] = 1;
}

static bool listed(const char *id, const char *const *kept) {
    for (; *kept; kept++)
        if (!strcmp(id, *kept)) return true;
    return false;
}

static void append(char *dest, size_t size, const char *fmt, const char *id, uint64_t n) {
    const size_t used = strlen(dest);
    if (used + 1 >= size) return;
    snprintf(dest + used, size - used, fmt, used ? ", " : "", id, (unsigned long long)n);
}

static void report(const tally *t, const char *const *kept, const char *const *saved,
                   vxr_file_survey *out) {
    for (uint32_t i = 0; i < t->n; i++) {
        char *dest = listed(t->id[i], kept)    ? out->kept
                     : listed(t->id[i], saved) ? out->saved
                                               : out->skipped;
        append(dest, sizeof out->kept, "%s%s %llu", t->id[i], t->count[i]);
    }
    if (t->frames) append(out->saved, sizeof out->saved, "%s%s: %llu", "other frames", t->frames);
}

static uint32_t le32(const uint8_t *p) {
    return vxr_get32(p);
}

/* Skips a .vox dict (int32 pairs of int32-length strings) at *at. */
static bool skip_dict(const uint8_t *d, size_t end, size_t *at) {
    if (end - *at < 4) return false;
    const uint32_t pairs = le32(d + *at);
    *at += 4;
    for (uint64_t i = 0; i < 2ull * pairs; i++) {
        if (end - *at < 4) return false;
        const uint32_t len = le32(d + *at);
        if (len > end - *at - 4) return false;
        *at += 4 + (size_t)len;
    }
    return true;
}

static void survey_vox(const uint8_t *d, size_t size, vxr_file_survey *out) {
    static const char *const kept[] = {"SIZE", "XYZI", "RGBA", "nTRN", "nGRP",
                                       "nSHP", "LAYR", "MATL", NULL};
    static const char *const saved[] = {"rOBJ", "rCAM", "NOTE", "IMAP", NULL};
    tally t = {0};
    if (size < 20 || memcmp(d + 8, "MAIN", 4)) return;
    size_t at = 20 + le32(d + 12);
    const uint64_t end64 = (uint64_t)at + le32(d + 16);
    const size_t end = end64 < size ? (size_t)end64 : size;
    while (at < end && end - at >= 12) {
        const uint32_t content = le32(d + at + 4), children = le32(d + at + 8);
        if (content > end - at - 12 || children > end - at - 12 - content) break;
        count(&t, d + at);
        if (!memcmp(d + at, "nTRN", 4)) { /* id, attributes, child, reserved, layer, frames */
            size_t p = at + 12 + 4;
            const size_t stop = at + 12 + content;
            if (stop - at >= 16 && skip_dict(d, stop, &p) && stop - p >= 16) {
                const uint32_t frames = le32(d + p + 12);
                if (frames > 1) t.frames += frames - 1;
            }
        }
        at += 12 + (size_t)content + children;
    }
    report(&t, kept, saved, out);
}

static void survey_gox(const uint8_t *d, size_t size, vxr_file_survey *out) {
    static const char *const kept[] = {"BL16", "LAYR", NULL};
    tally t = {0};
    for (size_t at = 8; at < size && size - at >= 12;) {
        const uint32_t len = le32(d + at + 4);
        if (len > size - at - 12) break;
        count(&t, d + at);
        at += 12 + (size_t)len;
    }
    static const char *const none[] = {NULL};
    report(&t, kept, none, out);
}

void vxr_survey_file(const vxr_format *f, const uint8_t *data, size_t size, vxr_file_survey *out) {
    memset(out, 0, sizeof *out);
    if (f->load_src == vxr_load_vox) survey_vox(data, size, out);
    if (f->load_src == vxr_load_gox) survey_gox(data, size, out);
}
