// clscan-bench's segmented workloads (workloads.hpp describes what a workload offers): values of T
// (fill_random) in CSR segments given by cl_uint offsets (--segment-length: a fixed length, lengths
// drawn at random around a mean, or one segment of all n), summed. inclusive_segmented writes n values,
// reduce_segmented one per segment. Their serial host equivalents run std::inclusive_scan or std::reduce
// once per segment, over the same offsets.
#pragma once

#include "workloads.hpp"

namespace clscan_bench {

// CSR offsets of n elements cut as `s` says: offsets[0] == 0, offsets.back() == n, non-decreasing.
// Random lengths are uniform in [1, 2 * mean - 1] (mean 1: all 1), the last segment cut at n.
inline std::vector<cl_uint> segment_offsets(const segment_lengths& s, std::size_t n) {
  std::vector<cl_uint> offsets{0};
  if (s.whole) {
    offsets.push_back(static_cast<cl_uint>(n));
    return offsets;
  }
  std::mt19937_64 rng(0x5e6d0000u + 977 * n);
  std::size_t at = 0;
  while (at < n) {
    const std::size_t length = s.random && s.length > 1 ? 1 + rng() % (2 * s.length - 1) : s.length;
    at = std::min(n, at + length);
    offsets.push_back(static_cast<cl_uint>(at));
  }
  return offsets;
}

template <typename T> class segmented_workload : public value_workload<T> {
public:
  segmented_workload(const settings& s, primitive p, clscan::algorithm algo, std::size_t n)
      : value_workload<T>(n), reduce_(p == primitive::reduce_segmented),
        offsets_host_(segment_offsets(s.segments, n)) {
    opts_.algorithm = algo;
  }
  std::size_t segments() const { return offsets_host_.size() - 1; }
  std::size_t input_bytes() const { return this->value_bytes(); }
  void make_host(std::size_t k) { this->fill_values(k, fill_random<T>); }
  void make_device(const cl::Context& context, const cl::CommandQueue& queue) {
    using clscan_tools::check;
    this->upload_values(context, queue);
    const std::size_t bytes = offsets_host_.size() * sizeof(cl_uint);
    offsets_ = clscan_tools::make_buffer(context, bytes);
    check(queue.enqueueWriteBuffer(offsets_, CL_TRUE, 0, bytes, offsets_host_.data()),
          "clEnqueueWriteBuffer");
  }
  cl::Event call(const cl::CommandQueue& queue, std::size_t i) const {
    if (reduce_)
      return clscan::reduce_segmented<T, cl_uint>(queue, this->inputs_[i], this->output_, this->n_, offsets_,
                                                  segments(), opts_);
    return clscan::inclusive_segmented<T, cl_uint>(queue, this->inputs_[i], this->output_, this->n_, offsets_,
                                                   segments(), opts_);
  }
  // A serial loop of std::reduce (or std::inclusive_scan) per segment.
  double std_us() const {
    if (!this->n_) return std::nan("");
    const std::vector<T>& in = this->host_[0];
    std::vector<T> out(reduce_ ? segments() : in.size());
    const auto plus = [](T a, T b) { return clscan_reference::wrapping_sum(a, b); };
    return host_median_us([&] {
      for (std::size_t s = 0; s < segments(); ++s) {
        const auto first = in.begin() + offsets_host_[s], last = in.begin() + offsets_host_[s + 1];
        if (reduce_)
          out[s] = std::reduce(first, last, T{}, plus);
        else
          std::inclusive_scan(first, last, out.begin() + offsets_host_[s], plus);
      }
      volatile T keep = out.back(); // the result is used
      (void)keep;
    });
  }
  // Integers exactly; floating-point sums within 16 * epsilon * the sum of |x| over what they add.
  std::string verify(const cl::CommandQueue& queue, std::size_t i) const {
    const std::vector<T>& in = this->host_[i];
    std::vector<T> expected(reduce_ ? segments() : in.size());
    std::vector<long double> magnitude(expected.size());
    for (std::size_t s = 0; s < segments(); ++s) {
      T running{};
      long double m = 0;
      for (std::size_t j = offsets_host_[s]; j < offsets_host_[s + 1]; ++j) {
        running = clscan_reference::wrapping_sum(running, in[j]);
        m += std::fabs(static_cast<long double>(in[j]));
        if (!reduce_) {
          expected[j] = running;
          magnitude[j] = m;
        }
      }
      if (reduce_) {
        expected[s] = running;
        magnitude[s] = m;
      }
    }
    const std::vector<T> got = this->read_output(queue, expected.size());
    if constexpr (std::is_floating_point_v<T>)
      return first_beyond_tolerance(expected, got, magnitude, this->n_, "");
    return first_difference(expected, got, expected.size(), this->n_);
  }

private:
  bool reduce_;
  std::vector<cl_uint> offsets_host_;
  cl::Buffer offsets_;
  clscan::segmented_options<T> opts_;
};

} // namespace clscan_bench
