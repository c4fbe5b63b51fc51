#pragma once
// What the C interface's translation units share: the thread-local last error, the guard that
// turns every exception into a status, the argument checks C cannot make in its types, and the
// dispatch from kw_type and kw_memory to C++ types and execution spaces.
#include "kernwerk.h"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <new>
#include <string>
#include <type_traits>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#elif defined(KOKKOS_ENABLE_HIP)
#include <hip/hip_runtime.h>
#endif

#include "kernwerk/cg.hpp"  // kernwerk::not_converged
#include "kernwerk/impl/staging/allocation_failure.hpp"
#include "kernwerk/error.hpp"
#include "kernwerk/impl/strided_views.hpp"
#include "kernwerk/index_options.hpp"
#include "kernwerk/nearest_options.hpp"

namespace kernwerk::c_api {

using kernwerk::invalid_argument;

// The calling thread's last error message.
std::string& last_error();

// Held by every call while it runs: calls from several threads run one at a time. The C
// interface computes on Kokkos' default execution space instances, whose state (scratch and
// reduction buffers, the OpenMP thread pool) is one for the whole process.
std::recursive_mutex& call_lock();

// Initialises Kokkos unless the application has: on GPU local_rank modulo the GPUs this process
// sees, or Kokkos' default device where local_rank is negative. kw_finalize undoes it.
kw_status initialize(const char* function, int local_rank);

inline kw_status fail(kw_status status, const std::string& message) {
  last_error() = message;
  return status;
}

// Runs body() for the C function `function`, turning every exception into a status.
template <class Body>
kw_status guarded(const char* function, Body&& body) {
  if (!Kokkos::is_initialized())
    return fail(KW_NOT_INITIALIZED,
                std::string(function) + ": Kernwerk is not initialised (call kw_initialize)");
  try {
    std::lock_guard<std::recursive_mutex> one_at_a_time(call_lock());
    body();
    return KW_SUCCESS;
  } catch (const kernwerk::invalid_argument& e) {
    return fail(KW_INVALID_ARGUMENT, e.what());
  } catch (const kernwerk::unsupported& e) {
    return fail(KW_UNSUPPORTED, e.what());
  } catch (const kernwerk::not_converged& e) {
    return fail(KW_NOT_CONVERGED, e.what());
  } catch (const kernwerk::out_of_memory& e) {
    return fail(KW_OUT_OF_MEMORY, e.what());
  } catch (const std::exception& e) {
    const bool memory = kernwerk::impl::allocation_failed(e);
    return fail(memory ? KW_OUT_OF_MEMORY : KW_INTERNAL_ERROR,
                std::string(function) + (memory ? ": out of memory: " : ": ") + e.what());
  } catch (...) {
    return fail(KW_INTERNAL_ERROR, std::string(function) + ": unknown exception");
  }
}

inline void require(bool ok, const char* function, const char* argument, const std::string& problem) {
  if (!ok) throw invalid_argument(function, argument, problem);
}

inline void require_pointer(const char* function, const char* argument, const void* pointer,
                     int64_t elements) {
  require(pointer != nullptr || elements == 0, function, argument, "is NULL");
}

inline void require_count(const char* function, const char* argument, int64_t count) {
  require(count >= 0, function, argument, "must not be negative, got " + std::to_string(count));
}

// In a GPU build, a pointer must live where `memory` says.
inline void require_location(const char* function, const char* argument, const void* pointer,
                      kw_memory memory) {
  if (pointer == nullptr) return;
#if defined(KOKKOS_ENABLE_CUDA)
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    (void)cudaGetLastError();
    attributes.type = cudaMemoryTypeUnregistered;
  }
  const bool device_only = attributes.type == cudaMemoryTypeDevice;
  const bool device_reachable = device_only || attributes.type == cudaMemoryTypeManaged;
  if (memory == KW_MEMORY_DEVICE && !device_reachable)
    throw invalid_argument(function, argument, "is host memory, but memory is KW_MEMORY_DEVICE");
  if (memory == KW_MEMORY_HOST && device_only)
    throw invalid_argument(function, argument, "is device memory, but memory is KW_MEMORY_HOST");
#else
  (void)function;
  (void)argument;
  (void)memory;
#endif
}

