/* Light frames on lavapipe with the validation layer on: samples added over
 * frames equal the same samples in one frame, bit for bit; the outputs
 * against the CPU reference; motion vectors against the pick records of
 * the previous camera's frame; the denoiser; bad light settings. */
#include <math.h>
#include "gpu.h"
#include "vxr/edit.h"
#include "vxr/formats.h"
#include "vxr_test.h"

static cli_gpu gpu;

typedef struct shot {
    uint32_t *colors;
    float *aovs;
    vxr_gpu_pick *picks;
} shot;

static void shot_free(shot *s) {
    free(s->colors);
    free(s->aovs);
    free(s->picks);
    memset(s, 0, sizeof *s);
}

static vxr_camera camera_at(const vxr_scene *s, float angle, float distance, uint32_t w,
                            uint32_t h) {
    vxr_camera cam = {0};
    vxr_camera_orbit(s, angle, 0.5f, distance, &cam);
    cam.width = w;
    cam.height = h;
    vxr_camera_setup(&cam);
    return cam;
}

static vxr_camera camera(const vxr_scene *s, float angle, uint32_t w, uint32_t h) {
    return camera_at(s, angle, 0.8f, w, h);
}

/* The target's colours, outputs and pick records after its last frame. */
static void copy_out(const vxr_target *t, const vxr_camera *cam, shot *out) {
    size_t px = (size_t)cam->width * cam->height;
    out->colors = malloc(px * 4);
    out->picks = malloc(px * sizeof *out->picks);
    memcpy(out->colors, vxr_target_colors(t), px * 4);
    if (vxr_target_aovs(t)) {
        out->aovs = malloc(px * VXR_AOV_FLOATS * sizeof(float));
        memcpy(out->aovs, vxr_target_aovs(t), px * VXR_AOV_FLOATS * sizeof(float));
    }
    memcpy(out->picks, vxr_target_picks(t), px * sizeof *out->picks);
}

enum { DENOISE = 1, NO_AOVS = 2 };

/* Frames into one target: frames[k] samples each (accumulated after the
 * first), the last with previous camera prev and denoised if opts has
 * DENOISE; a target without per-pixel outputs if it has NO_AOVS (out->aovs
 * NULL then). Copies the outputs out. */
static vxr_result render(const vxr_scene *scene, const vxr_camera *cam, const vxr_light *light,
                         const uint32_t *frames, int n, const vxr_camera *prev, int opts,
                         shot *out) {
    vxr_error err = {{0}};
    vxr_renderer *ren = NULL;
    vxr_target *t = NULL;
    memset(out, 0, sizeof *out);
    vxr_target_desc td = {.width = cam->width,
                          .height = cam->height,
                          .picks = true,
                          .readback = true,
                          .light = true,
                          .aovs = !(opts & NO_AOVS)};
    vxr_result r = cli_gpu_begin(&gpu, &err);
    if (r == VXR_OK) r = vxr_renderer_create(gpu.ctx, scene, gpu.cmd, &ren, &err);
    if (r == VXR_OK) r = vxr_target_create(gpu.ctx, &td, &t, &err);
    if (r == VXR_OK) r = cli_gpu_submit(&gpu, &err);
    for (int k = 0; k < n && r == VXR_OK; k++) {
        vxr_light l = *light;
        l.samples = frames[k];
        vxr_frame f = {.camera = cam,
                       .light = &l,
                       .accumulate = k > 0,
                       .previous = k == n - 1 ? prev : NULL,
                       .denoise = k == n - 1 && (opts & DENOISE)};
        if ((r = cli_gpu_begin(&gpu, &err)) == VXR_OK &&
            (r = vxr_renderer_render_frame(ren, t, &f, gpu.cmd, &err)) == VXR_OK)
            r = cli_gpu_submit(&gpu, &err);
    }
    if (r == VXR_OK) {
        copy_out(t, cam, out);
        CHECK(vxr_target_samples(t) > 0);
    } else {
        fprintf(stderr, "render failed: %s: %s\n", vxr_result_string(r), err.message);
    }
    vxr_target_destroy(t);
    vxr_renderer_destroy(ren);
    return r;
}

