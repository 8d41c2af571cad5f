/* vxr_camera_box_pixels against brute force: every pixel whose ray
 * (vxr_camera_ray) enters the padded box (vxr_box_enter, as the shader
 * tests the hierarchy's root) lies in the rectangle, and the rectangle is
 * no wider than those pixels' bounds and its margin. */
#include <math.h>
#include <stdint.h>
#include "vxr/camera.h"
#include "vxr_test.h"
#include "vxr_trace.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double uniform(double lo, double hi) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

/* Camera k of the sweep: pinhole cameras, and matrix cameras whose
 * steps are neither unit nor orthogonal (perspective and orthographic). */
static void make_camera(int k, vxr_camera *cam) {
    memset(cam, 0, sizeof *cam);
    cam->width = (uint32_t)uniform(8, 90);
    cam->height = (uint32_t)uniform(8, 70);
    for (int a = 0; a < 3; a++) cam->eye[a] = (float)uniform(-60, 60);
    if (k % 3 == 0) {
        for (int a = 0; a < 3; a++) cam->target[a] = (float)uniform(-20, 20);
        cam->fov_deg = (float)uniform(10, 150);
        CHECK(vxr_camera_setup(cam) == VXR_OK);
        return;
    }
    cam->projection = k % 3 == 1 ? VXR_PROJECTION_PERSPECTIVE : VXR_PROJECTION_ORTHOGRAPHIC;
    float s = cam->projection == VXR_PROJECTION_ORTHOGRAPHIC ? 40.0f : 1.0f;
    for (int a = 0; a < 3; a++) {
        cam->forward[a] = (float)uniform(-1, 1);
        cam->right[a] = s * (float)uniform(-1, 1);
        cam->up[a] = s * (float)uniform(-1, 1);
    }
    cam->tan_half_fov = cam->aspect = 1.0f;
    cam->depth_z[2] = cam->depth_w[3] = 1.0f;
}

static void test_box_pixels(void) {
    int cases = 0, narrowed = 0, empty = 0, tight = 0;
    for (int k = 0; k < 3000; k++) {
        vxr_camera cam;
        make_camera(k, &cam);
        float lo[3], hi[3], pad = k % 4 == 0 ? (float)uniform(0, 3) : 0.0f;
        double size = k % 5 == 0 ? uniform(0, 0.5) : uniform(0.5, 40);
        for (int a = 0; a < 3; a++) {
            lo[a] = (float)uniform(-40, 40);
            hi[a] = lo[a] + (float)(size * uniform(0.1, 1));
        }
        uint32_t rect[4];
        bool any = vxr_camera_box_pixels(&cam, lo, hi, pad, rect);
        CHECK(rect[0] <= rect[2] && rect[2] <= cam.width && rect[1] <= rect[3] &&
              rect[3] <= cam.height);
        CHECK(any == (rect[0] < rect[2] && rect[1] < rect[3]));
        uint32_t h0 = cam.width, h1 = 0, v0 = cam.height, v1 = 0;
        for (uint32_t j = 0; j < cam.height; j++)
            for (uint32_t i = 0; i < cam.width; i++) {
                vxr_ray ray;
                vxr_camera_ray(&cam, i, j, &ray);
                if (!(vxr_box_enter(ray.origin, ray.dir, lo, hi, pad, VXR_INF) < VXR_INF)) continue;
                CHECK(i >= rect[0] && i < rect[2] && j >= rect[1] && j < rect[3]);
                h0 = i < h0 ? i : h0;
                h1 = i + 1 > h1 ? i + 1 : h1;
                v0 = j < v0 ? j : v0;
                v1 = j + 1 > v1 ? j + 1 : v1;
            }
        cases++;
        bool whole = rect[0] == 0 && rect[1] == 0 && rect[2] == cam.width && rect[3] == cam.height;
        if (!any) empty++;
        if (any && !whole) narrowed++;
        /* no wider than the pixels that meet the box, plus the margin,
         * when the corners' hull lies inside the image (a hull the image
         * cuts can be wider there than what it shows), in front of the
         * rays' origins (an orthographic camera's box may lie behind) and
         * not a sliver between pixel centres */
        bool inside = rect[0] > 0 && rect[1] > 0 && rect[2] < cam.width && rect[3] < cam.height;
        if (any && inside && cam.projection != VXR_PROJECTION_ORTHOGRAPHIC && h0 + 3 <= h1 &&
            v0 + 3 <= v1) {
            tight++;
            CHECK(rect[0] + 4 >= h0 && rect[2] <= h1 + 4);
            CHECK(rect[1] + 4 >= v0 && rect[3] <= v1 + 4);
        }
    }
    /* the sweep meets every outcome */
    CHECK(narrowed > cases / 10);
    CHECK(empty > cases / 10);
    CHECK(tight > cases / 20);
}

/* Inputs that are not finite, a box around the eye, a box behind it,
 * a box reaching behind it. */
static void test_box_pixels_whole_or_none(void) {
    vxr_camera cam = {.eye = {0, -50, 10}, .target = {0, 0, 0}, .width = 64, .height = 48};
    CHECK(vxr_camera_setup(&cam) == VXR_OK);
    uint32_t rect[4];
    const float around_lo[3] = {-5, -55, 5}, around_hi[3] = {5, -45, 15};
    CHECK(vxr_camera_box_pixels(&cam, around_lo, around_hi, 0, rect));
    CHECK(rect[0] == 0 && rect[1] == 0 && rect[2] == 64 && rect[3] == 48);
    const float inf_hi[3] = {5, INFINITY, 15};
    CHECK(vxr_camera_box_pixels(&cam, around_lo, inf_hi, 0, rect));
    CHECK(rect[2] == 64 && rect[3] == 48);
    const float behind_lo[3] = {-5, -95, 5}, behind_hi[3] = {5, -85, 15};
    CHECK(!vxr_camera_box_pixels(&cam, behind_lo, behind_hi, 0, rect) || rect[2] == 64);
    /* ground reaching behind the eye: the sky above its far edge is out */
    vxr_camera low = {.eye = {0, 0, 50}, .target = {100, 0, 40}, .width = 64, .height = 48};
    CHECK(vxr_camera_setup(&low) == VXR_OK);
    const float ground_lo[3] = {-1000, -1000, -10}, ground_hi[3] = {1000, 1000, 0};
    CHECK(vxr_camera_box_pixels(&low, ground_lo, ground_hi, 0, rect));
    CHECK(rect[0] == 0 && rect[1] > 10 && rect[2] == 64 && rect[3] == 48);
    const float small_lo[3] = {-1, -1, -1}, small_hi[3] = {1, 1, 1};
    CHECK(vxr_camera_box_pixels(&cam, small_lo, small_hi, 0, rect));
    CHECK(rect[2] - rect[0] < 20 && rect[3] - rect[1] < 20);
}

int main(int argc, char **argv) {
    const vxr_test_case tests[] = {{"box_pixels", test_box_pixels},
                                   {"box_pixels_whole_or_none", test_box_pixels_whole_or_none}};
    return vxr_test_run(tests, (int)(sizeof tests / sizeof tests[0]), argc, argv);
}
