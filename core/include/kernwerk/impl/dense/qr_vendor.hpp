#pragma once
// The vendor QR of an execution space (LAPACK on the host, cuSOLVER on CUDA), where the build has
// one: a backend folder specialises qr_vendor<Space, T> with available = true and
//   geqrf(space, a, tau)                  a: m x n column-major, becomes R and the reflectors
//   orgqr(space, q, tau, k)               q: m x p holding k reflectors, becomes Q's p columns
//   ormqr(space, a, tau, c, transpose)    c := Q c or Q^T c, Q from a's k reflectors
// on column-major block Views (stride 1 down a column) whose sizes fit in an int.
#include <Kokkos_Core.hpp>

#include "kernwerk/config.hpp"

namespace kernwerk::impl {

template <class Space, class T>
struct qr_vendor {
  static constexpr bool available = false;
};

}  // namespace kernwerk::impl

#if KERNWERK_ENABLE_HOST_TUNED && KERNWERK_ENABLE_LAPACK
#include "kernwerk/host/qr.hpp"
#endif
#if KERNWERK_ENABLE_CUDA_TUNED && KERNWERK_ENABLE_CUSOLVER
#include "kernwerk/cuda/qr.hpp"
#endif
