/* The workgroups of a frame that trace (renderer/internal.h,
 * vxr_scene_tiles): those whose pixels may see an occupied cell of a
 * model's occupancy grid, the rest written as misses. On lavapipe a
 * workgroup of sky inside the scene's box runs every loop of the walk (and
 * of a lit frame's light rays) once under an empty lane mask; these are
 * a quarter of store8's frame at 1024x768 (BENCHMARKS.md). */
#include <math.h>
#include <string.h>
#include "internal.h"
#include "vxr/bvh.h"

/* Marks the cells under node n of `level` (its cell x, y, z at cell_level). */
static void occupy(const vxr_octree *m, uint32_t n, uint32_t level, uint32_t cell_level,
                   const uint32_t at[3], vxr_resident *res) {
    const uint32_t side = res->occ_n;
    if (level == cell_level) {
        const uint32_t bit = (at[0] * side + at[1]) * side + at[2];
        res->occ[bit / 64] |= 1ull << (bit % 64);
        return;
    }
    const uint32_t mask = m->nodes[n].a & 255u, first = m->nodes[n].b,
                   half = 1u << (level - 1 - cell_level);
    for (uint32_t o = 0; o < 8; o++) {
        if (!(mask >> o & 1u)) continue;
        const uint32_t child = first + (uint32_t)__builtin_popcount(mask & ((1u << o) - 1u));
        if (child >= m->node_count) continue; /* not a tree this renderer uploads */
        const uint32_t c[3] = {at[0] + (o >> 2 & 1u) * half, at[1] + (o >> 1 & 1u) * half,
                               at[2] + (o & 1u) * half};
        occupy(m, child, level - 1, cell_level, c, res);
    }
}

void vxr_resident_occupancy(vxr_resident *res, const vxr_octree *m) {
    memset(res->occ, 0, sizeof res->occ);
    res->occ_n = 0;
    if (m->voxel_count == 0 || m->node_count == 0 || m->depth < VXR_BRICK_LEVEL) return;
    uint32_t k = (uint32_t)__builtin_ctz(VXR_OCC_CELLS);
    if (k > m->depth - VXR_BRICK_LEVEL) k = m->depth - VXR_BRICK_LEVEL;
    res->occ_n = 1u << k;
    const uint32_t at[3] = {0, 0, 0};
    occupy(m, 0, m->depth, m->depth - k, at, res);
}

/* Boxes a frame projects: cells while fewer than CELL_LOOKS (then whole
 * instances), at most about ALL_LOOKS (then every workgroup of g). */
enum { CELL_LOOKS = 2048, ALL_LOOKS = 16384, TILE_STACK = 64 };

typedef struct marker {
    const vxr_renderer *r;
    const vxr_camera *cam;
    vxr_target *t;
    vxr_groups g;
    float pad;
    uint32_t level; /* hits are cubes of up to 2^level voxels */
    int looks;
    uint64_t blocks[VXR_OCC_CELLS * VXR_OCC_CELLS * VXR_OCC_CELLS / 64];
} marker;

/* The workgroups of g whose pixels may see the box [lo, hi] padded by pad
 * (vxr_camera_box_pixels); false when there are none. */
static bool box_groups(marker *k, const float lo[3], const float hi[3], vxr_groups *f) {
    uint32_t px[4];
    k->looks++;
    if (!vxr_camera_box_pixels(k->cam, lo, hi, k->pad, px)) return false;
    *f = vxr_pixel_groups(k->r, px, k->g);
    return f->x0 < f->x1 && f->y0 < f->y1;
}

static void mark(marker *k, vxr_groups f) {
    for (uint32_t y = f.y0; y < f.y1; y++)
        memset(k->t->tile_mark + (size_t)y * k->t->groups_x + f.x0, 1, f.x1 - f.x0);
}

/* Marks what instance i may show: its box's workgroups, or where that is
 * more than a few, those of its occupied blocks (cells, or the aligned
 * cubes of 2^level voxels that hold them), in runs along z, each in world
 * space (its corners through the instance's transform, in doubles,
 * widened far past float rounding) within the instance's box. */
