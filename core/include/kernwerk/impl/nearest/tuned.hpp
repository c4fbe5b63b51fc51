#pragma once
// The tuned brute force of nearest: a backend folder specialises nearest_tuned for its
// execution space, with `available = true`, `static bool covers(metric_kind, int k)` (what its
// brute force implements) and `static void run(space, observations, references, output, k,
// scale, radius)` taking the same checked, accessible Views as nearest_generic and a
// neighbour_output.
#include "kernwerk/config.hpp"
#include "kernwerk/nearest_options.hpp"

namespace kernwerk::impl {

template <class ExecutionSpace>
struct nearest_tuned {
  static constexpr bool available = false;
  static bool covers(metric_kind, int) { return false; }
};

}  // namespace kernwerk::impl

// The backends' specialisations come with the declaration, so that every translation unit sees
// the same ones (a specialisation seen by some units only is an ODR violation).
#if KERNWERK_ENABLE_HOST_TUNED
#include "kernwerk/host/nearest.hpp"
#endif
#if KERNWERK_ENABLE_CUDA_TUNED
#include "kernwerk/cuda/nearest.hpp"
#endif
#if KERNWERK_ENABLE_HIP_TUNED
#include "kernwerk/hip/nearest.hpp"
#endif
