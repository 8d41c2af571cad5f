/* Live edits on the GPU, on lavapipe with validation (synchronization
 * validation too, which a validating context turns on): random edit sequences on
 * every file of tests/data, each step uploaded with vxr_renderer_update and
 * rendered with pick records, two steps per command buffer and two
 * command buffers in flight. Every pixel's GPU record must equal the CPU
 * pick of the scene as it was when that frame was recorded. Edits include
 * growth past the root, emptying, undo/redo, own copies of models, added
 * and removed instances and models; one run splits the scene over small
 * bindings so that growth crosses them. */
#include <math.h>
#include "gpu.h"
#include "vxr/edit.h"
#include "vxr/formats.h"
#include "gpu_picks.h"
#include "vxr_test.h"

VXR_TEST_RNG(0xed17ed17ull)

static cli_gpu gpu;
static bool gpu_ok;

enum { W = 64, H = 48, SLOTS = 2, PER_CMD = 2 };

/* A frame in flight: its command buffer, fence, targets and the CPU's
 * expectation for each of its renders. */
typedef struct slot {
    VkCommandBuffer cmd;
    VkFence fence;
    vxr_target *target[PER_CMD];
    vxr_pick *expect[PER_CMD];
    vxr_camera cam[PER_CMD];
    uint32_t grid[PER_CMD];
    uint64_t serial, serial2;
    bool busy;
} slot;

typedef struct run {
    cli_gpu *g;
    vxr_scene *s;
    vxr_editor *e;
    vxr_renderer *r, *r2; /* r2: a second renderer of the scene, or NULL */
    slot slots[SLOTS];
    size_t pixels, bad, steps;
    uint64_t uploaded, moved;
    uint32_t relayouts;
} run;

