! Diffusion from Fortran: a hot spot in a (48, 64) field, 100 steps, checked against the
! stencil computed here; then a field with a NaN, rejected with stat.
program diffuse_example
  use kernwerk
  use, intrinsic :: iso_fortran_env, only: real32, int64
  implicit none
  integer, parameter :: nx = 48, ny = 64
  real(real32) :: field(nx, ny), a(nx, ny), b(nx, ny)
  integer :: s, stat

  field = 0
  field(30, 20) = 100
  a = field
  do s = 1, 100, 2
    call step(a, b)
    call step(b, a)
  end do
  call kw_initialize()
  call kw_diffuse(field, 100_int64)
  print '(a, es10.3)', 'diffuse from Fortran: largest difference from the stencil ', maxval(abs(field - a))
  if (maxval(abs(field - a)) > 1e-4) error stop 1
  field(3, 3) = transfer(-4194304, 1.0_real32)  ! a quiet NaN
  call kw_diffuse(field, 10_int64, stat=stat)
  print '(a, a)', 'a NaN in the field gives: ', kw_last_error()
  call kw_finalize()
  if (stat /= KW_INVALID_ARGUMENT) error stop 1

contains

  subroutine step(from, to)
    real(real32), intent(in) :: from(nx, ny)
    real(real32), intent(out) :: to(nx, ny)
    integer :: i, j
    real(real32) :: v
    do j = 1, ny
      do i = 1, nx
        v = 4 * from(i, j)
        if (i > 1) v = v - from(i - 1, j)
        if (j > 1) v = v - from(i, j - 1)
        if (i < nx) v = v - from(i + 1, j)
        if (j < ny) v = v - from(i, j + 1)
        to(i, j) = from(i, j) - 0.25 * v
      end do
    end do
  end subroutine

end program
