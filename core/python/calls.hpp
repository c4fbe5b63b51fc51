#pragma once
// The Python module's two halves meet here. module.cpp (pybind11) turns Python arrays into
// array_refs and exceptions into Python ones; calls.cpp (Kokkos) turns array_refs into
// unmanaged strided Views and calls the C++ API. Neither header of the other side is seen:
// pybind11 stays out of the Kokkos translation unit and Kokkos out of the pybind11 one.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kernwerk::python {

enum class element { float32, float64, int32, int64, complex64, complex128 };
enum class place { host, device };

// What Python calls each element type: NumPy's dtype name, the array interfaces' typestr
// (little-endian) and the buffer protocol's format.
struct element_names {
  element type;
  const char* dtype;
  const char* typestr;
  const char* format;
  unsigned size;  // bytes
};
inline constexpr element_names element_table[] = {
    {element::float32, "float32", "<f4", "f", 4},       {element::float64, "float64", "<f8", "d", 8},
    {element::int32, "int32", "<i4", "i", 4},           {element::int64, "int64", "<i8", "q", 8},
    {element::complex64, "complex64", "<c8", "Zf", 8},  {element::complex128, "complex128", "<c16", "Zd", 16}};

inline const element_names& names_of(element type) {
  for (const auto& e : element_table)
    if (e.type == type) return e;
  return element_table[1];
}

// NumPy's name of an element type.
inline const char* dtype_name(element type) { return names_of(type).dtype; }

// A caller's array where it lies, as Python described it: no copy is made of it.
struct array_ref {
  std::string name;  // the Python argument, for messages
  void* data = nullptr;
  element type = element::float64;
  place where = place::host;
  int rank = 0;                           // 1 or 2
  std::int64_t extent[2] = {0, 0};
  std::int64_t stride[2] = {0, 0};        // in elements, not negative
  bool writable = false;
};

struct nearest_settings {
  std::string metric, method, implementation;
  bool degrees = false;
  double radius = 1.0;
  std::int64_t memory_budget = 0;
};

void nearest(const array_ref& obs, const array_ref& ref, const array_ref& indices,
             const array_ref& distances, const nearest_settings& settings);
// The metric of a radius search or DBSCAN.
struct within_settings {
  std::string metric;
  bool degrees = false;
  double radius = 1.0;
};
// The rows of a radius search's answer: sorted nearest first, and with their distances.
struct row_settings {
  bool sorted = true;
  bool distances = true;
};
// A radius search's answer, held until the caller has arrays of its size to copy it into.
class within_answer {
 public:
  virtual ~within_answer() = default;
  virtual std::int64_t total() const = 0;
  // offsets (n + 1), indices (total) int64 and distances (total, the queries' type; absent
  // where the search left them out), where the queries lay.
  virtual void copy(const array_ref& offsets, const array_ref& indices, const array_ref* distances) const = 0;
};
std::unique_ptr<within_answer> within(const array_ref& queries, const array_ref& points, double distance,
                                      const within_settings& settings, const row_settings& rows);
void count_within(const array_ref& queries, const array_ref& points, double distance, const array_ref& counts,
                  const within_settings& settings);
// A kernwerk::spatial_index over the rows of an array, built on the execution space of the array's place
// and queried with arrays of the same place and element type. finalize() frees the memory of
// every index still alive; a query after that fails.
class spatial_index {
 public:
  virtual ~spatial_index() = default;
  virtual std::int64_t size() const = 0;
  virtual std::int64_t dimension() const = 0;
  // indices (int64) and distances (the points' type): (n, k) arrays where the queries lie.
  virtual void nearest(const array_ref& queries, const array_ref& indices, const array_ref& distances) const = 0;
  virtual std::unique_ptr<within_answer> within(const array_ref& queries, double distance,
                                                const row_settings& rows) const = 0;
  virtual void count_within(const array_ref& queries, double distance, const array_ref& counts) const = 0;
};
std::shared_ptr<spatial_index> make_index(const array_ref& points, const within_settings& settings);

