/* The beam pre-pass (shaders/beam.comp) on lavapipe, validation and
 * synchronisation validation on: frames with the beam forced on equal the
 * frames with it off in every pixel's pick record and colour (eye/target,
 * matrix and jittered cameras, a camera inside the scene, rotated and
 * scaled instances, grids up to larger than the models, partial tiles,
 * instances moved by an update, another workgroup shape); every tile's
 * start distance lies below the hits of its pixels, and it skips real
 * distance (the pass is not a no-op). Also the per-device choices of
 * vxr_context_desc and VXR_BEAM / VXR_WORKGROUP. */
#include <math.h>
#include "gpu.h"
#include "internal.h" /* the target's beam distances, to check them */
#include "vxr_test.h"

static cli_gpu on, off;

typedef struct frame {
    vxr_gpu_pick *picks;
    uint32_t *colors;
    float *beam; /* a start distance per tile (NULL when not readable) */
    uint32_t tiles_x, tiles_y;
    /* without the beam: whether each workgroup traced (vxr_scene_tiles),
     * NULL when the frame was not listed; the workgroups of the root box's
     * rectangle */
    uint8_t *marks;
    uint32_t groups_x, lx, ly;
    size_t in_rect;
} frame;

static void frame_free(frame *f) {
    free(f->picks);
    free(f->colors);
    free(f->beam);
    free(f->marks);
    memset(f, 0, sizeof *f);
}

/* Copies what the last frame of t wrote. */
static void frame_take(const vxr_target *t, frame *out) {
    size_t n = (size_t)t->width * t->height, tiles = (size_t)t->tiles_x * t->tiles_y;
    out->picks = malloc(n * sizeof *out->picks);
    out->colors = malloc(n * 4);
    memcpy(out->picks, vxr_target_picks(t), n * sizeof *out->picks);
    memcpy(out->colors, vxr_target_colors(t), n * 4);
    out->tiles_x = t->tiles_x;
    out->tiles_y = t->tiles_y;
    /* host-visible on a CPU device; the frame's last barrier makes the
     * shader writes visible to the host */
    if (t->beam.map && (t->beam.flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) &&
        t->beam.size >= tiles * 4) {
        out->beam = malloc(tiles * 4);
        memcpy(out->beam, t->beam.map, tiles * 4);
    }
}

/* Renders a frame of scene with a fresh renderer and target on g. */
static bool render(cli_gpu *g, const vxr_scene *scene, const vxr_camera *cam, uint32_t grid,
                   frame *out) {
    vxr_error err = {{0}};
    vxr_renderer *ren = NULL;
    vxr_target *t = NULL;
    memset(out, 0, sizeof *out);
    cli_gpu_use(g);
    vxr_target_desc td = {
        .width = cam->width, .height = cam->height, .picks = true, .readback = true};
    vxr_result r = cli_gpu_begin(g, &err);
    if (r == VXR_OK) r = vxr_renderer_create(g->ctx, scene, g->cmd, &ren, &err);
    if (r == VXR_OK) r = vxr_target_create(g->ctx, &td, &t, &err);
    if (r == VXR_OK) r = vxr_renderer_render(ren, t, cam, grid, g->cmd, &err);
    if (r == VXR_OK) r = cli_gpu_submit(g, &err);
    if (r == VXR_OK) {
        frame_take(t, out);
        /* a frame on a context without the beam lists its workgroups */
        const size_t groups = (size_t)t->groups_x * t->groups_y;
        if (t->tile_mark && (out->marks = malloc(groups))) {
            memcpy(out->marks, t->tile_mark, groups);
            out->groups_x = t->groups_x;
            out->lx = ren->spec.local_x;
            out->ly = ren->spec.local_y;
            const float pad = grid > 1 ? ren->grid_pad[__builtin_ctz(grid)] : 0.0f;
            vxr_groups rect = vxr_scene_groups(ren, t, cam, pad); /* as the frame's */
            if (rect.x0 < rect.x1 && rect.y0 < rect.y1)
                out->in_rect = (size_t)(rect.x1 - rect.x0) * (rect.y1 - rect.y0);
        }
    } else
        fprintf(stderr, "render failed: %s: %s\n", vxr_result_string(r), err.message);
    vxr_target_destroy(t);
    vxr_renderer_destroy(ren);
    return r == VXR_OK;
}

