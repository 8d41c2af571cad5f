/* Streaming worlds (vxr_world_open, _update): along an eye path over a
 * world built from store8 in chunks of 16, the resident chunks are exactly
 * those some eye so far wanted (no budget: nothing leaves), the wanted set
 * being the chunks whose grown bounding sphere holds the eye (brute force
 * with vxr_sphere_contains as the oracle); the streamed scene's world cells
 * are the full world's cells of those chunks; a picker that follows the
 * scene's journal answers as a new one; under a budget the resident bytes
 * stay within it once the chunks not wanted are gone, farthest first, and
 * the wanted ones are all resident, an edited one written back and gone
 * too; an update returns without waiting, and takes in a share of the
 * budget of what the loaders made; a
 * chunk file gone is reported once, naming it. */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "vxr/edit.h"
#include "vxr/formats.h"
#include "vxr/pick.h"
#include "vxr/spheres.h"
#include "vxr/world.h"
#include "vxr_test.h"
#include "internal.h"
#include "format_records.h"

enum { SIDE = 16 };
static const float VIEW = 40.0f;
static char work[256], dir[300];
static vxr_scene *full; /* the whole world, every chunk resident */

static void remove_tree(const char *path) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    CHECK(system(cmd) == 0);
}

/* The chunk an instance of the full world (or the streamed scene) is. */
static void chunk_of(const vxr_instance *in, int32_t c[3]) {
    for (int k = 0; k < 3; k++) c[k] = (int32_t)floorf(in->transform.translation[k] / SIDE);
}

/* Whether chunk c's grown bounding sphere holds eye. */
static bool wanted(const int32_t c[3], const float eye[3]) {
    const float half = SIDE / 2.0f;
    float centre[3];
    for (int k = 0; k < 3; k++) centre[k] = (float)(c[k] * SIDE) + half;
    return vxr_sphere_contains(centre, VIEW + half * sqrtf(3.0f), eye);
}

/* Updates until no chunk is asked for or read. */
static void settle(vxr_world *w, const float eye[3], vxr_world_status *st) {
    for (int k = 0; k < 1000; k++) {
        CHECK(vxr_world_update(w, eye, st, NULL) == VXR_OK);
        if (!st->loading) return;
        vxr_world_wait(w);
    }
    CHECK(0);
}

/* The full world's records of the chunks marked in keep (by full's
 * instance index), sorted. */
static uint8_t *full_records(const bool *keep, size_t *n) {
    vxr_scene *s = full;
    uint32_t *flags = malloc((s->instance_count + 1) * sizeof *flags);
    for (uint32_t i = 0; i < s->instance_count; i++) {
        flags[i] = s->instances[i].flags;
        if (!keep[i]) s->instances[i].flags |= VXR_INSTANCE_HIDDEN;
    }
    uint8_t *r = records(s, n);
    for (uint32_t i = 0; i < s->instance_count; i++) s->instances[i].flags = flags[i];
    free(flags);
    return r;
}

