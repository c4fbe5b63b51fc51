#pragma once
// The command line of the kernwerk tool: which options each subcommand takes, and the words of
// one command line read against them. Nothing here starts Kokkos or touches a file (the
// option-parsing fuzz target, tests/fuzz, runs it alone).
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kernwerk/error.hpp"

namespace kernwerk::cli {

// A command line the tool cannot take (an unknown option, a missing or malformed value): the
// tool exits with status 2 for it, 1 for a run that failed.
class usage_error : public error {
 public:
  using error::error;
};

// The options of one subcommand: `--name value` options and `--flag` switches.
struct command_options {
  std::string name;
  std::set<std::string> valued, flags;
};

// Every subcommand's options; null for a command the tool does not know.
const command_options* find_command(const std::string& name);

// The words after a subcommand's name, checked against the options it takes.
class arguments {
 public:
  arguments(const command_options& command, const std::vector<std::string>& words);
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  std::string text(const std::string& name, const std::string& fallback) const;
  std::string required(const std::string& name) const;
  double number(const std::string& name, double fallback) const;
  long long integer(const std::string& name, long long fallback) const;
  // parse(text, name) of the value (or fallback), its kernwerk::error a usage_error.
  template <class Parse>
  auto parsed(const std::string& name, const std::string& fallback, Parse&& parse) const {
    try {
      return parse(text(name, fallback), name.c_str());
    } catch (const usage_error&) {
      throw;
    } catch (const error& bad) {
      throw usage_error(bad.what());
    }
  }

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace kernwerk::cli
