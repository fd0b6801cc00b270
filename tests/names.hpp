// Names of clscan's enumerations for test messages, shared by the Catch2 tests and the programs
// that run without Catch2 (the Oclgrind runner).
#pragma once

#include <clscan/clscan.hpp>

namespace clscan_test {

inline const char* name_of(clscan::algorithm algo) {
  switch (algo) {
  case clscan::algorithm::automatic: return "automatic";
  case clscan::algorithm::single_pass: return "single_pass";
  case clscan::algorithm::three_stage: return "three_stage";
  }
  return "?";
}

inline const char* name_of(clscan::scan_kind kind) {
  return kind == clscan::scan_kind::inclusive ? "inclusive" : "exclusive";
}

inline const char* name_of(clscan::op operation) {
  switch (operation) {
  case clscan::op::sum: return "sum";
  case clscan::op::min: return "min";
  case clscan::op::max: return "max";
  case clscan::op::bit_and: return "bit_and";
  case clscan::op::bit_or: return "bit_or";
  case clscan::op::bit_xor: return "bit_xor";
  case clscan::op::custom: return "custom";
  }
  return "?";
}

} // namespace clscan_test
