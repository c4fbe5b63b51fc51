#pragma once
// Errors thrown by Kernwerk. Every message names the function and the argument at fault.
#include <stdexcept>
#include <string>

namespace kernwerk {

// Base of every exception Kernwerk throws.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An argument (a View, a size, an option) the call cannot accept.
class invalid_argument : public error {
 public:
  invalid_argument(const std::string& function, const std::string& argument,
                   const std::string& problem);
  const std::string& argument() const noexcept { return argument_; }

 private:
  std::string argument_;
};

// A request this build cannot serve, e.g. a tuned implementation that was not compiled in.
class unsupported : public error {
 public:
  unsupported(const std::string& function, const std::string& argument,
              const std::string& problem);
  const std::string& argument() const noexcept { return argument_; }

 private:
  std::string argument_;
};

}  // namespace kernwerk
