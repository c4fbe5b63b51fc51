// DBSCAN from C++ on planar points: three dense discs and isolated points far from them. Every
// disc must come out as one cluster of its own and every isolated point as noise (-1).
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <set>

#include <kernwerk/dbscan.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  const int per_disc = 500, isolated = 20, n = 3 * per_disc + isolated;
  const double centres[3][2] = {{0, 0}, {10, 0}, {0, 10}};
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> points("points", n, 2);
  std::mt19937_64 random(3);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < 3 * per_disc; ++i) {  // uniform in a disc of radius 1
    const double r = std::sqrt(unit(random)), angle = 2 * M_PI * unit(random);
    points(i, 0) = centres[i / per_disc][0] + r * std::cos(angle);
    points(i, 1) = centres[i / per_disc][1] + r * std::sin(angle);
  }
  for (int i = 0; i < isolated; ++i) {  // 100 apart
    points(3 * per_disc + i, 0) = 100.0 * (i + 1);
    points(3 * per_disc + i, 1) = -100.0;
  }

  kernwerk::dbscan_options options;
  options.metric = kernwerk::metric_kind::euclidean;  // planar points (the default is haversine)
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> labels("labels", n);
  const std::int64_t clusters = kernwerk::dbscan(Kokkos::DefaultExecutionSpace(), points, 0.5, 5, labels, options);

  std::size_t wrong = 0;
  std::set<std::int64_t> disc_labels;
  for (int d = 0; d < 3; ++d) {
    disc_labels.insert(labels(d * per_disc));
    for (int i = d * per_disc; i < (d + 1) * per_disc; ++i) wrong += labels(i) != labels(d * per_disc) || labels(i) < 0;
  }
  for (int i = 3 * per_disc; i < n; ++i) wrong += labels(i) != -1;
  wrong += disc_labels.size() != 3 || clusters != 3;
  std::printf("dbscan from C++ on %s: %lld clusters, %zu points wrong\n", Kokkos::DefaultExecutionSpace::name(),
              static_cast<long long>(clusters), wrong);
  return wrong == 0 ? 0 : 1;
}
