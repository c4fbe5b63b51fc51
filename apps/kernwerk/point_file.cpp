#include "point_file.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "kernwerk/error.hpp"

namespace kernwerk::cli {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw error(path + ": " + problem);
}

[[noreturn]] void fail_line(const std::string& path, std::size_t line, const std::string& problem) {
  fail(path + ":" + std::to_string(line), problem);
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
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

point_set read_csv(const std::string& path, std::ifstream& in, std::size_t dimension) {
  point_set points;
  points.dimension = dimension;
  std::string line;
  std::size_t line_number = 0;
  bool first_content_line = true;
  while (std::getline(in, line)) {
    ++line_number;
    if (trim(line).empty()) continue;
    const auto fields = split_fields(line);
    double first_value;
    if (first_content_line && !parse_number(fields[0], first_value)) {
      first_content_line = false;  // a header
      continue;
    }
    first_content_line = false;
    if (fields.size() != dimension)
      fail_line(path, line_number,
                "expected " + std::to_string(dimension) + " columns, found " +
                    std::to_string(fields.size()));
    for (const auto& field : fields) {
      double value;
      if (!parse_number(field, value))
        fail_line(path, line_number, "'" + field + "' is not a number");
      if (!std::isfinite(value))
        fail_line(path, line_number, "'" + field + "' is not a finite number");
      points.f64.push_back(value);
    }
  }
  if (in.bad()) fail(path, "read error");
  points.count = points.f64.size() / dimension;
  return points;
}

template <class T>
void read_binary(const std::string& path, std::ifstream& in, point_set& points, std::vector<T>& values,
                 int part, int parts) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
                "binary point files are little-endian; this reader assumes a little-endian host");
  in.seekg(0, std::ios::end);
  const auto bytes = static_cast<std::size_t>(in.tellg());
  const std::size_t dimension = points.dimension, point_bytes = dimension * sizeof(T);
  if (bytes % point_bytes != 0)
    fail(path, "size " + std::to_string(bytes) + " bytes is not a whole number of points (" +
                   std::to_string(point_bytes) + " bytes each)");
  points.total = bytes / point_bytes;
  points.first = share_first(points.total, part, parts);
  points.count = share_first(points.total, part + 1, parts) - points.first;
  values.resize(points.count * dimension);
  in.seekg(static_cast<std::streamoff>(points.first * point_bytes));
  if (!in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(T))))
    fail(path, "read error");
  for (std::size_t k = 0; k < values.size(); ++k)
    if (!std::isfinite(values[k]))
      fail(path, "point " + std::to_string(points.first + k / dimension) + " has a non-finite coordinate");
}

}  // namespace

std::size_t share_first(std::size_t count, int part, int parts) {
  return std::size_t((unsigned __int128)count * unsigned(part) / unsigned(parts));
}

bool is_binary_point_file(const std::string& path) {
  return ends_with(path, ".f32") || ends_with(path, ".f64");
}

point_set read_points(const std::string& path, std::size_t dimension, int part, int parts) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open: ") + std::strerror(errno));
  point_set points;
  points.dimension = dimension;
  if (ends_with(path, ".f32")) {
    read_binary(path, in, points, points.f32, part, parts);
    points.single_precision = true;
  } else if (ends_with(path, ".f64")) {
    read_binary(path, in, points, points.f64, part, parts);
  } else {
    points = read_csv(path, in, dimension);
    points.total = points.count;
  }
  if (points.total == 0) fail(path, "no points");
  return points;
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

}  // namespace kernwerk::cli
