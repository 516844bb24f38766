// An example's own header, which private_include.cpp may include.
#pragma once
#include "jit/gpu.h"
