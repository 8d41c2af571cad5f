/* trace.comp: one ray per pixel through the instance hierarchy and the
 * octrees of shaders/vxr_layout.h; shades into a storage image and, when
 * asked, writes a compact pick record per pixel.
 *
 * Exactness (DESIGN.md §4): every float expression here repeats one in
 * core/camera.c or core/pick.c, operand for operand and in the same order,
 * and is `precise` so that no compiler fuses or reorders it (globals only
 * ever receive copies of precise locals). The octree walk is core/pick.c's
 * recursive `visit` made iterative with one stack entry per level (Revelles
 * et al. 2000, "An efficient parametric algorithm for octree traversal").
 *
 * Speed on lavapipe (Mesa 22.3), where CI renders: it runs 8 invocations
 * (8 pixels of a row) as one SIMD vector, executes both sides of every
 * branch under a lane mask, loads storage buffers one lane at a time and
 * indexes per-lane arrays one lane at a time. So scene data comes from
 * texel buffers (vector gathers), rarely needed code is compiled out by
 * specialisation constants or moved out of the loop, and the traversal
 * keeps its current frame in registers and recomputes slab parameters
 * (divisions) rather than storing them. */
#version 450
#extension GL_GOOGLE_include_directive : require
#include "vxr_layout.h"

layout(local_size_x_id = 0, local_size_y_id = 1) in;
/* Bindings per section (a section larger than one binding's range is split
 * into chunks of 2^SHIFT elements: up to 4 for nodes and brick attribute
 * bases, 8 for attributes, which take about 1 byte per voxel against well
 * under half a byte of structure) and the attribute size. */
layout(constant_id = 2) const uint NODE_CHUNKS = 1u;
layout(constant_id = 3) const uint NODE_SHIFT = 24u;
layout(constant_id = 4) const uint BATTR_CHUNKS = 1u;
layout(constant_id = 5) const uint BATTR_SHIFT = 25u;
layout(constant_id = 6) const uint ATTR_CHUNKS = 1u;
layout(constant_id = 7) const uint ATTR_SHIFT = 25u;
layout(constant_id = 8) const uint ATTR_SIZE = 1u;
/* The grid level (log2 N) and whether pick records are written. Constants
 * because lavapipe runs both sides of every branch under a lane mask: code
 * a frame never needs is best not compiled in at all. */
layout(constant_id = 9) const uint GRID_LEVEL = 0u;
layout(constant_id = 10) const bool PICKS = false;
/* Rays from the batch buffer instead of the camera, records only. */
layout(constant_id = 11) const bool RAYS = false;

layout(push_constant, std430) uniform Push {
    vec4 eye_tan;    /* eye, tan(fov / 2) */
    vec4 fwd_aspect; /* forward, aspect */
    vec4 right_pad;  /* right, grid pad of the instance boxes */
    vec4 up;         /* up, unused */
    uvec4 size;      /* width, height, (grid level, flags: for the record) */
    uvec4 counts;    /* bvh nodes, rays in a batch, unused */
}
pc;

/* Scene data as uniform texel buffers: lavapipe fetches texels with vector
 * gathers, while its storage-buffer loads take a loop per lane. */
