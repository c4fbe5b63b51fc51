#pragma once
// What the file-reading fuzz targets share: the input's bytes written to a file of the given name
// in a private scratch folder (the readers take paths: their seeks, sizes and suffix rules run as
// the tool runs them), removed when the process ends.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <unistd.h>

namespace kernwerk::fuzz {

// (a plain array: it must outlive the exit handler that removes the folder)
inline char scratch_folder_name[] = "/tmp/kernwerk-fuzz-XXXXXX";

inline const char* scratch_folder() {
  static const bool made = [] {
    if (!::mkdtemp(scratch_folder_name)) std::abort();
    std::atexit([] { std::system((std::string("rm -rf '") + scratch_folder_name + "'").c_str()); });
    return true;
  }();
  (void)made;
  return scratch_folder_name;
}

// Writes the bytes to scratch_folder()/name and returns its path.
inline std::string write_input(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const std::string path = std::string(scratch_folder()) + "/" + name;
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) std::abort();
  if (size && std::fwrite(data, 1, size, file) != size) std::abort();
  if (std::fclose(file) != 0) std::abort();
  return path;
}

// A broken promise of the code under test: the fuzzer reports it as a crash.
#define KERNWERK_FUZZ_REQUIRE(condition)                                                  \
  do {                                                                                    \
    if (!(condition)) {                                                                   \
      std::fprintf(stderr, "%s:%d: requirement failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                       \
    }                                                                                     \
  } while (0)

}  // namespace kernwerk::fuzz
