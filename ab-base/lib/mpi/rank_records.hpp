// What each rank tells the others in the one exchange of a clscan::mpi call, and what a rank decides
// from all of them. No MPI and no OpenCL here, so that the decisions can be checked without either.
#pragma once

#include <clscan/scan.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clscan::mpi::detail {

// One rank's part of the exchange, sent as bytes (MPI_Allgather of MPI_BYTE): the same size whatever the
// element type, so that ranks calling with different types still exchange, and then report it.
struct rank_record {
  std::uint64_t n_local = 0;
  // FNV-1a of options::custom_op with op::custom, else 0: ranks must combine with the same expression.
  std::uint64_t custom_op_hash = 0;
  // The rank's total (rank 0: initial op its total) in the element type's bytes, when has_total.
  unsigned char total[8] = {};
  std::uint8_t failed = 0;    // the rank's call failed before the exchange
  std::uint8_t has_total = 0; // total holds a value that ranks after this one combine
  std::uint8_t kind = 0;      // scan_kind
  std::uint8_t type = 0;      // element_type
  std::uint8_t operation = 0; // op
  std::uint8_t reserved[3] = {};
};
static_assert(sizeof(rank_record) == 32, "rank_record is exchanged as 32 bytes");

// The record of this rank's call before its total is known.
rank_record describe_call(const clscan::detail::scan_request& request, std::size_t n_local);

// Whether a rank has a total that later ranks combine: it holds elements, or it is rank 0 and the scan
// starts from an initial value.
bool contributes_total(std::size_t n_local, int rank, const clscan::detail::scan_request& request);

// The lowest rank whose call failed, if any.
std::optional<int> first_failed_rank(const std::vector<rank_record>& records);

// A message naming the first rank whose kind, element type or operator differs from rank 0's; empty
// when all agree.
std::string call_mismatch(const std::vector<rank_record>& records);

// The ranks before `rank` whose totals combine (in this order) into the value `rank`'s scan starts from.
std::vector<int> ranks_before_with_totals(const std::vector<rank_record>& records, int rank);

} // namespace clscan::mpi::detail
