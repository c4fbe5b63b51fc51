#pragma once
// The C interface's index handles (kernwerk.h), shared by the files that build them
// (c_api_index.cpp), search them for nearest points (c_api_index_nearest.cpp) and within a
// radius (c_api_index_within.cpp): three files, so that their templates compile side by side.
#include <memory>
#include <type_traits>

#include "kernwerk.h"
#include "c_api_support.hpp"
#include "c_api_within_result.hpp"
#include "kernwerk/spatial_index.hpp"
#include "kernwerk/sphere_index.hpp"

namespace kernwerk::c_api {

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
    build_with(fn, points, m, [&](auto space, const auto& rows) {
      return std::make_unique<Index<decltype(space)>>(space, rows, options);
    });
  }

  // The same with make(space, rows) building it (an index that takes more than the points).
  template <class Make>
  void build_with(const char* fn, const void* points, int64_t m, Make&& make) {
    with_space(fn, memory, [&](auto space) {
      using Space = decltype(space);
      if constexpr (!std::is_same_v<Space, Kokkos::DefaultHostExecutionSpace> &&
                    !std::is_same_v<Space, Kokkos::DefaultExecutionSpace>) {
        refuse_foreign_thread(fn, "an index is built and queried there");
      } else {
        with_type(fn, type, [&](auto tag) {
          using T = typename decltype(tag)::type;
          std::unique_ptr<Index<Space>> built = make(space, points_of<T, Space>(points, m));
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

}  // namespace kernwerk::c_api

struct kw_index : kernwerk::c_api::index_handle<kernwerk::spatial_index> {
  kernwerk::c_api::within_rows rows;  // of kw_index_within
};
struct kw_sphere_index : kernwerk::c_api::index_handle<kernwerk::sphere_index> {};