static vxr_scene *store8(void) {
    vxr_scene *s = NULL;
    vxr_error err = {{0}};
    if (vxr_scene_load(VXR_TEST_DATA "/mmmm__scene_store8.vox", &s, &err) != VXR_OK)
        fprintf(stderr, "store8: %s\n", err.message);
    return s;
}

/* 1 + 2 + 4 samples over three frames are the 7 samples of one frame,
 * and both are the CPU reference's; so are the colours of a target without
 * per-pixel outputs (a pipeline of its own). */
static void test_accumulation(void) {
    vxr_scene *s = store8();
    CHECK(s);
    if (!s) return;
    vxr_camera cam = camera(s, 0.7f, 48, 32);
    vxr_light light;
    vxr_light_defaults(&light);
    light.sun_diameter = 6.0f;
    shot a, b, c;
    const uint32_t three[] = {1, 2, 4}, one[] = {7};
    CHECK(render(s, &cam, &light, three, 3, NULL, 0, &a) == VXR_OK);
    CHECK(render(s, &cam, &light, one, 1, NULL, 0, &b) == VXR_OK);
    CHECK(render(s, &cam, &light, three, 3, NULL, NO_AOVS, &c) == VXR_OK);
    size_t px = (size_t)cam.width * cam.height;
    if (a.colors && b.colors && c.colors && a.aovs && b.aovs) {
        CHECK(!memcmp(a.colors, b.colors, px * 4));
        CHECK(!memcmp(a.colors, c.colors, px * 4));
        CHECK(!memcmp(a.aovs, b.aovs, px * VXR_AOV_FLOATS * sizeof(float)));
        CHECK(!c.aovs);
    }
    vxr_picker *p = NULL;
    vxr_gpu_frame data;
    CHECK(vxr_picker_create(s, &p) == VXR_OK);
    CHECK(vxr_light_frame(&light, NULL, &data, NULL) == VXR_OK);
    size_t bad = 0, hits = 0;
    for (uint32_t j = 0; a.colors && a.aovs && j < cam.height; j++)
        for (uint32_t i = 0; i < cam.width; i++) {
            size_t k = (size_t)j * cam.width + i;
            vxr_lit_pixel ref;
            CHECK(vxr_light_pixel(p, &cam, &data, i, j, 7, &ref) == VXR_OK);
            hits += ref.instance != VXR_PICK_MISS;
            float sun = a.aovs[VXR_AOV_SUN * px + k], ao = a.aovs[VXR_AOV_AO * px + k];
            bad += a.colors[k] != ref.rgba || memcmp(&sun, &ref.sun, 4) || memcmp(&ao, &ref.ao, 4);
        }
    CHECK(hits > px / 4);
    CHECK_EQ_INT(bad, 0);
    vxr_picker_destroy(p);
    shot_free(&a);
    shot_free(&b);
    shot_free(&c);
    vxr_scene_destroy(s);
}

/* Motion vectors: each hit pixel of a frame, moved by its vector, lands
 * on the pixel of the previous camera's frame that shows the same voxel or
 * a neighbour (the pixel centres differ; something may hide it there, or
 * it may lie outside). Without a previous camera they are 0. */
