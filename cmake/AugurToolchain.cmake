# Compiler launcher, warnings and sanitizers shared by every target.

find_program(AUGUR_CCACHE ccache)
if(AUGUR_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER ${AUGUR_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${AUGUR_CCACHE})
endif()

# The project's own executables (about 150 tests, benchmarks and examples,
# each linking libaugur.a and LLVM) link with lld, else gold, where the
# compiler driver accepts one: GNU ld took 2 s per test executable, 2.9 s under
# ASan (lld 0.4 and 0.9 s). Users' builds choose their own linker.
if(PROJECT_IS_TOP_LEVEL)
  include(CheckLinkerFlag)
  foreach(linker lld gold)
    check_linker_flag(CXX "-fuse-ld=${linker}" AUGUR_LINKER_${linker})
    if(AUGUR_LINKER_${linker})
      add_link_options(-fuse-ld=${linker})
      break()
    endif()
  endforeach()
endif()

if(AUGUR_SANITIZE)
  add_compile_options(-fsanitize=${AUGUR_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${AUGUR_SANITIZE})
endif()

function(augur_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  # GCC 12 reports -Wrestrict on std::string concatenation at -O3, inside
  # libstdc++'s char_traits (GCC PR 105651): a false positive, fixed in GCC 13.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
  if(AUGUR_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
