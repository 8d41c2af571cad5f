// The positive control of GPU-assisted validation (tests/gpu_assisted.c):
// writes data.v[p.index] and reads texel p.texel; the test binds 64 bytes
// of each (16 words, 16 texels) and passes indices in or out of range.
// Both buffers are larger than their bindings, so an access past a binding
// that is not caught still lands in the test's own memory.
#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, std430) buffer Data {
    uint v[];
} data;
layout(set = 0, binding = 1) uniform usamplerBuffer texels;
layout(push_constant) uniform Push {
    uint index;
    int texel;
}
p;
void main() {
    data.v[p.index] = 7u;
    data.v[1] = texelFetch(texels, p.texel).x;
}
