#pragma once
// The generic elementwise map of kernwerk::transform, its in-place rule, and the trait a backend
// specialises with a tuned map.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/view_checks.hpp"

namespace kernwerk::impl {
template <class Output, class Function, class... Inputs>
struct map_functor {
  Output out;
  Function f;
  std::tuple<Inputs...> inputs;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    apply(i, std::index_sequence_for<Inputs...>{});
  }
  template <std::size_t... I>
  KOKKOS_INLINE_FUNCTION void apply(const std::int64_t i, std::index_sequence<I...>) const {
    out(i) = static_cast<typename Output::value_type>(f(std::get<I>(inputs)(i)...));
  }
};

// A backend folder specialises this with `available = true`, `covers(out, inputs...)` and
// `run(space, out, f, inputs...)` (asynchronous on space).
template <class ExecutionSpace>
struct transform_tuned {
  static constexpr bool available = false;
};

template <class Output, class Input>
void require_in_place_or_disjoint(const Output& out, const Input& in, int position) {
  const bool same = out.data() == in.data() && out.extent(0) == in.extent(0) &&
                    (out.extent(0) < 2 || out.stride(0) == in.stride(0));
  if (!same && overlaps(out, in))
    throw invalid_argument("transform", "out",
                           "overlaps input " + std::to_string(position) +
                               " without being the same View");
}
}  // namespace kernwerk::impl

// The backends' specialisations of transform_tuned come with its declaration, so that every
// translation unit sees the same ones (a specialisation seen by some units only is an ODR violation).
#include "kernwerk/config.hpp"
#if KERNWERK_ENABLE_CUDA_TUNED
#include "kernwerk/cuda/transform.hpp"
#endif
#if KERNWERK_ENABLE_HIP_TUNED
#include "kernwerk/hip/transform.hpp"
#endif
