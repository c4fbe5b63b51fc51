#include "grid_file.hpp"

#include <png.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

#include "kernwerk/error.hpp"
#include "npy_file.hpp"
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

namespace {

// `count` values of T from `in` into doubles.
template <class T>
void read_values(std::istream& in, std::vector<double>& values) {
  std::vector<T> raw(values.size());
  in.read(reinterpret_cast<char*>(raw.data()), std::streamsize(raw.size() * sizeof(T)));
  std::copy(raw.begin(), raw.end(), values.begin());
}

}  // namespace

std::vector<double> read_grid(const std::string& path, std::size_t& rows, std::size_t& columns) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) fail(path, std::string("cannot read: ") + std::strerror(errno));
  const auto bytes = static_cast<std::size_t>(in.tellg());
  in.seekg(0);
  std::size_t size = 0, offset = 0;
  bool transposed = false;
  if (named_npy(path)) {
    const npy_header header = read_npy_header(in, path);
    if (header.shape.size() != 2 || header.kind != 'f' || (header.item_size != 4 && header.item_size != 8))
      fail(path, "a grid is a 2-D float32 or float64 .npy array");
    if ((rows && rows != header.shape[0]) || (columns && columns != header.shape[1])) {
      const std::string given = (rows ? "--rows " + std::to_string(rows) : "") + (rows && columns ? " " : "") +
                                (columns ? "--columns " + std::to_string(columns) : "");
      fail(path, "shape " + header.shape_text() + " does not match " + given);
    }
    rows = header.shape[0], columns = header.shape[1];
    size = header.item_size, offset = header.data_offset, transposed = header.fortran_order;
  } else if (ends_with(path, ".f32") || ends_with(path, ".f64")) {
    if (rows == 0 || columns == 0) fail(path, "a raw grid needs --rows and --columns");
    size = ends_with(path, ".f32") ? sizeof(float) : sizeof(double);
  } else {
    fail(path, "grid files are .npy, or raw .f32 or .f64");
  }
  if (rows == 0 || columns == 0) fail(path, "an empty grid");
  if (columns > (bytes - offset) / size / rows || (offset == 0 && bytes != rows * columns * size))
    fail(path, std::to_string(bytes - offset) + " bytes of values, but " + std::to_string(rows) + " x " +
                   std::to_string(columns) + " values of " + std::to_string(size) + " bytes need " +
                   std::to_string(rows * columns * size));
  in.seekg(std::streamoff(offset));
  std::vector<double> values(rows * columns);
  if (size == sizeof(float)) read_values<float>(in, values);
  else read_values<double>(in, values);
  if (!in) fail(path, "read error");
  if (transposed) {  // column-major: value (r, c) at c * rows + r
    std::vector<double> row_major(values.size());
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < columns; ++c) row_major[r * columns + c] = values[c * rows + r];
    values.swap(row_major);
  }
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
