// clscan-oclgrind-runner <suite>: every clscan kernel variant on tiny inputs, for a run under Oclgrind
// (the oclgrind tests of tests/cmake/reliability.cmake run it through tests/cmake/oclgrind_check.cmake as
// `oclgrind --data-races --uniform-writes --uninitialized --check-api clscan-oclgrind-runner <suite>`).
//
// Oclgrind simulates an OpenCL device and reports out-of-bounds and misaligned accesses, uses of
// uninitialized values, data races, work-group divergence and API misuse on stderr; the test fails on
// any output there and on a non-zero exit status, so this program writes only to stdout. This program checks
// every result, and the guard elements around it, against the CPU bit for bit, exits 1 on a wrong one, and
// refuses (exit 2) to run anywhere but on Oclgrind's device, so that a run that is not under Oclgrind cannot
// pass by accident.
//
// It builds the kernels with -DCLSCAN_PLAIN_STATUS_READS=0 (CLSCAN_BUILD_OPTIONS, set here): by
// default the single-pass look-back reads status words with plain volatile loads while other
// work-groups write them with atomic exchanges, which real devices perform as single accesses but
// which Oclgrind (rightly, by the OpenCL memory model) reports as read-write data races. With atomic
// reads every other access of the kernels is still checked. The disk cache is off (CLSCAN_NO_CACHE),
// so every kernel is compiled by Oclgrind itself.
//
// Suites (one oclgrind test each):
//   local-tile  the single-pass kernel's GPU variant (tile in local memory), which dispatch picks on
//               Oclgrind since its device reports every device type; scans on shapes A-G below,
//               select and by-key calls on A (every case), B, C and I; reduce (run_reductions) on A
//               and B in its GPU layouts (strided vectors, and local tiles for the custom operator)
//   reread      the CPU variant (-DCLSCAN_REREAD=1, set here: each work-item rereads its run from
//               global memory); scans on shapes A, B, C, H, select and by-key calls on B and I
//               (every case); reduce on B and H in the CPU layout (-DCLSCAN_REDUCE_LAYOUT=0: each
//               work-item walks a contiguous part)
//   narrow      the 32-bit status-word layout (16-bit tag and payload: 2 words per 4-byte element, 4
//               per 8-byte one) of devices without 64-bit atomics; refuses to run unless
//               CLSCAN_NARROW_STATUS=1 forces it (it is read once per process); single-pass only,
//               GPU variant; scans on shapes A and G, select and by-key calls on A (every case) and I;
//               the selections with 64-bit tile counts (-DCLSCAN_COUNT_BITS=64, set here; inputs below
//               2^32 elements use 32-bit ones)
//   copied-runs the one-pass selections' variant that copies each run to private memory rather than
//               compacting it in the local tile (-DCLSCAN_SELECT_COMPACT_RUNS=0, set here; not the
//               default; kernels/select.cl), with 64-bit tile counts as in `narrow`: select calls only
//               (no scans, no by-key calls) on A (every case), B, C, I and J
//
// Launch shapes (CLSCAN_TUNING, set here; the work-group scan rakes segments of 16 work-items):
//   A  wg=4,items=8,vec=4,lookback=2     32-element tiles, 4-wide vectors
//   B  wg=3,items=5,vec=1,lookback=3     15-element tiles, scalar loads (no power of two)
//   C  wg=40,items=4,vec=2,lookback=8    three raking segments (16 + 16 + 8 work-items)
//   D  wg=64,items=2,vec=2,lookback=16   four full raking segments
//   E  wg=32,items=8,vec=8,lookback=4    two raking segments, 8-wide vectors
//   F  wg=2,items=32,vec=16,lookback=2   16-wide vectors
//   G  wg=1,items=70,vec=2,lookback=1    one work-item per group (no work-group scan), runs longer
//                                        than CLSCAN_MAX_UNROLL (loops not unrolled)
//   H  wg=1,items=70,vec=2,lookback=16   G as the CPU default has it (look-back clamped to the group)
//   I  wg=1,items=24,vec=2,lookback=1    one work-item per group with a short run: in the CPU variant
//                                        one unrolled chunk of 16 (CLSCAN_RUN_CHUNK) and 8 more; select
//                                        and by-key calls only (G and H take Oclgrind long to compile)
//   J  wg=8,items=64,vec=4,lookback=4    the GPU default's 64 elements per work-item (16 vectors);
//                                        select calls only
//
// Per shape (t = elements per tile): three-stage scan_tiles and add_tile_prefixes on int sums of
// 1, 5, 2t + 3 and t^2 + 5 elements (two levels of tile totals), and long max with an initial value;
// single-pass scan_single_pass on int sums of 1, 5, 2t + 3 and 10t + 1 elements (the status array
// grows, so clear_status runs again), with an initial value, long sums, and a non-commutative custom
// operator on uint (5t + 7); each inclusive and exclusive, in place and out of place, with offsets
// that are multiples of 16 (aligned vector accesses) and odd ones; and the single-pass fallback
// (CLSCAN_SPIN_LIMIT=0, 6t + 5 elements, out of place: see run_scans), in which every work-group
// walks back over all its predecessors, one look-back round per tile; and the fixed-order look-back
// of deterministic float sums (17t + 5, two tree levels; with the fallback 18t + 5, inclusive out of
// place). Shapes with tiles of more than
// 70 elements (C, D, E) run no t^2 + 5, 4t + 1 instead of 10t + 1, 3t + 7 and 3t + 5 instead of
// 5t + 7 and 6t + 5, and only two placements (sweep_t::pair) of the cases beyond the int sums.
//
// Long sums of an int input (options::transform_input), on the shapes with every type: three-stage
// over one and two levels, single-pass over several tiles, aligned and odd offsets; and on the shapes
// with reductions, reduce in one launch and over partial totals.
//
// Every element type with every operator valid for it (int, uint, long, ulong: sum, min, max, bit_and,
// bit_or, bit_xor, custom; float, double: sum, min, max, custom), both algorithms over several tiles,
// in shape A of local-tile and shape H of reread. The narrow suite runs int, uint, long, ulong,
// float and double through the single-pass kernel.
//
// Select and by-key calls (select.hpp, by_key.hpp; run_primitives), per shape that runs them, with
// t = the elements per tile of their launch (at most 64 per GPU work-item): select_if ("x > 0"),
// select_flagged, partition_if and unique, and inclusive_by_key and exclusive_by_key with sums, on
// 1, 5, 2t + 3 and 5t + 7 elements (3t + 7 on shapes with large tiles), both with the look-back
// (algorithm::single_pass) and with tile totals scanned beforehand (algorithm::three_stage; partition_if
// only this way, the narrow suite only the look-back), each compared exactly with the host, the
// count and the guards around the output and the count included; then the look-back's fallback
// (CLSCAN_SPIN_LIMIT=0, 5t + 7 elements, out of place) for select_if, unique and exclusive_by_key. The
// selections keep blocks of about a tile of all, none and half of the elements; unique and the keys
// are runs of equal values up to two tiles long. "every" case: each selection on int and long, the
// scans by key on int keys with int and long values, both kinds, and float keys (with -0 and NaN)
// with double values where the device has fp64, and the fallback also for select_flagged and the
// other by-key cases; otherwise each selection on one of int and long, and one int and one long scan
// by key. A call and type keep one placement for all sizes: offsets aligned for vectors with one
// algorithm and odd with the other.
//
// Single-pass scans always span several tiles, so every work-group but the first looks back. Oclgrind
// runs work-groups in order, OCLGRIND_NUM_THREADS at a time (the tests set 2), so a look-back usually
// finds its predecessor's prefix in its first round; it takes more rounds (combining aggregates, or
// waiting for a predecessor that has published nothing yet) only when that predecessor is still
// running on the other worker thread. In runs of these suites, 6-13% of look-backs did, up to about
// 140 rounds, and 5-11% combined an aggregate; the numbers vary run to run. Only the fallback case
// (CLSCAN_SPIN_LIMIT=0) takes many rounds for certain: every work-group walks back over all of its
// predecessors, one round per tile.
//
// Output: one line per scan or call, lines per shape with the time of its select and by-key calls and
// its total, then "oclgrind runner: <n> scans checked on <device>". Words that the tests' failure
// expression looks for (tests/cmake/reliability.cmake: "error", "invalid", "race", "aligned", ...) are
// never printed on success.
#include <clscan/clscan.hpp>
#include <clscan/names.hpp>

