! The Fortran module against plain Fortran, and its failures: each with stat, the argument in
! kw_last_error(), outputs untouched.
program fortran_api_test
  use kernwerk
  use, intrinsic :: iso_fortran_env, only: real32, real64, int64
  implicit none
  integer :: failures, stat
  real(real64) :: obs(2, 50), ref(2, 20), dist(2, 50), x(100), y(100), s
  real(real64) :: a(6, 4), b(4, 5), c(6, 5), c0(6, 5), spd(3, 3), rhs(3), sol(3), field(8, 9), lap(8, 8)
  real(real32) :: f32(10)
  integer(int64) :: idx(2, 50), iterations
  type(kw_sphere_index) :: places
  real(real32) :: obs32(2, 50), dist32(2, 50)
  failures = 0

  call kw_initialize()
  call random_number(obs)
  call random_number(ref)
  call kw_nearest(obs, ref, idx, dist, stat=stat)
  call check(stat == KW_SUCCESS .and. all(idx >= 1) .and. all(idx <= 20), 'nearest runs, 1-based indices')
  call check(all(dist(1, :) <= dist(2, :)), 'nearest first')
  call catalogue_checks()

  call random_number(obs32)
  call sphere_index_checks()
  call neighbourhood_checks()

  call random_number(x)
  call random_number(y)
  call kw_dot(x, y, s)
  call check(abs(s - dot_product(x, y)) < 1e-12, 'dot against dot_product')
  call kw_sum(x, s)
  call check(abs(s - sum(x)) < 1e-12, 'sum')
  call kw_norm2(x, s)
  call check(abs(s - norm2(x)) < 1e-12, 'norm2')
  f32 = 0.5
  call kw_sum(f32, s)
  call check(s == 5.0_real64, 'sum of real32')
  s = -1
  call kw_dot(x, y(1:99), s, stat=stat)
  call expect_failure(stat, KW_INVALID_ARGUMENT, 'y: length 99', 'dot of different lengths')
  call check(s == -1, 'dot result untouched')

  call random_number(a)
  call random_number(b)
  call random_number(c0)
  c = c0
  call kw_gemm(a, b, c, alpha=2.0_real64, beta=0.5_real64)
  call check(maxval(abs(c - (2 * matmul(a, b) + 0.5 * c0))) < 1e-12, 'gemm against matmul')
  c = c0
  call kw_gemm(a, b(1:3, :), c, stat=stat)
  call expect_failure(stat, KW_INVALID_ARGUMENT, 'b: has 3 rows', 'gemm with b of the wrong rows')
  call kw_gemm(a, b, c(:, 1:4), stat=stat)
  call expect_failure(stat, KW_INVALID_ARGUMENT, 'c: shape', 'gemm with c of the wrong shape')
  call check(all(c == c0), 'c untouched')

  spd = reshape([4.0_real64, 1.0_real64, 0.0_real64, 1.0_real64, 3.0_real64, 1.0_real64, &
                 0.0_real64, 1.0_real64, 2.0_real64], [3, 3])
  rhs = [1.0_real64, 2.0_real64, 3.0_real64]
  sol = 0
  call kw_cg(spd, rhs, sol, tolerance=1e-12_real64, iterations=iterations)
  call check(maxval(abs(matmul(spd, sol) - rhs)) < 1e-10 .and. iterations >= 1, 'cg solves')
  sol = 0.25
  call kw_cg(-spd, rhs, sol, stat=stat)
  call expect_failure(stat, KW_INVALID_ARGUMENT, 'a: is not positive definite', 'cg on -A')
  call kw_cg(spd, rhs, sol, tolerance=1e-14_real64, max_iterations=1_int64, stat=stat)
  call expect_failure(stat, KW_NOT_CONVERGED, 'no convergence in 1 steps', 'cg out of steps')
  call kw_cg(spd(:, 1:2), rhs, sol, stat=stat)
  call expect_failure(stat, KW_INVALID_ARGUMENT, 'a: shape', 'cg with a non-square a')
  call check(all(sol == 0.25), 'x untouched')

  field = 1
  call kw_diffuse(field, 3_int64, laplacian=lap, stat=stat)
  call expect_failure(stat, KW_INVALID_ARGUMENT, 'laplacian', 'a Laplacian of another shape')
  call kw_diffuse(field, 3_int64, coeff=0.3_real64, stat=stat)
  call expect_failure(stat, KW_INVALID_ARGUMENT, 'options.coeff', 'an unstable coefficient')
  call check(all(field == 1), 'field untouched')

  call qr_checks()
  call fft_checks()

  call kw_finalize()
  print '(a, i0, a)', 'fortran_api_test: ', failures, ' failures'
  if (failures /= 0) error stop 1

