/* View-distance culling (vxr/cull.h) through the sphere tree. */
#include "vxr/cull.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "vxr/edit.h"
#include "vxr/spheres.h"

struct vxr_culler {
    vxr_spheres *tree; /* one sphere per non-hidden instance of finite view distance */
    uint32_t *visible; /* those of them not culled now */
    uint32_t n_visible;
    uint32_t *scratch;      /* the next visible list */
    const vxr_scene *scene; /* the one it was made for */
    uint64_t version;       /* of the scene, when the spheres were last made to follow it */
    uint64_t cursor;        /* its journal (vxr/journal.h), read up to here */
    uint32_t *handle;       /* per instance: its sphere, or NO_SPHERE */
    uint32_t *stamp;        /* per instance: the epoch of the query that found it visible */
    uint32_t epoch;
    uint32_t instances, handle_cap;
    uint32_t finite; /* spheres in the tree */
    uint32_t always; /* non-hidden instances of infinite view distance */
    bool active;     /* flags reflect a cull (false: culling off) */
};

/* handle[] values that are not spheres: hidden, and always visible */
#define NO_SPHERE UINT32_MAX
#define ALWAYS    (UINT32_MAX - 1)

void vxr_culler_destroy(vxr_culler *c) {
    if (!c) return;
    vxr_spheres_destroy(c->tree);
    VXR_FREE(c->handle, c->stamp, c->visible, c->scratch, c);
}

static bool culls(const vxr_instance *in) {
    return !(in->flags & VXR_INSTANCE_HIDDEN) && isfinite(in->view_distance);
}

/* Instance i's sphere as the scene has it now: inserted, moved or removed;
 * the counts follow. */
static vxr_result follow(vxr_culler *c, const vxr_scene *s, uint32_t i) {
    const vxr_instance *in = &s->instances[i];
    uint32_t *h = &c->handle[i];
    if (*h == ALWAYS) {
        c->always--;
        *h = NO_SPHERE;
    }
    if (!culls(in)) {
        if (*h != NO_SPHERE) {
            vxr_spheres_remove(c->tree, *h);
            c->finite--;
        }
        *h = in->flags & VXR_INSTANCE_HIDDEN ? NO_SPHERE : ALWAYS;
        c->always += *h == ALWAYS;
        return VXR_OK;
    }
    float lo[3], hi[3], centre[3];
    vxr_instance_world_bounds(s, i, lo, hi);
    for (int k = 0; k < 3; k++) centre[k] = 0.5f * (lo[k] + hi[k]);
    if (*h != NO_SPHERE) return vxr_spheres_update(c->tree, *h, centre, in->view_distance);
    vxr_result r = vxr_spheres_insert(c->tree, centre, in->view_distance, i, h);
    if (r == VXR_OK) c->finite++;
    return r;
}

vxr_result vxr_culler_create(const vxr_scene *s, vxr_culler **dest) {
    *dest = NULL;
    vxr_culler *c = calloc(1, sizeof *c);
    if (!c) return VXR_ERROR_MEMORY;
    size_t n = s->instance_count ? s->instance_count : 1;
    c->scene = s;
    c->version = s->version;
    c->cursor = vxr_journal_end(s);
    c->handle_cap = (uint32_t)n;
    c->visible = malloc(n * sizeof *c->visible);
    c->scratch = malloc(n * sizeof *c->scratch);
    c->handle = malloc(n * sizeof *c->handle);
    c->stamp = calloc(n, sizeof *c->stamp);
    if (!c->visible || !c->scratch || !c->handle || !c->stamp ||
        vxr_spheres_create(&c->tree) != VXR_OK) {
        vxr_culler_destroy(c);
        return VXR_ERROR_MEMORY;
    }
    for (uint32_t i = 0; i < s->instance_count; i++) {
        c->handle[i] = NO_SPHERE;
        vxr_result r = follow(c, s, i);
        if (r != VXR_OK) {
            vxr_culler_destroy(c);
            return r;
        }
    }
    c->instances = s->instance_count;
    *dest = c;
    return VXR_OK;
}

/* Sets or clears instance i's culled flag; a change is stamped and listed
 * (vxr/edit.h) so that renderers see it. */
static void set_culled(vxr_scene *s, uint32_t i, bool culled) {
    uint32_t *f = &s->instances[i].flags;
    if (((*f & VXR_INSTANCE_CULLED) != 0) == culled) return;
    *f ^= VXR_INSTANCE_CULLED;
    vxr_scene_touch_flags(s, i);
}

/* Instance i changed (or its model did): its sphere follows, and its
 * culled flag is set afresh by the query that follows. */
static vxr_result follow_change(vxr_culler *c, vxr_scene *s, uint32_t i, bool *removed_visible) {
    vxr_result r = follow(c, s, i);
    if (r != VXR_OK) return r;
    if (!culls(&s->instances[i])) {
        set_culled(s, i, false);
        *removed_visible = true;
    } else if (c->active) {
        set_culled(s, i, true);
    }
    return VXR_OK;
}

/* Follows the scene's changes since the culler last looked (vxr/edit.h):
 * the instances on the scene's change list, in O(changed); every instance
 * whose version or model's version is newer when models changed too, or
 * when the list cannot tell. */
