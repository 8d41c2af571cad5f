/* vxr scene journal: every change of a scene, in order, for any number of
 * readers.
 *
 * A scene (vxr/scene.h) owns one journal. Each change made through
 * vxr/edit.h appends entries: an instance's record changed, a model was
 * laid out afresh (added, removed, made live, given by a host), or a
 * model's voxels changed, with the node slots and attributes its octree
 * rewrote. Entries are numbered from 0 for the life of the scene.
 *
 * A reader (a renderer, a culler, a host's own structure) keeps only a
 * cursor, the number of the next entry it has not read: it starts at
 * vxr_journal_end and reads forward with vxr_journal_read. Readers write
 * nothing into the scene, so any number follow one scene, each at its own
 * pace.
 *
 * The journal keeps at most about 65536 + 4 x instance_count entries
 * (16 bytes each); when it is full it forgets its older half. A reader
 * whose cursor points at a forgotten entry, or that is read after the
 * scene ran out of memory for the journal, is told to resync: it takes
 * every model and instance as changed since it last looked, and compares
 * scene->model_version and scene->instance_version with the versions it
 * holds (each change stamps them). A reader that reads about once a frame
 * resyncs only when one frame's changes overflow the journal. */
#ifndef VXR_JOURNAL_H
#define VXR_JOURNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "vxr/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vxr_change_kind {
    /* instance id's record changed: moved, flags (the culler's too), view
     * distance, set, added, removed or given its own model */
    VXR_CHANGE_INSTANCE = 1,
    /* model id is new, removed, or laid out afresh: read all of it */
    VXR_CHANGE_MODEL_ALL,
    /* model id's voxels changed; the NODES and ATTRS entries that follow
     * with the same id (none when nothing was rewritten) say where */
    VXR_CHANGE_MODEL,
    /* model id's node slots [start, start + count) and their brick_attr
     * entries were rewritten */
    VXR_CHANGE_NODES,
    /* model id's attributes [start, start + count) were rewritten */
    VXR_CHANGE_ATTRS
} vxr_change_kind;

typedef struct vxr_change {
    uint32_t kind; /* vxr_change_kind */
    uint32_t id;   /* instance or model */
    uint32_t start, count;
} vxr_change;

struct vxr_scene;

/* The number of the next entry the scene will write: where a reader that
 * has seen the scene as it is now starts. */
VXR_API uint64_t vxr_journal_end(const struct vxr_scene *scene);

/* The entries from *cursor to the end. On true, *dest (NULL when *count
 * is 0) holds *count entries in the order the changes were made, valid
 * until the scene next changes, and *cursor is the end. On false the
 * journal no longer holds them (the reader fell behind by more than it
 * keeps, or the scene was out of memory for it): *count is 0, *reason
 * (may be NULL) receives a static sentence saying which, *cursor is the
 * end, and the reader must resync (see above). A cursor past the end is
 * refused the same way. O(1). */
VXR_API bool vxr_journal_read(const struct vxr_scene *scene, uint64_t *cursor,
                              const vxr_change **dest, uint32_t *count, const char **reason);

#ifdef __cplusplus
}
#endif
#endif
