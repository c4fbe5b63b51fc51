#include "grid_file.hpp"

#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "array_file.hpp"
#include "kernwerk/error.hpp"
#include "npy_file.hpp"
#include "output_file.hpp"

namespace kernwerk::cli {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw error(path + ": " + problem);
}

}  // namespace

std::vector<double> read_grid(const std::string& path, std::size_t& rows, std::size_t& columns) {
  const bool shaped = named_npy(path);
  if (!shaped && (rows == 0 || columns == 0)) fail(path, "a raw grid needs --rows and --columns");
  const dense_array grid = read_array(path, "--in", shaped ? std::vector<std::size_t>{}
                                                           : std::vector<std::size_t>{rows, columns});
  if (grid.complex || grid.shape.size() != 2) fail(path, "a grid is a 2-D float32 or float64 array");
  if ((rows && rows != grid.shape[0]) || (columns && columns != grid.shape[1])) {
    const std::string given = (rows ? "--rows " + std::to_string(rows) : "") + (rows && columns ? " " : "") +
                              (columns ? "--columns " + std::to_string(columns) : "");
    fail(path, "shape " + grid.shape_text() + " does not match " + given);
  }
  rows = grid.shape[0], columns = grid.shape[1];
  if (rows == 0 || columns == 0) fail(path, "an empty grid");
  std::vector<double> values(rows * columns);
  for (std::size_t k = 0; k < values.size(); ++k) {
    values[k] = grid.single ? double(grid.data<float>()[k]) : grid.data<double>()[k];
    if (!std::isfinite(values[k]))
      fail(path, "value " + std::to_string(k) + " (row " + std::to_string(k / columns) +
                     ", column " + std::to_string(k % columns) + ") is not finite");
  }
  return values;
}

void write_grid_f32(output_set& outputs, const std::string& path, const std::vector<float>& values) {
  outputs.write(path, [&](std::FILE* out) {
    write_bytes(out, values.data(), values.size() * sizeof(float), path);
  });
}

void write_grid_png(output_set& outputs, const std::string& path, const std::vector<float>& values, std::size_t rows,
                    std::size_t columns, float low, float high) {
  if (rows == 0 || columns == 0 || rows > 0x7fffffff || columns > 0x7fffffff)
    fail(path, "a PNG needs 1 to 2^31 - 1 rows and columns");
  outputs.write(path, [&](std::FILE* file) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info) {
      png_destroy_write_struct(&png, nullptr);
      fail(path, "libpng could not start");
    }
    std::vector<png_byte> row(columns);
    const float scale = high > low ? 255.0f / (high - low) : 0.0f;
    if (setjmp(png_jmpbuf(png))) {  // libpng reports its errors by longjmp
      png_destroy_write_struct(&png, &info);
      fail(path, "libpng write error");
    }
    png_init_io(png, file);
    png_set_IHDR(png, info, png_uint_32(columns), png_uint_32(rows), 8, PNG_COLOR_TYPE_GRAY,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (std::size_t i = 0; i < rows; ++i) {
      for (std::size_t j = 0; j < columns; ++j) {
        const float v = high > low ? (values[i * columns + j] - low) * scale : 127.5f;
        row[j] = png_byte(std::lround(std::fmin(255.0f, std::fmax(0.0f, v))));
      }
      png_write_row(png, row.data());
    }
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
  });
}

}  // namespace kernwerk::cli
