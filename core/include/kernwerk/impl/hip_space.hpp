#pragma once
// Kokkos' HIP execution space under one name (out of Experimental from Kokkos 4), for the
// library's generated instance units (core/CMakeLists.txt).
#include <Kokkos_Core.hpp>

#if KOKKOS_VERSION >= 40000
#define KERNWERK_HIP_SPACE Kokkos::HIP
#else
#define KERNWERK_HIP_SPACE Kokkos::Experimental::HIP
#endif
