#pragma once
// The automatic method's cost model: each method's seconds per call, read from a table measured
// on a grid of sizes (impl/nearest/cost_tables.hpp, written by perf/cost_tables.py from a size
// sweep in perf/results/) and interpolated between its cells.
#include <algorithm>
#include <cmath>

namespace kernwerk::impl {

struct cost_table {
  const char* record;  // the sweep it was written from
  int observation_sizes;
  int log_observations[8];
  int reference_sizes;
  int log_references[5];
  int probe[2];  // the cell a machine's probe times (log2 observations, log2 references)
  // seconds per call, [k = 1, 8, 32][observations][references]
  double brute[3][8][5];
  double indexed[3][8][5];
};

inline constexpr int cost_table_log_ks[3] = {0, 3, 5};  // k = 1, 8 and 32

// Where x falls between the grid's points: the lower point's position and the weight of the
// upper one. Below the grid the first point stands (a small call costs what the launches cost);
// above it the last segment's line goes on (cost grows with the size).
struct grid_position {
  int lower;
  double weight;
};
inline grid_position locate(const int* points, int count, double x) {
  if (count == 1 || x <= points[0]) return {0, 0.0};
  int i = 0;
  while (i + 2 < count && x > points[i + 1]) ++i;
  return {i, (x - points[i]) / double(points[i + 1] - points[i])};
}

// log2 of a method's predicted seconds: bilinear in log2 observations and log2 references,
// then linear between the tabled k in log2 k (every value's log2).
inline double log_seconds(const cost_table& table, const double (&cells)[3][8][5],
                          double observations, double references, int k) {
  const grid_position n =
      locate(table.log_observations, table.observation_sizes, std::log2(std::max(1.0, observations)));
  const grid_position m =
      locate(table.log_references, table.reference_sizes, std::log2(std::max(1.0, references)));
  const auto at = [&](int kk) {
    const auto cell = [&](int i, int j) { return std::log2(cells[kk][i][j]); };
    const int n1 = std::min(n.lower + 1, table.observation_sizes - 1);
    const int m1 = std::min(m.lower + 1, table.reference_sizes - 1);
    const double low = cell(n.lower, m.lower) + m.weight * (cell(n.lower, m1) - cell(n.lower, m.lower));
    const double high = cell(n1, m.lower) + m.weight * (cell(n1, m1) - cell(n1, m.lower));
    return low + n.weight * (high - low);
  };
  const grid_position kp = locate(cost_table_log_ks, 3, std::log2(double(std::clamp(k, 1, 32))));
  const double low = at(kp.lower), high = at(std::min(kp.lower + 1, 2));
  return low + kp.weight * (high - low);
}

// How many times the brute force's time the index's is predicted to take on this call.
inline double index_over_brute(const cost_table& table, double observations, double references,
                               int k) {
  return std::exp2(log_seconds(table, table.indexed, observations, references, k) -
                   log_seconds(table, table.brute, observations, references, k));
}

}  // namespace kernwerk::impl
