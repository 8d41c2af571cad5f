/* Level-of-detail picks (vxr_pick_ray_lod) against a brute-force oracle:
 * every occupied cube of every level, from the voxel list, with its colour
 * the rounded mean of its occupied children's (computed here from the
 * voxels, not from the octree), its entry t in double precision, and the
 * rule of vxr_layout.h: the nearest cube that stops a ray (edge under the
 * footprint at its own entry, VXR_LOD_MIN_LEVEL <= level <=
 * VXR_LOD_MAX_LEVEL) or voxel,
 * none of whose ancestors stops it. The seed's loop over instances
 * (vxr_pick_ray_loop_lod) gives the same records. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "vxr/edit.h"
#include "vxr/formats.h"
#include "vxr/pick.h"
#include "vxr_test.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double urand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct cube {
    int32_t lo[3];
    uint32_t color;
} cube;

/* A model's occupied cubes, level by level, sorted by lo. */
typedef struct levels {
    cube *c[VXR_LOD_MAX_LEVEL + 1];
    size_t n[VXR_LOD_MAX_LEVEL + 1];
    uint32_t top; /* the highest level a walk may stop at */
} levels;

static int cmp_cube(const void *a, const void *b) {
    const cube *x = a, *y = b;
    for (int k = 0; k < 3; k++)
        if (x->lo[k] != y->lo[k]) return x->lo[k] < y->lo[k] ? -1 : 1;
    return 0;
}

typedef struct gather {
    const uint32_t *palette;
    cube *v;
    size_t n;
} gather;

static void take_voxel(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    gather *g = user;
    g->v[g->n++] = (cube){{x, y, z}, g->palette[attr]};
}

static void build_levels(const vxr_scene *s, const vxr_octree *m, levels *L) {
    gather g = {s->palette, malloc((m->voxel_count + 1) * sizeof(cube)), 0};
    CHECK(g.v != NULL);
    vxr_octree_foreach(m, take_voxel, &g);
    qsort(g.v, g.n, sizeof *g.v, cmp_cube);
    L->c[0] = g.v;
    L->n[0] = g.n;
    L->top = m->depth - 1 < VXR_LOD_MAX_LEVEL ? m->depth - 1 : VXR_LOD_MAX_LEVEL;
    for (uint32_t l = 1; l <= VXR_LOD_MAX_LEVEL; l++) {
        /* children of one parent: the parent's lo, then the mean of their colours */
        size_t n = L->n[l - 1];
        cube *up = malloc((n + 1) * sizeof *up);
        CHECK(up != NULL);
        for (size_t i = 0; i < n; i++) {
            up[i] = L->c[l - 1][i];
            for (int k = 0; k < 3; k++) up[i].lo[k] &= ~((1 << l) - 1);
        }
        /* sorted by the parent's lo; stable enough: sums do not care */
        qsort(up, n, sizeof *up, cmp_cube);
        size_t out = 0;
        for (size_t i = 0; i < n;) {
            size_t j = i;
            uint64_t sum[4] = {0};
            while (j < n && !cmp_cube(&up[i], &up[j])) {
                for (int c = 0; c < 4; c++) sum[c] += up[j].color >> (8 * c) & 255;
                j++;
            }
            uint32_t cnt = (uint32_t)(j - i), color = 0;
            for (int c = 0; c < 4; c++) color |= (uint32_t)((sum[c] + cnt / 2) / cnt) << (8 * c);
            up[out++] = (cube){{up[i].lo[0], up[i].lo[1], up[i].lo[2]}, color};
            i = j;
        }
        L->c[l] = up;
        L->n[l] = out;
    }
}

static void free_levels(levels *L) {
    for (uint32_t l = 0; l <= VXR_LOD_MAX_LEVEL; l++) free(L->c[l]);
}

/* Entry t (clamped at 0) of the cube [lo, lo + n)^3, or -1 when missed. */
static double entry(const double o[3], const double d[3], const int32_t lo[3], double n) {
    double a = -INFINITY, b = INFINITY;
    for (int k = 0; k < 3; k++) {
        double p0 = lo[k], p1 = lo[k] + n;
        if (d[k] == 0) {
            if (!(p0 <= o[k] && o[k] < p1)) return -1;
            continue;
        }
        double ak = ((d[k] > 0 ? p0 : p1) - o[k]) / d[k], bk = ((d[k] > 0 ? p1 : p0) - o[k]) / d[k];
        if (ak > a) a = ak;
        if (bk < b) b = bk;
    }
    double t0 = a > 0 ? a : 0;
    return t0 < b ? t0 : -1;
}

