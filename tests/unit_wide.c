/* The wide form (vxr_octree_wide, vxr_layout.h) against the voxels it
 * comes from: every voxel is found by descending it by its coordinates,
 * with the attribute the tree gives; nothing else is there (the leaves'
 * bits count the voxels, every node but the root is one bit's child);
 * vxr_octree_wide_count agrees; a live copy of the same cube gives the
 * same masks; a tree that carries its form counts it in O(1) and a live
 * copy goes without. */
#include <stdlib.h>
#include <string.h>
#include "vxr/edit.h"
#include "vxr/formats.h"
#include "vxr_test.h"

static uint32_t popcount64(uint64_t v) {
    return (uint32_t)__builtin_popcountll(v);
}

static uint64_t mask_of(const vxr_wide_node *n) {
    return (uint64_t)n->mask_hi << 32 | n->mask_lo;
}

typedef struct walk {
    const vxr_octree *t;
    const vxr_wide_node *w;
    uint32_t count, top, bad;
} walk;

/* Descends the wide form to voxel (x, y, z) and checks its attribute. */
static void find_voxel(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    walk *k = user;
    const int32_t v[3] = {x, y, z};
    int32_t lo[3] = {k->t->origin[0], k->t->origin[1], k->t->origin[2]};
    uint32_t node = 0;
    for (uint32_t level = k->top;; level -= 2) {
        if (node >= k->count) {
            k->bad++;
            return;
        }
        const vxr_wide_node *n = &k->w[node];
        int32_t c[3];
        for (int i = 0; i < 3; i++) c[i] = ((v[i] - lo[i]) >> (level - 2)) & 3;
        const uint32_t bit = (uint32_t)(8 * ((c[0] >> 1) << 2 | (c[1] >> 1) << 1 | c[2] >> 1) +
                                        ((c[0] & 1) << 2 | (c[1] & 1) << 1 | (c[2] & 1)));
        const uint64_t m = mask_of(n);
        const uint32_t rank = popcount64(m & ((1ull << bit) - 1));
        if (!(m >> bit & 1)) {
            k->bad++;
            return;
        }
        if (level == VXR_BRICK_LEVEL) {
            const uint32_t i = n->attr + rank;
            uint32_t a = 0;
            memcpy(&a, k->t->attrs + (size_t)i * k->t->attr_size, k->t->attr_size);
            if (a != attr || n->attr != vxr_octree_brick_base(k->t, n->base)) k->bad++;
            return;
        }
        node = n->base + rank;
        for (int i = 0; i < 3; i++) lo[i] += c[i] << (level - 2);
    }
}

/* The wide form of t against its voxels; its masks into *masks (malloc'd,
 * *count of them) for comparing forms. */
static void check_wide(const vxr_octree *t, const char *what, uint64_t **masks, uint32_t *count) {
    vxr_wide_node *w = NULL;
    uint32_t n = 0;
    CHECK(vxr_octree_wide(t, &w, &n) == VXR_OK);
    CHECK_EQ_INT(n, vxr_octree_wide_count(t));
    walk k = {t, w, n, t->depth + (t->depth & 1), 0};
    vxr_octree_foreach(t, find_voxel, &k);
    /* nothing more: leaf bits are the voxels, interior bits the other nodes */
    uint64_t leaf_bits = 0, child_bits = 0;
    /* level by level from the root: each level's children are the next,
     * each node's after the previous node's */
    uint32_t first = 0, level_n = n ? 1 : 0;
    for (uint32_t level = k.top; level_n && level >= VXR_BRICK_LEVEL; level -= 2) {
        uint32_t next = 0;
        for (uint32_t i = first; i < first + level_n; i++) {
            if (level == VXR_BRICK_LEVEL) {
                leaf_bits += popcount64(mask_of(&w[i]));
                continue;
            }
            CHECK_EQ_INT(w[i].base, first + level_n + next);
            next += popcount64(mask_of(&w[i]));
            child_bits += popcount64(mask_of(&w[i]));
        }
        first += level_n;
        level_n = level == VXR_BRICK_LEVEL ? 0 : next;
    }
    CHECK_EQ_INT(first, n);
    CHECK_EQ_INT(leaf_bits, t->voxel_count);
    CHECK_EQ_INT(child_bits + (n ? 1 : 0), n);
    if (k.bad) fprintf(stderr, "  %s: %u voxels not found in the wide form\n", what, k.bad);
    CHECK_EQ_INT(k.bad, 0);
    *masks = malloc((n ? n : 1) * sizeof **masks);
    for (uint32_t i = 0; i < n; i++) (*masks)[i] = mask_of(&w[i]);
    *count = n;
    free(w);
}