static void test_motion_camera(void) {
    vxr_scene *s = store8();
    CHECK(s);
    if (!s) return;
    const uint32_t W = 160, H = 120, one[] = {1};
    vxr_camera c0 = camera_at(s, 0.70f, 0.25f, W, H), c1 = camera_at(s, 0.74f, 0.25f, W, H);
    c1.eye[2] += 1.5f;
    CHECK(vxr_camera_setup(&c1) == VXR_OK);
    vxr_light light;
    vxr_light_defaults(&light);
    shot a, b;
    CHECK(render(s, &c0, &light, one, 1, NULL, 0, &a) == VXR_OK);
    CHECK(render(s, &c1, &light, one, 1, &c0, 0, &b) == VXR_OK);
    size_t px = (size_t)W * H, hits = 0, same = 0, moved = 0;
    for (uint32_t j = 0; b.aovs && j < H; j++)
        for (uint32_t i = 0; i < W; i++) {
            size_t k = (size_t)j * W + i;
            CHECK(a.aovs[VXR_AOV_MOTION * px + 2 * k] == 0.0f);
            const vxr_gpu_pick *rb = &b.picks[k];
            if (!(rb->flags & VXR_PICK_HIT)) continue;
            float mx = b.aovs[VXR_AOV_MOTION * px + 2 * k],
                  my = b.aovs[VXR_AOV_MOTION * px + 2 * k + 1];
            moved += fabsf(mx) + fabsf(my) > 0.5f;
            float x = (float)i + 0.5f + mx, y = (float)j + 0.5f + my;
            if (!(x >= 0 && y >= 0 && x < (float)W && y < (float)H)) continue;
            hits++;
            const vxr_gpu_pick *ra = &a.picks[(size_t)y * W + (size_t)x];
            bool near = ra->instance == rb->instance;
            for (int c = 0; c < 3; c++) near = near && abs(ra->voxel[c] - rb->voxel[c]) <= 1;
            same += near;
        }
    fprintf(stderr, "  motion: %zu of %zu pixels land on their voxel, %zu moved\n", same, hits,
            moved);
    CHECK(hits > px / 4 && moved > hits / 2);
    CHECK(same >= hits * 9 / 10);
    shot_free(&a);
    shot_free(&b);
    vxr_scene_destroy(s);
}

/* One light frame of ren into t (1 sample, previous camera prev) and its
 * outputs copied out; false after a message. */
static bool frame_of(vxr_renderer *ren, vxr_target *t, const vxr_camera *cam,
                     const vxr_camera *prev, shot *out) {
    vxr_light light;
    vxr_light_defaults(&light);
    vxr_frame f = {.camera = cam, .light = &light, .previous = prev};
    vxr_error err = {{0}};
    if (cli_gpu_begin(&gpu, &err) != VXR_OK ||
        vxr_renderer_render_frame(ren, t, &f, gpu.cmd, &err) != VXR_OK ||
        cli_gpu_submit(&gpu, &err) != VXR_OK) {
        fprintf(stderr, "frame: %s\n", err.message);
        return false;
    }
    copy_out(t, cam, out);
    return true;
}

/* Motion vectors of a moved instance: with the camera still, its pixels
 * move by where its voxels were before the update (they land on the same
 * voxel of the frame before, or a neighbour), every other pixel stays;
 * after an update that moves nothing, nothing moves. */
