#pragma once
// kernwerk::diffuse's choice between the generic stencil and a backend's tuned one.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include "kernwerk/error.hpp"
#include "kernwerk/implementation.hpp"
#include "kernwerk/impl/grids/diffuse.hpp"

namespace kernwerk::impl {

// A backend folder specialises this for its execution space with `available = true`,
// `static bool covers(const Field&)` and `static void run(space, field, steps, laplacian,
// coeff)`.
template <class ExecutionSpace>
struct diffuse_tuned {
  static constexpr bool available = false;
  template <class Field>
  static bool covers(const Field&) { return false; }
};

template <class ExecutionSpace, class Field, class Laplacian>
void diffuse_dispatch(const ExecutionSpace& space, const Field& field, std::int64_t steps,
                      const Laplacian& laplacian, double coeff, implementation_kind kind) {
  using tuned = diffuse_tuned<ExecutionSpace>;
  const bool covered = tuned::covers(field);
  if (kind == implementation_kind::tuned && !covered)
    throw unsupported("diffuse", "options.implementation",
                      std::string("no tuned diffusion for this field on ") + ExecutionSpace::name());
  if (kind != implementation_kind::generic && covered) {
    if constexpr (tuned::available) {
      tuned::run(space, field, steps, laplacian, coeff);
      return;
    }
  }
  diffuse_generic(space, field, steps, laplacian, coeff);
}

}  // namespace kernwerk::impl

// The backends' specialisations of diffuse_tuned come with its declaration, so that every
// translation unit sees the same ones (a specialisation seen by some units only is an ODR violation).
#include "kernwerk/config.hpp"
#if KERNWERK_ENABLE_CUDA_TUNED
#include "kernwerk/cuda/diffuse.hpp"
#endif
#if KERNWERK_ENABLE_HIP_TUNED
#include "kernwerk/hip/diffuse.hpp"
#endif
