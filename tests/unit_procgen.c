/* Built-in procedural scenes (core/procgen.c): every spec generates a valid
 * paletted source, deterministically, with the documented contents; bad
 * specs fail with a reason and leave nothing behind. @terrain's model is a
 * generator: built region by region it is the octree of its list. */
#include <math.h>
#include "vxr/formats.h"
#include "vxr_test.h"

static void bounds(const vxr_model_src *m, int32_t lo[3], int32_t hi[3]) {
    for (int k = 0; k < 3; k++) lo[k] = INT32_MAX, hi[k] = INT32_MIN;
    for (size_t i = 0; i < m->count; i++) {
        const int32_t p[3] = {m->voxels[i].x, m->voxels[i].y, m->voxels[i].z};
        for (int k = 0; k < 3; k++) {
            if (p[k] < lo[k]) lo[k] = p[k];
            if (p[k] + 1 > hi[k]) hi[k] = p[k] + 1;
        }
    }
}

/* Generates spec (every model as a list: generators materialised) and
 * checks what every scene must satisfy. */
static int generate(const char *spec, vxr_scene_src *s);

/* generate of "kind:value". */
static int generate_n(const char *kind, long value, vxr_scene_src *s) {
    char spec[32];
    snprintf(spec, sizeof spec, "%s:%ld", kind, value);
    return generate(spec, s);
}

static int generate(const char *spec, vxr_scene_src *s) {
    vxr_error err = {{0}};
    vxr_result r = vxr_scene_generate(spec, s, &err);
    for (uint32_t i = 0; r == VXR_OK && i < s->model_count; i++)
        r = vxr_model_src_materialize(&s->models[i], &err);
    CHECK_EQ_INT(r, VXR_OK);
    if (r != VXR_OK) {
        fprintf(stderr, "%s: %s\n", spec, err.message);
        return 0;
    }
    CHECK_EQ_INT(s->attr_size, 1);
    CHECK(s->model_count >= 1);
    CHECK(s->instance_count >= 1);
    int bad_color = 0, bad_instance = 0;
    for (uint32_t i = 0; i < s->model_count; i++) {
        CHECK(s->models[i].count > 0);
        for (size_t k = 0; k < s->models[i].count; k++) {
            uint32_t c = s->models[i].voxels[k].color;
            bad_color += c < 1 || c > 255 || (s->palette[c] >> 24) != 255;
        }
    }
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const vxr_instance *in = &s->instances[i];
        bad_instance += in->model >= s->model_count || in->flags != 0 ||
                        !(in->transform.scale > 0) || !(in->view_distance > 0);
    }
    CHECK_EQ_INT(bad_color, 0);
    CHECK_EQ_INT(bad_instance, 0);
    return 1;
}

static void generates_every_kind(void) {
    static const char *specs[] = {"demo",      "menger:0",    "menger:2", "terrain:1",
                                  "terrain:5", "terrain:100", "world:1",  "world:1000"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        vxr_scene_src s;
        generate(specs[i], &s);
        vxr_scene_src_free(&s);
    }
}

static void deterministic(void) {
    static const char *specs[] = {"demo", "menger:3", "terrain:129", "world:500"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        vxr_scene_src a, b;
        if (generate(specs[i], &a) && generate(specs[i], &b)) {
            CHECK_EQ_INT(a.model_count, b.model_count);
            CHECK_EQ_INT(a.instance_count, b.instance_count);
            CHECK(!memcmp(a.palette, b.palette, sizeof a.palette));
            for (uint32_t m = 0; m < a.model_count && m < b.model_count; m++) {
                CHECK_EQ_INT(a.models[m].count, b.models[m].count);
                CHECK(a.models[m].count == b.models[m].count &&
                      !memcmp(a.models[m].voxels, b.models[m].voxels,
                              a.models[m].count * sizeof(vxr_voxel)));
            }
            CHECK(a.instance_count == b.instance_count &&
                  !memcmp(a.instances, b.instances, a.instance_count * sizeof(vxr_instance)));
            vxr_scene_src_free(&b);
        }
        vxr_scene_src_free(&a);
    }
}

