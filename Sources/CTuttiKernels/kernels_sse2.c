// SSE2 variants: 4 floats per step, multiply then add (no FMA in SSE2), so every result is
// bit-identical to the scalar reference. Tails run the scalar arithmetic.
#include "internal.h"

#ifdef TK_HAVE_X86
#include <emmintrin.h>

#pragma STDC FP_CONTRACT OFF

#define TK_SSE2 __attribute__((target("sse2")))

TK_SSE2 static void add_sse2(float *dst, const float *src, size_t count) {
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        __m128 a = _mm_add_ps(_mm_loadu_ps(dst + i), _mm_loadu_ps(src + i));
        __m128 b = _mm_add_ps(_mm_loadu_ps(dst + i + 4), _mm_loadu_ps(src + i + 4));
        _mm_storeu_ps(dst + i, a);
        _mm_storeu_ps(dst + i + 4, b);
    }
    for (; i < count; i++) dst[i] += src[i];
}

TK_SSE2 static void mix_add_sse2(float *dst, const float *src, size_t count, float gain) {
    const __m128 g = _mm_set1_ps(gain);
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        __m128 a = _mm_add_ps(_mm_loadu_ps(dst + i), _mm_mul_ps(g, _mm_loadu_ps(src + i)));
        __m128 b = _mm_add_ps(_mm_loadu_ps(dst + i + 4), _mm_mul_ps(g, _mm_loadu_ps(src + i + 4)));
        _mm_storeu_ps(dst + i, a);
        _mm_storeu_ps(dst + i + 4, b);
    }
    for (; i < count; i++) {
        float p = gain * src[i];
        dst[i] += p;
    }
}

TK_SSE2 static void mix_add_gains_sse2(float *dst, const float *src, const float *gains, size_t frame_count, size_t channel_count) {
    size_t f = 0;
    if (channel_count == 1) {
        for (; f + 4 <= frame_count; f += 4) {
            __m128 p = _mm_mul_ps(_mm_loadu_ps(gains + f), _mm_loadu_ps(src + f));
            _mm_storeu_ps(dst + f, _mm_add_ps(_mm_loadu_ps(dst + f), p));
        }
    } else if (channel_count == 2) {
        for (; f + 4 <= frame_count; f += 4) {
            const __m128 g = _mm_loadu_ps(gains + f);
            const __m128 lo = _mm_unpacklo_ps(g, g);  // g0 g0 g1 g1
            const __m128 hi = _mm_unpackhi_ps(g, g);  // g2 g2 g3 g3
            float *d = dst + 2 * f;
            const float *s = src + 2 * f;
            _mm_storeu_ps(d, _mm_add_ps(_mm_loadu_ps(d), _mm_mul_ps(lo, _mm_loadu_ps(s))));
            _mm_storeu_ps(d + 4, _mm_add_ps(_mm_loadu_ps(d + 4), _mm_mul_ps(hi, _mm_loadu_ps(s + 4))));
        }
    }
    for (; f < frame_count; f++) {
        const float g = gains[f];
        for (size_t c = 0; c < channel_count; c++) {
            float p = g * src[f * channel_count + c];
            dst[f * channel_count + c] += p;
        }
    }
}

TK_SSE2 static void mix_add_pair_sse2(float *dst, const float *src, size_t frame_count, float gain_l, float gain_r) {
    const __m128 g = _mm_setr_ps(gain_l, gain_r, gain_l, gain_r);
    const size_t count = 2 * frame_count;
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        __m128 a = _mm_add_ps(_mm_loadu_ps(dst + i), _mm_mul_ps(g, _mm_loadu_ps(src + i)));
        __m128 b = _mm_add_ps(_mm_loadu_ps(dst + i + 4), _mm_mul_ps(g, _mm_loadu_ps(src + i + 4)));
        _mm_storeu_ps(dst + i, a);
        _mm_storeu_ps(dst + i + 4, b);
    }
    for (; i < count; i += 2) {
        float l = gain_l * src[i];
        float r = gain_r * src[i + 1];
        dst[i] += l;
        dst[i + 1] += r;
    }
}

TK_SSE2 static void mix_add_sample_gains_sse2(float *dst, const float *src, const float *gains, size_t count) {
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        __m128 a = _mm_add_ps(_mm_loadu_ps(dst + i), _mm_mul_ps(_mm_loadu_ps(gains + i), _mm_loadu_ps(src + i)));
        __m128 b = _mm_add_ps(_mm_loadu_ps(dst + i + 4), _mm_mul_ps(_mm_loadu_ps(gains + i + 4), _mm_loadu_ps(src + i + 4)));
        _mm_storeu_ps(dst + i, a);
        _mm_storeu_ps(dst + i + 4, b);
    }
    for (; i < count; i++) {
        float p = gains[i] * src[i];
        dst[i] += p;
    }
}

