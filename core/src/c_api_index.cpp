// The C interface's handle on kernwerk::sphere_index (kernwerk.h): built once over the
// references, queried many times, destroyed by the caller.
#include "kernwerk.h"
#include "c_api_support.hpp"

#include <memory>

#include "kernwerk/sphere_index.hpp"

using namespace kernwerk::c_api;

struct kw_sphere_index {
  kw_type type;
  kw_memory memory;
  // One of the two, by memory: the host execution space's index or the default space's.
  std::unique_ptr<kernwerk::sphere_index<Kokkos::DefaultHostExecutionSpace>> host;
  std::unique_ptr<kernwerk::sphere_index<Kokkos::DefaultExecutionSpace>> device;
};

namespace {

template <class T, class Space>
using points_view =
    Kokkos::View<const T**, Kokkos::LayoutRight, typename Space::memory_space, Kokkos::MemoryUnmanaged>;

template <class Action>
void with_index_space(const kw_sphere_index& index, Action&& action) {
  if (index.host) action(*index.host);
  else action(*index.device);
}

}  // namespace

extern "C" {

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
    with_space(fn, memory, [&](auto space) {
      using Space = decltype(space);
      if constexpr (!std::is_same_v<Space, Kokkos::DefaultHostExecutionSpace> &&
                    !std::is_same_v<Space, Kokkos::DefaultExecutionSpace>) {
        refuse_foreign_thread(fn, "an index is built and queried there");
      } else {
        with_type(fn, type, [&](auto tag) {
          using T = typename decltype(tag)::type;
          auto built = std::make_unique<kernwerk::sphere_index<Space>>(
              space, points_view<T, Space>(static_cast<const T*>(references), m, 2), cpp);
          if constexpr (std::is_same_v<Space, Kokkos::DefaultHostExecutionSpace>) made->host = std::move(built);
          else made->device = std::move(built);
        });
      }
    });
    *index = made.release();
  });
}

kw_status kw_sphere_index_nearest(const kw_sphere_index* index, const void* observations,
                                  int64_t n, int64_t k, int64_t* indices, void* distances) {
  constexpr const char* fn = "kw_sphere_index_nearest";
  return guarded(fn, [&] {
    require(index != nullptr, fn, "index", "is NULL");
    require_count(fn, "n", n);
    require(k >= 1 && k <= 32, fn, "k", "must be 1 to 32, got " + std::to_string(k));
    require_pointer(fn, "observations", observations, n);
    require_pointer(fn, "indices", indices, n);
    require_pointer(fn, "distances", distances, n);
    for (auto [name, pointer] : {std::pair<const char*, const void*>{"observations", observations},
                                 {"indices", indices}, {"distances", distances}})
      require_location(fn, name, pointer, index->memory);
    with_index_space(*index, [&](const auto& built) {
      using Space = typename std::remove_reference_t<decltype(built)>::execution_space;
      using memory_space = typename Space::memory_space;
      if (foreign_thread<Space>()) refuse_foreign_thread(fn, "an index is built and queried there");
      with_type(fn, index->type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        built.nearest(Space(), points_view<T, Space>(static_cast<const T*>(observations), n, 2),
                      Kokkos::View<int64_t**, Kokkos::LayoutRight, memory_space, Kokkos::MemoryUnmanaged>(
                          indices, n, k),
                      Kokkos::View<T**, Kokkos::LayoutRight, memory_space, Kokkos::MemoryUnmanaged>(
                          static_cast<T*>(distances), n, k));
      });
    });
  });
}

int64_t kw_sphere_index_size(const kw_sphere_index* index) {
  return index ? int64_t((index->host ? index->host->size() : index->device->size())) : 0;
}

kw_status kw_sphere_index_destroy(kw_sphere_index* index) {
  if (!index) return KW_SUCCESS;
  // The index's memory belongs to Kokkos: after kw_finalize it cannot be given back.
  if (!Kokkos::is_initialized())
    return fail(KW_NOT_INITIALIZED,
                "kw_sphere_index_destroy: Kokkos was finalised first; destroy indexes before kw_finalize");
  delete index;
  return KW_SUCCESS;
}

}  // extern "C"
