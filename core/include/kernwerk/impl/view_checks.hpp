#pragma once
// Host-side argument checks shared by the algorithms. They run before any output is written.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <utility>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/launch.hpp"

namespace kernwerk::impl {

// Byte range a View occupies: from its first element to the end of its last; empty Views
// occupy nothing. (Not span(): for LayoutStride, Kokkos gives the largest extent times stride,
// which for a view at an offset inside its allocation, such as columns 3 and 4 of every other
// row, reaches past the allocation's end, into whatever lies beside it.) A struct, not a
// std::pair: nvcc 13 with GCC 13 spells the pair's std::uintptr_t through a built-in trait
// that GCC refuses to mangle into a template's signature.
struct byte_span {
  std::uintptr_t begin, end;
};
template <class View>
byte_span byte_range(const View& view) {
  const auto begin = reinterpret_cast<std::uintptr_t>(view.data());
  if (view.data() == nullptr || view.size() == 0) return {begin, begin};
  std::size_t last = 0;
  for (unsigned r = 0; r < unsigned(View::rank); ++r) last += (view.extent(r) - 1) * view.stride(r);
  return {begin, begin + (last + 1) * sizeof(typename View::value_type)};
}

template <class A, class B>
bool overlaps(const A& a, const B& b) {
  const byte_span first = byte_range(a), second = byte_range(b);
  return first.begin < second.end && second.begin < first.end;
}

// An output must not share memory with another argument: the kernel would read what it wrote.
template <class Output, class Other>
void require_disjoint(const char* function, const char* output_name, const Output& output,
                      const char* other_name, const Other& other) {
  if (overlaps(output, other))
    throw invalid_argument(function, output_name,
                           std::string("shares memory with ") + other_name);
}

// A View with elements must have memory: an unmanaged View over a null pointer has none. (The
// extents' product, not size(): Kokkos 5 gives such a View size() 0 and its extents as given.)
template <class View>
void require_data(const char* function, const char* name, const View& view) {
  std::size_t elements = 1;
  for (unsigned r = 0; r < unsigned(View::rank); ++r) elements *= view.extent(r);
  if (elements > 0 && view.data() == nullptr)
    throw invalid_argument(function, name, "null data for " + std::to_string(elements) + " elements");
}

template <class View>
void require_length_at_least(const char* function, const char* name, const View& view,
                             std::size_t needed, const char* needed_for) {
  if (view.extent(0) < needed) {
    std::ostringstream message;
    message << "length " << view.extent(0) << " is shorter than " << needed_for << " ("
            << needed << ")";
    throw invalid_argument(function, name, message.str());
  }
  require_data(function, name, view);
}

// The first `rows` rows of a rank-1 or rank-2 View (a count, not a std::pair of bounds: see
// byte_span).
template <class View>
auto first_rows(const View& view, std::size_t rows) {
  const auto range = std::make_pair(std::size_t(0), rows);
  if constexpr (View::rank == 1) return Kokkos::subview(view, range);
  else return Kokkos::subview(view, range, Kokkos::ALL());
}

// The largest |value| a point's first and second coordinates may have (0: no limit).
struct coordinate_limits {
  double first = 0, second = 0;
};

// Whether row i of a rank-2 View has a non-finite coordinate, or a first or second coordinate
// beyond its limit.
template <class Points>
KOKKOS_INLINE_FUNCTION bool invalid_point(const Points& points, const std::int64_t i,
                                          const coordinate_limits& limits) {
  bool bad = false;
  for (std::size_t d = 0; d < points.extent(1); ++d) {
    const double value = static_cast<double>(points(i, d));
    // Written without isfinite so that it stays correct under fast-math flags.
    bad = bad || !(value - value == 0.0);
  }
  for (std::size_t d = 0; d < 2 && d < points.extent(1) && !bad; ++d) {
    const double limit = d == 0 ? limits.first : limits.second, value = static_cast<double>(points(i, d));
    bad = limit > 0 && (value > limit || value < -limit);
  }
  return bad;
}

// The first invalid row of two sets in one pass: rows of `first`, then rows of `second`
// numbered on from first.extent(0).
template <class First, class Second>
struct first_invalid_row {
  First first;
  Second second;
  coordinate_limits limits;

