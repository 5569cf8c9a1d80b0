// The plain C limit Tutti's render path is compared against (see docs/performance.md).
// Built with -O3 for the baseline x86-64 target (Package.swift); the loop is the whole kernel
// on purpose.
// CNativeKernel compiles this file again for -march=native under another name.
#include <stddef.h>
#include <string.h>

#ifndef BENCH_MIX_BLOCK
#include "CReferenceKernel.h"
#define BENCH_MIX_BLOCK bench_ref_mix_block
#endif

static void mix_add(float *restrict out, const float *restrict in, size_t count, float g) {
    for (size_t i = 0; i < count; i++) out[i] += g * in[i];
}

void BENCH_MIX_BLOCK(float *restrict out, const float *const *sources, const float *gains, size_t source_count,
                         size_t samples) {
    memset(out, 0, samples * sizeof(float));
    for (size_t k = 0; k < source_count; k++) mix_add(out, sources[k], samples, gains[k]);
}
