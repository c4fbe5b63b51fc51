// Calls from several host threads at once. The C interface (which computes on Kokkos' default
// instances, one call at a time) from 4 threads: the answers of serial calls, and each thread's
// last error its own. The C++ interface on one execution space instance per thread (a CUDA or
// HIP stream each; the host spaces' instances where Kokkos 4 lets threads share them): the answers
// of serial calls. By hand under ThreadSanitizer (the library and this file built with
// -fsanitize=thread, OMP_NUM_THREADS=1): clean. With more OpenMP threads it reports races inside
// Kokkos' OpenMP regions, whose fork and join in libgomp (not instrumented) it cannot see.
#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "execution_spaces.hpp"
#include "kernwerk.h"
#include "kernwerk/nearest.hpp"
#include "nearest_support.hpp"

namespace {

using namespace kernwerk;

constexpr int threads = 4;

// Holds threads until all have arrived, as often as asked.
class rendezvous {
 public:
  explicit rendezvous(int count) : count_(count) {}
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const int round = round_;
    if (++arrived_ == count_) {
      arrived_ = 0;
      ++round_;
      all_.notify_all();
    } else {
      all_.wait(lock, [&] { return round_ != round; });
    }
  }

 private:
  std::mutex mutex_;
  std::condition_variable all_;
  int count_, arrived_ = 0, round_ = 0;
};

// The work of thread t: its own observations against shared references.
struct c_call {
  std::vector<double> observations;
  std::vector<std::int64_t> indices;
  std::vector<double> distances;
  std::vector<std::int64_t> counts;
  std::string error;  // of a call that failed
};

// (statuses, not assertions: a failed REQUIRE cannot leave a thread)
int run_c_calls(const std::vector<double>& references, c_call& call) {
  const std::int64_t n = std::int64_t(call.observations.size() / 2), m = std::int64_t(references.size() / 2), k = 3;
  call.indices.assign(std::size_t(n * k), -1);
  call.distances.assign(std::size_t(n * k), -1);
  call.counts.assign(std::size_t(n), -1);
  int status = kw_nearest(KW_FLOAT64, KW_MEMORY_HOST, 2, call.observations.data(), n, references.data(), m, k,
                          call.indices.data(), call.distances.data(), nullptr);
  if (status == KW_SUCCESS)
    status = kw_count_within(KW_FLOAT64, KW_MEMORY_HOST, 2, call.observations.data(), n, references.data(), m,
                             0.05, call.counts.data(), nullptr);
  if (status != KW_SUCCESS) call.error = kw_last_error();
  return status;
}

TEST_CASE("C API from several threads at once: the answers of serial calls, each thread's own last error") {
  const auto references = test::uniform_sphere(3000, 40).values;
  std::vector<c_call> serial(threads), concurrent(threads);
  for (int t = 0; t < threads; ++t) {
    serial[t].observations = concurrent[t].observations = test::uniform_sphere(5000 + 100 * t, 41 + t).values;
    REQUIRE(run_c_calls(references, serial[t]) == KW_SUCCESS);
  }
  rendezvous together(threads);
  std::vector<std::string> errors(threads), later(threads);
  std::vector<int> statuses(threads), runs(threads), successes(threads);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      together.wait();
      for (int repeat = 0; repeat < 3; ++repeat) runs[t] |= run_c_calls(references, concurrent[t]);
      // each thread fails in its own way at once, then reads its message after the others failed
      double point[2] = {0.1, 0.2};
      std::int64_t index;
      double distance;
      together.wait();
      statuses[t] = kw_nearest(KW_FLOAT64, KW_MEMORY_HOST, 2, point, 1, point, 1, 40 + t, &index, &distance, nullptr);
      together.wait();
      errors[t] = kw_last_error();
      // a success leaves the message as it was
      successes[t] = kw_nearest(KW_FLOAT64, KW_MEMORY_HOST, 2, point, 1, point, 1, 1, &index, &distance, nullptr);
      later[t] = kw_last_error();
    });
  for (auto& worker : workers) worker.join();
  for (int t = 0; t < threads; ++t) {
    CAPTURE(t);
    INFO(concurrent[t].error);
    CHECK(runs[t] == KW_SUCCESS);
    CHECK(successes[t] == KW_SUCCESS);
    CHECK(concurrent[t].indices == serial[t].indices);
    CHECK(concurrent[t].distances == serial[t].distances);
    CHECK(concurrent[t].counts == serial[t].counts);
    CHECK(statuses[t] == KW_INVALID_ARGUMENT);
    CHECK(errors[t].find("k: " + std::to_string(40 + t) + " neighbours, but m = 1 references") != std::string::npos);
    CHECK(later[t] == errors[t]);
  }
}

