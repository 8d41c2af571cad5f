/* CPU picking against a brute-force oracle: every voxel's (or grid cube's)
 * box against the ray in double precision, nearest entry t, over random
 * scenes and real files, plus the named cases of DESIGN.md §3. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "vxr/bvh.h"
#include "vxr/formats.h"
#include "vxr/pick.h"
#include "vxr_test.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;
static double urand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- the oracle ---- */

typedef struct oracle_hit {
    int hit;
    uint32_t instance;
    int32_t cube[3];
    double t;
    int axis; /* -1: origin inside */
    int neg;  /* entry direction negative on axis */
} oracle_hit;

typedef struct oracle_ctx {
    double o[3], d[3];
    uint32_t n; /* grid */
    uint32_t instance;
    oracle_hit *best;
    int32_t *cubes; /* grid: distinct cubes seen */
} oracle_ctx;

/* Entry t of the half-open cell [lo, lo+n)^3 for the points just after t. */
static int cell_entry(const double o[3], const double d[3], const int32_t lo[3], double n,
                      double *t, int *axis, int *neg) {
    double a = -INFINITY, b = INFINITY;
    int ax = -1;
    for (int k = 0; k < 3; k++) {
        double p0 = lo[k], p1 = lo[k] + n;
        if (d[k] == 0) {
            if (!(p0 <= o[k] && o[k] < p1)) return 0;
            continue;
        }
        double ak = ((d[k] > 0 ? p0 : p1) - o[k]) / d[k], bk = ((d[k] > 0 ? p1 : p0) - o[k]) / d[k];
        if (ak > a) {
            a = ak;
            ax = k;
        }
        if (bk < b) b = bk;
    }
    double t0 = a > 0 ? a : 0;
    if (!(t0 < b)) return 0;
    *t = t0;
    *axis = a < 0 ? -1 : ax;
    *neg = ax >= 0 && d[ax] < 0;
    return 1;
}

static void oracle_consider(oracle_ctx *c, const int32_t lo[3]) {
    double t;
    int axis, neg;
    if (!cell_entry(c->o, c->d, lo, c->n, &t, &axis, &neg)) return;
    oracle_hit *b = c->best;
    if (b->hit && (t > b->t || (t == b->t && c->instance > b->instance))) return;
    *b = (oracle_hit){1, c->instance, {lo[0], lo[1], lo[2]}, t, axis, neg};
}

static void oracle_voxel(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    (void)attr;
    oracle_ctx *c = user;
    int32_t lo[3] = {x, y, z};
    if (c->n > 1)
        for (int k = 0; k < 3; k++) lo[k] &= ~(int32_t)(c->n - 1);
    oracle_consider(c, lo);
}

/* The ray in an instance's model space: local = R^T (world - t) / s, in double. */
static void local_ray(const vxr_transform *x, const vxr_ray *r, oracle_ctx *c) {
    for (int k = 0; k < 3; k++) {
        double o = 0, d = 0;
        for (int j = 0; j < 3; j++) {
            o += (double)x->rotation[3 * j + k] * ((double)r->origin[j] - x->translation[j]);
            d += (double)x->rotation[3 * j + k] * r->dir[j];
        }
        c->o[k] = o / x->scale;
        c->d[k] = d / x->scale;
    }
}

static oracle_hit oracle(const vxr_scene *s, const vxr_ray *r, uint32_t grid) {
    oracle_hit best = {0};
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const vxr_instance *in = &s->instances[i];
        if (in->flags & VXR_INSTANCE_HIDDEN) continue;
        const vxr_transform *x = &in->transform;
        oracle_ctx c = {{0}, {0}, grid > 1 ? grid : 1, i, &best, NULL};
        local_ray(x, r, &c);
        vxr_octree_foreach(&s->models[in->model], oracle_voxel, &c);
    }
    return best;
}

/* ---- comparison ---- */

static int near_ties, compared;

static double cube_t(const vxr_scene *s, uint32_t inst, const int32_t lo[3], uint32_t n,
                     const vxr_ray *r) {
    oracle_hit h = {0};
    oracle_ctx c = {{0}, {0}, n, inst, &h, NULL};
    const vxr_transform *x = &s->instances[inst].transform;
    local_ray(x, r, &c);
    oracle_consider(&c, lo);
    return h.hit ? h.t : INFINITY;
}

