// clscan-bench's workloads, one per --primitive: the host data of k inputs, their device buffers, the
// timed call, its serial host equivalent and the check of a result. measure.cpp times each of them the
// same way, against a copy of one input's values (n * sizeof(T) bytes).
//
// A workload W of element type T offers:
//   W(settings, algorithm, n)
//   input_bytes()           device bytes of one input (values, and keys for by_key)
//   make_host(k)            k inputs' host data
//   make_device(c, q)       the inputs written to the device; the outputs touched once
//   values(i)               input i's values: what the reference copy reads
//   call(q, i)              the call on input i; the event of its last command
//   std_us()                the serial host equivalent on input 0 in microseconds, median of 5 runs
//                           (NaN where the benchmark has none)
//   verify(q, i)            the output read back and compared with the host reference of input i:
//                           empty when it matches, else the first mismatch
#pragma once

#include "bench.hpp"
#include "scan.hpp"

#include "common/opencl.hpp"
#include "common/reference.hpp"
#include "common/sort_reference.hpp"
#include "common/timing.hpp"

#include <clscan/clscan.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace clscan_bench {

// --- Shared pieces ------------------------------------------------------------------------------

// Median host microseconds of 5 runs of run() (clscan-bench's serial host equivalents).
template <typename Run> double host_median_us(Run run) {
  std::vector<double> us;
  for (int i = 0; i < 5; ++i) {
    const clscan_tools::stopwatch watch;
    run();
    us.push_back(watch.microseconds());
  }
  return clscan_tools::median(us);
}

// The first of got[0, count) that differs from expected[0, count) (same_value: any NaN matches any NaN),
// described as scan.hpp's verify describes it; empty when none does.
template <typename T>
std::string first_difference(const std::vector<T>& expected, const std::vector<T>& got, std::size_t count,
                             std::size_t n) {
  for (std::size_t i = 0; i < count; ++i)
    if (!(expected[i] == got[i] || clscan_reference::same_value(expected[i], got[i])))
      return mismatch_text<T>(i, n, expected[i], got[i]);
  return {};
}

// The first result of got farther from expected[i] than 16 * epsilon * magnitude[i] (a floating-point
// reduction's tolerance, magnitude[i] the sum of |x| it combined), described as first_difference does,
// then `what` (e.g. "the run's sum; ") and the tolerance; empty when none is.
template <typename T>
std::string first_beyond_tolerance(const std::vector<T>& expected, const std::vector<T>& got,
                                   const std::vector<long double>& magnitude, std::size_t n,
                                   const std::string& what) {
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const long double bound = 16 * static_cast<long double>(std::numeric_limits<T>::epsilon()) * magnitude[i];
    if (std::fabs(static_cast<long double>(got[i]) - static_cast<long double>(expected[i])) > bound)
      return mismatch_text<T>(i, n, static_cast<double>(expected[i]), static_cast<double>(got[i])) + " (" +
             what + "tolerance " + std::to_string(static_cast<double>(bound)) + ")";
  }
  return {};
}

// The first `count` elements of `buffer` (a blocking read; none read when count is 0).
template <typename U>
std::vector<U> read_elements(const cl::CommandQueue& queue, const cl::Buffer& buffer, std::size_t count) {
  std::vector<U> got(count);
  if (count)
    clscan_tools::check(queue.enqueueReadBuffer(buffer, CL_TRUE, 0, count * sizeof(U), got.data()),
                        "clEnqueueReadBuffer");
  return got;
}

