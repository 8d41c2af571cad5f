/* Built-in procedural scenes: demo, menger:L, terrain:N, world:K.
 *
 * Everything is deterministic: fixed seeds, an integer hash for noise and a
 * splitmix64 stream for scattering, no rand() and no floating-point state
 * shared between calls. All scenes are paletted (palette below). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "procgen.h"
#include "vxr/world.h"

static const uint8_t named_colors[PAL_NAMED_END - 1][3] = {
    {22, 58, 112},   {30, 84, 148},   {42, 112, 176},  {70, 150, 200}, /* water */
    {222, 204, 148}, {206, 186, 130},                                  /* sand */
    {88, 150, 62},   {76, 138, 52},   {104, 164, 70},  {66, 124, 48},  /* grass */
    {120, 88, 58},   {104, 76, 50},                                    /* dirt */
    {128, 124, 118}, {110, 106, 102}, {146, 140, 132},                 /* rock */
    {240, 244, 248}, {222, 230, 238},                                  /* snow */
    {104, 72, 44},   {86, 58, 36},                                     /* bark */
    {40, 92, 36},    {56, 116, 44},   {74, 140, 54},   {98, 164, 66},  /* leaves */
    {34, 84, 52},    {46, 102, 62},                                    /* needles */
    {140, 136, 128}, {118, 114, 108},                                  /* stone */
    {226, 214, 186}, {110, 74, 46},                                    /* wall, timber */
    {168, 64, 48},   {140, 50, 40},                                    /* roof */
    {92, 60, 36},    {120, 170, 210},                                  /* door, window */
    {120, 220, 235}, {170, 140, 240}, {90, 170, 230},                  /* crystal */
    {232, 70, 60},   {246, 240, 230},                                  /* ball */
    {240, 180, 40},  {60, 150, 220},                                   /* ring */
};

static const uint8_t ramp_stops[5][3] = {
    {40, 30, 90}, {150, 50, 140}, {240, 110, 80}, {250, 200, 90}, {255, 245, 200}};

void vxr_gen_palette(uint32_t *pal) {
    for (uint32_t i = 1; i < PAL_NAMED_END; i++) {
        const uint8_t *c = named_colors[i - 1];
        pal[i] = vxr_rgba(c[0], c[1], c[2], 255);
    }
    for (uint32_t i = PAL_NAMED_END; i < PAL_RAMP; i++) {
        uint32_t g = 40 + (i - PAL_NAMED_END) * 9;
        pal[i] = vxr_rgba(g, g, g, 255);
    }
    for (uint32_t i = 0; i < 192; i++) {
        uint32_t seg = i / 48, f = i % 48, c[3];
        for (int k = 0; k < 3; k++)
            c[k] = (ramp_stops[seg][k] * (48 - f) + ramp_stops[seg + 1][k] * f) / 48;
        pal[PAL_RAMP + i] = vxr_rgba(c[0], c[1], c[2], 255);
    }
}

/* ----------------------------------------------------------------- scenes */

static vxr_result gen_menger(vxr_scene_src *s, int32_t level) {
    int32_t side = 1;
    for (int32_t l = 0; l < level; l++) side *= 3;
    int32_t c = -(side - 1) / 2, origin[3] = {c, c, c};
    vxr_result r = vxr_gen_menger(s, level, origin);
    return r != VXR_OK ? r : vxr_gen_place(s, 0, 0, 1, 0, 0, 0, INFINITY);
}

