// Prints the device helpers of the scans (gpu/cuda_helpers.h) so that
// scan_helper_test can compile them for the host and compare them with the
// host functions: the device code's semantics, checked without a device.
#include <iostream>
#include <set>

#include "gpu/cuda_helpers.h"

int main() {
  using augur::gpu::Helper;
  using augur::gpu::HelperKind;
  const std::set<Helper> scans = {{HelperKind::FindByte, augur::ir::Scalar::I64},
                                  {HelperKind::FindAnyOf, augur::ir::Scalar::I64},
                                  {HelperKind::FindLiteral, augur::ir::Scalar::I64},
                                  {HelperKind::FindSets, augur::ir::Scalar::I64}};
  std::cout << augur::gpu::helper_definitions(scans);
  return std::cout ? 0 : 1;
}
