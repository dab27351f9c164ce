#version 450
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(location = 0) out vec4 colour;
void main() {
  colour = texture(tex, vec2(0.25, 1.75));  // outside [0,1]: clamped to the edge
}
