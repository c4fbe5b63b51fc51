// The C interface of the radius search and DBSCAN (kernwerk.h): kw_count_within, kw_within
// with the answer it holds until the caller has copied it, and kw_dbscan.
#include "kernwerk.h"
#include "c_api_support.hpp"
#include "c_api_within_result.hpp"

#include <memory>

#include "kernwerk/dbscan.hpp"
#include "kernwerk/within.hpp"

using namespace kernwerk::c_api;

namespace {

template <class T, class Space>
using points_view =
    Kokkos::View<const T**, Kokkos::LayoutRight, typename Space::memory_space, Kokkos::MemoryUnmanaged>;

}  // namespace

extern "C" {

void kw_within_options_default(kw_within_options* options) {
  if (options) *options = kw_within_options{0, 0, 1.0, 0, 1};
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
    const kernwerk::within_options cpp{index_options_of(fn, options)};
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
    const within_rows rows = within_rows_of(fn, options);
    kernwerk::within_options cpp{index_options_of(fn, options)};
    cpp.order = rows.order;
    with_space(fn, memory, [&](auto space) {
      using Space = decltype(space);
      with_type(fn, type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        *result = within_answer<Space>::found(type, memory, n, rows, [&](auto&... outputs) {
          kernwerk::within(space, points_view<T, Space>(static_cast<const T*>(queries), n, dimension),
                           points_view<T, Space>(static_cast<const T*>(points), m, dimension), radius,
                           outputs..., cpp);
        });
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
    require(!distances || result->with_distances, fn, "distances",
            "must be NULL: the search left the distances out (its options' distances = 0)");
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
