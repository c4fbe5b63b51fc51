#pragma once
// Unmanaged strided Views over a caller's memory, as the C and Python interfaces wrap it.
#include <Kokkos_Core.hpp>

namespace kernwerk::impl {

template <class T, class Space>
using vector_view = Kokkos::View<T*, Kokkos::LayoutStride, typename Space::memory_space,
                                 Kokkos::MemoryUnmanaged>;
template <class T, class Space>
using matrix_view = Kokkos::View<T**, Kokkos::LayoutStride, typename Space::memory_space,
                                 Kokkos::MemoryUnmanaged>;

}  // namespace kernwerk::impl
