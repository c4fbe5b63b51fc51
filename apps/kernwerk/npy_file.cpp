#include "npy_file.hpp"

#include <cctype>
#include <cstdint>

#include "kernwerk/error.hpp"

namespace kernwerk::cli {
namespace {

const std::string magic = "\x93NUMPY";

[[noreturn]] void fail(const std::string& name, const std::string& problem) {
  throw error(name + ": " + problem);
}

// The text after `key`: in the dict, its value's first character; npos where absent.
std::size_t value_of(const std::string& dict, const std::string& key) {
  for (const char quote : {'\'', '"'}) {
    const auto at = dict.find(quote + key + quote);
    if (at == std::string::npos) continue;
    auto colon = dict.find(':', at + key.size() + 2);
    if (colon == std::string::npos) return colon;
    return dict.find_first_not_of(' ', colon + 1);
  }
  return std::string::npos;
}

}  // namespace

std::string npy_header::shape_text() const {
  std::string text;
  for (const auto extent : shape) text += (text.empty() ? "" : ", ") + std::to_string(extent);
  return "(" + text + ")";
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool named_npy(const std::string& path) { return path.size() > 4 && ends_with(path, ".npy"); }

bool starts_like_npy(const std::string& bytes) { return bytes.compare(0, magic.size(), magic) == 0; }

npy_header read_npy_header(std::istream& in, const std::string& name) {
  char lead[10];
  if (!in.read(lead, 8) || !starts_like_npy(std::string(lead, 6)))
    fail(name, "not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(lead[6]);
  if (major < 1 || major > 3)
    fail(name, ".npy version " + std::to_string(major) + " is not one this tool reads (1 to 3)");
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  unsigned char length_field[4] = {0, 0, 0, 0};
  if (!in.read(reinterpret_cast<char*>(length_field), std::streamsize(length_bytes)))
    fail(name, ".npy header cut short");
  std::size_t length = 0;
  for (std::size_t b = length_bytes; b-- > 0;) length = length << 8 | length_field[b];
  if (length > (1u << 20)) fail(name, ".npy header of " + std::to_string(length) + " bytes");
  std::string dict(length, '\0');
  if (!in.read(dict.data(), std::streamsize(length))) fail(name, ".npy header cut short");

  npy_header header;
  header.data_offset = 6 + 2 + length_bytes + length;
  const auto descr = value_of(dict, "descr");
  if (descr == std::string::npos) fail(name, ".npy header has no 'descr'");
  if (dict[descr] == '[') fail(name, "a structured .npy array (descr " + dict.substr(descr, 40) + "...) is not a point array");
  const auto quote = dict[descr];
  const auto end = dict.find(quote, descr + 1);
  if ((quote != '\'' && quote != '"') || end == std::string::npos || end - descr < 4)
    fail(name, ".npy header's 'descr' is malformed");
  const std::string type = dict.substr(descr + 1, end - descr - 1);  // e.g. <f8
  if (type[0] == '>') fail(name, "big-endian .npy data ('" + type + "'); save it little-endian");
  if (type[0] != '<' && type[0] != '|' && type[0] != '=')
    fail(name, ".npy descr '" + type + "' has no byte order");
  header.kind = type[1];
  header.item_size = 0;
  for (std::size_t c = 2; c < type.size(); ++c) {
    if (!std::isdigit(static_cast<unsigned char>(type[c])))
      fail(name, ".npy descr '" + type + "' is not a plain number type");
    header.item_size = header.item_size * 10 + std::size_t(type[c] - '0');
  }

  const auto order = value_of(dict, "fortran_order");
  if (order == std::string::npos) fail(name, ".npy header has no 'fortran_order'");
  header.fortran_order = dict.compare(order, 4, "True") == 0;
  if (!header.fortran_order && dict.compare(order, 5, "False") != 0)
    fail(name, ".npy header's 'fortran_order' is neither True nor False");

  const auto shape = value_of(dict, "shape");
  if (shape == std::string::npos || dict[shape] != '(') fail(name, ".npy header has no 'shape'");
  const auto close = dict.find(')', shape);
  if (close == std::string::npos) fail(name, ".npy header's 'shape' is malformed");
  std::size_t value = 0;
  bool digits = false, ended = false;  // ended: a space or L closed the number, a comma must follow
  for (std::size_t c = shape + 1; c <= close; ++c) {
    const char ch = dict[c];
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      if (ended) fail(name, ".npy header's 'shape' is malformed");
      if (value > (SIZE_MAX - 9) / 10) fail(name, ".npy shape too large");
      value = value * 10 + std::size_t(ch - '0'), digits = true;
    } else if (ch == ',' || ch == ')') {
      if (digits) header.shape.push_back(value);
      else if (ch == ',') fail(name, ".npy header's 'shape' is malformed");
      value = 0, digits = ended = false;
    } else if (ch == ' ' || ch == 'L') {
      ended = digits;
    } else {
      fail(name, ".npy header's 'shape' is malformed");
    }
  }
  return header;
}

std::string npy_header_bytes(const std::string& descr, const std::vector<std::size_t>& shape) {
  std::string dims = "(";
  for (std::size_t d = 0; d < shape.size(); ++d) dims += (d ? ", " : "") + std::to_string(shape[d]);
  dims += shape.size() == 1 ? ",)" : ")";  // Python's one-element tuple
  std::string dict = "{'descr': " + descr + ", 'fortran_order': False, 'shape': " + dims + ", }";
  // Magic, version, length and dict end on a multiple of 64 bytes, the last one a newline.
  const std::size_t lead = magic.size() + 2 + 2;
  dict.append(64 - (lead + dict.size() + 1) % 64, ' ');
  dict += '\n';
  if (dict.size() > 65535) throw error("npy_header_bytes: header too long");
  std::string bytes = magic;
  bytes += '\x01';
  bytes += '\x00';
  bytes += char(dict.size() & 0xff);
  bytes += char(dict.size() >> 8);
  return bytes + dict;
}

}  // namespace kernwerk::cli