// What every workload holds: k inputs of n values of T on the host and the device, and the output.
template <typename T> class value_workload {
public:
  using value_type = T;
  explicit value_workload(std::size_t n) : n_(n) {}
  const cl::Buffer& values(std::size_t i) const { return inputs_[i]; }

protected:
  std::size_t value_bytes() const { return n_ * sizeof(T); }
  // OpenCL has no buffers of 0 bytes.
  std::size_t value_alloc() const { return std::max(value_bytes(), sizeof(T)); }

  template <typename Fill> void fill_values(std::size_t k, Fill fill) {
    host_.assign(k, std::vector<T>(n_));
    for (std::size_t i = 0; i < k; ++i)
      fill(host_[i], values_seed(n_, i));
  }

  // The inputs written; the output touched by a copy, so that its lazy allocation is not timed. A copy
  // rather than clEnqueueFillBuffer: NVIDIA's fill with a 1-byte pattern never finished on 2 GiB
  // buffers, and on PoCL a 4-byte-pattern fill left the host's std::inclusive_scan timing 60% slower.
  void upload_values(const cl::Context& context, const cl::CommandQueue& queue) {
    using clscan_tools::check;
    for (const std::vector<T>& input : host_) {
      inputs_.push_back(clscan_tools::make_buffer(context, value_alloc()));
      if (n_)
        check(queue.enqueueWriteBuffer(inputs_.back(), CL_TRUE, 0, value_bytes(), input.data()),
              "clEnqueueWriteBuffer");
    }
    output_ = clscan_tools::make_buffer(context, value_alloc());
    check(queue.enqueueCopyBuffer(inputs_[0], output_, 0, 0, value_alloc()), "clEnqueueCopyBuffer");
  }

  std::vector<T> read_output(const cl::CommandQueue& queue, std::size_t count) const {
    return read_elements<T>(queue, output_, count);
  }

  std::size_t n_;
  std::vector<std::vector<T>> host_;
  std::vector<cl::Buffer> inputs_;
  cl::Buffer output_;
};

// --- scan ---------------------------------------------------------------------------------------

// With --transform, options::transform: the call scans f(x), and the std equivalent and the check apply
// f on the host (run_checks.hpp).
template <typename T> class scan_workload : public value_workload<T> {
public:
  scan_workload(const settings& s, clscan::algorithm algo, std::size_t n)
      : value_workload<T>(n), kind_(s.kind), operation_(s.operation), transform_(s.transform),
        opts_(make_options<T>(algo, s.operation, s.deterministic)) {
    opts_.transform = transform_text(s.transform);
  }
  std::size_t input_bytes() const { return this->value_bytes(); }
  void make_host(std::size_t k) { this->fill_values(k, fill_random<T>); }
  void make_device(const cl::Context& context, const cl::CommandQueue& queue) {
    this->upload_values(context, queue);
  }
  cl::Event call(const cl::CommandQueue& queue, std::size_t i) const {
    return run_scan<T>(queue, this->inputs_[i], this->output_, this->n_, kind_, opts_);
  }
  // Sums only: the "faster than std::inclusive_scan" comparison.
  double std_us() const {
    if (!this->n_ || operation_ != clscan::op::sum) return std::nan("");
    const std::vector<T>& in = this->host_[0];
    std::vector<T> scanned(in.size());
    // Integer sums wrap (signed overflow in std::plus would be undefined behaviour).
    const auto plus = [](T a, T b) { return clscan_reference::wrapping_sum(a, b); };
    if (transform_ != transform_kind::none) {
      // std::transform_inclusive_scan's work, with the index f takes.
      const bool inclusive = kind_ == clscan::scan_kind::inclusive;
      return with_transform<T>(transform_, [&](auto f) {
        return host_median_us([&] {
          T running{};
          for (std::size_t j = 0; j < in.size(); ++j) {
            if (!inclusive) scanned[j] = running;
            running = plus(running, f(in[j], j));
            if (inclusive) scanned[j] = running;
          }
          volatile T keep = scanned.back();
          (void)keep;
        });
      });
    }
    return host_median_us([&] {
      if (kind_ == clscan::scan_kind::exclusive)
        std::exclusive_scan(in.begin(), in.end(), scanned.begin(), T{}, plus);
      else
        std::inclusive_scan(in.begin(), in.end(), scanned.begin(), plus);
      volatile T keep = scanned.back(); // the result is used, so the scan is not optimized away
      (void)keep;
    });
  }
  std::string verify(const cl::CommandQueue& queue, std::size_t i) const {
    const std::vector<T> got = this->read_output(queue, this->n_);
    if (transform_ == transform_kind::none)
      return clscan_bench::verify(this->host_[i], got, operation_, kind_);
    return clscan_bench::verify(apply_transform(transform_, this->host_[i]), got, operation_, kind_);
  }

private:
  clscan::scan_kind kind_;
  clscan::op operation_;
  transform_kind transform_;
  clscan::options<T> opts_;
};

// --- select, partition, unique ------------------------------------------------------------------

