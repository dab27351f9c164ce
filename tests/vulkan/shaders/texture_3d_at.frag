#version 450
// Samples the 3D texture at the coordinates of the flat attribute (its xyz).
layout(set = 0, binding = 1) uniform sampler3D tex;
layout(location = 0) flat in vec4 v_attribute;
layout(location = 0) out vec4 colour;
void main() {
  colour = texture(tex, v_attribute.xyz);
}
