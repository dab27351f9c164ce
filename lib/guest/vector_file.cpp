// SPDX-License-Identifier: MIT
#include "lib/guest/vector_file.hpp"

#include <simdjson.h>

#include "lib/io/file_io.hpp"
#include "lib/json/json_reader.hpp"

namespace shaderbake {

Result<VectorFileText> read_vector_file_text(const std::string& path) {
  const Result<std::vector<uint8_t>> bytes = io::read_file(path, kMaxVectorFileBytes);
  if (!bytes) return bytes.error();
  VectorFileText out;
  out.text.assign(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  const simdjson::padded_string text(out.text);
  const json::RecordContext ctx(path, 1, 1, text.data());
  simdjson::ondemand::parser parser;
  json::od::document doc;
  if (auto err = parser.iterate(text).get(doc)) return ctx.json_error(err, text.data(), "");
  json::od::object root;
  if (auto err = doc.get_object().get(root)) return ctx.json_error(err, text.data(), "");
  json::od::value guest;
  if (auto err = root.find_field_unordered("guest").get(guest)) {
    if (err == simdjson::NO_SUCH_FIELD)
      return ctx.error(text.data(), "/guest", "missing_field", "the vector file has no \"guest\"");
    return ctx.json_error(err, text.data(), "/guest");
  }
  auto name = json::read_string(guest, ctx, "/guest");
  if (!name) return std::move(name).error();
  out.guest = std::string(*name);
  return out;
}

}  // namespace shaderbake
