// The Kokkos half of the Python module: array_refs become unmanaged strided Views in the memory
// they describe, and each call runs on the execution space of that memory (the host's for
// NumPy arrays, the GPU's for device arrays). Nothing is copied; every call fences its space
// before it returns, so results are complete for any stream of the caller.
#include "calls.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <type_traits>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#elif defined(KOKKOS_ENABLE_HIP)
#include <hip/hip_runtime.h>
#endif

#include "kernwerk/cg.hpp"
#include "kernwerk/dbscan.hpp"
#include "kernwerk/csr_matrix.hpp"
#include "kernwerk/diffuse.hpp"
#include "kernwerk/fft.hpp"
#include "kernwerk/spatial_index.hpp"
#include "kernwerk/impl/math.hpp"
#include "kernwerk/impl/strided_views.hpp"
#include "kernwerk/info.hpp"
#include "kernwerk/integrate.hpp"
#include "kernwerk/linear_algebra.hpp"
#include "kernwerk/nearest.hpp"
#include "kernwerk/qr.hpp"
#include "kernwerk/reductions.hpp"
#include "kernwerk/within.hpp"
#ifdef KERNWERK_PYTHON_MPI
#include "kernwerk/mpi/distributed_index.hpp"
#endif

namespace kernwerk::python {

// The course's integrands and a few more, callable on every execution space (nvcc needs them
// at namespace scope, named).
struct sine_of_sum {
  KOKKOS_INLINE_FUNCTION double operator()(double x, double y) const { return impl::math::sin(x + y); }
};
struct cosine_product {
  KOKKOS_INLINE_FUNCTION double operator()(double x, double y) const {
    return impl::math::cos(x) * impl::math::cos(y);
  }
};
struct gaussian {
  KOKKOS_INLINE_FUNCTION double operator()(double x, double y) const {
    return impl::math::exp(-(x * x + y * y));
  }
};
struct product {
  KOKKOS_INLINE_FUNCTION double operator()(double x, double y) const { return x * y; }
};

namespace {

using host_space = Kokkos::DefaultHostExecutionSpace;
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
constexpr bool has_gpu = true;
#else
constexpr bool has_gpu = false;
#endif

using impl::matrix_view;
using impl::vector_view;

[[noreturn]] void reject(const char* fn, const array_ref& a, const std::string& problem) {
  throw invalid_argument(fn, a.name, problem);
}

void require_rank(const char* fn, const array_ref& a, int rank) {
  if (a.rank != rank)
    reject(fn, a, "must be " + std::to_string(rank) + "-D, got " + std::to_string(a.rank) + "-D");
}

void require_writable(const char* fn, const array_ref& a) {
  if (!a.writable) reject(fn, a, "is read-only, but the call writes it");
}

// Every array of a call lies where the first does and, for values, has its element type.
void require_like(const char* fn, const array_ref& a, const array_ref& first, bool same_type) {
  if (a.where != first.where)
    reject(fn, a, std::string("is a ") + (a.where == place::host ? "host" : "device") +
                      " array, but " + first.name + " is a " +
                      (first.where == place::host ? "host" : "device") + " array");
  if (same_type && a.type != first.type)
    reject(fn, a, std::string("is ") + dtype_name(a.type) + ", but " + first.name + " is " +
                      dtype_name(first.type));
}

// A search's outputs: int64 indices and distances of the queries' type, where they lie, writable.
void require_neighbour_outputs(const char* fn, const array_ref& indices, const array_ref& distances,
                               const array_ref& queries) {
  require_like(fn, indices, queries, false);
  require_like(fn, distances, queries, true);
  if (indices.type != element::int64) reject(fn, indices, "must be int64");
  require_writable(fn, indices);
  require_writable(fn, distances);
}

template <class T, class Space>
vector_view<T, Space> vector_of(const char* fn, const array_ref& a) {
  require_rank(fn, a, 1);
  return vector_view<T, Space>(static_cast<T*>(a.data),
                               Kokkos::LayoutStride(std::size_t(a.extent[0]), std::size_t(a.stride[0])));
}

template <class T, class Space>
matrix_view<T, Space> matrix_of(const char* fn, const array_ref& a) {
  require_rank(fn, a, 2);
  return matrix_view<T, Space>(
      static_cast<T*>(a.data),
      Kokkos::LayoutStride(std::size_t(a.extent[0]), std::size_t(a.stride[0]),
                           std::size_t(a.extent[1]), std::size_t(a.stride[1])));
}

// Calls action(space) with the execution space that reaches `where`, then fences it.
template <class Action>
void on_space(const char* fn, const array_ref& first, Action&& action) {
  if (first.where == place::host) {
    action(host_space());
    host_space().fence();
    return;
  }
  if constexpr (has_gpu) {
    action(Kokkos::DefaultExecutionSpace());
    Kokkos::DefaultExecutionSpace().fence();
  } else {
    reject(fn, first, "is a GPU array, but this Kernwerk build has no GPU backend");
  }
}

// Calls action(T()) with the float type of `first`.
template <class Action>
void on_float(const char* fn, const array_ref& first, Action&& action) {
  if (first.type == element::float32) return action(float());
  if (first.type == element::float64) return action(double());
  reject(fn, first, std::string("must be float32 or float64, got ") + dtype_name(first.type));
}

template <class Action>
void on_space_and_float(const char* fn, const array_ref& first, Action&& action) {
  on_space(fn, first, [&](auto space) {
    on_float(fn, first, [&](auto zero) { action(space, zero); });
  });
}

}  // namespace

void nearest(const array_ref& obs, const array_ref& ref, const array_ref& indices,
             const array_ref& distances, const nearest_settings& settings) {
  constexpr const char* fn = "nearest";
  require_like(fn, ref, obs, true);
  require_neighbour_outputs(fn, indices, distances, obs);
  nearest_options options;
  options.metric = parse_metric(settings.metric, "metric");
  options.method = parse_method(settings.method, "method");
  options.implementation = parse_implementation(settings.implementation, "implementation");
  options.units = settings.degrees ? angle_unit::degrees : angle_unit::radians;
  options.radius = settings.radius;
  if (settings.memory_budget < 0)
    throw invalid_argument(fn, "memory_budget", "must not be negative");
  options.memory_budget = std::size_t(settings.memory_budget);
  on_space_and_float(fn, obs, [&](auto space, auto zero) {
    using T = decltype(zero);
    using Space = decltype(space);
    kernwerk::nearest(space, matrix_of<const T, Space>(fn, obs), matrix_of<const T, Space>(fn, ref),
                      matrix_of<std::int64_t, Space>(fn, indices),
                      matrix_of<T, Space>(fn, distances), options);
  });
}

namespace {

template <class Options>
Options metric_options(const within_settings& settings) {
  Options options;
  options.metric = parse_metric(settings.metric, "metric");
  options.units = settings.degrees ? angle_unit::degrees : angle_unit::radians;
  options.radius = settings.radius;
  return options;
}

row_order order_of(const row_settings& rows) { return rows.sorted ? row_order::nearest_first : row_order::any; }

template <class Space, class T>
class within_answer_in final : public within_answer {
 public:
  using memory_space = typename Space::memory_space;
  Kokkos::View<std::int64_t*, memory_space> offsets{"kernwerk.within.offsets", 0};
  Kokkos::View<std::int64_t*, memory_space> indices{"kernwerk.within.indices", 0};
  Kokkos::View<double*, memory_space> distances{"kernwerk.within.distances", 0};

