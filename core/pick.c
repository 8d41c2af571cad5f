/* CPU picking (DESIGN.md §3): a bounding volume hierarchy over the visible
 * instances' world AABBs, then, per instance, a front-to-back parametric
 * octree traversal in model space (Revelles et al. 2000, "An efficient
 * parametric algorithm for octree traversal"; Laine and Karras 2010). The
 * first solid cell met is the instance's hit; instances are visited nearest
 * box first and skipped once their box starts beyond the best hit.
 *
 * Every slab parameter is (plane - origin) / dir in float with integer
 * planes, so a plane shared by a parent and a child gives the same t on both
 * and the GPU can repeat each operation exactly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "vxr/pick.h"

const uint8_t vxr_face_corners[6][4] = {{0, 1, 2, 3}, {4, 5, 6, 7}, {0, 1, 4, 5},
                                        {2, 3, 6, 7}, {1, 3, 5, 7}, {0, 2, 4, 6}};
const uint8_t vxr_face_edges[6][4] = {{1, 2, 4, 11}, {5, 7, 8, 10}, {0, 2, 5, 9},
                                      {3, 6, 8, 11}, {4, 6, 7, 9},  {0, 1, 3, 10}};
const uint8_t vxr_edge_corners[12][2] = {{0, 4}, {0, 2}, {0, 1}, {2, 6}, {1, 3}, {4, 5},
                                         {3, 7}, {5, 7}, {6, 7}, {1, 5}, {4, 6}, {2, 3}};

/* leaf: items[first..first+count); inner (count 0): children first, first+1.
 * The GPU layout as it is, so that the renderer uploads this very hierarchy. */
typedef vxr_gpu_bvh_node bvh_node;

struct vxr_picker {
    const vxr_scene *scene;
    vxr_gpu_instance *inst; /* per scene instance */
    float *sphere;          /* per scene instance: centre xyz, radius */
    uint32_t *items;        /* visible instance ids, BVH order */
    uint32_t n_items;
    bvh_node *nodes;
    uint32_t n_nodes;
    float max_scale; /* over visible instances */
};

/* A hit inside one octree, in model space. */
typedef struct cell_hit {
    int32_t lo[3];
    uint32_t level;
    float t;
    int axis; /* entry axis, -1 when the origin is inside */
    uint32_t attr;
} cell_hit;

typedef struct trace {
    const vxr_octree *m;
    float o[3], d[3];
    uint32_t grid_level;
    float tmax; /* nothing at or beyond a better hit's t... ties kept */
    cell_hit hit;
} trace;

static float plane_t(float plane, float o, float d) {
    return (plane - o) / d;
}

/* Slab entry/exit of the cube [lo, lo + s)^3; returns 0 when the ray's
 * points never lie in it. The entry axis is the lowest axis attaining the
 * maximum; -1 when every axis is parallel. */
static int cube_slabs(const trace *c, const int32_t lo[3], int32_t s, float *tenter, float *texit,
                      int *axis) {
    float a = -INFINITY, b = INFINITY;
    int ax = -1;
    for (int k = 0; k < 3; k++) {
        float p0 = (float)lo[k], p1 = (float)(lo[k] + s);
        if (c->d[k] == 0.0f) {
            if (!(p0 <= c->o[k] && c->o[k] < p1)) return 0;
            continue;
        }
        float ak = plane_t(c->d[k] > 0.0f ? p0 : p1, c->o[k], c->d[k]);
        float bk = plane_t(c->d[k] > 0.0f ? p1 : p0, c->o[k], c->d[k]);
        if (ak > a) {
            a = ak;
            ax = k;
        }
        if (bk < b) b = bk;
    }
    *tenter = a;
    *texit = b;
    *axis = ax;
    return 1;
}

/* Node view: level >= 3 interior (index into nodes), level 2 a brick,
 * level 1 a byte of a brick, level 0 a voxel. */
