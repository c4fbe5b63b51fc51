// kw_nearest_mpi and kw_distributed_index: the C face of kernwerk::mpi::nearest and of
// kernwerk::mpi::distributed_index. Their own argument checks are agreed on by every rank before
// the collective call, so that a bad pointer on one rank fails them all.
#include "kernwerk_mpi.h"

#include <memory>

#include "c_api_index_handle.hpp"
#include "c_api_support.hpp"
#include "kernwerk/mpi/distributed_index.hpp"
#include "kernwerk/mpi/nearest.hpp"

using namespace kernwerk::c_api;

namespace {

// The Fortran module's outputs: indices(k, n) with a column for each of the n `points`, and
// distances of the same shape.
void require_fortran_outputs(const char* fn, const char* points, int64_t n, int64_t k, int64_t index_columns,
                             int64_t distance_rows, int64_t distance_columns) {
  require(index_columns == n, fn, "indices",
          "has " + std::to_string(index_columns) + " columns for " + std::to_string(n) + " " + points);
  require(distance_rows == k && distance_columns == n, fn, "distances",
          "shape (" + std::to_string(distance_rows) + ", " + std::to_string(distance_columns) +
              ") differs from indices' (" + std::to_string(k) + ", " + std::to_string(n) + ")");
}

// kw_nearest_mpi, with `shapes` (the Fortran module's array shapes) checked among the
// arguments every rank agrees on.
template <class Shapes>
kw_status nearest_mpi(const char* fn, kw_type type, kw_memory memory, int64_t dimension,
                      const void* observations, int64_t n, const void* references, int64_t m,
                      int64_t k, int64_t* indices, void* distances, const kw_nearest_options* options,
                      kw_strategy strategy, MPI_Comm comm, const Shapes& shapes) {
  return guarded(fn, [&] {
    kernwerk::mpi::nearest_options cpp;
    kernwerk::mpi::detail::agree(comm, fn, [&] {
      shapes();
      require_nearest_arguments(fn, memory, dimension, observations, n, references, m, k, indices,
                                distances);
      convert_nearest_options(fn, options, cpp);
      require(strategy >= KW_STRATEGY_AUTO && strategy <= KW_STRATEGY_RING, fn, "strategy",
              "is not KW_STRATEGY_AUTO, KW_STRATEGY_REPLICATE or KW_STRATEGY_RING");
      cpp.strategy = kernwerk::mpi::strategy_kind(strategy);
      with_space(fn, memory, [](auto) {});
      with_type(fn, type, [](auto) {});
    });
    with_space(fn, memory, [&](auto space) {
      using Space = decltype(space);
      with_type(fn, type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        using memory_space = typename Space::memory_space;
        using points = Kokkos::View<const T**, Kokkos::LayoutRight, memory_space, Kokkos::MemoryUnmanaged>;
        kernwerk::mpi::nearest(
            space, comm, points(static_cast<const T*>(observations), n, dimension),
            points(static_cast<const T*>(references), m, dimension),
            Kokkos::View<int64_t**, Kokkos::LayoutRight, memory_space, Kokkos::MemoryUnmanaged>(indices, n, k),
            Kokkos::View<T**, Kokkos::LayoutRight, memory_space, Kokkos::MemoryUnmanaged>(
                static_cast<T*>(distances), n, k),
            cpp);
      });
    });
  });
}

}  // namespace

// The index on the host execution space or on the default one, by the memory of its points.
struct kw_distributed_index : kernwerk::c_api::index_handle<kernwerk::mpi::distributed_index> {
  // The index's own communicator, on which the ranks agree on a query's arguments.
  MPI_Comm communicator() const { return host ? host->communicator() : device->communicator(); }
};

namespace {

// kw_distributed_index_create (its Fortran face too).
kw_status create_index(const char* fn, kw_type type, kw_memory memory, int64_t dimension, const void* points,
                       int64_t m, const kw_within_options* options, kw_index_layout layout, MPI_Comm comm,
                       kw_distributed_index** index) {
  return guarded(fn, [&] {
    kernwerk::mpi::distributed_index_options cpp;
    kernwerk::mpi::detail::agree(comm, fn, [&] {
      require(index != nullptr, fn, "index", "is NULL");
      require_points(fn, memory, dimension, "points", points, m, "m");
      static_cast<kernwerk::index_options&>(cpp) = index_options_of(fn, options);
      require(layout >= KW_INDEX_LAYOUT_AUTO && layout <= KW_INDEX_LAYOUT_PARTITIONED, fn, "layout",
              "is not KW_INDEX_LAYOUT_AUTO, KW_INDEX_LAYOUT_REPLICATED or KW_INDEX_LAYOUT_PARTITIONED");
      cpp.layout = kernwerk::mpi::index_layout(layout);
      with_space(fn, memory, [](auto) {});
      with_type(fn, type, [](auto) {});
    });
    auto made = std::make_unique<kw_distributed_index>();
    made->type = type;
    made->memory = memory;
    made->dimension = dimension;
    made->build_with(fn, points, m, [&](auto space, const auto& rows) {
      return std::make_unique<kernwerk::mpi::distributed_index<decltype(space)>>(space, comm, rows, cpp);
    });
    *index = made.release();
  });
}

// kw_distributed_index_nearest, with `shapes` (the Fortran module's) among the agreed checks.
template <class Shapes>
kw_status index_nearest(const char* fn, const kw_distributed_index* index, const void* queries, int64_t n,
                        int64_t k, int64_t* indices, void* distances, const Shapes& shapes) {
  return guarded(fn, [&] {
    require(index != nullptr, fn, "index", "is NULL");
    kernwerk::mpi::detail::agree(index->communicator(), fn, [&] {
      shapes();
      require_points(fn, index->memory, index->dimension, "queries", queries, n, "n");
      require(k >= 1, fn, "k", "must be at least 1, got " + std::to_string(k));
      require_pointer(fn, "indices", indices, n);
      require_pointer(fn, "distances", distances, n);
      require_location(fn, "indices", indices, index->memory);
      require_location(fn, "distances", distances, index->memory);
    });
    index->run(fn, [&](const auto& built, auto space, auto tag) {
      using Space = decltype(space);
      using T = typename decltype(tag)::type;
      using memory_space = typename Space::memory_space;
      built.nearest(space, index->template points_of<T, Space>(queries, n),
                    Kokkos::View<int64_t**, Kokkos::LayoutRight, memory_space, Kokkos::MemoryUnmanaged>(indices, n, k),
                    Kokkos::View<T**, Kokkos::LayoutRight, memory_space, Kokkos::MemoryUnmanaged>(
                        static_cast<T*>(distances), n, k));
    });
  });
}

}  // namespace

