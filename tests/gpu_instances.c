/* Instances moved through the scene API on the GPU, on lavapipe with
 * validation (synchronization validation too, from the test's
 * environment): random moves, scale and rotation changes, hides and
 * shows, view distances and culling from the camera's eye, duplicates made
 * and broken, removals and additions, each step recorded with
 * vxr_renderer_update (which refits the hierarchy in place, or builds it
 * afresh) and rendered with pick records, two steps per command buffer and
 * two command buffers in flight. Every pixel's GPU record must equal the
 * CPU pick of the scene as it was when that frame was recorded, and the
 * updates must mostly stay in place (refits, a few nodes written). */
#include <math.h>
#include "gpu.h"
#include "vxr/cull.h"
#include "vxr/edit.h"
#include "vxr/formats.h"
#include "gpu_picks.h"
#include "vxr_test.h"

VXR_TEST_RNG(0x1257a9ce6ull)

static cli_gpu gpu;
static bool gpu_ok;

enum { W = 64, H = 48, SLOTS = 2, PER_CMD = 2 };

typedef struct slot {
    VkCommandBuffer cmd;
    VkFence fence;
    vxr_target *target[PER_CMD];
    vxr_pick *expect[PER_CMD];
    uint64_t serial;
    bool busy;
} slot;

typedef struct run {
    cli_gpu *g;
    vxr_scene *s;
    vxr_culler *c;
    vxr_renderer *r;
    slot slots[SLOTS];
    size_t pixels, bad, steps;
    uint32_t refits, builds, records, nodes, hits;
    uint32_t every; /* updates that looked at every instance */
} run;

static float frand(float lo, float hi) {
    return lo + (hi - lo) * (float)(rnd() % 1000001) / 1000000.0f;
}

