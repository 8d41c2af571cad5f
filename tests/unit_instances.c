/* Instances moved through the scene API (vxr/edit.h) and the hierarchy
 * updated in place (vxr_bvh_update), against brute force:
 *  - the setters check their arguments and list what they change; the
 *    change list tells every consumer every instance changed since its
 *    last take (or says it cannot);
 *  - after random moves, scale and rotation changes, hides and shows,
 *    culling, duplicates made and broken, removals and additions: every
 *    node's box is the union of its children's (leaves: of their items'
 *    boxes), every visible instance sits in exactly one reachable leaf or
 *    is collapsed onto a lower identical item, no invisible one does, and
 *    the depth stays within the walks' stack;
 *  - picks: for random rays the brute-force pick over every instance
 *    (vxr_pick_ray_loop) names an instance that the hierarchy's walk
 *    reaches: every box on the path to its leaf is entered at or before
 *    the hit's t (with the grid's pad). A walk that reaches the brute-force
 *    winner and traces only visible instances picks exactly that winner
 *    (the smallest t, ties to the lower index), so this is the walk's pick
 *    equal to brute force, whatever the hierarchy's shape;
 *  - the picker's walk against a CPU copy of the GPU's (trace.comp's:
 *    every box by vxr_box_enter, every item of a leaf traced, every cell's
 *    slabs from the root down): the same picks bit for bit, at every grid,
 *    also for rays with NaN, infinite, huge or tiny components.
 * tests/gpu_instances.c renders the same changes and compares every pixel. */
#include <math.h>
#include "vxr/bvh.h"
#include "vxr/cull.h"
#include "vxr/edit.h"
#include "vxr/formats.h"
#include "vxr/pick.h"
#include "vxr_test.h"
#include "vxr_trace.h"

VXR_TEST_RNG(0x1257a9ce5ull)

