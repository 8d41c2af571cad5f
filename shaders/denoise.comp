/* denoise.comp: an edge-avoiding a-trous wavelet filter (Dammertz et al.
 * 2010, "Edge-Avoiding A-Trous Wavelet Transform for fast Global
 * Illumination Filtering") over a light frame's light, guided by the
 * per-pixel outputs: the normal, the plane of the hit face (from the hit's
 * distance) and the hit itself. It filters light, not colour: the sums are
 * divided by the albedo's part first (lit: the sky's light and the sun's
 * visibility; path: radiance over albedo), and the albedo multiplies the
 * filtered light again at the end, so textures stay sharp.
 *
 * lit: the sky's light is filtered as a ratio: divided by the light of an
 * open sky on the face (open_sky) and by a voxel proxy of its occlusion
 * (occlusion_proxy: the occupancy of the cells around the hit face, its
 * corners as voxel engines shade vertices, Lysenko 2012, "Ambient
 * occlusion for Minecraft-like worlds"), and multiplied by both again at
 * the end. The occlusion that changes within a voxel of a crease or a pit
 * is the proxy's, so the filter averages what is left, which changes
 * slowly, over more taps (a ratio estimator, as light over albedo is one).
 *
 * Pass 0 (push ray_count) reads the sums and writes the light to filter
 * and the guide (the hit point, the proxies);
 * pass k > 0 of VXR_DENOISE_PASSES spreads its 3 x 3 taps 2^(k-1) pixels
 * apart over the last pass's light, and the last one writes the colour
 * image (sRGB codes, as trace.comp writes them). Not exact against the
 * CPU: a frame's pick records and outputs are those of trace.comp,
 * untouched. */
#version 450
#extension GL_GOOGLE_include_directive : require
#include "vxr_trace.h"
#include "vxr_light.h"
#include "vxr_scene.glsl"

layout(local_size_x_id = VXR_SPEC_LOCAL_X, local_size_y_id = VXR_SPEC_LOCAL_Y) in;

layout(push_constant, std430) uniform Push{VXR_PUSH_MEMBERS} pc;

layout(set = VXR_SET_TARGET, binding = VXR_BIND_IMAGE) writeonly uniform image2D color_image;
layout(set = VXR_SET_TARGET, binding = VXR_BIND_FRAME, std430) readonly buffer Frame {
    VXR_FRAME_DATA_MEMBERS;
}
fr;
layout(set = VXR_SET_TARGET, binding = VXR_BIND_ACCUM, std430) readonly buffer Accum {
    vec4 accum[];
};
layout(set = VXR_SET_TARGET, binding = VXR_BIND_AOV, std430) readonly buffer Aov {
    float aov[];
};
layout(set = VXR_SET_TARGET, binding = VXR_BIND_DENOISE, std430) buffer Light {
    vec4 work[]; /* 3 planes of width * height: the passes' light (alternating), the guide */
};

uint plane_at;
/* The filter's guides, chosen by tools/denoise_check.py on store8, @demo,
 * the study and floooh's scene (BENCHMARKS.md). A tap counts less:
 * - further than about LIT_SIGMA_VOXELS (path: PATH_SIGMA_VOXELS) voxels
 *   (of the pixel's instance) away;
 * - off the pixel's face plane: lit, by more than about PLANE_VOXELS
 *   voxels; path, by more than a hundredth of a unit or so;
 * - on a face turned away from the pixel's: lit, NORMAL_FLOOR at right
 *   angles; path, hardly at all;
 * - lit: whose face's proxy (its mean over the face) differs from the
 *   pixel's by more than about SIGMA_PROXY: a pit's floor is not lit like
 *   the open ground around it;
 * - path, from pass LUM_PASS on, when the light is smooth enough to guide
 *   too (as in Schied et al. 2017, "Spatiotemporal Variance-Guided
 *   Filtering"): whose light differs from the centre's by more than about
 *   SIGMA_LUM of it, which keeps real gradients.
 * A lit pixel that finds less than SUPPORT of its own weight in taps on
 * its plane (a face seen alone) takes the taps off its plane instead. */
#define LIT_SIGMA_VOXELS  12.0
#define PATH_SIGMA_VOXELS 4.0
#define PLANE_VOXELS      2.0
#define NORMAL_FLOOR      0.7
#define SIGMA_PROXY       0.4
#define SUPPORT           0.1
#define LUM_PASS          3u
#define SIGMA_LUM         0.15
/* The proxy: what one closed side or corner of a face's corner takes off
 * (3 closed: 1 - 3 * PROXY_STEP); the lines of cells further out, and what
 * is left of the proxy when every one of them is closed. */
