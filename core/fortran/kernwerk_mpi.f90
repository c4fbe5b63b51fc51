!> \file
!> kw_nearest_mpi and kw_distributed_index from Fortran: the module kernwerk_mpi (target
!! Kernwerk::kernwerk_mpi_fortran).

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
!!
!! An index over every rank's points, built once and queried many times
!! (kernwerk::mpi::distributed_index):
!! - `call kw_distributed_index_create(index, points, comm [, degrees, radius, euclidean, layout,
!!   stat])`: collective; every rank passes its own points(dimension, m), any count, zero
!!   allowed; a point's global index counts the points of lower ranks first. layout is one of
!!   the KW_INDEX_LAYOUT_* values. One built before is destroyed once the new one stands.
!! - `call kw_distributed_index_nearest(index, queries, indices, distances [, stat])`:
!!   collective over the index's ranks; queries(dimension, n) of the kind it was built from, n
!!   may be 0; indices(k, n) 1-based global and distances(k, n), nearest first: kw_nearest over
!!   every rank's points at once. k must be the same on every rank.
!! - `kw_distributed_index_size(index)` (all ranks' points), `kw_distributed_index_layout(index)`
!!   (the layout chosen), `call kw_distributed_index_destroy(index [, stat])` (not collective).
!! Shapes and kinds are checked on every rank alike, as kw_nearest_mpi's.
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
  !> replicated where all points and their index fit half the memory budget, else partitioned
  integer, parameter, public :: KW_INDEX_LAYOUT_AUTO = 0
  integer, parameter, public :: KW_INDEX_LAYOUT_REPLICATED = 1   !< every rank indexes all points
  integer, parameter, public :: KW_INDEX_LAYOUT_PARTITIONED = 2  !< each rank indexes a region
  public :: kw_nearest_mpi, kw_distributed_index, kw_distributed_index_create, kw_distributed_index_nearest, &
            kw_distributed_index_size, kw_distributed_index_layout, kw_distributed_index_destroy

  !> An index over the points of every rank of a communicator; see the module's notes.
  type :: kw_distributed_index
    private
    type(c_ptr) :: handle = c_null_ptr   !< the C index; null until built
    integer(c_int) :: type = KW_FLOAT64  !< KW_FLOAT32 or KW_FLOAT64, of its points
    integer(int64) :: dimension = 0      !< coordinates per point
  end type

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
    integer(c_int) function c_index_create(type, dimension, points, m, options, layout, comm, index) &
        bind(C, name="kw_distributed_index_create_fortran")
      import :: c_int, c_int64_t, c_ptr, within_options_c
      integer(c_int), value :: type, layout, comm
      integer(c_int64_t), value :: dimension, m
      type(c_ptr), value :: points
      type(within_options_c), intent(in) :: options
      type(c_ptr), intent(out) :: index
    end function
    integer(c_int) function c_index_nearest(index, type, dimension, queries, n, k, index_columns, indices, &
                                            distance_rows, distance_columns, distances) &
        bind(C, name="kw_distributed_index_nearest_fortran")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: index, queries, indices, distances
      integer(c_int), value :: type
      integer(c_int64_t), value :: dimension, n, k, index_columns, distance_rows, distance_columns
    end function
    integer(c_int64_t) function c_index_size(index) bind(C, name="kw_distributed_index_size")
      import :: c_int64_t, c_ptr
      type(c_ptr), value :: index
    end function
    integer(c_int) function c_index_layout(index) bind(C, name="kw_distributed_index_layout")
      import :: c_int, c_ptr
      type(c_ptr), value :: index
    end function
    integer(c_int) function c_index_destroy(index) bind(C, name="kw_distributed_index_destroy")
      import :: c_int, c_ptr
      type(c_ptr), value :: index
    end function
  end interface

  interface kw_nearest_mpi
    module procedure nearest_mpi_real32, nearest_mpi_real64
  end interface
  interface kw_distributed_index_create
    module procedure index_create_real32, index_create_real64
  end interface
  interface kw_distributed_index_nearest
    module procedure index_nearest_real32, index_nearest_real64
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

  ! ---- the distributed index --------------------------------------------------------------
  subroutine index_create_real64(index, points, comm, degrees, radius, euclidean, layout, stat)
    type(kw_distributed_index), intent(inout) :: index
    real(real64), intent(in), target, contiguous :: points(:, :)
    integer, intent(in) :: comm
    logical, intent(in), optional :: degrees, euclidean
    real(real64), intent(in), optional :: radius
    integer, intent(in), optional :: layout
    integer, intent(out), optional :: stat
    call index_create(index, KW_FLOAT64, shape(points, int64), address64(points), comm, &
                      within_options_of(degrees, radius, euclidean), layout, stat)
  end subroutine

  subroutine index_create_real32(index, points, comm, degrees, radius, euclidean, layout, stat)
    type(kw_distributed_index), intent(inout) :: index
    real(real32), intent(in), target, contiguous :: points(:, :)
    integer, intent(in) :: comm
    logical, intent(in), optional :: degrees, euclidean
    real(real64), intent(in), optional :: radius
    integer, intent(in), optional :: layout
    integer, intent(out), optional :: stat
    call index_create(index, KW_FLOAT32, shape(points, int64), address32(points), comm, &
                      within_options_of(degrees, radius, euclidean), layout, stat)
  end subroutine

  ! Builds the index; one built before is destroyed once the new one stands (the build fails
  ! every rank alike, so the ranks' indexes stay alike).
  subroutine index_create(index, type, point_shape, points, comm, options, layout, stat)
    type(kw_distributed_index), intent(inout) :: index
    integer(c_int), intent(in) :: type
    integer(int64), intent(in) :: point_shape(2)
    type(c_ptr), intent(in) :: points
    integer, intent(in) :: comm
    type(within_options_c), intent(in) :: options
    integer, intent(in), optional :: layout
    integer, intent(out), optional :: stat
    integer(c_int) :: status, chosen
    type(c_ptr) :: made
    chosen = KW_INDEX_LAYOUT_AUTO
    if (present(layout)) chosen = int(layout, c_int)
    made = c_null_ptr
    status = c_index_create(type, point_shape(1), points, point_shape(2), options, chosen, int(comm, c_int), made)
    if (status == KW_SUCCESS) then
      if (c_associated(index%handle)) status = c_index_destroy(index%handle)
      index = kw_distributed_index(made, type, point_shape(1))
    end if
    call finish(status, stat)
  end subroutine

  subroutine index_nearest_real64(index, queries, indices, distances, stat)
    type(kw_distributed_index), intent(in) :: index
    real(real64), intent(in), target, contiguous :: queries(:, :)
    integer(int64), intent(inout), target, contiguous :: indices(:, :)
    real(real64), intent(inout), target, contiguous :: distances(:, :)
    integer, intent(out), optional :: stat
    call index_nearest(index, KW_FLOAT64, shape(queries, int64), address64(queries), indices, &
                       shape(distances, int64), address64(distances), stat)
  end subroutine

  subroutine index_nearest_real32(index, queries, indices, distances, stat)
    type(kw_distributed_index), intent(in) :: index
    real(real32), intent(in), target, contiguous :: queries(:, :)
    integer(int64), intent(inout), target, contiguous :: indices(:, :)
    real(real32), intent(inout), target, contiguous :: distances(:, :)
    integer, intent(out), optional :: stat
    call index_nearest(index, KW_FLOAT32, shape(queries, int64), address32(queries), indices, &
                       shape(distances, int64), address32(distances), stat)
  end subroutine

  ! The kind and the shapes go to the C side, which checks them on every rank alike.
  subroutine index_nearest(index, type, query_shape, queries, indices, distance_shape, distances, stat)
    type(kw_distributed_index), intent(in) :: index
    integer(c_int), intent(in) :: type
    integer(int64), intent(in) :: query_shape(2), distance_shape(2)
    type(c_ptr), intent(in) :: queries, distances
    integer(int64), intent(inout), target, contiguous :: indices(:, :)
    integer, intent(out), optional :: stat
    integer(c_int) :: status
    type(c_ptr) :: index_data
    index_data = c_null_ptr
    if (size(indices) > 0) index_data = c_loc(indices)
    status = c_index_nearest(index%handle, type, query_shape(1), queries, query_shape(2), size(indices, 1, int64), &
                             size(indices, 2, int64), index_data, distance_shape(1), distance_shape(2), distances)
    if (status == KW_SUCCESS) indices = indices + 1
    call finish(status, stat)
  end subroutine

  !> Points indexed on all ranks; 0 when the index is not built.
  integer(int64) function kw_distributed_index_size(index)
    type(kw_distributed_index), intent(in) :: index
    kw_distributed_index_size = c_index_size(index%handle)
  end function

  !> The layout the index holds (KW_INDEX_LAYOUT_REPLICATED or _PARTITIONED); KW_INDEX_LAYOUT_AUTO
  !! when it is not built.
  integer function kw_distributed_index_layout(index)
    type(kw_distributed_index), intent(in) :: index
    kw_distributed_index_layout = int(c_index_layout(index%handle))
  end function

  !> Frees the index (nothing when it is not built); it can be built again. Not collective.
  subroutine kw_distributed_index_destroy(index, stat)
    type(kw_distributed_index), intent(inout) :: index
    integer, intent(out), optional :: stat
    integer(c_int) :: status
    status = c_index_destroy(index%handle)
    if (status == KW_SUCCESS) index%handle = c_null_ptr
    call finish(status, stat)
  end subroutine

end module kernwerk_mpi
