// clscan-bench's reduce_by_key workload (workloads.hpp describes what a workload offers): int keys in
// runs as by_key's segments (fill_segment_keys), values of T (fill_random), --op; the outputs are the
// unique keys (int) and the runs' reductions (T), and a count.
#pragma once

#include "workloads.hpp"

namespace clscan_bench {

template <typename T> class reduce_by_key_workload : public keyed_workload<T> {
public:
  reduce_by_key_workload(const settings& s, clscan::algorithm algo, std::size_t n)
      : keyed_workload<T>(n), operation_(s.operation) {
    opts_.algorithm = algo;
    opts_.operation = s.operation;
    opts_.deterministic = s.deterministic;
  }
  void make_device(const cl::Context& context, const cl::CommandQueue& queue) {
    using clscan_tools::check;
    this->upload_keyed(context, queue);
    const std::size_t bytes = this->key_alloc();
    keys_out_ = clscan_tools::make_buffer(context, bytes);
    check(queue.enqueueCopyBuffer(this->key_buffers_[0], keys_out_, 0, 0, bytes), "clEnqueueCopyBuffer");
    count_ = clscan_tools::make_buffer(context, sizeof(cl_ulong));
    const cl_ulong zero = 0;
    check(queue.enqueueWriteBuffer(count_, CL_TRUE, 0, sizeof zero, &zero), "clEnqueueWriteBuffer");
  }
  cl::Event call(const cl::CommandQueue& queue, std::size_t i) const {
    return clscan::reduce_by_key<cl_int, T>(queue, this->key_buffers_[i], this->inputs_[i], keys_out_,
                                            this->output_, count_, this->n_, opts_);
  }
  // Sums only: a serial loop (the standard library has no reduce by key).
  double std_us() const {
    if (!this->n_ || operation_ != clscan::op::sum) return std::nan("");
    const std::vector<T>& in = this->host_[0];
    const std::vector<cl_int>& keys = this->keys_[0];
    std::vector<cl_int> keys_out(in.size());
    std::vector<T> out(in.size());
    return host_median_us([&] {
      std::size_t runs = 0;
      for (std::size_t i = 0; i < in.size(); ++i) {
        if (i == 0 || keys[i] != keys[i - 1]) {
          keys_out[runs] = keys[i];
          out[runs++] = in[i];
        } else {
          out[runs - 1] = clscan_reference::wrapping_sum(out[runs - 1], in[i]);
        }
      }
      volatile std::size_t keep = runs; // the result is used
      (void)keep;
    });
  }
  // The count and the keys exactly; the reductions exactly, floating-point sums within 16 * epsilon *
  // the sum of |x| over the run.
  std::string verify(const cl::CommandQueue& queue, std::size_t i) const {
    const std::vector<T>& in = this->host_[i];
    const std::vector<cl_int>& keys = this->keys_[i];
    std::vector<cl_int> expected_keys;
    std::vector<T> expected;
    std::vector<long double> magnitude;
    for (std::size_t j = 0; j < in.size(); ++j) {
      if (j == 0 || keys[j] != keys[j - 1]) {
        expected_keys.push_back(keys[j]);
        expected.push_back(in[j]);
        magnitude.push_back(0);
      } else {
        expected.back() = clscan_reference::combine(operation_, expected.back(), in[j]);
      }
      magnitude.back() += std::fabs(static_cast<long double>(in[j]));
    }
    cl_ulong count = 0;
    clscan_tools::check(queue.enqueueReadBuffer(count_, CL_TRUE, 0, sizeof count, &count),
                        "clEnqueueReadBuffer");
    if (count != expected.size())
      return "count " + std::to_string(count) + ", expected " + std::to_string(expected.size()) + " of " +
             std::to_string(this->n_);
    std::vector<cl_int> got_keys(expected.size());
    if (count)
      clscan_tools::check(
          queue.enqueueReadBuffer(keys_out_, CL_TRUE, 0, count * sizeof(cl_int), got_keys.data()),
          "clEnqueueReadBuffer");
    if (got_keys != expected_keys)
      return "keys_out differs (" + first_difference(expected_keys, got_keys, count, this->n_) + ")";
    const std::vector<T> got = this->read_output(queue, expected.size());
    if constexpr (std::is_floating_point_v<T>) {
      if (operation_ == clscan::op::sum) {
        for (std::size_t j = 0; j < expected.size(); ++j) {
          const long double bound =
              16 * static_cast<long double>(std::numeric_limits<T>::epsilon()) * magnitude[j];
          if (std::fabs(static_cast<long double>(got[j]) - static_cast<long double>(expected[j])) > bound)
            return mismatch_text<T>(j, this->n_, static_cast<double>(expected[j]),
                                    static_cast<double>(got[j])) +
                   " (run " + std::to_string(j) + "'s sum; tolerance " +
                   std::to_string(static_cast<double>(bound)) + ")";
        }
        return {};
      }
    }
    return first_difference(expected, got, expected.size(), this->n_);
  }

private:
  clscan::op operation_;
  clscan::reduce_by_key_options<T> opts_;
  cl::Buffer keys_out_;
  cl::Buffer count_;
};

} // namespace clscan_bench
