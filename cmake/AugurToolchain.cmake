# Compiler launcher, warnings and sanitizers shared by every target.

find_program(AUGUR_CCACHE ccache)
if(AUGUR_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER ${AUGUR_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${AUGUR_CCACHE})
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
