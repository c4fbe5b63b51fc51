// kernwerk qr and kernwerk fft: QR factorisations and Fourier transforms of arrays in .npy or
// raw files (array_file.hpp), on the chosen backend.
#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <utility>

#include "array_file.hpp"
#include "commands.hpp"
#include "kernwerk/error.hpp"
#include "kernwerk/fft.hpp"
#include "kernwerk/qr.hpp"

namespace kernwerk::cli {

namespace {

// --shape of a raw input (empty for .npy).
std::vector<std::size_t> raw_shape(const arguments& args) {
  if (!args.has("--shape")) return {};
  return args.parsed("--shape", "", [](const std::string& text, const char* option) {
    try {
      return parse_shape(text, option);
    } catch (const error& bad) {
      throw usage_error(bad.what());
    }
  });
}

template <class T>
using host_matrix = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

// A host array's values in a View of the space's memory (rank 1 or 2, row-major).
template <class V, class Space>
Kokkos::View<V**, Kokkos::LayoutRight, typename Space::memory_space> on_space(const dense_array& a, std::size_t rows,
                                                                               std::size_t columns) {
  Kokkos::View<V**, Kokkos::LayoutRight, typename Space::memory_space> v(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::cli::array"), rows, columns);
  Kokkos::deep_copy(v, host_matrix<const V>(a.data<V>(), rows, columns));
  return v;
}

template <class T, class Space>
double qr_on(const Space& space, const dense_array& a, dense_array& q, dense_array& r, const qr_options& options) {
  using matrix = Kokkos::View<T**, Kokkos::LayoutRight, typename Space::memory_space>;
  const auto da = on_space<T, Space>(a, a.shape[0], a.shape[1]);
  matrix dq("kernwerk::cli::q", q.shape[0], q.shape[1]), dr("kernwerk::cli::r", r.shape[0], r.shape[1]);
  const auto start = std::chrono::steady_clock::now();
  naming_options({{"a", "--in"}, {"options.implementation", "--implementation"}},
                 [&] { kernwerk::qr(space, da, dq, dr, options); });
  space.fence();
  const double seconds = seconds_since(start);
  Kokkos::deep_copy(host_matrix<T>(q.data<T>(), q.shape[0], q.shape[1]), dq);
  Kokkos::deep_copy(host_matrix<T>(r.data<T>(), r.shape[0], r.shape[1]), dr);
  return seconds;
}

dense_array array_of(bool complex, bool single, std::vector<std::size_t> shape) {
  dense_array a;
  a.complex = complex;
  a.single = single;
  a.shape = std::move(shape);
  a.bytes.resize(a.count() * a.value_size());
  return a;
}

void require_distinct(const std::string& first, const char* first_option, const std::string& second,
                      const char* second_option) {
  if (first == second && first != "/dev/null")
    throw usage_error(std::string(second_option) + ": '" + second + "' is also " + first_option);
}

}  // namespace

int run_qr(const arguments& args) {
  const std::string input = args.required("--in"), q_path = args.required("--q"), r_path = args.required("--r");
  require_distinct(input, "--in", q_path, "--q");
  require_distinct(input, "--in", r_path, "--r");
  require_distinct(q_path, "--q", r_path, "--r");
  qr_options options;
  options.mode = args.parsed("--mode", "reduced", parse_qr_mode);
  options.implementation = args.parsed("--implementation", "auto", parse_qr_implementation);
  const dense_array a = read_array(input, "--in", raw_shape(args));
  if (a.complex) throw error("--in: " + input + ": holds " + a.type_name() + " values; QR here is of real matrices");
  if (a.shape.size() != 2) throw error("--in: " + input + ": shape " + a.shape_text() + " is not a matrix's");
  const std::size_t m = a.shape[0], n = a.shape[1];
  const bool complete = options.mode == qr_mode::complete;
  dense_array q = array_of(false, a.single, {m, complete ? m : n});
  dense_array r = array_of(false, a.single, {complete ? m : n, n});
  double seconds = 0;
  const char* space_name = "";
  with_backend(args.text("--backend", ""), [&](auto space) {
    using Space = decltype(space);
    space_name = Space::name();
    seconds = a.single ? qr_on<float>(space, a, q, r, options) : qr_on<double>(space, a, q, r, options);
  });
  output_set outputs;  // both or neither
  write_array(outputs, q_path, "--q", q);
  write_array(outputs, r_path, "--r", r);
  outputs.commit();
  std::fprintf(stderr, "kernwerk qr: %zu x %zu %s (%s, %s) on %s in %.4f s\n", m, n, a.type_name().c_str(),
               to_string(options.mode), to_string(options.implementation), space_name, seconds);
  return 0;
}

namespace {

// The transform of one array: in and out of the plan's types, as the command line asked.
struct fft_request {
  bool inverse, real, plane;
  fft_options options;
  std::size_t length;  // of the signal along the last axis
};

template <class Real, class Space>
double fft_on(const Space& space, const fft_request& request, const dense_array& in, dense_array& out) {
  using complex = Kokkos::complex<Real>;
  const std::size_t rows = in.shape.size() == 2 ? in.shape[0] : 1;
  const fft_shape shape = in.shape.size() == 1 ? fft_shape::line(std::int64_t(request.length))
                          : request.plane      ? fft_shape::plane(std::int64_t(rows), std::int64_t(request.length))
                                               : fft_shape::lines(std::int64_t(rows), std::int64_t(request.length));
  double seconds = 0;
  // (a line's plan takes rank-1 Views: the one row of the arrays)
  const auto run = [&](auto source, auto target) {
    naming_options({{"in", "--in"}, {"shape", "--in"}}, [&] {
      const fft_plan<Space, Real> plan(space, shape, request.options);
      const auto start = std::chrono::steady_clock::now();
      if (request.inverse) plan.inverse(source, target);
      else plan.forward(source, target);
      space.fence();
      seconds = seconds_since(start);
    });
  };
  const auto go = [&](auto in_tag, auto out_tag) {
    using In = typename decltype(in_tag)::type;
    using Out = typename decltype(out_tag)::type;
    const std::size_t in_columns = in.shape.back(), out_columns = out.shape.back();
    const auto source = on_space<In, Space>(in, rows, in_columns);
    Kokkos::View<Out**, Kokkos::LayoutRight, typename Space::memory_space> target("kernwerk::cli::fft", rows,
                                                                                 out_columns);
    if (in.shape.size() == 1)
      run(Kokkos::subview(source, 0, Kokkos::ALL()), Kokkos::subview(target, 0, Kokkos::ALL()));
    else
      run(source, target);
    Kokkos::deep_copy(host_matrix<Out>(out.data<Out>(), rows, out_columns), target);
  };
  struct tag_real { using type = Real; };
  struct tag_complex { using type = complex; };
  if (!request.real) go(tag_complex(), tag_complex());
  else if (request.inverse) go(tag_complex(), tag_real());
  else go(tag_real(), tag_complex());
  return seconds;
}

}  // namespace

int run_fft(const arguments& args) {
  const std::string input = args.required("--in"), output = args.required("--out");
  require_distinct(input, "--in", output, "--out");
  fft_request request;
  request.inverse = args.has("--inverse");
  request.real = args.has("--real");
  request.plane = args.has("--plane");
  request.options.kind = request.real ? fft_kind::real : fft_kind::complex;
  request.options.normalization = args.parsed("--norm", "backward", parse_fft_normalization);
  request.options.check_input = true;  // a file's NaN is named, not written out as a NaN spectrum
  if (args.has("--length") && !(request.real && request.inverse))
    throw usage_error("--length: only for --real --inverse (the length of the real signal)");
  const dense_array in = read_array(input, "--in", raw_shape(args));
  if (request.plane && in.shape.size() != 2)
    throw error("--in: " + input + ": shape " + in.shape_text() + " is not a plane's (two extents) for --plane");
  const bool wants_complex_input = !request.real || request.inverse;
  if (in.complex != wants_complex_input)
    throw error("--in: " + input + ": holds " + in.type_name() + " values; " +
                (request.real ? (request.inverse ? "--real --inverse takes the complex half spectrum"
                                                 : "--real (forward) takes real values")
                              : "a complex transform takes complex values (give --real for real ones)"));
  const std::size_t last = in.shape.back();
  std::vector<std::size_t> out_shape = in.shape;
  request.length = last;
  if (request.real && !request.inverse) {
    out_shape.back() = last / 2 + 1;
  } else if (request.real) {
    const long long length = args.integer("--length", 2 * (long long)(last) - 2);
    if (length < 1 || std::size_t(length) / 2 + 1 != last)
      throw error("--length: " + std::to_string(length) + " is not a length whose half spectrum has the " +
                  std::to_string(last) + " values of --in's last axis (" + std::to_string(2 * last - 2) +
                  " or " + std::to_string(2 * last - 1) + ")");
    request.length = std::size_t(length);
    out_shape.back() = request.length;
  }
  dense_array out = array_of(!request.real || !request.inverse, in.single, out_shape);
  double seconds = 0;
  const char* space_name = "";
  with_backend(args.text("--backend", ""), [&](auto space) {
    using Space = decltype(space);
    space_name = Space::name();
    seconds = in.single ? fft_on<float>(space, request, in, out) : fft_on<double>(space, request, in, out);
  });
  output_set outputs;
  write_array(outputs, output, "--out", out);
  outputs.commit();
  std::fprintf(stderr, "kernwerk fft: %s %s %s%s of %s on %s in %.6f s\n", in.shape_text().c_str(),
               in.type_name().c_str(), request.real ? "real " : "", request.inverse ? "inverse" : "forward",
               in.shape.size() == 1 ? "a line" : request.plane ? "a plane" : "each row", space_name, seconds);
  return 0;
}

}  // namespace kernwerk::cli