// A kernwerk::mpi::distributed_index over every rank's rows of host arrays (a build with MPI:
// has_mpi()), queried with host arrays of the points' element type. Collective, as the C++
// class: every rank builds and queries it together. `communicator` is a Fortran handle
// (mpi4py's Comm.py2f()); layout "auto", "replicated" or "partitioned".
class distributed_index {
 public:
  virtual ~distributed_index() = default;
  virtual std::int64_t size() const = 0;
  virtual std::string layout() const = 0;
  // indices (int64) and distances (the points' type): (n, k) host arrays.
  virtual void nearest(const array_ref& queries, const array_ref& indices, const array_ref& distances) const = 0;
};
bool has_mpi();
std::shared_ptr<distributed_index> make_distributed_index(const array_ref& points, const within_settings& settings,
                                                          const std::string& layout, int communicator);
// Returns the number of clusters; border: "nearest-core" or "first-cluster".
std::int64_t dbscan(const array_ref& points, double eps, std::int64_t min_samples, const array_ref& labels,
                    const within_settings& settings, const std::string& border);

void diffuse(const array_ref& field, std::int64_t steps, double coeff,
             const array_ref* laplacian, const std::string& implementation);
// The integrand by name: integrand_names() lists them.
double integrate2d(const std::string& integrand, double x0, double x1, double y0, double y1,
                   std::int64_t n, std::int64_t m, place where, const std::string& implementation);
const std::vector<std::string>& integrand_names();
double sum(const array_ref& x);
double dot(const array_ref& x, const array_ref& y);
double norm2(const array_ref& x);
void gemm(double alpha, const array_ref& a, const array_ref& b, double beta, const array_ref& c,
          const std::string& implementation);
void matmul_colsum(const array_ref& a, const array_ref& b, const array_ref& out);

// QR (kernwerk/qr.hpp); mode "reduced" or "complete", implementation "auto", "generic" or
// "vendor". c and b, x of apply_q and solve_least_squares are 1-D or 2-D.
void qr(const array_ref& a, const array_ref& q, const array_ref& r, const std::string& mode,
        const std::string& implementation);
void qr_factor(const array_ref& a, const array_ref& factors, const array_ref& tau,
               const std::string& implementation);
void apply_q(const array_ref& factors, const array_ref& tau, const array_ref& c, bool transpose,
             const std::string& implementation);
void solve_least_squares(const array_ref& a, const array_ref& b, const array_ref& x,
                         const std::string& implementation);

// A transform (kernwerk/fft.hpp) of C-contiguous arrays: form "line" (1-D), "lines" (2-D, along
// the last axis) or "plane"; real: forward real to complex, inverse complex to real;
// normalization "backward", "ortho" or "forward". `length` is the signal's last extent. Plans
// are kept for reuse (up to 16, until finalize()).
void fft(const array_ref& in, const array_ref& out, const std::string& form, bool inverse, bool real,
         const std::string& normalization, std::int64_t length);

struct cg_outcome {
  std::int64_t iterations = 0;
  double residual_norm = 0;
  std::vector<double> residual_history;
  bool converged = true;
};
// Dense a (rank 2), or CSR (indptr, indices, data) where indptr is given.
cg_outcome cg(const array_ref* a, const array_ref* indptr, const array_ref* indices,
              const array_ref* data, const array_ref& b, const array_ref& x, double tolerance,
              std::int64_t max_iterations);

// Kokkos' lifetime: initialise unless the process already did; finalise only what we started.
void initialize();
void finalize();
bool is_initialized();

// The GPU of this build ("cuda", "hip", or "" for a host-only build) and Kokkos' device on it.
const char* device_backend();
int device_id();
// Device memory owned by a Python object (the runtime's allocator, not Kokkos', so that it may
// outlive Kokkos at exit). zero: filled with zero bytes.
void* device_allocate(std::size_t bytes, bool zero);
void device_free(void* pointer) noexcept;
// Waits for the work on a caller's stream (CUDA array interface or DLPack stream number).
void wait_for_stream(std::uintptr_t stream);
// The device a pointer lies on, or -1 where it is not device memory.
int device_of(const void* pointer);

}  // namespace kernwerk::python
