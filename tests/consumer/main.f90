! The same known answer as main.cpp, through the Fortran module (1-based indices).
program consumer
  use kernwerk
  use, intrinsic :: iso_fortran_env, only: real64, int64
  implicit none
  real(real64) :: references(2, 3), observations(2, 2), distances(1, 2)
  integer(int64) :: indices(1, 2)
  references = reshape([0.0_real64, 0.0_real64, 0.1_real64, 0.25_real64, -0.5_real64, 3.1_real64], [2, 3])
  observations = reshape([0.1_real64, 0.2_real64, -0.5_real64, 3.05_real64], [2, 2])
  call kw_initialize()
  call kw_nearest(observations, references, indices, distances)
  call kw_finalize()
  print '(a, i0, 1x, i0)', 'consumer (Fortran): neighbours ', indices(1, 1), indices(1, 2)
  if (indices(1, 1) /= 2 .or. indices(1, 2) /= 3) error stop 1
end program
