// The calls built on the scan machinery (select.hpp, by_key.hpp), as the library sees them: one
// request type with the element types erased, as scan.hpp's scan_request is for scans.
#pragma once

#include <clscan/scan.hpp>

#include <cstddef>
#include <string>

namespace clscan::detail {

// reduce: clscan::reduce (reduce.hpp), which takes a scan_request of its own; here for variant keys.
enum class primitive {
  select_if,
  select_flagged,
  partition_if,
  unique,
  inclusive_by_key,
  exclusive_by_key,
  reduce
};

struct primitive_request {
  primitive kind = primitive::select_if;
  // Element type, operator and initial value (by-key), offsets, wait list, algorithm.
  scan_request scan;
  element_type key_type = element_type::int32; // by-key calls
  const std::string* predicate = nullptr;      // select_if, partition_if
  std::size_t flags_offset = 0;                // select_flagged, in cl_uchar elements
  std::size_t count_offset = 0;                // selections, in cl_ulong elements
};

// in: the input; aux: the flags (select_flagged) or the keys (by-key calls), else null; count: the
// count buffer of the selections, else null.
cl::Event enqueue_primitive(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer* aux,
                            const cl::Buffer& out, const cl::Buffer* count, std::size_t n,
                            const primitive_request& request);

} // namespace clscan::detail
