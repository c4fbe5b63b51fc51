// kernwerk: the command-line face of the library.
#include <Kokkos_Core.hpp>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "commands.hpp"
#include "kernwerk/error.hpp"

namespace {

const char* const usage =
    "usage: kernwerk COMMAND [OPTIONS]\n"
    "\n"
    "commands:\n"
    "  nearest --obs FILE --ref FILE --out FILE [--degrees] [--metric haversine|euclidean]\n"
    "          [--radius R] [--dim 2|3] [--k K] [--method auto|brute|indexed]\n"
    "          [--implementation auto|generic|tuned] [--backend serial|openmp|cuda|hip]\n"
    "      For each observation, the K (default 1, at most 32) nearest reference points, nearest\n"
    "      first: CSV 'index,distance' out (index_0,distance_0,... for K > 1). A summary line\n"
    "      with the time goes to stderr, and a progress bar on long runs in a terminal.\n"
    "      Point files are CSV (lat,lon per line; a non-numeric first line is a header) or\n"
    "      raw little-endian binary of interleaved coordinates when named *.f32 or *.f64.\n"
    "      --dim gives the coordinates per point of euclidean files (default 2).\n"
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

int dispatch(const std::vector<std::string>& words) {
  using kernwerk::cli::arguments;
  const std::string& command = words[0];
  const std::vector<std::string> rest(words.begin() + 1, words.end());
  if (command == "nearest")
    return kernwerk::cli::run_nearest(arguments(
        rest,
        {"--obs", "--ref", "--out", "--metric", "--radius", "--dim", "--k", "--method",
         "--implementation", "--backend"},
        {"--degrees"}));
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
  std::fprintf(stderr, "kernwerk: unknown command '%s'\n\n%s", command.c_str(), usage);
  return 2;
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const std::vector<std::string> words(argv + 1, argv + argc);
  if (words.empty()) {
    std::fputs(usage, stderr);
    return 2;
  }
  try {
    return dispatch(words);
  } catch (const std::exception& failure) {
    std::fprintf(stderr, "kernwerk %s: %s\n", words[0].c_str(), failure.what());
    return 1;
  }
}
