#pragma once
/// \file
/// What this build of Kernwerk runs on: versions, enabled backends, devices.
#include <iosfwd>

namespace kernwerk {

/// Writes the Kernwerk and Kokkos versions, the enabled execution spaces and Kokkos' own
/// configuration report (devices included). Kokkos must be initialised.
void print_build_info(std::ostream& out);

/// The GPUs this process sees (0 in a build without a GPU backend, or where the runtime finds
/// none). Kokkos need not be initialised: this is how a launcher picks a device for a rank.
int visible_devices();

}  // namespace kernwerk
