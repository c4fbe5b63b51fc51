#pragma once
/// \file
/// The metrics of Kernwerk's searches, and the options of kernwerk::spatial_index: where points live
/// and how the distance between them is measured.

#include <cstddef>

namespace kernwerk {

/// The distance between points.
enum class metric_kind {
  haversine,  ///< along the sphere between (latitude, longitude) points
  euclidean,  ///< straight-line between (x, y) or (x, y, z) points
};
/// The unit of haversine coordinates.
enum class angle_unit { radians, degrees };

/// Options of kernwerk::spatial_index, kernwerk::within, kernwerk::count_within (as within_options)
/// and kernwerk::dbscan; the defaults measure haversine distances in radians.
struct index_options {
  metric_kind metric = metric_kind::haversine;  ///< the distance
  angle_unit units = angle_unit::radians;       ///< of haversine coordinates
  double radius = 1.0;  ///< of the sphere: haversine distances are radians times this
};

/// The order of each row of a radius search's answer (kernwerk::within, kernwerk::spatial_index::within).
enum class row_order {
  /// by distance, equal distances by index
  nearest_first,
  /// the same neighbours in no particular order: no sort, and where the distances are not
  /// asked for, none computed for the points that lie clearly within the radius
  any,
};

/// Options of a query of kernwerk::spatial_index.
struct query_options {
  /// Bytes of the execution space's memory a k-nearest query may use (0: its free memory on
  /// a GPU, no limit on the host); queries beyond it run in chunks, with the same answers.
  std::size_t memory_budget = 0;
};

}  // namespace kernwerk
