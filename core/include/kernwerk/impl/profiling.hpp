#pragma once
// A Kokkos profiling region around each public call, visible in Kokkos tools' timelines.
#include <Kokkos_Core.hpp>

namespace kernwerk::impl {

// Kokkos::Profiling::ScopedRegion appeared after 3.4; this is the same RAII guard.
class scoped_region {
 public:
  explicit scoped_region(const char* name) { Kokkos::Profiling::pushRegion(name); }
  ~scoped_region() { Kokkos::Profiling::popRegion(); }
  scoped_region(const scoped_region&) = delete;
  scoped_region& operator=(const scoped_region&) = delete;
};

}  // namespace kernwerk::impl
