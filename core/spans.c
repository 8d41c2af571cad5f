/* A live tree's changed spans (core/live.c notes them): sorted by start
 * and merged, for the scene's journal (core/journal.c takes them through
 * vxr_octree_get_changes). */
#include <string.h>
#include "live.h"

static int cmp_span(const void *a, const void *b) {
    const vxr_span *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* Sorts spans by start: a few by insertion, more by a stable LSD radix
 * sort of 8-bit digits that skips the digits all spans share (Knuth, TAOCP
 * vol. 3, 5.2.5; qsort when out of memory for its second buffer). */
static void sort_spans(vxr_span *s, uint32_t n) {
    if (n <= 32) { /* one voxel's path: insertion sort, no buffer */
        for (uint32_t i = 1; i < n; i++) {
            vxr_span v = s[i];
            uint32_t j = i;
            for (; j > 0 && s[j - 1].start > v.start; j--) s[j] = s[j - 1];
            s[j] = v;
        }
        return;
    }
    vxr_span *a = s, *b = malloc((size_t)n * sizeof *b), *tmp = b;
    if (!b) {
        qsort(s, n, sizeof *s, cmp_span);
        return;
    }
    for (uint32_t shift = 0; shift < 32; shift += 8) {
        uint32_t count[256] = {0};
        for (uint32_t i = 0; i < n; i++) count[a[i].start >> shift & 255]++;
        if (count[a[0].start >> shift & 255] == n) continue; /* one digit: already in order */
        for (uint32_t d = 0, sum = 0; d < 256; d++) {
            uint32_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; i++) b[count[a[i].start >> shift & 255]++] = a[i];
        vxr_span *t = a;
        a = b;
        b = t;
    }
    if (a != s) memcpy(s, a, (size_t)n * sizeof *s);
    free(tmp);
}

void vxr_live_merge(struct vxr_live *l, int kind) {
    vxr_span *s = l->spans[kind];
    uint32_t n = l->n_spans[kind], out = 0;
    if (n < 2) return;
    uint32_t i = 1;
    while (i < n && s[i - 1].start <= s[i].start) i++;
    if (i < n) sort_spans(s, n);
    for (i = 1; i < n; i++) {
        vxr_span *o = &s[out];
        if (s[i].start <= o->start + o->count) {
            uint32_t end = s[i].start + s[i].count;
            if (end > o->start + o->count) o->count = end - o->start;
        } else {
            s[++out] = s[i];
        }
    }
    l->n_spans[kind] = out + 1;
}
