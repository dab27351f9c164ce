// SPDX-License-Identifier: MIT
#include "guests/nv2a/texture_shader.hpp"

#include <algorithm>
#include <cmath>

namespace shaderbake::nv2a {

namespace {

using Vec3 = std::array<float, 3>;

uint32_t byte_of(uint32_t argb, int shift) { return (argb >> shift) & 0xFFu; }
uint32_t alpha_of(uint32_t argb) { return byte_of(argb, 24); }
uint32_t red_of(uint32_t argb) { return byte_of(argb, 16); }
uint32_t green_of(uint32_t argb) { return byte_of(argb, 8); }
uint32_t blue_of(uint32_t argb) { return byte_of(argb, 0); }
int int8(uint32_t x) { return x >= 128u ? static_cast<int>(x) - 256 : static_cast<int>(x); }
int int16(uint32_t x) { return x >= 32768u ? static_cast<int>(x) - 65536 : static_cast<int>(x); }

// Texel index along one axis: clamp(floor(coord * size), 0, size - 1). A coordinate that is not a number
// reads texel 0 (the model does not follow the sampler's NaN rules).
uint32_t texel_index(float coord, uint32_t size) {
  if (std::isnan(coord)) return 0;
  const double x = std::floor(static_cast<double>(coord) * size);
  return static_cast<uint32_t>(std::clamp(x, 0.0, static_cast<double>(size - 1)));
}

Error shape_error(uint32_t stage, const char* want) {
  Error e;
  e.kind = ErrorKind::bad_input;
  e.reason = "texture_shape";
  e.message = "texture stage " + std::to_string(stage) + " samples " + want + ", but its texture is not one";
  return e;
}

struct Sampler {
  const TextureImage& image;
  uint32_t stage;

  Result<uint32_t> fetch_2d(float s, float t) const {
    if (image.is_flat()) return image.texels[0];
    if (image.kind != TextureImage::Kind::image_2d) return shape_error(stage, "a 2D texture");
    return image.texels[texel_index(t, image.height) * image.width + texel_index(s, image.width)];
  }

  Result<uint32_t> fetch_3d(float s, float t, float r) const {
    if (image.is_flat()) return image.texels[0];
    if (image.kind != TextureImage::Kind::image_3d) return shape_error(stage, "a 3D texture");
    return image.texels[(texel_index(r, image.depth) * image.height + texel_index(t, image.height)) * image.width +
                        texel_index(s, image.width)];
  }

