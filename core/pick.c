/* CPU picking (DESIGN.md §3): the instance hierarchy of vxr/bvh.h, then,
 * per instance, a front-to-back parametric octree traversal in model space
 * (Revelles et al. 2000, "An efficient parametric algorithm for octree
 * traversal"; Laine and Karras 2010). The first solid cell met is the
 * instance's hit; instances are visited nearest box first and skipped once
 * their box starts beyond the best hit.
 *
 * Every float of a result comes from shaders/vxr_trace.h, which the GPU's
 * trace.comp includes too: the two sides compute the same operations by
 * construction. The result is the solid cell the ray enters first, so the
 * walk here may skip what cannot hold it and carry less than the GPU's: it
 * starts where the ray enters the box of a model's voxels ([a, b), the
 * box's slab parameters) and a child spans [t, tnext) of its parent's
 * walk. Inside that box a child's span is its own vxr_cube_slabs interval
 * (clamped at 0) to the bit, since every slab parameter is (plane - o) / d
 * of one integer plane and rounding keeps the planes' order; a cube that
 * straddles the box gets the GPU's span cut to [a, b), and its first child
 * is the one at a. Every occupied cell lies inside the box, so its own
 * interval lies within [a, b] and each ancestor of the GPU's first hit
 * keeps a non-empty span here; the children skipped before a end at or
 * before a, so they hold no hit. Only the hit cell's slabs are computed in
 * full (tests/unit_instances.c walks as the GPU does and compares), and,
 * under a level of detail, those of every candidate cube of levels 2 to
 * VXR_LOD_MAX_LEVEL, whose own entry decides whether the walk stops there
 * (the box is then rounded out to 2^VXR_LOD_MAX_LEVEL: octree origins are
 * aligned, so every such cube lies inside it). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "picker.h"
#include "vxr/bvh.h"
#include "vxr/pick.h"
#include "vxr_trace.h"

/* A hit inside one octree, in model space. */
typedef struct cell_hit {
    int32_t lo[3];
    uint32_t level;
    float t;
    int axis; /* entry axis, -1 when the origin is inside */
    uint32_t attr;
    bool lod; /* a cube the level of detail stopped at: attr is its node index */
} cell_hit;

typedef struct trace {
    const vxr_octree *m;
    float o[3], d[3];
    uint32_t grid_level;
    float tmax;                /* nothing at or beyond a better hit's t... ties kept */
    const int32_t *skip;       /* a voxel (level 0) that holds no hit, or NULL */
    const vxr_material *clear; /* the materials, when glass voxels hold no hit; or NULL */
    float scale, lod0, lodt;   /* the instance's scale, the footprint (vxr_lod_stop) */
    bool lod;                  /* lod0 or lodt > 0: the walk may stop at coarser cubes */
    cell_hit hit;
} trace;

/* Node view: level >= 3 interior (index into nodes), level 2 a brick,
 * level 1 a byte of a brick, level 0 a voxel. */
typedef struct nref {
    uint32_t index;  /* node index (level >= 2: the node; level 1: its brick) */
    uint32_t octant; /* level 1: the octant inside the brick */
} nref;

static uint32_t child_mask(const vxr_octree *m, uint32_t level, nref n) {
    const vxr_node *nd = &m->nodes[n.index];
    if (level > VXR_BRICK_LEVEL) return nd->a;
    if (level == VXR_BRICK_LEVEL) return vxr_brick_children(nd->a, nd->b);
    return vxr_brick_octant(nd->a, nd->b, n.octant);
}

static nref child_ref(const vxr_octree *m, uint32_t level, nref n, uint32_t o) {
    nref r = {n.index, o};
    if (level > VXR_BRICK_LEVEL) {
        uint32_t mask = m->nodes[n.index].a;
        r.index = m->nodes[n.index].b + (uint32_t)vxr_popcount32(mask & ((1u << o) - 1));
    }
    return r;
}

static uint32_t read_attr(const vxr_octree *m, uint32_t brick, uint32_t bit) {
    uint64_t bits = (uint64_t)m->nodes[brick].b << 32 | m->nodes[brick].a;
    uint32_t i =
        vxr_octree_brick_base(m, brick) + (uint32_t)vxr_popcount64(bits & ((1ull << bit) - 1));
    if (m->attr_size == 1) return m->attrs[i];
    uint32_t v;
    memcpy(&v, m->attrs + (size_t)i * 4, 4);
    return v;
}

