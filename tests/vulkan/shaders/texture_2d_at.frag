#version 450
// Samples the 2D texture at the coordinates of the flat attribute (its xy).
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(location = 0) flat in vec4 v_attribute;
layout(location = 0) out vec4 colour;
void main() {
  colour = texture(tex, v_attribute.xy);
}