#include <common/reference.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace {

enum class kind_t { inclusive, exclusive };

struct spec {
  clscan::algorithm algo = clscan::algorithm::three_stage;
  clscan::op operation = clscan::op::sum;
  kind_t kind = kind_t::inclusive;
  bool in_place = false;
  std::size_t n = 1, in_offset = 0, out_offset = 0;
  std::optional<std::int64_t> initial;
  bool deterministic = false;
};

template <typename T> const char* type_name() { return clscan::opencl_name(clscan::element_traits<T>::type); }

std::string describe(const spec& s, const char* type, const char* note) {
  std::string text =
      std::string(clscan::to_string(s.algo)) + " " + type + note + " " + clscan::to_string(s.operation) +
      " " + (s.kind == kind_t::inclusive ? "inclusive" : "exclusive") + " n=" + std::to_string(s.n) +
      (s.in_place ? " in place" : " out of place") + " offsets " + std::to_string(s.in_offset) + "/" +
      std::to_string(s.out_offset) + (s.deterministic ? " deterministic" : "");
  if (s.initial) text += " initial " + std::to_string(*s.initial);
  return text;
}

// The custom operators: on uint and ulong, composition of affine maps x -> m x + c with m and c packed
// into the halves of the element (non-commutative, so an operand order mistake shows); on the other
// types, a max written as an expression (the prelude's CLSCAN_COMBINE path for that type).
template <typename T> constexpr bool affine_custom() {
  return std::is_same<T, cl_uint>::value || std::is_same<T, cl_ulong>::value;
}

template <typename T> std::string custom_expression() {
  if constexpr (std::is_same<T, cl_uint>::value)
    return "(((((a) >> 16) * ((b) >> 16)) & 0xffffU) << 16) | ((((b) >> 16) * ((a) & 0xffffU) + "
           "((b) & 0xffffU)) & 0xffffU)";
  if constexpr (std::is_same<T, cl_ulong>::value)
    return "(((((a) >> 32) * ((b) >> 32)) & 0xffffffffUL) << 32) | ((((b) >> 32) * ((a) & 0xffffffffUL) + "
           "((b) & 0xffffffffUL)) & 0xffffffffUL)";
  return "((a) < (b)) ? (b) : (a)";
}

template <typename T> T custom_identity() {
  if constexpr (affine_custom<T>()) return static_cast<T>(T(1) << (4 * sizeof(T)));
  return std::numeric_limits<T>::lowest();
}

template <typename T> T custom_combine(T a, T b) {
  if constexpr (affine_custom<T>()) {
    constexpr unsigned half = 4 * sizeof(T);
    constexpr T low = static_cast<T>((T(1) << half) - 1);
    const T m = static_cast<T>(((a >> half) * (b >> half)) & low);
    const T c = static_cast<T>(((b >> half) * (a & low) + (b & low)) & low);
    return static_cast<T>((m << half) | c);
  } else {
    return a < b ? b : a;
  }
}

// The library's operators and identities (clscan_reference), and the custom operator above.
template <typename T> T identity(clscan::op operation) {
  return operation == clscan::op::custom ? custom_identity<T>() : clscan_reference::identity<T>(operation);
}

template <typename T> T combine(clscan::op operation, T a, T b) {
  return operation == clscan::op::custom ? custom_combine(a, b) : clscan_reference::combine(operation, a, b);
}

// Inputs that keep every result meaningful and exact: floating-point values are multiples of 1/4 in
// [-4, 4], whose sums here are exact in any order; bit_and and bit_or inputs clear or set one bit
// each, so that the running value does not saturate within a few elements.
template <typename T> T input_value(clscan::op operation, std::uint64_t bits) {
  if constexpr (std::is_floating_point<T>::value) {
    return static_cast<T>(static_cast<int>(bits % 33) - 16) / T(4);
  } else {
    using U = std::make_unsigned_t<T>;
    const unsigned bit = static_cast<unsigned>(bits % (8 * sizeof(T)));
    if (operation == clscan::op::bit_and) return static_cast<T>(static_cast<U>(~(U(1) << bit)));
    if (operation == clscan::op::bit_or) return static_cast<T>(U(1) << bit);
    T x;
    std::memcpy(&x, &bits, sizeof x);
    return x;
  }
}

// The calls of select.hpp.
enum class selection_call { select_if, select_flagged, partition_if, unique };

const char* selection_name(selection_call call) {
  switch (call) {
  case selection_call::select_if: return "select_if";
  case selection_call::select_flagged: return "select_flagged";
  case selection_call::partition_if: return "partition_if";
  case selection_call::unique: return "unique";
  }
  return "?";
}

template <typename T> T poison_value() {
  T poison;
  std::memset(&poison, 0xA5, sizeof poison);
  return poison;
}

// Whether element i is selected: blocks of tile + 3 elements (so that they straddle tiles) take turns
// at half of them at random, all of them, and none.
bool block_selects(std::size_t i, std::size_t tile, clscan_reference::splitmix64& r) {
  switch ((i / (tile + 3)) % 3) {
  case 0: return (r.next() >> 40) & 1;
  case 1: return true;
  default: return false;
  }
}

