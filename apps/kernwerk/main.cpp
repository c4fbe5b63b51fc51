// kernwerk: the command-line face of the library.
#include <Kokkos_Core.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "process_group.hpp"
#include "kernwerk/config.hpp"
#include "kernwerk/error.hpp"

namespace {

// Each command's part of the help: the command name, then its text.
struct command_help {
  const char* name;
  const char* text;
};
const command_help commands[] = {
    {"nearest",
     "  nearest --obs FILE --ref FILE --out FILE [--out-format csv|npy] [--degrees]\n"
     "          [--metric haversine|euclidean] [--radius R] [--dim 2|3] [--k K]\n"
     "          [--method auto|brute|indexed] [--implementation auto|generic|tuned]\n"
     "          [--backend serial|openmp|cuda|hip] [--strategy auto|replicate|ring|partitioned]\n"
     "      For each observation, the K (default 1, at most 32) nearest reference points, nearest\n"
     "      first: CSV 'index,distance' out (index_0,distance_0,... for K > 1), or with an --out\n"
     "      named *.npy (or --out-format npy) a NumPy array of shape (observations, K) and dtype\n"
     "      [('index', '<i8'), ('distance', '<f8')]. A summary line with the time goes to\n"
     "      stderr, and a progress bar on long runs in a terminal.\n"
     "      Point files are CSV (lat,lon per line; a non-numeric first line is a header), raw\n"
     "      little-endian binary of interleaved coordinates when named *.f32 or *.f64, or NumPy\n"
     "      float32/float64 arrays of shape (n, 2) or (n, 3) when named *.npy. FILE '-' is\n"
     "      standard input (CSV or .npy) for --obs or --ref, standard output for --out.\n"
     "      --dim gives the coordinates per point of euclidean files (default 2).\n"
     "      Under an MPI launcher (mpirun -np P kernwerk nearest ...) the ranks share the work,\n"
     "      one GPU each, and write the same output as one process; --strategy forces how the\n"
     "      references meet: copied to every rank (replicate), passed around (ring), or spread\n"
     "      over the ranks by region in a distributed index (partitioned).\n"},
    {"within",
     "  within --queries FILE --points FILE --distance D --out FILE [--degrees]\n"
     "         [--metric haversine|euclidean] [--radius R] [--dim 2|3] [--backend B]\n"
     "         [--order nearest-first|any] [--no-distances]\n"
     "      Every point within distance D of each query (a point at exactly D counts): CSV\n"
     "      'query,index,distance', one line a pair, each query's nearest first (equal\n"
     "      distances by index). Distances and D are in the units of kernwerk nearest's\n"
     "      (haversine: radians times R). Point files as for nearest. --order any leaves each\n"
     "      query's lines in any order and --no-distances drops the column ('query,index'):\n"
     "      both cost less.\n"},
    {"dbscan",
     "  dbscan --in FILE --eps E --min-samples M --out FILE [--degrees]\n"
     "         [--metric haversine|euclidean] [--radius R] [--dim 2|3]\n"
     "         [--border nearest-core|first-cluster] [--backend B]\n"
     "      Density-based clusters: CSV 'label', one line a point, -1 for noise, clusters\n"
     "      numbered from 0 in the order of their smallest core point. A core point has at\n"
     "      least M points within E, itself included; a border point joins the cluster of its\n"
     "      nearest core point, or with first-cluster the lowest-numbered cluster within E\n"
     "      (scikit-learn's labels).\n"},
    {"demo",
     "  demo [--observations N] [--references M] [--seed S] [--check K]\n"
     "      Uniform random points on the sphere (default 2^16 x 2^13), solved, K of them\n"
     "      checked against a float64 brute force; prints the time and pairs per second.\n"},
    {"diffuse",
     "  diffuse --steps S --out PREFIX [--size RxC [--seed N] | --in FILE [--rows R --columns C]]\n"
     "          [--coeff C] [--laplacian] [--implementation auto|generic|tuned] [--backend B]\n"
     "      The course's 2-D diffusion (5-point stencil, float32) for S steps, on a jagged\n"
     "      generated field (default 2000x2000), a 2-D float32/float64 .npy array or a raw\n"
     "      .f32/.f64 grid (row-major, R x C). Writes\n"
     "      PREFIX.f32 (raw float32) and PREFIX.png (grayscale, min..max), and with --laplacian\n"
     "      PREFIX-laplacian.f32/.png; the time per step goes to stderr.\n"},
    {"qr",
     "  qr --in FILE --q FILE --r FILE [--mode reduced|complete] [--shape MxN]\n"
     "     [--implementation auto|generic|vendor] [--backend B]\n"
     "      A = Q R for the m x n matrix A (m >= n) in a float32 or float64 .npy file (either\n"
     "      order) or a raw row-major .f32/.f64 one (--shape MxN). Q (m x n, or m x m with\n"
     "      --mode complete) and R (n x n, or m x n) are written in A's type as .npy, or raw\n"
     "      when named .f32/.f64; R is upper triangular with a non-negative diagonal. vendor is\n"
     "      LAPACK or cuSOLVER, generic Kernwerk's own Householder QR.\n"},
    {"fft",
     "  fft --in FILE --out FILE [--inverse] [--real] [--plane] [--norm backward|ortho|forward]\n"
     "      [--length L] [--shape N|RxC] [--backend B]\n"
     "      The discrete Fourier transform of a 1-D array, of each row of a 2-D one (NumPy's\n"
     "      fft along the last axis), or with --plane of a 2-D one (fft2). Complex to complex\n"
     "      (complex64/complex128), or with --real real to complex (forward: the half spectrum,\n"
     "      n / 2 + 1 values along the last axis, as rfft) and complex to real (--inverse: irfft,\n"
     "      L values, default 2 (n - 1)). --norm as NumPy's (backward: the inverse scaled by\n"
     "      1/N). Files are .npy, or raw .f32/.f64/.c64/.c128 (interleaved real and imaginary\n"
     "      parts) with --shape; the output keeps the input's precision.\n"},
    {"info", "  info\n      Kernwerk and Kokkos versions, enabled backends and devices.\n"},
};

const char* const usage_tail =
    "\n"
    "kernwerk --help, kernwerk help [COMMAND] or kernwerk COMMAND --help print this; --version\n"
    "the version. Exit status: 0 done, 1 the run failed (a bad file, a failed write, an error\n"
    "of the computation), 2 the command line is wrong. Kokkos options (--kokkos-num-threads=N,\n"
    "--kokkos-device-id=D, ...) are accepted too. Unless OMP_PROC_BIND is set, OpenMP threads\n"
    "are bound spread over the cores (OMP_PROC_BIND=spread, OMP_PLACES=threads).\n";

// The help of one command, or of all of them (command empty or unknown).
std::string usage(const std::string& command = "") {
  std::string text = "usage: kernwerk COMMAND [OPTIONS]\n\ncommands:\n";
  bool known = false;
  for (const auto& c : commands) known = known || command == c.name;
  for (const auto& c : commands)
    if (!known || command == c.name) text += c.text;
  return text + usage_tail;
}

// The commands' names, comma-separated.
std::string command_names() {
  std::string names;
  for (const auto& c : commands) names += (names.empty() ? "" : ", ") + std::string(c.name);
  return names;
}

int dispatch(const std::vector<std::string>& words, const kernwerk::cli::process_group& group) {
  using namespace kernwerk::cli;
  const std::string& name = words[0];
  const command_options* command = find_command(name);
  if (!command) {
    if (group.rank() == 0)
      std::fprintf(stderr, "kernwerk: unknown command '%s' (commands: %s; kernwerk --help tells more)\n",
                   name.c_str(), command_names().c_str());
    return 2;
  }
  if (name != "nearest" && group.size() > 1)
    throw kernwerk::error("runs on one process; of the commands, nearest alone runs on MPI ranks "
                          "(start this one without mpirun)");
  const arguments args(*command, {words.begin() + 1, words.end()});
  if (name == "nearest") return run_nearest(args, group);
  if (name == "demo") return run_demo(args);
  if (name == "diffuse") return run_diffuse(args);
  if (name == "info") return run_info(args);
  if (name == "qr") return run_qr(args);
  if (name == "fft") return run_fft(args);
  if (name == "within") return run_within(args);
  return run_dbscan(args);
}

bool asks_for_help(const std::string& word) { return word == "--help" || word == "-h" || word == "help"; }

// Help and the version, answered before Kokkos starts (which would answer --help itself):
// true when the arguments asked for one of them.
bool answered_before_start(const std::vector<std::string>& words) {
  if (words.empty()) return false;
  if (words[0] == "--version") {
    std::printf("kernwerk %s (Kokkos %d.%d.%d)\n", KERNWERK_VERSION_STRING, KOKKOS_VERSION / 10000,
                KOKKOS_VERSION / 100 % 100, KOKKOS_VERSION % 100);
    return true;
  }
  if (asks_for_help(words[0])) {
    std::fputs(usage(words.size() > 1 ? words[1] : "").c_str(), stdout);
    return true;
  }
  for (std::size_t w = 1; w < words.size(); ++w)
    if (words[w] == "--help" || words[w] == "-h") {
      std::fputs(usage(words[0]).c_str(), stdout);
      return true;
    }
  return false;
}

// OpenMP binds threads only when the environment says so before the process starts (the
// runtime reads it at load), and Kokkos warns when it does not: with neither OMP_PROC_BIND nor
// OMP_PLACES set, the tool starts itself again with spread binding.
void bind_threads_by_default(char* argv[]) {
#ifdef KOKKOS_ENABLE_OPENMP
  if (std::getenv("OMP_PROC_BIND") || std::getenv("OMP_PLACES")) return;
  setenv("OMP_PROC_BIND", "spread", 1);
  setenv("OMP_PLACES", "threads", 1);
  execv("/proc/self/exe", argv);  // returns only when it failed: then run unbound, as before
  unsetenv("OMP_PROC_BIND");
  unsetenv("OMP_PLACES");
#else
  (void)argv;
#endif
}

}  // namespace

