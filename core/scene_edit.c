/* Scenes that change (vxr/edit.h): models and instances added, removed,
 * replaced and moved with stable ids, each change stamped with a new
 * version and written to the scene's journal (core/journal.c), which
 * consumers follow to find what changed without looking at the rest. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "vxr/edit.h"

/* Grows an array of n elements of elem bytes to hold need (doubling). */
static bool grow(void **p, uint32_t cap, uint32_t need, size_t elem) {
    void *q = realloc(*p, (size_t)need * elem);
    if (!q) return false;
    memset((char *)q + (size_t)cap * elem, 0, (size_t)(need - cap) * elem);
    *p = q;
    return true;
}

static bool reserve_models(vxr_scene *s, uint32_t need) {
    if (need <= s->model_capacity) return true;
    uint32_t cap = s->model_capacity * 2 > need ? s->model_capacity * 2 : need;
    if (!grow((void **)&s->models, s->model_capacity, cap, sizeof *s->models) ||
        !grow((void **)&s->model_version, s->model_capacity, cap, sizeof *s->model_version) ||
        !grow((void **)&s->model_added, s->model_capacity, cap, sizeof *s->model_added))
        return false;
    s->model_capacity = cap;
    return true;
}

static bool reserve_instances(vxr_scene *s, uint32_t need) {
    if (need <= s->instance_capacity) return true;
    uint32_t cap = s->instance_capacity * 2 > need ? s->instance_capacity * 2 : need;
    if (!grow((void **)&s->instances, s->instance_capacity, cap, sizeof *s->instances) ||
        !grow((void **)&s->instance_version, s->instance_capacity, cap,
              sizeof *s->instance_version) ||
        !grow((void **)&s->instance_moved, s->instance_capacity, cap, sizeof *s->instance_moved))
        return false;
    s->instance_capacity = cap;
    return true;
}

/* A model changed: a new version, and its octree's changes (or all of it)
 * into the journal. */
static void stamp_model(vxr_scene *s, uint32_t id) {
    s->model_version[id] = ++s->version;
    vxr_journal_model(s, id);
}

/* A removed model: empty and not live (what vxr_scene_add_model reuses). */
static bool model_free(const vxr_scene *s, uint32_t i) {
    return !s->models[i].live && s->models[i].node_count == 0 && s->models[i].attr_size == 0;
}

bool vxr_scene_has_model(const vxr_scene *s, uint32_t id) {
    return id < s->model_count && !model_free(s, id);
}

vxr_result vxr_scene_touch_model(vxr_scene *s, uint32_t id, vxr_error *err) {
    if (id >= s->model_count)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "no model %u (the scene has %u)", id,
                        s->model_count);
    if (model_free(s, id)) return vxr_fail(err, VXR_ERROR_ARGUMENT, "model %u was removed", id);
    stamp_model(s, id);
    return VXR_OK;
}

static void touch_instance(vxr_scene *s, uint32_t id) {
    s->instance_version[id] = ++s->version;
    vxr_journal_note(s, VXR_CHANGE_INSTANCE, id, 0, 0);
}

vxr_result vxr_scene_touch_instance(vxr_scene *s, uint32_t id, vxr_error *err) {
    if (id >= s->instance_count)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "no instance %u (the scene has %u)", id,
                        s->instance_count);
    touch_instance(s, id);
    s->instance_moved[id] = s->version; /* the host may have moved it */
    return VXR_OK;
}

void vxr_scene_touch_flags(vxr_scene *s, uint32_t id) {
    touch_instance(s, id);
}

vxr_result vxr_scene_make_live(vxr_scene *s) {
    for (uint32_t i = 0; i < s->model_count; i++) {
        if (s->models[i].live || model_free(s, i)) continue; /* a removed model stays free */
        vxr_result r = vxr_octree_make_live(&s->models[i]);
        if (r != VXR_OK) return r;
        stamp_model(s, i);
    }
    return VXR_OK;
}

/* Installs t as a new model (the first free id, else a new one). */
static vxr_result install_model(vxr_scene *s, const vxr_octree *t, uint32_t *id) {
    uint32_t i = 0;
    while (i < s->model_count && !model_free(s, i)) i++;
    if (i == s->model_count && (s->model_count == UINT32_MAX || !reserve_models(s, i + 1)))
        return VXR_ERROR_MEMORY;
    s->models[i] = *t;
    if (i == s->model_count) s->model_count++;
    stamp_model(s, i);
    s->model_added[i] = s->version; /* unique: tells this model from the id's earlier ones */
    *id = i;
    return VXR_OK;
}

vxr_result vxr_scene_add_model(vxr_scene *s, uint32_t *id) {
    vxr_octree t = {.attr_size = s->attr_size};
    vxr_result r = vxr_octree_make_live(&t);
    if (r == VXR_OK) r = install_model(s, &t, id);
    if (r != VXR_OK) vxr_octree_free(&t);
    return r;
}