  bool with_distances = true;

  // The answer of search(offsets, indices[, distances]) for n queries, as `rows` asks.
  template <class Search>
  static std::unique_ptr<within_answer_in> found(std::int64_t n, const row_settings& rows, Search&& search) {
    auto made = std::make_unique<within_answer_in>();
    made->offsets = decltype(made->offsets)("kernwerk.within.offsets", std::size_t(n + 1));
    made->with_distances = rows.distances;
    if (rows.distances) search(made->offsets, made->indices, made->distances);
    else search(made->offsets, made->indices);
    Space().fence();
    return made;
  }

  std::int64_t total() const override { return std::int64_t(indices.extent(0)); }
  void copy(const array_ref& offsets_out, const array_ref& indices_out, const array_ref* distances_out) const override {
    constexpr const char* fn = "within";
    if (distances_out && !with_distances)
      throw invalid_argument(fn, "distances", "the search left them out (distances=False)");
    const Space space;
    impl::copy_converted(space, offsets, vector_of<std::int64_t, Space>(fn, offsets_out));
    impl::copy_converted(space, indices, vector_of<std::int64_t, Space>(fn, indices_out));
    if (distances_out) impl::copy_converted(space, distances, vector_of<T, Space>(fn, *distances_out));
    space.fence();
  }
};

}  // namespace

std::unique_ptr<within_answer> within(const array_ref& queries, const array_ref& points, double distance,
                                      const within_settings& settings, const row_settings& rows) {
  constexpr const char* fn = "within";
  require_like(fn, points, queries, true);
  auto options = metric_options<within_options>(settings);
  options.order = order_of(rows);
  std::unique_ptr<within_answer> answer;
  on_space_and_float(fn, queries, [&](auto space, auto zero) {
    using T = decltype(zero);
    using Space = decltype(space);
    answer = within_answer_in<Space, T>::found(queries.extent[0], rows, [&](auto&... outputs) {
      kernwerk::within(space, matrix_of<const T, Space>(fn, queries), matrix_of<const T, Space>(fn, points),
                       distance, outputs..., options);
    });
  });
  return answer;
}

void count_within(const array_ref& queries, const array_ref& points, double distance, const array_ref& counts,
                  const within_settings& settings) {
  constexpr const char* fn = "count_within";
  require_like(fn, points, queries, true);
  require_like(fn, counts, queries, false);
  if (counts.type != element::int64) reject(fn, counts, "must be int64");
  require_writable(fn, counts);
  const auto options = metric_options<within_options>(settings);
  on_space_and_float(fn, queries, [&](auto space, auto zero) {
    using T = decltype(zero);
    using Space = decltype(space);
    kernwerk::count_within(space, matrix_of<const T, Space>(fn, queries), matrix_of<const T, Space>(fn, points),
                           distance, vector_of<std::int64_t, Space>(fn, counts), options);
  });
}

namespace {

// What holds Kokkos memory that must go before Kokkos does.
class releasable {
 public:
  virtual void release() = 0;