static void menger_counts(void) {
    int32_t side = 1;
    size_t expect = 1;
    for (int level = 0; level <= 4; level++, side *= 3, expect *= 20) {
        vxr_scene_src s;
        if (!generate_n("menger", level, &s)) continue;
        CHECK_EQ_INT(s.model_count, 1);
        CHECK_EQ_INT(s.instance_count, 1);
        CHECK_EQ_INT(s.models[0].count, expect);
        int32_t lo[3], hi[3];
        bounds(&s.models[0], lo, hi);
        for (int k = 0; k < 3; k++) CHECK_EQ_INT(hi[k] - lo[k], side);
        /* Distinct cells, and the centre of every level >= 1 sponge is empty. */
        size_t cells = (size_t)side * (size_t)side * (size_t)side, dup = 0;
        unsigned char *seen = calloc(cells, 1);
        CHECK(seen != NULL);
        for (size_t i = 0; seen && i < s.models[0].count; i++) {
            const vxr_voxel *v = &s.models[0].voxels[i];
            size_t at =
                ((size_t)(v->z - lo[2]) * (size_t)side + (size_t)(v->y - lo[1])) * (size_t)side +
                (size_t)(v->x - lo[0]);
            dup += seen[at]++ != 0;
        }
        CHECK_EQ_INT(dup, 0);
        if (seen && level >= 1) CHECK(!seen[cells / 2]);
        free(seen);
        vxr_scene_src_free(&s);
    }
}

static void terrain_columns(void) {
    static const int32_t sizes[] = {1, 2, 7, 64, 256};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int32_t n = sizes[i];
        vxr_scene_src s;
        if (!generate_n("terrain", n, &s)) continue;
        CHECK_EQ_INT(s.model_count, 1);
        CHECK_EQ_INT(s.instance_count, 1);
        CHECK(isinf(s.instances[0].view_distance));
        int32_t lo[3], hi[3];
        bounds(&s.models[0], lo, hi);
        CHECK_EQ_INT(hi[0] - lo[0], n);
        CHECK_EQ_INT(hi[1] - lo[1], n);
        CHECK(lo[2] >= 0);
        /* Every column is present and at least 3 voxels deep (or reaches z = 0). */
        size_t cols = (size_t)n * (size_t)n, thin = 0, missing = 0;
        int32_t *depth = calloc(cols, sizeof *depth), *bottom = malloc(cols * sizeof *bottom);
        CHECK(depth && bottom);
        for (size_t c = 0; bottom && c < cols; c++) bottom[c] = INT32_MAX;
        for (size_t k = 0; depth && bottom && k < s.models[0].count; k++) {
            const vxr_voxel *v = &s.models[0].voxels[k];
            size_t at = (size_t)(v->y - lo[1]) * (size_t)n + (size_t)(v->x - lo[0]);
            depth[at]++;
            if (v->z < bottom[at]) bottom[at] = v->z;
        }
        for (size_t c = 0; depth && bottom && c < cols; c++) {
            missing += depth[c] == 0;
            thin += depth[c] > 0 && depth[c] < 3 && bottom[c] != 0;
        }
        CHECK_EQ_INT(missing, 0);
        CHECK_EQ_INT(thin, 0);
        free(depth);
        free(bottom);
        vxr_scene_src_free(&s);
    }
}

static void world_objects(void) {
    static const uint32_t counts[] = {1, 37, 1000, 20000};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        uint32_t k = counts[i];
        char spec[32];
        snprintf(spec, sizeof spec, "world:%u", k);
        vxr_scene_src s;
        if (!generate(spec, &s)) continue;
        uint32_t objects = 0, terrain = 0, bad_view = 0;
        uint32_t *uses = calloc(s.model_count, sizeof *uses);
        CHECK(uses != NULL);
        for (uint32_t j = 0; j < s.instance_count; j++) {
            float vd = s.instances[j].view_distance;
            if (isinf(vd)) {
                terrain++;
                continue;
            }
            objects++;
            bad_view += !(vd >= 40 && vd <= 400);
            if (uses) uses[s.instances[j].model]++;
        }
        CHECK(objects >= k);
        CHECK(terrain >= 1);
        CHECK_EQ_INT(bad_view, 0);
        CHECK(s.model_count <= 32);
        /* Objects share a handful of models. */
        uint32_t object_models = 0;
        for (uint32_t m = 0; uses && m < s.model_count; m++) object_models += uses[m] > 0;
        CHECK(object_models >= 1 && object_models <= 8);
        if (k >= 1000) CHECK_EQ_INT(object_models, 5);
        free(uses);
        vxr_scene_src_free(&s);
    }
}

static void demo_contents(void) {
    vxr_scene_src s;
    if (!generate("demo", &s)) return;
    CHECK(s.model_count >= 5);
    CHECK(s.instance_count > s.model_count);
    int rotated = 0, scaled = 0, outside = 0;
    for (uint32_t i = 0; i < s.instance_count; i++) {
        const vxr_transform *t = &s.instances[i].transform;
        const float *r = t->rotation;
        rotated += r[0] == 0 && r[4] == 0 && r[8] == 1 && fabsf(r[1]) == 1 && r[3] == -r[1];
        scaled += t->scale == 2 || t->scale == 0.5f;
        int32_t lo[3], hi[3];
        bounds(&s.models[s.instances[i].model], lo, hi);
        /* Scaled model extent plus translation, generously: the demo fits ~256 units. */
        for (int k = 0; k < 3; k++) {
            float ext = t->scale * (float)(abs(lo[k]) > abs(hi[k]) ? abs(lo[k]) : abs(hi[k]));
            outside += fabsf(t->translation[k]) + ext > 160;
        }
    }
    CHECK(rotated >= 1);
    CHECK(scaled >= 1);
    CHECK_EQ_INT(outside, 0);
    vxr_scene_src_free(&s);
}

