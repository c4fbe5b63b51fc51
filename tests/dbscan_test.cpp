// kernwerk::dbscan against a textbook DBSCAN on the host: float64 distances from
// kernwerk/reference.hpp for every pair, clusters grown one at a time from the smallest
// unlabelled core point (scikit-learn's procedure), on every enabled execution space.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "execution_spaces.hpp"
#include "kernwerk/dbscan.hpp"
#include "layouts.hpp"
#include "nearest_support.hpp"

namespace {

using namespace kernwerk;
using namespace kernwerk::test;

constexpr double pi = M_PI;

// The textbook answer for either border rule. Pairs whose distance is within rounding of eps
// are reported in `ambiguous`, so that a test can avoid them.
struct textbook {
  std::vector<std::int64_t> labels;
  std::int64_t clusters = 0;
  std::size_t ambiguous = 0;
};

textbook reference_dbscan(const host_points& points, double eps, std::int64_t min_samples,
                          const dbscan_options& options) {
  nearest_options metric;
  metric.metric = options.metric;
  metric.units = options.units;
  metric.radius = options.radius;
  const std::size_t n = points.count();
  const double scale = options.metric == metric_kind::haversine ? options.radius : 1.0;
  textbook result;
  std::vector<std::vector<std::size_t>> neighbours(n);
  std::vector<std::vector<double>> distances(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const double d = reference::distance_of(
          reference::order_key(points.view(), i, points.view(), j, metric), metric);
      if (d != eps && std::fabs(d - eps) <= 1e-12 * (eps + scale)) ++result.ambiguous;
      if (d <= eps) {
        neighbours[i].push_back(j);
        distances[i].push_back(d);
      }
    }
  }
  std::vector<char> core(n);
  for (std::size_t i = 0; i < n; ++i) core[i] = std::int64_t(neighbours[i].size()) >= min_samples;
  result.labels.assign(n, -1);
  for (std::size_t seed = 0; seed < n; ++seed) {  // scikit-learn's order
    if (!core[seed] || result.labels[seed] != -1) continue;
    std::vector<std::size_t> stack{seed};
    while (!stack.empty()) {
      const std::size_t i = stack.back();
      stack.pop_back();
      if (result.labels[i] != -1) continue;
      result.labels[i] = result.clusters;
      if (core[i])
        for (std::size_t j : neighbours[i])
          if (result.labels[j] == -1) stack.push_back(j);
    }
    ++result.clusters;
  }
  if (options.border == border_rule::nearest_core) {
    for (std::size_t i = 0; i < n; ++i) {
      if (core[i]) continue;
      std::int64_t best = -1;
      double best_distance = 0;
      for (std::size_t e = 0; e < neighbours[i].size(); ++e) {
        const std::size_t j = neighbours[i][e];
        if (core[j] && (best < 0 || distances[i][e] < best_distance)) {  // j ascending: ties to the smallest
          best = std::int64_t(j);
          best_distance = distances[i][e];
        }
      }
      result.labels[i] = best < 0 ? -1 : result.labels[best];
    }
  }
  return result;
}

template <class Space, class Scalar = double>
std::pair<std::vector<std::int64_t>, std::int64_t> run_dbscan(const host_points& points, double eps,
                                                              std::int64_t min_samples,
                                                              const dbscan_options& options) {
  using memory_space = typename Space::memory_space;
  const auto device = to_device<Space, Scalar>(points);
  Kokkos::View<std::int64_t*, memory_space> labels("labels", points.count());
  Kokkos::deep_copy(labels, -7);
  const std::int64_t clusters = kernwerk::dbscan(Space(), device, eps, min_samples, labels, options);
  return {to_host_vector<std::int64_t, Space>(labels), clusters};
}