// The sizes and pointers of a nearest-neighbour call (kw_nearest, kw_nearest_mpi).
inline void require_nearest_arguments(const char* fn, kw_memory memory, int64_t dimension,
                                      const void* observations, int64_t n, const void* references,
                                      int64_t m, int64_t k, const int64_t* indices,
                                      const void* distances) {
  require_count(fn, "n", n);
  require_count(fn, "m", m);
  require(dimension >= 1, fn, "dimension", "must be at least 1");
  require(k >= 1, fn, "k", "must be at least 1, got " + std::to_string(k));
  require(m == 0 || k <= m, fn, "k",
          std::to_string(k) + " neighbours, but m = " + std::to_string(m) + " references");
  require_pointer(fn, "observations", observations, n);
  require_pointer(fn, "references", references, m);
  require_pointer(fn, "indices", indices, n);
  require_pointer(fn, "distances", distances, n);
  for (auto [name, pointer] : {std::pair<const char*, const void*>{"observations", observations},
                               {"references", references}, {"indices", indices},
                               {"distances", distances}})
    require_location(fn, name, pointer, memory);
}

// The sizes and pointers of a radius search, DBSCAN or an index.
inline void require_points(const char* fn, kw_memory memory, int64_t dimension, const char* name,
                    const void* points, int64_t count, const char* count_name) {
  require_count(fn, count_name, count);
  require(dimension >= 1, fn, "dimension", "must be at least 1");
  require_pointer(fn, name, points, count);
  require_location(fn, name, points, memory);
}

// The metric fields of kw_within_options or kw_dbscan_options, checked (kw_index_create
// takes kw_within_options).
template <class Options>
void read_metric(const char* fn, const Options& options, kernwerk::index_options& cpp) {
  require(options.metric == 0 || options.metric == 1, fn, "options->metric", "is not 0 or 1");
  cpp.metric = options.metric == 0 ? kernwerk::metric_kind::haversine : kernwerk::metric_kind::euclidean;
  cpp.units = options.degrees ? kernwerk::angle_unit::degrees : kernwerk::angle_unit::radians;
  cpp.radius = options.radius;
}

inline kernwerk::index_options index_options_of(const char* fn, const kw_within_options* options) {
  kernwerk::index_options cpp;
  if (options) read_metric(fn, *options, cpp);
  return cpp;
}

// kernwerk::nearest_options from the C struct (NULL: the defaults), each field checked.
inline void convert_nearest_options(const char* function, const kw_nearest_options* options,
                                    kernwerk::nearest_options& cpp) {
  if (!options) return;
  require(options->metric == 0 || options->metric == 1, function, "options->metric", "is not 0 or 1");
  require(options->method >= 0 && options->method <= 2, function, "options->method", "is not 0, 1 or 2");
  require(options->implementation >= 0 && options->implementation <= 2, function,
          "options->implementation", "is not 0, 1 or 2");
  require(options->memory_budget >= 0, function, "options->memory_budget", "must not be negative");
  require(std::isfinite(options->radius) && options->radius > 0, function, "options->radius",
          "must be positive and finite, got " + std::to_string(options->radius));
  cpp.metric = options->metric == 0 ? kernwerk::metric_kind::haversine : kernwerk::metric_kind::euclidean;
  cpp.units = options->degrees ? kernwerk::angle_unit::degrees : kernwerk::angle_unit::radians;
  cpp.radius = options->radius;
  cpp.method = kernwerk::method_kind(options->method);
  cpp.implementation = kernwerk::implementation_kind(options->implementation);
  cpp.memory_budget = std::size_t(options->memory_budget);
}