#define PROXY_STEP  0.25
#define PROXY_REACH 4
#define PROXY_FLOOR 0.3

vec3 aov3(uint plane, uint i) {
    return vec3(aov[plane * plane_at + 3u * i], aov[plane * plane_at + 3u * i + 1u],
                aov[plane * plane_at + 3u * i + 2u]);
}

bool is_hit(uint i) {
    return floatBitsToUint(aov[VXR_AOV_INSTANCE * plane_at + i]) != VXR_PICK_MISS;
}

vec3 ray_dir(uvec2 px) {
    vec3 d;
    vxr_camera_dir(pc.forward, pc.right, pc.up, pc.tan_half_fov, pc.aspect, px.x, px.y, pc.width,
                   pc.height, d);
    return d;
}

/* The world point a pixel's ray hit (its origin for an orthographic camera). */
vec3 hit_point(uvec2 px, uint i) {
    float t = aov[VXR_AOV_T * plane_at + i];
    if ((pc.flags & VXR_FRAME_PROJECTION) == VXR_FRAME_ORTHO) {
        vec3 o;
        vxr_ortho_origin(pc.eye, pc.right, pc.up, px.x, px.y, pc.width, pc.height, o);
        return o + t * pc.forward;
    }
    return pc.eye + t * ray_dir(px);
}

/* The light to filter at pixel i: lit: the sky's light (xyz) and the sun's
 * visibility (w); path: radiance over albedo. */
vec4 light_of(uint i) {
    float n = float(fr.sample_end);
    vec4 s = accum[2u * i];
    if (fr.model == VXR_LIGHT_LIT) return s / n;
    vec3 albedo = aov3(VXR_AOV_ALBEDO, i);
    vec3 l = s.xyz / n;
    return vec4(albedo.x > 0.0 ? l.x / albedo.x : 0.0, albedo.y > 0.0 ? l.y / albedo.y : 0.0,
                albedo.z > 0.0 ? l.z / albedo.z : 0.0, 0.0);
}

/* A model's octree as occupied() reads it: its origin, depth and first
 * node (vxr_layout.h's model table). */
struct octree {
    ivec3 origin;
    uint depth, base;
};

/* Whether model cell c (model space) of m holds a voxel: a descent by
 * octant through the node format of vxr_layout.h. */
bool occupied(octree m, ivec3 c) {
    ivec3 r = c - m.origin;
    if (any(lessThan(r, ivec3(0))) || any(greaterThanEqual(r, ivec3(1 << m.depth)))) return false;
    uvec3 u = uvec3(r);
    uint n = 0u;
    for (uint level = m.depth; level > 2u; level--) {
        uvec2 nd = node_at(m.base + n);
        uvec3 b = (u >> (level - 1u)) & 1u;
        uint oct = b.x << 2u | b.y << 1u | b.z;
        if ((nd.x & (1u << oct)) == 0u) return false;
        n = nd.y + uint(bitCount(nd.x & ((1u << oct) - 1u)));
    }
    uvec2 brick = node_at(m.base + n);
    uvec3 a = (u >> 1u) & 1u, v = u & 1u;
    uint bit = 8u * (a.x << 2u | a.y << 1u | a.z) + (v.x << 2u | v.y << 1u | v.z);
    return ((bit < 32u ? brick.x : brick.y) >> (bit & 31u) & 1u) != 0u;
}

/* The occlusion proxy at world point p on a face of normal n of instance
 * inst, in (0, 1]: x at p, y its mean over the face. Each corner of the
 * face counts its two closed sides and closed corner cell in the layer in
 * front of the face (both sides closed: 3), interpolated across the face;
 * times the share of nine lines of PROXY_REACH cells from the front cell
 * (the normal's and its 45-degree neighbours', cosine-weighted) that are
 * open. */
