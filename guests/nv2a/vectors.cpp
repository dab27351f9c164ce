// SPDX-License-Identifier: MIT
#include "guests/nv2a/vectors.hpp"

#include <algorithm>
#include <cstring>

#include "guests/nv2a/program_json.hpp"

namespace shaderbake::nv2a {

namespace {

using json::od::value;
using json::Pointer;
using json::RecordContext;


Status read_fog_factor(value& v, float* out, const RecordContext& ctx, const Pointer& p) {
  const char* at = json::token_position(v);
  json::od::json_type type;
  if (auto err = v.type().get(type)) return ctx.json_error(err, at, p);
  if (type == json::od::json_type::string) {
    auto w = json::read_word(v, ctx, p);  // a float32 bit pattern, to carry NaN and infinities
    if (!w) return std::move(w).error();
    const uint32_t bits = *w;
    std::memcpy(out, &bits, sizeof bits);
    return ok_status();
  }
  double d = 0;
  if (auto err = v.get_double().get(d)) return ctx.json_error(err, at, p);
  *out = static_cast<float>(d);
  return ok_status();
}

// An array of at most kMaxVectorTexels texels (colours), appended to `out`; `where` gets its start.
Status read_texels(value& v, std::vector<uint32_t>& out, const char** where, const RecordContext& ctx, const Pointer& p) {
  *where = json::token_position(v);
  auto n = json::for_each_element(v, kMaxVectorTexels, ctx, p, [&](value& item, size_t, const Pointer& ip) -> Status {
    if (out.size() >= kMaxVectorTexels)
      return ctx.error(json::token_position(item), ip, "out_of_range",
                       "a vector texture holds at most " + std::to_string(kMaxVectorTexels) + " texels");
    auto w = json::read_word(item, ctx, ip);
    if (!w) return std::move(w).error();
    out.push_back(*w);
    return ok_status();
  });
  if (!n) return std::move(n).error();
  return ok_status();
}

// A texture image: {"width", "height", "texels"} (2D), with "depth" (3D), or {"size", "faces"} (cube). The
// fields come in any order: the texels are gathered first and held against the sizes at the end.
Status read_image(value& v, TextureImage* image, const RecordContext& ctx, const Pointer& p) {
  static constexpr std::array<std::string_view, 6> kNames = {"width", "height", "depth", "size", "texels", "faces"};
  const char* at = json::token_position(v);
  auto obj = json::read_object(v, ctx, p);
  if (!obj) return std::move(obj).error();
  uint64_t seen = 0;
  uint32_t dims[4] = {1, 1, 1, 1};
  std::vector<uint32_t> texels;
  std::vector<size_t> face_sizes;
  const char* texels_at = at;
  Status s = json::for_each_field(*obj, kNames, true, ctx, p, &seen, [&](size_t i, value& f, const Pointer& fp) -> Status {
    if (i < 4) {
      auto n = json::read_uint_in(f, kMaxVectorTexels, ctx, fp);
      if (!n) return std::move(n).error();
      if (*n == 0) return ctx.error(json::token_position(f), fp, "out_of_range", fp.str() + " must be at least 1");
      dims[i] = static_cast<uint32_t>(*n);
      return ok_status();
    }
    if (i == 4) return read_texels(f, texels, &texels_at, ctx, fp);
    texels_at = json::token_position(f);
    auto faces = json::for_each_element(f, 6, ctx, fp, [&](value& face, size_t, const Pointer& ip) -> Status {
      const size_t before = texels.size();
      const char* face_at = nullptr;
      if (Status st = read_texels(face, texels, &face_at, ctx, ip); !st) return st;
      face_sizes.push_back(texels.size() - before);
      return ok_status();
    });
    if (!faces) return std::move(faces).error();
    return ok_status();
  });
  if (!s) return s;
  const bool cube = seen & (1u << 3);
  const bool shape_2d_3d = (seen & 0x13u) == 0x13u && (seen & 0x28u) == 0;  // width, height, texels; no size, faces
  const bool shape_cube = (seen & 0x28u) == 0x28u && (seen & 0x17u) == 0;   // size, faces only
  if (!(cube ? shape_cube : shape_2d_3d))
    return ctx.error(at, p, "missing_field",
                     p.str() + " must be {\"width\", \"height\", \"texels\"} (with \"depth\" for 3D) or {\"size\", \"faces\"}");
  const uint64_t count = cube ? 6ull * dims[3] * dims[3] : uint64_t{dims[0]} * dims[1] * dims[2];
  const bool faces_fit = face_sizes.size() == 6 &&
                         std::all_of(face_sizes.begin(), face_sizes.end(), [&](size_t n) { return n == uint64_t{dims[3]} * dims[3]; });
  if (texels.size() != count || (cube && !faces_fit))
    return ctx.error(texels_at, Pointer(p, cube ? "faces" : "texels"), "out_of_range",
                     p.str() + (cube ? " must hold 6 faces of size x size texels" : " must hold width x height (x depth) texels"));
  image->kind = cube ? TextureImage::Kind::cube : (seen & (1u << 2)) ? TextureImage::Kind::image_3d : TextureImage::Kind::image_2d;
  image->width = cube ? dims[3] : dims[0];
  image->height = cube ? dims[3] : dims[1];
  image->depth = cube ? 1 : dims[2];
  image->texels = std::move(texels);
  return ok_status();
}

Status read_inputs(value& v, PixelInputs* in, const RecordContext& ctx, const Pointer& p) {
  static constexpr std::array<std::string_view, 14> kNames = {"v0",       "v1",        "textures",  "fog_color",
                                                              "fog_factor", "c0",      "c1",        "final_c0",
                                                              "final_c1", "alpha_ref", "texcoords", "bump_env",
                                                              "color_keys", "eye_vector"};
  auto obj = json::read_object(v, ctx, p);
  if (!obj) return std::move(obj).error();
  uint64_t seen = 0;
  return json::for_each_field(*obj, kNames, false, ctx, p, &seen, [&](size_t i, value& f, const Pointer& fp) -> Status {
    auto word_into = [&](uint32_t* target) -> Status {
      auto w = json::read_word(f, ctx, fp);
      if (!w) return std::move(w).error();
      *target = *w;
      return ok_status();
    };
    switch (i) {
      case 0: return word_into(&in->v0);
      case 1: return word_into(&in->v1);
      case 2: {
        auto n = json::for_each_element(f, SBK_NV2A_TEXTURE_STAGES, ctx, fp, [&](value& item, size_t k, const Pointer& ip) -> Status {
          const char* at = json::token_position(item);
          json::od::json_type type;
          if (auto err = item.type().get(type)) return ctx.json_error(err, at, ip);
          if (type == json::od::json_type::object) {
            TextureImage image;
            if (Status s = read_image(item, &image, ctx, ip); !s) return s;
            in->images[k] = std::move(image);
            return ok_status();
          }
          auto w = json::read_word(item, ctx, ip);
          if (!w) return std::move(w).error();
          in->textures[k] = *w;
          return ok_status();
        });
        if (!n) return std::move(n).error();
        return ok_status();
      }
      case 3: return word_into(&in->dynamic.fog_color);
      case 4: return read_fog_factor(f, &in->fog_factor, ctx, fp);
      case 5:
      case 6: {
        auto n = json::read_words(f, i == 5 ? in->dynamic.c0 : in->dynamic.c1, SBK_NV2A_MAX_STAGES, ctx, fp);
        if (!n) return std::move(n).error();
        return ok_status();
      }
      case 7: return word_into(&in->dynamic.final_c0);
      case 8: return word_into(&in->dynamic.final_c1);
      case 9: {
        auto r = json::read_uint_in(f, 255, ctx, fp);
        if (!r) return std::move(r).error();
        in->dynamic.alpha_ref = static_cast<uint8_t>(*r);
        return ok_status();
      }
      case 10: {
        const char* at = json::token_position(f);
        auto n = json::for_each_element(f, SBK_NV2A_TEXTURE_STAGES, ctx, fp, [&](value& item, size_t k, const Pointer& ip) -> Status {
          const char* item_at = json::token_position(item);
          auto m = json::for_each_element(item, 4, ctx, ip, [&](value& x, size_t j, const Pointer& xp) -> Status {
            auto value = json::read_float32(x, ctx, xp);
            if (!value) return std::move(value).error();
            in->texcoords[k][j] = *value;
            return ok_status();
          });
          if (!m) return std::move(m).error();
          if (*m != 4) return ctx.error(item_at, ip, "out_of_range", ip.str() + " must be [s, t, r, q]");
          return ok_status();
        });
        if (!n) return std::move(n).error();
        if (*n != SBK_NV2A_TEXTURE_STAGES) return ctx.error(at, fp, "out_of_range", fp.str() + " must have 4 entries");
        return ok_status();
      }
      default:
        return decode_texture_dynamic_field(kNames[i], f, &in->dynamic, ctx, fp);
    }
  });
}

Status read_expect(value& v, VectorCase* c, const RecordContext& ctx, const Pointer& p) {
  static constexpr std::array<std::string_view, 5> kNames = {"rgba8", "discard", "tolerance", "depth_z16", "rejected"};
  const char* at = json::token_position(v);
  auto obj = json::read_object(v, ctx, p);
  if (!obj) return std::move(obj).error();
  uint64_t seen = 0;
  Status s = json::for_each_field(*obj, kNames, false, ctx, p, &seen, [&](size_t i, value& f, const Pointer& fp) -> Status {
    if (i == 0) {
      const char* at = json::token_position(f);
      auto n = json::for_each_element(f, 4, ctx, fp, [&](value& item, size_t k, const Pointer& ip) -> Status {
        auto b = json::read_uint_in(item, 255, ctx, ip);
        if (!b) return std::move(b).error();
        c->expect_rgba[k] = static_cast<uint8_t>(*b);
        return ok_status();
      });
      if (!n) return std::move(n).error();
      if (*n != 4) return ctx.error(at, fp, "out_of_range", "rgba8 must have 4 entries");
      return ok_status();
    }
    if (i == 1) {
      auto b = json::read_bool(f, ctx, fp);
      if (!b) return std::move(b).error();
      c->expect_discard = *b;
      return ok_status();
    }
    if (i == 3) {
      auto z = json::read_uint_in(f, 65535, ctx, fp);
      if (!z) return std::move(z).error();
      c->expect_depth_z16 = static_cast<uint16_t>(*z);
      return ok_status();
    }
    if (i == 4) {
      auto why = json::read_string(f, ctx, fp);
      if (!why) return std::move(why).error();
      c->expect_rejected = std::string(*why);
      return ok_status();
    }
    auto t = json::read_uint_in(f, 255, ctx, fp);
    if (!t) return std::move(t).error();
    c->tolerance = static_cast<uint32_t>(*t);
    return ok_status();
  });
  if (!s) return s;
  if (c->expect_rejected) {
    if (seen != (1u << 4)) return ctx.error(at, p, "conflicting_fields", "expect.rejected stands alone: nothing is rendered");
    return ok_status();
  }
  if (!(seen & 1) && !c->expect_discard)
    return ctx.error(at, Pointer(p, "rgba8"), "missing_field", "expect needs rgba8 unless discard is true");
  return ok_status();
}

Status read_case(value& v, VectorCase* c, const RecordContext& ctx, const Pointer& p) {
  static constexpr std::array<std::string_view, 5> kNames = {"name", "program", "inputs", "expect", "provenance"};
  const char* at = json::token_position(v);
  auto obj = json::read_object(v, ctx, p);
  if (!obj) return std::move(obj).error();
  uint64_t seen = 0;
  Status s = json::for_each_field(*obj, kNames, false, ctx, p, &seen, [&](size_t i, value& f, const Pointer& fp) -> Status {
    switch (i) {
      case 0:
      case 4: {
        auto text = json::read_string(f, ctx, fp);
        if (!text) return std::move(text).error();
        (i == 0 ? c->name : c->provenance) = std::string(*text);
        return ok_status();
      }
      case 1: {
        auto program = decode_program(f, ctx, fp);
        if (!program) return std::move(program).error();
        c->program = *program;
        return ok_status();
      }
      case 2: return read_inputs(f, &c->inputs, ctx, fp);
      default: return read_expect(f, c, ctx, fp);
    }
  });
  if (!s) return s;
  static constexpr std::array<size_t, 3> kRequired = {1, 2, 3};
  return json::require_fields(seen, kNames, kRequired, ctx, at, p);
}

}  // namespace

Result<VectorFile> parse_vector_text(const std::string& path, std::string_view source) {
  const simdjson::padded_string text(source);
  const RecordContext ctx(path, 1, 1, text.data());

  simdjson::ondemand::parser parser, case_parser;
  json::od::document doc;
  if (auto err = parser.iterate(text).get(doc)) return ctx.json_error(err, text.data(), "");
  json::od::object root;
  if (auto err = doc.get_object().get(root)) return ctx.json_error(err, text.data(), "");

  static constexpr std::array<std::string_view, 3> kNames = {"format", "guest", "cases"};
  VectorFile out;
  std::string format, guest;
  uint64_t seen = 0;
  Status s = json::for_each_field(root, kNames, false, ctx, "", &seen, [&](size_t i, value& f, const Pointer& fp) -> Status {
    if (i < 2) {
      auto t = json::read_string(f, ctx, fp);
      if (!t) return std::move(t).error();
      (i == 0 ? format : guest) = std::string(*t);
      if (i == 0 && format != kVectorFormat && format != kVectorFormatV1)
        return ctx.error(json::token_position(f), fp, "unsupported_format",
                         "vector format \"" + format + "\" is not supported; this reader speaks \"" + std::string(kVectorFormat) +
                             "\" and \"" + std::string(kVectorFormatV1) + "\"");
      if (i == 1 && guest != "nv2a")
        return ctx.error(json::token_position(f), fp, "wrong_guest", "vectors are for guest \"" + guest + "\", not nv2a");
      return ok_status();
    }
    auto arr = json::read_array(f, ctx, fp);
    if (!arr) return std::move(arr).error();
    size_t index = 0;
    for (auto element : *arr) {
      value item;
      if (auto err = element.get(item)) return ctx.json_error(err, nullptr, fp);
      const Pointer cp(fp, index);
      VectorCase c;
      const char* case_at = json::token_position(item);
      c.where = ctx.locate(case_at, cp);
      // Each case is decoded from its own text on a second parser, so a bad case cannot leave the
      // iteration over the others half-way through an object.
      json::od::object case_object;
      std::string_view case_text;
      if (auto err = item.get_object().get(case_object)) return ctx.json_error(err, case_at, cp);
      if (auto err = case_object.raw_json().get(case_text)) return ctx.json_error(err, case_at, cp);
      const size_t capacity = text.size() + simdjson::SIMDJSON_PADDING - static_cast<size_t>(case_text.data() - text.data());
      Status cs = [&]() -> Status {
        json::od::document case_doc;
        if (auto err = case_parser.iterate(case_text.data(), case_text.size(), capacity).get(case_doc))
          return ctx.json_error(err, case_at, cp);
        value case_value;
        if (auto err = case_doc.get_value().get(case_value)) return ctx.json_error(err, case_at, cp);
        return read_case(case_value, &c, ctx, cp);
      }();
      if (!cs) {
        // The case is lost, not the file: skip what remains of it and go on with the next.
        out.bad_cases.emplace_back(c.name.empty() ? "#" + std::to_string(index) : c.name, std::move(cs).error());
      } else {
        if (c.name.empty()) c.name = "#" + std::to_string(index);
        out.cases.push_back(std::move(c));
      }
      ++index;
    }
    return ok_status();
  });
  if (!s) return std::move(s).error();
  static constexpr std::array<size_t, 3> kRequired = {0, 1, 2};
  if (Status r = json::require_fields(seen, kNames, kRequired, ctx, text.data(), ""); !r) return std::move(r).error();
  return out;
}

bool matches(const VectorCase& c, const PixelOutput& got) {
  if (c.expect_depth_z16 && got.depth_z16 != c.expect_depth_z16) return false;
  if (c.expect_discard || got.discarded) return c.expect_discard == got.discarded;
  for (int i = 0; i < 4; ++i) {
    const int diff = static_cast<int>(got.rgba[i]) - static_cast<int>(c.expect_rgba[i]);
    if (diff > static_cast<int>(c.tolerance) || -diff > static_cast<int>(c.tolerance)) return false;
  }
  return true;
}

}  // namespace shaderbake::nv2a
