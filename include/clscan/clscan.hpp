// clscan: prefix sums (scans) on any OpenCL device. The one header to include.
#pragma once

#include <clscan/by_key.hpp>
#include <clscan/cache.hpp>
#include <clscan/config.hpp>
#include <clscan/device.hpp>
#include <clscan/error.hpp>
#include <clscan/log.hpp>
#include <clscan/names.hpp>
#include <clscan/options.hpp>
#include <clscan/parts.hpp>
#include <clscan/reduce.hpp>
#include <clscan/runs.hpp>
#include <clscan/scan.hpp>
#include <clscan/segmented.hpp>
#include <clscan/select.hpp>
#include <clscan/sort.hpp>
#include <clscan/types.hpp>
