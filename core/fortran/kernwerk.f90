!> \file
!> Kernwerk from Fortran: the modules kernwerk and kernwerk_mpi (kernwerk_mpi.f90), bind(C)
!! interfaces to kernwerk.h behind generic procedures that take assumed-shape real32 or real64
!! arrays, and *_device variants that take type(c_ptr) device memory (CUDA Fortran, OpenACC
!! host_data) and run on the GPU with no transfers.

!> What the Fortran modules kernwerk and kernwerk_mpi share: the last error's message, the
!! handling of a status (`stat` or a stop), the C structs of nearest-neighbour and index options
!! (kw_nearest_options, kw_within_options) and their filling from the procedures' optional
!! arguments. Use module kernwerk; this one is its workings.
module kernwerk_support
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: real64
  implicit none
  private
  public :: kw_last_error, finish, nearest_options_c, options_of, within_options_c, within_options_of

  !> kw_nearest_options of kernwerk.h.
  type, bind(C) :: nearest_options_c
    integer(c_int) :: metric          !< 0 haversine, 1 euclidean
    integer(c_int) :: degrees         !< 1: haversine coordinates in degrees
    real(c_double) :: radius          !< haversine distances are central angles times this
    integer(c_int) :: method          !< 0 auto, 1 brute, 2 indexed
    integer(c_int) :: implementation  !< 0 auto, 1 generic, 2 tuned
    integer(c_int64_t) :: memory_budget  !< bytes; 0: the library's default
  end type

  !> kw_within_options of kernwerk.h (the options of an index and of a radius search).
  type, bind(C) :: within_options_c
    integer(c_int) :: metric, degrees
    real(c_double) :: radius
    integer(c_int) :: order, distances
  end type

  interface
    type(c_ptr) function c_last_error() bind(C, name="kw_last_error")
      import :: c_ptr
    end function
    integer(c_size_t) function c_strlen(text) bind(C, name="strlen")
      import :: c_size_t, c_ptr
      type(c_ptr), value :: text
    end function
  end interface

contains

  !> The message of this thread's last failed call ("" when none failed).
  function kw_last_error() result(message)
    character(len=:), allocatable :: message
    character(kind=c_char), pointer :: characters(:)
    type(c_ptr) :: pointer
    integer :: length
    pointer = c_last_error()
    length = int(c_strlen(pointer))
    call c_f_pointer(pointer, characters, [length])
    allocate(character(len=length) :: message)
    if (length > 0) message = transfer(characters, message)
  end function

  !> Hands the status to `stat` when present; otherwise stops on failure with the message.
  subroutine finish(status, stat)
    integer(c_int), intent(in) :: status
    integer, intent(out), optional :: stat
    if (present(stat)) then
      stat = int(status)
    else if (status /= 0_c_int) then  ! KW_SUCCESS
      error stop "kernwerk: " // kw_last_error()
    end if
  end subroutine

  !> The C options of a nearest-neighbour call's optional arguments (the rest at their defaults).
  function options_of(degrees, radius, euclidean) result(options)
    logical, intent(in), optional :: degrees, euclidean
    real(real64), intent(in), optional :: radius
    type(nearest_options_c) :: options
    options = nearest_options_c(0, 0, 1.0_c_double, 0, 0, 0_c_int64_t)
    if (present(degrees)) then
      if (degrees) options%degrees = 1
    end if
    if (present(euclidean)) then
      if (euclidean) options%metric = 1
    end if
    if (present(radius)) options%radius = radius
  end function

  !> The C options of an index's or a radius search's optional arguments.
  function within_options_of(degrees, radius, euclidean) result(options)
    logical, intent(in), optional :: degrees, euclidean
    real(real64), intent(in), optional :: radius
    type(within_options_c) :: options
    type(nearest_options_c) :: nearest
    nearest = options_of(degrees, radius, euclidean)
    options = within_options_c(nearest%metric, nearest%degrees, nearest%radius, 0, 1)
  end function

end module kernwerk_support

