// Shared helpers for clscan's tests: the device under test, and buffers with poisoned guards.
#pragma once

#include "names.hpp"

#include <clscan/clscan.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <stdlib.h>

namespace clscan_test {

// Sets an environment variable (or unsets it, given std::nullopt) for the life of the object, and
// restores what was there before.
class scoped_env {
public:
  scoped_env(std::string name, const std::optional<std::string>& value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) previous_ = std::string(old);
    if (value)
      ::setenv(name_.c_str(), value->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }
  ~scoped_env() {
    if (previous_)
      ::setenv(name_.c_str(), previous_->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

private:
  std::string name_;
  std::optional<std::string> previous_;
};

// A fresh directory under the system's temporary directory, removed (with its contents, made
// writable first) at the end.
class temp_dir {
public:
  temp_dir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "clscan-test-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~temp_dir() {
    std::error_code ignored;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add,
                                 ignored);
    std::filesystem::remove_all(path_, ignored);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  const std::filesystem::path& path() const { return path_; }

private:
  std::filesystem::path path_;
};

// One context and in-order queue on clscan::select_device() (CLSCAN_PLATFORM / CLSCAN_DEVICE),
// created once per process.
struct environment {
  cl::Device device;
  cl::Context context;
  cl::CommandQueue queue;
  std::string device_name;
};

inline environment& env() {
  static environment e = [] {
    environment made;
    made.device = clscan::select_device();
    made.context = cl::Context(made.device);
    made.queue = cl::CommandQueue(made.context, made.device);
    made.device_name = made.device.getInfo<CL_DEVICE_NAME>();
    return made;
  }();
  return e;
}

// A byte pattern no correct scan produces by accident in the places the tests check.
template <typename T> T poison_value() {
  T value;
  std::memset(&value, 0xA5, sizeof value);
  return value;
}

template <typename T> cl::Buffer make_buffer(const std::vector<T>& contents) {
  auto& e = env();
  const std::size_t bytes = std::max<std::size_t>(contents.size(), 1) * sizeof(T);
  cl::Buffer buffer(e.context, CL_MEM_READ_WRITE, bytes);
  if (!contents.empty())
    REQUIRE(e.queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, contents.size() * sizeof(T), contents.data()) ==
            CL_SUCCESS);
  return buffer;
}

template <typename T> std::vector<T> read_buffer(const cl::Buffer& buffer, std::size_t count) {
  std::vector<T> contents(count);
  if (count)
    REQUIRE(env().queue.enqueueReadBuffer(buffer, CL_TRUE, 0, count * sizeof(T), contents.data()) ==
            CL_SUCCESS);
  return contents;
}

// ---------------------------------------------------------------------------------------------------
// Guarded buffers and exact checks, shared by the scan and type tests.
//
// A guarded buffer holds `front` poison elements, the scanned range of n elements, and `back` poison
// elements. A correct scan writes only the scanned range, so every guard still holds poison_value().
namespace guarded {

using clscan_test::name_of;

// The host image of a guarded buffer: poison, then `data` (poison when null), then poison.
template <typename T>
std::vector<T> guarded_image(const std::vector<T>* data, std::size_t n, std::size_t front, std::size_t back) {
  std::vector<T> image(front + n + back, poison_value<T>());
  if (data) std::copy(data->begin(), data->begin() + static_cast<std::ptrdiff_t>(n), image.begin() + front);
  return image;
}

// splitmix64: a seeded generator that gives the same sequence with every standard library, and is
// fast in a Debug build.
struct splitmix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) / 9007199254740992.0; }
};

