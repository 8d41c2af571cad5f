/* The scene's change journal (vxr/journal.h): an array of entries that
 * forgets its older half when full. Readers hold cursors; nothing here
 * knows them. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "vxr/edit.h"

/* The most entries kept: room for a frame of changes to every instance,
 * and for the spans of large edits. */
static uint64_t journal_limit(const vxr_scene *s) {
    return 65536 + 4 * (uint64_t)s->instance_count;
}

uint64_t vxr_journal_end(const vxr_scene *s) {
    return s->journal_from + s->journal_count;
}

bool vxr_journal_read(const vxr_scene *s, uint64_t *cursor, const vxr_change **dest,
                      uint32_t *count, const char **reason) {
    uint64_t end = vxr_journal_end(s), at = *cursor;
    *dest = NULL;
    *count = 0;
    *cursor = end;
    if (at < s->journal_from || at > end) {
        if (reason)
            *reason = at > end ? "the cursor is past the journal's end (not of this scene)"
                               : "the journal no longer holds the changes after the cursor "
                                 "(the reader fell behind, or the scene ran out of memory)";
        return false;
    }
    if (at < end) {
        *dest = s->journal + (at - s->journal_from);
        *count = (uint32_t)(end - at);
    }
    return true;
}

/* Room for n more entries (n < the limit's half): the older half is
 * forgotten when full; false when out of memory, after which the journal
 * starts afresh past what it lost, so every reader resyncs. */
static bool room(vxr_scene *s, uint32_t n) {
    uint64_t need = (uint64_t)s->journal_count + n, limit = journal_limit(s);
    if (need <= s->journal_capacity) return true;
    if (need > limit) { /* full: forget the older half, or more */
        uint32_t drop = s->journal_count - s->journal_count / 2;
        if (s->journal_count - drop + (uint64_t)n > limit) drop = s->journal_count;
        memmove(s->journal, s->journal + drop,
                (size_t)(s->journal_count - drop) * sizeof *s->journal);
        s->journal_count -= drop;
        s->journal_from += drop;
        need = (uint64_t)s->journal_count + n;
        if (need <= s->journal_capacity) return true;
    }
    uint64_t cap = s->journal_capacity ? 2 * (uint64_t)s->journal_capacity : 256;
    if (cap < need) cap = need;
    if (cap > limit) cap = limit;
    void *p = realloc(s->journal, cap * sizeof *s->journal);
    if (!p) {
        s->journal_from += s->journal_count + n;
        s->journal_count = 0;
        return false;
    }
    s->journal = p;
    s->journal_capacity = (uint32_t)cap;
    return true;
}

void vxr_journal_note(vxr_scene *s, vxr_change_kind kind, uint32_t id, uint32_t start,
                      uint32_t count) {
    if (room(s, 1)) s->journal[s->journal_count++] = (vxr_change){kind, id, start, count};
}

void vxr_journal_model(vxr_scene *s, uint32_t id) {
    vxr_octree *t = &s->models[id];
    vxr_octree_changes ch;
    vxr_octree_get_changes(t, &ch);
    uint64_t spans = (uint64_t)ch.node_spans + ch.attr_spans;
    if (ch.all || spans > journal_limit(s) / 4) { /* a whole upload costs less to list */
        vxr_journal_note(s, VXR_CHANGE_MODEL_ALL, id, 0, 0);
    } else if (room(s, 1 + (uint32_t)spans)) {
        vxr_change *c = s->journal + s->journal_count;
        *c++ = (vxr_change){VXR_CHANGE_MODEL, id, 0, 0};
        for (uint32_t i = 0; i < ch.node_spans; i++)
            *c++ = (vxr_change){VXR_CHANGE_NODES, id, ch.nodes[i].start, ch.nodes[i].count};
        for (uint32_t i = 0; i < ch.attr_spans; i++)
            *c++ = (vxr_change){VXR_CHANGE_ATTRS, id, ch.attrs[i].start, ch.attrs[i].count};
        s->journal_count += 1 + (uint32_t)spans;
    }
    vxr_octree_changes_taken(t);
}