// Runs of equal values (the keys of the scans by key, the input of unique): mostly of 1 to 3
// elements, every fourth one of up to two tiles; few distinct values, so that equal runs meet.
// 8-byte integers differ in their upper halves only; floating-point values include -0 (equal to 0)
// and NaN (equal to nothing, itself included).
template <typename T> std::vector<T> runs_of_equal(std::size_t n, std::size_t tile) {
  clscan_reference::splitmix64 r{0x7e57ull ^ (n << 8) ^ sizeof(T)};
  std::vector<T> values(n);
  for (std::size_t i = 0; i < n;) {
    const std::uint64_t pick = r.next();
    const std::size_t length = pick % 4 == 0 ? 1 + (pick >> 8) % (2 * tile) : 1 + (pick >> 8) % 3;
    const unsigned which = static_cast<unsigned>((pick >> 32) % 4);
    T value;
    if constexpr (std::is_floating_point<T>::value) {
      const T choices[] = {T(0), -T(0), T(1.5), std::numeric_limits<T>::quiet_NaN()};
      value = choices[which];
    } else if constexpr (sizeof(T) == 8) {
      value = static_cast<T>(static_cast<std::uint64_t>(which % 3) << 33);
    } else {
      value = static_cast<T>(which % 3);
    }
    for (std::size_t j = 0; j < length && i < n; ++j)
      values[i++] = value;
  }
  return values;
}