static void test_path(void) {
    vxr_world *w = NULL;
    const vxr_world_desc desc = {dir, VIEW, 0, 2, 0};
    CHECK(vxr_world_open(&desc, &w, NULL) == VXR_OK);
    if (!w) return;
    vxr_scene *s = vxr_world_scene(w);
    const uint32_t chunks = full->instance_count;
    bool *ever = calloc(chunks, sizeof *ever);
    vxr_picker *follower = NULL;
    static const float path[][3] = {
        {-200, 0, 0}, {-40, -30, 0}, {0, 0, 10}, {30, 40, -20}, {60, -50, 20}};
    for (size_t p = 0; p < sizeof path / sizeof path[0]; p++) {
        vxr_world_status st;
        settle(w, path[p], &st);
        uint32_t want = 0;
        for (uint32_t i = 0; i < chunks; i++) {
            int32_t c[3];
            chunk_of(&full->instances[i], c);
            const bool in = wanted(c, path[p]);
            want += in;
            ever[i] = ever[i] || in;
        }
        CHECK_EQ_INT(st.wanted, want);
        CHECK_EQ_INT(st.missing, 0);
        /* resident: every chunk some eye wanted, once each */
        uint32_t resident = 0;
        for (uint32_t i = 0; i < chunks; i++) resident += ever[i];
        CHECK_EQ_INT(st.resident, resident);
        size_t na = 0, nb = 0;
        uint8_t *a = full_records(ever, &na), *b = records(s, &nb);
        CHECK(a && b && na == nb && !memcmp(a, b, 16 * na));
        free(a);
        free(b);
        if (p == 0) CHECK_EQ_INT(st.resident, 0); /* far away: nothing */
        /* a picker made earlier follows the journal */
        if (!follower) CHECK(vxr_picker_create(s, &follower) == VXR_OK);
        CHECK(follower && vxr_picker_update(follower, NULL) == VXR_OK);
        vxr_picker *fresh = NULL;
        CHECK(vxr_picker_create(s, &fresh) == VXR_OK);
        size_t differ = 0;
        for (int k = 0; follower && fresh && k < 500; k++) {
            vxr_ray ray = {
                {path[p][0], path[p][1], path[p][2]},
                {cosf(0.37f * (float)k), sinf(0.37f * (float)k), sinf(0.11f * (float)k)}};
            vxr_pick x, y;
            CHECK(vxr_pick_ray(follower, &ray, 1, &x) == VXR_OK);
            CHECK(vxr_pick_ray(fresh, &ray, 1, &y) == VXR_OK);
            differ += memcmp(&x, &y, sizeof x) != 0;
        }
        CHECK_EQ_INT(differ, 0);
        vxr_picker_destroy(fresh);
    }
    vxr_picker_destroy(follower);
    free(ever);
    vxr_world_close(w);
}

/* The budget: what eye a needs. Moving to b, a's chunks go as b's come. */
static void test_budget(void) {
    vxr_world *w = NULL;
    vxr_world_desc desc = {dir, VIEW, 0, 1, 0};
    CHECK(vxr_world_open(&desc, &w, NULL) == VXR_OK);
    vxr_world_status st;
    static const float a[3] = {-40, -30, 0}, b[3] = {60, -50, 20};
    if (w) settle(w, a, &st);
    const uint64_t at_a = st.resident_bytes;
    vxr_world_close(w);
    desc.budget_bytes = at_a;
    w = NULL;
    CHECK(vxr_world_open(&desc, &w, NULL) == VXR_OK);
    if (!w) return;
    settle(w, a, &st);
    CHECK_EQ_INT(st.resident_bytes, at_a);
    /* a chunk edited (its model stamped as changed) is written back and goes
     * as the others (tests/world_save.c checks what it writes) */
    vxr_scene *s = vxr_world_scene(w);
    uint32_t edited = 0; /* the farthest from b: the first to go */
    float farthest = -1;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const float *t = s->instances[i].transform.translation;
        const float d = (t[0] - b[0]) * (t[0] - b[0]) + (t[1] - b[1]) * (t[1] - b[1]) +
                        (t[2] - b[2]) * (t[2] - b[2]);
        if (!(s->instances[i].flags & VXR_INSTANCE_REMOVED) && d > farthest) {
            farthest = d;
            edited = i;
        }
    }
    const vxr_transform kept = s->instances[edited].transform;
    CHECK(vxr_scene_touch_model(s, s->instances[edited].model, NULL) == VXR_OK);
    settle(w, b, &st);
    /* every chunk b wants is resident; what a wanted went, down to the budget */
    CHECK_EQ_INT(st.missing, 0);
    CHECK(st.evicted > 0);
    uint64_t kept_far = 0, edited_kept = 0;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const vxr_instance *in = &s->instances[i];
        if (in->flags & VXR_INSTANCE_REMOVED) continue;
        edited_kept += !memcmp(&in->transform, &kept, sizeof kept);
        int32_t c[3];
        chunk_of(in, c);
        if (!wanted(c, b)) kept_far++;
    }
    /* within the budget, or nothing left to evict */
    CHECK_EQ_INT(edited_kept, 0);
    CHECK_EQ_INT(st.unsaved, 0);
    CHECK(st.resident_bytes <= at_a || kept_far == 0);
    CHECK(kept_far < st.resident);
    vxr_world_close(w);
}

