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

/// The longest chunk prefetched whole: 32 lines, a 256-frame stereo chunk. Of a longer one
/// only the first two lines are: the hardware prefetcher follows it once it has begun, and
/// prefetching more of it (all or part of a 4 or 8 KiB chunk) measured slower
/// (docs/performance.md).
#define TK_PREFETCH_SPAN 2048

/// Defines `static size_t name(...)`: the `mix_settled` kernel of a variant whose `add`,
/// `mix_add` and `mix_add_pair` are `add_fn`, `mix_fn` and `pair_fn` (static functions of the
/// same file, so they are called directly or inlined: no indirect call per source), with the
/// variant's target attribute `attr`. One entry's chunk is exactly the call the Swift slot
/// loop makes for it: the same bytes. `prefetch` (a constant) asks, before an entry mixes, for
/// the next one's chunk, a line at a time, whole up to `TK_PREFETCH_SPAN` bytes (1), and its
/// node's position line (2): a jump to another buffer no hardware prefetcher foresees, so
/// without it each source starts with a wait for memory. Only where measured faster
/// (docs/performance.md).
#define TK_DEFINE_MIX_SETTLED(name, attr, add_fn, mix_fn, pair_fn, prefetch)                                                                   \
    attr static inline __attribute__((always_inline)) void name##_one(const tk_settled_entry *e, float *dst, const float *src,      \
                                                                      size_t frames, size_t channels) {                            \
        switch (e->kind) {                                                                                                          \
        case 1: add_fn(dst, src, frames * channels); break;                                                                         \
        case 2: mix_fn(dst, src, frames * channels, e->gain_left); break;                                                           \
        case 3: pair_fn(dst, src, frames, e->gain_left, e->gain_right); break;                                                      \
        default: break;                                                                                                             \
        }                                                                                                                           \
    }                                                                                                                               \
    attr static size_t name(tk_settled_entry *entries, size_t first, size_t count, float *const *targets, size_t frames,            \
                            size_t channels, int64_t frame, int64_t *wrapped_at) {                                                  \
        const ptrdiff_t n = (ptrdiff_t)frames;                                                                                      \
        const ptrdiff_t ch = (ptrdiff_t)channels;                                                                                   \
        const size_t bytes = frames * channels * sizeof(float);                                                                     \
        const uintptr_t span = bytes <= TK_PREFETCH_SPAN ? bytes : 128;                                                             \
        for (size_t k = first; k < count; k++) {                                                                                    \
            tk_settled_entry *e = entries + k;                                                                                      \
            if (prefetch && k + 1 < count) {                                                                                        \
                /* The next source's chunk and its node's line: a jump no prefetcher sees. */                                       \
                const tk_settled_entry *next = e + 1;                                                                               \
                if (prefetch & 1) {                                                                                                 \
                    const uintptr_t ahead = (uintptr_t)(next->data + next->position * ch);                                          \
                    for (uintptr_t line = ahead & ~(uintptr_t)63; line < ahead + span; line += 64) {                                \
                        __builtin_prefetch((const void *)line, 0, 3);                                                               \
                    }                                                                                                               \
                }                                                                                                                   \
                if (prefetch & 2) __builtin_prefetch(next->node_position, 1, 3);                                                    \
            }                                                                                                                       \
            const ptrdiff_t position = e->position;                                                                                 \
            const ptrdiff_t before = e->end - position;                                                                             \
            float *dst = targets[e->route];                                                                                         \
            if (n < before) {                                                                                                       \
                name##_one(e, dst, e->data + position * ch, frames, channels);                                                      \
                e->position = position + n;                                                                                         \
                *e->node_position = position + n;                                                                                   \
                continue;                                                                                                           \
            }                                                                                                                       \
            /* Reaches its end: an endless loop wraps (once), anything else is the caller's. */                                     \
            const ptrdiff_t after = n - before;                                                                                     \
            if (!e->wraps || after >= e->end - e->loop_start) return k;                                                             \
            if (before > 0) name##_one(e, dst, e->data + position * ch, (size_t)before, channels);                                  \
            if (after > 0) name##_one(e, dst + before * ch, e->data + e->loop_start * ch, (size_t)after, channels);                 \
            e->position = e->loop_start + after;                                                                                    \
            *e->node_position = e->loop_start + after;                                                                              \
            e->since = frame;                                                                                                       \
            *wrapped_at = frame;                                                                                                    \
        }                                                                                                                           \
        return count;                                                                                                               \
    }

