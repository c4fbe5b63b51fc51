// The C interface's handles on kernwerk::spatial_index (kernwerk.h): built once over the points,
// queried many times, destroyed by the caller. kw_sphere_index, its first name, holds a
// kernwerk::sphere_index (the same index, haversine only, under the old argument names).
// Their searches are in c_api_index_nearest.cpp and c_api_index_within.cpp.
#include "c_api_index_handle.hpp"

using namespace kernwerk::c_api;

namespace {

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

int64_t kw_sphere_index_size(const kw_sphere_index* index) { return index ? index->size() : 0; }

kw_status kw_sphere_index_destroy(kw_sphere_index* index) {
  return destroy("kw_sphere_index_destroy", index);
}

}  // extern "C"
