/* vxr_trace.h: the float operations that CPU picks (core/pick.c) and GPU
 * traces (shaders/trace.comp) must repeat exactly, written once for both
 * (C11 and GLSL, spelled through vxr_layout.h's macros). The traversal
 * loops stay apart (the CPU recurses, the GPU keeps a stack of frames and
 * walks a wide form of the tree at full resolution), but every float they
 * compute comes from here or is one (plane - origin) / dir of an integer
 * plane as here, so CPU == GPU holds by construction; the gpu tests keep
 * proving it bit for bit on lavapipe.
 *
 * Rules that keep both sides equal (DESIGN.md §4): every slab parameter is
 * (plane - origin) / dir with integer planes, so a plane shared by a parent
 * and a child gives the same t on both; each expression has one order of
 * operations; GLSL locals are `precise` (no fusing), C is compiled with
 * -ffp-contract=off. Ties: the lower axis, corner, edge and instance.
 * Ray traversal after Revelles et al. 2000, "An efficient parametric
 * algorithm for octree traversal".
 */
#ifndef VXR_TRACE_H
#define VXR_TRACE_H

#include "vxr_layout.h"

/* A nibble of the 96-bit table (w0, w1, w2), nibble 0 the lowest. */
#define VXR_NIBBLE(w0, w1, w2, i)                                                                  \
    (((((i) >> 3) == 0u ? (w0) : ((i) >> 3) == 1u ? (w1) : (w2)) >> (4u * ((i)&7u))) & 15u)
/* The corners of face f (DESIGN.md §2), j = 0..3, ascending. */
#define VXR_FACE_CORNER(f, j) VXR_NIBBLE(0x76543210u, 0x76325410u, 0x64207531u, 4u * (f) + (j))
/* The edges of face f, j = 0..3, ascending. */
#define VXR_FACE_EDGE(f, j) VXR_NIBBLE(0xa875b421u, 0xb8639520u, 0xa3109764u, 4u * (f) + (j))
/* The corners of edge e, j = 0 (lower) or 1. */
#define VXR_EDGE_CORNER(e, j) VXR_NIBBLE(0x62102040u, 0x75735431u, 0x32645176u, 2u * (e) + (j))

/* Entry and exit parameters of a cube [lo, lo + s)^3, the entry axis (the
 * lowest attaining the maximum; -1 when the ray is parallel to every axis)
 * and whether the ray's line lies in the cube's slab on every parallel axis. */
VXR_STRUCT(vxr_slabs) {
    float tenter;
    float texit;
    int axis;
    bool inside;
};

VXR_FN vxr_slabs vxr_cube_slabs(VXR_IN_VEC3(o), VXR_IN_VEC3(d), VXR_IN_IVEC3(lo), int s) {
    VXR_PRECISE float a = -VXR_INF;
    VXR_PRECISE float b = VXR_INF;
    int ax = -1;
    bool inside = true;
    for (int k = 0; k < 3; k++) {
        VXR_PRECISE float p0 = VXR_F(lo[k]);
        VXR_PRECISE float p1 = VXR_F(lo[k] + s);
        if (d[k] == 0.0f) {
            inside = inside && p0 <= o[k] && o[k] < p1;
            continue;
        }
        VXR_PRECISE float ak = ((d[k] > 0.0f ? p0 : p1) - o[k]) / d[k];
        VXR_PRECISE float bk = ((d[k] > 0.0f ? p1 : p0) - o[k]) / d[k];
        if (ak > a) {
            a = ak;
            ax = k;
        }
        if (bk < b) b = bk;
    }
    vxr_slabs r;
    r.tenter = a;
    r.texit = b;
    r.axis = ax;
    r.inside = inside;
    return r;
}

/* The exit parameter alone, as vxr_cube_slabs computes it. */
VXR_FN float vxr_cube_exit(VXR_IN_VEC3(o), VXR_IN_VEC3(d), VXR_IN_IVEC3(lo), int s) {
    VXR_PRECISE float b = VXR_INF;
    for (int k = 0; k < 3; k++) {
        if (d[k] == 0.0f) continue;
        VXR_PRECISE float bk = ((d[k] > 0.0f ? VXR_F(lo[k] + s) : VXR_F(lo[k])) - o[k]) / d[k];
        if (bk < b) b = bk;
    }
    return b;
}

/* The parameters at which the ray crosses the mid planes lo + h of a cube
 * (0 on an axis the ray is parallel to). */
VXR_FN void vxr_mid_planes(VXR_IN_VEC3(o), VXR_IN_VEC3(d), VXR_IN_IVEC3(lo), int h,
                           VXR_OUT_VEC3(tm)) {
    for (int k = 0; k < 3; k++) {
        VXR_PRECISE float t = d[k] != 0.0f ? (VXR_F(lo[k] + h) - o[k]) / d[k] : 0.0f;
        tm[k] = t;
    }
}

