// The host's tuned float32 scan (backends/host sphere_scan): its vector paths against its
// portable one, and the candidate lists it hands to the float64 rule.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "kernwerk/host/sphere_scan.hpp"
#include "kernwerk/impl/geometry/centred_values.hpp"
#include "nearest_support.hpp"

namespace {

using namespace kernwerk;
using namespace kernwerk::test;

TEST_CASE("nearest: the host scan's vector paths agree with its portable one") {
  auto references = uniform_sphere(3000, 25);
  for (std::size_t j = 0; j < 300; ++j)  // duplicates and a tail shorter than a vector
    references.add_copy(references, j);
  // References present around the most candidates the scan lists, 2 k + 32 (past it, the
  // observation takes the float64 scan): 34 alike (all listed for k 1), 35 and 40 (too many for
  // k 1, listed for k 3), 96 and 97 (around k 32's).
  const std::size_t copies[] = {34, 35, 40, 96, 97};
  for (std::size_t c = 0; c < 5; ++c)
    for (std::size_t copy = 1; copy < copies[c]; ++copy) references.add_copy(references, 7 + c);
  references.add(0.1, 0.2);
  auto observations = uniform_sphere(1001, 26);
  for (std::size_t j = 0; j < 100; ++j)
    observations.add_copy(references, j);
  nearest_options tuned;
  tuned.method = method_kind::brute;
  tuned.implementation = implementation_kind::tuned;
  // k 8, 16, 17: the k largest values fill one vector of 8 or 16 exactly, or spill one value
  // into the next.
  for (int k : {1, 3, 8, 16, 17, 32}) {
    CAPTURE(k);
    host::limit_simd_width(0);
    const auto portable =
        run_nearest<Kokkos::DefaultHostExecutionSpace>(observations, references, tuned, k);
    check_all(observations, references, portable, tuned);
    for (int width = 1; width <= host::widest_simd(); ++width) {
      CAPTURE(width);
      host::limit_simd_width(width);
      const auto vector =
          run_nearest<Kokkos::DefaultHostExecutionSpace>(observations, references, tuned, k);
      CHECK(vector.indices == portable.indices);
      CHECK(vector.distances == portable.distances);
    }
  }
  host::limit_simd_width(2);
}

std::array<double, 3> unit_vector(const host_points& points, std::size_t i) {
  const double lat = points.values[2 * i], lon = points.values[2 * i + 1];
  return {std::cos(lat) * std::cos(lon), std::cos(lat) * std::sin(lon), std::sin(lat)};
}

// Each observation's candidate list, as the scan reports it.
struct listed {
  std::vector<std::vector<std::int32_t>> lists;
  static void visit(void* context, int p, const std::int32_t* references, int count) {
    static_cast<listed*>(context)->lists[p].assign(references, references + count);
  }
};

// A list that missed one of the k best would still be caught by the float64 check above only
// where that reference is the answer; one that kept a stale k-th (too low a limit) would give
// the right answer slowly, through the float64 scan. Here the lists themselves, on every vector
// path, with and without windows (the references in order of z, each scan starting around its
// observation's z; any order gives the same lists): each holds the k references with the
// largest float64 values u.(v - c), once each, and, on uniform references, only a few more.
TEST_CASE("nearest: the host scan lists the k best references and few others") {
  const auto references = uniform_sphere(5000, 31), observations = uniform_sphere(203, 32);
  const std::size_t m = references.count(), n = observations.count(), padded = (m + 15) / 16 * 16;
  std::array<double, 3> centre{0.0, 0.0, 0.0};
  for (std::size_t j = 0; j < m; ++j)
    for (int d = 0; d < 3; ++d) centre[d] += unit_vector(references, j)[d] / double(m);
  std::vector<std::int32_t> by_z(m);  // the reference at each place of the windowed scans
  for (std::size_t j = 0; j < m; ++j) by_z[j] = std::int32_t(j);
  std::sort(by_z.begin(), by_z.end(), [&](std::int32_t a, std::int32_t b) {
    return unit_vector(references, a)[2] < unit_vector(references, b)[2];
  });
  std::vector<std::array<double, 3>> centred(m);
  std::vector<float> column[3], sorted_column[3];
  for (auto& c : column) c.assign(padded, std::numeric_limits<float>::quiet_NaN());
  for (auto& c : sorted_column) c.assign(padded, std::numeric_limits<float>::quiet_NaN());
  float spread = 0.0f;
  for (std::size_t j = 0; j < m; ++j) {
    const auto v = unit_vector(references, j);
    for (int d = 0; d < 3; ++d) centred[j][d] = v[d] - centre[d], column[d][j] = float(centred[j][d]);
    spread = std::max(spread, float(std::hypot(centred[j][0], centred[j][1], centred[j][2]) * 1.000001));
  }
  for (std::size_t j = 0; j < m; ++j)
    for (int d = 0; d < 3; ++d) sorted_column[d][j] = column[d][by_z[j]];
  const host::centred_references_f32 scanned{column[0].data(), column[1].data(), column[2].data(),
                                             std::int64_t(m), impl::centred_value_margin(spread)};
  const host::centred_references_f32 sorted{sorted_column[0].data(), sorted_column[1].data(),
                                            sorted_column[2].data(), std::int64_t(m),
                                            impl::centred_value_margin(spread)};
  std::vector<std::array<float, 3>> units(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto u = unit_vector(observations, i);
    units[i] = {float(u[0]), float(u[1]), float(u[2])};
  }
  for (int k : {1, 3, 8, 16, 17, 32}) {
    const int window = host::window_for(k);
    std::vector<std::int64_t> windows(n);
    const auto below = [&](std::int32_t j, double z) { return unit_vector(references, j)[2] < z; };
    for (std::size_t i = 0; i < n; ++i) {  // around the observation's place in z, inside the set
      const std::int64_t place =
          std::lower_bound(by_z.begin(), by_z.end(), unit_vector(observations, i)[2], below) -
          by_z.begin();
      windows[i] = std::clamp<std::int64_t>((place - window / 2) / 16 * 16, 0,
                                            std::int64_t(padded) - window);
    }
    for (bool windowed : {false, true}) {
      CAPTURE(k);
      CAPTURE(windowed);
      for (int width = 0; width <= host::widest_simd(); ++width) {
        CAPTURE(width);
        host::limit_simd_width(width);
        listed found{std::vector<std::vector<std::int32_t>>(n)};
        const std::unique_ptr<bool[]> too_many(new bool[n]);
        std::fill_n(too_many.get(), n, true);
        host::scan_sphere_f32(windowed ? sorted : scanned,
                              reinterpret_cast<const float(*)[3]>(units.data()), int(n), k,
                              too_many.get(), listed::visit, &found,
                              windowed ? windows.data() : nullptr, windowed ? window : 0);
        if (windowed)
          for (auto& list : found.lists)
            for (auto& place : list) place = by_z[place];
        for (std::size_t i = 0; i < n; ++i) {
          CAPTURE(i);
          REQUIRE_FALSE(too_many[i]);
          const auto u = unit_vector(observations, i);
          std::vector<std::pair<double, std::int32_t>> value(m);
          for (std::size_t j = 0; j < m; ++j)
            value[j] = {-(u[0] * centred[j][0] + u[1] * centred[j][1] + u[2] * centred[j][2]),
                        std::int32_t(j)};
          std::partial_sort(value.begin(), value.begin() + k, value.end());
          auto list = found.lists[i];
          std::sort(list.begin(), list.end());
          CHECK(std::adjacent_find(list.begin(), list.end()) == list.end());
          for (int q = 0; q < k; ++q)
            CHECK(std::binary_search(list.begin(), list.end(), value[q].second));
          CHECK(list.size() <= std::size_t(k) + 2);
        }
      }
    }
  }
  host::limit_simd_width(2);
}

}  // namespace
