#pragma once
// Subcommands of the kernwerk command-line tool. Each returns the process exit status and
// throws kernwerk::error for bad input (main prints the message).
#include <Kokkos_Core.hpp>

#include <chrono>
#include <cmath>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "arguments.hpp"
#include "kernwerk/error.hpp"
#include "kernwerk/nearest_options.hpp"
#include "point_file.hpp"

namespace kernwerk::cli {

// Calls action(space) with the execution space named on the command line, or the default.
template <class Action>
void with_backend(const std::string& name, Action&& action) {
  if (name.empty()) return action(Kokkos::DefaultExecutionSpace());
#ifdef KOKKOS_ENABLE_SERIAL
  if (name == "serial") return action(Kokkos::Serial());
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  if (name == "openmp") return action(Kokkos::OpenMP());
#endif
#ifdef KOKKOS_ENABLE_CUDA
  if (name == "cuda") return action(Kokkos::Cuda());
#endif
#ifdef KOKKOS_ENABLE_HIP
  if (name == "hip") return action(Kokkos::Experimental::HIP());
#endif
  throw error("--backend: '" + name + "' is not enabled in this build (see kernwerk info)");
}

// Unmanaged host Views over the tool's arrays.
template <class T>
using host_points =
    Kokkos::View<const T**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
template <class T>
host_points<T> wrap(const std::vector<T>& values, std::size_t count, std::size_t dimension) {
  return host_points<T>(values.data(), count, dimension);
}

// Calls `action` with an unmanaged host View of the set's values, float or double.
template <class Action>
void with_view(const point_set& points, Action&& action) {
  if (points.single_precision)
    action(wrap(points.f32, points.count, points.dimension));
  else
    action(wrap(points.f64, points.count, points.dimension));
}

// Two point sets as Views of one value type, action(a, b): float32 where both are, else float64
// (a float32 set widened, exactly, for the call), so that the library's compiled calls serve
// them (a mixed pair would compile its own).
template <class Action>
void with_views(const point_set& a, const point_set& b, Action&& action) {
  if (a.single_precision && b.single_precision)
    return action(wrap(a.f32, a.count, a.dimension), wrap(b.f32, b.count, b.dimension));
  const auto widened = [](const point_set& p) {
    return p.single_precision ? std::vector<double>(p.f32.begin(), p.f32.end()) : std::vector<double>();
  };
  const std::vector<double> wide_a = widened(a), wide_b = widened(b);
  action(wrap(a.single_precision ? wide_a : a.f64, a.count, a.dimension),
         wrap(b.single_precision ? wide_b : b.f64, b.count, b.dimension));
}

// --metric, --degrees and --radius into options of kernwerk::nearest, within or dbscan.
template <class Options>
void read_metric_options(const arguments& args, Options& options) {
  options.metric = args.parsed("--metric", "haversine", parse_metric);
  if (args.has("--degrees")) options.units = angle_unit::degrees;
  options.radius = args.number("--radius", 1.0);
  if (!(std::isfinite(options.radius) && options.radius > 0))
    throw usage_error("--radius: must be positive and finite, got " + args.text("--radius", ""));
}

// The coordinates per point of the metric named by --metric, from --dim (euclidean, 2 or 3).
std::size_t point_dimension(const arguments& args, bool haversine);

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

class process_group;
// Runs body(); a library error naming one of `names`' first arguments is told as the option
// that gave it ("kernwerk::qr: a: holds a NaN" -> "--in: holds a NaN"): a usage error (exit
// status 2) where the option's value is the wrong one, a failed run (1) where it names an input
// file whose content is.
template <class Body>
void naming_options(std::initializer_list<std::pair<const char*, const char*>> names, Body&& body) {
  try {
    body();
  } catch (const invalid_argument& e) {
    for (const auto& [argument, option] : names)
      if (e.argument() == argument) {
        const std::string text = e.what(), marker = std::string(": ") + argument + ": ";
        const auto at = text.find(marker);
        const std::string said =
            std::string(option) + ": " + (at == std::string::npos ? text : text.substr(at + marker.size()));
        const std::string given(option);
        if (given == "--obs" || given == "--ref" || given == "--in") throw error(said);
        throw usage_error(said);
      }
    throw;
  }
}

int run_nearest(const arguments& args, const process_group& group);
int run_info(const arguments& args);
int run_demo(const arguments& args);
int run_diffuse(const arguments& args);
int run_within(const arguments& args);
int run_dbscan(const arguments& args);
int run_qr(const arguments& args);
int run_fft(const arguments& args);

}  // namespace kernwerk::cli