/// The meter's one sample: |sample| as bits (the sign cleared; floats order as their bits).
static inline uint32_t tk_meter_bits(float sample) {
    union {
        float f;
        uint32_t u;
    } v = {.f = sample};
    return v.u & 0x7FFFFFFFu;
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

// The tone kernel's constants: π and its multiples as doubles (Swift's Double.pi, 2 ·
// Double.pi, Double.pi / 2: exact scalings), the Taylor coefficients of sin to x¹⁵ (each a
// correctly rounded constant division, as in TuttiDSP's `sineOfPhase`) and 1.5 · 2^52,
// which rounds a double of magnitude below 2^51 to the nearest integer when added and
// subtracted (x + 1.5·2^52 lands where the unit in the last place is 1).
#define TK_PI 3.141592653589793115997963468544185161590576171875
#define TK_TWO_PI (2.0 * TK_PI)
#define TK_HALF_PI (TK_PI / 2.0)
#define TK_SINE_C15 (-1.0 / 1307674368000.0)
#define TK_SINE_C13 (1.0 / 6227020800.0)
#define TK_SINE_C11 (-1.0 / 39916800.0)
#define TK_SINE_C9 (1.0 / 362880.0)
#define TK_SINE_C7 (-1.0 / 5040.0)
#define TK_SINE_C5 (1.0 / 120.0)
#define TK_SINE_C3 (-1.0 / 6.0)
#define TK_ROUND_MAGIC 6755399441055744.0 /* 1.5 · 2^52 */

/// sin(2π · frac(n · cycles_per_frame)) for the frame index `n` (an integer below 2^51 as a
/// double): c = n · cycles_per_frame; its floor by the magic-number rounding and a
/// correction; the phase (c − floor) · 2π in [0, 2π]; then TuttiDSP's `sineOfPhase` step for
/// step (fold onto [−π/2, π/2], Horner in x², negate). Every vector variant does these
/// operations in this order in each lane, so every variant gives these bits.
static inline double tk_sine_of_frame(double n, double cycles_per_frame) {
    const double c = n * cycles_per_frame;
    double t = (c + TK_ROUND_MAGIC) - TK_ROUND_MAGIC;
    if (t > c) t = t - 1.0;
    double x = (c - t) * TK_TWO_PI;
    x = x - TK_PI;
    if (x > TK_HALF_PI) {
        x = TK_PI - x;
    } else if (x < -TK_HALF_PI) {
        x = -TK_PI - x;
    }
    const double x2 = x * x;
    double r = TK_SINE_C15;
    r = r * x2 + TK_SINE_C13;
    r = r * x2 + TK_SINE_C11;
    r = r * x2 + TK_SINE_C9;
    r = r * x2 + TK_SINE_C7;
    r = r * x2 + TK_SINE_C5;
    r = r * x2 + TK_SINE_C3;
    r = r * x2 + 1.0;
    return -(r * x);
}

/// `frame_count` frames' values (one each) into `channel_count`-channel interleaved frames: the
/// vector tone kernels' store for channel counts they do not vectorize.
static inline void tk_spread_frames(float *dst, const float *values, size_t frame_count, size_t channel_count) {
    for (size_t k = 0; k < frame_count; k++) {
        for (size_t c = 0; c < channel_count; c++) dst[k * channel_count + c] = values[k];
    }
}

/// The tone kernel's reference (the scalar variant, and every variant's tail): frames
/// `from..<frame_count` of the block, each value amplitude · (float)tk_sine_of_frame on
/// every channel.
static inline void tk_sine_ref(float *dst, size_t from, size_t frame_count, size_t channel_count, int64_t first_frame,
                               double cycles_per_frame, float amplitude) {
    // The index as a double, counted up (integers below 2^53: every add is exact).
    double n = (double)first_frame + (double)from;
    for (size_t f = from; f < frame_count; f++, n += 1.0) {
        const float v = amplitude * (float)tk_sine_of_frame(n, cycles_per_frame);
        for (size_t c = 0; c < channel_count; c++) dst[f * channel_count + c] = v;
    }
}

#endif
