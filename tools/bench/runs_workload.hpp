// clscan-bench's workloads of the calls on runs (workloads.hpp describes what a workload offers), all on
// by_key's runs (fill_segment_keys: lengths 1 to 1999, 1000 on average):
//   reduce_by_key      int keys, values of T (fill_random), --op; outputs the unique keys (int), the
//                      runs' reductions (T) and a count;
//   unique_by_key      the same inputs; outputs each run's first key and the value beside it, and a count;
//   run_length_encode  keys of T in those runs (fill_segment_runs); outputs the unique keys, the run
//                      lengths (cl_uint) and a count.
#pragma once

#include "workloads.hpp"

namespace clscan_bench {

// A cl_ulong count buffer, zeroed.
inline cl::Buffer make_count(const cl::Context& context, const cl::CommandQueue& queue) {
  cl::Buffer count = clscan_tools::make_buffer(context, sizeof(cl_ulong));
  const cl_ulong zero = 0;
  clscan_tools::check(queue.enqueueWriteBuffer(count, CL_TRUE, 0, sizeof zero, &zero),
                      "clEnqueueWriteBuffer");
  return count;
}

// keyed_workload's inputs and the outputs of a call that writes unique keys (int) and a count: keys_out
// is touched by a copy of the keys, so that no timed call is its first use.
template <typename T> class keyed_runs_workload : public keyed_workload<T> {
public:
  using keyed_workload<T>::keyed_workload;
  void make_device(const cl::Context& context, const cl::CommandQueue& queue) {
    this->upload_keyed(context, queue);
    const std::size_t bytes = this->key_alloc();
    keys_out_ = clscan_tools::make_buffer(context, bytes);
    clscan_tools::check(queue.enqueueCopyBuffer(this->key_buffers_[0], keys_out_, 0, 0, bytes),
                        "clEnqueueCopyBuffer");
    count_ = make_count(context, queue);
  }

protected:
  cl::Buffer keys_out_;
  cl::Buffer count_;
};

// The cl_ulong count a call wrote.
inline cl_ulong read_count(const cl::CommandQueue& queue, const cl::Buffer& count) {
  cl_ulong value = 0;
  clscan_tools::check(queue.enqueueReadBuffer(count, CL_TRUE, 0, sizeof value, &value),
                      "clEnqueueReadBuffer");
  return value;
}

template <typename T> class reduce_by_key_workload : public keyed_runs_workload<T> {
public:
  reduce_by_key_workload(const settings& s, clscan::algorithm algo, std::size_t n)
      : keyed_runs_workload<T>(n), operation_(s.operation) {
    opts_.algorithm = algo;
    opts_.operation = s.operation;
    opts_.deterministic = s.deterministic;
  }
  cl::Event call(const cl::CommandQueue& queue, std::size_t i) const {
    return clscan::reduce_by_key<cl_int, T>(queue, this->key_buffers_[i], this->inputs_[i], this->keys_out_,
                                            this->output_, this->count_, this->n_, opts_);
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
    const cl_ulong count = read_count(queue, this->count_);
    if (count != expected.size())
      return "count " + std::to_string(count) + ", expected " + std::to_string(expected.size()) + " of " +
             std::to_string(this->n_);
    const std::vector<cl_int> got_keys = read_elements<cl_int>(queue, this->keys_out_, expected.size());
    if (got_keys != expected_keys)
      return "keys_out differs (" + first_difference(expected_keys, got_keys, count, this->n_) + ")";
    const std::vector<T> got = this->read_output(queue, expected.size());
    if constexpr (std::is_floating_point_v<T>) {
      if (operation_ == clscan::op::sum)
        return first_beyond_tolerance(expected, got, magnitude, this->n_, "the run's sum; ");
    }
    return first_difference(expected, got, expected.size(), this->n_);
  }

private:
  clscan::op operation_;
  clscan::reduce_by_key_options<T> opts_;
};

// keyed_workload's inputs; outputs each run's first key (int) and the value of T beside it, and a
// count. The copy the ratio compares with is of the values, as for by_key.
template <typename T> class unique_by_key_workload : public keyed_runs_workload<T> {
public:
  unique_by_key_workload(const settings& /*s*/, clscan::algorithm algo, std::size_t n)
      : keyed_runs_workload<T>(n) {
    opts_.algorithm = algo;
  }
  cl::Event call(const cl::CommandQueue& queue, std::size_t i) const {
    return clscan::unique_by_key<cl_int, T>(queue, this->key_buffers_[i], this->inputs_[i], this->keys_out_,
                                            this->output_, this->count_, this->n_, opts_);
  }
  // A serial loop (the standard library has no unique by key).
  double std_us() const {
    if (!this->n_) return std::nan("");
    const std::vector<T>& in = this->host_[0];
    const std::vector<cl_int>& keys = this->keys_[0];
    std::vector<cl_int> keys_out(in.size());
    std::vector<T> out(in.size());
    return host_median_us([&] {
      std::size_t runs = 0;
      for (std::size_t i = 0; i < in.size(); ++i)
        if (i == 0 || keys[i] != keys[i - 1]) {
          keys_out[runs] = keys[i];
          out[runs++] = in[i];
        }
      volatile std::size_t keep = runs; // the result is used
      (void)keep;
    });
  }
  // The count, the keys and the values exactly (run_checks.hpp).
  std::string verify(const cl::CommandQueue& queue, std::size_t i) const {
    const cl_ulong count = read_count(queue, this->count_);
    const std::size_t read = static_cast<std::size_t>(std::min<cl_ulong>(count, this->n_));
    return check_unique_by_key(this->keys_[i], this->host_[i], count,
                               read_elements<cl_int>(queue, this->keys_out_, read),
                               this->read_output(queue, read));
  }

private:
  clscan::select_options<cl_int> opts_;
};

// Keys of T in by_key's runs (fill_segment_runs); outputs each run's key (T), its length (L: cl_uint or
// cl_ulong) and a count. The copy the ratio compares with is of the keys, the call's only input.
template <typename T, typename L> class run_length_encode_workload : public value_workload<T> {
public:
  run_length_encode_workload(const settings& /*s*/, clscan::algorithm algo, std::size_t n)
      : value_workload<T>(n) {
    opts_.algorithm = algo;
  }
  std::size_t input_bytes() const { return this->value_bytes(); }
  void make_host(std::size_t k) {
    // keys_seed: the runs of by_key's keys of the same size and input.
    this->host_.assign(k, std::vector<T>(this->n_));
    for (std::size_t i = 0; i < k; ++i)
      fill_segment_runs(this->host_[i], keys_seed(this->n_, i));
  }
  void make_device(const cl::Context& context, const cl::CommandQueue& queue) {
    using clscan_tools::check;
    this->upload_values(context, queue);
    // Touched by copies from the input, which is at least as large as a copy (sizeof(T) >= 4).
    const std::size_t bytes = std::max(this->n_ * sizeof(L), sizeof(L));
    lengths_ = clscan_tools::make_buffer(context, bytes);
    const std::size_t copy = std::min(bytes, std::max(this->n_ * sizeof(T), sizeof(T)));
    for (std::size_t at = 0; at < bytes; at += copy)
      check(queue.enqueueCopyBuffer(this->inputs_[0], lengths_, 0, at, std::min(copy, bytes - at)),
            "clEnqueueCopyBuffer");
    count_ = make_count(context, queue);
  }
  cl::Event call(const cl::CommandQueue& queue, std::size_t i) const {
    return clscan::run_length_encode<T, L>(queue, this->inputs_[i], this->output_, lengths_, count_, this->n_,
                                           opts_);
  }
  // A serial loop (the standard library has no run-length encoding).
  double std_us() const {
    if (!this->n_) return std::nan("");
    const std::vector<T>& in = this->host_[0];
    std::vector<T> unique(in.size());
    std::vector<L> lengths(in.size());
    return host_median_us([&] {
      std::size_t runs = 0;
      for (std::size_t i = 0; i < in.size(); ++i)
        if (i == 0 || !(in[i] == in[i - 1])) {
          unique[runs] = in[i];
          lengths[runs++] = 1;
        } else {
          ++lengths[runs - 1];
        }
      volatile std::size_t keep = runs; // the result is used
      (void)keep;
    });
  }
  // The count, the keys and the lengths exactly (run_checks.hpp).
  std::string verify(const cl::CommandQueue& queue, std::size_t i) const {
    const cl_ulong count = read_count(queue, count_);
    const std::size_t read = static_cast<std::size_t>(std::min<cl_ulong>(count, this->n_));
    return check_run_length_encode(this->host_[i], count, this->read_output(queue, read),
                                   read_elements<L>(queue, lengths_, read));
  }

private:
  clscan::select_options<T> opts_;
  cl::Buffer lengths_;
  cl::Buffer count_;
};

} // namespace clscan_bench
