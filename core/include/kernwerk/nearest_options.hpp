#pragma once
// Options of kernwerk::nearest, and their names on the command line and in the C API.
#include <cstddef>
#include <string>

#include "kernwerk/implementation.hpp"

namespace kernwerk {

enum class metric_kind { haversine, euclidean };
// brute: every pair, a guaranteed cost; indexed: a spatial index over the references built
// per call (haversine), the same answer; automatic: indexed where it pays, judged from the
// sizes and, for large sets, from both methods timed on a sample of the observations.
enum class method_kind { automatic, brute, indexed };
enum class angle_unit { radians, degrees };

// What a call ran, and why (the command line's summary says it).
struct nearest_report {
  method_kind method = method_kind::brute;
  std::string reason;
};

struct nearest_options {
  metric_kind metric = metric_kind::haversine;
  angle_unit units = angle_unit::radians;  // of haversine coordinates
  double radius = 1.0;                     // haversine distances are radians times this
  method_kind method = method_kind::automatic;
  // Bytes of the execution space's memory a call may use for copies of inputs it cannot reach
  // and for its scratch, roughly; larger sets are cut into chunks (same answer, bit for bit).
  // 0: no limit where the inputs are in reach, else most of the device's free memory.
  std::size_t memory_budget = 0;
  implementation_kind implementation = implementation_kind::automatic;  // of the brute force
  nearest_report* report = nullptr;  // filled by the call where given
};

// "haversine" or "euclidean"; anything else is a kernwerk::invalid_argument naming `argument`.
metric_kind parse_metric(const std::string& text, const std::string& argument);
const char* to_string(metric_kind kind);
// "auto", "brute" or "indexed".
method_kind parse_method(const std::string& text, const std::string& argument);
const char* to_string(method_kind kind);

}  // namespace kernwerk