static void check_tree(const vxr_octree *t, const char *what) {
    uint64_t *a, *b;
    uint32_t na, nb;
    check_wide(t, what, &a, &na);
    vxr_octree live;
    CHECK(vxr_octree_copy(t, &live) == VXR_OK);
    check_wide(&live, what, &b, &nb);
    /* a live tree is at least 8 voxels wide: the same cube, the same masks */
    if (live.depth == t->depth && !memcmp(live.origin, t->origin, sizeof t->origin))
        CHECK(na == nb && !memcmp(a, b, na * sizeof *a));
    vxr_octree_free(&live);
    free(a);
    free(b);
}

static void test_files(void) {
    static const char *const files[] = {VXR_TEST_REAL_FILES};
    char path[512];
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        snprintf(path, sizeof path, "%s/%s", VXR_TEST_DATA, files[f]);
        vxr_scene *s = NULL;
        vxr_error err;
        CHECK(vxr_scene_load(path, &s, &err) == VXR_OK);
        if (!s) continue;
        for (uint32_t i = 0; i < s->model_count; i++) check_tree(&s->models[i], files[f]);
        fprintf(stderr, "  %-40s %u models\n", files[f], s->model_count);
        vxr_scene_destroy(s);
    }
}

/* Depths 2 to 9, odd and even, with origins off the root's alignment. */
static void test_random(void) {
    uint64_t r = 0x243f6a8885a308d3ull;
    for (int round = 0; round < 40; round++) {
        size_t n = 1 + (size_t)(round * 37 % 400);
        vxr_voxel *v = malloc(n * sizeof *v);
        const int32_t span = 1 << (1 + round % 9), off = round % 3 == 0 ? -span / 2 : 7 * round;
        for (size_t i = 0; i < n; i++) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            v[i] = (vxr_voxel){
                off + (int32_t)(r % (uint64_t)span), off + (int32_t)((r >> 20) % (uint64_t)span),
                off + (int32_t)((r >> 40) % (uint64_t)span), 1 + (uint32_t)(r >> 56) % 255};
        }
        vxr_octree t;
        CHECK(vxr_octree_build(v, n, 1, &t, NULL) == VXR_OK);
        check_tree(&t, "random");
        /* a tree that carries its wide form (a world's chunks): the count
         * and the bytes are the form's, and a live copy or form goes without */
        const uint32_t made = vxr_octree_wide_count(&t);
        const uint64_t bytes = vxr_octree_gpu_bytes(&t);
        CHECK(vxr_octree_wide(&t, &t.wide, &t.wide_count) == VXR_OK);
        CHECK_EQ_INT(t.wide_count, made);
        t.wide_count = made + 3; /* read from the carried count, not recounted */
        CHECK_EQ_INT(vxr_octree_wide_count(&t), made + 3);
        CHECK(vxr_octree_gpu_bytes(&t) == bytes + 3 * sizeof(vxr_wide_node));
        t.wide_count = made;
        vxr_octree live;
        CHECK(vxr_octree_copy(&t, &live) == VXR_OK);
        CHECK(live.wide == NULL && live.wide_count == 0);
        vxr_octree_free(&live);
        CHECK(vxr_octree_make_live(&t) == VXR_OK);
        CHECK(t.wide == NULL && t.wide_count == 0);
        vxr_octree_free(&t);
        free(v);
    }
    vxr_octree empty;
    CHECK(vxr_octree_build(NULL, 0, 1, &empty, NULL) == VXR_OK);
    vxr_wide_node *w = (vxr_wide_node *)&empty;
    uint32_t count = 7;
    CHECK(vxr_octree_wide(&empty, &w, &count) == VXR_OK && !w && count == 0);
    CHECK_EQ_INT(vxr_octree_wide_count(&empty), 0);
    vxr_octree_free(&empty);
}

VXR_TEST_MAIN(TEST(test_files), TEST(test_random))
