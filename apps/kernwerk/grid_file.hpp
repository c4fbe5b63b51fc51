#pragma once
// Grids of the diffuse command: .npy or raw little-endian float32/float64 in, raw float32 out, and 8-bit
// grayscale PNG out (libpng). Outputs are written as output_file.hpp says: a regular file whole
// or not at all, a device, FIFO or standard output in place.
#include <cstddef>
#include <string>
#include <vector>

#include "output_file.hpp"

namespace kernwerk::cli {

// The values, row-major, of a 2-D float32/float64 .npy array (either order; its shape sets rows
// and columns, which when not 0 must match it), or of a raw .f32 or .f64 file of exactly rows x
// columns values.
std::vector<double> read_grid(const std::string& path, std::size_t& rows, std::size_t& columns);

// Raw float32, row-major, into `outputs`.
void write_grid_f32(output_set& outputs, const std::string& path, const std::vector<float>& values);

// Grayscale PNG, the range [low, high] mapped linearly onto 0..255 (a flat grid is mid-gray),
// into `outputs`.
void write_grid_png(output_set& outputs, const std::string& path, const std::vector<float>& values, std::size_t rows,
                    std::size_t columns, float low, float high);

}  // namespace kernwerk::cli