vec2 occlusion_proxy(uint inst, vec3 p, vec3 n) {
    vec4 w2l[3] = vec4[3](instance_texel(inst, VXR_INSTANCE_TO_LOCAL),
                          instance_texel(inst, VXR_INSTANCE_TO_LOCAL + 1u),
                          instance_texel(inst, VXR_INSTANCE_TO_LOCAL + 2u));
    vec3 q, nl;
    vxr_affine_point(w2l, p, q);
    vxr_affine_dir(w2l, n, nl);
    vec3 an = abs(nl);
    int ax = an.x >= an.y && an.x >= an.z ? 0 : (an.y >= an.z ? 1 : 2);
    int au = (ax + 1) % 3, av = (ax + 2) % 3;
    ivec3 N = ivec3(0), U = ivec3(0), V = ivec3(0);
    N[ax] = nl[ax] > 0.0 ? 1 : -1;
    U[au] = 1;
    V[av] = 1;
    ivec3 cell = ivec3(floor(q - 0.5 * vec3(N)));
    ivec3 f = cell + N;
    uint model = FETCH(instances, VXR_INSTANCE_TEXELS * inst + VXR_INSTANCE_MIN).w;
    /* a model without nodes closes nothing */
    if (FETCH(models, VXR_MODEL_TEXELS * model + VXR_MODEL_COUNTS).x == 0u) return vec2(1.0);
    uvec4 origin = FETCH(models, VXR_MODEL_TEXELS * model + VXR_MODEL_ORIGIN);
    octree m = octree(ivec3(origin.xyz), origin.w,
                      FETCH(models, VXR_MODEL_TEXELS * model + VXR_MODEL_BASES).x);
    float s[9];
    for (int k = 0; k < 9; k++) {
        int du = k % 3 - 1, dv = k / 3 - 1;
        s[k] = k != 4 && occupied(m, f + du * U + dv * V) ? 1.0 : 0.0;
    }
    float fu = clamp(q[au] - float(cell[au]), 0.0, 1.0),
          fv = clamp(q[av] - float(cell[av]), 0.0, 1.0);
    float sum = 0.0, mean = 0.0;
    for (int k = 0; k < 4; k++) {
        int cu = k & 1, cv = k >> 1;
        float side1 = s[4 + (2 * cu - 1)], side2 = s[4 + 3 * (2 * cv - 1)],
              corner = s[4 + (2 * cu - 1) + 3 * (2 * cv - 1)];
        float closed = side1 * side2 > 0.0 ? 3.0 : side1 + side2 + corner;
        float w = (cu == 1 ? fu : 1.0 - fu) * (cv == 1 ? fv : 1.0 - fv),
              open_corner = 1.0 - PROXY_STEP * closed;
        sum += w * open_corner;
        mean += 0.25 * open_corner;
    }
    /* further out: nine straight lines of cells from the face's front cell,
     * the normal's and its 45-degree neighbours', each open or not */
    float open = 0.0, all = 0.0;
    for (int k = 0; k < 9; k++) {
        int du = k % 3 - 1, dv = k / 3 - 1;
        ivec3 d = N + du * U + dv * V;
        float w = k == 4 ? 1.0 : (du == 0 || dv == 0 ? 0.7071 : 0.5774);
        bool clear = true;
        for (int st = 1; st <= PROXY_REACH && clear; st++) clear = !occupied(m, f + st * d);
        open += clear ? w : 0.0;
        all += w;
    }
    float mid = PROXY_FLOOR + (1.0 - PROXY_FLOOR) * open / all;
    return vec2(sum, mean) * mid;
}

/* The light of an open sky on a face of normal n: vxr_sky over n's
 * hemisphere with density cos / pi, as the occlusion rays are drawn. The
 * integral of max(d.z, 0) max(d.n, 0) over the sphere is (2/3) ((pi - a)
 * cos a + sin a), a the angle from n to +z. */
vec3 open_sky(vec3 n) {
    float c = clamp(n.z, -1.0, 1.0), a = acos(c);
    float g = (2.0 / (3.0 * 3.14159265)) * ((3.14159265 - a) * c + sqrt(max(1.0 - c * c, 0.0)));
    return max(fr.horizon.xyz + (fr.zenith.xyz - fr.horizon.xyz) * g, vec3(1e-4));
}

