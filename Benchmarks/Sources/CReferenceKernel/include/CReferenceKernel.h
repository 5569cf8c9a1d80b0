#ifndef BENCH_REFERENCE_KERNEL_H
#define BENCH_REFERENCE_KERNEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One block of the reference mix: out = 0, then out[i] += gains[k] · sources[k][i] for every
/// source (interleaved samples, `samples` = frames × channels each). A plain loop built -O3
/// for the baseline x86-64 target (SSE2; the target the Swift code is built for).
void bench_ref_mix_block(float *restrict out, const float *const *sources, const float *gains, size_t source_count,
                         size_t samples);

#ifdef __cplusplus
}
#endif

#endif