// Operators of the tests, with their host references.
// Wrapping a + b and a * b for integers: unsigned arithmetic (signed overflow is undefined in C++).
template <typename T> T wrapping_sum(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <typename T> T wrapping_product(T a, T b) {
  using U = std::make_unsigned_t<T>;
  using wide = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
  return static_cast<T>(static_cast<U>(static_cast<wide>(a) * static_cast<wide>(b)));
}

// Composition of affine maps x -> m*x + c modulo 2^(bits/2), packed as (m << half) | c: "first a, then
// b". Associative, with the identity map (1 << half), and not commutative.
template <typename T> struct affine {
  static constexpr unsigned half = 4 * sizeof(T);
  static constexpr T low = static_cast<T>((T{1} << half) - 1);
  static T compose(T a, T b) {
    const T m = static_cast<T>(((a >> half) * (b >> half)) & low);
    const T c = static_cast<T>(((b >> half) * (a & low) + (b & low)) & low);
    return static_cast<T>((m << half) | c);
  }
  static std::string expression() {
    const std::string h = std::to_string(half);
    const std::string mask = sizeof(T) == 8 ? "0xffffffffUL" : "0xffffU";
    return "(((((a) >> " + h + ") * ((b) >> " + h + ")) & " + mask + ") << " + h + ") | ((((b) >> " + h +
           ") * ((a) & " + mask + ") + ((b) & " + mask + ")) & " + mask + ")";
  }
};

// Floating-point sums, against a long double reference: |got - ref| <= tolerance * (|initial| + sum of |x|
// over the prefix) + 1e-30.
template <typename T>
std::string check_rounded(const std::vector<T>& got, std::size_t offset, const std::vector<T>& in,
                          clscan::scan_kind kind, T initial) {
  const long double tolerance = std::is_same<T, cl_float>::value ? 1e-5L : 1e-13L;
  long double sum = initial, magnitude = std::fabs(static_cast<long double>(initial));
  std::size_t violations = 0, first = 0;
  long double first_ref = 0, first_bound = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (kind == clscan::scan_kind::inclusive) {
      sum += in[i];
      magnitude += std::fabs(static_cast<long double>(in[i]));
    }
    const long double bound = tolerance * magnitude + 1e-30L;
    const long double value = got[offset + i];
    if (!(std::fabs(value - sum) <= bound) && violations++ == 0) {
      first = i;
      first_ref = sum;
      first_bound = bound;
    }
    if (kind == clscan::scan_kind::exclusive) {
      sum += in[i];
      magnitude += std::fabs(static_cast<long double>(in[i]));
    }
  }
  if (!violations) return {};
  std::ostringstream out;
  out.precision(std::numeric_limits<long double>::max_digits10);
  out << "result: " << violations << " of " << in.size()
      << " elements outside the error bound; the first at index " << first << ": reference " << first_ref
      << ", got " << got[offset + first] << ", allowed error " << first_bound << "; ";
  return out.str();
}

template <typename T> bool same_bits(const T& a, const T& b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }

// The same bits, or both NaN: a NaN's payload is not kept through fmin and fmax (NVIDIA returns its
// canonical NaN, 0x7fffffff for float), so any NaN matches any NaN.
template <typename T> bool same_value(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>)
    if (a != a && b != b) return true;
  return same_bits(a, b);
}

// One CHECK that got[offset + i] and expected[i] have the same bits (any NaN for a NaN) for every i;
// on failure it names the number of mismatches and the first one.
template <typename T>
void check_exact(const char* what, const std::vector<T>& got, std::size_t offset,
                 const std::vector<T>& expected) {
  REQUIRE(got.size() >= offset + expected.size());
  std::size_t mismatches = 0, first = 0;
  // One memcmp first: the element loop below only runs when something differs (fast in Debug builds).
  if (!expected.empty() &&
      std::memcmp(got.data() + offset, expected.data(), expected.size() * sizeof(T)) != 0)
    for (std::size_t i = 0; i < expected.size(); ++i)
      if (!same_value(got[offset + i], expected[i]) && mismatches++ == 0) first = i;
  std::ostringstream detail;
  if (mismatches)
    detail << "; the first at index " << first << ": expected " << +expected[first] << ", got "
           << +got[offset + first];
  INFO(what << ": " << mismatches << " of " << expected.size() << " elements differ" << detail.str());
  CHECK(mismatches == 0);
}

// One CHECK that every element outside [front, front + n) of `got` still holds poison_value().
template <typename T>
void check_guards(const char* what, const std::vector<T>& got, std::size_t front, std::size_t n) {
  REQUIRE(got.size() >= front + n);
  const T poison = poison_value<T>();
  std::size_t damaged = 0, first = 0;
  const auto inspect = [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      if (!same_bits(got[i], poison) && damaged++ == 0) first = i;
  };
  inspect(0, front);
  inspect(front + n, got.size());
  std::ostringstream detail;
  if (damaged) detail << "; the first at buffer index " << first << " holds " << +got[first];
  INFO(what << ": " << damaged << " guard elements overwritten (guards: " << front << " before, "
            << got.size() - front - n << " after the " << n << " scanned elements)" << detail.str());
  CHECK(damaged == 0);
}

} // namespace guarded

} // namespace clscan_test
