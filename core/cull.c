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
    uint32_t instances;
    uint32_t finite; /* spheres in the tree */
    uint32_t always; /* non-hidden instances of infinite view distance */
    bool active;     /* flags reflect a cull (false: culling off) */
};

void vxr_culler_destroy(vxr_culler *c) {
    if (!c) return;
    vxr_spheres_destroy(c->tree);
    free(c->visible);
    free(c->scratch);
    free(c);
}

static bool culls(const vxr_instance *in) {
    return !(in->flags & VXR_INSTANCE_HIDDEN) && isfinite(in->view_distance);
}

vxr_result vxr_culler_create(const vxr_scene *s, vxr_culler **dest) {
    *dest = NULL;
    vxr_culler *c = calloc(1, sizeof *c);
    if (!c) return VXR_ERROR_MEMORY;
    size_t n = s->instance_count ? s->instance_count : 1;
    c->scene = s;
    c->instances = s->instance_count;
    c->visible = malloc(n * sizeof *c->visible);
    c->scratch = malloc(n * sizeof *c->scratch);
    if (!c->visible || !c->scratch || vxr_spheres_create(&c->tree) != VXR_OK) {
        vxr_culler_destroy(c);
        return VXR_ERROR_MEMORY;
    }
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const vxr_instance *in = &s->instances[i];
        if (in->flags & VXR_INSTANCE_HIDDEN) continue;
        if (!culls(in)) {
            c->always++;
            continue;
        }
        float lo[3], hi[3], centre[3];
        vxr_instance_world_bounds(s, i, lo, hi);
        for (int k = 0; k < 3; k++) centre[k] = 0.5f * (lo[k] + hi[k]);
        uint32_t h;
        vxr_result r = vxr_spheres_insert(c->tree, centre, in->view_distance, i, &h);
        if (r != VXR_OK) {
            vxr_culler_destroy(c);
            return r;
        }
        c->finite++;
    }
    *dest = c;
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
    if ((eye && !(isfinite(eye[0]) && isfinite(eye[1]) && isfinite(eye[2]))) || s != c->scene ||
        s->instance_count != c->instances)
        return VXR_ERROR_ARGUMENT;
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
