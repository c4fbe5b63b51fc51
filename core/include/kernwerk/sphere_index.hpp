#pragma once
/// \file
/// kernwerk::sphere_index: kernwerk::spatial_index over (latitude, longitude) points, under its
/// first name. Deprecated: use kernwerk::spatial_index.
#include "kernwerk/spatial_index.hpp"

namespace kernwerk {

/// Options of kernwerk::sphere_index (deprecated: kernwerk::spatial_index takes index_options).
struct sphere_index_options {
  angle_unit units = angle_unit::radians;  ///< of references and of every query's observations
  double radius = 1.0;                     ///< distances are radians times this
};

/// kernwerk::spatial_index with the haversine metric, which names its points "references" and
/// its queries "observations" and refuses an empty set, as sphere_index always did.
/// Deprecated: use kernwerk::spatial_index.
template <class ExecutionSpace>
class sphere_index : public spatial_index<ExecutionSpace> {
 public:
  /// Builds the index over `references`, a rank-2 View of (latitude, longitude) rows.
  /// \throws kernwerk::invalid_argument as kernwerk::spatial_index does, and for an empty set.
  template <class References>
  sphere_index(const ExecutionSpace& space, const References& references,
               const sphere_index_options& options = {})
      : spatial_index<ExecutionSpace>(space, references,
                              index_options{metric_kind::haversine, options.units, options.radius},
                              "sphere_index", "references", false),
        options_(options) {
    this->queries_name_ = "observations";
    this->points_name_ = "references";
  }

  /// The options it was built with.
  const sphere_index_options& options() const { return options_; }

 private:
  sphere_index_options options_;
};

}  // namespace kernwerk
