// kernwerk::mpi::distributed_index against the single-process kernwerk::nearest on the
// concatenated points, bit for bit, under mpiexec with 1 to 4 ranks (the runner is
// mpi_main.cpp): clustered and adversarial layouts, uneven and empty shares, k up to
// every point, Euclidean points, one index queried twice, and bad input on one rank.
#include <doctest/doctest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernwerk/mpi/distributed_index.hpp"
#include "mpi_support.hpp"

namespace {

using namespace kernwerk;
using namespace kernwerk::test::mpi_support;

template <class Space>
void compare_index(const rows& queries, const rows& points, const std::vector<double>& query_weights,
                   const std::vector<double>& point_weights, const std::vector<std::size_t>& ks,
                   const index_options& metric, mpi::index_layout layout);

// This rank's queries against the index of every rank's points in each layout, and the
// single-process answer over the concatenated points for the same queries.
template <class Space>
void compare_index(const rows& queries, const rows& points, const std::vector<double>& query_weights,
                   const std::vector<double>& point_weights, const std::vector<std::size_t>& ks,
                   const index_options& metric = {}) {
  for (const auto layout : {mpi::index_layout::partitioned, mpi::index_layout::replicated})
    compare_index<Space>(queries, points, query_weights, point_weights, ks, metric, layout);
}

template <class Space>
void compare_index(const rows& queries, const rows& points, const std::vector<double>& query_weights,
                   const std::vector<double>& point_weights, const std::vector<std::size_t>& ks,
                   const index_options& metric, mpi::index_layout layout) {
  using memory_space = typename Space::memory_space;
  const std::string layout_name = mpi::to_string(layout);
  CAPTURE(layout_name);
  const int rank = rank_here();
  const auto [q0, q1] = share(queries.count(), query_weights, rank);
  const auto [p0, p1] = share(points.count(), point_weights, rank);
  const auto mine = on_space<Space>(queries.slice(q0, q1));
  mpi::distributed_index_options options{metric, layout};
  const mpi::distributed_index<Space> index(Space(), MPI_COMM_WORLD, on_space<Space>(points.slice(p0, p1)), options);
  CHECK(index.size() == points.count());
  CHECK(index.layout() == layout);
  std::int64_t held = std::int64_t(index.local_size()), all_held = 0;
  MPI_Allreduce(&held, &all_held, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  CHECK(all_held == std::int64_t(points.count()) * (layout == mpi::index_layout::replicated ? ranks_here() : 1));
  nearest_options single;
  single.metric = metric.metric;
  single.units = metric.units;
  single.radius = metric.radius;
  for (const std::size_t k : ks) {  // one index, queried for each k
    CAPTURE(k);
    Kokkos::View<std::int64_t**, memory_space> indices("indices", q1 - q0, k), want_indices("want", q1 - q0, k);
    Kokkos::View<double**, memory_space> distances("distances", q1 - q0, k), want_distances("want", q1 - q0, k);
    Kokkos::deep_copy(indices, -1);
    mpi::distributed_report report;
    index.nearest(Space(), mine, indices, distances, &report);
    if (q1 > q0) kernwerk::nearest(Space(), mine, on_space<Space>(points), want_indices, want_distances, single);
    const answers got = fetch<Space>(indices, distances), want = fetch<Space>(want_indices, want_distances);
    CHECK(got.indices == want.indices);
    CHECK(got.distances == want.distances);
    // Every query is searched once in the first pass, somewhere.
    std::int64_t counts[2] = {std::int64_t(q1 - q0), report.searched[0]}, sums[2] = {0, 0};
    MPI_Allreduce(counts, sums, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sums[0] == sums[1]);
  }
}

TEST_CASE_TEMPLATE_DEFINE("mpi::distributed_index: the single-process answer on every layout and share", Space,
                          index_layouts) {
  for (const std::string layout : {"uniform", "cap-1e-2", "ring", "duplicates", "polar", "tracks"}) {
    CAPTURE(layout);
    const rows queries = sphere_layout(layout, 1200, 900, true);
    const rows points = sphere_layout(layout, 1200, 900, false);
    compare_index<Space>(queries, points, even(), even(), {1, 8, 40});
    compare_index<Space>(queries, points, uneven(), gaps(), {1, 8});
    compare_index<Space>(queries, points, gaps(), last_only(), {3});
  }
}
TEST_CASE_TEMPLATE_APPLY(index_layouts, kernwerk::test::enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("mpi::distributed_index: poles, the date line, duplicates, k of every point", Space,
                          index_adversarial) {
  const rows points = adversarial(3);  // each point 3 times, on different ranks
  const rows queries = adversarial(1);
  compare_index<Space>(queries, points, even(), even(), {1, 8, points.count()});
  compare_index<Space>(queries, points, last_only(), uneven(), {5});
  index_options degrees;
  degrees.units = angle_unit::degrees;
  degrees.radius = 6371.0;
  rows in_degrees = points;
  for (auto& v : in_degrees.values) v *= 180.0 / M_PI;
  compare_index<Space>(in_degrees, in_degrees, uneven(), even(), {8}, degrees);
  // One point in all.
  const rows one{{0.5, -2.0}, 2};
  compare_index<Space>(queries, one, even(), last_only(), {1});
}
TEST_CASE_TEMPLATE_APPLY(index_adversarial, kernwerk::test::enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("mpi::distributed_index: euclidean points in 2-D and 3-D", Space, index_euclidean) {
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::normal_distribution<double> spread(0.0, 1e-3);
  index_options euclidean;
  euclidean.metric = metric_kind::euclidean;
  for (const std::size_t dimension : {std::size_t(2), std::size_t(3)}) {
    CAPTURE(dimension);
    rows queries{{}, dimension}, points{{}, dimension};
    for (int i = 0; i < 900 * int(dimension); ++i) queries.values.push_back(uniform(random));
    // Tight clusters, and exact duplicates of some points.
    for (int c = 0; c < 30; ++c) {
      std::vector<double> centre;
      for (std::size_t d = 0; d < dimension; ++d) centre.push_back(uniform(random) * 1e3);
      for (int j = 0; j < 25; ++j)
        for (std::size_t d = 0; d < dimension; ++d) points.values.push_back(centre[d] + (j % 5 == 0 ? 0.0 : spread(random)));
    }
    compare_index<Space>(queries, points, uneven(), even(), {1, 16}, euclidean);
    compare_index<Space>(points, points, even(), gaps(), {4}, euclidean);
    // Uniform points: most neighbourhoods of queries near a share's edge cross it.
    rows uniform_points{{}, dimension};
    for (int i = 0; i < 800 * int(dimension); ++i) uniform_points.values.push_back(uniform(random));
    compare_index<Space>(queries, uniform_points, even(), uneven(), {1, 16}, euclidean);
  }
}
TEST_CASE_TEMPLATE_APPLY(index_euclidean, kernwerk::test::enabled_spaces);

// A bad point or query on the last rank only: every rank throws the same error naming it.
TEST_CASE_TEMPLATE_DEFINE("mpi::distributed_index: bad input on one rank fails on every rank", Space,
                          index_bad_input) {
  using memory_space = typename Space::memory_space;
  const int rank = rank_here(), last = ranks_here() - 1;
  const auto expect = [&](auto&& call, const std::string& argument, const std::string& text) {
    std::string what, named;
    try {
      call();
    } catch (const invalid_argument& failure) {
      named = failure.argument();
      what = failure.what();
    }
    CAPTURE(what);
    CHECK(named == argument);
    CHECK(what.find(text) != std::string::npos);
    const int length = int(what.size());
    int longest = 0, shortest = 0;
    MPI_Allreduce(&length, &longest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&length, &shortest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    CHECK(longest == shortest);
  };
  rows points = sphere_layout("uniform", 40, 30, false);
  rows bad = points;
  if (rank == last) bad.values[2 * 7] = 2.0;  // a latitude past the pole
  expect([&] { mpi::distributed_index<Space>(Space(), MPI_COMM_WORLD, on_space<Space>(bad)); }, "points",
         "kernwerk::mpi::distributed_index: points: rank " + std::to_string(last) + ": point 7");
  const mpi::distributed_index<Space> index(Space(), MPI_COMM_WORLD, on_space<Space>(points));
  rows queries = sphere_layout("uniform", 40, 30, true);
  if (rank == last) queries.values[2 * 3 + 1] = std::numeric_limits<double>::infinity();
  Kokkos::View<std::int64_t**, memory_space> indices("indices", 40, 2);
  Kokkos::View<double**, memory_space> distances("distances", 40, 2);
  Kokkos::deep_copy(indices, -3);
  expect([&] { index.nearest(Space(), on_space<Space>(queries), indices, distances); }, "queries",
         "kernwerk::mpi::distributed_index::nearest: queries: rank " + std::to_string(last) + ": point 3");
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), indices);
  for (std::size_t i = 0; i < host.extent(0); ++i) CHECK(host(i, 0) == -3);
  // More neighbours than points on all ranks.
  const std::size_t too_many = index.size() + 1;
  Kokkos::View<std::int64_t**, memory_space> wide("wide", 40, too_many);
  Kokkos::View<double**, memory_space> wide_distances("wide", 40, too_many);
  expect([&] { index.nearest(Space(), on_space<Space>(points), wide, wide_distances); }, "indices",
         "neighbours, but points hold " + std::to_string(index.size()));
  // The automatic layout: replicated where the points fit half the budget, else partitioned.
  CHECK(index.layout() == mpi::index_layout::replicated);
  mpi::distributed_index_options small;
  small.memory_budget = 1024;
  CHECK(mpi::distributed_index<Space>(Space(), MPI_COMM_WORLD, on_space<Space>(points), small).layout() ==
        mpi::index_layout::partitioned);
  // The metric differs between ranks.
  mpi::distributed_index_options options;
  if (rank == last && ranks_here() > 1) options.metric = metric_kind::euclidean;
  if (ranks_here() > 1)
    expect([&] { mpi::distributed_index<Space>(Space(), MPI_COMM_WORLD, on_space<Space>(points), options); },
           "options.metric", "differs between ranks");
  options = {};
  if (rank == last && ranks_here() > 1) options.layout = mpi::index_layout::partitioned;
  if (ranks_here() > 1)
    expect([&] { mpi::distributed_index<Space>(Space(), MPI_COMM_WORLD, on_space<Space>(points), options); },
           "options.layout", "differs between ranks");
}
TEST_CASE_TEMPLATE_APPLY(index_bad_input, kernwerk::test::enabled_spaces);

}  // namespace
