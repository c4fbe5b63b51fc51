#pragma once
// The parts of the benchmarks' list options ("16x13,20x14", "1,8,32"), and of their parts.
#include <sstream>
#include <string>
#include <vector>

namespace kernwerk_perf {

// The pieces of `text` between separators, in order (none for an empty text).
inline std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);) parts.push_back(part);
  return parts;
}

}  // namespace kernwerk_perf