TK_DEFINE_MIX_SETTLED(mix_settled_sse2, TK_SSE2, add_sse2, mix_add_sse2, mix_add_pair_sse2, 0)

/// Four lanes of |bits| at a time (SSE2 has no 32-bit max: a compare and a select; the lanes
/// are non-negative once the sign is cleared, so the signed compare orders them as unsigned).
TK_SSE2 static uint32_t meter_sse2(const float *samples, size_t count, uint32_t peak_bits, size_t *clipped) {
    size_t i = 0;
    size_t over = 0;
    if (count >= 4) {
        const __m128i magnitude = _mm_set1_epi32(0x7FFFFFFF);
        const __m128i one = _mm_set1_epi32(0x3F800000);
        __m128i peaks = _mm_setzero_si128();
        __m128i clips = _mm_setzero_si128();
        for (; i + 4 <= count; i += 4) {
            const __m128i bits = _mm_and_si128(_mm_loadu_si128((const __m128i *)(samples + i)), magnitude);
            const __m128i greater = _mm_cmpgt_epi32(bits, peaks);
            peaks = _mm_or_si128(_mm_and_si128(greater, bits), _mm_andnot_si128(greater, peaks));
            clips = _mm_sub_epi32(clips, _mm_cmpgt_epi32(bits, one));
        }
        uint32_t p[4], c[4];
        _mm_storeu_si128((__m128i *)p, peaks);
        _mm_storeu_si128((__m128i *)c, clips);
        for (int l = 0; l < 4; l++) {
            if (p[l] > peak_bits) peak_bits = p[l];
            over += c[l];
        }
    }
    for (; i < count; i++) {
        const uint32_t bits = tk_meter_bits(samples[i]);
        if (bits > peak_bits) peak_bits = bits;
        over += bits > 0x3F800000u;
    }
    *clipped += over;
    return peak_bits;
}

/// Four samples to codes (int32 lanes): the scalar steps, lane by lane.
TK_SSE2 static inline __m128i quantize4_sse2(const float *src, const float *dither, size_t i, __m128 scale, __m128 min_code,
                                             __m128 max_code) {
    __m128 x = _mm_mul_ps(_mm_loadu_ps(src + i), scale);
    x = _mm_and_ps(x, _mm_cmpord_ps(x, x));  // NaN → 0
    if (dither) x = _mm_add_ps(x, _mm_loadu_ps(dither + i));
    // ±0.5 with the sign of x (−0 gets −0.5 where the scalar test gives +0.5: both truncate to 0).
    const __m128 half = _mm_or_ps(_mm_and_ps(x, _mm_set1_ps(-0.0f)), _mm_set1_ps(0.5f));
    x = _mm_add_ps(x, half);
    x = _mm_min_ps(_mm_max_ps(x, min_code), max_code);
    return _mm_cvttps_epi32(x);
}

TK_SSE2 static void quantize_s16_sse2(int16_t *dst, const float *src, const float *dither, size_t count) {
    const __m128 scale = _mm_set1_ps(32768.0f), lo = _mm_set1_ps(-32768.0f), hi = _mm_set1_ps(32767.0f);
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        __m128i a = quantize4_sse2(src, dither, i, scale, lo, hi);
        __m128i b = quantize4_sse2(src, dither, i + 4, scale, lo, hi);
        _mm_storeu_si128((__m128i *)(dst + i), _mm_packs_epi32(a, b));
    }
    for (; i < count; i++) dst[i] = (int16_t)tk_quantize_one(src[i], dither, i, 32768.0f);
}

TK_SSE2 static void quantize_s24_sse2(int32_t *dst, const float *src, const float *dither, size_t count) {
    const __m128 scale = _mm_set1_ps(8388608.0f), lo = _mm_set1_ps(-8388608.0f), hi = _mm_set1_ps(8388607.0f);
    size_t i = 0;
    for (; i + 4 <= count; i += 4) _mm_storeu_si128((__m128i *)(dst + i), quantize4_sse2(src, dither, i, scale, lo, hi));
    for (; i < count; i++) dst[i] = tk_quantize_one(src[i], dither, i, 8388608.0f);
}

