#include "kernel_sources.hpp"

#include <clscan/error.hpp>

#include <map>
#include <mutex>
#include <set>

namespace clscan::detail {
namespace {

std::string_view find_embedded(std::string_view name) {
  for (const auto& file : embedded_kernel_files())
    if (file.name == name) return file.text;
  throw error("clscan internal error: no embedded kernel file named '" + std::string(name) + "'");
}

void append_resolved(std::string_view name, std::set<std::string_view>& included, std::string& out) {
  if (!included.insert(name).second) return;
  const std::string_view text = find_embedded(name);
  std::size_t line_start = 0;
  while (line_start < text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    const std::string_view line = text.substr(line_start, line_end - line_start);
    constexpr std::string_view directive = "#include \"";
    if (line.substr(0, directive.size()) == directive) {
      const std::size_t close = line.find('"', directive.size());
      append_resolved(line.substr(directive.size(), close - directive.size()), included, out);
    } else {
      out.append(line);
      out.push_back('\n');
    }
    line_start = line_end + 1;
  }
}

} // namespace

const std::string& kernel_source(std::string_view name) {
  static std::mutex mutex;
  // Never destroyed, as the workspace registry (workspace.cpp): nothing of clscan's is freed at exit,
  // when the OpenCL implementation may be shutting down beside it. Under Oclgrind, freeing these
  // texts at exit aborted one run in ten ("corrupted double-linked list", exit-oclgrind-global-late).
  static auto* const resolved_texts =
      new std::map<std::string, std::string, std::less<>>; // NOLINT(cppcoreguidelines-owning-memory)
  auto& resolved = *resolved_texts;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = resolved.find(name);
  if (it == resolved.end()) {
    std::string text;
    std::set<std::string_view> included;
    append_resolved(name, included, text);
    it = resolved.emplace(std::string(name), std::move(text)).first;
  }
  return it->second;
}

} // namespace clscan::detail
