#pragma once
// Subcommands of the kernwerk command-line tool. Each returns the process exit status and
// throws kernwerk::error for bad input (main prints the message).
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kernwerk::cli {

// `--name value` options and `--flag` switches of one subcommand, checked against what it takes.
class arguments {
 public:
  arguments(const std::vector<std::string>& words, const std::set<std::string>& valued,
            const std::set<std::string>& flags);
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  std::string text(const std::string& name, const std::string& fallback) const;
  std::string required(const std::string& name) const;
  double number(const std::string& name, double fallback) const;
  long long integer(const std::string& name, long long fallback) const;

 private:
  std::map<std::string, std::string> values_;
};

int run_nearest(const arguments& args);
int run_info(const arguments& args);
int run_demo(const arguments& args);

}  // namespace kernwerk::cli
