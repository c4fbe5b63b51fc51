#pragma once
/// \file
/// Errors thrown by Kernwerk. Every message names the function and the argument at fault.
#include <stdexcept>
#include <string>

namespace kernwerk {

/// Base of every exception Kernwerk throws.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An argument (a View, a size, an option) the call cannot accept.
class invalid_argument : public error {
 public:
  /// The message reads "kernwerk::<function>: <argument>: <problem>".
  invalid_argument(const std::string& function, const std::string& argument,
                   const std::string& problem);
  /// The argument at fault, as the function names it.
  const std::string& argument() const noexcept { return argument_; }

 private:
  std::string argument_;
};

/// A request this build cannot serve, e.g. a tuned implementation that was not compiled in.
class unsupported : public error {
 public:
  /// The message reads "kernwerk::<function>: <argument>: <problem>".
  unsupported(const std::string& function, const std::string& argument,
              const std::string& problem);
  /// The argument (usually an option) that asked for what the build lacks.
  const std::string& argument() const noexcept { return argument_; }

 private:
  std::string argument_;
};

/// Memory the call needed could not be allocated, also in the smaller pieces it falls back to
/// where it has them (kernwerk::nearest retries in chunks). The message says what the outputs
/// hold.
class out_of_memory : public error {
 public:
  /// The message reads "kernwerk::<function>: out of memory: <problem>".
  out_of_memory(const std::string& function, const std::string& problem);
};

}  // namespace kernwerk
