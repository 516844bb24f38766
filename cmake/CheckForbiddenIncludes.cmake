# Checks that no source under DIRS (a ;-list of directories, searched
# recursively for *.cpp and *.h) includes a header whose path matches the
# regular expression FORBIDDEN: the layout's rules of which folder may
# include which (docs/architecture.md).
#
#   cmake "-DDIRS=<dir>;<dir>" "-DFORBIDDEN=^(gpu|jit/cpu)/" -P CheckForbiddenIncludes.cmake
#
# Each match is reported as "<file>:<line>: <include>", and the script fails.
if(NOT DIRS OR NOT FORBIDDEN)
  message(FATAL_ERROR "CheckForbiddenIncludes: give -DDIRS=... and -DFORBIDDEN=...")
endif()
set(sources "")
foreach(dir IN LISTS DIRS)
  if(NOT IS_DIRECTORY "${dir}")
    message(FATAL_ERROR "CheckForbiddenIncludes: no directory ${dir}")
  endif()
  file(GLOB_RECURSE found "${dir}/*.cpp" "${dir}/*.h")
  list(APPEND sources ${found})
endforeach()
set(failures "")
foreach(source IN LISTS sources)
  file(STRINGS "${source}" lines)
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]*)[>\"]")
      set(header "${CMAKE_MATCH_1}")
      if(header MATCHES "${FORBIDDEN}")
        string(APPEND failures "${source}:${number}: ${header}\n")
      endif()
    endif()
  endforeach()
endforeach()
if(failures)
  message("${failures}")
  message(FATAL_ERROR "includes matching ${FORBIDDEN}")
endif()
list(LENGTH sources count)
message(STATUS "${count} files include nothing matching ${FORBIDDEN}")