 protected:
  ~releasable() = default;
};

// The indexes alive, whose memory finalize() frees before Kokkos goes.
class index_registry {
 public:
  void add(releasable* index) {
    std::lock_guard<std::mutex> lock(mutex_);
    alive_.insert(index);
  }
  void remove(releasable* index) {
    std::lock_guard<std::mutex> lock(mutex_);
    alive_.erase(index);
  }
  void release_all() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto* index : alive_) index->release();
    alive_.clear();
  }

 private:
  std::mutex mutex_;
  std::set<releasable*> alive_;
};
index_registry& live_indexes() {
  static index_registry registry;
  return registry;
}

template <class Space, class T>
class index_in final : public spatial_index, private releasable {
 public:
  index_in(const Space& space, const array_ref& points, const index_options& options)
      : index_(std::make_unique<kernwerk::spatial_index<Space>>(space, matrix_of<const T, Space>("Index", points), options)),
        points_(points) {
    live_indexes().add(this);
  }
  ~index_in() override { live_indexes().remove(this); }

  std::int64_t size() const override { return std::int64_t(built("Index").size()); }
  std::int64_t dimension() const override { return points_.extent[1]; }

  void nearest(const array_ref& queries, const array_ref& indices, const array_ref& distances) const override {
    constexpr const char* fn = "Index.query";
    require_query(fn, queries);
    require_neighbour_outputs(fn, indices, distances, queries);
    const Space space;
    built(fn).nearest(space, matrix_of<const T, Space>(fn, queries), matrix_of<std::int64_t, Space>(fn, indices),
                      matrix_of<T, Space>(fn, distances));
    space.fence();
  }

  std::unique_ptr<within_answer> within(const array_ref& queries, double distance,
                                        const row_settings& rows) const override {
    constexpr const char* fn = "Index.query_radius";
    require_query(fn, queries);
    return within_answer_in<Space, T>::found(queries.extent[0], rows, [&](auto&... outputs) {
      built(fn).within(Space(), matrix_of<const T, Space>(fn, queries), distance, outputs..., order_of(rows));
    });
  }

  void count_within(const array_ref& queries, double distance, const array_ref& counts) const override {
    constexpr const char* fn = "Index.query_radius";
    require_query(fn, queries);
    require_like(fn, counts, queries, false);
    if (counts.type != element::int64) reject(fn, counts, "must be int64");
    require_writable(fn, counts);
    const Space space;
    built(fn).count_within(space, matrix_of<const T, Space>(fn, queries), distance,
                           vector_of<std::int64_t, Space>(fn, counts));
    space.fence();
  }

 private:
  const kernwerk::spatial_index<Space>& built(const char* fn) const {
    if (!index_) throw kernwerk::error(std::string("kernwerk.") + fn + ": Kernwerk was finalised; the index is gone");
    return *index_;
  }
  // Queries lie where the points lay and have their element type.
  void require_query(const char* fn, const array_ref& queries) const {
    require_like(fn, queries, points_, true);
  }

  void release() override { index_.reset(); }

  std::unique_ptr<kernwerk::spatial_index<Space>> index_;
  array_ref points_;  // how the points were described (their memory is not kept)
};

}  // namespace

std::shared_ptr<spatial_index> make_index(const array_ref& points, const within_settings& settings) {
  constexpr const char* fn = "Index";
  const auto options = metric_options<index_options>(settings);
  std::shared_ptr<spatial_index> made;
  on_space_and_float(fn, points, [&](auto space, auto zero) {
    using T = decltype(zero);
    using Space = decltype(space);
    made = std::make_shared<index_in<Space, T>>(space, points, options);
  });
  return made;
}