layout(set = 0, binding = 0) uniform usamplerBuffer models;    /* 3 texels per model */
layout(set = 0, binding = 1) uniform usamplerBuffer instances; /* 9 texels per instance */
layout(set = 0, binding = 2) uniform usamplerBuffer palette;
layout(set = 0, binding = 3) uniform usamplerBuffer bvh; /* 2 texels per node */
layout(set = 0, binding = 4) uniform usamplerBuffer items;
layout(set = 0, binding = 5) uniform usamplerBuffer nodes0; /* rg32ui */
layout(set = 0, binding = 6) uniform usamplerBuffer nodes1;
layout(set = 0, binding = 7) uniform usamplerBuffer nodes2;
layout(set = 0, binding = 8) uniform usamplerBuffer nodes3;
layout(set = 0, binding = 9) uniform usamplerBuffer battr0;
layout(set = 0, binding = 10) uniform usamplerBuffer battr1;
layout(set = 0, binding = 11) uniform usamplerBuffer battr2;
layout(set = 0, binding = 12) uniform usamplerBuffer battr3;
layout(set = 0, binding = 13) uniform usamplerBuffer attrs0;
layout(set = 0, binding = 14) uniform usamplerBuffer attrs1;
layout(set = 0, binding = 15) uniform usamplerBuffer attrs2;
layout(set = 0, binding = 16) uniform usamplerBuffer attrs3;
layout(set = 0, binding = 17) uniform usamplerBuffer attrs4;
layout(set = 0, binding = 18) uniform usamplerBuffer attrs5;
layout(set = 0, binding = 19) uniform usamplerBuffer attrs6;
layout(set = 0, binding = 20) uniform usamplerBuffer attrs7;
layout(set = 1, binding = 0, rgba8) writeonly uniform image2D color_image;
layout(set = 1, binding = 1, std430) writeonly buffer Picks {
    vxr_gpu_pick picks[];
};
layout(set = 1, binding = 2, std430) readonly buffer Rays {
    float rays[]; /* vxr_ray: origin xyz, direction xyz */
};

#define INF        uintBitsToFloat(0x7f800000u)
#define MAX_LEVELS 22 /* VXR_MAX_DEPTH + 1 */

#define FETCH(tb, i) texelFetch(tb, int(i))

uvec2 node_at(uint i) {
    if (NODE_CHUNKS == 1u) return FETCH(nodes0, i).xy;
    uint c = i >> NODE_SHIFT, j = i & ((1u << NODE_SHIFT) - 1u);
    if (c == 0u) return FETCH(nodes0, j).xy;
    if (c == 1u) return FETCH(nodes1, j).xy;
    if (c == 2u) return FETCH(nodes2, j).xy;
    return FETCH(nodes3, j).xy;
}

uint battr_at(uint i) {
    if (BATTR_CHUNKS == 1u) return FETCH(battr0, i).x;
    uint c = i >> BATTR_SHIFT, j = i & ((1u << BATTR_SHIFT) - 1u);
    if (c == 0u) return FETCH(battr0, j).x;
    if (c == 1u) return FETCH(battr1, j).x;
    if (c == 2u) return FETCH(battr2, j).x;
    return FETCH(battr3, j).x;
}

uint attr_word(uint i) {
    if (ATTR_CHUNKS == 1u) return FETCH(attrs0, i).x;
    uint c = i >> ATTR_SHIFT, j = i & ((1u << ATTR_SHIFT) - 1u);
    switch (c) {
    case 0u:
        return FETCH(attrs0, j).x;
    case 1u:
        return FETCH(attrs1, j).x;
    case 2u:
        return FETCH(attrs2, j).x;
    case 3u:
        return FETCH(attrs3, j).x;
    case 4u:
        return FETCH(attrs4, j).x;
    case 5u:
        return FETCH(attrs5, j).x;
    case 6u:
        return FETCH(attrs6, j).x;
    }
    return FETCH(attrs7, j).x;
}

vec4 instance_row(uint i, uint row) {
    return uintBitsToFloat(FETCH(instances, 9u * i + row));
}

/* ---- the current instance's model and its model-space ray ---- */

vec3 O, D; /* model-space origin and direction */
ivec3 m_origin;
uint m_depth, m_node_base, m_first_brick, m_battr_base, m_attr_base;
float tmax; /* the best hit so far: cells beyond it are pruned, ties kept */

/* A hit inside one octree, model space (pick.c's cell_hit). */
ivec3 h_lo;
uint h_level, h_attr;
float h_t;
int h_axis;

