#pragma once
/// \file
/// The metrics of Kernwerk's searches, and the options of kernwerk::spatial_index: where points live
/// and how the distance between them is measured.

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

}  // namespace kernwerk
