// kernwerk_bench_mpi_nearest's distributed index, its build (mpi_nearest_bench_calls.hpp; the
// query in mpi_nearest_bench_query.cpp, so that the two compile side by side).
#include "mpi_nearest_bench_calls.hpp"

namespace kernwerk::bench {

timed_index::timed_index(const mpi_matrix<double>& points, mpi::index_layout layout) {
  mpi::distributed_index_options options;
  options.layout = layout;
  index_ = std::make_unique<mpi::distributed_index<mpi_space>>(mpi_space(), MPI_COMM_WORLD, points, options);
}

timed_index::~timed_index() = default;

mpi::index_layout timed_index::layout() const { return index_->layout(); }

}  // namespace kernwerk::bench