static void mark_instance(marker *k, uint32_t i) {
    const vxr_renderer *r = k->r;
    const vxr_gpu_instance *g = &r->inst_rec[i];
    const vxr_resident *res = &r->res[g->model];
    const vxr_gpu_model *m = &r->model_rec[g->model];
    float ilo[3], ihi[3];
    vxr_bvh_instance_box(g, ilo, ihi);
    vxr_groups f;
    if (!box_groups(k, ilo, ihi, &f)) return;
    const uint32_t cells = res->occ_n, cell_level = m->depth - (uint32_t)__builtin_ctz(cells | 1u);
    const uint32_t per =
        k->level > cell_level ? 1u << (k->level - cell_level) : 1u; /* cells a block */
    const uint32_t n = per < cells ? cells / per : 0;               /* blocks a side */
    if (n <= 1 || (f.x1 - f.x0) * (f.y1 - f.y0) <= 4 || k->looks + (int)(n * n) > CELL_LOOKS) {
        mark(k, f);
        return;
    }
    const uint64_t *occ = res->occ;
    if (per > 1) { /* the blocks that hold an occupied cell */
        memset(k->blocks, 0, sizeof k->blocks);
        for (uint32_t w = 0; w * 64 < cells * cells * cells; w++)
            for (uint64_t bits = res->occ[w]; bits; bits &= bits - 1) {
                const uint32_t b = w * 64 + (uint32_t)__builtin_ctzll(bits),
                               x = b / (cells * cells), y = b / cells % cells, z = b % cells,
                               q = (x / per * n + y / per) * n + z / per;
                k->blocks[q / 64] |= 1ull << (q % 64);
            }
        occ = k->blocks;
    }
    const double cs = ldexp(1.0, (int)m->depth) / n;
    for (uint32_t x = 0; x < n; x++)
        for (uint32_t y = 0; y < n; y++)
            for (uint32_t z = 0; z < n;) {
                uint32_t b = (x * n + y) * n + z;
                if (!(occ[b / 64] >> (b % 64) & 1u)) {
                    z++;
                    continue;
                }
                uint32_t z1 = z + 1;
                for (b++; z1 < n && (occ[b / 64] >> (b % 64) & 1u); b++) z1++;
                const double l[3] = {m->origin[0] + x * cs, m->origin[1] + y * cs,
                                     m->origin[2] + z * cs},
                             h[3] = {l[0] + cs, l[1] + cs, m->origin[2] + z1 * cs};
                float lo[3], hi[3];
                for (int a = 0; a < 3; a++) {
                    const float *row = &g->local_to_world[4 * a];
                    double wl = row[3], wh = row[3];
                    for (int c = 0; c < 3; c++) {
                        const double p = row[c] * l[c], q = row[c] * h[c];
                        wl += p < q ? p : q;
                        wh += p < q ? q : p;
                    }
                    const double slack = 1e-5 * (1.0 + fabs(wl) + fabs(wh)) + 1e-4 * (wh - wl);
                    wl -= slack;
                    wh += slack;
                    lo[a] = (float)(wl > ilo[a] ? wl : ilo[a]);
                    hi[a] = (float)(wh < ihi[a] ? wh : ihi[a]);
                }
                vxr_groups c;
                if (lo[0] <= hi[0] && lo[1] <= hi[1] && lo[2] <= hi[2] && box_groups(k, lo, hi, &c))
                    mark(k, c);
                z = z1;
            }
}

static bool in_groups(vxr_groups g, uint32_t x, uint32_t y) {
    return x >= g.x0 && x < g.x1 && y >= g.y0 && y < g.y1;
}

uint32_t vxr_scene_tiles(const vxr_renderer *r, vxr_target *t, const vxr_camera *cam, float pad,
                         uint32_t level, const vxr_groups parts[3], uint32_t counts[3]) {
    const uint32_t gx = t->groups_x, gy = t->groups_y;
    const vxr_groups g = parts[2];
    memset(t->tile_mark, 0, (size_t)gx * gy);
    marker k = {r, cam, t, g, pad, level, 0, {0}};
    const vxr_bvh *bvh = r->bvh;
    bool whole = !bvh || bvh->node_count == 0;
    uint32_t stack[TILE_STACK], sp = 0;
    if (!whole && g.x0 < g.x1 && g.y0 < g.y1) stack[sp++] = 0;
    while (sp && !whole) {
        const vxr_gpu_bvh_node *nd = &bvh->nodes[stack[--sp]];
        vxr_groups f;
        if (nd->count == 0) {
            if (!box_groups(&k, nd->lo, nd->hi, &f)) continue; /* out of view */
            if (sp + 2 > TILE_STACK) {
                whole = true;
                break;
            }
            stack[sp++] = nd->first;
            stack[sp++] = nd->first + 1;
        } else {
            for (uint32_t j = 0; j < nd->count; j++) mark_instance(&k, bvh->items[nd->first + j]);
        }
        if (k.looks > ALL_LOOKS) whole = true;
    }
    if (whole) mark(&k, g);
    /* the marked ones first, by part and row by row, then the rest */
    uint32_t n = 0;
    for (int part = 0; part < 3; part++) {
        counts[part] = n;
        for (uint32_t y = 0; y < gy; y++)
            for (uint32_t x = 0; x < gx; x++)
                if (t->tile_mark[(size_t)y * gx + x] &&
                    (part == 2 || in_groups(parts[part], x, y)) &&
                    (part == 0 || !in_groups(parts[part - 1], x, y)))
                    t->tile_list[n++] = x | y << 16;
        counts[part] = n - counts[part];
    }
    uint32_t m = n;
    for (uint32_t y = 0; y < gy; y++)
        for (uint32_t x = 0; x < gx; x++)
            if (!t->tile_mark[(size_t)y * gx + x]) t->tile_list[m++] = x | y << 16;
    return n;
}