static int same(const vxr_scene *s, const vxr_pick *p, const oracle_hit *o, const vxr_ray *r,
                uint32_t grid) {
    compared++;
    if (p->hit != o->hit) goto near;
    if (!o->hit) return 1;
    static const int face_of[3][2] = {{0, 1}, {2, 3}, {5, 4}};
    int face = o->axis < 0 ? -1 : face_of[o->axis][o->neg];
    if (p->instance != o->instance || p->voxel[0] != o->cube[0] || p->voxel[1] != o->cube[1] ||
        p->voxel[2] != o->cube[2] || p->face != face)
        goto near;
    if (fabs((double)p->t - o->t) > 1e-4 * (1 + fabs(o->t))) {
        fprintf(stderr, "t %.9g vs oracle %.9g\n", (double)p->t, o->t);
        return 0;
    }
    return 1;
near:
    /* Float against double: forgive only an answer the oracle itself puts
     * within rounding of its best t. */
    if (p->hit && o->hit) {
        double tp = cube_t(s, p->instance, p->voxel, p->size, r);
        if (fabs(tp - o->t) <= 1e-5 * (1 + fabs(o->t))) {
            near_ties++;
            return 1;
        }
    }
    fprintf(stderr,
            "ray (%.9g %.9g %.9g) (%.9g %.9g %.9g) grid %u: pick hit %d inst %u cube %d %d %d face "
            "%d t "
            "%.9g; oracle hit %d inst %u cube %d %d %d axis %d t %.9g\n",
            (double)r->origin[0], (double)r->origin[1], (double)r->origin[2], (double)r->dir[0],
            (double)r->dir[1], (double)r->dir[2], grid, p->hit, p->instance, p->voxel[0],
            p->voxel[1], p->voxel[2], p->face, (double)p->t, o->hit, o->instance, o->cube[0],
            o->cube[1], o->cube[2], o->axis, o->t);
    return 0;
}

static int check_rays(const vxr_scene *s, const vxr_ray *rays, int n, uint32_t grid) {
    vxr_picker *p;
    CHECK(vxr_picker_create(s, &p) == VXR_OK);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        vxr_pick a, b;
        CHECK(vxr_pick_ray(p, &rays[i], grid, &a) == VXR_OK);
        CHECK(vxr_pick_ray_loop(p, &rays[i], grid, &b) == VXR_OK);
        CHECK(!memcmp(&a, &b, sizeof a));
        oracle_hit o = oracle(s, &rays[i], grid);
        if (!same(s, &a, &o, &rays[i], grid) && ++bad > 5) break;
    }
    CHECK_EQ_INT(bad, 0);
    vxr_picker_destroy(p);
    return bad;
}

/* Rays from around the scene's bounds towards points inside them. */
static void random_rays(const vxr_scene *s, vxr_ray *rays, int n) {
    vxr_scene_stats st;
    vxr_scene_get_stats(s, &st);
    double lo[3], ext[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = (double)st.aabb_min[k];
        ext[k] = (double)(st.aabb_max[k] - st.aabb_min[k]);
    }
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
            double target = lo[k] + urand() * ext[k];
            double from = lo[k] + (urand() * 2.4 - 0.7) * ext[k];
            rays[i].origin[k] = (float)from;
            rays[i].dir[k] = (float)((target - from) * (0.2 + urand()));
        }
        if (i % 7 == 0) rays[i].dir[i % 3] = 0; /* zero direction components */
        if (i % 11 == 0) {                      /* integer origins: rays through cell boundaries */
            for (int k = 0; k < 3; k++) rays[i].origin[k] = floorf(rays[i].origin[k]);
            for (int k = 0; k < 3; k++) rays[i].dir[k] = roundf(rays[i].dir[k] / 8);
        }
    }
}

