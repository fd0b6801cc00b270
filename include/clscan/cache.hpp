// clscan's caches: compiled programs in memory per (context, device, variant), program binaries on
// disk across processes, and per (context, device) temporary buffers.
//
// The disk cache lives in CLSCAN_CACHE_DIR, else $XDG_CACHE_HOME/clscan, else ~/.cache/clscan.
// CLSCAN_NO_CACHE=1 turns it off. A missing, truncated, corrupt, foreign or rejected entry is rebuilt
// from source and replaced; an unwritable directory leaves clscan working from memory only. Its program
// entries (all devices together) take at most disk_cache_limit() bytes: after each entry it writes,
// clscan deletes the least recently used entries (by modification time, which a load refreshes) until
// the total fits, the new entry too if it alone does not.
#pragma once

#include <clscan/config.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace clscan {

// The disk cache directory in use, or an empty string when the disk cache is off.
std::string cache_directory();

// Number of disk cache entries that belong to `device` (its platform, name and driver).
std::size_t disk_cache_entries(const cl::Device& device);

// Bytes the program entries of the disk cache take now (all devices), 0 when the cache is off.
std::uint64_t disk_cache_bytes();

// Keeps the disk cache's program entries within `bytes` from the next entry written on (by this
// process; others follow their own setting). Overrides CLSCAN_CACHE_MAX_BYTES. Throws
// clscan::invalid_argument for 0 (CLSCAN_NO_CACHE=1 turns the disk cache off).
void set_disk_cache_limit(std::uint64_t bytes);

// The limit in effect: set_disk_cache_limit()'s, else CLSCAN_CACHE_MAX_BYTES (bytes, or a number
// followed by K, M or G), else 256 MiB. Throws clscan::invalid_argument when CLSCAN_CACHE_MAX_BYTES is
// set but not a positive size.
std::uint64_t disk_cache_limit();

// What clscan keeps per (context, device) pair: compiled programs and kernels, launch shapes, and
// temporary buffers. Each pair's entry retains its context (and the queues that last used its
// temporaries). At most cache_limit() entries are kept (default 4; CLSCAN_MAX_CONTEXTS or
// set_cache_limit() change it): when a new pair would exceed the limit, the least recently used
// entries whose commands have all finished are released. An entry a call is using, or with a command
// still pending, is never released by the limit, so the cache may exceed it while that work lasts.
// Releasing never waits for the device. At exit clscan releases nothing (the OpenCL implementation may
// have shut down already); the operating system reclaims it.

// Drops every program, kernel and temporary buffer clscan holds, and with them its references to
// OpenCL contexts. May be called while other threads scan (an entry a call is using is released when
// that call returns) and from a global object's destructor. Commands already enqueued finish normally:
// OpenCL keeps the objects they use alive.
void release_cached_resources();

// The same for the entries of `context` only (all its devices). Throws clscan::invalid_argument for a
// null context.
void release_cached_resources(const cl::Context& context);

// Keeps at most `contexts` (context, device) entries from now on, releasing the least recently used
// idle ones over it at once. Overrides CLSCAN_MAX_CONTEXTS. Throws clscan::invalid_argument for 0.
void set_cache_limit(std::size_t contexts);

// The limit in effect: set_cache_limit()'s, else CLSCAN_MAX_CONTEXTS, else 4. Throws
// clscan::invalid_argument when CLSCAN_MAX_CONTEXTS is set but not a positive number.
std::size_t cache_limit();

// Each (context, device) entry keeps at most program_cache_limit() compiled programs (one per element
// type, operator or predicate text, call and launch shape it has run; each holds the device's code,
// about 1 MB on PoCL). When a call needs a program the entry does not hold, the least recently used
// programs over the limit are released; the one the call uses never is, so a call always runs. A
// released program is loaded from the disk cache (or rebuilt) when next needed. Commands already
// enqueued finish normally: OpenCL keeps the objects they use alive.
//
// Keeps at most `programs` compiled programs per entry from each entry's next call on. Overrides
// CLSCAN_MAX_PROGRAMS. Throws clscan::invalid_argument for 0.
void set_program_cache_limit(std::size_t programs);

// The limit in effect: set_program_cache_limit()'s, else CLSCAN_MAX_PROGRAMS, else 64. Throws
// clscan::invalid_argument when CLSCAN_MAX_PROGRAMS is set but not a positive number.
std::size_t program_cache_limit();

// Number of compiled programs clscan holds for `context` (all its devices). Waits for no device; may
// wait for a call on another thread that holds one of these entries to finish enqueueing. Throws
// clscan::invalid_argument for a null context.
std::size_t cached_programs(const cl::Context& context);

} // namespace clscan