template <typename T> std::vector<unsigned char> bytes_of(const std::vector<T>& values) {
  std::vector<unsigned char> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::vector<unsigned char> read_bytes(const cl::CommandQueue& queue, const cl::Buffer& buffer) {
  std::vector<unsigned char> bytes(buffer.getInfo<CL_MEM_SIZE>());
  queue.enqueueReadBuffer(buffer, CL_TRUE, 0, bytes.size(), bytes.data());
  return bytes;
}

// How many placements of each size a case runs.
enum class sweep_t {
  full,         // inclusive and exclusive x in place and out of place x aligned and odd offsets
  out_of_place, // inclusive and exclusive x aligned and odd offsets
  pair,         // inclusive out of place aligned; exclusive in place at an odd offset, initial 3
  pair_first,   // the first of pair
  pair_second,  // the second of pair
};

struct runner {
  cl::Device device;
  std::size_t scans = 0;
  bool all_right = true;
  // The buffers of the select and by-key cases, released only with their context (see held_buffer).
  std::vector<cl::Buffer> held;

  // A buffer that holds `image`, written by the host (so that Oclgrind sees every element
  // initialized), and kept until its context ends. Oclgrind 21.10 reuses the number of a released
  // buffer for the next one created but keeps the old buffer's size for its record of initialized
  // bytes until the host writes the new one: a temporary of the library (written only by kernels)
  // that got the number of a smaller released buffer reads as uninitialized past the old size, and
  // Oclgrind reports values that are right. Holding the buffers leaves only the library's own
  // released temporaries to reuse, and the next case's buffers take those before the library
  // allocates again.
  template <typename T>
  cl::Buffer held_buffer(const cl::Context& context, const cl::CommandQueue& queue,
                         const std::vector<T>& image) {
    cl::Buffer buffer(context, CL_MEM_READ_WRITE, image.size() * sizeof(T));
    queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, image.size() * sizeof(T), image.data());
    held.push_back(buffer);
    return buffer;
  }

  template <typename T>
  void run(const cl::Context& context, const cl::CommandQueue& queue, const spec& s, const char* note) {
    ++scans;
    const std::string name = describe(s, type_name<T>(), note);
    std::vector<T> input(s.n);
    std::uint64_t state = 0x9e3779b97f4a7c15ull ^ (s.n * 1315423911ull);
    for (auto& x : input) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      x = input_value<T>(s.operation, state >> 11);
    }
    clscan::options<T> opts;
    opts.algorithm = s.algo;
    opts.operation = s.operation;
    opts.deterministic = s.deterministic;
    if (s.operation == clscan::op::custom) {
      opts.custom_op = custom_expression<T>();
      opts.custom_identity = custom_identity<T>();
    }
    if (s.initial) opts.initial = static_cast<T>(*s.initial);
    opts.in_offset = s.in_offset;
    opts.out_offset = s.out_offset;

    const std::vector<T> reference = clscan_reference::scan(
        input, s.kind == kind_t::inclusive ? clscan::scan_kind::inclusive : clscan::scan_kind::exclusive,
        s.initial ? static_cast<T>(*s.initial) : identity<T>(s.operation),
        [&s](T a, T b) { return combine(s.operation, a, b); });

    // Guards around the ranges; every element of both buffers is written by the host first, so that
    // Oclgrind's uninitialized-value checks only see what the kernels themselves leave undefined.
    T poison;
    std::memset(&poison, 0xA5, sizeof poison);
    const std::size_t back = 3;
    std::vector<T> in_image(s.in_offset + s.n + back, poison);
    std::copy(input.begin(), input.end(), in_image.begin() + static_cast<std::ptrdiff_t>(s.in_offset));
    std::vector<T> out_image = s.in_place ? in_image : std::vector<T>(s.out_offset + s.n + back, poison);
    std::vector<T> expected = out_image;
    std::copy(reference.begin(), reference.end(),
              expected.begin() + static_cast<std::ptrdiff_t>(s.out_offset));

    cl::Buffer in(context, CL_MEM_READ_WRITE, in_image.size() * sizeof(T));
    cl::Buffer out = s.in_place ? in : cl::Buffer(context, CL_MEM_READ_WRITE, out_image.size() * sizeof(T));
    queue.enqueueWriteBuffer(in, CL_TRUE, 0, in_image.size() * sizeof(T), in_image.data());
    if (!s.in_place)
      queue.enqueueWriteBuffer(out, CL_TRUE, 0, out_image.size() * sizeof(T), out_image.data());
    cl::Event done;
    if (s.kind == kind_t::inclusive)
      done = s.in_place ? clscan::inclusive<T>(queue, in, s.n, opts)
                        : clscan::inclusive<T>(queue, in, out, s.n, opts);
    else
      done = s.in_place ? clscan::exclusive<T>(queue, in, s.n, opts)
                        : clscan::exclusive<T>(queue, in, out, s.n, opts);
    done.wait();
    std::vector<T> got(expected.size());
    queue.enqueueReadBuffer(out, CL_TRUE, 0, got.size() * sizeof(T), got.data());
    // The same bits, any NaN for a NaN (fmin and fmax keep no NaN payload).
    bool right = true;
    for (std::size_t i = 0; i < got.size(); ++i)
      right = right && (std::memcmp(&got[i], &expected[i], sizeof(T)) == 0 ||
                        (got[i] != got[i] && expected[i] != expected[i]));
    if (!s.in_place) {
      std::vector<T> in_after(in_image.size());
      queue.enqueueReadBuffer(in, CL_TRUE, 0, in_after.size() * sizeof(T), in_after.data());
      right = right && std::memcmp(in_after.data(), in_image.data(), in_after.size() * sizeof(T)) == 0;
    }
    std::cout << (right ? "ok    " : "WRONG ") << name << std::endl;
    all_right = all_right && right;
  }

  // `base` over `sizes`, in the placements of `sweep`. Aligned offsets are multiples of 16, the
  // widest vector, so that every vector width takes its aligned path; odd ones take vloadn/vstoren.
  template <typename T>
  void sweep(const cl::Context& context, const cl::CommandQueue& queue, spec base,
             const std::vector<std::size_t>& sizes, sweep_t how = sweep_t::full, const char* note = "") {
    for (std::size_t n : sizes)
      for (kind_t kind : {kind_t::inclusive, kind_t::exclusive})
        for (bool in_place : {false, true})
          for (bool aligned : {true, false}) {
            const bool paired =
                how == sweep_t::pair || how == sweep_t::pair_first || how == sweep_t::pair_second;
            if (in_place && how != sweep_t::full) continue;
            if (paired && (kind == kind_t::inclusive) != aligned) continue;
            if ((how == sweep_t::pair_first && !aligned) || (how == sweep_t::pair_second && aligned))
              continue;
            spec s = base;
            s.n = n, s.kind = kind, s.in_place = in_place || (paired && !aligned);
            s.in_offset = aligned ? 16 : 1;
            s.out_offset = s.in_place ? s.in_offset : (aligned ? 32 : 3);
            if (paired && !aligned && !s.initial) s.initial = 3;
            run<T>(context, queue, s, note);
          }
  }

  // Every operator valid for T, with both algorithms, over several tiles: one scan of each, the
  // placements of sweep_t::pair taking turns, so that each algorithm runs both on every type. (Every
  // scan here is a program of its own for Oclgrind to compile, the larger part of its time.)
  template <typename T>
  void every_operator(const cl::Context& context, const cl::CommandQueue& queue, std::size_t tile) {
    std::vector<clscan::op> ops = {clscan::op::sum, clscan::op::min, clscan::op::max, clscan::op::custom};
    if constexpr (std::is_integral<T>::value)
      ops.insert(ops.end(), {clscan::op::bit_and, clscan::op::bit_or, clscan::op::bit_xor});
    bool first = true;
    for (clscan::op operation : ops) {
      spec s;
      s.operation = operation;
      s.algo = clscan::algorithm::three_stage;
      sweep<T>(context, queue, s, {3 * tile + 2}, first ? sweep_t::pair_first : sweep_t::pair_second);
      s.algo = clscan::algorithm::single_pass;
      sweep<T>(context, queue, s, {4 * tile + 3}, first ? sweep_t::pair_second : sweep_t::pair_first);
      first = !first;
    }
  }

  // A transform of an input of another type (options::transform_input): ints summed into longs ("x"),
  // with guards around both ranges. `reduce`: the total into element 1 of a 3-element output;
  // otherwise the scan of `kind` with `algo`, out of place (in place is refused).
  void widened(const cl::Context& context, const cl::CommandQueue& queue, clscan::algorithm algo, bool reduce,
               kind_t kind, std::size_t n, std::size_t in_offset, std::size_t out_offset) {
    ++scans;
    std::vector<cl_int> input(n);
    std::uint64_t state = 0x51deba5eull ^ (n * 1315423911ull);
    for (auto& x : input) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      x = static_cast<cl_int>(static_cast<std::uint32_t>(state >> 32));
    }
    clscan::options<cl_long> opts;
    opts.algorithm = algo;
    opts.transform = "x";
    opts.transform_input = clscan::element_type::int32;
    opts.in_offset = in_offset;
    opts.out_offset = reduce ? 1 : out_offset;
    std::vector<cl_long> reference;
    cl_long running = 0;
    for (const cl_int x : input) {
      if (kind == kind_t::exclusive) reference.push_back(running);
      running += x;
      if (kind == kind_t::inclusive) reference.push_back(running);
    }
    if (reduce) reference = {running};
    cl_int in_poison;
    cl_long out_poison;
    std::memset(&in_poison, 0xA5, sizeof in_poison);
    std::memset(&out_poison, 0xA5, sizeof out_poison);
    std::vector<cl_int> in_image(in_offset + n + 3, in_poison);
    std::copy(input.begin(), input.end(), in_image.begin() + static_cast<std::ptrdiff_t>(in_offset));
    std::vector<cl_long> out_image(opts.out_offset + reference.size() + 1, out_poison);
    std::vector<cl_long> expected = out_image;
    std::copy(reference.begin(), reference.end(),
              expected.begin() + static_cast<std::ptrdiff_t>(opts.out_offset));
    const cl::Buffer in = held_buffer(context, queue, in_image);
    const cl::Buffer out = held_buffer(context, queue, out_image);
    if (reduce)
      clscan::reduce<cl_long>(queue, in, out, n, opts).wait();
    else if (kind == kind_t::inclusive)
      clscan::inclusive<cl_long>(queue, in, out, n, opts).wait();
    else
      clscan::exclusive<cl_long>(queue, in, out, n, opts).wait();
    const bool right =
        read_bytes(queue, out) == bytes_of(expected) && read_bytes(queue, in) == bytes_of(in_image);
    std::cout << (right ? "ok    " : "WRONG ")
              << (reduce ? std::string("reduce")
                         : std::string(clscan::to_string(algo)) +
                               (kind == kind_t::inclusive ? " inclusive" : " exclusive"))
              << " long of int (transform_input) n=" << n << " in_offset " << in_offset << " out_offset "
              << opts.out_offset << std::endl;
    all_right = all_right && right;
  }

  // clscan::reduce (reduce.hpp) of n elements at in_offset into element 1 of a 3-element output, from
  // an initial value on the host (initial 1), on the device (2) or none (0); checks the total, that the
  // guards around it keep their poison, and that the input and the initial value's buffer are left as
  // they were.
  template <typename T>
  void reduction(const cl::Context& context, const cl::CommandQueue& queue, clscan::op operation,
                 std::size_t n, std::size_t in_offset, int initial) {
    ++scans;
    std::vector<T> input(n);
    std::uint64_t state = 0x7ed5ce5eedull ^ (n * 1315423911ull);
    for (auto& x : input) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      x = input_value<T>(operation, state >> 11);
    }
    clscan::options<T> opts;
    opts.operation = operation;
    if (operation == clscan::op::custom) {
      opts.custom_op = custom_expression<T>();
      opts.custom_identity = custom_identity<T>();
    }
    opts.in_offset = in_offset;
    opts.out_offset = 1;
    T poison;
    std::memset(&poison, 0xA5, sizeof poison);
    const T start = input_value<T>(operation, 0x5157a27ull);
    T total = initial ? start : identity<T>(operation);
    for (const T& x : input)
      total = combine(operation, total, x);
    std::vector<T> in_image(in_offset + n + 3, poison);
    std::copy(input.begin(), input.end(), in_image.begin() + static_cast<std::ptrdiff_t>(in_offset));
    const std::vector<T> out_image(3, poison), initial_image = {poison, start};
    const cl::Buffer in = held_buffer(context, queue, in_image);
    const cl::Buffer out = held_buffer(context, queue, out_image);
    const cl::Buffer initial_buffer = held_buffer(context, queue, initial_image);
    if (initial == 1) opts.initial = start;
    if (initial == 2) opts.initial_on_device = clscan::device_value{initial_buffer, 1};
    clscan::reduce<T>(queue, in, out, n, opts).wait();
    std::vector<T> expected = out_image;
    expected[1] = total;
    const std::vector<unsigned char> got = read_bytes(queue, out);
    bool right =
        got.size() == 3 * sizeof(T) && (std::memcmp(got.data(), bytes_of(expected).data(), got.size()) == 0);
    if (!right && got.size() == 3 * sizeof(T)) {
      // Any NaN for a NaN (fmin and fmax keep no NaN payload).
      T result;
      std::memcpy(&result, got.data() + sizeof(T), sizeof(T));
      right = std::memcmp(got.data(), &poison, sizeof(T)) == 0 &&
              std::memcmp(got.data() + 2 * sizeof(T), &poison, sizeof(T)) == 0 && result != result &&
              total != total;
    }
    right = right && read_bytes(queue, in) == bytes_of(in_image) &&
            read_bytes(queue, initial_buffer) == bytes_of(initial_image);
    const char* const starts[] = {"", " initial", " initial on the device"};
    std::cout << (right ? "ok    " : "WRONG ") << "reduce " << type_name<T>() << " "
              << clscan::to_string(operation) << " n=" << n << " in_offset " << in_offset << starts[initial]
              << std::endl;
    all_right = all_right && right;
  }

  // Stream compaction (select.hpp): one call with poisoned guards around the output and the count;
  // checks the output, the count and the guards (no element of `out` past the count is written, but
  // by partition_if), and that the input and the flags are left as they were.
  template <typename T>
  void selection(const cl::Context& context, const cl::CommandQueue& queue, selection_call call,
                 clscan::algorithm algo, std::size_t n, std::size_t tile, bool aligned, const char* note) {
    ++scans;
    std::vector<T> input = call == selection_call::unique ? runs_of_equal<T>(n, tile) : std::vector<T>(n);
    std::vector<cl_uchar> flags(n);
    clscan_reference::splitmix64 r{0x5e1ec7ull ^ n};
    for (std::size_t i = 0; i < n; ++i) {
      const bool keep = block_selects(i, tile, r);
      const auto magnitude = static_cast<long long>(1 + r.next() % 1000);
      if (call != selection_call::unique) input[i] = static_cast<T>(keep ? magnitude : 1 - magnitude);
      flags[i] = keep ? static_cast<cl_uchar>(1 + r.next() % 255) : 0;
    }
    const auto selected = [&](std::size_t i) {
      switch (call) {
      case selection_call::select_flagged: return flags[i] != 0;
      case selection_call::unique: return i == 0 || !(input[i] == input[i - 1]);
      default: return input[i] > 0;
      }
    };
    std::vector<T> reference;
    for (std::size_t i = 0; i < n; ++i)
      if (selected(i)) reference.push_back(input[i]);
    const std::size_t count = reference.size();
    if (call == selection_call::partition_if)
      for (std::size_t i = 0; i < n; ++i)
        if (!selected(i)) reference.push_back(input[i]);

    clscan::select_options<T> opts;
    opts.algorithm = algo;
    if (call == selection_call::select_if || call == selection_call::partition_if) opts.predicate = "x > 0";
    opts.in_offset = aligned ? 16 : 1;
    opts.out_offset = aligned ? 32 : 3;
    opts.flags_offset = aligned ? 16 : 5;
    opts.count_offset = 1;
    const std::string name = std::string(clscan::to_string(algo)) + " " + selection_name(call) + " " +
                             type_name<T>() + note + " n=" + std::to_string(n) + " offsets " +
                             std::to_string(opts.in_offset) + "/" + std::to_string(opts.out_offset) +
                             ", count " + std::to_string(count);

    const std::size_t back = 3;
    const T poison = poison_value<T>();
    std::vector<T> in_image(opts.in_offset + n + back, poison);
    std::copy(input.begin(), input.end(), in_image.begin() + static_cast<std::ptrdiff_t>(opts.in_offset));
    std::vector<cl_uchar> flags_image(opts.flags_offset + n + back, 0xA5);
    std::copy(flags.begin(), flags.end(),
              flags_image.begin() + static_cast<std::ptrdiff_t>(opts.flags_offset));
    std::vector<T> expected(opts.out_offset + n + back, poison);
    std::copy(reference.begin(), reference.end(),
              expected.begin() + static_cast<std::ptrdiff_t>(opts.out_offset));
    const cl_ulong count_poison = poison_value<cl_ulong>();
    std::vector<cl_ulong> expected_counts = {count_poison, count, count_poison};

    cl::Buffer in = held_buffer(context, queue, in_image);
    cl::Buffer flag_buffer = held_buffer(context, queue, flags_image);
    cl::Buffer out = held_buffer(context, queue, std::vector<T>(expected.size(), poison));
    cl::Buffer counts = held_buffer(context, queue, std::vector<cl_ulong>(3, count_poison));
    cl::Event done;
    switch (call) {
    case selection_call::select_if: done = clscan::select_if<T>(queue, in, out, counts, n, opts); break;
    case selection_call::select_flagged:
      done = clscan::select_flagged<T>(queue, in, flag_buffer, out, counts, n, opts);
      break;
    case selection_call::partition_if: done = clscan::partition_if<T>(queue, in, out, counts, n, opts); break;
    case selection_call::unique: done = clscan::unique<T>(queue, in, out, counts, n, opts); break;
    }
    done.wait();
    const bool right = read_bytes(queue, out) == bytes_of(expected) &&
                       read_bytes(queue, counts) == bytes_of(expected_counts) &&
                       read_bytes(queue, in) == bytes_of(in_image) &&
                       read_bytes(queue, flag_buffer) == bytes_of(flags_image);
    report(right, name);
  }

  // Scans by key (by_key.hpp) with a sum, in place or out of place, with guards around the output;
  // checks the output, the guards, and that the keys (and out of place, the input) are left as they were.
  template <typename K, typename T>
  void keyed(const cl::Context& context, const cl::CommandQueue& queue, kind_t kind, clscan::algorithm algo,
             std::size_t n, std::size_t tile, bool aligned, bool in_place, const char* note) {
    ++scans;
    const std::vector<K> keys = runs_of_equal<K>(n, tile);
    std::vector<T> input(n);
    clscan_reference::splitmix64 r{0xb7ce7ull ^ n};
    for (auto& x : input)
      x = input_value<T>(clscan::op::sum, r.next());
    clscan::options<T> opts;
    opts.algorithm = algo;
    opts.in_offset = aligned ? 16 : 1;
    opts.out_offset = in_place ? opts.in_offset : (aligned ? 32 : 3);
    // The initial value goes in front of every segment; only with some of the calls.
    if (!aligned) opts.initial = static_cast<T>(3);
    const clscan::scan_kind scan_kind =
        kind == kind_t::inclusive ? clscan::scan_kind::inclusive : clscan::scan_kind::exclusive;
    const std::vector<T> reference =
        clscan_reference::scan_by_key(keys, input, scan_kind, clscan::op::sum, opts.initial);
    const std::string name =
        std::string(clscan::to_string(algo)) + " " + (kind == kind_t::inclusive ? "inclusive" : "exclusive") +
        "_by_key keys " + type_name<K>() + " values " + type_name<T>() + note + " n=" + std::to_string(n) +
        (in_place ? " in place" : " out of place") + " offsets " + std::to_string(opts.in_offset) + "/" +
        std::to_string(opts.out_offset) + (opts.initial ? " initial 3" : "");

    const std::size_t back = 3;
    std::vector<K> keys_image(opts.in_offset + n + back, poison_value<K>());
    std::copy(keys.begin(), keys.end(), keys_image.begin() + static_cast<std::ptrdiff_t>(opts.in_offset));
    std::vector<T> in_image(opts.in_offset + n + back, poison_value<T>());
    std::copy(input.begin(), input.end(), in_image.begin() + static_cast<std::ptrdiff_t>(opts.in_offset));
    std::vector<T> expected =
        in_place ? in_image : std::vector<T>(opts.out_offset + n + back, poison_value<T>());
    std::copy(reference.begin(), reference.end(),
              expected.begin() + static_cast<std::ptrdiff_t>(opts.out_offset));

    cl::Buffer key_buffer = held_buffer(context, queue, keys_image);
    cl::Buffer in = held_buffer(context, queue, in_image);
    cl::Buffer out =
        in_place ? in : held_buffer(context, queue, std::vector<T>(expected.size(), poison_value<T>()));
    cl::Event done = kind == kind_t::inclusive
                         ? clscan::inclusive_by_key<K, T>(queue, key_buffer, in, out, n, opts)
                         : clscan::exclusive_by_key<K, T>(queue, key_buffer, in, out, n, opts);
    done.wait();
    bool right =
        read_bytes(queue, out) == bytes_of(expected) && read_bytes(queue, key_buffer) == bytes_of(keys_image);
    if (!in_place) right = right && read_bytes(queue, in) == bytes_of(in_image);
    report(right, name);
  }

  void report(bool right, const std::string& name) {
    std::cout << (right ? "ok    " : "WRONG ") << name << std::endl;
    all_right = all_right && right;
  }
};

