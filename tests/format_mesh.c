/* Meshes (vxr/mesh.h) against the voxels, by brute force: every unit
 * square a quad covers is a face between a solid cell of the quad's colour
 * and an empty one, no square twice, and the squares number the exposed
 * faces (so the mesh covers exactly the surface); greedy and cubes agree.
 * Then rays: the nearest triangle of the world-placed meshes (every
 * triangle tried, in double) is where vxr_pick_ray hits, with its normal
 * and colour, over scenes with many rotated instances. The writers' files
 * are checked for their counts and layout. */
#include <math.h>
#include <string.h>
#include "internal.h" /* core/: the byte order helpers */
#include "vxr_test.h"
#include "vxr/mesh.h"
#include "vxr/pick.h"
#include "format_records.h"

typedef struct faces {
    const vxr_octree *t;
    uint64_t exposed;
} faces;

static void count_exposed(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    (void)attr;
    faces *f = user;
    const int32_t p[3] = {x, y, z};
    for (int d = 0; d < 6; d++) {
        int32_t q[3] = {p[0], p[1], p[2]};
        q[d / 2] += d & 1 ? 1 : -1;
        uint32_t a;
        f->exposed += !vxr_octree_lookup(f->t, q[0], q[1], q[2], &a);
    }
}

static int cmp_u64(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The mesh of model m covers exactly its exposed faces; returns its quad
 * count. */
static size_t check_coverage(const vxr_scene *s, uint32_t m, vxr_mesh_mode mode) {
    vxr_mesh mesh;
    CHECK(vxr_mesh_build(s, m, mode, &mesh, NULL) == VXR_OK);
    const vxr_octree *t = &s->models[m];
    faces f = {t, 0};
    vxr_octree_foreach(t, count_exposed, &f);
    /* each unit square as (direction, cell): 3 + 3 x 20 bits */
    uint64_t *units = malloc((f.exposed + 1) * sizeof *units);
    size_t n = 0, bad = 0;
    for (size_t q = 0; q < mesh.quad_count; q++) {
        const float *p = mesh.positions + 12 * q, *nrm = mesh.normals + 12 * q;
        const int a = nrm[0] != 0 ? 0 : nrm[1] != 0 ? 1 : 2, ua = (a + 1) % 3, va = (a + 2) % 3;
        const bool positive = nrm[a] > 0;
        float lo[3], hi[3];
        for (int k = 0; k < 3; k++) {
            lo[k] = hi[k] = p[k];
            for (int c = 1; c < 4; c++) {
                lo[k] = fminf(lo[k], p[3 * c + k]);
                hi[k] = fmaxf(hi[k], p[3 * c + k]);
            }
        }
        CHECK(lo[a] == hi[a] && hi[ua] > lo[ua] && hi[va] > lo[va]);
        for (int32_t u = (int32_t)lo[ua]; u < (int32_t)hi[ua]; u++)
            for (int32_t v = (int32_t)lo[va]; v < (int32_t)hi[va]; v++) {
                int32_t in[3], out[3];
                in[a] = (int32_t)lo[a] - (positive ? 1 : 0);
                out[a] = in[a] + (positive ? 1 : -1);
                in[ua] = out[ua] = u;
                in[va] = out[va] = v;
                uint32_t attr, dummy;
                const bool solid = vxr_octree_lookup(t, in[0], in[1], in[2], &attr);
                const bool empty = !vxr_octree_lookup(t, out[0], out[1], out[2], &dummy);
                const uint32_t rgba =
                    (s->attr_size == 1 ? s->palette[attr & 255] : attr) | 0xff000000u;
                bad += !solid || !empty || mesh.colors[4 * q] != rgba;
                if (n <= f.exposed)
                    units[n] = (uint64_t)(2 * a + positive) << 60 |
                               (uint64_t)(in[0] + (1 << 19)) << 40 |
                               (uint64_t)(in[1] + (1 << 19)) << 20 | (uint64_t)(in[2] + (1 << 19));
                n++;
            }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(n, f.exposed);
    if (n == f.exposed) {
        qsort(units, n, sizeof *units, cmp_u64);
        size_t twice = 0;
        for (size_t i = 1; i < n; i++) twice += units[i] == units[i - 1];
        CHECK_EQ_INT(twice, 0);
    }
    if (mode == VXR_MESH_CUBES) CHECK_EQ_INT(mesh.quad_count, f.exposed);
    const size_t quads = mesh.quad_count;
    free(units);
    vxr_mesh_free(&mesh);
    return quads;
}

/* ---- rays ---- */

/* Moller and Trumbore (1997), in double, edges included. */
static bool ray_triangle(const double o[3], const double d[3], const double *v0, const double *v1,
                         const double *v2, double *t) {
    double e1[3], e2[3], p[3], q[3], s[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = v1[k] - v0[k];
        e2[k] = v2[k] - v0[k];
        s[k] = o[k] - v0[k];
    }
    p[0] = d[1] * e2[2] - d[2] * e2[1];
    p[1] = d[2] * e2[0] - d[0] * e2[2];
    p[2] = d[0] * e2[1] - d[1] * e2[0];
    const double det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
    if (fabs(det) < 1e-12) return false;
    const double u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) / det;
    if (u < 0 || u > 1) return false;
    q[0] = s[1] * e1[2] - s[2] * e1[1];
    q[1] = s[2] * e1[0] - s[0] * e1[2];
    q[2] = s[0] * e1[1] - s[1] * e1[0];
    const double v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) / det;
    if (v < 0 || u + v > 1) return false;
    *t = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / det;
    return *t >= 0;
}

