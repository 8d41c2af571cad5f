#version 450
// The viewer's pick overlay: a flat colour, alpha-blended over the frame.
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 out_color;

void main() {
    out_color = v_color;
}