static float frand(float lo, float hi) {
    return lo + (hi - lo) * (float)(rnd() % 1000001) / 1000000.0f;
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

/* ---- the API ---- */

static bool listed(vxr_scene *s, uint64_t *since, uint32_t id) {
    const vxr_change *ch;
    uint32_t n;
    bool known = vxr_journal_read(s, since, &ch, &n, NULL), found = false;
    for (uint32_t j = 0; j < n; j++) found |= ch[j].kind == VXR_CHANGE_INSTANCE && ch[j].id == id;
    return known && found;
}

static int cmp_id(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The instances the journal lists from *cursor, ascending and once each,
 * into a new array *ids (the caller frees it); false when it cannot tell. */
static bool journal_instances(const vxr_scene *s, uint64_t *cursor, uint32_t **ids,
                              uint32_t *count) {
    const vxr_change *ch;
    uint32_t n, m = 0;
    bool known = vxr_journal_read(s, cursor, &ch, &n, NULL);
    *ids = malloc(((size_t)n + 1) * sizeof **ids);
    for (uint32_t j = 0; j < n && *ids; j++)
        if (ch[j].kind == VXR_CHANGE_INSTANCE) (*ids)[m++] = ch[j].id;
    qsort(*ids, m, sizeof **ids, cmp_id);
    uint32_t kept = 0;
    for (uint32_t j = 0; j < m; j++)
        if (!kept || (*ids)[j] != (*ids)[kept - 1]) (*ids)[kept++] = (*ids)[j];
    *count = kept;
    return known;
}

static void test_setters(void) {
    vxr_scene *s = load("vengi__8ontop.vox");
    CHECK(s != NULL);
    if (!s) return;
    vxr_error err = {{0}};
    uint64_t since = vxr_journal_end(s), version = s->version;
    const vxr_change *ch;
    uint32_t n;
    CHECK(vxr_journal_read(s, &since, &ch, &n, NULL) && n == 0);
    uint32_t last = s->instance_count;
    vxr_transform t = s->instances[3].transform;
    /* refused, and nothing changes */
    CHECK(vxr_scene_set_transform(s, last, &t, &err) == VXR_ERROR_ARGUMENT && err.message[0]);
    CHECK(vxr_scene_set_transform(s, 3, NULL, NULL) == VXR_ERROR_ARGUMENT);
    vxr_transform bad = t;
    bad.scale = 0;
    CHECK(vxr_scene_set_transform(s, 3, &bad, NULL) == VXR_ERROR_ARGUMENT);
    bad.scale = -1;
    CHECK(vxr_scene_set_transform(s, 3, &bad, NULL) == VXR_ERROR_ARGUMENT);
    bad.scale = NAN;
    CHECK(vxr_scene_set_transform(s, 3, &bad, NULL) == VXR_ERROR_ARGUMENT);
    bad = t;
    bad.translation[1] = INFINITY;
    CHECK(vxr_scene_set_transform(s, 3, &bad, NULL) == VXR_ERROR_ARGUMENT);
    bad = t;
    bad.rotation[4] = 2;
    CHECK(vxr_scene_set_transform(s, 3, &bad, NULL) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_scene_set_flags(s, 3, VXR_INSTANCE_CULLED, NULL) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_scene_set_flags(s, 3, VXR_INSTANCE_REMOVED, NULL) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_scene_set_flags(s, 3, 64, NULL) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_scene_set_flags(s, last, 0, NULL) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_scene_set_view_distance(s, 3, NAN, NULL) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_scene_set_view_distance(s, 3, -1, NULL) == VXR_ERROR_ARGUMENT);
    CHECK(vxr_scene_set_view_distance(s, last, 5, NULL) == VXR_ERROR_ARGUMENT);
    /* the same value changes nothing */
    CHECK(vxr_scene_set_transform(s, 3, &t, NULL) == VXR_OK);
    CHECK(vxr_scene_set_flags(s, 3, s->instances[3].flags & VXR_INSTANCE_HIDDEN, NULL) == VXR_OK);
    CHECK(vxr_scene_set_view_distance(s, 3, s->instances[3].view_distance, NULL) == VXR_OK);
    CHECK_EQ_INT(s->version, version);
    CHECK(vxr_journal_read(s, &since, &ch, &n, NULL) && n == 0);
    /* changes: stamped, and listed in order, one entry each */
    t.translation[0] += 3;
    CHECK(vxr_scene_set_transform(s, 3, &t, NULL) == VXR_OK);
    CHECK_EQ_INT(s->instance_version[3], s->version);
    CHECK(!memcmp(&s->instances[3].transform, &t, sizeof t));
    t.translation[0] += 3;
    CHECK(vxr_scene_set_transform(s, 3, &t, NULL) == VXR_OK);
    CHECK(vxr_scene_set_flags(s, 5, VXR_INSTANCE_HIDDEN, NULL) == VXR_OK);
    CHECK(s->instances[5].flags & VXR_INSTANCE_HIDDEN);
    CHECK(vxr_scene_set_view_distance(s, 6, 12.5f, NULL) == VXR_OK);
    CHECK(s->instances[6].view_distance == 12.5f);
    uint64_t second = since; /* a second reader, at the same place */
    CHECK(vxr_journal_read(s, &since, &ch, &n, NULL));
    CHECK_EQ_INT(n, 4);
    if (n == 4)
        CHECK(ch[0].id == 3 && ch[1].id == 3 && ch[2].id == 5 && ch[3].id == 6 &&
              ch[0].kind == VXR_CHANGE_INSTANCE && ch[3].kind == VXR_CHANGE_INSTANCE);
    CHECK(since == vxr_journal_end(s));
    CHECK(vxr_journal_read(s, &since, &ch, &n, NULL) && n == 0);  /* read: nothing new */
    CHECK(vxr_journal_read(s, &second, &ch, &n, NULL) && n == 4); /* the other reader's own */
    CHECK(vxr_scene_set_flags(s, 5, 0, NULL) == VXR_OK);
    CHECK(listed(s, &since, 5));
    /* a removed instance refuses */
    CHECK(vxr_scene_remove_instance(s, 7) == VXR_OK);
    CHECK(listed(s, &since, 7));
    CHECK(vxr_scene_set_transform(s, 7, &t, &err) == VXR_ERROR_ARGUMENT);
    CHECK(strstr(err.message, "removed") != NULL);
    CHECK(vxr_scene_set_flags(s, 7, 0, NULL) == VXR_ERROR_ARGUMENT);
    /* in-place writers stamp */
    s->instances[2].view_distance = 7;
    CHECK(vxr_scene_touch_instance(s, 2, NULL) == VXR_OK);
    CHECK(vxr_scene_touch_instance(s, last, NULL) == VXR_ERROR_ARGUMENT); /* refused */
    CHECK(listed(s, &since, 2));
    /* any cursor the journal holds is answered; one past its end is not */
    uint64_t early = vxr_journal_end(s);
    CHECK(vxr_scene_set_view_distance(s, 2, 8, NULL) == VXR_OK);
    uint64_t mid = vxr_journal_end(s);
    CHECK(vxr_scene_set_view_distance(s, 2, 9, NULL) == VXR_OK);
    CHECK(vxr_journal_read(s, &mid, &ch, &n, NULL) && n == 1 && ch[0].id == 2);
    CHECK(vxr_journal_read(s, &early, &ch, &n, NULL) && n == 2);
    uint64_t past = vxr_journal_end(s) + 1;
    const char *why = NULL;
    CHECK(!vxr_journal_read(s, &past, &ch, &n, &why) && n == 0 && why && !ch);
    CHECK(past == vxr_journal_end(s));
    vxr_scene_destroy(s);
}

/* Two readers at their own pace, and one that sleeps: each is told every
 * instance changed since it last read, or that the journal cannot tell. */
static void test_change_list(void) {
    vxr_scene *s = load("@world:500");
    CHECK(s != NULL);
    if (!s) return;
    uint64_t at = vxr_journal_end(s), since[3] = {at, at, at},
             read_at[3] = {s->version, s->version, s->version};
    uint32_t *seen = calloc(s->instance_count, sizeof *seen);
    uint32_t missed = 0, full = 0, answered = 0, extra = 0;
    for (int step = 0; step < 3000; step++) {
        uint32_t k = 1 + rnd() % (step % 500 == 0 ? 3000 : 8); /* now and then a flood */
        for (uint32_t c = 0; c < k; c++) {
            uint32_t i = rnd() % s->instance_count;
            vxr_transform t = s->instances[i].transform;
            t.translation[rnd() % 3] += (float)(rnd() % 5) - 2.0f;
            CHECK(vxr_scene_set_transform(s, i, &t, NULL) == VXR_OK);
        }
        for (int who = 0; who < 3; who++) {
            if (who == 1 && rnd() % 3) continue;
            if (who == 2 && rnd() % 200) continue;
            const vxr_change *ch;
            uint32_t n;
            bool known = vxr_journal_read(s, &since[who], &ch, &n, NULL);
            full += !known;
            answered += known;
            for (uint32_t j = 0; j < n; j++) {
                seen[ch[j].id] = (uint32_t)step + 1;
                extra += ch[j].kind != VXR_CHANGE_INSTANCE ||
                         s->instance_version[ch[j].id] <= read_at[who];
            }
            for (uint32_t i = 0; known && i < s->instance_count; i++)
                missed += s->instance_version[i] > read_at[who] && seen[i] != (uint32_t)step + 1;
            read_at[who] = s->version;
        }
    }
    CHECK_EQ_INT(missed, 0);
    CHECK_EQ_INT(extra, 0);
    CHECK(answered > 10 * full); /* the journal answers nearly always */
    CHECK(s->journal_capacity <= 65536 + 4 * s->instance_count);
    /* a reader that sleeps through more than the journal keeps resyncs */
    uint64_t sleeper = vxr_journal_end(s);
    for (uint32_t c = 0; c < 2 * (65536 + 4 * s->instance_count); c++) {
        uint32_t i = c % s->instance_count;
        float d = (float)(c / s->instance_count % 2) + 1.0f;
        CHECK(vxr_scene_set_view_distance(s, i, d, NULL) == VXR_OK);
    }
    const vxr_change *ch;
    uint32_t n;
    const char *why = NULL;
    CHECK(!vxr_journal_read(s, &sleeper, &ch, &n, &why) && n == 0 && why);
    CHECK(sleeper == vxr_journal_end(s));
    CHECK(s->journal_capacity <= 65536 + 4 * s->instance_count);
    free(seen);
    vxr_scene_destroy(s);
}

/* ---- the hierarchy against brute force ---- */

static bool same_identity(const vxr_gpu_instance *a, const vxr_gpu_instance *b) {
    return a->model == b->model &&
           !memcmp(a->world_to_local, b->world_to_local, sizeof a->world_to_local);
}

static bool box_has(const float *lo, const float *hi, const float *a, const float *b) {
    for (int k = 0; k < 3; k++)
        if (a[k] < lo[k] || b[k] > hi[k]) return false;
    return true;
}

/* Every invariant of the header; counts the failures. */
static uint32_t check_tree(const vxr_scene *s, const vxr_gpu_instance *rec, const vxr_bvh *t,
                           uint32_t *seen) {
    uint32_t bad = 0, n = s->instance_count, held = 0;
    memset(seen, 0, n * sizeof *seen);
    double cost = 0;
    if (t->node_count) {
        /* want: the node's skip, the depth-first successor of its subtree */
        uint32_t stack[2 * VXR_BVH_STACK], depth[2 * VXR_BVH_STACK], want[2 * VXR_BVH_STACK],
            sp = 0;
        stack[sp] = 0;
        want[sp] = VXR_BVH_END;
        depth[sp++] = 0;
        bad += t->parent[0] != UINT32_MAX;
        while (sp) {
            uint32_t node = stack[--sp], d = depth[sp], skip = want[sp];
            const vxr_gpu_bvh_node *nd = &t->nodes[node];
            bad += d > VXR_BVH_MAX_DEPTH || node >= t->node_count || nd->skip != skip;
            float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
            double a = 2.0 * ((double)(nd->hi[0] - nd->lo[0]) * (nd->hi[1] - nd->lo[1]) +
                              (double)(nd->hi[1] - nd->lo[1]) * (nd->hi[2] - nd->lo[2]) +
                              (double)(nd->hi[2] - nd->lo[2]) * (nd->hi[0] - nd->lo[0]));
            cost += a * (nd->count ? nd->count : 1);
            if (nd->count == 0) {
                if (nd->first + 1 >= t->node_count || sp + 2 > 2 * VXR_BVH_STACK) {
                    bad++;
                    continue;
                }
                for (uint32_t c = 0; c < 2; c++) {
                    const vxr_gpu_bvh_node *ch = &t->nodes[nd->first + c];
                    bad += t->parent[nd->first + c] != node;
                    bad += !box_has(nd->lo, nd->hi, ch->lo, ch->hi);
                    for (int k = 0; k < 3; k++) {
                        lo[k] = fminf(lo[k], ch->lo[k]);
                        hi[k] = fmaxf(hi[k], ch->hi[k]);
                    }
                    stack[sp] = nd->first + c;
                    want[sp] = c == 0 ? nd->first + 1 : skip;
                    depth[sp++] = d + 1;
                }
            } else {
                if (nd->first + nd->count > t->item_count) {
                    bad++;
                    continue;
                }
                for (uint32_t j = nd->first; j < nd->first + nd->count; j++) {
                    uint32_t i = t->items[j];
                    if (i >= n) {
                        bad++;
                        continue;
                    }
                    float a0[3], b0[3];
                    vxr_bvh_instance_box(&rec[i], a0, b0);
                    bad += !box_has(nd->lo, nd->hi, a0, b0);
                    bad += (t->leaf_of[i] & 0x7fffffffu) != node;
                    bad += rec[i].scale > t->max_scale;
                    for (int k = 0; k < 3; k++) {
                        lo[k] = fminf(lo[k], a0[k]);
                        hi[k] = fmaxf(hi[k], b0[k]);
                    }
                    seen[i]++;
                    held++;
                }
            }
            /* tight: exactly the union */
            bad += memcmp(lo, nd->lo, sizeof lo) != 0 || memcmp(hi, nd->hi, sizeof hi) != 0;
        }
    }
    bad += held != t->held;
    bad += fabs(cost - t->cost) > 1e-6 * (cost + 1.0);
    for (uint32_t i = 0; i < n; i++) {
        bool visible = vxr_bvh_holds(s, &rec[i]);
        if (!visible) {
            bad += seen[i] != 0;
            continue;
        }
        if (seen[i] == 1) continue;
        /* collapsed onto a lower identical item */
        uint32_t j = t->leaf_of[i] == UINT32_MAX - 1 ? t->dup_item[i] : i;
        if (seen[i] != 0 || j >= i || seen[j] != 1 || !same_identity(&rec[i], &rec[j])) {
            if (bad < 3) fprintf(stderr, "  instance %u: in %u leaves\n", i, seen[i]);
            bad++;
        }
    }
    return bad;
}

/* The brute-force pick of random rays, and the walk's reach of it. */
static uint32_t check_picks(const vxr_scene *s, const vxr_bvh *t, const uint32_t *seen, int rays,
                            uint32_t *hits) {
    vxr_picker *p = NULL;
    CHECK(vxr_picker_create(s, &p) == VXR_OK);
    if (!p) return 1;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < s->instance_count; i++) {
        if (s->instances[i].flags & VXR_INSTANCE_HIDDEN) continue;
        float a[3], b[3];
        vxr_instance_world_bounds(s, i, a, b);
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], a[k]);
            hi[k] = fmaxf(hi[k], b[k]);
        }
    }
    uint32_t bad = 0;
    for (int r = 0; r < rays; r++) {
        vxr_ray ray;
        float aim[3];
        for (int k = 0; k < 3; k++) {
            float span = hi[k] - lo[k] + 2;
            aim[k] = frand(lo[k] - 1, hi[k] + 1);
            ray.origin[k] = aim[k] + frand(-span, span);
        }
        if (r % 4 == 0) ray.origin[2] = hi[2] + 10; /* from above, often straight down */
        for (int k = 0; k < 3; k++) ray.dir[k] = aim[k] - ray.origin[k];
        if (r % 8 == 0) ray.dir[0] = ray.dir[1] = 0;
        if (ray.dir[0] == 0 && ray.dir[1] == 0 && ray.dir[2] == 0) ray.dir[2] = -1;
        uint32_t grid = r % 5 == 4 ? 4 : 1;
        vxr_pick brute, fresh;
        CHECK(vxr_pick_ray_loop(p, &ray, grid, &brute) == VXR_OK);
        CHECK(vxr_pick_ray(p, &ray, grid, &fresh) == VXR_OK);
        bad += memcmp(&brute, &fresh, sizeof brute) != 0;
        if (!brute.hit) continue;
        (*hits)++;
        uint32_t h = brute.instance;
        if (h >= s->instance_count || seen[h] != 1) {
            bad++;
            continue;
        }
        float pad = vxr_bvh_grid_pad(t, grid);
        for (uint32_t node = t->leaf_of[h] & 0x7fffffffu; node != UINT32_MAX;
             node = t->parent[node])
            if (vxr_box_enter(ray.origin, ray.dir, t->nodes[node].lo, t->nodes[node].hi, pad,
                              brute.t) == INFINITY) {
                if (bad < 3) fprintf(stderr, "  ray %d: instance %u unreachable\n", r, h);
                bad++;
                break;
            }
    }
    vxr_picker_destroy(p);
    return bad;
}

