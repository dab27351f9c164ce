// SPDX-License-Identifier: MIT
#pragma once
// A small buffered writer for hand-written JSON text.
//
// Records are written with raw appends into one large buffer that is flushed with fwrite, so the
// generator's output rate is bounded by formatting integers, not by stdio. It knows nothing about JSON
// structure: callers append literal pieces ("{\"type\":\"draw\",\"frame\":") and typed values.
// Errors are sticky: after a failed write, ok() is false and later writes are dropped.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace shaderbake::tracegen {

// Appends to a std::string; used to pre-serialize objects that are written many times.
class StringSink {
public:
    explicit StringSink(std::string& out) : out_(out) {}
    void raw(std::string_view s) { out_.append(s); }
    void ch(char c) { out_.push_back(c); }
    void u64(std::uint64_t v) {
        char tmp[24];
        out_.append(tmp, format_u64(tmp, v));
    }
    // "0x%08X" with the quotes.
    void hex_word(std::uint32_t v) {
        char tmp[12];
        format_hex_word(tmp, v);
        out_.append(tmp, 12);
    }
    void quoted(std::string_view s) {
        out_.push_back('"');
        escape_into(s);
        out_.push_back('"');
    }
    void boolean(bool b) { out_.append(b ? "true" : "false"); }

    // Writes the decimal digits of v into out (no terminator); returns the length.
    static std::size_t format_u64(char* out, std::uint64_t v) {
        char tmp[24];
        std::size_t n = 0;
        do {
            tmp[n++] = static_cast<char>('0' + v % 10);
            v /= 10;
        } while (v != 0);
        for (std::size_t i = 0; i < n; ++i) out[i] = tmp[n - 1 - i];
        return n;
    }
    // Writes exactly 12 characters: "0xXXXXXXXX" with quotes, uppercase hex digits.
    static void format_hex_word(char* out, std::uint32_t v) {
        static constexpr char kDigits[] = "0123456789ABCDEF";
        out[0] = '"';
        out[1] = '0';
        out[2] = 'x';
        for (int i = 0; i < 8; ++i) out[3 + i] = kDigits[(v >> (28 - 4 * i)) & 0xF];
        out[11] = '"';
    }

private:
    void escape_into(std::string_view s) {
        static constexpr char kDigits[] = "0123456789abcdef";
        for (char c : s) {
            const auto u = static_cast<unsigned char>(c);
            if (c == '"' || c == '\\') {
                out_.push_back('\\');
                out_.push_back(c);
            } else if (u < 0x20) {
                switch (c) {
                    case '\n': out_.append("\\n"); break;
                    case '\t': out_.append("\\t"); break;
                    case '\r': out_.append("\\r"); break;
                    default:
                        out_.append("\\u00");
                        out_.push_back(kDigits[u >> 4]);
                        out_.push_back(kDigits[u & 0xF]);
                }
            } else {
                out_.push_back(c);  // UTF-8 passes through unchanged
            }
        }
    }
    std::string& out_;
};

class BufferedOut {
public:
    static constexpr std::size_t kBufferSize = std::size_t{4} << 20;
    // Every record-sized append below this size may assume it fits after reserve().
    static constexpr std::size_t kMaxReserve = std::size_t{1} << 16;

    explicit BufferedOut(std::FILE* file) : file_(file), buf_(new char[kBufferSize]) {}
    BufferedOut(const BufferedOut&) = delete;
    BufferedOut& operator=(const BufferedOut&) = delete;
    ~BufferedOut() { flush(); }

    // Makes room for n more bytes (n <= kMaxReserve) so that the small appends that follow need no checks.
    void reserve(std::size_t n) {
        if (pos_ + n > kBufferSize) flush();
    }
    void raw(std::string_view s) {
        if (s.size() > kBufferSize - pos_) {
            flush();
            if (s.size() > kBufferSize) {
                write_through(s.data(), s.size());
                return;
            }
        }
        std::memcpy(buf_.get() + pos_, s.data(), s.size());
        pos_ += s.size();
    }
    // The unchecked appends: callers reserve() first.
    void lit(std::string_view s) {
        std::memcpy(buf_.get() + pos_, s.data(), s.size());
        pos_ += s.size();
    }
    void ch(char c) { buf_[pos_++] = c; }
    void u64(std::uint64_t v) { pos_ += StringSink::format_u64(buf_.get() + pos_, v); }
    void hex_word(std::uint32_t v) {
        StringSink::format_hex_word(buf_.get() + pos_, v);
        pos_ += 12;
    }

    void flush() {
        if (pos_ != 0) write_through(buf_.get(), pos_);
        pos_ = 0;
        if (ok_ && std::fflush(file_) != 0) ok_ = false;
    }
    // Bytes handed to this writer so far (flushed or not).
    std::uint64_t bytes() const { return written_ + pos_; }
    bool ok() const { return ok_; }

private:
    void write_through(const char* data, std::size_t n) {
        if (ok_ && std::fwrite(data, 1, n, file_) != n) ok_ = false;
        written_ += n;
    }
    std::FILE* file_;
    std::unique_ptr<char[]> buf_;
    std::size_t pos_ = 0;
    std::uint64_t written_ = 0;
    bool ok_ = true;
};

}  // namespace shaderbake::tracegen
