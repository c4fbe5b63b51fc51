/* The same known answer as main.cpp, through the C interface. */
#include <kernwerk.h>

#include <stdio.h>

int main(void) {
  const double references[6] = {0.0, 0.0, 0.1, 0.25, -0.5, 3.1};
  const double observations[4] = {0.1, 0.2, -0.5, 3.05};
  int64_t index[2] = {-1, -1};
  double distance[2];
  if (kw_initialize() != KW_SUCCESS) return 1;
  const kw_status status = kw_nearest(KW_FLOAT64, KW_MEMORY_HOST, 2, observations, 2, references, 3, 1,
                                      index, distance, NULL);
  printf("consumer (C): %s, neighbours %ld %ld\n", kw_status_message(status), (long)index[0], (long)index[1]);
  kw_finalize();
  return status == KW_SUCCESS && index[0] == 1 && index[1] == 2 ? 0 : 1;
}
