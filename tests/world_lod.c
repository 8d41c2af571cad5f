/* Chunks held coarse (vxr_world_set_lod): over a generated world seen from
 * above, each resident chunk is held at the level the rule gives (its
 * box's distance computed here in double precision, and the chunk's own
 * depth); picks from the eye at that level of detail equal, cube for cube
 * and bit for bit in t, colour and box, those over the same world with
 * every chunk whole; coming nearer refines chunks in place until the view
 * is complete; vxr_world_refine makes one whole at once, and
 * vxr_world_make_resident all of them; and a world of files refuses to
 * read whole or write back a coarse chunk that was edited, keeping its
 * files. */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "vxr/edit.h"
#include "vxr/formats.h"
#include "vxr/pick.h"
#include "vxr/world.h"
#include "vxr_test.h"
#include "internal.h"
#include "format_records.h"

enum { SIDE = 64 };
static const float VIEW = 1200.0f, K = 0.05f; /* k * VIEW < 2^6: no footprint above the cap */

static void settle(vxr_world *w, const float eye[3], vxr_world_status *st) {
    for (int k = 0; k < 2000; k++) {
        CHECK(vxr_world_update(w, eye, st, NULL) == VXR_OK);
        if (!st->loading) return;
        vxr_world_wait(w);
    }
    CHECK(0);
}

static vxr_world *open_terrain(void) {
    vxr_world *w = NULL;
    const vxr_world_desc desc = {"@terrain:1024", VIEW, 0, 2, SIDE};
    CHECK(vxr_world_open(&desc, &w, NULL) == VXR_OK);
    return w;
}

/* The level the rule gives a chunk at min corner lo whose whole octree has
 * `depth` levels. */
static uint32_t rule_level(const float eye[3], const float lo[3], uint32_t depth) {
    double d2 = 0;
    for (int k = 0; k < 3; k++) {
        const double a = lo[k], b = a + SIDE, p = eye[k];
        const double out = p < a ? a - p : p > b ? p - b : 0;
        d2 += out * out;
    }
    uint32_t level = 0;
    for (uint32_t l = 1; l <= 3; l++)
        if (pow(2.0, l + 2) < 0.98 * K * sqrt(d2)) level = l;
    const uint32_t most = depth > 3 ? depth - 3 : 0;
    return level < most ? level : most;
}

/* Every resident chunk of w is held at the rule's level (at most it when
 * not exact: a finer one stays); returns how many are coarse. */
static uint32_t check_levels(vxr_world *w, const float eye[3], bool exact) {
    const vxr_scene *s = vxr_world_scene(w);
    uint32_t coarse = 0, bad = 0;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const vxr_instance *in = &s->instances[i];
        if (in->flags & VXR_INSTANCE_REMOVED) continue;
        const uint32_t level = (uint32_t)log2f(in->transform.scale);
        const uint32_t depth = s->models[in->model].depth + level; /* the whole tree's */
        const uint32_t want = rule_level(eye, in->transform.translation, depth);
        if (exact ? level != want : level > want)
            fprintf(stderr, "chunk at %g %g %g: level %u, the rule's %u (depth %u)\n",
                    (double)in->transform.translation[0], (double)in->transform.translation[1],
                    (double)in->transform.translation[2], level, want, depth);
        bad += exact ? level != want : level > want;
        coarse += level > 0;
    }
    CHECK_EQ_INT(bad, 0);
    return coarse;
}