!> Kernwerk from Fortran.
!!
!! Every procedure has an optional integer `stat` (one of the KW_* codes; kw_last_error() gives
!! the message). Without it, a failure stops the program with the message, as Fortran users
!! expect. Outputs are intent(inout): a failed call leaves them as they were. Nearest-neighbour
!! indices are 1-based in the host procedures (Fortran's convention) and 0-based from the
!! *_device ones (they stay where the GPU wrote them). Host arrays must be contiguous.
!!
!! The generic procedures, each for real32 and real64 arrays (options as keywords):
!! - `call kw_nearest(observations, references, indices, distances [, degrees, radius,
!!   euclidean, stat])`: observations(dimension, n) and references(dimension, m), one point per
!!   column ((latitude, longitude) for haversine, radians unless degrees = .true.; 2 or 3
!!   coordinates with euclidean = .true.); indices(k, n) (integer(int64), 1-based) and
!!   distances(k, n) receive the k nearest references of every observation, nearest first, ties
!!   to the smallest index; haversine distances are radians times radius (default 1).
!! - `call kw_sphere_index_create(index, references [, degrees, radius, stat])`: builds a
!!   kw_sphere_index over references(2, m); one built before is destroyed once the new one
!!   stands (a failure leaves it as it was).
!! - `call kw_sphere_index_nearest(index, observations, indices, distances [, stat])`:
!!   observations(2, n) of the kind the index was built from; indices(k, n) 1-based and
!!   distances(k, n) as kw_nearest's.
!! - `call kw_index_create(index, points [, degrees, radius, euclidean, stat])`: builds a
!!   kw_index over points(dimension, m) (m may be 0); one built before is destroyed once the new
!!   one stands. Then, with queries(dimension, n) of the kind it was built from:
!!   `call kw_index_nearest(index, queries, indices, distances [, stat])` as kw_nearest,
!!   `call kw_index_count_within(index, queries, distance, counts [, stat])` as
!!   kw_count_within, `call kw_index_within(index, queries, distance, offsets, indices
!!   [, distances, stat])` as kw_within. kw_sphere_index_* is its first name (deprecated).
!! - `call kw_count_within(queries, points, distance, counts [, degrees, radius, euclidean,
!!   stat])`: counts(n) (integer(int64)) receives the number of points(dimension, m) within
!!   `distance` of each of queries(dimension, n) (a point at exactly `distance` counts).
!! - `call kw_within(queries, points, distance, offsets, indices [, distances, degrees, radius,
!!   euclidean, stat])`: every point within `distance` of each query, in compressed columns:
!!   the neighbours of query i are indices(p) at distances(p) for p from offsets(i) to
!!   offsets(i + 1) - 1, nearest first, ties to the smallest index (1-based); offsets(n + 1)
!!   (integer(int64)); indices (integer(int64)) and distances are allocatable and come back
!!   allocated to the number found. any_order = .true. leaves each row unsorted, which costs
!!   less (the same neighbours); without distances none are computed.
!! - `call kw_dbscan(points, eps, min_samples, labels [, clusters, first_cluster, degrees,
!!   radius, euclidean, stat])`: DBSCAN of points(dimension, n); labels(n) (integer(int64))
!!   receives each point's cluster, numbered from 1 in the order of their smallest core point
!!   (Fortran's convention; the C and C++ labels count from 0), or 0 for noise; clusters their
!!   number. A core point has at least min_samples points within eps, itself included; a border
!!   point joins its nearest core point's cluster, or with first_cluster = .true. the
!!   smallest-numbered cluster among its core neighbours (scikit-learn's labels).
!! - `call kw_diffuse(field, steps [, coeff, laplacian, stat])`: `steps` steps of
!!   field = field - coeff (4 f - neighbours inside the grid), coeff in [0, 0.25] (default
!!   0.25); laplacian (the shape of field) receives the Laplacian of the last step.
!! - `call kw_sum(x, result [, stat])`, `call kw_norm2(x, result [, stat])`,
!!   `call kw_dot(x, y, result [, stat])`: result (real64) in float64, compensated.
!! - `call kw_gemm(a, b, c [, alpha, beta, stat])`: c = alpha a b + beta c (alpha 1, beta 0 by
!!   default).
!! - `call kw_cg(a, b, x [, tolerance, max_iterations, iterations, residual, stat])`: a x = b
!!   for symmetric positive-definite a(n, n); x holds the initial guess and receives the
!!   solution; stops when ||r|| <= tolerance ||b|| (default 1e-8) or after max_iterations
!!   (default n); iterations and residual (||r|| / ||b||) receive what it did.
!! - `call kw_qr(a, q, r [, generic, stat])`: a = q r for a(m, n), m >= n: q(m, n) and r(n, n)
!!   (reduced), or q(m, m) and r(m, n) (complete, chosen by q's shape); r is upper triangular
!!   with a non-negative diagonal. generic = .true. takes Kernwerk's own Householder QR instead
!!   of LAPACK's (or cuSOLVER's).
!! - `call kw_qr_factor(a, tau [, generic, stat])`: LAPACK's factored form in place of a(m, n)
!!   (r on and above the diagonal, the Householder vectors below), tau(n) their scalars.
!! - `call kw_apply_q(factors, tau, c [, transpose, generic, stat])`: c = q^T c (the default)
!!   or, with transpose = .false., c = q c, for the q of kw_qr_factor; c(m) or c(m, k).
!! - `call kw_solve_least_squares(a, b, x [, generic, stat])`: the least-squares solution of
!!   a x = b for a(m, n) of full column rank, b(m) and x(n), or b(m, k) and x(n, k).
!! - `call kw_fft(input, output [, inverse, lines, normalization, stat])`, or in place
!!   `call kw_fft(x [, inverse, lines, normalization, stat])`, with FFTW (host): the discrete
!!   Fourier transform of a rank-1 array, or of a rank-2 one as a plane, or, with
!!   lines = .true., of each of its columns. Complex to complex forward, or inverse with
!!   inverse = .true.; real to complex is forward and gives the half spectrum, output(n1/2 + 1
!!   [, n2]) for input(n1 [, n2]); complex to real is inverse, output's shape saying n1.
!!   normalization is "backward" (the default: the inverse scaled by 1/N, as NumPy's),
!!   "ortho" or "forward". A non-finite input is an error.
module kernwerk
  use, intrinsic :: iso_c_binding
  use kernwerk_support
  use, intrinsic :: iso_fortran_env, only: real32, real64, int64
  implicit none
  private

  integer, parameter, public :: KW_SUCCESS = 0           !< done
  integer, parameter, public :: KW_INVALID_ARGUMENT = 1  !< an argument the call cannot accept
  integer, parameter, public :: KW_UNSUPPORTED = 2       !< a request this build cannot serve
  integer, parameter, public :: KW_NOT_INITIALIZED = 3   !< kw_initialize was not called
  integer, parameter, public :: KW_NOT_CONVERGED = 4     !< kw_cg ran out of iterations
  integer, parameter, public :: KW_OUT_OF_MEMORY = 5     !< an allocation failed
  integer, parameter, public :: KW_INTERNAL_ERROR = 6    !< anything else (kw_last_error says what)
  integer, parameter, public :: KW_FLOAT32 = 0           !< device arrays of real32
  integer, parameter, public :: KW_FLOAT64 = 1           !< device arrays of real64
  integer, parameter :: host_memory = 0, device_memory = 1, row_major = 0, column_major = 1

  public :: kw_initialize, kw_finalize, kw_last_error, kw_nearest, kw_nearest_device, &
            kw_diffuse, kw_diffuse_device, kw_sum, kw_dot, kw_norm2, kw_gemm, kw_cg, &
            kw_sphere_index_create, kw_sphere_index_create_device, kw_sphere_index_nearest, &
            kw_sphere_index_nearest_device, kw_sphere_index_size, kw_sphere_index_destroy, &
            kw_count_within, kw_within, kw_dbscan, kw_qr, kw_qr_factor, kw_apply_q, &
            kw_solve_least_squares, kw_fft, kw_index_create, kw_index_create_device, &
            kw_index_nearest, kw_index_nearest_device, kw_index_count_within, kw_index_within, &
            kw_index_size, kw_index_destroy

  !> A sphere index (kw_sphere_index_* in kernwerk.h): built once over references, queried many
  !! times with the answers of kw_nearest. Destroy it before kw_finalize.
  type, public :: kw_sphere_index
    private
    type(c_ptr) :: handle = c_null_ptr      !< the C index; null until built
    integer(c_int) :: type = KW_FLOAT64     !< KW_FLOAT32 or KW_FLOAT64, of its references
    integer(c_int) :: memory = 0            !< host (0) or device (1) memory
  end type

  !> A spatial index (kw_index_* in kernwerk.h): built once over points, queried many times
  !! with the answers of kw_nearest, kw_within and kw_count_within. Destroy it before
  !! kw_finalize.
  type, public :: kw_index
    private
    type(c_ptr) :: handle = c_null_ptr      !< the C index; null until built
    integer(c_int) :: type = KW_FLOAT64     !< KW_FLOAT32 or KW_FLOAT64, of its points
    integer(c_int) :: memory = 0            !< host (0) or device (1) memory
    integer(int64) :: dimension = 0         !< coordinates per point
  end type

  type, bind(C) :: dbscan_options_c  ! kw_dbscan_options
    integer(c_int) :: metric, degrees
    real(c_double) :: radius
    integer(c_int) :: border
  end type

  type, bind(C) :: fft_shape_c  ! kw_fft_shape
    integer(c_int) :: form
    integer(c_int64_t) :: count, rows, length
  end type

  type, bind(C) :: fft_options_c  ! kw_fft_options
    integer(c_int) :: real, normalization, layout, check_input
  end type

  type, bind(C) :: cg_result_c
    integer(c_int64_t) :: iterations
    real(c_double) :: residual_norm
  end type

  interface
    integer(c_int) function c_initialize() bind(C, name="kw_initialize")
      import :: c_int
    end function
    integer(c_int) function c_finalize() bind(C, name="kw_finalize")
      import :: c_int
    end function
    integer(c_int) function c_invalid(function, argument, problem) bind(C, name="kw_report_invalid_argument")
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: function(*), argument(*), problem(*)
    end function
    integer(c_int) function c_nearest(type, memory, dimension, observations, n, references, m, k, &
                                      indices, distances, options) bind(C, name="kw_nearest")
      import :: c_int, c_int64_t, c_ptr, nearest_options_c
      integer(c_int), value :: type, memory
      integer(c_int64_t), value :: dimension, n, m, k
      type(c_ptr), value :: observations, references, indices, distances
      type(nearest_options_c), intent(in) :: options
    end function
    integer(c_int) function c_count_within(type, memory, dimension, queries, n, points, m, distance, &
                                           counts, options) bind(C, name="kw_count_within")
      import :: c_int, c_int64_t, c_ptr, c_double, within_options_c
      integer(c_int), value :: type, memory
      integer(c_int64_t), value :: dimension, n, m
      type(c_ptr), value :: queries, points, counts
      real(c_double), value :: distance
      type(within_options_c), intent(in) :: options
    end function
    integer(c_int) function c_within(type, memory, dimension, queries, n, points, m, distance, &
                                     options, result) bind(C, name="kw_within")
      import :: c_int, c_int64_t, c_ptr, c_double, within_options_c
      integer(c_int), value :: type, memory
      integer(c_int64_t), value :: dimension, n, m
      type(c_ptr), value :: queries, points
      real(c_double), value :: distance
      type(within_options_c), intent(in) :: options
      type(c_ptr), intent(out) :: result
    end function
    integer(c_int64_t) function c_within_total(result) bind(C, name="kw_within_result_total")
      import :: c_int64_t, c_ptr
      type(c_ptr), value :: result
    end function
    integer(c_int) function c_within_copy(result, offsets, indices, distances) &
        bind(C, name="kw_within_result_copy")
      import :: c_int, c_ptr
      type(c_ptr), value :: result, offsets, indices, distances
    end function
    integer(c_int) function c_within_destroy(result) bind(C, name="kw_within_result_destroy")
      import :: c_int, c_ptr
      type(c_ptr), value :: result
    end function
    integer(c_int) function c_dbscan(type, memory, dimension, points, n, eps, min_samples, labels, &
                                     clusters, options) bind(C, name="kw_dbscan")
      import :: c_int, c_int64_t, c_ptr, c_double, dbscan_options_c
      integer(c_int), value :: type, memory
      integer(c_int64_t), value :: dimension, n, min_samples
      type(c_ptr), value :: points, labels
      real(c_double), value :: eps
      integer(c_int64_t), intent(out) :: clusters
      type(dbscan_options_c), intent(in) :: options
    end function
    integer(c_int) function c_diffuse(type, memory, field, rows, columns, row_stride, steps, coeff, &
                                      laplacian, laplacian_row_stride) bind(C, name="kw_diffuse")
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int), value :: type, memory
      type(c_ptr), value :: field, laplacian
      integer(c_int64_t), value :: rows, columns, row_stride, steps, laplacian_row_stride
      real(c_double), value :: coeff
    end function
    integer(c_int) function c_sum(type, memory, n, x, stride, result) bind(C, name="kw_sum")
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int), value :: type, memory
      integer(c_int64_t), value :: n, stride
      type(c_ptr), value :: x
      real(c_double), intent(inout) :: result
    end function
    integer(c_int) function c_norm2(type, memory, n, x, stride, result) bind(C, name="kw_norm2")
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int), value :: type, memory
      integer(c_int64_t), value :: n, stride
      type(c_ptr), value :: x
      real(c_double), intent(inout) :: result
    end function
    integer(c_int) function c_dot(type, memory, n, x, x_stride, y, y_stride, result) bind(C, name="kw_dot")
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int), value :: type, memory
      integer(c_int64_t), value :: n, x_stride, y_stride
      type(c_ptr), value :: x, y
      real(c_double), intent(inout) :: result
    end function
    integer(c_int) function c_gemm(type, memory, layout, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) &
        bind(C, name="kw_gemm")
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int), value :: type, memory, layout
      integer(c_int64_t), value :: m, n, k, lda, ldb, ldc
      real(c_double), value :: alpha, beta
      type(c_ptr), value :: a, b, c
    end function
    integer(c_int) function c_cg_dense(type, memory, layout, n, a, lda, b, x, tolerance, max_iterations, &
                                       result, history, history_capacity) bind(C, name="kw_cg_dense")
      import :: c_int, c_int64_t, c_ptr, c_double, cg_result_c
      integer(c_int), value :: type, memory, layout
      integer(c_int64_t), value :: n, lda, max_iterations, history_capacity
      type(c_ptr), value :: a, b, x, history
      real(c_double), value :: tolerance
      type(cg_result_c), intent(inout) :: result
    end function
    integer(c_int) function c_qr(type, memory, layout, mode, implementation, m, n, a, lda, q, ldq, r, ldr) &
        bind(C, name="kw_qr")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: type, memory, layout, mode, implementation
      integer(c_int64_t), value :: m, n, lda, ldq, ldr
      type(c_ptr), value :: a, q, r
    end function
    integer(c_int) function c_qr_factor(type, memory, layout, implementation, m, n, a, lda, factors, ldf, tau) &
        bind(C, name="kw_qr_factor")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: type, memory, layout, implementation
      integer(c_int64_t), value :: m, n, lda, ldf
      type(c_ptr), value :: a, factors, tau
    end function
    integer(c_int) function c_apply_q(type, memory, layout, product, implementation, m, n, factors, ldf, tau, &
                                      columns, c, ldc) bind(C, name="kw_apply_q")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: type, memory, layout, product, implementation
      integer(c_int64_t), value :: m, n, ldf, columns, ldc
      type(c_ptr), value :: factors, tau, c
    end function
    integer(c_int) function c_solve_least_squares(type, memory, layout, implementation, m, n, a, lda, columns, &
                                                  b, ldb, x, ldx) bind(C, name="kw_solve_least_squares")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: type, memory, layout, implementation
      integer(c_int64_t), value :: m, n, lda, columns, ldb, ldx
      type(c_ptr), value :: a, b, x
    end function
    integer(c_int) function c_fft_plan_create(type, memory, shape, options, plan) bind(C, name="kw_fft_plan_create")
      import :: c_int, c_ptr, fft_shape_c, fft_options_c
      integer(c_int), value :: type, memory
      type(fft_shape_c), intent(in) :: shape
      type(fft_options_c), intent(in) :: options
      type(c_ptr), intent(out) :: plan
    end function
    integer(c_int) function c_fft_forward(plan, in, out) bind(C, name="kw_fft_forward")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan, in, out
    end function
    integer(c_int) function c_fft_inverse(plan, in, out) bind(C, name="kw_fft_inverse")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan, in, out
    end function
    integer(c_int) function c_fft_plan_destroy(plan) bind(C, name="kw_fft_plan_destroy")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan
    end function
    integer(c_int) function c_index_create(type, memory, references, m, options, index) &
        bind(C, name="kw_sphere_index_create")
      import :: c_int, c_int64_t, c_ptr, nearest_options_c
      integer(c_int), value :: type, memory
      type(c_ptr), value :: references
      integer(c_int64_t), value :: m
      type(nearest_options_c), intent(in) :: options
      type(c_ptr), intent(inout) :: index
    end function
    integer(c_int) function c_index_nearest(index, observations, n, k, indices, distances) &
        bind(C, name="kw_sphere_index_nearest")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: index, observations, indices, distances
      integer(c_int64_t), value :: n, k
    end function
    integer(c_int64_t) function c_index_size(index) bind(C, name="kw_sphere_index_size")
      import :: c_int64_t, c_ptr
      type(c_ptr), value :: index
    end function
    integer(c_int) function c_index_destroy(index) bind(C, name="kw_sphere_index_destroy")
      import :: c_int, c_ptr
      type(c_ptr), value :: index
    end function
    integer(c_int) function c_spatial_create(type, memory, dimension, points, m, options, index) &
        bind(C, name="kw_index_create")
      import :: c_int, c_int64_t, c_ptr, within_options_c
      integer(c_int), value :: type, memory
      integer(c_int64_t), value :: dimension, m
      type(c_ptr), value :: points
      type(within_options_c), intent(in) :: options
      type(c_ptr), intent(inout) :: index
    end function
    integer(c_int) function c_spatial_nearest(index, queries, n, k, indices, distances) &
        bind(C, name="kw_index_nearest")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: index, queries, indices, distances
      integer(c_int64_t), value :: n, k
    end function
    integer(c_int) function c_spatial_count_within(index, queries, n, distance, counts) &
        bind(C, name="kw_index_count_within")
      import :: c_int, c_int64_t, c_ptr, c_double
      type(c_ptr), value :: index, queries, counts
      integer(c_int64_t), value :: n
      real(c_double), value :: distance
    end function
    integer(c_int) function c_spatial_within(index, queries, n, distance, result) &
        bind(C, name="kw_index_within")
      import :: c_int, c_int64_t, c_ptr, c_double
      type(c_ptr), value :: index, queries
      integer(c_int64_t), value :: n
      real(c_double), value :: distance
      type(c_ptr), intent(inout) :: result
    end function
    integer(c_int64_t) function c_spatial_size(index) bind(C, name="kw_index_size")
      import :: c_int64_t, c_ptr
      type(c_ptr), value :: index
    end function
    integer(c_int) function c_spatial_destroy(index) bind(C, name="kw_index_destroy")
      import :: c_int, c_ptr
      type(c_ptr), value :: index
    end function
  end interface

  interface kw_nearest
    module procedure nearest_real32, nearest_real64
  end interface
  interface kw_index_create
    module procedure spatial_create_real32, spatial_create_real64
  end interface
  interface kw_index_nearest
    module procedure spatial_nearest_real32, spatial_nearest_real64
  end interface
  interface kw_index_count_within
    module procedure spatial_count_within_real32, spatial_count_within_real64
  end interface
  interface kw_index_within
    module procedure spatial_within_real32, spatial_within_real64
  end interface
  interface kw_sphere_index_create
    module procedure index_create_real32, index_create_real64
  end interface
  interface kw_sphere_index_nearest
    module procedure index_nearest_real32, index_nearest_real64
  end interface
  interface kw_count_within
    module procedure count_within_real32, count_within_real64
  end interface
  interface kw_within
    module procedure within_real32, within_real64
  end interface
  interface kw_dbscan
    module procedure dbscan_real32, dbscan_real64
  end interface
  interface kw_diffuse
    module procedure diffuse_real32, diffuse_real64
  end interface
  interface kw_sum
    module procedure sum_real32, sum_real64
  end interface
  interface kw_dot
    module procedure dot_real32, dot_real64
  end interface
  interface kw_norm2
    module procedure norm2_real32, norm2_real64
  end interface
  interface kw_gemm
    module procedure gemm_real32, gemm_real64
  end interface
  interface kw_cg
    module procedure cg_real32, cg_real64
  end interface
  interface kw_qr
    module procedure qr_real32, qr_real64
  end interface
  interface kw_qr_factor
    module procedure qr_factor_real32, qr_factor_real64
  end interface
  interface kw_apply_q
    module procedure apply_q_real32, apply_q_real64, apply_q_vector_real32, apply_q_vector_real64
  end interface
  interface kw_solve_least_squares
    module procedure lstsq_real32, lstsq_real64, lstsq_vector_real32, lstsq_vector_real64
  end interface
  interface kw_fft
    module procedure fft_complex32, fft_complex64, fft_plane_complex32, fft_plane_complex64, &
                     fft_in_place32, fft_in_place64, fft_plane_in_place32, fft_plane_in_place64, &
                     rfft_real32, rfft_real64, rfft_plane_real32, rfft_plane_real64, &
                     irfft_real32, irfft_real64, irfft_plane_real32, irfft_plane_real64
  end interface