void main() {
    uvec2 px = gl_GlobalInvocationID.xy;
    if (px.x >= pc.width || px.y >= pc.height) return;
    plane_at = pc.width * pc.height;
    uint i = px.y * pc.width + px.x, pass = pc.ray_count;
    uint src = ((pass + 1u) & 1u) * plane_at, dst = (pass & 1u) * plane_at;
    bool last = pass + 1u == VXR_DENOISE_PASSES;
    vec4 filtered = vec4(0.0);
    if (is_hit(i)) {
        vec3 n = aov3(VXR_AOV_NORMAL, i);
        uint inst = floatBitsToUint(aov[VXR_AOV_INSTANCE * plane_at + i]);
        bool lit = fr.model == VXR_LIGHT_LIT;
        if (pass == 0u) {
            /* the guide plane: the hit point, and the pixel's proxy and its
             * face's (half floats) */
            vec3 p = hit_point(px, i);
            vec2 proxy = lit ? occlusion_proxy(inst, p, n) : vec2(1.0);
            filtered = light_of(i);
            if (lit) filtered.xyz /= proxy.x * open_sky(n);
            work[2u * plane_at + i] = vec4(p, uintBitsToFloat(packHalf2x16(proxy)));
        } else {
            vec4 guide = work[2u * plane_at + i];
            vec3 p = guide.xyz;
            vec2 proxy = unpackHalf2x16(floatBitsToUint(guide.w));
            float scale = instance_texel(inst, VXR_INSTANCE_MISC).x;
            float t = aov[VXR_AOV_T * plane_at + i];
            float sigma_plane = 0.002 * t + 0.01 + (lit ? PLANE_VOXELS * scale : 0.0);
            float sigma_world = (lit ? LIT_SIGMA_VOXELS : PATH_SIGMA_VOXELS) * scale;
            float inv_world = 0.5 / (sigma_world * sigma_world);
            float inv_proxy = 1.0 / (SIGMA_PROXY * SIGMA_PROXY);
            int step = 1 << int(pass - 1u);
            const float h[2] = float[2](0.5, 0.25); /* the linear B-spline: 3 x 3 taps */
            vec4 centre = work[src + i];
            vec4 sum = vec4(0.0), off_sum = vec4(0.0);
            float wsum = 0.0, off_wsum = 0.0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    ivec2 q = ivec2(px) + ivec2(dx, dy) * step;
                    if (q.x < 0 || q.y < 0 || q.x >= int(pc.width) || q.y >= int(pc.height))
                        continue;
                    uint j = uint(q.y) * pc.width + uint(q.x);
                    if (!is_hit(j)) continue;
                    vec4 gq = work[2u * plane_at + j];
                    vec3 dq = gq.xyz - p;
                    float dist = abs(dot(n, dq)) / sigma_plane;
                    vec4 l = work[src + j];
                    float w = h[abs(dx)] * h[abs(dy)] * exp(-dot(dq, dq) * inv_world);
                    if (lit) {
                        float dp = unpackHalf2x16(floatBitsToUint(gq.w)).y - proxy.y;
                        float wn = pow(max(dot(n, aov3(VXR_AOV_NORMAL, j)), 0.0), 8.0);
                        w *= (NORMAL_FLOOR + (1.0 - NORMAL_FLOOR) * wn) * exp(-dp * dp * inv_proxy);
                        off_sum += w * l;
                        off_wsum += w;
                        w *= exp(-dist * dist);
                    } else {
                        w *= pow(max(dot(n, aov3(VXR_AOV_NORMAL, j)), 0.0), 64.0) * exp(-dist);
                        if (pass >= LUM_PASS) {
                            float a = l.x + l.y + l.z, b = centre.x + centre.y + centre.z;
                            w *= exp(-abs(a - b) / (SIGMA_LUM * (a + b) * 0.5 + 1e-4));
                        }
                    }
                    sum += w * l;
                    wsum += w;
                }
            /* the centre's own weight is h[0]^2 */
            float support = clamp((wsum - 0.25) / (SUPPORT * 0.25), 0.0, 1.0);
            filtered = lit ? mix(off_sum / off_wsum, sum / wsum, support) : sum / wsum;
            /* hard shadows are exact at one sample: only a wide sun's are
             * noisy (no lit weight reads the light, so the passes between
             * may average them) */
            if (lit && last) {
                if (fr.sun.w == 0.0) filtered.w = light_of(i).w;
                filtered.xyz *= proxy.x * open_sky(n);
            }
        }
    }
    if (!last) {
        work[dst + i] = filtered;
        return;
    }
    vec3 lin;
    if (!is_hit(i)) {
        vec3 d = (pc.flags & VXR_FRAME_PROJECTION) == VXR_FRAME_ORTHO ? pc.forward : ray_dir(px);
        for (int c = 0; c < 3; c++) lin[c] = vxr_sky(fr.zenith[c], fr.horizon[c], d.z);
    } else {
        vec3 albedo = aov3(VXR_AOV_ALBEDO, i), n = aov3(VXR_AOV_NORMAL, i);
        if (fr.model == VXR_LIGHT_LIT) {
            float cos_sun = max(dot(n, fr.sun.xyz), 0.0);
            lin = albedo * (fr.sun_color.xyz * cos_sun * filtered.w + filtered.xyz);
        } else {
            lin = albedo * filtered.xyz;
        }
        lin += aov3(VXR_AOV_EMIT, i);
    }
    uvec3 code = srgb_encode3(lin);
    uvec2 at = px + uvec2(pc.offset & 0xffffu, pc.offset >> 16u);
    imageStore(color_image, ivec2(at), vec4(vec3(code) / 255.0, 1.0));
}