static vxr_scene *random_scene(int models, int instances, int rotate, int scale) {
    vxr_scene_src src;
    vxr_scene_src_init(&src, 1);
    for (int m = 0; m < models; m++) {
        uint32_t id;
        vxr_scene_src_add_model(&src, &id);
        int r = 3 + (int)(urand() * 14);
        int32_t off = (int32_t)(urand() * 40) - 20;
        for (int x = -r; x <= r; x++)
            for (int y = -r; y <= r; y++)
                for (int z = -r; z <= r; z++)
                    if (x * x + y * y + z * z <= r * r && urand() < 0.35)
                        vxr_model_src_push(&src.models[id], x + off, y, z - off,
                                           1 + (uint32_t)(urand() * 250));
    }
    for (int i = 0; i < instances; i++) {
        vxr_instance in = {(uint32_t)(urand() * models), 0, vxr_transform_identity(), INFINITY};
        for (int k = 0; k < 3; k++) in.transform.translation[k] = (float)floor(urand() * 120 - 60);
        if (scale) in.transform.scale = (float[]){1, 2, 0.5f, 4}[(int)(urand() * 4)];
        if (rotate && urand() < 0.6) {
            /* a random signed axis permutation, det +1 */
            int perm[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
            int p = (int)(urand() * 6), odd = p >= 3;
            float sgn[3] = {urand() < 0.5f ? -1.0f : 1.0f, urand() < 0.5f ? -1.0f : 1.0f, 1};
            sgn[2] = sgn[0] * sgn[1] * (odd ? -1.0f : 1.0f);
            memset(in.transform.rotation, 0, sizeof in.transform.rotation);
            for (int r = 0; r < 3; r++) in.transform.rotation[3 * r + perm[p][r]] = sgn[r];
        }
        if (rotate && urand() < 0.2) { /* an arbitrary rotation about z */
            float a = (float)(urand() * 6.28318);
            float R[9] = {cosf(a), -sinf(a), 0, sinf(a), cosf(a), 0, 0, 0, 1};
            memcpy(in.transform.rotation, R, sizeof R);
        }
        if (urand() < 0.05) in.flags = VXR_INSTANCE_HIDDEN;
        vxr_scene_src_add_instance(&src, &in);
    }
    vxr_scene *s;
    CHECK(vxr_scene_build(&src, &s, NULL) == VXR_OK);
    vxr_scene_src_free(&src);
    return s;
}

static void test_random_scenes(void) {
    vxr_ray rays[400];
    for (int round = 0; round < 6; round++) {
        vxr_scene *s = random_scene(1 + round, 2 + round * 4, round >= 2, round >= 3);
        random_rays(s, rays, 400);
        check_rays(s, rays, 400, 1);
        vxr_scene_destroy(s);
    }
}

static void test_grids(void) {
    vxr_ray rays[150];
    vxr_scene *s = random_scene(3, 8, 1, 1);
    random_rays(s, rays, 150);
    for (uint32_t g = 1; g <= 64; g *= 2) check_rays(s, rays, 150, g);
    vxr_scene_destroy(s);
}

static void test_real_files(void) {
    static const char *files[] = {"ogt__test_multiple_model_scene.vox", "vengi__test-transform.vox",
                                  "bevy_vox_scene__study.vox", "mmmm__scene_store8.vox"};
    vxr_ray rays[200];
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", VXR_TEST_DATA, files[f]);
        vxr_scene *s;
        vxr_error err;
        if (vxr_scene_load(path, &s, &err) != VXR_OK) {
            fprintf(stderr, "%s: %s\n", path, err.message);
            CHECK(0);
            continue;
        }
        int n = f < 2 ? 200 : 60;
        random_rays(s, rays, n);
        check_rays(s, rays, n, 1);
        check_rays(s, rays, n / 4, 4);
        vxr_scene_destroy(s);
    }
}

/* A scene of one model with the given voxels and instances. */
static vxr_scene *scene_of(const vxr_voxel *v, int n, const vxr_instance *in, int ni) {
    vxr_scene_src src;
    vxr_scene_src_init(&src, 1);
    uint32_t id;
    vxr_scene_src_add_model(&src, &id);
    for (int i = 0; i < n; i++)
        vxr_model_src_push(&src.models[0], v[i].x, v[i].y, v[i].z, v[i].color);
    for (int i = 0; i < ni; i++) vxr_scene_src_add_instance(&src, &in[i]);
    vxr_scene *s;
    CHECK(vxr_scene_build(&src, &s, NULL) == VXR_OK);
    vxr_scene_src_free(&src);
    return s;
}

static vxr_pick pick1(const vxr_scene *s, float ox, float oy, float oz, float dx, float dy,
                      float dz, uint32_t grid) {
    vxr_picker *p;
    vxr_pick r;
    vxr_ray ray = {{ox, oy, oz}, {dx, dy, dz}};
    vxr_picker_create(s, &p);
    vxr_pick_ray(p, &ray, grid, &r);
    vxr_picker_destroy(p);
    check_rays(s, &ray, 1, grid);
    return r;
}