#ifdef KERNWERK_PYTHON_MPI
bool has_mpi() { return true; }

namespace {

// The distributed index on the host space, of the points' element type T.
template <class T>
class distributed_index_in final : public distributed_index, private releasable {
 public:
  distributed_index_in(const array_ref& points, const mpi::distributed_index_options& options, MPI_Comm comm)
      : index_(std::make_unique<mpi::distributed_index<host_space>>(
            host_space(), comm, matrix_of<const T, host_space>("DistributedIndex", points), options)),
        points_(points) {
    live_indexes().add(this);
  }
  ~distributed_index_in() override { live_indexes().remove(this); }

  std::int64_t size() const override { return std::int64_t(built("DistributedIndex").size()); }
  std::string layout() const override { return mpi::to_string(built("DistributedIndex").layout()); }

  void nearest(const array_ref& queries, const array_ref& indices, const array_ref& distances) const override {
    constexpr const char* fn = "DistributedIndex.query";
    const auto& index = built(fn);
    // Agreed on by every rank before the collective query, as the C++ class's own checks.
    mpi::detail::agree(index.communicator(), fn, [&] {
      require_like(fn, queries, points_, true);
      require_neighbour_outputs(fn, indices, distances, queries);
    });
    index.nearest(host_space(), matrix_of<const T, host_space>(fn, queries),
                  matrix_of<std::int64_t, host_space>(fn, indices), matrix_of<T, host_space>(fn, distances));
    host_space().fence();
  }

 private:
  const mpi::distributed_index<host_space>& built(const char* fn) const {
    if (!index_) throw kernwerk::error(std::string("kernwerk.") + fn + ": Kernwerk was finalised; the index is gone");
    return *index_;
  }
  void release() override { index_.reset(); }

  std::unique_ptr<mpi::distributed_index<host_space>> index_;
  array_ref points_;  // how the points were described (their memory is not kept)
};

}  // namespace

std::shared_ptr<distributed_index> make_distributed_index(const array_ref& points, const within_settings& settings,
                                                          const std::string& layout, int communicator) {
  constexpr const char* fn = "DistributedIndex";
  const MPI_Comm comm = MPI_Comm_f2c(MPI_Fint(communicator));
  mpi::distributed_index_options options;
  std::shared_ptr<distributed_index> made;
  mpi::detail::agree(comm, fn, [&] {
    static_cast<index_options&>(options) = metric_options<index_options>(settings);
    options.layout = layout == "auto"         ? mpi::index_layout::automatic
                     : layout == "replicated" ? mpi::index_layout::replicated
                     : layout == "partitioned"
                         ? mpi::index_layout::partitioned
                         : throw invalid_argument(fn, "layout", "'" + layout + "' is not auto, replicated or partitioned");
    if (points.where != place::host) reject(fn, points, "must be a host (NumPy) array");
    on_float(fn, points, [](auto) {});
  });
  on_float(fn, points, [&](auto zero) {
    made = std::make_shared<distributed_index_in<decltype(zero)>>(points, options, comm);
  });
  return made;
}
#else
bool has_mpi() { return false; }

std::shared_ptr<distributed_index> make_distributed_index(const array_ref&, const within_settings&,
                                                          const std::string&, int) {
  throw unsupported("DistributedIndex", "comm", "this Kernwerk was built without MPI (KERNWERK_ENABLE_MPI=OFF)");
}
#endif

std::int64_t dbscan(const array_ref& points, double eps, std::int64_t min_samples, const array_ref& labels,
                    const within_settings& settings, const std::string& border) {
  constexpr const char* fn = "dbscan";
  require_like(fn, labels, points, false);
  if (labels.type != element::int64) reject(fn, labels, "must be int64");
  require_writable(fn, labels);
  auto options = metric_options<dbscan_options>(settings);
  options.border = parse_border_rule(border, "border");
  std::int64_t clusters = 0;
  on_space_and_float(fn, points, [&](auto space, auto zero) {
    using T = decltype(zero);
    using Space = decltype(space);
    clusters = kernwerk::dbscan(space, matrix_of<const T, Space>(fn, points), eps, min_samples,
                                vector_of<std::int64_t, Space>(fn, labels), options);
  });
  return clusters;
}

