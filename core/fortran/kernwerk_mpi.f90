!> \file
!> kw_nearest_mpi from Fortran: the module kernwerk_mpi (target Kernwerk::kernwerk_mpi_fortran).

!> The collective kernwerk::mpi::nearest from Fortran, over an integer communicator (the mpi
!! module's; MPI_Comm_f2c on the C side).
!!
!! `call kw_nearest_mpi(observations, references, indices, distances, comm [, degrees, radius,
!! euclidean, strategy, stat])`, for real32 and real64 arrays: every rank passes its own
!! observations(dimension, n) and references(dimension, m), any counts, zero allowed;
!! indices(k, n) receives global 1-based indices (the references of lower ranks first),
!! distances(k, n) the distances, nearest first: kw_nearest on all ranks' references at once.
!! strategy is one of the KW_STRATEGY_* values. Array shapes and arguments are checked on every
!! rank alike: a bad one on any rank fails every rank with the same status and message
!! (kw_last_error), naming the rank. `stat` as in module kernwerk.
module kernwerk_mpi
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: real32, real64, int64
  use kernwerk, only: KW_SUCCESS, KW_FLOAT32, KW_FLOAT64
  use kernwerk_support
  implicit none
  private

  !> replicate where the gathered references fit the memory budget, else ring
  integer, parameter, public :: KW_STRATEGY_AUTO = 0
  integer, parameter, public :: KW_STRATEGY_REPLICATE = 1  !< gather every rank's references
  integer, parameter, public :: KW_STRATEGY_RING = 2       !< pass the reference shards around
  public :: kw_nearest_mpi

  interface
    integer(c_int) function c_nearest_mpi(type, memory, dimension, observations, n, reference_dimension, &
                                          references, m, k, index_columns, indices, distance_rows, &
                                          distance_columns, distances, options, strategy, comm) &
        bind(C, name="kw_nearest_mpi_fortran")
      import :: c_int, c_int64_t, c_ptr, nearest_options_c
      integer(c_int), value :: type, memory, strategy, comm
      integer(c_int64_t), value :: dimension, n, reference_dimension, m, k, index_columns, distance_rows, &
                                   distance_columns
      type(c_ptr), value :: observations, references, indices, distances
      type(nearest_options_c), intent(in) :: options
    end function
  end interface

  interface kw_nearest_mpi
    module procedure nearest_mpi_real32, nearest_mpi_real64
  end interface

contains

  subroutine nearest_mpi_real64(observations, references, indices, distances, comm, degrees, radius, &
                                euclidean, strategy, stat)
    real(real64), intent(in), target, contiguous :: observations(:, :), references(:, :)
    integer(int64), intent(inout), target, contiguous :: indices(:, :)
    real(real64), intent(inout), target, contiguous :: distances(:, :)
    integer, intent(in) :: comm
    logical, intent(in), optional :: degrees, euclidean
    real(real64), intent(in), optional :: radius
    integer, intent(in), optional :: strategy
    integer, intent(out), optional :: stat
    call run(KW_FLOAT64, shape(observations, int64), address64(observations), shape(references, int64), &
             address64(references), indices, shape(distances, int64), address64(distances), comm, degrees, &
             radius, euclidean, strategy, stat)
  end subroutine

  subroutine nearest_mpi_real32(observations, references, indices, distances, comm, degrees, radius, &
                                euclidean, strategy, stat)
    real(real32), intent(in), target, contiguous :: observations(:, :), references(:, :)
    integer(int64), intent(inout), target, contiguous :: indices(:, :)
    real(real32), intent(inout), target, contiguous :: distances(:, :)
    integer, intent(in) :: comm
    logical, intent(in), optional :: degrees, euclidean
    real(real64), intent(in), optional :: radius
    integer, intent(in), optional :: strategy
    integer, intent(out), optional :: stat
    call run(KW_FLOAT32, shape(observations, int64), address32(observations), shape(references, int64), &
             address32(references), indices, shape(distances, int64), address32(distances), comm, degrees, &
             radius, euclidean, strategy, stat)
  end subroutine

  ! The address of an array's data; NULL for an empty one (zero rows on this rank).
  type(c_ptr) function address64(array) result(address)
    real(real64), intent(in), target, contiguous :: array(:, :)
    address = c_null_ptr
    if (size(array) > 0) address = c_loc(array)
  end function
  type(c_ptr) function address32(array) result(address)
    real(real32), intent(in), target, contiguous :: array(:, :)
    address = c_null_ptr
    if (size(array) > 0) address = c_loc(array)
  end function

  subroutine run(type, observation_shape, observations, reference_shape, references, indices, distance_shape, &
                 distances, comm, degrees, radius, euclidean, strategy, stat)
    integer, intent(in) :: type, comm
    integer(int64), intent(in) :: observation_shape(2), reference_shape(2), distance_shape(2)
    type(c_ptr), intent(in) :: observations, references, distances
    integer(int64), intent(inout), target, contiguous :: indices(:, :)
    logical, intent(in), optional :: degrees, euclidean
    real(real64), intent(in), optional :: radius
    integer, intent(in), optional :: strategy
    integer, intent(out), optional :: stat
    type(nearest_options_c) :: options
    integer(c_int) :: status, chosen
    type(c_ptr) :: index_data
    options = options_of(degrees, radius, euclidean)
    chosen = KW_STRATEGY_AUTO
    if (present(strategy)) chosen = int(strategy, c_int)
    index_data = c_null_ptr
    if (size(indices) > 0) index_data = c_loc(indices)
    status = c_nearest_mpi(int(type, c_int), 0_c_int, observation_shape(1), observations, observation_shape(2), &
                           reference_shape(1), references, reference_shape(2), size(indices, 1, int64), &
                           size(indices, 2, int64), index_data, distance_shape(1), distance_shape(2), &
                           distances, options, chosen, int(comm, c_int))
    if (status == KW_SUCCESS) indices = indices + 1
    call finish(status, stat)
  end subroutine

end module kernwerk_mpi
