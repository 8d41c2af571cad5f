/* The small models of the built-in scenes: a Menger sponge and shapes
 * drawn into a dense scratch grid (trees, rocks, a house, crystals, a
 * ball, a ring), and placing them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "procgen.h"

vxr_result vxr_gen_menger(vxr_scene_src *s, int32_t level, const int32_t origin[3]) {
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

static const shape shapes[GEN_SHAPES] = {
    {shape_tree, 8, 18},    {shape_pine, 7, 22},  {shape_rock, 5, 4},  {shape_house, 8, 14},
    {shape_crystal, 6, 16}, {shape_ball, 12, 24}, {shape_ring, 17, 33}};

vxr_result vxr_gen_shape(vxr_scene_src *s, int kind, uint32_t *index, float *radius) {
    const shape *sh = &shapes[kind];
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

vxr_result vxr_gen_place(vxr_scene_src *s, uint32_t model, uint32_t quarter_turns, float scale,
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
