// SPDX-License-Identifier: MIT
#include "lib/trace/host_state_json.hpp"

#include <array>

#include "lib/trace/vulkan_names.hpp"

namespace shaderbake::trace {

namespace {

using json::od::value;
using json::RecordContext;
namespace names = vulkan_names;

// Reads a name from `table` into `*out`.
template <class T>
Status read_name(value& v, std::span<const names::Name> table, const RecordContext& ctx, const json::Pointer& pointer,
                 T* out) {
  const char* at = json::token_position(v);
  auto text = json::read_string(v, ctx, pointer);
  if (!text) return std::move(text).error();
  auto found = names::find(table, *text);
  if (!found)
    return ctx.error(at, pointer, "unknown_name",
                     "field " + pointer.str() + " is \"" + std::string(text->substr(0, 40)) +
                         "\"; accepted: " + names::list(table));
  *out = static_cast<T>(*found);
  return ok_status();
}

template <class T>
Status read_bool_into(value& v, const RecordContext& ctx, const json::Pointer& pointer, T* out) {
  auto b = json::read_bool(v, ctx, pointer);
  if (!b) return std::move(b).error();
  *out = static_cast<T>(*b ? 1 : 0);
  return ok_status();
}

template <class T>
Status read_uint_into(value& v, uint64_t max, const RecordContext& ctx, const json::Pointer& pointer, T* out) {
  auto u = json::read_uint_in(v, max, ctx, pointer);
  if (!u) return std::move(u).error();
  *out = static_cast<T>(*u);
  return ok_status();
}

Status read_write_mask(value& v, const RecordContext& ctx, const json::Pointer& pointer, uint8_t* out) {
  const char* at = json::token_position(v);
  auto text = json::read_string(v, ctx, pointer);
  if (!text) return std::move(text).error();
  // Letters r, g, b, a, each at most once, in that order ("" writes nothing).
  static constexpr std::string_view kLetters = "rgba";
  uint8_t mask = 0;
  size_t next = 0;
  for (char c : *text) {
    const size_t pos = kLetters.find(c, next);
    if (pos == std::string_view::npos)
      return ctx.error(at, pointer, "unknown_name",
                       "field " + pointer.str() + " is \"" + std::string(text->substr(0, 40)) +
                           "\"; a write mask is the letters r, g, b, a in that order, e.g. \"rgba\" or \"rgb\"");
    mask |= static_cast<uint8_t>(1u << pos);
    next = pos + 1;
  }
  *out = mask;
  return ok_status();
}

Status decode_depth(value& v, sbk_host_state* s, const RecordContext& ctx, const json::Pointer& pointer) {
  static constexpr std::array<std::string_view, 3> kNames = {"test", "write", "compare"};
  const char* at = json::token_position(v);
  auto obj = json::read_object(v, ctx, pointer);
  if (!obj) return std::move(obj).error();
  uint64_t seen = 0;
  Status st = json::for_each_field(*obj, kNames, true, ctx, pointer, &seen, [&](size_t i, value& f, const json::Pointer& p) {
    switch (i) {
      case 0: return read_bool_into(f, ctx, p, &s->depth_test);
      case 1: return read_bool_into(f, ctx, p, &s->depth_write);
      default: return read_name(f, names::compare_ops(), ctx, p, &s->depth_compare);
    }
  });
  if (!st) return st;
  if (s->depth_test) {
    static constexpr std::array<size_t, 2> kRequired = {1, 2};
    return json::require_fields(seen, kNames, kRequired, ctx, at, pointer);
  }
  return ok_status();
}

Status decode_stencil_face(value& v, sbk_stencil_face* face, const RecordContext& ctx, const json::Pointer& pointer) {
  static constexpr std::array<std::string_view, 7> kNames = {"fail_op",      "pass_op",    "depth_fail_op", "compare_op",
                                                             "compare_mask", "write_mask", "reference"};
  const char* at = json::token_position(v);
  auto obj = json::read_object(v, ctx, pointer);
  if (!obj) return std::move(obj).error();
  face->compare_mask = 0xFF;
  face->write_mask = 0xFF;
  face->reference = 0;
  uint64_t seen = 0;
  Status st = json::for_each_field(*obj, kNames, true, ctx, pointer, &seen, [&](size_t i, value& f, const json::Pointer& p) {
    switch (i) {
      case 0: return read_name(f, names::stencil_ops(), ctx, p, &face->fail_op);
      case 1: return read_name(f, names::stencil_ops(), ctx, p, &face->pass_op);
      case 2: return read_name(f, names::stencil_ops(), ctx, p, &face->depth_fail_op);
      case 3: return read_name(f, names::compare_ops(), ctx, p, &face->compare_op);
      case 4: return read_uint_into(f, UINT32_MAX, ctx, p, &face->compare_mask);
      case 5: return read_uint_into(f, UINT32_MAX, ctx, p, &face->write_mask);
      default: return read_uint_into(f, UINT32_MAX, ctx, p, &face->reference);
    }
  });
  if (!st) return st;
  static constexpr std::array<size_t, 4> kRequired = {0, 1, 2, 3};
  return json::require_fields(seen, kNames, kRequired, ctx, at, pointer);
}

Status decode_stencil(value& v, sbk_host_state* s, const RecordContext& ctx, const json::Pointer& pointer) {
  static constexpr std::array<std::string_view, 3> kNames = {"test", "front", "back"};
  const char* at = json::token_position(v);
  auto obj = json::read_object(v, ctx, pointer);
  if (!obj) return std::move(obj).error();
  uint64_t seen = 0;
  Status st = json::for_each_field(*obj, kNames, true, ctx, pointer, &seen, [&](size_t i, value& f, const json::Pointer& p) {
    switch (i) {
      case 0: return read_bool_into(f, ctx, p, &s->stencil_test);
      case 1: return decode_stencil_face(f, &s->stencil_front, ctx, p);
      default: return decode_stencil_face(f, &s->stencil_back, ctx, p);
    }
  });
  if (!st) return st;
  if (s->stencil_test) {
    static constexpr std::array<size_t, 2> kRequired = {1, 2};
    return json::require_fields(seen, kNames, kRequired, ctx, at, pointer);
  }
  return ok_status();
}

Status decode_blend_attachment(value& v, sbk_blend_attachment* b, const RecordContext& ctx, const json::Pointer& pointer) {
  static constexpr std::array<std::string_view, 8> kNames = {"enable",    "src_color", "dst_color", "color_op",
                                                             "src_alpha", "dst_alpha", "alpha_op",  "write_mask"};
  const char* at = json::token_position(v);
  auto obj = json::read_object(v, ctx, pointer);
  if (!obj) return std::move(obj).error();
  uint64_t seen = 0;
  b->write_mask = SBK_WRITE_R | SBK_WRITE_G | SBK_WRITE_B | SBK_WRITE_A;
  Status st = json::for_each_field(*obj, kNames, true, ctx, pointer, &seen, [&](size_t i, value& f, const json::Pointer& p) {
    switch (i) {
      case 0: return read_bool_into(f, ctx, p, &b->enable);
      case 1: return read_name(f, names::blend_factors(), ctx, p, &b->src_color);
      case 2: return read_name(f, names::blend_factors(), ctx, p, &b->dst_color);
      case 3: return read_name(f, names::blend_ops(), ctx, p, &b->color_op);
      case 4: return read_name(f, names::blend_factors(), ctx, p, &b->src_alpha);
      case 5: return read_name(f, names::blend_factors(), ctx, p, &b->dst_alpha);
      case 6: return read_name(f, names::blend_ops(), ctx, p, &b->alpha_op);
      default: return read_write_mask(f, ctx, p, &b->write_mask);
    }
  });
  if (!st) return st;
  if (b->enable) {
    static constexpr std::array<size_t, 6> kRequired = {1, 2, 3, 4, 5, 6};
    return json::require_fields(seen, kNames, kRequired, ctx, at, pointer);
  }
  return ok_status();
}

Status decode_vertex(value& v, sbk_host_state* s, const RecordContext& ctx, const json::Pointer& pointer,
                     const AttributeNaming& naming) {
  static constexpr std::array<std::string_view, 2> kNames = {"bindings", "attributes"};
  static constexpr std::array<std::string_view, 3> kBindingNames = {"binding", "stride", "rate"};
  static constexpr std::array<std::string_view, 4> kAttributeNamesByLocation = {"location", "binding", "format", "offset"};
  static constexpr std::array<std::string_view, 4> kAttributeNamesBySemantic = {"semantic", "binding", "format", "offset"};
  const std::span<const std::string_view> kAttributeNames =
      naming.by_semantic ? std::span<const std::string_view>(kAttributeNamesBySemantic) : kAttributeNamesByLocation;
  const char* at = json::token_position(v);
  auto obj = json::read_object(v, ctx, pointer);
  if (!obj) return std::move(obj).error();
  uint64_t seen = 0;
  Status st = json::for_each_field(*obj, kNames, true, ctx, pointer, &seen, [&](size_t i, value& f, const json::Pointer& p) -> Status {
    const bool bindings = i == 0;
    uint32_t* count = bindings ? &s->binding_count : &s->attribute_count;
    const uint32_t max = bindings ? SBK_MAX_VERTEX_BINDINGS : SBK_MAX_VERTEX_ATTRIBUTES;
    auto n = json::for_each_element(f, max, ctx, p, [&](value& item, size_t k, const json::Pointer& ip) -> Status {
      const char* item_at = json::token_position(item);
      auto item_obj = json::read_object(item, ctx, ip);
      if (!item_obj) return std::move(item_obj).error();
      uint64_t item_seen = 0;
      Status item_status = ok_status();
      if (bindings) {
        sbk_vertex_binding* b = &s->bindings[k];
        item_status = json::for_each_field(*item_obj, kBindingNames, true, ctx, ip, &item_seen,
                                           [&](size_t field, value& g, const json::Pointer& q) {
                                             switch (field) {
                                               case 0: return read_uint_into(g, 255, ctx, q, &b->binding);
                                               case 1: return read_uint_into(g, 2048, ctx, q, &b->stride);
                                               default: return read_name(g, names::input_rates(), ctx, q, &b->input_rate);
                                             }
                                           });
        if (item_status) {
          static constexpr std::array<size_t, 2> kRequired = {0, 1};
          item_status = json::require_fields(item_seen, kBindingNames, kRequired, ctx, item_at, ip);
        }
        for (size_t j = 0; item_status && j < k; ++j)
          if (s->bindings[j].binding == b->binding)
            item_status = ctx.error(item_at, ip, "invalid_host_state",
                                    "vertex binding " + std::to_string(b->binding) + " is declared twice");
      } else {
        sbk_vertex_attribute* a = &s->attributes[k];
        item_status = json::for_each_field(
            *item_obj, kAttributeNames, true, ctx, ip, &item_seen, [&](size_t field, value& g, const json::Pointer& q) {
              switch (field) {
                case 0:
                  if (!naming.by_semantic) return read_uint_into(g, SBK_VERTEX_LOCATIONS - 1, ctx, q, &a->location);
                  return read_name(g, naming.semantics, ctx, q, &a->location);
                case 1: return read_uint_into(g, 255, ctx, q, &a->binding);
                case 2: return read_name(g, names::vertex_formats(), ctx, q, &a->format);
                default: return read_uint_into(g, 2047, ctx, q, &a->offset);
              }
            });
        if (item_status) {
          static constexpr std::array<size_t, 4> kRequired = {0, 1, 2, 3};
          item_status = json::require_fields(item_seen, kAttributeNames, kRequired, ctx, item_at, ip);
        }
        for (size_t j = 0; item_status && j < k; ++j)
          if (s->attributes[j].location == a->location)
            item_status = ctx.error(item_at, ip, "invalid_host_state",
                                    naming.by_semantic
                                        ? "vertex semantic " + names::name_of(naming.semantics, a->location) + " appears twice"
                                        : "vertex location " + std::to_string(a->location) + " is fed twice");
      }
      return item_status;
    });
    if (!n) return std::move(n).error();
    *count = static_cast<uint32_t>(*n);
    return ok_status();
  });
  if (!st) return st;
  static constexpr std::array<size_t, 2> kRequired = {0, 1};
  st = json::require_fields(seen, kNames, kRequired, ctx, at, pointer);
  if (!st) return st;
  for (uint32_t i = 0; i < s->attribute_count; ++i) {
    bool declared = false;
    for (uint32_t j = 0; j < s->binding_count; ++j) declared |= s->bindings[j].binding == s->attributes[i].binding;
    if (!declared)
      return ctx.error(at, json::Pointer(json::Pointer(pointer, "attributes"), i), "invalid_host_state",
                       "vertex attribute " + std::to_string(i) + " uses binding " +
                           std::to_string(s->attributes[i].binding) + ", which vertex.bindings does not declare");
  }
  return ok_status();
}

}  // namespace

Result<sbk_host_state> decode_host_state(value& host, const RecordContext& ctx, const json::Pointer& pointer,
                                         const AttributeNaming& naming) {
  static constexpr std::array<std::string_view, 12> kNames = {
      "topology", "polygon_mode", "cull_mode",    "front_face", "depth",   "stencil",
      "blend",    "color_formats", "depth_format", "samples",   "vertex", "dynamic_states"};
  enum : size_t { kBlend = 6, kColorFormats = 7, kVertex = 10, kDynamicStates = 11 };

  const char* at = json::token_position(host);
  sbk_host_state s{};
  s.topology = 3;  // triangle_list
  s.samples = 1;
  s.dynamic_states = SBK_DYNAMIC_VIEWPORT | SBK_DYNAMIC_SCISSOR;
  uint32_t blend_count = 0;
  const char* blend_at = nullptr;

  auto obj = json::read_object(host, ctx, pointer);
  if (!obj) return std::move(obj).error();
  uint64_t seen = 0;
  Status st = json::for_each_field(*obj, kNames, true, ctx, pointer, &seen, [&](size_t i, value& f, const json::Pointer& p) -> Status {
    switch (i) {
      case 0: return read_name(f, names::topologies(), ctx, p, &s.topology);
      case 1: return read_name(f, names::polygon_modes(), ctx, p, &s.polygon_mode);
      case 2: return read_name(f, names::cull_modes(), ctx, p, &s.cull_mode);
      case 3: return read_name(f, names::front_faces(), ctx, p, &s.front_face);
      case 4: return decode_depth(f, &s, ctx, p);
      case 5: return decode_stencil(f, &s, ctx, p);
      case kBlend: {
        blend_at = json::token_position(f);
        auto n = json::for_each_element(f, SBK_MAX_COLOR_ATTACHMENTS, ctx, p, [&](value& item, size_t k, const json::Pointer& ip) {
          return decode_blend_attachment(item, &s.blend[k], ctx, ip);
        });
        if (!n) return std::move(n).error();
        blend_count = static_cast<uint32_t>(*n);
        return ok_status();
      }
      case kColorFormats: {
        auto n = json::for_each_element(f, SBK_MAX_COLOR_ATTACHMENTS, ctx, p, [&](value& item, size_t k, const json::Pointer& ip) {
          return read_name(item, names::color_formats(), ctx, ip, &s.color_formats[k]);
        });
        if (!n) return std::move(n).error();
        s.color_count = static_cast<uint32_t>(*n);
        return ok_status();
      }
      case 8: return read_name(f, names::depth_formats(), ctx, p, &s.depth_format);
      case 9: {
        const char* sat = json::token_position(f);
        Status r = read_uint_into(f, 64, ctx, p, &s.samples);
        if (!r) return r;
        if (s.samples == 0 || (s.samples & (s.samples - 1)) != 0)
          return ctx.error(sat, p, "out_of_range", p.str() + " must be 1, 2, 4, 8, 16, 32 or 64");
        return ok_status();
      }
      case kVertex: return decode_vertex(f, &s, ctx, p, naming);
      default: {
        s.dynamic_states = 0;
        auto n = json::for_each_element(f, names::dynamic_states().size(), ctx, p, [&](value& item, size_t, const json::Pointer& ip) {
          const char* item_at = json::token_position(item);
          uint32_t bit = 0;
          Status d = read_name(item, names::dynamic_states(), ctx, ip, &bit);
          if (!d) return d;
          // The schema's uniqueItems: a state listed twice is a mistake of the writer, not a second meaning.
          if (s.dynamic_states & bit)
            return Status(ctx.error(item_at, ip, "invalid_host_state",
                                    "dynamic state " + names::name_of(names::dynamic_states(), bit) + " is listed twice"));
          s.dynamic_states |= bit;
          return ok_status();
        });
        if (!n) return std::move(n).error();
        return ok_status();
      }
    }
  });
  if (!st) return std::move(st).error();
  static constexpr std::array<size_t, 2> kRequired = {kColorFormats, kVertex};
  st = json::require_fields(seen, kNames, kRequired, ctx, at, pointer);
  if (!st) return std::move(st).error();

  if (seen & (uint64_t{1} << kBlend)) {
    if (blend_count != s.color_count)
      return ctx.error(blend_at, json::Pointer(pointer, "blend"), "invalid_host_state",
                       "blend has " + std::to_string(blend_count) + " entries but color_formats has " +
                           std::to_string(s.color_count) + "; give one blend entry per colour attachment");
  } else {
    for (uint32_t i = 0; i < s.color_count; ++i) s.blend[i].write_mask = SBK_WRITE_R | SBK_WRITE_G | SBK_WRITE_B | SBK_WRITE_A;
  }
  // The runtime header's checks are the contract; anything they refuse must not reach a key.
  size_t size = 0;
  if (sbk_encode_host_state(&s, nullptr, 0, &size) == SBK_ERROR_INVALID_STATE)
    return ctx.error(at, pointer, "invalid_host_state", "host state is inconsistent (refused by sbk_encode_host_state)");
  return s;
}

}  // namespace shaderbake::trace