static void test_motion_instance(void) {
    vxr_scene *s = NULL;
    vxr_error err = {{0}};
    CHECK(vxr_scene_load("@demo", &s, &err) == VXR_OK);
    if (!s) return;
    const uint32_t W = 160, H = 120;
    vxr_camera cam = camera_at(s, 0.9f, 0.5f, W, H);
    vxr_renderer *ren = NULL;
    vxr_target *t = NULL;
    vxr_target_desc td = {
        .width = W, .height = H, .picks = true, .readback = true, .light = true, .aovs = true};
    CHECK(cli_gpu_begin(&gpu, &err) == VXR_OK);
    CHECK(vxr_renderer_create(gpu.ctx, s, gpu.cmd, &ren, &err) == VXR_OK);
    CHECK(vxr_target_create(gpu.ctx, &td, &t, &err) == VXR_OK);
    CHECK(cli_gpu_submit(&gpu, &err) == VXR_OK);
    shot a = {0}, b = {0}, c = {0};
    CHECK(frame_of(ren, t, &cam, NULL, &a));
    /* the instance covering most pixels moves 3 cells along x and 2 up */
    uint32_t k = VXR_PICK_MISS, best = 0, *count = calloc(s->instance_count, sizeof *count);
    for (size_t q = 0; count && a.picks && q < (size_t)W * H; q++) {
        uint32_t i = a.picks[q].instance;
        if (i < s->instance_count && ++count[i] > best) best = count[k = i];
    }
    free(count);
    CHECK(k != VXR_PICK_MISS);
    if (k == VXR_PICK_MISS) goto done;
    vxr_transform tr = s->instances[k].transform;
    tr.translation[0] += 3.0f;
    tr.translation[2] += 2.0f;
    vxr_update_info info;
    CHECK(vxr_scene_set_transform(s, k, &tr, &err) == VXR_OK);
    CHECK(cli_gpu_begin(&gpu, &err) == VXR_OK);
    CHECK(vxr_renderer_update(ren, s, gpu.cmd, &info, &err) == VXR_OK);
    CHECK(cli_gpu_submit(&gpu, &err) == VXR_OK);
    CHECK(frame_of(ren, t, &cam, &cam, &b));
    size_t px = (size_t)W * H, mine = 0, landed = 0, others = 0, still = 0;
    for (uint32_t j = 0; b.aovs && j < H; j++)
        for (uint32_t i = 0; i < W; i++) {
            size_t q = (size_t)j * W + i;
            const vxr_gpu_pick *rb = &b.picks[q];
            if (!(rb->flags & VXR_PICK_HIT)) continue;
            float mx = b.aovs[VXR_AOV_MOTION * px + 2 * q],
                  my = b.aovs[VXR_AOV_MOTION * px + 2 * q + 1];
            if (rb->instance != k) {
                others++;
                still += fabsf(mx) < 1e-3f && fabsf(my) < 1e-3f;
                continue;
            }
            float x = (float)i + 0.5f + mx, y = (float)j + 0.5f + my;
            if (!(x >= 0 && y >= 0 && x < (float)W && y < (float)H)) continue;
            mine++;
            const vxr_gpu_pick *ra = &a.picks[(size_t)y * W + (size_t)x];
            bool near = ra->instance == rb->instance;
            for (int d = 0; d < 3; d++) near = near && abs(ra->voxel[d] - rb->voxel[d]) <= 1;
            landed += near;
        }
    fprintf(stderr,
            "  instance %u: %zu of %zu pixels land on their voxel; %zu of %zu others still\n", k,
            landed, mine, still, others);
    CHECK(mine > 50 && landed >= mine * 8 / 10);
    CHECK(still == others);
    /* an update that moves nothing: no motion at all */
    CHECK(cli_gpu_begin(&gpu, &err) == VXR_OK);
    CHECK(vxr_renderer_update(ren, s, gpu.cmd, &info, &err) == VXR_OK);
    CHECK(cli_gpu_submit(&gpu, &err) == VXR_OK);
    CHECK(frame_of(ren, t, &cam, &cam, &c));
    size_t moving = 0;
    for (size_t q = 0; c.aovs && q < 2 * px; q++)
        moving += fabsf(c.aovs[VXR_AOV_MOTION * px + q]) >= 1e-3f;
    CHECK_EQ_INT(moving, 0);
done:
    shot_free(&a);
    shot_free(&b);
    shot_free(&c);
    vxr_target_destroy(t);
    vxr_renderer_destroy(ren);
    vxr_scene_destroy(s);
}

/* The denoiser runs (validation on), keeps records and outputs, and its
 * 1-sample image is nearer a 64-sample one than the raw 4-sample image. */
