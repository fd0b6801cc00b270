// clscan's caches: compiled programs in memory per (context, device, variant), program binaries on
// disk across processes, and per (context, device) temporary buffers.
//
// The disk cache lives in CLSCAN_CACHE_DIR, else $XDG_CACHE_HOME/clscan, else ~/.cache/clscan.
// CLSCAN_NO_CACHE=1 turns it off. A missing, truncated, corrupt, foreign or rejected entry is rebuilt
// from source and replaced; an unwritable directory leaves clscan working from memory only.
#pragma once

#include <clscan/config.hpp>

#include <cstddef>
#include <string>

namespace clscan {

// The disk cache directory in use, or an empty string when the disk cache is off.
std::string cache_directory();

// Number of disk cache entries that belong to `device` (its platform, name and driver).
std::size_t disk_cache_entries(const cl::Device& device);

// Drops every program, kernel and temporary buffer clscan holds, and with them its references to
// OpenCL contexts. Must not be called while another thread is inside a clscan call.
void release_cached_resources();

} // namespace clscan