/* One random change through the API (and the culler's). */
static void random_change(vxr_scene *s, vxr_culler *c) {
    uint32_t n = s->instance_count, i = rnd() % n;
    vxr_instance in = s->instances[i];
    if (in.flags & VXR_INSTANCE_REMOVED) {
        in.flags = 0;
        uint32_t id;
        if (rnd() % 2) CHECK(vxr_scene_add_instance(s, &in, &id, NULL) == VXR_OK);
        return;
    }
    vxr_transform t = in.transform;
    switch (rnd() % 16) {
    case 0: /* far away */
        for (int k = 0; k < 3; k++) t.translation[k] += frand(-300, 300);
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
    case 4:
        CHECK(vxr_scene_set_flags(s, i, (in.flags ^ VXR_INSTANCE_HIDDEN) & VXR_INSTANCE_HIDDEN,
                                  NULL) == VXR_OK);
        return;
    case 5: /* onto another instance of the same model: a duplicate */
        for (int tries = 0; tries < 32; tries++) {
            uint32_t j = rnd() % n;
            if (j != i && s->instances[j].model == in.model) {
                t = s->instances[j].transform;
                break;
            }
        }
        break;
    case 6:
        CHECK(vxr_scene_set_view_distance(s, i, rnd() % 3 ? frand(5, 80) : INFINITY, NULL) ==
              VXR_OK);
        return;
    case 7:
        if (rnd() % 4 == 0 && c) {
            float eye[3] = {frand(-100, 100), frand(-100, 100), frand(0, 60)};
            CHECK(vxr_culler_update(c, s, rnd() % 5 ? eye : NULL, NULL, NULL) == VXR_OK);
        }
        return;
    case 8:
        if (rnd() % 8 == 0) CHECK(vxr_scene_remove_instance(s, i) == VXR_OK);
        return;
    default: /* a small step */
        for (int k = 0; k < 3; k++) t.translation[k] += (float)(rnd() % 7) - 3.0f;
    }
    CHECK(vxr_scene_set_transform(s, i, &t, NULL) == VXR_OK);
}