static void test_named_cases(void) {
    vxr_voxel v[] = {{0, 0, 0, 1}, {1, 0, 0, 2}, {0, 1, 0, 3}, {5, 5, 5, 4}, {-3, 0, 0, 5}};
    vxr_instance id = {0, 0, vxr_transform_identity(), INFINITY};
    vxr_scene *s = scene_of(v, 5, &id, 1);
    /* axis-aligned ray from -x: enters voxel (-3,0,0) through face 0 */
    vxr_pick p = pick1(s, -10.5f, 0.5f, 0.5f, 1, 0, 0, 1);
    CHECK(p.hit && p.voxel[0] == -3 && p.face == 0 && p.t == 7.5f);
    CHECK(p.normal[0] == -1 && p.normal[1] == 0 && p.normal[2] == 0);
    /* from +z down onto (0,0,0): top face 4 */
    p = pick1(s, 0.25f, 0.25f, 9, 0, 0, -2, 1);
    CHECK(p.hit && p.voxel[0] == 0 && p.voxel[2] == 0 && p.face == 4 && p.t == 4.0f);
    CHECK(p.corner == 1 &&
          p.edge == 4); /* nearest to (0.25,0.25,1): corner 1 (0,0,1); edge 4 (1,3) at x=0 */
    CHECK(p.point[2] == 1.0f);
    /* origin inside a voxel: t = 0, face -1 */
    p = pick1(s, 0.5f, 0.5f, 0.5f, 1, 2, 3, 1);
    CHECK(p.hit && p.t == 0 && p.face == -1 && p.corner == -1 && p.edge == -1);
    /* inside the octree's bounds, in empty space */
    p = pick1(s, 3.5f, 3.5f, 3.5f, 1, 1, 1, 1);
    CHECK(p.hit && p.voxel[0] == 5 && p.t == 1.5f);
    /* everything behind the origin */
    p = pick1(s, 20, 0.5f, 0.5f, 1, 0, 0, 1);
    CHECK(!p.hit);
    /* a ray exactly along the plane y = 1 belongs to the cells above it */
    p = pick1(s, -1, 1, 0.5f, 1, 0, 0, 1);
    CHECK(p.hit && p.voxel[0] == 0 && p.voxel[1] == 1);
    /* a ray along y = 0 plane from below misses y=-1 cells and hits y=0 row */
    p = pick1(s, -1.5f, 0, 0.5f, 1, 0, 0, 1);
    CHECK(p.hit && p.voxel[0] == 0 && p.voxel[1] == 0 && p.t == 1.5f);
    /* through an edge exactly: passes diagonally into the cell beyond */
    p = pick1(s, -1, -1, 0.5f, 1, 1, 0, 1);
    CHECK(p.hit && p.voxel[0] == 0 && p.voxel[1] == 0 && p.face == 0 && p.t == 1);
    /* through a corner exactly */
    p = pick1(s, 3, 3, 3, 1, 1, 1, 1);
    CHECK(p.hit && p.voxel[0] == 5 && p.t == 2 && p.face == 0);
    /* grazing: along the top face plane z = 1 of row z=0: misses it */
    p = pick1(s, -5, 0.5f, 1, 1, 0, 0, 1);
    CHECK(!p.hit);
    /* grid 2: the cube (0,0,0)-(2,2,2) holds three voxels */
    p = pick1(s, 1.5f, 1.5f, 9, 0, 0, -1, 2);
    CHECK(p.hit && p.size == 2 && p.voxel[0] == 0 && p.t == 7);
    vxr_scene_destroy(s);

    /* overlapping instances: the same model twice, one shifted by 0.5 */
    vxr_instance two[2] = {id, id};
    two[1].transform.translation[0] = -0.5f;
    s = scene_of(v, 5, two, 2);
    p = pick1(s, -10, 0.5f, 0.5f, 1, 0, 0, 1);
    CHECK(p.hit && p.instance == 1 && p.t == 6.5f);
    vxr_scene_destroy(s);

    /* a small octree in front of a large one whose centre is nearer to the
     * origin (the seed's centre-distance order would try the large first) */
    vxr_instance big = id, small = id;
    big.transform.scale = 16;
    for (int k = 0; k < 3; k++) big.transform.translation[k] = -40;
    small.transform.translation[0] = 8;
    vxr_instance both[2] = {big, small};
    s = scene_of(v, 5, both, 2);
    p = pick1(s, -10, 0.5f, 0.5f, 1, 0, 0, 1);
    CHECK(p.hit && p.instance == 1 && p.t == 15 && p.voxel[0] == -3);
    vxr_scene_destroy(s);

    /* rotated instance: 90 degrees about z */
    vxr_instance rot = id;
    float R[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1};
    memcpy(rot.transform.rotation, R, sizeof R);
    s = scene_of(v, 5, &rot, 1);
    /* model voxel (-3,0,0) is at world cell x in [-1,0), y in [-3,-2) */
    p = pick1(s, -0.5f, -10, 0.5f, 0, 1, 0, 1);
    CHECK(p.hit && p.voxel[0] == -3 && p.face == 0 && p.t == 7);
    CHECK(p.normal[1] == -1);
    vxr_scene_destroy(s);
}

