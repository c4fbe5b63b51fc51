// Fuzz target: the command-line tool's option parsing (apps/kernwerk/arguments.hpp): the input's
// lines (or NUL-separated words) are a command line, its first the command. The words are read against the command's
// options, then every option's value is taken as text, number, integer, shape and each named
// choice the tool parses (--metric, --method, --implementation, --mode, --norm, --border). Each
// must give a value or a kernwerk::cli::usage_error naming the option; nothing else may escape.
#include <cstdint>
#include <string>
#include <vector>

#include "array_file.hpp"
#include "arguments.hpp"
#include "fuzz_files.hpp"
#include "kernwerk/fft.hpp"
#include "kernwerk/implementation.hpp"
#include "kernwerk/nearest_options.hpp"
#include "kernwerk/qr.hpp"
#include "kernwerk/within_options.hpp"

namespace {

using kernwerk::cli::usage_error;

// Runs one reading of an option; a usage error must name it.
template <class Read>
void reading(const std::string& option, Read&& read) {
  try {
    read();
  } catch (const usage_error& bad) {
    KERNWERK_FUZZ_REQUIRE(std::string(bad.what()).find(option) != std::string::npos);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kernwerk;
  std::vector<std::string> words(1);
  for (std::size_t b = 0; b < size; ++b) {
    if (data[b] == '\n' || data[b] == '\0') words.emplace_back();  // (no word of argv holds a NUL)
    else words.back() += char(data[b]);
  }
  const cli::command_options* command = cli::find_command(words[0]);
  if (!command) return 0;
  try {
    const cli::arguments args(*command, {words.begin() + 1, words.end()});
    for (const auto& option : command->valued) {
      reading(option, [&] { args.required(option); });
      reading(option, [&] { args.number(option, 0.0); });
      reading(option, [&] { args.integer(option, 0); });
      reading(option, [&] { args.parsed(option, "1", cli::parse_shape); });
      reading(option, [&] { args.parsed(option, "haversine", parse_metric); });
      reading(option, [&] { args.parsed(option, "auto", parse_method); });
      reading(option, [&] { args.parsed(option, "auto", parse_implementation); });
      reading(option, [&] { args.parsed(option, "auto", parse_qr_implementation); });
      reading(option, [&] { args.parsed(option, "reduced", parse_qr_mode); });
      reading(option, [&] { args.parsed(option, "backward", parse_fft_normalization); });
      reading(option, [&] { args.parsed(option, "nearest-core", parse_border_rule); });
    }
    for (const auto& flag : command->flags) KERNWERK_FUZZ_REQUIRE(args.has(flag) == (args.text(flag, "-") == ""));
  } catch (const usage_error& bad) {
    // an unknown option, one without its value or one given twice: the message names the word
    const std::string message = bad.what();
    KERNWERK_FUZZ_REQUIRE(message.find(": unknown option") != std::string::npos ||
                          message.find(": needs a value") != std::string::npos ||
                          message.find(": given twice") != std::string::npos);
  }
  return 0;
}
