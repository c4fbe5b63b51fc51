#pragma once
// Point files of the command-line tool.
//   CSV: one point per line, comma-separated; a first line that is not numeric is a header;
//        blank lines are skipped.
//   Raw binary (name ends in .f32 or .f64): little-endian values, point after point.
#include <cstdint>
#include <string>
#include <vector>

namespace kernwerk::cli {

// Values of one file, row-major: point i is values[i * dimension + d]. Binary .f32 files keep
// their float32 values (the library reads float and double alike); everything else is double.
struct point_set {
  std::vector<double> f64;
  std::vector<float> f32;
  bool single_precision = false;
  std::size_t count = 0;
  std::size_t dimension = 0;
};

// Reads `path` with `dimension` coordinates per point. Errors (a kernwerk::error) name the
// file and, for CSV, the line: missing or unreadable file, malformed number, non-finite value,
// wrong column count, a binary size that is not a whole number of points.
point_set read_points(const std::string& path, std::size_t dimension);

// Writes the nearest-neighbour result as CSV (see output_file.hpp: a regular file is replaced
// whole or not at all). One line per observation: "index,distance" for k = 1,
// else index_0,distance_0,...,index_{k-1},distance_{k-1}, nearest first. Row-major inputs.
void write_neighbours(const std::string& path, const std::vector<std::int64_t>& indices,
                      const std::vector<double>& distances, std::size_t k);

}  // namespace kernwerk::cli