static void world(const vxr_transform *tr, const float *p, double w[3]) {
    for (int i = 0; i < 3; i++)
        w[i] = (double)tr->scale *
                   ((double)tr->rotation[3 * i] * p[0] + (double)tr->rotation[3 * i + 1] * p[1] +
                    (double)tr->rotation[3 * i + 2] * p[2]) +
               (double)tr->translation[i];
}

static void check_rays(const vxr_scene *s, const vxr_mesh *meshes, int rays, const char *what) {
    vxr_picker *picker = NULL;
    CHECK(vxr_picker_create(s, &picker) == VXR_OK);
    if (!picker) return;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const vxr_mesh *m = &meshes[s->instances[i].model];
        for (size_t v = 0; v < 4 * m->quad_count; v++) {
            double w[3];
            world(&s->instances[i].transform, m->positions + 3 * v, w);
            for (int k = 0; k < 3; k++) {
                lo[k] = fmin(lo[k], w[k]);
                hi[k] = fmax(hi[k], w[k]);
            }
        }
    }
    /* from a sphere around the bounds toward a random quad's neighbourhood */
    double center[3], radius = 1;
    for (int k = 0; k < 3; k++) {
        center[k] = (lo[k] + hi[k]) / 2;
        radius += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    }
    radius = sqrt(radius);
    uint64_t seed = 12345;
    int hits = 0, agree = 0;
    for (int r = 0; r < rays; r++) {
        double o[3], target[3], d[3], u[6], len = 0;
        for (int k = 0; k < 6; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            u[k] = (double)(seed >> 11) / 9007199254740992.0;
        }
        const vxr_instance *aim = &s->instances[(size_t)(u[3] * s->instance_count)];
        const vxr_mesh *am = &meshes[aim->model];
        if (am->quad_count)
            world(&aim->transform, am->positions + 12 * (size_t)(u[4] * (double)am->quad_count),
                  target);
        else
            memcpy(target, center, sizeof target);
        for (int k = 0; k < 3; k++) {
            o[k] = 2 * u[k] - 1;
            len += o[k] * o[k];
            target[k] += u[5] - 0.5;
        }
        for (int k = 0; k < 3; k++) o[k] = center[k] + radius * o[k] / sqrt(len + 1e-30);
        vxr_ray ray;
        for (int k = 0; k < 3; k++) {
            ray.origin[k] = (float)o[k];
            ray.dir[k] = (float)(target[k] - o[k]);
            o[k] = ray.origin[k];
            d[k] = ray.dir[k];
        }
        /* the nearest triangle hit; with overlapping instances, faces of
         * several colours can lie at one t (as float rounds it per
         * instance): any of those colours is the pick's to report */
        vxr_pick pick;
        CHECK(vxr_pick_ray(picker, &ray, 1, &pick) == VXR_OK);
        double best = INFINITY;
        bool color_seen = false;
        for (int pass = 0; pass < 2; pass++)
            for (uint32_t i = 0; i < s->instance_count; i++) {
                const vxr_instance *in = &s->instances[i];
                if (in->flags & VXR_INSTANCE_HIDDEN) continue;
                const vxr_mesh *m = &meshes[in->model];
                for (size_t q = 0; q < m->quad_count; q++) {
                    double w[4][3], t;
                    for (int c = 0; c < 4; c++)
                        world(&in->transform, m->positions + 12 * q + 3 * c, w[c]);
                    if (!ray_triangle(o, d, w[0], w[1], w[2], &t) &&
                        !ray_triangle(o, d, w[0], w[2], w[3], &t))
                        continue;
                    if (pass == 0 && t < best) best = t;
                    if (pass == 1 && fabs(t - best) <= 1e-5 * (1 + best) &&
                        (m->colors[4 * q] | 0xff000000u) == (pick.color | 0xff000000u))
                        color_seen = true;
                }
            }
        const bool mesh_hit = isfinite(best);
        bool ok = mesh_hit == (pick.hit != 0);
        if (ok && mesh_hit) {
            hits++;
            ok = fabs(best - pick.t) <= 1e-5 * (1 + best) && color_seen;
        }
        if (!ok)
            fprintf(stderr, "  %s ray %d: mesh t %.9g, pick hit %d t %.9g colour %08x\n", what, r,
                    best, pick.hit, (double)pick.t, pick.color);
        agree += ok;
    }
    CHECK(hits > rays / 4);
    CHECK_EQ_INT(agree, rays);
    vxr_picker_destroy(picker);
}

