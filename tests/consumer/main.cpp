// Three reference points, two observations: each observation's neighbour is known by
// construction (it sits 0.05 rad from one reference and far from the others).
#include <kernwerk/nearest.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  Kokkos::View<double**, Kokkos::HostSpace> observations("observations", 2, 2);
  Kokkos::View<double**, Kokkos::HostSpace> references("references", 3, 2);
  const double ref[3][2] = {{0.0, 0.0}, {0.1, 0.25}, {-0.5, 3.1}};
  const double obs[2][2] = {{0.1, 0.2}, {-0.5, 3.05}};
  for (int j = 0; j < 3; ++j) references(j, 0) = ref[j][0], references(j, 1) = ref[j][1];
  for (int i = 0; i < 2; ++i) observations(i, 0) = obs[i][0], observations(i, 1) = obs[i][1];
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> index("index", 2);
  Kokkos::View<double*, Kokkos::HostSpace> distance("distance", 2);
  kernwerk::nearest(Kokkos::DefaultExecutionSpace(), observations, references, index, distance);
  std::printf("consumer: neighbours %ld %ld\n", long(index(0)), long(index(1)));
  return index(0) == 1 && index(1) == 2 ? 0 : 1;
}