/* An update asks and returns: the first one finds nothing resident. */
static void test_no_wait(void) {
    vxr_world *w = NULL;
    const vxr_world_desc desc = {dir, VIEW, 0, 1, 0};
    CHECK(vxr_world_open(&desc, &w, NULL) == VXR_OK);
    if (!w) return;
    static const float eye[3] = {0, 0, 0};
    vxr_world_status st;
    CHECK(vxr_world_update(w, eye, &st, NULL) == VXR_OK);
    CHECK(st.wanted > 0 && st.resident == 0 && st.missing == st.wanted && st.loading > 0);
    vxr_world_close(w); /* with loads in flight */
}

/* A chunk file gone: reported once, naming it; the others load. */
static void test_missing_chunk(void) {
    char copy[400], cmd[900], victim[600];
    snprintf(copy, sizeof copy, "%s/copy", work);
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", dir, copy);
    CHECK(system(cmd) == 0);
    int32_t c[3];
    chunk_of(&full->instances[0], c);
    snprintf(victim, sizeof victim, "%s/chunks/%d.%d.%d.vxc", copy, c[0], c[1], c[2]);
    CHECK(unlink(victim) == 0);
    vxr_world *w = NULL;
    const vxr_world_desc desc = {copy, 1e6f, 0, 1, 0};
    CHECK(vxr_world_open(&desc, &w, NULL) == VXR_OK);
    if (!w) return;
    static const float eye[3] = {0, 0, 0};
    vxr_world_status st;
    int failures = 0;
    for (int k = 0; k < 100; k++) {
        vxr_error err = {{0}};
        const vxr_result r = vxr_world_update(w, eye, &st, &err);
        if (r != VXR_OK) {
            failures++;
            CHECK(r == VXR_ERROR_IO && strstr(err.message, victim));
        }
        if (!st.loading && k > 0) break;
        vxr_world_wait(w);
    }
    CHECK_EQ_INT(failures, 1);
    CHECK_EQ_INT(st.resident, st.chunks - 1);
    CHECK_EQ_INT(st.missing, 1);
    vxr_world_close(w);
    remove_tree(copy);
}

/* An update takes in at most a sixteenth of the budget of what the
 * loaders made (at least 1 MiB, at least one chunk); the rest waits,
 * counted as loading, and the next updates take it. Chunks charge
 * vxr_octree_gpu_bytes, and the resident ones stay within the budget but
 * for the last one asked for. */