typedef struct beam_stats {
    size_t hit_tiles, started_tiles; /* tiles with a hit; of them, with t_start > 0 */
    size_t listed, in_rect;          /* workgroups traced without the beam; of the rectangle */
    double skipped, nearest;         /* sums over hit tiles: t_start, the nearest hit's t */
} beam_stats;

/* a and b (beam on) in every record and colour; b's start distances below
 * every hit of their tiles; every pixel b hits in a workgroup a traced
 * (b, dispatched whole, is the oracle of a's list). Returns the pixels
 * that differ. */
static size_t compare(const char *label, const vxr_camera *cam, uint32_t grid, const frame *a,
                      const frame *b, beam_stats *st) {
    uint32_t w = cam->width, h = cam->height;
    size_t differ = 0, below = 0;
    for (uint32_t j = 0; j < h; j++)
        for (uint32_t i = 0; i < w; i++) {
            size_t at = (size_t)j * w + i;
            if (!memcmp(&a->picks[at], &b->picks[at], sizeof a->picks[at]) &&
                a->colors[at] == b->colors[at])
                continue;
            if (differ++ < 3)
                fprintf(stderr, "  %s grid %u pixel %u,%u: t %.9g / %.9g, instance %u / %u\n",
                        label, grid, i, j, (double)a->picks[at].t, (double)b->picks[at].t,
                        a->picks[at].instance, b->picks[at].instance);
        }
    if (a->marks) {
        size_t unlisted = 0, listed = 0;
        for (uint32_t j = 0; j < h; j++)
            for (uint32_t i = 0; i < w; i++)
                unlisted += (b->picks[(size_t)j * w + i].flags & VXR_PICK_HIT) &&
                            !a->marks[(size_t)(j / a->ly) * a->groups_x + i / a->lx];
        for (size_t k = 0; k < (size_t)a->groups_x * ((h + a->ly - 1) / a->ly); k++)
            listed += a->marks[k];
        if (unlisted) fprintf(stderr, "  %s: %zu hit pixels not traced\n", label, unlisted);
        CHECK_EQ_INT(unlisted, 0);
        CHECK(listed <= a->in_rect);
        st->listed += listed;
        st->in_rect += a->in_rect;
    }
    if (b->beam) {
        for (uint32_t ty = 0; ty < b->tiles_y; ty++)
            for (uint32_t tx = 0; tx < b->tiles_x; tx++) {
                float start = b->beam[ty * b->tiles_x + tx], nearest = INFINITY;
                for (uint32_t j = ty * VXR_BEAM_TILE; j < h && j < (ty + 1) * VXR_BEAM_TILE; j++)
                    for (uint32_t i = tx * VXR_BEAM_TILE; i < w && i < (tx + 1) * VXR_BEAM_TILE;
                         i++) {
                        const vxr_gpu_pick *p = &a->picks[(size_t)j * w + i];
                        if ((p->flags & VXR_PICK_HIT) && p->t < nearest) nearest = p->t;
                    }
                CHECK(start >= 0.0f);
                if (!(nearest < INFINITY)) continue;
                below += !(start <= nearest);
                st->hit_tiles++;
                st->started_tiles += start > 0.0f;
                st->skipped += start;
                st->nearest += nearest;
            }
        if (below) fprintf(stderr, "  %s: %zu tiles start beyond a hit\n", label, below);
        CHECK_EQ_INT(below, 0);
    }
    return differ;
}

/* Renders on both contexts and compares; adds to st. */
static void check_equal(const char *label, const vxr_scene *s, const vxr_camera *cam, uint32_t grid,
                        beam_stats *st) {
    frame a, b;
    bool ok = render(&off, s, cam, grid, &a) && render(&on, s, cam, grid, &b);
    CHECK(ok);
    if (ok) {
        beam_stats mine = {0};
        size_t differ = compare(label, cam, grid, &a, &b, &mine);
        fprintf(stderr,
                "  %-44s grid %-3u %zu pixels differ; %zu of %zu hit tiles start > 0; %zu of %zu "
                "workgroups traced\n",
                label, grid, differ, mine.started_tiles, mine.hit_tiles, mine.listed, mine.in_rect);
        CHECK_EQ_INT(differ, 0);
        CHECK(!on.info.beam || on.info.device_type != VK_PHYSICAL_DEVICE_TYPE_CPU || b.beam);
        st->hit_tiles += mine.hit_tiles;
        st->started_tiles += mine.started_tiles;
        st->skipped += mine.skipped;
        st->nearest += mine.nearest;
        st->listed += mine.listed;
        st->in_rect += mine.in_rect;
    }
    frame_free(&a);
    frame_free(&b);
}