  // Vulkan's cube face selection: the major axis picks the face, (sc, tc) / |ma| the position on it. A zero
  // direction reads the centre of +X (undefined on every API; chosen so the model is total).
  Result<uint32_t> fetch_cube(float x, float y, float z) const {
    if (image.is_flat()) return image.texels[0];
    if (image.kind != TextureImage::Kind::cube) return shape_error(stage, "a cube texture");
    const float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
    uint32_t face;
    float sc, tc, ma;
    if (ax >= ay && ax >= az) {
      face = x >= 0 ? 0 : 1;
      sc = x >= 0 ? -z : z;
      tc = -y;
      ma = ax;
    } else if (ay >= az) {
      face = y >= 0 ? 2 : 3;
      sc = x;
      tc = y >= 0 ? z : -z;
      ma = ay;
    } else {
      face = z >= 0 ? 4 : 5;
      sc = z >= 0 ? x : -x;
      tc = -y;
      ma = az;
    }
    const float s = ma > 0 ? 0.5f * (sc / ma + 1.0f) : 0.5f, t = ma > 0 ? 0.5f * (tc / ma + 1.0f) : 0.5f;
    const uint32_t size = image.width;
    return image.texels[(face * size + texel_index(t, size)) * size + texel_index(s, size)];
  }
};

// The dot-product mapping of a source texel's channel bytes (R, G, B; HILO modes read A<<8|R and G<<8|B).
Vec3 dot_map(uint32_t mapping, uint32_t src) {
  const uint32_t r = red_of(src), g = green_of(src), b = blue_of(src);
  auto each = [&](auto f) { return Vec3{f(r), f(g), f(b)}; };
  switch (mapping) {
    case 0: return each([](uint32_t x) { return static_cast<float>(x) / 255.0f; });
    case 1: return each([](uint32_t x) { return (static_cast<float>(x) - 128.0f) / 127.0f; });
    case 2: return each([](uint32_t x) { return (static_cast<float>(int8(x)) + 0.5f) / 127.5f; });
    case 3: return each([](uint32_t x) { return static_cast<float>(int8(x)) / 127.0f; });
    case 4: {
      const uint32_t h = alpha_of(src) << 8 | r, l = g << 8 | b;
      return Vec3{static_cast<float>(h) / 65535.0f, static_cast<float>(l) / 65535.0f, 1.0f};
    }
    default: {  // 7, hilo hemisphere (5, 6 and 8-15 are refused before evaluation)
      const float h = static_cast<float>(int16(alpha_of(src) << 8 | r)) / 32767.0f;
      const float l = static_cast<float>(int16(g << 8 | b)) / 32767.0f;
      return Vec3{h, l, std::sqrt(std::max(0.0f, 1.0f - h * h - l * l))};
    }
  }
}

// T as the combiners read a texel: each channel x/255, or 2*int8(x)/255 where the stage flags it signed.
std::array<float, 4> register_of(uint32_t texel, uint8_t signed_mask) {
  auto channel = [&](uint32_t x, uint8_t flag) {
    return (signed_mask & flag) ? 2.0f * static_cast<float>(int8(x)) / 255.0f : static_cast<float>(x) / 255.0f;
  };
  return {channel(red_of(texel), SBK_NV2A_SIGNED_R), channel(green_of(texel), SBK_NV2A_SIGNED_G),
          channel(blue_of(texel), SBK_NV2A_SIGNED_B), channel(alpha_of(texel), SBK_NV2A_SIGNED_A)};
}

class Evaluation {
 public:
  Evaluation(const sbk_nv2a_program& p, const sbk_nv2a_dynamic& d, const TextureInputs& in) : p_(p), d_(d), in_(in) {
    for (uint32_t i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i) mode_[i] = sbk_nv2a_effective_texture_mode(&p, i);
  }

  Result<TextureShaderOutput> run() {
    for (uint32_t i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i) {
      out_.t[i] = {0, 0, 0, 1};  // none, and the T of a stage that leaves it undefined (never read)
      if (Status s = run_stage(i); !s) return std::move(s).error();
    }
    return out_;
  }

 private:
  const std::array<float, 4>& tc(uint32_t i) const { return in_.texcoords[i]; }
  Sampler sampler(uint32_t i) const { return Sampler{in_.textures[i], i}; }

  // dot_i = s_i m.x + t_i m.y + r_i m.z, m from the texel of stage i's input stage.
  float dot(uint32_t i) const {
    const Vec3 m = dot_map(sbk_nv2a_dot_mapping(&p_, i), texel_[sbk_nv2a_input_stage(&p_, i)]);
    return tc(i)[0] * m[0] + tc(i)[1] * m[1] + tc(i)[2] * m[2];
  }

  // A fetched texel through the stage's texel controls: an XRGB texel's alpha reads 0xFF; alpha kill (an
  // alpha of 0 discards) is tested before the colour key (xemu's order; unknown on hardware); the key compares
  // the 32-bit texel (24 bits for XRGB).
  uint32_t controlled(uint32_t i, uint32_t texel) {
    const bool xrgb = p_.texture_format[i] == SBK_NV2A_FORMAT_XRGB8;
    if (xrgb) texel |= 0xFF000000u;
    if (p_.texture_alpha_kill[i] && alpha_of(texel) == 0) out_.discarded = true;
    const uint32_t mask = xrgb ? 0x00FFFFFFu : 0xFFFFFFFFu;
    if ((texel & mask) == (d_.color_keys[i] & mask)) {
      switch (p_.texture_color_key[i]) {
        case SBK_NV2A_COLOR_KEY_KILL_ALPHA: texel &= 0x00FFFFFFu; break;
        case SBK_NV2A_COLOR_KEY_KILL_COLOR: texel = 0; break;
        case SBK_NV2A_COLOR_KEY_DISCARD: out_.discarded = true; break;
        default: break;
      }
    }
    return texel;
  }

