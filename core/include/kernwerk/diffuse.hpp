#pragma once
/// \file
/// Explicit 2-D diffusion on a grid: the course's 5-point stencil, many steps, race-free.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <string>

#include "kernwerk/error.hpp"
#include "kernwerk/implementation.hpp"
#include "kernwerk/impl/grids/diffuse_dispatch.hpp"
#include "kernwerk/impl/profiling.hpp"
#include "kernwerk/impl/view_checks.hpp"

namespace kernwerk {

/// Options of kernwerk::diffuse.
struct diffuse_options {
  double coeff = 0.25;  ///< the step's coefficient; stable for 0 <= coeff <= 0.25
  implementation_kind implementation = implementation_kind::automatic;  ///< the code path
};

/// `steps` times, field -= coeff * L(field), where L(f)(i, j) = 4 f(i, j) - (sum of the up to
/// four neighbours of (i, j) inside the grid): the course's 5-point stencil, with neighbours
/// outside the grid left out (as if they were 0). Every step reads the whole previous field
/// (double-buffered), so the result does not depend on the order in which cells are updated.
///
/// `laplacian` receives L of the field the last step started from (of the field as given when
/// steps = 0). Fields are rank-2 Views of float or double, any layout, in memory the execution
/// space reaches.
///
/// \throws kernwerk::invalid_argument naming the argument, before the field is written:
/// negative steps, a coefficient outside [0, 0.25], a laplacian of another shape or overlapping
/// the field, a field element that is not finite.
/// \throws kernwerk::unsupported for implementation_kind::tuned where the build has no tuned
/// diffusion for the field on ExecutionSpace.
template <class ExecutionSpace, class Field, class Laplacian>
void diffuse(const ExecutionSpace& space, const Field& field, std::int64_t steps,
             const Laplacian& laplacian, const diffuse_options& options = {}) {
  impl::scoped_region region("kernwerk::diffuse");
  impl::check_diffuse(space, field, steps, laplacian, options.coeff);
  impl::diffuse_dispatch(space, field, steps, laplacian, options.coeff, options.implementation);
}

/// kernwerk::diffuse without the Laplacian output.
template <class ExecutionSpace, class Field>
void diffuse(const ExecutionSpace& space, const Field& field, std::int64_t steps,
             const diffuse_options& options = {}) {
  diffuse(space, field, steps, impl::no_laplacian<Field>(), options);
}

}  // namespace kernwerk