typedef struct answer {
    int hit;
    uint32_t instance, level, color;
    int32_t lo[3];
    double t;
} answer;

static bool stops(const double o[3], const double d[3], uint32_t l, const int32_t lo[3],
                  float scale, const vxr_lod *lod) {
    double t = entry(o, d, lo, (double)(1 << l));
    if (t < 0 || l < VXR_LOD_MIN_LEVEL) return false;
    double footprint = lod->fixed ? lod->k : lod->k * t;
    return (double)(1 << l) * scale < footprint;
}

static answer oracle(const vxr_scene *s, const levels *per_model, const vxr_ray *r,
                     const vxr_lod *lod) {
    answer best = {0};
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const vxr_instance *in = &s->instances[i];
        if (in->flags & VXR_INSTANCE_HIDDEN) continue;
        const vxr_transform *x = &in->transform;
        double o[3], d[3];
        for (int k = 0; k < 3; k++) {
            double ok = 0, dk = 0;
            for (int j = 0; j < 3; j++) {
                ok += (double)x->rotation[3 * j + k] * ((double)r->origin[j] - x->translation[j]);
                dk += (double)x->rotation[3 * j + k] * r->dir[j];
            }
            o[k] = ok / x->scale;
            d[k] = dk / x->scale;
        }
        const levels *L = &per_model[in->model];
        for (uint32_t l = 0; l <= L->top; l++)
            for (size_t c = 0; c < L->n[l]; c++) {
                const cube *cb = &L->c[l][c];
                double t = entry(o, d, cb->lo, (double)(1 << l));
                if (t < 0 || (l > 0 && !stops(o, d, l, cb->lo, x->scale, lod))) continue;
                bool reached = true; /* no ancestor stopped the ray first */
                for (uint32_t m = l + 1; m <= L->top && reached; m++) {
                    int32_t up[3];
                    for (int k = 0; k < 3; k++) up[k] = cb->lo[k] & ~((1 << m) - 1);
                    reached = !stops(o, d, m, up, x->scale, lod);
                }
                if (!reached || (best.hit && (t > best.t || (t == best.t && i > best.instance))))
                    continue;
                best = (answer){1, i, l, cb->color, {cb->lo[0], cb->lo[1], cb->lo[2]}, t};
            }
    }
    return best;
}

static vxr_scene *blob_scene(int models, int instances) {
    vxr_scene_src src;
    vxr_scene_src_init(&src, 1);
    for (int c = 0; c < 256; c++) /* colours whose means round */
        src.palette[c] = (uint32_t)(urand() * 4294967296.0) | 0xff000000u;
    for (int m = 0; m < models; m++) {
        uint32_t id;
        vxr_scene_src_add_model(&src, &id);
        int r = 6 + (int)(urand() * 20);
        int32_t off = (int32_t)(urand() * 30) - 15;
        for (int x = -r; x <= r; x++)
            for (int y = -r; y <= r; y++)
                for (int z = -r; z <= r; z++)
                    if (x * x + y * y + z * z <= r * r && urand() < 0.3)
                        vxr_model_src_push(&src.models[id], x + off, y, z - off,
                                           1 + (uint32_t)(urand() * 250));
    }
    for (int i = 0; i < instances; i++) {
        vxr_instance in = {(uint32_t)(urand() * models), 0, vxr_transform_identity(), INFINITY};
        for (int k = 0; k < 3; k++) in.transform.translation[k] = (float)floor(urand() * 160 - 80);
        in.transform.scale = (float[]){1, 2, 0.5f, 1.5f}[(int)(urand() * 4)];
        if (urand() < 0.5) { /* a rotation about z */
            float a = (float)(urand() * 6.28318);
            float R[9] = {cosf(a), -sinf(a), 0, sinf(a), cosf(a), 0, 0, 0, 1};
            memcpy(in.transform.rotation, R, sizeof R);
        }
        vxr_scene_src_add_instance(&src, &in);
    }
    vxr_scene *s;
    CHECK(vxr_scene_build(&src, &s, NULL) == VXR_OK);
    vxr_scene_src_free(&src);
    return s;
}

static int ties, stopped_coarse;

