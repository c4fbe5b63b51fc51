#pragma once
// The range policy of kernwerk's kernels: std::int64_t indices, and the functor passed to the
// kernel as its launch argument. Kokkos puts a CUDA or HIP functor past 512 bytes in constant
// memory instead, and then waits, on the host, for the kernel that used that memory before to
// finish before each such launch. An index's functors hold the whole hierarchy (about 1 KiB), so
// an index build was a chain of host waits (issue 46).
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace kernwerk::impl {

template <class ExecutionSpace>
using index_policy = decltype(Kokkos::Experimental::require(
    Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(),
    Kokkos::Experimental::WorkItemProperty::HintLightWeight));

// Whether a memory space is the host's (or reached from it): host spaces get their own layouts
// and rules where caches, not warps, decide the speed.
template <class MemorySpace>
inline constexpr bool host_memory =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;
// Whether an execution space runs on the host's cores (Serial, OpenMP, Threads): its passes can
// run in the calling thread instead.
template <class ExecutionSpace>
inline constexpr bool host_execution =
    std::is_same_v<typename ExecutionSpace::memory_space, Kokkos::HostSpace>;

// Searches whose costs differ (a query's reach, the hierarchy's pending few): on host spaces
// threads take chunks as they finish, where a static split left one core waiting on the other
// (perf/results/issue46-host-balanced-{queries,brute}-epyc-2core.json, issue50-host-balanced-*).
template <class ExecutionSpace>
using balanced_policy = std::conditional_t<
    host_execution<ExecutionSpace>,
    Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<std::int64_t>>,
    index_policy<ExecutionSpace>>;

// Asks a host core's caches for the line at p ahead of its use; nothing on a device, whose
// warps hide memory's latency among themselves. A search that takes its queries in the index's
// order reads each query's row, and writes its answer, scattered over memory: the radius
// searches' count pass asks for query t + query_prefetch_distance's lines while it searches
// query t (perf/results/issue50-host-prefetch-epyc-2core.json; the nearest search gained nothing).
inline constexpr std::int64_t query_prefetch_distance = 4;
KOKKOS_FORCEINLINE_FUNCTION void prefetch_line(const void* p) {
#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_prefetch(p);
#else
  (void)p;
#endif
}

// Whether a reduction functor has final(value).
template <class Functor, class = void>
struct has_final : std::false_type {};
template <class Functor>
struct has_final<Functor, std::void_t<decltype(std::declval<const Functor&>().final(
                              std::declval<typename Functor::value_type&>()))>> : std::true_type {};

// A backend folder specialises launch_tuned with `available = true` and plain launches on the
// space's queue, for the short passes whose Kokkos launch costs more host time than their work
// (an index build's: 13 to 44 us a launch with Kokkos 3.4 on the H200, issue 46):
//   run_for(space, n, f): f(i) for i in [0, n);
//   run_reduce(space, n, f, result, scratch): launch_reduce's reduction;
//   reduce_bytes<Value>(): the scratch run_reduce takes.
template <class ExecutionSpace>
struct launch_tuned {
  static constexpr bool available = false;
};

// Names a plain launch to a loaded Kokkos Tools library, as Kokkos' own launches are named.
class launch_label {
 public:
  launch_label(const char* label, bool reduce) : reduce_(reduce) {
    if (!Kokkos::Tools::profileLibraryLoaded()) return;
    active_ = true;
    if (reduce) Kokkos::Tools::beginParallelReduce(label, 0, &id_);
    else Kokkos::Tools::beginParallelFor(label, 0, &id_);
  }
  ~launch_label() {
    if (!active_) return;
    if (reduce_) Kokkos::Tools::endParallelReduce(id_);
    else Kokkos::Tools::endParallelFor(id_);
  }
  launch_label(const launch_label&) = delete;
  launch_label& operator=(const launch_label&) = delete;

 private:
  bool reduce_, active_ = false;
  std::uint64_t id_ = 0;
};

// f(i) for i in [0, n) on `space`, asynchronously.
template <class ExecutionSpace, class Functor>
void launch_for(const char* label, const ExecutionSpace& space, std::int64_t n, const Functor& f) {
  if (n <= 0) return;
  if constexpr (launch_tuned<ExecutionSpace>::available) {
    const launch_label named(label, false);
    launch_tuned<ExecutionSpace>::run_for(space, n, f);
  } else
    Kokkos::parallel_for(label, index_policy<ExecutionSpace>(space, 0, n), f);
}

// launch_for for searches, whose costs differ from item to item: host spaces hand out chunks as
// threads finish (balanced_policy).
template <class ExecutionSpace, class Functor>
void launch_searches(const char* label, const ExecutionSpace& space, std::int64_t n, const Functor& f) {
  if constexpr (launch_tuned<ExecutionSpace>::available)
    launch_for(label, space, n, f);
  else if (n > 0)
    Kokkos::parallel_for(label, balanced_policy<ExecutionSpace>(space, 0, n), f);
}

// The scratch bytes launch_reduce takes for values of type Value (0 where Kokkos reduces).
template <class ExecutionSpace, class Value>
std::size_t launch_reduce_bytes() {
  if constexpr (launch_tuned<ExecutionSpace>::available)
    return launch_tuned<ExecutionSpace>::template reduce_bytes<Value>();
  else
    return 0;
}

// f's reduction over [0, n) (Kokkos' functor reduction: value_type, f(i, value), init, join,
// final) into *result, in the space's memory, asynchronously; `scratch` holds
// launch_reduce_bytes for f's value_type.
template <class ExecutionSpace, class Functor>
void launch_reduce(const char* label, const ExecutionSpace& space, std::int64_t n,
                   const Functor& f, typename Functor::value_type* result, void* scratch) {
  if constexpr (launch_tuned<ExecutionSpace>::available) {
    const launch_label named(label, true);
    launch_tuned<ExecutionSpace>::run_reduce(space, n, f, result, scratch);
  } else
    Kokkos::parallel_reduce(
        label, index_policy<ExecutionSpace>(space, 0, n), f,
        Kokkos::View<typename Functor::value_type, typename ExecutionSpace::memory_space,
                     Kokkos::MemoryUnmanaged>(result));
}

// Steps of a short sequence of passes, each reading what the one before wrote
// (launch_steps): f(i) over [0, n); f's reduction over [0, n) into *result, as launch_reduce;
// f's exclusive scan over [0, n), as Kokkos' functor scans (f(i, partial, final), init, join).
template <class Functor>
struct for_step {
  const char* label;
  std::int64_t n;
  Functor f;
};
template <class Functor>
struct reduce_step {
  const char* label;
  std::int64_t n;
  Functor f;
  typename Functor::value_type* result;
};
template <class Functor>
struct scan_step {
  const char* label;
  std::int64_t n;
  Functor f;
};
template <class Functor>
for_step<Functor> step_for(const char* label, std::int64_t n, const Functor& f) {
  return {label, n, f};
}
template <class Functor>
reduce_step<Functor> step_reduce(const char* label, std::int64_t n, const Functor& f,
                                 typename Functor::value_type* result) {
  return {label, n, f, result};
}
template <class Functor>
scan_step<Functor> step_scan(const char* label, std::int64_t n, const Functor& f) {
  return {label, n, f};
}

template <class ExecutionSpace, class Functor>
void launch_step(const ExecutionSpace& space, void*, const for_step<Functor>& step) {
  launch_for(step.label, space, step.n, step.f);
}
template <class ExecutionSpace, class Functor>
void launch_step(const ExecutionSpace& space, void* scratch, const reduce_step<Functor>& step) {
  launch_reduce(step.label, space, step.n, step.f, step.result, scratch);
}
template <class ExecutionSpace, class Functor>
void launch_step(const ExecutionSpace& space, void*, const scan_step<Functor>& step) {
  if (step.n > 0)
    Kokkos::parallel_scan(step.label, index_policy<ExecutionSpace>(space, 0, step.n), step.f);
}

// A step in the calling thread, element after element (a reduction's and a scan's value: the
// functor's value_type, from its init; a reduction's final applied at the end).
template <class Functor>
void run_in_caller(const for_step<Functor>& step) {
  for (std::int64_t i = 0; i < step.n; ++i) step.f(i);
}
template <class Functor>
void run_in_caller(const reduce_step<Functor>& step) {
  typename Functor::value_type value;
  step.f.init(value);
  for (std::int64_t i = 0; i < step.n; ++i) step.f(i, value);
  if constexpr (has_final<Functor>::value) step.f.final(value);
  *step.result = value;
}
template <class Functor>
void run_in_caller(const scan_step<Functor>& step) {
  typename Functor::value_type partial;
  step.f.init(partial);
  for (std::int64_t i = 0; i < step.n; ++i) step.f(i, partial, true);
}

// A one-block launch is named by its first step.
template <class First, class... Rest>
const char* steps_label(const First& first, const Rest&...) {
  return first.label;
}

// The steps in order on `space`, asynchronously. With `small` (sets whose launches cost more
// than their work): on a backend with plain launches, all of them in one launch of one block
// (issue 46: 9 to 27 us a launch on the H200); on a host space, all of them in the calling
// thread, with no parallel region (perf/results/issue46-host-small-build-epyc-2core.json).
// Else a launch or two each. `scratch` holds launch_reduce_bytes for the reductions' values (one
// after another).
template <class ExecutionSpace, class... Steps>
void launch_steps(const ExecutionSpace& space, bool small, void* scratch, const Steps&... steps) {
  if constexpr (launch_tuned<ExecutionSpace>::available) {
    if (small) {
      const launch_label named(steps_label(steps...), false);
      launch_tuned<ExecutionSpace>::run_steps(space, steps...);
      return;
    }
  }
  if constexpr (host_execution<ExecutionSpace>) {
    if (small) {
      space.fence();  // what was queued before
      const launch_label named(steps_label(steps...), false);
      (run_in_caller(steps), ...);
      return;
    }
  }
  (launch_step(space, scratch, steps), ...);
}

}  // namespace kernwerk::impl

// The backends' specialisations of launch_tuned come with its declaration, so that every
// translation unit sees the same ones (a specialisation seen by some units only is an ODR violation).
#include "kernwerk/config.hpp"
#if KERNWERK_ENABLE_CUDA_TUNED
#include "kernwerk/cuda/launch.hpp"
#endif
#if KERNWERK_ENABLE_HIP_TUNED
#include "kernwerk/hip/launch.hpp"
#endif
