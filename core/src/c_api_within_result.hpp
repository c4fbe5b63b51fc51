#pragma once
// kw_within_result (kernwerk.h): a radius search's answer in the memory of the call's
// execution space, held until the caller has copied it out. kw_within and kw_index_within
// fill one.
#include "kernwerk.h"
#include "c_api_support.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>

#include "kernwerk/impl/neighbourhood/within.hpp"

struct kw_within_result {
  kw_type type;
  kw_memory memory;
  int64_t queries = 0;
  int64_t total = 0;
  bool with_distances = true;
  virtual ~kw_within_result() = default;
  virtual void copy(int64_t* offsets, int64_t* indices, void* distances) const = 0;
};

namespace kernwerk::c_api {

template <class T, class Space>
using array_view = Kokkos::View<T*, typename Space::memory_space, Kokkos::MemoryUnmanaged>;

// The rows kw_within_options asks for.
struct within_rows {
  kernwerk::row_order order = kernwerk::row_order::nearest_first;
  bool distances = true;
};

inline within_rows within_rows_of(const char* fn, const kw_within_options* options) {
  within_rows rows;
  if (!options) return rows;
  require(options->order == 0 || options->order == 1, fn, "options->order", "is not 0 or 1");
  require(options->distances == 0 || options->distances == 1, fn, "options->distances", "is not 0 or 1");
  rows.order = options->order == 0 ? kernwerk::row_order::nearest_first : kernwerk::row_order::any;
  rows.distances = options->distances == 1;
  return rows;
}

template <class Space>
struct within_answer final : kw_within_result {
  using memory_space = typename Space::memory_space;
  Kokkos::View<int64_t*, memory_space> offsets{"kw_within::offsets", 0};
  Kokkos::View<int64_t*, memory_space> indices{"kw_within::indices", 0};
  Kokkos::View<double*, memory_space> distances{"kw_within::distances", 0};

  within_answer(kw_type type_, kw_memory memory_, int64_t n) {
    type = type_;
    memory = memory_;
    queries = n;
    offsets = decltype(offsets)("kw_within::offsets", n + 1);
  }

  // The answer of search(offsets, indices[, distances]), as `rows` asks.
  template <class Search>
  static within_answer* found(kw_type type, kw_memory memory, int64_t n, const within_rows& rows,
                              Search&& search) {
    auto answer = std::make_unique<within_answer>(type, memory, n);
    answer->with_distances = rows.distances;
    if (rows.distances) search(answer->offsets, answer->indices, answer->distances);
    else search(answer->offsets, answer->indices);
    answer->total = int64_t(answer->indices.extent(0));
    return answer.release();
  }

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

}  // namespace kernwerk::c_api
