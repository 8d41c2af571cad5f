/* denoise.comp: an edge-avoiding a-trous wavelet filter (Dammertz et al.
 * 2010, "Edge-Avoiding A-Trous Wavelet Transform for fast Global
 * Illumination Filtering") over a light frame's light, guided by the
 * per-pixel outputs: the normal, the plane of the hit face (from the hit's
 * distance) and the hit itself. It filters light, not colour: the sums are
 * divided by the albedo's part first (lit: the sky's light and the sun's
 * visibility; path: radiance over albedo), and the albedo multiplies the
 * filtered light again at the end, so textures stay sharp.
 *
 * Pass k (push ray_count) of VXR_DENOISE_PASSES spreads its 5 x 5 taps
 * 2^k pixels apart; pass 0 reads the sums, the others the last pass's
 * light, and the last one writes the colour image (sRGB codes, as
 * trace.comp writes them). Not exact against the CPU: a frame's pick
 * records and outputs are those of trace.comp, untouched. */
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
    vec4 work[]; /* two halves of width * height: the passes' light, alternating */
};

uint plane_at;
/* Taps further than about SIGMA_VOXELS voxels (of the pixel's instance)
 * count less: occlusion changes at a voxel's scale near creases. From pass
 * LUM_PASS on, the light is smooth enough to guide too (as in Schied et al.
 * 2017, "Spatiotemporal Variance-Guided Filtering"): taps whose light
 * differs from the centre's by more than about SIGMA_LUM of it count less,
 * which keeps the occlusion's real gradients. Chosen by tools/denoise_check.py
 * on store8, @demo, the study and floooh's scene (BENCHMARKS.md). */
#define SIGMA_VOXELS 4.0
#define LUM_PASS     2u
#define SIGMA_LUM    0.15

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

void main() {
    uvec2 px = gl_GlobalInvocationID.xy;
    if (px.x >= pc.width || px.y >= pc.height) return;
    plane_at = pc.width * pc.height;
    uint i = px.y * pc.width + px.x, pass = pc.ray_count;
    uint src = ((pass + 1u) & 1u) * plane_at, dst = (pass & 1u) * plane_at;
    bool last = pass + 1u == VXR_DENOISE_PASSES;
    vec4 filtered = vec4(0.0);
    if (is_hit(i)) {
        vec3 n = aov3(VXR_AOV_NORMAL, i), p = hit_point(px, i);
        float t = aov[VXR_AOV_T * plane_at + i];
        /* a plane step of a voxel at this distance is far outside sigma */
        float sigma_plane = 0.002 * t + 0.01;
        int step = 1 << int(pass);
        uint inst = floatBitsToUint(aov[VXR_AOV_INSTANCE * plane_at + i]);
        float sw = SIGMA_VOXELS * instance_texel(inst, VXR_INSTANCE_MISC).x;
        float inv_world = 0.5 / (sw * sw);
        const float h[3] = float[3](0.375, 0.25, 0.0625);
        vec4 centre = pass == 0u ? light_of(i) : work[src + i];
        vec4 sum = vec4(0.0);
        float wsum = 0.0;
        for (int dy = -2; dy <= 2; dy++)
            for (int dx = -2; dx <= 2; dx++) {
                ivec2 q = ivec2(px) + ivec2(dx, dy) * step;
                if (q.x < 0 || q.y < 0 || q.x >= int(pc.width) || q.y >= int(pc.height)) continue;
                uint j = uint(q.y) * pc.width + uint(q.x);
                if (!is_hit(j)) continue;
                vec3 nq = aov3(VXR_AOV_NORMAL, j);
                float wn = pow(max(dot(n, nq), 0.0), 64.0);
                vec3 dq = hit_point(uvec2(q), j) - p;
                float dist = abs(dot(n, dq));
                vec4 l = pass == 0u ? light_of(j) : work[src + j];
                float wl = 1.0;
                if (pass >= LUM_PASS) {
                    float a = l.x + l.y + l.z, b = centre.x + centre.y + centre.z;
                    wl = exp(-abs(a - b) / (SIGMA_LUM * (a + b) * 0.5 + 1e-4));
                }
                float w = h[abs(dx)] * h[abs(dy)] * wn * exp(-dist / sigma_plane) *
                          exp(-dot(dq, dq) * inv_world) * wl;
                sum += w * l;
                wsum += w;
            }
        filtered = wsum > 0.0 ? sum / wsum : centre;
        /* hard shadows are exact at one sample: only a wide sun's are noisy */
        if (fr.model == VXR_LIGHT_LIT && fr.sun.w == 0.0) filtered.w = light_of(i).w;
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
