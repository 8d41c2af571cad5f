/* trace.comp: one ray per pixel through the instance hierarchy and the
 * octrees of shaders/vxr_layout.h; shades into a storage image and, when
 * asked, writes a compact pick record per pixel.
 *
 * Exactness (DESIGN.md §4): every float the trace computes comes from
 * shaders/vxr_trace.h, the code core/pick.c runs too. The octree walk is
 * core/pick.c's recursive `visit` made iterative with one stack frame per
 * level (Revelles et al. 2000).
 *
 * Speed on lavapipe (Mesa 22.3), where CI renders: it runs 8 invocations
 * (8 pixels of a row) as one SIMD vector, executes both sides of every
 * branch under a lane mask, runs every loop body at least once (masked),
 * loads storage buffers one lane at a time and indexes per-lane arrays
 * one lane at a time (BENCHMARKS.md, issue 17: an ablation). So loops
 * hold no rarely needed inner loop (the hierarchy is while-while), scene
 * data comes from texel buffers (vector gathers), rarely needed code is
 * compiled out by specialisation constants or moved out of the loop, and
 * the traversal keeps its current frame in registers and recomputes slab
 * parameters (divisions) rather than storing them. */
#version 450
#extension GL_GOOGLE_include_directive : require
#include "vxr_trace.h"
#include "vxr_light.h"
#include "vxr_scene.glsl"

layout(local_size_x_id = VXR_SPEC_LOCAL_X, local_size_y_id = VXR_SPEC_LOCAL_Y) in;
/* Constants because lavapipe runs both sides of every branch under a lane
 * mask: code a frame never needs is best not compiled in at all. The
 * scene's split and attribute size are vxr_scene.glsl's. */
layout(constant_id = VXR_SPEC_GRID) const bool GRID = false;
layout(constant_id = VXR_SPEC_PICKS) const bool PICKS = false;
layout(constant_id = VXR_SPEC_RAYS) const bool RAYS = false;
layout(constant_id = VXR_SPEC_HOST) const bool HOST = false;
/* Frames may start each ray at its tile's beam distance (beam.comp). */
layout(constant_id = VXR_SPEC_BEAM) const bool BEAM = false;
/* VXR_LIGHT_*: lit and path frames trace light rays after the primary one
 * (vxr_light.h); flat frames are compiled without them. */
layout(constant_id = VXR_SPEC_LIGHT) const uint LIGHT = VXR_LIGHT_FLAT;
/* Light frames write the per-pixel outputs (the target has them). A
 * constant, not a flag of the frame: lavapipe runs a block no lane takes
 * under a mask, its stores one lane at a time. */
layout(constant_id = VXR_SPEC_AOVS) const bool AOVS = false;
/* Frames and batches at a level of detail (pc.lod > 0) have pipelines of
 * their own, so that frames at full resolution carry none of its code:
 * LOD_STOPS 2 stops at cubes of every level, 1 at the cells of wide nodes
 * only (even levels: the host knows no ray of the dispatch can stop at an
 * octant, so the wide walk carries no octant test), 0 none. */
layout(constant_id = VXR_SPEC_LOD) const uint LOD_STOPS = 0u;
const bool LOD = LOD_STOPS != 0u;
const bool LOD_ODD = LOD_STOPS > 1u;
/* Every model is compact and has its wide form (vxr_layout.h). */
layout(constant_id = VXR_SPEC_WIDE) const bool WIDE = false;
/* The frame's pixels this dispatch covers miss the hierarchy's root box
 * (vxr_camera_box_pixels): no ray is traced, every output is a miss's. */
layout(constant_id = VXR_SPEC_MISS) const bool MISS = false;

layout(push_constant, std430) uniform Push {
    VXR_PUSH_MEMBERS
}
pc;
/* The voxel pipelines fold the grid level to 0 and compile the grid code out. */
#define GRID_LEVEL (GRID ? pc.grid_level & 255u : 0u)

/* No format: the host's image may be RGBA8, BGRA8 or RGBA16F
 * (shaderStorageImageWriteWithoutFormat). */
layout(set = VXR_SET_TARGET, binding = VXR_BIND_IMAGE) writeonly uniform image2D color_image;
layout(set = VXR_SET_TARGET, binding = VXR_BIND_PICKS, std430) writeonly buffer Picks {
    vxr_gpu_pick picks[];
};
layout(set = VXR_SET_TARGET, binding = VXR_BIND_RAYS, std430) readonly buffer Rays {
    float rays[];
};
layout(set = VXR_SET_TARGET, binding = VXR_BIND_DEPTH, std430) buffer Depth {
    float depth[];
};
layout(set = VXR_SET_TARGET, binding = VXR_BIND_BEAM, std430) readonly buffer Beam {
    float beam[];
};
layout(set = VXR_SET_TARGET, binding = VXR_BIND_FRAME, std430) readonly buffer Frame {
    VXR_FRAME_DATA_MEMBERS;
}
fr;
layout(set = VXR_SET_TARGET, binding = VXR_BIND_ACCUM, std430) buffer Accum {
    vec4 accum[];
};
layout(set = VXR_SET_TARGET, binding = VXR_BIND_TILES, std430) readonly buffer Tiles {
    uint tiles[];
};
layout(set = VXR_SET_TARGET, binding = VXR_BIND_AOV, std430) writeonly buffer Aov {
    float aov[];
};

/* ---- the current instance's model and its model-space ray ---- */

vec3 O, D; /* model-space origin and direction */
ivec3 m_origin;
uint m_depth, m_node_base, m_battr_base, m_attr_base;
float m_scale;
/* The frame's footprint (vxr_lod_stop): lod0 + lodt * t, world units. */
float g_lod0, g_lodt;
float tmax; /* the best hit so far: cells beyond it are pruned, ties kept */
/* The tile's beam distance (BEAM; else 0): no hit of this ray lies before
 * it, so a cell the ray leaves before it holds no hit and is not entered.
 * Exact: a hit cube inside a cell is entered before the cell is left. */
float t_beam;
/* Light rays: a voxel that holds no hit (the primary hit's: rays leave its
 * face) of instance l_skip_i, m_skip when the current instance is it. */
uint l_skip_i = VXR_PICK_MISS;
ivec3 l_skip_lo;
bool m_skip = false;
bool l_glass = false; /* a path's ray through glass: glass voxels hold no hit */

/* A hit inside one octree, model space (pick.c's cell_hit). h_level
 * above the grid's: a cube the level of detail stopped at, h_attr its node
 * instead of an attribute: its colour is looked up for the nearest hit
 * alone. */
ivec3 h_lo;
uint h_attr, h_level;
float h_t;
int h_axis;

uint child_mask(uint level, uint node, uint octant) {
    uvec2 n = node_at(m_node_base + node);
    if (level > VXR_BRICK_LEVEL) return n.x;
    if (level == VXR_BRICK_LEVEL) return vxr_brick_children(n.x, n.y);
    return vxr_brick_octant(n.x, n.y, octant);
}

