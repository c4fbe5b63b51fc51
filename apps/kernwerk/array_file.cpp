#include "array_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "kernwerk/error.hpp"
#include "npy_file.hpp"
#include "output_file.hpp"

namespace kernwerk::cli {

namespace {

[[noreturn]] void fail(const std::string& option, const std::string& path, const std::string& problem) {
  throw error(option + ": " + path + ": " + problem);
}

// The raw suffixes and the types they name: {suffix, complex, single}.
struct raw_type {
  const char* suffix;
  bool complex, single;
};
constexpr raw_type raw_types[] = {
    {".f32", false, true}, {".f64", false, false}, {".c64", true, true}, {".c128", true, false}};

std::string npy_descr(const dense_array& a) {
  return std::string("'<") + (a.complex ? 'c' : 'f') + std::to_string(a.value_size()) + "'";
}

}  // namespace

std::size_t dense_array::count() const {
  std::size_t n = 1;
  for (const auto e : shape) n *= e;
  return n;
}

std::size_t dense_array::value_size() const { return (single ? 4 : 8) * (complex ? 2 : 1); }

std::string dense_array::type_name() const {
  return std::string(complex ? "complex" : "float") + std::to_string(8 * value_size());
}

std::string dense_array::shape_text() const {
  npy_header h;
  h.shape = shape;
  return h.shape_text();
}

std::vector<std::size_t> parse_shape(const std::string& text, const std::string& option) {
  std::vector<std::size_t> shape;
  std::size_t start = 0;
  while (true) {
    const auto x = text.find('x', start);
    const std::string part = text.substr(start, x == std::string::npos ? std::string::npos : x - start);
    std::size_t used = 0;
    long long value = 0;
    try {
      value = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (part.empty() || used != part.size() || value < 1)
      throw error(option + ": '" + text + "' is not N or RxC with positive numbers");
    shape.push_back(std::size_t(value));
    if (x == std::string::npos) break;
    start = x + 1;
  }
  if (shape.size() > 2) throw error(option + ": '" + text + "' has more than two extents");
  return shape;
}

dense_array read_array(const std::string& path, const std::string& option,
                       const std::vector<std::size_t>& shape) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) fail(option, path, std::string("cannot read: ") + std::strerror(errno));
  const auto end = in.tellg();
  if (end < 0) fail(option, path, "is not a file whose size can be read (a pipe?)");
  const auto bytes = static_cast<std::size_t>(end);
  in.seekg(0);
  dense_array a;
  std::size_t offset = 0;
  bool column_major = false;
  if (named_npy(path)) {
    if (!shape.empty()) fail(option, path, "a .npy file has its shape; --shape is for raw files");
    const npy_header header = read_npy_header(in, option + ": " + path);
    const bool real = header.kind == 'f' && (header.item_size == 4 || header.item_size == 8);
    const bool complex = header.kind == 'c' && (header.item_size == 8 || header.item_size == 16);
    if (!real && !complex)
      fail(option, path, "holds values that are not float32, float64, complex64 or complex128");
    if (header.shape.empty() || header.shape.size() > 2)
      fail(option, path, "shape " + header.shape_text() + " is not of one or two extents");
    a.complex = complex;
    a.single = header.item_size == (complex ? 8u : 4u);
    a.shape = header.shape;
    offset = header.data_offset;
    column_major = header.fortran_order && a.shape.size() == 2;
  } else {
    const raw_type* type = nullptr;
    for (const auto& t : raw_types)
      if (ends_with(path, t.suffix)) type = &t;
    if (!type) fail(option, path, "array files are .npy, or raw .f32, .f64, .c64 or .c128");
    if (shape.empty()) fail(option, path, "a raw file needs its shape (--shape N or RxC)");
    a.complex = type->complex;
    a.single = type->single;
    a.shape = shape;
  }
  std::size_t need = a.value_size();
  for (const auto extent : a.shape)
    if (__builtin_mul_overflow(need, extent, &need))
      fail(option, path, "shape " + a.shape_text() + " holds more values than any file can");
  if (bytes < offset || bytes - offset != need)
    fail(option, path, std::to_string(bytes - std::min(bytes, offset)) + " bytes of values, but " +
                           a.type_name() + " of shape " + a.shape_text() + " needs " + std::to_string(need));
  a.bytes.resize(need);
  in.seekg(std::streamoff(offset));
  if (!in.read(a.bytes.data(), std::streamsize(need))) fail(option, path, "read error");
  if (column_major && need > 0) {  // value (r, c) at c * rows + r: make it row-major
    const std::size_t rows = a.shape[0], columns = a.shape[1], size = a.value_size();
    std::vector<char> row_major(need);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < columns; ++c)
        std::memcpy(&row_major[(r * columns + c) * size], &a.bytes[(c * rows + r) * size], size);
    a.bytes.swap(row_major);
  }
  return a;
}

void write_array(output_set& outputs, const std::string& path, const std::string& option, const dense_array& array) {
  bool raw = false;
  for (const auto& t : raw_types)
    if (ends_with(path, t.suffix)) {
      if (t.complex != array.complex || t.single != array.single)
        fail(option, path, std::string("the output is ") + array.type_name() + ", which a " + t.suffix +
                               " file does not hold (name it .npy, or by its type)");
      raw = true;
    }
  outputs.write(path, [&](std::FILE* out) {
    if (!raw) {
      const std::string header = npy_header_bytes(npy_descr(array), array.shape);
      write_bytes(out, header.data(), header.size(), path);
    }
    write_bytes(out, array.bytes.data(), array.bytes.size(), path);
  });
}

}  // namespace kernwerk::cli