static void check_slot(run *u, slot *sl) {
    if (!sl->busy) return;
    CHECK(vkWaitForFences(u->g->info.device, 1, &sl->fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS);
    CHECK(vkResetFences(u->g->info.device, 1, &sl->fence) == VK_SUCCESS);
    vxr_renderer_complete(u->r, sl->serial);
    for (int k = 0; k < PER_CMD; k++) {
        const vxr_gpu_pick *g = vxr_target_picks(sl->target[k]);
        for (size_t p = 0; p < (size_t)W * H; p++) {
            u->hits += sl->expect[k][p].hit != 0;
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

/* One random change through the API; culling from eye now and then. */
static void random_change(run *u, const float eye[3]) {
    vxr_scene *s = u->s;
    uint32_t n = s->instance_count, i = rnd() % n;
    vxr_instance in = s->instances[i];
    if (in.flags & VXR_INSTANCE_REMOVED) {
        in.flags = 0;
        uint32_t id;
        CHECK(vxr_scene_add_instance(s, &in, &id, NULL) == VXR_OK);
        return;
    }
    vxr_transform t = in.transform;
    switch (rnd() % 14) {
    case 0: /* far away */
        for (int k = 0; k < 3; k++) t.translation[k] += frand(-80, 80);
        break;
    case 1:
        t.scale = rnd() % 2 ? 2.0f : 0.5f;
        break;
    case 2: { /* a quarter turn about z */
        static const float q[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1};
        memcpy(t.rotation, q, sizeof q);
        break;
    }
    case 3:
        CHECK(vxr_scene_set_flags(s, i, (in.flags ^ VXR_INSTANCE_HIDDEN) & VXR_INSTANCE_HIDDEN,
                                  NULL) == VXR_OK);
        return;
    case 4: /* onto another instance of the same model: a duplicate */
        for (int tries = 0; tries < 32; tries++) {
            uint32_t j = rnd() % n;
            if (j != i && s->instances[j].model == in.model) {
                t = s->instances[j].transform;
                break;
            }
        }
        break;
    case 5:
        CHECK(vxr_scene_set_view_distance(s, i, rnd() % 3 ? frand(20, 200) : INFINITY, NULL) ==
              VXR_OK);
        return;
    case 6:
        CHECK(vxr_culler_update(u->c, s, rnd() % 6 ? eye : NULL, NULL, NULL) == VXR_OK);
        return;
    case 7:
        if (rnd() % 6 == 0) CHECK(vxr_scene_remove_instance(s, i) == VXR_OK);
        return;
    default: /* a small step */
        for (int k = 0; k < 3; k++) t.translation[k] += (float)(rnd() % 5) - 2.0f;
    }
    CHECK(vxr_scene_set_transform(s, i, &t, NULL) == VXR_OK);
}

static bool run_scene(vxr_context *ctx, cli_gpu *g, const char *name, vxr_scene *s, int steps) {
    run u = {.g = g, .s = s};
    vxr_error err = {{0}};
    CHECK(vxr_culler_create(s, &u.c) == VXR_OK);
    CHECK(cli_gpu_begin(g, &err) == VXR_OK);
    CHECK(vxr_renderer_create(ctx, s, g->cmd, &u.r, &err) == VXR_OK);
    CHECK(cli_gpu_submit(g, &err) == VXR_OK);
    if (!u.r || !u.c) {
        fprintf(stderr, "%s: %s\n", name, err.message);
        vxr_culler_destroy(u.c);
        return false;
    }
    vxr_renderer_upload_done(u.r);
    for (int k = 0; k < SLOTS; k++) {
        slot *sl = &u.slots[k];
        VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = g->pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
        VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        CHECK(vkAllocateCommandBuffers(g->info.device, &ai, &sl->cmd) == VK_SUCCESS);
        CHECK(vkCreateFence(g->info.device, &fi, NULL, &sl->fence) == VK_SUCCESS);
        vxr_target_desc td = {.width = W, .height = H, .picks = true};
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
            vxr_camera cam;
            vxr_camera_orbit(s, 0.3f + 0.9f * (float)(step % 7), 0.5f, 1.0f, &cam);
            cam.width = W;
            cam.height = H;
            vxr_camera_setup(&cam);
            int changes = 1 + (int)(rnd() % (step % 5 == 0 ? 12 : 3));
            for (int c = 0; c < changes; c++) random_change(&u, cam.eye);
            vxr_update_info info;
            vxr_result r = vxr_renderer_update(u.r, s, sl->cmd, &info, &err);
            CHECK(r == VXR_OK);
            if (r != VXR_OK) fprintf(stderr, "  update: %s\n", err.message);
            sl->serial = info.serial;
            u.refits += info.refit;
            u.builds += info.hierarchy;
            u.records += info.instances;
            u.nodes += info.refit ? info.bvh_nodes : 0;
            u.every += info.instances_checked == s->instance_count && s->instance_count > 8;
            uint32_t grid = (step + j) % 5 == 4 ? 4 : 1;
            CHECK(vxr_renderer_render(u.r, sl->target[j], &cam, grid, sl->cmd, NULL) == VXR_OK);
            expect_picks(s, &cam, grid, sl->expect[j]);
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
            "  %-24s %zu steps, %zu of %zu pixels agree (%u hits); %u refits (%u nodes), %u "
            "builds, %u records\n",
            name, u.steps, u.pixels - u.bad, u.pixels, u.hits, u.refits, u.nodes, u.builds,
            u.records);
    CHECK_EQ_INT(u.bad, 0);
    CHECK(u.hits > 0);
    CHECK(u.refits > u.builds); /* the updates mostly stay in place */
    CHECK(u.every <= 1);        /* and look only at what changed (but the first) */
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
    vxr_culler_destroy(u.c);
    return u.bad == 0;
}

static vxr_scene *load(const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", VXR_TEST_DATA, name);
    vxr_scene *s = NULL;
    vxr_error err = {{0}};
    if (vxr_scene_load(name[0] == '@' ? name : path, &s, &err) != VXR_OK)
        fprintf(stderr, "%s: %s\n", name, err.message);
    return s;
}

static void test_moves(void) {
    if (!gpu_ok) SKIP("no device");
    static const char *const names[] = {"bevy_vox_scene__study.vox", "vengi__8ontop.vox",
                                        "vengi__test-transform.vox",
                                        "ogt__test_multiple_model_scene.vox", "@world:600"};
    for (size_t f = 0; f < sizeof names / sizeof names[0]; f++) {
        vxr_scene *s = load(names[f]);
        CHECK(s != NULL);
        if (!s) continue;
        run_scene(gpu.ctx, &gpu, names[f], s, 40);
        vxr_scene_destroy(s);
    }
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
    static const vxr_test_case tests[] = {TEST(test_moves)};
    int status = RUN_TESTS(tests);
    uint32_t messages = vxr_context_validation_messages(gpu.ctx);
    cli_gpu_close(&gpu);
    if (messages) fprintf(stderr, "%u validation messages\n", messages);
    return messages ? 1 : status;
}
