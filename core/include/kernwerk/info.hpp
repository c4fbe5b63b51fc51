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

/// Initialises Kokkos as Kernwerk's C, Fortran and Python interfaces do: on GPU `device` (-1:
/// Kokkos' choice), and without Kokkos' warnings (its advice to set OMP_PROC_BIND among them)
/// unless the environment sets OMP_PROC_BIND: in a library the threads' binding is the
/// application's to choose. The tool binds its threads itself instead.
void initialize_kokkos(int device = -1);

}  // namespace kernwerk
