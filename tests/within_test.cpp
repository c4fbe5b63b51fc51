// kernwerk::within and kernwerk::count_within against the float64 brute force of
// kernwerk/reference.hpp, on every enabled execution space.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "execution_spaces.hpp"
#include "kernwerk/spatial_index.hpp"
#include "kernwerk/within.hpp"
#include "kernwerk/impl/neighbourhood/radius_search.hpp"
#include "layouts.hpp"
#include "nearest_support.hpp"

namespace {

using namespace kernwerk;
using namespace kernwerk::test;

constexpr double pi = M_PI;

// The fill's long rows left to a launch of their own (a GPU's default, off on host spaces), or
// searched where the fill meets them, while the object lives.
struct long_rows_deferred {
  explicit long_rows_deferred(bool deferred) { kernwerk::impl::held_policy::defer_long_rows = deferred; }
  ~long_rows_deferred() { kernwerk::impl::held_policy::defer_long_rows = -1; }
};

// within's count pass keeping `capacity` neighbours a query for the fill (held_policy; -1: the
// space's default, on host spaces chosen by a sample) for a scope.
struct held_capacity {
  explicit held_capacity(int capacity) { kernwerk::impl::held_policy::capacity = capacity; }
  ~held_capacity() { kernwerk::impl::held_policy::capacity = -1; }
};

// within's sorted rows longer than the fill's registers sorted by a team a row after the fill
// (row_sort_policy: a GPU's default, off on host spaces), or where the fill meets them, for a
// scope.
struct rows_sorted_by_team {
  explicit rows_sorted_by_team(bool by_team) { kernwerk::impl::row_sort_policy::by_team = by_team; }
  ~rows_sorted_by_team() { kernwerk::impl::row_sort_policy::by_team = -1; }
};

// The sphere grid's scan of radius_policy (where the reach spans few of its cells) off for a
// scope: every search then goes down the hierarchy.
struct hierarchy_only {
  hierarchy_only() { kernwerk::impl::radius_policy::grid_span = 0; }
  ~hierarchy_only() { kernwerk::impl::radius_policy::grid_span = saved; }
  int saved = kernwerk::impl::radius_policy::grid_span;
};

struct radius_result {
  std::vector<std::int64_t> offsets, indices, counts;
  std::vector<double> distances;
};

// kernwerk::within and count_within on Space with Views in its memory; outputs start poisoned.
template <class Space, class Scalar = double, class Layout = Kokkos::LayoutRight>
radius_result run_within(const host_points& queries, const host_points& points, double radius,
                         const within_options& options) {
  using memory_space = typename Space::memory_space;
  const auto q = to_device<Space, Scalar, Layout>(queries);
  const auto p = to_device<Space, Scalar, Layout>(points);
  const std::size_t n = queries.count();
  Kokkos::View<std::int64_t*, memory_space> offsets("offsets", n + 1), counts("counts", n);
  Kokkos::View<std::int64_t*, memory_space> indices("indices", 3);
  Kokkos::View<double*, memory_space> distances("distances", 5);
  Kokkos::deep_copy(offsets, -1);
  Kokkos::deep_copy(counts, -1);
  kernwerk::within(Space(), q, p, radius, offsets, indices, distances, options);
  kernwerk::count_within(Space(), q, p, radius, counts, options);
  REQUIRE(indices.extent(0) == distances.extent(0));
  const radius_result got{to_host_vector<std::int64_t, Space>(offsets), to_host_vector<std::int64_t, Space>(indices),
                          to_host_vector<std::int64_t, Space>(counts), to_host_vector<double, Space>(distances)};
  // A kept index (which holds the sphere's grid as well) answers the same, bit for bit.
  const kernwerk::spatial_index<Space> kept(Space(), p, options);
  Kokkos::deep_copy(offsets, -1);
  Kokkos::deep_copy(counts, -1);
  kept.within(Space(), q, radius, offsets, indices, distances);
  kept.count_within(Space(), q, radius, counts);
  CHECK(to_host_vector<std::int64_t, Space>(offsets) == got.offsets);
  CHECK(to_host_vector<std::int64_t, Space>(indices) == got.indices);
  CHECK(to_host_vector<double, Space>(distances) == got.distances);
  CHECK(to_host_vector<std::int64_t, Space>(counts) == got.counts);
  // One-shot within (and count_within) again under another policy: the same, bit for bit.
  const auto same_again = [&](bool with_counts) {
    Kokkos::deep_copy(offsets, -1);
    Kokkos::deep_copy(counts, -1);
    kernwerk::within(Space(), q, p, radius, offsets, indices, distances, options);
    if (with_counts) kernwerk::count_within(Space(), q, p, radius, counts, options);
    CHECK(to_host_vector<std::int64_t, Space>(offsets) == got.offsets);
    CHECK(to_host_vector<std::int64_t, Space>(indices) == got.indices);
    CHECK(to_host_vector<double, Space>(distances) == got.distances);
    if (with_counts) CHECK(to_host_vector<std::int64_t, Space>(counts) == got.counts);
  };
  for (int capacity : {0, 16, 64}) {  // rows kept by the count pass: none, GPUs', host spaces' long
    CAPTURE(capacity);
    const held_capacity kept_rows(capacity);
    same_again(false);
  }
  {  // the hierarchy alone, where the grid's scan answered
    const hierarchy_only hierarchy;
    same_again(true);
  }
  for (bool deferred : {false, true}) {  // the long rows in a launch of their own, or not
    for (bool by_team : {false, true}) {  // long sorted rows sorted by a team a row, or not
      CAPTURE(deferred);
      CAPTURE(by_team);
      const long_rows_deferred launch(deferred);
      const rows_sorted_by_team sort(by_team);
      same_again(false);
    }
  }
  // Sorted rows without distances, and into other types in host memory (a GPU then fills rows
  // of its own and copies them): the same rows, the distances rounded to float.
  kept.within(Space(), q, radius, offsets, indices);
  CHECK(to_host_vector<std::int64_t, Space>(indices) == got.indices);
  Kokkos::View<std::int32_t*, Kokkos::HostSpace> host_offsets("host_offsets", n + 1);
  Kokkos::View<std::int32_t*, Kokkos::HostSpace> host_indices("host_indices", 0);
  Kokkos::View<float*, Kokkos::HostSpace> host_distances("host_distances", 0);
  kernwerk::within(Space(), q, p, radius, host_offsets, host_indices, host_distances, options);
  REQUIRE(host_indices.extent(0) == got.indices.size());
  REQUIRE(host_distances.extent(0) == got.distances.size());
  for (std::size_t i = 0; i <= n; ++i) CHECK(host_offsets(i) == got.offsets[i]);
  for (std::size_t e = 0; e < got.indices.size(); ++e) {
    if (host_indices(e) != got.indices[e] || host_distances(e) != float(got.distances[e])) {
      FAIL_CHECK("int32 indices or float distances differ at " << e);
      break;
    }
  }
  // Unsorted rows (row_order::any), with and without distances, one-shot and kept: each row
  // the same neighbours at the same distances, bit for bit, once sorted here.
  within_options any = options;
  any.order = row_order::any;
  const auto same_rows = [&](bool with_distances) {
    const auto offsets_got = to_host_vector<std::int64_t, Space>(offsets);
    auto indices_got = to_host_vector<std::int64_t, Space>(indices);
    auto distances_got = to_host_vector<double, Space>(distances);
    CHECK(offsets_got == got.offsets);
    REQUIRE(indices_got.size() == got.indices.size());
    if (with_distances) REQUIRE(distances_got.size() == got.distances.size());
    for (std::size_t i = 0; i + 1 < offsets_got.size(); ++i) {
      std::vector<std::pair<double, std::int64_t>> row;
      for (std::int64_t p = offsets_got[i]; p < offsets_got[i + 1]; ++p)
        row.emplace_back(with_distances ? distances_got[p] : 0.0, indices_got[p]);
      std::sort(row.begin(), row.end(), [&](const auto& a, const auto& b) {
        return with_distances ? a < b : a.second < b.second;
      });
      std::vector<std::int64_t> want(got.indices.begin() + got.offsets[i], got.indices.begin() + got.offsets[i + 1]);
      if (!with_distances) std::sort(want.begin(), want.end());
      for (std::size_t r = 0; r < row.size(); ++r) {
        if (row[r].second != want[r] ||
            (with_distances && row[r].first != got.distances[std::size_t(got.offsets[i]) + r])) {
          FAIL_CHECK("unsorted row of query " << i << " differs from the sorted one");
          return;
        }
      }
    }
  };
  for (bool kept_index : {false, true}) {
    CAPTURE(kept_index);
    Kokkos::deep_copy(offsets, -1);
    if (kept_index)
      kept.within(Space(), q, radius, offsets, indices, distances, row_order::any);
    else
      kernwerk::within(Space(), q, p, radius, offsets, indices, distances, any);
    same_rows(true);
    Kokkos::deep_copy(offsets, -1);
    if (kept_index)
      kept.within(Space(), q, radius, offsets, indices, row_order::any);
    else
      kernwerk::within(Space(), q, p, radius, offsets, indices, any);
    same_rows(false);
  }
  return got;
}

nearest_options as_nearest(const within_options& options) {
  nearest_options converted;
  converted.metric = options.metric;
  converted.units = options.units;
  converted.radius = options.radius;
  return converted;
}

// Every query's neighbours against the brute force: the same set (points whose float64
// distance is within rounding of the radius may go either way), sorted by distance then index,
// distances right, counts equal to the offsets' differences. Returns the neighbours found.
std::size_t check_radius(const host_points& queries, const host_points& points, double radius,
                         const radius_result& got, const within_options& options) {
  const auto reference_options = as_nearest(options);
  const bool sphere = options.metric == metric_kind::haversine;
  const double scale = sphere ? options.radius : 1.0;
  // The haversine formula loses half its digits at the antipodes (the angle 2 asin(sqrt(a))
  // has the slope 1 / sqrt(1 - a) there), so backends' rounding differs by up to about 1e-8
  // of the radius for nearly antipodal points.
  const auto tolerance_at = [&](double d) {
    return sphere && std::fabs(d - pi * scale) < 1e-6 * scale ? 1e-7 * scale : 1e-12 * (radius + scale);
  };
  const std::size_t n = queries.count();
  REQUIRE(got.offsets.size() == n + 1);
  CHECK(got.offsets[0] == 0);
  CHECK(std::size_t(got.offsets[n]) == got.indices.size());
  int wrong = 0;
  const auto fail = [&](std::size_t i, const std::string& problem) {
    if (++wrong <= 5) FAIL_CHECK("query " << i << ": " << problem);
  };
  for (std::size_t i = 0; i < n && wrong < 5; ++i) {
    const std::int64_t begin = got.offsets[i], end = got.offsets[i + 1];
    if (end < begin) {
      fail(i, "offsets decrease");
      continue;
    }
    if (got.counts[i] != end - begin) fail(i, "count_within gave " + std::to_string(got.counts[i]));
    std::vector<char> found(points.count(), 0);
    for (std::int64_t p = begin; p < end; ++p) {
      const std::int64_t j = got.indices[p];
      if (j < 0 || std::size_t(j) >= points.count() || found[j]) {
        fail(i, "index " + std::to_string(j) + " out of range or twice");
        break;
      }
      found[j] = 1;
      const double want = reference::distance_of(
          reference::order_key(queries.view(), i, points.view(), j, reference_options),
          reference_options);
      if (std::fabs(got.distances[p] - want) > tolerance_at(want))
        fail(i, "distance to " + std::to_string(j) + " is " + std::to_string(got.distances[p]) +
                    ", expected " + std::to_string(want));
      if (got.distances[p] > radius) fail(i, "a neighbour beyond the radius");
      if (p > begin && (got.distances[p] < got.distances[p - 1] ||
                        (got.distances[p] == got.distances[p - 1] && j < got.indices[p - 1])))
        fail(i, "not sorted by distance, then index");
    }
    for (std::size_t j = 0; j < points.count(); ++j) {
      const double d = reference::distance_of(
          reference::order_key(queries.view(), i, points.view(), j, reference_options),
          reference_options);
      if (!found[j] && d <= radius - tolerance_at(d)) fail(i, "missed point " + std::to_string(j));
      if (found[j] && d > radius + tolerance_at(d)) fail(i, "found point " + std::to_string(j));
    }
  }
  CHECK(wrong == 0);
  return got.indices.size();
}

within_options euclidean() {
  within_options options;
  options.metric = metric_kind::euclidean;
  return options;
}


TEST_CASE_TEMPLATE_DEFINE("within: random points on the sphere", Space, random_sphere) {
  const auto queries = uniform_sphere(1500, 11);
  const auto points = uniform_sphere(4000, 12);
  // About 10 neighbours each: a cap of area 4 pi 10 / 4000.
  const double radius = std::acos(1 - 2 * 10.0 / 4000);
  const within_options options;
  const auto found = check_radius(queries, points, radius, run_within<Space>(queries, points, radius, options), options);
  CHECK(found > 10000);
  // About 40 neighbours: on host spaces the count pass's sample keeps 64 a row.
  const double wider = std::acos(1 - 2 * 40.0 / 4000);
  check_radius(queries, points, wider, run_within<Space>(queries, points, wider, options), options);
  // About 260 neighbours: rows on both sides of the most a team sorts in its scratch memory.
  const double widest = std::acos(1 - 2 * double(kernwerk::impl::team_sort_capacity + 4) / 4000);
  check_radius(queries, points, widest, run_within<Space>(queries, points, widest, options), options);
  // These references cover the sphere and the radius spans few grid cells: the searches above
  // scanned the grid (and run_within compared them with the hierarchy's).
  const auto p = to_device<Space>(points);
  const kernwerk::impl::scoped_index<Space> index(Space(), p, kernwerk::impl::index_metric_of(options), true);
  CHECK(kernwerk::impl::radius_rule_of(index.core(), radius).in_grid);
}
TEST_CASE_TEMPLATE_APPLY(random_sphere, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("within: the grid's scan at the poles, the date line and duplicates", Space,
                          grid_adversarial) {
  // References that cover the sphere (so that the grid is used), with points at the poles, on
  // the date line and repeated; queries there, at the references themselves and at their
  // antipodes: the cells at the cube's faces, where the reach's cube is clamped.
  auto points = uniform_sphere(3000, 41);
  host_points queries = uniform_sphere(300, 42);
  for (double lon : {-pi, -1.0, 0.0, 2.0, pi}) {
    for (double lat : {pi / 2, -pi / 2, 0.0, 0.7, -1.1}) {
      points.add(lat, lon);
      points.add(lat, lon);  // a duplicate
      queries.add(lat, lon);
      queries.add(-lat, lon + (lon > 0 ? -pi : pi));  // the antipode
      queries.add(lat, lon == pi ? -pi : lon);
    }
  }
  for (std::size_t i = 0; i < 200; ++i) queries.add(points.values[2 * i], points.values[2 * i + 1]);
  const within_options options;
  const double typical = std::acos(1 - 2 * 10.0 / double(points.count()));
  for (double radius : {0.0, 1e-9, 0.5 * typical, typical, 2 * typical}) {
    CAPTURE(radius);
    check_radius(queries, points, radius, run_within<Space>(queries, points, radius, options), options);
    const auto p = to_device<Space>(points);
    const kernwerk::impl::scoped_index<Space> index(Space(), p, kernwerk::impl::index_metric_of(options), true);
    // (twice that spans 5 cells: the grid on host spaces, the hierarchy on GPUs)
    if (radius <= typical) CHECK(kernwerk::impl::radius_rule_of(index.core(), radius).in_grid);
  }
}
TEST_CASE_TEMPLATE_APPLY(grid_adversarial, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("within: degrees, an earth radius, float32 and LayoutLeft", Space,
                          degrees_float) {
  const auto queries = rounded<float>(uniform_sphere(800, 13, true));
  const auto points = rounded<float>(uniform_sphere(2000, 14, true));
  within_options options;
  options.units = angle_unit::degrees;
  options.radius = 6371.0088;
  const double radius = 500.0;  // km
  check_radius(queries, points, radius, run_within<Space, float>(queries, points, radius, options), options);
  check_radius(queries, points, radius,
               run_within<Space, double, Kokkos::LayoutLeft>(queries, points, radius, options), options);
}
TEST_CASE_TEMPLATE_APPLY(degrees_float, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("within: the layouts users bring", Space, layouts_sphere) {
  for (const auto& name : layouts::names()) {
    CAPTURE(name);
    const auto pair = layouts::make(name, 600, 2000, 21);
    const auto queries = as_points(pair.observations), points = as_points(pair.references);
    const within_options options;
    for (double radius : {0.0, 1e-6, 1e-3, 0.05}) {
      CAPTURE(radius);
      check_radius(queries, points, radius, run_within<Space>(queries, points, radius, options), options);
    }
    // Each set against itself: every point finds itself.
    const auto self = run_within<Space>(points, points, 1e-4, options);
    check_radius(points, points, 1e-4, self, options);
    for (std::size_t i = 0; i < points.count(); ++i) REQUIRE(self.offsets[i + 1] > self.offsets[i]);
  }
}
TEST_CASE_TEMPLATE_APPLY(layouts_sphere, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("within: poles, the date line, antipodes, the whole sphere", Space,
                          adversarial_sphere) {
  host_points points;
  for (double lon : {-pi, -pi / 2, 0.0, 1.0, pi / 2, pi}) {
    points.add(pi / 2, lon);
    points.add(-pi / 2, lon);
    points.add(pi / 2 - 1e-7, lon);
  }
  for (double lat : {-1.2, -0.3, 0.0, 0.4, 1.3}) {
    points.add(lat, pi);
    points.add(lat, -pi);
    points.add(lat, pi - 1e-9);
    points.add(lat, -pi + 1e-9);
    points.add(-lat, 0.0);  // antipodes of the date line's points
  }
  host_points queries = points;
  queries.add(0.0, pi - 2e-10);
  queries.add(pi / 2, 3.0);
  const within_options options;
  for (double radius : {0.0, 1e-9, 2e-7, 0.5, pi - 1e-9, pi, 4.0}) {
    CAPTURE(radius);
    const auto got = run_within<Space>(queries, points, radius, options);
    check_radius(queries, points, radius, got, options);
    if (radius >= pi)  // every point, including the antipodes
      for (std::size_t i = 0; i < queries.count(); ++i)
        CHECK(got.offsets[i + 1] - got.offsets[i] == std::int64_t(points.count()));
  }
}
TEST_CASE_TEMPLATE_APPLY(adversarial_sphere, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("within: Euclidean 2-D and 3-D, clusters and duplicates", Space,
                          euclidean_sets) {
  for (std::size_t dimension : {2u, 3u}) {
    CAPTURE(dimension);
    const auto queries = uniform_box(700, dimension, 31);
    auto points = uniform_box(1500, dimension, 32);
    // A tight cluster, far away coordinates, and copies.
    std::mt19937_64 random(33);
    std::normal_distribution<double> spread(0.0, 1e-3);
    for (int c = 0; c < 500; ++c)
      for (std::size_t d = 0; d < dimension; ++d) points.values.push_back(3.0 + spread(random));
    for (int c = 0; c < 100; ++c)
      points.values.insert(points.values.end(), points.values.begin(),
                           points.values.begin() + dimension);
    // Every 7th point of the set (cluster members and copies among them) as queries of its own.
    host_points own;
    own.dimension = dimension;
    for (std::size_t i = 0; i < points.count(); i += 7)
      own.values.insert(own.values.end(), points.values.begin() + i * dimension,
                        points.values.begin() + (i + 1) * dimension);
    host_points first_queries = queries;
    first_queries.values.resize(100 * dimension);
    for (double radius : {0.0, 0.01, 1.5, 40.0}) {
      CAPTURE(radius);
      // At 40 every point is in every row (2,100 a row): the first 100 queries and every 7th
      // point cover that, with a seventh of the pairs of the whole sets.
      const host_points& some = radius > 30 ? first_queries : queries;
      const host_points& self = radius > 30 ? own : points;
      check_radius(some, points, radius, run_within<Space>(some, points, radius, euclidean()), euclidean());
      check_radius(self, points, radius, run_within<Space>(self, points, radius, euclidean()),
                   euclidean());
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(euclidean_sets, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("within: points at exactly the radius count", Space, exact_boundary) {
  // Integer lattice points: every distance below is exact in float64, and 5 is the 3-4-5
  // triangle's hypotenuse, so points at exactly the radius are there to count.
  host_points lattice;
  for (int x = -6; x <= 6; ++x)
    for (int y = -6; y <= 6; ++y) lattice.add(1e6 + x, -2e6 + y);
  host_points centre;
  centre.add(1e6, -2e6);
  for (double radius : {0.0, 1.0, std::sqrt(2.0), 5.0}) {
    CAPTURE(radius);
    const auto got = run_within<Space>(centre, lattice, radius, euclidean());
    check_radius(centre, lattice, radius, got, euclidean());
    std::int64_t expected = 0;  // counted here in integers
    for (int x = -6; x <= 6; ++x)
      for (int y = -6; y <= 6; ++y) expected += double(x * x + y * y) <= radius * radius ? 1 : 0;
    CHECK(got.offsets[1] == expected);
  }
}
TEST_CASE_TEMPLATE_APPLY(exact_boundary, enabled_spaces);

// Sets the radius searches' float tests on or off for a scope (radius_search.hpp's
// radius_policy; by default on GPUs only).
struct float_tests_set {
  explicit float_tests_set(bool on) { kernwerk::impl::radius_policy::float_tests = on ? 1 : 0; }
  ~float_tests_set() { kernwerk::impl::radius_policy::float_tests = -1; }
};

TEST_CASE_TEMPLATE_DEFINE("within: the float tests decide only as float64 does", Space, float_tests) {
  // Points a hair inside and outside the radius, where a float coordinate's rounding is far
  // larger than the hair: the brute force's answer, and bit for bit the answer of the float64
  // tests alone.
  const auto check_both = [](const host_points& queries, const host_points& points, double radius,
                             const within_options& options) {
    radius_result got, plain;
    {
      const float_tests_set on(true);
      got = run_within<Space>(queries, points, radius, options);
    }
    check_radius(queries, points, radius, got, options);
    {
      const float_tests_set off(false);
      plain = run_within<Space>(queries, points, radius, options);
    }
    CHECK(got.offsets == plain.offsets);
    CHECK(got.indices == plain.indices);
    CHECK(got.distances == plain.distances);
    CHECK(got.counts == plain.counts);
  };
  const double hairs[] = {-1e-4, -1e-6, -1e-7, -3e-8, -1e-9, 0.0, 1e-9, 3e-8, 1e-7, 1e-6, 1e-4};
  std::mt19937_64 random(51);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  // On the sphere: rings of points at angles radius * (1 + hair) around each query, at random
  // bearings; queries at a pole, on the date line and at random.
  for (double radius : {1e-4, 0.05, 1.0}) {
    CAPTURE(radius);
    host_points queries, points;
    queries.add(pi / 2 - 1e-6, 0.3);
    queries.add(0.2, pi - 1e-7);
    for (int q = 0; q < 10; ++q) queries.add(std::asin(2 * uniform(random) - 1), pi * (2 * uniform(random) - 1));
    for (std::size_t q = 0; q < queries.count(); ++q) {
      const double lat = queries.values[2 * q], lon = queries.values[2 * q + 1];
      for (double hair : hairs) {
        for (int copy = 0; copy < 3; ++copy) {
          const double angle = radius * (1 + hair), bearing = 2 * pi * uniform(random);
          const double to_lat = std::asin(std::sin(lat) * std::cos(angle) +
                                          std::cos(lat) * std::sin(angle) * std::cos(bearing));
          double to_lon = lon + std::atan2(std::sin(bearing) * std::sin(angle) * std::cos(lat),
                                           std::cos(angle) - std::sin(lat) * std::sin(to_lat));
          if (to_lon > pi) to_lon -= 2 * pi;
          if (to_lon < -pi) to_lon += 2 * pi;
          points.add(to_lat, to_lon);
        }
      }
    }
    check_both(queries, points, radius, within_options());
  }
  // Euclidean, 2-D and 3-D, far from the origin: at 3e7 a float coordinate is off by up to 1,
  // at 1e3 by 3e-5, against radii of 1.3 and 0.01.
  for (const double offset : {1e3, 3e7}) {
    for (std::size_t dimension : {2u, 3u}) {
      CAPTURE(offset);
      CAPTURE(dimension);
      const double radius = offset > 1e6 ? 1.3 : 0.01;
      host_points queries, points;
      queries.dimension = points.dimension = dimension;
      for (int q = 0; q < 12; ++q) {
        double centre[3];
        for (auto& c : centre) c = offset + 20 * radius * uniform(random);
        queries.values.insert(queries.values.end(), centre, centre + dimension);
        for (double hair : hairs) {
          for (int copy = 0; copy < 3; ++copy) {
            double direction[3] = {uniform(random) - 0.5, uniform(random) - 0.5,
                                   dimension > 2 ? uniform(random) - 0.5 : 0.0};
            const double length = std::sqrt(direction[0] * direction[0] + direction[1] * direction[1] +
                                            direction[2] * direction[2]);
            for (std::size_t a = 0; a < dimension; ++a)
              points.values.push_back(centre[a] + radius * (1 + hair) * direction[a] / length);
          }
        }
      }
      check_both(queries, points, radius, euclidean());
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(float_tests, enabled_spaces);

// The searches in the order that keeps neighbouring queries together (index/query_order.hpp:
// taken by large query sets only) against the input order and the brute force, on the layouts
// and on Euclidean clusters; the counts' shortcut (no distance inside the range's inner band)
// against the distances' own decision.
template <class Space>
radius_result run_in_order(const host_points& queries, const host_points& points, double radius,
                           const within_options& options, bool ordered,
                           std::size_t held_bytes = kernwerk::nearest_tuning().within_held_bytes) {
  using memory_space = typename Space::memory_space;
  const auto q = to_device<Space>(queries);
  const auto p = to_device<Space>(points);
  const std::size_t n = queries.count();
  kernwerk::nearest_tuning tuning;
  tuning.within_held_bytes = held_bytes;
  if (ordered) {
    tuning.order_min_concurrency = tuning.order_per_thread = tuning.radius_order_min_references = 0;
  } else {
    tuning.order_min_concurrency = tuning.radius_order_min_references = std::int64_t(1) << 62;
  }
  const kernwerk::impl::scoped_index<Space> index(Space(), p, kernwerk::impl::index_metric_of(options));
  Kokkos::View<std::int64_t*, memory_space> offsets("offsets", n + 1), counts("counts", n);
  Kokkos::View<std::int64_t*, memory_space> indices("indices", 0);
  Kokkos::View<double*, memory_space> distances("distances", 0);
  kernwerk::impl::within_index(Space(), "within", index.core(), q, radius, offsets, indices, &distances,
                               row_order::nearest_first, tuning);
  kernwerk::impl::count_within_index(Space(), index.core(), q, radius, counts, tuning);
  return {to_host_vector<std::int64_t, Space>(offsets), to_host_vector<std::int64_t, Space>(indices),
          to_host_vector<std::int64_t, Space>(counts), to_host_vector<double, Space>(distances)};
}

TEST_CASE_TEMPLATE_DEFINE("within: queries in the index's order answer as in their own", Space, query_order) {
  const auto compare = [](const host_points& queries, const host_points& points, double radius,
                          const within_options& options) {
    const auto ordered = run_in_order<Space>(queries, points, radius, options, true);
    const auto plain = run_in_order<Space>(queries, points, radius, options, false);
    CHECK(ordered.offsets == plain.offsets);
    CHECK(ordered.indices == plain.indices);
    CHECK(ordered.distances == plain.distances);
    CHECK(ordered.counts == plain.counts);
    // The fill pass with no rows held by the count pass (every row searched again), and with
    // 1 and 3 a query (rows longer searched again: in a launch of their own where the count pass
    // listed them all, which it does for up to a quarter of the queries, or where the fill meets
    // them), in both orders: the same answer.
    for (std::size_t held : {std::size_t(0), sizeof(std::int32_t) * queries.count(),
                             3 * sizeof(std::int32_t) * queries.count()}) {
      for (bool in_order : {true, false}) {
        for (bool deferred : {false, true}) {
          CAPTURE(held);
          CAPTURE(in_order);
          CAPTURE(deferred);
          const long_rows_deferred launch(deferred);
          const auto other = run_in_order<Space>(queries, points, radius, options, in_order, held);
          CHECK(other.offsets == plain.offsets);
          CHECK(other.indices == plain.indices);
          CHECK(other.distances == plain.distances);
        }
      }
    }
    check_radius(queries, points, radius, ordered, options);
  };
  for (const auto& name : layouts::names()) {
    CAPTURE(name);
    const auto pair = layouts::make(name, 700, 2000, 31);
    for (double radius : {0.0, 1e-5, 2e-3, 0.05}) {
      CAPTURE(radius);
      compare(as_points(pair.observations), as_points(pair.references), radius, within_options());
    }
  }
  // Euclidean clusters with duplicates, 2-D and 3-D
  std::mt19937_64 random(32);
  std::normal_distribution<double> spread(0.0, 1.0);
  for (int dimension : {2, 3}) {
    CAPTURE(dimension);
    host_points points, queries;
    points.dimension = queries.dimension = std::size_t(dimension);
    for (int c = 0; c < 40; ++c) {
      const double centre[3] = {100.0 * spread(random), 100.0 * spread(random), 100.0 * spread(random)};
      for (int j = 0; j < 50; ++j) {
        double p[3];
        for (int a = 0; a < 3; ++a) p[a] = centre[a] + (j % 5 == 0 ? 0.0 : spread(random));
        dimension == 2 ? points.add(p[0], p[1]) : points.add(p[0], p[1], p[2]);
        if (j % 3 == 0) dimension == 2 ? queries.add(p[0], p[1] + 0.5) : queries.add(p[0], p[1], p[2] + 0.5);
      }
    }
    for (double radius : {0.5, 2.0, 30.0}) compare(queries, points, radius, euclidean());
  }
}
TEST_CASE_TEMPLATE_APPLY(query_order, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("within: empty and single-point sets, host Views, no distances", Space,
                          edge_sets) {
  const auto some = uniform_sphere(50, 41);
  host_points none;
  host_points one;
  one.add(0.3, -2.0);
  const within_options options;
  const std::vector<const host_points*> sets = {&none, &one, &some};
  for (const auto* queries : sets) {
    for (const auto* points : sets) {
      const auto got = run_within<Space>(*queries, *points, 0.7, options);
      check_radius(*queries, *points, 0.7, got, options);
    }
  }
  // Views in host memory, whatever Space's, and the call without distances.
  using host_matrix = Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                   Kokkos::MemoryUnmanaged>;
  const host_matrix q(some.values.data(), some.count(), 2), p(some.values.data(), some.count(), 2);
  Kokkos::View<int*, Kokkos::HostSpace> offsets("offsets", some.count() + 1);
  Kokkos::View<int*, Kokkos::HostSpace> indices("indices", 0);
  Kokkos::View<float*, Kokkos::HostSpace> distances("distances", 0);
  kernwerk::within(Space(), q, p, 0.7, offsets, indices, distances, options);
  const auto expected = run_within<Space>(some, some, 0.7, options);
  REQUIRE(indices.extent(0) == expected.indices.size());
  for (std::size_t i = 0; i <= some.count(); ++i) CHECK(offsets(i) == expected.offsets[i]);
  for (std::size_t e = 0; e < indices.extent(0); ++e) {
    CHECK(indices(e) == expected.indices[e]);
    CHECK(distances(e) == float(expected.distances[e]));
  }
  Kokkos::View<int*, Kokkos::HostSpace> only_indices("indices", 0);
  kernwerk::within(Space(), q, p, 0.7, offsets, only_indices, options);
  REQUIRE(only_indices.extent(0) == expected.indices.size());
  for (std::size_t e = 0; e < indices.extent(0); ++e) CHECK(only_indices(e) == expected.indices[e]);
}
TEST_CASE_TEMPLATE_APPLY(edge_sets, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("within: bad input is named, outputs untouched", Space, bad_input) {
  using memory_space = typename Space::memory_space;
  auto points = uniform_sphere(200, 51);
  const auto good = to_device<Space>(points);
  points.values[2 * 17] = std::nan("");
  const auto with_nan = to_device<Space>(points);
  const auto flat = to_device<Space>(uniform_box(10, 3, 52));
  Kokkos::View<std::int64_t*, memory_space> offsets("offsets", 201), short_offsets("offsets", 200);
  Kokkos::View<std::int64_t*, memory_space> indices("indices", 7);
  Kokkos::View<double*, memory_space> distances("distances", 7);
  Kokkos::View<std::int8_t*, memory_space> small_indices("indices", 7);
  Kokkos::View<std::int8_t*, memory_space> small_offsets("offsets", 201);
  Kokkos::deep_copy(offsets, -5);
  const Space space;
  check_rejects("points", [&] { kernwerk::within(space, good, with_nan, 0.1, offsets, indices, distances); });
  check_rejects("queries", [&] { kernwerk::within(space, with_nan, good, 0.1, offsets, indices, distances); });
  check_rejects("queries", [&] { kernwerk::within(space, flat, good, 0.1, offsets, indices, distances); });
  check_rejects("radius", [&] { kernwerk::within(space, good, good, -1.0, offsets, indices, distances); });
  check_rejects("radius", [&] { kernwerk::within(space, good, good, INFINITY, offsets, indices, distances); });
  check_rejects("offsets", [&] { kernwerk::within(space, good, good, 0.1, short_offsets, indices, distances); });
  check_rejects("indices", [&] { kernwerk::within(space, good, good, 0.1, offsets, small_indices, distances); });
  // 200 points each within 4 of every other: 40000 neighbours, more than int8 offsets hold.
  check_rejects("offsets", [&] { kernwerk::within(space, good, good, 4.0, small_offsets, indices, distances); });
  within_options options;
  options.radius = 0;
  check_rejects("options.radius", [&] { kernwerk::within(space, good, good, 0.1, offsets, indices, distances, options); });
  Kokkos::View<std::int64_t*, memory_space> counts("counts", 199);
  check_rejects("counts", [&] { kernwerk::count_within(space, good, good, 0.1, counts); });
  check_rejects("counts", [&] {
    kernwerk::count_within(space, good, good, 0.1, Kokkos::View<std::int8_t*, memory_space>("c", 200));
  });
  CHECK(indices.extent(0) == 7);
  CHECK(distances.extent(0) == 7);
  const auto host_offsets = to_host_vector<std::int64_t, Space>(offsets);
  CHECK(std::count(host_offsets.begin(), host_offsets.end(), -5) == 201);
}
TEST_CASE_TEMPLATE_APPLY(bad_input, enabled_spaces);

}  // namespace