void diffuse(const array_ref& field, std::int64_t steps, double coeff, const array_ref* laplacian,
             const std::string& implementation) {
  constexpr const char* fn = "diffuse";
  require_writable(fn, field);
  if (laplacian) {
    require_like(fn, *laplacian, field, true);
    require_writable(fn, *laplacian);
  }
  diffuse_options options;
  options.coeff = coeff;
  options.implementation = parse_implementation(implementation, "implementation");
  on_space_and_float(fn, field, [&](auto space, auto zero) {
    using T = decltype(zero);
    using Space = decltype(space);
    const auto grid = matrix_of<T, Space>(fn, field);
    if (laplacian)
      kernwerk::diffuse(space, grid, steps, matrix_of<T, Space>(fn, *laplacian), options);
    else
      kernwerk::diffuse(space, grid, steps, options);
  });
}

const std::vector<std::string>& integrand_names() {
  static const std::vector<std::string> names{"sin(x+y)", "cos(x)*cos(y)", "exp(-(x^2+y^2))",
                                              "x*y"};
  return names;
}

double integrate2d(const std::string& integrand, double x0, double x1, double y0, double y1,
                   std::int64_t n, std::int64_t m, place where, const std::string& implementation) {
  constexpr const char* fn = "integrate2d";
  std::string name;
  for (char c : integrand)
    if (c != ' ') name += c;
  const auto& names = integrand_names();
  std::size_t which = 0;
  while (which < names.size() && names[which] != name) ++which;
  if (which == names.size()) {
    std::string known;
    for (const auto& known_name : names) known += (known.empty() ? "" : ", ") + known_name;
    throw invalid_argument(fn, "f", "'" + integrand + "' is not one of " + known);
  }
  integrate_options options;
  options.implementation = parse_implementation(implementation, "implementation");
  array_ref probe;
  probe.name = "device";
  probe.where = where;
  double result = 0;
  on_space(fn, probe, [&](auto space) {
    const auto run = [&](auto f) { return kernwerk::integrate2d(space, f, x0, x1, y0, y1, n, m, options); };
    switch (which) {
      case 0: result = run(sine_of_sum()); break;
      case 1: result = run(cosine_product()); break;
      case 2: result = run(gaussian()); break;
      default: result = run(product()); break;
    }
  });
  return result;
}

namespace {
// fn's reduction of the vector x (reduce(space, view) -> double).
template <class Reduce>
double reduce_vector(const char* fn, const array_ref& x, Reduce&& reduce) {
  double result = 0;
  on_space_and_float(fn, x, [&](auto space, auto zero) {
    result = reduce(space, vector_of<const decltype(zero), decltype(space)>(fn, x));
  });
  return result;
}
}  // namespace

double sum(const array_ref& x) {
  return reduce_vector("sum", x, [](const auto& space, const auto& v) { return kernwerk::sum(space, v); });
}

double dot(const array_ref& x, const array_ref& y) {
  require_like("dot", y, x, true);
  return reduce_vector("dot", x, [&](const auto& space, const auto& v) {
    using View = std::decay_t<decltype(v)>;
    using Space = std::decay_t<decltype(space)>;
    return kernwerk::dot(space, v, vector_of<typename View::value_type, Space>("dot", y));
  });
}

double norm2(const array_ref& x) {
  return reduce_vector("norm2", x, [](const auto& space, const auto& v) { return kernwerk::norm2(space, v); });
}

void gemm(double alpha, const array_ref& a, const array_ref& b, double beta, const array_ref& c,
          const std::string& implementation) {
  constexpr const char* fn = "gemm";
  require_like(fn, b, a, true);
  require_like(fn, c, a, true);
  require_writable(fn, c);
  gemm_options options;
  options.implementation = parse_gemm_implementation(implementation, "implementation");
  on_space_and_float(fn, a, [&](auto space, auto zero) {
    using T = decltype(zero);
    using Space = decltype(space);
    kernwerk::gemm(space, alpha, matrix_of<const T, Space>(fn, a), matrix_of<const T, Space>(fn, b),
                   beta, matrix_of<T, Space>(fn, c), options);
  });
}

void matmul_colsum(const array_ref& a, const array_ref& b, const array_ref& out) {
  constexpr const char* fn = "matmul_colsum";
  require_like(fn, b, a, true);
  require_like(fn, out, a, true);
  require_writable(fn, out);
  on_space_and_float(fn, a, [&](auto space, auto zero) {
    using T = decltype(zero);
    using Space = decltype(space);
    kernwerk::matmul_colsum(space, matrix_of<const T, Space>(fn, a),
                            matrix_of<const T, Space>(fn, b), vector_of<T, Space>(fn, out));
  });
}