TK_SSE2 static void quantize_s32_sse2(int32_t *dst, const float *src, const float *dither, size_t count, unsigned bits) {
    const float full = bits == 16 ? 32768.0f : 8388608.0f;
    const int shift = bits == 16 ? 16 : 8;
    const __m128 scale = _mm_set1_ps(full), lo = _mm_set1_ps(-full), hi = _mm_set1_ps(full - 1.0f);
    const __m128i sh = _mm_cvtsi32_si128(shift);
    size_t i = 0;
    for (; i + 4 <= count; i += 4) {
        _mm_storeu_si128((__m128i *)(dst + i), _mm_sll_epi32(quantize4_sse2(src, dither, i, scale, lo, hi), sh));
    }
    for (; i < count; i++) dst[i] = (int32_t)((uint32_t)tk_quantize_one(src[i], dither, i, full) << shift);
}

// The limiter's passes, four frames per step (the scalar reference's sequence per lane:
// MAXPS/MINPS are a > b ? a : b and a < b ? a : b, the reference's selects).
static void limiter_needed_stereo_sse2(float *gains, const float *x, size_t frame_count, float ceiling) {
    const __m128 magnitude = _mm_castsi128_ps(_mm_set1_epi32(0x7FFFFFFF));
    const __m128 c = _mm_set1_ps(ceiling);
    const __m128 one = _mm_set1_ps(1.0f);
    const __m128 zero = _mm_setzero_ps();
    size_t f = 0;
    for (; f + 4 <= frame_count; f += 4) {
        const __m128 a = _mm_and_ps(_mm_loadu_ps(x + 2 * f), magnitude);
        const __m128 b = _mm_and_ps(_mm_loadu_ps(x + 2 * f + 4), magnitude);
        const __m128 left = _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
        const __m128 right = _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
        __m128 peak = _mm_max_ps(left, zero);
        peak = _mm_max_ps(right, peak);
        const __m128 over = _mm_cmpgt_ps(peak, c);
        const __m128 q = _mm_div_ps(c, peak);
        _mm_storeu_ps(gains + f, _mm_or_ps(_mm_and_ps(over, q), _mm_andnot_ps(over, one)));
    }
    tk_limiter_needed_stereo_ref(gains + f, x + 2 * f, frame_count - f, ceiling);
}

static float limiter_window_minima_sse2(float *minima, float *complement, float *stored, const float *needed, const float *after,
                                        size_t count, float prefix) {
    const __m128 one = _mm_set1_ps(1.0f);
    __m128 carried = _mm_set1_ps(prefix);
    size_t j = 0;
    for (; j + 4 <= count; j += 4) {
        __m128 v = _mm_loadu_ps(needed + j);
        _mm_storeu_ps(stored + j, v);
        // The running minimum inside the four (lane i: the smallest of lanes 0…i).
        v = _mm_min_ps(v, _mm_shuffle_ps(v, v, _MM_SHUFFLE(2, 1, 0, 0)));
        v = _mm_min_ps(v, _mm_shuffle_ps(v, v, _MM_SHUFFLE(1, 0, 1, 0)));
        const __m128 group = _mm_shuffle_ps(v, v, _MM_SHUFFLE(3, 3, 3, 3));
        v = _mm_min_ps(v, carried);
        carried = _mm_min_ps(carried, group);
        const __m128 m = _mm_min_ps(_mm_loadu_ps(after + j), v);
        _mm_storeu_ps(minima + j, m);
        _mm_storeu_ps(complement + j, _mm_sub_ps(one, m));
    }
    return tk_limiter_window_minima_ref(minima + j, complement + j, stored + j, needed + j, after + j, count - j, _mm_cvtss_f32(carried));
}

static void limiter_suffix_minima_sse2(float *suffix, const float *gains, size_t span) {
    __m128 carried = _mm_set1_ps(1.0f);
    size_t i = span;
    while (i >= 4) {
        i -= 4;
        __m128 v = _mm_loadu_ps(gains + i);
        // Lane k: the smallest of lanes k…3.
        v = _mm_min_ps(v, _mm_shuffle_ps(v, v, _MM_SHUFFLE(3, 3, 2, 1)));
        v = _mm_min_ps(v, _mm_shuffle_ps(v, v, _MM_SHUFFLE(3, 2, 3, 2)));
        const __m128 group = _mm_shuffle_ps(v, v, _MM_SHUFFLE(0, 0, 0, 0));
        v = _mm_min_ps(v, carried);
        carried = _mm_min_ps(carried, group);
        _mm_storeu_ps(suffix + i, v);
    }
    (void)tk_limiter_suffix_minima_ref(suffix, gains, i, _mm_cvtss_f32(carried));
}

