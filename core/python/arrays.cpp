// Python arrays in and out without copies (see arrays.hpp).
#include "arrays.hpp"

#include <cstdint>
#include <cstring>

namespace kernwerk::python {

namespace {

// DLPack's C ABI (dlpack.h, the unversioned tensor every producer still offers).
enum dl_device_type : std::int32_t { dl_cpu = 1, dl_cuda = 2, dl_cuda_host = 3, dl_rocm = 10,
                                     dl_rocm_host = 11, dl_cuda_managed = 13 };
enum dl_type_code : std::uint8_t { dl_int = 0, dl_uint = 1, dl_float = 2, dl_complex = 5 };
struct dl_device {
  std::int32_t device_type;
  std::int32_t device_id;
};
struct dl_data_type {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct dl_tensor {
  void* data;
  dl_device device;
  std::int32_t ndim;
  dl_data_type dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; NULL: C-contiguous
  std::uint64_t byte_offset;
};
struct dl_managed_tensor {
  dl_tensor tensor;
  void* manager_ctx;
  void (*deleter)(dl_managed_tensor* self);
};

// The function whose arguments describe() is reading, for messages.
thread_local std::string current_function;

[[noreturn]] void fail(const std::string& name, const std::string& problem) {
  throw py::value_error("kernwerk." + current_function + ": " + name + ": " + problem);
}

std::size_t size_of(element type) { return names_of(type).size; }

const char* const known_types = "float32, float64, int32, int64, complex64, complex128";

element element_of_typestr(const std::string& typestr, const std::string& name) {
  // "<f8": little-endian (or "|", no order) kind and size
  if (!typestr.empty() && (typestr[0] == '<' || typestr[0] == '|' || typestr[0] == '='))
    for (const auto& e : element_table)
      if (typestr.compare(1, std::string::npos, e.typestr + 1) == 0) return e.type;
  fail(name, "element type '" + typestr + "' is none of " + known_types);
}

// The element of a buffer-protocol format ("d", "<f", "=q", "Zd", ...).
element element_of_format(std::string format, std::size_t itemsize, const std::string& name) {
  if (!format.empty() && (format[0] == '<' || format[0] == '@' || format[0] == '=')) format.erase(0, 1);
  if (format == "l") format = itemsize == 4 ? "i" : "q";  // C's long, of either size
  for (const auto& e : element_table)
    if (format == e.format && itemsize == e.size) return e.type;
  fail(name, "element format '" + format + "' is none of " + known_types);
}

void set_shape(array_ref& a, int rank, const std::int64_t* shape, const std::int64_t* strides,
               std::int64_t stride_unit, const std::string& name) {
  if (rank < 1 || rank > 2)
    fail(name, "must be 1-D or 2-D, got " + std::to_string(rank) + "-D");
  a.rank = rank;
  std::int64_t contiguous = 1;
  for (int d = rank - 1; d >= 0; --d) {
    a.extent[d] = shape[d];
    const std::int64_t stride = strides ? strides[d] : contiguous * stride_unit;
    if (stride < 0) fail(name, "has a negative stride; pass a copy (e.g. numpy.ascontiguousarray)");
    if (stride % stride_unit != 0)
      fail(name, "has a stride that is not a whole number of elements");
    a.stride[d] = stride / stride_unit;
    contiguous *= shape[d];
  }
}

// A device array must be on the GPU that Kokkos runs on.
void require_our_device(const array_ref& a) {
  if (a.extent[0] * (a.rank == 2 ? a.extent[1] : 1) == 0) return;
  const int device = device_of(a.data);
  if (device < 0) fail(a.name, "says it is device memory, but the GPU runtime does not know it");
  if (device != device_id())
    fail(a.name, "is on GPU " + std::to_string(device) + ", but Kernwerk runs on GPU " +
                     std::to_string(device_id()) + " (select it with CUDA_VISIBLE_DEVICES)");
}

array_ref from_cuda_array_interface(const py::dict& interface, const std::string& name) {
  if (std::string(device_backend()) != "cuda" && std::string(device_backend()) != "hip")
    fail(name, "is a GPU array, but this Kernwerk build has no GPU backend");
  if (interface.contains("mask") && !interface["mask"].is_none())
    fail(name, "is a masked array");
  array_ref a;
  a.name = name;
  a.where = place::device;
  a.type = element_of_typestr(py::str(interface["typestr"]), name);
  const auto data = interface["data"].cast<py::tuple>();
  a.data = reinterpret_cast<void*>(data[0].cast<std::uintptr_t>());
  a.writable = !data[1].cast<bool>();
  const auto shape_tuple = interface["shape"].cast<py::tuple>();
  std::vector<std::int64_t> shape, strides;
  for (auto s : shape_tuple) shape.push_back(s.cast<std::int64_t>());
  const bool strided = interface.contains("strides") && !interface["strides"].is_none();
  if (strided)
    for (auto s : interface["strides"].cast<py::tuple>()) strides.push_back(s.cast<std::int64_t>());
  set_shape(a, int(shape.size()), shape.data(), strided ? strides.data() : nullptr,
            std::int64_t(size_of(a.type)), name);
  if (interface.contains("stream") && !interface["stream"].is_none())
    wait_for_stream(interface["stream"].cast<std::uintptr_t>());
  require_our_device(a);
  return a;
}

array_ref from_dlpack(py::handle object, const std::string& name, borrowed& keep) {
  const auto device = object.attr("__dlpack_device__")().cast<py::tuple>();
  const int type = device[0].cast<int>();
  const bool on_host = type == dl_cpu || type == dl_cuda_host || type == dl_rocm_host;
  const bool ours = (type == dl_cuda || type == dl_cuda_managed) ? std::string(device_backend()) == "cuda"
                    : type == dl_rocm ? std::string(device_backend()) == "hip"
                                      : false;
  if (!on_host && !ours)
    fail(name, "lies on a device (DLPack type " + std::to_string(type) +
                   ") this Kernwerk build has no backend for");
  // The legacy default stream: what Kernwerk's GPU work follows.
  py::object capsule = on_host ? object.attr("__dlpack__")()
                               : object.attr("__dlpack__")(py::arg("stream") = 1);
  auto* tensor = static_cast<dl_managed_tensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (!tensor) {
    PyErr_Clear();
    fail(name, "__dlpack__ gave no DLPack tensor");
  }
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  keep.add([tensor] { if (tensor->deleter) tensor->deleter(tensor); });
  const dl_tensor& t = tensor->tensor;
  if (t.dtype.lanes != 1) fail(name, "has vector elements");
  array_ref a;
  a.name = name;
  a.where = on_host ? place::host : place::device;
  a.writable = true;  // DLPack says nothing of it: the caller hands it over to be written
  const std::string kind = t.dtype.code == dl_float ? "f" : t.dtype.code == dl_int ? "i"
                           : t.dtype.code == dl_complex ? "c" : "?";
  a.type = element_of_typestr("<" + kind + std::to_string(t.dtype.bits / 8), name);
  a.data = static_cast<char*>(t.data) + t.byte_offset;
  set_shape(a, t.ndim, t.shape, t.strides, 1, name);
  if (!on_host) {
    wait_for_stream(1);
    require_our_device(a);
  }
  return a;
}

array_ref from_buffer(py::handle object, const std::string& name, borrowed& keep) {
  auto* view = new Py_buffer;
  if (PyObject_GetBuffer(object.ptr(), view, PyBUF_STRIDES | PyBUF_FORMAT) != 0) {
    delete view;
    PyErr_Clear();
    fail(name, "has no strided buffer of a numeric type");
  }
  keep.add([view] {
    PyBuffer_Release(view);
    delete view;
  });
  array_ref a;
  a.name = name;
  a.where = place::host;
  a.writable = !view->readonly;
  a.type = element_of_format(view->format ? view->format : "B", std::size_t(view->itemsize), name);
  a.data = view->buf;
  std::int64_t shape[2] = {0, 0}, strides[2] = {0, 0};
  for (int d = 0; d < view->ndim && d < 2; ++d) {
    shape[d] = view->shape[d];
    strides[d] = view->strides[d];
  }
  set_shape(a, view->ndim, shape, strides, view->itemsize, name);
  return a;
}

}  // namespace

borrowed::~borrowed() {
  for (auto it = releases_.rbegin(); it != releases_.rend(); ++it) (*it)();
}

array_ref describe(py::handle object, const std::string& name, bool writable, borrowed& keep) {
  current_function = keep.function();
  if (object.is_none()) fail(name, "is None");
  array_ref a;
  if (py::hasattr(object, "__cuda_array_interface__")) {
    a = from_cuda_array_interface(object.attr("__cuda_array_interface__").cast<py::dict>(), name);
  } else if (PyObject_CheckBuffer(object.ptr())) {
    a = from_buffer(object, name, keep);
  } else if (py::hasattr(object, "__dlpack__") && py::hasattr(object, "__dlpack_device__")) {
    a = from_dlpack(object, name, keep);
  } else {
    if (writable) fail(name, "is not an array (an output must be one)");
    py::object copy = py::module_::import("numpy").attr("asarray")(object);
    keep.add([copy]() mutable { copy = py::object(); });
    return describe(copy, name, false, keep);
  }
  if (writable && !a.writable) fail(name, "is read-only, but the call writes it");
  return a;
}

element element_of(const std::string& dtype, const std::string& name) {
  for (const auto& e : element_table)
    if (dtype == e.dtype) return e.type;
  throw py::value_error(name + ": dtype '" + dtype + "' is none of " + known_types);
}

device_array::device_array(std::vector<std::int64_t> shape_, element type_, bool zero)
    : type(type_), shape(std::move(shape_)) {
  data = device_allocate(bytes(), zero);
}

device_array::~device_array() { device_free(data); }

std::size_t device_array::bytes() const {
  std::size_t count = size_of(type);
  for (auto s : shape) count *= std::size_t(s);
  return count;
}

namespace {

py::tuple shape_of(const device_array& a) {
  py::tuple shape(a.shape.size());
  for (std::size_t d = 0; d < a.shape.size(); ++d) shape[d] = a.shape[d];
  return shape;
}


// A DLPack tensor over a DeviceArray, holding a reference to it until the consumer lets go.
struct exported_tensor {
  dl_managed_tensor managed{};
  std::int64_t shape[2] = {0, 0};
  PyObject* owner = nullptr;
};

void release_exported(dl_managed_tensor* managed) {
  auto* exported = static_cast<exported_tensor*>(managed->manager_ctx);
  PyGILState_STATE state = PyGILState_Ensure();
  Py_XDECREF(exported->owner);
  PyGILState_Release(state);
  delete exported;
}

py::capsule dlpack_of(py::object self) {
  const auto& array = self.cast<const device_array&>();
  auto* exported = new exported_tensor;
  exported->owner = self.release().ptr();  // the reference the consumer's deleter drops
  dl_tensor& t = exported->managed.tensor;
  t.data = array.data;
  t.device = {std::string(device_backend()) == "hip" ? dl_rocm : dl_cuda, device_id()};
  t.ndim = std::int32_t(array.shape.size());
  const char kind = names_of(array.type).typestr[1];
  t.dtype = {std::uint8_t(kind == 'i' ? dl_int : kind == 'c' ? dl_complex : dl_float),
             std::uint8_t(8 * size_of(array.type)), 1};
  for (std::size_t d = 0; d < array.shape.size(); ++d) exported->shape[d] = array.shape[d];
  t.shape = exported->shape;
  t.strides = nullptr;
  t.byte_offset = 0;
  exported->managed.manager_ctx = exported;
  exported->managed.deleter = release_exported;
  return py::capsule(&exported->managed, "dltensor", [](PyObject* capsule) {
    // Only a capsule nobody consumed still carries the name "dltensor".
    if (PyCapsule_IsValid(capsule, "dltensor")) {
      auto* managed = static_cast<dl_managed_tensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
      managed->deleter(managed);
    }
  });
}

}  // namespace

void bind_device_array(py::module_& module) {
  py::class_<device_array>(module, "DeviceArray",
                           "GPU memory holding a Kernwerk result (C-contiguous). Libraries take "
                           "it through __cuda_array_interface__ or __dlpack__ without a copy.")
      .def_property_readonly("shape", &shape_of)
      .def_property_readonly("dtype", [](const device_array& a) { return dtype_name(a.type); })
      .def_property_readonly("__cuda_array_interface__", [](const device_array& a) {
        py::dict interface;
        interface["shape"] = shape_of(a);
        interface["typestr"] = names_of(a.type).typestr;
        interface["data"] = py::make_tuple(reinterpret_cast<std::uintptr_t>(a.data), false);
        interface["strides"] = py::none();
        interface["version"] = 3;
        return interface;  // no stream: the work that wrote it has finished
      })
      .def("__dlpack__", [](py::object self, py::kwargs) { return dlpack_of(std::move(self)); })
      .def("__dlpack_device__", [](const device_array&) {
        return py::make_tuple(std::string(device_backend()) == "hip" ? int(dl_rocm) : int(dl_cuda),
                              device_id());
      });
}

}  // namespace kernwerk::python