/* One pick against the oracle: the same cube, level and colour; t within
 * float rounding. A different cube is forgiven only when the oracle puts
 * the pick's own cube at its best t (a tie the walk's order decides). */
static int same(const vxr_pick *p, const answer *o) {
    if (p->hit != o->hit) return 0;
    if (!o->hit) return 1;
    if (p->instance == o->instance && p->size == 1u << o->level && p->voxel[0] == o->lo[0] &&
        p->voxel[1] == o->lo[1] && p->voxel[2] == o->lo[2]) {
        stopped_coarse += o->level > 0;
        return p->color == o->color && fabs((double)p->t - o->t) <= 1e-4 * (1 + o->t);
    }
    if (fabs((double)p->t - o->t) <= 1e-5 * (1 + o->t)) {
        ties++;
        return 1;
    }
    return 0;
}

static void test_random(void) {
    for (int round = 0; round < 4; round++) {
        vxr_scene *s = blob_scene(1 + round, 3 + 3 * round);
        levels *L = calloc(s->model_count, sizeof *L);
        CHECK(L != NULL);
        for (uint32_t m = 0; m < s->model_count; m++) build_levels(s, &s->models[m], &L[m]);
        vxr_picker *p;
        CHECK(vxr_picker_create(s, &p) == VXR_OK);
        const vxr_lod lods[] = {{0.004f, false}, {0.02f, false}, {0.08f, false}, {3.0f, true}};
        int bad = 0;
        for (int q = 0; q < 300 && bad < 5; q++) {
            vxr_ray r;
            double len = 0;
            for (int k = 0; k < 3; k++) {
                double target = urand() * 120 - 60, from = (urand() * 2 - 1) * 400;
                r.origin[k] = (float)from;
                r.dir[k] = (float)(target - from);
                len += (target - from) * (target - from);
            }
            for (int k = 0; k < 3; k++) r.dir[k] = (float)(r.dir[k] / sqrt(len));
            const vxr_lod *lod = &lods[q % 4];
            vxr_pick got;
            CHECK(vxr_pick_ray_lod(p, &r, 1, lod, &got) == VXR_OK);
            answer want = oracle(s, L, &r, lod);
            if (!same(&got, &want)) {
                bad++;
                fprintf(stderr,
                        "ray (%g %g %g) (%g %g %g) k %g%s: pick hit %d inst %u %d,%d,%d size %u "
                        "colour %08x t %.9g; oracle hit %d inst %u %d,%d,%d level %u colour %08x "
                        "t %.9g\n",
                        (double)r.origin[0], (double)r.origin[1], (double)r.origin[2],
                        (double)r.dir[0], (double)r.dir[1], (double)r.dir[2], (double)lod->k,
                        lod->fixed ? " fixed" : "", got.hit, got.instance, got.voxel[0],
                        got.voxel[1], got.voxel[2], got.size, got.color, (double)got.t, want.hit,
                        want.instance, want.lo[0], want.lo[1], want.lo[2], want.level, want.color,
                        want.t);
            }
            /* the seed's loop over instances gives the hierarchy's record */
            vxr_pick looped;
            CHECK(vxr_pick_ray_loop_lod(p, &r, 1, lod, &looped) == VXR_OK);
            CHECK(!memcmp(&looped, &got, sizeof got));
            /* k 0 is vxr_pick_ray, bit for bit */
            vxr_pick a, b;
            const vxr_lod none = {0.0f, false};
            CHECK(vxr_pick_ray_lod(p, &r, 1, &none, &a) == VXR_OK);
            CHECK(vxr_pick_ray(p, &r, 1, &b) == VXR_OK);
            CHECK(!memcmp(&a, &b, sizeof a));
        }
        CHECK_EQ_INT(bad, 0);
        vxr_picker_destroy(p);
        for (uint32_t m = 0; m < s->model_count; m++) free_levels(&L[m]);
        free(L);
        vxr_scene_destroy(s);
    }
    /* the test means something only if coarse cubes were met */
    CHECK(stopped_coarse > 100);
    fprintf(stderr, "%d coarse hits agreed with the oracle, %d ties\n", stopped_coarse, ties);
}

/* --- vxr_octree_coarse --------------------------------------------------- */

typedef struct coarse_check {
    const levels *L;
    const vxr_octree *fine;
    uint32_t level;
    size_t voxels;
    int bad;
} coarse_check;

/* A coarse voxel is an occupied cube of the level whose attribute one of
 * the cube's voxels holds. */