vxr_result vxr_scene_add_octree(vxr_scene *s, vxr_octree *tree, uint32_t *id, vxr_error *err) {
    if (tree->attr_size != s->attr_size)
        return vxr_fail(err, VXR_ERROR_ARGUMENT,
                        "an octree of %u-byte colours for a scene of %u-byte colours",
                        tree->attr_size, s->attr_size);
    const vxr_result r = install_model(s, tree, id);
    if (r != VXR_OK) return vxr_fail(err, r, "out of memory");
    memset(tree, 0, sizeof *tree);
    return VXR_OK;
}

vxr_result vxr_scene_remove_model(vxr_scene *s, uint32_t id) {
    if (id >= s->model_count || model_free(s, id)) return VXR_ERROR_ARGUMENT;
    for (uint32_t i = 0; i < s->instance_count; i++)
        if (s->instances[i].model == id && !(s->instances[i].flags & VXR_INSTANCE_REMOVED))
            vxr_scene_remove_instance(s, i);
    vxr_octree_free(&s->models[id]); /* zeroed: free */
    stamp_model(s, id);
    return VXR_OK;
}

vxr_result vxr_scene_add_instance(vxr_scene *s, const vxr_instance *in, uint32_t *id,
                                  vxr_error *err) {
    uint32_t i = 0;
    while (i < s->instance_count && !(s->instances[i].flags & VXR_INSTANCE_REMOVED)) i++;
    bool appended = i == s->instance_count;
    if (appended) {
        if (i == UINT32_MAX || !reserve_instances(s, i + 1))
            return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
        s->instances[i].flags = VXR_INSTANCE_HIDDEN | VXR_INSTANCE_REMOVED;
        s->instance_count++;
    }
    vxr_result r = vxr_scene_set_instance(s, i, in, err);
    if (r != VXR_OK && appended) s->instance_count--;
    if (r == VXR_OK) *id = i;
    return r;
}

vxr_result vxr_scene_set_instance(vxr_scene *s, uint32_t id, const vxr_instance *in,
                                  vxr_error *err) {
    if (id >= s->instance_count)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "no instance %u (of %u)", id, s->instance_count);
    if (!in) return vxr_fail(err, VXR_ERROR_ARGUMENT, "instance %u: no record", id);
    vxr_result r = vxr_instance_check(in, id, s->model_count, err);
    if (r != VXR_OK) return VXR_ERROR_ARGUMENT;
    if (model_free(s, in->model))
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "model %u was removed", in->model);
    /* a record as the scene holds it: the host's HIDDEN and the culler's
     * CULLED; REMOVED belongs to vxr_scene_remove_instance */
    const uint32_t known = VXR_INSTANCE_HIDDEN | VXR_INSTANCE_CULLED;
    if (in->flags & ~known)
        return vxr_fail(err, VXR_ERROR_ARGUMENT,
                        "instance %u: flags 0x%x (only VXR_INSTANCE_HIDDEN and _CULLED)", id,
                        in->flags);
    s->instances[id] = *in;
    s->instances[id].flags &= ~(uint32_t)VXR_INSTANCE_REMOVED;
    touch_instance(s, id);
    s->instance_moved[id] = s->version;
    return VXR_OK;
}

vxr_result vxr_scene_remove_instance(vxr_scene *s, uint32_t id) {
    if (id >= s->instance_count) return VXR_ERROR_ARGUMENT;
    s->instances[id].flags |= VXR_INSTANCE_HIDDEN | VXR_INSTANCE_REMOVED;
    touch_instance(s, id);
    return VXR_OK;
}

/* ---- moving instances ---- */

/* VXR_OK for the id of an instance that is there (not removed). */
static vxr_result placed(const vxr_scene *s, uint32_t id, vxr_error *err) {
    if (id >= s->instance_count)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "no instance %u (of %u)", id, s->instance_count);
    if (s->instances[id].flags & VXR_INSTANCE_REMOVED)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "instance %u was removed", id);
    return VXR_OK;
}

vxr_result vxr_scene_set_transform(vxr_scene *s, uint32_t id, const vxr_transform *t,
                                   vxr_error *err) {
    vxr_result r = placed(s, id, err);
    if (r != VXR_OK) return r;
    if (!t) return vxr_fail(err, VXR_ERROR_ARGUMENT, "instance %u: no transform", id);
    vxr_instance in = s->instances[id];
    in.transform = *t;
    if (vxr_instance_check(&in, id, s->model_count, err) != VXR_OK) return VXR_ERROR_ARGUMENT;
    if (!memcmp(&s->instances[id].transform, t, sizeof *t)) return VXR_OK;
    s->instances[id].transform = *t;
    touch_instance(s, id);
    s->instance_moved[id] = s->version;
    return VXR_OK;
}

