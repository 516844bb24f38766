# Third-party packages, all found through their CMake packages.

# LLVM 19 releases are all 19.1.x; its version file wants major.minor.
find_package(LLVM 19.1 REQUIRED CONFIG HINTS /usr/lib/llvm-19/lib/cmake/llvm)
message(STATUS "Augur: LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")
find_package(TBB REQUIRED CONFIG)
find_package(Threads REQUIRED)
# The remote cache: OpenSSL's libcrypto signs entries; hiredis (Debian's
# libhiredis-dev, 0.14, which has no CMake package) talks to Redis.
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
find_path(AUGUR_HIREDIS_INCLUDE_DIR hiredis/hiredis.h)
find_library(AUGUR_HIREDIS_LIBRARY hiredis)
if(NOT AUGUR_HIREDIS_INCLUDE_DIR OR NOT AUGUR_HIREDIS_LIBRARY)
  message(FATAL_ERROR "Augur: hiredis not found (scripts/setup.sh installs libhiredis-dev)")
endif()

# The CUDA toolkit is optional: with it, GPU kernels are compiled by NVRTC.
# The driver (libcuda.so.1) is never linked; it is opened at run time.
find_package(CUDAToolkit QUIET)
if(CUDAToolkit_FOUND AND TARGET CUDA::nvrtc)
  set(AUGUR_HAVE_NVRTC ON)
  # CMake's CUDA::nvrtc also links the driver (CUDA::cuda_driver: the stub
  # where there is no GPU), which Augur must not: drop it.
  set_property(TARGET CUDA::nvrtc PROPERTY INTERFACE_LINK_LIBRARIES "")
  message(STATUS "Augur: NVRTC ${CUDAToolkit_VERSION} from ${CUDAToolkit_LIBRARY_DIR}")
else()
  set(AUGUR_HAVE_NVRTC OFF)
  message(STATUS "Augur: CUDA toolkit not found; GPU kernels run on the CPU fallback only")
endif()

if(AUGUR_BUILD_TESTS)
  find_package(GTest REQUIRED CONFIG)
endif()

# RE2 and PCRE2 (with its JIT), the peers of the staged regex matcher
# (examples/regex.h) in its test and benchmark. Debian 12 ships no CMake
# package for either; scripts/setup.sh installs libre2-dev and libpcre2-dev.
if(AUGUR_BUILD_TESTS OR AUGUR_BUILD_BENCH)
  find_path(AUGUR_RE2_INCLUDE_DIR re2/re2.h)
  find_library(AUGUR_RE2_LIBRARY re2)
  find_path(AUGUR_PCRE2_INCLUDE_DIR pcre2.h)
  find_library(AUGUR_PCRE2_LIBRARY pcre2-8)
  foreach(found AUGUR_RE2_INCLUDE_DIR AUGUR_RE2_LIBRARY AUGUR_PCRE2_INCLUDE_DIR AUGUR_PCRE2_LIBRARY)
    if(NOT ${found})
      message(FATAL_ERROR "Augur: ${found} not found (scripts/setup.sh installs libre2-dev and libpcre2-dev)")
    endif()
  endforeach()
  add_library(augur_re2 INTERFACE)
  target_include_directories(augur_re2 SYSTEM INTERFACE ${AUGUR_RE2_INCLUDE_DIR})
  target_link_libraries(augur_re2 INTERFACE ${AUGUR_RE2_LIBRARY})
  add_library(augur_pcre2 INTERFACE)
  target_include_directories(augur_pcre2 SYSTEM INTERFACE ${AUGUR_PCRE2_INCLUDE_DIR})
  target_link_libraries(augur_pcre2 INTERFACE ${AUGUR_PCRE2_LIBRARY})
  target_compile_definitions(augur_pcre2 INTERFACE PCRE2_CODE_UNIT_WIDTH=8)
endif()
if(AUGUR_BUILD_BENCH)
  find_package(benchmark REQUIRED CONFIG)
endif()
