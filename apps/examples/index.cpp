// A spatial index from C++: built once over the reference points, then queried at every time
// step (k = 8 nearest, and the points within a radius), checked against the library's float64
// reference on the host.
#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>

#include <cstdio>

#include <kernwerk/reference.hpp>
#include <kernwerk/spatial_index.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  using space = Kokkos::DefaultExecutionSpace;
  const std::size_t m = 20000, n = 200, k = 8;
  Kokkos::View<double**, Kokkos::LayoutRight> ref("ref", m, 2), obs("obs", n, 2);
  Kokkos::Random_XorShift64_Pool<> pool(11);
  Kokkos::fill_random(ref, pool, -1.5, 1.5);  // (latitude, longitude) in radians
  const kernwerk::spatial_index<space> index(space(), ref);  // haversine, radians

  Kokkos::View<std::int64_t**, Kokkos::LayoutRight> indices("indices", n, k);
  Kokkos::View<double**, Kokkos::LayoutRight> distances("distances", n, k);
  Kokkos::View<std::int64_t*> offsets("offsets", n + 1), within;
  Kokkos::View<double*> within_distances;
  const auto r = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ref);
  const kernwerk::reference::points pr{r.data(), m, 2};
  std::size_t wrong = 0, found = 0;
  for (int step = 0; step < 4; ++step) {  // new observations each step, the same index
    Kokkos::fill_random(obs, pool, -1.5, 1.5);
    index.nearest(space(), obs, indices, distances);
    index.within(space(), obs, 0.02, offsets, within, within_distances);  // rows nearest first

    const auto o = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), obs);
    const auto idx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), indices);
    const auto dist = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), distances);
    const auto off = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), offsets);
    const kernwerk::reference::points po{o.data(), n, 2};
    for (std::size_t i = 0; i < n; ++i) {
      wrong += !kernwerk::reference::check_k(po, i, pr, &idx(i, 0), &dist(i, 0), k, {}).empty();
      // the points within the radius: as many as the reference's distances at most 0.02
      std::size_t expected = 0;
      for (const double key : kernwerk::reference::all_keys(po, i, pr, {}))
        expected += kernwerk::reference::distance_of(key, {}) <= 0.02;
      wrong += std::size_t(off(i + 1) - off(i)) != expected;
    }
    found += within.extent(0);
  }
  std::printf("index from C++ on %s: %zu points within 0.02 found, %zu answers wrong\n",
              space::name(), found, wrong);
  return wrong == 0 ? 0 : 1;
}
