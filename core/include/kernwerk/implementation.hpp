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

}  // namespace kernwerk
