#pragma once
// Included after one installed header alone (tests/headers/CMakeLists.txt makes a unit of each).
// For every trait that a backend folder specialises and every execution space of the build:
// 1. where the header declared the trait, the trait is instantiated here and must say what the
//    build's options select (static_assert);
// 2. then every public header is included: a specialisation that the header alone left out
//    now arrives after the instantiation, which is a compile error ("specialization of ...
//    after instantiation"). So a header passes only if it selects, alone, what all of them
//    select together.
// A trait the header does not reach is only declared here, never instantiated.
#include <Kokkos_Core.hpp>

#include <type_traits>

#include "kernwerk/config.hpp"

namespace kernwerk::impl {
template <class ExecutionSpace> struct nearest_tuned;
template <class ExecutionSpace> struct sort_pairs_tuned;
template <class ExecutionSpace> struct default_memory_budget;
template <class ExecutionSpace> struct transfer_queue;
template <class ExecutionSpace> struct staging_memory;
template <class ExecutionSpace> struct diffuse_tuned;
template <class ExecutionSpace> struct integrate_tuned;
template <class ExecutionSpace, class X> struct sum_tuned;
template <class ExecutionSpace> struct transform_tuned;
template <class ExecutionSpace> struct launch_tuned;
template <class ExecutionSpace> struct cg_step_tuned;
template <class Space> struct qr_panel_tuned;
template <class ExecutionSpace, class A, class B, class C> struct gemm_tuned;
template <class ExecutionSpace, class A, class B, class C> struct gemm_vendor;
template <class ExecutionSpace> struct matmul_colsum_tuned;
template <class Space, class T> struct qr_vendor;
template <class Space> struct fft_vendor;
}  // namespace kernwerk::impl

namespace kernwerk_probe {

template <class T, class = void>
struct defined : std::false_type {};
template <class T>
struct defined<T, std::void_t<decltype(sizeof(T))>> : std::true_type {};

// True where the trait is not defined in this unit, or is and says `expected`.
template <class Trait>
constexpr bool selects(bool expected) {
  if constexpr (defined<Trait>::value) return Trait::available == expected;
  return true;
}
// The same for the traits without `available`: instantiated, so that step 2 can catch them;
// staging_memory's type tells its specialisations apart.
template <class Trait>
constexpr bool instantiate() {
  if constexpr (defined<Trait>::value) return sizeof(Trait) > 0;
  return true;
}
template <class Space>
constexpr bool staging_selects(bool expected) {
  using trait = kernwerk::impl::staging_memory<Space>;
  if constexpr (defined<trait>::value)
    return !std::is_same_v<typename trait::type, Kokkos::HostSpace> == expected;
  return true;
}

template <class Space>
using vector = Kokkos::View<const double*, typename Space::memory_space>;
template <class Space>
using input = Kokkos::View<const double**, Kokkos::LayoutLeft, typename Space::memory_space>;
template <class Space>
using output = Kokkos::View<double**, Kokkos::LayoutLeft, typename Space::memory_space>;

// What the build's options select for Space: its backend's nearest scan, vendor sort, staging
// (page-locked copies), GPU kernels (diffuse, integrate, sum, transform, gemm, matmul_colsum,
// the plain launches, the CG step, the QR panel step) and vendor gemm, QR and FFT.
template <class Space, bool nearest, bool sort, bool staging, bool kernels, bool gemm, bool qr,
          bool fft>
struct check {
  static_assert(selects<kernwerk::impl::nearest_tuned<Space>>(nearest), "nearest_tuned");
  static_assert(selects<kernwerk::impl::sort_pairs_tuned<Space>>(sort), "sort_pairs_tuned");
  static_assert(instantiate<kernwerk::impl::default_memory_budget<Space>>(), "default_memory_budget");
  static_assert(instantiate<kernwerk::impl::transfer_queue<Space>>(), "transfer_queue");
  static_assert(staging_selects<Space>(staging), "staging_memory");
  static_assert(selects<kernwerk::impl::diffuse_tuned<Space>>(kernels), "diffuse_tuned");
  static_assert(selects<kernwerk::impl::integrate_tuned<Space>>(kernels), "integrate_tuned");
  static_assert(selects<kernwerk::impl::sum_tuned<Space, vector<Space>>>(kernels), "sum_tuned");
  static_assert(selects<kernwerk::impl::transform_tuned<Space>>(kernels), "transform_tuned");
  static_assert(selects<kernwerk::impl::launch_tuned<Space>>(kernels), "launch_tuned");
  static_assert(selects<kernwerk::impl::cg_step_tuned<Space>>(kernels), "cg_step_tuned");
  static_assert(selects<kernwerk::impl::qr_panel_tuned<Space>>(kernels), "qr_panel_tuned");
  static_assert(selects<kernwerk::impl::gemm_tuned<Space, input<Space>, input<Space>, output<Space>>>(kernels),
                "gemm_tuned");
  static_assert(selects<kernwerk::impl::matmul_colsum_tuned<Space>>(kernels), "matmul_colsum_tuned");
  static_assert(selects<kernwerk::impl::gemm_vendor<Space, input<Space>, input<Space>, output<Space>>>(gemm),
                "gemm_vendor");
  static_assert(selects<kernwerk::impl::qr_vendor<Space, double>>(qr), "qr_vendor");
  static_assert(selects<kernwerk::impl::fft_vendor<Space>>(fft), "fft_vendor");
  static constexpr bool done = true;
};

}  // namespace kernwerk_probe

