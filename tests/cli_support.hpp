#pragma once
// Running the kernwerk command-line tool from a test, as a user runs it: scratch folders, point
// files, the outputs read back.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
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
