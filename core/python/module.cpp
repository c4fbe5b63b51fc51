// kernwerk._core: the calls of calls.hpp over Python arrays. The public functions, their
// defaults and the allocation of results in the caller's kind of array are in kernwerk/__init__.py.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <initializer_list>
#include <utility>

#include "arrays.hpp"
#include "calls.hpp"
#include "kernwerk/error.hpp"

namespace py = pybind11;
using namespace kernwerk::python;

namespace {

using renames = std::initializer_list<std::pair<const char*, const char*>>;

// The C++ API names its arguments its own way ("observations", "options.radius"); a Python
// caller is told the name it passed.
std::string python_name(const std::string& cpp_name, renames names) {
  for (const auto& [from, to] : names)
    if (cpp_name == from) return to;
  return cpp_name;
}

// Runs body() without the GIL; Kernwerk's exceptions become Python ones named for `function`.
template <class Body>
auto translated(const char* function, renames names, Body&& body) {
  const auto value_error = [&](const std::string& argument, const std::exception& e) {
    // "kernwerk::fn: argument: problem" -> "kernwerk.function: python_argument: problem"
    const std::string text = e.what();
    const std::string marker = ": " + argument + ": ";
    const auto at = text.find(marker);
    const std::string problem = at == std::string::npos ? text : text.substr(at + marker.size());
    return py::value_error(std::string("kernwerk.") + function + ": " +
                           python_name(argument, names) + ": " + problem);
  };
  try {
    py::gil_scoped_release unlocked;
    return body();
  } catch (const kernwerk::invalid_argument& e) {
    throw value_error(e.argument(), e);
  } catch (const kernwerk::unsupported& e) {
    throw value_error(e.argument(), e);
  } catch (const kernwerk::out_of_memory& e) {
    PyErr_SetString(PyExc_MemoryError, (std::string("kernwerk.") + function + ": " + e.what()).c_str());
    throw py::error_already_set();
  } catch (const kernwerk::error& e) {  // (std::bad_alloc becomes MemoryError by itself)
    throw std::runtime_error(std::string("kernwerk.") + function + ": " + e.what());
  }
}

// An optional array argument (None: absent).
struct optional_array {
  array_ref ref;
  bool present = false;
  const array_ref* get() const { return present ? &ref : nullptr; }
};
optional_array describe_optional(py::handle object, const char* name, bool writable, borrowed& keep) {
  optional_array a;
  if (object.is_none()) return a;
  a.ref = describe(object, name, writable, keep);
  a.present = true;
  return a;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "Kernwerk's compiled core; use the functions of the package kernwerk.";
#ifdef KERNWERK_VERSION
  m.attr("__version__") = KERNWERK_VERSION;
#endif
  bind_device_array(m);

  m.def("initialize", &initialize);
  m.def("finalize", &finalize);
  m.def("is_initialized", &is_initialized);
  m.def("backend", [] { return std::string(device_backend()); });
  m.def("integrand_names", &integrand_names);

  m.def("array_info", [](py::handle object, const std::string& function, const std::string& name) {
    borrowed keep(function);
    const array_ref a = describe(object, name, false, keep);
    py::tuple shape(a.rank);
    for (int d = 0; d < a.rank; ++d) shape[d] = a.extent[d];
    return py::make_tuple(a.where == place::host ? "host" : "device", shape, dtype_name(a.type));
  });
  m.def("device_empty", [](const std::vector<std::int64_t>& shape, const std::string& dtype, bool zero) {
    return new device_array(shape, element_of(dtype, "dtype"), zero);
  }, py::arg("shape"), py::arg("dtype"), py::arg("zero") = false);

  m.def("nearest", [](py::handle obs, py::handle ref, py::handle indices, py::handle distances,
                      const std::string& metric, const std::string& method,
                      const std::string& implementation, bool degrees, double radius,
                      std::int64_t memory_budget) {
    borrowed keep("nearest");
    const array_ref o = describe(obs, "obs", false, keep), r = describe(ref, "ref", false, keep);
    const array_ref i = describe(indices, "out[0]", true, keep);
    const array_ref d = describe(distances, "out[1]", true, keep);
    const nearest_settings settings{metric, method, implementation, degrees, radius, memory_budget};
    translated("nearest", {{"observations", "obs"}, {"references", "ref"}, {"indices", "out[0]"},
                           {"distances", "out[1]"}, {"options.radius", "radius"},
                           {"options.units", "degrees"}, {"options.memory_budget", "memory_budget"}},
               [&] { nearest(o, r, i, d, settings); });
  });

  py::class_<within_answer>(m, "WithinAnswer", "A radius search's answer, until copied out.")
      .def_property_readonly("total", &within_answer::total)
      .def("copy", [](const within_answer& answer, py::handle offsets, py::handle indices, py::handle distances) {
        borrowed keep("within");
        const array_ref o = describe(offsets, "offsets", true, keep), i = describe(indices, "indices", true, keep);
        const optional_array d = describe_optional(distances, "distances", true, keep);
        translated("within", {}, [&] { answer.copy(o, i, d.get()); });
      });
  m.def("within", [](py::handle queries, py::handle points, double distance, const std::string& metric,
                                 bool degrees, double radius, bool sorted, bool distances) {
    borrowed keep("within");
    const array_ref q = describe(queries, "queries", false, keep), p = describe(points, "points", false, keep);
    return translated("within", {{"radius", "distance"}, {"options.radius", "radius"}, {"options.units", "degrees"},
                                 {"options.metric", "metric"}}, [&] {
      return within(q, p, distance, within_settings{metric, degrees, radius}, row_settings{sorted, distances});
    });
  });
  m.def("count_within", [](py::handle queries, py::handle points, double distance, py::handle counts,
                                       const std::string& metric, bool degrees, double radius) {
    borrowed keep("count_within");
    const array_ref q = describe(queries, "queries", false, keep), p = describe(points, "points", false, keep);
    const array_ref c = describe(counts, "out", true, keep);
    translated("count_within", {{"counts", "out"}, {"radius", "distance"}, {"options.radius", "radius"},
                                {"options.units", "degrees"}, {"options.metric", "metric"}},
               [&] { count_within(q, p, distance, c, within_settings{metric, degrees, radius}); });
  });
  py::class_<spatial_index, std::shared_ptr<spatial_index>>(m, "SpatialIndex", "kernwerk.Index's C++ half.")
      .def_property_readonly("size", &spatial_index::size)
      .def_property_readonly("dimension", &spatial_index::dimension)
      .def("nearest", [](const spatial_index& index, py::handle queries, py::handle indices, py::handle distances) {
        borrowed keep("Index.query");
        const array_ref q = describe(queries, "x", false, keep);
        const array_ref i = describe(indices, "out[1]", true, keep), d = describe(distances, "out[0]", true, keep);
        translated("Index.query", {{"queries", "x"}, {"indices", "out[1]"}, {"distances", "out[0]"}},
                   [&] { index.nearest(q, i, d); });
      })
      .def("within", [](const spatial_index& index, py::handle queries, double distance, bool sorted,
                        bool distances) {
        borrowed keep("Index.query_radius");
        const array_ref q = describe(queries, "x", false, keep);
        return translated("Index.query_radius", {{"queries", "x"}, {"radius", "r"}},
                          [&] { return index.within(q, distance, row_settings{sorted, distances}); });
      })
      .def("count_within", [](const spatial_index& index, py::handle queries, double distance, py::handle counts) {
        borrowed keep("Index.query_radius");
        const array_ref q = describe(queries, "x", false, keep), c = describe(counts, "out", true, keep);
        translated("Index.query_radius", {{"queries", "x"}, {"radius", "r"}, {"counts", "out"}},
                   [&] { index.count_within(q, distance, c); });
      });
  m.def("make_index", [](py::handle points, const std::string& metric, bool degrees, double radius) {
    borrowed keep("Index");
    const array_ref p = describe(points, "points", false, keep);
    return translated("Index", {{"options.radius", "radius"}, {"options.units", "degrees"}, {"options.metric", "metric"}},
                      [&] { return make_index(p, within_settings{metric, degrees, radius}); });
  });
  m.def("has_mpi", &has_mpi);
  py::class_<distributed_index, std::shared_ptr<distributed_index>>(m, "DistributedIndexCore",
                                                                    "kernwerk.DistributedIndex's C++ half.")
      .def_property_readonly("size", &distributed_index::size)
      .def_property_readonly("layout", &distributed_index::layout)
      .def("nearest", [](const distributed_index& index, py::handle queries, py::handle indices, py::handle distances) {
        borrowed keep("DistributedIndex.query");
        const array_ref q = describe(queries, "x", false, keep), i = describe(indices, "out[1]", true, keep),
                        d = describe(distances, "out[0]", true, keep);
        translated("DistributedIndex.query", {{"queries", "x"}, {"indices", "k"}, {"distances", "out[0]"}},
                   [&] { index.nearest(q, i, d); });
      });
  m.def("make_distributed_index", [](py::handle points, const std::string& metric, bool degrees, double radius,
                                     const std::string& layout, int communicator) {
    borrowed keep("DistributedIndex");
    const array_ref p = describe(points, "points", false, keep);
    return translated("DistributedIndex",
                      {{"options.radius", "radius"}, {"options.units", "degrees"}, {"options.metric", "metric"},
                       {"options.layout", "layout"}},
                      [&] { return make_distributed_index(p, within_settings{metric, degrees, radius}, layout, communicator); });
  });
  m.def("dbscan", [](py::handle points, double eps, std::int64_t min_samples, py::handle labels,
                     const std::string& metric, bool degrees, double radius, const std::string& border) {
    borrowed keep("dbscan");
    const array_ref p = describe(points, "points", false, keep), l = describe(labels, "out", true, keep);
    return translated("dbscan", {{"labels", "out"}, {"options.radius", "radius"}, {"options.units", "degrees"},
                                 {"options.metric", "metric"}, {"options.border", "border"}},
                      [&] { return dbscan(p, eps, min_samples, l, within_settings{metric, degrees, radius}, border); });
  });

  m.def("diffuse", [](py::handle field, std::int64_t steps, double coeff, py::handle laplacian,
                      const std::string& implementation) {
    borrowed keep("diffuse");
    const array_ref f = describe(field, "field", true, keep);
    const optional_array lap = describe_optional(laplacian, "laplacian", true, keep);
    translated("diffuse", {{"options.coeff", "coeff"}},
               [&] { diffuse(f, steps, coeff, lap.get(), implementation); });
  });

  m.def("integrate2d", [](const std::string& f, double x0, double x1, double y0, double y1,
                          std::int64_t n, std::int64_t m, bool device, const std::string& implementation) {
    return translated("integrate2d", {}, [&] {
      return integrate2d(f, x0, x1, y0, y1, n, m, device ? place::device : place::host, implementation);
    });
  });

  m.def("sum", [](py::handle x) {
    borrowed keep("sum");
    const array_ref a = describe(x, "x", false, keep);
    return translated("sum", {}, [&] { return sum(a); });
  });
  m.def("dot", [](py::handle x, py::handle y) {
    borrowed keep("dot");
    const array_ref a = describe(x, "x", false, keep), b = describe(y, "y", false, keep);
    return translated("dot", {}, [&] { return dot(a, b); });
  });
  m.def("norm2", [](py::handle x) {
    borrowed keep("norm2");
    const array_ref a = describe(x, "x", false, keep);
    return translated("norm2", {}, [&] { return norm2(a); });
  });

  m.def("gemm", [](double alpha, py::handle a, py::handle b, double beta, py::handle c,
                   const std::string& implementation) {
    borrowed keep("gemm");
    const array_ref ra = describe(a, "a", false, keep), rb = describe(b, "b", false, keep);
    const array_ref rc = describe(c, "c", true, keep);
    translated("gemm", {}, [&] { gemm(alpha, ra, rb, beta, rc, implementation); });
  });
  m.def("qr", [](py::handle a, py::handle q, py::handle r, const std::string& mode, const std::string& implementation) {
    borrowed keep("qr");
    const array_ref ra = describe(a, "a", false, keep), rq = describe(q, "q", true, keep);
    const array_ref rr = describe(r, "r", true, keep);
    translated("qr", {{"options.implementation", "implementation"}}, [&] { qr(ra, rq, rr, mode, implementation); });
  });
  m.def("qr_factor", [](py::handle a, py::handle factors, py::handle tau, const std::string& implementation) {
    borrowed keep("qr_factor");
    const array_ref ra = describe(a, "a", false, keep), rf = describe(factors, "factors", true, keep);
    const array_ref rt = describe(tau, "tau", true, keep);
    translated("qr_factor", {{"options.implementation", "implementation"}},
               [&] { qr_factor(ra, rf, rt, implementation); });
  });
  m.def("apply_q", [](py::handle factors, py::handle tau, py::handle c, bool transpose,
                      const std::string& implementation) {
    borrowed keep("apply_q");
    const array_ref rf = describe(factors, "factors", false, keep), rt = describe(tau, "tau", false, keep);
    const array_ref rc = describe(c, "c", true, keep);
    translated("apply_q", {{"options.implementation", "implementation"}},
               [&] { apply_q(rf, rt, rc, transpose, implementation); });
  });
  m.def("solve_least_squares", [](py::handle a, py::handle b, py::handle x, const std::string& implementation) {
    borrowed keep("solve_least_squares");
    const array_ref ra = describe(a, "a", false, keep), rb = describe(b, "b", false, keep);
    const array_ref rx = describe(x, "out", true, keep);
    translated("solve_least_squares", {{"options.implementation", "implementation"}, {"x", "out"}},
               [&] { solve_least_squares(ra, rb, rx, implementation); });
  });
  m.def("fft", [](const char* function, py::handle x, py::handle out, const std::string& form, bool inverse,
                  bool real, const std::string& norm, std::int64_t length) {
    borrowed keep(function);
    const array_ref rx = describe(x, "x", false, keep), ro = describe(out, "out", true, keep);
    translated(function, {{"in", "x"}, {"shape", "x"}},
               [&] { fft(rx, ro, form, inverse, real, norm, length); });
  });
  m.def("matmul_colsum", [](py::handle a, py::handle b, py::handle out) {
    borrowed keep("matmul_colsum");
    const array_ref ra = describe(a, "a", false, keep), rb = describe(b, "b", false, keep);
    const array_ref ro = describe(out, "out", true, keep);
    translated("matmul_colsum", {}, [&] { matmul_colsum(ra, rb, ro); });
  });

  // a: a dense matrix, or a CSR matrix (anything with indptr, indices and data).
  m.def("cg", [](py::handle a, py::handle b, py::handle x, double tolerance,
                 std::int64_t max_iterations) {
    borrowed keep("cg");
    optional_array dense, indptr, indices, data;
    const auto required = [&](optional_array& into, py::handle object, const char* name) {
      into.ref = describe(object, name, false, keep);
      into.present = true;
    };
    if (py::hasattr(a, "indptr")) {
      required(indptr, a.attr("indptr"), "a.indptr");
      required(indices, a.attr("indices"), "a.indices");
      required(data, a.attr("data"), "a.data");
    } else {
      required(dense, a, "a");
    }
    const array_ref rb = describe(b, "b", false, keep), rx = describe(x, "out", true, keep);
    const cg_outcome outcome = translated(
        "cg", {{"x", "out"}, {"a.row_starts", "a.indptr"}, {"a.columns", "a.indices"},
               {"a.values", "a.data"}, {"options.tolerance", "tol"},
               {"options.max_iterations", "max_iterations"}},
        [&] {
          return cg(dense.get(), indptr.get(), indices.get(), data.get(), rb, rx, tolerance,
                    max_iterations);
        });
    return py::make_tuple(outcome.converged, outcome.iterations, outcome.residual_norm,
                          outcome.residual_history);
  });
}
