#include "grid_file.hpp"

#include <png.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

#include "kernwerk/error.hpp"
#include "output_file.hpp"

namespace kernwerk::cli {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw error(path + ": " + problem);
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::vector<double> read_grid(const std::string& path, std::size_t rows, std::size_t columns) {
  const bool single = ends_with(path, ".f32");
  if (!single && !ends_with(path, ".f64")) fail(path, "grid files are raw .f32 or .f64");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) fail(path, std::string("cannot read: ") + std::strerror(errno));
  const std::size_t size = single ? sizeof(float) : sizeof(double);
  const auto bytes = static_cast<std::size_t>(in.tellg());
  if (bytes != rows * columns * size)
    fail(path, std::to_string(bytes) + " bytes, but " + std::to_string(rows) + " x " +
                   std::to_string(columns) + " values of " + std::to_string(size) + " bytes need " +
                   std::to_string(rows * columns * size));
  in.seekg(0);
  std::vector<double> values(rows * columns);
  if (single) {
    std::vector<float> raw(values.size());
    in.read(reinterpret_cast<char*>(raw.data()), std::streamsize(bytes));
    for (std::size_t k = 0; k < raw.size(); ++k) values[k] = raw[k];
  } else {
    in.read(reinterpret_cast<char*>(values.data()), std::streamsize(bytes));
  }
  if (!in) fail(path, "read error");
  for (std::size_t k = 0; k < values.size(); ++k)
    if (!std::isfinite(values[k]))
      fail(path, "value " + std::to_string(k) + " (row " + std::to_string(k / columns) +
                     ", column " + std::to_string(k % columns) + ") is not finite");
  return values;
}

void write_grid_f32(const std::string& path, const std::vector<float>& values) {
  write_output(path, [&](std::FILE* out) {
    write_bytes(out, values.data(), values.size() * sizeof(float), path);
  });
}

void write_grid_png(const std::string& path, const std::vector<float>& values, std::size_t rows,
                    std::size_t columns, float low, float high) {
  if (rows == 0 || columns == 0 || rows > 0x7fffffff || columns > 0x7fffffff)
    fail(path, "a PNG needs 1 to 2^31 - 1 rows and columns");
  write_output(path, [&](std::FILE* file) {
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
