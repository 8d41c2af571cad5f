#version 450
// The viewer's pick overlay (tools/view_vulkan.c): lines and tinted
// triangles in eye-relative world coordinates, projected with the camera of
// DESIGN.md §2 (view_proj is built on the CPU; its depth row keeps every
// point in front of a near plane and has no far plane).
layout(push_constant) uniform Push {
    mat4 view_proj;
} pc;
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 v_color;

void main() {
    gl_Position = pc.view_proj * vec4(position, 1.0);
    v_color = color;
}
