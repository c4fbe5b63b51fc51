// kernwerk nearest: the k nearest reference points of every observation, from point files to a
// CSV or .npy file. Started by an MPI launcher (mpirun -np P kernwerk nearest ...), the ranks share the
// work: each reads its share of a binary file (rank 0 reads a CSV file and scatters it), all
// search together (kernwerk::mpi::nearest, or kernwerk::mpi::distributed_index's partitioned
// layout with --strategy partitioned), and rank 0 writes the one output, the same bytes as a
// single process writes.
#include <Kokkos_Core.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "kernwerk/error.hpp"
#include "kernwerk/nearest.hpp"
#include "npy_file.hpp"
#include "point_file.hpp"
#include "process_group.hpp"
#ifdef KERNWERK_CLI_MPI
#include "kernwerk/mpi/distributed_index.hpp"
#include "kernwerk/mpi/nearest.hpp"
#endif

namespace kernwerk::cli {

namespace {

template <class T>
using host_matrix = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

// This rank's share of a point file: its part of a binary file, read here, or its part of a CSV
// file that rank 0 reads and scatters; its coordinates checked (check_sphere_points). Errors are
// every rank's alike.
point_set read_share(const process_group& group, const std::string& path, std::size_t dimension,
                     const nearest_options& options) {
  point_set points;
  if (is_binary_point_file(path) || group.size() == 1) {
    group.together([&] {
      points = read_points(path, dimension, group.rank(), group.size());
      check_sphere_points(points, options.metric, options.units);
    });
    return points;
  }
  group.together([&] {
    if (group.rank() != 0) return;
    points = read_points(path, dimension);
    check_sphere_points(points, options.metric, options.units);
  });
  points.dimension = dimension;
  points.total = group.broadcast(points.total);
  points.f64 = group.scatter_rows(points.f64, points.total, dimension);
  points.first = group.first_row(points.total, group.rank());
  points.count = group.first_row(points.total, group.rank() + 1) - points.first;
  return points;
}

// Reports progress on stderr when it is a terminal: a bar that rewrites itself.
class progress_bar {
 public:
  explicit progress_bar(bool enabled) : enabled_(enabled) {}
  void show(double fraction) const {
    if (!enabled_) return;
    const int width = 40, filled = int(fraction * width + 0.5);
    std::fprintf(stderr, "\r[%s%s] %3d%%", std::string(filled, '#').c_str(),
                 std::string(width - filled, ' ').c_str(), int(fraction * 100 + 0.5));
    std::fflush(stderr);
  }
  void done() const {
    if (enabled_) std::fputs("\r\033[K", stderr);
  }

