// The C interface's handles on kernwerk::spatial_index (kernwerk.h): built once over the points,
// queried many times, destroyed by the caller. kw_sphere_index, its first name, holds a
// kernwerk::sphere_index (the same index, haversine only, under the old argument names).
#include "kernwerk.h"
#include "c_api_support.hpp"
#include "c_api_within_result.hpp"

#include <memory>

#include "kernwerk/spatial_index.hpp"
#include "kernwerk/sphere_index.hpp"

using namespace kernwerk::c_api;

namespace {

// The index on the host execution space or on the default one, by the memory it was built on.
template <template <class> class Index>
struct index_handle {
  kw_type type;
  kw_memory memory;
  int64_t dimension;
  std::unique_ptr<Index<Kokkos::DefaultHostExecutionSpace>> host;
  std::unique_ptr<Index<Kokkos::DefaultExecutionSpace>> device;

  // Builds the index over `points` (m rows of `dimension` coordinates in `memory`).
  template <class Options>
  void build(const char* fn, const void* points, int64_t m, const Options& options) {
    with_space(fn, memory, [&](auto space) {
      using Space = decltype(space);
      if constexpr (!std::is_same_v<Space, Kokkos::DefaultHostExecutionSpace> &&
                    !std::is_same_v<Space, Kokkos::DefaultExecutionSpace>) {
        refuse_foreign_thread(fn, "an index is built and queried there");
      } else {
        with_type(fn, type, [&](auto tag) {
          using T = typename decltype(tag)::type;
          auto built = std::make_unique<Index<Space>>(space, points_of<T, Space>(points, m), options);
          if constexpr (std::is_same_v<Space, Kokkos::DefaultHostExecutionSpace>) host = std::move(built);
          else device = std::move(built);
        });
      }
    });
  }

  // Runs query(index, space, value type tag) on the index's execution space.
  template <class Query>
  void run(const char* fn, Query&& query) const {
    const auto on = [&](const auto& built) {
      using Space = typename std::remove_reference_t<decltype(built)>::execution_space;
      if (foreign_thread<Space>()) refuse_foreign_thread(fn, "an index is built and queried there");
      with_type(fn, type, [&](auto tag) { query(built, Space(), tag); });
    };
    if (host) on(*host);
    else on(*device);
  }

  template <class T, class Space>
  Kokkos::View<const T**, Kokkos::LayoutRight, typename Space::memory_space, Kokkos::MemoryUnmanaged>
  points_of(const void* data, int64_t rows) const {
    using view = Kokkos::View<const T**, Kokkos::LayoutRight, typename Space::memory_space, Kokkos::MemoryUnmanaged>;
    return view(static_cast<const T*>(data), size_t(rows), size_t(dimension));
  }

  int64_t size() const { return int64_t(host ? host->size() : device->size()); }
};

// The k nearest points of n queries (named `queries_name`) of an index, as kw_nearest returns them.
template <class Handle>
kw_status nearest_of(const Handle* index, const char* fn, const char* queries_name, const void* queries,
                     int64_t n, int64_t k, int64_t* indices, void* distances) {
  return guarded(fn, [&] {
    require(index != nullptr, fn, "index", "is NULL");
    require_count(fn, "n", n);
    require(k >= 1, fn, "k", "must be at least 1, got " + std::to_string(k));
    require(k <= index->size(), fn, "k",
            std::to_string(k) + " neighbours, but the index holds " + std::to_string(index->size()) + " points");
    require_pointer(fn, queries_name, queries, n);
    require_pointer(fn, "indices", indices, n);
    require_pointer(fn, "distances", distances, n);
    for (auto [name, pointer] : {std::pair<const char*, const void*>{queries_name, queries},
                                 {"indices", indices}, {"distances", distances}})
      require_location(fn, name, pointer, index->memory);
    index->run(fn, [&](const auto& built, auto space, auto tag) {
      using Space = decltype(space);
      using T = typename decltype(tag)::type;
      using memory_space = typename Space::memory_space;
      built.nearest(space, index->template points_of<T, Space>(queries, n),
                    Kokkos::View<int64_t**, Kokkos::LayoutRight, memory_space, Kokkos::MemoryUnmanaged>(
                        indices, n, k),
                    Kokkos::View<T**, Kokkos::LayoutRight, memory_space, Kokkos::MemoryUnmanaged>(
                        static_cast<T*>(distances), n, k));
    });
  });
}

// Frees a handle (NULL is fine).
template <class Handle>
kw_status destroy(const char* fn, Handle* handle) {
  if (!handle) return KW_SUCCESS;
  // The index's memory belongs to Kokkos: after kw_finalize it cannot be given back.
  if (!Kokkos::is_initialized())
    return fail(KW_NOT_INITIALIZED,
                std::string(fn) + ": Kokkos was finalised first; destroy indexes before kw_finalize");
  delete handle;
  return KW_SUCCESS;
}

}  // namespace

