#version 450
// SPDX-License-Identifier: MIT
// A forward lighting shader with a quality ladder and feature switches, written for the specconst guest:
// the constants a renderer sets per material and per settings preset.
layout(constant_id = 0) const int kQuality = 1;         // 0 low, 1 medium, 2 high: light count and shading model
layout(constant_id = 1) const bool kNormalMap = true;   // perturb the normal with the normal map
layout(constant_id = 2) const bool kFog = false;        // blend towards the fog colour with distance
layout(constant_id = 3) const float kSpecularPower = 32.0;
layout(constant_id = 4) const uint kLightCount = 4u;    // lights read from the block (at most 8)
layout(constant_id = 5) const bool kDebugTint = false;  // declared for tools, read by no code path

layout(location = 0) in vec3 in_normal;
layout(location = 1) in vec3 in_view;
layout(location = 2) in vec2 in_uv;
layout(location = 3) in float in_distance;
layout(location = 0) out vec4 out_color;

layout(set = 0, binding = 0) uniform sampler2D albedo;
layout(set = 0, binding = 1) uniform sampler2D normal_map;
layout(set = 0, binding = 2, std140) uniform Lights {
  vec4 direction[8];  // xyz: towards the light
  vec4 colour[8];
  vec4 ambient;
  vec4 fog_colour;    // rgb; a: density
} lights;

void main() {
  vec3 n = normalize(in_normal);
  if (kNormalMap) n = normalize(n + (texture(normal_map, in_uv).xyz * 2.0 - 1.0) * 0.5);
  vec3 v = normalize(in_view);
  vec3 base = texture(albedo, in_uv).rgb;
  vec3 lit = lights.ambient.rgb * base;
  uint count = kQuality == 0 ? min(kLightCount, 1u) : min(kLightCount, 8u);
  for (uint i = 0u; i < count; ++i) {
    vec3 l = normalize(lights.direction[i].xyz);
    float diffuse = max(dot(n, l), 0.0);
    float specular = 0.0;
    if (kQuality >= 1) specular = pow(max(dot(reflect(-l, n), v), 0.0), kSpecularPower);
    if (kQuality >= 2) specular *= (kSpecularPower + 2.0) / 8.0;  // energy-conserving normalisation
    lit += lights.colour[i].rgb * (base * diffuse + specular);
  }
  if (kFog) lit = mix(lit, lights.fog_colour.rgb, 1.0 - exp(-lights.fog_colour.a * in_distance));
  out_color = vec4(lit, 1.0);
}