// Whether threads may compute on instances of Space at once here: CUDA streams of their own;
// the host spaces' default instances where Kokkos 4 or later guards them.
template <class Space>
constexpr bool instances_per_thread() {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same_v<Space, Kokkos::Cuda>) return true;
#endif
  return KOKKOS_VERSION >= 40000 && Kokkos::SpaceAccessibility<Space, Kokkos::HostSpace>::accessible;
}

// One instance of Space per thread.
template <class Space>
struct thread_instances {
  std::vector<Space> spaces;
  explicit thread_instances(int count) : spaces(std::size_t(count)) {}
};
#ifdef KOKKOS_ENABLE_CUDA
template <>
struct thread_instances<Kokkos::Cuda> {
  std::vector<cudaStream_t> streams;
  std::vector<Kokkos::Cuda> spaces;
  explicit thread_instances(int count) {
    for (int t = 0; t < count; ++t) {
      cudaStream_t stream;
      REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
      streams.push_back(stream);
      spaces.emplace_back(stream);
    }
  }
  ~thread_instances() {
    spaces.clear();
    for (const auto stream : streams) (void)cudaStreamDestroy(stream);
  }
};
#endif

// kernwerk::nearest on one instance, every allocation and copy on it too.
template <class Space, class References>
test::neighbours nearest_on(const Space& space, const test::host_points& points, const References& references,
                            std::size_t k) {
  using memory = typename Space::memory_space;
  using host_rows = Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  const std::size_t n = points.count();
  Kokkos::View<double**, Kokkos::LayoutRight, memory> observations(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "observations"), n, 2);
  Kokkos::deep_copy(space, observations, host_rows(points.values.data(), n, 2));
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, memory> indices(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "indices"), n, k);
  Kokkos::View<double**, Kokkos::LayoutRight, memory> distances(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "distances"), n, k);
  kernwerk::nearest(space, observations, references, indices, distances, nearest_options());
  test::neighbours result;
  result.k = k;
  result.indices.resize(n * k);
  result.distances.resize(n * k);
  Kokkos::deep_copy(space, Kokkos::View<std::int64_t**, Kokkos::LayoutRight, Kokkos::HostSpace>(result.indices.data(), n, k),
                    indices);
  Kokkos::deep_copy(space, Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>(result.distances.data(), n, k),
                    distances);
  space.fence();
  return result;
}

TEST_CASE_TEMPLATE_DEFINE("nearest from several threads, one instance each: the answers of serial calls", Space,
                          concurrent_instances) {
  if constexpr (!instances_per_thread<Space>()) {
    MESSAGE("not run: threads cannot compute on instances of this space at once here (Kokkos 3's host "
            "back ends keep one state per process)");
  } else {
    const auto references = test::to_device<Space>(test::uniform_sphere(4000, 50));
    std::vector<test::host_points> observations;
    std::vector<test::neighbours> serial, concurrent(threads);
    for (int t = 0; t < threads; ++t) {
      observations.push_back(test::uniform_sphere(6000 + 50 * t, 51 + t));
      serial.push_back(nearest_on(Space(), observations[t], references, 4));
    }
    const thread_instances<Space> instances(threads);
    rendezvous together(threads);
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
      workers.emplace_back([&, t] {
        together.wait();
        for (int repeat = 0; repeat < 3; ++repeat)
          concurrent[t] = nearest_on(instances.spaces[std::size_t(t)], observations[t], references, 4);
      });
    for (auto& worker : workers) worker.join();
    for (int t = 0; t < threads; ++t) {
      CAPTURE(t);
      CHECK(concurrent[t].indices == serial[t].indices);
      CHECK(concurrent[t].distances == serial[t].distances);
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(concurrent_instances, test::enabled_spaces);

}  // namespace