/* The attribute of the first voxel (Morton order) under a node. */
static uint32_t first_attr(const vxr_octree *m, uint32_t level, nref n, uint32_t voxel_octant) {
    while (level > 0) {
        uint32_t o = (uint32_t)__builtin_ctz(child_mask(m, level, n));
        if (level == 1) {
            voxel_octant = o;
            break;
        }
        n = child_ref(m, level, n, o);
        level--;
    }
    return read_attr(m, n.index, n.octant * 8 + voxel_octant);
}

/* The cell at lo of the grid's level, reached by the walk: a hit when its
 * slabs (vxr_cube_slabs, as the GPU computes them) say the ray enters it
 * before the bound. */
static int hit_cell(trace *c, uint32_t level, nref n, const int32_t lo[3], uint32_t voxel_octant) {
    if (c->skip && level == 0 && lo[0] == c->skip[0] && lo[1] == c->skip[1] && lo[2] == c->skip[2])
        return 0;
    const vxr_slabs sl = vxr_cube_slabs(c->o, c->d, lo, 1 << level);
    const float t0 = sl.tenter > 0.0f ? sl.tenter : 0.0f;
    if (!sl.inside || !(t0 < sl.texit) || t0 > c->tmax) return 0;
    if (c->clear && level == 0 && c->m->attr_size == 1 &&
        c->clear[read_attr(c->m, n.index, n.octant * 8 + voxel_octant) & 255].kind ==
            VXR_MATERIAL_GLASS)
        return 0;
    c->hit = (cell_hit){{lo[0], lo[1], lo[2]},
                        level,
                        t0,
                        sl.tenter < 0.0f ? -1 : sl.axis,
                        level == 0 ? read_attr(c->m, n.index, n.octant * 8 + voxel_octant)
                                   : first_attr(c->m, level, n, 0),
                        false};
    return 1;
}

/* A child (node n, lo clo, at level, above the grid's) of a cube the walk
 * is in: -1 when the level of detail does not stop at it; else whether it
 * holds the hit (trace.comp stops at an entered cube whose edge is under
 * the footprint at its own entry, vxr_lod_stop, and skips one it does not
 * enter). */
static int lod_cell(trace *c, uint32_t level, nref n, const int32_t clo[3]) {
    if (level < VXR_LOD_MIN_LEVEL || level > VXR_LOD_MAX_LEVEL) return -1;
    const vxr_slabs sl = vxr_cube_slabs(c->o, c->d, clo, 1 << level);
    const float t0 = sl.tenter > 0.0f ? sl.tenter : 0.0f;
    if (!vxr_lod_stop((float)(1 << level), c->scale, c->lod0, c->lodt, t0)) return -1;
    if (!sl.inside || !(t0 < sl.texit) || t0 > c->tmax) return 0;
    /* its colour (O(the cube's nodes and voxels)) for the winner alone, in fill_pick */
    c->hit = (cell_hit){{clo[0], clo[1], clo[2]},        level,   t0,
                        sl.tenter < 0.0f ? -1 : sl.axis, n.index, true};
    return 1;
}

/* Cube lo at level, above the grid's, which the ray spans over [t0, texit)
 * (t0 <= tmax): its children in the ray's order, each over its part of
 * that span (which starts at t0, or at a crossing no later than tmax). */
