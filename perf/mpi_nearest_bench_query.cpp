// kernwerk_bench_mpi_nearest's distributed index, its query (mpi_nearest_bench_calls.hpp).
#include "mpi_nearest_bench_calls.hpp"

namespace kernwerk::bench {

void timed_index::nearest(const mpi_matrix<double>& queries, const mpi_matrix<std::int64_t>& indices,
                          const mpi_matrix<double>& distances, mpi::distributed_report* report) const {
  index_->nearest(mpi_space(), queries, indices, distances, report);
}

}  // namespace kernwerk::bench