static void check_slot(run *u, slot *sl) {
    if (!sl->busy) return;
    CHECK(vkWaitForFences(u->g->info.device, 1, &sl->fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS);
    CHECK(vkResetFences(u->g->info.device, 1, &sl->fence) == VK_SUCCESS);
    vxr_renderer_complete(u->r, sl->serial);
    if (u->r2) vxr_renderer_complete(u->r2, sl->serial2);
    for (int k = 0; k < PER_CMD; k++) {
        const vxr_gpu_pick *g = vxr_target_picks(sl->target[k]);
        for (size_t p = 0; p < (size_t)W * H; p++) {
            if (same_pick(&g[p], &sl->expect[k][p])) continue;
            if (u->bad++ < 3)
                fprintf(stderr,
                        "  step %zu pixel %zu,%zu: gpu hit %u inst %u voxel %d,%d,%d, cpu "
                        "hit %d inst %u voxel %d,%d,%d\n",
                        u->steps, p % W, p / W, g[p].flags, g[p].instance, g[p].voxel[0],
                        g[p].voxel[1], g[p].voxel[2], sl->expect[k][p].hit,
                        sl->expect[k][p].instance, sl->expect[k][p].voxel[0],
                        sl->expect[k][p].voxel[1], sl->expect[k][p].voxel[2]);
        }
        u->pixels += (size_t)W * H;
    }
    sl->busy = false;
}

/* A model that still exists, at random. */
static uint32_t some_model(const vxr_scene *s) {
    for (int tries = 0; tries < 64; tries++) {
        uint32_t m = rnd() % s->model_count;
        if (s->models[m].attr_size) return m;
    }
    for (uint32_t m = 0; m < s->model_count; m++)
        if (s->models[m].attr_size) return m;
    return 0;
}

/* One random change of the scene. */
static void random_change(run *u) {
    vxr_scene *s = u->s;
    uint32_t kind = rnd() % 20;
    bool done;
    if (kind == 0) {
        CHECK(vxr_editor_undo(u->e, &done, NULL) == VXR_OK);
        return;
    }
    if (kind == 1) {
        CHECK(vxr_editor_redo(u->e, &done, NULL) == VXR_OK);
        return;
    }
    if (kind == 2 && s->instance_count) { /* an instance of its own, then an edit of it */
        uint32_t i = rnd() % s->instance_count;
        if (!(s->instances[i].flags & VXR_INSTANCE_REMOVED))
            CHECK(vxr_scene_own_model(s, i, NULL, NULL) == VXR_OK);
        return;
    }
    if (kind == 3 && s->instance_count) { /* a copy of an instance, moved */
        uint32_t i = rnd() % s->instance_count, id;
        vxr_instance in = s->instances[i];
        if (in.flags & VXR_INSTANCE_REMOVED) return;
        in.flags = 0;
        for (int k = 0; k < 3; k++) in.transform.translation[k] += (float)(rnd() % 9) - 4.0f;
        CHECK(vxr_scene_add_instance(s, &in, &id, NULL) == VXR_OK);
        return;
    }
    if (kind == 4 && s->instance_count > 1) {
        CHECK(vxr_scene_remove_instance(s, rnd() % s->instance_count) == VXR_OK);
        return;
    }
    if (kind == 5) { /* a new model with a few voxels, placed */
        uint32_t m, id;
        CHECK(vxr_scene_add_model(s, &m) == VXR_OK);
        vxr_edit ed = {.op = VXR_EDIT_SET,
                       .model = m,
                       .value = s->attr_size == 4 ? 0xff3080c0u : 9,
                       .shape = VXR_SHAPE_SPHERE,
                       .centre = {2, 3, 4},
                       .radius = 2.5};
        CHECK(vxr_editor_apply(u->e, &ed, NULL, NULL) == VXR_OK);
        vxr_instance in = {
            .model = m, .transform = vxr_transform_identity(), .view_distance = INFINITY};
        in.transform.translation[0] = (float)(rnd() % 20);
        CHECK(vxr_scene_add_instance(s, &in, &id, NULL) == VXR_OK);
        return;
    }
    if (kind == 6 && s->model_count > 1 && rnd() % 3 == 0) {
        CHECK(vxr_scene_remove_model(s, some_model(s)) == VXR_OK);
        return;
    }
    /* a shaped edit in and around a model, sometimes far past its root */
    uint32_t m = some_model(s);
    const vxr_octree *t = &s->models[m];
    vxr_edit ed = {.op = (vxr_edit_op)(1 + rnd() % 3), .model = m};
    ed.value = s->attr_size == 4 ? (rnd() | 0xff000000u) : 1 + rnd() % 255;
    ed.shape = rnd() % 2 ? VXR_SHAPE_BOX : VXR_SHAPE_SPHERE;
    for (int k = 0; k < 3; k++) {
        int32_t span = t->vmax[k] - t->vmin[k] + 8;
        int32_t c = t->vmin[k] - 4 + (int32_t)(rnd() % (uint32_t)(span > 0 ? span : 8));
        if (rnd() % 12 == 0) c += (int32_t)(rnd() % 300) - 150;
        ed.lo[k] = c;
        ed.hi[k] = c + 1 + (int32_t)(rnd() % 8);
        ed.centre[k] = c + 0.5;
    }
    ed.radius = 0.5 + (double)(rnd() % 60) / 10.0;
    if (rnd() % 25 == 0) { /* empty the model */
        ed.op = VXR_EDIT_CLEAR;
        ed.shape = VXR_SHAPE_BOX;
        for (int k = 0; k < 3; k++) {
            ed.lo[k] = t->vmin[k];
            ed.hi[k] = t->vmax[k];
        }
    }
    CHECK(vxr_editor_apply(u->e, &ed, NULL, NULL) == VXR_OK);
}

/* A renderer of s, its upload completed; NULL (and a failed check) on
 * failure. */
static vxr_renderer *make_renderer(vxr_context *ctx, cli_gpu *g, const char *name,
                                   const vxr_scene *s) {
    vxr_error err = {{0}};
    vxr_renderer *r = NULL;
    CHECK(cli_gpu_begin(g, &err) == VXR_OK);
    CHECK(vxr_renderer_create(ctx, s, g->cmd, &r, &err) == VXR_OK);
    CHECK(cli_gpu_submit(g, &err) == VXR_OK);
    if (!r) fprintf(stderr, "%s: %s\n", name, err.message);
    if (r) vxr_renderer_upload_done(r);
    return r;
}

/* With `two`, a second renderer made after a few changes follows the same
 * scene, and renders every other frame: neither disturbs the other. */
static bool run_scene(vxr_context *ctx, cli_gpu *g, const char *name, vxr_scene *s, int steps,
                      bool two) {
    run u = {.g = g, .s = s};
    vxr_error err = {{0}};
    CHECK(vxr_editor_create(s, 0, &u.e, &err) == VXR_OK);
    u.r = make_renderer(ctx, g, name, s);
    if (u.r && two) {
        for (int c = 0; c < 4; c++) random_change(&u);
        u.r2 = make_renderer(ctx, g, name, s);
    }
    if (!u.r || (two && !u.r2)) {
        vxr_renderer_destroy(u.r);
        vxr_editor_destroy(u.e);
        return false;
    }
    for (int k = 0; k < SLOTS; k++) {
        slot *sl = &u.slots[k];
        VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = g->pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
        VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        CHECK(vkAllocateCommandBuffers(g->info.device, &ai, &sl->cmd) == VK_SUCCESS);
        CHECK(vkCreateFence(g->info.device, &fi, NULL, &sl->fence) == VK_SUCCESS);
        vxr_target_desc td = {.width = W, .height = H, .picks = true, .readback = false};
        for (int j = 0; j < PER_CMD; j++) {
            CHECK(vxr_target_create(ctx, &td, &sl->target[j], &err) == VXR_OK);
            sl->expect[j] = malloc((size_t)W * H * sizeof *sl->expect[j]);
        }
    }
    for (int step = 0; step < steps; step++) {
        slot *sl = &u.slots[step % SLOTS];
        check_slot(&u, sl);
        VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                       .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
        CHECK(vkResetCommandBuffer(sl->cmd, 0) == VK_SUCCESS);
        CHECK(vkBeginCommandBuffer(sl->cmd, &bi) == VK_SUCCESS);
        for (int j = 0; j < PER_CMD; j++) {
            int changes = 1 + (int)(rnd() % 3);
            for (int c = 0; c < changes; c++) random_change(&u);
            vxr_update_info info;
            vxr_result r = vxr_renderer_update(u.r, s, sl->cmd, &info, &err);
            CHECK(r == VXR_OK);
            if (r != VXR_OK) fprintf(stderr, "  update: %s\n", err.message);
            sl->serial = info.serial;
            u.uploaded += info.upload_bytes;
            u.moved += info.moved_bytes;
            u.relayouts += info.relayout;
            if (u.r2) {
                CHECK(vxr_renderer_update(u.r2, s, sl->cmd, &info, &err) == VXR_OK);
                sl->serial2 = info.serial;
            }
            vxr_camera_orbit(s, 0.3f + 1.7f * (float)(step % 4), 0.5f, 1.0f, &sl->cam[j]);
            sl->cam[j].width = W;
            sl->cam[j].height = H;
            vxr_camera_setup(&sl->cam[j]);
            sl->grid[j] = (step + j) % 5 == 4 ? 4 : 1;
            /* every third frame at a level of detail: the node colours
             * of edited models follow their edits */
            const float lod = (step + j) % 3 == 1 ? 3.0f : 0.0f;
            vxr_renderer *by = u.r2 && j == 1 ? u.r2 : u.r;
            const vxr_frame fr = {.camera = &sl->cam[j],
                                  .grid = sl->grid[j],
                                  .color_before = VK_IMAGE_LAYOUT_GENERAL,
                                  .color_after = VK_IMAGE_LAYOUT_GENERAL,
                                  .lod = lod};
            CHECK(vxr_renderer_render_frame(by, sl->target[j], &fr, sl->cmd, NULL) == VXR_OK);
            expect_picks_lod(s, &sl->cam[j], sl->grid[j], lod, sl->expect[j]);
        }
        CHECK(vkEndCommandBuffer(sl->cmd) == VK_SUCCESS);
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .commandBufferCount = 1,
                           .pCommandBuffers = &sl->cmd};
        CHECK(vkQueueSubmit(g->queue, 1, &si, sl->fence) == VK_SUCCESS);
        sl->busy = true;
        u.steps++;
    }
    for (int k = 0; k < SLOTS; k++) check_slot(&u, &u.slots[k]);
    fprintf(stderr,
            "  %-36s %zu steps, %zu of %zu pixels agree; uploaded %llu B, moved %llu B, %u new "
            "layouts\n",
            name, u.steps, u.pixels - u.bad, u.pixels, (unsigned long long)u.uploaded,
            (unsigned long long)u.moved, u.relayouts);
    CHECK_EQ_INT(u.bad, 0);
    for (int k = 0; k < SLOTS; k++) {
        slot *sl = &u.slots[k];
        vkFreeCommandBuffers(g->info.device, g->pool, 1, &sl->cmd);
        vkDestroyFence(g->info.device, sl->fence, NULL);
        for (int j = 0; j < PER_CMD; j++) {
            vxr_target_destroy(sl->target[j]);
            free(sl->expect[j]);
        }
    }
    vxr_renderer_destroy(u.r);
    vxr_renderer_destroy(u.r2);
    vxr_editor_destroy(u.e);
    return u.bad == 0;
}