vxr_result vxr_scene_set_flags(vxr_scene *s, uint32_t id, uint32_t flags, vxr_error *err) {
    vxr_result r = placed(s, id, err);
    if (r != VXR_OK) return r;
    if (flags & ~(uint32_t)VXR_INSTANCE_HIDDEN)
        return vxr_fail(err, VXR_ERROR_ARGUMENT,
                        "instance %u: flags 0x%x (a host sets VXR_INSTANCE_HIDDEN only)", id,
                        flags);
    uint32_t now = (s->instances[id].flags & VXR_INSTANCE_CULLED) | flags;
    if (now == s->instances[id].flags) return VXR_OK;
    s->instances[id].flags = now;
    touch_instance(s, id);
    return VXR_OK;
}

vxr_result vxr_scene_set_view_distance(vxr_scene *s, uint32_t id, float distance, vxr_error *err) {
    vxr_result r = placed(s, id, err);
    if (r != VXR_OK) return r;
    if (!(distance >= 0.0f)) /* NaN too */
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "instance %u: view distance %g", id,
                        (double)distance);
    if (!memcmp(&s->instances[id].view_distance, &distance, sizeof distance)) return VXR_OK;
    s->instances[id].view_distance = distance;
    touch_instance(s, id);
    return VXR_OK;
}

vxr_result vxr_scene_own_model(vxr_scene *s, uint32_t instance, uint32_t *model, vxr_error *err) {
    vxr_result r = placed(s, instance, err);
    if (r != VXR_OK) return r;
    uint32_t id;
    r = vxr_scene_add_model(s, &id);
    if (r != VXR_OK) return vxr_fail(err, r, "out of memory");
    vxr_octree copy;
    /* the source's index may have moved with the models array */
    r = vxr_octree_copy(&s->models[s->instances[instance].model], &copy);
    if (r != VXR_OK) {
        vxr_scene_remove_model(s, id);
        return vxr_fail(err, r, "out of memory");
    }
    vxr_octree_free(&s->models[id]);
    s->models[id] = copy;
    stamp_model(s, id);
    s->instances[instance].model = id;
    touch_instance(s, instance);
    if (model) *model = id;
    return VXR_OK;
}

uint32_t vxr_scene_color_value(const vxr_scene *s, uint32_t rgba) {
    if (s->attr_size == 4) return rgba | 0xff000000u;
    uint32_t best = 1;
    int64_t best_d = INT64_MAX;
    for (uint32_t i = 1; i < VXR_PALETTE_SIZE; i++) {
        if (!(s->palette[i] >> 24)) continue; /* unused entries (transparent) would read empty */
        int64_t d = 0;
        for (int k = 0; k < 3; k++) {
            int64_t a = (int64_t)(rgba >> (8 * k) & 255u),
                    b = (int64_t)(s->palette[i] >> (8 * k) & 255u);
            d += (a - b) * (a - b);
        }
        if (d < best_d) {
            best_d = d;
            best = i;
        }
    }
    return best;
}

vxr_result vxr_edit_pick_cube(const vxr_scene *s, const vxr_pick *p, bool beside, vxr_edit_op op,
                              uint32_t value, vxr_edit *dest, vxr_error *err) {
    memset(dest, 0, sizeof *dest);
    if (!p->hit) return vxr_fail(err, VXR_ERROR_ARGUMENT, "the pick has no hit");
    vxr_result r = placed(s, p->instance, err);
    if (r != VXR_OK) return r;
    if (p->face < -1 || p->face > 5)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "pick face %d (expected -1..5)", p->face);
    if (beside && p->face < 0)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "no cube beside a pick from inside (face -1)");
    if (p->size == 0 || p->size > VXR_MAX_GRID || (p->size & (p->size - 1)))
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "pick size %u (expected a power of two to %u)",
                        p->size, VXR_MAX_GRID);
    dest->op = op;
    dest->model = s->instances[p->instance].model;
    dest->value = value;
    dest->shape = VXR_SHAPE_BOX;
    const int64_t reach = (int64_t)1 << (VXR_MAX_DEPTH - 1);
    for (int k = 0; k < 3; k++) {
        /* faces 0, 1 are -x, +x; 2, 3 -y, +y; 4 +z (top), 5 -z */
        int64_t step = 0;
        if (beside && p->face / 2 == k) step = (k < 2 ? p->face % 2 == 1 : p->face == 4) ? 1 : -1;
        int64_t lo = (int64_t)p->voxel[k] + step * (int64_t)p->size, hi = lo + (int64_t)p->size;
        if (lo < -reach || hi > reach)
            return vxr_fail(err, VXR_ERROR_LIMIT, "the cube lies beyond the model's reach (2^%u)",
                            VXR_MAX_DEPTH - 1);
        dest->lo[k] = (int32_t)lo;
        dest->hi[k] = (int32_t)hi;
    }
    return VXR_OK;
}