typedef struct nref {
    uint32_t index;  /* node index (level >= 2: the node; level 1: its brick) */
    uint32_t octant; /* level 1: the octant inside the brick */
} nref;

static uint64_t brick_bits(const vxr_octree *m, uint32_t index) {
    return (uint64_t)m->nodes[index].b << 32 | m->nodes[index].a;
}

static uint32_t child_mask(const vxr_octree *m, uint32_t level, nref n) {
    if (level > VXR_BRICK_LEVEL) return m->nodes[n.index].a;
    uint64_t bits = brick_bits(m, n.index);
    if (level == VXR_BRICK_LEVEL) {
        uint32_t mask = 0;
        for (uint32_t o = 0; o < 8; o++)
            if ((bits >> (8 * o)) & 255) mask |= 1u << o;
        return mask;
    }
    return (uint32_t)(bits >> (8 * n.octant)) & 255;
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
    uint64_t bits = brick_bits(m, brick);
    uint32_t i = m->brick_attr[brick - (m->node_count - m->brick_count)] +
                 (uint32_t)vxr_popcount64(bits & ((1ull << bit) - 1));
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

static int visit(trace *c, uint32_t level, nref n, const int32_t lo[3], uint32_t voxel_octant) {
    const int32_t s = 1 << level;
    float tenter, texit;
    int axis;
    if (!cube_slabs(c, lo, s, &tenter, &texit, &axis)) return 0;
    float t0 = tenter > 0.0f ? tenter : 0.0f;
    if (!(t0 < texit) || t0 > c->tmax) return 0;
    if (level == c->grid_level) {
        c->hit = (cell_hit){{lo[0], lo[1], lo[2]},
                            level,
                            t0,
                            tenter < 0.0f ? -1 : axis,
                            level == 0 ? read_attr(c->m, n.index, n.octant * 8 + voxel_octant)
                                       : first_attr(c->m, level, n, 0)};
        return 1;
    }
    const uint32_t mask = child_mask(c->m, level, n);
    const int32_t half = s >> 1;
    float tm[3];
    int live[3]; /* the ray still has to cross this axis' mid plane */
    uint32_t child = 0;
    for (int k = 0; k < 3; k++) {
        float mid = (float)(lo[k] + half);
        int upper;
        live[k] = 0;
        tm[k] = 0.0f;
        if (c->d[k] == 0.0f) {
            upper = c->o[k] >= mid;
        } else {
            tm[k] = plane_t(mid, c->o[k], c->d[k]);
            int crossed = tm[k] <= t0;
            upper = c->d[k] > 0.0f ? crossed : !crossed;
            live[k] = !crossed;
        }
        child |= (uint32_t)upper << (2 - k);
    }
    for (;;) {
        float tnext = texit;
        for (int k = 0; k < 3; k++)
            if (live[k] && tm[k] < tnext) tnext = tm[k];
        if (mask & (1u << child)) {
            const int32_t clo[3] = {lo[0] + ((child >> 2) & 1 ? half : 0),
                                    lo[1] + ((child >> 1) & 1 ? half : 0),
                                    lo[2] + (child & 1 ? half : 0)};
            if (level == 1) {
                if (visit(c, 0, n, clo, child)) return 1;
            } else if (visit(c, level - 1, child_ref(c->m, level, n, child), clo, 0)) {
                return 1;
            }
        }
        if (!(tnext < texit) || tnext > c->tmax) return 0;
        for (int k = 0; k < 3; k++)
            if (live[k] && tm[k] == tnext) {
                live[k] = 0;
                child ^= 1u << (2 - k);
            }
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
        float tenter, texit;
        int axis;
        if (!cube_slabs(c, lo, n, &tenter, &texit, &axis)) continue;
        float t0 = tenter > 0.0f ? tenter : 0.0f;
        if (!(t0 < texit) || t0 > c->tmax) continue;
        if (found && !(t0 < c->hit.t)) continue;
        uint32_t attr = centred ? first_attr(m, m->depth - 1, child_ref(m, m->depth, root, o), 0)
                                : first_attr(m, m->depth, root, 0);
        c->hit =
            (cell_hit){{lo[0], lo[1], lo[2]}, c->grid_level, t0, tenter < 0.0f ? -1 : axis, attr};
        found = 1;
    }
    return found;
}

static int trace_octree(trace *c) {
    const vxr_octree *m = c->m;
    if (m->node_count == 0) return 0;
    if (c->grid_level >= m->depth) return trace_large_grid(c);
    nref root = {0, 0};
    return visit(c, m->depth, root, m->origin, 0);
}

static void affine_point(const float *m, const float p[3], float dest[3]) {
    for (int r = 0; r < 3; r++)
        dest[r] = m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2] + m[4 * r + 3];
}

