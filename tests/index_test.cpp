// kernwerk::spatial_index, built once and queried many times: k nearest against the float64 brute
// force of kernwerk/reference.hpp and, bit for bit, against the one-shot kernwerk::nearest, on
// both metrics and on the sets that break searches (poles, the date line, antipodes,
// duplicates, a single point, an empty index); its bad input named. Its radius queries are
// checked beside the one-shot ones in within_test.cpp.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "execution_spaces.hpp"
#include "kernwerk/spatial_index.hpp"
#include "layouts.hpp"
#include "nearest_support.hpp"

namespace {

using namespace kernwerk::test;
using kernwerk::angle_unit;
using kernwerk::index_options;
using kernwerk::invalid_argument;
using kernwerk::metric_kind;
using kernwerk::nearest_options;

nearest_options as_nearest(const index_options& options) {
  nearest_options converted;
  converted.metric = options.metric;
  converted.units = options.units;
  converted.radius = options.radius;
  converted.method = kernwerk::method_kind::brute;
  return converted;
}

// The index's k nearest on Space (queries and outputs in its memory, outputs poisoned first).
template <class Space>
neighbours query(const kernwerk::spatial_index<Space>& index, const host_points& queries, std::size_t k) {
  using memory_space = typename Space::memory_space;
  const auto q = to_device<Space>(queries);
  const std::size_t n = queries.count();
  Kokkos::View<std::int64_t*, memory_space> indices("indices", n * k);
  Kokkos::View<double*, memory_space> distances("distances", n * k);
  Kokkos::deep_copy(indices, -1);
  Kokkos::deep_copy(distances, -1.0);
  using index_matrix = Kokkos::View<std::int64_t**, Kokkos::LayoutRight, memory_space, Kokkos::MemoryUnmanaged>;
  using distance_matrix = Kokkos::View<double**, Kokkos::LayoutRight, memory_space, Kokkos::MemoryUnmanaged>;
  if (k == 1)
    index.nearest(Space(), q, indices, distances);
  else
    index.nearest(Space(), q, index_matrix(indices.data(), n, k), distance_matrix(distances.data(), n, k));
  return {to_host_vector<std::int64_t, Space>(indices), to_host_vector<double, Space>(distances), k};
}

// Every k: the brute force's answer, and the one-shot indexed call's bit for bit.
template <class Space>
void check_index(const host_points& queries, const host_points& points, const index_options& options,
                 std::vector<std::size_t> ks = {1, 4, 32}) {
  const kernwerk::spatial_index<Space> index(Space(), to_device<Space>(points), options);
  REQUIRE(index.size() == points.count());
  CHECK(index.dimension() == int(points.dimension));
  auto one_shot = as_nearest(options);
  one_shot.method = kernwerk::method_kind::indexed;
  for (const std::size_t k : ks) {
    if (k > points.count()) continue;
    CAPTURE(k);
    const auto got = query<Space>(index, queries, k);
    check_all(queries, points, got, as_nearest(options));
    const auto once = run_nearest<Space>(queries, points, one_shot, k);
    CHECK(once.indices == got.indices);
    CHECK(once.distances == got.distances);
  }
}

TEST_CASE_TEMPLATE_DEFINE("index: k nearest on the sphere, the layouts users bring", Space, sphere_layouts) {
  for (const auto& name : kernwerk::layouts::names()) {
    CAPTURE(name);
    const auto sets = kernwerk::layouts::make(name, 500, 2000, 31);
    check_index<Space>(as_points(sets.observations), as_points(sets.references), {});
  }
}
TEST_CASE_TEMPLATE_APPLY(sphere_layouts, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("index: poles, the date line, antipodes and duplicates", Space, sphere_adversarial) {
  host_points points = uniform_sphere(400, 41);
  for (std::size_t j = 0; j < 30; ++j) points.add_copy(points, j);  // duplicates: ties by index
  points.add(M_PI / 2, 0.0);                                         // both poles, many longitudes
  points.add(M_PI / 2, 2.0);
  points.add(-M_PI / 2, -1.0);
  points.add(0.1, M_PI);                                             // either side of the date line
  points.add(0.1, -M_PI);
  points.add(0.1, M_PI - 1e-12);
  host_points queries = uniform_sphere(300, 42);
  for (std::size_t j = 0; j < 30; ++j) queries.add_copy(points, j);
  queries.add(M_PI / 2, -3.0);
  queries.add(-M_PI / 2, 0.5);
  queries.add(0.1, -M_PI + 1e-13);
  queries.add(-0.1, 0.0);  // antipode of the date-line points
  queries.add(-0.2, M_PI - 0.3);
  check_index<Space>(queries, points, {}, {1, 4, 32, 33, 150, points.count()});
  // Degrees and an Earth radius.
  index_options earth;
  earth.units = angle_unit::degrees;
  earth.radius = 6371.0088;
  check_index<Space>(uniform_sphere(200, 43, true), uniform_sphere(900, 44, true), earth);
}
TEST_CASE_TEMPLATE_APPLY(sphere_adversarial, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("index: k nearest in 2-D and 3-D, duplicates and a lattice", Space, euclidean_sets) {
  index_options options;
  options.metric = metric_kind::euclidean;
  for (const std::size_t dimension : {2u, 3u}) {
    CAPTURE(dimension);
    auto points = uniform_box(1500, dimension, 50 + dimension);
    for (std::size_t v = 0; v < 40 * dimension; ++v) points.values.push_back(points.values[v]);
    check_index<Space>(uniform_box(600, dimension, 60 + dimension), points, options);
    // A lattice queried at its own points and between them: exact ties everywhere.
    host_points lattice;
    lattice.dimension = dimension;
    for (int x = 0; x < 12; ++x)
      for (int y = 0; y < 12; ++y)
        for (int z = 0; z < (dimension == 3 ? 5 : 1); ++z) {
          lattice.values.insert(lattice.values.end(), {double(x), double(y)});
          if (dimension == 3) lattice.values.push_back(double(z));
        }
    host_points between = lattice;
    for (double& value : between.values) value += 0.5;
    check_index<Space>(lattice, lattice, options, {1, 5, 9, 45, lattice.count()});
    check_index<Space>(between, lattice, options, {1, 4, 8, 32, 64});
    // Large coordinates far from the origin (the boxes hold the values the distances use).
    host_points far = uniform_box(500, dimension, 70 + dimension);
    for (double& value : far.values) value = 1e9 + value * 1e-3;
    check_index<Space>(far, far, options, {1, 3});
  }
}
TEST_CASE_TEMPLATE_APPLY(euclidean_sets, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("index: a single point, and queried many times", Space, reuse) {
  host_points one;
  one.add(0.3, -2.0);
  check_index<Space>(uniform_sphere(50, 81), one, {}, {1});
  // One index, many query sets: the caller's points may go after the build.
  const auto points = uniform_sphere(3000, 82);
  auto device_points = to_device<Space>(points);
  const kernwerk::spatial_index<Space> index(Space(), device_points, {});
  Kokkos::deep_copy(device_points, 0.0);
  for (int step = 0; step < 5; ++step) {
    CAPTURE(step);
    const auto queries = uniform_sphere(100 + 50 * step, 83 + step);
    check_all(queries, points, query<Space>(index, queries, 3), as_nearest({}));
  }
  CHECK(index.bytes() > 0);
}
TEST_CASE_TEMPLATE_APPLY(reuse, enabled_spaces);

// An index built in the memory of the last one destroyed answers as one in its own memory; an
// index a copy still holds keeps its memory.
TEST_CASE_TEMPLATE_DEFINE("index: rebuilt in the memory of the last one, copies kept apart", Space,
                          recycled) {
  using recycled = kernwerk::impl::recycled_buffer<typename Space::memory_space>;
  auto& recycle = kernwerk::impl::recycle_policy::recycle;
  const auto queries = uniform_sphere(400, 91);
  const auto large = uniform_sphere(3000, 92), small = uniform_sphere(1500, 93);
  recycled::release();
  std::size_t large_bytes = 0, small_bytes = 0;
  {
    recycle = false;
    { const kernwerk::spatial_index<Space> first(Space(), to_device<Space>(large), {}); }
    const kernwerk::spatial_index<Space> second(Space(), to_device<Space>(small), {});
    small_bytes = second.bytes();
    recycle = true;
  }
  {
    const kernwerk::spatial_index<Space> first(Space(), to_device<Space>(large), {});
    large_bytes = first.bytes();
  }
  CHECK(large_bytes > small_bytes);
  const kernwerk::spatial_index<Space> second(Space(), to_device<Space>(small), {});
  CHECK(second.bytes() == large_bytes);
  check_all(queries, small, query<Space>(second, queries, 4), as_nearest({}));
  { const auto copy = second; }  // second still holds the memory
  const kernwerk::spatial_index<Space> third(Space(), to_device<Space>(large), {});
  CHECK(third.bytes() == large_bytes);
  check_all(queries, small, query<Space>(second, queries, 4), as_nearest({}));
  check_all(queries, large, query<Space>(third, queries, 4), as_nearest({}));
}
TEST_CASE_TEMPLATE_APPLY(recycled, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("index: host queries in one piece, in chunks and in the pipeline", Space,
                          staged_queries) {
  // Host queries with any space go through the staged engine as kernwerk::nearest's do: in one
  // piece, in chunks within a budget, and on a GPU large sets through the pipeline; LayoutLeft
  // float queries and int32 outputs converted on the way. Each answer is the one of queries in
  // the space's own memory, bit for bit, and that one the brute force's (small sets).
  const auto points = as_points(kernwerk::layouts::make("half-cap", 1, 3000, 91).references);
  const std::size_t k = 3;
  const kernwerk::spatial_index<Space> index(Space(), to_device<Space>(points));
  for (const std::size_t n : {std::size_t(2500), kernwerk::impl::pipeline_min_rows + 321}) {
    CAPTURE(n);
    auto queries = uniform_sphere(n - 200, 92);
    for (std::size_t j = 0; j < 200; ++j) queries.add_copy(points, j * 7);  // exact ties
    // (as float: the queries below are float, so that both calls see the same points)
    for (double& value : queries.values) value = double(float(value));
    const auto expected = query<Space>(index, queries, k);
    if (n < 10000) check_all(queries, points, expected, as_nearest({}));
    Kokkos::View<float**, Kokkos::LayoutLeft, Kokkos::HostSpace> q("queries", n, 2);
    for (std::size_t i = 0; i < n; ++i)
      for (int d = 0; d < 2; ++d) q(i, d) = float(queries.values[2 * i + d]);
    for (const std::size_t budget : {std::size_t(0), std::size_t(256) << 10}) {
      CAPTURE(budget);
      Kokkos::View<std::int32_t**, Kokkos::LayoutLeft, Kokkos::HostSpace> indices("indices", n + 5, k);
      Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace> distances("distances", n + 5, k);
      Kokkos::deep_copy(indices, 7);
      kernwerk::query_options options;
      options.memory_budget = budget;
      index.nearest(Space(), q, indices, distances, options);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < k; ++c)
          wrong += indices(i, c) != expected.indices[i * k + c] ||
                   distances(i, c) != expected.distances[i * k + c];
      CHECK(wrong == 0);
      CHECK(indices(n + 4, 0) == 7);  // rows past the queries' untouched
    }
  }
  // A budget too small for one query's chunk is named, the outputs untouched.
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> indices("indices", 4);
  Kokkos::View<double*, Kokkos::HostSpace> distances("distances", 4);
  Kokkos::deep_copy(indices, 7);
  kernwerk::query_options tiny;
  tiny.memory_budget = 64;
  check_rejects("options.memory_budget", [&] {
    index.nearest(Space(), Kokkos::View<double**, Kokkos::HostSpace>("q", 4, 2), indices, distances, tiny);
  });
  CHECK(indices(3) == 7);
}
TEST_CASE_TEMPLATE_APPLY(staged_queries, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("index: bad input names the argument, outputs untouched", Space, errors) {
  using memory_space = typename Space::memory_space;
  using points_view = Kokkos::View<double**, Kokkos::LayoutRight, memory_space>;
  index_options euclidean;
  euclidean.metric = metric_kind::euclidean;
  check_rejects("points", [] { kernwerk::spatial_index<Space>(Space(), points_view("three", 4, 3)); });
  check_rejects("points", [&] { kernwerk::spatial_index<Space>(Space(), points_view("four", 4, 4), euclidean); });
  points_view bad("bad", 3, 2);
  Kokkos::deep_copy(Kokkos::subview(bad, 2, 0), 2.0);  // past the pole in radians
  check_rejects("points", [&] { kernwerk::spatial_index<Space>(Space(), bad); });
  index_options degrees = euclidean;
  degrees.units = angle_unit::degrees;
  check_rejects("options.units", [&] { kernwerk::spatial_index<Space>(Space(), points_view("ok", 3, 2), degrees); });
  index_options flat;
  flat.radius = 0;
  check_rejects("options.radius", [&] { kernwerk::spatial_index<Space>(Space(), points_view("ok", 3, 2), flat); });

  const kernwerk::spatial_index<Space> index(Space(), points_view("three", 3, 3), euclidean);
  Kokkos::View<std::int64_t*, memory_space> indices("indices", 2);
  Kokkos::View<double*, memory_space> distances("distances", 2);
  Kokkos::deep_copy(indices, 7);
  check_rejects("queries", [&] { index.nearest(Space(), points_view("2-D", 2, 2), indices, distances); });
  points_view nan_queries("nan", 2, 3);
  Kokkos::deep_copy(Kokkos::subview(nan_queries, 1, 2), std::nan(""));
  check_rejects("queries", [&] { index.nearest(Space(), nan_queries, indices, distances); });
  check_rejects("indices", [&] { index.nearest(Space(), points_view("long", 3, 3), indices, distances); });
  Kokkos::View<std::int64_t**, memory_space> four("four", 2, 4);
  Kokkos::View<double**, memory_space> four_distances("four", 2, 4);
  check_rejects("indices", [&] { index.nearest(Space(), points_view("q", 2, 3), four, four_distances); });
  CHECK(to_host_vector<std::int64_t, Space>(indices) == std::vector<std::int64_t>{7, 7});
  Kokkos::View<std::int64_t*, memory_space> offsets("offsets", 3), found("found", 0), counts("counts", 2);
  Kokkos::deep_copy(offsets, 7);
  check_rejects("radius", [&] { index.within(Space(), points_view("q", 2, 3), -1.0, offsets, found); });
  check_rejects("offsets", [&] { index.within(Space(), points_view("q", 3, 3), 1.0, offsets, found); });
  check_rejects("counts", [&] { index.count_within(Space(), points_view("q", 3, 3), 1.0, counts); });
  CHECK(to_host_vector<std::int64_t, Space>(offsets) == std::vector<std::int64_t>{7, 7, 7});

  // An empty index: no neighbour to find, none within any radius.
  const kernwerk::spatial_index<Space> none(Space(), points_view("none", 0, 2));
  CHECK(none.size() == 0);
  check_rejects("indices", [&] { none.nearest(Space(), points_view("q", 2, 2), indices, distances); });
  none.count_within(Space(), points_view("q", 2, 2), 10.0, counts);
  CHECK(to_host_vector<std::int64_t, Space>(counts) == std::vector<std::int64_t>{0, 0});
  none.within(Space(), points_view("q", 2, 2), 10.0, offsets, found);
  CHECK(to_host_vector<std::int64_t, Space>(offsets) == std::vector<std::int64_t>{0, 0, 0});
  CHECK(found.extent(0) == 0);
}
TEST_CASE_TEMPLATE_APPLY(errors, enabled_spaces);

}  // namespace
