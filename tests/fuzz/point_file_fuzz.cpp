// Fuzz target: the command-line tool's point files (apps/kernwerk/point_file.hpp): CSV, raw
// .f32/.f64 and .npy, whole or as an MPI rank's share. The first byte picks the format, the
// dimension and the share (of a binary file; CSV is read whole); the rest is the file. Bad files
// must be a kernwerk::error naming the file; a file that is read must give finite values, as
// many as its point count says, and the share asked for.
#include <cmath>
#include <cstdint>

#include "fuzz_files.hpp"
#include "kernwerk/error.hpp"
#include "point_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kernwerk;
  if (size == 0) return 0;
  const unsigned choice = data[0];
  static const char* const names[] = {"points.csv", "points.f32", "points.f64", "points.npy"};
  const std::string path = fuzz::write_input(names[choice & 3], data + 1, size - 1);
  const std::size_t dimension = (choice >> 2) & 1 ? 3 : 2;
  const int parts = 1 + int((choice >> 3) & 3), part = int(choice >> 5) % parts;
  try {
    const cli::point_set points = cli::read_points(path, dimension, part, parts);
    KERNWERK_FUZZ_REQUIRE(points.dimension == dimension);
    KERNWERK_FUZZ_REQUIRE(points.total > 0 && points.first + points.count <= points.total);
    const bool binary = (choice & 3) != 0;  // a CSV file is read whole, whatever the share
    KERNWERK_FUZZ_REQUIRE(points.first == (binary ? cli::share_first(points.total, part, parts) : 0));
    KERNWERK_FUZZ_REQUIRE(points.count == (binary ? cli::share_first(points.total, part + 1, parts) - points.first
                                                  : points.total));
    const std::size_t values = points.single_precision ? points.f32.size() : points.f64.size();
    KERNWERK_FUZZ_REQUIRE(values == points.count * dimension);
    for (std::size_t k = 0; k < values; ++k)
      KERNWERK_FUZZ_REQUIRE(std::isfinite(points.single_precision ? double(points.f32[k]) : points.f64[k]));
  } catch (const error& bad) {
    KERNWERK_FUZZ_REQUIRE(std::string(bad.what()).find("points.") != std::string::npos);  // names the file
  }
  return 0;
}
