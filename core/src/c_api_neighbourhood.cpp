// The C interface of the radius search and DBSCAN (kernwerk.h): kw_count_within, kw_within
// with the answer it holds until the caller has copied it, and kw_dbscan.
#include "kernwerk.h"
#include "c_api_support.hpp"

#include <memory>

#include "kernwerk/dbscan.hpp"
#include "kernwerk/within.hpp"

using namespace kernwerk::c_api;

// kw_within's answer in the memory of the call's execution space (within_answer below).
struct kw_within_result {
  kw_type type;
  kw_memory memory;
  int64_t queries = 0;
  int64_t total = 0;
  virtual ~kw_within_result() = default;
  virtual void copy(int64_t* offsets, int64_t* indices, void* distances) const = 0;
};

namespace {

template <class T, class Space>
using points_view =
    Kokkos::View<const T**, Kokkos::LayoutRight, typename Space::memory_space, Kokkos::MemoryUnmanaged>;
template <class T, class Space>
using array_view = Kokkos::View<T*, typename Space::memory_space, Kokkos::MemoryUnmanaged>;

template <class Space>
struct within_answer final : kw_within_result {
  using memory_space = typename Space::memory_space;
  Kokkos::View<int64_t*, memory_space> offsets{"kw_within::offsets", 0};
  Kokkos::View<int64_t*, memory_space> indices{"kw_within::indices", 0};
  Kokkos::View<double*, memory_space> distances{"kw_within::distances", 0};

  void copy(int64_t* offsets_out, int64_t* indices_out, void* distances_out) const override {
    const Space space;
    Kokkos::deep_copy(space, array_view<int64_t, Space>(offsets_out, queries + 1), offsets);
    Kokkos::deep_copy(space, array_view<int64_t, Space>(indices_out, total), indices);
    if (distances_out) {
      if (type == KW_FLOAT64)
        Kokkos::deep_copy(space, array_view<double, Space>(static_cast<double*>(distances_out), total), distances);
      else
        kernwerk::impl::copy_converted(space, distances,
                                       array_view<float, Space>(static_cast<float*>(distances_out), total));
    }
    space.fence();
  }
};

// The sizes and pointers of a radius search or DBSCAN.
void require_points(const char* fn, kw_memory memory, int64_t dimension, const char* name,
                    const void* points, int64_t count, const char* count_name) {
  require_count(fn, count_name, count);
  require(dimension >= 1, fn, "dimension", "must be at least 1");
  require_pointer(fn, name, points, count);
  require_location(fn, name, points, memory);
}

// The metric fields of kw_within_options or kw_dbscan_options, checked.
template <class Options>
void read_metric(const char* fn, const Options& options, kernwerk::within_options& cpp) {
  require(options.metric == 0 || options.metric == 1, fn, "options->metric", "is not 0 or 1");
  cpp.metric = options.metric == 0 ? kernwerk::metric_kind::haversine : kernwerk::metric_kind::euclidean;
  cpp.units = options.degrees ? kernwerk::angle_unit::degrees : kernwerk::angle_unit::radians;
  cpp.radius = options.radius;
}

kernwerk::within_options within_options_of(const char* fn, const kw_within_options* options) {
  kernwerk::within_options cpp;
  if (options) read_metric(fn, *options, cpp);
  return cpp;
}

}  // namespace

extern "C" {

void kw_within_options_default(kw_within_options* options) {
  if (options) *options = kw_within_options{0, 0, 1.0};
}

void kw_dbscan_options_default(kw_dbscan_options* options) {
  if (options) *options = kw_dbscan_options{0, 0, 1.0, 0};
}

kw_status kw_count_within(kw_type type, kw_memory memory, int64_t dimension, const void* queries,
                          int64_t n, const void* points, int64_t m, double radius,
                          int64_t* counts, const kw_within_options* options) {
  constexpr const char* fn = "kw_count_within";
  return guarded(fn, [&] {
    require_points(fn, memory, dimension, "queries", queries, n, "n");
    require_points(fn, memory, dimension, "points", points, m, "m");
    require_pointer(fn, "counts", counts, n);
    require_location(fn, "counts", counts, memory);
    const auto cpp = within_options_of(fn, options);
    with_space(fn, memory, [&](auto space) {
      using Space = decltype(space);
      with_type(fn, type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernwerk::count_within(space, points_view<T, Space>(static_cast<const T*>(queries), n, dimension),
                               points_view<T, Space>(static_cast<const T*>(points), m, dimension), radius,
                               array_view<int64_t, Space>(counts, n), cpp);
      });
    });
  });
}

