/* The terrain of @terrain:N, the demo and @world:K (core/procgen.h): a
 * heightfield of fractal value noise and the columns of voxels on it. A
 * window of the heightfield is computed alone, bit for bit as the whole
 * one, so that a generated world (vxr/world.h) makes @terrain:N a chunk at
 * a time, for N far past what fits in memory. */
#include <math.h>
#include <string.h>
#include "procgen.h"

#define MAX_CELL 512

/* Adds one octave of value noise (smoothstep-interpolated lattice values,
 * one lattice point per `cell` columns) to row y's columns [x0, x1), at
 * row[0..x1-x0). With period > 0 the lattice repeats every `period`
 * points. A column's value does not depend on the span it is computed in
 * (the same float operations in the same order), so that a window of the
 * heightfield equals the whole one there. */
static void noise_span(float *row, int32_t x0, int32_t x1, int32_t y, int32_t cell, int32_t period,
                       uint32_t seed, float amp, const float *ease) {
    int32_t iy = y / cell, y0 = iy, y1 = iy + 1;
    if (period) y0 %= period, y1 %= period;
    float sy = ease[y % cell];
    for (int32_t ix = x0 / cell; ix * cell < x1; ix++) {
        int32_t xa = ix, xb = ix + 1;
        if (period) xa %= period, xb %= period;
        float a = unit(hash3(xa, y0, seed)), b = unit(hash3(xb, y0, seed));
        float c = unit(hash3(xa, y1, seed)), d = unit(hash3(xb, y1, seed));
        float l = amp * (a + (c - a) * sy), r = amp * (b + (d - b) * sy) - l;
        const int32_t from = max_i(x0, ix * cell), to = min_i(x1, ix * cell + cell);
        for (int32_t x = from; x < to; x++) row[x - x0] += l + r * ease[x - ix * cell];
    }
}

/* Fractal value noise, shaped so that valleys are wide and flat and peaks
 * are sharp. Heights reach about `amp`; the feature size is `base` columns.
 * Only the columns [x0, x1) x [y0, y1) are computed and kept. */
bool vxr_terrain_window(terrain *t, int32_t n, bool wrap, int32_t base, int32_t amp, uint32_t seed,
                        int32_t x0, int32_t y0, int32_t x1, int32_t y1) {
    t->n = n;
    t->wrap = wrap;
    t->sea = amp * 15 / 100;
    t->sand = t->sea + 1 + amp / 64;
    t->grass = amp * 58 / 100;
    t->rock = amp * 80 / 100;
    t->hx = x0;
    t->hy = y0;
    t->hw = x1 - x0;
    const int32_t w = x1 - x0;
    t->h = malloc((size_t)w * (size_t)(y1 - y0) * sizeof *t->h);
    float *row = malloc((size_t)w * sizeof *row);
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
    for (int32_t y = y0; y < y1; y++) {
        memset(row, 0, (size_t)w * sizeof *row);
        float amp_o = 1.0f / total * (float)(1 << (octaves - 1));
        for (int32_t o = 0, cell = base, off = 0; o < octaves; o++, off += cell, cell /= 2) {
            noise_span(row, x0, x1, y, cell, wrap ? n / cell : 0, seed + (uint32_t)o, amp_o,
                       ease + off);
            amp_o *= 0.5f;
        }
        for (int32_t x = 0; x < w; x++) {
            float v = (row[x] - 0.5f) * 2.2f + 0.5f;
            v = v < 0 ? 0 : v > 1 ? 1 : v;
            t->h[(size_t)(y - y0) * (size_t)w + (size_t)x] = (int16_t)(v * v * (float)amp);
        }
    }
    free(row);
    return true;
}

bool vxr_terrain_init(terrain *t, int32_t n, bool wrap, int32_t base, int32_t amp, uint32_t seed) {
    return vxr_terrain_window(t, n, wrap, base, amp, seed, 0, 0, n, n);
}

/* Emits the voxels of the columns [x0, x1) x [y0, y1) in the layers
 * [z0, z1), at model x = column x + ox (y likewise). Each column reaches
 * down to just above its lowest neighbour, so slopes show no gaps, and is
 * at least 3 voxels deep; on an open border it runs down to z = 0 so the
 * terrain looks solid from the side. */
