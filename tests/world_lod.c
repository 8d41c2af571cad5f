/* Chunks held coarse (vxr_world_set_lod): over a generated world seen from
 * above, each resident chunk is held at the level the rule gives (its
 * box's distance computed here in double precision, and the chunk's own
 * depth); picks from the eye at that level of detail equal, cube for cube
 * and bit for bit in t, colour and box, those over the same world with
 * every chunk whole; coming nearer refines chunks in place until the view
 * is complete; vxr_world_refine makes one whole at once, and
 * vxr_world_make_resident all of them; going away again makes chunks
 * coarse again; and a world of files refuses to
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
    /* back far away: chunks left behind whole are made coarse again, at
     * most at the rule's level, and the picks stay the whole world's */
    const uint64_t whole_bytes = st.resident_bytes;
    settle(coarse, eye, &st);
    settle(whole, eye, &sw);
    CHECK_EQ_INT(st.missing, 0);
    CHECK_EQ_INT(check_levels(coarse, eye, false), st.coarse);
    CHECK(st.coarse > st.resident / 4 && st.resident_bytes < whole_bytes);
    fprintf(stderr, "back: %u of %u chunks coarse again\n", st.coarse, st.resident);
    check_picks(coarse, whole, eye);
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

static void remove_work(const char *work) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
    CHECK(system(cmd) == 0);
}

static bool same_tree(const vxr_octree *a, const vxr_octree *b) {
    return a->depth == b->depth && a->node_count == b->node_count &&
           a->brick_count == b->brick_count && a->voxel_count == b->voxel_count &&
           !memcmp(a->origin, b->origin, sizeof a->origin) &&
           !memcmp(a->nodes, b->nodes, a->node_count * sizeof *a->nodes) &&
           !memcmp(a->brick_attr, b->brick_attr, a->brick_count * sizeof *a->brick_attr) &&
           !memcmp(a->attrs, b->attrs, (size_t)a->voxel_count * a->attr_size) && a->lod_colors &&
           b->lod_colors && !memcmp(a->lod_colors, b->lod_colors, a->node_count * 4);
}

/* Every chunk's file read at each level: the stored coarse form (its own
 * bytes alone, fewer than the file's) equals the whole chunk coarsened,
 * colours included. */
static void check_stored(const char *dir, vxr_scene *colours) {
    uint32_t side = 0, count = 0, coarse = 0;
    vxr_world_entry *e = NULL;
    CHECK(vxr_world_read_index(dir, &side, &e, &count, NULL) == VXR_OK);
    for (uint32_t i = 0; e && i < count; i++) {
        vxr_octree whole;
        uint64_t whole_bytes = 0;
        uint32_t whole_voxels = 0;
        if (vxr_world_read_chunk(dir, side, &e[i], colours, NULL, &whole, &whole_bytes,
                                 &whole_voxels, NULL) != VXR_OK) {
            CHECK(0);
            continue;
        }
        for (uint32_t want = 1; want <= 3; want++) {
            uint32_t level = want, voxels = 0;
            uint64_t bytes = 0;
            vxr_octree stored, made;
            CHECK(vxr_world_read_chunk(dir, side, &e[i], colours, &level, &stored, &bytes, &voxels,
                                       NULL) == VXR_OK);
            CHECK_EQ_INT(voxels, whole_voxels);
            CHECK(level <= want && (level == want || whole.depth < want + 3));
            if (level) {
                coarse++;
                CHECK(bytes < whole_bytes);
                CHECK(vxr_octree_coarse(&whole, colours->palette, level, &made, NULL) == VXR_OK);
                CHECK(same_tree(&stored, &made));
                vxr_octree_free(&made);
            }
            vxr_octree_free(&stored);
        }
        vxr_octree_free(&whole);
    }
    CHECK(coarse > 0);
    free(e);
}

