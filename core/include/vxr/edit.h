/* vxr edits: voxels set, cleared and painted in a scene's models, models and
 * instances added and removed, with undo and redo.
 *
 * Three levels:
 *  - A live octree (vxr_octree_make_live) takes single-voxel edits in place
 *    at O(depth) cost and lists what changed for the renderer to upload.
 *    vxr_octree_compact turns it back into the bulk builder's exact bytes.
 *  - A scene (vxr/scene.h) adds and removes models and instances with ids
 *    that stay stable, and moves, hides and shows instances
 *    (vxr_scene_set_transform, _set_flags, _set_view_distance); each
 *    change bumps scene->version, stamps the model or instance and goes
 *    into the scene's journal (vxr/journal.h), so that any number of
 *    cullers, renderers and pickers can tell what changed since they last
 *    looked in O(changed).
 *  - An editor applies shaped edits (a list of cells, a box, a sphere, the
 *    grid cube at or beside a pick) to a model as one undoable step each,
 *    keeping a journal of bounded size.
 *
 * After any sequence of edits a model holds exactly the voxels and colours
 * of a bulk build of the resulting voxel list (tests/unit_edit.c). Errors as
 * everywhere: a vxr_result and a one-line reason in err (may be NULL).
 */
#ifndef VXR_EDIT_H
#define VXR_EDIT_H

#include "vxr/pick.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- live octrees ---- */

/* What one voxel edit did: had/old before, has/now after (attr values). */
typedef struct vxr_voxel_change {
    int32_t cell[3];
    bool had;
    uint32_t old;
    bool has;
    uint32_t now;
} vxr_voxel_change;

/* Turns an octree into its live form (laid out afresh, all of it noted as
 * changed); a live one stays as it is. VXR_ERROR_MEMORY leaves it as it
 * was. */
VXR_API vxr_result vxr_octree_make_live(vxr_octree *tree);

/* Sets the voxel at (x, y, z) to attr (a palette index 1..255 or RGBA8, as
 * tree->attr_size says), growing the root when the cell lies outside it;
 * with paint_only, only an existing voxel changes. dest (may be NULL)
 * receives what changed. The tree must be live. VXR_ERROR_LIMIT for a cell
 * beyond +-2^20, VXR_ERROR_ARGUMENT for a bad attr (palette index 0 or
 * over 255, RGBA with alpha 0) or a compact tree,
 * VXR_ERROR_MEMORY (the tree is then unusable until compacted). */
VXR_API vxr_result vxr_octree_set_voxel(vxr_octree *tree, int32_t x, int32_t y, int32_t z,
                                        uint32_t attr, bool paint_only, vxr_voxel_change *dest);
/* Clears the voxel at (x, y, z); nodes left empty go, and a tree left with
 * no voxel is empty (depth 0, no nodes). As vxr_octree_set_voxel. */
VXR_API vxr_result vxr_octree_clear_voxel(vxr_octree *tree, int32_t x, int32_t y, int32_t z,
                                          vxr_voxel_change *dest);
/* Clears leave vmin/vmax possibly wider than the voxels: this makes them
 * tight again (a branch-and-bound descent per side). */
VXR_API void vxr_octree_refresh_bounds(vxr_octree *tree);

/* The tree's changes not yet taken: node slots (their node and brick_attr
 * entry, or the level-of-detail colour: a changed voxel's whole path is
 * listed) and attributes, sorted and merged; `all` when everything must be
 * taken as changed (a new layout). Valid until the next edit of the tree.
 * A tree in a scene is taken by vxr_scene_touch_model, which moves its
 * changes into the scene's journal (vxr/journal.h) for readers to follow;
 * readers do not call these. */
typedef struct vxr_span {
    uint32_t start, count;
} vxr_span;
typedef struct vxr_octree_changes {
    bool all;
    const vxr_span *nodes;
    uint32_t node_spans;
    const vxr_span *attrs;
    uint32_t attr_spans;
} vxr_octree_changes;
VXR_API void vxr_octree_get_changes(vxr_octree *tree, vxr_octree_changes *dest);
/* Forgets the changes listed so far. */
VXR_API void vxr_octree_changes_taken(vxr_octree *tree);

/* The compact form of a tree (bulk build of its voxels) into dest. */
VXR_API vxr_result vxr_octree_compact_copy(const vxr_octree *tree, vxr_octree *dest,
                                           vxr_error *err);
