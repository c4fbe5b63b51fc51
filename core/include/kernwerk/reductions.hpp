#pragma once
/// \file
/// Reductions over rank-1 Views (any layout, any memory space the execution space reaches):
/// sum, dot, norm2 accumulated in float64 with compensation, the first minimum or maximum with
/// its index, and a compensated float64 sum of a user's terms.
///
/// NaN inputs follow IEEE arithmetic in sum, dot and norm2 (the result is NaN); min_location and
/// max_location reject them, since no order places them. Empty Views sum to 0; they have no
/// minimum or maximum (kernwerk::invalid_argument).
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/compensated.hpp"
#include "kernwerk/impl/profiling.hpp"
#include "kernwerk/impl/maps/reductions.hpp"

namespace kernwerk {

/// The compensated float64 sum of term(i) for i in [0, count); term is a device-callable
/// functor returning something convertible to double.
template <class ExecutionSpace, class Term>
double sum_of(const ExecutionSpace& space, std::int64_t count, const Term& term) {
  impl::scoped_region region("kernwerk::sum_of");
  if (count < 0)
    throw invalid_argument("sum_of", "count", "must not be negative, got " + std::to_string(count));
  return impl::compensated_sum_of(space, count, term);
}

/// Sum of x in float64.
template <class ExecutionSpace, class X>
double sum(const ExecutionSpace& space, const X& x) {
  impl::scoped_region region("kernwerk::sum");
  impl::require_vector<ExecutionSpace>("sum", "x", x);
  return impl::sum_dispatch(space, x);
}

/// Sum of x(i) * y(i) in float64; x and y of one length.
template <class ExecutionSpace, class X, class Y>
double dot(const ExecutionSpace& space, const X& x, const Y& y) {
  impl::scoped_region region("kernwerk::dot");
  impl::require_vector<ExecutionSpace>("dot", "x", x);
  impl::require_vector<ExecutionSpace>("dot", "y", y);
  impl::require_same_length("dot", "y", y, "x", x);
  return impl::compensated_sum_of(space, std::int64_t(x.extent(0)),
                                  impl::product_term<X, Y>{x, y});
}

/// Euclidean norm of x, accumulated in float64 (scaled, so that it neither overflows nor
/// underflows where the norm itself is representable).
template <class ExecutionSpace, class X>
double norm2(const ExecutionSpace& space, const X& x) {
  impl::scoped_region region("kernwerk::norm2");
  impl::require_vector<ExecutionSpace>("norm2", "x", x);
  return impl::scaled_norm2(space, x);
}

/// An element and where it is.
template <class T>
struct located {
  T value;             ///< the element
  std::int64_t index;  ///< the first index holding value
};

/// The smallest element of x and its first index.
template <class ExecutionSpace, class X>
located<typename X::non_const_value_type> min_location(const ExecutionSpace& space, const X& x) {
  impl::scoped_region region("kernwerk::min_location");
  const auto found = impl::extremum_location<impl::smaller>(space, x, "min_location");
  return {found.first, found.second};
}

/// The largest element of x and its first index.
template <class ExecutionSpace, class X>
located<typename X::non_const_value_type> max_location(const ExecutionSpace& space, const X& x) {
  impl::scoped_region region("kernwerk::max_location");
  const auto found = impl::extremum_location<impl::larger>(space, x, "max_location");
  return {found.first, found.second};
}

}  // namespace kernwerk
