#include "kernwerk/info.hpp"

#include <Kokkos_Core.hpp>

#include <cstdlib>
#include <ostream>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#elif defined(KOKKOS_ENABLE_HIP)
#include <hip/hip_runtime.h>
#endif

#include "kernwerk/config.hpp"

namespace kernwerk {

void print_build_info(std::ostream& out) {
  out << "Kernwerk " << KERNWERK_VERSION_STRING << "\n";
  out << "Kokkos " << KOKKOS_VERSION / 10000 << "." << KOKKOS_VERSION / 100 % 100 << "."
      << KOKKOS_VERSION % 100 << "\n";
  out << "execution spaces:";
#ifdef KOKKOS_ENABLE_SERIAL
  out << " Serial";
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  out << " OpenMP";
#endif
#ifdef KOKKOS_ENABLE_THREADS
  out << " Threads";
#endif
#ifdef KOKKOS_ENABLE_CUDA
  out << " Cuda";
#endif
#ifdef KOKKOS_ENABLE_HIP
  out << " HIP";
#endif
  out << " (default: " << Kokkos::DefaultExecutionSpace::name() << ")\n\n";
  Kokkos::print_configuration(out, true);
}

int visible_devices() {
  int count = 0;
#if defined(KOKKOS_ENABLE_CUDA)
  if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
#elif defined(KOKKOS_ENABLE_HIP)
  if (hipGetDeviceCount(&count) != hipSuccess) count = 0;
#endif
  return count;
}

void initialize_kokkos(int device) {
  const bool quiet = std::getenv("OMP_PROC_BIND") == nullptr;
#if KOKKOS_VERSION >= 30700
  auto settings = Kokkos::InitializationSettings().set_disable_warnings(quiet);
  if (device >= 0) settings.set_device_id(device);
  Kokkos::initialize(settings);
#else
  Kokkos::InitArguments arguments;
  arguments.disable_warnings = quiet;
  arguments.device_id = device;
  Kokkos::initialize(arguments);
#endif
}

}  // namespace kernwerk