/* The child o of an interior node (level > 2); below, the brick stays. */
uint child_node(uint level, uint node, uint mask, uint o) {
    if (level > VXR_BRICK_LEVEL)
        return node_at(m_node_base + node).y + uint(bitCount(mask & ((1u << o) - 1u)));
    return node;
}

/* The set bits of the 64-bit mask m (low word first) below bit: a
 * voxel's rank in its brick, a child's among a wide node's. */
uint rank64(uvec2 m, uint bit) {
    return bit < 32u ? uint(bitCount(m.x & ((1u << bit) - 1u)))
                     : uint(bitCount(m.x)) + uint(bitCount(m.y & ((1u << (bit - 32u)) - 1u)));
}

/* The attribute at index i of the model's attributes. */
uint attr_at(uint i) {
    if (ATTR_SIZE == 1u) {
        uint byte = m_attr_base + i;
        return (attr_word(byte >> 2u) >> (8u * (byte & 3u))) & 255u;
    }
    return attr_word((m_attr_base >> 2u) + i);
}

uint read_attr(uint brick, uint bit) {
    return attr_at(battr_at(m_battr_base + brick) + rank64(node_at(m_node_base + brick), bit));
}

/* Word k of the material of palette entry attr (vxr_material; 0 for
 * scenes without a palette). */
uint material_word(uint attr, uint k) {
    return ATTR_SIZE == 1u ? FETCH(palette, VXR_MATERIALS_AT + 4u * attr + k).x : 0u;
}

/* The material of palette entry attr: kind, roughness, ior, emission. */
uvec4 material_of(uint attr) {
    return uvec4(material_word(attr, 0u), material_word(attr, 1u), material_word(attr, 2u),
                 material_word(attr, 3u));
}

/* The emission strength of attribute attr's material (one fetch). */
float emit_of(uint attr) {
    return uintBitsToFloat(material_word(attr, 3u));
}

/* The colour (RGBA8) of attribute attr. */
uint color_of(uint attr) {
    return ATTR_SIZE == 1u ? FETCH(palette, attr).x : attr;
}

/* The attribute of the first voxel (Morton order) under a node. */
uint first_attr(uint level, uint node, uint octant) {
    uint voxel_octant = 0u;
    while (level > 0u) {
        uint mask = child_mask(level, node, octant);
        uint o = uint(findLSB(mask));
        if (level == 1u) {
            voxel_octant = o;
            break;
        }
        node = child_node(level, node, mask, o);
        octant = o;
        level--;
    }
    return read_attr(node, octant * 8u + voxel_octant);
}

/* Grids at least as large as the root (pick.c's trace_large_grid). */
bool trace_large_grid() {
    int n = 1 << GRID_LEVEL, half_ = 1 << (m_depth - 1u);
    bool centred = (m_origin.x & (2 * half_ - 1)) != 0;
    uint mask = centred ? child_mask(m_depth, 0u, 0u) : 1u;
    bool found = false;
    for (uint o = 0u; o < 8u; o++) {
        if ((mask & (1u << o)) == 0u) continue;
        ivec3 lo;
        for (int k = 0; k < 3; k++) {
            int at = m_origin[k] + ((centred && ((o >> (2 - k)) & 1u) != 0u) ? half_ : 0);
            lo[k] = at & ~(n - 1);
        }
        vxr_slabs s = vxr_cube_slabs(O, D, lo, n);
        precise float t0 = s.tenter > 0.0 ? s.tenter : 0.0;
        if (!s.inside || !(t0 < s.texit) || t0 > tmax) continue;
        if (found && !(t0 < h_t)) continue;
        uint attr = centred ? first_attr(m_depth - 1u, child_node(m_depth, 0u, mask, o), o)
                            : first_attr(m_depth, 0u, 0u);
        h_lo = lo;
        h_t = t0;
        h_axis = s.tenter < 0.0 ? -1 : s.axis;
        h_attr = attr;
        h_level = GRID_LEVEL;
        found = true;
    }
    return found;
}

/* One stack frame per level, for the ancestors of the current cell (whose
 * frame stays in registers): the first child's index (a level-3 node or
 * above; below, the brick's index) and
 * mask | (child | live << 3) << 8 | octant << 14, child and live as
 * vxr_enter_child gives them. Slab parameters are recomputed from the
 * frame's cube instead of being stored: lavapipe indexes per-lane arrays
 * one lane at a time, which costs more than a division. */
uint f_node[VXR_LEVELS], f_state[VXR_LEVELS];

/* The frame of the cell (level, lo, node, octant) entered at t0: what
 * f_node and f_state hold for it. */
void new_frame(int level, ivec3 lo, uint node, uint octant, float t0, out uint fnode,
               out uint fstate) {
    uvec2 n = node_at(m_node_base + node);
    uint mask;
    if (level > int(VXR_BRICK_LEVEL)) {
        mask = n.x;
        node = n.y;
    } else if (level == int(VXR_BRICK_LEVEL)) {
        mask = vxr_brick_children(n.x, n.y);
    } else {
        mask = vxr_brick_octant(n.x, n.y, octant);
    }
    int h = 1 << (level - 1);
    precise vec3 tm;
    vxr_mid_planes(O, D, lo, h, tm);
    fnode = node;
    fstate = mask | vxr_enter_child(O, D, lo, h, t0, tm) << 8u | octant << 14u;
}

ivec3 octant_offset(uint child, int h) {
    return ivec3((child & 4u) != 0u ? h : 0, (child & 2u) != 0u ? h : 0,
                 (child & 1u) != 0u ? h : 0);
}

/* The next child of a cube with mid planes tm and exit texit that the
 * mask holds, after the child of state cs (child | live << 3): its state,
 * or ~0u when the ray leaves the cube (or passes tmax) first. A ray meets
 * at most four children of a cube, so three crossings decide; empty
 * children cost no step of the walk. */
uint next_child(vec3 tm, uint cs, float texit, uint mask) {
    for (int r = 0; r < 3; r++) {
        precise float tnext = vxr_next_crossing(tm, cs, texit);
        if (!(tnext < texit) || tnext > tmax) return ~0u;
        cs = vxr_cross(tm, cs, tnext);
        if ((mask & (1u << (cs & 7u))) != 0u) return cs;
    }
    return ~0u;
}

/* ---- the wide walk (vxr_layout.h, "The wide form") ---- */

/* Frames and batches of voxels (not a grid), at a level of detail or not,
 * walk the wide form while every model is compact (WIDE): a DDA over each
 * node's 4^3 cells, descending into an occupied cell the ray enters, as
 * trace_octree descends into an occupied child. It meets the same cells in the same order: every plane
 * is (plane - origin) / dir of an integer plane, a node's cell at entry
 * counts the planes at or before the entry (vxr_enter_child at both of
 * the octree's levels), and a step crosses every plane at the next
 * parameter at once (vxr_cross). Only the hit cell's own slabs make the
 * record, as in trace_octree, so both walks give the same hit to the bit;
 * the gpu tests hold it against core/pick.c. It descends half as often,
 * and on lavapipe each descent is a fetch and the parent's write (w2..w11). */
