#version 450
// Position (location 0) from the executor; one flat attribute passed on to the fragment shader.
layout(location = 0) in vec4 position;
layout(location = 1) in vec4 a_value;
layout(location = 0) flat out vec4 v_attribute;
void main() {
  gl_Position = position;
  v_attribute = a_value;
}