struct kw_index : index_handle<kernwerk::spatial_index> {
  within_rows rows;  // of kw_index_within
};
struct kw_sphere_index : index_handle<kernwerk::sphere_index> {};

extern "C" {

kw_status kw_index_create(kw_type type, kw_memory memory, int64_t dimension, const void* points,
                          int64_t m, const kw_within_options* options, kw_index** index) {
  constexpr const char* fn = "kw_index_create";
  return guarded(fn, [&] {
    require(index != nullptr, fn, "index", "is NULL");
    require_points(fn, memory, dimension, "points", points, m, "m");
    const kernwerk::index_options cpp = index_options_of(fn, options);
    auto made = std::make_unique<kw_index>();
    made->rows = within_rows_of(fn, options);
    made->type = type;
    made->memory = memory;
    made->dimension = dimension;
    made->build(fn, points, m, cpp);
    *index = made.release();
  });
}

kw_status kw_index_nearest(const kw_index* index, const void* queries, int64_t n, int64_t k,
                           int64_t* indices, void* distances) {
  return nearest_of(index, "kw_index_nearest", "queries", queries, n, k, indices, distances);
}

kw_status kw_index_count_within(const kw_index* index, const void* queries, int64_t n,
                                double radius, int64_t* counts) {
  constexpr const char* fn = "kw_index_count_within";
  return guarded(fn, [&] {
    require(index != nullptr, fn, "index", "is NULL");
    require_points(fn, index->memory, index->dimension, "queries", queries, n, "n");
    require_pointer(fn, "counts", counts, n);
    require_location(fn, "counts", counts, index->memory);
    index->run(fn, [&](const auto& built, auto space, auto tag) {
      using Space = decltype(space);
      using T = typename decltype(tag)::type;
      built.count_within(space, index->template points_of<T, Space>(queries, n), radius,
                         array_view<int64_t, Space>(counts, n));
    });
  });
}

kw_status kw_index_within(const kw_index* index, const void* queries, int64_t n, double radius,
                          kw_within_result** result) {
  constexpr const char* fn = "kw_index_within";
  return guarded(fn, [&] {
    require(index != nullptr, fn, "index", "is NULL");
    require(result != nullptr, fn, "result", "is NULL");
    require_points(fn, index->memory, index->dimension, "queries", queries, n, "n");
    index->run(fn, [&](const auto& built, auto space, auto tag) {
      using Space = decltype(space);
      using T = typename decltype(tag)::type;
      *result = within_answer<Space>::found(index->type, index->memory, n, index->rows, [&](auto&... outputs) {
        built.within(space, index->template points_of<T, Space>(queries, n), radius, outputs...,
                     index->rows.order);
      });
    });
  });
}

int64_t kw_index_size(const kw_index* index) { return index ? index->size() : 0; }

int64_t kw_index_dimension(const kw_index* index) { return index ? index->dimension : 0; }

kw_status kw_index_destroy(kw_index* index) {
  return destroy("kw_index_destroy", index);
}

kw_status kw_sphere_index_create(kw_type type, kw_memory memory, const void* references,
                                 int64_t m, const kw_nearest_options* options,
                                 kw_sphere_index** index) {
  constexpr const char* fn = "kw_sphere_index_create";
  return guarded(fn, [&] {
    require(index != nullptr, fn, "index", "is NULL");
    require_count(fn, "m", m);
    require_pointer(fn, "references", references, m);
    require_location(fn, "references", references, memory);
    kernwerk::sphere_index_options cpp;
    if (options) {
      require(options->metric == 0, fn, "options->metric", "must be 0 (haversine) for a sphere index");
      cpp.units = options->degrees ? kernwerk::angle_unit::degrees : kernwerk::angle_unit::radians;
      cpp.radius = options->radius;
    }
    auto made = std::make_unique<kw_sphere_index>();
    made->type = type;
    made->memory = memory;
    made->dimension = 2;
    made->build(fn, references, m, cpp);
    *index = made.release();
  });
}

kw_status kw_sphere_index_nearest(const kw_sphere_index* index, const void* observations,
                                  int64_t n, int64_t k, int64_t* indices, void* distances) {
  return nearest_of(index, "kw_sphere_index_nearest", "observations", observations, n, k, indices,
                    distances);
}

int64_t kw_sphere_index_size(const kw_sphere_index* index) { return index ? index->size() : 0; }

kw_status kw_sphere_index_destroy(kw_sphere_index* index) {
  return destroy("kw_sphere_index_destroy", index);
}

}  // extern "C"
