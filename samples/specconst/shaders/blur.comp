#version 450
// SPDX-License-Identifier: MIT
// A separable box blur over a buffer of texels, one row per workgroup: the workgroup size and the radius are
// specialization constants (a workgroup size can only ever be one: the fallback route refuses it).
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const int kRadius = 2;
layout(constant_id = 2) const bool kHorizontal = true;

layout(set = 0, binding = 0, std430) readonly buffer Source { vec4 texels[]; } source;
layout(set = 0, binding = 1, std430) writeonly buffer Target { vec4 texels[]; } target;
layout(push_constant) uniform Size { uint width; uint height; } size;

void main() {
  uint x = gl_GlobalInvocationID.x, y = gl_WorkGroupID.y;
  if (x >= size.width || y >= size.height) return;
  vec4 sum = vec4(0.0);
  for (int k = -kRadius; k <= kRadius; ++k) {
    int sx = kHorizontal ? clamp(int(x) + k, 0, int(size.width) - 1) : int(x);
    int sy = kHorizontal ? int(y) : clamp(int(y) + k, 0, int(size.height) - 1);
    sum += source.texels[uint(sy) * size.width + uint(sx)];
  }
  target.texels[y * size.width + x] = sum / float(2 * kRadius + 1);
}
