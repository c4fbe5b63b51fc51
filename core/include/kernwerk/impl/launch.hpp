#pragma once
// The range policy of kernwerk's kernels: std::int64_t indices, and the functor passed to the
// kernel as its launch argument. Kokkos puts a CUDA or HIP functor past 512 bytes in constant
// memory instead, and then waits, on the host, for the kernel that used that memory before to
// finish before each such launch. An index's functors hold the whole hierarchy (about 1 KiB), so
// an index build was a chain of host waits (issue 46).
#include <Kokkos_Core.hpp>

#include <cstdint>

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

}  // namespace kernwerk::impl
