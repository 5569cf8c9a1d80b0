#ifndef BENCH_NATIVE_KERNEL_H
#define BENCH_NATIVE_KERNEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One block of the reference mix (as bench_ref_mix_block), built -O3 -march=native.
void bench_native_mix_block(float *restrict out, const float *const *sources, const float *gains, size_t source_count,
                            size_t samples);

#ifdef __cplusplus
}
#endif

#endif
