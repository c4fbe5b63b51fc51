! kw_nearest_mpi and kw_distributed_index from Fortran under mpiexec: every strategy and layout
! against kw_nearest on all references, an empty share on rank 0, and a bad shape or kind on the
! last rank failing every rank alike.
program fortran_mpi_test
  use mpi
  use kernwerk
  use kernwerk_mpi
  use, intrinsic :: iso_fortran_env, only: real32, real64, int64
  implicit none
  integer, parameter :: n = 120, m = 90, k = 4
  real(real64) :: obs(2, n), ref(2, m), dist(k, n), want_dist(k, n)
  real(real32) :: obs32(2, n), ref32(2, m), dist32(k, n), want_dist32(k, n)
  integer(int64) :: idx(k, n), want_idx(k, n), bad_idx(k, n), want_idx32(k, n)
  integer :: ierr, rank, ranks, stat, failures, total, i, o0, o1, r0, r1, p0, p1, strategy, layout, round
  type(kw_distributed_index) :: spread
  character(len=64) :: expected

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierr)
  failures = 0
  call kw_initialize()
  do i = 1, n  ! the same sets on every rank: (latitude, longitude) from a fixed formula
    obs(1, i) = asin(sin(1.7_real64 * i))
    obs(2, i) = 3.1_real64 * sin(2.3_real64 * i + 0.4_real64)
  end do
  do i = 1, m
    ref(1, i) = asin(sin(0.9_real64 * i + 0.2_real64))
    ref(2, i) = 3.1_real64 * sin(1.3_real64 * i)
  end do
  ref(:, m) = ref(:, 1)  ! a duplicate on another rank: the smaller global index first
  ! Observations: none on rank 0 when there are several ranks; references: even shares.
  if (ranks == 1) then
    o0 = 1
    o1 = n
  else
    o0 = n * max(rank - 1, 0) / (ranks - 1) + 1
    o1 = n * rank / (ranks - 1)
  end if
  r0 = m * rank / ranks + 1
  p0 = 1  ! the index's points: none on rank 0 when there are several ranks
  p1 = m
  if (ranks > 1) then
    p0 = m * max(rank - 1, 0) / (ranks - 1) + 1
    p1 = m * rank / (ranks - 1)
  end if
  r1 = m * (rank + 1) / ranks
  if (o1 >= o0) call kw_nearest(obs(:, o0:o1), ref, want_idx(:, o0:o1), want_dist(:, o0:o1))
  do strategy = KW_STRATEGY_AUTO, KW_STRATEGY_RING
    idx = -1
    call kw_nearest_mpi(obs(:, o0:o1), ref(:, r0:r1), idx(:, o0:o1), dist(:, o0:o1), MPI_COMM_WORLD, &
                        strategy=strategy, stat=stat)
    call check(stat == KW_SUCCESS, 'kw_nearest_mpi runs (' // kw_last_error() // ')')
    if (o1 >= o0) then
      call check(all(idx(:, o0:o1) == want_idx(:, o0:o1)), 'global 1-based indices as kw_nearest''s')
      call check(all(dist(:, o0:o1) == want_dist(:, o0:o1)), 'distances as kw_nearest''s')
    end if
  end do
  ! The last rank's indices have one column too few.
  bad_idx = -5
  if (rank == ranks - 1) then
    call kw_nearest_mpi(obs(:, o0:o1), ref(:, r0:r1), bad_idx(:, o0:o1 - 1), dist(:, o0:o1), MPI_COMM_WORLD, &
                        stat=stat)
  else
    call kw_nearest_mpi(obs(:, o0:o1), ref(:, r0:r1), bad_idx(:, o0:o1), dist(:, o0:o1), MPI_COMM_WORLD, &
                        stat=stat)
  end if
  write (expected, '(a, i0, a)') 'indices: rank ', ranks - 1, ': has '
  call check(stat == KW_INVALID_ARGUMENT, 'a bad shape on the last rank fails every rank')
  call check(index(kw_last_error(), trim(expected)) > 0, 'the message names the rank: ' // kw_last_error())
  call check(all(bad_idx == -5), 'no output written')

  ! The distributed index: every layout, queried twice (an index is kept between calls), each
  ! built over the one before.
  do layout = KW_INDEX_LAYOUT_AUTO, KW_INDEX_LAYOUT_PARTITIONED
    call kw_distributed_index_create(spread, ref(:, p0:p1), MPI_COMM_WORLD, layout=layout, stat=stat)
    call check(stat == KW_SUCCESS, 'kw_distributed_index_create runs (' // kw_last_error() // ')')
    call check(kw_distributed_index_size(spread) == m, 'the index holds every rank''s points')
    if (layout /= KW_INDEX_LAYOUT_AUTO) then
      call check(kw_distributed_index_layout(spread) == layout, 'the layout asked for')
    else
      call check(kw_distributed_index_layout(spread) == KW_INDEX_LAYOUT_REPLICATED, 'small sets: replicated')
    end if
    do round = 1, 2
      idx = -1
      call kw_distributed_index_nearest(spread, obs(:, o0:o1), idx(:, o0:o1), dist(:, o0:o1), stat=stat)
      call check(stat == KW_SUCCESS, 'kw_distributed_index_nearest runs (' // kw_last_error() // ')')
      if (o1 >= o0) then
        call check(all(idx(:, o0:o1) == want_idx(:, o0:o1)), 'index: global 1-based indices as kw_nearest''s')
        call check(all(dist(:, o0:o1) == want_dist(:, o0:o1)), 'index: distances as kw_nearest''s')
      end if
    end do
  end do
  ! The last rank's distances have a row too few; then its queries are real32.
  bad_idx = -5
  if (rank == ranks - 1) then
    call kw_distributed_index_nearest(spread, obs(:, o0:o1), bad_idx(:, o0:o1), dist(1:k - 1, o0:o1), stat=stat)
  else
    call kw_distributed_index_nearest(spread, obs(:, o0:o1), bad_idx(:, o0:o1), dist(:, o0:o1), stat=stat)
  end if
  write (expected, '(a, i0, a)') 'distances: rank ', ranks - 1, ': shape ('
  call check(stat == KW_INVALID_ARGUMENT, 'index: a bad shape on the last rank fails every rank')
  call check(index(kw_last_error(), trim(expected)) > 0, 'the message names the rank: ' // kw_last_error())
  call check(all(bad_idx == -5), 'index: no output written')
  obs32 = real(obs, real32)
  if (rank == ranks - 1) then
    call kw_distributed_index_nearest(spread, obs32(:, o0:o1), bad_idx(:, o0:o1), dist32(:, o0:o1), stat=stat)
  else
    call kw_distributed_index_nearest(spread, obs(:, o0:o1), bad_idx(:, o0:o1), dist(:, o0:o1), stat=stat)
  end if
  write (expected, '(a, i0, a)') 'queries: rank ', ranks - 1, ': are of another kind'
  call check(stat == KW_INVALID_ARGUMENT, 'index: real32 queries on the last rank fail every rank')
  call check(index(kw_last_error(), trim(expected)) > 0, 'the message names the rank: ' // kw_last_error())
  call check(all(bad_idx == -5), 'index: no output written')
  ! real32 points in degrees, against kw_nearest on them.
  obs32 = real(obs * 57.29577951308232_real64, real32)
  ref32 = real(ref * 57.29577951308232_real64, real32)
  if (o1 >= o0) call kw_nearest(obs32(:, o0:o1), ref32, want_idx32(:, o0:o1), want_dist32(:, o0:o1), degrees=.true.)
  call kw_distributed_index_create(spread, ref32(:, r0:r1), MPI_COMM_WORLD, degrees=.true., &
                                   layout=KW_INDEX_LAYOUT_PARTITIONED, stat=stat)
  call check(stat == KW_SUCCESS, 'real32 kw_distributed_index_create runs (' // kw_last_error() // ')')
  idx = -1
  call kw_distributed_index_nearest(spread, obs32(:, o0:o1), idx(:, o0:o1), dist32(:, o0:o1), stat=stat)
  call check(stat == KW_SUCCESS, 'real32 kw_distributed_index_nearest runs (' // kw_last_error() // ')')
  if (o1 >= o0) then
    call check(all(idx(:, o0:o1) == want_idx32(:, o0:o1)), 'real32 index: indices as kw_nearest''s')
    call check(all(dist32(:, o0:o1) == want_dist32(:, o0:o1)), 'real32 index: distances as kw_nearest''s')
  end if
  call kw_distributed_index_destroy(spread, stat=stat)
  call check(stat == KW_SUCCESS .and. kw_distributed_index_size(spread) == 0, 'destroyed')

  call kw_finalize()
  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, a, i0, a)', 'fortran_mpi_test (', ranks, ' ranks): ', total, ' failures'
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 1

contains

  subroutine check(condition, what)
    logical, intent(in) :: condition
    character(*), intent(in) :: what
    if (.not. condition) then
      print '(a, a)', 'FAILED: ', what
      failures = failures + 1
    end if
  end subroutine

end program
