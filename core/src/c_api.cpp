// The C interface (kernwerk.h): raw pointers wrapped in unmanaged Views of the memory space the
// caller names, every C++ exception turned into a status and a thread-local message
// (c_api_support.hpp). The sphere index's handle is in c_api_index.cpp.
#include "kernwerk.h"
#include "c_api_support.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "kernwerk/cg.hpp"
#include "kernwerk/info.hpp"
#include "kernwerk/diffuse.hpp"
#include "kernwerk/error.hpp"
#include "kernwerk/integrate.hpp"
#include "kernwerk/linear_algebra.hpp"
#include "kernwerk/nearest.hpp"
#include "kernwerk/reductions.hpp"
#include "kernwerk/transform.hpp"

namespace {

using namespace kernwerk::c_api;
using kernwerk::invalid_argument;

std::mutex lifetime;
bool initialised_here = false;

}  // namespace

kw_status kernwerk::c_api::initialize(const char* function, int local_rank) {
  std::lock_guard<std::mutex> lock(lifetime);
  if (Kokkos::is_initialized()) return KW_SUCCESS;  // the application's Kokkos, on its device
  try {
    const int devices = local_rank >= 0 ? kernwerk::visible_devices() : 0;
    kernwerk::initialize_kokkos(devices > 0 ? local_rank % devices : -1);
    initialised_here = true;
    return KW_SUCCESS;
  } catch (const std::exception& e) {
    return fail(KW_INTERNAL_ERROR, std::string(function) + ": " + e.what());
  }
}

std::string& kernwerk::c_api::last_error() {
  thread_local std::string text;
  return text;
}

std::recursive_mutex& kernwerk::c_api::call_lock() {
  static std::recursive_mutex lock;
  return lock;
}

namespace {

struct integrand_adapter {
  kw_integrand f;
  void* context;
  double operator()(double x, double y) const { return f(x, y, context); }
};

}  // namespace

extern "C" {

const char* kw_status_message(kw_status status) {
  switch (status) {
    case KW_SUCCESS: return "success";
    case KW_INVALID_ARGUMENT: return "invalid argument";
    case KW_UNSUPPORTED: return "not supported by this build";
    case KW_NOT_INITIALIZED: return "Kernwerk is not initialised (call kw_initialize)";
    case KW_NOT_CONVERGED: return "the iteration did not converge";
    case KW_OUT_OF_MEMORY: return "out of memory";
    case KW_INTERNAL_ERROR: return "internal error";
  }
  return "unknown status";
}

const char* kw_last_error(void) { return last_error().c_str(); }

kw_status kw_report_invalid_argument(const char* function, const char* argument,
                                     const char* problem) {
  return fail(KW_INVALID_ARGUMENT, invalid_argument(function ? function : "?",
                                                    argument ? argument : "?",
                                                    problem ? problem : "?")
                                       .what());
}

kw_status kw_initialize(void) { return kernwerk::c_api::initialize("kw_initialize", -1); }

kw_status kw_finalize(void) {
  std::lock_guard<std::mutex> lock(lifetime);
  if (!initialised_here) return KW_SUCCESS;  // the application's Kokkos stays as it is
  if (Kokkos::is_initialized()) Kokkos::finalize();
  initialised_here = false;
  return KW_SUCCESS;
}

int kw_is_initialized(void) { return Kokkos::is_initialized() ? 1 : 0; }

void kw_nearest_options_default(kw_nearest_options* options) {
  if (!options) return;
  *options = kw_nearest_options{0, 0, 1.0, 0, 0, 0};
}

kw_status kw_nearest(kw_type type, kw_memory memory, int64_t dimension, const void* observations,
                     int64_t n, const void* references, int64_t m, int64_t k, int64_t* indices,
                     void* distances, const kw_nearest_options* options) {
  constexpr const char* fn = "kw_nearest";
  return guarded(fn, [&] {
    require_nearest_arguments(fn, memory, dimension, observations, n, references, m, k, indices,
                              distances);
    kernwerk::nearest_options cpp;
    convert_nearest_options(fn, options, cpp);
    with_space(fn, memory, [&](auto space) {
      using Space = decltype(space);
      with_type(fn, type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        using points = Kokkos::View<const T**, Kokkos::LayoutRight, typename Space::memory_space,
                                    Kokkos::MemoryUnmanaged>;
        using index_matrix = Kokkos::View<int64_t**, Kokkos::LayoutRight,
                                          typename Space::memory_space, Kokkos::MemoryUnmanaged>;
        using distance_matrix = Kokkos::View<T**, Kokkos::LayoutRight,
                                             typename Space::memory_space, Kokkos::MemoryUnmanaged>;
        kernwerk::nearest(space, points(static_cast<const T*>(observations), n, dimension),
                          points(static_cast<const T*>(references), m, dimension),
                          index_matrix(indices, n, k),
                          distance_matrix(static_cast<T*>(distances), n, k), cpp);
      });
    });
  });
}

