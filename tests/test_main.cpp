// The test runner: Kokkos is initialised once around the whole doctest run.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  doctest::Context context(argc, argv);
  return context.run();
}