template <typename T> class select_workload : public value_workload<T> {
public:
  select_workload(primitive p, clscan::algorithm algo, std::size_t n) : value_workload<T>(n), primitive_(p) {
    opts_.algorithm = algo;
    if (p != primitive::unique) opts_.predicate = select_predicate;
  }
  std::size_t input_bytes() const { return this->value_bytes(); }
  void make_host(std::size_t k) {
    if (primitive_ == primitive::unique)
      this->fill_values(k, fill_runs<T>);
    else
      this->fill_values(k, fill_selectable<T>);
  }
  void make_device(const cl::Context& context, const cl::CommandQueue& queue) {
    this->upload_values(context, queue);
    count_ = clscan_tools::make_buffer(context, sizeof(cl_ulong));
    const cl_ulong zero = 0;
    clscan_tools::check(queue.enqueueWriteBuffer(count_, CL_TRUE, 0, sizeof zero, &zero),
                        "clEnqueueWriteBuffer");
  }
  cl::Event call(const cl::CommandQueue& queue, std::size_t i) const {
    const cl::Buffer& in = this->inputs_[i];
    switch (primitive_) {
    case primitive::partition:
      return clscan::partition_if<T>(queue, in, this->output_, count_, this->n_, opts_);
    case primitive::unique: return clscan::unique<T>(queue, in, this->output_, count_, this->n_, opts_);
    default: return clscan::select_if<T>(queue, in, this->output_, count_, this->n_, opts_);
    }
  }
  double std_us() const {
    if (!this->n_) return std::nan("");
    const std::vector<T>& in = this->host_[0];
    std::vector<T> out(in.size());
    if (primitive_ == primitive::partition) {
      // std::stable_partition works in place: each run starts from a fresh copy, made outside the timing.
      std::vector<double> us;
      for (int run = 0; run < 5; ++run) {
        out = in;
        const clscan_tools::stopwatch watch;
        const auto middle = std::stable_partition(out.begin(), out.end(), selected);
        us.push_back(watch.microseconds());
        volatile std::ptrdiff_t keep = middle - out.begin();
        (void)keep;
      }
      return clscan_tools::median(us);
    }
    return host_median_us([&] {
      const auto end = primitive_ == primitive::unique
                           ? std::unique_copy(in.begin(), in.end(), out.begin())
                           : std::copy_if(in.begin(), in.end(), out.begin(), selected);
      volatile std::ptrdiff_t keep = end - out.begin(); // the result is used
      (void)keep;
    });
  }
  // The count exactly, then the elements: the kept ones (select, unique) or all n (partition).
  std::string verify(const cl::CommandQueue& queue, std::size_t i) const {
    const std::vector<T>& in = this->host_[i];
    std::vector<T> expected;
    std::size_t kept = 0;
    switch (primitive_) {
    case primitive::partition:
      expected = in;
      kept = static_cast<std::size_t>(std::stable_partition(expected.begin(), expected.end(), selected) -
                                      expected.begin());
      break;
    case primitive::unique:
      std::unique_copy(in.begin(), in.end(), std::back_inserter(expected));
      kept = expected.size();
      break;
    default:
      std::copy_if(in.begin(), in.end(), std::back_inserter(expected), selected);
      kept = expected.size();
      break;
    }
    cl_ulong count = 0;
    clscan_tools::check(queue.enqueueReadBuffer(count_, CL_TRUE, 0, sizeof count, &count),
                        "clEnqueueReadBuffer");
    if (count != kept)
      return "count " + std::to_string(count) + ", expected " + std::to_string(kept) + " of " +
             std::to_string(this->n_);
    const std::size_t written = primitive_ == primitive::partition ? this->n_ : kept;
    return first_difference(expected, this->read_output(queue, written), written, this->n_);
  }

private:
  // select_predicate on the host.
  static bool selected(T x) { return x > T(0); }

  primitive primitive_;
  clscan::select_options<T> opts_;
  cl::Buffer count_;
};

// --- by_key -------------------------------------------------------------------------------------

// Each workload spells out the members the driver calls (make_device, call, std_us, verify) and its
// own settings, so by_key_workload's members stand as scan_workload's do: the driver finds them by name.