 private:
  bool enabled_;
};

}  // namespace

int run_nearest(const arguments& args, const process_group& group) {
  nearest_options options;
  read_metric_options(args, options);
  options.method = args.parsed("--method", "auto", parse_method);
  options.implementation = args.parsed("--implementation", "auto", parse_implementation);
  nearest_report report;  // which method ran, and why
  options.report = &report;
  const long long k = args.integer("--k", 1);
  if (k < 1) throw usage_error("--k: must be at least 1");
  const std::size_t dimension = point_dimension(args, options.metric == metric_kind::haversine);
  const std::string output = args.required("--out");
  const std::string format =
      args.text("--out-format", named_npy(output) ? "npy" : "csv");
  if (format != "csv" && format != "npy") throw usage_error("--out-format: '" + format + "' is not csv or npy");
  if (args.required("--obs") == "-" && args.required("--ref") == "-")
    throw usage_error("--obs, --ref: only one of them can be standard input ('-')");
#ifdef KERNWERK_CLI_MPI
  const std::string strategy_name = args.text("--strategy", "auto");
  // partitioned: the references spread over the ranks by region in a distributed index.
  const bool partitioned = strategy_name == "partitioned";
  const mpi::strategy_kind strategy_option =
      strategy_name == "auto" || partitioned ? mpi::strategy_kind::automatic
      : strategy_name == "replicate"         ? mpi::strategy_kind::replicate
      : strategy_name == "ring"              ? mpi::strategy_kind::ring
                                             : throw usage_error("--strategy: '" + strategy_name +
                                                                 "' is not auto, replicate, ring or partitioned");
  if (partitioned && options.method == method_kind::brute)
    throw usage_error("--method: the partitioned strategy searches an index, not by brute force");
#else
  if (args.has("--strategy"))
    throw usage_error("--strategy: this kernwerk was built without MPI (KERNWERK_ENABLE_MPI=OFF)");
#endif
  const point_set observations = read_share(group, args.required("--obs"), dimension, options);
  const point_set references = read_share(group, args.required("--ref"), dimension, options);

  if (static_cast<unsigned long long>(k) > references.total)
    throw error("--k: " + std::to_string(k) + " neighbours, but --ref holds " + std::to_string(references.total) +
                " points");
  const std::size_t n = observations.count;
  std::vector<std::int64_t> indices(n * k);
  std::vector<double> distances(n * k);
  // Long runs of one process go in slices of observations (each answer depends on its
  // observation alone), so that a terminal can show progress; otherwise in one call.
  const bool terminal = isatty(STDERR_FILENO) != 0 && !group.distributed();
  const progress_bar bar(terminal);
  const double pairs = double(observations.total) * double(references.total);
  const std::size_t slices = terminal && pairs > 1e11 ? 50 : 1;
  std::string space_name, strategy;
  const auto start = std::chrono::steady_clock::now();
  const auto compute = [&] {
    with_backend(args.text("--backend", ""), [&](auto space) {
      space_name = space.name();
      with_views(observations, references, [&](auto obs, auto ref) {
        const auto out_indices = [&](std::size_t first, std::size_t last) {
          return host_matrix<std::int64_t>(indices.data() + first * k, last - first, k);
        };
        const auto out_distances = [&](std::size_t first, std::size_t last) {
          return host_matrix<double>(distances.data() + first * k, last - first, k);
        };
#ifdef KERNWERK_CLI_MPI
        if (group.distributed() && partitioned) {
          mpi::distributed_index_options layout;
          static_cast<index_options&>(layout) = {options.metric, options.units, options.radius};
          layout.layout = mpi::index_layout::partitioned;
          group.together([&] {
            const mpi::distributed_index<decltype(space)> index(space, MPI_COMM_WORLD, ref, layout);
            index.nearest(space, obs, out_indices(0, n), out_distances(0, n));
          });
          report = {method_kind::indexed, "a distributed index"};
          strategy = strategy_name;
          return;
        }
        if (group.distributed()) {
          mpi::nearest_options distributed;
          static_cast<nearest_options&>(distributed) = options;
          distributed.strategy = strategy_option;
          group.together([&] {
            strategy = to_string(mpi::nearest(space, MPI_COMM_WORLD, obs, ref, out_indices(0, n),
                                              out_distances(0, n), distributed));
          });
          return;
        }
#endif
        for (std::size_t slice = 0; slice < slices; ++slice) {
          const std::size_t first = n * slice / slices, last = n * (slice + 1) / slices;
          if (first == last) continue;
          kernwerk::nearest(space, Kokkos::subview(obs, std::make_pair(first, last), Kokkos::ALL()),
                            ref, out_indices(first, last), out_distances(first, last), options);
          bar.show(double(last) / n);
        }
      });
    });
  };
  // The library's arguments are the tool's options.
  naming_options({{"observations", "--obs"}, {"references", "--ref"}, {"indices", "--k"},
                  {"options.radius", "--radius"}, {"queries", "--obs"}, {"points", "--ref"}},
                 compute);
  bar.done();
  const double elapsed = seconds_since(start);
  group.write_in_rank_order(output, [&](const process_group::emitter& emit) {
    if (format == "npy")
      format_neighbours_npy(indices, distances, std::size_t(k), group.rank() == 0 ? observations.total : 0, emit);
    else
      format_neighbours(indices, distances, std::size_t(k), group.rank() == 0, emit);
  });
  if (group.rank() != 0) return 0;
  const std::string ranks =
      group.distributed() ? ", " + std::to_string(group.size()) + (group.size() == 1 ? " rank (" : " ranks (") +
                                strategy + " strategy)"
                          : "";
  std::fprintf(stderr,
               "kernwerk nearest: %zu x %zu points, k = %lld, %s method (%s) in %.3f s "
               "(%.3g pairs/s) on %s%s\n",
               observations.total, references.total, k, to_string(report.method),
               report.reason.c_str(), elapsed, pairs / elapsed, space_name.c_str(), ranks.c_str());
  return 0;
}

}  // namespace kernwerk::cli
