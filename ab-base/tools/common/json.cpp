#include "json.hpp"

#include <cmath>
#include <cstdint>

namespace clscan_tools {
namespace {

// Length of the valid UTF-8 sequence at text[i], or 0 when it is not one.
std::size_t utf8_length(const std::string& text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  std::uint32_t code = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    code = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    code = lead & 0x0Fu;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    code = lead & 0x07u;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0u) != 0x80u) return 0;
    code = (code << 6) | (byte(i + k) & 0x3Fu);
  }
  if ((length == 3 && code < 0x800) || (length == 4 && (code < 0x10000 || code > 0x10FFFF))) return 0;
  if (code >= 0xD800 && code <= 0xDFFF) return 0; // surrogates are not characters
  return length;
}

void append_escaped(std::string& out, const std::string& text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t length = utf8_length(text, i);
      if (length == 0) {
        out += "\\ufffd";
        ++i;
      } else {
        out.append(text, i, length);
        i += length;
      }
      continue;
    }
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\b': out += "\\b"; break;
    case '\f': out += "\\f"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default:
      if (c < 0x20 || c == 0x7F) {
        char code[8];
        std::snprintf(code, sizeof code, "\\u%04x", c);
        out += code;
      } else {
        out += static_cast<char>(c);
      }
    }
    ++i;
  }
}

} // namespace

std::string json_writer::escape(const std::string& text) {
  std::string out;
  append_escaped(out, text);
  return out;
}

void json_writer::key(const std::string& name) {
  separator();
  out_ += '"';
  append_escaped(out_, name);
  out_ += "\": ";
  after_key_ = true;
}

void json_writer::value(const std::string& text) {
  separator();
  out_ += '"';
  append_escaped(out_, text);
  out_ += '"';
}

void json_writer::value(bool flag) {
  separator();
  out_ += flag ? "true" : "false";
}

void json_writer::value(unsigned long long number) {
  separator();
  out_ += std::to_string(number);
}

void json_writer::value(long long number) {
  separator();
  out_ += std::to_string(number);
}

void json_writer::value(double number, int decimals) {
  if (std::isnan(number)) {
    null();
    return;
  }
  separator();
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, number);
  out_ += text;
}

void json_writer::null() {
  separator();
  out_ += "null";
}

void json_writer::open(char bracket) {
  separator();
  out_ += bracket;
  first_.push_back(true);
}

void json_writer::close(char bracket) {
  const bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_ += bracket;
  if (first_.empty() && style_ == layout::indented) out_ += '\n';
}

void json_writer::separator() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (first_.empty()) return;
  if (!first_.back()) out_ += style_ == layout::indented ? "," : ", ";
  first_.back() = false;
  newline();
}

void json_writer::newline() {
  if (style_ == layout::one_line) return;
  out_ += '\n';
  out_.append(2 * first_.size(), ' ');
}

void json_lines::add(const std::string& element) {
  std::fprintf(out_, "%s  %s", empty_ ? "" : ",\n", element.c_str());
  std::fflush(out_);
  empty_ = false;
}

void json_lines::finish() { std::fputs(empty_ ? "]\n" : "\n]\n", out_); }

} // namespace clscan_tools
