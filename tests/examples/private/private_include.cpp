// Not compiled: what examples.public_headers_check_fails gives
// cmake/CheckPublicIncludes.cmake, which must reject the three private
// includes below and accept the others (and layout.check_fails gives
// cmake/CheckForbiddenIncludes.cmake, which must find line 7).
#include <vector>
#include <jit/jit.h>
#include "runtime/ir/ir.h"
#include "../../../runtime/ir/ir.h"
#include <jit/cpu/compile.h>
#include "private_include.h"