static void affine_dir(const float *m, const float v[3], float dest[3]) {
    for (int r = 0; r < 3; r++)
        dest[r] = m[4 * r] * v[0] + m[4 * r + 1] * v[1] + m[4 * r + 2] * v[2];
}

/* Traces one instance; on a hit nearer than *best (ties: lower instance)
 * fills *best and returns 1. */
static int trace_instance(const vxr_picker *p, uint32_t i, const vxr_ray *ray, uint32_t grid_level,
                          float *best_t, uint32_t *best_i, cell_hit *best) {
    const vxr_gpu_instance *g = &p->inst[i];
    trace c;
    c.m = &p->scene->models[g->model];
    affine_point(g->world_to_local, ray->origin, c.o);
    affine_dir(g->world_to_local, ray->dir, c.d);
    c.grid_level = grid_level;
    c.tmax = *best_t;
    if (!trace_octree(&c)) return 0;
    if (c.hit.t > *best_t || (c.hit.t == *best_t && i > *best_i)) return 0;
    *best_t = c.hit.t;
    *best_i = i;
    *best = c.hit;
    return 1;
}

static int8_t id8(uint32_t shape, int shift) {
    return (int8_t)(uint8_t)(shape >> shift);
}

/* The corners of the cube [lo, lo + n)^3, corner c at bit 2 - k of axis k. */
static void cube_corners(const int32_t lo[3], float n, float dest[8][3]) {
    for (int corner = 0; corner < 8; corner++)
        for (int k = 0; k < 3; k++)
            dest[corner][k] = (float)lo[k] + ((corner >> (2 - k)) & 1 ? n : 0.0f);
}

/* The model-space part of a pick, the part the GPU computes per pixel too
 * (shaders/trace.comp, pick_record): entry face from the entry axis, then
 * the nearest corner and edge to lorig + t * ldir on that face, ties to the
 * lower id. */
static void pick_record(const float lorig[3], const float ldir[3], uint32_t i, const cell_hit *h,
                        uint32_t color, vxr_gpu_pick *rec) {
    int face = -1, best_corner = -1, best_edge = -1;
    if (h->axis >= 0) {
        static const int face_of[3][2] = {{0, 1}, {2, 3}, {5, 4}};
        const int ax = h->axis, neg = ldir[ax] < 0.0f;
        float lpoint[3], cp[8][3];
        for (int k = 0; k < 3; k++) lpoint[k] = lorig[k] + h->t * ldir[k];
        face = face_of[ax][neg];
        cube_corners(h->lo, (float)(1u << h->level), cp);
        float bestd = INFINITY;
        for (int j = 0; j < 4; j++) {
            int corner = vxr_face_corners[face][j];
            float d = 0;
            for (int k = 0; k < 3; k++)
                d += (lpoint[k] - cp[corner][k]) * (lpoint[k] - cp[corner][k]);
            if (d < bestd) {
                bestd = d;
                best_corner = corner;
            }
        }
        bestd = INFINITY;
        for (int j = 0; j < 4; j++) {
            int e = vxr_face_edges[face][j];
            float d = 0;
            for (int k = 0; k < 3; k++) {
                float em = (cp[vxr_edge_corners[e][0]][k] + cp[vxr_edge_corners[e][1]][k]) * 0.5f;
                d += (lpoint[k] - em) * (lpoint[k] - em);
            }
            if (d < bestd) {
                bestd = d;
                best_edge = e;
            }
        }
    }
    rec->instance = i;
    memcpy(rec->voxel, h->lo, sizeof rec->voxel);
    rec->t = h->t;
    rec->shape = h->level | (uint32_t)(uint8_t)face << 8 | (uint32_t)(uint8_t)best_corner << 16 |
                 (uint32_t)(uint8_t)best_edge << 24;
    rec->color = color;
    rec->flags = VXR_PICK_HIT;
}