// The inputs of the calls by key (by_key_workload, runs_workload.hpp's reduce_by_key_workload): values
// of T (fill_random, as the scans') and int keys (fill_segment_keys), in sets of k.
template <typename T> class keyed_workload : public value_workload<T> {
public:
  using value_workload<T>::value_workload;
  std::size_t input_bytes() const { return this->value_bytes() + this->n_ * sizeof(cl_int); }
  void make_host(std::size_t k) {
    this->fill_values(k, fill_random<T>);
    keys_.assign(k, std::vector<cl_int>(this->n_));
    for (std::size_t i = 0; i < k; ++i)
      fill_segment_keys(keys_[i], keys_seed(this->n_, i));
  }

protected:
  // OpenCL has no buffers of 0 bytes.
  std::size_t key_alloc() const { return std::max(this->n_ * sizeof(cl_int), sizeof(cl_int)); }
  // The values and a buffer of keys for each set that make_host made.
  void upload_keyed(const cl::Context& context, const cl::CommandQueue& queue) {
    this->upload_values(context, queue);
    const std::size_t bytes = this->n_ * sizeof(cl_int);
    for (const std::vector<cl_int>& keys : keys_) {
      key_buffers_.push_back(clscan_tools::make_buffer(context, key_alloc()));
      if (bytes)
        clscan_tools::check(queue.enqueueWriteBuffer(key_buffers_.back(), CL_TRUE, 0, bytes, keys.data()),
                            "clEnqueueWriteBuffer");
    }
  }

  std::vector<std::vector<cl_int>> keys_;
  std::vector<cl::Buffer> key_buffers_;
};

// keyed_workload's inputs; --op and --kind as for the scans.
template <typename T> class by_key_workload : public keyed_workload<T> {
public:
  by_key_workload(const settings& s, clscan::algorithm algo, std::size_t n)
      : keyed_workload<T>(n), kind_(s.kind), operation_(s.operation),
        opts_(make_options<T>(algo, s.operation, s.deterministic)) {}
  void make_device(const cl::Context& context, const cl::CommandQueue& queue) {
    this->upload_keyed(context, queue);
  }
  cl::Event call(const cl::CommandQueue& queue, std::size_t i) const {
    const cl::Buffer &keys = this->key_buffers_[i], &in = this->inputs_[i];
    return kind_ == clscan::scan_kind::inclusive
               ? clscan::inclusive_by_key<cl_int, T>(queue, keys, in, this->output_, this->n_, opts_)
               : clscan::exclusive_by_key<cl_int, T>(queue, keys, in, this->output_, this->n_, opts_);
  }
  // Sums only, as for the scans: a serial loop (the standard library has no scan by key).
  double std_us() const {
    if (!this->n_ || operation_ != clscan::op::sum) return std::nan("");
    const std::vector<T>& in = this->host_[0];
    const std::vector<cl_int>& keys = this->keys_[0];
    std::vector<T> out(in.size());
    const bool inclusive = kind_ == clscan::scan_kind::inclusive;
    return host_median_us([&] {
      T running{};
      for (std::size_t i = 0; i < in.size(); ++i) {
        if (i == 0 || keys[i] != keys[i - 1]) running = T{};
        if (!inclusive) out[i] = running;
        running = clscan_reference::wrapping_sum(running, in[i]);
        if (inclusive) out[i] = running;
      }
      volatile T keep = out.back(); // the result is used
      (void)keep;
    });
  }
  // Exactly against clscan_reference::scan_by_key; floating-point sums segment by segment within
  // scan.hpp's bound (16 * epsilon * the sum of |x| over the segment up to that element).
  std::string verify(const cl::CommandQueue& queue, std::size_t i) const {
    const std::vector<T>& in = this->host_[i];
    const std::vector<cl_int>& keys = this->keys_[i];
    const std::vector<T> got = this->read_output(queue, this->n_);
    if constexpr (std::is_floating_point_v<T>) {
      if (operation_ == clscan::op::sum) {
        const long double tolerance = 16 * static_cast<long double>(std::numeric_limits<T>::epsilon());
        for (std::size_t start = 0; start < in.size();) {
          std::size_t end = start + 1;
          while (end < in.size() && keys[end] == keys[start])
            ++end;
          const std::vector<T> segment(in.begin() + static_cast<std::ptrdiff_t>(start),
                                       in.begin() + static_cast<std::ptrdiff_t>(end));
          const clscan_reference::rounding_report report =
              clscan_reference::check_rounded(got.data() + start, segment, kind_, T(0), tolerance);
          if (report.violations)
            return mismatch_text<T>(start + report.first, this->n_, static_cast<double>(report.reference),
                                    static_cast<double>(got[start + report.first])) +
                   " (tolerance " + std::to_string(static_cast<double>(report.bound)) + ")";
          start = end;
        }
        return {};
      }
    }
    const std::vector<T> expected = clscan_reference::scan_by_key(keys, in, kind_, operation_);
    return first_difference(expected, got, this->n_, this->n_);
  }

private:
  clscan::scan_kind kind_;
  clscan::op operation_;
  clscan::options<T> opts_;
};

