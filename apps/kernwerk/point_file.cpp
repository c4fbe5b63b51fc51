#include "point_file.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <system_error>
#include <type_traits>

#include <sys/stat.h>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/geometry/point_checks.hpp"
#include "npy_file.hpp"

namespace kernwerk::cli {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw error(path + ": " + problem);
}

[[noreturn]] void fail_line(const std::string& path, std::size_t line, const std::string& problem) {
  fail(path + ":" + std::to_string(line), problem);
}

std::string trim(const std::string& text) {
  const auto begin = text.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return {};
  return text.substr(begin, text.find_last_not_of(" \t\r") - begin + 1);
}

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const auto comma = line.find(',', start);
    fields.push_back(trim(line.substr(start, comma - start)));
    if (comma == std::string::npos) return fields;
    start = comma + 1;
  }
}

// Parses a whole field as a number; false when it is not one.
bool parse_number(const std::string& field, double& value) {
  if (field.empty()) return false;
  const char* begin = field.data();
  if (*begin == '+') ++begin;  // from_chars takes no leading '+'
  const auto [end, status] = std::from_chars(begin, field.data() + field.size(), value);
  return status == std::errc() && end == field.data() + field.size();
}

const char* const changed_while_read = "read error: the file changed while it was read";

// The bytes from the read position to the end, or npos where the stream cannot seek (a pipe);
// the position is kept. A file that ends before the read position was cut while it was read.
std::size_t bytes_left(const std::string& path, std::istream& in) {
  const auto here = in.tellg();
  if (here < 0 || !in.seekg(0, std::ios::end)) {
    in.clear();
    return std::string::npos;
  }
  const auto end = in.tellg();
  in.seekg(here);
  if (end < here) fail(path, changed_while_read);
  return static_cast<std::size_t>(end - here);
}

point_set read_csv(const std::string& path, std::istream& in, std::size_t dimension) {
  point_set points;
  points.dimension = dimension;
  // A file that ended before the size it had when it was opened (truncated, or dropped by a
  // network file system, while it was read) reads to its end like any other, and may cut a
  // line: the bytes read are counted against that size, and a line that does not parse is
  // first checked against it.
  const std::size_t size = bytes_left(path, in);
  std::size_t read = 0;
  std::string line;
  std::size_t line_number = 0;
  bool first_content_line = true;
  while (std::getline(in, line)) {
    ++line_number;
    read += line.size() + (in.eof() ? 0 : 1);
    if (trim(line).empty()) continue;
    try {
      const auto fields = split_fields(line);
      double first_value;
      if (first_content_line && !parse_number(fields[0], first_value)) {
        first_content_line = false;  // a header
        continue;
      }
      first_content_line = false;
      if (fields.size() != dimension)
        fail_line(path, line_number,
                  "expected " + std::to_string(dimension) + " columns, found " + std::to_string(fields.size()));
      for (const auto& field : fields) {
        double value;
        if (!parse_number(field, value)) fail_line(path, line_number, "'" + field + "' is not a number");
        if (!std::isfinite(value)) fail_line(path, line_number, "'" + field + "' is not a finite number");
        points.f64.push_back(value);
      }
      points.lines.push_back(line_number);
    } catch (const error&) {
      in.clear();
      if (size != std::string::npos && (!in.seekg(0, std::ios::end) || in.tellg() != std::streamoff(size)))
        fail(path, changed_while_read);
      throw;
    }
  }
  if (in.bad()) fail(path, "read error");
  if (size != std::string::npos && read != size) fail(path, changed_while_read);
  points.count = points.f64.size() / dimension;
  return points;
}

