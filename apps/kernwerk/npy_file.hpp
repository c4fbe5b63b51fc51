#pragma once
// NumPy's .npy format, as the command-line tool reads and writes it: the magic "\x93NUMPY", a
// version (1.0 to 3.0 read, 1.0 written), the header's length, a Python dict
// {'descr': '<f8', 'fortran_order': False, 'shape': (n, 2), } padded with spaces, then the
// array's bytes.
#include <cstddef>
#include <istream>
#include <string>
#include <vector>

namespace kernwerk::cli {

struct npy_header {
  char kind = 'f';             // the descr's type: 'f' floating, 'i' signed, 'u' unsigned, ...
  std::size_t item_size = 8;   // bytes of one value
  bool fortran_order = false;  // column-major
  std::vector<std::size_t> shape;
  std::size_t data_offset = 0;  // where the values start

  std::string shape_text() const;  // "(n, 2)", for messages
};

// Whether `text` ends in `suffix` (file names: ".f32", ".npy").
bool ends_with(const std::string& text, const std::string& suffix);

// Whether the file is one by its name (*.npy).
bool named_npy(const std::string& path);

// Whether `bytes` (the start of a file) is a .npy file's.
bool starts_like_npy(const std::string& bytes);

// Reads the header from the start of `in`; errors (kernwerk::error) name `name`: not a .npy
// file, an unknown version, a malformed dict, big-endian or structured data.
npy_header read_npy_header(std::istream& in, const std::string& name);

// The bytes before the values of an array with this descr (e.g. "'<f8'" or a structured
// "[('index', '<i8'), ('distance', '<f8')]") and shape, row-major, version 1.0.
std::string npy_header_bytes(const std::string& descr, const std::vector<std::size_t>& shape);

}  // namespace kernwerk::cli
