// Nearest neighbours from C++: Views on the default execution space, k = 4, checked against
// the library's float64 reference on the host.
#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>

#include <cstdio>

#include <kernwerk/nearest.hpp>
#include <kernwerk/reference.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  const std::size_t n = 5000, m = 700, k = 4;
  Kokkos::View<double**, Kokkos::LayoutRight> obs("obs", n, 2), ref("ref", m, 2);
  Kokkos::Random_XorShift64_Pool<> pool(5);
  Kokkos::fill_random(obs, pool, -1.5, 1.5);  // radians; |latitude| <= pi/2 holds
  Kokkos::fill_random(ref, pool, -1.5, 1.5);
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight> indices("indices", n, k);
  Kokkos::View<double**, Kokkos::LayoutRight> distances("distances", n, k);
  kernwerk::nearest(Kokkos::DefaultExecutionSpace(), obs, ref, indices, distances);

  const auto o = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), obs);
  const auto r = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ref);
  const auto idx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), indices);
  const auto dist = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), distances);
  const kernwerk::reference::points po{o.data(), n, 2}, pr{r.data(), m, 2};
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; i += 7)
    wrong += !kernwerk::reference::check_k(po, i, pr, &idx(i, 0), &dist(i, 0), k, {}).empty();
  std::printf("nearest from C++ on %s: %zu of %zu checked observations wrong\n",
              Kokkos::DefaultExecutionSpace::name(), wrong, (n + 6) / 7);
  return wrong == 0 ? 0 : 1;
}
