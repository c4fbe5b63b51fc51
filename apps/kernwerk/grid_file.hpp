#pragma once
// Grids of the diffuse command: raw little-endian float32/float64 in and out, and 8-bit
// grayscale PNG out (libpng). Outputs are written as output_file.hpp says: a regular file whole
// or not at all, a device, FIFO or standard output in place.
#include <cstddef>
#include <string>
#include <vector>

namespace kernwerk::cli {

// rows x columns values, row-major, from a .f32 or .f64 file of exactly that size.
std::vector<double> read_grid(const std::string& path, std::size_t rows, std::size_t columns);

// Raw float32, row-major.
void write_grid_f32(const std::string& path, const std::vector<float>& values);

// Grayscale PNG, the range [low, high] mapped linearly onto 0..255 (a flat grid is mid-gray).
void write_grid_png(const std::string& path, const std::vector<float>& values, std::size_t rows,
                    std::size_t columns, float low, float high);

}  // namespace kernwerk::cli
