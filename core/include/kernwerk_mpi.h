/** \file
 * kw_nearest over MPI ranks (Kernwerk::kernwerk_mpi): the C face of kernwerk::mpi::nearest and of
 * kernwerk::mpi::distributed_index.
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

/** How a kw_distributed_index holds the points (kernwerk::mpi::index_layout). */
typedef enum kw_index_layout {
  KW_INDEX_LAYOUT_AUTO = 0,        /**< replicated where all points and their index fit half the memory budget */
  KW_INDEX_LAYOUT_REPLICATED = 1,  /**< every rank indexes all points; queries stay on their rank */
  KW_INDEX_LAYOUT_PARTITIONED = 2, /**< each rank indexes a region; queries visit the ranks they need */
  KW_ENUM_RANGE(KW_INDEX_LAYOUT)
} kw_index_layout;

/** An index over the points of every rank of a communicator (kernwerk::mpi::distributed_index). */
typedef struct kw_distributed_index kw_distributed_index;

/** Collective over comm: builds the index over every rank's points (m rows of dimension
 * coordinates in memory, any count, zero allowed; a point's global index counts the points of
 * lower ranks first). options as kw_index_create's (NULL: haversine, radians). type, memory,
 * dimension, the options and layout must be the same on every rank. A bad argument on any rank
 * fails the call on every rank with the same status and message, naming the rank. index must
 * not be NULL on any rank. */
kw_status kw_distributed_index_create(kw_type type, kw_memory memory, int64_t dimension, const void* points,
                                      int64_t m, const kw_within_options* options, kw_index_layout layout,
                                      MPI_Comm comm, kw_distributed_index** index);

/** Collective over the index's communicator: for this rank's n queries, the k nearest points of
 * all ranks (indices: global; n x k rows, nearest first), exactly kw_nearest over every rank's
 * points concatenated. k must be the same on every rank; n may be 0. Bad arguments on any rank
 * fail every rank alike, and nothing is written. The index must be a valid handle on every
 * rank (a NULL one fails only the rank that passes it). */
kw_status kw_distributed_index_nearest(const kw_distributed_index* index, const void* queries, int64_t n,
                                       int64_t k, int64_t* indices, void* distances);

/** For the Fortran module kernwerk_mpi: kw_distributed_index_create on host arrays with a
 * Fortran communicator (MPI_Comm_f2c). */
kw_status kw_distributed_index_create_fortran(kw_type type, int64_t dimension, const void* points, int64_t m,
                                              const kw_within_options* options, int layout, MPI_Fint comm,
                                              kw_distributed_index** index);

/** For the Fortran module kernwerk_mpi: kw_distributed_index_nearest with the queries' kind and
 * the array shapes, checked on every rank alike. */
kw_status kw_distributed_index_nearest_fortran(const kw_distributed_index* index, kw_type type,
                                               int64_t dimension, const void* queries, int64_t n, int64_t k,
                                               int64_t index_columns, int64_t* indices, int64_t distance_rows,
                                               int64_t distance_columns, void* distances);

/** Points indexed on all ranks (0 for NULL). */
int64_t kw_distributed_index_size(const kw_distributed_index* index);

/** The layout the index holds (KW_INDEX_LAYOUT_AUTO for NULL). */
kw_index_layout kw_distributed_index_layout(const kw_distributed_index* index);

/** Frees the index (NULL is fine). Not collective. */
kw_status kw_distributed_index_destroy(kw_distributed_index* index);

#ifdef __cplusplus
}
#endif

#endif