static const char *const files[] = {VXR_TEST_REAL_FILES};

static vxr_scene *load(const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", VXR_TEST_DATA, name);
    vxr_scene *s = NULL;
    vxr_error err = {{0}};
    if (vxr_scene_load(name[0] == '@' ? name : path, &s, &err) != VXR_OK)
        fprintf(stderr, "%s: %s\n", name, err.message);
    return s;
}

static void test_every_file(void) {
    if (!gpu_ok) SKIP("no device");
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        vxr_scene *s = load(files[f]);
        CHECK(s != NULL);
        if (!s) continue;
        run_scene(gpu.ctx, &gpu, files[f], s, 24, false);
        vxr_scene_destroy(s);
    }
    vxr_scene *s = load("@demo");
    if (s) run_scene(gpu.ctx, &gpu, "@demo", s, 24, false);
    vxr_scene_destroy(s);
    CHECK_EQ_INT(vxr_context_validation_messages(gpu.ctx), 0);
}

/* Bindings of 64 KiB: the scene splits over several, and growth adds
 * chunks (new pipelines) as the edits go on. */
static void test_small_bindings(void) {
    if (!gpu_ok) SKIP("no device");
    cli_gpu g2;
    vxr_error err = {{0}};
    vxr_context_desc d = {.validation = true, .max_binding_bytes = 64 << 10};
    CHECK(cli_gpu_open(&g2, &d, &err) == VXR_OK);
    vxr_scene *s = load("vengi__test-transform.vox");
    if (s && g2.ctx) run_scene(g2.ctx, &g2, "vengi__test-transform.vox (64 KiB)", s, 40, false);
    vxr_scene_destroy(s);
    if (g2.ctx) CHECK_EQ_INT(vxr_context_validation_messages(g2.ctx), 0);
    cli_gpu_close(&g2);
    cli_gpu_use(&gpu);
}

