/* The view-distance sphere tree (see vxr/spheres.h): the seed's loose
 * octree with looseness 2 ("A data structure for variable-radius spheres",
 * 2010), plus root growth and a precision floor on node size.
 *
 * Node geometry is kept in double: edges are powers of two and corners
 * multiples of the edge, so cube tests and the widened query bounds are
 * exact for every float input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "vxr/spheres.h"

#define NONE UINT32_MAX
/* Enough nodes for any single insert: growth from 2^-30 to 2^130 plus the
 * descent back, with room to spare, so an insert never fails half-way. */
#define RESERVE_NODES 400u
/* Spheres a node keeps before it makes children for smaller ones. */
#define BUCKET 8u

typedef struct snode {
    double lo[3], size;
    uint32_t parent;
    uint32_t child[8];
    float box[6];   /* lo xyz, hi xyz: holds every listed sphere (conservative) */
    float sub[6];   /* the same for the whole subtree */
    uint32_t head;  /* first sphere; next free node while on the free list */
    uint32_t count; /* spheres in the list */
    uint8_t mask;   /* which children exist */
    uint8_t octant;
    uint8_t split; /* 0: a bucket that keeps small spheres; 1: they go down */
} snode;

typedef struct ssphere {
    float c[3], r;
    uint64_t user;
    uint32_t node; /* NONE while free */
    uint32_t prev, next;
} ssphere;

struct vxr_spheres {
    snode *nodes;
    uint32_t node_cap, node_used, node_free, node_live;
    ssphere *sph;
    uint32_t sph_cap, sph_used, sph_free, sph_live;
    uint32_t root;
};

vxr_result vxr_spheres_create(vxr_spheres **dest) {
    vxr_spheres *t = calloc(1, sizeof *t);
    *dest = t;
    if (!t) return VXR_ERROR_MEMORY;
    t->node_free = t->sph_free = t->root = NONE;
    return VXR_OK;
}

static void release_pools(vxr_spheres *t) {
    free(t->nodes);
    free(t->sph);
    t->nodes = NULL;
    t->sph = NULL;
    t->node_cap = t->node_used = t->node_live = 0;
    t->sph_cap = t->sph_used = t->sph_live = 0;
    t->node_free = t->sph_free = t->root = NONE;
}

void vxr_spheres_destroy(vxr_spheres *t) {
    if (!t) return;
    release_pools(t);
    free(t);
}

/* s + e <= r exactly, where s + e is an exact sum with |e| <= ulp(s) / 2
 * and r >= 0: within [r/2, 2r] s - r is exact (Sterbenz) and rounding
 * keeps the sign of (s - r) + e; outside it e cannot change the answer. */
static bool sum_le(double s, double e, double r) {
    if (s >= 0.5 * r && s <= 2.0 * r) return (s - r) + e <= 0.0;
    return s <= r;
}

/* |p - c| <= r exactly, with the difference kept exact by TwoSum (Knuth). */
static bool axis_within(float p, float c, float r) {
    double a = p, b = -(double)c;
    double s = a + b, bb = s - a, e = (a - (s - bb)) + (b - bb);
    return sum_le(s, e, r) && sum_le(-s, -e, r);
}

/* The squared distance in double decides; an exact per-axis guard makes
 * "contains" imply that p lies within r of c on every axis, which is what
 * the tree's node bounds rely on (a rounded difference alone could admit a
 * point just outside a sphere's box). */
bool vxr_sphere_contains(const float c[3], float r, const float p[3]) {
    double dx = (double)p[0] - c[0], dy = (double)p[1] - c[1], dz = (double)p[2] - c[2];
    return dx * dx + dy * dy + dz * dz <= (double)r * r && axis_within(p[0], c[0], r) &&
           axis_within(p[1], c[1], r) && axis_within(p[2], c[2], r);
}

/* ---- pools ---- */

static bool grow_pool(void **data, uint32_t *cap, uint32_t need, size_t item) {
    if (need <= *cap) return true;
    if (need > UINT32_MAX / 2) return false;
    uint32_t n = *cap ? *cap : 64;
    while (n < need) n *= 2;
    void *p = realloc(*data, (size_t)n * item);
    if (!p) return false;
    *data = p;
    *cap = n;
    return true;
}

