#pragma once
// The bad-input catalogue (bad_inputs.txt) for the C++ drivers of the C++, C and CLI interfaces.
#include <doctest/doctest.h>

#include <array>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kernwerk::test {

enum class interface { cxx, c, fortran, cli };

struct bad_input {
  std::string name;
  std::array<std::string, 4> argument;  // by interface; "-": the interface cannot express it
  const std::string& named_by(interface i) const { return argument[int(i)]; }
};

inline std::vector<bad_input> bad_input_catalogue() {
  std::ifstream file(KERNWERK_TEST_BAD_INPUTS);
  REQUIRE_MESSAGE(file.good(), "cannot read " KERNWERK_TEST_BAD_INPUTS);
  std::vector<bad_input> cases;
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    bad_input c;
    fields >> c.name;
    for (auto& argument : c.argument) fields >> argument;
    REQUIRE_MESSAGE(!fields.fail(), "bad_inputs.txt: a line without five fields: " << line);
    cases.push_back(c);
  }
  REQUIRE(cases.size() >= 15);
  return cases;
}

}  // namespace kernwerk::test