// The values of a binary array of `total` points from byte `offset` on: this part's share,
// checked finite. Column-major arrays (.npy with fortran_order) hold each coordinate in turn.
template <class T>
void read_share_of(const std::string& path, std::istream& in, std::size_t offset, bool column_major,
                   point_set& points, std::vector<T>& values, int part, int parts) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
                "binary point files are little-endian; this reader assumes a little-endian host");
  const std::size_t dimension = points.dimension;
  points.first = share_first(points.total, part, parts);
  points.count = share_first(points.total, part + 1, parts) - points.first;
  values.resize(points.count * dimension);
  if (!column_major) {
    in.seekg(static_cast<std::streamoff>(offset + points.first * dimension * sizeof(T)));
    if (!in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(T))))
      fail(path, "read error");
  } else {
    std::vector<T> column(points.count);
    for (std::size_t d = 0; d < dimension; ++d) {
      in.seekg(static_cast<std::streamoff>(offset + (d * points.total + points.first) * sizeof(T)));
      if (!in.read(reinterpret_cast<char*>(column.data()), static_cast<std::streamsize>(column.size() * sizeof(T))))
        fail(path, "read error");
      for (std::size_t i = 0; i < points.count; ++i) values[i * dimension + d] = column[i];
    }
  }
  for (std::size_t k = 0; k < values.size(); ++k)
    if (!std::isfinite(values[k]))
      fail(path, "point " + std::to_string(points.first + k / dimension) + " has a non-finite coordinate");
}

// Raw little-endian values, point after point, as many as the size holds.
template <class T>
void read_binary(const std::string& path, std::istream& in, point_set& points, std::vector<T>& values,
                 int part, int parts) {
  const std::size_t bytes = bytes_left(path, in);
  const std::size_t point_bytes = points.dimension * sizeof(T);
  if (bytes % point_bytes != 0)
    fail(path, "size " + std::to_string(bytes) + " bytes is not a whole number of points (" +
                   std::to_string(point_bytes) + " bytes each)");
  points.total = bytes / point_bytes;
  read_share_of(path, in, 0, false, points, values, part, parts);
}

// A .npy array of shape (n, dimension), float32 or float64, either order.
void read_npy(const std::string& path, std::istream& in, point_set& points, int part, int parts) {
  const npy_header header = read_npy_header(in, path);
  const std::size_t dimension = points.dimension;
  const std::string shape_text = header.shape_text();
  if (header.shape.size() != 2 || header.shape[1] != dimension)
    fail(path, "a .npy array of shape " + shape_text + "; points are (n, " + std::to_string(dimension) + ")");
  if (header.kind != 'f' || (header.item_size != 4 && header.item_size != 8))
    fail(path, "a .npy array of " + std::string(1, header.kind) + std::to_string(header.item_size) +
                   " values; points are float32 or float64");
  const std::size_t left = bytes_left(path, in);
  points.total = header.shape[0];
  if (points.total > left / (dimension * header.item_size))
    fail(path, "cut short: " + std::to_string(left) + " bytes of values, the shape " +
                   shape_text + " needs " + std::to_string(points.total * dimension * header.item_size));
  points.single_precision = header.item_size == 4;
  if (points.single_precision)
    read_share_of(path, in, header.data_offset, header.fortran_order, points, points.f32, part, parts);
  else
    read_share_of(path, in, header.data_offset, header.fortran_order, points, points.f64, part, parts);
}

}  // namespace

std::size_t share_first(std::size_t count, int part, int parts) {
  return std::size_t((unsigned __int128)count * unsigned(part) / unsigned(parts));
}

bool is_binary_point_file(const std::string& path) {
  return ends_with(path, ".f32") || ends_with(path, ".f64") || named_npy(path);
}

