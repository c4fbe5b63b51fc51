# ctest driver: install the build tree into a scratch prefix, then configure, build and run the
# consumer project against it, as a user would, in C++, C and (when built) Fortran.
set(prefix ${WORK}/prefix)
file(REMOVE_RECURSE ${WORK})
set(programs "${WORK}/build/consumer" "${WORK}/build/consumer_c")
if(FORTRAN)
  list(APPEND programs "${WORK}/build/consumer_fortran")
endif()
set(all_out "")
foreach(step
    "${CMAKE_COMMAND};--install;${BUILD};--prefix;${prefix}"
    "${CMAKE_COMMAND};-S;${SOURCE};-B;${WORK}/build;-G;Ninja;-DCMAKE_PREFIX_PATH=${prefix};-DCMAKE_CXX_COMPILER=${COMPILER};-DCMAKE_BUILD_TYPE=Release;-DWITH_FORTRAN=${FORTRAN}"
    "${CMAKE_COMMAND};--build;${WORK}/build"
    ${programs})
  execute_process(COMMAND ${step} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "failed: ${step}\n${out}")
  endif()
  string(APPEND all_out "${out}")
endforeach()
message(STATUS "${all_out}")