kw_status kw_diffuse(kw_type type, kw_memory memory, void* field, int64_t rows, int64_t columns,
                     int64_t row_stride, int64_t steps, double coeff, void* laplacian,
                     int64_t laplacian_row_stride) {
  constexpr const char* fn = "kw_diffuse";
  return guarded(fn, [&] {
    require_count(fn, "rows", rows);
    require_count(fn, "columns", columns);
    require_location(fn, "field", field, memory);
    require_location(fn, "laplacian", laplacian, memory);
    with_space(fn, memory, [&](auto space) {
      using Space = decltype(space);
      with_type(fn, type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const auto grid = matrix_of<T, Space>(fn, "field", "row_stride", static_cast<T*>(field),
                                              KW_ROW_MAJOR, rows, columns, row_stride);
        kernwerk::diffuse_options options;
        options.coeff = coeff;
        if (laplacian) {
          const auto lap = matrix_of<T, Space>(fn, "laplacian", "laplacian_row_stride",
                                               static_cast<T*>(laplacian), KW_ROW_MAJOR, rows,
                                               columns, laplacian_row_stride);
          kernwerk::diffuse(space, grid, steps, lap, options);
        } else {
          kernwerk::diffuse(space, grid, steps, options);
        }
      });
    });
  });
}

kw_status kw_integrate2d(kw_integrand f, void* context, double x0, double x1, double y0,
                         double y1, int64_t n, int64_t m, double* result) {
  constexpr const char* fn = "kw_integrate2d";
  return guarded(fn, [&] {
    require(f != nullptr, fn, "f", "is NULL");
    require(result != nullptr, fn, "result", "is NULL");
    on_this_thread<Kokkos::DefaultHostExecutionSpace>(fn, [&](auto space) {
      *result = kernwerk::integrate2d(space, integrand_adapter{f, context}, x0, x1, y0, y1, n, m);
    });
  });
}

}  // extern "C"

namespace {

// The reductions share their argument handling: n elements of x `stride` apart.
template <class Reduce>
kw_status reduction(const char* fn, kw_type type, kw_memory memory, int64_t n, const void* x,
                    int64_t stride, const Reduce& reduce) {
  return guarded(fn, [&] {
    require_count(fn, "n", n);
    require(stride >= 1, fn, "stride", "must be at least 1, got " + std::to_string(stride));
    require_pointer(fn, "x", x, n);
    require_location(fn, "x", x, memory);
    with_space(fn, memory, [&](auto space) {
      using Space = decltype(space);
      with_type(fn, type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        reduce(space, vector_of<const T, Space>(static_cast<const T*>(x), n, stride));
      });
    });
  });
}

}  // namespace

extern "C" {

kw_status kw_sum(kw_type type, kw_memory memory, int64_t n, const void* x, int64_t stride,
                 double* result) {
  if (!result) return fail(KW_INVALID_ARGUMENT, "kernwerk::kw_sum: result: is NULL");
  return reduction("kw_sum", type, memory, n, x, stride,
                   [&](auto space, auto v) { *result = kernwerk::sum(space, v); });
}

kw_status kw_norm2(kw_type type, kw_memory memory, int64_t n, const void* x, int64_t stride,
                   double* result) {
  if (!result) return fail(KW_INVALID_ARGUMENT, "kernwerk::kw_norm2: result: is NULL");
  return reduction("kw_norm2", type, memory, n, x, stride,
                   [&](auto space, auto v) { *result = kernwerk::norm2(space, v); });
}

kw_status kw_min_location(kw_type type, kw_memory memory, int64_t n, const void* x,
                          int64_t stride, double* value, int64_t* index) {
  if (!value || !index)
    return fail(KW_INVALID_ARGUMENT, std::string("kernwerk::kw_min_location: ") +
                                         (value ? "index" : "value") + ": is NULL");
  return reduction("kw_min_location", type, memory, n, x, stride, [&](auto space, auto v) {
    const auto found = kernwerk::min_location(space, v);
    *value = double(found.value);
    *index = found.index;
  });
}

kw_status kw_max_location(kw_type type, kw_memory memory, int64_t n, const void* x,
                          int64_t stride, double* value, int64_t* index) {
  if (!value || !index)
    return fail(KW_INVALID_ARGUMENT, std::string("kernwerk::kw_max_location: ") +
                                         (value ? "index" : "value") + ": is NULL");
  return reduction("kw_max_location", type, memory, n, x, stride, [&](auto space, auto v) {
    const auto found = kernwerk::max_location(space, v);
    *value = double(found.value);
    *index = found.index;
  });
}

kw_status kw_dot(kw_type type, kw_memory memory, int64_t n, const void* x, int64_t x_stride,
                 const void* y, int64_t y_stride, double* result) {
  constexpr const char* fn = "kw_dot";
  return guarded(fn, [&] {
    require(result != nullptr, fn, "result", "is NULL");
    require_count(fn, "n", n);
    require(x_stride >= 1, fn, "x_stride", "must be at least 1");
    require(y_stride >= 1, fn, "y_stride", "must be at least 1");
    require_pointer(fn, "x", x, n);
    require_pointer(fn, "y", y, n);
    require_location(fn, "x", x, memory);
    require_location(fn, "y", y, memory);
    with_space(fn, memory, [&](auto space) {
      using Space = decltype(space);
      with_type(fn, type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        *result = kernwerk::dot(space, vector_of<const T, Space>(static_cast<const T*>(x), n, x_stride),
                                vector_of<const T, Space>(static_cast<const T*>(y), n, y_stride));
      });
    });
  });
}