/* The child of a cube with mid planes tm (half edge h) that the ray is in
 * once it has entered at t0, and the axes whose mid plane it has yet to
 * cross: child | live << 3 (child bit 2 - k for axis k, live bit k). */
VXR_FN vxr_uint vxr_enter_child(VXR_IN_VEC3(o), VXR_IN_VEC3(d), VXR_IN_IVEC3(lo), int h, float t0,
                                VXR_IN_VEC3(tm)) {
    vxr_uint child = 0u, live = 0u;
    for (int k = 0; k < 3; k++) {
        bool upper;
        if (d[k] == 0.0f) {
            upper = o[k] >= VXR_F(lo[k] + h);
        } else {
            bool crossed = tm[k] <= t0;
            upper = d[k] > 0.0f ? crossed : !crossed;
            if (!crossed) live |= 1u << VXR_U(k);
        }
        if (upper) child |= 1u << VXR_U(2 - k);
    }
    return child | live << 3u;
}

/* The next mid plane the ray crosses after the child of state (child |
 * live << 3), or texit when it crosses none before leaving the cube. */
VXR_FN float vxr_next_crossing(VXR_IN_VEC3(tm), vxr_uint state, float texit) {
    VXR_PRECISE float tnext = texit;
    for (int k = 0; k < 3; k++)
        if ((state & (8u << VXR_U(k))) != 0u && tm[k] < tnext) tnext = tm[k];
    return tnext;
}

/* The state after crossing the mid planes at tnext: every live axis whose
 * plane lies there flips its child bit and is no longer live. */
VXR_FN vxr_uint vxr_cross(VXR_IN_VEC3(tm), vxr_uint state, float tnext) {
    for (int k = 0; k < 3; k++)
        if ((state & (8u << VXR_U(k))) != 0u && tm[k] == tnext)
            state ^= (8u << VXR_U(k)) | (1u << VXR_U(2 - k));
    return state;
}

/* The entry parameter of a ray into the box [lo - pad, hi + pad] (closed
 * slabs) if below t_max, else VXR_INF; 0 when the origin is inside. */
VXR_FN float vxr_box_enter(VXR_IN_VEC3(ro), VXR_IN_VEC3(rd), VXR_IN_VEC3(lo), VXR_IN_VEC3(hi),
                           float pad, float t_max) {
    /* No early exit: a only grows and b only shrinks, so a > b at the
     * end exactly when it held after some axis; straight code runs
     * cheaper under a lane mask. */
    VXR_PRECISE float a = 0.0f;
    VXR_PRECISE float b = t_max;
    bool outside = false;
    for (int k = 0; k < 3; k++) {
        VXR_PRECISE float l = lo[k] - pad;
        VXR_PRECISE float h = hi[k] + pad;
        bool level = rd[k] == 0.0f; /* parallel to the slab */
        outside = outside || (level && (ro[k] < l || ro[k] > h));
        VXR_PRECISE float t0 = (l - ro[k]) / rd[k];
        VXR_PRECISE float t1 = (h - ro[k]) / rd[k];
        VXR_PRECISE float tn = t0 > t1 ? t1 : t0;
        VXR_PRECISE float tf = t0 > t1 ? t0 : t1;
        if (!level && tn > a) a = tn;
        if (!level && tf < b) b = tf;
    }
    return outside || a > b ? VXR_INF : a;
}

/* m * (p, 1) and m * (v, 0) for a 3x4 affine given by rows. */
VXR_FN void vxr_affine_point(VXR_IN_ROWS(m), VXR_IN_VEC3(p), VXR_OUT_VEC3(dest)) {
    for (int r = 0; r < 3; r++) {
        VXR_PRECISE float v = VXR_ROW(m, r, 0) * p[0] + VXR_ROW(m, r, 1) * p[1] +
                              VXR_ROW(m, r, 2) * p[2] + VXR_ROW(m, r, 3);
        dest[r] = v;
    }
}

VXR_FN void vxr_affine_dir(VXR_IN_ROWS(m), VXR_IN_VEC3(v), VXR_OUT_VEC3(dest)) {
    for (int r = 0; r < 3; r++) {
        VXR_PRECISE float w =
            VXR_ROW(m, r, 0) * v[0] + VXR_ROW(m, r, 1) * v[1] + VXR_ROW(m, r, 2) * v[2];
        dest[r] = w;
    }
}

