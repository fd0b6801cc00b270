// The device of an MPI rank when each rank of a machine takes a device of its own (one rank per GPU),
// for clscan-mpi-bench and the MPI test program. Header-only: only programs built with MPI include it.
#pragma once

#include <clscan/clscan.hpp>

#include <mpi.h>

#include <string>
#include <vector>

namespace clscan_tools {

// The devices of the platform and type of clscan::select_device() (so CLSCAN_PLATFORM picks the
// platform), the rank's index among the ranks of `comm` on its machine modulo their count: rank 0 and
// 1 of a machine with two GPUs get one each. Throws clscan::error where a query fails.
inline cl::Device device_for_rank(MPI_Comm comm) {
  const cl::Device selected = clscan::select_device();
  cl_platform_id platform = nullptr;
  cl_device_type type = 0;
  if (selected.getInfo(CL_DEVICE_PLATFORM, &platform) != CL_SUCCESS ||
      selected.getInfo(CL_DEVICE_TYPE, &type) != CL_SUCCESS)
    throw clscan::error("device_for_rank: clGetDeviceInfo failed");
  std::vector<cl::Device> devices;
  if (cl::Platform(platform, true).getDevices(type, &devices) != CL_SUCCESS || devices.empty())
    throw clscan::error("device_for_rank: clGetDeviceIDs failed");

  MPI_Comm machine = MPI_COMM_NULL;
  int local_rank = 0;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &machine) != MPI_SUCCESS ||
      MPI_Comm_rank(machine, &local_rank) != MPI_SUCCESS)
    throw clscan::error("device_for_rank: MPI_Comm_split_type failed");
  MPI_Comm_free(&machine);
  return devices[static_cast<std::size_t>(local_rank) % devices.size()];
}

} // namespace clscan_tools