kw_status kw_transform(kw_type type, kw_memory memory, kw_map map, double parameter, int64_t n,
                       void* out, const void* x, const void* y) {
  constexpr const char* fn = "kw_transform";
  return guarded(fn, [&] {
    require(map >= KW_MAP_SAXPY && map <= KW_MAP_SELU, fn, "map", "is not a kw_map");
    const bool two_inputs = map == KW_MAP_SAXPY || map == KW_MAP_REL_DIFF;
    require_count(fn, "n", n);
    require_pointer(fn, "out", out, n);
    require_pointer(fn, "x", x, n);
    if (two_inputs) require_pointer(fn, "y", y, n);
    require(std::isfinite(parameter), fn, "parameter", "must be finite");
    require_location(fn, "out", out, memory);
    require_location(fn, "x", x, memory);
    if (two_inputs) require_location(fn, "y", y, memory);
    with_space(fn, memory, [&](auto space) {
      using Space = decltype(space);
      with_type(fn, type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        using view = Kokkos::View<T*, typename Space::memory_space, Kokkos::MemoryUnmanaged>;
        using input = Kokkos::View<const T*, typename Space::memory_space, Kokkos::MemoryUnmanaged>;
        const view o(static_cast<T*>(out), n);
        const input a(static_cast<const T*>(x), n);
        switch (map) {
          case KW_MAP_SAXPY:
            kernwerk::transform(space, o, kernwerk::maps::saxpy{parameter}, a, input(static_cast<const T*>(y), n));
            break;
          case KW_MAP_REL_DIFF:
            kernwerk::transform(space, o, kernwerk::maps::rel_diff{}, a, input(static_cast<const T*>(y), n));
            break;
          case KW_MAP_COS2_PLUS_SIN2:
            kernwerk::transform(space, o, kernwerk::maps::cos2_plus_sin2{}, a);
            break;
          case KW_MAP_SELU:
            kernwerk::transform(space, o, kernwerk::maps::selu{}, a);
            break;
          default:  // refused above
            break;
        }
      });
    });
  });
}

kw_status kw_gemm(kw_type type, kw_memory memory, kw_layout layout, int64_t m, int64_t n,
                  int64_t k, double alpha, const void* a, int64_t lda, const void* b, int64_t ldb,
                  double beta, void* c, int64_t ldc) {
  constexpr const char* fn = "kw_gemm";
  return guarded(fn, [&] {
    require_count(fn, "m", m);
    require_count(fn, "n", n);
    require_count(fn, "k", k);
    require_location(fn, "a", a, memory);
    require_location(fn, "b", b, memory);
    require_location(fn, "c", c, memory);
    with_space(fn, memory, [&](auto space) {
      using Space = decltype(space);
      with_type(fn, type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernwerk::gemm(space, alpha,
                       matrix_of<const T, Space>(fn, "a", "lda", static_cast<const T*>(a), layout, m, k, lda),
                       matrix_of<const T, Space>(fn, "b", "ldb", static_cast<const T*>(b), layout, k, n, ldb),
                       beta, matrix_of<T, Space>(fn, "c", "ldc", static_cast<T*>(c), layout, m, n, ldc));
      });
    });
  });
}

kw_status kw_matmul_colsum(kw_type type, kw_memory memory, kw_layout layout, int64_t m,
                           int64_t j, int64_t k, const void* a, int64_t lda, const void* b,
                           int64_t ldb, void* out) {
  constexpr const char* fn = "kw_matmul_colsum";
  return guarded(fn, [&] {
    require_count(fn, "m", m);
    require_count(fn, "j", j);
    require_count(fn, "k", k);
    require_pointer(fn, "out", out, k);
    require_location(fn, "a", a, memory);
    require_location(fn, "b", b, memory);
    require_location(fn, "out", out, memory);
    with_space(fn, memory, [&](auto space) {
      using Space = decltype(space);
      with_type(fn, type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernwerk::matmul_colsum(
            space, matrix_of<const T, Space>(fn, "a", "lda", static_cast<const T*>(a), layout, m, j, lda),
            matrix_of<const T, Space>(fn, "b", "ldb", static_cast<const T*>(b), layout, j, k, ldb),
            Kokkos::View<T*, typename Space::memory_space, Kokkos::MemoryUnmanaged>(static_cast<T*>(out), k));
      });
    });
  });
}

}  // extern "C"