/* Two renderers follow one scene through edits, each reading the scene's
 * journal at its own cursor; every frame of both agrees with the CPU. */
static void test_two_renderers(void) {
    if (!gpu_ok) SKIP("no device");
    const char *name = "mmmm__scene_store8.vox";
    vxr_scene *s = load(name);
    CHECK(s != NULL);
    if (s) CHECK(run_scene(gpu.ctx, &gpu, "store8, two renderers", s, 24, true));
    vxr_scene_destroy(s);
    CHECK_EQ_INT(vxr_context_validation_messages(gpu.ctx), 0);
}

/* The first update after creation uploads what changed after it, and no
 * more: four single voxels on store8, made live before the renderer. */
static void test_first_update(void) {
    if (!gpu_ok) SKIP("no device");
    vxr_scene *s = load("mmmm__scene_store8.vox");
    CHECK(s != NULL);
    if (!s) return;
    vxr_error err = {{0}};
    vxr_editor *e = NULL;
    CHECK(vxr_editor_create(s, 0, &e, &err) == VXR_OK);
    vxr_renderer *r = make_renderer(gpu.ctx, &gpu, "store8", s);
    uint64_t scene_bytes = 0;
    for (uint32_t m = 0; m < s->model_count; m++) {
        const vxr_octree *t = &s->models[m];
        scene_bytes += (uint64_t)t->node_count * (sizeof(vxr_node) + 4) +
                       (uint64_t)vxr_octree_attr_count(t) * t->attr_size;
    }
    uint32_t m = some_model(s);
    for (int k = 0; k < 4; k++) {
        const vxr_octree *t = &s->models[m];
        int32_t c[3];
        for (int a = 0; a < 3; a++)
            c[a] = t->vmin[a] + (int32_t)(rnd() % (uint32_t)(t->vmax[a] - t->vmin[a]));
        vxr_edit ed = {.op = VXR_EDIT_SET,
                       .model = m,
                       .value = 7,
                       .shape = VXR_SHAPE_BOX,
                       .lo = {c[0], c[1], c[2]},
                       .hi = {c[0] + 1, c[1] + 1, c[2] + 1}};
        CHECK(vxr_editor_apply(e, &ed, NULL, &err) == VXR_OK);
    }
    vxr_update_info info = {0};
    vxr_target *tg = NULL;
    vxr_target_desc td = {.width = W, .height = H, .picks = true};
    CHECK(vxr_target_create(gpu.ctx, &td, &tg, &err) == VXR_OK);
    vxr_camera cam = {0};
    vxr_camera_orbit(s, 1.0f, 0.5f, 1.0f, &cam);
    cam.width = W;
    cam.height = H;
    CHECK(vxr_camera_setup(&cam) == VXR_OK);
    CHECK(cli_gpu_begin(&gpu, &err) == VXR_OK);
    CHECK(r && vxr_renderer_update(r, s, gpu.cmd, &info, &err) == VXR_OK);
    if (r && tg) {
        vxr_result rr = vxr_renderer_render(r, tg, &cam, 1, gpu.cmd, &err);
        if (rr != VXR_OK) fprintf(stderr, "  render: %s\n", err.message);
        CHECK(rr == VXR_OK);
    }
    CHECK(cli_gpu_submit(&gpu, &err) == VXR_OK);
    fprintf(stderr, "  first update after create: %llu B of a %llu B scene, %u model(s)\n",
            (unsigned long long)info.upload_bytes, (unsigned long long)scene_bytes, info.models);
    CHECK_EQ_INT(info.models, 1);
    CHECK(info.upload_bytes > 0 && info.upload_bytes < 4096);
    vxr_pick *expect = malloc((size_t)W * H * sizeof *expect);
    expect_picks(s, &cam, 1, expect);
    const vxr_gpu_pick *got = vxr_target_picks(tg);
    size_t bad = 0;
    for (size_t p = 0; p < (size_t)W * H; p++) bad += !same_pick(&got[p], &expect[p]);
    CHECK_EQ_INT(bad, 0);
    free(expect);
    vxr_target_destroy(tg);
    vxr_renderer_destroy(r);
    vxr_editor_destroy(e);
    vxr_scene_destroy(s);
    CHECK_EQ_INT(vxr_context_validation_messages(gpu.ctx), 0);
}

int main(int argc, char **argv) {
    vxr_error err = {{0}};
    vxr_context_desc d = {.validation = true};
    if (cli_gpu_open(&gpu, &d, &err) != VXR_OK) {
        /* lavapipe is installed wherever the tests run: no device fails */
        fprintf(stderr, "no Vulkan device: %s\n", err.message);
        return 1;
    }
    gpu_ok = true;
    static const vxr_test_case tests[] = {TEST(test_every_file), TEST(test_small_bindings),
                                          TEST(test_two_renderers), TEST(test_first_update)};
    int status = RUN_TESTS(tests);
    uint32_t messages = vxr_context_validation_messages(gpu.ctx);
    cli_gpu_close(&gpu);
    if (messages) fprintf(stderr, "%u validation messages\n", messages);
    return messages ? 1 : status;
}