static int visit(trace *c, uint32_t level, nref n, const int32_t lo[3], float t0, float texit) {
    const uint32_t mask = child_mask(c->m, level, n);
    const int32_t half = 1 << (level - 1);
    float tm[3];
    vxr_mid_planes(c->o, c->d, lo, half, tm);
    uint32_t state = vxr_enter_child(c->o, c->d, lo, half, t0, tm);
    for (float t = t0;;) {
        const uint32_t child = state & 7;
        const float tnext = vxr_next_crossing(tm, state, texit);
        if ((mask & (1u << child)) && t < tnext) {
            const int32_t clo[3] = {lo[0] + ((child >> 2) & 1 ? half : 0),
                                    lo[1] + ((child >> 1) & 1 ? half : 0),
                                    lo[2] + (child & 1 ? half : 0)};
            if (level == 1) {
                if (hit_cell(c, 0, n, clo, child)) return 1;
            } else if (level - 1 == c->grid_level) {
                if (hit_cell(c, level - 1, child_ref(c->m, level, n, child), clo, 0)) return 1;
            } else {
                const nref cn = child_ref(c->m, level, n, child);
                const int coarse = c->lod ? lod_cell(c, level - 1, cn, clo) : -1;
                if (coarse == 1 || (coarse < 0 && visit(c, level - 1, cn, clo, t, tnext))) return 1;
            }
        }
        if (!(tnext < texit) || tnext > c->tmax) return 0;
        state = vxr_cross(tm, state, tnext);
        t = tnext;
    }
}

/* Grids at least as large as the root: the N-aligned cubes holding the
 * root (or, for a root centred on the origin, each of its children). */
static int trace_large_grid(trace *c) {
    const vxr_octree *m = c->m;
    const int32_t n = 1 << c->grid_level, half = 1 << (m->depth - 1);
    const int centred = m->origin[0] % (2 * half) != 0;
    nref root = {0, 0};
    uint32_t mask = centred ? child_mask(m, m->depth, root) : 1;
    int found = 0;
    for (uint32_t o = 0; o < 8; o++) {
        if (!(mask & (1u << o))) continue;
        int32_t lo[3];
        for (int k = 0; k < 3; k++) {
            int32_t at = m->origin[k] + (centred && ((o >> (2 - k)) & 1) ? half : 0);
            lo[k] = at & ~(n - 1);
        }
        const vxr_slabs sl = vxr_cube_slabs(c->o, c->d, lo, n);
        const float t0 = sl.tenter > 0.0f ? sl.tenter : 0.0f;
        if (!sl.inside || !(t0 < sl.texit) || t0 > c->tmax) continue;
        if (found && !(t0 < c->hit.t)) continue;
        uint32_t attr = centred ? first_attr(m, m->depth - 1, child_ref(m, m->depth, root, o), 0)
                                : first_attr(m, m->depth, root, 0);
        c->hit = (cell_hit){{lo[0], lo[1], lo[2]},           c->grid_level, t0,
                            sl.tenter < 0.0f ? -1 : sl.axis, attr,          false};
        found = 1;
    }
    return found;
}

/* The walk starts where the ray enters the box of the grid cubes that
 * hold voxels (vmin, vmax, around every voxel, out to the grid, within the
 * root cube) and ends where it leaves it: its slab parameters, as
 * vxr_cube_slabs computes them, bound every such cube's, so no cell the
 * ray spans outside them holds a voxel. */
static int trace_octree(trace *c) {
    const vxr_octree *m = c->m;
    if (m->node_count == 0) return 0;
    if (c->grid_level >= m->depth) return trace_large_grid(c);
    /* a level of detail's cube reaches out to its own grid */
    const int32_t n =
        1 << (c->lod && c->grid_level < VXR_LOD_MAX_LEVEL ? VXR_LOD_MAX_LEVEL : c->grid_level);
    float a = -INFINITY, b = INFINITY;
    for (int k = 0; k < 3; k++) {
        const int32_t lo = m->origin[k], hi = lo + (1 << m->depth), vlo = m->vmin[k] & ~(n - 1),
                      vhi = ((m->vmax[k] - 1) | (n - 1)) + 1;
        const float p0 = (float)(vlo > lo ? vlo : lo), p1 = (float)(vhi < hi ? vhi : hi);
        if (c->d[k] == 0.0f) {
            if (!(p0 <= c->o[k] && c->o[k] < p1)) return 0;
            continue;
        }
        const float ak = ((c->d[k] > 0.0f ? p0 : p1) - c->o[k]) / c->d[k];
        const float bk = ((c->d[k] > 0.0f ? p1 : p0) - c->o[k]) / c->d[k];
        if (ak > a) a = ak;
        if (bk < b) b = bk;
    }
    const float t0 = a > 0.0f ? a : 0.0f;
    if (!(t0 < b) || t0 > c->tmax) return 0;
    return visit(c, m->depth, (nref){0, 0}, m->origin, t0, b);
}

