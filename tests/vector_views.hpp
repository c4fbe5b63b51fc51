#pragma once
// Host vectors into Views of a space's memory and back, for the tests.
#include <Kokkos_Core.hpp>

#include <type_traits>
#include <vector>

namespace kernwerk::test {

template <class Space, class T>
Kokkos::View<T*, typename Space::memory_space> to_space(const std::vector<T>& values) {
  Kokkos::View<T*, typename Space::memory_space> view("values", values.size());
  Kokkos::deep_copy(view, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                              values.data(), values.size()));
  return view;
}

// The View's values as a vector of T (default: its own value type).
template <class T = void, class View>
auto to_vector(const View& view) {
  using element = std::conditional_t<std::is_void_v<T>, typename View::non_const_value_type, T>;
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  return std::vector<element>(host.data(), host.data() + host.size());
}

}  // namespace kernwerk::test
