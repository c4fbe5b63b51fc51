#pragma once
// The processes one run of the tool is made of: this process alone, or, when an MPI launcher
// (mpirun, mpiexec, srun with PMI/PMIx) started it in a build with MPI, the ranks of
// MPI_COMM_WORLD. The nearest command spreads its work over them; every other command runs on
// one process.
//
// What ranks do together is agreed: a step that fails on some rank fails on every rank with the
// error of the lowest such rank, so that every rank exits alike, rank 0 alone prints it, and no
// rank waits for one that has given up.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernwerk/error.hpp"

namespace kernwerk::cli {

// An error every rank of the group holds alike (printed once, by rank 0), with the exit
// status it calls for: 2 for a usage_error, else 1.
class group_error : public error {
 public:
  explicit group_error(const std::string& message, int status = 1) : error(message), status_(status) {}
  int status() const noexcept { return status_; }

 private:
  int status_;
};

class process_group {
 public:
  // Starts MPI when an MPI launcher started this process (before Kokkos), and on GPU builds adds
  // --kokkos-device-id=<node-local rank modulo the GPUs> to the arguments unless they choose a
  // device already. `arguments` are the process's arguments, program name first.
  static process_group start(std::vector<std::string>& arguments);
  ~process_group();  // MPI_Finalize where start() began MPI (after Kokkos has finalised)
  process_group(process_group&& other) noexcept;
  process_group(const process_group&) = delete;
  process_group& operator=(const process_group&) = delete;
  process_group& operator=(process_group&&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool distributed() const { return started_mpi_; }

  // Runs step() on every rank; where it threw on some rank, every rank throws a group_error
  // with the message and status of the lowest such rank (alone, the step's own exception).
  void together(const std::function<void()>& step) const;

  // The first of the rows that `rank` takes of `count` rows split evenly over the group
  // (rank size() gives count): share_first, the split of read_points(path, dimension, rank, size()).
  std::size_t first_row(std::size_t count, int rank) const;

  // Rank 0's value, on every rank.
  std::uint64_t broadcast(std::uint64_t value) const;

  // Every rank's share (first_row(count, rank) up to the next rank's) of `count` rows of
  // `dimension` doubles that rank 0 holds in `values` (read on rank 0 only).
  std::vector<double> scatter_rows(const std::vector<double>& values, std::size_t count,
                                   std::size_t dimension) const;

  // The output file `path` (see output_file.hpp) made of every rank's text in rank order:
  // each rank's produce(emit) hands its text to emit in pieces; rank 0 writes its own straight
  // to the file and then the others' as they arrive. Collective: where the write fails, every
  // rank throws rank 0's error, and no rank is left waiting.
  using emitter = std::function<void(const char* data, std::size_t bytes)>;
  void write_in_rank_order(const std::string& path,
                           const std::function<void(const emitter& emit)>& produce) const;

 private:
  process_group() = default;
  int rank_ = 0, size_ = 1;
  bool started_mpi_ = false;
};

}  // namespace kernwerk::cli
