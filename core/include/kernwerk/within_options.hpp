#pragma once
/// \file
/// Options of kernwerk::within, kernwerk::count_within and kernwerk::dbscan, and their names on
/// the command line and in the C API.
#include <string>

#include "kernwerk/index_options.hpp"

namespace kernwerk {

/// Options of kernwerk::within and kernwerk::count_within: those of the index they build, and
/// the order of within's rows.
struct within_options : index_options {
  row_order order = row_order::nearest_first;  ///< of each row of kernwerk::within's answer
};

/// Which cluster a border point (within eps of a core point, not core itself) joins.
enum class border_rule {
  /// the cluster of its nearest core point, equal distances to the smallest index
  nearest_core,
  /// the cluster with the smallest number among its core neighbours' (scikit-learn's labels:
  /// its search grows one cluster fully before it starts the next)
  first_cluster,
};

/// Options of kernwerk::dbscan: the metric and units of the index it builds, and the border rule.
struct dbscan_options : index_options {
  border_rule border = border_rule::nearest_core;  ///< where border points go
};

/// "nearest-first" or "any"; anything else is a kernwerk::invalid_argument naming `argument`.
row_order parse_row_order(const std::string& text, const std::string& argument);

/// "nearest-core" or "first-cluster"; anything else is a kernwerk::invalid_argument naming
/// `argument`.
border_rule parse_border_rule(const std::string& text, const std::string& argument);
/// "nearest-core" or "first-cluster".
const char* to_string(border_rule rule);

}  // namespace kernwerk
