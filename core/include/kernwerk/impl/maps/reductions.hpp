#pragma once
// The generic implementations behind kernwerk/reductions.hpp, the checks they share, and the
// trait a backend specialises to replace the float64 sum of a contiguous View.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/compensated.hpp"
#include "kernwerk/impl/launch.hpp"

namespace kernwerk::impl {

template <class ExecutionSpace, class X>
void require_vector(const char* function, const char* name, const X& x) {
  static_assert(Kokkos::is_view<X>::value && X::rank == 1,
                "kernwerk: vector arguments are rank-1 Views");
  static_assert(std::is_arithmetic_v<typename X::non_const_value_type>,
                "kernwerk: vector arguments hold numbers");
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, typename X::memory_space>::accessible,
                "kernwerk: the execution space must reach the View's memory space");
  if (x.extent(0) > 0 && x.data() == nullptr)
    throw invalid_argument(function, name, "has a length but no data");
}

template <class A, class B>
void require_same_length(const char* function, const char* name, const A& a, const char* other,
                         const B& b) {
  if (a.extent(0) != b.extent(0))
    throw invalid_argument(function, name,
                           "length " + std::to_string(a.extent(0)) + " differs from " + other +
                               "'s " + std::to_string(b.extent(0)));
}

template <class Term>
struct compensated_terms {
  Term term;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, compensated_value& sum) const {
    sum.add(static_cast<double>(term(i)));
  }
};

template <class ExecutionSpace, class Term>
double compensated_sum_of(const ExecutionSpace& space, std::int64_t count, const Term& term) {
  compensated_value total;
  Kokkos::parallel_reduce("kernwerk::sum",
                          index_policy<ExecutionSpace>(
                              space, 0, count),
                          compensated_terms<Term>{term},
                          compensated_sum<Kokkos::HostSpace>(total));
  space.fence();
  return total.value();
}

template <class X>
struct element_term {
  X x;
  KOKKOS_INLINE_FUNCTION double operator()(const std::int64_t i) const { return double(x(i)); }
};
template <class X, class Y>
struct product_term {
  X x;
  Y y;
  KOKKOS_INLINE_FUNCTION double operator()(const std::int64_t i) const {
    return double(x(i)) * double(y(i));
  }
};
template <class X>
struct scaled_square_term {
  X x;
  double inverse_scale;
  KOKKOS_INLINE_FUNCTION double operator()(const std::int64_t i) const {
    const double v = double(x(i)) * inverse_scale;
    return v * v;
  }
};

// A backend folder specialises this with `static bool covers(const X&)` and
// `static double run(space, x)` where it beats the generic reduction.
template <class ExecutionSpace, class X>
struct sum_tuned {
  static constexpr bool available = false;
  static bool covers(const X&) { return false; }
  static double run(const ExecutionSpace&, const X&) { return 0.0; }
};

template <class ExecutionSpace, class X>
double sum_dispatch(const ExecutionSpace& space, const X& x) {
  if (sum_tuned<ExecutionSpace, X>::covers(x)) return sum_tuned<ExecutionSpace, X>::run(space, x);
  return compensated_sum_of(space, std::int64_t(x.extent(0)), element_term<X>{x});
}

template <class X>
struct largest_magnitude {
  X x;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, double& largest) const {
    const double v = double(x(i)) < 0 ? -double(x(i)) : double(x(i));
    if (v > largest) largest = v;
  }
};

template <class ExecutionSpace, class X>
double scaled_norm2(const ExecutionSpace& space, const X& x) {
  const auto n = std::int64_t(x.extent(0));
  if (std::is_same_v<typename X::non_const_value_type, double>) {
    double scale = 0.0;
    Kokkos::parallel_reduce("kernwerk::norm2_scale",
                            index_policy<ExecutionSpace>(
                                space, 0, n),
                            largest_magnitude<X>{x}, Kokkos::Max<double>(scale));
    space.fence();
    if (scale > 0 && std::isfinite(scale))
      return scale * std::sqrt(compensated_sum_of(space, n, scaled_square_term<X>{x, 1.0 / scale}));
  }
  return std::sqrt(compensated_sum_of(space, n, scaled_square_term<X>{x, 1.0}));
}