/* The seed's errata (DESIGN.md §3), each pinned by vxr's correct answer. */
static void test_seed_errata(void) {
    /* Edge and corner tables: every listed corner lies on its face, every
     * edge's corners lie on its face, edge k runs along axis k mod 3; the
     * front and back rows are the ones Inexor's table gets wrong. */
    static const int face_axis[6] = {0, 0, 1, 1, 2, 2}, face_side[6] = {0, 1, 0, 1, 1, 0};
    for (int f = 0; f < 6; f++) {
        int bit = 2 - face_axis[f];
        for (int j = 0; j < 4; j++) {
            CHECK(((vxr_face_corners[f][j] >> bit) & 1) == face_side[f]);
            int e = vxr_face_edges[f][j];
            for (int c = 0; c < 2; c++)
                CHECK(((vxr_edge_corners[e][c] >> bit) & 1) == face_side[f]);
        }
    }
    for (int e = 0; e < 12; e++) {
        int diff = vxr_edge_corners[e][0] ^ vxr_edge_corners[e][1];
        CHECK(diff == 1 << (2 - e % 3));
    }
    const uint8_t front[4] = {0, 2, 5, 9}, back[4] = {3, 6, 8, 11};
    CHECK(!memcmp(vxr_face_edges[2], front, 4) && !memcmp(vxr_face_edges[3], back, 4));

    vxr_voxel v[64];
    int n = 0;
    for (int x = 0; x < 4; x++)
        for (int y = 0; y < 4; y++)
            for (int z = 0; z < 4; z++, n++) v[n] = (vxr_voxel){x + 8, y, z, 1 + (uint32_t)n};
    vxr_instance id = {0, 0, vxr_transform_identity(), INFINITY};
    vxr_scene *s = scene_of(v, n, &id, 1);
    /* corners 6 = (1,1,0) and 7 = (1,1,1), not swapped: a ray entering the
     * right face (+X, from +x) near (x+1, y+1, z) picks corner 6 */
    vxr_pick p = pick1(s, 20, 0.9f, 0.1f, -1, 0, 0, 1);
    CHECK(p.hit && p.face == 1 && p.corner == 6 && p.voxel[0] == 11);
    CHECK(p.corner_point[0] == 12 && p.corner_point[1] == 1 && p.corner_point[2] == 0);
    p = pick1(s, 20, 0.9f, 0.9f, -1, 0, 0, 1);
    CHECK(p.corner == 7 && p.corner_point[2] == 1);
    /* the leaf, not the root's direct child: a one-voxel cube */
    CHECK(p.size == 1 && p.world_max[0] - p.world_min[0] == 1);
    vxr_scene_destroy(s);
}

/* The walk starts at the box of the voxels (out to the grid), not the
 * root cube: a model in one corner of a large root, rays through the empty
 * rest of it from every side, along the axes, through cell planes, at
 * every grid; and a lone voxel far from the origin. */