/* steps batches of random changes on scene name, each followed by an
 * update and the checks; in_place: the least ratio of updates in place to
 * builds expected (far jumps in a small scene wear its hierarchy down,
 * so builds come often there). */
static void run_scene(const char *name, int steps, int rays, uint32_t item_limit_extra,
                      uint32_t in_place_ratio) {
    vxr_scene *s = load(name);
    CHECK(s != NULL);
    if (!s) return;
    vxr_culler *c = NULL;
    CHECK(vxr_culler_create(s, &c) == VXR_OK);
    size_t cap = (size_t)s->instance_count * 2 + 64;
    vxr_gpu_instance *rec = malloc(cap * sizeof *rec), *check = malloc(cap * sizeof *check);
    uint32_t *seen = malloc(cap * sizeof *seen);
    vxr_instance_records(s, rec);
    vxr_bvh t;
    CHECK(vxr_bvh_build(s, rec, &t) == VXR_OK);
    CHECK_EQ_INT(check_tree(s, rec, &t, seen), 0);
    uint64_t since = vxr_journal_end(s);
    vxr_bvh_changes_taken(&t);
    uint32_t bad = 0, picks_bad = 0, hits = 0, in_place = 0, builds = 0, unlisted = 0;
    uint32_t full_items = 0; /* updates in place that left items[] nearly full */
    uint32_t splits = 0;     /* updates in place that split leaves */
    for (int step = 0; step < steps; step++) {
        int k = 1 + (int)(rnd() % (step % 7 == 0 ? 40 : 6));
        for (int j = 0; j < k; j++) random_change(s, c);
        if (s->instance_count > cap) break; /* the arrays are sized for this */
        uint32_t *ids, m;
        if (!journal_instances(s, &since, &ids, &m)) {
            free(ids);
            ids = malloc(((size_t)s->instance_count + 1) * sizeof *ids);
            for (m = 0; m < s->instance_count; m++) ids[m] = m;
        }
        for (uint32_t j = 0; j < m; j++)
            if (ids[j] < s->instance_count) vxr_instance_gpu(s, ids[j], &rec[ids[j]]);
        /* the list missed nothing: every other record is as it was */
        vxr_instance_records(s, check);
        for (uint32_t i = 0; i < s->instance_count; i++)
            unlisted += memcmp(&check[i], &rec[i], sizeof rec[i]) != 0;
        memcpy(rec, check, s->instance_count * sizeof *rec);
        bool rebuilt = false;
        uint32_t limit = item_limit_extra ? s->instance_count + item_limit_extra : 0,
                 nodes = t.node_count;
        CHECK(vxr_bvh_update(&t, s, rec, ids, m, step % 50 == 49, limit, &rebuilt) == VXR_OK);
        builds += rebuilt;
        in_place += !rebuilt;
        bad += limit && t.item_count > limit;
        full_items += limit && !rebuilt && t.item_count + 4 > limit;
        splits += !rebuilt && t.node_count > nodes;
        vxr_bvh_changes changes;
        vxr_bvh_get_changes(&t, &changes);
        for (uint32_t j = 1; j < changes.node_count; j++)
            bad += changes.nodes[j] <= changes.nodes[j - 1];
        vxr_bvh_changes_taken(&t);
        free(ids);
        bad += check_tree(s, rec, &t, seen);
        if (step % 4 == 0) picks_bad += check_picks(s, &t, seen, rays, &hits);
    }
    fprintf(stderr, "  %-26s %d steps: %u in place (%u splitting leaves), %u builds; %u hits\n",
            name, steps, in_place, splits, builds, hits);
    CHECK(!item_limit_extra || full_items > 0); /* the limit was met */
    CHECK_EQ_INT(unlisted, 0);
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(picks_bad, 0);
    CHECK(hits > 0);
    CHECK(in_place > in_place_ratio * builds); /* the point: most updates stay in place */
    vxr_bvh_free(&t);
    vxr_culler_destroy(c);
    free(rec);
    free(check);
    free(seen);
    vxr_scene_destroy(s);
}

