#pragma once
// The execution spaces this build enabled, as a type list for TEST_CASE_TEMPLATE_APPLY.
#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>

#include <tuple>
#include <utility>

namespace kernwerk::test {

#ifdef KOKKOS_ENABLE_SERIAL
using serial_spaces = std::tuple<Kokkos::Serial>;
#else
using serial_spaces = std::tuple<>;
#endif
#ifdef KOKKOS_ENABLE_OPENMP
using openmp_spaces = std::tuple<Kokkos::OpenMP>;
#else
using openmp_spaces = std::tuple<>;
#endif
#ifdef KOKKOS_ENABLE_CUDA
using cuda_spaces = std::tuple<Kokkos::Cuda>;
#else
using cuda_spaces = std::tuple<>;
#endif
#ifdef KOKKOS_ENABLE_HIP
using hip_spaces = std::tuple<Kokkos::Experimental::HIP>;
#else
using hip_spaces = std::tuple<>;
#endif

using enabled_spaces =
    decltype(std::tuple_cat(std::declval<serial_spaces>(), std::declval<openmp_spaces>(),
                            std::declval<cuda_spaces>(), std::declval<hip_spaces>()));

}  // namespace kernwerk::test

#ifdef KOKKOS_ENABLE_SERIAL
TYPE_TO_STRING(Kokkos::Serial);
#endif
#ifdef KOKKOS_ENABLE_OPENMP
TYPE_TO_STRING(Kokkos::OpenMP);
#endif
#ifdef KOKKOS_ENABLE_CUDA
TYPE_TO_STRING(Kokkos::Cuda);
#endif
#ifdef KOKKOS_ENABLE_HIP
TYPE_TO_STRING(Kokkos::Experimental::HIP);
#endif
