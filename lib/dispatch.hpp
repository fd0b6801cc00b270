#pragma once

#include <clscan/device.hpp>
#include <clscan/scan.hpp>

#include <optional>
#include <string>

namespace clscan::detail {

// Identifies one compiled program: algorithm, element type, operator, launch shape and alignment.
struct variant_key {
  algorithm algo = algorithm::three_stage;
  element_type type = element_type::int32;
  op operation = op::sum;
  // Only for op::custom: the expression, interned by the workspace (workspace::intern), so that equal
  // texts are the same pointer and a repeated call builds its key without copying the text.
  const std::string* custom_op = nullptr;
  element_value custom_identity; // only for op::custom
  std::size_t work_group_size = 0;
  std::size_t items_per_thread = 0;
  std::size_t vector_width = 0;
  std::size_t lookback = 0;
  std::size_t spin_limit = 0;
  bool aligned = false;

  bool operator<(const variant_key& other) const;
};

// The operator's identity for `type` (for op::custom, the request's custom_identity).
element_value identity_of(element_type type, op operation, const element_value& custom_identity);

// True when the single-pass status words are 64 bits wide (cl_khr_int64_base_atomics, unless
// CLSCAN_NARROW_STATUS=1 asks for the 32-bit layout); kernels/single_pass.cl CLSCAN_WIDE_STATUS.
bool wide_status_words(const device_capabilities& caps);

// True when single-pass status words use release/acquire atomics on this device
// (kernels/single_pass.cl CLSCAN_ACQ_REL): the device has them at device scope, 64-bit words also
// have cl_khr_int64_extended_atomics, and CLSCAN_MEMORY_MODEL is not "fences".
bool acq_rel_status(const device_capabilities& caps);

// The kernel prelude (type, operator, identity) and the build options (-D shape, -cl-std) for a variant.
std::string program_prelude(const variant_key& key, const device_capabilities& caps);
std::string build_options(const variant_key& key, const device_capabilities& caps);

// Launch shape dispatch starts from for this device, type and algorithm, for inputs larger than
// small_input_bytes() or (small_inputs) for the others; a tuned shape replaces the large-input one,
// CLSCAN_TUNING replaces both. Throws invalid_argument for a shape that does not fit the kernel's
// private or local memory.
tuning initial_tuning(const device_capabilities& caps, element_type type, algorithm algo,
                      bool small_inputs = false);

// Inputs of at most this many bytes use `algo`'s small-input shape (0: one shape for every size).
std::size_t small_input_bytes(const device_capabilities& caps, algorithm algo);

// True when the device has what the single-pass kernel needs for this element type.
bool single_pass_supported(const device_capabilities& caps, element_type type);

// The algorithm a request runs with on this device for n elements, given the device's single-pass
// verdict; std::nullopt when the choice needs a verdict and `verdict` is null (the caller qualifies
// the device, with no workspace lock held, and asks again).
std::optional<algorithm> choose_algorithm(const scan_request& request, const device_capabilities& caps,
                                          std::size_t n, std::size_t three_stage_tile,
                                          const single_pass_qualification* verdict);

// Longest options::custom_op accepted: an expression of a and b, which the program source and the disk
// cache's entry identity hold in full.
constexpr std::size_t max_custom_op_bytes = std::size_t{64} << 10;

// Checks the request against the device (operator valid for the type, fp64 present, custom source
// given) and throws clscan::invalid_argument or clscan::unsupported_error.
void validate_request(const scan_request& request, const device_capabilities& caps);

} // namespace clscan::detail
