#pragma once
/// \file
/// Options of kernwerk::mpi::nearest.
#include "kernwerk/nearest_options.hpp"

namespace kernwerk::mpi {

/// How kernwerk::mpi::nearest spreads the references (see kernwerk/mpi/nearest.hpp).
enum class strategy_kind {
  /// replicate where a copy of all references and their index fit in half the memory budget,
  /// else ring
  automatic,
  replicate,  ///< every rank gathers all references and searches them at once
  ring,       ///< the references stay sharded and pass around a ring of ranks
};
/// "auto", "replicate" or "ring".
inline const char* to_string(strategy_kind kind) {
  return kind == strategy_kind::replicate ? "replicate" : kind == strategy_kind::ring ? "ring" : "auto";
}

/// Where one call's time went on this rank, in seconds (filled when options.timings points
/// here). The parts are wall time in the order they happened, so that they add up to about
/// `total`: with the ring, a transfer the search hid counts as compute, a search a transfer hid
/// as exchange.
struct nearest_timings {
  double checks = 0;    ///< the arguments' checks, agreed on by every rank
  double staging = 0;   ///< copies between the execution space's memory and the message buffers
  double exchange = 0;  ///< waiting for MPI transfers
  double compute = 0;   ///< searches, index builds and merges
  double total = 0;     ///< the whole call
};

/// How the points reach MPI.
enum class message_path {
  /// in place where MPI can reach that memory (host memory; GPU memory when Open MPI says it
  /// can, through MPIX_Query_cuda_support or MPIX_Query_rocm_support, or when
  /// KERNWERK_MPI_GPU_AWARE=1 says so for a library that cannot be asked;
  /// KERNWERK_MPI_GPU_AWARE=0 says it cannot), staged otherwise
  automatic,
  staged,    ///< copied through page-locked host buffers
  in_place,  ///< MPI is handed the execution space's own memory (GPU memory needs an aware MPI)
};

/// Options of kernwerk::mpi::nearest: those of kernwerk::nearest and how ranks share the work.
struct nearest_options : kernwerk::nearest_options {
  strategy_kind strategy = strategy_kind::automatic;  ///< how the references are spread
  message_path messages = message_path::automatic;    ///< how points reach MPI
  nearest_timings* timings = nullptr;  ///< filled with this rank's times where given
};

}  // namespace kernwerk::mpi
