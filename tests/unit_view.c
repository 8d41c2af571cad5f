/* The viewer's pure parts (tools/view/camera.c, overlay.c): camera moves
 * keep what they promise, and the overlay lies where the picked cube is
 * and projects onto the pixel that picked it. */
#include <math.h>
#include "camera.h"
#include "overlay.h"
#include "vxr/formats.h"
#include "vxr/pick.h"
#include "vxr_test.h"

static float dist3(const float a[3], const float b[3]) {
    float d = 0;
    for (int k = 0; k < 3; k++) d += (a[k] - b[k]) * (a[k] - b[k]);
    return sqrtf(d);
}

static bool near3(const float a[3], const float b[3], float eps) {
    return dist3(a, b) <= eps;
}

static vxr_camera start(void) {
    vxr_camera c = {.eye = {30, -40, 20}, .target = {1, 2, 3}, .width = 160, .height = 120};
    vxr_camera_setup(&c);
    return c;
}

static void test_orbit_and_look(void) {
    vxr_camera c = start();
    const float d0 = dist3(c.eye, c.target), target[3] = {1, 2, 3};
    view_orbit(&c, 0.7f, 0.3f);
    CHECK(near3(c.target, target, 0));
    CHECK(fabsf(dist3(c.eye, c.target) - d0) < 1e-3f * d0);
    /* pitch stops short of the pole: up stays +Z and the camera valid */
    view_orbit(&c, 0.0f, 10.0f);
    float d[3] = {c.target[0] - c.eye[0], c.target[1] - c.eye[1], c.target[2] - c.eye[2]};
    CHECK(-d[2] / d0 <= sinf(VIEW_MAX_PITCH) + 1e-4f);
    CHECK(vxr_camera_setup(&c) == VXR_OK);
    /* look turns the target about the eye */
    vxr_camera l = start();
    const float eye[3] = {30, -40, 20};
    view_look(&l, -0.4f, 0.2f);
    CHECK(near3(l.eye, eye, 0));
    CHECK(fabsf(dist3(l.eye, l.target) - d0) < 1e-3f * d0);
    CHECK(!near3(l.target, target, 1.0f));
}

static void test_pan_zoom_fly(void) {
    vxr_camera c = start();
    const float d0 = dist3(c.eye, c.target);
    float eye0[3], target0[3];
    memcpy(eye0, c.eye, sizeof eye0);
    memcpy(target0, c.target, sizeof target0);
    view_pan(&c, 10, -5);
    float de[3], dt[3];
    for (int k = 0; k < 3; k++) {
        de[k] = c.eye[k] - eye0[k];
        dt[k] = c.target[k] - target0[k];
    }
    CHECK(near3(de, dt, 1e-4f));
    float along = de[0] * c.forward[0] + de[1] * c.forward[1] + de[2] * c.forward[2];
    CHECK(fabsf(along) < 1e-4f);
    /* what lies at the target's depth follows the mouse: 10 and 5 pixels */
    float px = 2.0f * d0 * c.tan_half_fov / (float)c.height, zero[3] = {0, 0, 0};
    CHECK(fabsf(dist3(de, zero) - px * sqrtf(125.0f)) < 1e-3f * px);
    /* zoom: the distance scales by the step, the target stays */
    memcpy(target0, c.target, sizeof target0);
    view_zoom(&c, 2);
    CHECK(near3(c.target, target0, 0));
    CHECK(fabsf(dist3(c.eye, c.target) - d0 * VIEW_ZOOM_STEP * VIEW_ZOOM_STEP) < 1e-3f * d0);
    view_zoom(&c, 1000);
    CHECK(fabsf(dist3(c.eye, c.target) - VIEW_MIN_DISTANCE) < 1e-5f);
    /* fly: along forward and right of the last setup, rise along +Z */
    vxr_camera f = start();
    memcpy(eye0, f.eye, sizeof eye0);
    view_fly(&f, 1, 0, 1, 2.0f);
    for (int k = 0; k < 3; k++) de[k] = f.eye[k] - eye0[k] - 2.0f * f.forward[k];
    const float up2[3] = {0, 0, 2};
    CHECK(near3(de, up2, 1e-4f));
}

/* A pick of pixel (i, j) of cam on @demo, with its ray; false on a miss. */
static bool pick_pixel(const vxr_scene *s, const vxr_camera *cam, uint32_t i, uint32_t j,
                       vxr_pick *p, vxr_ray *ray) {
    vxr_picker *picker;
    if (vxr_picker_create(s, &picker) != VXR_OK) return false;
    vxr_camera_ray(cam, i, j, ray);
    bool hit = vxr_pick_ray(picker, ray, 1, p) == VXR_OK && p->hit;
    vxr_picker_destroy(picker);
    return hit;
}