/* Picks from eye at K: the coarse world's records equal the whole one's. */
static void check_picks(vxr_world *coarse, vxr_world *whole, const float eye[3]) {
    vxr_picker *a = NULL, *b = NULL;
    CHECK(vxr_picker_create(vxr_world_scene(coarse), &a) == VXR_OK);
    CHECK(vxr_picker_create(vxr_world_scene(whole), &b) == VXR_OK);
    const vxr_lod lod = {K, false};
    int hits = 0, differ = 0, far = 0;
    for (int k = 0; a && b && k < 3000; k++) {
        const float az = 0.618f * (float)k, down = 0.05f + 0.6f * (float)(k % 97) / 97.0f;
        vxr_ray r = {{eye[0], eye[1], eye[2]},
                     {cosf(az) * cosf(down), sinf(az) * cosf(down), -sinf(down)}};
        vxr_pick p, q;
        CHECK(vxr_pick_ray_lod(a, &r, 1, &lod, &p) == VXR_OK);
        CHECK(vxr_pick_ray_lod(b, &r, 1, &lod, &q) == VXR_OK);
        hits += q.hit;
        const vxr_instance *ip = &vxr_world_scene(coarse)->instances[p.instance];
        far += p.hit && ip->transform.scale > 1;
        const uint32_t s = p.hit ? (uint32_t)ip->transform.scale : 1;
        const bool same =
            p.hit == q.hit && (!p.hit || (p.t == q.t && p.color == q.color && p.face == q.face &&
                                          p.size * s == q.size &&
                                          !memcmp(p.world_min, q.world_min, sizeof p.world_min) &&
                                          !memcmp(p.world_max, q.world_max, sizeof p.world_max)));
        differ += !same;
    }
    fprintf(stderr, "%d of 3000 rays hit, %d in coarse chunks, %d differ\n", hits, far, differ);
    CHECK_EQ_INT(differ, 0);
    CHECK(hits > 1000 && far > 300);
    vxr_picker_destroy(a);
    vxr_picker_destroy(b);
}

static void test_levels(void) {
    vxr_world *coarse = open_terrain(), *whole = open_terrain();
    if (!coarse || !whole) return;
    int64_t lo[3], hi[3];
    vxr_world_bounds(coarse, lo, hi, NULL);
    const float eye[3] = {(float)(lo[0] + hi[0]) / 2, (float)(lo[1] + hi[1]) / 2,
                          (float)hi[2] + 40};
    vxr_world_status st, sw;
    vxr_world_set_lod(coarse, K, false);
    settle(coarse, eye, &st);
    settle(whole, eye, &sw);
    CHECK_EQ_INT(st.missing, 0);
    CHECK_EQ_INT(st.resident, sw.resident);
    CHECK_EQ_INT(check_levels(coarse, eye, true), st.coarse);
    CHECK(st.coarse > st.resident / 4);
    CHECK(st.resident_bytes < sw.resident_bytes);
    fprintf(stderr, "%u of %u chunks coarse: %llu bytes against %llu whole\n", st.coarse,
            st.resident, (unsigned long long)st.resident_bytes,
            (unsigned long long)sw.resident_bytes);
    check_picks(coarse, whole, eye);
    /* nearer: the chunks below the new eye are refined in place */
    const float near[3] = {(float)lo[0] + 100, (float)lo[1] + 100, (float)hi[2] + 20};
    const uint32_t before = st.coarse;
    settle(coarse, near, &st);
    settle(whole, near, &sw);
    CHECK_EQ_INT(st.missing, 0);
    CHECK_EQ_INT(check_levels(coarse, near, false), st.coarse);
    CHECK(st.coarse != before);
    /* a coarse chunk made whole at once stays whole */
    const vxr_scene *s = vxr_world_scene(coarse);
    uint32_t model = UINT32_MAX;
    float at[3] = {0, 0, 0};
    for (uint32_t i = 0; i < s->instance_count && model == UINT32_MAX; i++)
        if (!(s->instances[i].flags & VXR_INSTANCE_REMOVED) &&
            s->instances[i].transform.scale > 1) {
            model = s->instances[i].model;
            memcpy(at, s->instances[i].transform.translation, sizeof at);
        }
    bool changed = false;
    CHECK(model != UINT32_MAX && vxr_world_refine(coarse, model, &changed, NULL) == VXR_OK);
    CHECK(changed);
    const uint32_t coarse_before = st.coarse;
    CHECK(vxr_world_update(coarse, near, &st, NULL) == VXR_OK);
    CHECK_EQ_INT(st.coarse, coarse_before - 1);
    int found = 0;
    for (uint32_t i = 0; i < s->instance_count; i++)
        if (!(s->instances[i].flags & VXR_INSTANCE_REMOVED) &&
            !memcmp(s->instances[i].transform.translation, at, sizeof at))
            found += s->instances[i].transform.scale == 1 ? 1 : 100;
    CHECK_EQ_INT(found, 1);
    /* a whole model is left alone */
    changed = true;
    CHECK(vxr_world_refine(coarse, s->instances[0].model, &changed, NULL) == VXR_OK);
    /* every chunk resident and whole, the coarse ones read again */
    CHECK(vxr_world_make_resident(coarse, NULL) == VXR_OK);
    uint32_t scaled = 0;
    for (uint32_t i = 0; i < s->instance_count; i++)
        scaled +=
            !(s->instances[i].flags & VXR_INSTANCE_REMOVED) && s->instances[i].transform.scale != 1;
    CHECK_EQ_INT(scaled, 0);
    CHECK(vxr_world_update(coarse, near, &st, NULL) == VXR_OK);
    CHECK_EQ_INT(st.coarse, 0);
    vxr_world_close(coarse);
    vxr_world_close(whole);
}

