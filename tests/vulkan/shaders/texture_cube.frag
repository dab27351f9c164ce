#version 450
layout(set = 0, binding = 2) uniform samplerCube tex;
layout(location = 0) out vec4 colour;
void main() {
  colour = texture(tex, vec3(-0.3, 1.0, 0.2));
}
