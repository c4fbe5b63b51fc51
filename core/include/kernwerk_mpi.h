/** \file
 * kw_nearest over MPI ranks (Kernwerk::kernwerk_mpi): the C face of kernwerk::mpi::nearest.
 */
#ifndef KERNWERK_MPI_H
#define KERNWERK_MPI_H

#include <mpi.h>

#include "kernwerk.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How kw_nearest_mpi spreads the references over the ranks. */
typedef enum kw_strategy {
  KW_STRATEGY_AUTO = 0,      /**< replicate where the gathered references fit the memory budget */
  KW_STRATEGY_REPLICATE = 1, /**< gather every rank's references, search them locally */
  KW_STRATEGY_RING = 2,      /**< pass the reference shards around the ranks */
  KW_ENUM_RANGE(KW_STRATEGY)
} kw_strategy;

/** kw_initialize for an MPI program: one GPU per rank, the node-local rank (MPI_Comm_split_type
 * over comm) modulo the GPUs the process sees. Collective over comm. Where the application has
 * initialised Kokkos already, its choice stands. kw_finalize undoes it. */
kw_status kw_initialize_mpi(MPI_Comm comm);

/** Collective over comm: every rank passes its own observations (n rows) and references (m
 * rows, any counts, zero allowed) and gets, for its observations, the k nearest among all
 * ranks' references: global indices (the references of lower ranks first) and distances,
 * exactly kw_nearest on the concatenated sets. type, memory, dimension, k and the options must
 * be the same on every rank. A bad argument on any rank fails the call on every rank with the
 * same status and message, naming the rank; no output is written then. */
kw_status kw_nearest_mpi(kw_type type, kw_memory memory, int64_t dimension, const void* observations,
                         int64_t n, const void* references, int64_t m, int64_t k, int64_t* indices,
                         void* distances, const kw_nearest_options* options, kw_strategy strategy,
                         MPI_Comm comm);

/** For the Fortran module kernwerk_mpi: the same with a Fortran communicator (MPI_Comm_f2c)
 * and the array shapes it checks on every rank alike. */
kw_status kw_nearest_mpi_fortran(kw_type type, kw_memory memory, int64_t dimension,
                                 const void* observations, int64_t n, int64_t reference_dimension,
                                 const void* references, int64_t m, int64_t k, int64_t index_columns,
                                 int64_t* indices, int64_t distance_rows, int64_t distance_columns,
                                 void* distances, const kw_nearest_options* options, int strategy,
                                 MPI_Fint comm);

#ifdef __cplusplus
}
#endif

#endif