/* The world-space part of a pick from its record: one code path for CPU
 * picks and GPU records. R is the instance's rotation. */
static void expand_pick(const vxr_gpu_instance *g, const float R[9], const vxr_ray *ray,
                        const vxr_gpu_pick *rec, vxr_pick *out) {
    memset(out, 0, sizeof *out);
    out->hit = 1;
    out->instance = rec->instance;
    memcpy(out->voxel, rec->voxel, sizeof out->voxel);
    out->size = 1u << (rec->shape & 255);
    float cp[8][3];
    cube_corners(rec->voxel, (float)out->size, cp);
    for (int k = 0; k < 3; k++) {
        out->world_min[k] = INFINITY;
        out->world_max[k] = -INFINITY;
    }
    for (int corner = 0; corner < 8; corner++) {
        float wp[3];
        affine_point(g->local_to_world, cp[corner], wp);
        for (int k = 0; k < 3; k++) {
            if (wp[k] < out->world_min[k]) out->world_min[k] = wp[k];
            if (wp[k] > out->world_max[k]) out->world_max[k] = wp[k];
        }
    }
    out->t = rec->t;
    for (int k = 0; k < 3; k++) out->point[k] = ray->origin[k] + rec->t * ray->dir[k];
    out->color = rec->color;
    out->face = id8(rec->shape, 8);
    if (out->face < 0) {
        out->face = out->corner = out->edge = -1;
        return;
    }
    out->corner = id8(rec->shape, 16);
    out->edge = id8(rec->shape, 24);
    const int ax = out->face >> 1, neg = ax < 2 ? out->face & 1 : !(out->face & 1);
    for (int r = 0; r < 3; r++) out->normal[r] = neg ? R[3 * r + ax] : -R[3 * r + ax];
    float mid[3];
    for (int k = 0; k < 3; k++)
        mid[k] =
            (cp[vxr_edge_corners[out->edge][0]][k] + cp[vxr_edge_corners[out->edge][1]][k]) * 0.5f;
    affine_point(g->local_to_world, cp[out->corner], out->corner_point);
    affine_point(g->local_to_world, mid, out->edge_mid);
}

static void fill_pick(const vxr_picker *p, const vxr_ray *ray, uint32_t i, const cell_hit *h,
                      vxr_pick *out) {
    const vxr_gpu_instance *g = &p->inst[i];
    const vxr_scene *s = p->scene;
    float lorig[3], ldir[3];
    affine_point(g->world_to_local, ray->origin, lorig);
    affine_dir(g->world_to_local, ray->dir, ldir);
    vxr_gpu_pick rec;
    pick_record(lorig, ldir, i, h, s->attr_size == 1 ? s->palette[h->attr] : h->attr, &rec);
    expand_pick(g, s->instances[i].transform.rotation, ray, &rec, out);
}