uint m_wide_base;
/* The node of each wide level above the current one, by level / 2: 2 to
 * VXR_LEVELS / 2 (a node of level 2 is a brick, entered only as a hit).
 * Registers and selects, not an array: lavapipe reads and writes a
 * per-lane array a lane at a time, each lane behind a branch on its mask,
 * and a descent writes one entry. */
uint w2, w3, w4, w5, w6, w7, w8, w9, w10, w11;

uint w_node_at(int j) {
    return j <= 5   ? (j <= 3 ? (j == 2 ? w2 : w3) : (j == 4 ? w4 : w5))
           : j <= 8 ? (j == 6 ? w6 : j == 7 ? w7 : w8)
                    : (j == 9 ? w9 : j == 10 ? w10 : w11);
}

void w_node_set(int j, uint v) {
    w2 = j == 2 ? v : w2;
    w3 = j == 3 ? v : w3;
    w4 = j == 4 ? v : w4;
    w5 = j == 5 ? v : w5;
    w6 = j == 6 ? v : w6;
    w7 = j == 7 ? v : w7;
    w8 = j == 8 ? v : w8;
    w9 = j == 9 ? v : w9;
    w10 = j == 10 ? v : w10;
    w11 = j == 11 ? v : w11;
}

/* The mask bit of cell c of a wide node (8a + b, vxr_layout.h). */
uint wide_bit(ivec3 c) {
    uint a = uint((c.x >> 1) << 2 | (c.y >> 1) << 1 | (c.z >> 1));
    uint b = uint((c.x & 1) << 2 | (c.y & 1) << 1 | (c.z & 1));
    return 8u * a + b;
}

bool wide_has(uvec4 nd, uint bit) {
    return ((bit < 32u ? nd.x : nd.y) & (1u << (bit & 31u))) != 0u;
}

/* The cell of a wide node at lo (cells of edge q) that the ray is in once
 * it has entered at t0; `above`: the root above a root of odd depth, in
 * whose octant 0 the ray stays even where its position is NaN. */
ivec3 wide_cell(ivec3 lo, int q, float t0, bool above) {
    ivec3 c;
    for (int k = 0; k < 3; k++) {
        int n = 0;
        for (int j = 1; j < 4; j++) {
            precise float p = float(lo[k] + j * q);
            if (D[k] == 0.0) {
                if (O[k] >= p) n++;
            } else {
                precise float t = (p - O[k]) / D[k];
                if (t <= t0) n++;
            }
        }
        /* downwards, or NaN: the upper side first, as vxr_enter_child has it */
        c[k] = D[k] < 0.0 || isnan(D[k]) ? 3 - n : n;
        if (above && c[k] > 1) c[k] = 1;
    }
    return c;
}

/* Whether the ray, in cell c of a wide node of `level`, has reached a new
 * octant (oct: the one looked at last) that the level of detail may stop
 * at: occupied, of VXR_LOD_MIN_LEVEL to VXR_LOD_MAX_LEVEL, below the root. */
bool wide_lod_stop_here(uvec4 nd, ivec3 c, int level, uint oct) {
    if (!LOD_ODD || level - 1 < int(VXR_LOD_MIN_LEVEL) || level - 1 > int(VXR_LOD_MAX_LEVEL) ||
        level - 1 >= int(m_depth))
        return false;
    uint o = wide_bit(c) >> 3u;
    return o != oct && ((o < 4u ? nd.x : nd.y) >> (8u * (o & 3u)) & 255u) != 0u;
}

