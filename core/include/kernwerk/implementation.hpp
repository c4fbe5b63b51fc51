#pragma once
/// \file
/// Which code path an algorithm runs: the generic Kokkos one, or a backend's tuned specialisation.
#include <string>

namespace kernwerk {

/// The code path of an algorithm (the options' `implementation`).
enum class implementation_kind {
  automatic,  ///< the tuned specialisation where the build has one for the execution space
  generic,    ///< the portable Kokkos implementation
  tuned,      ///< the backend specialisation; kernwerk::unsupported where the build has none
};

/// "auto", "generic" or "tuned"; anything else is a kernwerk::invalid_argument naming `argument`.
implementation_kind parse_implementation(const std::string& text, const std::string& argument);
/// "auto", "generic" or "tuned".
const char* to_string(implementation_kind kind);

/// The code path of kernwerk::gemm: the choices of implementation_kind and the vendor's library.
enum class gemm_implementation {
  /// the vendor library where the build has one for the Views, else the tuned kernel where it
  /// covers the call, else the generic one
  automatic,
  generic,  ///< the portable Kokkos implementation
  tuned,    ///< the backend's tiled kernel; kernwerk::unsupported where it does not cover the call
  /// cuBLAS on CUDA, Eigen on the host; kernwerk::unsupported where the build has none for the
  /// Views
  vendor,
};
/// "auto", "generic", "tuned" or "vendor"; anything else is a kernwerk::invalid_argument naming
/// `argument`.
gemm_implementation parse_gemm_implementation(const std::string& text, const std::string& argument);
/// "auto", "generic", "tuned" or "vendor".
const char* to_string(gemm_implementation kind);

}  // namespace kernwerk