// --- reduce -------------------------------------------------------------------------------------

// The scan's inputs (fill_random) and --op; the total lands in element 0 of the output. With --transform,
// as for the scans: the reduce of f(x), f applied on the host for the std equivalent and the check.
template <typename T> class reduce_workload : public value_workload<T> {
public:
  reduce_workload(const settings& s, clscan::algorithm algo, std::size_t n)
      : value_workload<T>(n), operation_(s.operation), transform_(s.transform),
        opts_(make_options<T>(algo, s.operation)) {
    opts_.transform = transform_text(s.transform);
  }
  std::size_t input_bytes() const { return this->value_bytes(); }
  void make_host(std::size_t k) { this->fill_values(k, fill_random<T>); }
  void make_device(const cl::Context& context, const cl::CommandQueue& queue) {
    this->upload_values(context, queue);
  }
  cl::Event call(const cl::CommandQueue& queue, std::size_t i) const {
    return clscan::reduce<T>(queue, this->inputs_[i], this->output_, this->n_, opts_);
  }
  // Sums only, as for the scans.
  double std_us() const {
    if (!this->n_ || operation_ != clscan::op::sum) return std::nan("");
    const std::vector<T>& in = this->host_[0];
    if (transform_ != transform_kind::none)
      return with_transform<T>(transform_, [&](auto f) {
        return host_median_us([&] {
          T total{};
          for (std::size_t j = 0; j < in.size(); ++j)
            total = clscan_reference::wrapping_sum(total, f(in[j], j));
          volatile T keep = total;
          (void)keep;
        });
      });
    return host_median_us([&] {
      volatile T keep = std::accumulate(in.begin(), in.end(), T{}, [](T a, T b) {
        return clscan_reference::wrapping_sum(a, b); // integer sums wrap
      });
      (void)keep;
    });
  }
  // Exactly against a serial reduce; floating-point sums within 16 * epsilon * (sum of |x|) of a long
  // double one.
  std::string verify(const cl::CommandQueue& queue, std::size_t i) const {
    const std::vector<T> transformed =
        transform_ == transform_kind::none ? std::vector<T>() : apply_transform(transform_, this->host_[i]);
    const std::vector<T>& in = transform_ == transform_kind::none ? this->host_[i] : transformed;
    const T got = this->read_output(queue, 1)[0];
    if constexpr (std::is_floating_point_v<T>) {
      if (operation_ == clscan::op::sum) {
        long double exact = 0, magnitude = 0;
        for (const T x : in) {
          exact += x;
          magnitude += std::fabs(static_cast<long double>(x));
        }
        const long double bound =
            16 * static_cast<long double>(std::numeric_limits<T>::epsilon()) * magnitude;
        if (std::fabs(static_cast<long double>(got) - exact) <= bound) return {};
        return mismatch_text<T>(0, this->n_, static_cast<double>(exact), static_cast<double>(got)) +
               " (the total; tolerance " + std::to_string(static_cast<double>(bound)) + ")";
      }
    }
    T expected = clscan_reference::identity<T>(operation_);
    for (const T x : in)
      expected = clscan_reference::combine(operation_, expected, x);
    if (expected == got || clscan_reference::same_value(expected, got)) return {};
    return mismatch_text<T>(0, this->n_, expected, got) + " (the total)";
  }

private:
  clscan::op operation_;
  transform_kind transform_;
  clscan::options<T> opts_;
};

// --- sort, sort_by_key ---------------------------------------------------------------------------