static void limiter_apply_stereo_sse2(float *x, float *held, const float *gains, size_t frame_count, float ceiling) {
    const __m128 c = _mm_set1_ps(ceiling);
    const __m128 nc = _mm_set1_ps(-ceiling);
    const __m128 one = _mm_set1_ps(1.0f);
    size_t f = 0;
    for (; f + 4 <= frame_count; f += 4) {
        const __m128 g = _mm_loadu_ps(gains + f);
        const __m128 gs[2] = {_mm_shuffle_ps(g, g, _MM_SHUFFLE(1, 1, 0, 0)), _mm_shuffle_ps(g, g, _MM_SHUFFLE(3, 3, 2, 2))};
        for (int k = 0; k < 2; k++) {
            float *h = held + 2 * f + 4 * k;
            float *s = x + 2 * f + 4 * k;
            const __m128 hv = _mm_loadu_ps(h);
            _mm_storeu_ps(h, _mm_loadu_ps(s));
            __m128 y = _mm_mul_ps(hv, gs[k]);
            y = _mm_min_ps(c, y);   // c < y ? c : y (a NaN stays)
            y = _mm_max_ps(nc, y);  // −c > y ? −c : y
            const __m128 unity = _mm_cmpeq_ps(gs[k], one);
            _mm_storeu_ps(s, _mm_or_ps(_mm_and_ps(unity, hv), _mm_andnot_ps(unity, y)));
        }
    }
    tk_limiter_apply_stereo_ref(x + 2 * f, held + 2 * f, gains + f, frame_count - f, ceiling);
}

static float limiter_window_averages_sse2(float *gains, const float *entering, const float *leaving, size_t count, double *sum,
                                          double span) {
    const __m128d spans = _mm_set1_pd(span);
    const __m128 one = _mm_set1_ps(1.0f);
    __m128d carried = _mm_set1_pd(*sum);
    __m128 least = one;
    size_t k = 0;
    for (; k + 4 <= count; k += 4) {
        const __m128 e = _mm_loadu_ps(entering + k);
        const __m128 l = _mm_loadu_ps(leaving + k);
        __m128d lo = _mm_sub_pd(_mm_cvtps_pd(e), _mm_cvtps_pd(l));
        __m128d hi = _mm_sub_pd(_mm_cvtps_pd(_mm_movehl_ps(e, e)), _mm_cvtps_pd(_mm_movehl_ps(l, l)));
        // Running sums (exact: the caller's condition), lane 1 also taking lane 0.
        lo = _mm_add_pd(lo, _mm_castsi128_pd(_mm_slli_si128(_mm_castpd_si128(lo), 8)));
        hi = _mm_add_pd(hi, _mm_castsi128_pd(_mm_slli_si128(_mm_castpd_si128(hi), 8)));
        lo = _mm_add_pd(lo, carried);
        hi = _mm_add_pd(hi, _mm_unpackhi_pd(lo, lo));
        carried = _mm_unpackhi_pd(hi, hi);
        const __m128 q = _mm_movelh_ps(_mm_cvtpd_ps(_mm_div_pd(lo, spans)), _mm_cvtpd_ps(_mm_div_pd(hi, spans)));
        const __m128 g = _mm_min_ps(q, one);  // q < 1 ? q : 1
        _mm_storeu_ps(gains + k, g);
        least = _mm_min_ps(g, least);
    }
    double s = _mm_cvtsd_f64(carried);
    float smallest = tk_limiter_window_averages_ref(gains + k, entering + k, leaving + k, count - k, &s, span);
    float lanes[4];
    _mm_storeu_ps(lanes, least);
    for (int i = 0; i < 4; i++) smallest = lanes[i] < smallest ? lanes[i] : smallest;
    *sum = s;
    return smallest;
}