// Which cases of select.hpp and by_key.hpp a shape runs (run_primitives).
enum class primitive_cases {
  none,
  every, // every call on int and long (by-key: int keys with int and long values, both kinds; float
         // keys with double values where the device has fp64)
  few,   // each call once per size, on int or long
};

struct shape {
  const char* tuning;
  bool single_pass_only = false;                      // the narrow suite
  bool every_type = false;                            // every type and operator (runner::every_operator)
  primitive_cases primitives = primitive_cases::none; // the calls of select.hpp and by_key.hpp
  bool scans = true;                                  // false: the calls of select.hpp and by_key.hpp only
  bool keyed = true;                                  // false: no calls of by_key.hpp
  bool reductions = false;                            // clscan::reduce (run_reductions)
};

// The select and by-key calls of one launch shape (set by run_shape; see the top of this file), in a
// context of their own, then the look-back's fallback in another. Each call and type keeps one
// placement for all sizes, so that Oclgrind compiles it once per algorithm (its compilations take
// most of the time here).
void run_primitives(runner& r, const shape& sh, bool large) {
  using clscan::algorithm;
  using selection = selection_call;
  // They run on the single-pass scan's shape, with at most 64 elements per GPU work-item
  // (plan_primitive in lib/dispatch/dispatch.cpp).
  const clscan::dispatch_plan plan = clscan::plan_for(r.device);
  const clscan::device_capabilities caps = clscan::capabilities(r.device);
  std::size_t items = plan.single_pass_small.items_per_thread;
  if (caps.is_gpu())
    items = std::max<std::size_t>(plan.single_pass_small.vector_width, std::min<std::size_t>(items, 64));
  const std::size_t tile = plan.single_pass_small.work_group_size * items;
  const std::size_t many = (large ? 3 : 5) * tile + 7;
  const std::vector<std::size_t> sizes = {1, 5, 2 * tile + 3, many};
  const bool every = sh.primitives == primitive_cases::every;
  const bool fp64 = every && caps.fp64;
  std::vector<algorithm> algorithms = {algorithm::single_pass};
  if (!sh.single_pass_only) algorithms.push_back(algorithm::three_stage);
  {
    cl::Context context(r.device);
    cl::CommandQueue queue(context, r.device);
    for (algorithm algo : algorithms) {
      // Aligned offsets for the first type of a call with the look-back, odd ones with tile totals, and
      // the other way round for the second.
      const bool aligned = algo == algorithm::single_pass;
      for (std::size_t n : sizes) {
        for (selection call :
             {selection::select_if, selection::select_flagged, selection::partition_if, selection::unique}) {
          if (call == selection::partition_if && algo == algorithm::single_pass) continue;
          // Every call on int and long, or each on one of them.
          const bool odd_call = call == selection::select_flagged || call == selection::unique;
          if (every || !odd_call) r.selection<cl_int>(context, queue, call, algo, n, tile, aligned, "");
          if (every || odd_call) r.selection<cl_long>(context, queue, call, algo, n, tile, !aligned, "");
        }
        if (!sh.keyed) continue;
        r.keyed<cl_int, cl_int>(context, queue, kind_t::inclusive, algo, n, tile, aligned, false, "");
        r.keyed<cl_int, cl_long>(context, queue, kind_t::exclusive, algo, n, tile, !aligned, true, "");
        if (every) {
          r.keyed<cl_int, cl_int>(context, queue, kind_t::exclusive, algo, n, tile, !aligned, true, "");
          r.keyed<cl_int, cl_long>(context, queue, kind_t::inclusive, algo, n, tile, aligned, false, "");
        }
        if (fp64) {
          r.keyed<cl_float, cl_double>(context, queue, kind_t::inclusive, algo, n, tile, aligned, true, "");
          r.keyed<cl_float, cl_double>(context, queue, kind_t::exclusive, algo, n, tile, !aligned, false, "");
        }
      }
    }
    r.held.clear();
  }
  {
    // Out of place only, as the scans' fallback in run_scans.
    ::setenv("CLSCAN_SPIN_LIMIT", "0", 1);
    cl::Context context(r.device);
    cl::CommandQueue queue(context, r.device);
    const char* note = " (CLSCAN_SPIN_LIMIT=0)";
    const algorithm algo = algorithm::single_pass;
    r.selection<cl_int>(context, queue, selection::select_if, algo, many, tile, true, note);
    r.selection<cl_long>(context, queue, selection::unique, algo, many, tile, false, note);
    if (every) r.selection<cl_int>(context, queue, selection::select_flagged, algo, many, tile, false, note);
    if (sh.keyed) {
      r.keyed<cl_int, cl_long>(context, queue, kind_t::exclusive, algo, many, tile, false, false, note);
      if (every)
        r.keyed<cl_int, cl_int>(context, queue, kind_t::inclusive, algo, many, tile, true, false, note);
      if (fp64)
        r.keyed<cl_float, cl_double>(context, queue, kind_t::inclusive, algo, many, tile, false, false, note);
    }
    r.held.clear();
    ::unsetenv("CLSCAN_SPIN_LIMIT");
  }
}

