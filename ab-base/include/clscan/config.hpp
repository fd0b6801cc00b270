// OpenCL-CLHPP configuration shared by clscan and every program that includes its headers.
//
// clscan is built against the OpenCL 1.2 API so that it runs on every conformant platform, including
// NVIDIA's. Debian 12's <CL/opencl.hpp> does not compile with CL_HPP_MINIMUM_OPENCL_VERSION=120 and a
// target of 200 or more, so both are pinned to 120. The CMake target exports the same definitions.
#pragma once

#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#endif
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif

#include <CL/opencl.hpp>

#include <clscan/version.hpp>
