#version 450
// The host's own geometry: a cube with corners at -1..1 in model space,
// drawn without vertex buffers (36 vertices, two triangles per face) and a
// flat colour per face. mvp = proj * view * model, with the same view and
// proj that vxr's camera is made from.
layout(push_constant) uniform Push {
    mat4 mvp;
} pc;
layout(location = 0) flat out vec4 color;

// Faces counter-clockwise seen from outside; corner c is at
// (c & 1, c >> 1 & 1, c >> 2 & 1) * 2 - 1.
const int faces[24] = int[](0, 4, 6, 2, 1, 3, 7, 5, 0, 1, 5, 4, 2, 6, 7, 3, 0, 2, 3, 1, 4, 5, 7, 6);
const int quad[6] = int[](0, 1, 2, 0, 2, 3);
const vec3 colors[6] = vec3[](vec3(0.95, 0.55, 0.20), vec3(0.85, 0.40, 0.15),
                              vec3(0.90, 0.75, 0.25), vec3(0.80, 0.60, 0.20),
                              vec3(0.60, 0.30, 0.10), vec3(1.00, 0.85, 0.45));

void main() {
    int face = gl_VertexIndex / 6;
    int c = faces[face * 4 + quad[gl_VertexIndex % 6]];
    vec3 p = vec3(c & 1, (c >> 1) & 1, (c >> 2) & 1) * 2.0 - 1.0;
    gl_Position = pc.mvp * vec4(p, 1.0);
    color = vec4(colors[face], 1.0);
}
