#version 450
// SPDX-License-Identifier: MIT
// The vertex stage of the post-process chain: a full-screen triangle, optionally flipped for targets whose
// origin is at the bottom.
layout(constant_id = 0) const bool kFlipY = false;

layout(location = 0) out vec2 out_uv;

void main() {
  vec2 corner = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2));
  out_uv = kFlipY ? vec2(corner.x, 1.0 - corner.y) : corner;
  gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