static vxr_scene *load(const char *name) {
    char path[512];
    if (name[0] == '@')
        snprintf(path, sizeof path, "%s", name);
    else
        snprintf(path, sizeof path, "%s/%s", VXR_TEST_DATA, name);
    vxr_scene *s = NULL;
    vxr_error err = {{0}};
    if (vxr_scene_load(path, &s, &err) != VXR_OK) fprintf(stderr, "%s: %s\n", path, err.message);
    return s;
}

static vxr_camera orbit(const vxr_scene *s, int which, uint32_t w, uint32_t h) {
    static const float views[][3] = {{0.3f, 0.35f, 0.9f}, {2.5f, 0.8f, 0.6f}, {4.0f, -0.2f, 1.2f}};
    vxr_camera cam = {0};
    vxr_camera_orbit(s, views[which][0], views[which][1], views[which][2], &cam);
    cam.width = w;
    cam.height = h;
    CHECK(vxr_camera_setup(&cam) == VXR_OK);
    return cam;
}

/* A camera at the centre of the scene's bounds, looking along dir. */
static vxr_camera inside(const vxr_scene *s, const float dir[3], uint32_t w, uint32_t h) {
    vxr_scene_stats st;
    vxr_scene_get_stats(s, &st);
    vxr_camera cam = {.width = w, .height = h, .fov_deg = 75};
    for (int k = 0; k < 3; k++) {
        cam.eye[k] = 0.5f * (float)(st.aabb_min[k] + st.aabb_max[k]) + 0.37f;
        cam.target[k] = cam.eye[k] + dir[k];
    }
    CHECK(vxr_camera_setup(&cam) == VXR_OK);
    return cam;
}

/* A perspective camera from matrices (rolled, jittered), or an
 * orthographic one (which the beam leaves alone). */
static vxr_camera matrices(const vxr_scene *s, bool ortho, uint32_t w, uint32_t h) {
    vxr_camera ref = orbit(s, 1, w, h);
    /* view: x right, y down, z forward, from the orbit camera's frame */
    vxr_mat4 view = {{0}}, proj = {{0}};
    for (int k = 0; k < 3; k++) {
        view[k][0] = ref.right[k];
        view[k][1] = -ref.up[k];
        view[k][2] = ref.forward[k];
    }
    for (int r = 0; r < 3; r++) {
        float dot = 0;
        for (int k = 0; k < 3; k++) dot += view[k][r] * ref.eye[k];
        view[3][r] = -dot;
    }
    view[3][3] = 1;
    float aspect = (float)w / (float)h, n = 0.5f, f = 5000.0f;
    if (ortho) {
        float half = 0.5f * sqrtf(ref.eye[0] * ref.eye[0] + ref.eye[1] * ref.eye[1] +
                                  ref.eye[2] * ref.eye[2]) +
                     8.0f;
        proj[0][0] = 1 / (half * aspect);
        proj[1][1] = 1 / half;
        proj[2][2] = 1 / (f - n);
        proj[3][2] = -n / (f - n);
        proj[3][3] = 1;
    } else {
        float t = 1.0f / tanf(0.45f);
        proj[0][0] = t / aspect;
        proj[1][1] = t;
        proj[2][2] = f / (f - n);
        proj[3][2] = -f * n / (f - n);
        proj[2][3] = 1;
    }
    const float jitter[2] = {0.3125f, -0.4375f};
    vxr_camera cam;
    vxr_error err = {{0}};
    CHECK(vxr_camera_from_matrices(&cam, view, proj, w, h, 0, ortho ? NULL : jitter, &err) ==
          VXR_OK);
    return cam;
}

static const char *const files[] = {VXR_TEST_REAL_FILES};
enum { FILES = sizeof files / sizeof files[0], W = 128, H = 96 };

