#version 450
layout(location = 0) flat in vec4 v_attribute;
layout(location = 0) out vec4 colour;
void main() {
  if (v_attribute.x < 0.5) discard;
  colour = v_attribute;
}
