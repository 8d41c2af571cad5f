/* Built-in procedural scenes: demo, menger:L, terrain:N, world:K.
 *
 * Everything is deterministic: fixed seeds, an integer hash for noise and a
 * splitmix64 stream for scattering, no rand() and no floating-point state
 * shared between calls. All scenes are paletted (palette below). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

enum {
    PAL_WATER = 1, /* 4 shades, deep to shallow */
    PAL_SAND = 5,  /* 2 */
    PAL_GRASS = 7, /* 4 */
    PAL_DIRT = 11, /* 2 */
    PAL_ROCK = 13, /* 3 */
    PAL_SNOW = 16, /* 2 */
    PAL_BARK = 18, /* 2 */
    PAL_LEAF = 20, /* 4, dark to light */
    PAL_NEEDLE = 24,
    PAL_STONE = 26,
    PAL_WALL = 28,
    PAL_TIMBER = 29,
    PAL_ROOF = 30, /* 2 */
    PAL_DOOR = 32,
    PAL_WINDOW = 33,
    PAL_CRYSTAL = 34, /* 3 */
    PAL_BALL = 37,    /* 2 */
    PAL_RING = 39,    /* 2 */
    PAL_NAMED_END = 41,
    PAL_RAMP = 64, /* 192-step gradient up to 255 */
};

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

