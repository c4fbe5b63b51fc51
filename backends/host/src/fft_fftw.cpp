// FFTW plans of kernwerk/host/fft.hpp (with KERNWERK_ENABLE_FFTW). FFTW's planner is not
// thread-safe and its plans depend on the arrays' alignment and on in-place or not: a plan is
// made (FFTW_ESTIMATE, which leaves the arrays untouched) for each such variant the first time
// it is met, under one lock, and reused through FFTW's new-array execute functions.
#include "kernwerk/config.hpp"
#if KERNWERK_ENABLE_FFTW
#include <fftw3.h>

#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/dense/fft_vendor.hpp"  // kernwerk/host/fft.hpp after the primary template

namespace kernwerk::host_impl {
namespace {

std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

// The double and float APIs under one name.
struct fftw_double {
  using plan = fftw_plan;
  using real = double;
  using complex = fftw_complex;
  static void plan_with_nthreads(int n) { fftw_plan_with_nthreads(n); }
  static int alignment_of(void* p) { return fftw_alignment_of(static_cast<double*>(p)); }
  static plan dft(int rank, const fftw_iodim64* dims, int howmany_rank, const fftw_iodim64* howmany,
                  void* in, void* out, int sign) {
    return fftw_plan_guru64_dft(rank, dims, howmany_rank, howmany, static_cast<complex*>(in),
                                static_cast<complex*>(out), sign, FFTW_ESTIMATE);
  }
  static plan r2c(int rank, const fftw_iodim64* dims, int howmany_rank, const fftw_iodim64* howmany,
                  void* in, void* out) {
    return fftw_plan_guru64_dft_r2c(rank, dims, howmany_rank, howmany, static_cast<real*>(in),
                                    static_cast<complex*>(out), FFTW_ESTIMATE);
  }
  static plan c2r(int rank, const fftw_iodim64* dims, int howmany_rank, const fftw_iodim64* howmany,
                  void* in, void* out) {
    return fftw_plan_guru64_dft_c2r(rank, dims, howmany_rank, howmany, static_cast<complex*>(in),
                                    static_cast<real*>(out), FFTW_ESTIMATE);
  }
  static void execute_dft(plan p, void* in, void* out) {
    fftw_execute_dft(p, static_cast<complex*>(in), static_cast<complex*>(out));
  }
  static void execute_r2c(plan p, void* in, void* out) {
    fftw_execute_dft_r2c(p, static_cast<real*>(in), static_cast<complex*>(out));
  }
  static void execute_c2r(plan p, void* in, void* out) {
    fftw_execute_dft_c2r(p, static_cast<complex*>(in), static_cast<real*>(out));
  }
  static void destroy(plan p) { fftw_destroy_plan(p); }
};
struct fftw_float {
  using plan = fftwf_plan;
  using real = float;
  using complex = fftwf_complex;
  static void plan_with_nthreads(int n) { fftwf_plan_with_nthreads(n); }
  static int alignment_of(void* p) { return fftwf_alignment_of(static_cast<float*>(p)); }
  static plan dft(int rank, const fftw_iodim64* dims, int howmany_rank, const fftw_iodim64* howmany,
                  void* in, void* out, int sign) {
    return fftwf_plan_guru64_dft(rank, dims, howmany_rank, howmany, static_cast<complex*>(in),
                                 static_cast<complex*>(out), sign, FFTW_ESTIMATE);
  }
  static plan r2c(int rank, const fftw_iodim64* dims, int howmany_rank, const fftw_iodim64* howmany,
                  void* in, void* out) {
    return fftwf_plan_guru64_dft_r2c(rank, dims, howmany_rank, howmany, static_cast<real*>(in),
                                     static_cast<complex*>(out), FFTW_ESTIMATE);
  }
  static plan c2r(int rank, const fftw_iodim64* dims, int howmany_rank, const fftw_iodim64* howmany,
                  void* in, void* out) {
    return fftwf_plan_guru64_dft_c2r(rank, dims, howmany_rank, howmany, static_cast<complex*>(in),
                                     static_cast<real*>(out), FFTW_ESTIMATE);
  }
  static void execute_dft(plan p, void* in, void* out) {
    fftwf_execute_dft(p, static_cast<complex*>(in), static_cast<complex*>(out));
  }
  static void execute_r2c(plan p, void* in, void* out) {
    fftwf_execute_dft_r2c(p, static_cast<real*>(in), static_cast<complex*>(out));
  }
  static void execute_c2r(plan p, void* in, void* out) {
    fftwf_execute_dft_c2r(p, static_cast<complex*>(in), static_cast<real*>(out));
  }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
};

template <class Api>
class fftw_plan_set : public impl::fft_vendor_plan {
 public:
  explicit fftw_plan_set(const impl::fft_vendor_problem& problem) : problem_(problem) {
    static std::once_flag threads;
    std::call_once(threads, [] {
      fftw_init_threads();
      fftwf_init_threads();
    });
  }
  ~fftw_plan_set() override {
    std::lock_guard<std::mutex> guard(planner_mutex());
    for (auto& entry : plans_) Api::destroy(entry.second);
  }

