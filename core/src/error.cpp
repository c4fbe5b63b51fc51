#include "kernwerk/error.hpp"

namespace kernwerk {

invalid_argument::invalid_argument(const std::string& function, const std::string& argument,
                                   const std::string& problem)
    : error("kernwerk::" + function + ": " + argument + ": " + problem), argument_(argument) {}

unsupported::unsupported(const std::string& function, const std::string& argument,
                         const std::string& problem)
    : error("kernwerk::" + function + ": " + argument + ": " + problem), argument_(argument) {}

}  // namespace kernwerk