uint child_mask(uint level, uint node, uint octant) {
    uvec2 n = node_at(m_node_base + node);
    if (level > VXR_BRICK_LEVEL) return n.x;
    if (level == VXR_BRICK_LEVEL) {
        /* bit o: byte o of the 64-bit occupancy is non-zero */
        uvec2 t = n | (n >> 4u);
        t |= t >> 2u;
        t |= t >> 1u;
        t &= uvec2(0x01010101u);
        t = (t | (t >> 7u)) & uvec2(0x00030003u);
        t = (t | (t >> 14u)) & uvec2(15u);
        return t.x | (t.y << 4u);
    }
    return ((octant < 4u ? n.x : n.y) >> (8u * (octant & 3u))) & 255u;
}

/* The child o of an interior node (level > 2); below, the brick stays. */
uint child_node(uint level, uint node, uint mask, uint o) {
    if (level > VXR_BRICK_LEVEL)
        return node_at(m_node_base + node).y + uint(bitCount(mask & ((1u << o) - 1u)));
    return node;
}

uint read_attr(uint brick, uint bit) {
    uvec2 bits = node_at(m_node_base + brick);
    uint below = bit < 32u
                     ? uint(bitCount(bits.x & ((1u << bit) - 1u)))
                     : uint(bitCount(bits.x)) + uint(bitCount(bits.y & ((1u << (bit - 32u)) - 1u)));
    uint i = battr_at(m_battr_base + (brick - m_first_brick)) + below;
    if (ATTR_SIZE == 1u) {
        uint byte = m_attr_base + i;
        return (attr_word(byte >> 2u) >> (8u * (byte & 3u))) & 255u;
    }
    return attr_word((m_attr_base >> 2u) + i);
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

/* pick.c's cube_slabs: entry and exit parameters of the cube [lo, lo + s)^3
 * and the entry axis (the lowest attaining the maximum; -1 when the ray is
 * parallel to every axis); false when the ray's line never lies in it. */
bool cube_slabs(ivec3 lo, int s, out float tenter, out float texit, out int axis) {
    precise float a = -INF, b = INF;
    int ax = -1;
    bool inside = true;
    for (int k = 0; k < 3; k++) {
        precise float p0 = float(lo[k]), p1 = float(lo[k] + s);
        if (D[k] == 0.0) {
            inside = inside && p0 <= O[k] && O[k] < p1;
            continue;
        }
        precise float ak = ((D[k] > 0.0 ? p0 : p1) - O[k]) / D[k];
        precise float bk = ((D[k] > 0.0 ? p1 : p0) - O[k]) / D[k];
        if (ak > a) {
            a = ak;
            ax = k;
        }
        if (bk < b) b = bk;
    }
    tenter = a;
    texit = b;
    axis = ax;
    return inside;
}

/* The exit parameter alone, as cube_slabs computes it. */
float cube_exit(ivec3 lo, int s) {
    precise float b = INF;
    for (int k = 0; k < 3; k++) {
        if (D[k] == 0.0) continue;
        precise float bk = ((D[k] > 0.0 ? float(lo[k] + s) : float(lo[k])) - O[k]) / D[k];
        if (bk < b) b = bk;
    }
    return b;
}

/* The mid-plane parameters of a cube with half edge h (0 where D is 0). */
vec3 mid_planes(ivec3 lo, int h) {
    precise vec3 tm = vec3(0.0);
    for (int k = 0; k < 3; k++)
        if (D[k] != 0.0) tm[k] = (float(lo[k] + h) - O[k]) / D[k];
    return tm;
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
        precise float tenter, texit;
        int axis;
        if (!cube_slabs(lo, n, tenter, texit, axis)) continue;
        precise float t0 = tenter > 0.0 ? tenter : 0.0;
        if (!(t0 < texit) || t0 > tmax) continue;
        if (found && !(t0 < h_t)) continue;
        uint attr = centred ? first_attr(m_depth - 1u, child_node(m_depth, 0u, mask, o), o)
                            : first_attr(m_depth, 0u, 0u);
        h_lo = lo;
        h_level = GRID_LEVEL;
        h_t = t0;
        h_axis = tenter < 0.0 ? -1 : axis;
        h_attr = attr;
        found = true;
    }
    return found;
}