bool trace_wide(bool any_hit) {
    const int top = int(m_depth + (m_depth & 1u));
    int level = top;
    ivec3 lo = m_origin;
    ivec3 cell;
    {
        vxr_slabs s = vxr_cube_slabs(O, D, lo, 1 << m_depth);
        precise float t0 = s.tenter > 0.0 ? s.tenter : 0.0;
        if (!s.inside || !(t0 < s.texit) || t0 > tmax || (BEAM && s.texit < t_beam))
            return false;
        cell = wide_cell(lo, 1 << (level - 2), t0, top > int(m_depth));
    }
    uint node = 0u;
    uvec4 nd = wide_at(m_wide_base);
    /* the level of detail stops at cells and at octants (the cubes of the
     * level between a node's and its cells') of VXR_LOD_MIN_LEVEL to
     * VXR_LOD_MAX_LEVEL below the root: an octant is looked at when the
     * ray reaches its first cell (its cells are a run of the DDA's, a
     * cube being convex), before that cell, as trace_octree looks at it
     * before its children. oct: the octant looked at last in this node. */
    uint oct = 8u;
    bool advance = !wide_lod_stop_here(nd, cell, level, oct) && !wide_has(nd, wide_bit(cell));
    precise float hit_t = 0.0;
    int hit_axis = -1, hit_level = 0;
    ivec3 hit_lo = ivec3(0);
    uint hit_attr = 0u;
    /* One step, as trace_octree's: if the last cell was empty or missed,
     * move on to the next occupied cell on the ray (a ray crosses at most
     * nine cells of a node) or leave it, and the parent moves on; then
     * enter the cell if the ray meets it before tmax. */
    for (;;) {
        /* leaving a node, the parent moves on in the same step (as often
         * as it takes): under a lane mask, a step of its own would also run
         * the cell's half, for no lane; leaving the root, it has met
         * nothing */
        while (advance) {
            int q = 1 << (level - 2);
            /* the root above a root of odd depth ends with the root */
            precise float texit = vxr_cube_exit(O, D, lo, level > int(m_depth) ? 2 * q : 4 * q);
            bool leave = false;
            for (int r = 0; r < 9; r++) {
                precise vec3 tn;
                precise float tnext = texit;
                for (int k = 0; k < 3; k++) {
                    precise float t =
                        D[k] != 0.0 ? (float(lo[k] + (cell[k] + (D[k] > 0.0 ? 1 : 0)) * q) - O[k]) /
                                          D[k]
                                    : VXR_INF;
                    tn[k] = t;
                    if (t < tnext) tnext = t;
                }
                if (!(tnext < texit) || tnext > tmax) {
                    leave = true;
                    break;
                }
                for (int k = 0; k < 3; k++)
                    if (tn[k] == tnext) cell[k] += D[k] > 0.0 ? 1 : -1;
                if (wide_has(nd, wide_bit(cell)) || wide_lod_stop_here(nd, cell, level, oct)) break;
            }
            if (!leave) break;
            if (level == top) return false;
            level += 2;
            node = w_node_at(level >> 1);
            nd = wide_at(m_wide_base + node);
            ivec3 rel = lo - m_origin;
            lo = m_origin + (rel & ~((1 << level) - 1));
            cell = (rel >> (level - 2)) & 3;
            oct = wide_bit(cell) >> 3u; /* looked at on the way down */
        }
        int q = 1 << (level - 2);
        uint bit = wide_bit(cell), below = rank64(nd.xy, bit);
        ivec3 clo = lo + cell * q;
        vxr_slabs s = vxr_cube_slabs(O, D, clo, q);
        precise float t0 = s.tenter > 0.0 ? s.tenter : 0.0;
        if (wide_lod_stop_here(nd, cell, level, oct)) {
            /* the octant's own slabs decide, as for any cube (its entry is
             * this cell's, but the axis of a tie may not be) */
            oct = bit >> 3u;
            ivec3 olo = lo + (cell >> 1) * (2 * q);
            vxr_slabs os = vxr_cube_slabs(O, D, olo, 2 * q);
            precise float ot0 = os.tenter > 0.0 ? os.tenter : 0.0;
            if (vxr_lod_stop(float(2 * q), m_scale, g_lod0, g_lodt, ot0) && os.inside &&
                ot0 < os.texit && !(ot0 > tmax) && !(BEAM && os.texit < t_beam)) {
                hit_t = ot0;
                hit_axis = os.tenter < 0.0 ? -1 : os.axis;
                hit_lo = olo;
                hit_level = level - 1;
                hit_attr = nd.w; /* the octant's parent; its child oct after the loop */
                break;
            }
        }
        bool enter = wide_has(nd, bit) && s.inside && t0 < s.texit && !(t0 > tmax) &&
                     !(BEAM && s.texit < t_beam);
        if (LIGHT != VXR_LIGHT_FLAT && m_skip && level == 2 && clo == l_skip_lo) enter = false;
        if (LIGHT == VXR_LIGHT_PATH && l_glass && enter && level == 2 &&
            material_of(attr_at(nd.w + below)).x == VXR_MATERIAL_GLASS)
            enter = false;
        bool coarse = LOD && level - 2 >= int(VXR_LOD_MIN_LEVEL) &&
                      level - 2 <= int(VXR_LOD_MAX_LEVEL) &&
                      vxr_lod_stop(float(q), m_scale, g_lod0, g_lodt, t0);
        if (enter && (level == 2 || coarse)) {
            hit_t = t0;
            hit_axis = s.tenter < 0.0 ? -1 : s.axis;
            hit_lo = clo;
            hit_level = level == 2 ? 0 : level - 2;
            hit_attr = level == 2 ? nd.w + below : nd.z + below; /* a voxel; a wide node */
            break;
        }
        advance = !enter;
        if (enter) {
            w_node_set(level >> 1, node);
            node = nd.z + below;
            nd = wide_at(m_wide_base + node);
            level -= 2;
            lo = clo;
            cell = wide_cell(lo, q >> 2, t0, false);
            oct = 8u;
            advance = !wide_lod_stop_here(nd, cell, level, oct) && !wide_has(nd, wide_bit(cell));
        }
    }
    if (any_hit) return true;
    h_lo = hit_lo;
    h_t = hit_t;
    h_axis = hit_axis;
    h_level = uint(hit_level);
    if (hit_level == 0) {
        h_attr = attr_at(hit_attr);
    } else if ((hit_level & 1) == 0) { /* a cell: its node (a brick's, or a wide node's) */
        uvec4 c = wide_at(m_wide_base + hit_attr);
        h_attr = hit_level == int(VXR_BRICK_LEVEL) ? c.z : c.w;
    } else { /* an octant: child oct of the octree node hit_attr */
        uvec2 on = node_at(m_node_base + hit_attr);
        h_attr = on.y + uint(bitCount(on.x & ((1u << oct) - 1u)));
    }
    return true;
}

/* any_hit: only whether there is a hit (h_t and h_attr not set). */
bool trace_octree(bool any_hit) {
    if (WIDE && !GRID) return trace_wide(any_hit);
    if (GRID_LEVEL > 0u && GRID_LEVEL >= m_depth) return trace_large_grid();
    int level = int(m_depth);
    ivec3 lo = m_origin;
    uint node = 0u, st = 0u;
    {
        vxr_slabs s = vxr_cube_slabs(O, D, lo, 1 << level);
        precise float t0 = s.tenter > 0.0 ? s.tenter : 0.0;
        if (!s.inside || !(t0 < s.texit) || t0 > tmax || (BEAM && s.texit < t_beam))
            return false;
        new_frame(level, lo, 0u, 0u, t0, node, st);
    }
    bool advance = (st & (1u << ((st >> 8u) & 7u))) == 0u, found = false;
    precise float hit_t = 0.0;
    int hit_axis = -1, hit_level = 0;
    ivec3 hit_lo = ivec3(0);
    uint hit_node = 0u, hit_octant = 0u, hit_voxel = 0u;
    /* One step: if the last child was absent or missed, move to the next
     * child on the ray or leave the frame (then the parent moves on in the
     * next step); then enter the current child if it is there and the ray
     * meets it before tmax. pick.c's visit, iterative. lavapipe runs every
     * statement of the loop for all lanes, so one step does both halves. */
    for (;;) {
        int half_ = 1 << (level - 1);
        if (advance) {
            precise float texit = vxr_cube_exit(O, D, lo, 2 * half_);
            precise vec3 tm;
            vxr_mid_planes(O, D, lo, half_, tm);
            uint cs = next_child(tm, (st >> 8u) & 63u, texit, st & 255u);
            if (cs == ~0u) {
                if (level == int(m_depth)) break;
                level++;
                st = f_state[level];
                node = f_node[level];
                lo -= octant_offset((st >> 8u) & 7u, 1 << (level - 1));
                continue;
            }
            st = (st & ~(63u << 8u)) | cs << 8u;
        }
        uint child = (st >> 8u) & 7u;
        ivec3 clo = lo + octant_offset(child, half_);
        vxr_slabs s = vxr_cube_slabs(O, D, clo, half_);
        precise float t0 = s.tenter > 0.0 ? s.tenter : 0.0;
        bool enter = (st & (1u << child)) != 0u && s.inside && t0 < s.texit && !(t0 > tmax) &&
                     !(BEAM && s.texit < t_beam);
        if (LIGHT != VXR_LIGHT_FLAT && m_skip && level == 1 && clo == l_skip_lo) enter = false;
        uint cnode =
            level > int(VXR_BRICK_LEVEL) ? node + uint(bitCount(st & ((1u << child) - 1u))) : node;
        uint coct = level == 1 ? (st >> 14u) & 7u : child;
        if (LIGHT == VXR_LIGHT_PATH && l_glass && enter && level == 1 &&
            material_of(read_attr(cnode, coct * 8u + child)).x == VXR_MATERIAL_GLASS)
            enter = false;
        /* the level of detail: a cube of 2^VXR_LOD_MIN_LEVEL to
         * 2^VXR_LOD_MAX_LEVEL voxels under the footprint holds the hit */
        bool coarse = LOD && level > int(VXR_LOD_MIN_LEVEL) &&
                      level <= int(VXR_LOD_MAX_LEVEL) + 1 &&
                      uint(level - 1) > GRID_LEVEL &&
                      vxr_lod_stop(float(half_), m_scale, g_lod0, g_lodt, t0);
        if (enter && (uint(level - 1) == GRID_LEVEL || coarse)) {
            found = true;
            hit_level = level - 1;
            hit_t = t0;
            hit_axis = s.tenter < 0.0 ? -1 : s.axis;
            hit_lo = clo;
            hit_node = cnode;
            hit_octant = coct;
            hit_voxel = child;
            break;
        }
        advance = !enter;
        if (enter) {
            f_node[level] = node;
            f_state[level] = st;
            level--;
            lo = clo;
            new_frame(level, lo, cnode, coct, t0, node, st);
            /* an empty first child is passed over in the next step's advance */
            advance = (st & (1u << ((st >> 8u) & 7u))) == 0u;
        }
    }
    if (!found || any_hit) return found;
    h_lo = hit_lo;
    h_t = hit_t;
    h_axis = hit_axis;
    h_level = uint(hit_level);
    if (LOD && h_level > GRID_LEVEL)
        h_attr = hit_node;
    else
        h_attr = GRID_LEVEL == 0u ? read_attr(hit_node, hit_octant * 8u + hit_voxel)
                                  : first_attr(GRID_LEVEL, hit_node, hit_octant);
    return true;
}