static bool terrain_columns(const terrain *t, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                            int32_t z0, int32_t z1, int32_t ox, int32_t oy, vxr_model_src *m) {
    if (x1 <= x0 || y1 <= y0) return true;
    /* The column tops of rows y - 1, y and y + 1 over [x0 - 1, x1]: each
     * top is read once a row, not once for each neighbour. */
    const size_t w = (size_t)(x1 - x0) + 2;
    int32_t *rows = malloc(3 * w * sizeof *rows);
    if (!rows) return false;
    int32_t *prev = rows, *cur = rows + w, *next = rows + 2 * w;
    for (int32_t x = x0 - 1; x <= x1; x++) {
        prev[x - x0 + 1] = vxr_terrain_top(t, x, y0 - 1);
        cur[x - x0 + 1] = vxr_terrain_top(t, x, y0);
    }
    bool ok = true;
    for (int32_t y = y0; ok && y < y1; y++) {
        for (int32_t x = x0 - 1; x <= x1; x++) next[x - x0 + 1] = vxr_terrain_top(t, x, y + 1);
        for (int32_t x = x0; x < x1; x++) {
            const size_t i = (size_t)(x - x0) + 1;
            int32_t top = cur[i]; /* max(raw, sea): the column itself is always there */
            if (top < z0) continue;
            int32_t lo = min_i(min_i(cur[i - 1], cur[i + 1]), min_i(prev[i], next[i]));
            int32_t bottom = max_i(0, min_i(top - 2, lo + 1));
            if (bottom >= z1) continue;
            int32_t raw = top == t->sea ? vxr_terrain_raw(t, x, y) : top;
            uint32_t hs = hash3(x, y, 99), top_c, sub_c;
            int32_t wet = top; /* cells above wet are the sea's, down to the seabed */
            if (raw < t->sea) {
                int32_t depth = t->sea - raw;
                top_c = PAL_WATER + (depth > 8 ? 0u : depth > 4 ? 1u : depth > 1 ? 2u : 3u);
                sub_c = PAL_SAND;
                wet = raw;
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
            int32_t first = max_i(bottom, z0), last = min_i(top, z1 - 1);
            if (!(ok = room(m, (size_t)(last - first + 1)))) break;
            vxr_voxel *v = m->voxels + m->count;
            for (int32_t z = first; z <= last; z++) {
                /* water under the sea's surface too, so that a coarse
                 * cube of sea averages to water, not to its seabed */
                uint32_t c = z == top || z > wet ? top_c : sub_c;
                if (c == PAL_ROCK) c += (uint32_t)(z + (int32_t)(hs & 7)) / 3 % 3;
                *v++ = (vxr_voxel){x + ox, y + oy, z, c};
            }
            m->count += (size_t)(last - first + 1);
        }
        int32_t *spare = prev;
        prev = cur;
        cur = next;
        next = spare;
    }
    free(rows);
    return ok;
}

/* The columns [x0, x0 + w) x [y0, y0 + w) centred on the model origin. */
bool vxr_terrain_emit(const terrain *t, int32_t x0, int32_t y0, int32_t w, vxr_model_src *m) {
    return terrain_columns(t, x0, y0, x0 + w, y0 + w, INT32_MIN, INT32_MAX, -(x0 + w / 2),
                           -(y0 + w / 2), m);
}

/* @terrain:N's model is a generator (vxr_model_gen) over its heightfield:
 * the build asks for one region's columns at a time, and the N^2 columns'
 * voxels never exist as one list. The voxels are vxr_terrain_emit's. */
static vxr_result terrain_gen_emit(void *user, const int32_t lo[3], const int32_t hi[3],
                                   vxr_model_src *dest) {
    const terrain *t = user;
    const int32_t o = t->n / 2; /* model x = column x - o */
    int32_t x0 = max_i(lo[0] + o, 0), y0 = max_i(lo[1] + o, 0);
    int32_t x1 = min_i(hi[0] + o, t->n), y1 = min_i(hi[1] + o, t->n);
    return terrain_columns(t, x0, y0, x1, y1, lo[2], hi[2], -o, -o, dest) ? VXR_OK
                                                                          : VXR_ERROR_MEMORY;
}

static void terrain_gen_free(void *user) {
    terrain *t = user;
    free(t->h);
    free(t);
}

/* Feature size and height for an n-column terrain: hills about n/2 wide
 * (at most 512) and half as high as wide (at most 128). */
static void terrain_scale(int32_t n, int32_t *base, int32_t *amp) {
    int32_t b = 4;
    while (b * 2 <= n / 2 && b * 2 <= MAX_CELL) b *= 2;
    *base = b;
    *amp = min_i(128, max_i(8, b / 2));
}

vxr_result vxr_gen_terrain(vxr_scene_src *s, int32_t n) {
    int32_t base, amp;
    terrain_scale(n, &base, &amp);
    terrain *t = malloc(sizeof *t);
    vxr_model_gen *g = calloc(1, sizeof *g);
    if (!t || !g || !vxr_terrain_init(t, n, false, base, amp, 1)) {
        free(t);
        free(g);
        return VXR_ERROR_MEMORY;
    }
    /* Tight bounds: every column is there, the border ones reach z = 0,
     * and the highest top is the highest cell. The voxel count, for the
     * build's arrays: the columns of every 16th row, a little over. */
    int32_t top = t->sea;
    for (size_t i = 0; i < (size_t)n * (size_t)n; i++) top = max_i(top, t->h[i]);
    uint64_t sampled = 0;
    int32_t rows = 0;
    for (int32_t y = 0; y < n; y += 16, rows++)
        for (int32_t x = 0; x < n; x++) {
            int32_t c = vxr_terrain_top(t, x, y);
            int32_t lo = min_i(min_i(vxr_terrain_top(t, x - 1, y), vxr_terrain_top(t, x + 1, y)),
                               min_i(vxr_terrain_top(t, x, y - 1), vxr_terrain_top(t, x, y + 1)));
            sampled += (uint64_t)(c - max_i(0, min_i(c - 2, lo + 1)) + 1);
        }
    uint64_t hint = sampled * (uint64_t)n / (uint64_t)rows;
    *g = (vxr_model_gen){.emit = terrain_gen_emit,
                         .destroy = terrain_gen_free,
                         .user = t,
                         .vmin = {-(n / 2), -(n / 2), 0},
                         .vmax = {n - n / 2, n - n / 2, top + 1},
                         .voxels_hint = hint + hint / 16};
    uint32_t index;
    vxr_result r = vxr_scene_src_add_model(s, &index);
    if (r != VXR_OK) {
        terrain_gen_free(t);
        free(g);
        return r;
    }
    s->models[index].gen = g;
    return vxr_gen_place(s, index, 0, 1, 0, 0, 0, INFINITY);
}

/* The terrain's highest cell: every height is at most amp, the sea too. */
int32_t vxr_terrain_ceiling(int32_t n) {
    int32_t base, amp;
    terrain_scale(n, &base, &amp);
    return amp;
}

void vxr_terrain_grid(int32_t n, uint32_t side, int32_t *lo, int32_t *hi, int32_t *layers) {
    const int64_t o = n / 2, s = side;
    *lo = (int32_t) - ((o + s - 1) / s);
    *hi = (int32_t)((n - o - 1) / s);
    *layers = (int32_t)(vxr_terrain_ceiling(n) / s + 1);
}

vxr_result vxr_terrain_chunk(int32_t n, uint32_t side, const int32_t c[3], vxr_model_src *m) {
    int32_t base, amp;
    terrain_scale(n, &base, &amp);
    const int64_t o = n / 2, s = side, z0 = (int64_t)c[2] * s;
    /* the chunk's columns (world x = column x - o), clipped to the terrain */
    const int64_t x0 = c[0] * s + o, y0 = c[1] * s + o;
    const int32_t cx0 = (int32_t)(x0 < 0 ? 0 : x0), cy0 = (int32_t)(y0 < 0 ? 0 : y0);
    const int32_t cx1 = (int32_t)(x0 + s > n ? n : x0 + s),
                  cy1 = (int32_t)(y0 + s > n ? n : y0 + s);
    if (cx1 <= cx0 || cy1 <= cy0 || z0 > amp || z0 + s <= 0) return VXR_OK;
    terrain t;
    if (!vxr_terrain_window(&t, n, false, base, amp, 1, max_i(cx0 - 1, 0), max_i(cy0 - 1, 0),
                            min_i(cx1 + 1, n), min_i(cy1 + 1, n)))
        return VXR_ERROR_MEMORY;
    const size_t before = m->count;
    const bool ok = terrain_columns(&t, cx0, cy0, cx1, cy1, (int32_t)z0, (int32_t)(z0 + s),
                                    (int32_t)-x0, (int32_t)-y0, m);
    for (size_t i = before; ok && i < m->count; i++) m->voxels[i].z -= (int32_t)z0;
    free(t.h);
    return ok ? VXR_OK : VXR_ERROR_MEMORY;
}

vxr_result vxr_terrain_spec(const char *spec, int32_t *n, vxr_error *err) {
    static const char prefix[] = "@terrain:";
    long long v = 0;
    const char *d = spec + sizeof prefix - 1;
    bool ok = !strncmp(spec, prefix, sizeof prefix - 1) && *d;
    for (; ok && *d; d++) {
        ok = *d >= '0' && *d <= '9';
        if (v <= VXR_TERRAIN_WORLD_MAX) v = v * 10 + (*d - '0');
    }
    if (!ok || v < 1 || v > VXR_TERRAIN_WORLD_MAX)
        return vxr_fail(err, VXR_ERROR_ARGUMENT,
                        "%.64s: a generated world is @terrain:N, N from 1 to %d", spec,
                        VXR_TERRAIN_WORLD_MAX);
    *n = (int32_t)v;
    return VXR_OK;
}
