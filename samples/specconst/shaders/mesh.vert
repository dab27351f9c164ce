#version 450
// SPDX-License-Identifier: MIT
// The vertex stage of the lighting shader's meshes: world transform from push constants, and an optional wind
// sway for foliage (a per-material switch, the kind of constant a renderer specializes).
layout(constant_id = 0) const bool kWindSway = false;
layout(constant_id = 1) const float kSwayAmplitude = 0.05;

layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;

layout(location = 0) out vec3 out_normal;
layout(location = 1) out vec3 out_view;
layout(location = 2) out vec2 out_uv;
layout(location = 3) out float out_distance;

layout(push_constant, std430) uniform Transform {
  mat4 clip_from_world;
  vec4 eye;   // xyz: camera position; w: time in seconds (wind)
} pc;

void main() {
  vec3 world = in_position;
  if (kWindSway) world.x += sin(pc.eye.w * 2.0 + world.y) * kSwayAmplitude * in_uv.y;
  out_normal = in_normal;
  out_view = pc.eye.xyz - world;
  out_uv = in_uv;
  out_distance = length(out_view);
  gl_Position = pc.clip_from_world * vec4(world, 1.0);
}