vxr_result vxr_pick_expand(const vxr_scene *s, const vxr_ray *ray, const vxr_gpu_pick *rec,
                           vxr_pick *dest) {
    memset(dest, 0, sizeof *dest);
    if (!(rec->flags & VXR_PICK_HIT)) return VXR_OK;
    const int face = id8(rec->shape, 8), corner = id8(rec->shape, 16), edge = id8(rec->shape, 24);
    int ok = rec->instance < s->instance_count && (rec->shape & 255) <= VXR_MAX_DEPTH &&
             face >= -1 && face < 6;
    if (ok && face >= 0) {
        int corner_ok = 0, edge_ok = 0;
        for (int j = 0; j < 4; j++) {
            corner_ok |= vxr_face_corners[face][j] == corner;
            edge_ok |= vxr_face_edges[face][j] == edge;
        }
        ok = corner_ok && edge_ok;
    } else if (ok) {
        ok = corner == -1 && edge == -1;
    }
    if (!ok) return VXR_ERROR_ARGUMENT;
    vxr_gpu_instance g;
    vxr_instance_gpu(s, rec->instance, &g);
    expand_pick(&g, s->instances[rec->instance].transform.rotation, ray, rec, dest);
    return VXR_OK;
}

/* How far past its voxels' box a grid cube of 2^level reaches, in world
 * units, for any instance (sqrt(3) covers any rotation). */
static float grid_pad(const vxr_picker *p, uint32_t level) {
    return level ? (float)(1u << level) * p->max_scale * 1.7321f : 0.0f;
}

static int grid_level(uint32_t grid, uint32_t *level) {
    if (grid <= 1) {
        *level = 0;
        return 1;
    }
    if (grid & (grid - 1) || grid > (1u << 20)) return 0;
    *level = (uint32_t)__builtin_ctz(grid);
    return 1;
}

/* Ray against a box widened by pad, closed slabs; entry t or INFINITY. */
static float box_enter(const float lo[3], const float hi[3], float pad, const vxr_ray *r,
                       float tmax) {
    float a = 0.0f, b = tmax;
    for (int k = 0; k < 3; k++) {
        float l = lo[k] - pad, h = hi[k] + pad;
        if (r->dir[k] == 0.0f) {
            if (r->origin[k] < l || r->origin[k] > h) return INFINITY;
            continue;
        }
        float t0 = (l - r->origin[k]) / r->dir[k], t1 = (h - r->origin[k]) / r->dir[k];
        if (t0 > t1) {
            float x = t0;
            t0 = t1;
            t1 = x;
        }
        if (t0 > a) a = t0;
        if (t1 < b) b = t1;
        if (a > b) return INFINITY;
    }
    return a;
}

void vxr_picker_bvh(const vxr_picker *p, vxr_bvh *dest) {
    dest->nodes = p->nodes;
    dest->node_count = p->n_nodes;
    dest->items = p->items;
    dest->item_count = p->n_items;
}

float vxr_picker_grid_pad(const vxr_picker *p, uint32_t grid) {
    uint32_t level;
    return grid_level(grid, &level) ? grid_pad(p, level) : 0.0f;
}

vxr_result vxr_pick_ray(const vxr_picker *p, const vxr_ray *ray, uint32_t grid, vxr_pick *dest) {
    uint32_t level;
    memset(dest, 0, sizeof *dest);
    if (!grid_level(grid, &level)) return VXR_ERROR_ARGUMENT;
    float best_t = INFINITY;
    uint32_t best_i = UINT32_MAX;
    cell_hit best;
    if (p->n_nodes == 0) return VXR_OK;
    uint32_t stack[64];
    int sp = 0;
    /* A grid cube reaches up to N - 1 voxels past the voxels it holds. */
    const float pad = grid_pad(p, level);
    if (box_enter(p->nodes[0].lo, p->nodes[0].hi, pad, ray, INFINITY) < INFINITY) stack[sp++] = 0;
    while (sp > 0) {
        const bvh_node *nd = &p->nodes[stack[--sp]];
        if (nd->count) {
            for (uint32_t k = 0; k < nd->count; k++)
                trace_instance(p, p->items[nd->first + k], ray, level, &best_t, &best_i, &best);
            continue;
        }
        const bvh_node *a = &p->nodes[nd->first], *b = &p->nodes[nd->first + 1];
        float ta = box_enter(a->lo, a->hi, pad, ray, best_t);
        float tb = box_enter(b->lo, b->hi, pad, ray, best_t);
        uint32_t ia = nd->first, ib = nd->first + 1;
        if (ta < tb) { /* push the farther first so the nearer pops first */
            float x = ta;
            ta = tb;
            tb = x;
            ia = ib;
            ib = nd->first;
        }
        if (ta < INFINITY && sp < 64) stack[sp++] = ia;
        if (tb < INFINITY && sp < 64) stack[sp++] = ib;
    }
    if (best_i != UINT32_MAX) fill_pick(p, ray, best_i, &best, dest);
    return VXR_OK;
}