/* One stack frame per level, for the ancestors of the current cell (whose
 * frame stays in registers): the first child's index (a level-3 node or
 * above; below, the brick's index) and
 * mask | child << 8 | live << 11 | octant << 14, where live marks the axes
 * whose mid plane the ray has yet to cross. Slab parameters are recomputed
 * from the frame's cube, the same divisions as pick.c's, instead of being
 * stored: lavapipe indexes per-lane arrays one lane at a time, which costs
 * more than a division. */
uint f_node[MAX_LEVELS], f_state[MAX_LEVELS];

/* The frame of the cell (level, lo, node, octant) entered at t0, whose mid
 * planes the ray crosses at tm: what f_node and f_state hold for it. */
void new_frame(int level, ivec3 lo, uint node, uint octant, float t0, vec3 tm, out uint fnode,
               out uint fstate) {
    uvec2 n = node_at(m_node_base + node);
    uint mask;
    if (level > int(VXR_BRICK_LEVEL)) {
        mask = n.x;
        node = n.y;
    } else if (level == int(VXR_BRICK_LEVEL)) {
        uvec2 t = n | (n >> 4u); /* bit o: byte o of the occupancy is non-zero */
        t |= t >> 2u;
        t |= t >> 1u;
        t &= uvec2(0x01010101u);
        t = (t | (t >> 7u)) & uvec2(0x00030003u);
        t = (t | (t >> 14u)) & uvec2(15u);
        mask = t.x | (t.y << 4u);
    } else {
        mask = ((octant < 4u ? n.x : n.y) >> (8u * (octant & 3u))) & 255u;
    }
    uint live = 0u, child = 0u;
    for (int k = 0; k < 3; k++) {
        bool upper;
        if (D[k] == 0.0) {
            upper = O[k] >= float(lo[k] + (1 << (level - 1)));
        } else {
            bool crossed = tm[k] <= t0;
            upper = D[k] > 0.0 ? crossed : !crossed;
            if (!crossed) live |= 1u << k;
        }
        if (upper) child |= 1u << (2 - k);
    }
    fnode = node;
    fstate = mask | child << 8u | live << 11u | octant << 14u;
}

ivec3 octant_offset(uint child, int h) {
    return ivec3((child & 4u) != 0u ? h : 0, (child & 2u) != 0u ? h : 0,
                 (child & 1u) != 0u ? h : 0);
}

bool trace_octree() {
    if (GRID_LEVEL > 0u && GRID_LEVEL >= m_depth) return trace_large_grid();
    int level = int(m_depth);
    ivec3 lo = m_origin;
    uint node = 0u, st = 0u;
    {
        precise float tenter, texit;
        int axis;
        if (!cube_slabs(lo, 1 << level, tenter, texit, axis)) return false;
        precise float t0 = tenter > 0.0 ? tenter : 0.0;
        if (!(t0 < texit) || t0 > tmax) return false;
        new_frame(level, lo, 0u, 0u, t0, mid_planes(lo, 1 << (level - 1)), node, st);
    }
    bool advance = false, found = false;
    precise float hit_t = 0.0;
    int hit_axis = -1;
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
            precise float texit = cube_exit(lo, 2 * half_);
            precise vec3 tm = mid_planes(lo, half_);
            uint live = (st >> 11u) & 7u, child = (st >> 8u) & 7u;
            precise float tnext = texit;
            for (int k = 0; k < 3; k++)
                if ((live & (1u << k)) != 0u && tm[k] < tnext) tnext = tm[k];
            if (!(tnext < texit) || tnext > tmax) {
                if (level == int(m_depth)) break;
                level++;
                st = f_state[level];
                node = f_node[level];
                lo -= octant_offset((st >> 8u) & 7u, 1 << (level - 1));
                continue;
            }
            for (int k = 0; k < 3; k++)
                if ((live & (1u << k)) != 0u && tm[k] == tnext) {
                    live &= ~(1u << k);
                    child ^= 1u << (2 - k);
                }
            st = (st & ~(63u << 8u)) | child << 8u | live << 11u;
        }
        uint child = (st >> 8u) & 7u;
        ivec3 clo = lo + octant_offset(child, half_);
        precise float tenter, ctexit;
        int axis;
        bool inside = cube_slabs(clo, half_, tenter, ctexit, axis);
        precise float t0 = tenter > 0.0 ? tenter : 0.0;
        bool enter = (st & (1u << child)) != 0u && inside && t0 < ctexit && !(t0 > tmax);
        uint cnode =
            level > int(VXR_BRICK_LEVEL) ? node + uint(bitCount(st & ((1u << child) - 1u))) : node;
        uint coct = level == 1 ? (st >> 14u) & 7u : child;
        if (enter && uint(level - 1) == GRID_LEVEL) {
            found = true;
            hit_t = t0;
            hit_axis = tenter < 0.0 ? -1 : axis;
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
            new_frame(level, lo, cnode, coct, t0, mid_planes(lo, half_ >> 1), node, st);
        }
    }
    if (!found) return false;
    h_lo = hit_lo;
    h_level = GRID_LEVEL;
    h_t = hit_t;
    h_axis = hit_axis;
    h_attr = GRID_LEVEL == 0u ? read_attr(hit_node, hit_octant * 8u + hit_voxel)
                              : first_attr(GRID_LEVEL, hit_node, hit_octant);
    return true;
}