static void check_coarse_voxel(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    coarse_check *c = user;
    const int32_t n = 1 << c->level;
    const cube key = {{x * n, y * n, z * n}, 0};
    c->voxels++;
    if (!bsearch(&key, c->L->c[c->level], c->L->n[c->level], sizeof key, cmp_cube)) {
        c->bad++;
        return;
    }
    bool held = false;
    for (int32_t i = 0; i < n * n * n && !held; i++) {
        uint32_t a;
        held = vxr_octree_lookup(c->fine, key.lo[0] + i % n, key.lo[1] + i / n % n,
                                 key.lo[2] + i / (n * n), &a) &&
               a == attr;
    }
    c->bad += !held;
}

/* Every node of the coarse tree (level j >= 2, min corner p in its cells)
 * carries the oracle's colour of the fine cube of level `level` + j. */
static int check_coarse_nodes(const vxr_octree *t, const levels *L, uint32_t level, uint32_t node,
                              uint32_t j, const int32_t p[3], int *checked) {
    int bad = 0;
    if (level + j <= VXR_LOD_MAX_LEVEL) {
        const int32_t n = 1 << level;
        const cube key = {{p[0] * n, p[1] * n, p[2] * n}, 0};
        const cube *f = bsearch(&key, L->c[level + j], L->n[level + j], sizeof key, cmp_cube);
        bad += !f || f->color != t->lod_colors[node];
        (*checked)++;
    }
    if (j == VXR_BRICK_LEVEL) return bad;
    const vxr_node *n = &t->nodes[node];
    const int32_t half = 1 << (j - 1);
    uint32_t child = n->b;
    for (uint32_t o = 0; o < 8; o++)
        if (n->a >> o & 1) {
            const int32_t cp[3] = {p[0] + (int32_t)(o >> 2) * half,
                                   p[1] + (int32_t)(o >> 1 & 1) * half,
                                   p[2] + (int32_t)(o & 1) * half};
            bad += check_coarse_nodes(t, L, level, child++, j - 1, cp, checked);
        }
    return bad;
}

/* A scene of one model under one instance of scale `scale` (palette: s's). */
static vxr_scene *one_model_scene(const vxr_scene *s, vxr_octree *tree, float scale) {
    vxr_scene_src src;
    vxr_scene_src_init(&src, 1);
    memcpy(src.palette, s->palette, sizeof src.palette);
    vxr_scene *out;
    CHECK(vxr_scene_build(&src, &out, NULL) == VXR_OK);
    vxr_scene_src_free(&src);
    uint32_t id, inst;
    CHECK(vxr_scene_add_octree(out, tree, &id, NULL) == VXR_OK);
    vxr_instance in = {id, 0, vxr_transform_identity(), INFINITY};
    in.transform.scale = scale;
    CHECK(vxr_scene_add_instance(out, &in, &inst, NULL) == VXR_OK);
    return out;
}

/* The coarse form against the oracle: a voxel for each cube of its level,
 * holding a voxel of that cube, and the fine colours at its nodes. Under a
 * scale of 2^level, where the level of detail stops rays at level + 2 and
 * up, it picks the fine tree's cubes and colours at the same t, bit for
 * bit. */