static void test_voxel_bounds(void) {
    vxr_voxel v[64];
    int n = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            if ((i + j) % 3) v[n++] = (vxr_voxel){37 + i, -21 + j, 5 + (i ^ j), 9};
    v[n++] = (vxr_voxel){-60, 44, -3, 4}; /* stretches the root and the bounds */
    vxr_instance in[2] = {{0, 0, vxr_transform_identity(), INFINITY},
                          {0, 0, vxr_transform_identity(), INFINITY}};
    in[1].transform.translation[0] = 3.5f;
    in[1].transform.scale = 2;
    vxr_scene *s = scene_of(v, n, in, 2);
    vxr_ray rays[240];
    random_rays(s, rays, 200);
    for (int i = 200; i < 240; i++) { /* along an axis through the group's rows */
        int k = i % 3;
        rays[i] = (vxr_ray){{37.5f + (float)(i % 4), -20.5f + (float)(i / 4 % 4), 6}, {0, 0, 0}};
        rays[i].origin[k] = i % 2 ? -200.0f : 200.0f;
        rays[i].dir[k] = i % 2 ? 1.0f : -1.0f;
    }
    for (uint32_t g = 1; g <= 128; g *= 2) check_rays(s, rays, 240, g);
    vxr_scene_destroy(s);
    vxr_voxel lone = {1000, -777, 300, 3};
    s = scene_of(&lone, 1, in, 1);
    random_rays(s, rays, 120);
    for (uint32_t g = 1; g <= 1024; g *= 4) check_rays(s, rays, 120, g);
    vxr_scene_destroy(s);
}

static void test_bad_grid(void) {
    vxr_voxel v[] = {{0, 0, 0, 1}};
    vxr_instance id = {0, 0, vxr_transform_identity(), INFINITY};
    vxr_scene *s = scene_of(v, 1, &id, 1);
    vxr_picker *p;
    vxr_picker_create(s, &p);
    vxr_ray r = {{0, 0, 5}, {0, 0, -1}};
    vxr_pick out;
    CHECK(vxr_pick_ray(p, &r, 3, &out) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_pick_ray(p, &r, 1u << 21, &out) == VXR_ERROR_ARGUMENT);
    vxr_picker_destroy(p);
    vxr_scene_destroy(s);
}

/* The hierarchy of a scene: its records, then vxr_bvh_build. */
static void hierarchy(const vxr_scene *s, vxr_bvh *dest) {
    vxr_gpu_instance *records = malloc(s->instance_count * sizeof *records);
    vxr_instance_records(s, records);
    CHECK(vxr_bvh_build(s, records, dest) == VXR_OK);
    free(records);
}

/* The instance hierarchy (vxr/bvh.h): identical instances collapse to the
 * lowest visible index, and picks still equal the brute-force oracle over
 * every instance (ties go to that index); instances of distinct models at
 * one spot (equal centres) still split evenly, so the depth, and the walk's
 * stack, stay within the bound. */
static void test_hierarchy(void) {
    enum { K = 3000 };
    vxr_scene_src src;
    vxr_scene_src_init(&src, 1);
    for (uint32_t m = 0; m < K; m++) {
        uint32_t id;
        CHECK(vxr_scene_src_add_model(&src, &id) == VXR_OK);
        for (int32_t v = 0; v < 27; v++)
            if (m == 0 || v % 2 == 0)
                vxr_model_src_push(&src.models[id], v % 3, v / 3 % 3, v / 9, 7);
    }
    /* a hidden copy first, then K copies of model 0 at two spots, interleaved */
    for (uint32_t i = 0; i <= K; i++) {
        vxr_instance in = {0, i == 0 ? VXR_INSTANCE_HIDDEN : 0, vxr_transform_identity(), INFINITY};
        in.transform.translation[0] = i % 2 ? 0.0f : 5.0f;
        CHECK(vxr_scene_src_add_instance(&src, &in) == VXR_OK);
    }
    vxr_scene *s = NULL;
    CHECK(vxr_scene_build(&src, &s, NULL) == VXR_OK);
    vxr_bvh bvh;
    hierarchy(s, &bvh);
    CHECK_EQ_INT(bvh.item_count, 2);
    CHECK((bvh.items[0] == 1 && bvh.items[1] == 2) || (bvh.items[0] == 2 && bvh.items[1] == 1));
    vxr_bvh_free(&bvh);
    vxr_ray rays[300];
    random_rays(s, rays, 300);
    check_rays(s, rays, 300, 1);
    vxr_scene_destroy(s);
    /* K distinct models at one spot */
    for (uint32_t i = 0; i < K; i++) src.instances[i + 1].model = i;
    src.instances[0].flags = 0;
    CHECK(vxr_scene_build(&src, &s, NULL) == VXR_OK);
    hierarchy(s, &bvh);
    CHECK_EQ_INT(bvh.item_count, K + 1); /* and the formerly hidden copy */
    uint32_t bound = 0, leaves = (K + 1 + VXR_BVH_LEAF - 1) / VXR_BVH_LEAF;
    while ((1u << bound) < leaves) bound++; /* ceil(log2 leaves): median splits */
    CHECK(bvh.depth <= bound && bvh.depth <= VXR_BVH_MAX_DEPTH);
    fprintf(stderr, "  %u items at one spot: depth %u\n", bvh.item_count, bvh.depth);
    vxr_bvh_free(&bvh);
    random_rays(s, rays, 300);
    check_rays(s, rays, 300, 1);
    vxr_scene_destroy(s);
    vxr_scene_src_free(&src);
}