/* ---- the world ray, the instance hierarchy, the nearest hit ---- */

vec3 ro, rd; /* world ray */

vec3 affine_point(vec4 m[3], vec3 p) {
    precise vec3 r;
    for (int k = 0; k < 3; k++) r[k] = m[k].x * p.x + m[k].y * p.y + m[k].z * p.z + m[k].w;
    return r;
}

vec3 affine_dir(vec4 m[3], vec3 v) {
    precise vec3 r;
    for (int k = 0; k < 3; k++) r[k] = m[k].x * v.x + m[k].y * v.y + m[k].z * v.z;
    return r;
}

/* pick.c's box_enter: closed slabs of a box widened by pad. */
float box_enter(vec3 lo, vec3 hi, float pad, float t_max) {
    precise float a = 0.0, b = t_max;
    for (int k = 0; k < 3; k++) {
        precise float l = lo[k] - pad, h = hi[k] + pad;
        if (rd[k] == 0.0) {
            if (ro[k] < l || ro[k] > h) return INF;
            continue;
        }
        precise float t0 = (l - ro[k]) / rd[k], t1 = (h - ro[k]) / rd[k];
        if (t0 > t1) {
            precise float x = t0;
            t0 = t1;
            t1 = x;
        }
        if (t0 > a) a = t0;
        if (t1 < b) b = t1;
        if (a > b) return INF;
    }
    return a;
}

float best_t;
uint best_i;
ivec3 best_lo;
uint best_level, best_attr;
int best_axis;
vec3 best_O, best_D;

void trace_instance(uint i) {
    vec4 w2l[3] = vec4[3](instance_row(i, 0u), instance_row(i, 1u), instance_row(i, 2u));
    uint model = FETCH(instances, 9u * i + 6u).w;
    uvec4 origin_depth = FETCH(models, 3u * model), bases = FETCH(models, 3u * model + 1u),
          counts = FETCH(models, 3u * model + 2u);
    O = affine_point(w2l, ro);
    D = affine_dir(w2l, rd);
    m_origin = ivec3(origin_depth.xyz);
    m_depth = origin_depth.w;
    m_node_base = bases.x;
    m_first_brick = counts.x - counts.y;
    m_battr_base = bases.z;
    m_attr_base = bases.w;
    tmax = best_t;
    if (counts.x == 0u || !trace_octree()) return;
    if (h_t > best_t || (h_t == best_t && i > best_i)) return;
    best_t = h_t;
    best_i = i;
    best_lo = h_lo;
    best_level = h_level;
    best_attr = h_attr;
    best_axis = h_axis;
    best_O = O;
    best_D = D;
}