/* Replaces the tree by its compact form, made live again when `live`. */
VXR_API vxr_result vxr_octree_compact(vxr_octree *tree, bool live, vxr_error *err);
/* A live copy of a tree (compact or live) into dest. */
VXR_API vxr_result vxr_octree_copy(const vxr_octree *tree, vxr_octree *dest);
/* Node slots and attributes on the live form's free lists (0 when compact). */
VXR_API void vxr_octree_waste(const vxr_octree *tree, uint64_t *free_slots, uint64_t *free_attrs);

/* ---- scenes that change ---- */

/* Makes every model live: call once before editing (each model is laid out
 * afresh, O(voxels)). */
VXR_API vxr_result vxr_scene_make_live(vxr_scene *scene);
/* A new empty live model; *id is its index (a removed model's index may be
 * reused: scene->model_added[*id] then tells the new model from the old,
 * and an editor's steps of the old one are retired). */
VXR_API vxr_result vxr_scene_add_model(vxr_scene *scene, uint32_t *id);
/* A new model that is a built octree (vxr_octree_build, a loaded file's,
 * live or compact): the scene takes it (*tree is zeroed) and *id names it,
 * as vxr_scene_add_model's. VXR_ERROR_ARGUMENT, taking nothing, for colours
 * of another size than the scene's; VXR_ERROR_MEMORY. */
VXR_API vxr_result vxr_scene_add_octree(vxr_scene *scene, vxr_octree *tree, uint32_t *id,
                                        vxr_error *err);
/* Removes a model and every instance of it; the steps of any editor that
 * edited it are retired (they can no longer be undone or redone, and the
 * others can). VXR_ERROR_ARGUMENT for an id that is not a model. */
VXR_API vxr_result vxr_scene_remove_model(vxr_scene *scene, uint32_t id);
/* A new instance; *id its index (a removed instance's index may be
 * reused). The record is checked as vxr_scene_set_instance checks it. */
VXR_API vxr_result vxr_scene_add_instance(vxr_scene *scene, const vxr_instance *in, uint32_t *id,
                                          vxr_error *err);
/* Replaces instance id's model, flags, transform and view distance.
 * VXR_ERROR_ARGUMENT, changing nothing, for an id at or past
 * instance_count, a model that is not there (past model_count or
 * removed), flags other than VXR_INSTANCE_HIDDEN and VXR_INSTANCE_CULLED,
 * or a transform or view distance that vxr_scene_set_transform and
 * vxr_scene_set_view_distance refuse; err says which. */
VXR_API vxr_result vxr_scene_set_instance(vxr_scene *scene, uint32_t id, const vxr_instance *in,
                                          vxr_error *err);
/* Removes an instance: it stays in the table, flagged VXR_INSTANCE_HIDDEN
 * and VXR_INSTANCE_REMOVED. VXR_ERROR_ARGUMENT for an id at or past
 * instance_count. */
VXR_API vxr_result vxr_scene_remove_instance(vxr_scene *scene, uint32_t id);

/* ---- moving instances ----
 *
 * The way a host changes a placed instance. Each call checks its
 * arguments and changes nothing when one is bad: VXR_ERROR_ARGUMENT for an
 * id at or past instance_count or of a removed instance, or a value as
 * stated; err (may be NULL) says why. A call that sets the value the
 * instance already has changes nothing; otherwise the instance gets a new
 * version (scene->version + 1) and goes into the scene's journal
 * (vxr/journal.h), O(1). The scene keeps no pointer to the arguments. */

/* The instance's transform: scale finite and > 0 (at most 2^20), an
 * orthonormal rotation (R R^T = I within 1e-4: a rotation or a reflection,
 * never a zero, scaled or sheared matrix, since picks and the GPU invert
 * it by its transpose), translation finite (within 2^31), as loaders
 * check them. The world box follows from the model (vxr_instance_gpu). */
VXR_API vxr_result vxr_scene_set_transform(vxr_scene *scene, uint32_t id,
                                           const vxr_transform *transform, vxr_error *err);
/* The instance's host flags: 0 or VXR_INSTANCE_HIDDEN (kept, not rendered
 * nor picked). VXR_INSTANCE_CULLED belongs to the culler and
 * VXR_INSTANCE_REMOVED to vxr_scene_remove_instance: flags holding them or
 * unknown bits are refused; the instance's CULLED bit stays as it is. */
