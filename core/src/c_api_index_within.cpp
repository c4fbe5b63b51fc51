// The points of an index handle within a radius of its queries, and their counts
// (kw_index_within, kw_index_count_within).
#include "c_api_index_handle.hpp"

using namespace kernwerk::c_api;

extern "C" {

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

}  // extern "C"