/* Every real file from an orbit camera, store8 from three and at grids. */
static void test_files(void) {
    beam_stats st = {0};
    for (int f = 0; f < FILES; f++) {
        vxr_scene *s = load(files[f]);
        CHECK(s != NULL);
        if (!s) continue;
        vxr_camera cam = orbit(s, f % 3, W, H);
        check_equal(files[f], s, &cam, 1, &st);
        vxr_scene_destroy(s);
    }
    fprintf(stderr,
            "  all: %zu of %zu hit tiles start > 0, at %.1f%% of their nearest hit; %zu of %zu "
            "workgroups of the rectangles traced\n",
            st.started_tiles, st.hit_tiles, st.nearest > 0 ? 100 * st.skipped / st.nearest : 0.0,
            st.listed, st.in_rect);
    /* without the beam, the lists leave out workgroups of the rectangles */
    if (!off.info.beam) CHECK(st.listed > 0 && st.listed < st.in_rect);
    /* A distant scene: the pass skips real distance (every tile with a
     * hit starts well into its rays; the 3-voxel files above start at 0
     * or nearly, their eye being that near) */
    vxr_scene *s = load("mmmm__scene_store8.vox");
    for (int view = 0; s && view < 3; view++) {
        beam_stats far = {0};
        vxr_camera cam = orbit(s, view, W, H);
        check_equal("store8 orbit", s, &cam, view == 0 ? 4 : view == 1 ? 2 : 16, &far);
        fprintf(stderr, "  store8: tiles start at %.1f%% of their nearest hit\n",
                far.nearest > 0 ? 100 * far.skipped / far.nearest : 0.0);
        if (on.info.device_type == VK_PHYSICAL_DEVICE_TYPE_CPU) {
            CHECK(far.hit_tiles > 0 && far.started_tiles == far.hit_tiles);
            CHECK(far.skipped >= 0.8 * far.nearest);
        }
    }
    vxr_scene_destroy(s);
    CHECK_EQ_INT(vxr_context_validation_messages(on.ctx), 0);
    CHECK_EQ_INT(vxr_context_validation_messages(off.ctx), 0);
}

/* Rotated and scaled instances, a camera inside the scene, matrix
 * cameras, grids as large as the models and larger, partial tiles. */
static void test_cameras(void) {
    beam_stats st = {0};
    const struct {
        const char *scene;
        uint32_t grid;
    } cases[] = {{"vengi__test-transform.vox", 1},
                 {"vengi__test-transform.vox", 8},
                 {"bevy_vox_scene__study.vox", 1},
                 {"bevy_vox_scene__study.vox", 2},
                 {"@demo", 1},
                 {"@demo", 64},
                 {"vengi__rgb_small.vox", 16},
                 {"vengi__8ontop.vox", 1024}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        vxr_scene *s = load(cases[c].scene);
        CHECK(s != NULL);
        if (!s) continue;
        char label[128];
        uint32_t g = cases[c].grid;
        vxr_camera cam = orbit(s, (int)c % 3, W, H);
        snprintf(label, sizeof label, "%s orbit", cases[c].scene);
        check_equal(label, s, &cam, g, &st);
        const float dirs[][3] = {{1, 0.3f, -0.2f}, {-0.4f, -1, 0.1f}};
        cam = inside(s, dirs[c % 2], W, H);
        snprintf(label, sizeof label, "%s inside", cases[c].scene);
        check_equal(label, s, &cam, g, &st);
        cam = matrices(s, false, 100, 75); /* tiles cut at the right and bottom */
        snprintf(label, sizeof label, "%s jittered matrices", cases[c].scene);
        check_equal(label, s, &cam, g, &st);
        cam = matrices(s, true, W, H);
        snprintf(label, sizeof label, "%s orthographic", cases[c].scene);
        check_equal(label, s, &cam, g, &st);
        vxr_scene_destroy(s);
    }
    CHECK(st.hit_tiles > 0 && st.started_tiles > 0);
    CHECK_EQ_INT(vxr_context_validation_messages(on.ctx), 0);
    CHECK_EQ_INT(vxr_context_validation_messages(off.ctx), 0);
}

/* Frames recorded around an instance update (in one command buffer): the
 * beam reads the moved instance, and the second frame's beam pass writes
 * distances the first frame's trace read (write after read). */