VXR_API vxr_result vxr_scene_set_flags(vxr_scene *scene, uint32_t id, uint32_t flags,
                                       vxr_error *err);
/* The instance's view distance (vxr/cull.h): >= 0, INFINITY for always
 * visible; NaN and negative values are refused. */
VXR_API vxr_result vxr_scene_set_view_distance(vxr_scene *scene, uint32_t id, float distance,
                                               vxr_error *err);
/* Stamps instance id (< instance_count) as changed, moved included
 * (scene->instance_moved), and writes it to the journal, for a writer that
 * changed scene->instances[id] in place. VXR_ERROR_ARGUMENT, changing nothing, for an id at or past
 * instance_count. */
VXR_API vxr_result vxr_scene_touch_instance(vxr_scene *scene, uint32_t id, vxr_error *err);

/* Gives an instance its own copy of its model to edit alone; *model (may
 * be NULL) receives the copy's id. VXR_ERROR_ARGUMENT for an instance that
 * is not there (past instance_count or removed), VXR_ERROR_MEMORY (the
 * scene is then as it was). */
VXR_API vxr_result vxr_scene_own_model(vxr_scene *scene, uint32_t instance, uint32_t *model,
                                       vxr_error *err);
/* Stamps a model as changed (its voxels: instances' bounds follow) and
 * moves its octree's changes (vxr_octree_get_changes) into the journal.
 * VXR_ERROR_ARGUMENT, changing nothing, for an id that is not a model
 * (past model_count or removed). */
VXR_API vxr_result vxr_scene_touch_model(vxr_scene *scene, uint32_t id, vxr_error *err);

/* The attr value of a colour for the scene: RGBA8 in an RGBA scene, the
 * nearest palette entry (squared RGB distance, ties to the lower index) in
 * a paletted one, among the entries in use (alpha not 0). */
VXR_API uint32_t vxr_scene_color_value(const vxr_scene *scene, uint32_t rgba);

/* ---- shaped, undoable edits ---- */

typedef enum vxr_edit_op {
    VXR_EDIT_SET = 1, /* the cells get value */
    VXR_EDIT_CLEAR,   /* the cells become empty */
    VXR_EDIT_PAINT    /* existing voxels among the cells get value */
} vxr_edit_op;

typedef enum vxr_edit_shape {
    VXR_SHAPE_CELLS = 1, /* cells[count] (model cells) */
    VXR_SHAPE_BOX,       /* lo <= cell < hi */
    VXR_SHAPE_SPHERE     /* cells whose centre (c + 1/2) is within radius of centre */
} vxr_edit_shape;

/* The most cells one edit may visit: a box of 512^3 (a sphere: its
 * bounding box of cells; clear and paint: clipped to the box of the
 * model's voxels, so that clearing everything is one cheap edit). */
#define VXR_EDIT_MAX_CELLS (1ull << 27)

typedef struct vxr_edit {
    vxr_edit_op op;
    uint32_t model;
    uint32_t value; /* attr value (vxr_scene_color_value): palette index or RGBA8 */
    vxr_edit_shape shape;
    const int32_t (*cells)[3];
    size_t count;
    int32_t lo[3], hi[3];
    double centre[3], radius;
} vxr_edit;

/* The grid cube a pick names, as a box edit of the picked instance's
 * model: the cube itself (remove, paint), or with `beside` the cube across
 * its entry face (place). VXR_ERROR_ARGUMENT without a hit, for an
 * instance that is not there, a face outside -1..5, a size that is not a
 * power of two up to VXR_MAX_GRID, or beside a pick whose origin was
 * inside (face -1); VXR_ERROR_LIMIT when the cube lies beyond the reach of
 * a model (+-2^20). err (may be NULL) says why. */
/* Checks an edit against scene without applying it, as vxr_editor_apply
 * does first: the model is there (not removed), the operation and shape
 * are known, value suits the scene (a palette index 1..255, or RGBA8 with
 * alpha not 0), every cell lies within a model's reach (+-2^20; a box's hi
 * may be 2^20), a sphere is finite with radius >= 0, and the edit names at
 * most VXR_EDIT_MAX_CELLS cells. *cells (may be NULL) receives the cells
 * the edit visits, the work it costs. VXR_ERROR_ARGUMENT or
 * VXR_ERROR_LIMIT, with err (may be NULL) saying why. */
