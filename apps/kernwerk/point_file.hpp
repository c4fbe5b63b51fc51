#pragma once
// Point files of the command-line tool.
//   CSV: one point per line, comma-separated; a first line that is not numeric is a header;
//        blank lines are skipped.
//   Raw binary (name ends in .f32 or .f64): little-endian values, point after point.
//   NumPy (name ends in .npy): a float32 or float64 array of shape (n, 2) or (n, 3), either
//        order (npy_file.hpp).
//   "-": standard input, read whole: .npy bytes (told by their magic) or CSV text.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernwerk/index_options.hpp"

namespace kernwerk::cli {

// Values of one file (or of a share of its points), row-major: point i is
// values[i * dimension + d], the file's point first + i. Binary .f32 files keep their float32
// values (the library reads float and double alike); everything else is double.
struct point_set {
  std::vector<double> f64;
  std::vector<float> f32;
  bool single_precision = false;
  std::size_t count = 0;  // points held
  std::size_t dimension = 0;
  std::size_t first = 0;  // the file's index of the first point held
  std::size_t total = 0;  // points in the file
  std::string name;       // of the file, as errors name it
  std::vector<std::size_t> lines;  // CSV: the line of each point held (binary files: none)
};

// Binary files (.f32, .f64, .npy), of which each MPI rank can read its own share.
bool is_binary_point_file(const std::string& path);

// The first of the `count` points that share `part` of `parts` holds: an even split.
std::size_t share_first(std::size_t count, int part, int parts);

// Reads `path` with `dimension` coordinates per point; of a binary file, only share `part` of
// `parts` (points total * part / parts up to the next share's first), checked alike. Errors (a
// kernwerk::error) name the file and, for CSV, the line, for binary files the point: missing or
// unreadable file, malformed number, non-finite value, wrong column count, a binary size that is
// not a whole number of points, no points at all.
point_set read_points(const std::string& path, std::size_t dimension, int part = 0, int parts = 1);

// Refuses, before any work, a point that the searches on the sphere would refuse (a latitude
// past the poles, a longitude beyond two turns; non-finite values are refused as the file is
// read): the file and its line (CSV) or the point, the rule it breaks, and where radians look
// like degrees, the hint to add --degrees.
void check_sphere_points(const point_set& points, metric_kind metric, angle_unit units);

// The nearest-neighbour result as CSV text, handed to `emit` in pieces: a header line when
// `header` ("index,distance" for k = 1, else index_0,distance_0,...), then one line per
// observation, nearest first. Row-major inputs.
void format_neighbours(const std::vector<std::int64_t>& indices, const std::vector<double>& distances,
                       std::size_t k, bool header,
                       const std::function<void(const char* data, std::size_t bytes)>& emit);

// The same as a .npy array of shape (header_rows, k) of the structured dtype
// [('index', '<i8'), ('distance', '<f8')] (numpy.load(...)["index"]): the header when
// header_rows is not 0, then the rows given.
void format_neighbours_npy(const std::vector<std::int64_t>& indices, const std::vector<double>& distances,
                           std::size_t k, std::size_t header_rows,
                           const std::function<void(const char* data, std::size_t bytes)>& emit);

}  // namespace kernwerk::cli
