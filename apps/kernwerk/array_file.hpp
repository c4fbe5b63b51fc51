#pragma once
// Dense arrays of the qr and fft commands: rank-1 or rank-2 float32, float64, complex64 or
// complex128 values, read from a .npy file (either order) or a raw little-endian one named by
// its type (.f32, .f64, .c64, .c128: interleaved real and imaginary parts) with its shape given,
// and written the same ways. Outputs are written as output_file.hpp says.
#include <cstddef>
#include <string>
#include <vector>

#include "output_file.hpp"

namespace kernwerk::cli {

struct dense_array {
  bool complex = false;           // complex64/complex128 rather than float32/float64
  bool single = false;            // float32/complex64
  std::vector<std::size_t> shape;  // one or two extents
  std::vector<char> bytes;        // the values, row-major

  std::size_t count() const;       // values
  std::size_t value_size() const;  // bytes of one value
  std::string type_name() const;   // "float64", "complex64", ...
  std::string shape_text() const;  // "(m, n)"
  template <class T>
  T* data() { return reinterpret_cast<T*>(bytes.data()); }
  template <class T>
  const T* data() const { return reinterpret_cast<const T*>(bytes.data()); }
};

// "N" or "RxC" (--shape of raw inputs); `option` names it in errors.
std::vector<std::size_t> parse_shape(const std::string& text, const std::string& option);

// The array in `path`: .npy (shape, type and order from its header; `shape` must be empty), or
// raw by its suffix with `shape` giving its extents. Errors name `option` and the path.
dense_array read_array(const std::string& path, const std::string& option,
                       const std::vector<std::size_t>& shape);

// Writes the array to `path` in `outputs`: raw when the name ends in its type's suffix,
// otherwise .npy.
void write_array(output_set& outputs, const std::string& path, const std::string& option, const dense_array& array);

}  // namespace kernwerk::cli
