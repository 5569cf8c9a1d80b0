// Shared between the variant files: the variant tables and the scalar quantizer every
// variant uses for its tail samples, so a sample's code never depends on its position.
#ifndef C_TUTTI_KERNELS_INTERNAL_H
#define C_TUTTI_KERNELS_INTERNAL_H

#include "CTuttiKernels.h"

#pragma STDC FP_CONTRACT OFF

extern const tk_kernels tk_scalar_kernels;
#if defined(__x86_64__) || defined(__i386__)
#define TK_HAVE_X86 1
extern const tk_kernels tk_sse2_kernels;
extern const tk_kernels tk_avx2_kernels;
extern const tk_kernels tk_avx512_kernels;
#endif

/// g·s + d as two roundings, the multiply then the add: the one arithmetic of every variant,
/// vector lanes and tails alike (no fused multiply-add anywhere, FP_CONTRACT OFF), so every
/// variant writes the same bytes for the same input.
static inline float tk_mul_add(float g, float s, float d) {
    const float p = g * s;
    return d + p;
}

/// One sample to a `bits`-bit code: the arithmetic of TuttiDSP's `TPDFQuantizer`, step by
/// step (multiply, add the dither, add ±0.5, clamp, truncate), so every variant agrees.
static inline int32_t tk_quantize_one(float sample, const float *dither, size_t i, float scale) {
    float x = sample * scale;
    if (x != x) x = 0.0f;  // NaN
    if (dither) x += dither[i];
    x += (x >= 0.0f) ? 0.5f : -0.5f;
    const float max_code = scale - 1.0f;
    const float min_code = -scale;
    if (x < min_code) x = min_code;
    if (x > max_code) x = max_code;
    return (int32_t)x;
}

#endif
