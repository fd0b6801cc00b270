// The tools' one JSON writer: objects, arrays, strings (escaped, invalid UTF-8 replaced by U+FFFD),
// numbers, booleans and null; indented two spaces (clscan-info's documents) or on one line (a row of
// clscan-bench), and an array written one element a line as the elements come.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace clscan_tools {

class json_writer {
public:
  enum class layout { indented, one_line };

  explicit json_writer(std::string& out, layout style = layout::indented) : out_(out), style_(style) {}

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }

  void key(const std::string& name);

  void value(const std::string& text);
  void value(const char* text) { value(std::string(text)); }
  void value(bool flag);
  void value(unsigned long long number);
  void value(unsigned long number) { value(static_cast<unsigned long long>(number)); }
  void value(unsigned int number) { value(static_cast<unsigned long long>(number)); }
  void value(long long number);
  void value(int number) { value(static_cast<long long>(number)); }
  // Fixed-point with `decimals` digits; NaN (a value not measured) is null.
  void value(double number, int decimals = 3);
  void null();

  template <typename T> void field(const std::string& name, const T& v) {
    key(name);
    value(v);
  }
  void field(const std::string& name, double number, int decimals) {
    key(name);
    value(number, decimals);
  }
  // A string field that is null when `text` is empty (no directory, no error, ...).
  void text_or_null(const std::string& name, const std::string& text) {
    key(name);
    if (text.empty())
      null();
    else
      value(text);
  }

  // `text` escaped for the inside of a JSON string.
  static std::string escape(const std::string& text);

private:
  void open(char bracket);
  void close(char bracket);
  void separator();
  void newline();

  std::string& out_;
  layout style_;
  std::vector<bool> first_; // per open level: nothing written in it yet
  bool after_key_ = false;
};

// A JSON array on `out`, one element a line, each printed (and flushed) as it comes: "[", then
// "  <element>" lines separated by commas, then "]".
class json_lines {
public:
  explicit json_lines(std::FILE* out) : out_(out) { std::fputs("[\n", out_); }
  void add(const std::string& element);
  void finish();

private:
  std::FILE* out_;
  bool empty_ = true;
};

} // namespace clscan_tools
