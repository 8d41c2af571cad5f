/* beam.comp: the beam pre-pass of a perspective frame, after Laine and
 * Karras (2010), "Efficient Sparse Voxel Octrees", section on beam
 * optimisation. One invocation per tile of VXR_BEAM_TILE^2 pixels writes a
 * start distance t_start: no hit of any of the tile's rays lies at a ray
 * parameter below it. trace.comp then does not enter cells its ray leaves
 * before t_start, which changes no pick record (DESIGN.md, "Per-device
 * choices").
 *
 * Why it is conservative. Camera rays leave the eye e with unit direction
 * (vxr_camera_dir normalises), so the ray parameter of a point p on a ray
 * is |p - e|; an instance's transform keeps the parameter (its affine
 * map takes the line point by point) and scales distances by its scale s
 * (a rotation and a uniform scale). A cone from e holds every ray of the
 * tile (its axis and half-angle cover the tile's corner rays, widened by
 * BEAM_ANGLE for rounding); in an instance's model space it is the cone
 * from the eye's image along the axis's image, with the same angle. Every
 * hit lies in an occupied octree cell of level leaf_level (bricks, the
 * grid's cubes, or under a level of detail the largest cubes it can stop
 * at, VXR_REACH_SHIFT) that meets the cone (tested with the cell's bounding
 * sphere), and a cell at model-space distance m from the eye's image is
 * met only at t >= s m; a subtree whose bound is not below the current
 * minimum is pruned (its hits lie beyond the bound, hence beyond the
 * minimum). The instance hierarchy's boxes, padded for the grid as
 * trace.comp pads them, bound their instances' hits likewise. Every bound
 * is lowered by a slack far above float rounding (SLACK_ABS times the
 * magnitudes involved, SLACK_REL of the bound), and a tile whose walk runs
 * out of steps, or a device that cut the loops short, writes 0: no
 * skipping. */
#version 450
#extension GL_GOOGLE_include_directive : require
#include "vxr_trace.h"
#include "vxr_scene.glsl"

layout(local_size_x_id = VXR_SPEC_LOCAL_X, local_size_y_id = VXR_SPEC_LOCAL_Y) in;

layout(push_constant, std430) uniform Push {
    VXR_PUSH_MEMBERS
}
pc;

layout(set = VXR_SET_TARGET, binding = VXR_BIND_BEAM, std430) writeonly buffer Beam {
    float beam[];
};

/* Bricks: a coarser level prunes less, a finer one costs more steps. */
const uint BEAM_LEVEL = VXR_BRICK_LEVEL;
/* Steps (hierarchy nodes and cells) a tile may take before it gives up. */
const uint BEAM_STEPS = 4096u;
/* The cone's widening (radians), far above the direction's rounding. */
const float BEAM_ANGLE = 1e-4;
const float SLACK_ABS = 1e-4, SLACK_REL = 1e-5;
/* sqrt(3), rounded up: a cube's half-diagonal per half edge */
const float SQRT3 = 1.7320512;

vec3 e;                    /* the eye: every ray's origin */
vec3 axis;                 /* the cone's axis (unit) */
float cos_cone;            /* cos of its widened half-angle */
float best;                /* the least bound so far */
uint steps;                /* of BEAM_STEPS */
uint leaf_level;           /* bricks, the grid's cubes, or the level of detail's largest */
uint f_first[VXR_LEVELS];  /* the walk's frames: first child of the cell */
uint f_state[VXR_LEVELS];  /* mask | next << 8 | eye octant << 12 */

/* Whether the sphere (c, r) meets the cone from apex along unit dir: the
 * angle between dir and c - apex, less the sphere's angular radius, is
 * within the half-angle. */
bool in_cone(vec3 apex, vec3 dir, vec3 c, float r) {
    vec3 v = c - apex;
    float d = length(v);
    if (d <= r) return true;
    float cp = dot(v, dir) / d, sp = length(cross(v, dir)) / d;
    float sa = r / d, ca = sqrt(max(1.0 - sa * sa, 0.0));
    if (cp >= ca) return true;           /* the axis passes through the sphere */
    return cp * ca + sp * sa >= cos_cone; /* cos(angle - angular radius) */
}

/* The distance from p to the box [lo, hi]. */
float box_distance(vec3 p, vec3 lo, vec3 hi) {
    return length(max(max(lo - p, p - hi), vec3(0.0)));
}

/* A distance d less the slack; mag: the magnitude of the coordinates
 * that made it (and that make the tracer's parameters there). */
float slacken(float d, float mag) {
    return d - SLACK_REL * d - SLACK_ABS * mag;
}

/* Counts a step; false once the tile has run out. */
bool step_ok() {
    steps++;
    return steps <= BEAM_STEPS;
}

ivec3 octant_offset(uint child, int h) {
    return ivec3((child & 4u) != 0u ? h : 0, (child & 2u) != 0u ? h : 0,
                 (child & 1u) != 0u ? h : 0);
}

/* The child of the cube [lo, lo + 2h)^3 holding the point p (model space),
 * as a child index: the walk visits children from there outwards. */
