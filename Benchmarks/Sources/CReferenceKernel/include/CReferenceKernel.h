#ifndef TUTTI_REFERENCE_KERNEL_H
#define TUTTI_REFERENCE_KERNEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The reference: out[i] += g * in[i], a plain loop built -O3 for the baseline x86-64
/// target (SSE2; no -march flag, the same target the Swift code is built for).
void tutti_ref_mix_add(float *restrict out, const float *restrict in, size_t count, float g);

/// One block of the reference mix: out = 0, then out += gain[k] * sources[k] for every
/// source (interleaved samples, `samples` = frames * channels each).
void tutti_ref_mix_block(float *restrict out, const float *const *sources, const float *gains,
                         size_t source_count, size_t samples);

/// The same loop compiled for AVX2 + FMA (a per-function target attribute, no unsafe flag):
/// what this CPU can do, for information. Call only when `tutti_ref_has_avx2()`.
void tutti_ref_mix_block_avx2(float *restrict out, const float *const *sources, const float *gains,
                              size_t source_count, size_t samples);
int tutti_ref_has_avx2(void);

#ifdef __cplusplus
}
#endif

#endif