#define KERNWERK_PROBE_HOST                                                               \
  KERNWERK_ENABLE_HOST_TUNED, false, false, false,                                        \
      KERNWERK_ENABLE_HOST_TUNED && KERNWERK_ENABLE_EIGEN,                                \
      KERNWERK_ENABLE_HOST_TUNED && KERNWERK_ENABLE_LAPACK,                               \
      KERNWERK_ENABLE_HOST_TUNED && KERNWERK_ENABLE_FFTW
#if defined(KOKKOS_ENABLE_SERIAL)
static_assert(kernwerk_probe::check<Kokkos::Serial, KERNWERK_PROBE_HOST>::done);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
static_assert(kernwerk_probe::check<Kokkos::OpenMP, KERNWERK_PROBE_HOST>::done);
#endif
#if defined(KOKKOS_ENABLE_CUDA)
static_assert(kernwerk_probe::check<Kokkos::Cuda, KERNWERK_ENABLE_CUDA_TUNED, KERNWERK_ENABLE_CUDA_TUNED,
                                    KERNWERK_ENABLE_CUDA_TUNED, KERNWERK_ENABLE_CUDA_TUNED,
                                    KERNWERK_ENABLE_CUDA_TUNED && KERNWERK_ENABLE_CUBLAS,
                                    KERNWERK_ENABLE_CUDA_TUNED && KERNWERK_ENABLE_CUSOLVER,
                                    KERNWERK_ENABLE_CUDA_TUNED && KERNWERK_ENABLE_CUFFT>::done);
#endif
#if defined(KOKKOS_ENABLE_HIP)
static_assert(kernwerk_probe::check<Kokkos::Experimental::HIP, KERNWERK_ENABLE_HIP_TUNED, false,
                                    KERNWERK_ENABLE_HIP_TUNED, KERNWERK_ENABLE_HIP_TUNED, false,
                                    false, false>::done);
#endif

// Step 2: everything, after the instantiations above.
#include "kernwerk/cg.hpp"
#include "kernwerk/dbscan.hpp"
#include "kernwerk/diffuse.hpp"
#include "kernwerk/fft.hpp"
#include "kernwerk/spatial_index.hpp"
#include "kernwerk/integrate.hpp"
#include "kernwerk/linear_algebra.hpp"
#include "kernwerk/nearest.hpp"
#include "kernwerk/qr.hpp"
#include "kernwerk/reductions.hpp"
#include "kernwerk/sphere_index.hpp"
#include "kernwerk/transform.hpp"
#include "kernwerk/within.hpp"
#include "kernwerk/impl/dense/fft_vendor.hpp"
#include "kernwerk/impl/dense/qr.hpp"
#include "kernwerk/impl/dense/qr_vendor.hpp"
#if KERNWERK_PROBE_MPI
#include "kernwerk/mpi/nearest.hpp"
#endif
