// SPDX-License-Identifier: MIT
#include "cli/command_output.hpp"

#include <cstdio>
#include <mutex>

namespace shaderbake::cli {

namespace {

struct OutputState {
  std::mutex mutex;
  bool json_printed = false;
  std::string last_error;
};

OutputState& state() {
  static OutputState s;
  return s;
}

}  // namespace

std::string escape_controls(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  auto escape = [&out](unsigned char byte) {
    out += "\\x";
    out.push_back(kHex[byte >> 4]);
    out.push_back(kHex[byte & 15]);
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    if (byte == 0xC2 && next >= 0x80 && next <= 0x9F) {
      escape(byte);
      escape(next);
      ++i;
    } else if (byte < 0x20 || byte == 0x7F) {
      escape(byte);
    } else {
      out.push_back(static_cast<char>(byte));
    }
  }
  return out;
}

void print_stderr_line(std::string_view line, bool is_error) {
  std::string out = escape_controls(line);
  out.push_back('\n');
  std::lock_guard lock(state().mutex);
  std::fwrite(out.data(), 1, out.size(), stderr);
  if (is_error) {
    constexpr std::string_view kPrefix = "error: ";
    state().last_error = std::string(line.substr(0, kPrefix.size()) == kPrefix ? line.substr(kPrefix.size()) : line);
  }
}

void print_error(std::string_view message) { print_stderr_line("error: " + std::string(message), true); }
void print_warning(std::string_view message) { print_stderr_line("warning: " + std::string(message), false); }
void print_note(std::string_view message) { print_stderr_line("note: " + std::string(message), false); }

void print_json(const nlohmann::ordered_json& document) {
  const std::string text = document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  std::lock_guard lock(state().mutex);
  state().json_printed = true;
}

bool json_document_printed() {
  std::lock_guard lock(state().mutex);
  return state().json_printed;
}

std::string last_error_message() {
  std::lock_guard lock(state().mutex);
  return state().last_error;
}

nlohmann::ordered_json json_error_object(int exit_code, std::string_view message) {
  nlohmann::ordered_json error;
  error["exit_code"] = exit_code;
  error["message"] = std::string(message);
  return {{"error", error}};
}

}  // namespace shaderbake::cli
