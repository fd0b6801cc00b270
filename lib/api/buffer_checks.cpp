// The checks of one buffer argument and what they learn of it (arguments.hpp: memory_view).
#include "arguments.hpp"

#include "error_check.hpp"

#include <clscan/error.hpp>

#include <cstdint>
#include <string>

namespace clscan::detail {
namespace {

template <typename T> T memory_info(cl_mem memory, cl_mem_info what, const char* role) {
  T value{};
  const cl_int status = clGetMemObjectInfo(memory, what, sizeof(T), &value, nullptr);
  if (status == CL_INVALID_MEM_OBJECT)
    throw invalid_argument(std::string("clscan: the ") + role + " buffer is not a valid memory object");
  check(status, "clGetMemObjectInfo");
  return value;
}

} // namespace

// `forbidden_flags`: access flags the kernels cannot work with for this role. The kernels read the
// input, and write the output and may read it back (the three-stage scan adds the tile prefixes to
// it in place), so the input must not be write-only and the output must be readable and writable.
memory_view check_buffer(cl_mem buffer, const char* role, cl_context context, std::size_t offset,
                         std::size_t n, std::size_t element_size, cl_mem_flags forbidden_flags,
                         bool n_is_callers, const char* n_name) {
  if (!buffer) throw invalid_argument(std::string("clscan: the ") + role + " buffer is null");
  if (memory_info<cl_context>(buffer, CL_MEM_CONTEXT, role) != context)
    throw invalid_argument(std::string("clscan: the ") + role +
                           " buffer belongs to another context than the queue");
  const auto flags = memory_info<cl_mem_flags>(buffer, CL_MEM_FLAGS, role);
  if (flags & forbidden_flags & CL_MEM_WRITE_ONLY)
    throw invalid_argument(std::string("clscan: the ") + role +
                           " buffer was created CL_MEM_WRITE_ONLY, but clscan's kernels read it; use "
                           "CL_MEM_READ_WRITE");
  if (flags & forbidden_flags & CL_MEM_READ_ONLY)
    throw invalid_argument(std::string("clscan: the ") + role +
                           " buffer was created CL_MEM_READ_ONLY, but clscan's kernels write it; use "
                           "CL_MEM_READ_WRITE");
  const std::size_t bytes = memory_info<std::size_t>(buffer, CL_MEM_SIZE, role);
  const std::size_t capacity = bytes / element_size;
  if (offset > capacity || n > capacity - offset)
    throw invalid_argument(std::string("clscan: the ") + role + " buffer holds " + std::to_string(capacity) +
                           " elements of " + std::to_string(element_size) + " bytes, fewer than offset " +
                           std::to_string(offset) +
                           (n_is_callers ? std::string(" + ") + n_name + " " : std::string(" + ")) +
                           std::to_string(n) + (n_is_callers ? "" : ", the elements the call uses there"));

  memory_view view;
  view.root = buffer;
  cl_mem_flags root_flags = flags;
  if (const auto parent = memory_info<cl_mem>(buffer, CL_MEM_ASSOCIATED_MEMOBJECT, role)) {
    view.root = parent;
    view.origin = memory_info<std::size_t>(buffer, CL_MEM_OFFSET, role);
    root_flags = memory_info<cl_mem_flags>(parent, CL_MEM_FLAGS, role);
  }
  if (root_flags & CL_MEM_USE_HOST_PTR) {
    if (const auto* host =
            static_cast<const unsigned char*>(memory_info<void*>(view.root, CL_MEM_HOST_PTR, role)))
      view.host = host + view.origin;
  }
  // Kernels access elements through typed pointers, which OpenCL requires to be aligned to the type.
  if (address_alignment(view, 0, element_size) < element_size)
    throw invalid_argument(std::string("clscan: the ") + role +
                           " buffer's memory does not start at a multiple of its " +
                           std::to_string(element_size) +
                           "-byte elements (CL_MEM_USE_HOST_PTR memory or a sub-buffer origin that is "
                           "not element-aligned); OpenCL kernels need element-aligned data");
  return view;
}

std::size_t address_alignment(const memory_view& view, std::size_t offset, std::size_t base_alignment) {
  const auto power_of_two = [](std::uintptr_t address) {
    return address ? static_cast<std::size_t>(address & (~address + 1)) : SIZE_MAX;
  };
  // The implementation's own memory: the sub-buffer origin (0 for a whole buffer) from an aligned base.
  const std::size_t own = std::min(power_of_two(view.origin + offset), base_alignment);
  if (!view.host) return own;
  // CL_MEM_USE_HOST_PTR: kernels may run on the host memory itself, or on a copy the implementation
  // keeps in memory of its own (NVIDIA does), so both addresses must allow the access: host.data()+3
  // at element offset 5 is 32-byte aligned on the host and only 4-byte aligned in NVIDIA's copy, where
  // an aligned vector load ended the kernel with -9999.
  return std::min(power_of_two(reinterpret_cast<std::uintptr_t>(view.host) + offset), own);
}

} // namespace clscan::detail
