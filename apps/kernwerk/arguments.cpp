#include "arguments.hpp"

#include <exception>
#include <string>

namespace kernwerk::cli {

arguments::arguments(const command_options& command, const std::vector<std::string>& words) {
  for (std::size_t k = 0; k < words.size(); ++k) {
    const std::string& word = words[k];
    if (values_.count(word)) throw usage_error(word + ": given twice");
    if (command.flags.count(word)) {
      values_[word] = "";
    } else if (command.valued.count(word)) {
      if (k + 1 == words.size()) throw usage_error(word + ": needs a value");
      values_[word] = words[++k];
    } else {
      throw usage_error(word + ": unknown option");
    }
  }
}

std::string arguments::text(const std::string& name, const std::string& fallback) const {
  const auto found = values_.find(name);
  return found == values_.end() ? fallback : found->second;
}

std::string arguments::required(const std::string& name) const {
  const auto found = values_.find(name);
  if (found == values_.end()) throw usage_error(name + ": required");
  return found->second;
}

double arguments::number(const std::string& name, double fallback) const {
  if (!has(name)) return fallback;
  const std::string& value = values_.at(name);
  std::size_t used = 0;
  double result = 0;
  try {
    result = std::stod(value, &used);
  } catch (const std::exception&) {
  }
  if (used == 0 || used != value.size()) throw usage_error(name + ": '" + value + "' is not a number");
  return result;
}

long long arguments::integer(const std::string& name, long long fallback) const {
  if (!has(name)) return fallback;
  const std::string& value = values_.at(name);
  std::size_t used = 0;
  long long result = 0;
  try {
    result = std::stoll(value, &used);
  } catch (const std::exception&) {
  }
  if (used == 0 || used != value.size())
    throw usage_error(name + ": '" + value + "' is not an integer");
  return result;
}

const command_options* find_command(const std::string& name) {
  static const std::vector<command_options> table = {
      {"nearest",
       {"--obs", "--ref", "--out", "--out-format", "--metric", "--radius", "--dim", "--k", "--method",
        "--implementation", "--backend", "--strategy"},
       {"--degrees"}},
      {"demo", {"--observations", "--references", "--seed", "--check"}, {}},
      {"diffuse",
       {"--steps", "--out", "--size", "--seed", "--in", "--rows", "--columns", "--coeff", "--implementation",
        "--backend"},
       {"--laplacian"}},
      {"info", {}, {}},
      {"qr", {"--in", "--q", "--r", "--mode", "--shape", "--implementation", "--backend"}, {}},
      {"fft", {"--in", "--out", "--norm", "--length", "--shape", "--backend"}, {"--inverse", "--real", "--plane"}},
      {"within",
       {"--queries", "--points", "--distance", "--out", "--metric", "--radius", "--dim", "--backend", "--order"},
       {"--degrees", "--no-distances"}},
      {"dbscan",
       {"--in", "--eps", "--min-samples", "--out", "--metric", "--radius", "--dim", "--border", "--backend"},
       {"--degrees"}},
  };
  for (const auto& command : table)
    if (command.name == name) return &command;
  return nullptr;
}

}  // namespace kernwerk::cli