// Both border rules against the textbook.
template <class Space>
void check_dbscan(const host_points& points, double eps, std::int64_t min_samples,
                  dbscan_options options = {}) {
  for (auto rule : {border_rule::first_cluster, border_rule::nearest_core}) {
    CAPTURE(to_string(rule));
    options.border = rule;
    const auto expected = reference_dbscan(points, eps, min_samples, options);
    REQUIRE(expected.ambiguous == 0);  // a test set with no pair at eps within rounding
    const auto [labels, clusters] = run_dbscan<Space>(points, eps, min_samples, options);
    CHECK(clusters == expected.clusters);
    int wrong = 0;
    for (std::size_t i = 0; i < points.count(); ++i)
      if (labels[i] != expected.labels[i] && ++wrong <= 5)
        FAIL_CHECK("point " << i << ": label " << labels[i] << ", expected " << expected.labels[i]);
    CHECK(wrong == 0);
  }
}

// scikit-learn's make_moons: two interleaving half circles with Gaussian noise.
host_points two_moons(std::size_t count, double noise, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> jitter(0.0, noise);
  host_points points;
  const std::size_t outer = count / 2;
  for (std::size_t i = 0; i < count; ++i) {
    const bool first = i < outer;
    const std::size_t along = first ? i : i - outer;
    const double t = pi * double(along) / double((first ? outer : count - outer) - 1);
    const double x = first ? std::cos(t) : 1 - std::cos(t);
    const double y = first ? std::sin(t) : 1 - std::sin(t) - 0.5;
    points.add(x + jitter(random), y + jitter(random));
  }
  return points;
}

dbscan_options euclidean() {
  dbscan_options options;
  options.metric = metric_kind::euclidean;
  return options;
}