/* Room for `extra` more live nodes without another allocation. */
static bool reserve_nodes(vxr_spheres *t, uint32_t extra) {
    return grow_pool((void **)&t->nodes, &t->node_cap, t->node_live + extra, sizeof *t->nodes);
}

static void box_clear(float b[6]) {
    for (int k = 0; k < 3; k++) {
        b[k] = INFINITY;
        b[k + 3] = -INFINITY;
    }
}

static void box_add(float b[6], const float s[6]) {
    for (int k = 0; k < 3; k++) {
        b[k] = fminf(b[k], s[k]);
        b[k + 3] = fmaxf(b[k + 3], s[k + 3]);
    }
}

/* Float bounds of [c - r, c + r] that hold the exact interval: the double
 * result is rounded to float outward and widened by one more float step,
 * which covers the double rounding. */
static void sphere_box(const float c[3], float r, float b[6]) {
    for (int k = 0; k < 3; k++) {
        float lo = (float)((double)c[k] - r), hi = (float)((double)c[k] + r);
        b[k] = nextafterf(lo, -INFINITY);
        b[k + 3] = nextafterf(hi, INFINITY);
    }
}

static bool box_holds(const float a[6], const float b[6]) {
    return a[0] <= b[0] && a[1] <= b[1] && a[2] <= b[2] && a[3] >= b[3] && a[4] >= b[4] &&
           a[5] >= b[5];
}

static bool in_box(const float b[6], const float p[3]) {
    return p[0] >= b[0] && p[1] >= b[1] && p[2] >= b[2] && p[0] <= b[3] && p[1] <= b[4] &&
           p[2] <= b[5];
}

static uint32_t node_new(vxr_spheres *t, const double lo[3], double size, uint32_t parent,
                         uint8_t octant) {
    uint32_t i;
    if (t->node_free != NONE) {
        i = t->node_free;
        t->node_free = t->nodes[i].head;
    } else {
        i = t->node_used++; /* reserve_nodes made room */
    }
    snode *n = &t->nodes[i];
    memcpy(n->lo, lo, sizeof n->lo);
    n->size = size;
    n->parent = parent;
    n->head = NONE;
    n->count = 0;
    box_clear(n->box);
    box_clear(n->sub);
    n->mask = 0;
    n->octant = octant;
    n->split = 0;
    t->node_live++;
    return i;
}

static void node_free(vxr_spheres *t, uint32_t i) {
    t->nodes[i].head = t->node_free;
    t->node_free = i;
    t->node_live--;
}

/* ---- geometry ---- */

static bool valid(const float c[3], float r) {
    return isfinite(c[0]) && isfinite(c[1]) && isfinite(c[2]) && isfinite(r) && r >= 0.0f;
}

/* Nodes below this edge cannot separate centres (float precision), and
 * 2^-30 keeps zero radii from descending forever. */
static double min_size(const float c[3]) {
    double m = fmax(fabs((double)c[0]), fmax(fabs((double)c[1]), fabs((double)c[2])));
    return fmax(0x1p-30, m * 0x1p-22);
}

/* The smallest power of two >= x (x > 0). */
static double pow2_ceil(double x) {
    int e;
    double m = frexp(x, &e);
    return m == 0.5 ? x : ldexp(1.0, e);
}

static bool inside(const snode *n, const float c[3]) {
    for (int k = 0; k < 3; k++)
        if (!(c[k] >= n->lo[k] && c[k] < n->lo[k] + n->size)) return false;
    return true;
}

static bool fits(const snode *n, const float c[3], float r) {
    return inside(n, c) && (double)r <= 0.5 * n->size;
}

