#version 450
layout(set = 0, binding = 1) uniform sampler3D tex;
layout(location = 0) out vec4 colour;
void main() {
  colour = texture(tex, vec3(0.5, 0.25, 0.75));
}
