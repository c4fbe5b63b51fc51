#pragma once
// How an execution space takes data from host memory: the budget of a call, a second queue
// for copies and the host memory it copies from fastest. The primaries suit host spaces; a
// backend folder specialises them for its device.
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <limits>

#include "kernwerk/config.hpp"

namespace kernwerk::impl {

// The memory budget of a call that leaves options.memory_budget at 0: no limit where the
// execution space works in host memory; a device asks for its free memory; elsewhere 4 GiB.
template <class ExecutionSpace>
struct default_memory_budget {
  static std::size_t bytes() {
    if (Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                   typename ExecutionSpace::memory_space>::accessible)
      return std::numeric_limits<std::size_t>::max();
    return std::size_t(4) << 30;
  }
};

// A second queue of the execution space for copies, so that they overlap the computation on
// the first. The primary copies on the computing instance itself (copies and computation take
// turns).
template <class ExecutionSpace>
struct transfer_queue {
  explicit transfer_queue(const ExecutionSpace& computing) : space(computing) {}
  ExecutionSpace space;
};

// Host memory the execution space copies from and to fastest (page-locked on GPUs). Staging
// buffers in it are kept between calls (allocating page-locked memory costs more than the
// copies).
template <class ExecutionSpace>
struct staging_memory {
  using type = Kokkos::HostSpace;
};

}  // namespace kernwerk::impl

// The backends' specialisations come with the declarations, so that every translation unit
// sees the same ones (a specialisation seen by some units only is an ODR violation).
#if KERNWERK_ENABLE_CUDA_TUNED
#include "kernwerk/cuda/staging.hpp"
#endif
#if KERNWERK_ENABLE_HIP_TUNED
#include "kernwerk/hip/staging.hpp"
#endif