/* A world's chunk files hold their coarse forms: read alone, they equal
 * the whole chunk's, and a world streamed coarse reads fewer bytes. A world
 * written before the levels (each chunk's whole .vxo alone) is read as it
 * was, coarsened in memory; a chunk written back becomes a .vxc. Damaged
 * level tables are refused, naming the file. */
static void test_stored_levels(void) {
    char work[] = "/tmp/vxr-lod-XXXXXX", dir[64], cmd[256], path[128];
    CHECK(mkdtemp(work) != NULL);
    snprintf(dir, sizeof dir, "%s/w", work);
    CHECK(vxr_world_build_generated("@terrain:1024", dir, SIDE, 0, NULL, NULL) == VXR_OK);
    vxr_world *w = NULL;
    const vxr_world_desc desc = {dir, VIEW, 0, 2, 0};
    CHECK(vxr_world_open(&desc, &w, NULL) == VXR_OK);
    if (!w) return;
    vxr_scene *colours = vxr_scene_alloc(0, 0);
    CHECK(colours && vxr_world_read_palette(dir, colours, NULL) == VXR_OK);
    check_stored(dir, colours);
    /* streamed from above: the coarse chunks' bytes are their levels' */
    int64_t lo[3], hi[3];
    vxr_world_bounds(w, lo, hi, NULL);
    const float eye[3] = {(float)(lo[0] + hi[0]) / 2, (float)(lo[1] + hi[1]) / 2,
                          (float)hi[2] + 40};
    vxr_world_set_lod(w, K, false);
    vxr_world_status st;
    settle(w, eye, &st);
    CHECK(st.coarse > st.resident / 4 && st.missing == 0);
    vxr_world *flat = vxr_world_open(&desc, &flat, NULL) == VXR_OK ? flat : NULL;
    vxr_world_status sf;
    if (flat) settle(flat, eye, &sf);
    CHECK(flat && st.file_bytes * 2 < sf.file_bytes);
    fprintf(stderr, "%u of %u chunks coarse: %llu bytes read against %llu\n", st.coarse,
            st.resident, (unsigned long long)st.file_bytes, (unsigned long long)sf.file_bytes);
    /* the same picks as a world whose chunks are coarsened in memory: the
     * .vxc files cut back to their whole .vxo */
    uint32_t side = 0, count = 0;
    vxr_world_entry *e = NULL;
    CHECK(vxr_world_read_index(dir, &side, &e, &count, NULL) == VXR_OK);
    char old[128];
    snprintf(old, sizeof old, "%s/old", work);
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", dir, old);
    CHECK(system(cmd) == 0);
    for (uint32_t i = 0; e && i < count; i++) {
        vxr_world_chunk_path(path, sizeof path, old, e[i].c, false);
        uint8_t *data = NULL;
        size_t size = 0;
        CHECK(vxr_read_file(path, &data, &size, NULL) == VXR_OK);
        uint64_t at = 16 + 12 * (uint64_t)vxr_get32(data + 8);
        for (uint32_t k = 0; k < vxr_get32(data + 8); k++)
            at += vxr_get32(data + 16 + 12 * k + 4) + 4ull * vxr_get32(data + 16 + 12 * k + 8);
        CHECK(unlink(path) == 0);
        vxr_world_chunk_path(path, sizeof path, old, e[i].c, true);
        CHECK(at < size && vxr_write_file(path, data + at, size - at, NULL) == VXR_OK);
        free(data);
    }
    const vxr_world_desc old_desc = {old, VIEW, 0, 2, 0};
    vxr_world *o = NULL;
    CHECK(vxr_world_open(&old_desc, &o, NULL) == VXR_OK);
    if (o) {
        vxr_world_status so;
        vxr_world_set_lod(o, K, false);
        settle(o, eye, &so);
        CHECK_EQ_INT(so.coarse, st.coarse);
        if (flat) {
            check_picks(w, flat, eye);
            check_picks(o, flat, eye);
        }
        /* written back: the chunk's .vxc, its .vxo gone */
        vxr_scene *s = vxr_world_scene(o);
        uint32_t i = 0;
        while (i + 1 < s->instance_count && s->instances[i].transform.scale != 1) i++;
        const vxr_instance *in = &s->instances[i];
        int32_t c[3];
        for (int k = 0; k < 3; k++) c[k] = (int32_t)floorf(in->transform.translation[k] / SIDE);
        CHECK(vxr_octree_make_live(&s->models[in->model]) == VXR_OK);
        CHECK(vxr_octree_set_voxel(&s->models[in->model], 1, 1, SIDE - 1, 7, false, NULL) ==
              VXR_OK);
        CHECK(vxr_scene_touch_model(s, in->model, NULL) == VXR_OK);
        uint32_t written = 0;
        CHECK(vxr_world_save(o, &written, NULL) == VXR_OK && written == 1);
        vxr_world_chunk_path(path, sizeof path, old, c, false);
        CHECK(access(path, F_OK) == 0);
        vxr_world_chunk_path(path, sizeof path, old, c, true);
        CHECK(access(path, F_OK) != 0);
        vxr_world_close(o);
    }
    /* read whole, they count their whole bytes */
    vxr_world_status whole;
    CHECK(vxr_world_make_resident(w, NULL) == VXR_OK);
    CHECK(vxr_world_update(w, eye, &whole, NULL) == VXR_OK);
    CHECK(whole.coarse == 0 && whole.resident == sf.resident);
    CHECK_EQ_INT(whole.file_bytes, sf.file_bytes);
    /* damaged level tables */
    static const struct {
        uint32_t word, value;
        const char *says;
    } bad[] = {{1, 2, "not a vxr chunk file"},
               {2, 4, "not a vxr chunk file"},
               {4, 0, "level table"},
               {3, 0, "not the chunk the index names"},
               {5, 0x7fffffff, "the levels claim"}};
    vxr_world_chunk_path(path, sizeof path, dir, e[0].c, false);
    uint8_t *good = NULL;
    size_t n = 0;
    CHECK(vxr_read_file(path, &good, &n, NULL) == VXR_OK);
    for (size_t k = 0; good && k < sizeof bad / sizeof bad[0]; k++) {
        uint8_t *copy = malloc(n);
        memcpy(copy, good, n);
        vxr_put32(copy + 4 * bad[k].word, bad[k].value);
        CHECK(vxr_write_file(path, copy, n, NULL) == VXR_OK);
        free(copy);
        uint32_t level = 3;
        uint64_t bytes;
        vxr_octree t;
        vxr_error err = {{0}};
        CHECK(vxr_world_read_chunk(dir, side, &e[0], colours, &level, &t, &bytes, NULL, &err) ==
              VXR_ERROR_FORMAT);
        CHECK(strstr(err.message, path) && strstr(err.message, bad[k].says));
    }
    for (size_t cut = 0; good && cut < 64; cut += 7) { /* truncated */
        CHECK(vxr_write_file(path, good, cut, NULL) == VXR_OK);
        uint32_t level = 3;
        uint64_t bytes;
        vxr_octree t;
        CHECK(vxr_world_read_chunk(dir, side, &e[0], colours, &level, &t, &bytes, NULL, NULL) ==
              VXR_ERROR_FORMAT);
    }
    free(good);
    free(e);
    vxr_scene_destroy(colours);
    vxr_world_close(w);
    vxr_world_close(flat);
    remove_work(work);
}

/* A world of files: a coarse chunk edited is refused a write-back, and
 * the files stay as they were. */
static void test_save_refused(void) {
    char work[] = "/tmp/vxr-lod-XXXXXX", dir[64];
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
    remove_work(work);
}

VXR_TEST_MAIN(TEST(test_levels), TEST(test_resident_over_coarse), TEST(test_stored_levels),
              TEST(test_save_refused))