vxr_result vxr_pick_rays(const vxr_picker *p, const vxr_ray *rays, size_t count, uint32_t grid,
                         vxr_pick *dest) {
    for (size_t i = 0; i < count; i++) {
        vxr_result r = vxr_pick_ray(p, &rays[i], grid, &dest[i]);
        if (r != VXR_OK) return r;
    }
    return VXR_OK;
}

vxr_result vxr_pick_ray_loop(const vxr_picker *p, const vxr_ray *ray, uint32_t grid,
                             vxr_pick *dest) {
    uint32_t level;
    memset(dest, 0, sizeof *dest);
    if (!grid_level(grid, &level)) return VXR_ERROR_ARGUMENT;
    float best_t = INFINITY;
    uint32_t best_i = UINT32_MAX;
    cell_hit best;
    const float pad = grid_pad(p, level);
    for (uint32_t j = 0; j < p->n_items; j++) {
        uint32_t i = p->items[j];
        const float *sp = &p->sphere[4 * i];
        /* Bounding sphere: distance from the centre to the ray's line. */
        float oc[3], dd = 0, od = 0, oo = 0;
        for (int k = 0; k < 3; k++) {
            oc[k] = sp[k] - ray->origin[k];
            dd += ray->dir[k] * ray->dir[k];
            od += oc[k] * ray->dir[k];
            oo += oc[k] * oc[k];
        }
        float r = sp[3] + pad;
        if (dd > 0 && oo - od * od / dd > r * r * 1.0001f + 1e-3f) continue;
        const vxr_gpu_instance *g = &p->inst[i];
        if (box_enter(g->aabb_min, g->aabb_max, pad, ray, best_t) == INFINITY) continue;
        trace_instance(p, i, ray, level, &best_t, &best_i, &best);
    }
    if (best_i != UINT32_MAX) fill_pick(p, ray, best_i, &best, dest);
    return VXR_OK;
}

/* ---- construction: a median-split BVH over instance boxes ---- */

typedef struct builder {
    vxr_picker *p;
    const float *centre; /* per scene instance: box centre */
} builder;

/* Quickselect: items[first..first+count) partitioned so that the k-th
 * smallest centre along axis sits at first + k. */
