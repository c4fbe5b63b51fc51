// The k nearest points of an index handle's queries (kw_index_nearest, kw_sphere_index_nearest).
#include "c_api_index_handle.hpp"

using namespace kernwerk::c_api;

namespace {

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

}  // namespace

extern "C" {

kw_status kw_index_nearest(const kw_index* index, const void* queries, int64_t n, int64_t k,
                           int64_t* indices, void* distances) {
  return nearest_of(index, "kw_index_nearest", "queries", queries, n, k, indices, distances);
}

kw_status kw_sphere_index_nearest(const kw_sphere_index* index, const void* observations,
                                  int64_t n, int64_t k, int64_t* indices, void* distances) {
  return nearest_of(index, "kw_sphere_index_nearest", "observations", observations, n, k, indices,
                    distances);
}

}  // extern "C"
