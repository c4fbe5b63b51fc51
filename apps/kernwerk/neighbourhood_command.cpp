// kernwerk within and kernwerk dbscan: every point within a distance of each query, and
// density-based clusters, from point files to CSV.
#include <Kokkos_Core.hpp>

#include <charconv>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "commands.hpp"
#include "kernwerk/dbscan.hpp"
#include "kernwerk/error.hpp"
#include "kernwerk/within.hpp"
#include "output_file.hpp"
#include "point_file.hpp"

namespace kernwerk::cli {

namespace {

// Writes CSV text built line by line: line(buffer) appends one line.
template <class Line>
void write_csv(const std::string& path, const char* header, std::size_t lines, Line&& line) {
  write_output(path, [&](std::FILE* file) {
    std::string buffer = header;
    for (std::size_t e = 0; e < lines; ++e) {
      line(e, buffer);
      if (buffer.size() > (1 << 20)) {
        write_bytes(file, buffer.data(), buffer.size(), path);
        buffer.clear();
      }
    }
    write_bytes(file, buffer.data(), buffer.size(), path);
  });
}

// Appends `value` (an integer or a double, shortest round-trip form) and `after`.
template <class Number>
void append_number(std::string& buffer, Number value, char after) {
  char text[32];
  auto end = std::to_chars(text, text + sizeof text, value).ptr;
  *end++ = after;
  buffer.append(text, end);
}

}  // namespace

int run_within(const arguments& args) {
  within_options options;
  read_metric_options(args, options);
  options.order = args.parsed("--order", "nearest-first", parse_row_order);
  const bool with_distances = !args.has("--no-distances");
  if (!args.has("--distance")) throw usage_error("--distance: required");
  const double distance = args.number("--distance", 0.0);
  if (!(std::isfinite(distance) && distance >= 0))
    throw usage_error("--distance: must be finite and not negative");
  const std::size_t dimension = point_dimension(args, options.metric == metric_kind::haversine);
  const std::string output = args.required("--out");
  if (args.required("--queries") == "-" && args.required("--points") == "-")
    throw usage_error("--queries, --points: only one of them can be standard input ('-')");
  const point_set queries = read_points(args.required("--queries"), dimension);
  check_sphere_points(queries, options.metric, options.units);
  const point_set points = read_points(args.required("--points"), dimension);
  check_sphere_points(points, options.metric, options.units);
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> offsets("offsets", queries.count + 1);
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> indices("indices", 0);
  Kokkos::View<double*, Kokkos::HostSpace> distances("distances", 0);
  std::string space_name;
  const auto start = std::chrono::steady_clock::now();
  with_backend(args.text("--backend", ""), [&](auto space) {
    space_name = space.name();
    with_views(queries, points, [&](auto q, auto p) {
      if (with_distances) kernwerk::within(space, q, p, distance, offsets, indices, distances, options);
      else kernwerk::within(space, q, p, distance, offsets, indices, options);
    });
  });
  const double elapsed = seconds_since(start);
  // One line a pair: the query, the point and its distance; each query's nearest first unless
  // --order any.
  std::size_t query = 0;
  write_csv(output, with_distances ? "query,index,distance\n" : "query,index\n", indices.extent(0),
            [&](std::size_t e, std::string& buffer) {
              while (std::int64_t(e) >= offsets(query + 1)) ++query;
              append_number(buffer, std::int64_t(query), ',');
              append_number(buffer, indices(e), with_distances ? ',' : '\n');
              if (with_distances) append_number(buffer, distances(e), '\n');
            });
  std::fprintf(stderr, "kernwerk within: %zu queries x %zu points, %zu pairs within %g in %.3f s on %s\n",
               queries.count, points.count, indices.extent(0), distance, elapsed, space_name.c_str());
  return 0;
}

int run_dbscan(const arguments& args) {
  dbscan_options options;
  read_metric_options(args, options);
  options.border = args.parsed("--border", "nearest-core", parse_border_rule);
  if (!args.has("--eps")) throw usage_error("--eps: required");
  if (!args.has("--min-samples")) throw usage_error("--min-samples: required");
  const double eps = args.number("--eps", 0.0);
  if (!(std::isfinite(eps) && eps >= 0)) throw usage_error("--eps: must be finite and not negative");
  const long long min_samples = args.integer("--min-samples", 0);
  if (min_samples < 1) throw usage_error("--min-samples: must be at least 1");
  const std::size_t dimension = point_dimension(args, options.metric == metric_kind::haversine);
  const std::string output = args.required("--out");
  const point_set points = read_points(args.required("--in"), dimension);
  check_sphere_points(points, options.metric, options.units);
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> labels("labels", points.count);
  std::int64_t clusters = 0;
  std::string space_name;
  const auto start = std::chrono::steady_clock::now();
  with_backend(args.text("--backend", ""), [&](auto space) {
    space_name = space.name();
    with_view(points, [&](auto p) { clusters = kernwerk::dbscan(space, p, eps, min_samples, labels, options); });
  });
  const double elapsed = seconds_since(start);
  std::size_t noise = 0;
  for (std::size_t i = 0; i < points.count; ++i) noise += labels(i) < 0;
  write_csv(output, "label\n", points.count,
            [&](std::size_t i, std::string& buffer) { append_number(buffer, labels(i), '\n'); });
  std::fprintf(stderr, "kernwerk dbscan: %zu points, %lld clusters, %zu noise points in %.3f s on %s\n",
               points.count, static_cast<long long>(clusters), noise, elapsed, space_name.c_str());
  return 0;
}

}  // namespace kernwerk::cli