/* A 192 x 192 patch with flattened pads under the showpieces. */
static vxr_result gen_demo(vxr_scene_src *s) {
    enum { N = 192, H = N / 2 };
    /* model, quarter turns, scale, x, y, pad half-width (0: none, sits 1 deep) */
    static const struct {
        int32_t model, turns;
        float scale;
        int32_t x, y, pad;
    } items[] = {
        {GEN_SHAPES, 0, 2, -50, -45, 30}, /* menger sponge */
        {GEN_BALL, 0, 1, 50, -50, 14},      {GEN_RING, 1, 1, 52, 22, 18},
        {GEN_HOUSE, 1, 1, -48, 42, 10},     {GEN_TREE, 0, 2, -4, 64, 0},
        {GEN_TREE, 0, 1, 18, 46, 0},        {GEN_TREE, 0, 1, -20, 28, 0},
        {GEN_TREE, 0, 1, 30, 76, 0},        {GEN_PINE, 0, 1, 74, 70, 0},
        {GEN_PINE, 1, 1, 82, 52, 0},        {GEN_PINE, 0, 1, 62, 84, 0},
        {GEN_PINE, 2, 1, -80, 12, 0},       {GEN_ROCK, 0, 1, 10, -64, 0},
        {GEN_ROCK, 1, 2, -12, -16, 0},      {GEN_ROCK, 3, 1, 80, -12, 0},
        {GEN_CRYSTAL, 0, 1, 16, -28, 0},    {GEN_CRYSTAL, 1, 0.5f, 24, -20, 0},
        {GEN_CRYSTAL, 3, 0.5f, 10, -18, 0},
    };
    terrain t;
    if (!vxr_terrain_init(&t, N, false, 64, 32, 7)) return VXR_ERROR_MEMORY;
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        int32_t cx = items[i].x + H, cy = items[i].y + H, p = items[i].pad;
        int32_t level = max_i(vxr_terrain_raw(&t, cx, cy), t.sand + 1);
        for (int32_t y = cy - p; p && y < cy + p; y++)
            for (int32_t x = cx - p; x < cx + p; x++)
                if (x >= 0 && y >= 0 && x < N && y < N) t.h[y * N + x] = (int16_t)level;
    }
    uint32_t index, ids[GEN_SHAPES + 1];
    float radius;
    vxr_result r = vxr_scene_src_add_model(s, &index);
    if (r == VXR_OK && !vxr_terrain_emit(&t, 0, 0, N, &s->models[index])) r = VXR_ERROR_MEMORY;
    if (r == VXR_OK) r = vxr_gen_place(s, index, 0, 1, 0, 0, 0, INFINITY);
    for (int32_t k = 0; r == VXR_OK && k < GEN_SHAPES; k++)
        r = vxr_gen_shape(s, k, &ids[k], &radius);
    ids[GEN_SHAPES] = s->model_count;
    if (r == VXR_OK) r = vxr_gen_menger(s, 3, (const int32_t[3]){-13, -13, 0});
    for (size_t i = 0; r == VXR_OK && i < sizeof items / sizeof items[0]; i++) {
        int32_t x = items[i].x, y = items[i].y, z = vxr_terrain_top(&t, x + H, y + H);
        r = vxr_gen_place(s, ids[items[i].model], (uint32_t)items[i].turns, items[i].scale,
                          (float)x, (float)y, (float)(items[i].pad ? z + 1 : z), INFINITY);
    }
    free(t.h);
    return r;
}

/* K objects on a square world of G x G terrain tiles of 256 columns. The
 * heightfield is periodic over 4 x 4 tiles, so at most 16 tile models cover
 * any world without seams. G grows with K to keep about one object per
 * 16 x 16 columns. */
static vxr_result gen_world(vxr_scene_src *s, int32_t k) {
    enum { TILE = 256, PERIOD = 4, P = TILE * PERIOD };
    /* object kind, cumulative percent, chance of the alternative scale */
    static const struct {
        int32_t kind, cum, alt_pct;
        float alt_scale;
    } kinds[] = {{GEN_TREE, 35, 20, 2},
                 {GEN_PINE, 60, 20, 2},
                 {GEN_ROCK, 80, 25, 2},
                 {GEN_HOUSE, 88, 0, 1},
                 {GEN_CRYSTAL, 100, 50, 0.5f}};
    int32_t g = 1;
    while ((int64_t)g * g * 256 < k) g++;
    int32_t tiles = min_i(g, PERIOD), half = g * TILE / 2;
    terrain t;
    if (!vxr_terrain_init(&t, P, true, 128, 64, 3)) return VXR_ERROR_MEMORY;
    vxr_result r = VXR_OK;
    uint32_t tile0 = s->model_count, index, ids[5];
    float radius[5];
    for (int32_t j = 0; r == VXR_OK && j < tiles; j++)
        for (int32_t i = 0; r == VXR_OK && i < tiles; i++) {
            r = vxr_scene_src_add_model(s, &index);
            if (r == VXR_OK && !vxr_terrain_emit(&t, i * TILE, j * TILE, TILE, &s->models[index]))
                r = VXR_ERROR_MEMORY;
        }
    for (int32_t i = 0; r == VXR_OK && i < 5; i++)
        r = vxr_gen_shape(s, kinds[i].kind, &ids[i], &radius[i]);
    for (int32_t gy = 0; r == VXR_OK && gy < g; gy++)
        for (int32_t gx = 0; r == VXR_OK && gx < g; gx++) {
            uint32_t model = tile0 + (uint32_t)((gy % tiles) * tiles + gx % tiles);
            r = vxr_gen_place(s, model, 0, 1, (float)(gx * TILE + TILE / 2 - half),
                              (float)(gy * TILE + TILE / 2 - half), 0, INFINITY);
        }
    uint64_t rng = 0x766f78656c73ull;
    for (int32_t n = 0; r == VXR_OK && n < k; n++) {
        uint64_t roll = splitmix64(&rng);
        int32_t pct = (int32_t)(roll % 100), kind = 0;
        while (pct >= kinds[kind].cum) kind++;
        /* Prefer dry land; a few retries keep the cost bounded. */
        int32_t x = 0, y = 0;
        for (int tries = 0; tries < 16; tries++) {
            uint64_t p = splitmix64(&rng);
            x = (int32_t)(p % (uint64_t)(2 * half)) - half;
            y = (int32_t)((p >> 32) % (uint64_t)(2 * half)) - half;
            if (vxr_terrain_raw(&t, x + half, y + half) >= t.sand) break;
        }
        float scale = (int32_t)(roll >> 32 & 0xffff) % 100 < kinds[kind].alt_pct
                          ? kinds[kind].alt_scale
                          : 1.0f;
        float view = fminf(400, fmaxf(40, 10 * radius[kind] * scale));
        r = vxr_gen_place(s, ids[kind], (uint32_t)(roll >> 56), scale, (float)x, (float)y,
                          (float)vxr_terrain_top(&t, x + half, y + half), view);
    }
    free(t.h);
    return r;
}