// Keys of T as --keys says, out of place into the output (the inputs are read again in turn); for
// sort_by_key, random uint values moved with them. The copy the ratio compares with is of the keys.
template <typename T> class sort_workload : public value_workload<T> {
public:
  sort_workload(const settings& s, primitive p, clscan::algorithm algo, std::size_t n)
      : value_workload<T>(n), pairs_(p == primitive::sort_by_key), keys_(s.keys) {
    opts_.algorithm = algo;
  }
  std::size_t input_bytes() const { return this->value_bytes() + (pairs_ ? this->n_ * sizeof(cl_uint) : 0); }
  void make_host(std::size_t k) {
    if (keys_ == key_distribution::distinct7)
      this->fill_values(k, fill_distinct<T>);
    else
      this->fill_values(k, fill_random<T>);
    if (!pairs_) return;
    values_.assign(k, std::vector<cl_uint>(this->n_));
    for (std::size_t i = 0; i < k; ++i)
      fill_random(values_[i], keys_seed(this->n_, i));
  }
  void make_device(const cl::Context& context, const cl::CommandQueue& queue) {
    this->upload_values(context, queue);
    if (!pairs_) return;
    using clscan_tools::check;
    const std::size_t bytes = this->n_ * sizeof(cl_uint), alloc = std::max(bytes, sizeof(cl_uint));
    for (const std::vector<cl_uint>& values : values_) {
      value_buffers_.push_back(clscan_tools::make_buffer(context, alloc));
      if (bytes)
        check(queue.enqueueWriteBuffer(value_buffers_.back(), CL_TRUE, 0, bytes, values.data()),
              "clEnqueueWriteBuffer");
    }
    values_out_ = clscan_tools::make_buffer(context, alloc);
    check(queue.enqueueCopyBuffer(value_buffers_[0], values_out_, 0, 0, alloc), "clEnqueueCopyBuffer");
  }
  cl::Event call(const cl::CommandQueue& queue, std::size_t i) const {
    if (pairs_)
      return clscan::sort_by_key<T, cl_uint>(queue, this->inputs_[i], value_buffers_[i], this->output_,
                                             values_out_, this->n_, opts_);
    return clscan::sort<T>(queue, this->inputs_[i], this->output_, this->n_, opts_);
  }
  // std::stable_sort of a copy of input 0 (of its (key, value) pairs for sort_by_key), the copy made
  // outside the timing, in numpy's order as clscan sorts.
  double std_us() const {
    if (!this->n_) return std::nan("");
    const auto less = [](T a, T b) { return clscan_reference::numpy_less(a, b, false); };
    std::vector<double> us;
    // Up to 5 runs, fewer once they have taken 2 s (a 2^28 sort takes tens of seconds on one core).
    for (double spent = 0; us.size() < 5 && spent < 2e6; spent += us.back()) {
      if (pairs_) {
        std::vector<std::pair<T, cl_uint>> work(this->n_);
        for (std::size_t j = 0; j < this->n_; ++j)
          work[j] = {this->host_[0][j], values_[0][j]};
        const clscan_tools::stopwatch watch;
        std::stable_sort(work.begin(), work.end(),
                         [&](const auto& a, const auto& b) { return less(a.first, b.first); });
        us.push_back(watch.microseconds());
        volatile cl_uint keep = work.back().second; // the result is used
        (void)keep;
      } else {
        std::vector<T> work = this->host_[0];
        const clscan_tools::stopwatch watch;
        std::stable_sort(work.begin(), work.end(), less);
        us.push_back(watch.microseconds());
        volatile T keep = work.back();
        (void)keep;
      }
    }
    return clscan_tools::median(us);
  }
  // Keys (and values) bit for bit against the stable permutation of input i (stable_order_linear: the
  // permutation std::stable_sort gives, in linear time).
  std::string verify(const cl::CommandQueue& queue, std::size_t i) const {
    const std::vector<std::size_t> order = clscan_reference::stable_order_linear(this->host_[i]);
    const std::vector<T> got = this->read_output(queue, this->n_);
    std::string message = clscan_reference::check_permuted("key", this->host_[i], order, got.data());
    if (!message.empty() || !pairs_ || !this->n_) return message;
    std::vector<cl_uint> got_values(this->n_);
    clscan_tools::check(
        queue.enqueueReadBuffer(values_out_, CL_TRUE, 0, this->n_ * sizeof(cl_uint), got_values.data()),
        "clEnqueueReadBuffer");
    return clscan_reference::check_permuted("value", values_[i], order, got_values.data());
  }

private:
  bool pairs_;
  key_distribution keys_;
  clscan::sort_options<T> opts_;
  std::vector<std::vector<cl_uint>> values_;
  std::vector<cl::Buffer> value_buffers_;
  cl::Buffer values_out_;
};

} // namespace clscan_bench
