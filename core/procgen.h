/* Private pieces of the built-in scenes (core/procgen.c builds the scenes,
 * core/procgen_models.c the small models they place). */
#ifndef VXR_PROCGEN_H
#define VXR_PROCGEN_H

#include <stdbool.h>
#include <stdlib.h>
#include "internal.h"

/* The palette of every built-in scene (core/procgen.c fills it). */
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

static inline uint32_t hash3(int32_t x, int32_t y, uint32_t z) {
    uint32_t h = (uint32_t)x * 0x8da6b343u ^ (uint32_t)y * 0xd8163841u ^ z * 0xcb1ab31fu;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

static inline float unit(uint32_t h) {
    return (float)(h >> 8) * (1.0f / 16777216.0f);
}

static inline uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline int32_t min_i(int32_t a, int32_t b) {
    return a < b ? a : b;
}

static inline int32_t max_i(int32_t a, int32_t b) {
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

/* Makes room for `extra` more voxels in m (doubling), so that a run of
 * voxels can be written straight into m->voxels. */
static inline bool room(vxr_model_src *m, size_t extra) {
    if (m->capacity - m->count >= extra) return true;
    size_t cap = m->capacity ? m->capacity : 256;
    while (cap - m->count < extra) cap *= 2;
    vxr_voxel *p = realloc(m->voxels, cap * sizeof *p);
    if (!p) return false;
    m->voxels = p;
    m->capacity = cap;
    return true;
}

/* The small models of the demo and world scenes. */
enum { GEN_TREE, GEN_PINE, GEN_ROCK, GEN_HOUSE, GEN_CRYSTAL, GEN_BALL, GEN_RING, GEN_SHAPES };

/* Adds a Menger sponge of `level` (voxels 3^level per side) at origin as a
 * new model. */
vxr_result vxr_gen_menger(vxr_scene_src *s, int32_t level, const int32_t origin[3]);
/* Adds shape `kind` (GEN_*) as a new model *index; *radius receives the
 * half diagonal of its voxel bounds, which sets view distances. */
vxr_result vxr_gen_shape(vxr_scene_src *s, int kind, uint32_t *index, float *radius);
/* Adds an instance of model turned by quarter_turns about +Z, scaled and
 * placed at x, y, z, with a view distance. */
vxr_result vxr_gen_place(vxr_scene_src *s, uint32_t model, uint32_t quarter_turns, float scale,
                         float x, float y, float z, float view_distance);

/* ---- the terrain (core/terrain.c) ---- */

/* A heightfield of n x n columns. Raw heights below `sea` are water: the
 * column is drawn flat at sea level, shaded by depth. */
typedef struct terrain {
    int16_t *h; /* row-major, h[(y - hy) * hw + x - hx]: the window computed */
    int32_t hx, hy, hw;
    int32_t n, sea, sand, grass, rock;
    bool wrap; /* periodic in x and y (world tiles), else open borders */
} terrain;

static inline int32_t vxr_terrain_raw(const terrain *t, int32_t x, int32_t y) {
    if (t->wrap) {
        x = ((x % t->n) + t->n) % t->n;
        y = ((y % t->n) + t->n) % t->n;
    } else if (x < 0 || y < 0 || x >= t->n || y >= t->n) {
        return -1;
    }
    return t->h[(size_t)(y - t->hy) * (size_t)t->hw + (size_t)(x - t->hx)];
}

/* Column top: water is flat at sea level. -1 outside an open terrain. */
static inline int32_t vxr_terrain_top(const terrain *t, int32_t x, int32_t y) {
    int32_t h = vxr_terrain_raw(t, x, y);
    return h < 0 ? h : max_i(h, t->sea);
}

/* The heightfield of an n x n terrain (wrap: periodic) with hills `base`
 * columns wide and `amp` high, from seed: whole (init) or only the columns
 * [x0, x1) x [y0, y1) (window), equal to the whole one there. false when
 * memory runs out; free t->h. */
bool vxr_terrain_init(terrain *t, int32_t n, bool wrap, int32_t base, int32_t amp, uint32_t seed);
bool vxr_terrain_window(terrain *t, int32_t n, bool wrap, int32_t base, int32_t amp, uint32_t seed,
                        int32_t x0, int32_t y0, int32_t x1, int32_t y1);
/* The voxels of the columns [x0, x0 + w) x [y0, y0 + w), centred on the
 * model origin, appended to m; false when memory runs out. */
bool vxr_terrain_emit(const terrain *t, int32_t x0, int32_t y0, int32_t w, vxr_model_src *m);
/* @terrain:n as a model generator, placed once (vxr_scene_generate). */
vxr_result vxr_gen_terrain(vxr_scene_src *s, int32_t n);
/* @terrain:n's highest cell (z): no voxel lies above it. */
int32_t vxr_terrain_ceiling(int32_t n);
/* The voxels of @terrain:n in world chunk c (side^3 cells: world cells
 * c * side + [0, side), the scene's world, whose model is centred), in
 * chunk cells, appended to m; computes the chunk's columns alone.
 * VXR_ERROR_MEMORY. */
vxr_result vxr_terrain_chunk(int32_t n, uint32_t side, const int32_t c[3], vxr_model_src *m);
/* The chunks of side cells that @terrain:n's cells can fall in: x and y
 * chunk coordinates lo..hi, z 0..layers - 1. */
void vxr_terrain_grid(int32_t n, uint32_t side, int32_t *lo, int32_t *hi, int32_t *layers);
/* "@terrain:N" as a generated world's name: *n = N, 1..VXR_TERRAIN_WORLD_MAX;
 * VXR_ERROR_ARGUMENT naming spec otherwise. */
#define VXR_TERRAIN_WORLD_MAX 65536
vxr_result vxr_terrain_spec(const char *spec, int32_t *n, vxr_error *err);
/* The palette of every built-in scene into pal[256] (core/procgen.c). */
void vxr_gen_palette(uint32_t *pal);

#endif