cg_outcome cg(const array_ref* a, const array_ref* indptr, const array_ref* indices,
              const array_ref* data, const array_ref& b, const array_ref& x, double tolerance,
              std::int64_t max_iterations) {
  constexpr const char* fn = "cg";
  const array_ref& values = a ? *a : *data;
  require_like(fn, b, values, true);
  require_like(fn, x, values, true);
  require_writable(fn, x);
  cg_options options;
  options.tolerance = tolerance;
  options.max_iterations = max_iterations;
  cg_outcome outcome;
  on_space_and_float(fn, values, [&](auto space, auto zero) {
    using T = decltype(zero);
    using Space = decltype(space);
    const auto rhs = vector_of<const T, Space>(fn, b);
    const auto solution = vector_of<T, Space>(fn, x);
    const auto solve = [&](const auto& matrix) {
      try {
        const cg_result result = conjugate_gradient(space, matrix, rhs, solution, options);
        outcome = {result.iterations, result.residual_norm, result.residual_history, true};
      } catch (const not_converged& e) {
        outcome = {e.result().iterations, e.result().residual_norm, e.result().residual_history,
                   false};
      }
    };
    if (a) return solve(matrix_of<const T, Space>(fn, *a));
    require_like(fn, *indptr, values, false);
    require_like(fn, *indices, values, false);
    if (indices->type != indptr->type)
      reject(fn, *indices, std::string("is ") + dtype_name(indices->type) + ", but " +
                               indptr->name + " is " + dtype_name(indptr->type));
    const auto csr = [&](auto index_zero) {
      using I = const decltype(index_zero);
      solve(make_csr(vector_of<I, Space>(fn, *indptr), vector_of<I, Space>(fn, *indices),
                     vector_of<const T, Space>(fn, *data)));
    };
    if (indptr->type == element::int32) return csr(std::int32_t());
    if (indptr->type == element::int64) return csr(std::int64_t());
    reject(fn, *indptr, std::string("must be int32 or int64, got ") + dtype_name(indptr->type));
  });
  return outcome;
}

// ---- Kokkos' lifetime and the GPU's memory ----------------------------------------------------

namespace {
bool initialised_here = false;
}

namespace {

// Calls action(view) with a 1-D or 2-D View of the array (QR's right-hand sides).
template <class T, class Space, class Action>
void with_vector_or_matrix(const char* fn, const array_ref& a, Action&& action) {
  if (a.rank == 1) action(vector_of<T, Space>(fn, a));
  else action(matrix_of<T, Space>(fn, a));
}

}  // namespace

void qr(const array_ref& a, const array_ref& q, const array_ref& r, const std::string& mode,
        const std::string& implementation) {
  constexpr const char* fn = "qr";
  require_like(fn, q, a, true);
  require_like(fn, r, a, true);
  require_writable(fn, q);
  require_writable(fn, r);
  qr_options options;
  options.mode = parse_qr_mode(mode, "mode");
  options.implementation = parse_qr_implementation(implementation, "implementation");
  on_space_and_float(fn, a, [&](auto space, auto zero) {
    using T = decltype(zero);
    using Space = decltype(space);
    kernwerk::qr(space, matrix_of<const T, Space>(fn, a), matrix_of<T, Space>(fn, q), matrix_of<T, Space>(fn, r),
                 options);
  });
}

void qr_factor(const array_ref& a, const array_ref& factors, const array_ref& tau,
               const std::string& implementation) {
  constexpr const char* fn = "qr_factor";
  require_like(fn, factors, a, true);
  require_like(fn, tau, a, true);
  require_writable(fn, factors);
  require_writable(fn, tau);
  qr_options options;
  options.implementation = parse_qr_implementation(implementation, "implementation");
  on_space_and_float(fn, a, [&](auto space, auto zero) {
    using T = decltype(zero);
    using Space = decltype(space);
    kernwerk::qr_factor(space, matrix_of<const T, Space>(fn, a), matrix_of<T, Space>(fn, factors),
                        vector_of<T, Space>(fn, tau), options);
  });
}

void apply_q(const array_ref& factors, const array_ref& tau, const array_ref& c, bool transpose,
             const std::string& implementation) {
  constexpr const char* fn = "apply_q";
  require_like(fn, tau, factors, true);
  require_like(fn, c, factors, true);
  require_writable(fn, c);
  apply_q_options options;
  options.product = transpose ? qr_product::q_transpose_c : qr_product::q_c;
  options.implementation = parse_qr_implementation(implementation, "implementation");
  on_space_and_float(fn, factors, [&](auto space, auto zero) {
    using T = decltype(zero);
    using Space = decltype(space);
    with_vector_or_matrix<T, Space>(fn, c, [&](const auto& cv) {
      kernwerk::apply_q(space, matrix_of<const T, Space>(fn, factors), vector_of<const T, Space>(fn, tau), cv, options);
    });
  });
}

