! Nearest neighbours from Fortran: points one per column (latitude, longitude in degrees),
! 1-based indices back, every answer checked against a plain loop; a bad call with stat.
program nearest_example
  use kernwerk
  use, intrinsic :: iso_fortran_env, only: real64, int64
  implicit none
  integer, parameter :: n = 800, m = 150
  real(real64) :: observations(2, n), references(2, m), distances(1, n), best
  integer(int64) :: indices(1, n)
  integer :: i, j, wrong, stat
  real(real64), parameter :: degree = acos(-1.0_real64) / 180

  call random_number(observations)
  call random_number(references)
  observations(1, :) = 180 * observations(1, :) - 90
  observations(2, :) = 360 * observations(2, :) - 180
  references(1, :) = 180 * references(1, :) - 90
  references(2, :) = 360 * references(2, :) - 180

  call kw_initialize()
  call kw_nearest(observations, references, indices, distances, degrees=.true.)
  wrong = 0
  do i = 1, n
    best = huge(best)
    do j = 1, m
      best = min(best, hav(observations(:, i), references(:, j)))
    end do
    ! (a relative tolerance: the compiler may evaluate hav a last bit differently in two places)
    if (hav(observations(:, i), references(:, indices(1, i))) > best * (1 + 1e-12_real64)) wrong = wrong + 1
  end do
  observations(1, 5) = 95  ! a latitude out of range
  call kw_nearest(observations, references, indices, distances, degrees=.true., stat=stat)
  print '(a, i0, a, i0, a, a)', 'nearest from Fortran: ', wrong, ' wrong of ', n, '; a bad latitude gives: ', &
    kw_last_error()
  call kw_finalize()
  if (wrong /= 0 .or. stat /= KW_INVALID_ARGUMENT) error stop 1

contains

  real(real64) function hav(a, b)
    real(real64), intent(in) :: a(2), b(2)
    hav = sin((b(1) - a(1)) * degree / 2)**2 + &
          cos(a(1) * degree) * cos(b(1) * degree) * sin((b(2) - a(2)) * degree / 2)**2
  end function

end program
