#pragma once
// Whether an exception says that an allocation failed. Kokkos reports it differently by version
// and memory space: a std::bad_alloc (Kokkos 4 and later, Kokkos 3.4's device spaces, operator
// new), or a std::runtime_error "Memory allocation failure" (Kokkos 3.4's host spaces, after
// printing the details).
#include <exception>
#include <new>
#include <string_view>

#include "kernwerk/error.hpp"

namespace kernwerk::impl {

inline bool allocation_failed(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e) || dynamic_cast<const out_of_memory*>(&e))
    return true;
  if (dynamic_cast<const error*>(&e)) return false;  // Kernwerk's own say what they are
  const std::string_view text = e.what();
  return text.find("allocation") != std::string_view::npos ||
         text.find("allocate") != std::string_view::npos ||
         text.find("out of memory") != std::string_view::npos;
}

}  // namespace kernwerk::impl
