#pragma once
// The Views the library compiles its searches for: strided ones at a call's boundary (any layout
// and rank in one instance) and packed rows for the methods and the index's build and search (the
// kernels read them fastest), with packed_rows between them. Shared by the topic folders.
#include <Kokkos_Core.hpp>

#include <type_traits>
#include <utility>

namespace kernwerk::impl {

// Whether a rank-1 or rank-2 View's elements are in row-major order without gaps.
template <class View>
bool row_major_packed(const View& view) {
  if constexpr (View::rank == 1)
    return view.extent(0) <= 1 || view.stride(0) == 1;
  else
    return (view.extent(1) <= 1 || view.stride(1) == 1) &&
           (view.extent(0) <= 1 || view.stride(0) == view.extent(1));
}

// The Views a call is compiled for, whatever the layout and rank of the caller's: unmanaged and
// strided (a rank-1 output as one column), so that the library compiles each call once per
// execution space, value type and memory space (impl/nearest/instances.hpp). The checks,
// copies and chunks read through the strides; the methods run on packed rows (below).
template <class T, class MemorySpace>
using call_points =
    Kokkos::View<const T**, Kokkos::LayoutStride, MemorySpace, Kokkos::MemoryUnmanaged>;
template <class T, class MemorySpace>
using call_matrix = Kokkos::View<T**, Kokkos::LayoutStride, MemorySpace, Kokkos::MemoryUnmanaged>;

template <class View>
call_points<typename View::non_const_value_type, typename View::memory_space> as_call_points(
    const View& points) {
  return points;
}

template <class View>
call_matrix<typename View::value_type, typename View::memory_space> as_call_matrix(
    const View& values) {
  using matrix = call_matrix<typename View::value_type, typename View::memory_space>;
  if constexpr (View::rank == 1)
    return matrix(values.data(), Kokkos::LayoutStride(values.extent(0), values.stride(0), 1, 1));
  else
    return values;
}

// The Views the methods run on: rows packed one after another (LayoutRight), as the kernels
// read fastest (strided points cost the indexed search more: commit c04274e).
template <class T, class MemorySpace>
using method_points =
    Kokkos::View<const T**, Kokkos::LayoutRight, MemorySpace, Kokkos::MemoryUnmanaged>;
template <class T, class MemorySpace>
using method_matrix = Kokkos::View<T**, Kokkos::LayoutRight, MemorySpace, Kokkos::MemoryUnmanaged>;

// A View (rank 1: one column) as packed rows: itself where its elements lie row by row without
// gaps, else a copy in its memory space, filled from it (inputs) or written back into it by
// copy_back (outputs). Copies are queued on the execution space.
template <class View>
class packed_rows {
  using value = typename View::non_const_value_type;
  using memory = typename View::memory_space;
  using strided = decltype(as_call_matrix(std::declval<View>()));

 public:
  using rows_type = method_matrix<value, memory>;

  template <class ExecutionSpace>
  packed_rows(const ExecutionSpace& space, const View& view, bool fill)
      : source_(as_call_matrix(view)) {
    const std::size_t n = source_.extent(0), columns = source_.extent(1);
    if (row_major_packed(source_)) {
      rows = rows_type(const_cast<value*>(source_.data()), n, columns);
      return;
    }
    copy_ = Kokkos::View<value**, Kokkos::LayoutRight, memory>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::nearest::packed_rows"), n,
        columns);
    rows = copy_;
    if (fill) Kokkos::deep_copy(space, copy_, source_);
  }

  // Whether the rows are a copy.
  bool copied() const { return copy_.data() != nullptr; }

  template <class ExecutionSpace>
  void copy_back(const ExecutionSpace& space) const {
    if constexpr (!std::is_const_v<typename View::value_type>)
      if (copy_.data()) Kokkos::deep_copy(space, source_, copy_);
  }

  rows_type rows;

 private:
  strided source_;
  Kokkos::View<value**, Kokkos::LayoutRight, memory> copy_;
};

}  // namespace kernwerk::impl