  // The stage's texel (the value later stages read as their source, and T) from a fetch result.
  Status take(uint32_t i, Result<uint32_t> fetched) {
    if (!fetched) return std::move(fetched).error();
    texel_[i] = controlled(i, *fetched);
    return ok_status();
  }

  Status bump(uint32_t i) {
    const uint32_t src = texel_[sbk_nv2a_input_stage(&p_, i)];
    const float du = static_cast<float>(int8(blue_of(src))) / 128.0f, dv = static_cast<float>(int8(green_of(src))) / 128.0f;
    const float* w = d_.bump_env_matrix[i];
    const float s = tc(i)[0] + w[0] * du + w[3] * dv, t = tc(i)[1] + w[1] * du + w[2] * dv;
    if (Status st = take(i, sampler(i).fetch_2d(s, t)); !st) return st;
    if (mode_[i] == SBK_NV2A_TEXTURE_BUMPENVMAP_LUMINANCE) {
      // L from the source's red byte, unsigned whatever its sign flag; the factor is not clamped; each colour
      // byte becomes floor(byte * f), kept within 0..255 (alpha unchanged).
      const float f = d_.bump_env_scale[i] * static_cast<float>(red_of(src)) / 255.0f + d_.bump_env_offset[i];
      auto scaled = [&](uint32_t x) {
        const float v = std::floor(static_cast<float>(x) * f);
        return std::isnan(v) ? 0u : static_cast<uint32_t>(std::clamp(v, 0.0f, 255.0f));
      };
      const uint32_t t_ = texel_[i];
      texel_[i] = (t_ & 0xFF000000u) | scaled(red_of(t_)) << 16 | scaled(green_of(t_)) << 8 | scaled(blue_of(t_));
    }
    return ok_status();
  }