// The tone: tk_sine_of_frame in two lanes, operation for operation (the floor's correction
// subtracts 1 or 0, the folds are and/andnot/or selects, the negation flips the sign bit).
TK_SSE2 static inline __m128d sine_of_frames_sse2(__m128d n, __m128d cycles) {
    const __m128d magic = _mm_set1_pd(TK_ROUND_MAGIC);
    const __m128d pi = _mm_set1_pd(TK_PI);
    const __m128d c = _mm_mul_pd(n, cycles);
    __m128d t = _mm_sub_pd(_mm_add_pd(c, magic), magic);
    t = _mm_sub_pd(t, _mm_and_pd(_mm_cmpgt_pd(t, c), _mm_set1_pd(1.0)));
    __m128d x = _mm_sub_pd(_mm_mul_pd(_mm_sub_pd(c, t), _mm_set1_pd(TK_TWO_PI)), pi);
    const __m128d above = _mm_cmpgt_pd(x, _mm_set1_pd(TK_HALF_PI));
    const __m128d below = _mm_cmplt_pd(x, _mm_set1_pd(-TK_HALF_PI));
    const __m128d folded_above = _mm_sub_pd(pi, x);
    const __m128d folded_below = _mm_sub_pd(_mm_set1_pd(-TK_PI), x);
    x = _mm_or_pd(_mm_and_pd(below, folded_below), _mm_andnot_pd(below, x));
    x = _mm_or_pd(_mm_and_pd(above, folded_above), _mm_andnot_pd(above, x));
    const __m128d x2 = _mm_mul_pd(x, x);
    __m128d r = _mm_set1_pd(TK_SINE_C15);
    r = _mm_add_pd(_mm_mul_pd(r, x2), _mm_set1_pd(TK_SINE_C13));
    r = _mm_add_pd(_mm_mul_pd(r, x2), _mm_set1_pd(TK_SINE_C11));
    r = _mm_add_pd(_mm_mul_pd(r, x2), _mm_set1_pd(TK_SINE_C9));
    r = _mm_add_pd(_mm_mul_pd(r, x2), _mm_set1_pd(TK_SINE_C7));
    r = _mm_add_pd(_mm_mul_pd(r, x2), _mm_set1_pd(TK_SINE_C5));
    r = _mm_add_pd(_mm_mul_pd(r, x2), _mm_set1_pd(TK_SINE_C3));
    r = _mm_add_pd(_mm_mul_pd(r, x2), _mm_set1_pd(1.0));
    return _mm_xor_pd(_mm_mul_pd(r, x), _mm_set1_pd(-0.0));
}

TK_SSE2 static void sine_sse2(float *dst, size_t frame_count, size_t channel_count, int64_t first_frame, double cycles_per_frame,
                              float amplitude) {
    const __m128d cycles = _mm_set1_pd(cycles_per_frame);
    const __m128 amp = _mm_set1_ps(amplitude);
    const __m128d step = _mm_set1_pd(4.0);
    // Frame indices as doubles: integers below 2^53, so every add is exact.
    __m128d n01 = _mm_add_pd(_mm_set1_pd((double)first_frame), _mm_setr_pd(0.0, 1.0));
    __m128d n23 = _mm_add_pd(n01, _mm_set1_pd(2.0));
    size_t f = 0;
    for (; f + 4 <= frame_count; f += 4) {
        const __m128 lo = _mm_cvtpd_ps(sine_of_frames_sse2(n01, cycles));
        const __m128 hi = _mm_cvtpd_ps(sine_of_frames_sse2(n23, cycles));
        const __m128 v = _mm_mul_ps(amp, _mm_movelh_ps(lo, hi));
        if (channel_count == 1) {
            _mm_storeu_ps(dst + f, v);
        } else if (channel_count == 2) {
            _mm_storeu_ps(dst + 2 * f, _mm_unpacklo_ps(v, v));
            _mm_storeu_ps(dst + 2 * f + 4, _mm_unpackhi_ps(v, v));
        } else {
            float four[4];
            _mm_storeu_ps(four, v);
            tk_spread_frames(dst + f * channel_count, four, 4, channel_count);
        }
        n01 = _mm_add_pd(n01, step);
        n23 = _mm_add_pd(n23, step);
    }
    tk_sine_ref(dst, f, frame_count, channel_count, first_frame, cycles_per_frame, amplitude);
}

const tk_kernels tk_sse2_kernels = {
    .add = add_sse2,
    .mix_add = mix_add_sse2,
    .mix_add_gains = mix_add_gains_sse2,
    .mix_add_pair = mix_add_pair_sse2,
    .mix_add_sample_gains = mix_add_sample_gains_sse2,
    .mix_settled = mix_settled_sse2,
    .meter = meter_sse2,
    .quantize_s16 = quantize_s16_sse2,
    .quantize_s24 = quantize_s24_sse2,
    .quantize_s32 = quantize_s32_sse2,
    .limiter_needed_stereo = limiter_needed_stereo_sse2,
    .limiter_window_minima = limiter_window_minima_sse2,
    .limiter_suffix_minima = limiter_suffix_minima_sse2,
    .limiter_apply_stereo = limiter_apply_stereo_sse2,
    .limiter_window_averages = limiter_window_averages_sse2,
    .sine = sine_sse2,
};
#endif
