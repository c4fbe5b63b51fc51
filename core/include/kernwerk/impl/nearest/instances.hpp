#pragma once
#include <cstdint>

#include "kernwerk/impl/hip_space.hpp"
#include "kernwerk/impl/nearest/dispatch.hpp"

// What the library compiles once (core/CMakeLists.txt makes one translation unit per execution
// space and precision): calls with float64 or float32 points, int64 indices and distances of the
// points' type, all in the execution space's memory or (for a GPU) all in host memory; and the
// methods on such points with distances of their type or float64 (the keys of chunked and
// distributed calls). Calls with other types compile their own.
#define KERNWERK_NEAREST_CALL(prefix, Space, Memory, T)                                              \
  prefix template void kernwerk::impl::nearest_dispatch(                                             \
      const Space&, const kernwerk::impl::call_points<T, Memory>&,                                   \
      const kernwerk::impl::call_points<T, Memory>&,                                                 \
      const kernwerk::impl::call_matrix<std::int64_t, Memory>&,                                      \
      const kernwerk::impl::call_matrix<T, Memory>&, const kernwerk::nearest_options&);
#define KERNWERK_NEAREST_METHOD(prefix, Space, T, D)                                                 \
  prefix template void kernwerk::impl::nearest_runner<Space>::run(                                   \
      const kernwerk::impl::method_points<T, Space::memory_space>&,                                  \
      const kernwerk::impl::method_points<T, Space::memory_space>&,                                  \
      const kernwerk::impl::method_output<std::int64_t, D, Space::memory_space>&, int) const;
// The index's build and search (impl/index/index_core.hpp, impl/nearest/indexed.hpp), which
// every caller of the index reaches: kernwerk::spatial_index, the one-shot calls, the MPI index.
#define KERNWERK_INDEX_BUILD(prefix, Space, T)                                                       \
  prefix template kernwerk::impl::index_core<Space::memory_space>                                    \
  kernwerk::impl::build_packed_index(const Space&,                                                   \
                                     const kernwerk::impl::method_points<T, Space::memory_space>&,   \
                                     const kernwerk::impl::index_metric&, bool,                      \
                                     kernwerk::impl::carver&, kernwerk::impl::carver&,               \
                                     const kernwerk::impl::coordinate_limits*, std::int64_t*);
#define KERNWERK_INDEX_SEARCH(prefix, Space, T, D)                                                   \
  prefix template void kernwerk::impl::search_index(                                                 \
      const Space&, const kernwerk::impl::method_points<T, Space::memory_space>&,                    \
      const kernwerk::impl::index_core<Space::memory_space>&,                                        \
      const kernwerk::impl::method_output<std::int64_t, D, Space::memory_space>&, int,               \
      const kernwerk::nearest_tuning&, kernwerk::impl::carver&);
#define KERNWERK_NEAREST_F64(prefix, Space)                        \
  KERNWERK_NEAREST_METHOD(prefix, Space, double, double)           \
  KERNWERK_NEAREST_CALL(prefix, Space, Space::memory_space, double) \
  KERNWERK_INDEX_BUILD(prefix, Space, double)                      \
  KERNWERK_INDEX_SEARCH(prefix, Space, double, double)
#define KERNWERK_NEAREST_F32(prefix, Space)                       \
  KERNWERK_NEAREST_METHOD(prefix, Space, float, float)            \
  KERNWERK_NEAREST_METHOD(prefix, Space, float, double)           \
  KERNWERK_NEAREST_CALL(prefix, Space, Space::memory_space, float) \
  KERNWERK_INDEX_BUILD(prefix, Space, float)                      \
  KERNWERK_INDEX_SEARCH(prefix, Space, float, float)              \
  KERNWERK_INDEX_SEARCH(prefix, Space, float, double)
// A GPU's calls on host memory.
#define KERNWERK_NEAREST_HOST_F64(prefix, Space) KERNWERK_NEAREST_CALL(prefix, Space, Kokkos::HostSpace, double)
#define KERNWERK_NEAREST_HOST_F32(prefix, Space) KERNWERK_NEAREST_CALL(prefix, Space, Kokkos::HostSpace, float)
#define KERNWERK_NEAREST_HOST_SPACE_INSTANCES(prefix, Space) \
  KERNWERK_NEAREST_F64(prefix, Space) KERNWERK_NEAREST_F32(prefix, Space)
#define KERNWERK_NEAREST_GPU_INSTANCES(prefix, Space)                                      \
  KERNWERK_NEAREST_HOST_SPACE_INSTANCES(prefix, Space) KERNWERK_NEAREST_HOST_F64(prefix, Space) \
  KERNWERK_NEAREST_HOST_F32(prefix, Space)


#if defined(KOKKOS_ENABLE_SERIAL)
KERNWERK_NEAREST_HOST_SPACE_INSTANCES(extern, Kokkos::Serial)
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
KERNWERK_NEAREST_HOST_SPACE_INSTANCES(extern, Kokkos::OpenMP)
#endif
#if defined(KOKKOS_ENABLE_CUDA)
KERNWERK_NEAREST_GPU_INSTANCES(extern, Kokkos::Cuda)
#endif
#if defined(KOKKOS_ENABLE_HIP)
KERNWERK_NEAREST_GPU_INSTANCES(extern, KERNWERK_HIP_SPACE)
#endif