/* (d0, d1, d2) / its length. */
VXR_FN void vxr_normalize(float d0, float d1, float d2, VXR_OUT_VEC3(dest)) {
    VXR_PRECISE float len = VXR_SQRT(d0 * d0 + d1 * d1 + d2 * d2);
    VXR_PRECISE float n0 = d0 / len;
    VXR_PRECISE float n1 = d1 / len;
    VXR_PRECISE float n2 = d2 / len;
    dest[0] = n0;
    dest[1] = n1;
    dest[2] = n2;
}

/* The direction of the ray through the centre of pixel (i, j) of a w x h
 * image, row 0 at the top (DESIGN.md §2): normalize(f + x r + y u). */
VXR_FN void vxr_camera_dir(VXR_IN_VEC3(f), VXR_IN_VEC3(r), VXR_IN_VEC3(u), float tan_half_fov,
                           float aspect, vxr_uint i, vxr_uint j, vxr_uint w, vxr_uint h,
                           VXR_OUT_VEC3(dest)) {
    VXR_PRECISE float x = (2.0f * (VXR_F(i) + 0.5f) / VXR_F(w) - 1.0f) * tan_half_fov * aspect;
    VXR_PRECISE float y = (1.0f - 2.0f * (VXR_F(j) + 0.5f) / VXR_F(h)) * tan_half_fov;
    VXR_PRECISE float d0 = f[0] + x * r[0] + y * u[0];
    VXR_PRECISE float d1 = f[1] + x * r[1] + y * u[1];
    VXR_PRECISE float d2 = f[2] + x * r[2] + y * u[2];
    vxr_normalize(d0, d1, d2, dest);
}

/* The ray origin of pixel (i, j) of an orthographic camera (vxr/camera.h):
 * o + x r + y u with x, y the pixel centre as vxr_camera_dir takes it
 * (tan_half_fov = aspect = 1); its direction is f. */
VXR_FN void vxr_ortho_origin(VXR_IN_VEC3(o), VXR_IN_VEC3(r), VXR_IN_VEC3(u), vxr_uint i, vxr_uint j,
                             vxr_uint w, vxr_uint h, VXR_OUT_VEC3(dest)) {
    VXR_PRECISE float x = 2.0f * (VXR_F(i) + 0.5f) / VXR_F(w) - 1.0f;
    VXR_PRECISE float y = 1.0f - 2.0f * (VXR_F(j) + 0.5f) / VXR_F(h);
    for (int k = 0; k < 3; k++) {
        VXR_PRECISE float v = o[k] + x * r[k] + y * u[k];
        dest[k] = v;
    }
}

/* The depth of the point at t along a ray: clip z / clip w of the point,
 * z and w given by the rows dz, dw of the view-projection (xyz times the
 * point, plus w), clamped to [0, 1] (what a depth image holds). */
VXR_FN float vxr_clip_depth(VXR_IN_VEC3(o), VXR_IN_VEC3(d), float t, VXR_IN_VEC4(dz),
                            VXR_IN_VEC4(dw)) {
    VXR_PRECISE float p0 = o[0] + t * d[0];
    VXR_PRECISE float p1 = o[1] + t * d[1];
    VXR_PRECISE float p2 = o[2] + t * d[2];
    VXR_PRECISE float z = dz[0] * p0 + dz[1] * p1 + dz[2] * p2 + dz[3];
    VXR_PRECISE float w = dw[0] * p0 + dw[1] * p1 + dw[2] * p2 + dw[3];
    VXR_PRECISE float depth = z / w;
    return depth > 0.0f ? (depth < 1.0f ? depth : 1.0f) : 0.0f;
}

/* The children of a brick (bit o: octant o's byte of the 64-bit occupancy
 * lo | hi << 32 is non-zero), and the voxels of its octant o. */
VXR_FN vxr_uint vxr_brick_children(vxr_uint lo, vxr_uint hi) {
    vxr_uint a = lo | (lo >> 4u), b = hi | (hi >> 4u);
    a |= a >> 2u;
    b |= b >> 2u;
    a |= a >> 1u;
    b |= b >> 1u;
    a &= 0x01010101u;
    b &= 0x01010101u;
    a = (a | (a >> 7u)) & 0x00030003u;
    b = (b | (b >> 7u)) & 0x00030003u;
    a = (a | (a >> 14u)) & 15u;
    b = (b | (b >> 14u)) & 15u;
    return a | b << 4u;
}

VXR_FN vxr_uint vxr_brick_octant(vxr_uint lo, vxr_uint hi, vxr_uint o) {
    return ((o < 4u ? lo : hi) >> (8u * (o & 3u))) & 255u;
}

/* The face of the hit cube the ray enters through, from the entry axis and
 * the direction along it (model space); -1 when the origin is inside. */