static void test_coarse(void) {
    vxr_scene *s = blob_scene(3, 1);
    int checked = 0, picks = 0, hits = 0;
    for (uint32_t m = 0; m < s->model_count; m++) {
        const vxr_octree *fine = &s->models[m];
        levels L;
        build_levels(s, fine, &L);
        for (uint32_t l = 1; l + VXR_BRICK_LEVEL <= fine->depth && l <= 3; l++) {
            vxr_octree c;
            CHECK(vxr_octree_coarse(fine, s->palette, l, &c, NULL) == VXR_OK);
            coarse_check cc = {&L, fine, l, 0, 0};
            vxr_octree_foreach(&c, check_coarse_voxel, &cc);
            CHECK_EQ_INT(cc.bad, 0);
            CHECK(cc.voxels == L.n[l]);
            CHECK_EQ_INT(check_coarse_nodes(&c, &L, l, 0, c.depth, c.origin, &checked), 0);
            if (l + VXR_BRICK_LEVEL + 1 > fine->depth) { /* the fine root's child may stop */
                vxr_octree_free(&c);
                continue;
            }
            vxr_octree copy;
            CHECK(vxr_octree_copy(fine, &copy) == VXR_OK);
            vxr_scene *a = one_model_scene(s, &copy, 1),
                      *b = one_model_scene(s, &c, (float)(1 << l));
            vxr_picker *pa, *pb;
            CHECK(vxr_picker_create(a, &pa) == VXR_OK);
            CHECK(vxr_picker_create(b, &pb) == VXR_OK);
            /* eyes 500 to 560 from the middle; k puts the footprint over
             * 2^(l + 2) at the fine root's box, and under 2^6 past it (the
             * coarse tree's levels reach above VXR_LOD_MAX_LEVEL's) */
            const double edge = (double)(1 << fine->depth);
            for (int q = 0; q < 400; q++) {
                vxr_ray r;
                double dir[3], len = 0;
                for (int k = 0; k < 3; k++) {
                    dir[k] = urand() * 2 - 1;
                    len += dir[k] * dir[k];
                }
                const double dist = 500 + urand() * 60;
                for (int k = 0; k < 3; k++) {
                    r.origin[k] = (float)(dir[k] / sqrt(len) * dist);
                    r.dir[k] = (float)(-dir[k] / sqrt(len) + (urand() - 0.5) * 0.2);
                }
                double n = 0, box = 0;
                for (int k = 0; k < 3; k++) {
                    n += (double)r.dir[k] * r.dir[k];
                    const double lo = fine->origin[k], hi = lo + edge, o = r.origin[k];
                    const double out = o < lo ? lo - o : o > hi ? o - hi : 0;
                    box += out * out;
                }
                for (int k = 0; k < 3; k++) r.dir[k] = (float)(r.dir[k] / sqrt(n));
                const vxr_lod lod = {(float)((1 << (l + 2)) * 1.02 / sqrt(box)), false};
                CHECK((double)lod.k * (sqrt(box) + edge * 1.7321) < 64);
                vxr_pick pf, pc;
                CHECK(vxr_pick_ray_lod(pa, &r, 1, &lod, &pf) == VXR_OK);
                CHECK(vxr_pick_ray_lod(pb, &r, 1, &lod, &pc) == VXR_OK);
                picks++;
                hits += pf.hit;
                CHECK_EQ_INT(pc.hit, pf.hit);
                if (!pf.hit) continue;
                CHECK(pc.size << l == pf.size && pf.size >= 1u << (l + 2));
                for (int k = 0; k < 3; k++) CHECK_EQ_INT(pc.voxel[k] * (1 << l), pf.voxel[k]);
                CHECK(pc.t == pf.t && pc.color == pf.color && pc.face == pf.face);
                CHECK(!memcmp(pc.world_min, pf.world_min, sizeof pf.world_min));
            }
            vxr_picker_destroy(pa);
            vxr_picker_destroy(pb);
            vxr_scene_destroy(a);
            vxr_scene_destroy(b);
        }
        free_levels(&L);
    }
    vxr_octree bad;
    CHECK(vxr_octree_coarse(&s->models[0], s->palette, 0, &bad, NULL) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_octree_coarse(&s->models[0], s->palette, s->models[0].depth - 1, &bad, NULL) ==
          VXR_ERROR_ARGUMENT);
    fprintf(stderr, "coarse: %d node colours, %d of %d picks hit\n", checked, hits, picks);
    CHECK(checked > 50 && hits > 100);
    vxr_scene_destroy(s);
}

static void test_bad_lod(void) {
    vxr_scene *s = blob_scene(1, 1);
    vxr_picker *p;
    CHECK(vxr_picker_create(s, &p) == VXR_OK);
    vxr_ray r = {{0, 0, 100}, {0, 0, -1}};
    vxr_pick got;
    const vxr_lod neg = {-1.0f, false}, inf = {INFINITY, false}, nan_k = {NAN, false};
    CHECK(vxr_pick_ray_lod(p, &r, 1, &neg, &got) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_pick_ray_lod(p, &r, 1, &inf, &got) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_pick_ray_lod(p, &r, 1, &nan_k, &got) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_pick_rays_lod(p, &r, 1, 1, &neg, &got) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_pick_ray_loop_lod(p, &r, 1, &nan_k, &got) == VXR_ERROR_ARGUMENT);
    vxr_picker_destroy(p);
    vxr_scene_destroy(s);
}

int main(int argc, char **argv) {
    static const vxr_test_case tests[] = {TEST(test_random), TEST(test_bad_lod), TEST(test_coarse)};
    return RUN_TESTS(tests);
}
