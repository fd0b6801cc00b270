#include "program/variant.hpp"

#include "algorithms/algorithm_unit.hpp"
#include "element.hpp"
#include "program/kernel_sources.hpp"
#include "settings.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <tuple>

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
    return std::make_tuple(k.algo, k.call, k.key_type, k.type, k.operation, k.work_group_size,
                           k.items_per_thread, k.vector_width, k.lookback, k.spin_limit, k.run_lanes,
                           k.fixed_order, k.narrow_counts, k.aligned, k.sort, k.sort_value_size, custom,
                           test);
  };
  if (tie(*this) != tie(other)) return tie(*this) < tie(other);
  return std::memcmp(custom_identity.bytes, other.custom_identity.bytes, sizeof custom_identity.bytes) < 0;
}

std::string program_source(const variant_key& key, const device_capabilities& caps) {
  const algorithm_unit& unit = unit_of(key);
  std::string source;
  if (key.type == element_type::float64) source += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  source += std::string("#define CLSCAN_T ") + opencl_name(key.type) + "\n";
  source += "#define CLSCAN_ELEM_SIZE " + std::to_string(size_of(key.type)) + "\n";
  source += unit.prelude(key, caps);
  source += "#define CLSCAN_IDENTITY " +
            opencl_literal(key.type, identity_of(key.type, key.operation, key.custom_identity)) + "\n";
  source += std::string("#define ") + op_define(key.operation) + "\n";
  if (is_floating(key.type)) source += "#define CLSCAN_FLOATING 1\n";
  if (key.operation == op::sum && key.type == element_type::int32) source += "#define CLSCAN_WRAP_T uint\n";
  if (key.operation == op::sum && key.type == element_type::int64) source += "#define CLSCAN_WRAP_T ulong\n";
  if (key.operation == op::custom) {
    std::string expression = *key.custom_op;
    std::replace(expression.begin(), expression.end(), '\n', ' ');
    source += "#define CLSCAN_COMBINE(a, b) (" + expression + ")\n";
  }
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