void solve_least_squares(const array_ref& a, const array_ref& b, const array_ref& x,
                         const std::string& implementation) {
  constexpr const char* fn = "solve_least_squares";
  require_like(fn, b, a, true);
  require_like(fn, x, a, true);
  require_writable(fn, x);
  if (b.rank != x.rank) reject(fn, x, "must have b's rank (" + std::to_string(b.rank) + "-D)");
  qr_options options;
  options.implementation = parse_qr_implementation(implementation, "implementation");
  on_space_and_float(fn, a, [&](auto space, auto zero) {
    using T = decltype(zero);
    using Space = decltype(space);
    const auto av = matrix_of<const T, Space>(fn, a);
    if (b.rank == 1)
      kernwerk::solve_least_squares(space, av, vector_of<const T, Space>(fn, b), vector_of<T, Space>(fn, x), options);
    else
      kernwerk::solve_least_squares(space, av, matrix_of<const T, Space>(fn, b), matrix_of<T, Space>(fn, x), options);
  });
}

namespace {

// The plans of recent transforms, by everything that makes one (space, precision, shape,
// options). A plan holds the vendor's plan and work area; Python code calls fft in loops.
class fft_plans {
 public:
  template <class Space, class Real>
  std::shared_ptr<const fft_plan<Space, Real>> get(const fft_shape& shape, const fft_options& options) {
    const std::string key = std::string(Space::name()) + (std::is_same_v<Real, float> ? "/f32/" : "/f64/") +
                            std::to_string(int(shape.form)) + "/" + std::to_string(shape.count) + "/" +
                            std::to_string(shape.rows) + "/" + std::to_string(shape.length) + "/" +
                            std::to_string(int(options.kind)) + "/" + std::to_string(int(options.normalization));
    const std::lock_guard<std::mutex> lock(mutex_);
    auto found = plans_.find(key);
    if (found != plans_.end()) return std::static_pointer_cast<const fft_plan<Space, Real>>(found->second);
    auto made = std::make_shared<const fft_plan<Space, Real>>(Space(), shape, options);
    if (plans_.size() >= 16) plans_.clear();
    plans_.emplace(key, made);
    return made;
  }
  void clear() {
    const std::lock_guard<std::mutex> lock(mutex_);
    plans_.clear();
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const void>> plans_;
};

fft_plans& kept_plans() {
  static fft_plans plans;
  return plans;
}

}  // namespace

void fft(const array_ref& in, const array_ref& out, const std::string& form, bool inverse, bool real,
         const std::string& normalization, std::int64_t length) {
  constexpr const char* fn = "fft";
  require_like(fn, out, in, false);
  require_writable(fn, out);
  const bool single = in.type == element::float32 || in.type == element::complex64;
  const bool in_complex = in.type == element::complex64 || in.type == element::complex128;
  const bool out_complex = out.type == element::complex64 || out.type == element::complex128;
  const bool out_single = out.type == element::float32 || out.type == element::complex64;
  if (!in_complex && in.type != element::float32 && in.type != element::float64)
    reject(fn, in, std::string("must be float32, float64, complex64 or complex128, got ") + dtype_name(in.type));
  if (out_single != single)
    reject(fn, out, std::string("is ") + dtype_name(out.type) + ", of another precision than " + in.name + "'s " +
                        dtype_name(in.type));
  fft_options options;
  options.kind = real ? fft_kind::real : fft_kind::complex;
  options.normalization = parse_fft_normalization(normalization, "norm");
  const std::int64_t rows = in.rank == 2 ? in.extent[0] : 1;
  fft_shape shape;
  if (form == "line") shape = fft_shape::line(length);
  else if (form == "lines") shape = fft_shape::lines(rows, length);
  else if (form == "plane") shape = fft_shape::plane(rows, length);
  else throw invalid_argument(fn, "form", "'" + form + "' is not one of line, lines, plane");
  on_space(fn, in, [&](auto space) {
    using Space = decltype(space);
    const auto run = [&](auto zero) {
      using Real = decltype(zero);
      using complex = Kokkos::complex<Real>;
      const auto plan = kept_plans().get<Space, Real>(shape, options);
      const auto go = [&](auto source, auto target) {
        using in_value = typename decltype(source)::non_const_value_type;
        using out_value = typename decltype(target)::non_const_value_type;
        if constexpr (std::is_same_v<in_value, Real> && std::is_same_v<out_value, Real>)
          reject(fn, out, "is real, as " + in.name + " is: a transform has a complex side");
        else if (inverse) plan->inverse(source, target);
        else plan->forward(source, target);
      };
      const auto with_out = [&](const auto& source) {
        if (out_complex) {
          if (out.rank == 1) go(source, vector_of<complex, Space>(fn, out));
          else go(source, matrix_of<complex, Space>(fn, out));
        } else {
          if (out.rank == 1) go(source, vector_of<Real, Space>(fn, out));
          else go(source, matrix_of<Real, Space>(fn, out));
        }
      };
      if (in_complex) {
        if (in.rank == 1) with_out(vector_of<const complex, Space>(fn, in));
        else with_out(matrix_of<const complex, Space>(fn, in));
      } else {
        if (in.rank == 1) with_out(vector_of<const Real, Space>(fn, in));
        else with_out(matrix_of<const Real, Space>(fn, in));
      }
    };
    if (single) run(float());
    else run(double());
  });
}

void initialize() {
  if (Kokkos::is_initialized()) return;
  kernwerk::initialize_kokkos();  // quiet about OMP_PROC_BIND, as the C API
  initialised_here = true;
}

void finalize() {
  kept_plans().clear();  // the vendors' plans go before Kokkos does
  live_indexes().release_all();  // and the indexes' memory
  if (initialised_here && Kokkos::is_initialized()) Kokkos::finalize();
  initialised_here = false;
}

bool is_initialized() { return Kokkos::is_initialized(); }

const char* device_backend() {
#if defined(KOKKOS_ENABLE_CUDA)
  return "cuda";
#elif defined(KOKKOS_ENABLE_HIP)
  return "hip";
#else
  return "";
#endif
}

#if defined(KOKKOS_ENABLE_CUDA)
#define KERNWERK_GPU(name) cuda##name
using gpu_error = cudaError_t;
constexpr gpu_error gpu_success = cudaSuccess;
#elif defined(KOKKOS_ENABLE_HIP)
#define KERNWERK_GPU(name) hip##name
using gpu_error = hipError_t;
constexpr gpu_error gpu_success = hipSuccess;
#endif

#ifdef KERNWERK_GPU
namespace {
void check_gpu(gpu_error status, const char* what) {
  if (status == gpu_success) return;
  (void)KERNWERK_GPU(GetLastError)();
  throw error(std::string("kernwerk: ") + what + ": " + KERNWERK_GPU(GetErrorString)(status));
}
}  // namespace
#endif

int device_id() {
#ifdef KERNWERK_GPU
  int device = 0;
  check_gpu(KERNWERK_GPU(GetDevice)(&device), "the current device");
  return device;
#else
  return -1;
#endif
}

void* device_allocate(std::size_t bytes, bool zero) {
#ifdef KERNWERK_GPU
  void* pointer = nullptr;
  const gpu_error status = KERNWERK_GPU(Malloc)(&pointer, bytes == 0 ? 1 : bytes);
  if (status != gpu_success) {
    (void)KERNWERK_GPU(GetLastError)();
    throw std::bad_alloc();
  }
  if (zero) check_gpu(KERNWERK_GPU(Memset)(pointer, 0, bytes), "zeroing a result");
  return pointer;
#else
  (void)bytes;
  (void)zero;
  throw error("kernwerk: this build has no GPU backend");
#endif
}

void device_free(void* pointer) noexcept {
#ifdef KERNWERK_GPU
  // At exit the runtime may be gone already; its complaint then is of no use to anyone.
  if (KERNWERK_GPU(Free)(pointer) != gpu_success) (void)KERNWERK_GPU(GetLastError)();
#else
  (void)pointer;
#endif
}

void wait_for_stream(std::uintptr_t stream) {
#if defined(KOKKOS_ENABLE_CUDA)
  // The array interfaces number the legacy default stream 1 and the per-thread one 2.
  const cudaStream_t handle = stream == 1   ? cudaStreamLegacy
                              : stream == 2 ? cudaStreamPerThread
                                            : reinterpret_cast<cudaStream_t>(stream);
  check_gpu(cudaStreamSynchronize(handle), "waiting for the caller's stream");
#elif defined(KOKKOS_ENABLE_HIP)
  const hipStream_t handle = stream <= 2 ? nullptr : reinterpret_cast<hipStream_t>(stream);
  check_gpu(hipStreamSynchronize(handle), "waiting for the caller's stream");
#else
  (void)stream;
#endif
}

int device_of(const void* pointer) {
#if defined(KOKKOS_ENABLE_CUDA)
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;
  }
  return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged
             ? attributes.device
             : -1;
#elif defined(KOKKOS_ENABLE_HIP)
  hipPointerAttribute_t attributes{};
  if (hipPointerGetAttributes(&attributes, pointer) != hipSuccess) {
    (void)hipGetLastError();
    return -1;
  }
  return attributes.memoryType == hipMemoryTypeDevice ? attributes.device : -1;
#else
  (void)pointer;
  return -1;
#endif
}

}  // namespace kernwerk::python