/* vxr_pick_rays over threads: the records of vxr_pick_ray one by one, bit
 * for bit, for every thread count, and from two callers at once (one of
 * them finds the workers busy and runs alone). */
typedef struct rays_call {
    const vxr_picker *p;
    const vxr_ray *rays;
    int n;
    uint32_t grid;
    vxr_pick *dest;
    vxr_result r;
} rays_call;

static void *call_pick_rays(void *arg) {
    rays_call *c = arg;
    c->r = vxr_pick_rays(c->p, c->rays, (size_t)c->n, c->grid, c->dest);
    return NULL;
}

static void test_threads(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", VXR_TEST_DATA, "mmmm__scene_store8.vox");
    vxr_scene *s;
    vxr_error err;
    if (vxr_scene_load(path, &s, &err) != VXR_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        CHECK(0);
        return;
    }
    enum { N = 20000 };
    vxr_ray *rays = malloc(N * sizeof *rays);
    vxr_pick *want = malloc(N * sizeof *want), *got = malloc(N * sizeof *got),
             *other = malloc(N * sizeof *other);
    vxr_picker *p;
    CHECK(rays && want && got && other && vxr_picker_create(s, &p) == VXR_OK);
    random_rays(s, rays, N);
    for (uint32_t grid = 1; grid <= 4; grid *= 4) {
        for (int i = 0; i < N; i++) CHECK(vxr_pick_ray(p, &rays[i], grid, &want[i]) == VXR_OK);
        static const uint32_t threads[] = {1, 2, 3, 8, 0};
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            vxr_picker_set_threads(p, threads[t]);
            memset(got, 0xa5, N * sizeof *got);
            CHECK(vxr_pick_rays(p, rays, N, grid, got) == VXR_OK);
            CHECK(memcmp(got, want, N * sizeof *got) == 0);
        }
        /* two callers at once, each with all the threads it may get */
        vxr_picker_set_threads(p, 0);
        memset(got, 0xa5, N * sizeof *got);
        memset(other, 0x5a, N * sizeof *other);
        rays_call a = {p, rays, N, grid, got, VXR_ERROR_ARGUMENT},
                  b = {p, rays, N, grid, other, VXR_ERROR_ARGUMENT};
        pthread_t ta, tb;
        CHECK(pthread_create(&ta, NULL, call_pick_rays, &a) == 0);
        CHECK(pthread_create(&tb, NULL, call_pick_rays, &b) == 0);
        pthread_join(ta, NULL);
        pthread_join(tb, NULL);
        CHECK(a.r == VXR_OK && b.r == VXR_OK);
        CHECK(memcmp(got, want, N * sizeof *got) == 0);
        CHECK(memcmp(other, want, N * sizeof *other) == 0);
    }
    /* a bad grid is refused before anything is picked */
    memset(got, 0xa5, sizeof *got);
    CHECK(vxr_pick_rays(p, rays, N, 3, got) == VXR_ERROR_ARGUMENT);
    CHECK(((const unsigned char *)got)[0] == 0xa5);
    vxr_picker_destroy(p);
    free(rays);
    free(want);
    free(got);
    free(other);
    vxr_scene_destroy(s);
}

int main(int argc, char **argv) {
    static const vxr_test_case tests[] = {
        TEST(test_named_cases), TEST(test_random_scenes), TEST(test_grids),
        TEST(test_real_files),  TEST(test_bad_grid),      TEST(test_seed_errata),
        TEST(test_hierarchy),   TEST(test_threads),       TEST(test_voxel_bounds),
    };
    int r = RUN_TESTS(tests);
    fprintf(stderr, "%d picks compared, %d forgiven as float/double near ties\n", compared,
            near_ties);
    return r;
}
