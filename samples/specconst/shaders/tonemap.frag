#version 450
// SPDX-License-Identifier: MIT
// The last pass of the post-process chain: exposure, a tone curve picked by a constant, optional vignette and
// dithering, and the output transfer function.
layout(constant_id = 0) const int kCurve = 1;         // 0 clamp, 1 Reinhard, 2 filmic (a rational fit)
layout(constant_id = 1) const bool kVignette = false;
layout(constant_id = 2) const bool kDither = true;
layout(constant_id = 3) const float kExposure = 1.0;
layout(constant_id = 4) const bool kSrgbOutput = true;  // encode for a UNORM target (an sRGB target encodes)

layout(location = 0) in vec2 in_uv;
layout(location = 0) out vec4 out_color;
layout(set = 0, binding = 0) uniform sampler2D scene;

vec3 curve(vec3 x) {
  if (kCurve == 0) return clamp(x, 0.0, 1.0);
  if (kCurve == 1) return x / (1.0 + x);
  return (x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14);
}

void main() {
  vec3 c = curve(texture(scene, in_uv).rgb * kExposure);
  if (kVignette) {
    vec2 d = in_uv - 0.5;
    c *= 1.0 - 0.6 * dot(d, d);
  }
  if (kDither) c += (fract(sin(dot(gl_FragCoord.xy, vec2(12.9898, 78.233))) * 43758.5453) - 0.5) / 255.0;
  if (kSrgbOutput) c = pow(clamp(c, 0.0, 1.0), vec3(1.0 / 2.2));
  out_color = vec4(c, 1.0);
}
