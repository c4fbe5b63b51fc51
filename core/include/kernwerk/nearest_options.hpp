#pragma once
// Options of kernwerk::nearest, and their names on the command line and in the C API.
#include <string>

#include "kernwerk/implementation.hpp"

namespace kernwerk {

enum class metric_kind { haversine, euclidean };
enum class angle_unit { radians, degrees };

struct nearest_options {
  metric_kind metric = metric_kind::haversine;
  angle_unit units = angle_unit::radians;  // of haversine coordinates
  double radius = 1.0;                     // haversine distances are radians times this
  implementation_kind implementation = implementation_kind::automatic;
};

// "haversine" or "euclidean"; anything else is a kernwerk::invalid_argument naming `argument`.
metric_kind parse_metric(const std::string& text, const std::string& argument);
const char* to_string(metric_kind kind);

}  // namespace kernwerk
