// The runner of the MPI test programs: MPI and Kokkos around doctest, one report (rank 0's), and
// a failure on any rank failing the run.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include "mpi_support.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    doctest::Context context(argc, argv);
    if (kernwerk::test::mpi_support::rank_here() != 0) context.setOption("out", "/dev/null");  // one report, from rank 0
    status = context.run();
  }
  // A failure on any rank fails the run.
  int worst = 0;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
