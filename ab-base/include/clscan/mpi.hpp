// Scans across MPI ranks: each rank holds one slice of a logical array, in rank order, and scans it in
// place; the result is the scan of the concatenation.
//
//   // rank r holds n_local elements of the array in `data` (on its own device)
//   cl::Event e = clscan::mpi::inclusive(MPI_COMM_WORLD, queue, data, n_local);
//   cl::Event e = clscan::mpi::exclusive<cl_long>(MPI_COMM_WORLD, queue, data, n_local, opts);
//
// Link clscan::mpi (built when CMake finds MPI; CLSCAN_MPI=ON/OFF/AUTO).
//
// These calls are collective and block on MPI. Every rank of `comm` must make the same call (same
// kind, element type and operator; the calls check this) in the same order relative to its other
// collective operations on `comm`. A call reduces the rank's slice on its device, waits for that total
// (and so for `wait_list`), exchanges the totals of all ranks in one MPI_Allgather, combines the totals
// of the ranks before it on the device with the operator's own code, then enqueues the local scan
// starting from that combination and returns its event without waiting for it.
//
// - options::initial (or initial_on_device) is the value the whole scan starts from: rank 0's is used,
//   the other ranks' are ignored. The other options apply to each rank's own call (its offsets, wait
//   list, algorithm, determinism).
// - A rank may hold no elements (n_local == 0); its call returns a marker that waits for `wait_list`.
// - Element counts are per rank; the concatenation may hold more than 2^32 elements.
// - Ranks exchange element values as bytes: they must agree on the element types' layout (as ranks on
//   one kind of machine do).
// - Errors: a rank whose arguments are wrong, or whose local reduction cannot be enqueued, throws its
//   own exception; every other rank then throws clscan::mpi::rank_error naming it (with its message),
//   and no rank's buffer is modified. A rank that calls with another kind, type or operator than rank
//   0 makes every rank throw clscan::invalid_argument. Only what fails after the exchange, when the
//   OpenCL runtime refuses to enqueue the rank's last commands (out of resources), is thrown on that
//   rank alone. A communicator that is null or not usable throws invalid_argument without any exchange.
//   MPI errors follow the communicator's error handler; where it returns, they throw clscan::error.
// - Each call allocates one small device buffer (the totals) and builds, on the first call per
//   context, the reduction programs beside the scan's.
#pragma once

#include <clscan/error.hpp>
#include <clscan/scan.hpp>

#include <mpi.h>

#include <cstddef>
#include <string>

namespace clscan::mpi {

// Thrown on every rank but the failing one when another rank's call failed before the exchange.
class rank_error : public error {
public:
  rank_error(int failed_rank, const std::string& what) : error(what), failed_rank_(failed_rank) {}
  // The lowest rank of the communicator whose call failed.
  int failed_rank() const noexcept { return failed_rank_; }

private:
  int failed_rank_;
};

namespace detail {

// The calls below with the element type erased.
cl::Event scan_across_ranks(MPI_Comm comm, const cl::CommandQueue& queue, const cl::Buffer& data,
                            std::size_t n_local, const clscan::detail::scan_request& request);

} // namespace detail

// In place, collective: data[i] becomes initial op (the elements of all lower ranks, in rank order) op
// data[0] op ... op data[i].
template <typename T = cl_int>
cl::Event inclusive(MPI_Comm comm, const cl::CommandQueue& queue, const cl::Buffer& data, std::size_t n_local,
                    const options<T>& opts = {}) {
  return detail::scan_across_ranks(comm, queue, data, n_local,
                                   clscan::detail::make_request(scan_kind::inclusive, opts));
}

// In place, collective: data[i] becomes initial op (the elements of all lower ranks, in rank order) op
// data[0] op ... op data[i-1] (data[0]: initial op the lower ranks' elements).
template <typename T = cl_int>
cl::Event exclusive(MPI_Comm comm, const cl::CommandQueue& queue, const cl::Buffer& data, std::size_t n_local,
                    const options<T>& opts = {}) {
  return detail::scan_across_ranks(comm, queue, data, n_local,
                                   clscan::detail::make_request(scan_kind::exclusive, opts));
}

} // namespace clscan::mpi