/* The nearest hit of a pick so far: t, instance (UINT32_MAX: none), cell. */
typedef struct best_hit {
    float t;
    uint32_t i;
    cell_hit hit;
    float o[3], d[3]; /* the ray in instance i's model space */
    uint32_t skip_i;  /* the instance of a voxel that holds no hit (UINT32_MAX: none) */
    int32_t skip_lo[3];
    const vxr_material *clear; /* trace.clear */
    vxr_lod lod;               /* the level of detail (k 0: none) */
} best_hit;

/* Traces one instance at grid 2^level; a hit nearer than b's (ties: the
 * lower instance) replaces it. */
static void trace_instance(const vxr_picker *p, uint32_t i, const vxr_ray *ray, uint32_t level,
                           best_hit *b) {
    const vxr_gpu_instance *g = &p->records[i];
    trace c;
    c.m = &p->scene->models[g->model];
    vxr_affine_point(g->world_to_local, ray->origin, c.o);
    vxr_affine_dir(g->world_to_local, ray->dir, c.d);
    c.grid_level = level;
    c.tmax = b->t;
    c.skip = i == b->skip_i ? b->skip_lo : NULL;
    c.clear = b->clear;
    c.scale = g->scale;
    c.lod0 = b->lod.fixed ? b->lod.k : 0.0f;
    c.lodt = b->lod.fixed ? 0.0f : b->lod.k;
    c.lod = b->lod.k > 0.0f;
    if (!trace_octree(&c)) return;
    if (c.hit.t > b->t || (c.hit.t == b->t && i > b->i)) return;
    b->t = c.hit.t;
    b->i = i;
    b->hit = c.hit;
    memcpy(b->o, c.o, sizeof b->o);
    memcpy(b->d, c.d, sizeof b->d);
}

/* The pick of the best hit: its record (what the GPU writes per pixel,
 * from the same functions), then the world-space part. */
/* A stopped cube's colour (node `node` at level >= 2): the one the
 * renderer uploads, the tree's own colours when it carries them (a coarse
 * tree's are its fine tree's, vxr_octree_coarse). */
static uint32_t lod_color(const vxr_octree *m, const uint32_t *palette, uint32_t level,
                          uint32_t node) {
    if (m->lod_colors && !m->live && node < m->node_count) return m->lod_colors[node];
    return vxr_lod_color(m, palette, level, node, 0);
}

static void fill_pick(const vxr_picker *p, const vxr_ray *ray, const best_hit *b, vxr_pick *out) {
    const uint32_t i = b->i;
    const cell_hit *h = &b->hit;
    const vxr_gpu_instance *g = &p->records[i];
    const vxr_scene *s = p->scene;
    const float *lorig = b->o, *ldir = b->d;
    const int face = vxr_entry_face(h->axis, h->axis < 0 ? 0.0f : ldir[h->axis]);
    vxr_gpu_pick rec = {
        i,
        {h->lo[0], h->lo[1], h->lo[2]},
        h->t,
        vxr_pick_shape(h->level, face,
                       vxr_nearest_corner_edge(h->lo, h->level, lorig, ldir, h->t, face)),
        h->lod              ? lod_color(&s->models[g->model], s->palette, h->level, h->attr)
        : s->attr_size == 1 ? s->palette[h->attr]
                            : h->attr,
        VXR_PICK_HIT};
    vxr_pick_expand_record(g, s->instances[i].transform.rotation, ray, &rec, out);
}

/* The start of a pick: dest zeroed, no hit yet, the grid's level; false
 * for a grid that is not a power of two up to VXR_MAX_GRID. */
static bool pick_begin(uint32_t grid, vxr_pick *dest, uint32_t *level, best_hit *b) {
    memset(dest, 0, sizeof *dest);
    b->t = INFINITY;
    b->i = UINT32_MAX;
    b->skip_i = UINT32_MAX;
    b->clear = NULL;
    b->lod = (vxr_lod){0.0f, false};
    *level = grid > 1 ? (uint32_t)__builtin_ctz(grid) : 0;
    return grid <= 1 || (!(grid & (grid - 1)) && grid <= VXR_MAX_GRID);
}

