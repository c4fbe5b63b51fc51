! kw_nearest_mpi from Fortran under mpiexec: every strategy against kw_nearest on all references,
! an empty share on rank 0, and a bad shape on the last rank failing every rank alike.
program fortran_mpi_test
  use mpi
  use kernwerk
  use kernwerk_mpi
  use, intrinsic :: iso_fortran_env, only: real64, int64
  implicit none
  integer, parameter :: n = 120, m = 90, k = 4
  real(real64) :: obs(2, n), ref(2, m), dist(k, n), want_dist(k, n)
  integer(int64) :: idx(k, n), want_idx(k, n), bad_idx(k, n)
  integer :: ierr, rank, ranks, stat, failures, total, i, o0, o1, r0, r1, strategy
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
