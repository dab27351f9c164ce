#version 450
layout(std140, set = 0, binding = 0) uniform Block {
  vec4 unused;
  vec4 colour;
} block;
layout(location = 0) out vec4 colour;
void main() {
  colour = block.colour;
}