/* Coarse reads under way or ready when every chunk is asked for whole
 * are taken in, then read whole. */
static void test_resident_over_coarse(void) {
    vxr_world *w = open_terrain();
    if (!w) return;
    int64_t lo[3], hi[3];
    vxr_world_bounds(w, lo, hi, NULL);
    const float eye[3] = {(float)lo[0], (float)lo[1], (float)hi[2] + 40};
    vxr_world_set_lod(w, K, false);
    vxr_world_status st;
    CHECK(vxr_world_update(w, eye, &st, NULL) == VXR_OK);
    CHECK(st.loading > 0);
    vxr_world_wait(w); /* coarse trees ready, none taken in */
    CHECK(vxr_world_make_resident(w, NULL) == VXR_OK);
    const vxr_scene *s = vxr_world_scene(w);
    uint32_t live = 0, scaled = 0;
    for (uint32_t i = 0; i < s->instance_count; i++)
        if (!(s->instances[i].flags & VXR_INSTANCE_REMOVED)) {
            live++;
            scaled += s->instances[i].transform.scale != 1;
        }
    CHECK(live > 0);
    CHECK_EQ_INT(scaled, 0);
    vxr_world_close(w);
}

/* A world of files: a coarse chunk edited is refused a write-back, and
 * the files stay as they were. */
static void test_save_refused(void) {
    char work[] = "/tmp/vxr-lod-XXXXXX", dir[64], cmd[128];
    CHECK(mkdtemp(work) != NULL);
    snprintf(dir, sizeof dir, "%s/w", work);
    CHECK(vxr_world_build_generated("@terrain:256", dir, SIDE, 0, NULL, NULL) == VXR_OK);
    vxr_scene *before = NULL, *after = NULL;
    CHECK(vxr_world_load(dir, &before, NULL) == VXR_OK);
    vxr_world *w = NULL;
    const vxr_world_desc desc = {dir, VIEW, 0, 2, 0};
    CHECK(vxr_world_open(&desc, &w, NULL) == VXR_OK);
    if (w && before) {
        vxr_world_set_lod(w, 100.0f, true); /* every chunk as coarse as it may be */
        vxr_world_status st;
        const float eye[3] = {0, 0, 500};
        settle(w, eye, &st);
        CHECK(st.coarse > 0);
        vxr_scene *s = vxr_world_scene(w);
        uint32_t i = 0;
        while (i + 1 < s->instance_count && s->instances[i].transform.scale == 1) i++;
        CHECK(vxr_scene_touch_model(s, s->instances[i].model, NULL) == VXR_OK);
        vxr_error err = {{0}};
        bool changed = true; /* read whole, it would drop the edit */
        CHECK(vxr_world_refine(w, s->instances[i].model, &changed, &err) == VXR_ERROR_ARGUMENT);
        CHECK(!changed && strstr(err.message, "edited") != NULL);
        CHECK(vxr_world_save(w, NULL, &err) == VXR_ERROR_ARGUMENT);
        CHECK(strstr(err.message, "coarse") != NULL);
        CHECK(vxr_world_load(dir, &after, NULL) == VXR_OK);
        size_t na = 0, nb = 0;
        uint8_t *a = records(before, &na), *b = after ? records(after, &nb) : NULL;
        CHECK(a && b && na == nb && !memcmp(a, b, 16 * na));
        free(a);
        free(b);
    }
    vxr_world_close(w);
    vxr_scene_destroy(before);
    vxr_scene_destroy(after);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
    CHECK(system(cmd) == 0);
}

VXR_TEST_MAIN(TEST(test_levels), TEST(test_resident_over_coarse), TEST(test_save_refused))