static void fill_palette(uint32_t *pal) {
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

static uint32_t hash3(int32_t x, int32_t y, uint32_t z) {
    uint32_t h = (uint32_t)x * 0x8da6b343u ^ (uint32_t)y * 0xd8163841u ^ z * 0xcb1ab31fu;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

static float unit(uint32_t h) {
    return (float)(h >> 8) * (1.0f / 16777216.0f);
}

static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int32_t min_i(int32_t a, int32_t b) {
    return a < b ? a : b;
}

static int32_t max_i(int32_t a, int32_t b) {
    return a > b ? a : b;
}

/* vxr_model_src_push with the common case inlined: terrains push tens of
 * millions of voxels. */
static inline bool put(vxr_model_src *m, int32_t x, int32_t y, int32_t z, uint32_t c) {
    if (m->count < m->capacity) {
        m->voxels[m->count++] = (vxr_voxel){x, y, z, c};
        return true;
    }
    return vxr_model_src_push(m, x, y, z, c) == VXR_OK;
}

/* ---------------------------------------------------------------- terrain */

/* A heightfield of n x n columns. Raw heights below `sea` are water: the
 * column is drawn flat at sea level, shaded by depth. */
typedef struct terrain {
    int16_t *h; /* row-major, h[y * n + x] */
    int32_t n, sea, sand, grass, rock;
    bool wrap; /* periodic in x and y (world tiles), else open borders */
} terrain;

#define MAX_CELL 512

/* Adds one octave of value noise (smoothstep-interpolated lattice values,
 * one lattice point per `cell` columns) to row y. With period > 0 the
 * lattice repeats every `period` points. */
static void noise_row(float *row, int32_t n, int32_t y, int32_t cell, int32_t period, uint32_t seed,
                      float amp, const float *ease) {
    int32_t iy = y / cell, y0 = iy, y1 = iy + 1;
    if (period) y0 %= period, y1 %= period;
    float sy = ease[y % cell];
    for (int32_t ix = 0; ix * cell < n; ix++) {
        int32_t x0 = ix, x1 = ix + 1;
        if (period) x0 %= period, x1 %= period;
        float a = unit(hash3(x0, y0, seed)), b = unit(hash3(x1, y0, seed));
        float c = unit(hash3(x0, y1, seed)), d = unit(hash3(x1, y1, seed));
        float l = amp * (a + (c - a) * sy), r = amp * (b + (d - b) * sy) - l;
        float *p = row + ix * cell;
        int32_t len = min_i(cell, n - ix * cell);
        for (int32_t k = 0; k < len; k++) p[k] += l + r * ease[k];
    }
}

/* Fractal value noise, shaped so that valleys are wide and flat and peaks
 * are sharp. Heights reach about `amp`; the feature size is `base` columns. */
static bool terrain_init(terrain *t, int32_t n, bool wrap, int32_t base, int32_t amp,
                         uint32_t seed) {
    t->n = n;
    t->wrap = wrap;
    t->sea = amp * 15 / 100;
    t->sand = t->sea + 1 + amp / 64;
    t->grass = amp * 58 / 100;
    t->rock = amp * 80 / 100;
    t->h = malloc((size_t)n * (size_t)n * sizeof *t->h);
    float *row = malloc((size_t)n * sizeof *row);
    if (!t->h || !row) {
        free(t->h);
        free(row);
        return false;
    }
    float ease[2 * MAX_CELL], total = 0;
    int32_t octaves = 0;
    for (int32_t cell = base, off = 0; cell >= 4; off += cell, cell /= 2, octaves++) {
        for (int32_t k = 0; k < cell; k++) {
            float f = (float)k / (float)cell;
            ease[off + k] = f * f * (3 - 2 * f);
        }
        total += (float)(1 << octaves);
    }
    for (int32_t y = 0; y < n; y++) {
        memset(row, 0, (size_t)n * sizeof *row);
        float amp_o = 1.0f / total * (float)(1 << (octaves - 1));
        for (int32_t o = 0, cell = base, off = 0; o < octaves; o++, off += cell, cell /= 2) {
            noise_row(row, n, y, cell, wrap ? n / cell : 0, seed + (uint32_t)o, amp_o, ease + off);
            amp_o *= 0.5f;
        }
        for (int32_t x = 0; x < n; x++) {
            float v = (row[x] - 0.5f) * 2.2f + 0.5f;
            v = v < 0 ? 0 : v > 1 ? 1 : v;
            t->h[(size_t)y * (size_t)n + (size_t)x] = (int16_t)(v * v * (float)amp);
        }
    }
    free(row);
    return true;
}

static int32_t raw_at(const terrain *t, int32_t x, int32_t y) {
    if (t->wrap) {
        x = ((x % t->n) + t->n) % t->n;
        y = ((y % t->n) + t->n) % t->n;
    } else if (x < 0 || y < 0 || x >= t->n || y >= t->n) {
        return -1;
    }
    return t->h[(size_t)y * (size_t)t->n + (size_t)x];
}

/* Column top: water is flat at sea level. -1 outside an open terrain. */
static int32_t top_at(const terrain *t, int32_t x, int32_t y) {
    int32_t h = raw_at(t, x, y);
    return h < 0 ? h : max_i(h, t->sea);
}

/* Emits the columns [x0, x0 + w) x [y0, y0 + w) centred on the model origin.
 * Each column reaches down to just above its lowest neighbour, so slopes
 * show no gaps, and is at least 3 voxels deep; on an open border it runs
 * down to z = 0 so the terrain looks solid from the side. */
static bool terrain_emit(const terrain *t, int32_t x0, int32_t y0, int32_t w, vxr_model_src *m) {
    int32_t ox = -(x0 + w / 2), oy = -(y0 + w / 2);
    for (int32_t y = y0; y < y0 + w; y++) {
        for (int32_t x = x0; x < x0 + w; x++) {
            int32_t raw = raw_at(t, x, y), top = max_i(raw, t->sea);
            int32_t lo = min_i(min_i(top_at(t, x - 1, y), top_at(t, x + 1, y)),
                               min_i(top_at(t, x, y - 1), top_at(t, x, y + 1)));
            int32_t bottom = max_i(0, min_i(top - 2, lo + 1));
            uint32_t hs = hash3(x, y, 99), top_c, sub_c;
            if (raw < t->sea) {
                int32_t depth = t->sea - raw;
                top_c = PAL_WATER + (depth > 8 ? 0u : depth > 4 ? 1u : depth > 1 ? 2u : 3u);
                sub_c = PAL_SAND;
            } else if (top <= t->sand) {
                top_c = sub_c = PAL_SAND + (hs & 1);
            } else if (top - lo >= 4 || (top > t->grass && top <= t->rock)) {
                top_c = sub_c = PAL_ROCK;
            } else if (top <= t->grass) {
                top_c = PAL_GRASS + (hs & 3);
                sub_c = PAL_DIRT + (hs >> 2 & 1);
            } else {
                top_c = PAL_SNOW + (hs & 1);
                sub_c = PAL_ROCK;
            }
            for (int32_t z = bottom; z <= top; z++) {
                uint32_t c = z == top ? top_c : sub_c;
                if (c == PAL_ROCK) c += (uint32_t)(z + (int32_t)(hs & 7)) / 3 % 3;
                if (!put(m, x + ox, y + oy, z, c)) return false;
            }
        }
    }
    return true;
}

/* ----------------------------------------------------------------- models */

static vxr_result menger(vxr_scene_src *s, int32_t level, const int32_t origin[3]) {
    uint32_t index;
    vxr_result r = vxr_scene_src_add_model(s, &index);
    if (r != VXR_OK) return r;
    vxr_model_src *m = &s->models[index];
    int32_t off[20][3], n = 0, side = 1;
    for (int32_t a = 0; a < 3; a++)
        for (int32_t b = 0; b < 3; b++)
            for (int32_t c = 0; c < 3; c++)
                if ((a == 1) + (b == 1) + (c == 1) <= 1) {
                    off[n][0] = a, off[n][1] = b, off[n][2] = c;
                    n++;
                }
    size_t total = 1;
    for (int32_t l = 0; l < level; l++) total *= 20, side *= 3;
    int32_t span = max_i(1, 3 * (side - 1));
    /* Voxel i's base-20 digits pick the sub-cube at each level. */
    for (size_t i = 0; i < total; i++) {
        int32_t p[3] = {0, 0, 0};
        size_t k = i;
        for (int32_t l = 0, scale = 1; l < level; l++, scale *= 3, k /= 20)
            for (int32_t a = 0; a < 3; a++) p[a] += off[k % 20][a] * scale;
        uint32_t c = PAL_RAMP + (uint32_t)((p[0] + p[1] + p[2]) * 191 / span);
        if (!put(m, p[0] + origin[0], p[1] + origin[1], p[2] + origin[2], c))
            return VXR_ERROR_MEMORY;
    }
    return VXR_OK;
}

/* A dense scratch grid for small shapes: x, y in [-r, r), z in [0, h).
 * Later writes replace earlier ones, so shapes may overlap freely. */
typedef struct grid {
    uint8_t *c;
    int32_t r, h;
} grid;

static void set(grid *g, int32_t x, int32_t y, int32_t z, uint32_t c) {
    if (x < -g->r || y < -g->r || z < 0 || x >= g->r || y >= g->r || z >= g->h) return;
    int32_t w = 2 * g->r;
    g->c[((size_t)z * (size_t)w + (size_t)(y + g->r)) * (size_t)w + (size_t)(x + g->r)] =
        (uint8_t)c;
}

/* Cell centre relative to a point, scaled by radii: the ellipsoid test. */
static float ell(int32_t x, int32_t y, int32_t z, const float c[3], const float r[3]) {
    float dx = ((float)x + 0.5f - c[0]) / r[0], dy = ((float)y + 0.5f - c[1]) / r[1];
    float dz = ((float)z + 0.5f - c[2]) / r[2];
    return dx * dx + dy * dy + dz * dz;
}

static void shape_tree(grid *g) {
    static const float c[3] = {0, 0, 12}, r[3] = {6.5f, 6.5f, 5.5f};
    for (int32_t z = 0; z < 10; z++)
        for (int32_t y = -1; y < 1; y++)
            for (int32_t x = -1; x < 1; x++)
                set(g, x, y, z, PAL_BARK + (hash3(x, y, (uint32_t)z) & 1));
    for (int32_t z = 6; z < 18; z++)
        for (int32_t y = -7; y < 7; y++)
            for (int32_t x = -7; x < 7; x++) {
                float d = ell(x, y, z, c, r);
                uint32_t hs = hash3(x, y, (uint32_t)z + 1000);
                if (d > 1 || (d > 0.6f && hs % 4 == 0)) continue;
                int32_t shade = min_i(3, max_i(0, (z - 6 + (int32_t)(hs >> 8 & 3)) * 4 / 14));
                set(g, x, y, z, PAL_LEAF + (uint32_t)shade);
            }
}

static void shape_pine(grid *g) {
    for (int32_t z = 0; z < 5; z++)
        for (int32_t y = -1; y < 1; y++)
            for (int32_t x = -1; x < 1; x++) set(g, x, y, z, PAL_BARK + 1);
    for (int32_t z = 3; z < 22; z++) {
        int32_t t = z - 3, tier = t / 6;
        float rad = (5.8f - 1.7f * (float)tier) * (1.0f - (float)(t % 6) / 8.0f);
        for (int32_t y = -6; y < 6; y++)
            for (int32_t x = -6; x < 6; x++) {
                float dx = (float)x + 0.5f, dy = (float)y + 0.5f;
                if (dx * dx + dy * dy <= rad * rad)
                    set(g, x, y, z, PAL_NEEDLE + (hash3(x, y, (uint32_t)z) % 3 == 0));
            }
    }
}

static void shape_rock(grid *g) {
    static const float c[3] = {0, 0, 0}, r[3] = {4.5f, 3.6f, 3.4f};
    for (int32_t z = 0; z < 4; z++)
        for (int32_t y = -5; y < 5; y++)
            for (int32_t x = -5; x < 5; x++) {
                uint32_t hs = hash3(x, y, (uint32_t)z + 2000);
                if (ell(x, y, z, c, r) + 0.4f * (unit(hs) - 0.5f) <= 1)
                    set(g, x, y, z, PAL_STONE + (hs & 1));
            }
}

static void shape_house(grid *g) {
    for (int32_t z = 0; z < 7; z++)
        for (int32_t y = -5; y < 5; y++)
            for (int32_t x = -6; x < 6; x++) {
                bool sx = x == -6 || x == 5, sy = y == -5 || y == 4;
                if (z == 0)
                    set(g, x, y, z, PAL_STONE + 1);
                else if ((sx && sy) || (z == 6 && (sx || sy)))
                    set(g, x, y, z, PAL_TIMBER);
                else if (sx || sy)
                    set(g, x, y, z, PAL_WALL);
            }
    for (int32_t z = 1; z < 4; z++) set(g, -1, -5, z, PAL_DOOR), set(g, 0, -5, z, PAL_DOOR);
    for (int32_t z = 3; z < 5; z++)
        for (int32_t k = 0; k < 2; k++) {
            set(g, -4 + k, -5, z, PAL_WINDOW), set(g, 2 + k, -5, z, PAL_WINDOW);
            set(g, -4 + k, 4, z, PAL_WINDOW), set(g, 2 + k, 4, z, PAL_WINDOW);
            set(g, -6, -1 + k, z, PAL_WINDOW), set(g, 5, -1 + k, z, PAL_WINDOW);
        }
    /* Gable roof along x with a one-voxel overhang, gable walls under it. */
    for (int32_t k = 0, yl = -6, yr = 5; yl <= yr; k++, yl++, yr--)
        for (int32_t x = -7; x < 7; x++) {
            set(g, x, yl, 7 + k, PAL_ROOF + (uint32_t)(k & 1));
            set(g, x, yr, 7 + k, PAL_ROOF + (uint32_t)(k & 1));
            if (x == -6 || x == 5)
                for (int32_t y = yl + 1; y < yr; y++) set(g, x, y, 7 + k, PAL_WALL);
        }
    for (int32_t z = 7; z < 14; z++)
        for (int32_t k = 0; k < 4; k++) set(g, 2 + (k & 1), 1 + k / 2, z, PAL_STONE);
}

static void shape_crystal(grid *g) {
    /* base x, y, lean x, y, radius, height, colour */
    static const float p[5][7] = {{0, 0, 0, 0, 2.4f, 16, 0},
                                  {3, 1, 0.25f, 0.1f, 1.6f, 10, 1},
                                  {-3, 1, -0.25f, 0.05f, 1.5f, 9, 2},
                                  {0, -3, 0.05f, -0.25f, 1.6f, 11, 0},
                                  {1, 3, 0.1f, 0.3f, 1.3f, 8, 1}};
    for (int32_t i = 0; i < 5; i++) {
        const float *q = p[i];
        for (int32_t z = 0; (float)z < q[5]; z++) {
            float cx = q[0] + q[2] * (float)z, cy = q[1] + q[3] * (float)z;
            float rad = q[4] * fminf(1.0f, (q[5] - (float)z) / (2 * q[4]));
            for (int32_t y = -6; y < 6; y++)
                for (int32_t x = -6; x < 6; x++)
                    if (fabsf((float)x + 0.5f - cx) + fabsf((float)y + 0.5f - cy) <= rad)
                        set(g, x, y, z, PAL_CRYSTAL + (uint32_t)q[6]);
        }
    }
}

/* Radius 12 ball with eight coloured gores. */
static void shape_ball(grid *g) {
    static const float c[3] = {0, 0, 12}, r[3] = {12, 12, 12};
    for (int32_t z = 0; z < 24; z++)
        for (int32_t y = -12; y < 12; y++)
            for (int32_t x = -12; x < 12; x++) {
                if (ell(x, y, z, c, r) > 1) continue;
                int32_t gore = (x < 0) ^ (y < 0) ^ (abs(2 * x + 1) > abs(2 * y + 1));
                set(g, x, y, z, PAL_BALL + (uint32_t)gore);
            }
}

/* A ring standing in the XZ plane (major radius 12, minor 4.5) on z = 0. */
static void shape_ring(grid *g) {
    for (int32_t z = 0; z < 33; z++)
        for (int32_t y = -5; y < 5; y++)
            for (int32_t x = -17; x < 17; x++) {
                float dx = (float)x + 0.5f, dy = (float)y + 0.5f, dz = (float)z + 0.5f - 16.5f;
                float d = sqrtf(dx * dx + dz * dz) - 12;
                if (d * d + dy * dy > 4.5f * 4.5f) continue;
                int32_t seg = (x < 0) ^ (z < 16) ^ (fabsf(dx) > fabsf(dz));
                set(g, x, y, z, PAL_RING + (uint32_t)seg);
            }
}

typedef struct shape {
    void (*fn)(grid *g);
    int32_t r, h;
} shape;

enum { TREE, PINE, ROCK, HOUSE, CRYSTAL, BALL, RING, SHAPE_COUNT };
static const shape shapes[SHAPE_COUNT] = {
    {shape_tree, 8, 18},    {shape_pine, 7, 22},  {shape_rock, 5, 4},  {shape_house, 8, 14},
    {shape_crystal, 6, 16}, {shape_ball, 12, 24}, {shape_ring, 17, 33}};

/* Adds a shape as a new model; *radius receives the half diagonal of its
 * voxel bounds, which sets view distances. */
static vxr_result add_shape(vxr_scene_src *s, const shape *sh, uint32_t *index, float *radius) {
    int32_t w = 2 * sh->r;
    grid g = {calloc((size_t)(w * w * sh->h), 1), sh->r, sh->h};
    if (!g.c) return VXR_ERROR_MEMORY;
    sh->fn(&g);
    vxr_result r = vxr_scene_src_add_model(s, index);
    int32_t lo[3] = {INT32_MAX, INT32_MAX, INT32_MAX}, hi[3] = {INT32_MIN, INT32_MIN, INT32_MIN};
    for (int32_t z = 0; r == VXR_OK && z < sh->h; z++)
        for (int32_t y = 0; y < w; y++)
            for (int32_t x = 0; x < w; x++) {
                uint8_t c = g.c[((size_t)z * (size_t)w + (size_t)y) * (size_t)w + (size_t)x];
                if (!c) continue;
                int32_t p[3] = {x - sh->r, y - sh->r, z};
                for (int k = 0; k < 3; k++)
                    lo[k] = min_i(lo[k], p[k]), hi[k] = max_i(hi[k], p[k] + 1);
                if (!put(&s->models[*index], p[0], p[1], p[2], c)) r = VXR_ERROR_MEMORY;
            }
    free(g.c);
    float d2 = 0;
    for (int k = 0; r == VXR_OK && k < 3; k++) d2 += (float)((hi[k] - lo[k]) * (hi[k] - lo[k]));
    *radius = 0.5f * sqrtf(d2);
    return r;
}

/* Rotations by 0, 90, 180 and 270 degrees about +Z, row-major. */
static const float rot_z[4][9] = {{1, 0, 0, 0, 1, 0, 0, 0, 1},
                                  {0, -1, 0, 1, 0, 0, 0, 0, 1},
                                  {-1, 0, 0, 0, -1, 0, 0, 0, 1},
                                  {0, 1, 0, -1, 0, 0, 0, 0, 1}};

static vxr_result place(vxr_scene_src *s, uint32_t model, uint32_t quarter_turns, float scale,
                        float x, float y, float z, float view_distance) {
    vxr_instance in = {
        .model = model, .transform = vxr_transform_identity(), .view_distance = view_distance};
    memcpy(in.transform.rotation, rot_z[quarter_turns & 3], sizeof in.transform.rotation);
    in.transform.scale = scale;
    in.transform.translation[0] = x;
    in.transform.translation[1] = y;
    in.transform.translation[2] = z;
    return vxr_scene_src_add_instance(s, &in);
}

/* ----------------------------------------------------------------- scenes */

static vxr_result gen_menger(vxr_scene_src *s, int32_t level) {
    int32_t side = 1;
    for (int32_t l = 0; l < level; l++) side *= 3;
    int32_t c = -(side - 1) / 2, origin[3] = {c, c, c};
    vxr_result r = menger(s, level, origin);
    return r != VXR_OK ? r : place(s, 0, 0, 1, 0, 0, 0, INFINITY);
}

/* Feature size and height for an n-column terrain: hills about n/2 wide
 * (at most 512) and half as high as wide (at most 128). */
static void terrain_scale(int32_t n, int32_t *base, int32_t *amp) {
    int32_t b = 4;
    while (b * 2 <= n / 2 && b * 2 <= MAX_CELL) b *= 2;
    *base = b;
    *amp = min_i(128, max_i(8, b / 2));
}

static vxr_result gen_terrain(vxr_scene_src *s, int32_t n) {
    terrain t;
    int32_t base, amp;
    terrain_scale(n, &base, &amp);
    if (!terrain_init(&t, n, false, base, amp, 1)) return VXR_ERROR_MEMORY;
    uint32_t index;
    vxr_result r = vxr_scene_src_add_model(s, &index);
    if (r == VXR_OK && !terrain_emit(&t, 0, 0, n, &s->models[index])) r = VXR_ERROR_MEMORY;
    free(t.h);
    return r != VXR_OK ? r : place(s, index, 0, 1, 0, 0, 0, INFINITY);
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
        {SHAPE_COUNT, 0, 2, -50, -45, 30}, /* menger sponge */
        {BALL, 0, 1, 50, -50, 14},         {RING, 1, 1, 52, 22, 18},
        {HOUSE, 1, 1, -48, 42, 10},        {TREE, 0, 2, -4, 64, 0},
        {TREE, 0, 1, 18, 46, 0},           {TREE, 0, 1, -20, 28, 0},
        {TREE, 0, 1, 30, 76, 0},           {PINE, 0, 1, 74, 70, 0},
        {PINE, 1, 1, 82, 52, 0},           {PINE, 0, 1, 62, 84, 0},
        {PINE, 2, 1, -80, 12, 0},          {ROCK, 0, 1, 10, -64, 0},
        {ROCK, 1, 2, -12, -16, 0},         {ROCK, 3, 1, 80, -12, 0},
        {CRYSTAL, 0, 1, 16, -28, 0},       {CRYSTAL, 1, 0.5f, 24, -20, 0},
        {CRYSTAL, 3, 0.5f, 10, -18, 0},
    };
    terrain t;
    if (!terrain_init(&t, N, false, 64, 32, 7)) return VXR_ERROR_MEMORY;
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        int32_t cx = items[i].x + H, cy = items[i].y + H, p = items[i].pad;
        int32_t level = max_i(raw_at(&t, cx, cy), t.sand + 1);
        for (int32_t y = cy - p; p && y < cy + p; y++)
            for (int32_t x = cx - p; x < cx + p; x++)
                if (x >= 0 && y >= 0 && x < N && y < N) t.h[y * N + x] = (int16_t)level;
    }
    uint32_t index, ids[SHAPE_COUNT + 1];
    float radius;
    vxr_result r = vxr_scene_src_add_model(s, &index);
    if (r == VXR_OK && !terrain_emit(&t, 0, 0, N, &s->models[index])) r = VXR_ERROR_MEMORY;
    if (r == VXR_OK) r = place(s, index, 0, 1, 0, 0, 0, INFINITY);
    for (int32_t k = 0; r == VXR_OK && k < SHAPE_COUNT; k++)
        r = add_shape(s, &shapes[k], &ids[k], &radius);
    ids[SHAPE_COUNT] = s->model_count;
    if (r == VXR_OK) r = menger(s, 3, (const int32_t[3]){-13, -13, 0});
    for (size_t i = 0; r == VXR_OK && i < sizeof items / sizeof items[0]; i++) {
        int32_t x = items[i].x, y = items[i].y, z = top_at(&t, x + H, y + H);
        r = place(s, ids[items[i].model], (uint32_t)items[i].turns, items[i].scale, (float)x,
                  (float)y, (float)(items[i].pad ? z + 1 : z), INFINITY);
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
    } kinds[] = {{TREE, 35, 20, 2},
                 {PINE, 60, 20, 2},
                 {ROCK, 80, 25, 2},
                 {HOUSE, 88, 0, 1},
                 {CRYSTAL, 100, 50, 0.5f}};
    int32_t g = 1;
    while ((int64_t)g * g * 256 < k) g++;
    int32_t tiles = min_i(g, PERIOD), half = g * TILE / 2;
    terrain t;
    if (!terrain_init(&t, P, true, 128, 64, 3)) return VXR_ERROR_MEMORY;
    vxr_result r = VXR_OK;
    uint32_t tile0 = s->model_count, index, ids[5];
    float radius[5];
    for (int32_t j = 0; r == VXR_OK && j < tiles; j++)
        for (int32_t i = 0; r == VXR_OK && i < tiles; i++) {
            r = vxr_scene_src_add_model(s, &index);
            if (r == VXR_OK && !terrain_emit(&t, i * TILE, j * TILE, TILE, &s->models[index]))
                r = VXR_ERROR_MEMORY;
        }
    for (int32_t i = 0; r == VXR_OK && i < 5; i++)
        r = add_shape(s, &shapes[kinds[i].kind], &ids[i], &radius[i]);
    for (int32_t gy = 0; r == VXR_OK && gy < g; gy++)
        for (int32_t gx = 0; r == VXR_OK && gx < g; gx++) {
            uint32_t model = tile0 + (uint32_t)((gy % tiles) * tiles + gx % tiles);
            r = place(s, model, 0, 1, (float)(gx * TILE + TILE / 2 - half),
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
            if (raw_at(&t, x + half, y + half) >= t.sand) break;
        }
        float scale = (int32_t)(roll >> 32 & 0xffff) % 100 < kinds[kind].alt_pct
                          ? kinds[kind].alt_scale
                          : 1.0f;
        float view = fminf(400, fmaxf(40, 10 * radius[kind] * scale));
        r = place(s, ids[kind], (uint32_t)(roll >> 56), scale, (float)x, (float)y,
                  (float)top_at(&t, x + half, y + half), view);
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
                  {"terrain", "size", "N", 1, 8192},
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
        fill_palette(dest->palette);
        r = kind == DEMO      ? gen_demo(dest)
            : kind == MENGER  ? gen_menger(dest, v)
            : kind == TERRAIN ? gen_terrain(dest, v)
                              : gen_world(dest, v);
        if (r != VXR_OK) vxr_fail(err, r, "out of memory generating %.64s", spec);
    }
    if (r != VXR_OK) vxr_scene_src_free(dest);
    return r;
}
