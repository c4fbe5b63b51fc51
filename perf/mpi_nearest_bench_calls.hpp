#pragma once
// The searches kernwerk_bench_mpi_nearest times, each compiled in a unit of its own
// (mpi_nearest_bench_ring.cpp, the distributed index's build in mpi_nearest_bench_index.cpp and
// its query in mpi_nearest_bench_query.cpp): in one unit with the driver, their templates took
// nvcc more than 300 s, past a device call's build.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>

#include "kernwerk/mpi/distributed_index.hpp"
#include "kernwerk/mpi/nearest_options.hpp"

namespace kernwerk::bench {

using mpi_space = Kokkos::DefaultExecutionSpace;
template <class T>
using mpi_matrix = Kokkos::View<T**, Kokkos::LayoutRight, mpi_space::memory_space>;

// kernwerk::mpi::nearest over MPI_COMM_WORLD.
void mpi_nearest(const mpi_matrix<double>& observations, const mpi_matrix<double>& references,
                 const mpi_matrix<std::int64_t>& indices, const mpi_matrix<double>& distances,
                 const mpi::nearest_options& options);

// kernwerk::mpi::distributed_index over MPI_COMM_WORLD, behind a pointer to its own unit.
class timed_index {
 public:
  timed_index(const mpi_matrix<double>& points, mpi::index_layout layout);
  ~timed_index();
  void nearest(const mpi_matrix<double>& queries, const mpi_matrix<std::int64_t>& indices,
               const mpi_matrix<double>& distances, mpi::distributed_report* report) const;
  mpi::index_layout layout() const;

 private:
  std::unique_ptr<mpi::distributed_index<mpi_space>> index_;
};

}  // namespace kernwerk::bench
