// SPDX-License-Identifier: MIT
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace shaderbake::cli {

// `text` with control characters (C0 and DEL bytes, and the C1 controls U+0080-U+009F, which are 0xC2 0x80-0x9F
// in UTF-8: a NUL, a newline, a terminal escape) written as \xNN per byte, so that a line that quotes trace data
// or a file name prints as one whole line and cannot drive the terminal.
std::string escape_controls(std::string_view text);

// Every line a command prints about itself goes to stderr through these, escaped. print_error also keeps the
// message as the command's last error, which main reports in a JSON error object under --json.
void print_error(std::string_view message);    // "error: message"
void print_warning(std::string_view message);  // "warning: message"
void print_note(std::string_view message);     // "note: message"
// A whole line (already prefixed); `is_error` keeps it as the last error too.
void print_stderr_line(std::string_view line, bool is_error);

// Prints a command's JSON document on stdout (2-space indent, then a newline). Strings that are not valid
// UTF-8 are printed with U+FFFD in place of the bad bytes, so the output is always JSON.
void print_json(const nlohmann::ordered_json& document);

// What main needs to answer for a failed command under --json: whether the command printed its document, and
// the last error line's message (without "error: "). Process-wide, written from the command's thread and from
// diagnostic sinks under their own lock; read by main after the command returned.
bool json_document_printed();
std::string last_error_message();

// The JSON error object main prints on stdout when a command run with --json fails before printing its own
// document: {"error": {"exit_code": N, "message": "..."}}.
nlohmann::ordered_json json_error_object(int exit_code, std::string_view message);

}  // namespace shaderbake::cli
