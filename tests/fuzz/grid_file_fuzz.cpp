// Fuzz target: the grids of `kernwerk diffuse` (grid_file.hpp) and the arrays of `qr` and `fft`
// (array_file.hpp): .npy files and raw ones with a given shape. The first byte picks the file's
// name, the next two the rows and columns given (0: none); the rest is the file. Bad files must
// be a kernwerk::error naming the file; a grid that is read must be finite and of the shape
// reported.
#include <cmath>
#include <cstdint>

#include "array_file.hpp"
#include "fuzz_files.hpp"
#include "grid_file.hpp"
#include "kernwerk/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kernwerk;
  if (size < 3) return 0;
  static const char* const names[] = {"grid.npy", "grid.f32", "grid.f64", "grid.c64", "grid.c128", "grid.bin"};
  const std::string path = fuzz::write_input(names[data[0] % 6], data + 3, size - 3);
  const std::size_t given_rows = data[1], given_columns = data[2];
  try {
    std::size_t rows = given_rows, columns = given_columns;
    const std::vector<double> grid = cli::read_grid(path, rows, columns);
    std::size_t values = 0;
    KERNWERK_FUZZ_REQUIRE(!__builtin_mul_overflow(rows, columns, &values));
    KERNWERK_FUZZ_REQUIRE(rows > 0 && columns > 0 && grid.size() == values);
    KERNWERK_FUZZ_REQUIRE(given_rows == 0 || rows == given_rows);
    KERNWERK_FUZZ_REQUIRE(given_columns == 0 || columns == given_columns);
    for (const double v : grid) KERNWERK_FUZZ_REQUIRE(std::isfinite(v));
  } catch (const error& bad) {
    KERNWERK_FUZZ_REQUIRE(std::string(bad.what()).find("grid.") != std::string::npos);
  }
  std::vector<std::size_t> shape;
  if (given_rows) shape.push_back(given_rows);
  if (given_columns) shape.push_back(given_columns);
  if (data[0] % 6 == 0) shape.clear();  // a .npy file has its own
  try {
    const cli::dense_array array = cli::read_array(path, "--in", shape);
    KERNWERK_FUZZ_REQUIRE(!array.shape.empty() && array.shape.size() <= 2);
    std::size_t values = 1;
    for (const auto extent : array.shape) KERNWERK_FUZZ_REQUIRE(!__builtin_mul_overflow(values, extent, &values));
    KERNWERK_FUZZ_REQUIRE(array.bytes.size() == values * array.value_size());
  } catch (const error& bad) {
    KERNWERK_FUZZ_REQUIRE(std::string(bad.what()).find("--in: ") == 0);
  }
  return 0;
}
