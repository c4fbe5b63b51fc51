// Diffusion from C++: a hot spot on the default execution space, 200 steps with the Laplacian
// of the last one; with zero outside the grid the total decreases by exactly
// coeff * (sum of the Laplacian), checked here in float64.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdio>

#include <kernwerk/diffuse.hpp>
#include <kernwerk/reductions.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  using grid = Kokkos::View<double**, Kokkos::LayoutRight>;
  grid field("field", 40, 60), laplacian("laplacian", 40, 60);
  Kokkos::deep_copy(Kokkos::subview(field, 5, 7), 1000.0);
  kernwerk::diffuse(Kokkos::DefaultExecutionSpace(), field, 199);
  const auto flat = [](const grid& g) {
    return Kokkos::View<double*, Kokkos::MemoryUnmanaged>(g.data(), g.size());
  };
  const double before = kernwerk::sum(Kokkos::DefaultExecutionSpace(), flat(field));
  kernwerk::diffuse(Kokkos::DefaultExecutionSpace(), field, 1, laplacian);
  const double after = kernwerk::sum(Kokkos::DefaultExecutionSpace(), flat(field));
  const double lost = 0.25 * kernwerk::sum(Kokkos::DefaultExecutionSpace(), flat(laplacian));
  std::printf("diffuse from C++ on %s: total %.6f -> %.6f, the Laplacian predicts %.6f\n",
              Kokkos::DefaultExecutionSpace::name(), before, after, before - lost);
  return std::abs(after - (before - lost)) < 1e-9 ? 0 : 1;
}