/* ---- the world ray, the instance hierarchy, the nearest hit ---- */

vec3 ro, rd; /* world ray */
float best_t;
uint best_i;
ivec3 best_lo;
uint best_attr, best_level;
int best_axis;
vec3 best_O, best_D;
bool incomplete; /* the walk could not finish (VXR_PICK_INCOMPLETE) */

/* The model of instance i. */
uint model_of(uint i) {
    return FETCH(instances, VXR_INSTANCE_TEXELS * i + VXR_INSTANCE_MIN).w;
}

void trace_instance(uint i, bool any_hit) {
    vec4 w2l[3] = vec4[3](instance_texel(i, VXR_INSTANCE_TO_LOCAL),
                          instance_texel(i, VXR_INSTANCE_TO_LOCAL + 1u),
                          instance_texel(i, VXR_INSTANCE_TO_LOCAL + 2u));
    uint model = model_of(i);
    uvec4 origin = FETCH(models, VXR_MODEL_TEXELS * model + VXR_MODEL_ORIGIN),
          bases = FETCH(models, VXR_MODEL_TEXELS * model + VXR_MODEL_BASES);
    uint nodes = FETCH(models, VXR_MODEL_TEXELS * model + VXR_MODEL_COUNTS).x;
    if (LOD) m_scale = instance_texel(i, VXR_INSTANCE_MISC).x;
    vxr_affine_point(w2l, ro, O);
    vxr_affine_dir(w2l, rd, D);
    m_origin = ivec3(origin.xyz);
    m_depth = origin.w;
    m_node_base = bases.x;
    m_battr_base = bases.z;
    m_attr_base = bases.w;
    if (WIDE) m_wide_base = FETCH(models, VXR_MODEL_TEXELS * model + VXR_MODEL_LOD).y;
    m_skip = LIGHT != VXR_LIGHT_FLAT && i == l_skip_i;
    tmax = best_t;
    if (nodes == 0u || !trace_octree(any_hit)) return;
    if (any_hit) {
        best_i = i;
        return;
    }
    if (h_t > best_t || (h_t == best_t && i > best_i)) return;
    best_t = h_t;
    best_i = i;
    best_lo = h_lo;
    best_attr = h_attr;
    best_level = h_level;
    best_axis = h_axis;
    best_O = O;
    best_D = D;
}

/* Hits beyond t_limit are not looked for. */
void trace_scene(float pad, float t_limit) {
    best_t = t_limit;
    best_i = VXR_PICK_MISS;
    if (pc.bvh_nodes == 0u) return;
    uint stack[VXR_BVH_STACK];
    uint sp = 0u;
    if (vxr_box_enter(ro, rd, bvh_corner(0u, VXR_BVH_LO), bvh_corner(0u, VXR_BVH_HI), pad,
                      VXR_INF) < VXR_INF)
        stack[sp++] = 0u;
    /* While-while (Aila and Laine 2009): an inner loop pops hierarchy
     * nodes until this ray holds a leaf, then one of the leaf's items is
     * traced. lavapipe runs every loop body at least once under a lane
     * mask, so a step that only pops nodes no longer carries an octree
     * walk; each ray still traces its items in the same order. */
    uint first = 0u, left = 0u; /* the leaf's items yet to trace */
    while (sp > 0u || left > 0u) {
        while (left == 0u && sp > 0u) {
            uint nd = stack[--sp];
            uint f = FETCH(bvh, VXR_BVH_TEXELS * nd + VXR_BVH_LO).w,
                 count = FETCH(bvh, VXR_BVH_TEXELS * nd + VXR_BVH_HI).w;
            if (count != 0u) {
                first = f;
                left = count;
                break;
            }
            precise float ta = vxr_box_enter(ro, rd, bvh_corner(f, VXR_BVH_LO),
                                             bvh_corner(f, VXR_BVH_HI), pad, best_t);
            precise float tb = vxr_box_enter(ro, rd, bvh_corner(f + 1u, VXR_BVH_LO),
                                             bvh_corner(f + 1u, VXR_BVH_HI), pad, best_t);
            uint ia = f, ib = f + 1u;
            if (ta < tb) { /* push the farther first so the nearer pops first */
                precise float x = ta;
                ta = tb;
                tb = x;
                ia = ib;
                ib = f;
            }
            /* the builder proves the bound (VXR_BVH_STACK); never drop a node */
            if (sp + 2u > VXR_BVH_STACK) {
                incomplete = true;
                return;
            }
            if (ta < VXR_INF) stack[sp++] = ia;
            if (tb < VXR_INF) stack[sp++] = ib;
        }
        if (left > 0u) {
            trace_instance(FETCH(items, first).x, false);
            first++;
            left--;
        }
    }
}

/* An any-hit walk's place (the light rays): the next hierarchy node in
 * depth-first order by the nodes' skip links (vxr_layout.h), and the items
 * of the leaf it holds yet to trace. Which instance holds the hit does not
 * matter, so the walk ends at the first hit: no stack, a per-lane array
 * that lavapipe reads and writes a lane at a time. */
uint a_nd, a_first, a_left;

/* Starts an any-hit walk of the world ray for hits within t_limit. */
void any_start(float t_limit) {
    best_t = t_limit;
    best_i = VXR_PICK_MISS;
    a_nd = pc.bvh_nodes == 0u ? VXR_BVH_END : 0u;
    a_left = 0u;
}

/* One step of an any-hit walk: the hierarchy's nodes until a leaf's items
 * are due (while-while, as trace_scene), then one of them. */
