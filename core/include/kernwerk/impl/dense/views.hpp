#pragma once
// The Views the library's compiled dense calls (QR, FFT) take: unmanaged, strided, in the
// execution space's memory. A caller's View of any layout becomes one without a copy.
#include <Kokkos_Core.hpp>

#include <type_traits>

namespace kernwerk::impl {

template <class Space, class T>
using dense_matrix = Kokkos::View<T**, Kokkos::LayoutStride, typename Space::memory_space,
                                  Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class V>
using dense_value_t = typename V::non_const_value_type;

// Every View holds T (const or not), T is a supported value type, and the space reaches them.
template <class Space, class T, class... Views>
constexpr void require_dense_views() {
  static_assert((Kokkos::is_view<Views>::value && ...), "kernwerk: arguments are Kokkos Views");
  static_assert((std::is_same_v<dense_value_t<Views>, T> && ...),
                "kernwerk: the Views hold one value type");
  static_assert(
      (Kokkos::SpaceAccessibility<Space, typename Views::memory_space>::accessible && ...),
      "kernwerk: the execution space must reach every View");
}

// A rank-1 or rank-2 View as a matrix: a rank-1 View of length n is one column (n x 1).
template <class Space, class V>
auto as_matrix(const V& v) {
  using matrix = dense_matrix<Space, typename V::value_type>;
  if constexpr (V::rank == 1) {
    const std::size_t n = v.extent(0), s = v.stride(0);
    return matrix(v.data(), Kokkos::LayoutStride(n, s, 1, n * s));
  } else {
    static_assert(V::rank == 2, "kernwerk: a matrix View is rank 1 or 2");
    return matrix(v.data(),
                  Kokkos::LayoutStride(v.extent(0), v.stride(0), v.extent(1), v.stride(1)));
  }
}

}  // namespace kernwerk::impl