static void test_refit_world(void) {
    run_scene("@world:2000", 300, 64, 0, 5);
}

static void test_refit_files(void) {
    run_scene("vengi__8ontop.vox", 300, 64, 0, 5);         /* overlapping copies */
    run_scene("bevy_vox_scene__study.vox", 200, 64, 0, 2); /* 53 instances */
    run_scene("mmmm__scene_store8.vox", 100, 64, 0, 0);    /* one: shown, hidden, moved */
    run_scene("vengi__test-transform.vox", 200, 64, 0, 2); /* rotations, scales */
    run_scene("ogt__test_multiple_model_scene.vox", 150, 64, 0, 5);
}

/* items[] limited to the instance count and a little: leaves that take new
 * items move to the end until it is full, then a build compacts. */
static void test_item_limit(void) {
    run_scene("ogt__test_multiple_model_scene.vox", 200, 32, 24, 0);
}

/* A camera sweeping over a world with culling on: instances appear and
 * disappear at the edge of view every step, all in place (leaves fill,
 * move, split and empty) and rarely a build. */
static void test_cull_sweep(void) {
    vxr_scene *s = load("@world:3000");
    CHECK(s != NULL);
    if (!s) return;
    vxr_culler *c = NULL;
    CHECK(vxr_culler_create(s, &c) == VXR_OK);
    float eye[3] = {-300, -200, 40};
    CHECK(vxr_culler_update(c, s, eye, NULL, NULL) == VXR_OK);
    size_t n = s->instance_count;
    vxr_gpu_instance *rec = malloc(n * sizeof *rec);
    uint32_t *seen = malloc(n * sizeof *seen), *ids = malloc(2 * n * sizeof *ids);
    vxr_instance_records(s, rec);
    vxr_bvh t;
    CHECK(vxr_bvh_build(s, rec, &t) == VXR_OK);
    uint64_t since = vxr_journal_end(s);
    uint32_t bad = 0, builds = 0, splits = 0, changes = 0, hits = 0;
    for (int step = 0; step < 150; step++) {
        eye[0] += 4.0f;
        eye[1] += 2.5f;
        CHECK(vxr_culler_update(c, s, eye, NULL, NULL) == VXR_OK);
        uint32_t *listed, m;
        CHECK(journal_instances(s, &since, &listed, &m));
        for (uint32_t j = 0; j < m; j++) {
            ids[j] = listed[j];
            vxr_instance_gpu(s, ids[j], &rec[ids[j]]);
        }
        free(listed);
        changes += m;
        uint32_t nodes = t.node_count;
        bool rebuilt;
        CHECK(vxr_bvh_update(&t, s, rec, ids, m, false, (uint32_t)n, &rebuilt) == VXR_OK);
        builds += rebuilt;
        splits += !rebuilt && t.node_count > nodes;
        bad += check_tree(s, rec, &t, seen);
        if (step % 5 == 0) bad += check_picks(s, &t, seen, 48, &hits);
    }
    fprintf(stderr, "  %u changes in 150 steps: %u builds, %u updates splitting leaves\n", changes,
            builds, splits);
    CHECK_EQ_INT(bad, 0);
    CHECK(changes > 300);
    CHECK(builds < 10);
    CHECK(splits > 0);
    vxr_bvh_free(&t);
    vxr_culler_destroy(c);
    free(rec);
    free(seen);
    free(ids);
    vxr_scene_destroy(s);
}

/* A stack of identical copies: one item; taking them apart one by one
 * hands the item over to the next, and every step stays in place. */
static void test_duplicates(void) {
    vxr_scene *s = load("mmmm__chr_robot.vox");
    CHECK(s != NULL);
    if (!s) return;
    vxr_instance in = s->instances[0];
    in.flags = 0;
    for (int k = 0; k < 20; k++) {
        uint32_t id;
        CHECK(vxr_scene_add_instance(s, &in, &id, NULL) == VXR_OK);
    }
    size_t n = s->instance_count;
    vxr_gpu_instance *rec = malloc(n * sizeof *rec);
    uint32_t *seen = malloc(n * sizeof *seen);
    vxr_instance_records(s, rec);
    vxr_bvh t;
    CHECK(vxr_bvh_build(s, rec, &t) == VXR_OK);
    CHECK(t.held < n);
    CHECK_EQ_INT(check_tree(s, rec, &t, seen), 0);
    uint32_t builds = 0, bad = 0, hits = 0;
    for (uint32_t i = 0; i < n; i++) {
        vxr_transform x = s->instances[i].transform;
        x.translation[i % 3] += 1.0f + (float)(i % 4);
        if (i % 3 == 2) {
            CHECK(vxr_scene_set_flags(s, i, VXR_INSTANCE_HIDDEN, NULL) == VXR_OK);
        } else {
            CHECK(vxr_scene_set_transform(s, i, &x, NULL) == VXR_OK);
        }
        vxr_instance_gpu(s, i, &rec[i]);
        bool rebuilt;
        CHECK(vxr_bvh_update(&t, s, rec, &i, 1, false, 0, &rebuilt) == VXR_OK);
        builds += rebuilt;
        bad += check_tree(s, rec, &t, seen);
        bad += check_picks(s, &t, seen, 16, &hits);
    }
    fprintf(stderr, "  %zu instances, %zu stacked: %u builds\n", n, n - t.held, builds);
    CHECK(builds * 4 < n);
    CHECK_EQ_INT(bad, 0);
    vxr_bvh_free(&t);
    free(rec);
    free(seen);
    vxr_scene_destroy(s);
}