/* Doubles the root towards c until it holds the sphere. */
static void grow_root(vxr_spheres *t, const float c[3], float r) {
    if (t->root == NONE) {
        double s = pow2_ceil(fmax(2.0 * (double)r, min_size(c)));
        double lo[3];
        for (int k = 0; k < 3; k++) lo[k] = floor((double)c[k] / s) * s;
        t->root = node_new(t, lo, s, NONE, 0);
        return;
    }
    while (!fits(&t->nodes[t->root], c, r)) {
        const snode *old = &t->nodes[t->root];
        double s = old->size, lo[3];
        uint8_t octant = 0;
        for (int k = 0; k < 3; k++) {
            lo[k] = old->lo[k];
            if ((double)c[k] < old->lo[k] + 0.5 * s) { /* extend downwards */
                lo[k] -= s;
                octant |= (uint8_t)(1u << (2 - k));
            }
        }
        uint32_t prev = t->root;
        uint32_t root = node_new(t, lo, 2.0 * s, NONE, 0);
        t->nodes[root].child[octant] = prev;
        t->nodes[root].mask = (uint8_t)(1u << octant);
        t->nodes[root].split = 1;
        memcpy(t->nodes[root].sub, t->nodes[prev].sub, sizeof t->nodes[root].sub);
        t->nodes[prev].parent = root;
        t->nodes[prev].octant = octant;
        t->root = root;
    }
}

static uint8_t octant_of(const snode *n, const float c[3]) {
    double half = 0.5 * n->size;
    uint8_t o = 0;
    for (int k = 0; k < 3; k++) o |= (uint8_t)(((double)c[k] >= n->lo[k] + half) << (2 - k));
    return o;
}

/* Whether a sphere may live below node n: the child's edge is at least
 * its diameter and above the precision floor. */
static bool goes_down(const snode *n, const float c[3], float r) {
    double half = 0.5 * n->size;
    return half >= 2.0 * (double)r && half >= min_size(c);
}

static uint32_t child_for(vxr_spheres *t, uint32_t i, uint8_t o) {
    snode *n = &t->nodes[i];
    if (n->mask & (1u << o)) return n->child[o];
    double half = 0.5 * n->size, lo[3];
    for (int k = 0; k < 3; k++) lo[k] = n->lo[k] + ((o >> (2 - k)) & 1 ? half : 0.0);
    uint32_t ch = node_new(t, lo, half, i, o);
    t->nodes[i].child[o] = ch;
    t->nodes[i].mask |= (uint8_t)(1u << o);
    return ch;
}

static void link(vxr_spheres *t, uint32_t h, uint32_t node);
static void unlink_sphere(vxr_spheres *t, uint32_t h);

/* Turns a full bucket into an inner node: its small spheres move one level
 * down (at most BUCKET of them, so no child overflows). */
static void split(vxr_spheres *t, uint32_t i) {
    t->nodes[i].split = 1;
    uint32_t h = t->nodes[i].head;
    while (h != NONE) {
        uint32_t next = t->sph[h].next;
        const float *c = t->sph[h].c;
        if (goes_down(&t->nodes[i], c, t->sph[h].r)) {
            unlink_sphere(t, h);
            link(t, h, child_for(t, i, octant_of(&t->nodes[i], c)));
        }
        h = next;
    }
}

/* From a node that holds the sphere down to where it is kept: the seed's
 * level (the smallest node whose edge is at least its diameter), or an
 * unsplit bucket on the way. A node keeps up to BUCKET smaller spheres
 * before it splits; without buckets every small sphere made a chain of
 * single-child nodes down to its own level (measured on `vxr bench spheres
 * --n 1000000`: 8.5x the memory). */
static uint32_t descend(vxr_spheres *t, uint32_t i, const float c[3], float r) {
    for (;;) {
        if (!goes_down(&t->nodes[i], c, r)) return i;
        if (!t->nodes[i].split) {
            if (t->nodes[i].count < BUCKET) return i;
            split(t, i);
        }
        i = child_for(t, i, octant_of(&t->nodes[i], c));
    }
}

static void link(vxr_spheres *t, uint32_t h, uint32_t node) {
    ssphere *s = &t->sph[h];
    s->node = node;
    s->prev = NONE;
    s->next = t->nodes[node].head;
    if (s->next != NONE) t->sph[s->next].prev = h;
    t->nodes[node].head = h;
    t->nodes[node].count++;
    float b[6];
    sphere_box(s->c, s->r, b);
    box_add(t->nodes[node].box, b);
    /* Boxes only grow while their node lives, so removal stays O(1); a
     * parent's box holds its children's, so the walk up stops early. */
    for (uint32_t i = node; i != NONE; i = t->nodes[i].parent) {
        if (box_holds(t->nodes[i].sub, b)) break;
        box_add(t->nodes[i].sub, b);
    }
}

