#version 450
// Every kind of input at once: an attribute, one texture of each dimensionality and a uniform block.
layout(set = 0, binding = 0) uniform sampler2D tex2d;
layout(set = 0, binding = 1) uniform sampler3D tex3d;
layout(set = 0, binding = 2) uniform samplerCube tex_cube;
layout(std140, set = 0, binding = 3) uniform Block {
  vec4 value;
} block;
layout(location = 0) flat in vec4 v_attribute;
layout(location = 0) out vec4 colour;
void main() {
  if (v_attribute.x < 0.5) discard;
  colour = vec4(texture(tex2d, vec2(0.5)).r, texture(tex3d, vec3(0.5)).g, texture(tex_cube, vec3(0.0, 0.0, 1.0)).b,
                block.value.a + v_attribute.y);
}