/* ---- the GPU's walk against the picker's ----
 * shaders/trace.comp walks the hierarchy with vxr_box_enter, traces every
 * item of a leaf it reaches, and computes every octree cell's slabs with
 * vxr_cube_slabs from the root down. The reference below repeats that on
 * the CPU (the seed's walk, which core/pick.c's was); its records,
 * expanded by vxr_pick_expand, must equal the picker's picks bit for bit,
 * also for rays with NaN, infinite, huge or tiny components. */

typedef struct ref_trace {
    const vxr_octree *m;
    float o[3], d[3];
    uint32_t grid; /* its level */
    float tmax;
    int32_t lo[3];
    uint32_t level, attr;
    float t;
    int axis;
} ref_trace;

static uint32_t ref_popcount(uint64_t v) {
    uint32_t n = 0;
    for (; v; v &= v - 1) n++;
    return n;
}

static uint32_t ref_mask(const vxr_octree *m, uint32_t level, uint32_t node, uint32_t octant) {
    const vxr_node *nd = &m->nodes[node];
    if (level > VXR_BRICK_LEVEL) return nd->a;
    if (level == VXR_BRICK_LEVEL) return vxr_brick_children(nd->a, nd->b);
    return vxr_brick_octant(nd->a, nd->b, octant);
}

static uint32_t ref_child(const vxr_octree *m, uint32_t node, uint32_t o) {
    return m->nodes[node].b + ref_popcount(m->nodes[node].a & ((1u << o) - 1));
}

static uint32_t ref_attr(const vxr_octree *m, uint32_t brick, uint32_t bit) {
    uint64_t bits = (uint64_t)m->nodes[brick].b << 32 | m->nodes[brick].a;
    uint32_t i = vxr_octree_brick_base(m, brick) + ref_popcount(bits & ((1ull << bit) - 1)), v;
    if (m->attr_size == 1) return m->attrs[i];
    memcpy(&v, m->attrs + (size_t)i * 4, 4);
    return v;
}

/* The first voxel (Morton order) under a node at level (level 1: a byte
 * of brick node). */
static uint32_t ref_first(const vxr_octree *m, uint32_t level, uint32_t node, uint32_t octant) {
    for (; level > 1; level--) {
        uint32_t o = (uint32_t)__builtin_ctz(ref_mask(m, level, node, octant));
        if (level == VXR_BRICK_LEVEL)
            octant = o;
        else
            node = ref_child(m, node, o);
    }
    return ref_attr(m, node, octant * 8 + (uint32_t)__builtin_ctz(ref_mask(m, 1, node, octant)));
}

static int ref_visit(ref_trace *c, uint32_t level, uint32_t node, uint32_t octant,
                     const int32_t lo[3], uint32_t voxel) {
    const vxr_slabs sl = vxr_cube_slabs(c->o, c->d, lo, 1 << level);
    const float t0 = sl.tenter > 0.0f ? sl.tenter : 0.0f;
    if (!sl.inside || !(t0 < sl.texit) || t0 > c->tmax) return 0;
    if (level == c->grid) {
        memcpy(c->lo, lo, sizeof c->lo);
        c->level = level;
        c->t = t0;
        c->axis = sl.tenter < 0.0f ? -1 : sl.axis;
        c->attr = level == 0 ? ref_attr(c->m, node, octant * 8 + voxel)
                             : ref_first(c->m, level, node, octant);
        return 1;
    }
    const uint32_t mask = ref_mask(c->m, level, node, octant);
    const int32_t half = 1 << (level - 1);
    float tm[3];
    vxr_mid_planes(c->o, c->d, lo, half, tm);
    uint32_t state = vxr_enter_child(c->o, c->d, lo, half, t0, tm);
    for (;;) {
        const uint32_t child = state & 7;
        const float tnext = vxr_next_crossing(tm, state, sl.texit);
        if (mask & (1u << child)) {
            const int32_t clo[3] = {lo[0] + ((child >> 2) & 1 ? half : 0),
                                    lo[1] + ((child >> 1) & 1 ? half : 0),
                                    lo[2] + (child & 1 ? half : 0)};
            if (level == 1 ? ref_visit(c, 0, node, octant, clo, child)
                : level == VXR_BRICK_LEVEL
                    ? ref_visit(c, 1, node, child, clo, 0)
                    : ref_visit(c, level - 1, ref_child(c->m, node, child), 0, clo, 0))
                return 1;
        }
        if (!(tnext < sl.texit) || tnext > c->tmax) return 0;
        state = vxr_cross(tm, state, tnext);
    }
}

/* Grids at least as large as the root: the N-aligned cubes holding the
 * root, or each of its children for a root centred on the origin. */
static int ref_large_grid(ref_trace *c) {
    const vxr_octree *m = c->m;
    const int32_t n = 1 << c->grid, half = 1 << (m->depth - 1);
    const bool centred = m->origin[0] % (2 * half) != 0;
    const uint32_t mask = centred ? ref_mask(m, m->depth, 0, 0) : 1;
    int found = 0;
    for (uint32_t o = 0; o < 8; o++) {
        if (!(mask & (1u << o))) continue;
        int32_t lo[3];
        for (int k = 0; k < 3; k++)
            lo[k] = (m->origin[k] + (centred && ((o >> (2 - k)) & 1) ? half : 0)) & ~(n - 1);
        const vxr_slabs sl = vxr_cube_slabs(c->o, c->d, lo, n);
        const float t0 = sl.tenter > 0.0f ? sl.tenter : 0.0f;
        if (!sl.inside || !(t0 < sl.texit) || t0 > c->tmax) continue;
        if (found && !(t0 < c->t)) continue;
        memcpy(c->lo, lo, sizeof c->lo);
        c->level = c->grid;
        c->t = t0;
        c->axis = sl.tenter < 0.0f ? -1 : sl.axis;
        c->attr = centred ? ref_first(m, m->depth - 1, ref_child(m, 0, o), 0)
                          : ref_first(m, m->depth, 0, 0);
        found = 1;
    }
    return found;
}