static void test_updates(void) {
    vxr_scene *s = load("@world:300");
    CHECK(s != NULL);
    if (!s) return;
    vxr_camera cam = {.eye = {0, 0, 40}, .target = {60, 40, 20}, .width = W, .height = H};
    CHECK(vxr_camera_setup(&cam) == VXR_OK);
    frame fr[2][2];
    memset(fr, 0, sizeof fr);
    cli_gpu *gs[2] = {&off, &on};
    float keep[3];
    memcpy(keep, s->instances[0].transform.translation, sizeof keep);
    for (int g = 0; g < 2; g++) {
        vxr_error err = {{0}};
        vxr_renderer *ren = NULL;
        vxr_target *t[2] = {NULL};
        vxr_target_desc td = {.width = W, .height = H, .picks = true, .readback = true};
        memcpy(s->instances[0].transform.translation, keep, sizeof keep);
        cli_gpu_use(gs[g]);
        bool ok = cli_gpu_begin(gs[g], &err) == VXR_OK &&
                  vxr_renderer_create(gs[g]->ctx, s, gs[g]->cmd, &ren, &err) == VXR_OK &&
                  vxr_target_create(gs[g]->ctx, &td, &t[0], &err) == VXR_OK &&
                  vxr_target_create(gs[g]->ctx, &td, &t[1], &err) == VXR_OK &&
                  vxr_renderer_render(ren, t[0], &cam, 1, gs[g]->cmd, &err) == VXR_OK;
        /* the first instance 10 units in front of the eye, scaled */
        float *tr = s->instances[0].transform.translation;
        for (int k = 0; k < 3; k++) tr[k] = cam.eye[k] + 10.0f * cam.forward[k];
        ok = ok && vxr_renderer_update_instances(ren, s, gs[g]->cmd, &err) == VXR_OK &&
             vxr_renderer_render(ren, t[1], &cam, 1, gs[g]->cmd, &err) == VXR_OK &&
             vxr_renderer_render(ren, t[1], &cam, 1, gs[g]->cmd, &err) == VXR_OK &&
             cli_gpu_submit(gs[g], &err) == VXR_OK;
        if (!ok) fprintf(stderr, "updates: %s\n", err.message);
        CHECK(ok);
        if (ok)
            for (int k = 0; k < 2; k++) frame_take(t[k], &fr[g][k]);
        vxr_target_destroy(t[0]);
        vxr_target_destroy(t[1]);
        vxr_renderer_destroy(ren);
    }
    beam_stats st = {0};
    for (int k = 0; k < 2; k++)
        if (fr[0][k].picks && fr[1][k].picks)
            CHECK_EQ_INT(compare(k ? "after the update" : "before the update", &cam, 1, &fr[0][k],
                                 &fr[1][k], &st),
                         0);
    CHECK(fr[0][0].picks && memcmp(fr[0][0].picks, fr[0][1].picks, (size_t)W * H * 32));
    for (int g = 0; g < 2; g++)
        for (int k = 0; k < 2; k++) frame_free(&fr[g][k]);
    vxr_scene_destroy(s);
    CHECK_EQ_INT(vxr_context_validation_messages(on.ctx), 0);
    CHECK_EQ_INT(vxr_context_validation_messages(off.ctx), 0);
}

/* The choices: the desc's, VXR_BEAM's and VXR_WORKGROUP's, reported by
 * vxr_context_get_info; bad values refused; another workgroup renders
 * the same frame. */