/* A ray for the hierarchy's box tests, which multiply by the reciprocals
 * of its direction instead of dividing by it. A ray with a zero, NaN,
 * infinite or extreme component, whose products could overflow, underflow
 * or be NaN, takes vxr_box_enter itself. */
typedef struct box_ray {
    const vxr_ray *ray;
    float inv[3];
    bool exact;
} box_ray;

static void box_ray_init(const vxr_ray *ray, box_ray *r) {
    r->ray = ray;
    r->exact = false;
    for (int k = 0; k < 3; k++) {
        const float ad = fabsf(ray->dir[k]);
        r->exact |= !(fabsf(ray->origin[k]) <= 1e15f && ad >= 1e-20f && ad <= 1e20f);
        r->inv[k] = r->exact ? 0.0f : 1.0f / ray->dir[k];
    }
}

/* Below INFINITY when vxr_box_enter(origin, dir, lo, hi, pad, t_max) is
 * (and maybe when it is not): about the box's entry, which orders the
 * walk. Each product is within 3 ulp of the quotient vxr_box_enter
 * divides (1 / d rounded, the product rounded; the quotient rounded) and
 * has its sign, so entry <= exit there gives entry <= exit * (1 + 16 ulp)
 * here (an overflowing product has an exit that overflows too, an
 * underflowing one is within the absolute slack). A box is only skipped
 * when vxr_box_enter would skip it. */
static float box_exact(const box_ray *r, const float lo[3], const float hi[3], float pad,
                       float t_max) {
    return vxr_box_enter(r->ray->origin, r->ray->dir, lo, hi, pad, t_max);
}

static inline float box_test(const box_ray *r, const float lo[3], const float hi[3], float pad,
                             float t_max) {
    if (r->exact) return box_exact(r, lo, hi, pad, t_max); /* out of line: the rare case */
    const float *o = r->ray->origin;
    float a = 0.0f, b = t_max;
    for (int k = 0; k < 3; k++) {
        const float t0 = (lo[k] - pad - o[k]) * r->inv[k], t1 = (hi[k] + pad - o[k]) * r->inv[k];
        const float tn = t0 < t1 ? t0 : t1, tf = t0 < t1 ? t1 : t0;
        a = tn > a ? tn : a;
        b = tf < b ? tf : b;
    }
    return a > b * 1.000001f + 1e-30f ? INFINITY : a;
}

/* The margin of instance boxes and spheres for a ray: a grid cube
 * reaches up to N - 1 voxels past the voxels it holds, a level of
 * detail's as far as the largest cube that can stop the ray
 * (vxr_bvh_lod_reach; a pad for VXR_LOD_MAX_LEVEL made picks on
 * @world:300 at bias 1 1.7x slower). */
static float reach_pad(const vxr_picker *p, const vxr_ray *ray, uint32_t level,
                       const vxr_lod *lod) {
    const float pad = vxr_bvh_grid_pad(&p->bvh, 1u << level);
    if (!(lod->k > 0.0f)) return pad;
    double dd = 0.0;
    for (int k = 0; k < 3; k++) dd += (double)ray->dir[k] * ray->dir[k];
    const float by_lod =
        vxr_bvh_lod_pad(&p->bvh, p->min_scale, ray->origin, sqrt(dd), lod->k, lod->fixed);
    return by_lod > pad ? by_lod : pad;
}

/* The hierarchy's walk for one ray at grid 2^level into best (whose t
 * bounds it); with `any`, it ends at the first hit found. */
