// kernwerk::nearest on the layouts users bring (perf/layouts.hpp: clustered, banded and
// track-shaped sets, duplicates, a pole), every method, k from 1 to every reference, against the
// float64 brute force.
#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "execution_spaces.hpp"
#include "layouts.hpp"
#include "nearest_support.hpp"

#include "kernwerk/sphere_index.hpp"

namespace {

using namespace kernwerk;
using namespace kernwerk::test;


TEST_CASE_TEMPLATE_DEFINE("nearest: every layout, every method, k up to 32", Space, layouts_all) {
  for (const auto& name : layouts::names()) {
    CAPTURE(name);
    const auto sets = layouts::make(name, 240, 1100, 77);
    const auto observations = as_points(sets.observations);
    auto references = as_points(sets.references);
    if (name == "polar") references.add(M_PI / 2, 0.0);  // the pole itself
    for (const std::size_t k : {1u, 2u, 8u, 32u}) {
      CAPTURE(k);
      auto all = variants<Space>(metric_kind::haversine, int(k));
      all.push_back({"auto", nearest_options{}});
      for (const auto& v : all) {
        CAPTURE(v.name);
        check_all(observations, references, run_nearest<Space>(observations, references, v.options, k),
                  v.options);
      }
      // The index's search in cell order (GPUs with at least one observation per thread).
      nearest_options indexed;
      indexed.method = method_kind::indexed;
      indexed.tuning.order_min_concurrency = 0;
      indexed.tuning.order_per_thread = 0;
      const auto ordered = run_nearest<Space>(observations, references, indexed, k);
      check_all(observations, references, ordered, indexed);
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(layouts_all, enabled_spaces);

// Above k = 32 the lists lie in lent memory: every layout and method, lists lent for all the
// searches at once and for 7 at a time (many turns a call, a short last one), k = 33, 100 and
// every reference; the Euclidean metric on clusters with duplicates; the tuned scans refuse it.
TEST_CASE_TEMPLATE_DEFINE("nearest: k above 32, every layout, lists lent in turns", Space, wide_k) {
  const auto check_ks = [](const host_points& observations, const host_points& references,
                           metric_kind metric, std::vector<std::size_t> ks) {
    for (const std::size_t k : ks) {
      CAPTURE(k);
      auto all = variants<Space>(metric, int(k));
      all.push_back({"auto", nearest_options{}});
      all.back().options.metric = metric;
      for (const std::size_t lent : {std::size_t(1) << 28, 7 * k * 20 + 19}) {
        CAPTURE(lent);
        for (auto v : all) {
          CAPTURE(v.name);
          v.options.tuning.wide_list_bytes = lent;
          v.options.tuning.order_min_concurrency = 0;  // the index's search in cell order too
          v.options.tuning.order_per_thread = 0;
          check_all(observations, references, run_nearest<Space>(observations, references, v.options, k),
                    v.options);
        }
      }
    }
  };
  for (const auto& name : layouts::names()) {
    CAPTURE(name);
    const auto sets = layouts::make(name, 61, 300, 80);
    const auto references = as_points(sets.references);
    check_ks(as_points(sets.observations), references, metric_kind::haversine, {33, 100, references.count()});
  }
  std::mt19937_64 random(81);
  std::normal_distribution<double> spread(0.0, 0.05);
  for (int dimension : {2, 3}) {
    CAPTURE(dimension);
    host_points observations, references;
    observations.dimension = references.dimension = std::size_t(dimension);
    for (host_points* set : {&references, &observations})
      for (int i = 0; i < 250; ++i) {  // five clusters, every fourth point a duplicate
        const double c = double(i % 5) * 3.0;
        double p[3] = {c + spread(random), c - spread(random), spread(random)};
        if (i % 4 == 3) std::copy(set->values.end() - dimension, set->values.end(), p);
        set->values.insert(set->values.end(), p, p + dimension);
      }
    check_ks(observations, references, metric_kind::euclidean, {40, 249, 250});
  }
  if (impl::nearest_tuned<Space>::available) {
    nearest_options tuned;
    tuned.method = method_kind::brute;
    tuned.implementation = implementation_kind::tuned;
    const auto points = uniform_sphere(40, 82);
    CHECK_THROWS_AS(run_nearest<Space>(points, points, tuned, 33), kernwerk::unsupported);
  }
}
TEST_CASE_TEMPLATE_APPLY(wide_k, enabled_spaces);

// The automatic method on every layout, this machine's probe included: whichever method the
// cost model picks, the answers are the float64 brute force's, and the report gives the
// prediction it went by.
TEST_CASE_TEMPLATE_DEFINE("nearest: auto's cost model on every layout", Space, auto_costs) {
  for (const auto& name : layouts::names()) {
    CAPTURE(name);
    const auto sets = layouts::make(name, 4096, 1100, 78);
    const auto observations = as_points(sets.observations), references = as_points(sets.references);
    for (const int k : {1, 8}) {
      CAPTURE(k);
      nearest_report report;
      nearest_options options;
      options.report = &report;
      check_all(observations, references, run_nearest<Space>(observations, references, options, k),
                options);
      INFO(report.reason);
      CHECK((report.reason.find("the index predicted at") != std::string::npos) ==
            impl::nearest_tuned<Space>::covers(metric_kind::haversine, k));
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(auto_costs, enabled_spaces);

// The Euclidean metric, which no tuned scan covers: auto indexes past 2^22 pairs (the index's
// search never costs more than the generic scan: 130 times less at 1e5 x 1e5 on the host) and
// scans fewer, with the brute force's answers either way; clusters with duplicates included.
TEST_CASE_TEMPLATE_DEFINE("nearest: auto indexes Euclidean sets past a few pairs", Space, auto_euclidean) {
  std::mt19937_64 random(79);
  std::uniform_real_distribution<double> uniform(-50.0, 50.0);
  std::normal_distribution<double> spread(0.0, 0.01);
  for (int dimension : {2, 3}) {
    CAPTURE(dimension);
    struct sizes {
      int n, m;
      method_kind expected;
    };
    for (const sizes size : {sizes{2500, 1800, method_kind::indexed}, sizes{300, 200, method_kind::brute}}) {
      const int n = size.n, m = size.m;
      const method_kind expected = size.expected;
      CAPTURE(n);
      host_points observations, references;
      observations.dimension = references.dimension = std::size_t(dimension);
      const auto add = [&](host_points& set, int count) {
        for (int i = 0; i < count; ++i) {
          double p[3] = {uniform(random), uniform(random), uniform(random)};
          if (i % 4 == 1) {  // a tight cluster around the previous point, duplicates among it
            const auto at = set.values.end() - dimension;
            for (int a = 0; a < dimension; ++a) p[a] = at[a] + (i % 8 == 1 ? 0.0 : spread(random));
          }
          dimension == 2 ? set.add(p[0], p[1]) : set.add(p[0], p[1], p[2]);
        }
      };
      add(references, m);
      add(observations, n);
      for (const int k : {1, 8}) {
        CAPTURE(k);
        nearest_report report;
        nearest_options options;
        options.metric = metric_kind::euclidean;
        options.report = &report;
        check_all(observations, references, run_nearest<Space>(observations, references, options, k), options);
        INFO(report.reason);
        CHECK(report.method == expected);
      }
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(auto_euclidean, enabled_spaces);

// The Euclidean layouts the benchmark times (perf/layouts.hpp: clusters, points on segments
// with no thickness, every reference 8 times), 2-D and 3-D, every method and auto, the index's
// search in cell order too, k = 1, 16 (the benchmark's) and 33 (lent lists).
TEST_CASE_TEMPLATE_DEFINE("nearest: every Euclidean layout, every method", Space, euclidean_layouts) {
  for (const auto& name : layouts::euclidean_names()) {
    CAPTURE(name);
    for (const int dimension : {2, 3}) {
      CAPTURE(dimension);
      const auto sets = layouts::make_euclidean(name, 300, 1200, dimension, 83);
      auto observations = as_points(sets.observations), references = as_points(sets.references);
      observations.dimension = references.dimension = std::size_t(dimension);
      for (const std::size_t k : {1u, 16u, 33u}) {
        CAPTURE(k);
        auto all = variants<Space>(metric_kind::euclidean, int(k));
        all.push_back({"auto", nearest_options{}});
        all.push_back({"indexed in cell order", all[1].options});
        all.back().options.tuning.order_min_concurrency = 0;
        all.back().options.tuning.order_per_thread = 0;
        for (auto& v : all) {
          CAPTURE(v.name);
          v.options.metric = metric_kind::euclidean;
          check_all(observations, references, run_nearest<Space>(observations, references, v.options, k),
                    v.options);
        }
      }
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(euclidean_layouts, enabled_spaces);

// The cost model against its own tables: each tabled cell read back, the midpoints between
// cells (log2 seconds halfway in log2 size), the line past the largest sizes, and the choice
// without a probe the faster method of the table's cell.
TEST_CASE_TEMPLATE_DEFINE("nearest: auto's cost model reads its table", Space, auto_table) {
  const impl::cost_table& table = impl::costs_of<Space>();
  const int ks[3] = {1, 8, 32};
  const auto cell = [&](const double (&cells)[3][8][5], int kk, int i, int j) {
    return std::log2(cells[kk][i][j]);
  };
  const int last_n = table.observation_sizes - 1, last_m = table.reference_sizes - 1;
  for (int kk = 0; kk < 3; ++kk) {
    CAPTURE(ks[kk]);
    for (const auto* cells : {&table.brute, &table.indexed}) {
      for (int i = 0; i < table.observation_sizes; ++i) {
        const double n = std::ldexp(1.0, table.log_observations[i]);
        for (int j = 0; j < table.reference_sizes; ++j) {
          const double m = std::ldexp(1.0, table.log_references[j]);
          CAPTURE(n);
          CAPTURE(m);
          CHECK(impl::log_seconds(table, *cells, n, m, ks[kk]) == doctest::Approx(cell(*cells, kk, i, j)));
          if (i < last_n) {
            const double half = std::exp2((table.log_observations[i] + table.log_observations[i + 1]) / 2.0);
            CHECK(impl::log_seconds(table, *cells, half, m, ks[kk]) ==
                  doctest::Approx((cell(*cells, kk, i, j) + cell(*cells, kk, i + 1, j)) / 2));
          }
        }
      }
      // Four times the largest observations: the last segment's line, two more steps of it.
      const double step = cell(*cells, kk, last_n, last_m) - cell(*cells, kk, last_n - 1, last_m);
      const double gap = table.log_observations[last_n] - table.log_observations[last_n - 1];
      CHECK(impl::log_seconds(table, *cells, std::ldexp(1.0, table.log_observations[last_n] + 2),
                              std::ldexp(1.0, table.log_references[last_m]), ks[kk]) ==
            doctest::Approx(cell(*cells, kk, last_n, last_m) + 2 * step / gap));
    }
    for (int i = 0; i < table.observation_sizes; ++i) {
      for (int j = 0; j < table.reference_sizes; ++j) {
        nearest_options options;
        options.tuning.cost_probe = false;
        const std::size_t n = std::size_t(1) << table.log_observations[i];
        const std::size_t m = std::size_t(1) << table.log_references[j];
        const bool faster = table.indexed[kk][i][j] <= table.brute[kk][i][j];
        CHECK((impl::choose_method<Space>(options, n, m, ks[kk], true).method == method_kind::indexed) == faster);
      }
    }
  }
  if (impl::nearest_tuned<Space>::available) {
    const double ratio = impl::machine_costs_of<Space>(nearest_tuning{}).ratio;
    MESSAGE(std::string(Space::name()) << ": this machine's index/brute-force ratio over the table's " << ratio);
    CHECK(ratio >= 0.125);
    CHECK(ratio <= 8.0);
  }
}
TEST_CASE_TEMPLATE_APPLY(auto_table, enabled_spaces);

// The index's frame: orthonormal rows that diagonalise the references' second moments, also
// where eigenvalues coincide or the matrix is zero (one reference).
TEST_CASE("sphere index: its frame is the principal axes of the references") {
  std::mt19937_64 random(5);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<std::array<double, 6>> cases = {
      {0, 0, 0, 0, 0, 0}, {1, 0, 0, 1, 0, 1}, {2, 0, 0, 2, 0, 1e-20}, {1, 1, 1, 1, 1, 1},
      {0.3356, 0, 0, 0.3356, 0, 0.3288}, {1e-12, 3e-13, 0, 1e-12, 0, 2.5e-31}};
  for (int c = 0; c < 40; ++c) {
    std::array<double, 6> m;
    for (double& v : m) v = uniform(random);
    cases.push_back(m);
  }
  for (const auto& m : cases) {
    const double a[3][3] = {{m[0], m[1], m[2]}, {m[1], m[3], m[4]}, {m[2], m[4], m[5]}};
    const auto frame = impl::rotation3::principal(m.data());
    double scale = 0;
    for (const auto& row : a)
      for (double v : row) scale = std::max(scale, std::abs(v));
    for (int e = 0; e < 3; ++e) {
      for (int f = 0; f < 3; ++f) {
        double dot = 0, moment = 0;  // row e . row f, and row e^T A row f
        for (int b = 0; b < 3; ++b) {
          dot += frame.row[e][b] * frame.row[f][b];
          for (int d = 0; d < 3; ++d) moment += frame.row[e][b] * a[b][d] * frame.row[f][d];
        }
        CHECK(std::abs(dot - (e == f ? 1.0 : 0.0)) < 1e-14);
        if (e != f) CHECK(std::abs(moment) <= 1e-13 * scale);
      }
    }
  }
}

}  // namespace

namespace {

// The index built once and queried with several observation sets, k, layouts and memory
// spaces gives what the one-shot call gives, bit for bit, and the float64 brute force's answer.
TEST_CASE_TEMPLATE_DEFINE("sphere_index: built once, queried many times", Space, index_reuse) {
  using memory_space = typename Space::memory_space;
  const auto sets = layouts::make("half-cap", 500, 3000, 91);
  const auto references = as_points(sets.references);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> host_references(
      "references", references.count(), 2);
  for (std::size_t i = 0; i < references.values.size(); ++i)
    host_references.data()[i] = references.values[i];
  const sphere_index<Space> index(Space(), host_references);
  CHECK(index.size() == references.count());
  CHECK(index.bytes() > 0);
  Kokkos::deep_copy(host_references, 0.0);  // the index keeps its own copy

  nearest_options indexed;
  indexed.method = method_kind::indexed;
  for (const auto& name : {"uniform", "polar", "same-cap"}) {
    CAPTURE(name);
    const auto observations = as_points(layouts::make(name, 400, 10, 92).observations);
    const auto device_obs = Kokkos::create_mirror_view_and_copy(
        memory_space(), Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                     Kokkos::MemoryUnmanaged>(observations.values.data(),
                                                              observations.count(), 2));
    for (const std::size_t k : {1u, 5u, 32u}) {
      CAPTURE(k);
      Kokkos::View<std::int64_t**, Kokkos::LayoutRight, memory_space> indices("indices",
                                                                              observations.count(), k);
      Kokkos::View<double**, Kokkos::LayoutRight, memory_space> distances("distances",
                                                                          observations.count(), k);
      index.nearest(Space(), device_obs, indices, distances);
      neighbours result{std::vector<std::int64_t>(indices.size()), std::vector<double>(distances.size()), k};
      Kokkos::deep_copy(Kokkos::View<std::int64_t**, Kokkos::LayoutRight, Kokkos::HostSpace>(
                            result.indices.data(), observations.count(), k), indices);
      Kokkos::deep_copy(Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>(
                            result.distances.data(), observations.count(), k), distances);
      check_all(observations, references, result, indexed);
      const auto once = run_nearest<Space>(observations, references, indexed, k);
      CHECK(once.indices == result.indices);
      CHECK(once.distances == result.distances);
    }
    // Host Views in and out, rank-1 outputs.
    std::vector<std::int64_t> indices(observations.count(), -1);
    std::vector<double> distances(observations.count(), -1.0);
    index.nearest(Space(),
                  Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace,
                               Kokkos::MemoryUnmanaged>(observations.values.data(),
                                                        observations.count(), 2),
                  Kokkos::View<std::int64_t*, Kokkos::HostSpace>(indices.data(), indices.size()),
                  Kokkos::View<double*, Kokkos::HostSpace>(distances.data(), distances.size()));
    check_all(observations, references, {indices, distances, 1}, indexed);
  }
}
TEST_CASE_TEMPLATE_APPLY(index_reuse, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("sphere_index: bad input names the argument", Space, index_errors) {
  using memory_space = typename Space::memory_space;
  using points_view = Kokkos::View<double**, Kokkos::LayoutRight, memory_space>;
  const auto expect = [](auto&& call, const std::string& text) {
    try {
      call();
      FAIL("no error; expected one naming " << text);
    } catch (const invalid_argument& failure) {
      CHECK(std::string(failure.what()).find(text) != std::string::npos);
    }
  };
  expect([] { sphere_index<Space>(Space(), points_view("empty", 0, 2)); }, "references: empty set");
  expect([] { sphere_index<Space>(Space(), points_view("three", 4, 3)); }, "references: haversine points have 2");
  points_view bad("bad", 3, 2);
  Kokkos::deep_copy(Kokkos::subview(bad, 1, 0), 2.0);  // past the pole in radians
  expect([&] { sphere_index<Space>(Space(), bad); }, "references: point 1");
  // 2^31 references: refused before a point is read (the View spans 16 bytes of memory).
  const Kokkos::View<const double**, Kokkos::LayoutRight, memory_space, Kokkos::MemoryUnmanaged>
      past_int32(bad.data(), std::size_t(1) << 31, 2);
  expect([&] { sphere_index<Space>(Space(), past_int32); }, "references: more than 2^31 - 1 points");
  sphere_index_options negative;
  negative.radius = -1;
  expect([&] { sphere_index<Space>(Space(), points_view("ok", 3, 2), negative); }, "options.radius");

  const sphere_index<Space> index(Space(), points_view("three", 3, 2));
  Kokkos::View<std::int64_t**, memory_space> four("four", 2, 4);
  Kokkos::View<double**, memory_space> four_distances("four", 2, 4);
  expect([&] { index.nearest(Space(), points_view("obs", 2, 2), four, four_distances); },
         "k = 4 neighbours, but references hold 3");
  points_view nan_obs("nan", 2, 2);
  Kokkos::deep_copy(Kokkos::subview(nan_obs, 1, 1), std::nan(""));
  Kokkos::View<std::int64_t*, memory_space> indices("indices", 2);
  Kokkos::View<double*, memory_space> distances("distances", 2);
  Kokkos::deep_copy(indices, 7);
  expect([&] { index.nearest(Space(), nan_obs, indices, distances); }, "observations: point 1");
  CHECK(test::to_host_vector<std::int64_t, Space>(indices) == std::vector<std::int64_t>{7, 7});
  expect([&] { index.nearest(Space(), points_view("obs", 3, 2), indices, distances); },
         "indices: length 2 is shorter than observations (3)");
}
TEST_CASE_TEMPLATE_APPLY(index_errors, enabled_spaces);

}  // namespace