/* The pick trace.comp makes of ray, as a record, expanded. */
static void ref_pick(const vxr_scene *s, const vxr_gpu_instance *rec, const vxr_bvh *t,
                     const vxr_ray *ray, uint32_t grid, vxr_pick *dest) {
    const uint32_t level = grid > 1 ? (uint32_t)__builtin_ctz(grid) : 0;
    const float pad = vxr_bvh_grid_pad(t, 1u << level);
    ref_trace best = {0};
    uint32_t best_i = UINT32_MAX, stack[VXR_BVH_STACK], sp = 0;
    best.t = INFINITY;
    if (t->node_count && vxr_box_enter(ray->origin, ray->dir, t->nodes[0].lo, t->nodes[0].hi, pad,
                                       INFINITY) < INFINITY)
        stack[sp++] = 0;
    while (sp > 0) {
        const vxr_gpu_bvh_node *nd = &t->nodes[stack[--sp]];
        for (uint32_t k = 0; k < nd->count; k++) {
            const uint32_t i = t->items[nd->first + k];
            ref_trace c = {&s->models[rec[i].model], {0}, {0}, level, best.t, {0}, 0, 0, 0, 0};
            vxr_affine_point(rec[i].world_to_local, ray->origin, c.o);
            vxr_affine_dir(rec[i].world_to_local, ray->dir, c.d);
            int hit = c.m->node_count == 0   ? 0
                      : c.grid >= c.m->depth ? ref_large_grid(&c)
                                             : ref_visit(&c, c.m->depth, 0, 0, c.m->origin, 0);
            if (hit && (c.t < best.t || (c.t == best.t && i < best_i))) {
                best = c;
                best_i = i;
            }
        }
        if (nd->count) continue;
        float ta = vxr_box_enter(ray->origin, ray->dir, t->nodes[nd->first].lo,
                                 t->nodes[nd->first].hi, pad, best.t);
        float tb = vxr_box_enter(ray->origin, ray->dir, t->nodes[nd->first + 1].lo,
                                 t->nodes[nd->first + 1].hi, pad, best.t);
        uint32_t ia = nd->first, ib = nd->first + 1;
        if (ta < tb) {
            float x = ta;
            ta = tb;
            tb = x;
            ia = ib;
            ib = nd->first;
        }
        if (ta < INFINITY) stack[sp++] = ia;
        if (tb < INFINITY) stack[sp++] = ib;
    }
    vxr_gpu_pick r = {best_i == UINT32_MAX ? VXR_PICK_MISS : best_i, {0}, 0, 0, 0, 0};
    if (best_i != UINT32_MAX) {
        const int face = vxr_entry_face(best.axis, best.axis < 0 ? 0.0f : best.d[best.axis]);
        memcpy(r.voxel, best.lo, sizeof r.voxel);
        r.t = best.t;
        r.shape = vxr_pick_shape(
            best.level, face,
            vxr_nearest_corner_edge(best.lo, best.level, best.o, best.d, best.t, face));
        r.color = s->attr_size == 1 ? s->palette[best.attr] : best.attr;
        r.flags = VXR_PICK_HIT;
    }
    CHECK(vxr_pick_expand(s, s->version, ray, &r, dest, NULL) == VXR_OK);
}

static void test_gpu_walk(void) {
    static const char *names[] = {"bevy_vox_scene__study.vox", "vengi__test-transform.vox",
                                  "vengi__8ontop.vox",         "ogt__test_multiple_model_scene.vox",
                                  "mmmm__scene_store8.vox",    "@world:300"};
    static const float odd[] = {NAN,    INFINITY, -INFINITY, 1e38f, -3e30f, 1e21f,
                                1e-21f, -1e-30f,  0.0f,      -0.0f, 1e-40f};
    static const uint32_t grids[] = {1, 1, 1, 2, 8, 64, 1u << 20};
    for (size_t f = 0; f < sizeof names / sizeof names[0]; f++) {
        vxr_scene *s = load(names[f]);
        CHECK(s != NULL);
        if (!s) continue;
        vxr_gpu_instance *rec = malloc(s->instance_count * sizeof *rec);
        vxr_instance_records(s, rec);
        vxr_bvh t;
        vxr_picker *p;
        CHECK(vxr_bvh_build(s, rec, &t) == VXR_OK);
        CHECK(vxr_picker_create(s, &p) == VXR_OK);
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (uint32_t i = 0; i < s->instance_count; i++) {
            float a[3], b[3];
            vxr_instance_world_bounds(s, i, a, b);
            for (int k = 0; k < 3; k++) {
                lo[k] = fminf(lo[k], a[k]);
                hi[k] = fmaxf(hi[k], b[k]);
            }
        }
        uint32_t bad = 0, hits = 0, n = f == 5 ? 600 : 1500;
        for (uint32_t r = 0; r < n; r++) {
            vxr_ray ray;
            for (int k = 0; k < 3; k++) {
                float span = hi[k] - lo[k] + 2, aim = frand(lo[k] - 1, hi[k] + 1);
                ray.origin[k] = aim + frand(-span, span);
                ray.dir[k] = aim - ray.origin[k];
            }
            if (r % 5 == 1) /* on cell planes, along axes and diagonals */
                for (int k = 0; k < 3; k++) {
                    ray.origin[k] = floorf(ray.origin[k]);
                    ray.dir[k] = (float)(int)(rnd() % 3) - 1.0f;
                }
            if (r % 3 == 2) /* one or two odd components */
                for (uint32_t q = 0; q < 1 + r % 2; q++) {
                    float *v = rnd() % 2 ? ray.origin : ray.dir;
                    v[rnd() % 3] = odd[rnd() % (sizeof odd / sizeof odd[0])];
                }
            const uint32_t grid = grids[r % (sizeof grids / sizeof grids[0])];
            vxr_pick want, got;
            ref_pick(s, rec, &t, &ray, grid, &want);
            CHECK(vxr_pick_ray(p, &ray, grid, &got) == VXR_OK);
            hits += want.hit != 0;
            if (memcmp(&want, &got, sizeof want) != 0 && bad++ < 3)
                fprintf(stderr,
                        "  %s ray (%g %g %g) (%g %g %g) grid %u: want hit %d inst %u t %.9g "
                        "face %d, got hit %d inst %u t %.9g face %d\n",
                        names[f], (double)ray.origin[0], (double)ray.origin[1],
                        (double)ray.origin[2], (double)ray.dir[0], (double)ray.dir[1],
                        (double)ray.dir[2], grid, want.hit, want.instance, (double)want.t,
                        want.face, got.hit, got.instance, (double)got.t, got.face);
        }
        fprintf(stderr, "  %-34s %u rays, %u hits\n", names[f], n, hits);
        CHECK(hits > n / 10);
        CHECK_EQ_INT(bad, 0);
        vxr_picker_destroy(p);
        vxr_bvh_free(&t);
        free(rec);
        vxr_scene_destroy(s);
    }
}

