// The same plain loop as CReferenceKernel (its very source, with the function renamed), built
// -O3 -march=native (Package.swift): what the compiler makes of it for this very CPU (AVX2 +
// FMA here, AVX-512 where the CPU has it). The mix benchmark's goal: the engine within 1.2×.
#include "CNativeKernel.h"

#define BENCH_MIX_BLOCK bench_native_mix_block
#include "../CReferenceKernel/reference_kernel.c"
