/* Diffusion from C: a hot spot in a 64 x 48 grid, 100 steps, checked against the stencil
 * computed here; then a bad coefficient, rejected with the field left as it was. */
#include <kernwerk.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { rows = 64, columns = 48, steps = 100 };

static void step(const float* from, float* to) {
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < columns; ++j) {
      float v = 4 * from[i * columns + j];
      if (i > 0) v -= from[(i - 1) * columns + j];
      if (j > 0) v -= from[i * columns + j - 1];
      if (i + 1 < rows) v -= from[(i + 1) * columns + j];
      if (j + 1 < columns) v -= from[i * columns + j + 1];
      to[i * columns + j] = from[i * columns + j] - 0.25f * v;
    }
}

int main(void) {
  static float field[rows * columns], a[rows * columns], b[rows * columns];
  field[20 * columns + 30] = 100.0f;
  memcpy(a, field, sizeof field);
  for (int s = 0; s < steps; s += 2) {
    step(a, b);
    step(b, a);
  }
  if (kw_initialize() != KW_SUCCESS) return fprintf(stderr, "%s\n", kw_last_error()), 1;
  kw_status status = kw_diffuse(KW_FLOAT32, KW_MEMORY_HOST, field, rows, columns, columns, steps,
                                0.25, NULL, 0);
  if (status != KW_SUCCESS) return fprintf(stderr, "kw_diffuse: %s\n", kw_last_error()), 1;
  double worst = 0;
  for (int k = 0; k < rows * columns; ++k) worst = fmax(worst, fabs(field[k] - a[k]));
  float before = field[20 * columns + 30];
  status = kw_diffuse(KW_FLOAT32, KW_MEMORY_HOST, field, rows, columns, columns, steps, 0.5, NULL, 0);
  printf("diffuse from C: largest difference from the stencil %.3g; coeff 0.5 gives '%s'\n", worst,
         kw_last_error());
  kw_finalize();
  return worst < 1e-4 && status == KW_INVALID_ARGUMENT && field[20 * columns + 30] == before ? 0 : 1;
}
