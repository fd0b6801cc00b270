// Argument checks of the sorts (sort.hpp): the types and bit range, the keys, and the values or indices.
#include "argument_checks.hpp"
#include "arguments.hpp"
#include "element.hpp"

#include <clscan/error.hpp>

#include <cstddef>
#include <limits>
#include <string>

namespace clscan::detail {
namespace {

const char* sort_call_name(sort_call call) {
  switch (call) {
  case sort_call::keys: return "clscan::sort";
  case sort_call::pairs: return "clscan::sort_by_key";
  case sort_call::order: return "clscan::sorted_order";
  }
  return "clscan::sort";
}

// The message of an input and output (`what`: "keys", "values") that break check_in_out's rule.
std::string in_place_rule(const char* who, const char* what, bool one_handle) {
  const std::string pair = std::string(what) + "_in and " + what + "_out";
  return std::string(who) + ": " + pair +
         (one_handle ? " are one buffer whose ranges overlap without being the same range (equal offsets "
                       "sort in place)"
                     : " are different handles whose ranges overlap; to sort in place, pass the same "
                       "cl::Buffer with equal offsets");
}

bool known_type(element_type type) {
  switch (type) {
  case element_type::int32:
  case element_type::uint32:
  case element_type::int64:
  case element_type::uint64:
  case element_type::float32:
  case element_type::float64: return true;
  }
  return false;
}

} // namespace

checked_call check_sort_arguments(const cl::CommandQueue& queue, const cl::Buffer& keys_in,
                                  const cl::Buffer& keys_out, const cl::Buffer* values_in,
                                  const cl::Buffer* values_out, std::size_t n, const sort_request& request) {
  const char* who = sort_call_name(request.call); // strings are built only for a message
  checked_call call = call_on(queue, who);
  const cl_context context = call.context;

  if (!known_type(request.key_type)) throw invalid_argument(std::string(who) + ": unknown key type");
  const std::size_t key_size = size_of(request.key_type);
  if (request.begin_bit > request.end_bit || request.end_bit > 8 * key_size)
    throw invalid_argument(std::string(who) + ": sort_options::begin_bit " +
                           std::to_string(request.begin_bit) + " and end_bit " +
                           std::to_string(request.end_bit) + " must satisfy begin_bit <= end_bit <= " +
                           std::to_string(8 * key_size) + " (the bits of the key type)");
  if (request.algo != algorithm::automatic && request.algo != algorithm::single_pass &&
      request.algo != algorithm::three_stage)
    throw invalid_argument(std::string(who) + ": unknown sort_options::algorithm");
  const bool has_values = request.call != sort_call::keys;
  if (has_values && !known_type(request.value_type))
    throw invalid_argument(std::string(who) + ": unknown value type");
  if (request.call == sort_call::order) {
    if (request.value_type != element_type::uint32 && request.value_type != element_type::uint64)
      throw invalid_argument(std::string(who) + ": indices are cl_uint or cl_ulong");
    if (request.value_type == element_type::uint32 &&
        n > std::size_t{std::numeric_limits<cl_uint>::max()} + 1)
      throw invalid_argument(std::string(who) + ": cl_uint indices cannot number " + std::to_string(n) +
                             " keys; use cl_ulong indices (sorted_order<K, cl_ulong>)");
  }
  if (has_values && !values_out)
    throw invalid_argument(std::string(who) + ": no output buffer for the values");
  if (request.call == sort_call::pairs && !values_in)
    throw invalid_argument(std::string(who) + ": no values buffer");

  constexpr cl_mem_flags read_write = CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
  // Outputs are read back by the later digit passes, so they must be readable and writable.
  const bool keys_in_place = request.call == sort_call::order || keys_in() == keys_out();
  const memory_view keys_in_view = check_buffer(
      keys_in(), request.call == sort_call::order ? "keys" : "keys_in", context, request.keys_in_offset, n,
      key_size, keys_in_place && request.call != sort_call::order ? read_write : CL_MEM_WRITE_ONLY);
  memory_view keys_out_view = keys_in_view;
  const byte_range keys_in_range{request.keys_in_offset * key_size, n * key_size};
  byte_range keys_out_range = keys_in_range;
  if (request.call != sort_call::order) {
    keys_out_view =
        check_buffer(keys_out(), "keys_out", context, request.keys_out_offset, n, key_size, read_write);
    keys_out_range = {request.keys_out_offset * key_size, n * key_size};
    check_in_out(keys_in_place, keys_in_view, keys_in_range, keys_out_view, keys_out_range,
                 [who](bool one_handle) { return in_place_rule(who, "keys", one_handle); });
  }

  if (has_values) {
    const std::size_t value_size = size_of(request.value_type);
    const char* out_role = request.call == sort_call::order ? "indices_out" : "values_out";
    const memory_view out_view = check_buffer((*values_out)(), out_role, context, request.values_out_offset,
                                              n, value_size, read_write);
    const byte_range out_range{request.values_out_offset * value_size, n * value_size};
    const auto keys_clash = [&](const memory_view& view, byte_range range, const char* role) {
      if (views_overlap(view, range, keys_in_view, keys_in_range) ||
          views_overlap(view, range, keys_out_view, keys_out_range))
        throw invalid_argument(std::string(who) + ": the " + role + " range overlaps the keys");
    };
    keys_clash(out_view, out_range, out_role);
    if (request.call == sort_call::pairs) {
      const bool values_in_place = (*values_in)() == (*values_out)();
      const memory_view in_view =
          check_buffer((*values_in)(), "values_in", context, request.values_in_offset, n, value_size,
                       values_in_place ? read_write : CL_MEM_WRITE_ONLY);
      const byte_range in_range{request.values_in_offset * value_size, n * value_size};
      check_in_out(values_in_place, in_view, in_range, out_view, out_range,
                   [who](bool one_handle) { return in_place_rule(who, "values", one_handle); });
      keys_clash(in_view, in_range, "values_in");
    }
  }

  take_wait_list(request.wait_list, call);
  call.in = keys_in_view;
  call.out = keys_out_view;
  return call;
}

} // namespace clscan::detail