static vxr_result walk(const vxr_picker *p, const vxr_ray *ray, uint32_t level, bool any,
                       best_hit *dest) {
    best_hit best = *dest;
    const vxr_bvh *h = &p->bvh;
    if (h->node_count == 0) return VXR_OK;
    uint32_t stack[VXR_BVH_STACK];
    uint32_t sp = 0;
    const float pad = reach_pad(p, ray, level, &dest->lod);
    box_ray br;
    box_ray_init(ray, &br);
    if (box_test(&br, h->nodes[0].lo, h->nodes[0].hi, pad, INFINITY) < INFINITY) stack[sp++] = 0;
    while (sp > 0) {
        const vxr_gpu_bvh_node *nd = &h->nodes[stack[--sp]];
        if (nd->count) {
            /* In a leaf of more than one (the builder's leaves hold one;
             * updates fill them up to LEAF_MAX), each item's own box
             * first: as with the hierarchy's boxes, whose margin covers
             * the rounding of the instance transforms, no hit in it is at
             * or before best.t when the box is entered after that. The
             * GPU traces every item of a leaf; so do the rays with odd
             * components here (box tests by vxr_box_enter), for which no
             * margin is proof. */
            for (uint32_t k = 0; k < nd->count; k++) {
                const uint32_t i = h->items[nd->first + k];
                const float *box = &p->box[6 * (size_t)i];
                if (nd->count == 1 || br.exact ||
                    box_test(&br, box, box + 3, pad, best.t) < INFINITY)
                    trace_instance(p, i, ray, level, &best);
                if (any && best.i != UINT32_MAX) {
                    *dest = best;
                    return VXR_OK;
                }
            }
            continue;
        }
        const vxr_gpu_bvh_node *a = &h->nodes[nd->first], *b = &h->nodes[nd->first + 1];
        float ta = box_test(&br, a->lo, a->hi, pad, best.t);
        float tb = box_test(&br, b->lo, b->hi, pad, best.t);
        uint32_t ia = nd->first, ib = nd->first + 1;
        if (ta < tb) { /* push the farther first so the nearer pops first */
            float x = ta;
            ta = tb;
            tb = x;
            ia = ib;
            ib = nd->first;
        }
        if (sp + 2 > VXR_BVH_STACK) return VXR_ERROR_LIMIT; /* the builder rules it out */
        if (ta < INFINITY) stack[sp++] = ia;
        if (tb < INFINITY) stack[sp++] = ib;
    }
    *dest = best;
    return VXR_OK;
}

static bool lod_ok(const vxr_lod *lod) {
    return !lod || (lod->k >= 0.0f && lod->k < INFINITY);
}

/* The level of detail a walk takes: none for a k of 0 or under FLT_MIN,
 * which a device that flushes denormals could not hold to the bit. */
static vxr_lod lod_of(const vxr_lod *lod) {
    return lod && lod->k >= FLT_MIN ? *lod : (vxr_lod){0.0f, false};
}

vxr_result vxr_pick_ray_lod(const vxr_picker *p, const vxr_ray *ray, uint32_t grid,
                            const vxr_lod *lod, vxr_pick *dest) {
    uint32_t level;
    best_hit best;
    if (!pick_begin(grid, dest, &level, &best) || !lod_ok(lod)) return VXR_ERROR_ARGUMENT;
    best.lod = lod_of(lod);
    vxr_result r = walk(p, ray, level, false, &best);
    if (r == VXR_OK && best.i != UINT32_MAX) fill_pick(p, ray, &best, dest);
    return r;
}

vxr_result vxr_pick_ray(const vxr_picker *p, const vxr_ray *ray, uint32_t grid, vxr_pick *dest) {
    return vxr_pick_ray_lod(p, ray, grid, NULL, dest);
}

vxr_result vxr_pick_skip(const vxr_picker *p, const vxr_ray *ray, uint32_t skip_i,
                         const int32_t skip_lo[3], bool through_glass, vxr_pick *dest,
                         uint32_t *attr) {
    uint32_t level;
    best_hit best;
    pick_begin(1, dest, &level, &best);
    best.clear = through_glass ? p->scene->materials : NULL;
    best.skip_i = skip_i;
    memcpy(best.skip_lo, skip_lo, sizeof best.skip_lo);
    vxr_result r = walk(p, ray, level, false, &best);
    if (r == VXR_OK && best.i != UINT32_MAX) fill_pick(p, ray, &best, dest);
    *attr = best.i != UINT32_MAX ? best.hit.attr : 0;
    return r;
}