void trace_scene(float pad) {
    best_t = INF;
    best_i = 0xffffffffu;
    if (pc.counts.x == 0u) return;
    uint stack[64];
    int sp = 0;
    uvec4 lo = FETCH(bvh, 0u), hi = FETCH(bvh, 1u);
    if (box_enter(uintBitsToFloat(lo.xyz), uintBitsToFloat(hi.xyz), pad, INF) < INF)
        stack[sp++] = 0u;
    while (sp > 0) {
        uint nd = stack[--sp];
        uint first = FETCH(bvh, 2u * nd).w, count = FETCH(bvh, 2u * nd + 1u).w;
        if (count != 0u) {
            for (uint k = 0u; k < count; k++) trace_instance(FETCH(items, first + k).x);
            continue;
        }
        vec3 alo = uintBitsToFloat(FETCH(bvh, 2u * first).xyz),
             ahi = uintBitsToFloat(FETCH(bvh, 2u * first + 1u).xyz),
             blo = uintBitsToFloat(FETCH(bvh, 2u * first + 2u).xyz),
             bhi = uintBitsToFloat(FETCH(bvh, 2u * first + 3u).xyz);
        precise float ta = box_enter(alo, ahi, pad, best_t);
        precise float tb = box_enter(blo, bhi, pad, best_t);
        uint ia = first, ib = first + 1u;
        if (ta < tb) { /* push the farther first so the nearer pops first */
            precise float x = ta;
            ta = tb;
            tb = x;
            ia = ib;
            ib = first;
        }
        if (ta < INF && sp < 64) stack[sp++] = ia;
        if (tb < INF && sp < 64) stack[sp++] = ib;
    }
}

/* ---- pick record and shading ---- */

const uint FACE_CORNERS[6] = uint[6](0x3210u, 0x7654u, 0x5410u, 0x7632u, 0x7531u, 0x6420u);
const uint FACE_EDGES[6] =
    uint[6](0x0b040201u, 0x0a080705u, 0x09050200u, 0x0b080603u, 0x09070604u, 0x0a030100u);
const uint EDGE_CORNERS[12] =
    uint[12](0x40u, 0x20u, 0x10u, 0x62u, 0x31u, 0x54u, 0x73u, 0x75u, 0x76u, 0x51u, 0x64u, 0x32u);

vec3 corner_pos(ivec3 lo, float n, uint c) {
    precise vec3 p;
    for (int k = 0; k < 3; k++) p[k] = float(lo[k]) + (((c >> (2 - k)) & 1u) != 0u ? n : 0.0);
    return p;
}

/* core/pick.c's pick_record: the entry face, the nearest corner and edge on it. */
int entry_face() {
    if (best_axis < 0) return -1;
    const int FACE_OF[6] = int[6](0, 1, 2, 3, 5, 4);
    return FACE_OF[2 * best_axis + (best_D[best_axis] < 0.0 ? 1 : 0)];
}

void pick_corner_edge(int face, out int corner, out int edge) {
    corner = edge = -1;
    if (face < 0) return;
    precise vec3 lpoint;
    for (int k = 0; k < 3; k++) lpoint[k] = best_O[k] + best_t * best_D[k];
    precise float n = float(1u << best_level);
    precise float bestd = INF;
    for (int j = 0; j < 4; j++) {
        uint c = (FACE_CORNERS[face] >> (4 * j)) & 15u;
        precise vec3 cp = corner_pos(best_lo, n, c);
        precise float d = 0.0;
        for (int k = 0; k < 3; k++) d += (lpoint[k] - cp[k]) * (lpoint[k] - cp[k]);
        if (d < bestd) {
            bestd = d;
            corner = int(c);
        }
    }
    bestd = INF;
    for (int j = 0; j < 4; j++) {
        uint e = (FACE_EDGES[face] >> (8 * j)) & 255u;
        precise vec3 c0 = corner_pos(best_lo, n, EDGE_CORNERS[e] & 15u);
        precise vec3 c1 = corner_pos(best_lo, n, EDGE_CORNERS[e] >> 4u);
        precise float d = 0.0;
        for (int k = 0; k < 3; k++) {
            precise float em = (c0[k] + c1[k]) * 0.5;
            d += (lpoint[k] - em) * (lpoint[k] - em);
        }
        if (d < bestd) {
            bestd = d;
            edge = int(e);
        }
    }
}

