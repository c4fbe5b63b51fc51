#pragma once
// The staged engine's one-piece case: searches on sets in memory the execution space does not
// reach (host memory and a GPU) that fit its memory in one piece and are too small for the
// pipeline: the sets are copied in, checked and searched there, and the results copied out. Such calls are how codes
// call every time step, so each one avoids what costs more than its copies:
// - device memory is not allocated per call: the copies use a buffer kept between calls (up to
//   kept_copy_bytes; larger calls allocate, the allocation is small beside their copies);
// - no host threads: the calling thread copies (from pageable memory where the layouts match,
//   else through a conversion loop into page-locked staging memory). Host threads parked
//   between calls can take longer to wake than the whole call (perf/calls_bench.cpp --trace,
//   perf/results/calls-cuda-h100.json; commit 20cbbd0);
// - the values are checked on the copies, in one pass over both sets.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "kernwerk/impl/packed_rows.hpp"
#include "kernwerk/impl/staging/engine.hpp"
#include "kernwerk/impl/workspace.hpp"

namespace kernwerk::impl {

struct copy_purpose;
inline constexpr std::size_t kept_copy_bytes = std::size_t(64) << 20;

// Device memory for one call's copies: the kept workspace, or an allocation of the call's own.
template <class MemorySpace>
class copy_memory {
 public:
  explicit copy_memory(std::size_t bytes) {
    if (bytes == 0) return;  // nothing to copy: nothing locked
    if (bytes <= kept_copy_bytes) {
      kept_.emplace(bytes);
    } else {
      owned_ = Kokkos::View<char*, MemorySpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::staged::copies"), bytes);
      pieces_.emplace(owned_.data(), bytes);
    }
  }
  template <class T>
  T* take(std::size_t count) {
    return kept_ ? kept_->template take<T>(count) : pieces_->template take<T>(count);
  }

 private:
  std::optional<workspace<MemorySpace, copy_purpose>> kept_;
  Kokkos::View<char*, MemorySpace> owned_;
  std::optional<carver> pieces_;
};

// The View `view` as the execution space sees it: itself where it reaches it, else a LayoutRight
// copy's place in its memory (rank and value type kept).
template <class ExecutionSpace, class View>
struct device_side {
  static constexpr bool reached =
      Kokkos::SpaceAccessibility<ExecutionSpace, typename View::memory_space>::accessible;
  using type = std::conditional_t<
      reached, View, rows_like<View, typename ExecutionSpace::memory_space, Kokkos::MemoryUnmanaged>>;
  static std::size_t elements(const View& view) { return reached ? 0 : view.size(); }
};

// The engine's one-piece case: the inputs (point sets) and two outputs (indices, distances) of
// a call as the execution space sees them, copied in (inputs) and out (outputs, copy_out) where
// it does not reach them.
template <class ExecutionSpace, class Indices, class Distances, class... Inputs>
class staged_copies {
  using memory_space = typename ExecutionSpace::memory_space;
  using staging_space = typename staging_memory<ExecutionSpace>::type;
  template <class View>
  using side = device_side<ExecutionSpace, View>;
  template <class View>
  using value = typename View::non_const_value_type;

 public:
  std::tuple<typename side<Inputs>::type...> inputs;
  typename side<Indices>::type indices;
  typename side<Distances>::type distances;
  static constexpr bool outputs_reached = side<Indices>::reached && side<Distances>::reached;

  // Copies the inputs in (queued on `space`).
  staged_copies(const ExecutionSpace& space, const Indices& out_indices,
                const Distances& out_distances, const Inputs&... in)
      : memory_(device_bytes(out_indices, out_distances, in...)) {
    const std::size_t staged =
        staged_bytes(out_indices) + staged_bytes(out_distances) + (staged_bytes(in) + ... + 0);
    if (staged > 0) staging_.emplace(staged);
    inputs = std::tuple<typename side<Inputs>::type...>{place(in)...};  // in order
    indices = place(out_indices);
    distances = place(out_distances);
    copy_inputs(space, std::index_sequence_for<Inputs...>(), in...);
  }

