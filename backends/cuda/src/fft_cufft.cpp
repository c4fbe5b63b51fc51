// cuFFT plans of kernwerk/cuda/fft.hpp (with KERNWERK_ENABLE_CUFFT): made when the kernwerk
// plan is made, bound to its stream, each with the work area cuFFT allocates for it; a complex
// plan serves both directions and in place, a real one holds a real-to-complex and a
// complex-to-real plan.
#include "kernwerk/config.hpp"
#if KERNWERK_ENABLE_CUFFT
#include <cufft.h>

#include <string>

#include "kernwerk/error.hpp"
#include "kernwerk/cuda/runtime.hpp"  // vendor_cache_preference
#include "kernwerk/impl/dense/fft_vendor.hpp"  // kernwerk/cuda/fft.hpp after the primary template

namespace kernwerk::cuda_impl {
namespace {

void check(cufftResult status, const char* what) {
  if (status != CUFFT_SUCCESS)
    throw error(std::string("kernwerk::fft_plan (cuFFT): ") + what + " returned " +
                std::to_string(int(status)));
}

class cufft_plan_set : public impl::fft_vendor_plan {
 public:
  cufft_plan_set(cudaStream_t stream, const impl::fft_vendor_problem& problem)
      : problem_(problem) {
    if (!problem.real) {
      first_ = make(stream, problem.single ? CUFFT_C2C : CUFFT_Z2Z);
      return;
    }
    first_ = make(stream, problem.single ? CUFFT_R2C : CUFFT_D2Z);
    try {
      second_ = make(stream, problem.single ? CUFFT_C2R : CUFFT_Z2D);
    } catch (...) {
      cufftDestroy(first_);
      throw;
    }
  }
  ~cufft_plan_set() override {
    if (first_) cufftDestroy(first_);
    if (second_) cufftDestroy(second_);
  }

  void execute(bool forward, void* in, void* out) const override {
    const int direction = forward ? CUFFT_FORWARD : CUFFT_INVERSE;
    const vendor_cache_preference preference;
    if (!problem_.real) {
      if (problem_.single)
        check(cufftExecC2C(first_, static_cast<cufftComplex*>(in), static_cast<cufftComplex*>(out), direction), "cufftExecC2C");
      else
        check(cufftExecZ2Z(first_, static_cast<cufftDoubleComplex*>(in), static_cast<cufftDoubleComplex*>(out), direction), "cufftExecZ2Z");
    } else if (forward) {
      if (problem_.single)
        check(cufftExecR2C(first_, static_cast<cufftReal*>(in), static_cast<cufftComplex*>(out)), "cufftExecR2C");
      else
        check(cufftExecD2Z(first_, static_cast<cufftDoubleReal*>(in), static_cast<cufftDoubleComplex*>(out)), "cufftExecD2Z");
    } else {
      if (problem_.single)
        check(cufftExecC2R(second_, static_cast<cufftComplex*>(in), static_cast<cufftReal*>(out)), "cufftExecC2R");
      else
        check(cufftExecZ2D(second_, static_cast<cufftDoubleComplex*>(in), static_cast<cufftDoubleReal*>(out)), "cufftExecZ2D");
    }
  }

 private:
  // A batched plan over the problem's dims (the last contiguous) in cuFFT's basic layout (no
  // embedding given: each batch entry follows the previous, and a real transform's complex side
  // holds half the last extent plus one), which is the plan's layout.
  cufftHandle make(cudaStream_t stream, cufftType type) const {
    long long dims[2] = {problem_.dims[0], problem_.dims[1]};
    cufftHandle plan = 0;
    check(cufftCreate(&plan), "cufftCreate");
    std::size_t work = 0;
    // the 32-bit interface where the sizes fit, as CuPy plans; the 64-bit one past them
    const long long points = dims[0] * (problem_.rank == 2 ? dims[1] : 1);
    cufftResult made;
    if (points * problem_.batch < (1ll << 31)) {
      int small[2] = {int(dims[0]), int(dims[1])};
      made = cufftMakePlanMany(plan, problem_.rank, small, nullptr, 1, 0, nullptr, 1, 0, type,
                               int(problem_.batch), &work);
    } else {
      made = cufftMakePlanMany64(plan, problem_.rank, dims, nullptr, 1, 0, nullptr, 1, 0, type,
                                 problem_.batch, &work);
    }
    const cufftResult bound = made == CUFFT_SUCCESS ? cufftSetStream(plan, stream) : made;
    if (bound != CUFFT_SUCCESS) {
      cufftDestroy(plan);
      check(bound, made == CUFFT_SUCCESS ? "cufftSetStream" : "cufftMakePlanMany64");
    }
    return plan;
  }

  impl::fft_vendor_problem problem_;
  cufftHandle first_ = 0, second_ = 0;
};

}  // namespace

std::unique_ptr<impl::fft_vendor_plan> make_cufft_plan(cudaStream_t stream,
                                                       const impl::fft_vendor_problem& problem) {
  return std::make_unique<cufft_plan_set>(stream, problem);
}

}  // namespace kernwerk::cuda_impl
#endif  // KERNWERK_ENABLE_CUFFT
