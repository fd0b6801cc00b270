// A consumer of the installed clscan::mpi (tests/package/consumer, where clscan was built with MPI): an
// exclusive scan across the ranks of MPI_COMM_WORLD, run by ctest as one rank (MPI's singleton start).
#include <clscan/clscan.hpp>
#include <clscan/mpi.hpp>

#include <mpi.h>

#include <cstdio>
#include <exception>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  bool ok = false;
  try {
    const cl::Device device = clscan::select_device();
    cl::Context context(device);
    cl::CommandQueue queue(context, device);
    const std::size_t n = 1000;
    std::vector<cl_int> data(n, 1);
    cl::Buffer buffer(context, CL_MEM_READ_WRITE, n * sizeof(cl_int));
    if (queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, n * sizeof(cl_int), data.data()) == CL_SUCCESS) {
      clscan::mpi::exclusive(MPI_COMM_WORLD, queue, buffer, n).wait();
      if (queue.enqueueReadBuffer(buffer, CL_TRUE, 0, n * sizeof(cl_int), data.data()) == CL_SUCCESS)
        ok = data[0] == cl_int(rank * n) && data[n - 1] == cl_int(rank * n + n - 1);
    }
  } catch (const std::exception& e) {
    std::printf("mpi consumer: %s\n", e.what());
  }
  std::printf("mpi consumer: %s\n", ok ? "exclusive scan across ranks checked" : "WRONG RESULT");
  MPI_Finalize();
  return ok ? 0 : 1;
}