// The first index holding the smallest (smaller) or largest (larger) value, and the first NaN.
struct smaller {
  template <class T>
  KOKKOS_INLINE_FUNCTION static bool better(T a, T b) { return a < b; }
};
struct larger {
  template <class T>
  KOKKOS_INLINE_FUNCTION static bool better(T a, T b) { return a > b; }
};

template <class T>
struct extremum_value {
  T value;
  std::int64_t index;      // -1: none yet
  std::int64_t first_nan;  // -1: none
};

template <class T, class Order>
struct first_extremum {
  using reducer = first_extremum;
  using value_type = extremum_value<T>;
  using result_view_type = Kokkos::View<value_type, Kokkos::HostSpace>;

  KOKKOS_INLINE_FUNCTION explicit first_extremum(value_type& target) : target_(&target) {}
  KOKKOS_INLINE_FUNCTION static void merge(value_type& dest, const value_type& src) {
    if (src.index >= 0 &&
        (dest.index < 0 || Order::better(src.value, dest.value) ||
         (!Order::better(dest.value, src.value) && src.index < dest.index))) {
      dest.value = src.value;
      dest.index = src.index;
    }
    if (src.first_nan >= 0 && (dest.first_nan < 0 || src.first_nan < dest.first_nan))
      dest.first_nan = src.first_nan;
  }
  KOKKOS_INLINE_FUNCTION void join(value_type& dest, const value_type& src) const { merge(dest, src); }
#if KOKKOS_VERSION < 40000
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dest,
                                   const volatile value_type& src) const {
    value_type d{dest.value, dest.index, dest.first_nan};
    merge(d, value_type{src.value, src.index, src.first_nan});
    dest.value = d.value;
    dest.index = d.index;
    dest.first_nan = d.first_nan;
  }
#endif
  KOKKOS_INLINE_FUNCTION void init(value_type& value) const { value = value_type{T(), -1, -1}; }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *target_.data(); }
  KOKKOS_INLINE_FUNCTION result_view_type view() const { return target_; }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return true; }

 private:
  result_view_type target_;
};

template <class X, class Order>
struct extremum_terms {
  X x;
  using T = typename X::non_const_value_type;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, extremum_value<T>& best) const {
    const T v = x(i);
    if (v != v) {
      if (best.first_nan < 0 || i < best.first_nan) best.first_nan = i;
      return;
    }
    first_extremum<T, Order>::merge(best, extremum_value<T>{v, i, -1});
  }
};

template <class Order, class ExecutionSpace, class X>
std::pair<typename X::non_const_value_type, std::int64_t> extremum_location(
    const ExecutionSpace& space, const X& x, const char* function) {
  require_vector<ExecutionSpace>(function, "x", x);
  if (x.extent(0) == 0) throw invalid_argument(function, "x", "is empty");
  using T = typename X::non_const_value_type;
  extremum_value<T> best{T(), -1, -1};
  Kokkos::parallel_reduce(std::string("kernwerk::") + function,
                          index_policy<ExecutionSpace>(
                              space, 0, std::int64_t(x.extent(0))),
                          extremum_terms<X, Order>{x}, first_extremum<T, Order>(best));
  space.fence();
  if (best.first_nan >= 0)
    throw invalid_argument(function, "x",
                           "element " + std::to_string(best.first_nan) + " is NaN");
  return {best.value, best.index};
}

}  // namespace kernwerk::impl

// The backends' specialisations of sum_tuned come with its declaration, so that every
// translation unit sees the same ones (a specialisation seen by some units only is an ODR violation).
#include "kernwerk/config.hpp"
#if KERNWERK_ENABLE_CUDA_TUNED
#include "kernwerk/cuda/reductions.hpp"
#endif
#if KERNWERK_ENABLE_HIP_TUNED
#include "kernwerk/hip/reductions.hpp"
#endif
