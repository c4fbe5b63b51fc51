// kernwerk_bench_mpi_nearest's call of kernwerk::mpi::nearest (mpi_nearest_bench_calls.hpp).
#include "kernwerk/mpi/nearest.hpp"
#include "mpi_nearest_bench_calls.hpp"

namespace kernwerk::bench {

void mpi_nearest(const mpi_matrix<double>& observations, const mpi_matrix<double>& references,
                 const mpi_matrix<std::int64_t>& indices, const mpi_matrix<double>& distances,
                 const mpi::nearest_options& options) {
  mpi::nearest(mpi_space(), MPI_COMM_WORLD, observations, references, indices, distances, options);
}

}  // namespace kernwerk::bench
