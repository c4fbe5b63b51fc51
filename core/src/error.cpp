#include "kernwerk/error.hpp"

namespace kernwerk {

invalid_argument::invalid_argument(const std::string& function, const std::string& argument,
                                   const std::string& problem)
    : error("kernwerk::" + function + ": " + argument + ": " + problem), argument_(argument) {}

unsupported::unsupported(const std::string& function, const std::string& argument,
                         const std::string& problem)
    : error("kernwerk::" + function + ": " + argument + ": " + problem), argument_(argument) {}

out_of_memory::out_of_memory(const std::string& function, const std::string& problem)
    : error("kernwerk::" + function + ": out of memory: " + problem) {}

}  // namespace kernwerk
