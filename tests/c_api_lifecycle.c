/* The C interface before kw_initialize and after kw_finalize: KW_NOT_INITIALIZED, a message,
 * outputs untouched; in between, a call works. (A process of its own: Kokkos initialises once.) */
#include <kernwerk.h>

#include <stdio.h>
#include <string.h>

static int failures = 0;
static void expect(int condition, const char* what) {
  if (!condition) {
    fprintf(stderr, "FAILED: %s (last error: %s)\n", what, kw_last_error());
    ++failures;
  }
}

int main(void) {
  const double x[3] = {1.0, 2.0, 3.5};
  double result = -1.0;
  expect(kw_is_initialized() == 0, "not initialised at start");
  expect(kw_sum(KW_FLOAT64, KW_MEMORY_HOST, 3, x, 1, &result) == KW_NOT_INITIALIZED, "sum before kw_initialize");
  expect(strstr(kw_last_error(), "kw_initialize") != NULL, "the message says what to call");
  expect(result == -1.0, "result untouched");
  expect(kw_initialize() == KW_SUCCESS, "kw_initialize");
  expect(kw_initialize() == KW_SUCCESS, "kw_initialize twice");
  expect(kw_sum(KW_FLOAT64, KW_MEMORY_HOST, 3, x, 1, &result) == KW_SUCCESS && result == 6.5, "sum");
  expect(kw_finalize() == KW_SUCCESS, "kw_finalize");
  result = -1.0;
  expect(kw_sum(KW_FLOAT64, KW_MEMORY_HOST, 3, x, 1, &result) == KW_NOT_INITIALIZED, "sum after kw_finalize");
  expect(result == -1.0, "result untouched after finalize");
  printf("c_api_lifecycle: %d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
