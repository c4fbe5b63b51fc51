#pragma once
// What this build of Kernwerk runs on: versions, enabled backends, devices.
#include <iosfwd>

namespace kernwerk {

// Writes the Kernwerk and Kokkos versions, the enabled execution spaces and Kokkos' own
// configuration report (devices included).
// Kokkos must be initialised.
void print_build_info(std::ostream& out);

}  // namespace kernwerk
