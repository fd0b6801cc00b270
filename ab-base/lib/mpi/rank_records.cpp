#include "rank_records.hpp"

#include <clscan/names.hpp>

namespace clscan::mpi::detail {
namespace {

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::string call_text(const rank_record& record) {
  std::string text = to_string(static_cast<scan_kind>(record.kind));
  text += " of ";
  text += to_string(static_cast<element_type>(record.type));
  text += " with op::";
  text += to_string(static_cast<op>(record.operation));
  return text;
}

} // namespace

rank_record describe_call(const clscan::detail::scan_request& request, std::size_t n_local) {
  rank_record record;
  record.n_local = n_local;
  record.kind = static_cast<std::uint8_t>(request.kind);
  record.type = static_cast<std::uint8_t>(request.type);
  record.operation = static_cast<std::uint8_t>(request.operation);
  if (request.operation == op::custom && request.custom_op) record.custom_op_hash = fnv1a(*request.custom_op);
  return record;
}

bool contributes_total(std::size_t n_local, int rank, const clscan::detail::scan_request& request) {
  return n_local > 0 || (rank == 0 && (request.has_initial || request.has_initial_buffer));
}

std::optional<int> first_failed_rank(const std::vector<rank_record>& records) {
  for (std::size_t rank = 0; rank < records.size(); ++rank)
    if (records[rank].failed) return static_cast<int>(rank);
  return std::nullopt;
}

std::string call_mismatch(const std::vector<rank_record>& records) {
  if (records.empty()) return {};
  const rank_record& first = records.front();
  for (std::size_t rank = 1; rank < records.size(); ++rank) {
    const rank_record& other = records[rank];
    if (other.kind == first.kind && other.type == first.type && other.operation == first.operation &&
        other.custom_op_hash == first.custom_op_hash)
      continue;
    std::string text = "clscan::mpi: rank " + std::to_string(rank) + " called " + call_text(other) +
                       ", rank 0 " + call_text(first);
    if (call_text(other) == call_text(first)) text += " with another options::custom_op";
    return text + "; every rank must make the same call";
  }
  return {};
}

std::vector<int> ranks_before_with_totals(const std::vector<rank_record>& records, int rank) {
  std::vector<int> ranks;
  for (int before = 0; before < rank && before < static_cast<int>(records.size()); ++before)
    if (records[static_cast<std::size_t>(before)].has_total) ranks.push_back(before);
  return ranks;
}

} // namespace clscan::mpi::detail