// clscan::reduce on one launch shape, in a context of its own, with t = its tile: inputs that one
// work-group reads in one launch (1, 5 and 2t + 3 elements), and 16411 elements, past the 64 KiB a GPU
// work-group reads alone, so that many work-groups reduce ranges and one combines their partial totals
// over several tiles. Int sums at odd and aligned offsets with each kind of initial value, the affine
// maps on uint (not commutative: the local-tile layout, or the contiguous one in order), float max.
void run_reductions(runner& r) {
  using clscan::op;
  const clscan::dispatch_plan plan = clscan::plan_for(r.device);
  const std::size_t tile = plan.reduce.work_group_size * plan.reduce.items_per_thread;
  const std::size_t many = 16411;
  cl::Context context(r.device);
  cl::CommandQueue queue(context, r.device);
  for (std::size_t n : {std::size_t{1}, std::size_t{5}, 2 * tile + 3})
    r.reduction<cl_int>(context, queue, op::sum, n, 1, n == 5 ? 1 : 0);
  r.reduction<cl_int>(context, queue, op::sum, many, 1, 2);
  r.reduction<cl_int>(context, queue, op::sum, 2 * tile + 3, 16, 2);
  r.reduction<cl_int>(context, queue, op::sum, many, 16, 1);
  r.reduction<cl_uint>(context, queue, op::custom, 2 * tile + 3, 1, 1);
  r.reduction<cl_uint>(context, queue, op::custom, many, 1, 0);
  r.reduction<cl_float>(context, queue, op::max, many, 16, 0);
  // An input of another type: read in vectors of its own, partial totals by the program of the result's.
  r.widened(context, queue, clscan::algorithm::automatic, true, kind_t::inclusive, 2 * tile + 3, 16, 0);
  r.widened(context, queue, clscan::algorithm::automatic, true, kind_t::inclusive, many, 1, 0);
  r.held.clear();
}