extern "C" {

kw_status kw_initialize_mpi(MPI_Comm comm) {
  constexpr const char* fn = "kw_initialize_mpi";
  if (Kokkos::is_initialized()) return KW_SUCCESS;
  MPI_Comm node;
  int local_rank = 0;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
    return fail(KW_INTERNAL_ERROR, std::string(fn) + ": MPI_Comm_split_type failed");
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_free(&node);
  return initialize(fn, local_rank);
}

kw_status kw_nearest_mpi(kw_type type, kw_memory memory, int64_t dimension, const void* observations,
                         int64_t n, const void* references, int64_t m, int64_t k, int64_t* indices,
                         void* distances, const kw_nearest_options* options, kw_strategy strategy,
                         MPI_Comm comm) {
  return nearest_mpi("kw_nearest_mpi", type, memory, dimension, observations, n, references, m, k,
                     indices, distances, options, strategy, comm, [] {});
}

kw_status kw_nearest_mpi_fortran(kw_type type, kw_memory memory, int64_t dimension,
                                 const void* observations, int64_t n, int64_t reference_dimension,
                                 const void* references, int64_t m, int64_t k, int64_t index_columns,
                                 int64_t* indices, int64_t distance_rows, int64_t distance_columns,
                                 void* distances, const kw_nearest_options* options, int strategy,
                                 MPI_Fint comm) {
  constexpr const char* fn = "kw_nearest_mpi";
  return nearest_mpi(fn, type, memory, dimension, observations, n, references, m, k, indices,
                     distances, options, kw_strategy(strategy), MPI_Comm_f2c(comm), [&] {
    require(reference_dimension == dimension, fn, "references",
            std::to_string(reference_dimension) + " coordinates per point, observations have " +
                std::to_string(dimension));
    require_fortran_outputs(fn, "observations", n, k, index_columns, distance_rows, distance_columns);
  });
}

kw_status kw_distributed_index_create(kw_type type, kw_memory memory, int64_t dimension, const void* points,
                                      int64_t m, const kw_within_options* options, kw_index_layout layout,
                                      MPI_Comm comm, kw_distributed_index** index) {
  return create_index("kw_distributed_index_create", type, memory, dimension, points, m, options, layout, comm,
                      index);
}

kw_status kw_distributed_index_create_fortran(kw_type type, int64_t dimension, const void* points, int64_t m,
                                              const kw_within_options* options, int layout, MPI_Fint comm,
                                              kw_distributed_index** index) {
  return create_index("kw_distributed_index_create", type, KW_MEMORY_HOST, dimension, points, m, options,
                      kw_index_layout(layout), MPI_Comm_f2c(comm), index);
}

kw_status kw_distributed_index_nearest(const kw_distributed_index* index, const void* queries, int64_t n,
                                       int64_t k, int64_t* indices, void* distances) {
  return index_nearest("kw_distributed_index_nearest", index, queries, n, k, indices, distances, [] {});
}

kw_status kw_distributed_index_nearest_fortran(const kw_distributed_index* index, kw_type type,
                                               int64_t dimension, const void* queries, int64_t n, int64_t k,
                                               int64_t index_columns, int64_t* indices, int64_t distance_rows,
                                               int64_t distance_columns, void* distances) {
  constexpr const char* fn = "kw_distributed_index_nearest";
  return index_nearest(fn, index, queries, n, k, indices, distances, [&] {
    require(type == index->type, fn, "queries",
            std::string("are of another kind than the index's points (") +
                (index->type == KW_FLOAT32 ? "real32" : "real64") + ")");
    require(dimension == index->dimension, fn, "queries",
            std::to_string(dimension) + " coordinates per point, the index's points have " +
                std::to_string(index->dimension));
    require_fortran_outputs(fn, "queries", n, k, index_columns, distance_rows, distance_columns);
  });
}

int64_t kw_distributed_index_size(const kw_distributed_index* index) { return index ? index->size() : 0; }

kw_index_layout kw_distributed_index_layout(const kw_distributed_index* index) {
  if (!index) return KW_INDEX_LAYOUT_AUTO;
  return kw_index_layout(index->host ? index->host->layout() : index->device->layout());
}

kw_status kw_distributed_index_destroy(kw_distributed_index* index) {
  if (!index) return KW_SUCCESS;
  // The index's memory belongs to Kokkos: after kw_finalize it cannot be given back.
  if (!Kokkos::is_initialized())
    return fail(KW_NOT_INITIALIZED,
                "kw_distributed_index_destroy: Kokkos was finalised first; destroy indexes before kw_finalize");
  delete index;
  return KW_SUCCESS;
}

}  // extern "C"
