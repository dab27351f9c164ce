#version 450
// Reads its one attribute from location 3 (PipelineSpec::attribute_locations = {3}).
layout(location = 0) in vec4 position;
layout(location = 3) in vec4 a_value;
layout(location = 0) flat out vec4 v_attribute;
void main() {
  gl_Position = position;
  v_attribute = a_value;
}