vec3 unpack_rgb(uint c) {
    return vec3(float(c & 255u), float((c >> 8u) & 255u), float((c >> 16u) & 255u)) / 255.0;
}

void main() {
    uvec2 px = gl_GlobalInvocationID.xy;
    uint index = px.y * pc.size.x + px.x;
    if (px.x >= pc.size.x || px.y >= pc.size.y) return;
    if (RAYS) {
        if (index >= pc.counts.y) return;
        ro = vec3(rays[6u * index], rays[6u * index + 1u], rays[6u * index + 2u]);
        rd = vec3(rays[6u * index + 3u], rays[6u * index + 4u], rays[6u * index + 5u]);
    } else {
        /* core/camera.c's vxr_camera_ray, operation for operation */
        precise float x =
            (2.0 * (float(px.x) + 0.5) / float(pc.size.x) - 1.0) * pc.eye_tan.w * pc.fwd_aspect.w;
        precise float y = (1.0 - 2.0 * (float(px.y) + 0.5) / float(pc.size.y)) * pc.eye_tan.w;
        precise vec3 d;
        for (int k = 0; k < 3; k++) d[k] = pc.fwd_aspect[k] + x * pc.right_pad[k] + y * pc.up[k];
        precise float len = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
        for (int k = 0; k < 3; k++) d[k] = d[k] / len;
        ro = pc.eye_tan.xyz;
        rd = d;
    }
    trace_scene(pc.right_pad.w);

    bool hit = best_i != 0xffffffffu;
    int face = -1, corner = -1, edge = -1;
    uint color = 0u;
    if (hit) {
        color = ATTR_SIZE == 1u ? FETCH(palette, best_attr).x : best_attr;
        face = entry_face();
        if (PICKS) pick_corner_edge(face, corner, edge);
    }
    if (PICKS) {
        vxr_gpu_pick p;
        p.a = uvec4(best_i, uvec3(best_lo));
        p.b = uvec4(floatBitsToUint(best_t),
                    best_level | (uint(face) & 255u) << 8u | (uint(corner) & 255u) << 16u |
                        (uint(edge) & 255u) << 24u,
                    color, VXR_PICK_HIT);
        if (!hit) {
            p.a = uvec4(0xffffffffu, 0u, 0u, 0u);
            p.b = uvec4(0u);
        }
        picks[index] = p;
    }
    if (RAYS) return;
    vec3 rgb;
    if (!hit) {
        float s = clamp(rd.z, 0.0, 1.0);
        rgb = mix(unpack_rgb(VXR_SHADE_HORIZON), unpack_rgb(VXR_SHADE_ZENITH), s);
    } else if (face < 0) {
        rgb = unpack_rgb(color) * VXR_SHADE_AMBIENT;
    } else {
        int ax = face >> 1;
        bool neg = ax < 2 ? (face & 1) != 0 : (face & 1) == 0;
        vec3 n = vec3(instance_row(best_i, 3u)[ax], instance_row(best_i, 4u)[ax],
                      instance_row(best_i, 5u)[ax]) /
                 instance_row(best_i, 8u).x;
        if (!neg) n = -n;
        vec3 light = vec3(VXR_SHADE_LIGHT_X, VXR_SHADE_LIGHT_Y, VXR_SHADE_LIGHT_Z);
        float k = VXR_SHADE_AMBIENT + VXR_SHADE_AMBIENT_Z * n.z +
                  VXR_SHADE_DIFFUSE * max(dot(n, light), 0.0);
        rgb = unpack_rgb(color) * k;
    }
    imageStore(color_image, ivec2(px), vec4(clamp(rgb, 0.0, 1.0), 1.0));
}