uint octant_of(vec3 p, ivec3 lo, int h) {
    return (p.x >= float(lo.x + h) ? 4u : 0u) | (p.y >= float(lo.y + h) ? 2u : 0u) |
           (p.z >= float(lo.z + h) ? 1u : 0u);
}

/* Lowers best by instance i's occupied leaf cells in the cone; false when
 * the walk ran out of steps. */
bool beam_instance(uint i) {
    vec4 w2l[3] = vec4[3](instance_texel(i, VXR_INSTANCE_TO_LOCAL),
                          instance_texel(i, VXR_INSTANCE_TO_LOCAL + 1u),
                          instance_texel(i, VXR_INSTANCE_TO_LOCAL + 2u));
    vec4 misc = instance_texel(i, VXR_INSTANCE_MISC);
    float scale = misc.x;
    uint model = FETCH(instances, VXR_INSTANCE_TEXELS * i + VXR_INSTANCE_MIN).w;
    uvec4 origin = FETCH(models, VXR_MODEL_TEXELS * model + VXR_MODEL_ORIGIN);
    uint base = FETCH(models, VXR_MODEL_TEXELS * model + VXR_MODEL_BASES).x;
    if (FETCH(models, VXR_MODEL_TEXELS * model + VXR_MODEL_COUNTS).x == 0u) return true;
    ivec3 lo = ivec3(origin.xyz);
    uint depth = origin.w;
    /* the cone in model space */
    vec3 em, am;
    vxr_affine_point(w2l, e, em);
    vxr_affine_dir(w2l, axis, am);
    am = normalize(am);
    /* what the tracer's and this pass's coordinates are made of: the eye,
     * the instance's translation (the rows' w of its world-to-local map,
     * times the scale) and the model's extent, in world units */
    vec3 ext = abs(vec3(lo)) + float(1 << depth);
    float mag = dot(abs(e), vec3(1.0)) +
                scale * (dot(abs(vec3(w2l[0].w, w2l[1].w, w2l[2].w)), vec3(1.0)) +
                         dot(ext, vec3(1.0))) +
                1.0;
    if (leaf_level >= depth) {
        /* grids at least as large as the root: the grid's cubes over it
         * (trace.comp's trace_large_grid), bounded as one box */
        int n = 1 << leaf_level;
        vec3 a = vec3(lo & ivec3(~(n - 1))),
             b = vec3(((lo + (1 << depth) - 1) & ivec3(~(n - 1))) + n);
        float bound = slacken(scale * box_distance(em, a, b), mag);
        if (bound < best && in_cone(em, am, (a + b) * 0.5, length(b - a) * 0.5 * 1.000001))
            best = bound;
        return true;
    }
    int level = int(depth);
    {
        float size = float(1 << level);
        float bound = slacken(scale * box_distance(em, vec3(lo), vec3(lo) + size), mag);
        if (!(bound < best) || !in_cone(em, am, vec3(lo) + 0.5 * size, 0.5 * size * SQRT3))
            return true;
    }
    uvec2 n = node_at(base);
    uint mask = n.x, first = n.y, next = 0u, eo = octant_of(em, lo, 1 << (level - 1));
    for (;;) {
        if (!step_ok()) return false;
        if (next == 8u) { /* the cell is done: back to its parent */
            if (level == int(depth)) break;
            level++;
            uint st = f_state[level];
            first = f_first[level];
            mask = st & 255u;
            next = (st >> 8u) & 15u;
            eo = (st >> 12u) & 7u;
            lo -= octant_offset((next - 1u) ^ eo, 1 << (level - 1));
            continue;
        }
        uint child = next ^ eo;
        next++;
        if ((mask & (1u << child)) == 0u) continue;
        int h = 1 << (level - 1); /* the child's edge */
        ivec3 clo = lo + octant_offset(child, h);
        vec3 cl = vec3(clo);
        float size = float(h);
        float bound = slacken(scale * box_distance(em, cl, cl + size), mag);
        if (!(bound < best) || !in_cone(em, am, cl + 0.5 * size, 0.5 * size * SQRT3)) continue;
        if (uint(level - 1) <= leaf_level) {
            best = bound; /* an occupied leaf cell */
            continue;
        }
        f_first[level] = first;
        f_state[level] = mask | next << 8u | eo << 12u;
        uvec2 cn = node_at(base + first + uint(bitCount(mask & ((1u << child) - 1u))));
        level--;
        lo = clo;
        mask = cn.x; /* an interior node: level > leaf_level >= bricks */
        first = cn.y;
        next = 0u;
        eo = octant_of(em, lo, 1 << (level - 1));
    }
    return true;
}

/* A lower bound, less the slack, on where rays from e meet the hierarchy
 * node nd's box padded by pad (trace.comp's test); VXR_INF when no ray of
 * the cone meets it. */
