// The calls built on the scan machinery (select.hpp, by_key.hpp), as the library sees them: one
// request type with the element types erased, as scan.hpp's scan_request is for scans.
#pragma once

#include <clscan/scan.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace clscan::detail {

// reduce: clscan::reduce (reduce.hpp), which takes a scan_request of its own; here for variant keys.
// select_run_heads, select_run_tails: the selections that reduce_by_key, unique_by_key and
// run_length_encode (runs.hpp) make of their values, by the keys of another buffer (key_type); no
// public call of their own. segment_offsets: the program of the offsets' kernels of the segmented calls
// (segmented.hpp: head flags), keyed by the offsets' and the values' types. segment_reduce: the program of
// reduce_segmented (kernels/segment_reduce.cl), keyed by the offsets' type (key_type), the values' type
// and the operator. runs_reduce, runs_unique, runs_encode: the one-pass programs of reduce_by_key,
// unique_by_key and run_length_encode (kernels/runs.cl), keyed by the keys' type (key_type), the
// values' (or the lengths') type and the operator.
enum class primitive {
  select_if,
  select_flagged,
  partition_if,
  unique,
  inclusive_by_key,
  exclusive_by_key,
  reduce,
  select_run_heads,
  select_run_tails,
  segment_offsets,
  segment_reduce,
  runs_reduce,
  runs_unique,
  runs_encode
};

struct primitive_request {
  primitive kind = primitive::select_if;
  // Element type, operator and initial value (by-key), offsets, wait list, algorithm.
  scan_request scan;
  element_type key_type = element_type::int32; // by-key calls, select_run_heads and _tails
  const std::string* predicate = nullptr;      // select_if, partition_if
  std::size_t flags_offset = 0;                // select_flagged, in cl_uchar elements
  std::size_t count_offset = 0;                // selections, in cl_ulong elements
  // Selections: elements of the output past out_offset that may be written (select_options::out_capacity);
  // none: n.
  std::optional<std::size_t> out_capacity;
};

// in: the input; aux: the flags (select_flagged) or the keys (by-key calls), else null; count: the
// count buffer of the selections, else null.
cl::Event enqueue_primitive(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer* aux,
                            const cl::Buffer& out, const cl::Buffer* count, std::size_t n,
                            const primitive_request& request);

} // namespace clscan::detail
