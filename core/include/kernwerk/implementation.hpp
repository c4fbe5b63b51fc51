#pragma once
// Which code path an algorithm runs: the generic Kokkos one, or a backend's tuned specialisation.
#include <string>

namespace kernwerk {

enum class implementation_kind {
  automatic,  // the tuned specialisation where the build has one for the execution space
  generic,    // the portable Kokkos implementation
  tuned,      // the backend specialisation; an error where the build has none
};

// "auto", "generic" or "tuned"; anything else is a kernwerk::invalid_argument naming `argument`.
implementation_kind parse_implementation(const std::string& text, const std::string& argument);
const char* to_string(implementation_kind kind);

// gemm has a fourth choice: the vendor's library (cuBLAS on CUDA, Eigen on the host).
enum class gemm_implementation { automatic, generic, tuned, vendor };
gemm_implementation parse_gemm_implementation(const std::string& text, const std::string& argument);
const char* to_string(gemm_implementation kind);

}  // namespace kernwerk
