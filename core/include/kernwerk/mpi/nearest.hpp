#pragma once
/// \file
/// Exact nearest neighbours over MPI ranks: kernwerk::mpi::nearest.
///
/// Two strategies:
/// - replicate: the references are gathered on every rank (MPI_Allgatherv), which then
///   searches them with kernwerk::nearest (one index, no traffic after the gather);
/// - ring: the references stay sharded. The shards pass around a ring of ranks; each rank
///   searches its observations in the shard it holds while the next one arrives, keeping its
///   running k best by (key, global index) as kernwerk::nearest's reference chunks do.
///
/// The cost model: both move (p - 1) / p of the references into each rank, but replicate
/// searches them in one pass where ring makes p passes (p index builds, p merges), so replicate
/// runs wherever its copy of the references and their index fit in half the memory budget
/// (options.memory_budget, else the execution space's default), and ring where they do not: its
/// shards need 2 / p of that.
///
/// The references travel as packed rows of float32 where they are float32 (and are searched so,
/// as a single process searches them), else of float64.
/// Messages go straight from the execution space's memory where MPI can reach it (host memory,
/// or GPU memory with a CUDA- or ROCm-aware MPI: options.messages), else through page-locked
/// host buffers; the ring overlaps each transfer with the search of the shard before it.
/// options.timings, when set, receives where the call's time went on this rank.
///
/// Every rank's arguments are checked before anything is written: where one rank's are bad,
/// every rank throws the same kernwerk::invalid_argument (or unsupported), naming the argument
/// and the rank, e.g. "kernwerk::mpi::nearest: observations: rank 2: point 5 (...) has a
/// non-finite coordinate ...".
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernwerk/impl/nearest/mpi.hpp"
#include "kernwerk/mpi/nearest_options.hpp"

namespace kernwerk::mpi {

/// For this rank's observations, the k nearest of all ranks' references, as global indices
/// (the references of lower ranks first) and distances: exactly kernwerk::nearest on the
/// concatenated sets, ties to the smallest index. Every rank holds its own observations and its
/// own references (any counts, zero allowed); outputs as kernwerk::nearest's.
///
/// Collective over `comm`: every rank calls it, with the same options, k and point dimension.
/// Returns the strategy that ran.
///
/// \throws kernwerk::invalid_argument (or kernwerk::unsupported) on every rank alike, before
/// anything is written, where one rank's arguments are bad, naming the argument and the rank
/// as the file's description shows; as kernwerk::nearest for the rest.
template <class ExecutionSpace, class Observations, class References, class Indices, class Distances>
strategy_kind nearest(const ExecutionSpace& space, MPI_Comm comm, const Observations& observations,
                      const References& references, const Indices& indices,
                      const Distances& distances, const nearest_options& options = {}) {
  using namespace kernwerk::impl;
  require_point_view<Observations>();
  require_point_view<References>();
  require_output_views<Indices, Distances>();
  scoped_region region("kernwerk::mpi::nearest");
  const auto start = std::chrono::steady_clock::now();
  const auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  if (options.timings) *options.timings = {};
  const char* fn = detail::fn;
  const std::size_t n = observations.extent(0);
  const std::size_t k = Indices::rank == 2 ? indices.extent(1) : 1;
  // Collective and the same on every rank: these throw everywhere or nowhere.
  detail::check_same_everywhere(comm, k, observations.extent(1), options);
  const detail::shards s = detail::gather_counts(comm, std::int64_t(references.extent(0)));
  if (s.total == 0) throw invalid_argument(fn, "references", "empty on every rank");
  detail::agree(comm, fn, [&] {
    check_nearest_shapes(fn, observations, references, indices, distances, options,
                         std::size_t(s.total), true);
    plan_nearest<ExecutionSpace>(options, std::max<std::size_t>(n, 1), std::size_t(s.total), k);
    if (n > 0) check_point_values(space, fn, "observations", observations, options.metric, options.units);
    if (references.extent(0) > 0)
      check_point_values(space, fn, "references", references, options.metric, options.units);
  });
  if (options.timings) options.timings->checks = seconds();
  const strategy_kind strategy = detail::choose_strategy<ExecutionSpace>(options, s);
  if (strategy == strategy_kind::replicate) {
    detail::replicate(space, comm, observations, references, indices, distances, options, s);
  } else {
    detail::ring(space, comm, observations, references, indices, distances, options, s, k);
  }
  if (options.timings) {
    space.fence();
    options.timings->total = seconds();
  }
  return strategy;
}

}  // namespace kernwerk::mpi
