/* kw_nearest_mpi and kw_distributed_index against kw_nearest on the concatenated sets, run under
 * mpiexec: every strategy and layout, an empty share, and a bad pointer on the last rank failing
 * every rank alike. */
#include <kernwerk_mpi.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static void check(int ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "FAILED: %s\n", what);
    ++failures;
  }
}

/* Area-uniform (lat, lon) rows from a fixed sequence: the same global sets on every rank. */
static void points(double* rows, int64_t count, uint64_t seed) {
  for (int64_t i = 0; i < count; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const double u = (double)(seed >> 11) / 9007199254740992.0;
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const double v = (double)(seed >> 11) / 9007199254740992.0;
    rows[2 * i] = asin(2 * u - 1);
    rows[2 * i + 1] = M_PI * (2 * v - 1);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check(kw_initialize_mpi(MPI_COMM_WORLD) == KW_SUCCESS, "kw_initialize_mpi");
  check(kw_is_initialized(), "Kokkos initialised");
  check(kw_initialize_mpi(MPI_COMM_WORLD) == KW_SUCCESS, "kw_initialize_mpi again: nothing to do");
  enum { N = 300, M = 200, K = 3 };
  static double obs[2 * N], ref[2 * M], dist[N * K], want_dist[N * K];
  static int64_t idx[N * K], want_idx[N * K];
  points(obs, N, 1);
  points(ref, M, 2);
  for (int i = 0; i < 10; ++i) memcpy(&ref[2 * (M - 1 - i)], &ref[2 * i], 2 * sizeof(double)); /* duplicates */
  /* Observations: rank 0 has none when there are several ranks; references: even shares. */
  const int64_t o0 = size == 1 ? 0 : (int64_t)N * (rank == 0 ? 0 : rank - 1) / (size - 1);
  const int64_t o1 = size == 1 ? N : (int64_t)N * (rank == 0 ? 0 : rank) / (size - 1);
  const int64_t r0 = (int64_t)M * rank / size, r1 = (int64_t)M * (rank + 1) / size;
  const int64_t n = o1 - o0, m = r1 - r0;
  if (n > 0)
    check(kw_nearest(KW_FLOAT64, KW_MEMORY_HOST, 2, obs + 2 * o0, n, ref, M, K, want_idx, want_dist, NULL) ==
              KW_SUCCESS,
          "kw_nearest on the whole references");
  for (int strategy = KW_STRATEGY_AUTO; strategy <= KW_STRATEGY_RING; ++strategy) {
    memset(idx, 0xff, sizeof idx);
    const kw_status status = kw_nearest_mpi(KW_FLOAT64, KW_MEMORY_HOST, 2, obs + 2 * o0, n, ref + 2 * r0, m, K,
                                            idx, dist, NULL, (kw_strategy)strategy, MPI_COMM_WORLD);
    check(status == KW_SUCCESS, kw_last_error());
    check(memcmp(idx, want_idx, n * K * sizeof(int64_t)) == 0, "indices as kw_nearest's");
    check(memcmp(dist, want_dist, n * K * sizeof(double)) == 0, "distances as kw_nearest's");
  }
  /* The last rank passes no references although it says it has some. */
  memset(idx, 0xff, sizeof idx);
  const kw_status status = kw_nearest_mpi(KW_FLOAT64, KW_MEMORY_HOST, 2, obs + 2 * o0, n,
                                          rank == size - 1 ? NULL : ref + 2 * r0, m, K, idx, dist, NULL,
                                          KW_STRATEGY_AUTO, MPI_COMM_WORLD);
  char expected[128];
  snprintf(expected, sizeof expected, "kw_nearest_mpi: references: rank %d: is NULL", size - 1);
  check(status == KW_INVALID_ARGUMENT, "a NULL pointer on the last rank fails every rank");
  check(strstr(kw_last_error(), expected) != NULL, kw_last_error());
  int untouched = 1;
  for (int i = 0; i < N * K; ++i) untouched = untouched && idx[i] == -1;
  check(untouched, "no output written");

  /* The distributed index, built once in each layout and queried twice. */
  for (int layout = KW_INDEX_LAYOUT_AUTO; layout <= KW_INDEX_LAYOUT_PARTITIONED; ++layout) {
    kw_distributed_index* index = NULL;
    check(kw_distributed_index_create(KW_FLOAT64, KW_MEMORY_HOST, 2, ref + 2 * r0, m, NULL, (kw_index_layout)layout,
                                      MPI_COMM_WORLD, &index) == KW_SUCCESS,
          kw_last_error());
    check(kw_distributed_index_size(index) == M, "kw_distributed_index_size");
    check(layout == KW_INDEX_LAYOUT_AUTO ? kw_distributed_index_layout(index) != KW_INDEX_LAYOUT_AUTO
                                         : kw_distributed_index_layout(index) == layout,
          "kw_distributed_index_layout");
    for (int again = 0; again < 2; ++again) {
      memset(idx, 0xff, sizeof idx);
      check(kw_distributed_index_nearest(index, obs + 2 * o0, n, K, idx, dist) == KW_SUCCESS, kw_last_error());
      check(memcmp(idx, want_idx, n * K * sizeof(int64_t)) == 0, "index: indices as kw_nearest's");
      check(memcmp(dist, want_dist, n * K * sizeof(double)) == 0, "index: distances as kw_nearest's");
    }
    /* A NULL output on the last rank fails every rank, and nothing is written. */
    memset(idx, 0xff, sizeof idx);
    const kw_status bad = kw_distributed_index_nearest(index, obs + 2 * o0, n > 0 ? n : 1, K, idx,
                                                       rank == size - 1 ? NULL : dist);
    snprintf(expected, sizeof expected, "kw_distributed_index_nearest: distances: rank %d: is NULL", size - 1);
    check(bad == KW_INVALID_ARGUMENT, "a NULL output on the last rank fails every rank");
    check(strstr(kw_last_error(), expected) != NULL, kw_last_error());
    untouched = 1;
    for (int i = 0; i < N * K; ++i) untouched = untouched && idx[i] == -1;
    check(untouched, "index: no output written");
    check(kw_distributed_index_destroy(index) == KW_SUCCESS, "kw_distributed_index_destroy");
  }
  /* A bad layout on the last rank fails every rank. */
  kw_distributed_index* none = NULL;
  const kw_status refused = kw_distributed_index_create(KW_FLOAT64, KW_MEMORY_HOST, 2, ref + 2 * r0, m, NULL,
                                                        (kw_index_layout)(rank == size - 1 ? 7 : 0), MPI_COMM_WORLD,
                                                        &none);
  snprintf(expected, sizeof expected, "kw_distributed_index_create: layout: rank %d: is not", size - 1);
  check(refused == KW_INVALID_ARGUMENT && none == NULL, "a bad layout on the last rank fails every rank");
  check(strstr(kw_last_error(), expected) != NULL, kw_last_error());

  check(kw_finalize() == KW_SUCCESS, "kw_finalize");
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("c_api_mpi_test (%d ranks): %d failures\n", size, total);
  MPI_Finalize();
  return total != 0;
}
