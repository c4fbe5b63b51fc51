# ctest driver: install the build tree into a scratch prefix and move the prefix elsewhere, then
# configure, build and run the consumer project against it, as a user would, in C++, C and
# (when built) Fortran, through CMake and pkg-config; and import the Python package from its
# install (when built). Where Kokkos is installed beside Kernwerk (KOKKOS_PREFIX: the build's),
# Kernwerk's package files must not name the build's Kokkos.
set(installed ${WORK}/installed)
set(prefix ${WORK}/prefix)
file(REMOVE_RECURSE ${WORK})
set(programs "${WORK}/build/consumer" "${WORK}/build/consumer_c")
if(FORTRAN)
  list(APPEND programs "${WORK}/build/consumer_fortran")
endif()
set(all_out "")
# Runs one command (its words the arguments), collecting its output; stops at a failure.
macro(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "failed: ${ARGN}\n${out}")
  endif()
  string(APPEND all_out "${out}")
endmacro()
run_step(${CMAKE_COMMAND} --install ${BUILD} --prefix ${installed})
file(RENAME ${installed} ${prefix})
if(KOKKOS_PREFIX)
  file(GLOB_RECURSE package_files ${prefix}/*/cmake/Kernwerk/*.cmake ${prefix}/*/pkgconfig/kernwerk*.pc)
  if(NOT package_files)
    message(FATAL_ERROR "no Kernwerk package files under ${prefix}")
  endif()
  foreach(file IN LISTS package_files)
    file(READ ${file} text)
    foreach(path ${KOKKOS_PREFIX} ${installed})
      string(FIND "${text}" "${path}" at)
      if(NOT at EQUAL -1)
        message(FATAL_ERROR "${file} names ${path}: the prefix does not stand alone")
      endif()
    endforeach()
  endforeach()
endif()
foreach(step
    "${CMAKE_COMMAND};-S;${SOURCE};-B;${WORK}/build;-G;Ninja;-DCMAKE_PREFIX_PATH=${prefix};-DCMAKE_CXX_COMPILER=${COMPILER};-DCMAKE_BUILD_TYPE=Release;-DWITH_FORTRAN=${FORTRAN}"
    "${CMAKE_COMMAND};--build;${WORK}/build"
    ${programs})
  run_step(${step})
endforeach()
# The same programs from a plain Makefile, every flag from the installed pkg-config files
# (host builds install them).
file(GLOB_RECURSE pc_files ${prefix}/*/kernwerk.pc)
find_program(make_program make)
find_program(pkg_config_program pkg-config)
if(pc_files AND NOT (make_program AND pkg_config_program))
  message(STATUS "the Makefile consumer needs make and pkg-config (./kw installs them): not run")
elseif(pc_files)
  list(GET pc_files 0 pc_file)
  get_filename_component(pc_dir ${pc_file} DIRECTORY)
  file(MAKE_DIRECTORY ${WORK}/make)
  set(make_programs ${WORK}/make/make_consumer_c ${WORK}/make/make_consumer_cpp)
  set(with_fortran "")
  if(FORTRAN)
    list(APPEND make_programs ${WORK}/make/make_consumer_fortran)
    set(with_fortran WITH_FORTRAN=1)
  endif()
  foreach(step
      "${CMAKE_COMMAND};-E;env;PKG_CONFIG_PATH=${pc_dir};make;-f;${SOURCE}/Makefile;OUT=${WORK}/make;${with_fortran}"
      ${make_programs})
    run_step(${step})
  endforeach()
endif()
# The Python package where it was installed.
if(PYTHON)
  if(IS_ABSOLUTE "${PYTHON_SITE}")
    message(STATUS "the Python package went to ${PYTHON_SITE}, outside the prefix: not imported")
  else()
    run_step(${CMAKE_COMMAND} -E env PYTHONPATH=${prefix}/${PYTHON_SITE} ${PYTHON} -c
             "import kernwerk\nprint('python consumer: integral of x*y over [0,1]x[0,2] =', kernwerk.integrate2d('x*y', 0, 1, 0, 2, 10))")
  endif()
endif()
message(STATUS "${all_out}")