VXR_FN int vxr_entry_face(int axis, float d_axis) {
    if (axis < 0) return -1;
    int f = 2 * axis + (d_axis < 0.0f ? 1 : 0);
    return axis == 2 ? f ^ 1 : f; /* 4 is +Z top, 5 is -Z bottom */
}

/* Corner c of the cube [lo, lo + n)^3, component k. */
VXR_FN float vxr_corner_at(VXR_IN_IVEC3(lo), float n, vxr_uint c, int k) {
    return VXR_F(lo[k]) + (((c >> VXR_U(2 - k)) & 1u) != 0u ? n : 0.0f);
}

/* On face `face` of the hit cube [lo, lo + 2^level)^3, entered at o + t d
 * (model space): the nearest corner and the edge with the nearest midpoint
 * by squared distance (ties: the lower id), as corner | edge << 8; both
 * -1 (0xff each) when face is -1. */
VXR_FN vxr_uint vxr_nearest_corner_edge(VXR_IN_IVEC3(lo), vxr_uint level, VXR_IN_VEC3(o),
                                        VXR_IN_VEC3(d), float t, int face) {
    if (face < 0) return 0xffffu;
    VXR_PRECISE float p0 = o[0] + t * d[0];
    VXR_PRECISE float p1 = o[1] + t * d[1];
    VXR_PRECISE float p2 = o[2] + t * d[2];
    VXR_PRECISE float n = VXR_F(1u << level);
    VXR_PRECISE float best = VXR_INF;
    vxr_uint f = VXR_U(face), corner = VXR_FACE_CORNER(f, 0u), edge = VXR_FACE_EDGE(f, 0u);
    for (vxr_uint j = 0u; j < 4u; j++) {
        vxr_uint c = VXR_FACE_CORNER(f, j);
        VXR_PRECISE float x = p0 - vxr_corner_at(lo, n, c, 0);
        VXR_PRECISE float y = p1 - vxr_corner_at(lo, n, c, 1);
        VXR_PRECISE float z = p2 - vxr_corner_at(lo, n, c, 2);
        VXR_PRECISE float dist = 0.0f + x * x + y * y + z * z;
        if (dist < best) {
            best = dist;
            corner = c;
        }
    }
    best = VXR_INF;
    for (vxr_uint j = 0u; j < 4u; j++) {
        vxr_uint e = VXR_FACE_EDGE(f, j), c0 = VXR_EDGE_CORNER(e, 0u), c1 = VXR_EDGE_CORNER(e, 1u);
        VXR_PRECISE float x =
            p0 - (vxr_corner_at(lo, n, c0, 0) + vxr_corner_at(lo, n, c1, 0)) * 0.5f;
        VXR_PRECISE float y =
            p1 - (vxr_corner_at(lo, n, c0, 1) + vxr_corner_at(lo, n, c1, 1)) * 0.5f;
        VXR_PRECISE float z =
            p2 - (vxr_corner_at(lo, n, c0, 2) + vxr_corner_at(lo, n, c1, 2)) * 0.5f;
        VXR_PRECISE float dist = 0.0f + x * x + y * y + z * z;
        if (dist < best) {
            best = dist;
            edge = e;
        }
    }
    return corner | edge << 8u;
}

/* A pick record's shape word (vxr_layout.h): level | face << 8 |
 * corner << 16 | edge << 24, ids as 8-bit two's complement. */
VXR_FN vxr_uint vxr_pick_shape(vxr_uint level, int face, vxr_uint corner_edge) {
    return level | (VXR_U(face) & 255u) << 8u | corner_edge << 16u;
}

/* Level of detail (vxr_layout.h): whether a cube of edge `size` in model
 * units, of an instance of scale `scale`, entered at t0, stops the walk:
 * its world edge is below the footprint lod0 + lodt * t0 (a perspective
 * frame's lod0 is 0, an orthographic one's lodt; both 0: never). */
VXR_FN bool vxr_lod_stop(float size, float scale, float lod0, float lodt, float t0) {
    VXR_PRECISE float edge = size * scale;
    VXR_PRECISE float footprint = lod0 + lodt * t0;
    return edge < footprint;
}

/* The rounded mean of n > 0 colours whose channels (RGBA8, red low) sum
 * to r, g, b, a: a cube's colour from its occupied children's. */
VXR_FN vxr_uint vxr_lod_mean(vxr_uint r, vxr_uint g, vxr_uint b, vxr_uint a, vxr_uint n) {
    vxr_uint h = n / 2u;
    return (r + h) / n | ((g + h) / n) << 8 | ((b + h) / n) << 16 | ((a + h) / n) << 24;
}

#endif
