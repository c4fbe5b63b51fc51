#pragma once
// Python arrays as array_refs, without a copy: NumPy and anything with the buffer protocol on
// the host; anything with __cuda_array_interface__ (CuPy, PyTorch, Numba) or __dlpack__ (JAX,
// PyTorch, CuPy) on the GPU. And the other way: device memory Kernwerk allocates for a result,
// owned by a DeviceArray that offers both interfaces to whichever library takes it.
#include <pybind11/pybind11.h>

#include <functional>
#include <string>
#include <vector>

#include "calls.hpp"

namespace kernwerk::python {

namespace py = pybind11;

// The arrays a call borrows: the call's name (for messages) and what must outlive the call:
// buffer views to release, DLPack tensors to give back, released (with the GIL held) when it
// goes out of scope.
class borrowed {
 public:
  explicit borrowed(std::string function) : function_(std::move(function)) {}
  const std::string& function() const { return function_; }
  borrowed(const borrowed&) = delete;
  borrowed& operator=(const borrowed&) = delete;
  ~borrowed();
  void add(std::function<void()> release) { releases_.push_back(std::move(release)); }

 private:
  std::string function_;
  std::vector<std::function<void()>> releases_;
};

// The array `object` (the Python argument `name` of keep.function()) as it lies; writable: the
// call writes it. Objects with no array interface go through numpy.asarray (a copy, kept in
// `keep`). Throws ValueError "kernwerk.<function>: <name>: <problem>".
array_ref describe(py::handle object, const std::string& name, bool writable, borrowed& keep);

// A rank-1 or rank-2 C-contiguous block of device memory holding a result.
struct device_array {
  void* data = nullptr;
  element type = element::float64;
  std::vector<std::int64_t> shape;
  device_array(std::vector<std::int64_t> shape, element type, bool zero);
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
  ~device_array();
  std::size_t bytes() const;
};

element element_of(const std::string& dtype, const std::string& name);

// Registers DeviceArray (with __cuda_array_interface__, __dlpack__, __dlpack_device__).
void bind_device_array(py::module_& module);

}  // namespace kernwerk::python
