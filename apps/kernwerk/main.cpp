// kernwerk: the command-line face of the library.
#include <Kokkos_Core.hpp>

#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "process_group.hpp"
#include "kernwerk/error.hpp"

namespace {

const char* const usage =
    "usage: kernwerk COMMAND [OPTIONS]\n"
    "\n"
    "commands:\n"
    "  nearest --obs FILE --ref FILE --out FILE [--degrees] [--metric haversine|euclidean]\n"
    "          [--radius R] [--dim 2|3] [--k K] [--method auto|brute|indexed]\n"
    "          [--implementation auto|generic|tuned] [--backend serial|openmp|cuda|hip]\n"
    "          [--strategy auto|replicate|ring]\n"
    "      For each observation, the K (default 1, at most 32) nearest reference points, nearest\n"
    "      first: CSV 'index,distance' out (index_0,distance_0,... for K > 1). A summary line\n"
    "      with the time goes to stderr, and a progress bar on long runs in a terminal.\n"
    "      Point files are CSV (lat,lon per line; a non-numeric first line is a header) or\n"
    "      raw little-endian binary of interleaved coordinates when named *.f32 or *.f64.\n"
    "      --dim gives the coordinates per point of euclidean files (default 2).\n"
    "      Under an MPI launcher (mpirun -np P kernwerk nearest ...) the ranks share the work,\n"
    "      one GPU each, and write the same output as one process; --strategy forces how the\n"
    "      references meet: copied to every rank (replicate) or passed around (ring).\n"
    "  demo [--observations N] [--references M] [--seed S] [--check K]\n"
    "      Uniform random points on the sphere (default 2^16 x 2^13), solved, K of them\n"
    "      checked against a float64 brute force; prints the time and pairs per second.\n"
    "  diffuse --steps S --out PREFIX [--size RxC [--seed N] | --in FILE --rows R --columns C]\n"
    "          [--coeff C] [--laplacian] [--implementation auto|generic|tuned] [--backend B]\n"
    "      The course's 2-D diffusion (5-point stencil, float32) for S steps, on a jagged\n"
    "      generated field (default 2000x2000) or a raw .f32/.f64 grid (row-major). Writes\n"
    "      PREFIX.f32 (raw float32) and PREFIX.png (grayscale, min..max), and with --laplacian\n"
    "      PREFIX-laplacian.f32/.png; the time per step goes to stderr.\n"
    "  info\n"
    "      Kernwerk and Kokkos versions, enabled backends and devices.\n"
    "\n"
    "Kokkos options (--kokkos-num-threads=N, --kokkos-device-id=D, ...) are accepted too.\n";

int dispatch(const std::vector<std::string>& words, const kernwerk::cli::process_group& group) {
  using kernwerk::cli::arguments;
  const std::string& command = words[0];
  const std::vector<std::string> rest(words.begin() + 1, words.end());
  if (command == "nearest")
    return kernwerk::cli::run_nearest(
        arguments(rest,
                  {"--obs", "--ref", "--out", "--metric", "--radius", "--dim", "--k", "--method",
                   "--implementation", "--backend", "--strategy"},
                  {"--degrees"}),
        group);
  const bool known = command == "demo" || command == "diffuse" || command == "info" ||
                     command == "help" || command == "--help" || command == "-h";
  if (known && group.size() > 1)
    throw kernwerk::error("runs on one process; of the commands, nearest alone runs on MPI ranks "
                          "(start this one without mpirun)");
  if (command == "demo")
    return kernwerk::cli::run_demo(
        arguments(rest, {"--observations", "--references", "--seed", "--check"}, {}));
  if (command == "diffuse")
    return kernwerk::cli::run_diffuse(arguments(
        rest, {"--steps", "--out", "--size", "--seed", "--in", "--rows", "--columns", "--coeff",
               "--implementation", "--backend"},
        {"--laplacian"}));
  if (command == "info") return kernwerk::cli::run_info(arguments(rest, {}, {}));
  if (command == "help" || command == "--help" || command == "-h") {
    std::fputs(usage, stdout);
    return 0;
  }
  if (group.rank() == 0)
    std::fprintf(stderr, "kernwerk: unknown command '%s'\n\n%s", command.c_str(), usage);
  return 2;
}

}  // namespace

// Under an MPI launcher every rank runs main alike: the command's failures are agreed on by
// every rank (process_group::together), so that every rank exits with the same status and rank
// 0 alone prints the message.
int main(int argc, char* argv[]) {
  using kernwerk::cli::process_group;
  std::vector<std::string> arguments(argv, argv + argc);
  std::optional<process_group> group;
  try {
    group.emplace(process_group::start(arguments));
  } catch (const std::exception& failure) {
    if (*failure.what()) std::fprintf(stderr, "kernwerk: %s\n", failure.what());
    return 2;
  }
  std::vector<char*> pointers;
  for (auto& word : arguments) pointers.push_back(word.data());
  pointers.push_back(nullptr);
  int count = int(arguments.size());
  char** values = pointers.data();
  Kokkos::ScopeGuard kokkos(count, values);
  const std::vector<std::string> words(values + 1, values + count);
  if (words.empty()) {
    if (group->rank() == 0) std::fputs(usage, stderr);
    return 2;
  }
  int status = 1;
  try {
    group->together([&] { status = dispatch(words, *group); });
  } catch (const std::exception& failure) {
    if (group->rank() == 0) std::fprintf(stderr, "kernwerk %s: %s\n", words[0].c_str(), failure.what());
    return 1;
  }
  return status;
}
