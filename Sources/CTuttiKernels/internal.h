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

// The peak limiter's passes, element by element (PeakLimiter.stereoLimitChunk's arithmetic):
// the scalar table's kernels and every variant's tails. Each output element is one fixed
// sequence of comparisons, selects and one multiplication, division or subtraction, so a
// vector lane computing the same sequence gives the same bits.

static inline void tk_limiter_needed_stereo_ref(float *gains, const float *x, size_t frame_count, float ceiling) {
    for (size_t f = 0; f < frame_count; f++) {
        const float l = __builtin_fabsf(x[2 * f]);
        const float r = __builtin_fabsf(x[2 * f + 1]);
        float peak = 0.0f;
        if (l > peak) peak = l;
        if (r > peak) peak = r;
        gains[f] = peak > ceiling ? ceiling / peak : 1.0f;
    }
}

static inline float tk_limiter_window_minima_ref(float *minima, float *complement, float *stored, const float *needed,
                                                 const float *after, size_t count, float prefix) {
    for (size_t j = 0; j < count; j++) {
        const float v = needed[j];
        stored[j] = v;
        prefix = v < prefix ? v : prefix;
        const float s = after[j];
        const float m = s < prefix ? s : prefix;
        minima[j] = m;
        complement[j] = 1.0f - m;
    }
    return prefix;
}

/// suffix[i] = min(gains[i…end−1], carried) for i in 0..<end, from the end down; returns the
/// minimum of gains[0..<end] and `carried`.
static inline float tk_limiter_suffix_minima_ref(float *suffix, const float *gains, size_t end, float carried) {
    float m = carried;
    for (size_t i = end; i > 0; i--) {
        const float v = gains[i - 1];
        m = v < m ? v : m;
        suffix[i - 1] = m;
    }
    return m;
}

static inline void tk_limiter_apply_stereo_ref(float *x, float *held, const float *gains, size_t frame_count, float ceiling) {
    for (size_t f = 0; f < frame_count; f++) {
        const float g = gains[f];
        for (size_t c = 0; c < 2; c++) {
            const float h = held[2 * f + c];
            held[2 * f + c] = x[2 * f + c];
            float y = h;
            if (g != 1.0f) {
                y = h * g;
                if (y > ceiling) y = ceiling;
                if (y < -ceiling) y = -ceiling;
            }
            x[2 * f + c] = y;
        }
    }
}

/// The averaging window's running sums and averages in order: for k in 0..<count, *sum +=
/// (double)entering[k] − (double)leaving[k], then gains[k] = q < 1 ? q : 1 with q = (float)(*sum
/// / span). Returns the smallest of 1 and the gains.
static inline float tk_limiter_window_averages_ref(float *gains, const float *entering, const float *leaving, size_t count,
                                                   double *sum, double span) {
    double s = *sum;
    float smallest = 1.0f;
    for (size_t k = 0; k < count; k++) {
        const double d = (double)entering[k] - (double)leaving[k];
        s += d;
        const float q = (float)(s / span);
        const float g = q < 1.0f ? q : 1.0f;
        gains[k] = g;
        if (g < smallest) smallest = g;
    }
    *sum = s;
    return smallest;
}

#endif