void any_step(float pad) {
    while (a_left == 0u && a_nd != VXR_BVH_END) {
        uvec4 lo = FETCH(bvh, VXR_BVH_TEXELS * a_nd + VXR_BVH_LO),
              hi = FETCH(bvh, VXR_BVH_TEXELS * a_nd + VXR_BVH_HI);
        uint skip = FETCH(bvh, VXR_BVH_TEXELS * a_nd + VXR_BVH_LINK).x;
        bool enter = vxr_box_enter(ro, rd, uintBitsToFloat(lo.xyz), uintBitsToFloat(hi.xyz), pad,
                                   best_t) < VXR_INF;
        a_nd = enter && hi.w == 0u ? lo.w : skip;
        if (enter && hi.w != 0u) {
            a_first = lo.w;
            a_left = hi.w;
        }
    }
    if (a_left > 0u) {
        trace_instance(FETCH(items, a_first).x, true);
        a_first++;
        a_left--;
    }
}

/* Whether an any-hit walk has ended: a hit (best_i: its instance) or none
 * left to look at (best_i VXR_PICK_MISS). */
bool any_done() {
    return best_i != VXR_PICK_MISS || (a_nd == VXR_BVH_END && a_left == 0u);
}

/* Whether any hit lies within t_limit (best_i: the instance of one, or
 * VXR_PICK_MISS). */
void trace_any(float pad, float t_limit) {
    any_start(t_limit);
    while (!any_done()) any_step(pad);
}

/* ---- pick record and shading ---- */

vec3 unpack_rgb(uint c) {
    return vec3(float(c & 255u), float((c >> 8u) & 255u), float((c >> 16u) & 255u)) / 255.0;
}

/* ---- light frames (vxr_light.h; core/light.c is the CPU reference) ---- */

/* A lit or path pixel after the primary trace: its light rays, the sums
 * kept over frames, the per-pixel outputs; the colour to store (sRGB
 * codes / 255). */

/* The instance rows of instance i from texel `at` on. */
void rows_of(uint i, uint at, out vec4 m[3]) {
    m = vec4[3](instance_texel(i, at), instance_texel(i, at + 1u), instance_texel(i, at + 2u));
}

/* Path samples [base, end) of a pixel whose primary hit (the globals
 * best_*) is at world with normal n: each a path of up to
 * VXR_PATH_BOUNCES bounces (vxr_scatter) with a sun ray at each diffuse
 * surface, its radiance added to s0.xyz; the first sun ray's visibility
 * to s0.w and whether the first bounce met nothing within the occlusion
 * radius to s1.x. core/light.c repeats it. One trace call for all rays. */
void path_samples(uvec2 px, uint base, uint end, vec3 world, vec3 n, vec3 albedo, vec3 emit,
                  inout vec4 s0, inout vec4 s1) {
    uint i0 = best_i, a0 = best_attr;
    ivec3 lo0 = best_lo;
    vec3 din0 = rd;
    vec3 sp = world, sn = n, salb = albedo, sdin = din0;
    uvec4 smat = material_of(a0);
    uint si = i0;
    ivec3 slo = lo0;
    precise vec3 thr = vec3(1.0), rad = emit;
    uint s = base, depth = 0u, ray = 0u;
    bool nee = true;
    while (s < end) {
        ro = sp;
        l_skip_i = si;
        l_skip_lo = slo;
        vxr_xy u = vxr_sample_uv(px.x, px.y, s, 2u + ray);
        uint key = vxr_sample_key(px.x, px.y, s, 2u + ray);
        ray++;
        if (nee) {
            nee = false;
            float cs = vxr_dot3(sn, fr.sun.xyz);
            bool go = cs > 0.0 && (smat.x == VXR_MATERIAL_DIFFUSE || smat.x == VXR_MATERIAL_EMIT);
            vxr_sun_dir(fr.sun.xyz, fr.sun_t.xyz, fr.sun_b.xyz, fr.sun.w, u, rd);
            best_i = 0u;
            if (go) trace_any(pc.grid_pad, VXR_INF);
            if (!go || best_i != VXR_PICK_MISS) continue;
            for (int c = 0; c < 3; c++) {
                precise float v = thr[c] * salb[c] * fr.sun_color[c] * cs;
                rad[c] += v;
            }
            if (depth == 0u) s0.w += 1.0;
            continue;
        }
        vxr_bounce b = vxr_scatter(sp, sn, sdin, salb, smat.x, uintBitsToFloat(smat.y),
                                   uintBitsToFloat(smat.z), u, key);
        for (int c = 0; c < 3; c++) thr[c] = thr[c] * b.w[c];
        ro = b.o;
        rd = b.d;
        l_glass = b.through;
        trace_scene(pc.grid_pad, VXR_INF);
        l_glass = false;
        if (depth == 0u && (best_i == VXR_PICK_MISS || best_t > fr.sun_t.w)) s1.x += 1.0;
        bool done = true;
        if (best_i == VXR_PICK_MISS) {
            for (int c = 0; c < 3; c++) {
                precise float v = thr[c] * vxr_sky(fr.zenith[c], fr.horizon[c], rd.z);
                rad[c] += v;
            }
        } else {
            int f = vxr_entry_face(best_axis, best_axis < 0 ? 0.0 : best_D[best_axis]);
            uint col = ATTR_SIZE == 1u ? FETCH(palette, best_attr).x : best_attr;
            smat = material_of(best_attr);
            float e = uintBitsToFloat(smat.w);
            for (int c = 0; c < 3; c++) {
                salb[c] = srgb_linear((col >> (8u * uint(c))) & 255u);
                precise float v = thr[c] * (salb[c] * e);
                rad[c] += v;
            }
            if (f >= 0 && depth + 1u < VXR_PATH_BOUNCES) {
                vec4 l2w[3];
                rows_of(best_i, VXR_INSTANCE_TO_WORLD, l2w);
                vxr_face_normal(l2w, instance_texel(best_i, VXR_INSTANCE_MISC).x, f, sn);
                vxr_hit_point(best_O, best_D, best_t, best_lo, 1, f >> 1, l2w, sp);
                sdin = rd;
                si = best_i;
                slo = best_lo;
                depth++;
                nee = true;
                done = false;
            }
        }
        if (!done) continue;
        for (int c = 0; c < 3; c++) s0[c] += rad[c];
        s++;
        sp = world;
        sn = n;
        salb = albedo;
        sdin = din0;
        smat = material_of(a0);
        si = i0;
        slo = lo0;
        thr = vec3(1.0);
        rad = emit;
        depth = 0u;
        ray = 0u;
        nee = true;
    }
}

/* The light rays of lit samples [base, end) of a pixel whose primary hit
 * is at world with normal n: ray k (from 2 base) is sample k / 2's ray
 * k % 2, towards the sun (its visibility added to s0.w) or an occlusion
 * ray (the sky it sees added to s0.xyz, and 1 to s1.x). One walk for all
 * of them: a lane whose ray has ended takes its next one at the next step,
 * so lavapipe, which runs a loop's body once for a vector none of whose
 * lanes is in it, runs the walk's steps for a pixel's rays together and
 * not ray by ray. A sun ray not traced is blocked; an occlusion ray
 * (radius 0: occlusion off) is free. core/light.c repeats it. */