  void execute(bool forward, void* in, void* out) const override {
    const auto plan = find(forward, in, out);
    if (!problem_.real) Api::execute_dft(plan, in, out);
    else if (forward) Api::execute_r2c(plan, in, out);
    else Api::execute_c2r(plan, in, out);
  }

 private:
  using key = std::tuple<bool, bool, int, int>;  // forward, in place, the arrays' alignments

  typename Api::plan find(bool forward, void* in, void* out) const {
    const key k{forward, in == out, Api::alignment_of(in), Api::alignment_of(out)};
    std::lock_guard<std::mutex> guard(planner_mutex());
    const auto found = plans_.find(k);
    if (found != plans_.end()) return found->second;
    const typename Api::plan plan = make(forward, in, out);
    if (!plan) throw error("kernwerk::fft_plan (FFTW): the planner made no plan for this shape");
    plans_.emplace(k, plan);
    return plan;
  }

  // The guru interface: the transform's dimensions (strides in elements of the input and the
  // output arrays) and the batch, all 64-bit.
  typename Api::plan make(bool forward, void* in, void* out) const {
    const int rank = problem_.rank;
    const std::int64_t last = problem_.dims[rank - 1], half = last / 2 + 1;
    // the contiguous extent on each side: a real transform's complex side holds half
    const std::int64_t in_last = problem_.real && !forward ? half : last;
    const std::int64_t out_last = problem_.real && forward ? half : last;
    fftw_iodim64 dims[2];
    dims[rank - 1] = {last, 1, 1};
    if (rank == 2) dims[0] = {problem_.dims[0], in_last, out_last};
    const std::int64_t lead = rank == 2 ? problem_.dims[0] : 1;
    fftw_iodim64 batch{problem_.batch, lead * in_last, lead * out_last};
    Api::plan_with_nthreads(problem_.threads);
    if (!problem_.real)
      return Api::dft(rank, dims, 1, &batch, in, out, forward ? FFTW_FORWARD : FFTW_BACKWARD);
    return forward ? Api::r2c(rank, dims, 1, &batch, in, out) : Api::c2r(rank, dims, 1, &batch, in, out);
  }

  impl::fft_vendor_problem problem_;
  mutable std::map<key, typename Api::plan> plans_;
};

}  // namespace

std::unique_ptr<impl::fft_vendor_plan> make_fftw_plan(const impl::fft_vendor_problem& problem) {
  if (problem.single) return std::make_unique<fftw_plan_set<fftw_float>>(problem);
  return std::make_unique<fftw_plan_set<fftw_double>>(problem);
}

}  // namespace kernwerk::host_impl
#endif  // KERNWERK_ENABLE_FFTW