static void select_kth(uint32_t *items, uint32_t count, uint32_t k, const float *centre, int axis) {
    uint32_t lo = 0, hi = count - 1;
    while (lo < hi) {
        float pivot = centre[3 * (size_t)items[(lo + hi) / 2] + (size_t)axis];
        uint32_t i = lo, j = hi;
        while (i <= j) {
            while (centre[3 * (size_t)items[i] + (size_t)axis] < pivot) i++;
            while (centre[3 * (size_t)items[j] + (size_t)axis] > pivot) j--;
            if (i <= j) {
                uint32_t x = items[i];
                items[i] = items[j];
                items[j] = x;
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

static void build_node(builder *b, uint32_t node, uint32_t first, uint32_t count) {
    vxr_picker *p = b->p;
    bvh_node *nd = &p->nodes[node];
    for (int k = 0; k < 3; k++) {
        nd->lo[k] = INFINITY;
        nd->hi[k] = -INFINITY;
    }
    float clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t j = first; j < first + count; j++) {
        const vxr_gpu_instance *g = &p->inst[p->items[j]];
        for (int k = 0; k < 3; k++) {
            if (g->aabb_min[k] < nd->lo[k]) nd->lo[k] = g->aabb_min[k];
            if (g->aabb_max[k] > nd->hi[k]) nd->hi[k] = g->aabb_max[k];
            float c = b->centre[3 * (size_t)p->items[j] + (size_t)k];
            if (c < clo[k]) clo[k] = c;
            if (c > chi[k]) chi[k] = c;
        }
    }
    if (count <= 2) {
        nd->first = first;
        nd->count = count;
        return;
    }
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (chi[k] - clo[k] > chi[axis] - clo[axis]) axis = k;
    uint32_t half = count / 2;
    select_kth(p->items + first, count, half, b->centre, axis);
    uint32_t left = p->n_nodes;
    p->n_nodes += 2;
    nd->first = left;
    nd->count = 0;
    build_node(b, left, first, half);
    build_node(b, left + 1, first + half, count - half);
}

vxr_result vxr_picker_create(const vxr_scene *s, vxr_picker **dest) {
    *dest = NULL;
    vxr_picker *p = calloc(1, sizeof *p);
    if (!p) return VXR_ERROR_MEMORY;
    p->scene = s;
    size_t n = s->instance_count ? s->instance_count : 1;
    p->inst = malloc(n * sizeof *p->inst);
    p->sphere = malloc(n * 4 * sizeof *p->sphere);
    p->items = malloc(n * sizeof *p->items);
    p->nodes = malloc(2 * n * sizeof *p->nodes);
    float *centre = malloc(n * 3 * sizeof *centre);
    if (!p->inst || !p->sphere || !p->items || !p->nodes || !centre) {
        free(centre);
        vxr_picker_destroy(p);
        return VXR_ERROR_MEMORY;
    }
    for (uint32_t i = 0; i < s->instance_count; i++) {
        vxr_gpu_instance *g = &p->inst[i];
        vxr_instance_gpu(s, i, g);
        float r2 = 0;
        for (int k = 0; k < 3; k++) {
            /* Widen the box a little: the BVH must never cut a grazing hit. */
            float pad = 1e-4f * (1.0f + fabsf(g->aabb_min[k]) + fabsf(g->aabb_max[k]));
            g->aabb_min[k] -= pad;
            g->aabb_max[k] += pad;
            centre[3 * (size_t)i + (size_t)k] = 0.5f * (g->aabb_min[k] + g->aabb_max[k]);
            p->sphere[4 * (size_t)i + (size_t)k] = centre[3 * (size_t)i + (size_t)k];
            float e = 0.5f * (g->aabb_max[k] - g->aabb_min[k]);
            r2 += e * e;
        }
        p->sphere[4 * (size_t)i + 3] = sqrtf(r2);
        const vxr_instance *in = &s->instances[i];
        if (!(in->flags & (VXR_INSTANCE_HIDDEN | VXR_INSTANCE_CULLED)) &&
            s->models[in->model].voxel_count) {
            p->items[p->n_items++] = i;
            if (in->transform.scale > p->max_scale) p->max_scale = in->transform.scale;
        }
    }
    if (p->n_items) {
        builder b = {p, centre};
        p->n_nodes = 1;
        build_node(&b, 0, 0, p->n_items);
    }
    free(centre);
    *dest = p;
    return VXR_OK;
}

void vxr_picker_destroy(vxr_picker *p) {
    if (!p) return;
    free(p->inst);
    free(p->sphere);
    free(p->items);
    free(p->nodes);
    free(p);
}