float box_bound(uint nd, float pad) {
    vec3 lo = bvh_corner(nd, VXR_BVH_LO) - pad, hi = bvh_corner(nd, VXR_BVH_HI) + pad;
    if (!in_cone(e, axis, (lo + hi) * 0.5, length(hi - lo) * 0.5 * 1.000001)) return VXR_INF;
    /* the hits inside were found in model space: their instances'
     * magnitudes count too (pc.magnitude bounds them all) */
    float mag =
        dot(abs(e), vec3(1.0)) + dot(max(abs(lo), abs(hi)), vec3(1.0)) + pc.magnitude + 1.0;
    return slacken(box_distance(e, lo, hi), mag);
}

/* The least bound over the scene; 0 when the walk could not finish. */
float beam_scene() {
    best = VXR_INF;
    if (pc.bvh_nodes == 0u) return best;
    uint stack[VXR_BVH_STACK];
    float bounds[VXR_BVH_STACK];
    uint sp = 0u;
    float b0 = box_bound(0u, pc.grid_pad);
    if (b0 < best) {
        bounds[sp] = b0;
        stack[sp++] = 0u;
    }
    while (sp > 0u) {
        if (!step_ok()) return 0.0;
        sp--;
        uint nd = stack[sp];
        if (!(bounds[sp] < best)) continue;
        uint first = FETCH(bvh, VXR_BVH_TEXELS * nd + VXR_BVH_LO).w,
             count = FETCH(bvh, VXR_BVH_TEXELS * nd + VXR_BVH_HI).w;
        if (count != 0u) {
            for (uint k = 0u; k < count; k++)
                if (!beam_instance(FETCH(items, first + k).x)) return 0.0;
            continue;
        }
        float ba = box_bound(first, pc.grid_pad), bb = box_bound(first + 1u, pc.grid_pad);
        uint ia = first, ib = first + 1u;
        if (ba < bb) { /* push the farther first so the nearer pops first */
            float x = ba;
            ba = bb;
            bb = x;
            ia = ib;
            ib = first;
        }
        if (sp + 2u > VXR_BVH_STACK) return 0.0;
        if (ba < best) {
            bounds[sp] = ba;
            stack[sp++] = ia;
        }
        if (bb < best) {
            bounds[sp] = bb;
            stack[sp++] = ib;
        }
    }
    return best;
}

void main() {
    uint tiles_x = (pc.width + VXR_BEAM_TILE - 1u) / VXR_BEAM_TILE,
         tiles_y = (pc.height + VXR_BEAM_TILE - 1u) / VXR_BEAM_TILE;
    uvec2 tile = gl_GlobalInvocationID.xy;
    if (tile.x >= tiles_x || tile.y >= tiles_y) return;
    e = pc.eye;
    /* under a level of detail a hit is a cube of up to 2^VXR_LOD_MAX_LEVEL
     * voxels: it lies in an occupied cell of that level */
    leaf_level = max(BEAM_LEVEL, max(pc.grid_level & 255u, pc.grid_level >> VXR_REACH_SHIFT));
    steps = 0u;
    /* the corner pixels' rays, as trace.comp computes them */
    uint i0 = tile.x * VXR_BEAM_TILE, j0 = tile.y * VXR_BEAM_TILE;
    uint i1 = min(i0 + VXR_BEAM_TILE, pc.width) - 1u, j1 = min(j0 + VXR_BEAM_TILE, pc.height) - 1u;
    vec3 d[4];
    vxr_camera_dir(pc.forward, pc.right, pc.up, pc.tan_half_fov, pc.aspect, i0, j0, pc.width,
                   pc.height, d[0]);
    vxr_camera_dir(pc.forward, pc.right, pc.up, pc.tan_half_fov, pc.aspect, i1, j0, pc.width,
                   pc.height, d[1]);
    vxr_camera_dir(pc.forward, pc.right, pc.up, pc.tan_half_fov, pc.aspect, i0, j1, pc.width,
                   pc.height, d[2]);
    vxr_camera_dir(pc.forward, pc.right, pc.up, pc.tan_half_fov, pc.aspect, i1, j1, pc.width,
                   pc.height, d[3]);
    axis = normalize(d[0] + d[1] + d[2] + d[3]);
    /* the half-angle: the least cosine and the largest sine over the
     * corners (the cone is convex: it holds every ray between them) */
    float c0 = 1.0, s0 = 0.0;
    for (int k = 0; k < 4; k++) {
        c0 = min(c0, dot(axis, d[k]));
        s0 = max(s0, length(cross(axis, d[k])));
    }
    cos_cone = c0 * cos(BEAM_ANGLE) - s0 * sin(BEAM_ANGLE);
    float t = 0.0;
    /* a cone wider than about 84 degrees gains nothing and is not tested */
    if (cos_cone > 0.1) t = beam_scene();
    /* a device that ends loops early (VXR_PICK_INCOMPLETE) cut this walk
     * short too: it runs fewer than the probe's times (flags' top byte) */
    uint probe = 0u;
    for (uint k = 0u; k < pc.flags >> VXR_PROBE_SHIFT; k++) probe++;
    if (probe != VXR_LOOP_PROBE || !(t > 0.0)) t = 0.0;
    beam[tile.y * tiles_x + tile.x] = min(t, 3.0e38);
}
