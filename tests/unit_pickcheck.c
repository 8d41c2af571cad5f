/* The pick comparison and the vendor-GPU tolerance (vxr/pickcheck.h), on
 * the CPU: boundary cases are forgiven, nothing else is. */
#include <math.h>
#include "vxr/formats.h"
#include "vxr/pickcheck.h"
#include "vxr_test.h"

static vxr_scene *scene;

static void make_scene(void) {
    vxr_scene_src src;
    vxr_scene_src_init(&src, 1);
    uint32_t id;
    CHECK(vxr_scene_src_add_model(&src, &id) == VXR_OK);
    static const int32_t v[][3] = {{0, 0, 0}, {1, 0, 0}, {5, 5, 5}, {0, 1, 0}};
    for (int i = 0; i < 4; i++)
        CHECK(vxr_model_src_push(&src.models[0], v[i][0], v[i][1], v[i][2], (uint32_t)(i + 1)) ==
              VXR_OK);
    vxr_instance in = {
        .model = 0, .transform = vxr_transform_identity(), .view_distance = INFINITY};
    CHECK(vxr_scene_src_add_instance(&src, &in) == VXR_OK);
    CHECK(vxr_scene_build(&src, &scene, NULL) == VXR_OK);
    vxr_scene_src_free(&src);
}

static vxr_pick pick(const vxr_ray *ray) {
    vxr_picker *p;
    vxr_pick r;
    CHECK(vxr_picker_create(scene, &p) == VXR_OK);
    CHECK(vxr_pick_ray(p, ray, 1, &r) == VXR_OK);
    vxr_picker_destroy(p);
    return r;
}

static void test_diff(void) {
    vxr_ray r = {{0.5f, 0.5f, 10}, {0, 0, -1}};
    vxr_pick a = pick(&r), b = a;
    CHECK(a.hit && a.voxel[0] == 0 && a.face == 4);
    CHECK_EQ_INT(vxr_pick_diff(&a, &b), 0);
    b.t = nextafterf(a.t, INFINITY);
    CHECK_EQ_INT(vxr_pick_diff(&a, &b), VXR_DIFF_T);
    b.face = 2;
    b.edge = 3;
    char names[64];
    vxr_pick_diff_names(vxr_pick_diff(&a, &b), names, sizeof names);
    CHECK(!strcmp(names, "face,edge,t"));
    vxr_pick miss = {0}, miss2 = {0};
    miss2.t = 3; /* fields of a miss do not count */
    CHECK_EQ_INT(vxr_pick_diff(&miss, &miss2), 0);
    CHECK_EQ_INT(vxr_pick_diff(&a, &miss), VXR_DIFF_HIT);
}

static void test_forgiven(void) {
    const double eps = 1e-4;
    /* Straight down the face shared by voxels (0,0,0) and (1,0,0): the two
     * sides of the boundary give different cubes at the same t. */
    vxr_ray on = {{1.0f, 0.5f, 10}, {0, 0, -1}}, left = {{0.9999999f, 0.5f, 10}, {0, 0, -1}};
    vxr_pick a = pick(&on), b = pick(&left);
    CHECK(a.hit && b.hit && a.voxel[0] == 1 && b.voxel[0] == 0);
    CHECK(vxr_pick_diff(&a, &b) & VXR_DIFF_VOXEL);
    CHECK(vxr_pick_near_boundary(scene, &on, &a, &b, eps));
    /* The last bit of t. */
    vxr_pick c = a;
    c.t = nextafterf(a.t, 0);
    CHECK(vxr_pick_near_boundary(scene, &on, &a, &c, eps));
    /* Through an edge of the entry face: another face of the same cube. */
    vxr_ray edge = {{-1, 0.5f, 2.0f}, {1, 0, -1}};
    vxr_pick e = pick(&edge), f = e;
    CHECK(e.hit);
    f.face = f.face == 0 ? 4 : 0;
    CHECK(vxr_pick_near_boundary(scene, &edge, &e, &f, eps));
    /* The middle of a face is equally far from all four edges' ends: a
     * ray through the centre ties every corner. */
    vxr_ray centre = {{0.5f, 0.5f, 10}, {0, 0, -1}};
    vxr_pick m = pick(&centre), n = m;
    n.corner = vxr_face_corners[m.face][3];
    CHECK(m.corner != n.corner && vxr_pick_near_boundary(scene, &centre, &m, &n, eps));
    /* Clipping a corner of voxel (5,5,5) by 1e-6, against a miss. */
    vxr_ray clip = {{-5.0f, -4.0f - 1e-6f, 5.5f}, {1, 1, 0}};
    vxr_pick g = pick(&clip), miss = {0};
    CHECK(g.hit && g.voxel[0] == 5 && vxr_pick_near_boundary(scene, &clip, &g, &miss, eps));
}

static void test_not_forgiven(void) {
    const double eps = 1e-4;
    vxr_ray r = {{0.2f, 0.3f, 10}, {0, 0, -1}}, far = {{5.5f, 5.5f, 10}, {0, 0, -1}};
    vxr_pick a = pick(&r), b = pick(&far), miss = {0};
    CHECK(a.hit && b.hit);
    /* A different cube, far from any boundary. */
    CHECK(!vxr_pick_near_boundary(scene, &r, &a, &b, eps));
    /* A solid hit in the middle of a face against a miss. */
    CHECK(!vxr_pick_near_boundary(scene, &r, &a, &miss, eps));
    /* t off by far more than the float error. */
    vxr_pick c = a;
    c.t = a.t + 0.01f;
    CHECK(!vxr_pick_near_boundary(scene, &r, &a, &c, eps));
    /* Another face or corner in the middle of a face. */
    c = a;
    c.face = 2;
    CHECK(!vxr_pick_near_boundary(scene, &r, &a, &c, eps));
    c = a;
    c.corner = 7;
    CHECK(!vxr_pick_near_boundary(scene, &r, &a, &c, eps));
    c = a;
    c.color ^= 1;
    CHECK(!vxr_pick_near_boundary(scene, &r, &a, &c, eps));
}

int main(int argc, char **argv) {
    make_scene();
    static const vxr_test_case tests[] = {TEST(test_diff), TEST(test_forgiven),
                                          TEST(test_not_forgiven)};
    int r = RUN_TESTS(tests);
    vxr_scene_destroy(scene);
    return r;
}