static void bad_specs(void) {
    static const char *specs[] = {"",
                                  "foo",
                                  "Demo",
                                  "demo:1",
                                  "demox",
                                  "menger",
                                  "menger:",
                                  "menger:8",
                                  "menger:-1",
                                  "menger:3x",
                                  "menger:x",
                                  "menger: 3",
                                  "terrain:0",
                                  "terrain:8193",
                                  "terrain:+5",
                                  "world:0",
                                  "world:1000001",
                                  "world:1e3",
                                  "world:99999999999999999999",
                                  "@demo",
                                  "menger:3:1"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        vxr_scene_src s;
        vxr_error err = {{0}};
        vxr_result r = vxr_scene_generate(specs[i], &s, &err);
        CHECK_EQ_INT(r, VXR_ERROR_ARGUMENT);
        CHECK(err.message[0] != '\0' && !strchr(err.message, '\n'));
        CHECK(s.model_count == 0 && s.instance_count == 0 && !s.models && !s.instances);
        if (r != VXR_ERROR_ARGUMENT) {
            fprintf(stderr, "spec \"%s\" was accepted\n", specs[i]);
            vxr_scene_src_free(&s);
        }
    }
    vxr_scene_src s;
    vxr_error err = {{0}};
    CHECK_EQ_INT(vxr_scene_generate("menger:9", &s, &err), VXR_ERROR_ARGUMENT);
    CHECK(strstr(err.message, "menger") && strstr(err.message, "9") && strstr(err.message, "0..6"));
    CHECK_EQ_INT(vxr_scene_generate("foo", &s, &err), VXR_ERROR_ARGUMENT);
    CHECK(strstr(err.message, "\"foo\"") && strstr(err.message, "terrain:N"));
    CHECK_EQ_INT(vxr_scene_generate("bogus", &s, NULL), VXR_ERROR_ARGUMENT);
    CHECK_EQ_INT(vxr_scene_generate(NULL, &s, &err), VXR_ERROR_ARGUMENT);
    CHECK_EQ_INT(vxr_scene_generate("demo", NULL, &err), VXR_ERROR_ARGUMENT);
}

/* @terrain:N's generator, built region by region on 1 and 2 threads,
 * against the build of its materialised list; the scene as vxr_scene_load
 * builds it (every CPU) too. */
static void terrain_generator_equals_list(void) {
    static const int32_t sizes[] = {1, 2, 7, 64, 129, 300, 1024};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char spec[32];
        snprintf(spec, sizeof spec, "terrain:%d", sizes[i]);
        vxr_scene_src gen, list;
        vxr_error err = {{0}};
        CHECK(vxr_scene_generate(spec, &gen, &err) == VXR_OK);
        CHECK(gen.model_count == 1 && gen.models[0].gen != NULL && gen.models[0].count == 0);
        if (!generate(spec, &list)) continue;
        vxr_octree want;
        CHECK(vxr_octree_build(list.models[0].voxels, list.models[0].count, 1, &want, NULL) ==
              VXR_OK);
        for (uint32_t threads = 1; threads <= 2; threads++) {
            vxr_octree t;
            CHECK(vxr_model_build(&gen.models[0], gen.attr_size, threads, &t, &err) == VXR_OK);
            if (!vxr_octree_equal(&t, &want)) fprintf(stderr, "%s: differs\n", spec);
            CHECK(vxr_octree_equal(&t, &want));
            vxr_octree_free(&t);
        }
        char at[34];
        snprintf(at, sizeof at, "@%s", spec);
        vxr_scene *s;
        CHECK(vxr_scene_load(at, &s, &err) == VXR_OK);
        CHECK(s && vxr_octree_equal(&s->models[0], &want));
        vxr_scene_destroy(s);
        vxr_octree_free(&want);
        vxr_scene_src_free(&gen);
        vxr_scene_src_free(&list);
    }
}

VXR_TEST_MAIN(TEST(generates_every_kind), TEST(deterministic), TEST(menger_counts),
              TEST(terrain_columns), TEST(world_objects), TEST(demo_contents), TEST(bad_specs),
              TEST(terrain_generator_equals_list))
