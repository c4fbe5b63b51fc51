/* Nearest neighbours from C: 1000 random observations against 200 references on the sphere,
 * in degrees, on host memory; every answer checked against a plain loop. */
#include <kernwerk.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double haversine(const double* a, const double* b) {
  const double to_radians = 3.14159265358979323846 / 180.0;
  const double s1 = sin((b[0] - a[0]) * to_radians / 2), s2 = sin((b[1] - a[1]) * to_radians / 2);
  return s1 * s1 + cos(a[0] * to_radians) * cos(b[0] * to_radians) * s2 * s2;
}

int main(void) {
  enum { n = 1000, m = 200 };
  static double observations[2 * n], references[2 * m], distances[n];
  static int64_t indices[n];
  srand(7);
  for (int i = 0; i < 2 * n; i += 2) {
    observations[i] = 180.0 * rand() / RAND_MAX - 90.0;
    observations[i + 1] = 360.0 * rand() / RAND_MAX - 180.0;
  }
  for (int i = 0; i < 2 * m; i += 2) {
    references[i] = 180.0 * rand() / RAND_MAX - 90.0;
    references[i + 1] = 360.0 * rand() / RAND_MAX - 180.0;
  }
  if (kw_initialize() != KW_SUCCESS) return fprintf(stderr, "%s\n", kw_last_error()), 1;
  kw_nearest_options options;
  kw_nearest_options_default(&options);
  options.degrees = 1;
  options.radius = 6371.0; /* kilometres */
  kw_status status = kw_nearest(KW_FLOAT64, KW_MEMORY_HOST, 2, observations, n, references, m, 1,
                                indices, distances, &options);
  if (status != KW_SUCCESS) {
    fprintf(stderr, "kw_nearest: %s: %s\n", kw_status_message(status), kw_last_error());
    return 1;
  }
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    double best = 1e300;
    for (int j = 0; j < m; ++j) {
      const double h = haversine(observations + 2 * i, references + 2 * j);
      if (h < best) best = h;
    }
    /* (a relative tolerance: the compiler may evaluate haversine a last bit differently) */
    wrong += haversine(observations + 2 * i, references + 2 * indices[i]) > best * (1 + 1e-12);
  }
  /* A bad call: the status and the message name the argument; nothing is written. */
  status = kw_nearest(KW_FLOAT64, KW_MEMORY_HOST, 2, NULL, n, references, m, 1, indices, distances, &options);
  printf("nearest from C: %d of %d wrong; a NULL observations pointer gives '%s' (%s)\n", wrong, n,
         kw_status_message(status), kw_last_error());
  kw_finalize();
  return wrong == 0 && status == KW_INVALID_ARGUMENT ? 0 : 1;
}
