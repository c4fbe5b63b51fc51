// kernwerk diffuse: the course's 2-D diffusion on a grid read from a raw file or generated,
// written as raw float32 and as a PNG.
#include <Kokkos_Core.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "array_file.hpp"
#include "commands.hpp"
#include "grid_file.hpp"
#include "kernwerk/diffuse.hpp"
#include "kernwerk/error.hpp"
#include "npy_file.hpp"

namespace kernwerk::cli {

namespace {

// A jagged field like the course's: smoothed noise, zero below its 70th percentile.
std::vector<double> jagged_field(std::size_t rows, std::size_t columns, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::vector<double> field(rows * columns);
  for (auto& v : field) v = uniform(random);
  const std::size_t radius = std::max<std::size_t>(1, std::min(rows, columns) / 64);
  std::vector<double> line;
  // Box blurs along rows then columns, three times (close to a Gaussian).
  for (int pass = 0; pass < 3; ++pass)
    for (int axis = 0; axis < 2; ++axis) {
      const std::size_t lines = axis == 0 ? rows : columns, length = axis == 0 ? columns : rows;
      for (std::size_t l = 0; l < lines; ++l) {
        auto at = [&](std::size_t k) -> double& {
          return axis == 0 ? field[l * columns + k] : field[k * columns + l];
        };
        line.assign(length + 1, 0.0);
        for (std::size_t k = 0; k < length; ++k) line[k + 1] = line[k] + at(k);
        for (std::size_t k = 0; k < length; ++k) {
          const std::size_t lo = k >= radius ? k - radius : 0, hi = std::min(length, k + radius + 1);
          at(k) = (line[hi] - line[lo]) / double(hi - lo);
        }
      }
    }
  std::vector<double> sorted = field;
  const auto cut = sorted.begin() + std::ptrdiff_t(sorted.size() * 7 / 10);
  std::nth_element(sorted.begin(), cut, sorted.end());
  for (auto& v : field) v = v > *cut ? v - *cut : 0.0;
  return field;
}

std::pair<std::size_t, std::size_t> parse_size(const std::string& text) {
  std::vector<std::size_t> shape;
  try {
    shape = parse_shape(text, "--size");
  } catch (const error&) {
  }
  if (shape.size() != 2) throw usage_error("--size: '" + text + "' is not ROWSxCOLUMNS with positive numbers");
  return {shape[0], shape[1]};
}

void require_writable_folder(const std::string& prefix) {
  const auto slash = prefix.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : prefix.substr(0, slash + 1);
  if (::access(folder.c_str(), W_OK) != 0)
    throw error("--out: cannot write into '" + folder + "'");
}

// A --size the host's memory cannot hold is refused before the grid is made: float64 values read, and
// float32 ones computed (the least a run holds; a bare std::bad_alloc, or the kernel ending the
// process, otherwise).
void require_memory(std::size_t rows, std::size_t columns) {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return;
  const double needed = double(rows) * double(columns) * double(sizeof(double) + sizeof(float));
  const double memory = double(pages) * double(page);
  if (needed > memory) {
    char text[200];
    std::snprintf(text, sizeof text, "%zu x %zu needs at least %.3g GB, more than this machine's %.3g GB of memory",
                  rows, columns, needed / 1e9, memory / 1e9);
    throw error(std::string("--size: ") + text);
  }
}

// The grid's .f32 and .png into `outputs`; returns what the tool says it wrote, once committed.
std::string write_outputs(output_set& outputs, const std::string& prefix,
                          const std::vector<float>& values, std::size_t rows, std::size_t columns) {
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  write_grid_f32(outputs, prefix + ".f32", values);
  write_grid_png(outputs, prefix + ".png", values, rows, columns, *low, *high);
  char line[200];
  std::snprintf(line, sizeof line, " (gray 0..255 = %g..%g)", double(*low), double(*high));
  return "kernwerk diffuse: wrote " + prefix + ".f32 and " + prefix + ".png" + line + "\n";
}

}  // namespace

int run_diffuse(const arguments& args) {
  const std::string prefix = args.required("--out");
  const long long steps = args.integer("--steps", -1);
  if (!args.has("--steps")) throw usage_error("--steps: required");
  diffuse_options options;
  options.coeff = args.number("--coeff", 0.25);
  options.implementation = args.parsed("--implementation", "auto", parse_implementation);
  std::size_t rows = 0, columns = 0;
  std::vector<double> initial;
  if (args.has("--in")) {
    if (args.has("--size")) throw usage_error("--size: not with --in (a .npy grid has its shape; give a raw one --rows and --columns)");
    const std::string input = args.required("--in");
    const bool shaped = named_npy(input);
    const long long r = args.integer("--rows", 0), c = args.integer("--columns", 0);
    if (r < 0 || c < 0 || (args.has("--rows") && r == 0) || (args.has("--columns") && c == 0) ||
        (!shaped && (r == 0 || c == 0)))
      throw usage_error("--rows, --columns: positive, and required with a raw --in grid");
    rows = std::size_t(r);
    columns = std::size_t(c);
    initial = read_grid(input, rows, columns);
  } else {
    std::tie(rows, columns) = parse_size(args.text("--size", "2000x2000"));
    require_memory(rows, columns);
    initial = jagged_field(rows, columns, std::uint64_t(args.integer("--seed", 3966789)));
  }
  require_writable_folder(prefix);
  const bool want_laplacian = args.has("--laplacian");

  std::vector<float> field(initial.begin(), initial.end()), laplacian;
  with_backend(args.text("--backend", ""), [&](auto space) {
    using space_type = decltype(space);
    using grid = Kokkos::View<float**, Kokkos::LayoutRight, typename space_type::memory_space>;
    using host_grid = Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
    grid device("field", rows, columns);
    grid device_laplacian;
    if (want_laplacian) device_laplacian = grid("laplacian", rows, columns);
    Kokkos::deep_copy(device, host_grid(field.data(), rows, columns));
    const auto start = std::chrono::steady_clock::now();
    naming_options({{"steps", "--steps"}, {"options.coeff", "--coeff"}}, [&] {
      if (want_laplacian)
        kernwerk::diffuse(space, device, steps, device_laplacian, options);
      else
        kernwerk::diffuse(space, device, steps, options);
    });
    space.fence();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    Kokkos::deep_copy(host_grid(field.data(), rows, columns), device);
    if (want_laplacian) {
      laplacian.resize(rows * columns);
      Kokkos::deep_copy(host_grid(laplacian.data(), rows, columns), device_laplacian);
    }
    std::fprintf(stderr, "kernwerk diffuse: %zu x %zu, %lld steps on %s in %.4f s (%.3f us per step)\n",
                 rows, columns, steps, space_type::name(), seconds,
                 steps > 0 ? 1e6 * seconds / double(steps) : 0.0);
  });
  output_set outputs;  // all or none
  std::string said = write_outputs(outputs, prefix, field, rows, columns);
  if (want_laplacian) said += write_outputs(outputs, prefix + "-laplacian", laplacian, rows, columns);
  outputs.commit();
  std::fputs(said.c_str(), stderr);
  return 0;
}

}  // namespace kernwerk::cli