contains

  subroutine check(condition, what)
    logical, intent(in) :: condition
    character(*), intent(in) :: what
    if (.not. condition) then
      print '(a, a)', 'FAILED: ', what
      failures = failures + 1
    end if
  end subroutine

  subroutine expect_failure(status, expected, fragment, what)
    integer, intent(in) :: status, expected
    character(*), intent(in) :: fragment, what
    call check(status == expected, what // ' (status)')
    call check(index(kw_last_error(), fragment) > 0, what // ' (message: ' // kw_last_error() // ')')
  end subroutine

  ! The bad-input catalogue (bad_inputs.txt, the program's first argument): a good call (4
  ! observations, 3 references, k = 2) spoilt one way per case. Each must fail with
  ! KW_INVALID_ARGUMENT, name the Fortran argument, and leave every output as it was.
  subroutine catalogue_checks()
    use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_negative_inf
    character(len=512) :: path, line
    character(len=64) :: name, cxx, c_name, fortran, cli
    real(real64) :: good_obs(2, 4), good_ref(2, 3), o(2, 4), r(2, 3), r3(3, 3)
    real(real64) :: d(2, 4), d0(0, 4), d3(3, 4), d4(4, 4)
    integer(int64) :: i(2, 4), i0(0, 4), i3(2, 3), i4(4, 4)
    integer :: unit, io, cases
    good_obs = reshape([0.0_real64, 0.0_real64, 0.1_real64, -0.2_real64, 0.2_real64, -0.4_real64, &
                        0.3_real64, -0.6_real64], [2, 4])
    good_ref = reshape([0.0_real64, 0.0_real64, 0.3_real64, 0.1_real64, 0.6_real64, 0.2_real64], [2, 3])
    r3 = 0.1_real64
    call get_command_argument(1, path)
    open (newunit=unit, file=trim(path), status='old', action='read', iostat=io)
    call check(io == 0, 'the catalogue opens: ' // trim(path))
    if (io /= 0) return
    cases = 0
    do
      read (unit, '(a)', iostat=io) line
      if (io /= 0) exit
      if (len_trim(line) == 0 .or. line(1:1) == '#') cycle
      read (line, *) name, cxx, c_name, fortran, cli
      if (fortran == '-') cycle
      cases = cases + 1
      o = good_obs
      r = good_ref
      i = -7; i3 = -7; i4 = -7
      d = -7; d3 = -7; d4 = -7
      select case (trim(name))
      case ('nan_observation')
        o(2, 3) = ieee_nan()
      case ('infinite_reference')
        r(1, 2) = ieee_value(1.0_real64, ieee_negative_inf)
      case ('latitude_past_north_pole')
        o(1, 4) = 1.5708_real64
      case ('latitude_past_south_pole')
        r(1, 1) = -1.5708_real64
      case ('longitude_beyond_limits')
        o(2, 1) = 1e300_real64
      end select
      select case (trim(name))
      case ('nan_observation', 'infinite_reference', 'latitude_past_north_pole', &
            'latitude_past_south_pole', 'longitude_beyond_limits')
        call kw_nearest(o, r, i, d, stat=stat)
      case ('empty_observations')
        call kw_nearest(o(:, 1:0), r, i(:, 1:0), d(:, 1:0), stat=stat)
      case ('empty_references')
        call kw_nearest(o, r(:, 1:0), i, d, stat=stat)
      case ('k_zero')
        call kw_nearest(o, r, i0, d0, stat=stat)
      case ('k_above_references')
        call kw_nearest(o, r, i4, d4, stat=stat)
      case ('reference_dimension')
        call kw_nearest(o, r3, i, d, stat=stat)
      case ('indices_too_short')
        call kw_nearest(o, r, i3, d, stat=stat)
      case ('distances_other_columns')
        call kw_nearest(o, r, i, d3, stat=stat)
      case ('distances_alias_observations')
        call kw_nearest(o, r, i, o, stat=stat)
      case ('negative_radius')
        call kw_nearest(o, r, i, d, radius=-1.0_real64, stat=stat)
      case default
        call check(.false., 'bad_inputs.txt names a case this driver does not know: ' // trim(name))
        cycle
      end select
      call expect_failure(stat, KW_INVALID_ARGUMENT, ': ' // trim(fortran) // ': ', trim(name))
      call check(all(i == -7) .and. all(i3 == -7) .and. all(i4 == -7) .and. &
                 all(d == -7) .and. all(d3 == -7) .and. all(d4 == -7), &
                 trim(name) // ': outputs untouched')
    end do
    close (unit)
    call check(cases >= 10, 'the catalogue holds its cases')
  end subroutine

  ! The index against a float64 brute force written here (haversine, nearest first, ties to the
  ! smaller index), and its failures.
  subroutine sphere_index_checks()
    real(real64) :: points(2, 300), queries(2, 40), found(3, 40), expected(3, 40), dist_one(3, 40)
    integer(int64) :: got(3, 40), want(3, 40), one(3, 40)
    integer :: i
    call random_number(points)
    call random_number(queries)
    points(1, :) = (points(1, :) - 0.5_real64) * 3.14159_real64   ! latitudes
    points(2, :) = (points(2, :) - 0.5_real64) * 6.28318_real64   ! longitudes
    queries(1, :) = (queries(1, :) - 0.5_real64) * 3.14159_real64
    queries(2, :) = (queries(2, :) - 0.5_real64) * 6.28318_real64
    points(:, 7) = points(:, 3)  ! a duplicate: the smaller index comes first
    queries(:, 5) = points(:, 3)
    do i = 1, size(queries, 2)
      call brute_force(queries(:, i), points, want(:, i), expected(:, i))
    end do
    call check(kw_sphere_index_size(places) == 0, 'an index not built has no references')
    call kw_sphere_index_create(places, points, stat=stat)
    call check(stat == KW_SUCCESS .and. kw_sphere_index_size(places) == 300, 'index built over 300 references')
    got = -1
    call kw_sphere_index_nearest(places, queries, got, found, stat=stat)
    call check(stat == KW_SUCCESS .and. all(got == want), 'index: the brute force''s neighbours, 1-based')
    call check(all(abs(found - expected) <= 1e-12_real64), 'index: the brute force''s distances')
    call check(got(1, 5) == 3 .and. got(2, 5) == 7, 'index: duplicates in index order')
    call kw_sphere_index_nearest(places, queries, one, dist_one, stat=stat)
    call check(stat == KW_SUCCESS .and. all(one == got), 'index queried again: the same answers')
    got = -7
    call kw_sphere_index_nearest(places, obs32, got, dist32(:, 1:40), stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'observations', 'real32 observations, real64 index')
    call kw_sphere_index_nearest(places, queries(1:1, :), got, found, stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'observations', 'observations of one coordinate')
    call kw_sphere_index_nearest(places, queries, got(:, 1:39), found, stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'indices', 'indices with 39 columns')
    queries(2, 9) = ieee_nan()
    call kw_sphere_index_nearest(places, queries, got, found, stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'observations', 'a NaN observation')
    call check(all(got == -7), 'index outputs untouched by the failures')
    call kw_sphere_index_create(places, points(1:1, :), stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'references', 'references of one coordinate')
    call check(kw_sphere_index_size(places) == 300, 'a failed build leaves the index as it was')
    call kw_sphere_index_destroy(places, stat=stat)
    call check(stat == KW_SUCCESS .and. kw_sphere_index_size(places) == 0, 'index destroyed')
    call kw_sphere_index_nearest(places, queries, got, found, stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'index', 'a destroyed index')
  end subroutine

  ! kw_index over Euclidean points: the answers of kw_nearest, kw_count_within and kw_within
  ! (checked against the brute force above), bit for bit; its failures.
  subroutine index_checks(queries, points)
    real(real64), intent(inout) :: queries(:, :), points(:, :)
    type(kw_index) :: kept
    integer(int64) :: counts(size(queries, 2)), expected_counts(size(queries, 2)), offsets(size(queries, 2) + 1)
    integer(int64) :: expected_offsets(size(queries, 2) + 1), got(3, size(queries, 2)), want(3, size(queries, 2))
    real(real64) :: found(3, size(queries, 2)), expected(3, size(queries, 2))
    integer(int64), allocatable :: indices(:), expected_indices(:)
    real(real64), allocatable :: distances(:), expected_distances(:)
    real(real32) :: queries32(size(queries, 1), size(queries, 2)), found32(3, size(queries, 2))
    call check(kw_index_size(kept) == 0, 'kw_index: not built, no points')
    call kw_index_create(kept, points, euclidean=.true., stat=stat)
    call check(stat == KW_SUCCESS .and. kw_index_size(kept) == size(points, 2), 'kw_index: built')
    call kw_index_nearest(kept, queries, got, found, stat=stat)
    call kw_nearest(queries, points, want, expected, euclidean=.true.)
    call check(stat == KW_SUCCESS .and. all(got == want) .and. all(found == expected), &
               'kw_index_nearest: kw_nearest''s answers')
    call kw_index_count_within(kept, queries, 0.2_real64, counts, stat=stat)
    call kw_count_within(queries, points, 0.2_real64, expected_counts, euclidean=.true.)
    call check(stat == KW_SUCCESS .and. all(counts == expected_counts), 'kw_index_count_within: the counts')
    call kw_index_within(kept, queries, 0.2_real64, offsets, indices, distances, stat=stat)
    call kw_within(queries, points, 0.2_real64, expected_offsets, expected_indices, expected_distances, &
                   euclidean=.true.)
    call check(stat == KW_SUCCESS .and. all(offsets == expected_offsets) .and. &
               all(indices == expected_indices) .and. all(distances == expected_distances), &
               'kw_index_within: the neighbours, 1-based')
    call kw_index_within(kept, queries, 0.2_real64, offsets, indices, stat=stat)
    call check(stat == KW_SUCCESS .and. all(indices == expected_indices), 'kw_index_within without distances')
    queries32 = real(queries, real32)
    got = -7
    call kw_index_nearest(kept, queries32, got, found32, stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'queries', 'kw_index: real32 queries, real64 index')
    call kw_index_nearest(kept, queries(1:1, :), got, found, stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'queries', 'kw_index: queries of one coordinate')
    queries(1, 3) = ieee_nan()
    call kw_index_nearest(kept, queries, got, found, stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'queries', 'kw_index: a NaN query')
    call check(all(got == -7), 'kw_index: outputs untouched by the failures')
    counts = -3
    call kw_index_count_within(kept, queries(:, 1:2), 0.2_real64, counts, stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'counts', 'kw_index: counts of another length')
    call kw_index_within(kept, queries(:, 4:), -1.0_real64, offsets(4:), indices, stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'radius', 'kw_index: a negative distance')
    call check(all(counts == -3), 'kw_index: counts untouched')
    queries(1, 3) = queries(1, 2)
    call kw_index_create(kept, points(1:1, :), euclidean=.true., stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'points', 'kw_index: points of one coordinate')
    call check(kw_index_size(kept) == size(points, 2), 'kw_index: a failed build leaves it as it was')
    call kw_index_destroy(kept, stat=stat)
    call check(stat == KW_SUCCESS .and. kw_index_size(kept) == 0, 'kw_index: destroyed')
    call kw_index_count_within(kept, queries, 0.2_real64, counts, stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'index', 'kw_index: a destroyed index')
  end subroutine

  ! Radius search against a float64 brute force written here (Euclidean), and DBSCAN on two
  ! blobs and scattered points whose answer is known by construction; their failures.
  subroutine neighbourhood_checks()
    real(real64) :: queries(2, 60), points(2, 200), blobs(2, 63), d
    real(real32) :: points32(2, 200), queries32(2, 60)
    integer(int64) :: counts(60), offsets(61), labels(63), clusters, want
    integer(int64), allocatable :: indices(:), unsorted(:)
    real(real64), allocatable :: distances(:), unsorted_distances(:)
    real(real32), allocatable :: distances32(:)
    logical :: sorted, within_distance
    integer :: i, j, p
    call random_number(queries)
    call random_number(points)
    points(:, 11) = points(:, 4)  ! a copy: equal distances, the smaller index first
    queries(:, 2) = points(:, 4)
    call kw_count_within(queries, points, 0.2_real64, counts, euclidean=.true., stat=stat)
    call check(stat == KW_SUCCESS, 'count_within runs')
    call kw_within(queries, points, 0.2_real64, offsets, indices, distances, euclidean=.true., stat=stat)
    call check(stat == KW_SUCCESS .and. offsets(1) == 1 .and. size(indices) == offsets(61) - 1 .and. &
               size(distances) == size(indices), 'within: compressed columns, 1-based')
    sorted = .true.
    within_distance = .true.
    do i = 1, 60
      want = 0
      do j = 1, 200
        if (norm2(points(:, j) - queries(:, i)) <= 0.2_real64) want = want + 1
      end do
      call check(counts(i) == want .and. offsets(i + 1) - offsets(i) == want, 'within: the brute force''s count')
      do p = int(offsets(i)), int(offsets(i + 1)) - 1
        d = norm2(points(:, indices(p)) - queries(:, i))
        within_distance = within_distance .and. abs(distances(p) - d) <= 1e-15_real64 .and. d <= 0.2_real64
        if (p > offsets(i)) sorted = sorted .and. (distances(p - 1) < distances(p) .or. &
                                                   (distances(p - 1) == distances(p) .and. indices(p - 1) < indices(p)))
      end do
    end do
    call check(within_distance .and. sorted, 'within: neighbours within the distance, nearest first')
    call check(indices(offsets(2)) == 4 .and. indices(offsets(2) + 1) == 11, 'within: the copy after the original')
    points32 = real(points, real32)
    queries32 = real(queries, real32)
    call kw_within(queries32, points32, 0.2_real64, offsets, indices, distances32, euclidean=.true., stat=stat)
    call check(stat == KW_SUCCESS .and. size(distances32) == size(indices), 'within of real32 points')
    call kw_within(queries, points, 0.2_real64, offsets, indices, euclidean=.true., stat=stat)
    call check(stat == KW_SUCCESS .and. size(indices) == offsets(61) - 1, 'within without distances')
    ! Rows in any order: the neighbours of the sorted rows (each once), at their distances.
    call kw_within(queries, points, 0.2_real64, offsets, unsorted, unsorted_distances, euclidean=.true., &
                   any_order=.true., stat=stat)
    call check(stat == KW_SUCCESS .and. size(unsorted) == size(indices), 'within in any order runs')
    within_distance = .true.
    do i = 1, 60
      do p = int(offsets(i)), int(offsets(i + 1)) - 1
        d = norm2(points(:, unsorted(p)) - queries(:, i))
        within_distance = within_distance .and. abs(unsorted_distances(p) - d) <= 1e-15_real64 .and. &
                          count(indices(offsets(i):offsets(i + 1) - 1) == unsorted(p)) == 1 .and. &
                          count(unsorted(offsets(i):offsets(i + 1) - 1) == unsorted(p)) == 1
      end do
    end do
    call check(within_distance, 'within in any order: the same neighbours at their distances')
    call kw_within(queries, points, 0.2_real64, offsets, unsorted, euclidean=.true., any_order=.true., stat=stat)
    call check(stat == KW_SUCCESS .and. size(unsorted) == size(indices), 'within in any order without distances')
    offsets = -3
    call kw_within(queries, points(1:1, :), 0.2_real64, offsets, indices, distances, euclidean=.true., stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'points', 'within: points of another dimension')
    call kw_within(queries, points, 0.2_real64, offsets(1:60), indices, distances, euclidean=.true., stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'offsets', 'within: offsets too short')
    call kw_within(queries, points, -1.0_real64, offsets, indices, distances, euclidean=.true., stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'radius', 'within: a negative distance')
    call check(all(offsets == -3), 'within: offsets untouched by the failures')
    counts = -3
    call kw_count_within(queries, points, 0.2_real64, counts(1:59), euclidean=.true., stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'counts', 'count_within: counts too short')
    call check(all(counts == -3), 'count_within: counts untouched')
    call index_checks(queries, points)

    call random_number(blobs)
    blobs(:, 1:30) = 5 + 0.01_real64 * blobs(:, 1:30)     ! the first cluster
    blobs(:, 31:60) = 0.01_real64 * blobs(:, 31:60)       ! the second
    blobs(:, 61) = [10.0_real64, 0.0_real64]              ! noise
    blobs(:, 62) = [0.0_real64, 10.0_real64]
    blobs(:, 63) = [-10.0_real64, -10.0_real64]
    call kw_dbscan(blobs, 0.1_real64, 5_int64, labels, clusters=clusters, euclidean=.true., stat=stat)
    call check(stat == KW_SUCCESS .and. clusters == 2, 'dbscan: two clusters')
    call check(all(labels(1:30) == 1) .and. all(labels(31:60) == 2) .and. all(labels(61:63) == 0), &
               'dbscan: clusters from 1 in index order, noise 0')
    call kw_dbscan(blobs, 0.1_real64, 31_int64, labels, euclidean=.true., first_cluster=.true., stat=stat)
    call check(stat == KW_SUCCESS .and. all(labels == 0), 'dbscan: all noise')
    labels = -3
    call kw_dbscan(blobs, 0.1_real64, 0_int64, labels, euclidean=.true., stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'min_samples', 'dbscan: min_samples 0')
    call kw_dbscan(blobs, 0.1_real64, 5_int64, labels(1:62), euclidean=.true., stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'labels', 'dbscan: labels too short')
    call check(all(labels == -3), 'dbscan: labels untouched by the failures')
  end subroutine

  subroutine brute_force(query, points, nearest, distance)
    real(real64), intent(in) :: query(2), points(:, :)
    integer(int64), intent(out) :: nearest(:)
    real(real64), intent(out) :: distance(:)
    real(real64) :: d(size(points, 2)), h
    logical :: taken(size(points, 2))
    integer :: j, q, best
    do j = 1, size(points, 2)
      h = sin((points(1, j) - query(1)) / 2)**2 + &
          cos(query(1)) * cos(points(1, j)) * sin((points(2, j) - query(2)) / 2)**2
      d(j) = 2 * asin(min(1.0_real64, sqrt(h)))
    end do
    taken = .false.
    do q = 1, size(nearest)
      best = 0
      do j = 1, size(points, 2)
        if (taken(j)) cycle
        if (best == 0) then
          best = j
        else if (d(j) < d(best)) then
          best = j
        end if
      end do
      taken(best) = .true.
      nearest(q) = best
      distance(q) = d(best)
    end do
  end subroutine

  ! QR of column-major arrays against matmul: a = q r, q^T q = I, r upper triangular with a
  ! non-negative diagonal; its factored form, apply_q and least squares; and its failures.
  subroutine qr_checks()
    real(real64) :: m(30, 7), q(30, 7), r(7, 7), qc(30, 30), rc(30, 7), f(30, 7), tau(7), c(30, 2), c0(30, 2)
    real(real64) :: x(7, 2), v(30), xv(7), eye(7, 7)
    real(real32) :: m32(30, 7), q32(30, 7), r32(7, 7)
    integer :: i, j
    logical :: generic
    call random_number(m)
    m = m - 0.5_real64
    eye = 0
    do i = 1, 7
      eye(i, i) = 1
    end do
    do j = 1, 2
      generic = j == 2
      call kw_qr(m, q, r, generic=generic)
      call check(maxval(abs(matmul(q, r) - m)) < 1e-13, 'qr: a = q r')
      call check(maxval(abs(matmul(transpose(q), q) - eye)) < 1e-13, 'qr: q^T q = I')
      call check(all([(all(r(i + 1:, i) == 0), i = 1, 7)]) .and. all([(r(i, i) >= 0, i = 1, 7)]), &
                 'qr: r upper triangular, diagonal >= 0')
      call kw_qr(m, qc, rc, generic=generic)
      call check(maxval(abs(matmul(qc, rc) - m)) < 1e-13 .and. &
                 maxval(abs(matmul(transpose(qc), qc) - reshape([(merge(1.0_real64, 0.0_real64, i / 30 == mod(i, 30)), &
                                                                   i = 0, 899)], [30, 30]))) < 1e-13, &
                 'qr complete: a = q r, q^T q = I')
      call check(maxval(abs(rc(1:7, :) - r)) < 1e-13 .and. all(rc(8:, :) == 0), 'qr complete: r as the reduced one')
      f = m
      call kw_qr_factor(f, tau, generic=generic)
      call random_number(c0)
      c = c0
      call kw_apply_q(f, tau, c, generic=generic)
      call kw_apply_q(f, tau, c, transpose=.false., generic=generic)
      call check(maxval(abs(c - c0)) < 1e-13, 'apply_q: q q^T c = c')
      ! r of the factored form is r up to row signs
      call check(maxval(abs([(abs(f(1:i, i)) - abs(r(1:i, i)), i = 1, 7)])) < 1e-12, 'qr_factor: |r|')
      call kw_solve_least_squares(m, c0, x, generic=generic)
      ! the normal equations hold at the solution: m^T (m x - c0) = 0
      call check(maxval(abs(matmul(transpose(m), matmul(m, x) - c0))) < 1e-12, 'least squares: normal equations')
      v = c0(:, 1)
      call kw_solve_least_squares(m, v, xv, generic=generic)
      call check(maxval(abs(xv - x(:, 1))) < 1e-12, 'least squares of a vector')
    end do
    m32 = real(m, real32)
    call kw_qr(m32, q32, r32)
    call check(maxval(abs(matmul(q32, r32) - m32)) < 1e-5, 'qr of real32')
    q = 7
    call kw_qr(m, q(:, 1:6), r, stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'q: shape', 'qr with q of the wrong shape')
    call kw_qr(m, q, r(1:6, :), stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'r: shape', 'qr with r of the wrong shape')
    call kw_qr(transpose(m), rc, q, stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'a: has fewer rows than columns', 'qr of a wide matrix')
    m(4, 5) = ieee_nan()
    call kw_qr(m, q, r, stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'a: ', 'qr of a NaN')
    call check(all(q == 7), 'q untouched by the failures')
    call kw_qr_factor(f, tau(1:6), stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'tau: length 6', 'qr_factor with a short tau')
    call kw_apply_q(f, tau, c(1:29, :), stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'c: has 29 rows', 'apply_q with c of the wrong rows')
    call kw_solve_least_squares(f, c0, x(1:6, :), stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'x: shape', 'least squares with x of the wrong shape')
  end subroutine

  ! The transforms against a direct float64 DFT written here, and their failures.
  subroutine fft_checks()
    use, intrinsic :: ieee_arithmetic, only: ieee_is_finite
    complex(real64) :: z(12), w(12), p(6, 5), pw(6, 5), expected(6, 5), half(4, 5)
    complex(real32) :: z32(12), w32(12)
    real(real64) :: re(6, 5), back(6, 5), parts(12, 2)
    integer :: i, j
    call random_number(parts)
    z = cmplx(parts(:, 1), parts(:, 2), real64)
    call kw_fft(z, w)
    call check(maxval(abs(w - dft(z, .false.))) < 1e-13, 'fft of a line')
    call kw_fft(w, inverse=.true.)
    call check(maxval(abs(w - z)) < 1e-14, 'inverse fft in place')
    call kw_fft(z, w, normalization="ortho")
    call check(maxval(abs(w - dft(z, .false.) / sqrt(12.0_real64))) < 1e-13, 'ortho normalisation')
    z32 = cmplx(z, kind=real32)
    call kw_fft(z32, w32)
    call check(maxval(abs(w32 - dft(z, .false.))) < 1e-5, 'fft of complex(real32)')
    ! A plane: each column, then each row.
    call random_number(re)
    p = cmplx(re, 1 - re, real64)
    do j = 1, 5
      expected(:, j) = dft(p(:, j), .false.)
    end do
    do i = 1, 6
      expected(i, :) = dft(expected(i, :), .false.)
    end do
    call kw_fft(p, pw)
    call check(maxval(abs(pw - expected)) < 1e-13, 'fft of a plane')
    call kw_fft(p, pw, lines=.true.)
    call check(maxval(abs([(pw(:, j) - dft(p(:, j), .false.), j = 1, 5)])) < 1e-13, 'fft of lines (columns)')
    ! Real data: the half spectrum of each column, and back.
    call kw_fft(re, half, lines=.true.)
    call check(maxval(abs([(half(:, j) - dft4(re(:, j)), j = 1, 5)])) < 1e-13, 'rfft of lines: the half spectrum')
    call kw_fft(half, back, lines=.true.)
    call check(maxval(abs(back - re)) < 1e-14, 'irfft of lines: back')
    ! Failures.
    w = 3
    call kw_fft(z, w(1:11), stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'output: shape', 'fft into a short output')
    call kw_fft(re, pw(1:5, :), stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'output: shape', 'rfft into the wrong half spectrum')
    call kw_fft(re, half, inverse=.true., stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'inverse', 'rfft asked for the inverse')
    call kw_fft(z, w, normalization="none", stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'normalization', 'an unknown normalisation')
    call kw_fft(z, w, lines=.true., stat=stat)
    call expect_failure(stat, KW_INVALID_ARGUMENT, 'lines', 'lines of a rank-1 array')
    call check(all(w == 3), 'output untouched by the failures')
    ! A NaN propagates, as in FFTW: every output of the line is NaN or infinite.
    z(3) = cmplx(ieee_nan(), 0, real64)
    call kw_fft(z, w, stat=stat)
    call check(stat == KW_SUCCESS .and. .not. any(ieee_is_finite(real(w)) .and. ieee_is_finite(aimag(w))), &
               'fft of a NaN: every output non-finite')
  end subroutine

  ! The direct DFT of x (forward, or inverse unscaled).
  function dft(x, inverse) result(y)
    complex(real64), intent(in) :: x(:)
    logical, intent(in) :: inverse
    complex(real64) :: y(size(x))
    integer :: j, k, n
    real(real64) :: pi, sign
    n = size(x)
    pi = acos(-1.0_real64)
    sign = merge(1.0_real64, -1.0_real64, inverse)
    do k = 0, n - 1
      y(k + 1) = sum([(x(j + 1) * exp(cmplx(0, sign * 2 * pi * mod(j * k, n) / n, real64)), j = 0, n - 1)])
    end do
  end function

  ! The first 4 values (6 / 2 + 1) of the DFT of 6 real values.
  function dft4(x) result(y)
    real(real64), intent(in) :: x(6)
    complex(real64) :: y(4), full(6)
    full = dft(cmplx(x, 0, real64), .false.)
    y = full(1:4)
  end function

  real(real64) function ieee_nan()
    use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
    ieee_nan = ieee_value(1.0_real64, ieee_quiet_nan)
  end function

end program
