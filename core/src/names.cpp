// Names of the option enums, as the command line and the C API spell them.
#include "kernwerk/error.hpp"
#include "kernwerk/fft.hpp"
#include "kernwerk/implementation.hpp"
#include "kernwerk/nearest_options.hpp"
#include "kernwerk/qr.hpp"
#include "kernwerk/within_options.hpp"

namespace kernwerk {

implementation_kind parse_implementation(const std::string& text, const std::string& argument) {
  if (text == "auto") return implementation_kind::automatic;
  if (text == "generic") return implementation_kind::generic;
  if (text == "tuned") return implementation_kind::tuned;
  throw invalid_argument("parse_implementation", argument,
                         "'" + text + "' is not one of auto, generic, tuned");
}

const char* to_string(implementation_kind kind) {
  switch (kind) {
    case implementation_kind::automatic: return "auto";
    case implementation_kind::generic: return "generic";
    case implementation_kind::tuned: return "tuned";
  }
  return "?";
}

gemm_implementation parse_gemm_implementation(const std::string& text,
                                              const std::string& argument) {
  if (text == "auto") return gemm_implementation::automatic;
  if (text == "generic") return gemm_implementation::generic;
  if (text == "tuned") return gemm_implementation::tuned;
  if (text == "vendor") return gemm_implementation::vendor;
  throw invalid_argument("parse_gemm_implementation", argument,
                         "'" + text + "' is not one of auto, generic, tuned, vendor");
}

const char* to_string(gemm_implementation kind) {
  switch (kind) {
    case gemm_implementation::automatic: return "auto";
    case gemm_implementation::generic: return "generic";
    case gemm_implementation::tuned: return "tuned";
    case gemm_implementation::vendor: return "vendor";
  }
  return "?";
}

qr_implementation parse_qr_implementation(const std::string& text, const std::string& argument) {
  if (text == "auto") return qr_implementation::automatic;
  if (text == "generic") return qr_implementation::generic;
  if (text == "vendor") return qr_implementation::vendor;
  throw invalid_argument("parse_qr_implementation", argument,
                         "'" + text + "' is not one of auto, generic, vendor");
}

const char* to_string(qr_implementation kind) {
  switch (kind) {
    case qr_implementation::automatic: return "auto";
    case qr_implementation::generic: return "generic";
    case qr_implementation::vendor: return "vendor";
  }
  return "?";
}

qr_mode parse_qr_mode(const std::string& text, const std::string& argument) {
  if (text == "reduced") return qr_mode::reduced;
  if (text == "complete") return qr_mode::complete;
  throw invalid_argument("parse_qr_mode", argument, "'" + text + "' is not one of reduced, complete");
}

const char* to_string(qr_mode mode) { return mode == qr_mode::complete ? "complete" : "reduced"; }

fft_normalization parse_fft_normalization(const std::string& text, const std::string& argument) {
  if (text == "backward") return fft_normalization::backward;
  if (text == "ortho") return fft_normalization::ortho;
  if (text == "forward") return fft_normalization::forward;
  throw invalid_argument("parse_fft_normalization", argument,
                         "'" + text + "' is not one of backward, ortho, forward");
}

const char* to_string(fft_normalization normalization) {
  switch (normalization) {
    case fft_normalization::backward: return "backward";
    case fft_normalization::ortho: return "ortho";
    case fft_normalization::forward: return "forward";
  }
  return "?";
}

metric_kind parse_metric(const std::string& text, const std::string& argument) {
  if (text == "haversine") return metric_kind::haversine;
  if (text == "euclidean") return metric_kind::euclidean;
  throw invalid_argument("parse_metric", argument,
                         "'" + text + "' is not one of haversine, euclidean");
}

const char* to_string(metric_kind kind) {
  return kind == metric_kind::haversine ? "haversine" : "euclidean";
}

method_kind parse_method(const std::string& text, const std::string& argument) {
  if (text == "auto") return method_kind::automatic;
  if (text == "brute") return method_kind::brute;
  if (text == "indexed") return method_kind::indexed;
  throw invalid_argument("parse_method", argument,
                         "'" + text + "' is not one of auto, brute, indexed");
}

const char* to_string(method_kind kind) {
  switch (kind) {
    case method_kind::automatic: return "auto";
    case method_kind::brute: return "brute";
    case method_kind::indexed: return "indexed";
  }
  return "?";
}

row_order parse_row_order(const std::string& text, const std::string& argument) {
  if (text == "nearest-first") return row_order::nearest_first;
  if (text == "any") return row_order::any;
  throw invalid_argument("parse_row_order", argument, "'" + text + "' is not one of nearest-first, any");
}

border_rule parse_border_rule(const std::string& text, const std::string& argument) {
  if (text == "nearest-core") return border_rule::nearest_core;
  if (text == "first-cluster") return border_rule::first_cluster;
  throw invalid_argument("parse_border_rule", argument,
                         "'" + text + "' is not one of nearest-core, first-cluster");
}

const char* to_string(border_rule rule) {
  return rule == border_rule::nearest_core ? "nearest-core" : "first-cluster";
}

}  // namespace kernwerk
