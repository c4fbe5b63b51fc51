#pragma once
/// \file
/// Exact nearest-neighbour search: for each observation point, the indices of the k nearest
/// reference points (any k up to their count, nearest first) and the distances to them.
#include "kernwerk/nearest_options.hpp"
#include "kernwerk/impl/nearest/dispatch.hpp"

namespace kernwerk {

/// The k nearest references of every observation: fills indices(i[, q]) and distances(i[, q])
/// for every observation i, nearest first.
///
/// Points are rank-2 Views, one point per row, any layout and memory space:
/// - haversine: (latitude, longitude), radians or degrees; distances along the sphere, in
///   radians times options.radius;
/// - euclidean: (x, y) or (x, y, z); plain Euclidean distances.
///
/// Outputs are rank-1 Views (k = 1) or rank-2 Views (n, k) of an integer type (indices) and of
/// float or double (distances). The neighbours returned are true nearest ones when distances
/// are evaluated in float64; among reference points at the same float64 distance the smallest
/// index wins. Every method and implementation returns the same. Above k = 32 each search
/// keeps its list in memory the call lends it (20 bytes a neighbour, at most 256 MiB at once)
/// instead of in registers: a slower path, exact all the same, which the tuned brute forces do
/// not take.
///
/// Views that the execution space cannot access are copied into its memory space for the call
/// (and results copied back), in chunks when they exceed options.memory_budget, and as a
/// pipeline beside the computation for large observation sets: pass Views in
/// ExecutionSpace::memory_space to avoid the copies.
///
/// \throws kernwerk::invalid_argument naming the argument, before any output is written, when
/// an input is unusable: empty sets, mismatched dimensions, k below 1 or above the
/// reference count, outputs shorter than the observations or overlapping an input or each
/// other, NaN or infinite coordinates, latitudes outside [-90, 90] degrees or longitudes outside
/// [-720, 720] (two turns either way; the same in radians), a radius that is not
/// positive and finite, a memory budget too small for any chunk.
/// Where an allocation fails (a shared device, memory taken meanwhile), the call runs again in
/// chunks within a quarter of the memory, and so on down to the smallest chunks: the answer is
/// the same.
/// \throws kernwerk::out_of_memory where even the smallest chunks cannot be allocated; outputs
/// an attempt had written into then hold index -1 and distance NaN throughout (the message says
/// whether they are untouched or so filled), never part of an answer.
/// \throws kernwerk::unsupported for implementation_kind::tuned where the build has no tuned
/// specialisation for ExecutionSpace or it does not cover the metric and k, and for the indexed
/// method with implementation_kind::tuned.
template <class ExecutionSpace, class Observations, class References, class Indices,
          class Distances>
void nearest(const ExecutionSpace& space, const Observations& observations,
             const References& references, const Indices& indices, const Distances& distances,
             const nearest_options& options = {}) {
  static_assert(Kokkos::is_execution_space<ExecutionSpace>::value,
                "kernwerk::nearest: the first argument must be a Kokkos execution space");
  impl::require_point_view<Observations>();
  impl::require_point_view<References>();
  impl::require_output_views<Indices, Distances>();
  // As strided Views: one compiled call per value type and memory space, whatever the layouts.
  impl::nearest_dispatch(space, impl::as_call_points(observations),
                         impl::as_call_points(references), impl::as_call_matrix(indices),
                         impl::as_call_matrix(distances), options);
}

}  // namespace kernwerk

// The instances compiled into the library, declared extern here.
#include "kernwerk/impl/nearest/instances.hpp"