static void unlink_sphere(vxr_spheres *t, uint32_t h) {
    ssphere *s = &t->sph[h];
    if (s->prev != NONE)
        t->sph[s->prev].next = s->next;
    else
        t->nodes[s->node].head = s->next;
    if (s->next != NONE) t->sph[s->next].prev = s->prev;
    if (--t->nodes[s->node].count == 0) box_clear(t->nodes[s->node].box);
}

/* Frees empty leaves from node i upward, then drops roots that only pass
 * through to a single child. */
static void cleanup(vxr_spheres *t, uint32_t i) {
    while (i != NONE && t->nodes[i].head == NONE && t->nodes[i].mask == 0) {
        uint32_t parent = t->nodes[i].parent;
        if (parent != NONE)
            t->nodes[parent].mask &= (uint8_t) ~(1u << t->nodes[i].octant);
        else
            t->root = NONE;
        node_free(t, i);
        i = parent;
    }
    while (t->root != NONE) {
        snode *r = &t->nodes[t->root];
        if (r->head != NONE || r->mask == 0 || (r->mask & (r->mask - 1))) break;
        uint32_t only = r->child[__builtin_ctz(r->mask)];
        node_free(t, t->root);
        t->root = only;
        t->nodes[only].parent = NONE;
    }
}

/* Places sphere h, starting the search at node `from` (NONE: the root). */
static void place(vxr_spheres *t, uint32_t h, uint32_t from) {
    const float *c = t->sph[h].c;
    float r = t->sph[h].r;
    uint32_t i = from;
    while (i != NONE && !fits(&t->nodes[i], c, r)) i = t->nodes[i].parent;
    if (i == NONE) {
        grow_root(t, c, r);
        i = t->root;
    }
    link(t, h, descend(t, i, c, r));
}

/* ---- public mutation ---- */

static bool live(const vxr_spheres *t, uint32_t h) {
    return h < t->sph_used && t->sph[h].node != NONE;
}

vxr_result vxr_spheres_insert(vxr_spheres *t, const float centre[3], float radius, uint64_t user,
                              uint32_t *handle) {
    *handle = NONE;
    if (!valid(centre, radius)) return VXR_ERROR_ARGUMENT;
    if (t->sph_free == NONE && t->sph_used == UINT32_MAX - 1) return VXR_ERROR_LIMIT;
    if (!reserve_nodes(t, RESERVE_NODES) ||
        !grow_pool((void **)&t->sph, &t->sph_cap, t->sph_used + 1, sizeof *t->sph))
        return VXR_ERROR_MEMORY;
    uint32_t h;
    if (t->sph_free != NONE) {
        h = t->sph_free;
        t->sph_free = t->sph[h].next;
    } else {
        h = t->sph_used++;
    }
    ssphere *s = &t->sph[h];
    memcpy(s->c, centre, sizeof s->c);
    s->r = radius;
    s->user = user;
    t->sph_live++;
    place(t, h, t->root);
    *handle = h;
    return VXR_OK;
}

vxr_result vxr_spheres_remove(vxr_spheres *t, uint32_t h) {
    if (!live(t, h)) return VXR_ERROR_ARGUMENT;
    uint32_t node = t->sph[h].node;
    unlink_sphere(t, h);
    t->sph[h].node = NONE;
    t->sph[h].next = t->sph_free;
    t->sph_free = h;
    t->sph_live--;
    cleanup(t, node);
    if (t->sph_live == 0) release_pools(t);
    return VXR_OK;
}

vxr_result vxr_spheres_update(vxr_spheres *t, uint32_t h, const float centre[3], float radius) {
    if (!live(t, h) || !valid(centre, radius)) return VXR_ERROR_ARGUMENT;
    if (!reserve_nodes(t, RESERVE_NODES)) return VXR_ERROR_MEMORY;
    ssphere *s = &t->sph[h];
    uint32_t old = s->node;
    unlink_sphere(t, h); /* no cleanup yet: the old node is where we start */
    memcpy(s->c, centre, sizeof s->c);
    s->r = radius;
    place(t, h, old);
    if (t->sph[h].node != old) cleanup(t, old);
    return VXR_OK;
}

