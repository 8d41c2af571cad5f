/* View-distance culling (vxr/cull.h) through the sphere tree. */
#include "vxr/cull.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "vxr/spheres.h"

struct vxr_culler {
    vxr_spheres *tree; /* one sphere per non-hidden instance of finite view distance */
    uint32_t *visible; /* those of them not culled now */
    uint32_t n_visible;
    uint32_t *scratch;      /* the next visible list */
    const vxr_scene *scene; /* the one it was made for */
    uint64_t version;       /* of the scene, when the spheres were last made to follow it */
    uint32_t *handle;       /* per instance: its sphere, or NO_SPHERE */
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
    free(c->handle);
    free(c->visible);
    free(c->scratch);
    free(c);
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
    c->handle_cap = (uint32_t)n;
    c->visible = malloc(n * sizeof *c->visible);
    c->scratch = malloc(n * sizeof *c->scratch);
    c->handle = malloc(n * sizeof *c->handle);
    if (!c->visible || !c->scratch || !c->handle || vxr_spheres_create(&c->tree) != VXR_OK) {
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

/* Follows the scene's changes since the culler last looked (vxr/edit.h):
 * instances changed or added, and the instances of models that changed
 * (their bounds moved). A changed instance's culled flag is set afresh by
 * the query that follows. */
static vxr_result sync(vxr_culler *c, vxr_scene *s) {
    if (s->version == c->version && s->instance_count == c->instances) return VXR_OK;
    uint32_t n = s->instance_count;
    if (n > c->handle_cap) {
        uint32_t cap = n > 2 * c->handle_cap ? n : 2 * c->handle_cap;
        uint32_t *h = realloc(c->handle, cap * sizeof *h), *v = NULL, *w = NULL;
        if (h) c->handle = h;
        if (h && (v = realloc(c->visible, cap * sizeof *v))) c->visible = v;
        if (v && (w = realloc(c->scratch, cap * sizeof *w))) c->scratch = w;
        if (!w) return VXR_ERROR_MEMORY;
        c->handle_cap = cap;
    }
    for (uint32_t i = c->instances; i < n; i++) c->handle[i] = NO_SPHERE;
    bool removed_visible = false;
    for (uint32_t i = 0; i < n; i++) {
        const vxr_instance *in = &s->instances[i];
        if (i < c->instances && s->instance_version[i] <= c->version &&
            s->model_version[in->model] <= c->version)
            continue;
        vxr_result r = follow(c, s, i);
        if (r != VXR_OK) return r;
        if (c->active && culls(in)) s->instances[i].flags |= VXR_INSTANCE_CULLED;
        if (!culls(in)) {
            s->instances[i].flags &= ~VXR_INSTANCE_CULLED;
            removed_visible = true;
        }
    }
    if (removed_visible) { /* drop them from the visible list */
        uint32_t kept = 0;
        for (uint32_t j = 0; j < c->n_visible; j++)
            if (c->handle[c->visible[j]] < ALWAYS) c->visible[kept++] = c->visible[j];
        c->n_visible = kept;
    }
    c->instances = n;
    c->version = s->version;
    return VXR_OK;
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
        for (uint32_t i = 0; i < s->instance_count; i++)
            s->instances[i].flags &= ~VXR_INSTANCE_CULLED;
        c->active = false;
        if (visible) *visible = c->always + c->finite;
        if (changed) *changed = was;
        return VXR_OK;
    }
    bool was_all = !c->active;
    if (!c->active) { /* from "everything visible": cull all, then reveal */
        for (uint32_t i = 0; i < s->instance_count; i++)
            if (culls(&s->instances[i])) s->instances[i].flags |= VXR_INSTANCE_CULLED;
        c->n_visible = 0;
        c->active = true;
    }
    gather g = {c, s->instances, 0, 0};
    vxr_spheres_query(c->tree, eye, true, gather_one, &g);
    for (uint32_t j = 0; j < c->n_visible; j++)
        s->instances[c->visible[j]].flags |= VXR_INSTANCE_CULLED;
    for (uint32_t j = 0; j < g.n; j++) s->instances[c->scratch[j]].flags &= ~VXR_INSTANCE_CULLED;
    bool same = was_all ? g.n == c->finite : g.kept == c->n_visible && g.n == c->n_visible;
    uint32_t *x = c->visible;
    c->visible = c->scratch;
    c->scratch = x;
    c->n_visible = g.n;
    if (visible) *visible = c->always + g.n;
    if (changed) *changed = !same;
    return VXR_OK;
}