static vxr_result sync(vxr_culler *c, vxr_scene *s) {
    const vxr_change *list;
    uint32_t listed;
    bool known = vxr_journal_read(s, &c->cursor, &list, &listed, NULL);
    if (s->version == c->version && s->instance_count == c->instances) return VXR_OK;
    uint32_t n = s->instance_count;
    if (n > c->handle_cap) {
        uint32_t cap = n > 2 * c->handle_cap ? n : 2 * c->handle_cap;
        uint32_t *h = realloc(c->handle, cap * sizeof *h), *v = NULL, *w = NULL, *t = NULL;
        if (h) c->handle = h;
        if (h && (v = realloc(c->visible, cap * sizeof *v))) c->visible = v;
        if (v && (w = realloc(c->scratch, cap * sizeof *w))) c->scratch = w;
        if (w && (t = realloc(c->stamp, cap * sizeof *t))) c->stamp = t;
        if (!t) return VXR_ERROR_MEMORY;
        memset(c->stamp + c->handle_cap, 0, (cap - c->handle_cap) * sizeof *t);
        c->handle_cap = cap;
    }
    for (uint32_t i = c->instances; i < n; i++) c->handle[i] = NO_SPHERE;
    for (uint32_t j = 0; j < listed && known; j++) /* bounds moved: look at every instance */
        known = list[j].kind == VXR_CHANGE_INSTANCE;
    bool removed_visible = false;
    vxr_result r = VXR_OK;
    if (known && listed) { /* the flags written below change the list: ids first */
        uint32_t *ids = malloc((size_t)listed * sizeof *ids);
        if (!ids) return VXR_ERROR_MEMORY;
        for (uint32_t j = 0; j < listed; j++) ids[j] = list[j].id;
        for (uint32_t j = 0; j < listed && r == VXR_OK; j++)
            if (ids[j] < n) r = follow_change(c, s, ids[j], &removed_visible);
        free(ids);
    } else if (!known) {
        for (uint32_t i = 0; i < n && r == VXR_OK; i++) {
            const vxr_instance *in = &s->instances[i];
            if (i < c->instances && s->instance_version[i] <= c->version &&
                s->model_version[in->model] <= c->version)
                continue;
            r = follow_change(c, s, i, &removed_visible);
        }
    }
    if (r != VXR_OK) return r;
    if (removed_visible) { /* drop them from the visible list */
        uint32_t kept = 0;
        for (uint32_t j = 0; j < c->n_visible; j++)
            if (c->handle[c->visible[j]] < ALWAYS) c->visible[kept++] = c->visible[j];
        c->n_visible = kept;
    }
    c->instances = n;
    return VXR_OK;
}

/* The culler has seen the scene as it is now, its own flag changes
 * included. */
static void seen(vxr_culler *c, const vxr_scene *s) {
    c->cursor = vxr_journal_end(s);
    c->version = s->version;
}

typedef struct gather {
    vxr_culler *c;
    const vxr_instance *instances;
    uint32_t n, kept; /* kept: already visible before this call */
} gather;

static void gather_one(void *ctx, uint32_t handle, uint64_t user) {
    gather *g = ctx;
    (void)handle;
    g->c->scratch[g->n++] = (uint32_t)user;
    g->kept += !(g->instances[user].flags & VXR_INSTANCE_CULLED);
}

vxr_result vxr_culler_update(vxr_culler *c, vxr_scene *s, const float eye[3], uint32_t *visible,
                             bool *changed) {
    if ((eye && !(isfinite(eye[0]) && isfinite(eye[1]) && isfinite(eye[2]))) || s != c->scene)
        return VXR_ERROR_ARGUMENT;
    vxr_result r = sync(c, s);
    if (r != VXR_OK) return r;
    if (!eye) {
        bool was = c->active && c->n_visible != c->finite;
        for (uint32_t i = 0; i < s->instance_count; i++) set_culled(s, i, false);
        c->active = false;
        seen(c, s);
        if (visible) *visible = c->always + c->finite;
        if (changed) *changed = was;
        return VXR_OK;
    }
    gather g = {c, s->instances, 0, 0};
    vxr_spheres_query(c->tree, eye, true, gather_one, &g);
    if (++c->epoch == 0) { /* stamps wrapped: none is current */
        memset(c->stamp, 0, (size_t)c->handle_cap * sizeof *c->stamp);
        c->epoch = 1;
    }
    /* Only the flags that change are written (and listed): the visible
     * ones, then the previously visible ones that are not now. */
    for (uint32_t j = 0; j < g.n; j++) {
        c->stamp[c->scratch[j]] = c->epoch;
        set_culled(s, c->scratch[j], false);
    }
    bool was_all = !c->active;
    if (was_all) { /* from "everything visible": cull the rest */
        for (uint32_t i = 0; i < s->instance_count; i++)
            if (culls(&s->instances[i]) && c->stamp[i] != c->epoch) set_culled(s, i, true);
        c->active = true;
    } else {
        for (uint32_t j = 0; j < c->n_visible; j++)
            if (c->stamp[c->visible[j]] != c->epoch) set_culled(s, c->visible[j], true);
    }
    bool same = was_all ? g.n == c->finite : g.kept == c->n_visible && g.n == c->n_visible;
    uint32_t *x = c->visible;
    c->visible = c->scratch;
    c->scratch = x;
    c->n_visible = g.n;
    seen(c, s);
    if (visible) *visible = c->always + g.n;
    if (changed) *changed = !same;
    return VXR_OK;
}