// The scans of one launch shape: each group of cases in a fresh context (the tuning is read once per
// context and device).
void run_scans(runner& r, const shape& sh, std::size_t tile, bool large) {
  const std::size_t many = large ? 4 * tile + 1 : 10 * tile + 1;
  const sweep_t more = large ? sweep_t::pair : sweep_t::full;
  {
    cl::Context context(r.device);
    cl::CommandQueue queue(context, r.device);
    if (!sh.single_pass_only) {
      // One tile, two tiles + 3 (one level of tile totals), and tile^2 + 5 (two levels).
      spec three;
      three.algo = clscan::algorithm::three_stage;
      std::vector<std::size_t> sizes = {1, 5, 2 * tile + 3};
      if (!large) sizes.push_back(tile * tile + 5);
      r.sweep<cl_int>(context, queue, three, sizes);
      three.operation = clscan::op::max;
      three.initial = -77;
      r.sweep<cl_long>(context, queue, three, {2 * tile + 3}, more);
    }

    // Single-pass: the first call clears the status array (clear_status); n grows, so the array is
    // reallocated and cleared again; the calls in between reuse it with new tags.
    spec single;
    single.algo = clscan::algorithm::single_pass;
    r.sweep<cl_int>(context, queue, single, {1, 5, 2 * tile + 3, many});
    single.initial = 1000;
    r.sweep<cl_int>(context, queue, single, {many}, more);
    single.initial.reset();
    r.sweep<cl_long>(context, queue, single, {many}, more);
    single.operation = clscan::op::custom;
    r.sweep<cl_uint>(context, queue, single, {(large ? 3 : 5) * tile + 7}, more);

    if (sh.single_pass_only) {
      // The other element sizes' word counts in the narrow layout.
      r.sweep<cl_ulong>(context, queue, single, {5 * tile + 7}, sweep_t::pair);
      single.operation = clscan::op::sum;
      r.sweep<cl_double>(context, queue, single, {4 * tile + 3}, sweep_t::pair);
      single.operation = clscan::op::min;
      r.sweep<cl_float>(context, queue, single, {4 * tile + 3}, sweep_t::pair);
    }
    // The fixed-order look-back (deterministic floating-point sums): 17 tiles reach the tree's second
    // level, whose group total the 16th tile publishes.
    spec fixed_order;
    fixed_order.algo = clscan::algorithm::single_pass;
    fixed_order.deterministic = true;
    r.sweep<cl_float>(context, queue, fixed_order, {(large ? 2 : 17) * tile + 5}, sweep_t::pair);
    if (sh.every_type) {
      // An input of another type: three-stage over one and two levels of tile totals (which the
      // program of the result's type scans), single-pass over several tiles; aligned and odd offsets.
      using clscan::algorithm;
      r.widened(context, queue, algorithm::three_stage, false, kind_t::inclusive, 2 * tile + 3, 16, 32);
      r.widened(context, queue, algorithm::three_stage, false, kind_t::exclusive, tile * tile + 5, 1, 3);
      r.widened(context, queue, algorithm::single_pass, false, kind_t::exclusive, 4 * tile + 3, 16, 32);
      r.widened(context, queue, algorithm::single_pass, false, kind_t::inclusive, 4 * tile + 3, 1, 3);
      r.every_operator<cl_int>(context, queue, tile);
      r.every_operator<cl_uint>(context, queue, tile);
      r.every_operator<cl_long>(context, queue, tile);
      r.every_operator<cl_ulong>(context, queue, tile);
      r.every_operator<cl_float>(context, queue, tile);
      r.every_operator<cl_double>(context, queue, tile);
    }
  }
  {
    // The fallback: every work-group reduces its predecessors' tiles itself (read once per context).
    // Out of place only: in place, the fallback reads a predecessor's input while that predecessor
    // may be writing its output over it, a race the kernel resolves by re-reading the predecessor's
    // prefix after the reduction (a prefix seen then wins), and which Oclgrind reports as such.
    ::setenv("CLSCAN_SPIN_LIMIT", "0", 1);
    cl::Context context(r.device);
    cl::CommandQueue queue(context, r.device);
    spec single;
    single.algo = clscan::algorithm::single_pass;
    r.sweep<cl_int>(context, queue, single, {(large ? 3 : 6) * tile + 5}, sweep_t::out_of_place,
                    " (CLSCAN_SPIN_LIMIT=0)");
    single.deterministic = true;
    r.sweep<cl_float>(context, queue, single, {(large ? 3 : 18) * tile + 5}, sweep_t::pair_first,
                      " (CLSCAN_SPIN_LIMIT=0)");
    ::unsetenv("CLSCAN_SPIN_LIMIT");
  }
}