namespace {

void report(const kernwerk::cg_result& solved, kw_cg_result* result, double* history,
            int64_t capacity) {
  if (result) *result = kw_cg_result{solved.iterations, solved.residual_norm};
  if (history)
    for (int64_t q = 0; q < capacity && q < int64_t(solved.residual_history.size()); ++q)
      history[q] = solved.residual_history[std::size_t(q)];
}

template <class Solve>
kw_status solve(const char* fn, kw_type type, kw_memory memory, int64_t n, const void* b, void* x,
                double tolerance, int64_t max_iterations, kw_cg_result* result, double* history,
                int64_t history_capacity, const Solve& with_matrix) {
  return guarded(fn, [&] {
    require_count(fn, "n", n);
    require_count(fn, "history_capacity", history_capacity);
    require(history != nullptr || history_capacity == 0, fn, "history",
            "is NULL with a capacity of " + std::to_string(history_capacity));
    require_pointer(fn, "b", b, n);
    require_pointer(fn, "x", x, n);
    require_location(fn, "b", b, memory);
    require_location(fn, "x", x, memory);
    with_space(fn, memory, [&](auto space) {
      using Space = decltype(space);
      with_type(fn, type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        using vector = Kokkos::View<T*, typename Space::memory_space, Kokkos::MemoryUnmanaged>;
        using input = Kokkos::View<const T*, typename Space::memory_space, Kokkos::MemoryUnmanaged>;
        const kernwerk::cg_options options{tolerance, max_iterations};
        with_matrix(space, tag, [&](const auto& a) {
          report(kernwerk::conjugate_gradient(space, a, input(static_cast<const T*>(b), n),
                                              vector(static_cast<T*>(x), n), options),
                 result, history, history_capacity);
        });
      });
    });
  });
}

}  // namespace

extern "C" {

kw_status kw_cg_dense(kw_type type, kw_memory memory, kw_layout layout, int64_t n, const void* a,
                      int64_t lda, const void* b, void* x, double tolerance,
                      int64_t max_iterations, kw_cg_result* result, double* history,
                      int64_t history_capacity) {
  constexpr const char* fn = "kw_cg_dense";
  return solve(fn, type, memory, n, b, x, tolerance, max_iterations, result, history,
               history_capacity, [&](auto space, auto tag, const auto& run) {
                 using Space = decltype(space);
                 using T = typename decltype(tag)::type;
                 require_location(fn, "a", a, memory);
                 run(matrix_of<const T, Space>(fn, "a", "lda", static_cast<const T*>(a), layout, n, n, lda));
               });
}

kw_status kw_cg_csr(kw_type type, kw_memory memory, int64_t n, const int64_t* row_starts,
                    const int64_t* columns, const void* values, const void* b, void* x,
                    double tolerance, int64_t max_iterations, kw_cg_result* result,
                    double* history, int64_t history_capacity) {
  constexpr const char* fn = "kw_cg_csr";
  return solve(fn, type, memory, n, b, x, tolerance, max_iterations, result, history,
               history_capacity, [&](auto space, auto tag, const auto& run) {
                 using Space = decltype(space);
                 using T = typename decltype(tag)::type;
                 using memory_space = typename Space::memory_space;
                 require(row_starts != nullptr, fn, "row_starts", "is NULL");
                 require_location(fn, "row_starts", row_starts, memory);
                 const Kokkos::View<const int64_t*, memory_space, Kokkos::MemoryUnmanaged> starts(
                     row_starts, std::size_t(n + 1));
                 const auto entries = Kokkos::create_mirror_view_and_copy(
                     Kokkos::HostSpace(), Kokkos::subview(starts, std::size_t(n)));
                 const int64_t count = entries();
                 require(count >= 0, fn, "row_starts", "ends below 0");
                 require_pointer(fn, "columns", columns, count);
                 require_pointer(fn, "values", values, count);
                 require_location(fn, "columns", columns, memory);
                 require_location(fn, "values", values, memory);
                 run(kernwerk::make_csr(
                     starts,
                     Kokkos::View<const int64_t*, memory_space, Kokkos::MemoryUnmanaged>(columns, std::size_t(count)),
                     Kokkos::View<const T*, memory_space, Kokkos::MemoryUnmanaged>(static_cast<const T*>(values),
                                                                                  std::size_t(count))));
               });
}

}  // extern "C"