// Under an MPI launcher every rank runs main alike: the command's failures are agreed on by
// every rank (process_group::together), so that every rank exits with the same status and rank
// 0 alone prints the message.
int main(int argc, char* argv[]) {
  using kernwerk::cli::process_group;
  std::vector<std::string> arguments(argv, argv + argc);
  if (answered_before_start({arguments.begin() + 1, arguments.end()})) return 0;
  bind_threads_by_default(argv);
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
    if (group->rank() == 0) std::fputs(usage().c_str(), stderr);
    return 2;
  }
  int status = 1;
  try {
    group->together([&] { status = dispatch(words, *group); });
  } catch (const std::exception& failure) {
    // Usage errors exit with 2 (on every rank: group_error carries the status), others with 1.
    int code = 1;
    if (const auto* agreed = dynamic_cast<const kernwerk::cli::group_error*>(&failure)) code = agreed->status();
    if (dynamic_cast<const kernwerk::cli::usage_error*>(&failure)) code = 2;
    // (std::bad_alloc says only its name: the run's arrays did not fit in the host's memory)
    const bool memory = dynamic_cast<const std::bad_alloc*>(&failure) != nullptr;
    if (group->rank() == 0)
      std::fprintf(stderr, "kernwerk %s: %s%s\n", words[0].c_str(),
                   memory ? "out of memory: the run's arrays do not fit in this machine's memory" : failure.what(),
                   code == 2 ? (" (kernwerk " + words[0] + " --help tells more)").c_str() : "");
    return code;
  }
  return status;
}