static void test_denoise(void) {
    vxr_scene *s = store8();
    CHECK(s);
    if (!s) return;
    vxr_camera cam = camera(s, 1.1f, 96, 64);
    vxr_light light;
    vxr_light_defaults(&light);
    const uint32_t one[] = {1}, four[] = {4}, many[] = {64};
    shot raw, raw4, dn, ref;
    CHECK(render(s, &cam, &light, one, 1, NULL, 0, &raw) == VXR_OK);
    CHECK(render(s, &cam, &light, four, 1, NULL, 0, &raw4) == VXR_OK);
    CHECK(render(s, &cam, &light, one, 1, NULL, DENOISE, &dn) == VXR_OK);
    CHECK(render(s, &cam, &light, many, 1, NULL, 0, &ref) == VXR_OK);
    size_t px = (size_t)cam.width * cam.height;
    double e_raw = 0, e_dn = 0;
    for (size_t k = 0; raw4.colors && dn.colors && ref.colors && k < px; k++)
        for (int c = 0; c < 3; c++) {
            double r = (double)(ref.colors[k] >> (8 * c) & 255);
            e_raw += pow((double)(raw4.colors[k] >> (8 * c) & 255) - r, 2);
            e_dn += pow((double)(dn.colors[k] >> (8 * c) & 255) - r, 2);
        }
    fprintf(stderr, "  RMSE against 64 samples: raw 4 samples %.2f, denoised 1 %.2f\n",
            sqrt(e_raw / (double)px / 3), sqrt(e_dn / (double)px / 3));
    CHECK(e_dn < e_raw);
    if (raw.aovs && dn.aovs) {
        CHECK(!memcmp(raw.picks, dn.picks, px * sizeof *raw.picks));
        CHECK(!memcmp(raw.aovs, dn.aovs, px * VXR_AOV_FLOATS * sizeof(float)));
    }
    shot_free(&raw);
    shot_free(&raw4);
    shot_free(&dn);
    shot_free(&ref);
    vxr_scene_destroy(s);
}

static void test_bad_light(void) {
    vxr_light l;
    vxr_gpu_frame d;
    vxr_error err = {{0}};
    vxr_light_defaults(&l);
    CHECK(vxr_light_frame(&l, NULL, &d, &err) == VXR_OK);
    vxr_light bad[6];
    for (int k = 0; k < 6; k++) bad[k] = l;
    bad[0].model = 7;
    bad[1].samples = 0;
    bad[2].sun_diameter = 120.0f;
    bad[3].ao_radius = -1.0f;
    bad[4].sun_color[1] = NAN;
    bad[5].sun_elevation = 95.0f;
    for (int k = 0; k < 6; k++) {
        CHECK(vxr_light_frame(&bad[k], NULL, &d, &err) == VXR_ERROR_ARGUMENT);
        CHECK(strstr(err.message, "light") != NULL);
    }
    /* a light frame on a target made without light */
    vxr_scene *s = store8();
    vxr_renderer *ren = NULL;
    vxr_target *t = NULL;
    vxr_camera cam = camera(s, 0.5f, 8, 8);
    vxr_target_desc td = {.width = 8, .height = 8};
    CHECK(cli_gpu_begin(&gpu, &err) == VXR_OK);
    CHECK(vxr_renderer_create(gpu.ctx, s, gpu.cmd, &ren, &err) == VXR_OK);
    CHECK(vxr_target_create(gpu.ctx, &td, &t, &err) == VXR_OK);
    vxr_frame f = {.camera = &cam, .light = &l};
    CHECK(vxr_renderer_render_frame(ren, t, &f, gpu.cmd, &err) == VXR_ERROR_ARGUMENT);
    CHECK(strstr(err.message, "light") != NULL);
    f.light = NULL;
    f.denoise = true; /* ignored without light */
    CHECK(vxr_renderer_render_frame(ren, t, &f, gpu.cmd, &err) == VXR_OK);
    CHECK(cli_gpu_submit(&gpu, &err) == VXR_OK);
    vxr_target_destroy(t);
    vxr_renderer_destroy(ren);
    vxr_scene_destroy(s);
}

int main(int argc, char **argv) {
    vxr_error err = {{0}};
    vxr_context_desc d = {.validation = true};
    if (cli_gpu_open(&gpu, &d, &err) != VXR_OK) {
        fprintf(stderr, "no Vulkan device: %s\n", err.message);
        return 1;
    }
    static const vxr_test_case tests[] = {TEST(test_accumulation), TEST(test_motion_camera),
                                          TEST(test_motion_instance), TEST(test_denoise),
                                          TEST(test_bad_light)};
    int status = RUN_TESTS(tests);
    uint32_t messages = vxr_context_validation_messages(gpu.ctx);
    cli_gpu_close(&gpu);
    if (messages) {
        fprintf(stderr, "%u validation messages\n", messages);
        return 1;
    }
    return status;
}
