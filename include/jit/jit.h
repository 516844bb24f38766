// Augur: a staged JIT runtime for C++. The one header applications include.
//
//   jit::dyn<T>       values of the staged program (dyn.h)
//   jit::stat<T>      first-stage values that are part of the static state (stat.h)
//   jit::prophecy<L>  first-stage predictions checked later (prophecy.h)
//   jit::register_external   host functions callable from staged code (extern.h)
//   jit::table        static data (a lookup table) copied into the code (table.h)
//   jit::extract      run the first stage and get the IR program (extract.h)
//   jit::compile      specialize, compile to native code, cache (compiler.h)
//   jit::function     what compile returns (function.h)
//   jit::key<T>       how static arguments key the cache (key.h)
//   jit::cache_stats  the cache's statistics, capacity, clear (cache.h)
//   jit::register_rule  rewrite rules for your own operations (rules.h)
//   jit::find_byte, find_any_of, find_literal, find_sets   skipping ahead, SIMD (scan.h)
//   jit::handle<Sig>  a callable whose compiled version can be swapped live (handle.h)
//   jit::compile(fn, statics..., jit::tiered)   a handle served at O0, then O2 (tiered.h)
//   jit::error        everything Augur throws (error.h)
//   jit::gpu::compile GPU kernels from staged C++, with a CPU fallback (gpu.h)
//   jit::ir           IR text parsed, verified, interpreted or compiled (ir.h)
//   jit::tier, jit::tiering, jit::handle_statistics   tiers and their statistics (tiering.h)
//
// docs/staging.md explains the model.
#pragma once

#include "jit/cache.h"
#include "jit/compile_options.h"
#include "jit/compiler.h"
#include "jit/dyn.h"
#include "jit/error.h"
#include "jit/extern.h"
#include "jit/extract.h"
#include "jit/function.h"
#include "jit/gpu.h"
#include "jit/handle.h"
#include "jit/ir.h"
#include "jit/key.h"
#include "jit/prophecy.h"
#include "jit/rules.h"
#include "jit/scan.h"
#include "jit/stat.h"
#include "jit/table.h"
#include "jit/tiered.h"
#include "jit/tiering.h"
