#include "process_group.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <utility>

#ifdef KERNWERK_CLI_MPI
#include <mpi.h>
#endif

#include "commands.hpp"  // usage_error
#include "kernwerk/info.hpp"
#include "output_file.hpp"
#include "point_file.hpp"  // share_first

namespace kernwerk::cli {

namespace {

const char* environment(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : nullptr;
}

// Whether an MPI launcher started this process (Open MPI, MPICH's and Intel's Hydra,
// MVAPICH, Slurm's srun with PMI or PMIx).
bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE", "PMIX_RANK"})
    if (environment(name)) return true;
  return false;
}

#ifndef KERNWERK_CLI_MPI
// The number of processes the launcher started, where it says (1 otherwise).
long launched_processes() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE"})
    if (const char* value = environment(name)) return std::max(1L, std::atol(value));
  return 1;
}

bool launched_rank_zero() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "MV2_COMM_WORLD_RANK", "PMIX_RANK"})
    if (const char* value = environment(name)) return std::atol(value) == 0;
  return true;
}
#endif

#ifdef KERNWERK_CLI_MPI
void check_mpi(int code, const char* call) {
  if (code != MPI_SUCCESS)
    throw error(std::string(call) + " failed (MPI error " + std::to_string(code) + ")");
}

// Whether the command line or the environment already picks Kokkos' device.
bool device_chosen(const std::vector<std::string>& arguments) {
  for (const auto& word : arguments)
    for (const char* option : {"--kokkos-device-id", "--kokkos-num-devices", "--kokkos-map-device-id-by",
                               "--kokkos-device", "--device-id", "--num-devices"})
      if (word.rfind(option, 0) == 0) return true;
  return environment("KOKKOS_DEVICE_ID") || environment("KOKKOS_NUM_DEVICES");
}

int node_rank() {
  MPI_Comm node;
  check_mpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
  int rank = 0;
  MPI_Comm_rank(node, &rank);
  MPI_Comm_free(&node);
  return rank;
}

// Rows of `dimension` doubles as one MPI element, so that counts are counts of rows.
struct row_type {
  MPI_Datatype type;
  explicit row_type(std::size_t dimension) {
    check_mpi(MPI_Type_contiguous(int(dimension), MPI_DOUBLE, &type), "MPI_Type_contiguous");
    check_mpi(MPI_Type_commit(&type), "MPI_Type_commit");
  }
  ~row_type() { MPI_Type_free(&type); }
};

constexpr int text_tag = 7301;
constexpr std::size_t text_piece = std::size_t(1) << 26;  // bytes per message of output text

// Receives rank `from`'s text pieces up to the empty one that ends them.
void receive_text(int from, const process_group::emitter& emit) {
  std::vector<char> buffer;
  for (;;) {
    MPI_Status status;
    check_mpi(MPI_Probe(from, text_tag, MPI_COMM_WORLD, &status), "MPI_Probe");
    int bytes = 0;
    check_mpi(MPI_Get_count(&status, MPI_CHAR, &bytes), "MPI_Get_count");
    buffer.resize(std::size_t(std::max(bytes, 1)));
    check_mpi(MPI_Recv(buffer.data(), bytes, MPI_CHAR, from, text_tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
              "MPI_Recv");
    if (bytes == 0) return;
    emit(buffer.data(), std::size_t(bytes));
  }
}

// Rank `root`'s text on every rank.
std::string broadcast_text(std::string text, int root) {
  unsigned long long length = text.size();
  check_mpi(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, root, MPI_COMM_WORLD), "MPI_Bcast");
  text.resize(length);
  check_mpi(MPI_Bcast(text.data(), int(length), MPI_CHAR, root, MPI_COMM_WORLD), "MPI_Bcast");
  return text;
}
#endif

}  // namespace

process_group process_group::start(std::vector<std::string>& arguments) {
  process_group group;
  if (!launched_by_mpi()) return group;
#ifdef KERNWERK_CLI_MPI
  int argc = 0;
  char** argv = nullptr;
  int provided = 0;
  check_mpi(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  group.started_mpi_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &group.rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &group.size_);
  const int devices = visible_devices();
  if (devices > 0 && !device_chosen(arguments))
    arguments.push_back("--kokkos-device-id=" + std::to_string(node_rank() % devices));
#else
  (void)arguments;
  if (launched_processes() > 1)
    throw group_error(launched_rank_zero()
                          ? "this kernwerk was built without MPI (KERNWERK_ENABLE_MPI=OFF): run it "
                            "without mpirun, or build it with MPI"
                          : "");
#endif
  return group;
}