static void test_choices(void) {
    CHECK(on.info.beam && !off.info.beam);
    CHECK(on.info.workgroup_width == 8 && on.info.workgroup_height == 8);
    vxr_context *c = NULL;
    vxr_context_info info;
    /* the device's own choice: off on a CPU device */
    unsetenv("VXR_BEAM");
    unsetenv("VXR_WORKGROUP");
    CHECK(vxr_context_create(NULL, &c, NULL) == VXR_OK);
    if (c) {
        vxr_context_get_info(c, &info);
        CHECK(info.beam == (info.device_type != VK_PHYSICAL_DEVICE_TYPE_CPU));
        CHECK(info.workgroup_width == 8 && info.workgroup_height == 8);
        vxr_context_destroy(c);
    }
    const struct {
        const char *beam, *workgroup;
        vxr_choice choice;
        vxr_result result;
        bool beam_on;
        uint32_t w, h;
    } cases[] = {{"on", NULL, VXR_CHOICE_AUTO, VXR_OK, true, 8, 8},
                 {"off", "16x4", VXR_CHOICE_AUTO, VXR_OK, false, 16, 4},
                 {"on", NULL, VXR_CHOICE_OFF, VXR_OK, false, 8, 8},
                 {"auto", "4x32", VXR_CHOICE_ON, VXR_OK, true, 4, 32},
                 {"yes", NULL, VXR_CHOICE_AUTO, VXR_ERROR_ARGUMENT, false, 0, 0},
                 {NULL, "8", VXR_CHOICE_AUTO, VXR_ERROR_ARGUMENT, false, 0, 0},
                 {NULL, "0x8", VXR_CHOICE_AUTO, VXR_ERROR_ARGUMENT, false, 0, 0},
                 {NULL, "4096x4096", VXR_CHOICE_AUTO, VXR_ERROR_ARGUMENT, false, 0, 0},
                 {NULL, NULL, (vxr_choice)7, VXR_ERROR_ARGUMENT, false, 0, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].beam)
            setenv("VXR_BEAM", cases[i].beam, 1);
        else
            unsetenv("VXR_BEAM");
        if (cases[i].workgroup)
            setenv("VXR_WORKGROUP", cases[i].workgroup, 1);
        else
            unsetenv("VXR_WORKGROUP");
        vxr_context_desc d = {.beam = cases[i].choice};
        vxr_error err = {{0}};
        c = (vxr_context *)1;
        vxr_result r = vxr_context_create(&d, &c, &err);
        CHECK_EQ_INT(r, cases[i].result);
        if (r != VXR_OK) {
            CHECK(c == NULL && err.message[0]);
            continue;
        }
        vxr_context_get_info(c, &info);
        CHECK(info.beam == cases[i].beam_on);
        CHECK(info.workgroup_width == cases[i].w && info.workgroup_height == cases[i].h);
        vxr_context_destroy(c);
    }
    unsetenv("VXR_BEAM");
    unsetenv("VXR_WORKGROUP");
    /* the desc's workgroup, and a frame through it equal to the others */
    vxr_context_desc d = {
        .validation = true, .beam = VXR_CHOICE_ON, .workgroup_width = 16, .workgroup_height = 2};
    cli_gpu g;
    vxr_error err = {{0}};
    CHECK(cli_gpu_open(&g, &d, &err) == VXR_OK);
    CHECK(g.info.workgroup_width == 16 && g.info.workgroup_height == 2 && g.info.beam);
    vxr_scene *s = load("vengi__test-transform.vox");
    if (s && g.ctx) {
        vxr_camera cam = orbit(s, 0, 100, 75);
        frame a, b;
        CHECK(render(&off, s, &cam, 1, &a) && render(&g, s, &cam, 1, &b));
        beam_stats st = {0};
        if (a.picks && b.picks) CHECK_EQ_INT(compare("workgroup 16x2", &cam, 1, &a, &b, &st), 0);
        frame_free(&a);
        frame_free(&b);
        CHECK_EQ_INT(vxr_context_validation_messages(g.ctx), 0);
    }
    vxr_scene_destroy(s);
    cli_gpu_close(&g);
    d = (vxr_context_desc){.workgroup_width = 8};
    CHECK(vxr_context_create(&d, &c, &err) == VXR_ERROR_ARGUMENT);
    CHECK(strstr(err.message, "workgroup") != NULL);
}

int main(int argc, char **argv) {
    vxr_error err = {{0}};
    vxr_context_desc d_on = {.validation = true, .beam = VXR_CHOICE_ON},
                     d_off = {.validation = true, .beam = VXR_CHOICE_OFF};
    if (cli_gpu_open(&on, &d_on, &err) != VXR_OK || cli_gpu_open(&off, &d_off, &err) != VXR_OK) {
        /* lavapipe is installed wherever the tests run: no device fails */
        fprintf(stderr, "no Vulkan device: %s\n", err.message);
        return 1;
    }
    fprintf(stderr, "device: %s\n", on.info.device_name);
    static const vxr_test_case tests[] = {TEST(test_files), TEST(test_cameras), TEST(test_updates),
                                          TEST(test_choices)};
    int status = RUN_TESTS(tests);
    uint32_t messages =
        vxr_context_validation_messages(on.ctx) + vxr_context_validation_messages(off.ctx);
    cli_gpu_close(&off);
    cli_gpu_close(&on);
    if (messages) {
        fprintf(stderr, "%u validation messages\n", messages);
        return 1;
    }
    return status;
}