  Status run_stage(uint32_t i) {
    const auto& c = tc(i);
    switch (mode_[i]) {
      case SBK_NV2A_TEXTURE_NONE:
        return ok_status();
      case SBK_NV2A_TEXTURE_PROJECT2D:
        if (Status s = take(i, sampler(i).fetch_2d(c[0] / c[3], c[1] / c[3])); !s) return s;
        break;
      case SBK_NV2A_TEXTURE_PROJECT3D:
        if (Status s = take(i, sampler(i).fetch_3d(c[0] / c[3], c[1] / c[3], c[2] / c[3])); !s) return s;
        break;
      case SBK_NV2A_TEXTURE_CUBE:
        if (Status s = take(i, sampler(i).fetch_cube(c[0], c[1], c[2])); !s) return s;
        break;
      case SBK_NV2A_TEXTURE_PASSTHRU:  // no divide; clamped to [0, 1] (the README's choice)
        out_.t[i] = {std::clamp(c[0], 0.0f, 1.0f), std::clamp(c[1], 0.0f, 1.0f), std::clamp(c[2], 0.0f, 1.0f),
                     std::clamp(c[3], 0.0f, 1.0f)};
        return ok_status();
      case SBK_NV2A_TEXTURE_CLIPPLANE: {
        const uint32_t nibble = (p_.clip_plane_mode >> (4 * i)) & 0xFu;
        for (uint32_t k = 0; k < 4; ++k) {
          const bool ge = (nibble >> k) & 1u;
          if (ge ? c[k] >= 0.0f : c[k] < 0.0f) out_.discarded = true;
        }
        return ok_status();
      }
      case SBK_NV2A_TEXTURE_BUMPENVMAP:
      case SBK_NV2A_TEXTURE_BUMPENVMAP_LUMINANCE:
        if (Status s = bump(i); !s) return s;
        break;
      case SBK_NV2A_TEXTURE_DOT_PRODUCT:
        dots_[i] = dot(i);
        return ok_status();
      case SBK_NV2A_TEXTURE_DOT_ST:
        dots_[i] = dot(i);
        if (Status s = take(i, sampler(i).fetch_2d(dots_[i - 1], dots_[i])); !s) return s;
        break;
      case SBK_NV2A_TEXTURE_DOT_ZW: {
        dots_[i] = dot(i);
        // Depth in Z16 units: floor(dot_{i-1} / dot_i), kept within 0..65535 (a quotient that is not a number
        // writes 0: the README's choice, hardware unknown).
        const float z = std::floor(dots_[i - 1] / dots_[i]);
        out_.depth_z16 = std::isnan(z) ? 0 : static_cast<uint16_t>(std::clamp(z, 0.0f, 65535.0f));
        return ok_status();
      }
      case SBK_NV2A_TEXTURE_DOT_RFLCT_DIFF: {
        // N's third component comes from stage 3's coordinates, input and mapping (its input is stage 0 or 1:
        // stage 2 itself is refused).
        dots_[i] = dot(i);
        const float n3 = dot(3);
        if (Status s = take(i, sampler(i).fetch_cube(dots_[1], dots_[2], n3)); !s) return s;
        break;
      }
      case SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC:
      case SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC_CONST: {
        dots_[i] = dot(i);
        const Vec3 n = {dots_[1], dots_[2], dots_[3]};
        const Vec3 e = mode_[i] == SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC ? Vec3{tc(1)[3], tc(2)[3], tc(3)[3]}
                                                                   : Vec3{d_.eye_vector[0], d_.eye_vector[1], d_.eye_vector[2]};
        const float ne = n[0] * e[0] + n[1] * e[1] + n[2] * e[2], nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
        // R = 2 N (N.E) / (N.N) - E; a zero N reflects to -E (the README's choice).
        const float k = nn > 0 ? 2.0f * ne / nn : 0.0f;
        if (Status s = take(i, sampler(i).fetch_cube(k * n[0] - e[0], k * n[1] - e[1], k * n[2] - e[2])); !s) return s;
        break;
      }
      case SBK_NV2A_TEXTURE_DOT_STR_3D:
      case SBK_NV2A_TEXTURE_DOT_STR_CUBE: {
        dots_[i] = dot(i);
        auto fetched = mode_[i] == SBK_NV2A_TEXTURE_DOT_STR_3D ? sampler(i).fetch_3d(dots_[1], dots_[2], dots_[3])
                                                                : sampler(i).fetch_cube(dots_[1], dots_[2], dots_[3]);
        if (Status s = take(i, std::move(fetched)); !s) return s;
        break;
      }
      case SBK_NV2A_TEXTURE_DEPENDENT_AR:
      case SBK_NV2A_TEXTURE_DEPENDENT_GB: {
        const uint32_t src = texel_[sbk_nv2a_input_stage(&p_, i)];
        const bool ar = mode_[i] == SBK_NV2A_TEXTURE_DEPENDENT_AR;
        const float s = static_cast<float>(ar ? alpha_of(src) : green_of(src)) / 255.0f;
        const float t = static_cast<float>(ar ? red_of(src) : blue_of(src)) / 255.0f;
        if (Status st = take(i, sampler(i).fetch_2d(s, t)); !st) return st;
        break;
      }
      default:  // brdf and reserved codes are refused before evaluation
        return ok_status();
    }
    out_.t[i] = register_of(texel_[i], p_.texture_signed[i]);
    return ok_status();
  }

  const sbk_nv2a_program& p_;
  const sbk_nv2a_dynamic& d_;
  const TextureInputs& in_;
  std::array<uint8_t, SBK_NV2A_TEXTURE_STAGES> mode_{};
  std::array<uint32_t, SBK_NV2A_TEXTURE_STAGES> texel_{};
  std::array<float, SBK_NV2A_TEXTURE_STAGES> dots_{};
  TextureShaderOutput out_;
};

}  // namespace

Result<TextureShaderOutput> run_texture_shader(const sbk_nv2a_program& program, const sbk_nv2a_dynamic& dynamic,
                                               const TextureInputs& inputs) {
  return Evaluation(program, dynamic, inputs).run();
}

}  // namespace shaderbake::nv2a
