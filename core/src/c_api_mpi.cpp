// kw_nearest_mpi: the C face of kernwerk::mpi::nearest. Its own argument checks are agreed on by
// every rank before the collective call, so that a bad pointer on one rank fails them all.
#include "kernwerk_mpi.h"

#include "c_api_support.hpp"
#include "kernwerk/mpi/nearest.hpp"

using namespace kernwerk::c_api;

namespace {

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
    require(index_columns == n, fn, "indices",
            "has " + std::to_string(index_columns) + " columns for " + std::to_string(n) + " observations");
    require(distance_rows == k && distance_columns == n, fn, "distances",
            "shape (" + std::to_string(distance_rows) + ", " + std::to_string(distance_columns) +
                ") differs from indices' (" + std::to_string(k) + ", " + std::to_string(n) + ")");
  });
}

}  // extern "C"