// The kernels for one launch shape.
void run_shape(runner& r, const shape& sh) {
  const auto start = std::chrono::steady_clock::now();
  const std::size_t scans_before = r.scans;
  ::setenv("CLSCAN_TUNING", sh.tuning, 1);
  const clscan::dispatch_plan plan = clscan::plan_for(r.device);
  const std::size_t tile = plan.three_stage.work_group_size * plan.three_stage.items_per_thread;
  std::cout << "CLSCAN_TUNING=" << sh.tuning << ": three-stage tile " << tile << ", single-pass tile "
            << plan.single_pass_small.work_group_size * plan.single_pass_small.items_per_thread << std::endl;
  // Large tiles (the shapes with several raking segments) take Oclgrind long to run: fewer tiles and
  // placements there, beyond the int sums.
  const bool large = tile > 70;
  if (sh.scans) run_scans(r, sh, tile, large);
  if (sh.reductions) run_reductions(r);
  if (sh.primitives != primitive_cases::none) {
    const auto primitives_start = std::chrono::steady_clock::now();
    const std::size_t calls_before = r.scans;
    run_primitives(r, sh, large);
    std::cout << "CLSCAN_TUNING=" << sh.tuning << ": " << r.scans - calls_before
              << " select and by-key calls in "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - primitives_start).count()
              << " s" << std::endl;
  }
  clscan::release_cached_resources();
  std::cout << "CLSCAN_TUNING=" << sh.tuning << ": " << r.scans - scans_before << " scans in "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s"
            << std::endl;
}

const shape A{"wg=4,items=8,vec=4,lookback=2"};
const shape B{"wg=3,items=5,vec=1,lookback=3"};
const shape C{"wg=40,items=4,vec=2,lookback=8"};
const shape D{"wg=64,items=2,vec=2,lookback=16"};
const shape E{"wg=32,items=8,vec=8,lookback=4"};
const shape F{"wg=2,items=32,vec=16,lookback=2"};
const shape G{"wg=1,items=70,vec=2,lookback=1"};
const shape H{"wg=1,items=70,vec=2,lookback=16"};
const shape I{"wg=1,items=24,vec=2,lookback=1"};
const shape J{"wg=8,items=64,vec=4,lookback=4"};

shape with_every_type(shape sh) {
  sh.every_type = true;
  return sh;
}

shape with_primitives(shape sh, primitive_cases cases) {
  sh.primitives = cases;
  return sh;
}

// The calls of select.hpp and by_key.hpp only, no scans.
shape only_primitives(shape sh, primitive_cases cases) {
  sh.scans = false;
  return with_primitives(sh, cases);
}

// The calls of select.hpp only.
shape only_selections(shape sh, primitive_cases cases) {
  sh.keyed = false;
  return only_primitives(sh, cases);
}

shape with_reductions(shape sh) {
  sh.reductions = true;
  return sh;
}

shape single_pass_only(shape sh) {
  sh.single_pass_only = true;
  return sh;
}

// The suite's shapes, empty for an unknown suite.
std::vector<shape> suite_shapes(const std::string& suite) {
  using cases = primitive_cases;
  if (suite == "local-tile")
    return {with_reductions(with_every_type(with_primitives(A, cases::every))),
            with_reductions(with_primitives(B, cases::few)),
            with_primitives(C, cases::few),
            D,
            E,
            F,
            G,
            only_primitives(I, cases::few)};
  if (suite == "reread")
    return {A, with_reductions(with_primitives(B, cases::few)), C, with_reductions(with_every_type(H)),
            only_primitives(I, cases::every)};
  if (suite == "narrow")
    return {single_pass_only(with_primitives(A, cases::every)), single_pass_only(G),
            single_pass_only(only_primitives(I, cases::few))};
  if (suite == "copied-runs")
    return {only_selections(A, cases::every), only_selections(B, cases::few), only_selections(C, cases::few),
            only_selections(I, cases::few), only_selections(J, cases::few)};
  return {};
}

} // namespace

int main(int argc, char** argv) {
  const std::string suite = argc == 2 ? argv[1] : "";
  const std::vector<shape> shapes = suite_shapes(suite);
  if (shapes.empty()) {
    std::cout << "usage: oclgrind [options] clscan-oclgrind-runner local-tile|reread|narrow|copied-runs"
              << std::endl;
    return 2;
  }
  std::string build_options = "-DCLSCAN_PLAIN_STATUS_READS=0";
  if (suite == "reread") build_options += " -DCLSCAN_REREAD=1 -DCLSCAN_REDUCE_LAYOUT=0";
  // The selections' 64-bit tile counts, which only inputs of 2^32 elements or more choose, in two
  // suites: with each status-word layout.
  if (suite == "copied-runs") build_options += " -DCLSCAN_SELECT_COMPACT_RUNS=0 -DCLSCAN_COUNT_BITS=64";
  if (suite == "narrow") build_options += " -DCLSCAN_COUNT_BITS=64";
  if (suite == "narrow") {
    const char* narrow = std::getenv("CLSCAN_NARROW_STATUS");
    if (!narrow || std::strcmp(narrow, "1") != 0) {
      std::cout << "FAILED: the narrow suite needs CLSCAN_NARROW_STATUS=1 in the environment" << std::endl;
      return 2;
    }
  }
  try {
    if (const char* extra = std::getenv("CLSCAN_BUILD_OPTIONS"); extra && *extra)
      build_options = std::string(extra) + " " + build_options;
    ::setenv("CLSCAN_BUILD_OPTIONS", build_options.c_str(), 1);
    ::setenv("CLSCAN_NO_CACHE", "1", 1);
    // The single-pass qualification scans more than a megabyte, which the simulator would take
    // minutes over; it is tested on real implementations (tests/cmake/qualify_check.cmake), and every
    // single-pass scan here is compared exactly anyway.
    ::setenv("CLSCAN_QUALIFY", "0", 1);
    runner r;
    r.device = clscan::select_device();
    const cl::Platform platform(r.device.getInfo<CL_DEVICE_PLATFORM>());
    const std::string platform_name = platform.getInfo<CL_PLATFORM_NAME>();
    const std::string device_name = r.device.getInfo<CL_DEVICE_NAME>();
    std::cout << "device: " << device_name << " (platform " << platform_name << "), suite " << suite
              << ", kernel options " << build_options << std::endl;
    if (platform_name.find("Oclgrind") == std::string::npos) {
      std::cout << "FAILED: not running on Oclgrind's device; run this program as "
                   "`oclgrind --data-races --uninitialized --check-api clscan-oclgrind-runner "
                << suite << "`" << std::endl;
      return 2;
    }
    for (const shape& sh : shapes)
      run_shape(r, sh);
    std::cout << "oclgrind runner: " << r.scans << " scans checked on " << device_name << ", "
              << (r.all_right ? "all right" : "SOME WRONG") << std::endl;
    return r.all_right ? 0 : 1;
  } catch (const std::exception& e) {
    std::cout << "FAILED: exception: " << e.what() << std::endl;
    return 3;
  }
}