TEST_CASE_TEMPLATE_DEFINE("dbscan: the course's two moons", Space, moons) {
  check_dbscan<Space>(two_moons(100, 0.05, 1), 0.3, 5, euclidean());
  check_dbscan<Space>(two_moons(3000, 0.08, 2), 0.05, 5, euclidean());
  check_dbscan<Space>(two_moons(3000, 0.08, 3), 0.3, 5, euclidean());
  check_dbscan<Space>(two_moons(2000, 0.1, 4), 0.02, 3, euclidean());  // much noise
}
TEST_CASE_TEMPLATE_APPLY(moons, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("dbscan: duplicates, all noise, one cluster, min_samples 1", Space,
                          special_sets) {
  host_points same;
  for (int i = 0; i < 40; ++i) same.add(0.25, -1.5);
  same.add(0.25, -1.4);
  check_dbscan<Space>(same, 0.0, 5, euclidean());    // eps 0: the copies, not the other point
  check_dbscan<Space>(same, 0.0, 41, euclidean());   // too few copies: all noise
  check_dbscan<Space>(same, 0.2, 41, euclidean());   // one cluster of everything
  const auto spread = uniform_box(500, 3, 61);
  check_dbscan<Space>(spread, 0.01, 2, euclidean());  // all noise
  check_dbscan<Space>(spread, 0.01, 1, euclidean());  // every point its own cluster
  check_dbscan<Space>(spread, 30.0, 5, euclidean());  // one cluster
  check_dbscan<Space>(spread, 3.0, 4, euclidean());
  host_points none;
  check_dbscan<Space>(none, 1.0, 3, euclidean());
  host_points one;
  one.add(1.0, 2.0);
  check_dbscan<Space>(one, 1.0, 1, euclidean());
  check_dbscan<Space>(one, 1.0, 2, euclidean());
}
TEST_CASE_TEMPLATE_APPLY(special_sets, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("dbscan: points exactly eps apart", Space, exact_eps) {
  // Integer coordinates: every distance at eps is exact. A chain 1 apart, eps 1: each inner
  // point has itself and two neighbours at exactly eps (core with min_samples 3), the ends are
  // border points. Two ladders (rows y = 0 and 1) with a point between them, exactly eps from
  // a core point of each: with min_samples 4 it is a border point of the first by either rule.
  host_points points;
  for (int x = 0; x < 10; ++x) points.add(x, 10.0);
  for (int x = 0; x < 10; ++x) points.add(x, 0.0);
  for (int x = 0; x < 10; ++x) points.add(x, 1.0);
  for (int x = 11; x < 21; ++x) points.add(x, 0.0);
  for (int x = 11; x < 21; ++x) points.add(x, 1.0);
  points.add(10.0, 0.0);
  check_dbscan<Space>(points, 1.0, 3, euclidean());
  check_dbscan<Space>(points, 1.0, 4, euclidean());
  check_dbscan<Space>(points, 2.0, 6, euclidean());
  const auto labels = run_dbscan<Space>(points, 1.0, 4, euclidean()).first;
  CHECK(labels[50] == labels[10]);   // the point between joins the first ladder
  CHECK(labels[30] != labels[10]);
}
TEST_CASE_TEMPLATE_APPLY(exact_eps, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("dbscan: on the sphere, poles, the date line, layouts", Space,
                          sphere_sets) {
  layouts::generator g(71);
  std::vector<double> values;
  g.add_cap(values, 300, pi / 2, 0.0, 0.02);     // around the north pole
  g.add_cap(values, 300, 0.1, pi, 0.02);         // across the date line
  g.add_cap(values, 200, -0.7, 1.0, 0.01);
  g.add_uniform(values, 300);                    // noise
  const host_points points = as_points(values);
  check_dbscan<Space>(points, 0.004, 5);
  check_dbscan<Space>(points, 0.01, 10);
  for (const std::string name : {"tracks", "ring", "half-cap", "duplicates"}) {
    CAPTURE(name);
    check_dbscan<Space>(as_points(layouts::make(name, 0, 1500, 72).references), 1e-3, 4);
  }
  // Degrees and an earth radius: eps in km.
  host_points degrees = points;
  for (double& v : degrees.values) v *= 180 / pi;
  dbscan_options options;
  options.units = angle_unit::degrees;
  options.radius = 6371.0088;
  check_dbscan<Space>(degrees, 30.0, 5, options);
}
TEST_CASE_TEMPLATE_APPLY(sphere_sets, enabled_spaces);

// Crowded sets, where dense cells (at least min_samples points in a cell of the eps grid) make
// their points core and one set without a search: dense blobs bridged by chains of sparse
// points, blobs just within and just beyond eps of each other, sparse points at the edges of
// blobs (core or border), stacks of copies exactly eps apart, and dense caps on the sphere.
template <class Space>
void check_dense_sets() {
  std::mt19937_64 random(91);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  host_points blobs;
  const auto blob = [&](double x, double y, double side, int count) {
    for (int i = 0; i < count; ++i) blobs.add(x + side * unit(random), y + side * unit(random));
  };
  blob(0.0, 0.0, 0.05, 300);
  blob(0.4, 0.0, 0.05, 300);
  for (int i = 1; i < 4; ++i) blobs.add(0.05 + 0.087 * i, 0.025);  // a sparse chain from the first to the second
  blob(0.0, 0.3, 0.05, 300);
  blob(0.0, 0.449, 0.05, 200);  // about eps above the third
  blob(0.7, 0.7, 0.02, 150);
  for (int i = 0; i < 200; ++i) blobs.add(0.6 + 0.25 * unit(random), 0.6 + 0.25 * unit(random));  // scattered around it
  for (int i = 0; i < 100; ++i) blobs.add(unit(random), unit(random));
  for (std::int64_t min_samples : {2, 3, 5, 12, 40}) {
    CAPTURE(min_samples);
    check_dbscan<Space>(blobs, 0.1, min_samples, euclidean());
  }
  check_dbscan<Space>(blobs, 0.03, 8, euclidean());
  check_dbscan<Space>(blobs, 0.25, 30, euclidean());

  host_points stacks;  // copies at integer points: every distance exact
  for (int x : {0, 1, 3, 4}) for (int copy = 0; copy < 12; ++copy) stacks.add(x, 0.0);
  for (int y : {2, 3}) for (int copy = 0; copy < 3; ++copy) stacks.add(0.0, y);
  check_dbscan<Space>(stacks, 1.0, 5, euclidean());
  check_dbscan<Space>(stacks, 1.0, 13, euclidean());
  check_dbscan<Space>(stacks, 2.0, 16, euclidean());

  host_points cubes;  // 3-D
  cubes.dimension = 3;
  for (int b = 0; b < 6; ++b)
    for (int i = 0; i < 150; ++i) cubes.add(0.11 * b + 0.04 * unit(random), 0.04 * unit(random), 0.04 * unit(random));
  check_dbscan<Space>(cubes, 0.07, 6, euclidean());

  layouts::generator g(92);
  host_points caps;
  g.add_cap(caps.values, 500, pi / 2, 0.0, 0.003);  // at the pole
  g.add_cap(caps.values, 500, 0.0, pi, 0.003);      // on the date line
  g.add_cap(caps.values, 400, 0.0, pi - 0.0085, 0.002);
  g.add_cap(caps.values, 200, -0.5, 2.0, 0.01);
  g.add_uniform(caps.values, 200);
  check_dbscan<Space>(caps, 0.002, 5);
  check_dbscan<Space>(caps, 0.004, 20);
  check_dbscan<Space>(caps, 3.05, 1500);  // nearly the whole sphere: all but near-antipodes
}
TEST_CASE_TEMPLATE_DEFINE("dbscan: dense cells beside sparse points", Space, dense_cells) {
  // Dense cells searching point by point (0), once for the whole cell (all of them), and mixes.
  const struct restore {
    std::int64_t kept = impl::dbscan_policy::cell_search_points;
    ~restore() { impl::dbscan_policy::cell_search_points = kept; }
  } restore_policy;
  for (std::int64_t cell_search : {std::int64_t(0), std::int64_t(8), std::int64_t(64), std::int64_t(1) << 40}) {
    CAPTURE(cell_search);
    impl::dbscan_policy::cell_search_points = cell_search;
    check_dense_sets<Space>();
  }
}
TEST_CASE_TEMPLATE_APPLY(dense_cells, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("dbscan: bad input is named, labels untouched", Space, bad_input) {
  using memory_space = typename Space::memory_space;
  auto points = uniform_sphere(200, 81);
  const Kokkos::View<double**, Kokkos::LayoutRight, memory_space> good("good", 200, 2);
  Kokkos::deep_copy(good, Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>(
                              points.values.data(), 200, 2));
  points.values[2 * 9] = 2.0;  // past the pole
  const Kokkos::View<double**, Kokkos::LayoutRight, memory_space> past_pole("bad", 200, 2);
  Kokkos::deep_copy(past_pole, Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>(
                                   points.values.data(), 200, 2));
  Kokkos::View<int*, memory_space> labels("labels", 200), short_labels("labels", 199);
  Kokkos::View<std::int8_t*, memory_space> small_labels("labels", 200);
  Kokkos::deep_copy(labels, 9);
  const Space space;
  check_rejects("points", [&] { kernwerk::dbscan(space, past_pole, 0.1, 5, labels); });
  check_rejects("eps", [&] { kernwerk::dbscan(space, good, -0.1, 5, labels); });
  check_rejects("eps", [&] { kernwerk::dbscan(space, good, NAN, 5, labels); });
  check_rejects("min_samples", [&] { kernwerk::dbscan(space, good, 0.1, 0, labels); });
  check_rejects("labels", [&] { kernwerk::dbscan(space, good, 0.1, 5, short_labels); });
  check_rejects("labels", [&] { kernwerk::dbscan(space, good, 0.1, 5, small_labels); });
  dbscan_options options;
  options.units = angle_unit::degrees;
  options.metric = metric_kind::euclidean;
  check_rejects("options.units", [&] { kernwerk::dbscan(space, good, 0.1, 5, labels, options); });
  auto host_labels = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), labels);
  for (int i = 0; i < 200; ++i) REQUIRE(host_labels(i) == 9);
  CHECK_THROWS_AS(parse_border_rule("sklearn", "--border"), kernwerk::invalid_argument);
  CHECK(parse_border_rule(to_string(border_rule::first_cluster), "--border") == border_rule::first_cluster);
}
TEST_CASE_TEMPLATE_APPLY(bad_input, enabled_spaces);

}  // namespace
