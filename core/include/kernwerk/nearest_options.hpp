#pragma once
/// \file
/// Options of kernwerk::nearest, and their names on the command line and in the C API.
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernwerk/implementation.hpp"
#include "kernwerk/index_options.hpp"  // metric_kind, angle_unit

namespace kernwerk {

/// How kernwerk::nearest searches; every method returns the same answer.
enum class method_kind {
  /// the method predicted the faster for the sizes and k, from each method's measured cost on
  /// the machine the library was tuned on, scaled by this machine's own (nearest_tuning)
  automatic,
  brute,    ///< every pair: a guaranteed cost
  indexed,  ///< a spatial index over the references (kernwerk::spatial_index), built per call
};

/// What a call ran, and why (the command line's summary says it).
struct nearest_report {
  method_kind method = method_kind::brute;  ///< the method that ran
  std::string reason;                       ///< why it was chosen, in words
};

/// How kernwerk::nearest makes its internal choices. The answers never depend on them; the
/// defaults are the measured ones (docs/architecture.md, "The automatic method"). Tests and
/// benchmarks change them to reach paths that their sets would not take by default.
struct nearest_tuning {
  /// method automatic: where the cost table's prediction (impl/nearest/cost_tables.hpp) is
  /// within 4 times either way, scale it by this machine's own rates, timed once a process on
  /// a small uniform set (false: the table alone, as tests that must not time do)
  bool cost_probe = true;
  /// the indexed method searches the observations in an order that keeps neighbours together
  /// where the execution space runs at least order_min_concurrency threads and there are at
  /// least order_per_thread observations a thread (0 and 0: always), and on host spaces where
  /// the index holds at least order_min_references references
  std::int64_t order_min_concurrency = 4096;
  std::int64_t order_per_thread = 1;  ///< see order_min_concurrency
  std::int64_t order_min_references = std::int64_t(1) << 16;  ///< see order_min_concurrency
  /// on devices (order_min_concurrency threads or more), searches of at least this many
  /// neighbours sort their observations by a fine Morton code (2^10 cells an axis), at any
  /// count: such searches cost many times the sort, and the coarse cells' order leaves a warp's
  /// threads scattered over a cell (0: every search; above 32 and below fine_order_min_k: the
  /// coarse order where order_per_thread asks for it)
  int fine_order_min_k = 2;
  /// k above 32: the bytes of lists lent to searches at once (20 a neighbour); the searches run
  /// in turns within them
  std::size_t wide_list_bytes = std::size_t(1) << 28;
  /// kernwerk::within: the bytes (4 a neighbour) in which its count pass keeps up to 16 of each
  /// query's neighbours, so that the fill pass reads the rows that fit instead of searching again
  /// (on GPUs 2 bytes a query more list the longer rows, which the fill searches apart, and
  /// 256 bytes a longer row hold its distances while it is sorted)
  std::size_t within_held_bytes = std::size_t(1) << 30;
  /// kernwerk::within and kernwerk::count_within on host spaces: order_min_references for their
  /// queries (a radius search visits several leaves a query, the nearest search's grid few)
  std::int64_t radius_order_min_references = std::int64_t(1) << 12;
};

/// Options of kernwerk::nearest; the defaults search haversine distances in radians.
struct nearest_options {
  metric_kind metric = metric_kind::haversine;  ///< the distance
  angle_unit units = angle_unit::radians;       ///< of haversine coordinates
  double radius = 1.0;  ///< haversine distances are radians times this (6371.0088: km on Earth)
  method_kind method = method_kind::automatic;  ///< how to search
  /// Bytes of the execution space's memory a call may use for copies of inputs it cannot reach
  /// and for its scratch, roughly; larger sets are cut into chunks (same answer, bit for bit).
  /// 0: no limit where the inputs are in reach, else most of the device's free memory.
  std::size_t memory_budget = 0;
  /// The code path of the brute force.
  implementation_kind implementation = implementation_kind::automatic;
  nearest_report* report = nullptr;  ///< filled by the call where given
  nearest_tuning tuning;             ///< internal choices (never the answers)
};

/// "haversine" or "euclidean"; anything else is a kernwerk::invalid_argument naming `argument`.
metric_kind parse_metric(const std::string& text, const std::string& argument);
/// "haversine" or "euclidean".
const char* to_string(metric_kind kind);
/// "auto", "brute" or "indexed"; anything else is a kernwerk::invalid_argument naming
/// `argument`.
method_kind parse_method(const std::string& text, const std::string& argument);
/// "auto", "brute" or "indexed".
const char* to_string(method_kind kind);

}  // namespace kernwerk
