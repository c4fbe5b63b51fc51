#pragma once
/// \file
/// Fused elementwise maps over rank-1 Views, and the course's maps.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/math.hpp"
#include "kernwerk/impl/profiling.hpp"
#include "kernwerk/impl/maps/reductions.hpp"
#include "kernwerk/impl/maps/transform.hpp"
#include "kernwerk/impl/view_checks.hpp"

namespace kernwerk {

/// The course's elementwise maps, as functors for kernwerk::transform.
namespace maps {
/// a x + y
struct saxpy {
  double a;  ///< the factor of x
  /// a x + y in T's arithmetic
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T x, T y) const { return T(a) * x + y; }
};
/// 2 (x - y) / (x + y), the course's relative difference
struct rel_diff {
  /// 2 (x - y) / (x + y) in T's arithmetic
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T x, T y) const { return T(2) * (x - y) / (x + y); }
};
/// cos^2 x + sin^2 x (1 up to rounding: a check of the device's trigonometry)
struct cos2_plus_sin2 {
  /// cos^2 x + sin^2 x in T's arithmetic
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T x) const {
    const T c = impl::math::cos(x), s = impl::math::sin(x);
    return c * c + s * s;
  }
};
/// lambda (x if x > 0, else alpha e^x - alpha), the scaled exponential linear unit
struct selu {
  double alpha = 1.67;   ///< the scale of the negative part
  double lambda = 1.05;  ///< the scale of the whole
  /// selu(x) in T's arithmetic
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T x) const {
    return T(lambda) * (x > T(0) ? x : T(alpha) * impl::math::exp(x) - T(alpha));
  }
};
}  // namespace maps

/// out(i) = f(inputs(i)...) for every i, over rank-1 Views of one length in one pass, so that a
/// chain of elementwise steps written as one functor reads each input once and writes once.
/// The output may be one of the inputs itself (in place, e.g. y = a x + y) but must not overlap
/// any input otherwise. f is callable on the execution space.
///
/// \throws kernwerk::invalid_argument naming the argument ("input 2", "out"): lengths that
/// differ, an output that overlaps an input without being it.
template <class ExecutionSpace, class Output, class Function, class... Inputs>
void transform(const ExecutionSpace& space, const Output& out, const Function& f,
               const Inputs&... inputs) {
  static_assert(sizeof...(Inputs) >= 1, "kernwerk::transform: at least one input");
  impl::scoped_region region("kernwerk::transform");
  impl::require_vector<ExecutionSpace>("transform", "out", out);
  static_assert(!std::is_const_v<typename Output::value_type>,
                "kernwerk::transform: out must be writable");
  int position = 0;
  (
      [&] {
        ++position;
        const std::string name = "input " + std::to_string(position);
        impl::require_vector<ExecutionSpace>("transform", name.c_str(), inputs);
        impl::require_same_length("transform", name.c_str(), inputs, "out", out);
        impl::require_in_place_or_disjoint(out, inputs, position);
      }(),
      ...);
  using tuned = impl::transform_tuned<ExecutionSpace>;
  if constexpr (tuned::available) {
    if (tuned::covers(out, inputs...)) {
      tuned::run(space, out, f, inputs...);
      space.fence();
      return;
    }
  }
  Kokkos::parallel_for("kernwerk::transform",
                       Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
                           space, 0, std::int64_t(out.extent(0))),
                       impl::map_functor<Output, Function, Inputs...>{out, f, {inputs...}});
  space.fence();
}

}  // namespace kernwerk