/* ---- queries ---- */

typedef struct query {
    const vxr_spheres *t;
    float p[3];
    bool filtered;
    vxr_sphere_fn fn;
    void *ctx;
    size_t count;
    uint32_t *per_level, levels, depth;
} query;

/* Every sphere under node n lies within n->size / 2 of its cube, and
 * within its subtree box. The cube bounds are exact doubles (multiples of
 * size / 2), so the "8 nodes per level" bound holds exactly. */
static bool reaches(const snode *n, const float p[3]) {
    for (int k = 0; k < 3; k++) {
        double d = p[k];
        if (!(d >= n->lo[k] - 0.5 * n->size && d < n->lo[k] + 1.5 * n->size)) return false;
    }
    return in_box(n->sub, p);
}

static void visit(query *q, uint32_t i, uint32_t level) {
    const snode *n = &q->t->nodes[i];
    if (level + 1 > q->depth) q->depth = level + 1;
    if (q->per_level) {
        if (level < q->levels) q->per_level[level]++;
        return; /* counting visits only */
    }
    if (!in_box(n->box, q->p)) return;
    for (uint32_t h = n->head; h != NONE; h = q->t->sph[h].next) {
        const ssphere *s = &q->t->sph[h];
        if (q->filtered && !vxr_sphere_contains(s->c, s->r, q->p)) continue;
        if (q->fn) q->fn(q->ctx, h, s->user);
        q->count++;
    }
}

static void walk(query *q, uint32_t i, uint32_t level) {
    visit(q, i, level);
    const snode *n = &q->t->nodes[i];
    for (uint32_t m = n->mask; m; m &= m - 1) {
        uint32_t c = n->child[__builtin_ctz(m)];
        if (reaches(&q->t->nodes[c], q->p)) walk(q, c, level + 1);
    }
}

static size_t run_query(query *q) {
    if (q->t->root != NONE && reaches(&q->t->nodes[q->t->root], q->p)) walk(q, q->t->root, 0);
    return q->count;
}

size_t vxr_spheres_query(const vxr_spheres *t, const float p[3], bool filtered, vxr_sphere_fn fn,
                         void *ctx) {
    query q = {.t = t, .p = {p[0], p[1], p[2]}, .filtered = filtered, .fn = fn, .ctx = ctx};
    return run_query(&q);
}

typedef struct collector {
    uint32_t *dest;
    size_t cap, n;
} collector;

static void collect_one(void *ctx, uint32_t handle, uint64_t user) {
    collector *c = ctx;
    (void)user;
    if (c->n < c->cap) c->dest[c->n] = handle;
    c->n++;
}

size_t vxr_spheres_collect(const vxr_spheres *t, const float p[3], bool filtered, uint32_t *dest,
                           size_t cap) {
    collector c = {dest, cap, 0};
    return vxr_spheres_query(t, p, filtered, collect_one, &c);
}

uint32_t vxr_spheres_visits(const vxr_spheres *t, const float p[3], uint32_t *per_level,
                            uint32_t levels) {
    memset(per_level, 0, levels * sizeof *per_level);
    query q = {.t = t, .p = {p[0], p[1], p[2]}, .per_level = per_level, .levels = levels};
    run_query(&q);
    return q.depth;
}

bool vxr_spheres_get(const vxr_spheres *t, uint32_t h, float centre[3], float *radius,
                     uint64_t *user) {
    if (!live(t, h)) return false;
    if (centre) memcpy(centre, t->sph[h].c, sizeof t->sph[h].c);
    if (radius) *radius = t->sph[h].r;
    if (user) *user = t->sph[h].user;
    return true;
}

size_t vxr_spheres_count(const vxr_spheres *t) {
    return t->sph_live;
}

size_t vxr_spheres_memory(const vxr_spheres *t) {
    return (size_t)t->node_cap * sizeof *t->nodes + (size_t)t->sph_cap * sizeof *t->sph;
}