VXR_API vxr_result vxr_edit_check(const vxr_scene *scene, const vxr_edit *edit, uint64_t *cells,
                                  vxr_error *err);

VXR_API vxr_result vxr_edit_pick_cube(const vxr_scene *scene, const vxr_pick *pick, bool beside,
                                      vxr_edit_op op, uint32_t value, vxr_edit *dest,
                                      vxr_error *err);

typedef struct vxr_editor vxr_editor;

/* What a step did. */
typedef struct vxr_edit_result {
    uint64_t changed; /* voxels whose presence or value changed */
    double seconds;   /* CPU time of the step */
    bool journaled;   /* false: applied without undo (VXR_JOURNAL_FORGET) */
} vxr_edit_result;

/* An editor of scene (which it makes live) with a journal of at most
 * journal_bytes (0: 64 MiB), 28 bytes a changed voxel and a few dozen a
 * step; older steps are forgotten when it is full. The journal owns its
 * memory: between calls it holds at most journal_bytes (or one step, when
 * that step alone is larger), and while a step is applied at most twice
 * that. A step is journaled as it is applied; one that outgrows the whole
 * journal is handled as vxr_editor_set_overflow says. Steps name their
 * model by id and by scene->model_added, so that removing a model retires
 * its steps and a reused id is never confused with it. The editor keeps a
 * pointer to scene, which must outlive it. */
VXR_API vxr_result vxr_editor_create(vxr_scene *scene, size_t journal_bytes, vxr_editor **dest,
                                     vxr_error *err);
/* NULL is a no-op. */
VXR_API void vxr_editor_destroy(vxr_editor *editor);

/* What vxr_editor_apply does with a step that changes more voxels than the
 * whole journal holds. REFUSE (the default): puts back what it changed and
 * fails with VXR_ERROR_LIMIT; the model and the journal are as before.
 * FORGET: applies it without undo, forgetting every step (undo and redo:
 * none of them can be replayed across it); its result says journaled
 * false. Either way memory stays within the journal's bound. */
typedef enum vxr_journal_overflow {
    VXR_JOURNAL_REFUSE = 0,
    VXR_JOURNAL_FORGET
} vxr_journal_overflow;
VXR_API void vxr_editor_set_overflow(vxr_editor *editor, vxr_journal_overflow overflow);

/* Called by vxr_editor_apply every 2^20 cells it visits with the cells
 * visited and the step's total (vxr_edit_check's count), from the calling
 * thread; NULL (the default) for none. */
typedef void (*vxr_edit_progress)(void *user, uint64_t visited, uint64_t total);
VXR_API void vxr_editor_set_progress(vxr_editor *editor, vxr_edit_progress progress, void *user);
/* Applies one edit as one undoable step (even when it changes nothing);
 * the steps that could be redone are dropped. An edit vxr_edit_check
 * refuses changes nothing. On another failure the model holds what the
 * step did up to then and the step is undoable (VXR_ERROR_LIMIT from the
 * overflow above and VXR_ERROR_MEMORY from the journal: nothing was
 * changed), and err says why. result may be NULL. */
VXR_API vxr_result vxr_editor_apply(vxr_editor *editor, const vxr_edit *edit,
                                    vxr_edit_result *result, vxr_error *err);
/* Undoes the last step / redoes the last undone one; *done is false when
 * there is none. Steps of removed models are skipped (retired). */
VXR_API vxr_result vxr_editor_undo(vxr_editor *editor, bool *done, vxr_error *err);
VXR_API vxr_result vxr_editor_redo(vxr_editor *editor, bool *done, vxr_error *err);
/* Steps that can be undone and redone (retired ones not counted), and the
 * journal's bytes. */
VXR_API void vxr_editor_depth(const vxr_editor *editor, uint32_t *undo, uint32_t *redo,
                              size_t *bytes);
/* The voxels that the next undo and the next redo would change (0 when
 * there is none); either pointer may be NULL. */
VXR_API void vxr_editor_next(const vxr_editor *editor, uint64_t *undo, uint64_t *redo);

#ifdef __cplusplus
}
#endif
#endif