/* ------------------------------------------------------------------ spec */

enum { DEMO, MENGER, TERRAIN, WORLD };

/* Splits "name[:value]" into a scene kind and its checked parameter. */
static vxr_result parse(const char *spec, int *kind, int32_t *value, vxr_error *err) {
    static const struct {
        const char *name, *what, *letter;
        int32_t lo, hi;
    } params[] = {{"demo", NULL, NULL, 0, 0},
                  {"menger", "level", "L", 0, 6},
                  {"terrain", "size", "N", 1, VXR_TERRAIN_SCENE_MAX},
                  {"world", "object count", "K", 1, 1000000}};
    if (!spec) return vxr_fail(err, VXR_ERROR_ARGUMENT, "no built-in scene name");
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    int p = -1;
    for (int i = 0; i < 4; i++)
        if (strlen(params[i].name) == len && !strncmp(spec, params[i].name, len)) p = i;
    if (p < 0)
        return vxr_fail(err, VXR_ERROR_ARGUMENT,
                        "unknown built-in scene \"%.64s\" (expected demo, menger:L, terrain:N, "
                        "world:K)",
                        spec);
    *kind = p;
    *value = 0;
    if (p == DEMO)
        return colon ? vxr_fail(err, VXR_ERROR_ARGUMENT, "demo takes no parameter") : VXR_OK;
    const char *name = params[p].name, *what = params[p].what, *arg = colon ? colon + 1 : "";
    int32_t lo = params[p].lo, hi = params[p].hi, v = 0;
    if (!*arg)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "%s needs a %s: %s:%s with %s %d..%d", name, what,
                        name, params[p].letter, params[p].letter, lo, hi);
    for (const char *c = arg; *c; c++) {
        if (*c < '0' || *c > '9')
            return vxr_fail(err, VXR_ERROR_ARGUMENT, "%s %s \"%.32s\" is not a number", name, what,
                            arg);
        if (v <= hi) v = v * 10 + (*c - '0');
    }
    if (p == TERRAIN && v > hi && v <= VXR_TERRAIN_WORLD_MAX)
        return vxr_fail(err, VXR_ERROR_ARGUMENT,
                        "terrain size %d: past %d, @terrain:N is a generated world, too large "
                        "to load whole: `vxr view`, `render`, `pick`, `pickcheck` and `bench "
                        "world` stream it",
                        v, hi);
    if (v < lo || v > hi)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "%s %s %.32s out of range %d..%d", name, what, arg,
                        lo, hi);
    *value = v;
    return VXR_OK;
}

vxr_result vxr_scene_generate(const char *spec, vxr_scene_src *dest, vxr_error *err) {
    if (err) err->message[0] = '\0';
    if (!dest) return vxr_fail(err, VXR_ERROR_ARGUMENT, "no destination scene");
    vxr_scene_src_init(dest, 1);
    int kind = DEMO;
    int32_t v = 0;
    vxr_result r = parse(spec, &kind, &v, err);
    if (r == VXR_OK) {
        vxr_gen_palette(dest->palette);
        r = kind == DEMO      ? gen_demo(dest)
            : kind == MENGER  ? gen_menger(dest, v)
            : kind == TERRAIN ? vxr_gen_terrain(dest, v)
                              : gen_world(dest, v);
        if (r != VXR_OK) vxr_fail(err, r, "out of memory generating %.64s", spec);
    }
    if (r != VXR_OK) vxr_scene_src_free(dest);
    return r;
}
