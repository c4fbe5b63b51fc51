// kernwerk::nearest against the float64 brute force, on every enabled execution space.
#include <cstdlib>
#include <type_traits>
#include <vector>

#include "execution_spaces.hpp"
#include "kernwerk/impl/math.hpp"
#include "nearest_support.hpp"

namespace {

using namespace kernwerk;
using namespace kernwerk::test;

constexpr double pi = M_PI;

TEST_CASE_TEMPLATE_DEFINE("nearest: random points on the sphere", Space, random_sphere) {
  const auto observations = uniform_sphere(3000, 1);
  const auto references = uniform_sphere(700, 2);
  auto all = variants<Space>();
  all.push_back({"auto", nearest_options{}});
  for (const auto& v : all) {
    CAPTURE(v.name);
    check_all(observations, references, run_nearest<Space>(observations, references, v.options),
              v.options);
  }
}
TEST_CASE_TEMPLATE_APPLY(random_sphere, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("nearest: degrees and an earth radius", Space, degrees_radius) {
  const auto observations = uniform_sphere(1000, 3, true);
  const auto references = uniform_sphere(300, 4, true);
  for (auto v : variants<Space>()) {
    CAPTURE(v.name);
    v.options.units = angle_unit::degrees;
    v.options.radius = 6371.0088;
    check_all(observations, references, run_nearest<Space>(observations, references, v.options),
              v.options);
  }
}
TEST_CASE_TEMPLATE_APPLY(degrees_radius, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("nearest: float32 coordinates and LayoutLeft Views", Space,
                          float_layout_left) {
  const auto observations = rounded<float>(uniform_sphere(1000, 5));
  const auto references = rounded<float>(uniform_sphere(400, 6));
  for (const auto& v : variants<Space>()) {
    CAPTURE(v.name);
    const auto& options = v.options;
    check_all(observations, references,
              run_nearest<Space, float>(observations, references, options), options);
    check_all(observations, references,
              run_nearest<Space, float, Kokkos::LayoutLeft>(observations, references, options),
              options);
    check_all(observations, references,
              run_nearest<Space, double, Kokkos::LayoutLeft>(observations, references, options),
              options);
  }
}
TEST_CASE_TEMPLATE_APPLY(float_layout_left, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("nearest: poles, the date line, antipodes", Space, adversarial_sphere) {
  host_points references;
  for (double lon : {-pi, -pi / 2, 0.0, 1.0, pi / 2, pi}) {
    references.add(pi / 2, lon);   // every longitude of the north pole is the same point
    references.add(-pi / 2, lon);
  }
  for (double lat : {-1.2, -0.3, 0.0, 0.4, 1.3}) {
    references.add(lat, pi);                  // on the date line, from both sides
    references.add(lat, -pi);
    references.add(lat, pi - 1e-9);
    references.add(lat, -pi + 1e-9);
  }
  host_points observations;
  for (double lon : {-pi, -3.0, 0.0, 2.0, pi}) {
    observations.add(pi / 2, lon);
    observations.add(-pi / 2, lon);
    observations.add(pi / 2 - 1e-7, lon);
  }
  for (double lat : {-1.2, -0.3, 0.0, 0.4, 1.3}) {
    observations.add(lat, pi - 2e-10);
    observations.add(lat, -pi + 3e-10);
    observations.add(-lat, 0.0);  // antipode of the date-line points
    observations.add(-lat, 1e-12);
  }
  for (const auto& v : variants<Space>()) {
    CAPTURE(v.name);
    const auto& options = v.options;
    const auto result = run_nearest<Space>(observations, references, options);
    check_all(observations, references, result, options);
    // The north pole, whatever the longitude, is reference 0 at distance 0.
    CHECK(result.indices[0] == 0);
    CHECK(result.distances[0] == doctest::Approx(0).epsilon(1e-15));
  }
}
TEST_CASE_TEMPLATE_APPLY(adversarial_sphere, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("nearest: duplicates and ties go to the smallest index", Space,
                          ties) {
  auto references = uniform_sphere(200, 7);
  // Reference 250 onwards repeat references 10..59; reference 300 onwards repeat them again.
  for (int copy = 0; copy < 2; ++copy) {
    for (std::size_t j = 10; j < 60; ++j) references.add_copy(references, j);
  }
  host_points observations;
  for (std::size_t j = 10; j < 60; ++j)
    observations.add_copy(references, j);
  // Symmetric exact ties around (0.5, 0.5): four references at the same float64 distance.
  host_points symmetric;
  symmetric.add(0.9, 0.0);  // farther: a decoy with a smaller index
  symmetric.add(0.5, 0.5 + 1e-3);
  symmetric.add(0.5, 0.5 - 1e-3);
  symmetric.add(0.5, 0.5 + 1e-3);
  host_points centre;
  centre.add(0.5, 0.5);

  for (const auto& v : variants<Space>()) {
    CAPTURE(v.name);
    const auto& options = v.options;
    const auto result = run_nearest<Space>(observations, references, options);
    check_all(observations, references, result, options);
    for (std::size_t k = 0; k < observations.count(); ++k) {
      CHECK(result.indices[k] == static_cast<std::int64_t>(k + 10));
      CHECK(result.distances[k] == 0.0);
    }
    const auto tie = run_nearest<Space>(centre, symmetric, options);
    check_all(centre, symmetric, tie, options);
    CHECK(tie.indices[0] == 1);
  }
}
TEST_CASE_TEMPLATE_APPLY(ties, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("nearest: near ties the chord cannot separate", Space, near_ties) {
  // Points a few ulps apart around two spots 1e-9 rad from each other: squared chords carry
  // errors larger than these gaps, so the float64 haversine must decide.
  std::mt19937_64 random(13);
  std::uniform_int_distribution<int> ulps(0, 40);
  auto near = [&](double value) {
    for (int k = ulps(random); k > 0; --k) value = std::nextafter(value, 10.0);
    return value;
  };
  host_points references, observations;
  for (int k = 0; k < 300; ++k) references.add(near(0.3 + 1e-9), near(-2.0 + 1e-9));
  for (int k = 0; k < 100; ++k) observations.add(near(0.3), near(-2.0));
  for (const auto& v : variants<Space>()) {
    CAPTURE(v.name);
    const auto& options = v.options;
    check_all(observations, references, run_nearest<Space>(observations, references, options),
              options);
  }
}
TEST_CASE_TEMPLATE_APPLY(near_ties, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("nearest: near copies of a point around the short lists' length", Space,
                          repeated) {
  // The tuned GPU scan keeps 8 candidates an observation and leaves more to a second pass; the
  // host scan keeps 16. Copies of one point 1e-11 rad apart (float32 cannot order them, float64
  // can), the last copy nearest to the point itself: 7 references apart (over sub-blocks of one
  // split of the references, so that the lists overflow) or spread over the whole set (over
  // splits); observations on the point, next to it and elsewhere.
  const auto uniform = uniform_sphere(3000, 41);
  const double lat = 0.4, lon = -1.1;
  for (const std::size_t copies : {2, 7, 8, 9, 17, 40}) {
    for (const std::size_t spacing : {std::size_t(7), uniform.count() / copies}) {
      CAPTURE(copies);
      CAPTURE(spacing);
      host_points references;
      std::int64_t last_copy = -1;
      std::size_t placed = 0;
      for (std::size_t j = 0; j < uniform.count(); ++j) {
        references.add_copy(uniform, j);
        if (placed < copies && j % spacing == 5) {
          last_copy = static_cast<std::int64_t>(references.count());
          references.add(lat + double(copies - placed) * 1e-11, lon);
          ++placed;
        }
      }
      REQUIRE(placed == copies);
      host_points observations;
      observations.add(lat, lon);
      for (const double step : {1e-9, 1e-7, 1e-4})
        for (const double sign : {-1.0, 1.0}) {
          observations.add(lat + sign * step, lon);
          observations.add(lat, lon + sign * step);
        }
      const auto elsewhere = uniform_sphere(200, 42);
      for (std::size_t i = 0; i < elsewhere.count(); ++i) observations.add_copy(elsewhere, i);
      for (const auto& v : variants<Space>()) {
        CAPTURE(v.name);
        const auto result = run_nearest<Space>(observations, references, v.options);
        check_all(observations, references, result, v.options);
        CHECK(result.indices[0] == last_copy);
      }
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(repeated, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("nearest: clusters tighter than the float32 margin", Space,
                          tight_clusters) {
  // Inside a cluster of radius 1e-5 or 1e-6 rad, float32 values cannot order the references, and
  // the tuned brute forces give the observations there up to a second stage: a few of them to
  // the float64 scan, many to an index of the references (host: 64 and more; GPU: k >= 2, or
  // k = 1 from 256 + 2^25 / m, 9374 here). Each set of observations here is one call's.
  auto references = uniform_sphere(3000, 51);
  const auto wide = uniform_sphere(600, 52), narrow = uniform_sphere(80, 53);
  for (std::size_t j = 0; j < wide.count(); ++j)
    references.add(0.3 + 1e-5 * wide.values[2 * j] / M_PI, 1.0 + 1e-5 * wide.values[2 * j + 1] / M_PI);
  for (std::size_t j = 0; j < narrow.count(); ++j)
    references.add(-0.8 + 1e-6 * narrow.values[2 * j] / M_PI, -2.5 + 1e-6 * narrow.values[2 * j + 1] / M_PI);
  const auto elsewhere = uniform_sphere(100, 54);
  constexpr bool host_space = std::is_same_v<typename Space::memory_space, Kokkos::HostSpace>;
  struct call {
    std::size_t crowded;
    std::vector<int> ks;
  };
  for (const call& c : {call{10, {1, 4, 32}}, call{300, {4, 32}}, call{10000, {1}}}) {
    const std::size_t crowded = c.crowded;
    host_points observations;
    for (std::size_t i = 0; i < crowded; ++i) {
      const double t = double(i) + 0.5;
      if (crowded < 32) observations.add(-0.8 + 3e-7 * std::sin(t), -2.5 + 3e-7 * std::cos(2.0 * t));
      else observations.add(0.3 + 8e-6 * std::sin(t), 1.0 + 8e-6 * std::cos(2.7 * t));
    }
    for (std::size_t i = 0; i < elsewhere.count(); ++i) observations.add_copy(elsewhere, i);
    observations.add_copy(references, 3100);  // on a cluster's reference
    for (const int k : c.ks) {
      CAPTURE(crowded);
      CAPTURE(k);
      for (const auto& v : variants<Space>(metric_kind::haversine, k)) {
        // The GPU's k = 1 index path; host spaces and the other variants: the calls above.
        if (crowded > 1000 && (host_space || v.name != "brute tuned")) continue;
        CAPTURE(v.name);
        check_all(observations, references, run_nearest<Space>(observations, references, v.options, k),
                  v.options);
      }
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(tight_clusters, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("nearest: single-point sets", Space, single_points) {
  const auto many = uniform_sphere(500, 8);
  const auto one = uniform_sphere(1, 9);
  for (const auto& v : variants<Space>()) {
    CAPTURE(v.name);
    const auto& options = v.options;
    const auto to_one = run_nearest<Space>(many, one, options);
    check_all(many, one, to_one, options);
    for (auto index : to_one.indices) CHECK(index == 0);
    check_all(one, many, run_nearest<Space>(one, many, options), options);
    check_all(one, one, run_nearest<Space>(one, one, options), options);
  }
}
TEST_CASE_TEMPLATE_APPLY(single_points, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("nearest: euclidean in 2-D and 3-D", Space, euclidean) {
  for (std::size_t dimension : {2u, 3u}) {
    CAPTURE(dimension);
    auto references = uniform_box(600, dimension, 10 + dimension);
    const auto observations = uniform_box(1500, dimension, 20 + dimension);
    // Duplicate the first ten references at the end: the earlier copy must win.
    for (std::size_t k = 0; k < 10 * dimension; ++k) references.values.push_back(references.values[k]);
    for (const auto& v : variants<Space>(metric_kind::euclidean)) {
      CAPTURE(v.name);
      const auto result = run_nearest<Space>(observations, references, v.options);
      check_all(observations, references, result, v.options);
      const auto exact = run_nearest<Space>(references, references, v.options);
      for (std::size_t k = 0; k < references.count(); ++k)
        CHECK(exact.indices[k] == static_cast<std::int64_t>(k < 600 ? k : k - 600));
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(euclidean, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("nearest: host Views with any execution space", Space, host_views) {
  const auto observations = uniform_sphere(300, 11);
  const auto references = uniform_sphere(100, 12);
  std::vector<std::int64_t> indices(observations.count() + 5, -7);
  std::vector<double> distances(observations.count() + 5, -7.0);
  const nearest_options options;
  run_on_host_views<Space>(observations, references, indices, distances, options);
  check_all(observations, references, {indices, distances}, options);
  // Outputs longer than the observations keep their tail.
  for (std::size_t k = observations.count(); k < indices.size(); ++k) {
    CHECK(indices[k] == -7);
    CHECK(distances[k] == -7.0);
  }
}
TEST_CASE_TEMPLATE_APPLY(host_views, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("nearest: k nearest, sorted, ties by index", Space, k_nearest) {
  auto references = uniform_sphere(900, 17);
  for (std::size_t j = 0; j < 40; ++j)  // duplicates: equal distances among the k
    references.add_copy(references, j);
  // More near copies of one point than the tuned GPU scan notes before it decides (the k-th
  // value's margin holds them all): 70, 1e-11 rad apart, float32 cannot order them.
  for (int copy = 0; copy < 70; ++copy) references.add(0.3, 0.9 + 1e-11 * ((copy * 37) % 70));
  auto observations = uniform_sphere(400, 18);
  for (std::size_t j = 0; j < 40; ++j) observations.add_copy(references, j);
  observations.add(M_PI / 2, 0.3);  // the pole and the date line
  observations.add(0.2, M_PI);
  observations.add(0.3, 0.9 + 3.5e-10);  // among the near copies, and beside them
  observations.add(0.3 + 1e-6, 0.9);
  // (each list capacity full, and 3, 6 and 12 short of theirs: neighbour_list's slots past k)
  for (std::size_t k : {2u, 3u, 6u, 8u, 12u, 17u, 32u}) {
    CAPTURE(k);
    for (const auto& v : variants<Space>(metric_kind::haversine, int(k))) {
      CAPTURE(v.name);
      const auto result = run_nearest<Space>(observations, references, v.options, k);
      check_all(observations, references, result, v.options);
    }
  }
  // k equal to the number of references: every reference, in order.
  const auto few = uniform_sphere(5, 19);
  for (const auto& v : variants<Space>(metric_kind::haversine, 5))
    check_all(observations, few, run_nearest<Space>(observations, few, v.options, 5), v.options);
  const auto box_refs = uniform_box(300, 3, 20), box_obs = uniform_box(200, 3, 21);
  for (const auto& v : variants<Space>(metric_kind::euclidean, 6)) {
    CAPTURE(v.name);
    check_all(box_obs, box_refs, run_nearest<Space>(box_obs, box_refs, v.options, 6), v.options);
  }
}
TEST_CASE_TEMPLATE_APPLY(k_nearest, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("nearest: indexed on clustered and sparse references", Space,
                          indexed_layouts) {
  nearest_options indexed;
  indexed.method = method_kind::indexed;
  // All references in one small cap, observations everywhere: long searches through empty cells.
  host_points cap;
  for (int k = 0; k < 2000; ++k) cap.add(1.2 + 1e-3 * std::sin(k * 0.37), 0.5 + 1e-3 * std::cos(k * 1.3));
  const auto everywhere = uniform_sphere(300, 22);
  check_all(everywhere, cap, run_nearest<Space>(everywhere, cap, indexed), indexed);
  check_all(everywhere, cap, run_nearest<Space>(everywhere, cap, indexed, 4), indexed);
  // References on a great circle and at both poles; observations near the poles.
  host_points ring;
  for (int k = 0; k < 720; ++k) ring.add(0.0, -M_PI + k * M_PI / 360);
  ring.add(M_PI / 2, 0.0);
  ring.add(-M_PI / 2, 1.0);
  host_points polar;
  for (int k = 0; k < 100; ++k) polar.add((k % 2 ? 1 : -1) * (M_PI / 2 - 1e-3 * k), 0.1 * k);
  check_all(polar, ring, run_nearest<Space>(polar, ring, indexed), indexed);
  check_all(polar, ring, run_nearest<Space>(polar, ring, indexed, 3), indexed);
  // Large sets: the automatic choice is the index.
  const auto many_refs = uniform_sphere(20000, 23), many_obs = uniform_sphere(1000, 24);
  check_all(many_obs, many_refs, run_nearest<Space>(many_obs, many_refs, nearest_options{}),
            nearest_options{});
}
TEST_CASE_TEMPLATE_APPLY(indexed_layouts, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("nearest: every method and implementation agrees bit for bit", Space,
                          agreement) {
  // Clustered references (many near ties) among uniform ones, and observations on top of them.
  auto references = uniform_sphere(4000, 14);
  const auto cluster = uniform_sphere(1500, 15);
  for (std::size_t k = 0; k < cluster.count(); ++k)
    references.add(0.7 + 1e-6 * cluster.values[2 * k], 2.0 + 1e-6 * cluster.values[2 * k + 1]);
  auto observations = uniform_sphere(3000, 16);
  for (std::size_t k = 0; k < 2000; ++k)
    observations.add(0.7 + 1e-6 * std::sin(double(k)), 2.0 + 1e-6 * std::cos(3.0 * k));
  for (std::size_t k = 0; k < 500; ++k)
    observations.add_copy(references, 7 * k);
  for (const int k : {1, 3, 32}) {
    CAPTURE(k);
    const auto all = variants<Space>(metric_kind::haversine, k);
    const auto first = run_nearest<Space>(observations, references, all[0].options, k);
    check_all(observations, references, first, all[0].options);
    for (std::size_t v = 1; v < all.size(); ++v) {
      CAPTURE(all[v].name);
      const auto other = run_nearest<Space>(observations, references, all[v].options, k);
      int differing = 0;
      for (std::size_t e = 0; e < first.indices.size(); ++e)
        if (first.indices[e] != other.indices[e] || first.distances[e] != other.distances[e]) {
          if (++differing <= 5)
            FAIL_CHECK("observation " << e / k << ", neighbour " << e % k << ": " << all[0].name
                                      << " " << first.indices[e] << " at " << first.distances[e]
                                      << ", " << all[v].name << " " << other.indices[e] << " at "
                                      << other.distances[e]);
        }
      CHECK(differing == 0);
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(agreement, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("nearest: the indexed search in cell order agrees", Space,
                          indexed_order) {
  auto references = uniform_sphere(6000, 35);
  for (std::size_t j = 0; j < 100; ++j)
    references.add_copy(references, j);
  auto observations = uniform_sphere(4000, 36);
  for (std::size_t j = 0; j < 100; ++j)
    observations.add_copy(references, j);
  nearest_options indexed;
  indexed.method = method_kind::indexed;
  for (std::size_t k : {1u, 3u}) {
    CAPTURE(k);
    const auto plain = run_nearest<Space>(observations, references, indexed, k);
    nearest_options ordering = indexed;
    ordering.tuning.order_min_concurrency = 0;  // every set goes through the counting sort
    ordering.tuning.order_per_thread = 0;
    const auto ordered = run_nearest<Space>(observations, references, ordering, k);
    CHECK(ordered.indices == plain.indices);
    CHECK(ordered.distances == plain.distances);
    check_all(observations, references, ordered, indexed);
  }
}
TEST_CASE_TEMPLATE_APPLY(indexed_order, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("nearest: chunked under a memory budget, bit for bit", Space, chunked) {
  auto references = uniform_sphere(5000, 29);
  for (std::size_t j = 0; j < 200; ++j)  // duplicates across chunk boundaries
    references.add_copy(references, j);
  auto observations = uniform_sphere(3000, 30);
  for (std::size_t j = 0; j < 200; ++j)
    observations.add_copy(references, j);
  for (std::size_t k : {1u, 4u, 40u}) {  // 40: lists in lent memory, merged past 32 a row
    for (const auto& v : variants<Space>(metric_kind::haversine, int(k))) {
      CAPTURE(k);
      CAPTURE(v.name);
      const auto whole = run_nearest<Space>(observations, references, v.options, k);
      for (std::size_t budget : {std::size_t(1) << 20, std::size_t(200) << 10}) {
        CAPTURE(budget);
        auto options = v.options;
        options.memory_budget = budget;  // far below the sets: several chunks of each
        const auto chunked = run_nearest<Space>(observations, references, options, k);
        CHECK(chunked.indices == whole.indices);
        CHECK(chunked.distances == whole.distances);
      }
    }
  }
  // Host inputs with any space, LayoutLeft, float: staged through the host.
  nearest_options small;
  small.memory_budget = 256 << 10;
  const auto whole = run_nearest<Space, float, Kokkos::LayoutLeft>(observations, references, {});
  const auto chunked = run_nearest<Space, float, Kokkos::LayoutLeft>(observations, references, small);
  CHECK(chunked.indices == whole.indices);
  CHECK(chunked.distances == whole.distances);
  // Euclidean too.
  nearest_options euclidean;
  euclidean.metric = metric_kind::euclidean;
  const auto box_refs = uniform_box(4000, 3, 31), box_obs = uniform_box(2000, 3, 32);
  const auto box_whole = run_nearest<Space>(box_obs, box_refs, euclidean, 3);
  euclidean.memory_budget = 200 << 10;
  const auto box_chunked = run_nearest<Space>(box_obs, box_refs, euclidean, 3);
  CHECK(box_chunked.indices == box_whole.indices);
  CHECK(box_chunked.distances == box_whole.distances);
}
TEST_CASE_TEMPLATE_APPLY(chunked, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("nearest: host Views with a budget below the sets", Space,
                          chunked_host_views) {
  // The case the budget is for: inputs in host memory, larger than the budget, any space.
  const auto observations = uniform_sphere(3000, 33);
  const auto references = uniform_sphere(5000, 34);
  std::vector<std::int64_t> indices(observations.count());
  std::vector<double> distances(observations.count());
  nearest_options options;
  options.memory_budget = 160 << 10;  // inputs alone are 125 KiB, with scratch far more
  run_on_host_views<Space>(observations, references, indices, distances, options);
  check_all(observations, references, {indices, distances}, options);
}
TEST_CASE_TEMPLATE_APPLY(chunked_host_views, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("nearest: small host Views of any layout, in one pass", Space,
                          small_host_views) {
  // Host sets below the pipeline's size: on a GPU copied in whole (straight from memory laid
  // out row by row, else through staging), checked there and copied out. Row-major, column-major
  // and strided sets; outputs row-major, column-major and of other types. The answers must
  // be those of device-resident Views bit for bit, and the float64 brute force's.
  const std::size_t n = 1500, m = 900;
  const auto observations = uniform_sphere(n, 41), references = uniform_sphere(m, 42);
  using host = Kokkos::HostSpace;
  // The points as a View of Layout over a buffer of `stride` values a row (LayoutStride: rows
  // 5 values apart).
  const auto fill = [](auto view, const host_points& points) {
    for (std::size_t i = 0; i < points.count(); ++i)
      for (int d = 0; d < 2; ++d) view(i, d) = points.values[2 * i + d];
    return view;
  };
  std::vector<double> obs_buffer(5 * n), ref_buffer(5 * m);
  using strided = Kokkos::View<double**, Kokkos::LayoutStride, host, Kokkos::MemoryUnmanaged>;
  const auto obs_right = fill(Kokkos::View<double**, Kokkos::LayoutRight, host>("obs", n, 2), observations);
  const auto ref_right = fill(Kokkos::View<double**, Kokkos::LayoutRight, host>("ref", m, 2), references);
  const auto obs_left = fill(Kokkos::View<double**, Kokkos::LayoutLeft, host>("obs", n, 2), observations);
  const auto ref_left = fill(Kokkos::View<double**, Kokkos::LayoutLeft, host>("ref", m, 2), references);
  const auto obs_strided =
      fill(strided(obs_buffer.data(), Kokkos::LayoutStride(n, 5, 2, 1)), observations);
  const auto ref_strided =
      fill(strided(ref_buffer.data(), Kokkos::LayoutStride(m, 5, 2, 1)), references);
  for (const std::size_t k : {std::size_t(1), std::size_t(3)}) {
    for (const auto& v : variants<Space>(metric_kind::haversine, int(k))) {
      CAPTURE(k);
      CAPTURE(v.name);
      const auto expected = run_nearest<Space>(observations, references, v.options, k);
      check_all(observations, references, expected, v.options);
      const auto check = [&](const auto& obs, const auto& ref, const char* layouts) {
        CAPTURE(layouts);
        // Row-major int64 / double outputs, and column-major int32 / double ones; poisoned.
        Kokkos::View<std::int64_t**, Kokkos::LayoutRight, host> right_index("i", n, k);
        Kokkos::View<double**, Kokkos::LayoutRight, host> right_distance("d", n, k);
        Kokkos::View<std::int32_t**, Kokkos::LayoutLeft, host> left_index("i", n, k);
        Kokkos::View<double**, Kokkos::LayoutLeft, host> left_distance("d", n, k);
        Kokkos::deep_copy(right_index, -1);
        Kokkos::deep_copy(left_index, -1);
        Kokkos::deep_copy(right_distance, -1.0);
        Kokkos::deep_copy(left_distance, -1.0);
        kernwerk::nearest(Space(), obs, ref, right_index, right_distance, v.options);
        kernwerk::nearest(Space(), obs, ref, left_index, left_distance, v.options);
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < n; ++i)
          for (std::size_t q = 0; q < k; ++q) {
            const auto want_index = expected.indices[i * k + q];
            const double want_distance = expected.distances[i * k + q];
            wrong += right_index(i, q) != want_index || left_index(i, q) != want_index ||
                     right_distance(i, q) != want_distance || left_distance(i, q) != want_distance;
          }
        CHECK(wrong == 0);
      };
      check(obs_right, ref_right, "row-major sets");
      check(obs_left, ref_left, "column-major sets");
      check(obs_strided, ref_right, "strided observations");
      check(obs_right, ref_strided, "strided references");
      if (k == 1) {  // rank-1 outputs in plain vectors
        std::vector<std::int64_t> indices(n, -1);
        std::vector<double> distances(n, -1.0);
        run_on_host_views<Space>(observations, references, indices, distances, v.options);
        CHECK(indices == expected.indices);
        CHECK(distances == expected.distances);
      }
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(small_host_views, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("nearest: host Views large enough for the chunk pipeline", Space,
                          pipelined_host_views) {
  // On a GPU, host sets this large go through the pipeline (copies beside the computation)
  // even when they fit; outputs of other types and layouts are converted on the way out.
  const std::size_t n = impl::pipeline_min_rows + 4321, k = 2;
  const auto observations = uniform_sphere(n, 35);
  const auto references = uniform_sphere(700, 36);
  const auto expected = run_nearest<Space, float, Kokkos::LayoutLeft>(observations, references,
                                                                      nearest_options{}, k);
  Kokkos::View<float**, Kokkos::LayoutLeft, Kokkos::HostSpace> obs("obs", n, 2), ref("ref", 700, 2);
  for (std::size_t i = 0; i < n; ++i)
    for (int d = 0; d < 2; ++d) obs(i, d) = float(observations.values[2 * i + d]);
  for (std::size_t i = 0; i < 700; ++i)
    for (int d = 0; d < 2; ++d) ref(i, d) = float(references.values[2 * i + d]);
  for (std::size_t budget : {std::size_t(0), std::size_t(4) << 20}) {
    CAPTURE(budget);
    nearest_options options;
    options.memory_budget = budget;
    Kokkos::View<std::int32_t**, Kokkos::LayoutLeft, Kokkos::HostSpace> indices("indices", n, k);
    Kokkos::View<float**, Kokkos::LayoutLeft, Kokkos::HostSpace> distances("distances", n, k);
    kernwerk::nearest(Space(), obs, ref, indices, distances, options);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t q = 0; q < k; ++q)
        wrong += indices(i, q) != expected.indices[i * k + q] ||
                 distances(i, q) != float(expected.distances[i * k + q]);
    CHECK(wrong == 0);
  }
}
TEST_CASE_TEMPLATE_APPLY(pipelined_host_views, enabled_spaces);

// Observation counts past 2^31 on one View: loops, orders and outputs in 64-bit indices all the
// way. About 60 GB of memory, so only where KERNWERK_LARGE_TESTS is set (the device record sets
// it on the H200). Points from a hash of their row; every row's answer must be a reference
// (none left unwritten or wrapped onto another row), and a sample, with the rows around 2^31,
// the float64 brute force's.
struct hashed_observations {
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace::memory_space> points;
  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    std::uint64_t z = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull;  // splitmix64
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const double u = double(z >> 40) / double(1ull << 24), v = double(z & 0xFFFFFF) / double(1 << 24);
    points(i, 0) = static_cast<float>(kernwerk::impl::math::asin(2.0 * u - 1.0));
    points(i, 1) = static_cast<float>(M_PI * (2.0 * v - 1.0));
  }
};
template <class Indices, class Distances>
struct unanswered_rows {
  Indices indices;
  Distances distances;
  std::int64_t references;
  KOKKOS_FUNCTION void operator()(const std::int64_t i, std::int64_t& bad) const {
    if (indices(i) < 0 || indices(i) >= references || !(distances(i) >= 0.0 && distances(i) <= M_PI))
      ++bad;
  }
};

TEST_CASE("nearest: more than 2^31 observations (KERNWERK_LARGE_TESTS)") {
  using Space = Kokkos::DefaultExecutionSpace;
  using memory_space = Space::memory_space;
  if (!std::getenv("KERNWERK_LARGE_TESTS")) return;
  const std::int64_t n = (std::int64_t(1) << 31) + 3;
  const auto references = uniform_sphere(1000, 91);
  Kokkos::View<double**, Kokkos::LayoutRight, memory_space> ref("references", references.count(), 2);
  Kokkos::deep_copy(ref, Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace>(
                             references.values.data(), references.count(), 2));
  Kokkos::View<float**, Kokkos::LayoutRight, memory_space> obs(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "observations"), n, 2);
  Kokkos::View<std::int64_t*, memory_space> indices("indices", n);
  Kokkos::View<double*, memory_space> distances("distances", n);
  using policy = Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for(policy(0, n), hashed_observations{obs});

  std::vector<std::int64_t> rows = {0, 1, (std::int64_t(1) << 31) - 2, (std::int64_t(1) << 31) - 1,
                                    std::int64_t(1) << 31, (std::int64_t(1) << 31) + 1, n - 1};
  for (std::int64_t r = 0; r < 2000; ++r) rows.push_back(r * (n / 2000) + 7);
  host_points sample;
  for (const std::int64_t r : rows) {
    float point[2];
    Kokkos::deep_copy(Kokkos::View<float*, Kokkos::HostSpace>(point, 2), Kokkos::subview(obs, r, Kokkos::ALL()));
    sample.add(point[0], point[1]);
  }
  for (const auto method : {method_kind::automatic, method_kind::brute}) {
    const std::string method_name = to_string(method);
    CAPTURE(method_name);
    nearest_options options;
    options.method = method;
    Kokkos::deep_copy(indices, -1);
    kernwerk::nearest(Space(), obs, ref, indices, distances, options);
    std::int64_t bad = 0;
    Kokkos::parallel_reduce(policy(0, n),
                            unanswered_rows<decltype(indices), decltype(distances)>{
                                indices, distances, std::int64_t(references.count())},
                            bad);
    CHECK(bad == 0);
    neighbours found;
    for (const std::int64_t r : rows) {
      std::int64_t index;
      double distance;
      Kokkos::deep_copy(Kokkos::View<std::int64_t, Kokkos::HostSpace>(&index), Kokkos::subview(indices, r));
      Kokkos::deep_copy(Kokkos::View<double, Kokkos::HostSpace>(&distance), Kokkos::subview(distances, r));
      found.indices.push_back(index);
      found.distances.push_back(distance);
    }
    check_all(sample, references, found, options);
  }
}

}  // namespace
