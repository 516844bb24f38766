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
if(AUGUR_BUILD_BENCH)
  find_package(benchmark REQUIRED CONFIG)
endif()