kw_status kw_within(kw_type type, kw_memory memory, int64_t dimension, const void* queries,
                    int64_t n, const void* points, int64_t m, double radius,
                    const kw_within_options* options, kw_within_result** result) {
  constexpr const char* fn = "kw_within";
  return guarded(fn, [&] {
    require(result != nullptr, fn, "result", "is NULL");
    require_points(fn, memory, dimension, "queries", queries, n, "n");
    require_points(fn, memory, dimension, "points", points, m, "m");
    const auto cpp = within_options_of(fn, options);
    with_space(fn, memory, [&](auto space) {
      using Space = decltype(space);
      with_type(fn, type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        auto answer = std::make_unique<within_answer<Space>>();
        answer->type = type;
        answer->memory = memory;
        answer->queries = n;
        answer->offsets = decltype(answer->offsets)("kw_within::offsets", n + 1);
        kernwerk::within(space, points_view<T, Space>(static_cast<const T*>(queries), n, dimension),
                         points_view<T, Space>(static_cast<const T*>(points), m, dimension), radius,
                         answer->offsets, answer->indices, answer->distances, cpp);
        answer->total = int64_t(answer->indices.extent(0));
        *result = answer.release();
      });
    });
  });
}

int64_t kw_within_result_total(const kw_within_result* result) { return result ? result->total : 0; }

kw_status kw_within_result_copy(const kw_within_result* result, int64_t* offsets,
                                int64_t* indices, void* distances) {
  constexpr const char* fn = "kw_within_result_copy";
  return guarded(fn, [&] {
    require(result != nullptr, fn, "result", "is NULL");
    require_pointer(fn, "offsets", offsets, 1);
    require_pointer(fn, "indices", indices, result->total);
    for (auto [name, pointer] : {std::pair<const char*, const void*>{"offsets", offsets},
                                 {"indices", indices}, {"distances", distances}})
      require_location(fn, name, pointer, result->memory);
    result->copy(offsets, indices, distances);
  });
}

kw_status kw_within_result_destroy(kw_within_result* result) {
  delete result;
  return KW_SUCCESS;
}

kw_status kw_dbscan(kw_type type, kw_memory memory, int64_t dimension, const void* points,
                    int64_t n, double eps, int64_t min_samples, int64_t* labels,
                    int64_t* clusters, const kw_dbscan_options* options) {
  constexpr const char* fn = "kw_dbscan";
  return guarded(fn, [&] {
    require_points(fn, memory, dimension, "points", points, n, "n");
    require_pointer(fn, "labels", labels, n);
    require_location(fn, "labels", labels, memory);
    kernwerk::dbscan_options cpp;
    if (options) {
      read_metric(fn, *options, cpp);
      require(options->border == 0 || options->border == 1, fn, "options->border", "is not 0 or 1");
      cpp.border = options->border == 0 ? kernwerk::border_rule::nearest_core : kernwerk::border_rule::first_cluster;
    }
    with_space(fn, memory, [&](auto space) {
      using Space = decltype(space);
      with_type(fn, type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const int64_t found =
            kernwerk::dbscan(space, points_view<T, Space>(static_cast<const T*>(points), n, dimension), eps,
                             min_samples, array_view<int64_t, Space>(labels, n), cpp);
        if (clusters) *clusters = found;
      });
    });
  });
}

}  // extern "C"
