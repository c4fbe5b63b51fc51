#pragma once
// Running the kernwerk command-line tool from a test, as a user runs it: scratch folders, point
// files, the outputs read back.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "nearest_support.hpp"

namespace kernwerk::test::cli {

struct outcome {
  int status;
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline bool exists(const std::string& path) { return std::ifstream(path).good(); }

// The tool is built next to this test program (bin/), wherever the build tree was moved.
inline std::string cli_path() {
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  REQUIRE(length > 0);
  const std::string path(self, static_cast<std::size_t>(length));
  return path.substr(0, path.rfind('/')) + "/kernwerk";
}

// A scratch folder per test case, removed afterwards.
struct scratch {
  std::string dir;
  scratch() {
    char pattern[] = "/tmp/kernwerk-cli-XXXXXX";
    REQUIRE(mkdtemp(pattern) != nullptr);
    dir = pattern;
  }
  ~scratch() { std::system(("rm -rf '" + dir + "'").c_str()); }
  std::string path(const std::string& name) const { return dir + "/" + name; }
  std::string write(const std::string& name, const std::string& content) const {
    std::ofstream(path(name), std::ios::binary) << content;
    return path(name);
  }
  template <class T>
  std::string write_binary(const std::string& name, const std::vector<double>& values) const {
    std::vector<T> typed(values.begin(), values.end());
    std::ofstream(path(name), std::ios::binary)
        .write(reinterpret_cast<const char*>(typed.data()), typed.size() * sizeof(T));
    return path(name);
  }
  // Runs the tool with `arguments`, started by `launcher` (e.g. "mpiexec -n 2") when given.
  outcome run(const std::string& arguments, const std::string& launcher = "") const {
    const std::string command = launcher + (launcher.empty() ? "" : " ") + cli_path() + " " + arguments + " > '" +
                                path("stdout") + "' 2> '" + path("stderr") + "'";
    const int raw = std::system(command.c_str());
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(path("stdout")), slurp(path("stderr"))};
  }
};

// A .npy file's bytes, written here independently of the tool: dict text such as
// "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }", the header padded to a
// multiple of 16 (version 1) or 64 (version 2, a 4-byte length).
inline std::string npy_bytes(const std::string& dict, const std::string& payload, int version = 1) {
  const std::size_t lead = 6 + 2 + (version == 1 ? 2 : 4), align = version == 1 ? 16 : 64;
  std::string header = dict;
  while ((lead + header.size() + 1) % align) header += ' ';
  header += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += char(version);
  bytes += '\0';
  for (std::size_t b = 0; b < lead - 8; ++b) bytes += char((header.size() >> (8 * b)) & 0xff);
  return bytes + header + payload;
}

// Values as the bytes of a float32 or float64 array, row-major or column-major.
template <class T>
std::string array_bytes(const std::vector<double>& values, std::size_t columns, bool column_major) {
  const std::size_t rows = values.size() / columns;
  std::vector<T> typed(values.size());
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < columns; ++c)
      typed[column_major ? c * rows + r : r * columns + c] = T(values[r * columns + c]);
  return std::string(reinterpret_cast<const char*>(typed.data()), typed.size() * sizeof(T));
}

// The tool's .npy output (a structured array of (index, distance) pairs, shape (n, k)) read
// back; the header must say so.
inline test::neighbours parse_npy_output(const std::string& bytes, std::size_t n, std::size_t k) {
  test::neighbours result;
  result.k = k;
  REQUIRE(bytes.size() > 10);
  REQUIRE(bytes.compare(0, 8, std::string("\x93NUMPY\x01\x00", 8)) == 0);
  const std::size_t length = std::size_t((unsigned char)bytes[8]) | std::size_t((unsigned char)bytes[9]) << 8;
  const std::string header = bytes.substr(10, length);
  CHECK((10 + length) % 64 == 0);
  CHECK(header.find("'descr': [('index', '<i8'), ('distance', '<f8')]") != std::string::npos);
  CHECK(header.find("'fortran_order': False") != std::string::npos);
  CHECK(header.find("'shape': (" + std::to_string(n) + ", " + std::to_string(k) + ")") != std::string::npos);
  REQUIRE(bytes.size() == 10 + length + n * k * 16);
  for (std::size_t e = 0; e < n * k; ++e) {
    std::int64_t index;
    double distance;
    std::memcpy(&index, bytes.data() + 10 + length + 16 * e, 8);
    std::memcpy(&distance, bytes.data() + 10 + length + 16 * e + 8, 8);
    result.indices.push_back(index);
    result.distances.push_back(distance);
  }
  return result;
}

inline std::string as_csv(const test::host_points& points, const std::string& header) {
  std::ostringstream text;
  text.precision(17);
  if (!header.empty()) text << header << "\n";
  for (std::size_t i = 0; i < points.count(); ++i)
    text << points.values[2 * i] << "," << points.values[2 * i + 1] << "\n";
  return text.str();
}

// Parses the tool's output CSV (k neighbours a line) into neighbours.
inline test::neighbours read_output(const std::string& path, std::size_t k = 1) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::string header;
  for (std::size_t q = 0; q < k; ++q) {
    const std::string suffix = k == 1 ? "" : "_" + std::to_string(q);
    header += (q ? ",index" : "index") + suffix + ",distance" + suffix;
  }
  CHECK(line == header);
  test::neighbours result;
  result.k = k;
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    std::string field;
    for (std::size_t q = 0; q < k; ++q) {
      std::getline(fields, field, ',');
      result.indices.push_back(std::stoll(field));
      std::getline(fields, field, ',');
      result.distances.push_back(std::stod(field));
    }
  }
  return result;
}

}  // namespace kernwerk::test::cli