/* @demo, and the camera the tests look at it with. */
static vxr_scene *demo(vxr_camera *c) {
    vxr_scene *s = NULL;
    CHECK(vxr_scene_load("@demo", &s, NULL) == VXR_OK);
    *c = (vxr_camera){.eye = {130, -160, 115}, .target = {0, 0, 15}, .width = 64, .height = 48};
    CHECK(vxr_camera_setup(c) == VXR_OK);
    return s;
}

static void test_frame_pick(void) {
    vxr_camera c;
    vxr_scene *s = demo(&c);
    if (!s) return;
    vxr_pick p;
    vxr_ray ray;
    CHECK(pick_pixel(s, &c, 32, 24, &p, &ray));
    vxr_camera f = c;
    CHECK(view_frame_pick(&f, &p, &ray));
    CHECK(near3(f.target, p.point, 0));
    /* the eye is on the ray, VIEW_FRAME_DIAGONALS cube diagonals from the point */
    float diag = dist3(p.world_min, p.world_max);
    CHECK(fabsf(dist3(f.eye, p.point) - VIEW_FRAME_DIAGONALS * diag) < 1e-3f);
    float to[3],
        n = sqrtf(ray.dir[0] * ray.dir[0] + ray.dir[1] * ray.dir[1] + ray.dir[2] * ray.dir[2]);
    for (int k = 0; k < 3; k++) to[k] = (p.point[k] - f.eye[k]) / dist3(f.eye, p.point);
    for (int k = 0; k < 3; k++) CHECK(fabsf(to[k] - ray.dir[k] / n) < 1e-4f);
    /* nothing under the mouse: the camera stays */
    vxr_pick miss = {0};
    vxr_camera g = c;
    CHECK(!view_frame_pick(&g, &miss, &ray));
    CHECK(near3(g.eye, c.eye, 0) && near3(g.target, c.target, 0));
    vxr_scene_destroy(s);
}

/* Clip space of p (eye-relative) under m: NDC x, y. */
static void project(const float m[16], const float p[3], float ndc[2]) {
    float clip[4] = {0, 0, 0, 0};
    for (int r = 0; r < 4; r++)
        clip[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
    ndc[0] = clip[0] / clip[3];
    ndc[1] = clip[1] / clip[3];
}

static void test_overlay(void) {
    vxr_camera c;
    vxr_scene *s = demo(&c);
    if (!s) return;
    float m[16];
    view_proj(&c, m);
    int checked = 0;
    for (uint32_t j = 4; j < c.height; j += 9)
        for (uint32_t i = 3; i < c.width; i += 7) {
            vxr_pick p;
            vxr_ray ray;
            if (!pick_pixel(s, &c, i, j, &p, &ray) || p.face < 0) continue;
            view_vertex v[VIEW_MAX_VERTICES];
            uint32_t tri, line;
            view_overlay(&p, &s->instances[p.instance].transform, &c, false, v, &tri, &line);
            /* face tint, edge band, corner square; outline, nearest edge */
            CHECK_EQ_INT(tri, 18);
            CHECK_EQ_INT(line, 26);
            /* the tint lies on the entry face: its plane holds the entry point */
            float dp = 0;
            for (int k = 0; k < 3; k++) dp += p.normal[k] * p.point[k];
            for (uint32_t n = 0; n < 6; n++) {
                float w = 0;
                for (int k = 0; k < 3; k++) w += p.normal[k] * (v[n].pos[k] + c.eye[k]);
                CHECK(fabsf(w - dp) < 1e-3f);
            }
            /* the outline's vertices are corners of the cube's world box */
            for (uint32_t n = tri; n < tri + 24; n++)
                for (int k = 0; k < 3; k++) {
                    float w = v[n].pos[k] + c.eye[k];
                    CHECK(fabsf(w - p.world_min[k]) < 1e-3f || fabsf(w - p.world_max[k]) < 1e-3f);
                }
            /* the entry point projects onto the centre of the pixel that picked it */
            float e[3], ndc[2];
            for (int k = 0; k < 3; k++) e[k] = p.point[k] - c.eye[k];
            project(m, e, ndc);
            CHECK(fabsf(ndc[0] - (2.0f * ((float)i + 0.5f) / (float)c.width - 1.0f)) < 1e-3f);
            CHECK(fabsf(ndc[1] - (2.0f * ((float)j + 0.5f) / (float)c.height - 1.0f)) < 1e-3f);
            checked++;
        }
    CHECK(checked > 5);
    /* no pick: nothing but the crosshair, when asked for */
    vxr_pick none = {0};
    view_vertex v[VIEW_MAX_VERTICES];
    uint32_t tri, line;
    view_overlay(&none, NULL, &c, false, v, &tri, &line);
    CHECK(tri == 0 && line == 0);
    view_overlay(&none, NULL, &c, true, v, &tri, &line);
    CHECK(tri == 0 && line == 4);
    vxr_scene_destroy(s);
}

VXR_TEST_MAIN(TEST(test_orbit_and_look), TEST(test_pan_zoom_fly), TEST(test_frame_pick),
              TEST(test_overlay))
