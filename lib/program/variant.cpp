#include "program/variant.hpp"

#include "algorithms/algorithm_unit.hpp"
#include "element.hpp"
#include "program/expression.hpp"
#include "program/kernel_sources.hpp"
#include "settings.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <tuple>
#include <vector>

namespace clscan::detail {
namespace {

const char* op_define(op operation) {
  switch (operation) {
  case op::sum: return "CLSCAN_OP_SUM";
  case op::min: return "CLSCAN_OP_MIN";
  case op::max: return "CLSCAN_OP_MAX";
  case op::bit_and: return "CLSCAN_OP_AND";
  case op::bit_or: return "CLSCAN_OP_OR";
  case op::bit_xor: return "CLSCAN_OP_XOR";
  case op::custom: return "CLSCAN_OP_CUSTOM";
  }
  return "CLSCAN_OP_SUM";
}

} // namespace

bool variant_key::operator<(const variant_key& other) const {
  const auto tie = [](const variant_key& k) {
    const std::string_view custom = k.custom_op ? std::string_view(*k.custom_op) : std::string_view();
    const std::string_view test = k.predicate ? std::string_view(*k.predicate) : std::string_view();
    const std::string_view equal = k.key_equal ? std::string_view(*k.key_equal) : std::string_view();
    const std::string_view mapped = k.transform ? std::string_view(*k.transform) : std::string_view();
    return std::make_tuple(k.algo, k.call, k.key_type, k.type, k.operation, k.work_group_size,
                           k.items_per_thread, k.vector_width, k.lookback, k.spin_limit, k.run_lanes,
                           k.fixed_order, k.narrow_counts, k.aligned, k.sort, k.sort_value_size, custom, test,
                           equal, mapped, k.input_type, k.parameter_count);
  };
  if (tie(*this) != tie(other)) return tie(*this) < tie(other);
  for (std::size_t p = 0; p < parameter_count; ++p) {
    const auto slot = [](const parameter_slot& s) {
      return std::make_tuple(std::string_view(*s.name), s.type);
    };
    if (slot(parameters[p]) != slot(other.parameters[p]))
      return slot(parameters[p]) < slot(other.parameters[p]);
  }
  return std::memcmp(custom_identity.bytes, other.custom_identity.bytes, sizeof custom_identity.bytes) < 0;
}

std::string program_source(const variant_key& key, const device_capabilities& caps) {
  const algorithm_unit& unit = unit_of(key);
  std::string source;
  std::vector<named_parameter> parameters;
  bool fp64 = key.type == element_type::float64 || key.input_type == element_type::float64;
  // CLSCAN_USER_PARAMS, CLSCAN_USER_ARGS and CLSCAN_EXPRESSION_ARGS (kernels/prelude.cl): a transform's
  // switch first, then the caller's parameters.
  std::string declared = key.transform ? ", const int clscan_transform_input" : "";
  std::string passed = key.transform ? ", clscan_transform_input" : "";
  std::string expression_args;
  for (std::size_t p = 0; p < key.parameter_count; ++p) {
    const char* type = opencl_name(key.parameters[p].type);
    parameters.push_back({*key.parameters[p].name, type});
    fp64 = fp64 || key.parameters[p].type == element_type::float64;
    declared += ", const " + std::string(type) + " clscan_param_" + std::to_string(p);
    expression_args += ", clscan_param_" + std::to_string(p);
  }
  passed += expression_args;
  if (fp64) source += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  // The caller's expressions come before every declaration and macro of clscan's, in functions of their
  // own (program/expression.hpp).
  const char* type = opencl_name(key.type);
  if (key.operation == op::custom)
    source += expression_function(expression_kind::custom_op, *key.custom_op, type, parameters);
  if (key.predicate)
    source += expression_function(expression_kind::predicate, *key.predicate, type, parameters);
  if (key.key_equal) {
    // Of the keys by key, of the elements for unique.
    const bool by_key = key.call == primitive::inclusive_by_key || key.call == primitive::exclusive_by_key;
    if (by_key && key.key_type == element_type::float64 && !fp64)
      source += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
    source += expression_function(expression_kind::key_equal, *key.key_equal,
                                  opencl_name(by_key ? key.key_type : key.type), parameters);
    source += "#define CLSCAN_KEY_EQUAL(a, b) clscan_user_key_equal((a), (b) CLSCAN_EXPRESSION_ARGS)\n";
  }
  if (key.transform) {
    // x has the input's type, the result the element type.
    const char* input_type = key.input_type ? opencl_name(*key.input_type) : type;
    source += expression_function(expression_kind::transform, *key.transform, type, parameters, input_type);
    source += "#define CLSCAN_TRANSFORM(x, i) clscan_user_transform((x), (i) CLSCAN_EXPRESSION_ARGS)\n";
  }
  if (!declared.empty())
    source += "#define CLSCAN_USER_PARAMS " + declared + "\n#define CLSCAN_USER_ARGS " + passed +
              "\n#define CLSCAN_EXPRESSION_ARGS " + expression_args + "\n";
  source += std::string("#define CLSCAN_T ") + opencl_name(key.type) + "\n";
  if (key.input_type) source += std::string("#define CLSCAN_IN_T ") + opencl_name(*key.input_type) + "\n";
  source += "#define CLSCAN_ELEM_SIZE " + std::to_string(size_of(key.type)) + "\n";
  source += unit.prelude(key, caps);
  source += "#define CLSCAN_IDENTITY " +
            opencl_literal(key.type, identity_of(key.type, key.operation, key.custom_identity)) + "\n";
  source += std::string("#define ") + op_define(key.operation) + "\n";
  if (is_floating(key.type)) source += "#define CLSCAN_FLOATING 1\n";
  if (key.operation == op::sum && key.type == element_type::int32) source += "#define CLSCAN_WRAP_T uint\n";
  if (key.operation == op::sum && key.type == element_type::int64) source += "#define CLSCAN_WRAP_T ulong\n";
  if (key.operation == op::custom)
    source += "#define CLSCAN_COMBINE(a, b) clscan_user_op((a), (b) CLSCAN_EXPRESSION_ARGS)\n";
  return source + kernel_source(unit.kernel_file);
}

std::string program_options(const variant_key& key, const device_capabilities& caps) {
  // CLSCAN_BUILD_OPTIONS is appended to every program's options (diagnosis, and tests that compile
  // a kernel with a fault of their own, e.g. -DCLSCAN_TEST_SILENT_TILE). The disk cache key holds
  // the options, so such builds never share entries with normal ones.
  const std::string_view extra = extra_build_options();
  return "-DCLSCAN_WG=" + std::to_string(key.work_group_size) +
         " -DCLSCAN_RAKE_SEGMENT=" + std::to_string(group_scan_segment) +
         " -DCLSCAN_ITEMS=" + std::to_string(key.items_per_thread) +
         " -DCLSCAN_VEC=" + std::to_string(key.vector_width) +
         " -DCLSCAN_ALIGNED=" + (key.aligned ? "1" : "0") +
         (key.run_lanes > 1 ? " -DCLSCAN_RUN_LANES=" + std::to_string(key.run_lanes) : std::string()) +
         (key.fixed_order ? " -DCLSCAN_FIXED_ORDER=1" : "") + unit_of(key).build_options(key, caps) +
         (extra.empty() ? std::string() : " " + std::string(extra));
}

} // namespace clscan::detail