void lit_rays(uvec2 px, uint base, uint end, vec3 world, vec3 n, float cos_sun, inout vec4 s0,
              inout vec4 s1) {
    bool fresh = true;
    for (uint k = 2u * base; k < 2u * end;) {
        uint role = k & 1u;
        if (fresh) {
            ro = world;
            vxr_lit_dir(role, n, fr.sun.xyz, fr.sun_t.xyz, fr.sun_b.xyz, fr.sun.w,
                        vxr_sample_uv(px.x, px.y, k >> 1u, role), rd);
            any_start(role == 0u ? VXR_INF : fr.sun_t.w);
            if (role == 0u ? !(cos_sun > 0.0) : !(fr.sun_t.w > 0.0)) {
                a_nd = VXR_BVH_END;
                best_i = role == 0u ? 0u : VXR_PICK_MISS;
            }
            fresh = false;
        }
        any_step(pc.grid_pad);
        if (!any_done()) continue;
        if (best_i == VXR_PICK_MISS) {
            if (role == 0u) {
                s0.w += 1.0;
            } else {
                for (int c = 0; c < 3; c++) s0[c] += vxr_sky(fr.zenith[c], fr.horizon[c], rd.z);
                s1.x += 1.0;
            }
        }
        k++;
        fresh = true;
    }
}

vec3 light_pixel(uint index, uvec2 px, bool hit, int face, uint color) {
    precise vec4 s0 = vec4(0.0), s1 = vec4(0.0);
    uint base = pc.ray_count, end = min(base + fr.samples, fr.sample_end);
    if (base > 0u) { /* add to the sums of earlier samples */
        s0 = accum[2u * index];
        if (AOVS) s1.x = accum[2u * index + 1u].x;
    }
    vec3 albedo = vec3(0.0), n = vec3(0.0), world = rd;
    precise vec3 lin;
    float cos_sun = 0.0;
    uint inst = best_i;
    float t_hit = best_t;
    vec3 rd0 = rd;
    vec3 emit = vec3(0.0);
    if (hit) {
        for (int k = 0; k < 3; k++) albedo[k] = srgb_linear((color >> (8u * uint(k))) & 255u);
        float strength = emit_of(best_attr);
        for (int k = 0; k < 3; k++) {
            precise float e = albedo[k] * strength;
            emit[k] = e;
        }
        for (int k = 0; k < 3; k++) {
            precise float v = ro[k] + best_t * rd[k];
            world[k] = v;
        }
    }
    if (hit && face >= 0 && !incomplete) {
        vec4 l2w[3] = vec4[3](instance_texel(best_i, VXR_INSTANCE_TO_WORLD),
                              instance_texel(best_i, VXR_INSTANCE_TO_WORLD + 1u),
                              instance_texel(best_i, VXR_INSTANCE_TO_WORLD + 2u));
        vxr_face_normal(l2w, instance_texel(best_i, VXR_INSTANCE_MISC).x, face, n);
        vxr_hit_point(best_O, best_D, best_t, best_lo, 1, face >> 1, l2w, world);
        cos_sun = vxr_dot3(n, fr.sun.xyz);
        cos_sun = cos_sun > 0.0 ? cos_sun : 0.0;
        l_skip_i = best_i;
        l_skip_lo = best_lo;
        t_beam = 0.0;
        if (LIGHT == VXR_LIGHT_PATH) path_samples(px, base, end, world, n, albedo, emit, s0, s1);
        if (LIGHT == VXR_LIGHT_LIT) lit_rays(px, base, end, world, n, cos_sun, s0, s1);
    }
    float count = float(end);
    for (int c = 0; c < 3; c++)
        lin[c] = !hit ? vxr_sky(fr.zenith[c], fr.horizon[c], rd0.z)
                 : LIGHT == VXR_LIGHT_PATH
                     ? s0[c] / count
                     : vxr_lit_channel(albedo[c], fr.sun_color[c], cos_sun, s0.w, s0[c], count,
                                       emit[c]);
    accum[2u * index] = s0;
    if (AOVS) {
        accum[2u * index + 1u].x = s1.x; /* only the ao output reads it */
        uint plane = pc.width * pc.height;
        for (uint c = 0u; c < 3u; c++) {
            aov[plane * VXR_AOV_ALBEDO + 3u * index + c] = albedo[c];
            aov[plane * VXR_AOV_NORMAL + 3u * index + c] = n[c];
        }
        aov[plane * VXR_AOV_INSTANCE + index] = uintBitsToFloat(hit ? inst : VXR_PICK_MISS);
        aov[plane * VXR_AOV_SUN + index] = hit ? s0.w / count : -1.0;
        aov[plane * VXR_AOV_AO + index] = hit ? s1.x / count : -1.0;
        vec2 motion = vec2(0.0);
        if (fr.prev_eye.w >= 0.0) {
            /* where the hit point was: its instance's motion map, then the
             * previous camera */
            vec3 was = world;
            if (hit) {
                vec4 mm[3];
                for (uint r = 0u; r < 3u; r++)
                    mm[r] = uintBitsToFloat(FETCH(motion_maps, VXR_MOTION_TEXELS * inst + r));
                vxr_affine_point(mm, world, was);
            }
            vxr_xy q = vxr_prev_pixel(fr.prev_eye, fr.prev_m0, fr.prev_m1, fr.prev_m2, was, hit,
                                      pc.width, pc.height);
            if (q.x > -1e29) {
                precise float mx = q.x - (float(px.x) + 0.5), my = q.y - (float(px.y) + 0.5);
                motion = vec2(mx, my);
            }
        }
        aov[plane * VXR_AOV_MOTION + 2u * index] = motion.x;
        aov[plane * VXR_AOV_MOTION + 2u * index + 1u] = motion.y;
        aov[plane * VXR_AOV_T + index] = hit ? t_hit : VXR_INF;
        for (uint c = 0u; c < 3u; c++) aov[plane * VXR_AOV_EMIT + 3u * index + c] = emit[c];
    }
    if (incomplete) return unpack_rgb(VXR_SHADE_INCOMPLETE);
    return vec3(srgb_encode3(lin)) / 255.0;
}

