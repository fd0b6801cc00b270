// Callers' expressions are compiled inside a function of their own at the top of the program, so that
// no text can close that function and add code of its own, and no name of clscan's kernels is in
// scope. The check below refuses what could still escape the function (a ';', a brace, a preprocessor
// line, a comment hiding the closing bracket) before anything is built or enqueued, and names the
// problem. It is lexical and runs on every call, so it allocates nothing unless brackets nest more
// than 32 deep (a repeated call allocates nothing, tests/programs/hot_path.cpp).
#include "program/expression.hpp"

#include "program/kernel_sources.hpp"

#include <clscan/error.hpp>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <set>
#include <string>
#include <vector>

namespace clscan::detail {
namespace {

bool identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identifier_part(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// OpenCL C's keywords and built-in type names (scalars, and their vectors of 2, 3, 4, 8 and 16):
// clscan's kernels declare things of these types, and the names are the language's, never clscan's.
bool language_name(std::string_view name) {
  static const std::set<std::string_view> keywords = {
      "auto",      "break",      "case",       "char",          "const",     "continue", "default",
      "do",        "double",     "else",       "enum",          "extern",    "float",    "for",
      "goto",      "if",         "inline",     "int",           "long",      "register", "restrict",
      "return",    "short",      "signed",     "sizeof",        "static",    "struct",   "switch",
      "typedef",   "union",      "unsigned",   "void",          "volatile",  "while",    "bool",
      "true",      "false",      "uchar",      "ushort",        "uint",      "ulong",    "half",
      "size_t",    "ptrdiff_t",  "intptr_t",   "uintptr_t",     "global",    "__global", "local",
      "__local",   "constant",   "__constant", "private",       "__private", "kernel",   "__kernel",
      "read_only", "write_only", "read_write", "__attribute__", "vec_step",  "event_t",  "sampler_t"};
  if (keywords.count(name)) return true;
  static const std::set<std::string_view> vector_bases = {"char", "uchar", "short", "ushort", "int", "uint",
                                                          "long", "ulong", "float", "double", "half"};
  const std::initializer_list<std::string_view> widths = {"2", "3", "4", "8", "16"};
  return std::any_of(widths.begin(), widths.end(), [&](std::string_view width) {
    return name.size() > width.size() && name.substr(name.size() - width.size()) == width &&
           vector_bases.count(name.substr(0, name.size() - width.size())) != 0;
  });
}

// One token of OpenCL C source: an identifier, or a punctuation character, or (between directives of
// the preprocessor) the end of a line.
struct token {
  std::string_view text;
  bool identifier = false;
};

// Statement keywords a name can follow without being declared by it.
bool statement_keyword(std::string_view name) {
  return name == "return" || name == "else" || name == "case" || name == "goto" || name == "do" ||
         name == "sizeof" || name == "vec_step";
}

// The tokens of OpenCL C source, comments left out: identifiers and single punctuation characters, with
// "\n" ending each #define (whose name is put into `macros`); other directives are left out.
void tokenize(std::string_view text, std::vector<token>& tokens, std::set<std::string, std::less<>>& macros) {
  bool line_start = true, in_directive = false;
  for (std::size_t p = 0; p < text.size();) {
    const char c = text[p];
    if (c == '\\' && p + 1 < text.size() && text[p + 1] == '\n') {
      p += 2; // a directive continued on the next line
      continue;
    }
    if (c == '\n') {
      if (in_directive) tokens.push_back({"\n", false});
      in_directive = false;
      line_start = true;
      ++p;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      ++p;
      continue;
    }
    if (text.compare(p, 2, "//") == 0) {
      p = text.find('\n', p);
      if (p == std::string_view::npos) p = text.size();
      continue;
    }
    if (text.compare(p, 2, "/*") == 0) {
      p = text.find("*/", p + 2);
      p = p == std::string_view::npos ? text.size() : p + 2;
      continue;
    }
    if (c == '#' && line_start) {
      // #define NAME: the rest of its line is read as code (clscan's macros hold declarations).
      std::size_t q = p + 1;
      while (q < text.size() && (text[q] == ' ' || text[q] == '\t'))
        ++q;
      if (text.compare(q, 6, "define") == 0) {
        q += 6;
        while (q < text.size() && (text[q] == ' ' || text[q] == '\t'))
          ++q;
        std::size_t end = q;
        while (end < text.size() && identifier_part(text[end]))
          ++end;
        macros.emplace(text.substr(q, end - q));
        tokens.push_back({"\n", false});
        in_directive = true;
        p = end;
      } else {
        while (p < text.size() && text[p] != '\n')
          p += text[p] == '\\' && p + 1 < text.size() ? 2 : 1;
      }
      line_start = false;
      continue;
    }
    line_start = false;
    std::size_t end = p + 1;
    if (identifier_part(c))
      while (end < text.size() && identifier_part(text[end]))
        ++end;
    tokens.push_back({text.substr(p, end - p), identifier_start(c)});
    p = end;
  }
}

using name_set = std::set<std::string, std::less<>>;

// The names clscan's kernels declare, read once from the embedded kernel files: in `callable` the
// macros and functions, in `other` the types, parameters and variables. Taken are #define and typedef
// names, then every name in a declarator's place: after a type name, or after a type and '*', and
// before one of = ; , ) [ ( . OpenCL C's own names are never taken, nor one that follows return,
// else, case ... . A variable may have a built-in function's name (group_scan.cl's `all`), so a name
// the expression calls is refused only where clscan has a function or macro of that name. A name this
// misses is no more visible to an expression than one it takes (the expression is compiled before
// every declaration of clscan's); taking it turns a compiler's error into a clear one before anything
// is built.
struct internal_names {
  name_set callable;
  name_set other;
};

const internal_names& clscan_names() {
  // Never destroyed, as the kernel texts (kernel_sources.cpp): nothing of clscan's is freed at exit.
  static const auto* const names = [] {
    auto* made = new internal_names; // NOLINT(cppcoreguidelines-owning-memory)
    name_set* const found = &made->other;
    made->callable.insert({"clscan_user_op", "clscan_user_predicate", "clscan_user_key_equal",
                           "clscan_user_transform", "clscan_transform_input"});
    std::vector<token> tokens;
    for (const embedded_file& file : embedded_kernel_files())
      tokenize(file.text, tokens, made->callable);
    // Types first (a typedef's name is the last name before its ';'), so that "elem_t* p" is read as
    // a declaration and "x * y" is not.
    for (std::size_t t = 0; t < tokens.size(); ++t)
      if (tokens[t].text == "typedef") {
        std::string_view last;
        int depth = 0; // inside a struct's braces
        for (++t; t < tokens.size() && (depth > 0 || tokens[t].text != ";"); ++t) {
          depth += tokens[t].text == "{" ? 1 : tokens[t].text == "}" ? -1 : 0;
          if (tokens[t].identifier && depth == 0) last = tokens[t].text;
        }
        if (!last.empty()) found->emplace(last);
      }
    const auto type_name = [&](const token& k) {
      return k.identifier && (language_name(k.text) || found->count(k.text) || made->callable.count(k.text));
    };
    const std::string_view follows_declarator = "=;,)[(";
    for (std::size_t t = 1; t + 1 < tokens.size(); ++t) {
      const token& before = tokens[t - 1];
      const token& name = tokens[t];
      const token& after = tokens[t + 1];
      if (!name.identifier || language_name(name.text)) continue;
      if (after.text.size() != 1 || follows_declarator.find(after.text[0]) == std::string_view::npos)
        continue;
      const bool after_type = before.identifier && !statement_keyword(before.text);
      const bool after_pointer = before.text == "*" && t >= 2 && type_name(tokens[t - 2]) &&
                                 after.text != "(" && !statement_keyword(tokens[t - 2].text);
      if (after_type || after_pointer) (after.text == "(" ? made->callable : *found).emplace(name.text);
    }
    return made;
  }();
  return *names;
}

class bracket_stack {
public:
  bool empty() const { return size_ == 0; }
  void emplace_back(char bracket, std::size_t offset) {
    if (size_ < inline_depth)
      inline_[size_] = {bracket, offset};
    else
      spilled_.emplace_back(bracket, offset);
    ++size_;
  }
  const std::pair<char, std::size_t>& back() const {
    return size_ <= inline_depth ? inline_[size_ - 1] : spilled_.back();
  }
  void pop_back() {
    if (size_ > inline_depth) spilled_.pop_back();
    --size_;
  }

private:
  static constexpr std::size_t inline_depth = 32;
  std::pair<char, std::size_t> inline_[inline_depth];
  std::vector<std::pair<char, std::size_t>> spilled_;
  std::size_t size_ = 0;
};

[[noreturn]] void refuse(const char* what, expression_kind kind, const std::string& problem) {
  const char* documented = kind == expression_kind::predicate
                               ? "a predicate is one OpenCL C expression of x (the element) and i (its index)"
                           : kind == expression_kind::key_equal
                               ? "key_equal is one OpenCL C expression of a and b (neighbouring keys)"
                           : kind == expression_kind::transform
                               ? "a transform is one OpenCL C expression of x (the element) and i (its index)"
                               : "a custom operator is one OpenCL C expression of a and b";
  throw invalid_argument(std::string(what) + " " + problem + "; " + documented +
                         ", without statements, blocks, comments, string literals or preprocessor lines");
}

std::string at(std::size_t offset) { return " at offset " + std::to_string(offset); }

} // namespace

void check_expression(std::string_view text, expression_kind kind, const char* what,
                      const std::vector<parameter>* parameters) {
  const bool of_x = kind == expression_kind::predicate || kind == expression_kind::transform;
  const std::string_view first = of_x ? "x" : "a";
  const std::string_view second = of_x ? "i" : "b";
  // The open brackets, innermost last, with their offsets: a repeated call allocates nothing
  // (tests/programs/hot_path.cpp), so only nesting deeper than the array spills into a vector.
  bracket_stack open;
  bool member = false; // the previous token was '.' or '->': a name after it is a vector component
  for (std::size_t p = 0; p < text.size();) {
    const char c = text[p];
    const std::string_view rest = text.substr(p);
    if (c == ';') refuse(what, kind, "holds ';'" + at(p));
    if (c == '{' || c == '}') refuse(what, kind, std::string("holds '") + c + "'" + at(p));
    if (c == '#') refuse(what, kind, "holds '#' (a preprocessor directive)" + at(p));
    if (c == '\\') refuse(what, kind, "holds a backslash outside a character literal" + at(p));
    if (c == '"') refuse(what, kind, "holds a string literal" + at(p));
    if (rest.substr(0, 2) == "//" || rest.substr(0, 2) == "/*") refuse(what, kind, "holds a comment" + at(p));
    for (const std::string_view digraph : {"<%", "%>", "<:", ":>", "%:"})
      if (rest.substr(0, 2) == digraph)
        refuse(what, kind, "holds the digraph '" + std::string(digraph) + "'" + at(p));
    if (rest.size() >= 3 && rest.substr(0, 2) == "??" &&
        std::string_view("=/'()!<>-").find(rest[2]) != std::string_view::npos)
      refuse(what, kind, "holds the trigraph '" + std::string(rest.substr(0, 3)) + "'" + at(p));

    if (c == '\'') {
      std::size_t q = p + 1;
      while (q < text.size() && text[q] != '\'' && text[q] != '\n')
        q += text[q] == '\\' && q + 1 < text.size() ? 2 : 1;
      if (q >= text.size() || text[q] != '\'')
        refuse(what, kind, "holds an unterminated character literal" + at(p));
      p = q + 1;
      member = false;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && p + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[p + 1])))) {
      // A number, as the preprocessor reads one: 1e-5f, 0x1p+3, 10ul.
      std::size_t q = p + 1;
      while (q < text.size() && (identifier_part(text[q]) || text[q] == '.' ||
                                 ((text[q] == '+' || text[q] == '-') &&
                                  std::string_view("eEpP").find(text[q - 1]) != std::string_view::npos)))
        ++q;
      p = q;
      member = false;
      continue;
    }
    if (identifier_start(c)) {
      std::size_t q = p + 1;
      while (q < text.size() && identifier_part(text[q]))
        ++q;
      const std::string_view name = text.substr(p, q - p);
      std::size_t next = q;
      while (next < text.size() && std::isspace(static_cast<unsigned char>(text[next])))
        ++next;
      const bool called = next < text.size() && text[next] == '(';
      const internal_names& internal = clscan_names();
      const auto given = [&] {
        return parameters && std::any_of(parameters->begin(), parameters->end(),
                                         [&](const parameter& given_one) { return given_one.name == name; });
      };
      if (!member && name != first && name != second && !given() &&
          (name.substr(0, 7) == "CLSCAN_" || internal.callable.count(name) ||
           (!called && internal.other.count(name))))
        refuse(what, kind,
               "names '" + std::string(name) + "'" + at(p) +
                   ", one of clscan's own names, which an expression cannot see (only its " +
                   std::string(first) + ", " + std::string(second) +
                   " and OpenCL C's built-in functions, types and constants)");
      p = q;
      member = false;
      continue;
    }
    member = c == '.' || rest.substr(0, 2) == "->";
    if (c == '(' || c == '[') open.emplace_back(c, p);
    if (c == ')' || c == ']') {
      const char wanted = c == ')' ? '(' : '[';
      if (open.empty()) refuse(what, kind, std::string("has an unmatched '") + c + "'" + at(p));
      if (open.back().first != wanted)
        refuse(what, kind,
               std::string("closes '") + open.back().first + "'" + at(open.back().second) + " with '" + c +
                   "'" + at(p));
      open.pop_back();
    }
    p += rest.substr(0, 2) == "->" ? 2 : 1;
  }
  if (!open.empty())
    refuse(what, kind, std::string("leaves '") + open.back().first + "'" + at(open.back().second) + " open");
  if (std::all_of(text.begin(), text.end(),
                  [](char c) { return std::isspace(static_cast<unsigned char>(c)); }))
    refuse(what, kind, "is blank");
}

bool language_keyword(std::string_view name) { return language_name(name); }

} // namespace clscan::detail