/* merges: the scene has same-coloured neighbours (@menger:2 colours each
 * voxel apart from its neighbours: no merge). */
static void check_scene(const char *path, bool merges) {
    vxr_scene *s = load_file(path);
    if (!s) return;
    for (int mode = 0; mode < 2; mode++) {
        vxr_mesh *meshes = calloc(s->model_count, sizeof *meshes);
        size_t greedy = 0, cubes = 0;
        for (uint32_t m = 0; m < s->model_count; m++) {
            if (mode == 0) {
                greedy += check_coverage(s, m, VXR_MESH_GREEDY);
                cubes += check_coverage(s, m, VXR_MESH_CUBES);
            }
            CHECK(vxr_mesh_build(s, m, mode ? VXR_MESH_CUBES : VXR_MESH_GREEDY, &meshes[m], NULL) ==
                  VXR_OK);
        }
        if (mode == 0) CHECK(merges ? greedy < cubes : greedy == cubes);
        check_rays(s, meshes, mode ? 50 : 200, path); /* cubes: coverage shown above */
        for (uint32_t m = 0; m < s->model_count; m++) vxr_mesh_free(&meshes[m]);
        free(meshes);
    }
    vxr_scene_destroy(s);
}

static void test_mesh_robot(void) {
    check_scene(VXR_TEST_DATA "/mmmm__chr_robot.vox", true);
}

static void test_mesh_instances(void) {
    /* rotated and mirrored instances of several models */
    check_scene(VXR_TEST_DATA "/vengi__test-transform.vox", true);
    check_scene(VXR_TEST_DATA "/vengi__8ontop.vox", true);
}

static void test_mesh_procedural(void) {
    check_scene("@menger:2", false);
}

/* ---- the files ---- */

static void test_mesh_files(void) {
    vxr_scene *s = load_file(VXR_TEST_DATA "/vengi__8ontop.vox");
    if (!s) return;
    size_t quads = 0, shown = 0;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        if (s->instances[i].flags & VXR_INSTANCE_HIDDEN) continue;
        vxr_mesh m;
        CHECK(vxr_mesh_build(s, s->instances[i].model, VXR_MESH_GREEDY, &m, NULL) == VXR_OK);
        quads += m.quad_count;
        shown += m.quad_count > 0;
        vxr_mesh_free(&m);
    }
    uint8_t *d = NULL;
    size_t n = 0;
    /* .glb: header, JSON chunk, BIN chunk, lengths adding up */
    CHECK(vxr_save_mesh(s, VXR_MESH_GLB, VXR_MESH_GREEDY, &d, &n, NULL) == VXR_OK);
    CHECK(n > 28 && !memcmp(d, "glTF", 4) && vxr_get32(d + 4) == 2 && vxr_get32(d + 8) == n);
    const uint32_t json = d ? vxr_get32(d + 12) : 0;
    CHECK(json % 4 == 0 && !memcmp(d + 16, "JSON", 4) && 20 + json + 8 <= n);
    CHECK(!memcmp(d + 20 + json + 4, "BIN\0", 4) && 28 + json + vxr_get32(d + 20 + json) == n);
    free(d);
    /* .ply: its header's counts, then exactly that many records */
    CHECK(vxr_save_mesh(s, VXR_MESH_PLY, VXR_MESH_GREEDY, &d, &n, NULL) == VXR_OK);
    char head[512];
    snprintf(head, sizeof head, "element vertex %zu\n", 4 * quads);
    CHECK(d && strstr((const char *)d, head));
    const char *end = d ? strstr((const char *)d, "end_header\n") : NULL;
    CHECK(end && (size_t)(end + 11 - (const char *)d) + 4 * quads * 27 + quads * 17 == n);
    free(d);
    /* .obj: a vertex line per vertex, a face line per quad, an object per
     * shown instance */
    CHECK(vxr_save_mesh(s, VXR_MESH_OBJ, VXR_MESH_GREEDY, &d, &n, NULL) == VXR_OK);
    size_t v = 0, f = 0, o = 0;
    for (size_t i = 0; d && i + 1 < n; i++)
        if (i == 0 || d[i - 1] == '\n') {
            v += d[i] == 'v' && d[i + 1] == ' ';
            f += d[i] == 'f' && d[i + 1] == ' ';
            o += d[i] == 'o' && d[i + 1] == ' ';
        }
    CHECK_EQ_INT(v, 4 * quads);
    CHECK_EQ_INT(f, quads);
    CHECK_EQ_INT(o, shown);
    free(d);
    vxr_scene_destroy(s);
}

VXR_TEST_MAIN(TEST(test_mesh_robot), TEST(test_mesh_instances), TEST(test_mesh_procedural),
              TEST(test_mesh_files))