  // The results into the caller's outputs; returns once they are there.
  void copy_out(const ExecutionSpace& space, const Indices& out_indices,
                const Distances& out_distances) {
    copy_out(space, indices, out_indices);
    copy_out(space, distances, out_distances);
    space.fence();
  }

 private:
  template <std::size_t... I>
  void copy_inputs(const ExecutionSpace& space, std::index_sequence<I...>, const Inputs&... in) {
    (copy_in(space, in, std::get<I>(inputs)), ...);
  }

  static std::size_t device_bytes(const Indices& out_indices, const Distances& out_distances,
                                  const Inputs&... in) {
    return (carver::bytes_for<value<Inputs>>(side<Inputs>::elements(in)) + ... + 0) +
           carver::bytes_for<value<Indices>>(side<Indices>::elements(out_indices)) +
           carver::bytes_for<value<Distances>>(side<Distances>::elements(out_distances));
  }

  // Sets out of reach whose elements are not packed row by row go through staging memory.
  template <class View>
  static std::size_t staged_bytes(const View& view) {
    return side<View>::reached || row_major_packed(view) ? 0
                                                         : carver::bytes_for<value<View>>(view.size());
  }

  template <class View>
  typename side<View>::type place(const View& view) {
    if constexpr (side<View>::reached)
      return view;
    else
      return unmanaged_rows<typename side<View>::type>(
          memory_.template take<value<View>>(view.size()), view.extent(0), columns(view));
  }

  // The host View `view` as LayoutRight rows over `data` (its own, or staging memory).
  template <class View, class Space>
  static auto host_rows(value<View>* data, const View& view) {
    return unmanaged_rows<rows_like<View, Space, Kokkos::MemoryUnmanaged>>(data, view.extent(0),
                                                                         columns(view));
  }

  template <class View>
  static std::size_t columns(const View& view) {
    return View::rank == 2 ? view.extent(1) : 1;
  }

  // Element by element, on the host: `from` into `to` (rank 1 or 2, any layouts).
  template <class To, class From>
  static void copy_elements(const To& to, const From& from) {
    for (std::size_t i = 0; i < from.extent(0); ++i) {
      if constexpr (From::rank == 1)
        to(i) = from(i);
      else
        for (std::size_t d = 0; d < from.extent(1); ++d) to(i, d) = from(i, d);
    }
  }

  template <class Source, class Target>
  void copy_in(const ExecutionSpace& space, const Source& source, const Target& target) {
    if constexpr (!side<Source>::reached) {
      if (source.size() == 0) return;
      if (row_major_packed(source)) {
        Kokkos::deep_copy(space, target,
                          host_rows<Source, Kokkos::HostSpace>(
                              const_cast<value<Source>*>(source.data()), source));
        return;
      }
      const auto staged = host_rows<Source, staging_space>(
          staging_->template take<value<Source>>(source.size()), source);
      copy_elements(staged, source);
      Kokkos::deep_copy(space, target, staged);
    }
  }

  template <class Copy, class Target>
  void copy_out(const ExecutionSpace& space, const Copy& copy, const Target& target) {
    if constexpr (!side<Target>::reached) {
      if (target.size() == 0) return;
      if (row_major_packed(target)) {
        Kokkos::deep_copy(space, host_rows<Target, Kokkos::HostSpace>(target.data(), target), copy);
        return;
      }
      const auto staged = host_rows<Target, staging_space>(
          staging_->template take<value<Target>>(target.size()), target);
      Kokkos::deep_copy(space, staged, copy);
      space.fence();
      copy_elements(target, staged);
    }
  }

  copy_memory<memory_space> memory_;
  std::optional<workspace<staging_space, staging_purpose>> staging_;
};

}  // namespace kernwerk::impl