  KOKKOS_FUNCTION void operator()(const std::int64_t i, std::int64_t& lowest) const {
    const auto n = static_cast<std::int64_t>(first.extent(0));
    const bool bad = i < n ? invalid_point(first, i, limits) : invalid_point(second, i - n, limits);
    if (bad && i < lowest) lowest = i;
  }
};

// The first invalid point of `first` (as (0, row)) or else of `second` (as (1, row)), or
// (-1, -1) when every point is valid; one reduction and one read for both. Runs on `space`,
// which must reach both sets.
template <class ExecutionSpace, class First, class Second>
std::pair<int, std::int64_t> find_invalid_point(const ExecutionSpace& space, const First& first,
                                                const Second& second, const coordinate_limits& limits) {
  const auto n = static_cast<std::int64_t>(first.extent(0));
  std::int64_t lowest = std::numeric_limits<std::int64_t>::max();
  Kokkos::parallel_reduce(
      "kernwerk::check_points",
      index_policy<ExecutionSpace>(
          space, 0, n + static_cast<std::int64_t>(second.extent(0))),
      first_invalid_row<First, Second>{first, second, limits},
      Kokkos::Min<std::int64_t>(lowest));
  space.fence();
  if (lowest == std::numeric_limits<std::int64_t>::max()) return {-1, -1};
  return lowest < n ? std::pair<int, std::int64_t>{0, lowest}
                    : std::pair<int, std::int64_t>{1, lowest - n};
}

// The first invalid point of one set, or -1.
template <class ExecutionSpace, class Points>
std::int64_t find_invalid_point(const ExecutionSpace& space, const Points& points,
                                const coordinate_limits& limits) {
  return find_invalid_point(space, points, Kokkos::subview(points, std::make_pair(0, 0), Kokkos::ALL()),
                            limits)
      .second;
}

// One point's coordinates, copied to the host for an error message.
template <class Points>
auto host_point(const Points& points, std::int64_t row) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                             Kokkos::subview(points, row, Kokkos::ALL()));
}

// "point ROW (x, y, ...)" of a host_point.
template <class HostPoint>
std::string describe_point(std::int64_t row, const HostPoint& host) {
  std::ostringstream text;
  text.precision(17);
  text << "point " << row << " (";
  for (std::size_t d = 0; d < host.extent(0); ++d) text << (d ? ", " : "") << host(d);
  text << ")";
  return text.str();
}

// 16 bytes of an array of Real (two doubles, four floats), read in one load.
template <class Real>
struct alignas(16) real_pack {
  Real value[16 / sizeof(Real)];
};

// Whether a value of `data` is NaN or infinite: `packs` packs, then the values after them
// (a functor at namespace scope, as nvcc's launch stubs want).
template <class Real>
struct find_non_finite {
  const Real* data;
  std::int64_t packs;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, int& found) const {
    constexpr int per = int(16 / sizeof(Real));
    // written without isfinite so that it stays correct under fast-math flags
    if (i < packs) {
      const real_pack<Real> pack = reinterpret_cast<const real_pack<Real>*>(data)[i];
      for (int k = 0; k < per; ++k)
        if (!(pack.value[k] - pack.value[k] == Real(0))) found = 1;
    } else {
      const Real x = data[packs * per + (i - packs)];
      if (!(x - x == Real(0))) found = 1;
    }
  }
};

// Whether any of the `count` values at `data` (memory the space reaches) is NaN or infinite:
// one read of them, 16 bytes a load where `data` is aligned for it.
template <class Space, class Real>
bool holds_non_finite(const Space& space, const Real* data, std::int64_t count) {
  if (count <= 0) return false;
  constexpr std::int64_t per = 16 / sizeof(Real);
  const std::int64_t packs = reinterpret_cast<std::uintptr_t>(data) % 16 == 0 ? count / per : 0;
  int found = 0;
  Kokkos::parallel_reduce("kernwerk::check_finite",
                          Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(space, 0, count - packs * (per - 1)),
                          find_non_finite<Real>{data, packs}, Kokkos::Max<int>(found));
  return found > 0;  // (Max starts at INT_MIN)
}

}  // namespace kernwerk::impl