process_group::process_group(process_group&& other) noexcept
    : rank_(other.rank_), size_(other.size_), started_mpi_(std::exchange(other.started_mpi_, false)) {}

process_group::~process_group() {
#ifdef KERNWERK_CLI_MPI
  if (started_mpi_) MPI_Finalize();
#endif
}

void process_group::together(const std::function<void()>& step) const {
  if (!started_mpi_) return step();
#ifdef KERNWERK_CLI_MPI
  std::string failure;
  int status = 0;
  try {
    step();
  } catch (const group_error& e) {
    status = e.status();
    failure = e.what();
  } catch (const usage_error& e) {
    status = 2;
    failure = e.what();
  } catch (const std::exception& e) {
    status = 1;
    failure = e.what();
  }
  int mine = status ? rank_ : INT_MAX, first = INT_MAX;
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  if (first == INT_MAX) return;
  check_mpi(MPI_Bcast(&status, 1, MPI_INT, first, MPI_COMM_WORLD), "MPI_Bcast");
  throw group_error(broadcast_text(failure, first), status);
#endif
}

std::size_t process_group::first_row(std::size_t count, int rank) const {
  return share_first(count, rank, size_);
}

std::uint64_t process_group::broadcast(std::uint64_t value) const {
#ifdef KERNWERK_CLI_MPI
  if (started_mpi_)
    check_mpi(MPI_Bcast(&value, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
#endif
  return value;
}

std::vector<double> process_group::scatter_rows(const std::vector<double>& values, std::size_t count,
                                                std::size_t dimension) const {
  if (!started_mpi_) return values;
  std::vector<double> share((first_row(count, rank_ + 1) - first_row(count, rank_)) * dimension);
#ifdef KERNWERK_CLI_MPI
  if (first_row(count, 1) > std::size_t(INT_MAX))
    throw error("a point file of " + std::to_string(count) + " points is too large to scatter from one "
                "rank over " + std::to_string(size_) + " (use a binary .f32 or .f64 file)");
  std::vector<int> counts(static_cast<std::size_t>(size_)), offsets(counts.size());
  for (int r = 0; r < size_; ++r) {
    offsets[r] = int(first_row(count, r));
    counts[r] = int(first_row(count, r + 1) - first_row(count, r));
  }
  const row_type row(dimension);
  check_mpi(MPI_Scatterv(values.data(), counts.data(), offsets.data(), row.type, share.data(),
                         counts[rank_], row.type, 0, MPI_COMM_WORLD),
            "MPI_Scatterv");
#endif
  return share;
}

void process_group::write_in_rank_order(const std::string& path,
                                        const std::function<void(const emitter& emit)>& produce) const {
  const auto write_file = [&](const std::function<void(const emitter&)>& after_own) {
    write_output(path, [&](std::FILE* out) {
      const emitter to_file = [&](const char* data, std::size_t bytes) { write_bytes(out, data, bytes, path); };
      produce(to_file);
      after_own(to_file);
    });
  };
  if (!started_mpi_) return write_file([](const emitter&) {});
#ifdef KERNWERK_CLI_MPI
  std::string failure;
  if (rank_ == 0) {
    int next = 1;  // the rank whose text comes next: after a failure, the rest is received and dropped
    try {
      write_file([&](const emitter& to_file) {
        for (; next < size_; ++next) receive_text(next, to_file);
      });
    } catch (const std::exception& e) {
      failure = e.what();
    }
    for (; next < size_; ++next) receive_text(next, [](const char*, std::size_t) {});
  } else {
    std::string text;
    produce([&](const char* data, std::size_t bytes) { text.append(data, bytes); });
    for (std::size_t at = 0; at < text.size(); at += text_piece)
      check_mpi(MPI_Send(text.data() + at, int(std::min(text_piece, text.size() - at)), MPI_CHAR, 0,
                         text_tag, MPI_COMM_WORLD),
                "MPI_Send");
    check_mpi(MPI_Send(nullptr, 0, MPI_CHAR, 0, text_tag, MPI_COMM_WORLD), "MPI_Send");
  }
  failure = broadcast_text(failure, 0);
  if (!failure.empty()) throw group_error(failure);
#endif
}

}  // namespace kernwerk::cli
