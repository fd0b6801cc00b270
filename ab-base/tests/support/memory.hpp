// Host memory of this process, for the tests that look for growth over many scans.
#pragma once

#include <cstddef>
#include <fstream>

#include <unistd.h>

namespace clscan_test {

// AddressSanitizer keeps freed memory in quarantine (256 MB by default) and ThreadSanitizer keeps
// shadow memory for it, so under them resident memory grows without any leak.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool sanitizer_allocator = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
constexpr bool sanitizer_allocator = true;
#else
constexpr bool sanitizer_allocator = false;
#endif
#else
constexpr bool sanitizer_allocator = false;
#endif

// Resident memory, from /proc/self/statm.
inline std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

} // namespace clscan_test