bool vxr_pick_blocked(const vxr_picker *p, const vxr_ray *ray, float t_max, uint32_t skip_i,
                      const int32_t skip_lo[3]) {
    vxr_pick scratch;
    uint32_t level;
    best_hit best;
    pick_begin(1, &scratch, &level, &best);
    best.t = t_max;
    best.skip_i = skip_i;
    memcpy(best.skip_lo, skip_lo, sizeof best.skip_lo);
    /* the limit: a hierarchy deeper than the walk's stack is never built */
    return walk(p, ray, level, true, &best) != VXR_OK || best.i != UINT32_MAX;
}

/* Rays a thread takes at a time: a fraction of a millisecond of picking,
 * so that threads finish close together. */
enum { RAYS_CHUNK = 128 };

typedef struct rays_job {
    const vxr_picker *p;
    const vxr_ray *rays;
    uint32_t grid;
    const vxr_lod *lod;
    vxr_pick *dest;
    _Atomic int failed; /* a vxr_result other than VXR_OK, or 0 */
} rays_job;

static void pick_range(void *user, size_t begin, size_t end) {
    rays_job *j = user;
    for (size_t i = begin; i < end; i++) {
        vxr_result r = vxr_pick_ray_lod(j->p, &j->rays[i], j->grid, j->lod, &j->dest[i]);
        if (r != VXR_OK) j->failed = r;
    }
}

vxr_result vxr_pick_rays_lod(const vxr_picker *p, const vxr_ray *rays, size_t count, uint32_t grid,
                             const vxr_lod *lod, vxr_pick *dest) {
    vxr_pick scratch;
    uint32_t level;
    best_hit best;
    if (!pick_begin(grid, &scratch, &level, &best) || !lod_ok(lod)) return VXR_ERROR_ARGUMENT;
    /* Each ray's record depends on that ray alone, so any split of the
     * rays over threads gives the records of one thread. */
    rays_job j = {p, rays, grid, lod, dest, 0};
    vxr_parallel_for(count, RAYS_CHUNK, vxr_picker_threads(p), pick_range, &j);
    return j.failed ? (vxr_result)j.failed : VXR_OK;
}

vxr_result vxr_pick_rays(const vxr_picker *p, const vxr_ray *rays, size_t count, uint32_t grid,
                         vxr_pick *dest) {
    return vxr_pick_rays_lod(p, rays, count, grid, NULL, dest);
}

/* Bounding spheres of the seed's loop may miss a grazing ray by rounding:
 * they are widened by this fraction of r^2, plus an absolute floor. */
#define SPHERE_SLACK_REL 1.0001f
#define SPHERE_SLACK_ABS 1e-3f

vxr_result vxr_pick_ray_loop(const vxr_picker *p, const vxr_ray *ray, uint32_t grid,
                             vxr_pick *dest) {
    return vxr_pick_ray_loop_lod(p, ray, grid, NULL, dest);
}

vxr_result vxr_pick_ray_loop_lod(const vxr_picker *p, const vxr_ray *ray, uint32_t grid,
                                 const vxr_lod *lod, vxr_pick *dest) {
    uint32_t level;
    best_hit best;
    if (!pick_begin(grid, dest, &level, &best) || !lod_ok(lod)) return VXR_ERROR_ARGUMENT;
    best.lod = lod_of(lod);
    const float pad = reach_pad(p, ray, level, &best.lod);
    for (uint32_t j = 0; j < p->n_visible; j++) {
        uint32_t i = p->visible[j];
        const float *sp = &p->sphere[4 * (size_t)i];
        /* Bounding sphere: distance from the centre to the ray's line. */
        float oc[3], dd = 0, od = 0, oo = 0;
        for (int k = 0; k < 3; k++) {
            oc[k] = sp[k] - ray->origin[k];
            dd += ray->dir[k] * ray->dir[k];
            od += oc[k] * ray->dir[k];
            oo += oc[k] * oc[k];
        }
        float r = sp[3] + pad;
        if (dd > 0 && oo - od * od / dd > r * r * SPHERE_SLACK_REL + SPHERE_SLACK_ABS) continue;
        const float *box = &p->box[6 * (size_t)i];
        if (vxr_box_enter(ray->origin, ray->dir, box, box + 3, pad, best.t) == INFINITY) continue;
        trace_instance(p, i, ray, level, &best);
    }
    if (best.i != UINT32_MAX) fill_pick(p, ray, &best, dest);
    return VXR_OK;
}