contains

  ! Records a shape problem the C interface cannot see, as its own errors read.
  integer(c_int) function invalid(function, argument, problem)
    character(*), intent(in) :: function, argument, problem
    invalid = c_invalid(function // c_null_char, argument // c_null_char, problem // c_null_char)
  end function

  function text(value) result(digits)
    integer(int64), intent(in) :: value
    character(len=:), allocatable :: digits
    character(len=24) :: buffer
    write (buffer, '(i0)') value
    digits = trim(buffer)
  end function

  !> Initialises Kokkos unless the program already did (then it is left alone).
  subroutine kw_initialize(stat)
    integer, intent(out), optional :: stat
    call finish(c_initialize(), stat)
  end subroutine

  !> Finalises Kokkos if, and only if, kw_initialize initialised it.
  subroutine kw_finalize(stat)
    integer, intent(out), optional :: stat
    call finish(c_finalize(), stat)
  end subroutine

  ! kw_nearest (the module's description has its arguments)
  subroutine nearest_real64(observations, references, indices, distances, degrees, radius, euclidean, stat)
    real(real64), intent(in), target, contiguous :: observations(:, :), references(:, :)
    integer(int64), intent(inout), target, contiguous :: indices(:, :)
    real(real64), intent(inout), target, contiguous :: distances(:, :)
    logical, intent(in), optional :: degrees, euclidean
    real(real64), intent(in), optional :: radius
    integer, intent(out), optional :: stat
    integer(c_int) :: status
    status = nearest_check("kw_nearest", size(observations, 1, int64), size(references, 1, int64), &
                           size(observations, 2, int64), size(indices, 1, int64), size(indices, 2, int64), &
                           size(distances, 1, int64), size(distances, 2, int64))
    if (status == KW_SUCCESS) &
      status = nearest_sets_check("kw_nearest", size(observations, 2, int64), size(references, 2, int64), &
                                  size(indices, 1, int64), radius)
    if (status == KW_SUCCESS) then
      status = c_nearest(KW_FLOAT64, host_memory, size(observations, 1, int64), c_loc(observations), &
                         size(observations, 2, int64), c_loc(references), size(references, 2, int64), &
                         size(indices, 1, int64), c_loc(indices), c_loc(distances), &
                         options_of(degrees, radius, euclidean))
      if (status == KW_SUCCESS) indices = indices + 1
    end if
    call finish(status, stat)
  end subroutine

  subroutine nearest_real32(observations, references, indices, distances, degrees, radius, euclidean, stat)
    real(real32), intent(in), target, contiguous :: observations(:, :), references(:, :)
    integer(int64), intent(inout), target, contiguous :: indices(:, :)
    real(real32), intent(inout), target, contiguous :: distances(:, :)
    logical, intent(in), optional :: degrees, euclidean
    real(real64), intent(in), optional :: radius
    integer, intent(out), optional :: stat
    integer(c_int) :: status
    status = nearest_check("kw_nearest", size(observations, 1, int64), size(references, 1, int64), &
                           size(observations, 2, int64), size(indices, 1, int64), size(indices, 2, int64), &
                           size(distances, 1, int64), size(distances, 2, int64))
    if (status == KW_SUCCESS) &
      status = nearest_sets_check("kw_nearest", size(observations, 2, int64), size(references, 2, int64), &
                                  size(indices, 1, int64), radius)
    if (status == KW_SUCCESS) then
      status = c_nearest(KW_FLOAT32, host_memory, size(observations, 1, int64), c_loc(observations), &
                         size(observations, 2, int64), c_loc(references), size(references, 2, int64), &
                         size(indices, 1, int64), c_loc(indices), c_loc(distances), &
                         options_of(degrees, radius, euclidean))
      if (status == KW_SUCCESS) indices = indices + 1
    end if
    call finish(status, stat)
  end subroutine

  ! The shapes the C interface cannot see: both point sets of one dimension, outputs (k, n).
  integer(c_int) function nearest_check(fn, dimension, reference_dimension, n, k, index_columns, &
                                        distance_rows, distance_columns) result(status)
    character(*), intent(in) :: fn
    integer(int64), intent(in) :: dimension, reference_dimension, n, k, index_columns, distance_rows, &
                                  distance_columns
    status = KW_SUCCESS
    if (reference_dimension /= dimension) then
      status = invalid(fn, "references", text(reference_dimension) // " coordinates per point, " // &
                       "observations have " // text(dimension))
    else if (index_columns /= n) then
      status = invalid(fn, "indices", "has " // text(index_columns) // " columns for " // &
                       text(n) // " observations")
    else if (k < 1) then
      status = invalid(fn, "indices", "has 0 rows: k must be at least 1")
    else if (distance_rows /= k .or. distance_columns /= n) then
      status = invalid(fn, "distances", "shape (" // text(distance_rows) // ", " // &
                       text(distance_columns) // ") differs from indices' (" // text(k) // ", " // text(n) // ")")
    end if
  end function

  ! kw_nearest's sets and radius, named as its Fortran arguments (the C call would name n, m, k
  ! and options->radius).
  integer(c_int) function nearest_sets_check(fn, n, m, k, radius) result(status)
    character(*), intent(in) :: fn
    integer(int64), intent(in) :: n, m, k
    real(real64), intent(in), optional :: radius
    status = KW_SUCCESS
    if (n == 0) then
      status = invalid(fn, "observations", "empty set")
    else if (m == 0) then
      status = invalid(fn, "references", "empty set")
    else if (k > m) then
      status = invalid(fn, "indices", "has " // text(k) // " rows (k), but references hold " // text(m) // " points")
    else if (present(radius)) then
      if (.not. (radius > 0 .and. radius <= huge(radius))) &
        status = invalid(fn, "radius", "must be positive and finite")
    end if
  end function

  ! `options` with kw_within's rows: in any order where any_order is .true., the distances
  ! computed only where they are asked for.
  function rows_of(options, any_order, with_distances) result(rows)
    type(within_options_c), intent(in) :: options
    logical, intent(in), optional :: any_order
    logical, intent(in) :: with_distances
    type(within_options_c) :: rows
    rows = options
    if (present(any_order)) then
      if (any_order) rows%order = 1
    end if
    rows%distances = merge(1_c_int, 0_c_int, with_distances)
  end function

  ! Whether points have as many coordinates as the queries.
  integer(c_int) function same_dimension(fn, dimension, point_dimension) result(status)
    character(*), intent(in) :: fn
    integer(int64), intent(in) :: dimension, point_dimension
    status = KW_SUCCESS
    if (point_dimension /= dimension) &
      status = invalid(fn, "points", text(point_dimension) // " coordinates per point, queries have " // &
                       text(dimension))
  end function

  ! kw_count_within (the module's description has its arguments)
  subroutine count_within_real64(queries, points, distance, counts, degrees, radius, euclidean, stat)
    real(real64), intent(in), target, contiguous :: queries(:, :), points(:, :)
    real(real64), intent(in) :: distance
    integer(int64), intent(inout), target, contiguous :: counts(:)
    logical, intent(in), optional :: degrees, euclidean
    real(real64), intent(in), optional :: radius
    integer, intent(out), optional :: stat
    call finish(count_within_c(KW_FLOAT64, size(queries, 1, int64), size(points, 1, int64), c_loc(queries), &
                               size(queries, 2, int64), c_loc(points), size(points, 2, int64), distance, counts, &
                               within_options_of(degrees, radius, euclidean)), stat)
  end subroutine

  subroutine count_within_real32(queries, points, distance, counts, degrees, radius, euclidean, stat)
    real(real32), intent(in), target, contiguous :: queries(:, :), points(:, :)
    real(real64), intent(in) :: distance
    integer(int64), intent(inout), target, contiguous :: counts(:)
    logical, intent(in), optional :: degrees, euclidean
    real(real64), intent(in), optional :: radius
    integer, intent(out), optional :: stat
    call finish(count_within_c(KW_FLOAT32, size(queries, 1, int64), size(points, 1, int64), c_loc(queries), &
                               size(queries, 2, int64), c_loc(points), size(points, 2, int64), distance, counts, &
                               within_options_of(degrees, radius, euclidean)), stat)
  end subroutine

  integer(c_int) function count_within_c(type, dimension, point_dimension, queries, n, points, m, distance, &
                                         counts, options) result(status)
    integer(c_int), intent(in) :: type
    integer(int64), intent(in) :: dimension, point_dimension, n, m
    type(c_ptr), intent(in) :: queries, points
    real(real64), intent(in) :: distance
    integer(int64), intent(inout), target, contiguous :: counts(:)
    type(within_options_c), intent(in) :: options
    status = same_dimension("kw_count_within", dimension, point_dimension)
    if (status == KW_SUCCESS .and. size(counts, kind=int64) /= n) &
      status = invalid("kw_count_within", "counts", "has " // text(size(counts, kind=int64)) // " entries for " // &
                       text(n) // " queries")
    if (status == KW_SUCCESS) &
      status = c_count_within(type, host_memory, dimension, queries, n, points, m, distance, c_loc(counts), options)
  end function

  ! kw_within (the module's description has its arguments)
  subroutine within_real64(queries, points, distance, offsets, indices, distances, degrees, radius, euclidean, &
                           any_order, stat)
    real(real64), intent(in), target, contiguous :: queries(:, :), points(:, :)
    real(real64), intent(in) :: distance
    integer(int64), intent(inout), contiguous :: offsets(:)
    integer(int64), allocatable, intent(inout) :: indices(:)
    real(real64), allocatable, intent(inout), target, optional :: distances(:)
    logical, intent(in), optional :: degrees, euclidean, any_order
    real(real64), intent(in), optional :: radius
    integer, intent(out), optional :: stat
    type(c_ptr) :: result
    integer(c_int) :: status
    status = within_search(KW_FLOAT64, size(queries, 1, int64), size(points, 1, int64), c_loc(queries), &
                           size(queries, 2, int64), c_loc(points), size(points, 2, int64), distance, &
                           size(offsets, kind=int64), &
                           rows_of(within_options_of(degrees, radius, euclidean), any_order, present(distances)), &
                           result)
    call within_result_real64(status, result, offsets, indices, distances, stat)
  end subroutine

  subroutine within_real32(queries, points, distance, offsets, indices, distances, degrees, radius, euclidean, &
                           any_order, stat)
    real(real32), intent(in), target, contiguous :: queries(:, :), points(:, :)
    real(real64), intent(in) :: distance
    integer(int64), intent(inout), contiguous :: offsets(:)
    integer(int64), allocatable, intent(inout) :: indices(:)
    real(real32), allocatable, intent(inout), target, optional :: distances(:)
    logical, intent(in), optional :: degrees, euclidean, any_order
    real(real64), intent(in), optional :: radius
    integer, intent(out), optional :: stat
    type(c_ptr) :: result
    integer(c_int) :: status
    status = within_search(KW_FLOAT32, size(queries, 1, int64), size(points, 1, int64), c_loc(queries), &
                           size(queries, 2, int64), c_loc(points), size(points, 2, int64), distance, &
                           size(offsets, kind=int64), &
                           rows_of(within_options_of(degrees, radius, euclidean), any_order, present(distances)), &
                           result)
    call within_result_real32(status, result, offsets, indices, distances, stat)
  end subroutine

  ! A radius search's end: its result (where status says it ran) copied, 1-based, into offsets
  ! and new indices and distances (allocated to the number found), and freed.
  subroutine within_result_real64(status, result, offsets, indices, distances, stat)
    integer(c_int), intent(in) :: status
    type(c_ptr), intent(in) :: result
    integer(int64), intent(inout), contiguous :: offsets(:)
    integer(int64), allocatable, intent(inout) :: indices(:)
    real(real64), allocatable, intent(inout), target, optional :: distances(:)
    integer, intent(out), optional :: stat
    real(real64), allocatable, target :: found_distances(:)
    integer(int64), allocatable :: found(:)
    integer(c_int) :: copied
    copied = status
    if (copied == KW_SUCCESS) then
      allocate(found_distances(merge(c_within_total(result), 0_int64, present(distances))))
      copied = within_copy(result, offsets, found, merge(c_loc(found_distances), c_null_ptr, present(distances)))
    end if
    if (copied == KW_SUCCESS) then
      call move_alloc(found, indices)
      if (present(distances)) call move_alloc(found_distances, distances)
    end if
    call finish(copied, stat)
  end subroutine

  ! A radius search's end: its result (where status says it ran) copied, 1-based, into offsets
  ! and new indices and distances (allocated to the number found), and freed.
  subroutine within_result_real32(status, result, offsets, indices, distances, stat)
    integer(c_int), intent(in) :: status
    type(c_ptr), intent(in) :: result
    integer(int64), intent(inout), contiguous :: offsets(:)
    integer(int64), allocatable, intent(inout) :: indices(:)
    real(real32), allocatable, intent(inout), target, optional :: distances(:)
    integer, intent(out), optional :: stat
    real(real32), allocatable, target :: found_distances(:)
    integer(int64), allocatable :: found(:)
    integer(c_int) :: copied
    copied = status
    if (copied == KW_SUCCESS) then
      allocate(found_distances(merge(c_within_total(result), 0_int64, present(distances))))
      copied = within_copy(result, offsets, found, merge(c_loc(found_distances), c_null_ptr, present(distances)))
    end if
    if (copied == KW_SUCCESS) then
      call move_alloc(found, indices)
      if (present(distances)) call move_alloc(found_distances, distances)
    end if
    call finish(copied, stat)
  end subroutine

  ! The search of kw_within, its result held in `result` on success.
  integer(c_int) function within_search(type, dimension, point_dimension, queries, n, points, m, distance, &
                                        offset_count, options, result) result(status)
    integer(c_int), intent(in) :: type
    integer(int64), intent(in) :: dimension, point_dimension, n, m, offset_count
    type(c_ptr), intent(in) :: queries, points
    real(real64), intent(in) :: distance
    type(within_options_c), intent(in) :: options
    type(c_ptr), intent(out) :: result
    result = c_null_ptr
    status = same_dimension("kw_within", dimension, point_dimension)
    if (status == KW_SUCCESS .and. offset_count /= n + 1) &
      status = invalid("kw_within", "offsets", "has " // text(offset_count) // " entries for " // text(n) // &
                       " queries (n + 1 needed)")
    if (status == KW_SUCCESS) &
      status = c_within(type, host_memory, dimension, queries, n, points, m, distance, options, result)
  end function

  ! Copies kw_within's result, 1-based, into offsets and a new `found` (and the distances, C
  ! memory of the result's total), and frees it. offsets are left as they were on failure.
  integer(c_int) function within_copy(result, offsets, found, distances) result(status)
    type(c_ptr), intent(in) :: result, distances
    integer(int64), intent(inout), contiguous :: offsets(:)
    integer(int64), allocatable, intent(out), target :: found(:)
    integer(int64), allocatable, target :: starts(:)
    integer(c_int) :: freed
    allocate(found(c_within_total(result)), starts(size(offsets)))
    status = c_within_copy(result, c_loc(starts), c_loc(found), distances)
    freed = c_within_destroy(result)
    if (status == KW_SUCCESS) then
      offsets = starts + 1
      found = found + 1
    end if
  end function

  ! kw_dbscan (the module's description has its arguments)
  subroutine dbscan_real64(points, eps, min_samples, labels, clusters, first_cluster, degrees, radius, &
                           euclidean, stat)
    real(real64), intent(in), target, contiguous :: points(:, :)
    real(real64), intent(in) :: eps
    integer(int64), intent(in) :: min_samples
    integer(int64), intent(inout), target, contiguous :: labels(:)
    integer(int64), intent(out), optional :: clusters
    logical, intent(in), optional :: first_cluster, degrees, euclidean
    real(real64), intent(in), optional :: radius
    integer, intent(out), optional :: stat
    call finish(dbscan_c(KW_FLOAT64, size(points, 1, int64), c_loc(points), size(points, 2, int64), eps, &
                         min_samples, labels, clusters, first_cluster, &
                         within_options_of(degrees, radius, euclidean)), stat)
  end subroutine

  subroutine dbscan_real32(points, eps, min_samples, labels, clusters, first_cluster, degrees, radius, &
                           euclidean, stat)
    real(real32), intent(in), target, contiguous :: points(:, :)
    real(real64), intent(in) :: eps
    integer(int64), intent(in) :: min_samples
    integer(int64), intent(inout), target, contiguous :: labels(:)
    integer(int64), intent(out), optional :: clusters
    logical, intent(in), optional :: first_cluster, degrees, euclidean
    real(real64), intent(in), optional :: radius
    integer, intent(out), optional :: stat
    call finish(dbscan_c(KW_FLOAT32, size(points, 1, int64), c_loc(points), size(points, 2, int64), eps, &
                         min_samples, labels, clusters, first_cluster, &
                         within_options_of(degrees, radius, euclidean)), stat)
  end subroutine

  integer(c_int) function dbscan_c(type, dimension, points, n, eps, min_samples, labels, clusters, &
                                   first_cluster, metric) result(status)
    integer(c_int), intent(in) :: type
    integer(int64), intent(in) :: dimension, n, min_samples
    type(c_ptr), intent(in) :: points
    real(real64), intent(in) :: eps
    integer(int64), intent(inout), target, contiguous :: labels(:)
    integer(int64), intent(out), optional :: clusters
    logical, intent(in), optional :: first_cluster
    type(within_options_c), intent(in) :: metric
    integer(int64), allocatable, target :: found(:)
    integer(c_int64_t) :: count
    type(dbscan_options_c) :: options
    options = dbscan_options_c(metric%metric, metric%degrees, metric%radius, 0)
    if (present(first_cluster)) then
      if (first_cluster) options%border = 1
    end if
    if (size(labels, kind=int64) /= n) then
      status = invalid("kw_dbscan", "labels", "has " // text(size(labels, kind=int64)) // " entries for " // &
                       text(n) // " points")
      return
    end if
    allocate(found(n))
    status = c_dbscan(type, host_memory, dimension, points, n, eps, min_samples, c_loc(found), count, options)
    if (status == KW_SUCCESS) then
      labels = found + 1
      if (present(clusters)) clusters = count
    end if
  end function

  !> kw_nearest on device memory: points row after row (n x dimension, contiguous), indices
  !! (0-based) and distances (n x k) on the GPU; type is KW_FLOAT32 or KW_FLOAT64.
  subroutine kw_nearest_device(type, dimension, observations, n, references, m, k, indices, distances, &
                               degrees, radius, euclidean, stat)
    integer, intent(in) :: type
    integer(int64), intent(in) :: dimension, n, m, k
    type(c_ptr), intent(in) :: observations, references, indices, distances
    logical, intent(in), optional :: degrees, euclidean
    real(real64), intent(in), optional :: radius
    integer, intent(out), optional :: stat
    call finish(c_nearest(int(type, c_int), device_memory, dimension, observations, n, references, m, k, &
                          indices, distances, options_of(degrees, radius, euclidean)), stat)
  end subroutine

  ! ---- the sphere index: references(2, m), one (latitude, longitude) per column --------------
  subroutine index_create_real64(index, references, degrees, radius, stat)
    type(kw_sphere_index), intent(inout) :: index
    real(real64), intent(in), target, contiguous :: references(:, :)
    logical, intent(in), optional :: degrees
    real(real64), intent(in), optional :: radius
    integer, intent(out), optional :: stat
    call index_create(index, KW_FLOAT64, host_memory, size(references, 1, int64), c_loc(references), &
                      size(references, 2, int64), degrees, radius, stat)
  end subroutine

  subroutine index_create_real32(index, references, degrees, radius, stat)
    type(kw_sphere_index), intent(inout) :: index
    real(real32), intent(in), target, contiguous :: references(:, :)
    logical, intent(in), optional :: degrees
    real(real64), intent(in), optional :: radius
    integer, intent(out), optional :: stat
    call index_create(index, KW_FLOAT32, host_memory, size(references, 1, int64), c_loc(references), &
                      size(references, 2, int64), degrees, radius, stat)
  end subroutine

  !> kw_sphere_index_create on device memory: references row after row (m x 2, contiguous) on
  !! the GPU, of KW_FLOAT32 or KW_FLOAT64; query the index with kw_sphere_index_nearest_device.
  subroutine kw_sphere_index_create_device(index, type, references, m, degrees, radius, stat)
    type(kw_sphere_index), intent(inout) :: index
    integer, intent(in) :: type
    type(c_ptr), intent(in) :: references
    integer(int64), intent(in) :: m
    logical, intent(in), optional :: degrees
    real(real64), intent(in), optional :: radius
    integer, intent(out), optional :: stat
    call index_create(index, int(type, c_int), device_memory, 2_int64, references, m, degrees, radius, stat)
  end subroutine

  ! Builds the index; one built before is destroyed once the new one stands (a failure leaves
  ! it as it was).
  subroutine index_create(index, type, memory, dimension, references, m, degrees, radius, stat)
    type(kw_sphere_index), intent(inout) :: index
    integer(c_int), intent(in) :: type, memory
    integer(int64), intent(in) :: dimension, m
    type(c_ptr), intent(in) :: references
    logical, intent(in), optional :: degrees
    real(real64), intent(in), optional :: radius
    integer, intent(out), optional :: stat
    integer(c_int) :: status
    type(c_ptr) :: made
    made = c_null_ptr
    if (dimension /= 2) then
      status = invalid("kw_sphere_index_create", "references", text(dimension) // &
                       " coordinates per point; a sphere index takes 2 (latitude, longitude)")
    else
      status = c_index_create(type, memory, references, m, options_of(degrees, radius), made)
    end if
    if (status == KW_SUCCESS) then
      if (c_associated(index%handle)) status = c_index_destroy(index%handle)
      index = kw_sphere_index(made, type, memory)
    end if
    call finish(status, stat)
  end subroutine

  ! observations(2, n); indices(k, n) 1-based and distances(k, n), nearest first, of the kind
  ! the index was built from.
  subroutine index_nearest_real64(index, observations, indices, distances, stat)
    type(kw_sphere_index), intent(in) :: index
    real(real64), intent(in), target, contiguous :: observations(:, :)
    integer(int64), intent(inout), target, contiguous :: indices(:, :)
    real(real64), intent(inout), target, contiguous :: distances(:, :)
    integer, intent(out), optional :: stat
    call index_nearest(index, KW_FLOAT64, shape(observations, int64), c_loc(observations), indices, &
                       shape(distances, int64), c_loc(distances), stat)
  end subroutine

  subroutine index_nearest_real32(index, observations, indices, distances, stat)
    type(kw_sphere_index), intent(in) :: index
    real(real32), intent(in), target, contiguous :: observations(:, :)
    integer(int64), intent(inout), target, contiguous :: indices(:, :)
    real(real32), intent(inout), target, contiguous :: distances(:, :)
    integer, intent(out), optional :: stat
    call index_nearest(index, KW_FLOAT32, shape(observations, int64), c_loc(observations), indices, &
                       shape(distances, int64), c_loc(distances), stat)
  end subroutine

  subroutine index_nearest(index, type, observation_shape, observations, indices, distance_shape, &
                           distances, stat)
    type(kw_sphere_index), intent(in) :: index
    integer(c_int), intent(in) :: type
    integer(int64), intent(in) :: observation_shape(2), distance_shape(2)
    type(c_ptr), intent(in) :: observations, distances
    integer(int64), intent(inout), target, contiguous :: indices(:, :)
    integer, intent(out), optional :: stat
    character(*), parameter :: fn = "kw_sphere_index_nearest"
    integer(c_int) :: status
    status = index_check(fn, index, host_memory)
    if (status == KW_SUCCESS .and. type /= index%type) then
      status = invalid(fn, "observations", "are " // kind_name(type) // "; the index was built from " // &
                       kind_name(index%type) // " references")
    else if (status == KW_SUCCESS .and. observation_shape(1) /= 2) then
      status = invalid(fn, "observations", text(observation_shape(1)) // &
                       " coordinates per point; a sphere index takes 2 (latitude, longitude)")
    else if (status == KW_SUCCESS) then
      status = nearest_check(fn, 2_int64, 2_int64, observation_shape(2), size(indices, 1, int64), &
                             size(indices, 2, int64), distance_shape(1), distance_shape(2))
    end if
    if (status == KW_SUCCESS) then
      status = c_index_nearest(index%handle, observations, observation_shape(2), size(indices, 1, int64), &
                               c_loc(indices), distances)
      if (status == KW_SUCCESS) indices = indices + 1
    end if
    call finish(status, stat)
  end subroutine

  !> kw_sphere_index_nearest on device memory: observations (n x 2), indices and distances
  !! (n x k, 0-based indices) on the GPU, of the type the index was built from.
  subroutine kw_sphere_index_nearest_device(index, observations, n, k, indices, distances, stat)
    type(kw_sphere_index), intent(in) :: index
    type(c_ptr), intent(in) :: observations, indices, distances
    integer(int64), intent(in) :: n, k
    integer, intent(out), optional :: stat
    integer(c_int) :: status
    status = index_check("kw_sphere_index_nearest_device", index, device_memory)
    if (status == KW_SUCCESS) status = c_index_nearest(index%handle, observations, n, k, indices, distances)
    call finish(status, stat)
  end subroutine

  integer(c_int) function index_check(fn, index, memory) result(status)
    character(*), intent(in) :: fn
    type(kw_sphere_index), intent(in) :: index
    integer(c_int), intent(in) :: memory
    status = KW_SUCCESS
    if (.not. c_associated(index%handle)) then
      status = invalid(fn, "index", "is not built (kw_sphere_index_create)")
    else if (index%memory /= memory .and. memory == host_memory) then
      status = invalid(fn, "index", "holds device memory: query it with kw_sphere_index_nearest_device")
    else if (index%memory /= memory) then
      status = invalid(fn, "index", "holds host memory: query it with kw_sphere_index_nearest")
    end if
  end function

  function kind_name(type) result(name)
    integer(c_int), intent(in) :: type
    character(len=6) :: name
    name = merge("real32", "real64", type == KW_FLOAT32)
  end function

  !> The references the index holds; 0 when it is not built.
  integer(int64) function kw_sphere_index_size(index)
    type(kw_sphere_index), intent(in) :: index
    kw_sphere_index_size = c_index_size(index%handle)
  end function

  !> Frees the index (nothing when it is not built); it can be built again.
  subroutine kw_sphere_index_destroy(index, stat)
    type(kw_sphere_index), intent(inout) :: index
    integer, intent(out), optional :: stat
    integer(c_int) :: status
    status = c_index_destroy(index%handle)
    if (status == KW_SUCCESS) index%handle = c_null_ptr
    call finish(status, stat)
  end subroutine

  ! ---- the spatial index: points(dimension, m), one point per column ------------------------
  subroutine spatial_create_real64(index, points, degrees, radius, euclidean, stat)
    type(kw_index), intent(inout) :: index
    real(real64), intent(in), target, contiguous :: points(:, :)
    logical, intent(in), optional :: degrees, euclidean
    real(real64), intent(in), optional :: radius
    integer, intent(out), optional :: stat
    call spatial_create(index, KW_FLOAT64, host_memory, size(points, 1, int64), c_loc(points), &
                        size(points, 2, int64), within_options_of(degrees, radius, euclidean), stat)
  end subroutine

  subroutine spatial_create_real32(index, points, degrees, radius, euclidean, stat)
    type(kw_index), intent(inout) :: index
    real(real32), intent(in), target, contiguous :: points(:, :)
    logical, intent(in), optional :: degrees, euclidean
    real(real64), intent(in), optional :: radius
    integer, intent(out), optional :: stat
    call spatial_create(index, KW_FLOAT32, host_memory, size(points, 1, int64), c_loc(points), &
                        size(points, 2, int64), within_options_of(degrees, radius, euclidean), stat)
  end subroutine

  !> kw_index_create on device memory: points row after row (m x dimension, contiguous) on the
  !! GPU, of KW_FLOAT32 or KW_FLOAT64; query the index with kw_index_nearest_device.
  subroutine kw_index_create_device(index, type, dimension, points, m, degrees, radius, euclidean, stat)
    type(kw_index), intent(inout) :: index
    integer, intent(in) :: type
    integer(int64), intent(in) :: dimension, m
    type(c_ptr), intent(in) :: points
    logical, intent(in), optional :: degrees, euclidean
    real(real64), intent(in), optional :: radius
    integer, intent(out), optional :: stat
    call spatial_create(index, int(type, c_int), device_memory, dimension, points, m, &
                        within_options_of(degrees, radius, euclidean), stat)
  end subroutine

  ! Builds the index; one built before is destroyed once the new one stands (a failure leaves
  ! it as it was).
  subroutine spatial_create(index, type, memory, dimension, points, m, options, stat)
    type(kw_index), intent(inout) :: index
    integer(c_int), intent(in) :: type, memory
    integer(int64), intent(in) :: dimension, m
    type(c_ptr), intent(in) :: points
    type(within_options_c), intent(in) :: options
    integer, intent(out), optional :: stat
    integer(c_int) :: status
    type(c_ptr) :: made
    made = c_null_ptr
    status = c_spatial_create(type, memory, dimension, points, m, options, made)
    if (status == KW_SUCCESS) then
      if (c_associated(index%handle)) status = c_spatial_destroy(index%handle)
      index = kw_index(made, type, memory, dimension)
    end if
    call finish(status, stat)
  end subroutine

  ! queries(dimension, n) of the kind the index was built from, on the host.
  integer(c_int) function spatial_check(fn, index, type, dimension, memory) result(status)
    character(*), intent(in) :: fn
    type(kw_index), intent(in) :: index
    integer(c_int), intent(in) :: type, memory
    integer(int64), intent(in) :: dimension
    status = KW_SUCCESS
    if (.not. c_associated(index%handle)) then
      status = invalid(fn, "index", "is not built (kw_index_create)")
    else if (index%memory /= memory .and. memory == host_memory) then
      status = invalid(fn, "index", "holds device memory: query it with kw_index_nearest_device")
    else if (index%memory /= memory) then
      status = invalid(fn, "index", "holds host memory: query it with kw_index_nearest")
    else if (type /= index%type) then
      status = invalid(fn, "queries", "are " // kind_name(type) // "; the index was built from " // &
                       kind_name(index%type) // " points")
    else if (dimension /= index%dimension) then
      status = invalid(fn, "queries", text(dimension) // " coordinates per point, the index's points have " // &
                       text(index%dimension))
    end if
  end function

  subroutine spatial_nearest_real64(index, queries, indices, distances, stat)
    type(kw_index), intent(in) :: index
    real(real64), intent(in), target, contiguous :: queries(:, :)
    integer(int64), intent(inout), target, contiguous :: indices(:, :)
    real(real64), intent(inout), target, contiguous :: distances(:, :)
    integer, intent(out), optional :: stat
    call spatial_nearest(index, KW_FLOAT64, shape(queries, int64), c_loc(queries), indices, &
                         shape(distances, int64), c_loc(distances), stat)
  end subroutine

  subroutine spatial_nearest_real32(index, queries, indices, distances, stat)
    type(kw_index), intent(in) :: index
    real(real32), intent(in), target, contiguous :: queries(:, :)
    integer(int64), intent(inout), target, contiguous :: indices(:, :)
    real(real32), intent(inout), target, contiguous :: distances(:, :)
    integer, intent(out), optional :: stat
    call spatial_nearest(index, KW_FLOAT32, shape(queries, int64), c_loc(queries), indices, &
                         shape(distances, int64), c_loc(distances), stat)
  end subroutine

  ! indices(k, n) 1-based and distances(k, n), nearest first.
  subroutine spatial_nearest(index, type, query_shape, queries, indices, distance_shape, distances, stat)
    type(kw_index), intent(in) :: index
    integer(c_int), intent(in) :: type
    integer(int64), intent(in) :: query_shape(2), distance_shape(2)
    type(c_ptr), intent(in) :: queries, distances
    integer(int64), intent(inout), target, contiguous :: indices(:, :)
    integer, intent(out), optional :: stat
    character(*), parameter :: fn = "kw_index_nearest"
    integer(c_int) :: status
    status = spatial_check(fn, index, type, query_shape(1), host_memory)
    if (status == KW_SUCCESS) &
      status = nearest_check(fn, query_shape(1), query_shape(1), query_shape(2), size(indices, 1, int64), &
                             size(indices, 2, int64), distance_shape(1), distance_shape(2))
    if (status == KW_SUCCESS) then
      status = c_spatial_nearest(index%handle, queries, query_shape(2), size(indices, 1, int64), &
                                 c_loc(indices), distances)
      if (status == KW_SUCCESS) indices = indices + 1
    end if
    call finish(status, stat)
  end subroutine

  !> kw_index_nearest on device memory: queries (n x dimension), indices and distances (n x k,
  !! 0-based indices) on the GPU, of the type the index was built from.
  subroutine kw_index_nearest_device(index, queries, n, k, indices, distances, stat)
    type(kw_index), intent(in) :: index
    type(c_ptr), intent(in) :: queries, indices, distances
    integer(int64), intent(in) :: n, k
    integer, intent(out), optional :: stat
    integer(c_int) :: status
    status = spatial_check("kw_index_nearest_device", index, index%type, index%dimension, device_memory)
    if (status == KW_SUCCESS) status = c_spatial_nearest(index%handle, queries, n, k, indices, distances)
    call finish(status, stat)
  end subroutine

  subroutine spatial_count_within_real64(index, queries, distance, counts, stat)
    type(kw_index), intent(in) :: index
    real(real64), intent(in), target, contiguous :: queries(:, :)
    real(real64), intent(in) :: distance
    integer(int64), intent(inout), target, contiguous :: counts(:)
    integer, intent(out), optional :: stat
    call spatial_count_within(index, KW_FLOAT64, shape(queries, int64), c_loc(queries), distance, counts, stat)
  end subroutine

  subroutine spatial_count_within_real32(index, queries, distance, counts, stat)
    type(kw_index), intent(in) :: index
    real(real32), intent(in), target, contiguous :: queries(:, :)
    real(real64), intent(in) :: distance
    integer(int64), intent(inout), target, contiguous :: counts(:)
    integer, intent(out), optional :: stat
    call spatial_count_within(index, KW_FLOAT32, shape(queries, int64), c_loc(queries), distance, counts, stat)
  end subroutine

  subroutine spatial_count_within(index, type, query_shape, queries, distance, counts, stat)
    type(kw_index), intent(in) :: index
    integer(c_int), intent(in) :: type
    integer(int64), intent(in) :: query_shape(2)
    type(c_ptr), intent(in) :: queries
    real(real64), intent(in) :: distance
    integer(int64), intent(inout), target, contiguous :: counts(:)
    integer, intent(out), optional :: stat
    character(*), parameter :: fn = "kw_index_count_within"
    integer(c_int) :: status
    status = spatial_check(fn, index, type, query_shape(1), host_memory)
    if (status == KW_SUCCESS .and. size(counts, kind=int64) /= query_shape(2)) &
      status = invalid(fn, "counts", "has " // text(size(counts, kind=int64)) // " entries for " // &
                       text(query_shape(2)) // " queries")
    if (status == KW_SUCCESS) &
      status = c_spatial_count_within(index%handle, queries, query_shape(2), distance, c_loc(counts))
    call finish(status, stat)
  end subroutine

  subroutine spatial_within_real64(index, queries, distance, offsets, indices, distances, stat)
    type(kw_index), intent(in) :: index
    real(real64), intent(in), target, contiguous :: queries(:, :)
    real(real64), intent(in) :: distance
    integer(int64), intent(inout), contiguous :: offsets(:)
    integer(int64), allocatable, intent(inout) :: indices(:)
    real(real64), allocatable, intent(inout), target, optional :: distances(:)
    integer, intent(out), optional :: stat
    type(c_ptr) :: result
    integer(c_int) :: status
    status = spatial_within(index, KW_FLOAT64, shape(queries, int64), c_loc(queries), distance, &
                            size(offsets, kind=int64), result)
    call within_result_real64(status, result, offsets, indices, distances, stat)
  end subroutine

  subroutine spatial_within_real32(index, queries, distance, offsets, indices, distances, stat)
    type(kw_index), intent(in) :: index
    real(real32), intent(in), target, contiguous :: queries(:, :)
    real(real64), intent(in) :: distance
    integer(int64), intent(inout), contiguous :: offsets(:)
    integer(int64), allocatable, intent(inout) :: indices(:)
    real(real32), allocatable, intent(inout), target, optional :: distances(:)
    integer, intent(out), optional :: stat
    type(c_ptr) :: result
    integer(c_int) :: status
    status = spatial_within(index, KW_FLOAT32, shape(queries, int64), c_loc(queries), distance, &
                            size(offsets, kind=int64), result)
    call within_result_real32(status, result, offsets, indices, distances, stat)
  end subroutine

  ! The search of kw_index_within, its result held in `result` on success.
  integer(c_int) function spatial_within(index, type, query_shape, queries, distance, offset_count, result) &
      result(status)
    type(kw_index), intent(in) :: index
    integer(c_int), intent(in) :: type
    integer(int64), intent(in) :: query_shape(2), offset_count
    type(c_ptr), intent(in) :: queries
    real(real64), intent(in) :: distance
    type(c_ptr), intent(out) :: result
    character(*), parameter :: fn = "kw_index_within"
    result = c_null_ptr
    status = spatial_check(fn, index, type, query_shape(1), host_memory)
    if (status == KW_SUCCESS .and. offset_count /= query_shape(2) + 1) &
      status = invalid(fn, "offsets", "has " // text(offset_count) // " entries for " // text(query_shape(2)) // &
                       " queries (n + 1 needed)")
    if (status == KW_SUCCESS) status = c_spatial_within(index%handle, queries, query_shape(2), distance, result)
  end function

  !> The points the index holds; 0 when it is not built.
  integer(int64) function kw_index_size(index)
    type(kw_index), intent(in) :: index
    kw_index_size = c_spatial_size(index%handle)
  end function

  !> Frees the index (nothing when it is not built); it can be built again.
  subroutine kw_index_destroy(index, stat)
    type(kw_index), intent(inout) :: index
    integer, intent(out), optional :: stat
    integer(c_int) :: status
    status = c_spatial_destroy(index%handle)
    if (status == KW_SUCCESS) index%handle = c_null_ptr
    call finish(status, stat)
  end subroutine

  subroutine diffuse_real64(field, steps, coeff, laplacian, stat)
    real(real64), intent(inout), target, contiguous :: field(:, :)
    integer(int64), intent(in) :: steps
    real(real64), intent(in), optional :: coeff
    real(real64), intent(inout), target, contiguous, optional :: laplacian(:, :)
    integer, intent(out), optional :: stat
    type(c_ptr) :: lap
    real(c_double) :: c
    c = 0.25_c_double
    if (present(coeff)) c = coeff
    lap = c_null_ptr
    if (present(laplacian)) then
      if (any(shape(laplacian) /= shape(field))) then
        call finish(invalid("kw_diffuse", "laplacian", "shape differs from field's"), stat)
        return
      end if
      lap = c_loc(laplacian)
    end if
    ! Fortran's column-major (nx, ny) is C's row-major (ny, nx); the stencil is symmetric.
    call finish(c_diffuse(KW_FLOAT64, host_memory, c_loc(field), size(field, 2, int64), size(field, 1, int64), &
                          size(field, 1, int64), steps, c, lap, size(field, 1, int64)), stat)
  end subroutine

  subroutine diffuse_real32(field, steps, coeff, laplacian, stat)
    real(real32), intent(inout), target, contiguous :: field(:, :)
    integer(int64), intent(in) :: steps
    real(real64), intent(in), optional :: coeff
    real(real32), intent(inout), target, contiguous, optional :: laplacian(:, :)
    integer, intent(out), optional :: stat
    type(c_ptr) :: lap
    real(c_double) :: c
    c = 0.25_c_double
    if (present(coeff)) c = coeff
    lap = c_null_ptr
    if (present(laplacian)) then
      if (any(shape(laplacian) /= shape(field))) then
        call finish(invalid("kw_diffuse", "laplacian", "shape differs from field's"), stat)
        return
      end if
      lap = c_loc(laplacian)
    end if
    call finish(c_diffuse(KW_FLOAT32, host_memory, c_loc(field), size(field, 2, int64), size(field, 1, int64), &
                          size(field, 1, int64), steps, c, lap, size(field, 1, int64)), stat)
  end subroutine

  !> kw_diffuse on a field of nx x ny values of `type` (KW_FLOAT32 or KW_FLOAT64) in device
  !! memory (column-major, as Fortran stores it); laplacian likewise.
  subroutine kw_diffuse_device(type, field, nx, ny, steps, coeff, laplacian, stat)
    integer, intent(in) :: type
    type(c_ptr), intent(in) :: field
    integer(int64), intent(in) :: nx, ny, steps
    real(real64), intent(in), optional :: coeff
    type(c_ptr), intent(in), optional :: laplacian
    integer, intent(out), optional :: stat
    type(c_ptr) :: lap
    real(c_double) :: c
    c = 0.25_c_double
    if (present(coeff)) c = coeff
    lap = c_null_ptr
    if (present(laplacian)) lap = laplacian
    call finish(c_diffuse(int(type, c_int), device_memory, field, ny, nx, nx, steps, c, lap, nx), stat)
  end subroutine

  subroutine sum_real64(x, result, stat)
    real(real64), intent(in), target, contiguous :: x(:)
    real(real64), intent(inout) :: result  ! inout: untouched on failure
    integer, intent(out), optional :: stat
    call finish(c_sum(KW_FLOAT64, host_memory, size(x, kind=int64), c_loc(x), 1_int64, result), stat)
  end subroutine

  subroutine sum_real32(x, result, stat)
    real(real32), intent(in), target, contiguous :: x(:)
    real(real64), intent(inout) :: result  ! inout: untouched on failure
    integer, intent(out), optional :: stat
    call finish(c_sum(KW_FLOAT32, host_memory, size(x, kind=int64), c_loc(x), 1_int64, result), stat)
  end subroutine

  subroutine norm2_real64(x, result, stat)
    real(real64), intent(in), target, contiguous :: x(:)
    real(real64), intent(inout) :: result  ! inout: untouched on failure
    integer, intent(out), optional :: stat
    call finish(c_norm2(KW_FLOAT64, host_memory, size(x, kind=int64), c_loc(x), 1_int64, result), stat)
  end subroutine

  subroutine norm2_real32(x, result, stat)
    real(real32), intent(in), target, contiguous :: x(:)
    real(real64), intent(inout) :: result  ! inout: untouched on failure
    integer, intent(out), optional :: stat
    call finish(c_norm2(KW_FLOAT32, host_memory, size(x, kind=int64), c_loc(x), 1_int64, result), stat)
  end subroutine

  subroutine dot_real64(x, y, result, stat)
    real(real64), intent(in), target, contiguous :: x(:), y(:)
    real(real64), intent(inout) :: result  ! inout: untouched on failure
    integer, intent(out), optional :: stat
    if (size(y) /= size(x)) then
      call finish(invalid("kw_dot", "y", "length " // text(size(y, kind=int64)) // " differs from x's " // &
                          text(size(x, kind=int64))), stat)
      return
    end if
    call finish(c_dot(KW_FLOAT64, host_memory, size(x, kind=int64), c_loc(x), 1_int64, c_loc(y), 1_int64, &
                      result), stat)
  end subroutine

  subroutine dot_real32(x, y, result, stat)
    real(real32), intent(in), target, contiguous :: x(:), y(:)
    real(real64), intent(inout) :: result  ! inout: untouched on failure
    integer, intent(out), optional :: stat
    if (size(y) /= size(x)) then
      call finish(invalid("kw_dot", "y", "length " // text(size(y, kind=int64)) // " differs from x's " // &
                          text(size(x, kind=int64))), stat)
      return
    end if
    call finish(c_dot(KW_FLOAT32, host_memory, size(x, kind=int64), c_loc(x), 1_int64, c_loc(y), 1_int64, &
                      result), stat)
  end subroutine

  ! c = alpha a b + beta c (Fortran arrays, column-major).
  subroutine gemm_real64(a, b, c, alpha, beta, stat)
    real(real64), intent(in), target, contiguous :: a(:, :), b(:, :)
    real(real64), intent(inout), target, contiguous :: c(:, :)
    real(real64), intent(in), optional :: alpha, beta
    integer, intent(out), optional :: stat
    real(c_double) :: al, be
    al = 1.0_c_double
    be = 0.0_c_double
    if (present(alpha)) al = alpha
    if (present(beta)) be = beta
    call finish(gemm_checked(KW_FLOAT64, shape(a, int64), shape(b, int64), shape(c, int64), al, &
                             c_loc(a), c_loc(b), be, c_loc(c)), stat)
  end subroutine

  subroutine gemm_real32(a, b, c, alpha, beta, stat)
    real(real32), intent(in), target, contiguous :: a(:, :), b(:, :)
    real(real32), intent(inout), target, contiguous :: c(:, :)
    real(real64), intent(in), optional :: alpha, beta
    integer, intent(out), optional :: stat
    real(c_double) :: al, be
    al = 1.0_c_double
    be = 0.0_c_double
    if (present(alpha)) al = alpha
    if (present(beta)) be = beta
    call finish(gemm_checked(KW_FLOAT32, shape(a, int64), shape(b, int64), shape(c, int64), al, &
                             c_loc(a), c_loc(b), be, c_loc(c)), stat)
  end subroutine

  integer(c_int) function gemm_checked(type, sa, sb, sc, alpha, a, b, beta, c) result(status)
    integer, intent(in) :: type
    integer(int64), intent(in) :: sa(2), sb(2), sc(2)
    real(c_double), intent(in) :: alpha, beta
    type(c_ptr), intent(in) :: a, b, c
    if (sb(1) /= sa(2)) then
      status = invalid("kw_gemm", "b", "has " // text(sb(1)) // " rows, a has " // text(sa(2)) // " columns")
    else if (sc(1) /= sa(1) .or. sc(2) /= sb(2)) then
      status = invalid("kw_gemm", "c", "shape (" // text(sc(1)) // ", " // text(sc(2)) // ") is not (" // &
                       text(sa(1)) // ", " // text(sb(2)) // ")")
    else
      status = c_gemm(int(type, c_int), host_memory, column_major, sa(1), sb(2), sa(2), alpha, a, &
                      max(1_int64, sa(1)), b, max(1_int64, sb(1)), beta, c, max(1_int64, sc(1)))
    end if
  end function

  ! a x = b for symmetric positive-definite a (n x n); x holds the initial guess.
  subroutine cg_real64(a, b, x, tolerance, max_iterations, iterations, residual, stat)
    real(real64), intent(in), target, contiguous :: a(:, :), b(:)
    real(real64), intent(inout), target, contiguous :: x(:)
    real(real64), intent(in), optional :: tolerance
    integer(int64), intent(in), optional :: max_iterations
    integer(int64), intent(inout), optional :: iterations
    real(real64), intent(inout), optional :: residual
    integer, intent(out), optional :: stat
    call cg_common(KW_FLOAT64, shape(a, int64), size(b, kind=int64), size(x, kind=int64), c_loc(a), c_loc(b), &
                   c_loc(x), tolerance, max_iterations, iterations, residual, stat)
  end subroutine

  subroutine cg_real32(a, b, x, tolerance, max_iterations, iterations, residual, stat)
    real(real32), intent(in), target, contiguous :: a(:, :), b(:)
    real(real32), intent(inout), target, contiguous :: x(:)
    real(real64), intent(in), optional :: tolerance
    integer(int64), intent(in), optional :: max_iterations
    integer(int64), intent(inout), optional :: iterations
    real(real64), intent(inout), optional :: residual
    integer, intent(out), optional :: stat
    call cg_common(KW_FLOAT32, shape(a, int64), size(b, kind=int64), size(x, kind=int64), c_loc(a), c_loc(b), &
                   c_loc(x), tolerance, max_iterations, iterations, residual, stat)
  end subroutine

  subroutine cg_common(type, sa, nb, nx, a, b, x, tolerance, max_iterations, iterations, residual, stat)
    integer, intent(in) :: type
    integer(int64), intent(in) :: sa(2), nb, nx
    type(c_ptr), intent(in) :: a, b, x
    real(real64), intent(in), optional :: tolerance
    integer(int64), intent(in), optional :: max_iterations
    integer(int64), intent(inout), optional :: iterations
    real(real64), intent(inout), optional :: residual
    integer, intent(out), optional :: stat
    type(cg_result_c) :: result
    real(c_double) :: tol
    integer(c_int64_t) :: limit, lda
    integer(c_int) :: status
    tol = 1.0e-8_c_double
    limit = 0
    if (present(tolerance)) tol = tolerance
    if (present(max_iterations)) limit = max_iterations
    lda = max(1_int64, sa(1))
    if (sa(1) /= nb .or. sa(2) /= nb) then
      status = invalid("kw_cg", "a", "shape (" // text(sa(1)) // ", " // text(sa(2)) // ") is not (n, n) for b's n = " &
                       // text(nb))
    else if (nx /= nb) then
      status = invalid("kw_cg", "x", "length " // text(nx) // " differs from b's " // text(nb))
    else
      status = c_cg_dense(int(type, c_int), host_memory, column_major, nb, a, lda, b, x, tol, limit, result, &
                          c_null_ptr, 0_int64)
    end if
    if (status == KW_SUCCESS) then
      if (present(iterations)) iterations = result%iterations
      if (present(residual)) residual = result%residual_norm
    end if
    call finish(status, stat)
  end subroutine

  subroutine qr_real32(a, q, r, generic, stat)
    real(real32), intent(in), target, contiguous :: a(:, :)
    real(real32), intent(inout), target, contiguous :: q(:, :), r(:, :)
    logical, intent(in), optional :: generic
    integer, intent(out), optional :: stat
    call finish(qr_checked(KW_FLOAT32, shape(a, int64), shape(q, int64), shape(r, int64), c_loc(a), c_loc(q), &
                           c_loc(r), generic), stat)
  end subroutine

  subroutine qr_factor_real32(a, tau, generic, stat)
    real(real32), intent(inout), target, contiguous :: a(:, :), tau(:)
    logical, intent(in), optional :: generic
    integer, intent(out), optional :: stat
    call finish(qr_factor_checked(KW_FLOAT32, shape(a, int64), size(tau, kind=int64), c_loc(a), c_loc(tau), generic), &
                stat)
  end subroutine

  subroutine apply_q_real32(factors, tau, c, transpose, generic, stat)
    real(real32), intent(in), target, contiguous :: factors(:, :), tau(:)
    real(real32), intent(inout), target, contiguous :: c(:, :)
    logical, intent(in), optional :: transpose, generic
    integer, intent(out), optional :: stat
    call finish(apply_q_checked(KW_FLOAT32, shape(factors, int64), size(tau, kind=int64), shape(c, int64), &
                                c_loc(factors), c_loc(tau), c_loc(c), transpose, generic), stat)
  end subroutine

  subroutine apply_q_vector_real32(factors, tau, c, transpose, generic, stat)
    real(real32), intent(in), target, contiguous :: factors(:, :), tau(:)
    real(real32), intent(inout), target, contiguous :: c(:)
    logical, intent(in), optional :: transpose, generic
    integer, intent(out), optional :: stat
    call finish(apply_q_checked(KW_FLOAT32, shape(factors, int64), size(tau, kind=int64), [size(c, kind=int64), 1_int64], &
                                c_loc(factors), c_loc(tau), c_loc(c), transpose, generic), stat)
  end subroutine

  subroutine lstsq_real32(a, b, x, generic, stat)
    real(real32), intent(in), target, contiguous :: a(:, :), b(:, :)
    real(real32), intent(inout), target, contiguous :: x(:, :)
    logical, intent(in), optional :: generic
    integer, intent(out), optional :: stat
    call finish(lstsq_checked(KW_FLOAT32, shape(a, int64), shape(b, int64), shape(x, int64), c_loc(a), c_loc(b), &
                              c_loc(x), generic), stat)
  end subroutine

  subroutine lstsq_vector_real32(a, b, x, generic, stat)
    real(real32), intent(in), target, contiguous :: a(:, :), b(:)
    real(real32), intent(inout), target, contiguous :: x(:)
    logical, intent(in), optional :: generic
    integer, intent(out), optional :: stat
    call finish(lstsq_checked(KW_FLOAT32, shape(a, int64), [size(b, kind=int64), 1_int64], &
                              [size(x, kind=int64), 1_int64], c_loc(a), c_loc(b), c_loc(x), generic), stat)
  end subroutine

  subroutine fft_complex32(input, output, inverse, lines, normalization, stat)
    complex(real32), intent(in), target, contiguous :: input(:)
    complex(real32), intent(inout), target, contiguous :: output(:)
    logical, intent(in), optional :: inverse, lines
    character(*), intent(in), optional :: normalization
    integer, intent(out), optional :: stat
    call finish(fft_checked(KW_FLOAT32, 0, 1, &
                            [size(input, kind=int64), 1_int64], [size(output, kind=int64), 1_int64], &
                            c_loc(input), c_loc(output), &
                            inverse, lines, normalization), stat)
  end subroutine

  subroutine rfft_real32(input, output, inverse, lines, normalization, stat)
    real(real32), intent(in), target, contiguous :: input(:)
    complex(real32), intent(inout), target, contiguous :: output(:)
    logical, intent(in), optional :: inverse, lines
    character(*), intent(in), optional :: normalization
    integer, intent(out), optional :: stat
    call finish(fft_checked(KW_FLOAT32, 1, 1, &
                            [size(input, kind=int64), 1_int64], [size(output, kind=int64), 1_int64], &
                            c_loc(input), c_loc(output), &
                            inverse, lines, normalization), stat)
  end subroutine

  subroutine irfft_real32(input, output, inverse, lines, normalization, stat)
    complex(real32), intent(in), target, contiguous :: input(:)
    real(real32), intent(inout), target, contiguous :: output(:)
    logical, intent(in), optional :: inverse, lines
    character(*), intent(in), optional :: normalization
    integer, intent(out), optional :: stat
    call finish(fft_checked(KW_FLOAT32, 2, 1, &
                            [size(input, kind=int64), 1_int64], [size(output, kind=int64), 1_int64], &
                            c_loc(input), c_loc(output), &
                            inverse, lines, normalization), stat)
  end subroutine

  subroutine fft_in_place32(x, inverse, lines, normalization, stat)
    complex(real32), intent(inout), target, contiguous :: x(:)
    logical, intent(in), optional :: inverse, lines
    character(*), intent(in), optional :: normalization
    integer, intent(out), optional :: stat
    call finish(fft_checked(KW_FLOAT32, 0, 1, &
                            [size(x, kind=int64), 1_int64], [size(x, kind=int64), 1_int64], &
                            c_loc(x), c_loc(x), inverse, lines, normalization), stat)
  end subroutine

  subroutine fft_plane_complex32(input, output, inverse, lines, normalization, stat)
    complex(real32), intent(in), target, contiguous :: input(:, :)
    complex(real32), intent(inout), target, contiguous :: output(:, :)
    logical, intent(in), optional :: inverse, lines
    character(*), intent(in), optional :: normalization
    integer, intent(out), optional :: stat
    call finish(fft_checked(KW_FLOAT32, 0, 2, shape(input, int64), shape(output, int64), c_loc(input), c_loc(output), &
                            inverse, lines, normalization), stat)
  end subroutine

  subroutine rfft_plane_real32(input, output, inverse, lines, normalization, stat)
    real(real32), intent(in), target, contiguous :: input(:, :)
    complex(real32), intent(inout), target, contiguous :: output(:, :)
    logical, intent(in), optional :: inverse, lines
    character(*), intent(in), optional :: normalization
    integer, intent(out), optional :: stat
    call finish(fft_checked(KW_FLOAT32, 1, 2, shape(input, int64), shape(output, int64), c_loc(input), c_loc(output), &
                            inverse, lines, normalization), stat)
  end subroutine

  subroutine irfft_plane_real32(input, output, inverse, lines, normalization, stat)
    complex(real32), intent(in), target, contiguous :: input(:, :)
    real(real32), intent(inout), target, contiguous :: output(:, :)
    logical, intent(in), optional :: inverse, lines
    character(*), intent(in), optional :: normalization
    integer, intent(out), optional :: stat
    call finish(fft_checked(KW_FLOAT32, 2, 2, shape(input, int64), shape(output, int64), c_loc(input), c_loc(output), &
                            inverse, lines, normalization), stat)
  end subroutine

  subroutine fft_plane_in_place32(x, inverse, lines, normalization, stat)
    complex(real32), intent(inout), target, contiguous :: x(:, :)
    logical, intent(in), optional :: inverse, lines
    character(*), intent(in), optional :: normalization
    integer, intent(out), optional :: stat
    call finish(fft_checked(KW_FLOAT32, 0, 2, shape(x, int64), shape(x, int64), c_loc(x), c_loc(x), inverse, lines, &
                            normalization), stat)
  end subroutine

  subroutine qr_real64(a, q, r, generic, stat)
    real(real64), intent(in), target, contiguous :: a(:, :)
    real(real64), intent(inout), target, contiguous :: q(:, :), r(:, :)
    logical, intent(in), optional :: generic
    integer, intent(out), optional :: stat
    call finish(qr_checked(KW_FLOAT64, shape(a, int64), shape(q, int64), shape(r, int64), c_loc(a), c_loc(q), &
                           c_loc(r), generic), stat)
  end subroutine

  subroutine qr_factor_real64(a, tau, generic, stat)
    real(real64), intent(inout), target, contiguous :: a(:, :), tau(:)
    logical, intent(in), optional :: generic
    integer, intent(out), optional :: stat
    call finish(qr_factor_checked(KW_FLOAT64, shape(a, int64), size(tau, kind=int64), c_loc(a), c_loc(tau), generic), &
                stat)
  end subroutine

  subroutine apply_q_real64(factors, tau, c, transpose, generic, stat)
    real(real64), intent(in), target, contiguous :: factors(:, :), tau(:)
    real(real64), intent(inout), target, contiguous :: c(:, :)
    logical, intent(in), optional :: transpose, generic
    integer, intent(out), optional :: stat
    call finish(apply_q_checked(KW_FLOAT64, shape(factors, int64), size(tau, kind=int64), shape(c, int64), &
                                c_loc(factors), c_loc(tau), c_loc(c), transpose, generic), stat)
  end subroutine

  subroutine apply_q_vector_real64(factors, tau, c, transpose, generic, stat)
    real(real64), intent(in), target, contiguous :: factors(:, :), tau(:)
    real(real64), intent(inout), target, contiguous :: c(:)
    logical, intent(in), optional :: transpose, generic
    integer, intent(out), optional :: stat
    call finish(apply_q_checked(KW_FLOAT64, shape(factors, int64), size(tau, kind=int64), [size(c, kind=int64), 1_int64], &
                                c_loc(factors), c_loc(tau), c_loc(c), transpose, generic), stat)
  end subroutine

  subroutine lstsq_real64(a, b, x, generic, stat)
    real(real64), intent(in), target, contiguous :: a(:, :), b(:, :)
    real(real64), intent(inout), target, contiguous :: x(:, :)
    logical, intent(in), optional :: generic
    integer, intent(out), optional :: stat
    call finish(lstsq_checked(KW_FLOAT64, shape(a, int64), shape(b, int64), shape(x, int64), c_loc(a), c_loc(b), &
                              c_loc(x), generic), stat)
  end subroutine

  subroutine lstsq_vector_real64(a, b, x, generic, stat)
    real(real64), intent(in), target, contiguous :: a(:, :), b(:)
    real(real64), intent(inout), target, contiguous :: x(:)
    logical, intent(in), optional :: generic
    integer, intent(out), optional :: stat
    call finish(lstsq_checked(KW_FLOAT64, shape(a, int64), [size(b, kind=int64), 1_int64], &
                              [size(x, kind=int64), 1_int64], c_loc(a), c_loc(b), c_loc(x), generic), stat)
  end subroutine

  subroutine fft_complex64(input, output, inverse, lines, normalization, stat)
    complex(real64), intent(in), target, contiguous :: input(:)
    complex(real64), intent(inout), target, contiguous :: output(:)
    logical, intent(in), optional :: inverse, lines
    character(*), intent(in), optional :: normalization
    integer, intent(out), optional :: stat
    call finish(fft_checked(KW_FLOAT64, 0, 1, &
                            [size(input, kind=int64), 1_int64], [size(output, kind=int64), 1_int64], &
                            c_loc(input), c_loc(output), &
                            inverse, lines, normalization), stat)
  end subroutine

  subroutine rfft_real64(input, output, inverse, lines, normalization, stat)
    real(real64), intent(in), target, contiguous :: input(:)
    complex(real64), intent(inout), target, contiguous :: output(:)
    logical, intent(in), optional :: inverse, lines
    character(*), intent(in), optional :: normalization
    integer, intent(out), optional :: stat
    call finish(fft_checked(KW_FLOAT64, 1, 1, &
                            [size(input, kind=int64), 1_int64], [size(output, kind=int64), 1_int64], &
                            c_loc(input), c_loc(output), &
                            inverse, lines, normalization), stat)
  end subroutine

  subroutine irfft_real64(input, output, inverse, lines, normalization, stat)
    complex(real64), intent(in), target, contiguous :: input(:)
    real(real64), intent(inout), target, contiguous :: output(:)
    logical, intent(in), optional :: inverse, lines
    character(*), intent(in), optional :: normalization
    integer, intent(out), optional :: stat
    call finish(fft_checked(KW_FLOAT64, 2, 1, &
                            [size(input, kind=int64), 1_int64], [size(output, kind=int64), 1_int64], &
                            c_loc(input), c_loc(output), &
                            inverse, lines, normalization), stat)
  end subroutine

  subroutine fft_in_place64(x, inverse, lines, normalization, stat)
    complex(real64), intent(inout), target, contiguous :: x(:)
    logical, intent(in), optional :: inverse, lines
    character(*), intent(in), optional :: normalization
    integer, intent(out), optional :: stat
    call finish(fft_checked(KW_FLOAT64, 0, 1, &
                            [size(x, kind=int64), 1_int64], [size(x, kind=int64), 1_int64], &
                            c_loc(x), c_loc(x), inverse, lines, normalization), stat)
  end subroutine

  subroutine fft_plane_complex64(input, output, inverse, lines, normalization, stat)
    complex(real64), intent(in), target, contiguous :: input(:, :)
    complex(real64), intent(inout), target, contiguous :: output(:, :)
    logical, intent(in), optional :: inverse, lines
    character(*), intent(in), optional :: normalization
    integer, intent(out), optional :: stat
    call finish(fft_checked(KW_FLOAT64, 0, 2, shape(input, int64), shape(output, int64), c_loc(input), c_loc(output), &
                            inverse, lines, normalization), stat)
  end subroutine

  subroutine rfft_plane_real64(input, output, inverse, lines, normalization, stat)
    real(real64), intent(in), target, contiguous :: input(:, :)
    complex(real64), intent(inout), target, contiguous :: output(:, :)
    logical, intent(in), optional :: inverse, lines
    character(*), intent(in), optional :: normalization
    integer, intent(out), optional :: stat
    call finish(fft_checked(KW_FLOAT64, 1, 2, shape(input, int64), shape(output, int64), c_loc(input), c_loc(output), &
                            inverse, lines, normalization), stat)
  end subroutine

  subroutine irfft_plane_real64(input, output, inverse, lines, normalization, stat)
    complex(real64), intent(in), target, contiguous :: input(:, :)
    real(real64), intent(inout), target, contiguous :: output(:, :)
    logical, intent(in), optional :: inverse, lines
    character(*), intent(in), optional :: normalization
    integer, intent(out), optional :: stat
    call finish(fft_checked(KW_FLOAT64, 2, 2, shape(input, int64), shape(output, int64), c_loc(input), c_loc(output), &
                            inverse, lines, normalization), stat)
  end subroutine

  subroutine fft_plane_in_place64(x, inverse, lines, normalization, stat)
    complex(real64), intent(inout), target, contiguous :: x(:, :)
    logical, intent(in), optional :: inverse, lines
    character(*), intent(in), optional :: normalization
    integer, intent(out), optional :: stat
    call finish(fft_checked(KW_FLOAT64, 0, 2, shape(x, int64), shape(x, int64), c_loc(x), c_loc(x), inverse, lines, &
                            normalization), stat)
  end subroutine

  ! KW_QR_GENERIC with generic = .true., else KW_QR_AUTOMATIC.
  integer(c_int) function qr_path(generic)
    logical, intent(in), optional :: generic
    qr_path = 0
    if (present(generic)) then
      if (generic) qr_path = 1
    end if
  end function

  function shape_text(extents) result(words)
    integer(int64), intent(in) :: extents(2)
    character(len=:), allocatable :: words
    words = "(" // text(extents(1)) // ", " // text(extents(2)) // ")"
  end function

  ! a = q r; complete when q is m x m for m > n, reduced otherwise.
  integer(c_int) function qr_checked(type, sa, sq, sr, a, q, r, generic) result(status)
    integer, intent(in) :: type
    integer(int64), intent(in) :: sa(2), sq(2), sr(2)
    type(c_ptr), intent(in) :: a, q, r
    logical, intent(in), optional :: generic
    integer(int64) :: m, n, q_columns, r_rows
    integer(c_int) :: mode
    m = sa(1)
    n = sa(2)
    mode = 0
    if (sq(2) == m .and. m > n) mode = 1
    q_columns = merge(m, n, mode == 1)
    r_rows = q_columns
    if (m < n) then
      status = invalid("kw_qr", "a", "has fewer rows than columns, shape " // shape_text(sa) // ": QR here needs m >= n")
    else if (any(sq /= [m, q_columns])) then
      status = invalid("kw_qr", "q", "shape " // shape_text(sq) // " is neither (m, n) = " // shape_text([m, n]) // &
                       " nor (m, m) = " // shape_text([m, m]))
    else if (any(sr /= [r_rows, n])) then
      status = invalid("kw_qr", "r", "shape " // shape_text(sr) // " is not " // shape_text([r_rows, n]) // &
                       merge(" (complete: m x n)", " (reduced: n x n) ", mode == 1))
    else
      status = c_qr(int(type, c_int), host_memory, column_major, mode, qr_path(generic), m, n, a, max(1_int64, m), &
                    q, max(1_int64, m), r, max(1_int64, r_rows))
    end if
  end function

  integer(c_int) function qr_factor_checked(type, sa, ntau, a, tau, generic) result(status)
    integer, intent(in) :: type
    integer(int64), intent(in) :: sa(2), ntau
    type(c_ptr), intent(in) :: a, tau
    logical, intent(in), optional :: generic
    if (ntau /= sa(2)) then
      status = invalid("kw_qr_factor", "tau", "length " // text(ntau) // " is not a's " // text(sa(2)) // " columns")
    else
      status = c_qr_factor(int(type, c_int), host_memory, column_major, qr_path(generic), sa(1), sa(2), a, &
                           max(1_int64, sa(1)), a, max(1_int64, sa(1)), tau)
    end if
  end function

  integer(c_int) function apply_q_checked(type, sf, ntau, sc, factors, tau, c, transpose, generic) result(status)
    integer, intent(in) :: type
    integer(int64), intent(in) :: sf(2), ntau, sc(2)
    type(c_ptr), intent(in) :: factors, tau, c
    logical, intent(in), optional :: transpose, generic
    integer(c_int) :: product
    product = 0  ! q^T c
    if (present(transpose)) then
      if (.not. transpose) product = 1
    end if
    if (ntau /= sf(2)) then
      status = invalid("kw_apply_q", "tau", "length " // text(ntau) // " is not factors' " // text(sf(2)) // " columns")
    else if (sc(1) /= sf(1)) then
      status = invalid("kw_apply_q", "c", "has " // text(sc(1)) // " rows, not the " // text(sf(1)) // " of factors")
    else
      status = c_apply_q(int(type, c_int), host_memory, column_major, product, qr_path(generic), sf(1), sf(2), &
                         factors, max(1_int64, sf(1)), tau, sc(2), c, max(1_int64, sc(1)))
    end if
  end function

  integer(c_int) function lstsq_checked(type, sa, sb, sx, a, b, x, generic) result(status)
    integer, intent(in) :: type
    integer(int64), intent(in) :: sa(2), sb(2), sx(2)
    type(c_ptr), intent(in) :: a, b, x
    logical, intent(in), optional :: generic
    if (sb(1) /= sa(1)) then
      status = invalid("kw_solve_least_squares", "b", "has " // text(sb(1)) // " rows, not a's " // text(sa(1)))
    else if (any(sx /= [sa(2), sb(2)])) then
      status = invalid("kw_solve_least_squares", "x", "shape " // shape_text(sx) // " is not " // &
                       shape_text([sa(2), sb(2)]) // " (a's columns by b's columns)")
    else
      status = c_solve_least_squares(int(type, c_int), host_memory, column_major, qr_path(generic), sa(1), sa(2), &
                                     a, max(1_int64, sa(1)), sb(2), b, max(1_int64, sb(1)), x, max(1_int64, sx(1)))
    end if
  end function

  ! One transform through a plan made for it. what: 0 complex to complex (inverse chooses), 1 real
  ! to complex (forward), 2 complex to real (inverse). Shapes of rank-1 arrays are (n, 1).
  integer(c_int) function fft_checked(type, what, rank, si, so, input, output, inverse, lines, normalization) &
      result(status)
    integer, intent(in) :: type, what, rank
    integer(int64), intent(in) :: si(2), so(2)
    type(c_ptr), intent(in) :: input, output
    logical, intent(in), optional :: inverse, lines
    character(*), intent(in), optional :: normalization
    type(fft_shape_c) :: shape
    type(fft_options_c) :: options
    type(c_ptr) :: plan
    integer(int64) :: signal(2), half(2)
    logical :: backward, by_lines
    integer(c_int) :: ignored
    backward = .false.
    by_lines = .false.
    if (present(inverse)) backward = inverse
    if (present(lines)) by_lines = lines
    options = fft_options_c(merge(0, 1, what == 0), 0, column_major, 0)  ! unchecked: as FFTW
    signal = merge(so, si, what == 2)  ! the real side, or either side of a complex transform
    half = signal
    if (what /= 0) half(1) = signal(1) / 2 + 1
    status = KW_SUCCESS
    if (present(normalization)) then
      select case (normalization)
      case ("backward")
        options%normalization = 0
      case ("ortho")
        options%normalization = 1
      case ("forward")
        options%normalization = 2
      case default
        status = invalid("kw_fft", "normalization", "is """ // normalization // &
                         """, not ""backward"", ""ortho"" or ""forward""")
      end select
    end if
    if (status /= KW_SUCCESS) then
      return
    else if (what == 1 .and. backward) then
      status = invalid("kw_fft", "inverse", "is .true., but a real input is transformed forward (real to complex)")
    else if (what == 2 .and. present(inverse) .and. .not. backward) then
      status = invalid("kw_fft", "inverse", "is .false., but a complex input into a real output is the inverse " // &
                       "(complex to real) transform")
    else if (by_lines .and. rank == 1) then
      status = invalid("kw_fft", "lines", "is .true. for a rank-1 array (one line already)")
    else if (product(signal) == 0) then
      status = invalid("kw_fft", merge("output", "input ", what == 2), "is empty")
    else if (what == 0 .and. any(so /= si)) then
      status = invalid("kw_fft", "output", "shape " // shape_text(so) // " is not the input's " // shape_text(si))
    else if (what == 1 .and. any(so /= half)) then
      status = invalid("kw_fft", "output", "shape " // shape_text(so) // " is not " // shape_text(half) // &
                       ", the half spectrum (n1 / 2 + 1 along the first axis)")
    else if (what == 2 .and. any(si /= half)) then
      status = invalid("kw_fft", "input", "shape " // shape_text(si) // " is not " // shape_text(half) // &
                       ", the half spectrum of the output's shape (n1 / 2 + 1 along the first axis)")
    end if
    if (status /= KW_SUCCESS) return
    if (rank == 1) then
      shape = fft_shape_c(0, 1_int64, 1_int64, signal(1))
    else if (by_lines) then
      shape = fft_shape_c(1, signal(2), 1_int64, signal(1))
    else
      shape = fft_shape_c(2, 1_int64, signal(1), signal(2))
    end if
    status = c_fft_plan_create(int(type, c_int), host_memory, shape, options, plan)
    if (status /= KW_SUCCESS) return
    if (what == 1 .or. (what == 0 .and. .not. backward)) then
      status = c_fft_forward(plan, input, output)
    else
      status = c_fft_inverse(plan, input, output)
    end if
    ignored = c_fft_plan_destroy(plan)
  end function

end module kernwerk
