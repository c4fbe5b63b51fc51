#pragma once
// Checks and the generic Kokkos implementation of kernwerk::diffuse: two LayoutRight buffers
// the steps alternate between, the caller's field copied in before and out after.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "kernwerk/error.hpp"
#include "kernwerk/implementation.hpp"
#include "kernwerk/impl/view_checks.hpp"

namespace kernwerk::impl {

// The laplacian argument of a call that wants none.
template <class Field>
using no_laplacian =
    Kokkos::View<typename Field::non_const_value_type**, Kokkos::LayoutRight,
                 typename Field::memory_space, Kokkos::MemoryUnmanaged>;

template <class Field>
struct first_non_finite {
  Field field;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j,
                                         std::int64_t& first) const {
    const double v = double(field(i, j));
    if (!(v - v == 0.0)) {
      const std::int64_t flat = i * std::int64_t(field.extent(1)) + j;
      if (flat < first) first = flat;
    }
  }
};

template <class ExecutionSpace, class Field>
void require_finite_grid(const ExecutionSpace& space, const char* function, const char* name,
                         const Field& field) {
  if (field.size() == 0) return;
  using policy = Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>,
                                       Kokkos::IndexType<std::int64_t>>;
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  Kokkos::parallel_reduce("kernwerk::check_finite",
                          policy(space, {0, 0}, {std::int64_t(field.extent(0)),
                                                 std::int64_t(field.extent(1))}),
                          first_non_finite<Field>{field}, Kokkos::Min<std::int64_t>(first));
  space.fence();
  if (first != std::numeric_limits<std::int64_t>::max()) {
    const std::int64_t columns = std::int64_t(field.extent(1));
    throw invalid_argument(function, name,
                           "element (" + std::to_string(first / columns) + ", " +
                               std::to_string(first % columns) + ") is not finite");
  }
}

template <class ExecutionSpace, class Field, class Laplacian>
void check_diffuse(const ExecutionSpace& space, const Field& field, std::int64_t steps,
                   const Laplacian& laplacian, double coeff) {
  static_assert(Kokkos::is_view<Field>::value && Field::rank == 2,
                "kernwerk::diffuse: field must be a rank-2 View");
  static_assert(std::is_floating_point_v<typename Field::value_type> &&
                    !std::is_const_v<typename Field::value_type>,
                "kernwerk::diffuse: field must be a writable View of float or double");
  static_assert(Kokkos::is_view<Laplacian>::value && Laplacian::rank == 2 &&
                    std::is_floating_point_v<typename Laplacian::value_type> &&
                    !std::is_const_v<typename Laplacian::value_type>,
                "kernwerk::diffuse: laplacian must be a writable rank-2 View of float or double");
  static_assert(
      Kokkos::SpaceAccessibility<ExecutionSpace, typename Field::memory_space>::accessible &&
          Kokkos::SpaceAccessibility<ExecutionSpace, typename Laplacian::memory_space>::accessible,
      "kernwerk::diffuse: the execution space must reach field and laplacian");
  constexpr const char* fn = "diffuse";
  if (steps < 0)
    throw invalid_argument(fn, "steps", "must not be negative, got " + std::to_string(steps));
  if (!(coeff >= 0.0 && coeff <= 0.25))
    throw invalid_argument(fn, "options.coeff",
                           "must be in [0, 0.25] (the stable range of the explicit step), got " +
                               std::to_string(coeff));
  if (field.size() > 0 && field.data() == nullptr)
    throw invalid_argument(fn, "field", "has extents but no data");
  const bool wants_laplacian = laplacian.data() != nullptr || laplacian.size() > 0;
  if (wants_laplacian) {
    if (laplacian.extent(0) != field.extent(0) || laplacian.extent(1) != field.extent(1))
      throw invalid_argument(fn, "laplacian",
                             "extents (" + std::to_string(laplacian.extent(0)) + ", " +
                                 std::to_string(laplacian.extent(1)) + ") differ from field's (" +
                                 std::to_string(field.extent(0)) + ", " +
                                 std::to_string(field.extent(1)) + ")");
    require_disjoint(fn, "laplacian", laplacian, "field", field);
  }
  require_finite_grid(space, fn, "field", field);
}

// One step from `from` into `to` (and L into `laplacian` when it has data).
template <class From, class To, class Laplacian>
struct diffusion_step {
  From from;
  To to;
  Laplacian laplacian;
  typename To::value_type coeff;
  std::int64_t rows, columns;
  bool write_laplacian;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j) const {
    using T = typename To::value_type;
    const T centre = from(i, j);
    T value = T(4) * centre;
    if (i > 0) value -= from(i - 1, j);
    if (j > 0) value -= from(i, j - 1);
    if (i + 1 < rows) value -= from(i + 1, j);
    if (j + 1 < columns) value -= from(i, j + 1);
    if (write_laplacian) laplacian(i, j) = value;
    to(i, j) = centre - value * coeff;
  }
};

template <class ExecutionSpace, class Field, class Laplacian>
void diffuse_generic(const ExecutionSpace& space, const Field& field, std::int64_t steps,
                     const Laplacian& laplacian, double coeff) {
  using T = typename Field::non_const_value_type;
  using grid = Kokkos::View<T**, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>;
  using policy = Kokkos::MDRangePolicy<ExecutionSpace,
                                       Kokkos::Rank<2, Kokkos::Iterate::Right, Kokkos::Iterate::Right>,
                                       Kokkos::IndexType<std::int64_t>>;
  const std::int64_t rows = field.extent(0), columns = field.extent(1);
  const bool wants_laplacian = laplacian.data() != nullptr;
  if (rows == 0 || columns == 0) return;
  const policy everywhere(space, {0, 0}, {rows, columns});
  grid buffer[2] = {grid(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::diffuse::a"),
                         rows, columns),
                    grid(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::diffuse::b"),
                         rows, columns)};
  Kokkos::deep_copy(space, buffer[0], field);
  if (steps == 0 && wants_laplacian) {
    Kokkos::parallel_for("kernwerk::diffuse::laplacian", everywhere,
                         diffusion_step<grid, grid, Laplacian>{buffer[0], buffer[1], laplacian,
                                                               T(coeff), rows, columns, true});
  }
  for (std::int64_t step = 0; step < steps; ++step) {
    const grid& from = buffer[step % 2];
    const grid& to = buffer[(step + 1) % 2];
    Kokkos::parallel_for("kernwerk::diffuse::step", everywhere,
                         diffusion_step<grid, grid, Laplacian>{
                             from, to, laplacian, T(coeff), rows, columns,
                             wants_laplacian && step + 1 == steps});
  }
  Kokkos::deep_copy(space, field, buffer[steps % 2]);
  space.fence();
}

}  // namespace kernwerk::impl