// Whether the calling thread cannot compute on `Space`: Kokkos 3's OpenMP back end computes only
// on the thread that initialised Kokkos (on any other it reports "in parallel").
template <class Space>
bool foreign_thread() {
#if defined(KOKKOS_ENABLE_OPENMP) && KOKKOS_VERSION < 40000
  if constexpr (std::is_same_v<Space, Kokkos::OpenMP>) return Kokkos::OpenMP::in_parallel();
#endif
  return false;
}

[[noreturn]] inline void refuse_foreign_thread(const char* function, const char* instead) {
  throw kernwerk::unsupported(function, "the calling thread",
                              std::string("is not the one that initialised Kokkos, whose OpenMP back end "
                                          "(Kokkos 3) computes on that thread alone; ") + instead);
}

// Calls action(space) with an execution space of `Space`'s kind the calling thread can use: on a
// foreign thread (above), Kokkos::Serial, where the build has it.
template <class Space, class Action>
void on_this_thread(const char* function, Action&& action) {
  if (foreign_thread<Space>()) {
#if defined(KOKKOS_ENABLE_SERIAL)
    return action(Kokkos::Serial());
#else
    refuse_foreign_thread(function, "this Kokkos has no Serial back end to compute on instead");
#endif
  }
  action(Space());
}

// Calls action(space) with the execution space of `memory`.
template <class Action>
void with_space(const char* function, kw_memory memory, Action&& action) {
  if (memory == KW_MEMORY_HOST)
    on_this_thread<Kokkos::DefaultHostExecutionSpace>(function, action);
  else if (memory == KW_MEMORY_DEVICE)
    on_this_thread<Kokkos::DefaultExecutionSpace>(function, action);
  else
    throw invalid_argument(function, "memory", "is neither KW_MEMORY_HOST nor KW_MEMORY_DEVICE");
}

template <class T>
struct type_tag {
  using type = T;
};
template <class Action>
void with_type(const char* function, kw_type type, Action&& action) {
  if (type == KW_FLOAT32)
    action(type_tag<float>());
  else if (type == KW_FLOAT64)
    action(type_tag<double>());
  else
    throw invalid_argument(function, "type", "is neither KW_FLOAT32 nor KW_FLOAT64");
}

// Calls action(space, type_tag<T>()) with the execution space of `memory` and the T of `type`.
template <class Action>
void with_space_and_type(const char* function, kw_memory memory, kw_type type, Action&& action) {
  with_space(function, memory, [&](auto space) {
    with_type(function, type, [&](auto tag) { action(space, tag); });
  });
}

using kernwerk::impl::matrix_view;
using kernwerk::impl::vector_view;

template <class T, class Space>
vector_view<T, Space> vector_of(T* data, int64_t n, int64_t stride) {
  return vector_view<T, Space>(data, Kokkos::LayoutStride(size_t(n), size_t(stride)));
}

// A rows x columns matrix in `layout` with leading dimension `ld`, checked.
template <class T, class Space>
matrix_view<T, Space> matrix_of(const char* function, const char* name, const char* ld_name,
                                T* data, kw_layout layout, int64_t rows, int64_t columns,
                                int64_t ld) {
  require(layout == KW_ROW_MAJOR || layout == KW_COLUMN_MAJOR, function, "layout",
          "is neither KW_ROW_MAJOR nor KW_COLUMN_MAJOR");
  const int64_t minimum = std::max<int64_t>(1, layout == KW_ROW_MAJOR ? columns : rows);
  require(ld >= minimum, function, ld_name,
          std::to_string(ld) + " is below " + std::to_string(minimum));
  require_pointer(function, name, data, rows * columns);
  if (layout == KW_ROW_MAJOR)
    return matrix_view<T, Space>(data, Kokkos::LayoutStride(size_t(rows), size_t(ld),
                                                            size_t(columns), 1));
  return matrix_view<T, Space>(data, Kokkos::LayoutStride(size_t(rows), 1, size_t(columns),
                                                          size_t(ld)));
}

}  // namespace kernwerk::c_api