point_set read_points(const std::string& path, std::size_t dimension, int part, int parts) {
  point_set points;
  points.dimension = dimension;
  const bool piped = path == "-";  // standard input, read whole: .npy bytes or CSV text
  const std::string name = piped ? "standard input" : path;
  std::stringstream input;
  std::ifstream file;
  std::istream& in = piped ? static_cast<std::istream&>(input) : file;
  if (piped) {
    input << std::cin.rdbuf();
    if (std::cin.bad()) fail(name, "read error");
  } else {
    file.open(path, std::ios::binary);
    if (!file) fail(path, std::string("cannot open: ") + std::strerror(errno));
    // binary files are read by their size, a share at a time
    struct stat info {};
    if (is_binary_point_file(path) && (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)))
      fail(path, "is not a regular file (a pipe?): binary points are read by their size; give a file, or "
                 ".npy on standard input ('-')");
  }
  if (!piped && ends_with(path, ".f32")) {
    read_binary(path, in, points, points.f32, part, parts);
    points.single_precision = true;
  } else if (!piped && ends_with(path, ".f64")) {
    read_binary(path, in, points, points.f64, part, parts);
  } else if (piped ? starts_like_npy(input.str()) : named_npy(path)) {
    read_npy(name, in, points, part, parts);
  } else {
    points = read_csv(name, in, dimension);
    points.total = points.count;
  }
  if (points.total == 0) fail(name, "no points");
  points.name = name;
  return points;
}

void check_sphere_points(const point_set& points, metric_kind metric, angle_unit units) {
  if (metric != metric_kind::haversine) return;
  const auto check = [&](const auto& values) {
    using scalar = typename std::decay_t<decltype(values)>::value_type;
    const Kokkos::View<const scalar**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> rows(
        values.data(), points.count, points.dimension);
    const auto limits = impl::point_limits<scalar>(metric, units);
    for (std::size_t i = 0; i < points.count; ++i) {
      if (!impl::invalid_point(rows, std::int64_t(i), limits)) continue;
      const auto row = Kokkos::subview(rows, i, Kokkos::ALL());
      fail(points.lines.empty() ? points.name : points.name + ":" + std::to_string(points.lines[i]),
           impl::describe_point(std::int64_t(points.first + i), row) + " " +
               impl::invalid_point_rule<scalar>(row, metric, units, "(the values look like degrees: add --degrees)"));
    }
  };
  if (points.single_precision) check(points.f32);
  else check(points.f64);
}

void format_neighbours(const std::vector<std::int64_t>& indices, const std::vector<double>& distances,
                       std::size_t k, bool header,
                       const std::function<void(const char* data, std::size_t bytes)>& emit) {
  std::string buffer;
  for (std::size_t q = 0; header && q < k; ++q) {
    const std::string suffix = k == 1 ? "" : "_" + std::to_string(q);
    buffer += (q ? ",index" : "index") + suffix + ",distance" + suffix + (q + 1 == k ? "\n" : "");
  }
  char number[64];
  for (std::size_t e = 0; e < indices.size(); ++e) {
    auto end = std::to_chars(number, number + sizeof number, indices[e]).ptr;
    *end++ = ',';
    end = std::to_chars(end, number + sizeof number, distances[e]).ptr;
    *end++ = (e + 1) % k == 0 ? '\n' : ',';
    buffer.append(number, end);
    if (buffer.size() > (1 << 20)) {
      emit(buffer.data(), buffer.size());
      buffer.clear();
    }
  }
  emit(buffer.data(), buffer.size());
}

void format_neighbours_npy(const std::vector<std::int64_t>& indices, const std::vector<double>& distances,
                           std::size_t k, std::size_t header_rows,
                           const std::function<void(const char* data, std::size_t bytes)>& emit) {
  if (header_rows) {
    const std::string header =
        npy_header_bytes("[('index', '<i8'), ('distance', '<f8')]", {header_rows, k});
    emit(header.data(), header.size());
  }
  struct neighbour {
    std::int64_t index;
    double distance;
  };
  static_assert(sizeof(neighbour) == 16, "the structured dtype's packed layout");
  std::vector<neighbour> buffer;
  const std::size_t piece = 1 << 16;
  for (std::size_t e = 0; e < indices.size(); e += piece) {
    buffer.clear();
    for (std::size_t f = e; f < std::min(indices.size(), e + piece); ++f)
      buffer.push_back({indices[f], distances[f]});
    emit(reinterpret_cast<const char*>(buffer.data()), buffer.size() * sizeof(neighbour));
  }
}

}  // namespace kernwerk::cli