void main() {
    uvec2 px = gl_GlobalInvocationID.xy;
    if ((pc.flags & VXR_FRAME_TILES) != 0u) { /* a listed workgroup (renderer/tiles.c) */
        uint tile = tiles[gl_WorkGroupID.y * VXR_TILE_ROW + gl_WorkGroupID.x];
        px = uvec2(tile & 0xffffu, tile >> 16u) * gl_WorkGroupSize.xy + gl_LocalInvocationID.xy;
    }
    uint index = px.y * pc.width + px.x;
    if (px.x >= pc.width || px.y >= pc.height) return;
    if (RAYS) {
        if (index >= pc.ray_count) return;
        uint r = VXR_RAY_FLOATS * index;
        ro = vec3(rays[r], rays[r + 1u], rays[r + 2u]);
        rd = vec3(rays[r + 3u], rays[r + 4u], rays[r + 5u]);
    } else {
        /* pinhole and perspective cameras alike (vxr/camera.h) */
        ro = pc.eye;
        vxr_camera_dir(pc.forward, pc.right, pc.up, pc.tan_half_fov, pc.aspect, px.x, px.y,
                       pc.width, pc.height, rd);
        if ((pc.flags & VXR_FRAME_PROJECTION) == VXR_FRAME_ORTHO) {
            vxr_ortho_origin(pc.eye, pc.right, pc.up, px.x, px.y, pc.width, pc.height, ro);
            rd = pc.forward;
        }
    }
    incomplete = false;
    t_beam = 0.0;
    bool ortho = (pc.flags & VXR_FRAME_PROJECTION) == VXR_FRAME_ORTHO;
    g_lod0 = ortho ? pc.lod : 0.0;
    g_lodt = ortho ? 0.0 : pc.lod;
    if (BEAM && !RAYS && (pc.flags & VXR_FRAME_BEAM) != 0u) {
        uint tiles_x = (pc.width + VXR_BEAM_TILE - 1u) / VXR_BEAM_TILE;
        t_beam = beam[(px.y / VXR_BEAM_TILE) * tiles_x + px.x / VXR_BEAM_TILE];
    }
    /* Rays stop at the host's depth: beyond the t where the ray reaches it
     * (with a margin; the depth test below decides exactly). A frame only:
     * pick records stay those of the voxels. */
    float t_limit = VXR_INF;
    if (HOST && !PICKS && (pc.flags & VXR_FRAME_DEPTH_IN) != 0u) {
        float h = depth[index];
        float zo = dot(pc.depth_z.xyz, ro) + pc.depth_z.w, zd = dot(pc.depth_z.xyz, rd);
        float wo = dot(pc.depth_w.xyz, ro) + pc.depth_w.w, wd = dot(pc.depth_w.xyz, rd);
        float t = (h * wo - zo) / (zd - h * wd);
        if (t > 0.0 && t < VXR_INF) t_limit = t * 1.001 + 1e-3;
    }
    if (MISS) {
        best_t = t_limit;
        best_i = VXR_PICK_MISS;
    } else {
        trace_scene(pc.grid_pad, t_limit);
    }
    /* A device that ends loops early (VXR_PICK_INCOMPLETE) has cut this
     * loop short too: it runs fewer than the probe's times (flags' top byte). */
    uint probe = 0u;
    for (uint i = 0u; i < pc.flags >> VXR_PROBE_SHIFT; i++) probe++;
    incomplete = incomplete || probe != VXR_LOOP_PROBE;

    bool hit = !MISS && best_i != VXR_PICK_MISS;
    int face = -1;
    uint color = 0u;
    /* a level of detail's cube: its colour, now that it is the nearest hit */
    if (LOD && hit && best_level > GRID_LEVEL)
        best_attr = color_at(FETCH(models, VXR_MODEL_TEXELS * model_of(best_i) + VXR_MODEL_LOD).x +
                             best_attr);
    if (hit) {
        color = LOD && best_level > GRID_LEVEL ? best_attr : color_of(best_attr);
        face = vxr_entry_face(best_axis, best_axis < 0 ? 0.0 : best_D[best_axis]);
    }
    if (PICKS) {
        vxr_gpu_pick p;
        p.a = uvec4(VXR_PICK_MISS, 0u, 0u, 0u);
        p.b = uvec4(0u);
        if (hit) {
            uint corner_edge = vxr_nearest_corner_edge(best_lo, best_level, best_O, best_D, best_t,
                                                       face);
            p.a = uvec4(best_i, uvec3(best_lo));
            p.b = uvec4(floatBitsToUint(best_t), vxr_pick_shape(best_level, face, corner_edge),
                        color, VXR_PICK_HIT);
        }
        if (incomplete) p.b.w |= VXR_PICK_INCOMPLETE;
        picks[index] = p;
    }
    if (RAYS) return;
    /* Depth: the hit's, or the far value; against the host's depth (drawn
     * first), the nearer one wins and a farther voxel leaves the pixel as is. */
    bool reverse = (pc.flags & VXR_FRAME_REVERSE_Z) != 0u;
    float far_depth = reverse ? 0.0 : 1.0;
    if (HOST && (pc.flags & (VXR_FRAME_DEPTH_IN | VXR_FRAME_DEPTH_OUT)) != 0u) {
        float z = hit ? vxr_clip_depth(ro, rd, best_t, pc.depth_z, pc.depth_w) : far_depth;
        if ((pc.flags & VXR_FRAME_DEPTH_IN) != 0u) {
            float host = depth[index];
            if (!hit || incomplete || (reverse ? !(z > host) : !(z < host))) return;
        }
        depth[index] = z;
    }
    uvec2 at = px + uvec2(pc.offset & 0xffffu, pc.offset >> 16u);
    if (LIGHT != VXR_LIGHT_FLAT) {
        imageStore(color_image, ivec2(at), vec4(light_pixel(index, px, hit, face, color), 1.0));
        return;
    }
    vec3 rgb;
    if (incomplete) {
        rgb = unpack_rgb(VXR_SHADE_INCOMPLETE);
    } else if (!hit) {
        float s = clamp(rd.z, 0.0, 1.0);
        rgb = mix(unpack_rgb(VXR_SHADE_HORIZON), unpack_rgb(VXR_SHADE_ZENITH), s);
    } else if (face < 0) {
        rgb = unpack_rgb(color) * VXR_SHADE_AMBIENT;
    } else {
        int ax = face >> 1;
        bool neg = ax < 2 ? (face & 1) != 0 : (face & 1) == 0;
        vec3 n = vec3(instance_texel(best_i, VXR_INSTANCE_TO_WORLD)[ax],
                      instance_texel(best_i, VXR_INSTANCE_TO_WORLD + 1u)[ax],
                      instance_texel(best_i, VXR_INSTANCE_TO_WORLD + 2u)[ax]) /
                 instance_texel(best_i, VXR_INSTANCE_MISC).x;
        if (!neg) n = -n;
        vec3 light = vec3(VXR_SHADE_LIGHT_X, VXR_SHADE_LIGHT_Y, VXR_SHADE_LIGHT_Z);
        float k = VXR_SHADE_AMBIENT + VXR_SHADE_AMBIENT_Z * n.z +
                  VXR_SHADE_DIFFUSE * max(dot(n, light), 0.0);
        rgb = unpack_rgb(color) * k;
    }
    rgb = clamp(rgb, 0.0, 1.0);
    imageStore(color_image, ivec2(at), vec4(rgb, 1.0));
}