/* A picker kept up to date (vxr_picker_update) through moves, hiding,
 * culling, removals, added instances and edits of models picks exactly as
 * a new picker of the scene does, and as that one's loop over every
 * instance (the oracle). */
static void test_picker_update(void) {
    static const char *names[] = {"@world:400", "ogt__test_multiple_model_scene.vox",
                                  "mmmm__scene_store8.vox"};
    for (size_t f = 0; f < sizeof names / sizeof names[0]; f++) {
        vxr_scene *s = load(names[f]);
        CHECK(s != NULL);
        if (!s) continue;
        vxr_culler *c = NULL;
        vxr_editor *e = NULL;
        vxr_picker *kept = NULL;
        CHECK(vxr_culler_create(s, &c) == VXR_OK);
        CHECK(vxr_editor_create(s, 0, &e, NULL) == VXR_OK);
        CHECK(vxr_picker_create(s, &kept) == VXR_OK);
        uint32_t bad = 0, hits = 0, rays = 0;
        for (int step = 0; step < 40 && kept; step++) {
            int k = 1 + (int)(rnd() % (step % 9 == 0 ? 30 : 5));
            for (int j = 0; j < k; j++) random_change(s, c);
            if (rnd() % 3 == 0) { /* a copy of an instance, moved */
                uint32_t i = rnd() % s->instance_count, id;
                vxr_instance in = s->instances[i];
                if (!(in.flags & VXR_INSTANCE_REMOVED)) {
                    in.flags = 0;
                    in.transform.translation[0] += frand(-20, 20);
                    CHECK(vxr_scene_add_instance(s, &in, &id, NULL) == VXR_OK);
                }
            }
            if (rnd() % 3 == 0) { /* an edit of a model: its instances' bounds move */
                uint32_t m = s->instances[rnd() % s->instance_count].model;
                const vxr_octree *t = &s->models[m];
                vxr_edit ed = {.op = rnd() % 2 ? VXR_EDIT_SET : VXR_EDIT_CLEAR,
                               .model = m,
                               .value = s->attr_size == 4 ? 0xff2040a0u : 3,
                               .shape = VXR_SHAPE_BOX};
                for (int a = 0; a < 3; a++) {
                    ed.lo[a] = t->vmin[a] - 3 + (int32_t)(rnd() % 8);
                    ed.hi[a] = ed.lo[a] + 1 + (int32_t)(rnd() % 6);
                }
                if (t->attr_size) CHECK(vxr_editor_apply(e, &ed, NULL, NULL) == VXR_OK);
            }
            vxr_error err = {{0}};
            CHECK(vxr_picker_update(kept, &err) == VXR_OK);
            vxr_picker *fresh = NULL;
            CHECK(vxr_picker_create(s, &fresh) == VXR_OK);
            if (!fresh) break;
            float lo[3], hi[3];
            vxr_instance_world_bounds(s, 0, lo, hi);
            for (int r = 0; r < 64; r++) {
                vxr_ray ray;
                for (int a = 0; a < 3; a++) {
                    float aim = frand(lo[a] - 30, hi[a] + 30);
                    ray.origin[a] = aim + frand(-80, 80);
                    ray.dir[a] = aim - ray.origin[a];
                }
                uint32_t grid = r % 5 == 4 ? 4 : 1;
                vxr_pick a, b, oracle;
                CHECK(vxr_pick_ray(kept, &ray, grid, &a) == VXR_OK);
                CHECK(vxr_pick_ray(fresh, &ray, grid, &b) == VXR_OK);
                CHECK(vxr_pick_ray_loop(fresh, &ray, grid, &oracle) == VXR_OK);
                bad += memcmp(&a, &b, sizeof a) != 0 || memcmp(&a, &oracle, sizeof a) != 0;
                CHECK(vxr_pick_ray_loop(kept, &ray, grid, &b) == VXR_OK);
                bad += memcmp(&a, &b, sizeof a) != 0;
                hits += a.hit != 0;
                rays++;
            }
            vxr_picker_destroy(fresh);
        }
        fprintf(stderr, "  %s: %u rays, %u hits, %u differ from a new picker\n", names[f], rays,
                hits, bad);
        CHECK_EQ_INT(bad, 0);
        CHECK(hits > 0);
        vxr_picker_destroy(kept);
        vxr_editor_destroy(e);
        vxr_culler_destroy(c);
        vxr_scene_destroy(s);
    }
}

VXR_TEST_MAIN(TEST(test_setters), TEST(test_change_list), TEST(test_refit_world),
              TEST(test_refit_files), TEST(test_item_limit), TEST(test_cull_sweep),
              TEST(test_duplicates), TEST(test_gpu_walk), TEST(test_picker_update))
