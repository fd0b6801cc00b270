// The source of the function a caller's expression is compiled in (program/expression.hpp).
#include "program/expression.hpp"

#include <string>

namespace clscan::detail {

std::string expression_function(expression_kind kind, std::string_view text, const char* element_type,
                                const std::vector<named_parameter>& parameters, const char* input_type) {
  const std::string type = element_type;
  std::string params, unused;
  for (const named_parameter& p : parameters) {
    params.append(", const ").append(p.type).append(" ").append(p.name);
    unused.append("  (void)").append(p.name).append(";\n"); // an expression may leave it unused
  }
  params.append(") {\n").append(unused);
  // The expression on lines of its own, as given, so that a build log's line numbers point into it.
  if (kind == expression_kind::predicate || kind == expression_kind::transform) {
    const bool predicate = kind == expression_kind::predicate;
    const std::string x_type = !predicate && input_type ? input_type : type;
    return (predicate ? "inline uint clscan_user_predicate(" : "inline " + type + " clscan_user_transform(") +
           x_type + " x, ulong i" + params + "  (void)x;\n  (void)i;\n  return (\n" + std::string(text) +
           (predicate ? "\n  ) ? 1u : 0u;\n}\n" : "\n  );\n}\n");
  }
  const bool equal = kind == expression_kind::key_equal;
  return (equal ? "inline int clscan_user_key_equal(" : "inline " + type + " clscan_user_op(") + type +
         " a, " + type + " b" + params + "  (void)a;\n  (void)b;\n  return (\n" + std::string(text) +
         (equal ? "\n  ) ? 1 : 0;\n}\n" : "\n  );\n}\n");
}

} // namespace clscan::detail