static void test_take_limit(void) {
    vxr_world *w = NULL;
    const uint64_t budget = 16u << 20, limit = 1u << 20;
    const vxr_world_desc desc = {"@terrain:4096", 0, budget, 2, 0};
    CHECK(vxr_world_open(&desc, &w, NULL) == VXR_OK);
    if (!w) return;
    static const float eye[3] = {0, 0, 100};
    vxr_world_status st;
    CHECK(vxr_world_update(w, eye, &st, NULL) == VXR_OK);
    const vxr_scene *s = vxr_world_scene(w);
    uint32_t takes = 0;
    uint64_t before = 0, largest = 0;
    for (int k = 0; k < 1000 && st.loading; k++) {
        vxr_world_wait(w);
        CHECK(vxr_world_update(w, eye, &st, NULL) == VXR_OK);
        uint64_t sum = 0, last = 0;
        for (uint32_t i = 0; i < s->instance_count; i++) {
            if (s->instances[i].flags & VXR_INSTANCE_REMOVED) continue;
            last = vxr_octree_gpu_bytes(&s->models[s->instances[i].model]);
            sum += last;
            if (last > largest) largest = last;
        }
        CHECK_EQ_INT(sum, st.resident_bytes);
        /* what this update took: under the limit but for the chunk that crossed it */
        CHECK(sum - before < limit + largest);
        takes += sum > before;
        before = sum;
    }
    CHECK(!st.loading && st.resident > 0);
    CHECK(takes >= 3); /* several updates took chunks in */
    CHECK(st.resident_bytes <= budget + largest);
    CHECK(st.missing > 0); /* the budget left the view incomplete */
    /* the loaders made each chunk's node colours: vxr_lod_colors' own */
    uint32_t checked = 0;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        if (s->instances[i].flags & VXR_INSTANCE_REMOVED) continue;
        vxr_octree m = s->models[s->instances[i].model];
        CHECK(m.lod_colors != NULL);
        if (!m.lod_colors) continue;
        const uint32_t *made = m.lod_colors;
        m.lod_colors = NULL; /* computed afresh from the tree */
        uint32_t *fresh = malloc((size_t)m.node_count * sizeof *fresh);
        if (fresh) {
            vxr_lod_colors(&m, s->palette, 0, m.node_count, fresh);
            CHECK(!memcmp(fresh, made, (size_t)m.node_count * sizeof *fresh));
            checked++;
        }
        free(fresh);
    }
    CHECK(checked == st.resident);
    /* an edit drops them: the live form has none */
    vxr_octree *first = NULL;
    for (uint32_t i = 0; i < s->instance_count && !first; i++)
        if (!(s->instances[i].flags & VXR_INSTANCE_REMOVED))
            first = &s->models[s->instances[i].model];
    CHECK(first && vxr_octree_make_live(first) == VXR_OK && first->lod_colors == NULL);
    vxr_world_close(w);
}

static void test_refused(void) {
    vxr_world *w = NULL;
    vxr_error err = {{0}};
    vxr_world_desc desc = {dir, -1, 0, 1, 0};
    CHECK(vxr_world_open(&desc, &w, &err) == VXR_ERROR_ARGUMENT && !w);
    desc.view_distance = INFINITY;
    CHECK(vxr_world_open(&desc, &w, &err) == VXR_ERROR_ARGUMENT && !w);
    desc.view_distance = NAN;
    CHECK(vxr_world_open(&desc, &w, &err) == VXR_ERROR_ARGUMENT && !w);
    desc.view_distance = 0; /* four chunk sides */
    CHECK(vxr_world_open(&desc, &w, &err) == VXR_OK && w);
    vxr_world_status st;
    static const float eye[3] = {0, 0, 0};
    CHECK(w && vxr_world_update(w, eye, &st, NULL) == VXR_OK && st.view_distance == 4 * SIDE);
    vxr_world_close(w);
    w = NULL;
    desc.path = work; /* not a world */
    CHECK(vxr_world_open(&desc, &w, &err) != VXR_OK && !w);
    CHECK(strstr(err.message, "world.vxw") != NULL);
}

int run(int argc, char **argv);

int main(int argc, char **argv) {
    snprintf(work, sizeof work, "/tmp/vxr-stream-XXXXXX");
    if (!mkdtemp(work)) return 1;
    snprintf(dir, sizeof dir, "%s/store8", work);
    vxr_scene *s = load_file(VXR_TEST_DATA "/mmmm__scene_store8.vox");
    int r = 1;
    if (s && vxr_world_build(s, dir, SIDE, 0, NULL, NULL) == VXR_OK &&
        vxr_world_load(dir, &full, NULL) == VXR_OK)
        r = run(argc, argv);
    vxr_scene_destroy(s);
    vxr_scene_destroy(full);
    remove_tree(work);
    return r;
}

/* the tests' main, as run() */
#define main run
VXR_TEST_MAIN(TEST(test_path), TEST(test_budget), TEST(test_no_wait), TEST(test_missing_chunk),
              TEST(test_take_limit), TEST(test_refused))
