#pragma once
// gemm's vendor implementation on host spaces: Eigen's blocked product over the Views' memory
// (strides as they are, any layout). Selected by KERNWERK_ENABLE_EIGEN.
#include <Eigen/Dense>
#include <Kokkos_Core.hpp>

#include <type_traits>

#include "kernwerk/impl/dense/gemm.hpp"

namespace kernwerk::host_impl {

template <class View>
auto eigen_map(const View& view) {
  using T = typename View::value_type;
  using matrix = Eigen::Matrix<std::remove_const_t<T>, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using mapped = std::conditional_t<std::is_const_v<T>, const matrix, matrix>;
  return Eigen::Map<mapped, Eigen::Unaligned, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>(
      view.data(), Eigen::Index(view.extent(0)), Eigen::Index(view.extent(1)),
      Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(Eigen::Index(view.stride(0)),
                                                    Eigen::Index(view.stride(1))));
}

template <class ExecutionSpace, class A, class B, class C>
struct eigen_gemm {
  static constexpr bool available = true;
  static bool covers(const A&, const B&, const C&) { return true; }
  static void run(const ExecutionSpace& space, double alpha, const A& a, const B& b, double beta,
                  const C& c) {
    using T = typename C::value_type;
    using matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    space.fence();  // the Views' contents must be final
    // The product first, into memory of its own: Eigen's product allocates (copies of strided
    // operands, its blocking space) after it has begun to write its destination, so a failing
    // allocation would leave C half updated. C's update then allocates nothing.
    const matrix product = T(alpha) * (eigen_map(a) * eigen_map(b));
    auto cm = eigen_map(c);
    if (beta == 0.0)
      cm = product;
    else
      cm = T(beta) * cm + product;
  }
};

}  // namespace kernwerk::host_impl

namespace kernwerk::impl {
#if defined(KOKKOS_ENABLE_SERIAL)
template <class A, class B, class C>
struct gemm_vendor<Kokkos::Serial, A, B, C> : host_impl::eigen_gemm<Kokkos::Serial, A, B, C> {};
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
template <class A, class B, class C>
struct gemm_vendor<Kokkos::OpenMP, A, B, C> : host_impl::eigen_gemm<Kokkos::OpenMP, A, B, C> {};
#endif
}  // namespace kernwerk::impl
