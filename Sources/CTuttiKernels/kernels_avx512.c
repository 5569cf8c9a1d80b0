// AVX-512F variants: 16 floats per step, tails through a lane mask (no scalar loop). Same
// arithmetic as the scalar reference (multiply then add in the mix kernels, no fused
// multiply-add; the scalar steps in the quantizers), so it gives the same bits for every sample.
#include "internal.h"

#ifdef TK_HAVE_X86
#include <immintrin.h>

#define TK_AVX512 __attribute__((target("avx512f,avx2")))

TK_AVX512 static inline __mmask16 tail_mask(size_t n) { return (__mmask16)((1u << n) - 1u); }

TK_AVX512 static void add_avx512(float *dst, const float *src, size_t count) {
    size_t i = 0;
    for (; i + 32 <= count; i += 32) {
        __m512 a = _mm512_add_ps(_mm512_loadu_ps(dst + i), _mm512_loadu_ps(src + i));
        __m512 b = _mm512_add_ps(_mm512_loadu_ps(dst + i + 16), _mm512_loadu_ps(src + i + 16));
        _mm512_storeu_ps(dst + i, a);
        _mm512_storeu_ps(dst + i + 16, b);
    }
    for (; i + 16 <= count; i += 16) _mm512_storeu_ps(dst + i, _mm512_add_ps(_mm512_loadu_ps(dst + i), _mm512_loadu_ps(src + i)));
    if (i < count) {
        const __mmask16 m = tail_mask(count - i);
        _mm512_mask_storeu_ps(dst + i, m, _mm512_add_ps(_mm512_maskz_loadu_ps(m, dst + i), _mm512_maskz_loadu_ps(m, src + i)));
    }
}

TK_AVX512 static void mix_add_avx512(float *dst, const float *src, size_t count, float gain) {
    const __m512 g = _mm512_set1_ps(gain);
    size_t i = 0;
    for (; i + 32 <= count; i += 32) {
        __m512 a = _mm512_add_ps(_mm512_mul_ps(g, _mm512_loadu_ps(src + i)), _mm512_loadu_ps(dst + i));
        __m512 b = _mm512_add_ps(_mm512_mul_ps(g, _mm512_loadu_ps(src + i + 16)), _mm512_loadu_ps(dst + i + 16));
        _mm512_storeu_ps(dst + i, a);
        _mm512_storeu_ps(dst + i + 16, b);
    }
    for (; i + 16 <= count; i += 16) _mm512_storeu_ps(dst + i, _mm512_add_ps(_mm512_mul_ps(g, _mm512_loadu_ps(src + i)), _mm512_loadu_ps(dst + i)));
    if (i < count) {
        const __mmask16 m = tail_mask(count - i);
        _mm512_mask_storeu_ps(dst + i, m, _mm512_add_ps(_mm512_mul_ps(g, _mm512_maskz_loadu_ps(m, src + i)), _mm512_maskz_loadu_ps(m, dst + i)));
    }
}

TK_AVX512 static void mix_add_gains_avx512(float *dst, const float *src, const float *gains, size_t frame_count, size_t channel_count) {
    if (channel_count == 1) {
        size_t f = 0;
        for (; f + 16 <= frame_count; f += 16) {
            _mm512_storeu_ps(dst + f, _mm512_add_ps(_mm512_mul_ps(_mm512_loadu_ps(gains + f), _mm512_loadu_ps(src + f)), _mm512_loadu_ps(dst + f)));
        }
        if (f < frame_count) {
            const __mmask16 m = tail_mask(frame_count - f);
            const __m512 r = _mm512_add_ps(_mm512_mul_ps(_mm512_maskz_loadu_ps(m, gains + f), _mm512_maskz_loadu_ps(m, src + f)), _mm512_maskz_loadu_ps(m, dst + f));
            _mm512_mask_storeu_ps(dst + f, m, r);
        }
        return;
    }
    if (channel_count == 2) {
        // Eight frames per vector: each gain twice (left, right).
        const __m512i pairs = _mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
        size_t f = 0;
        for (; f + 8 <= frame_count; f += 8) {
            const __m512 g = _mm512_permutexvar_ps(pairs, _mm512_castps256_ps512(_mm256_loadu_ps(gains + f)));
            float *d = dst + 2 * f;
            _mm512_storeu_ps(d, _mm512_add_ps(_mm512_mul_ps(g, _mm512_loadu_ps(src + 2 * f)), _mm512_loadu_ps(d)));
        }
        if (f < frame_count) {
            const size_t left = frame_count - f;
            const __m256 g8 = _mm512_castps512_ps256(_mm512_maskz_loadu_ps((__mmask16)((1u << left) - 1u), gains + f));
            const __m512 g = _mm512_permutexvar_ps(pairs, _mm512_castps256_ps512(g8));
            const __mmask16 m = tail_mask(2 * left);
            float *d = dst + 2 * f;
            _mm512_mask_storeu_ps(d, m, _mm512_add_ps(_mm512_mul_ps(g, _mm512_maskz_loadu_ps(m, src + 2 * f)), _mm512_maskz_loadu_ps(m, d)));
        }
        return;
    }
    for (size_t f = 0; f < frame_count; f++) {
        const float g = gains[f];
        for (size_t c = 0; c < channel_count; c++) {
            const size_t k = f * channel_count + c;
            dst[k] = tk_mul_add(g, src[k], dst[k]);
        }
    }
}

TK_AVX512 static void mix_add_pair_avx512(float *dst, const float *src, size_t frame_count, float gain_l, float gain_r) {
    const __m512 g = _mm512_setr_ps(gain_l, gain_r, gain_l, gain_r, gain_l, gain_r, gain_l, gain_r, gain_l, gain_r, gain_l, gain_r, gain_l,
                                    gain_r, gain_l, gain_r);
    const size_t count = 2 * frame_count;
    size_t i = 0;
    for (; i + 16 <= count; i += 16) _mm512_storeu_ps(dst + i, _mm512_add_ps(_mm512_mul_ps(g, _mm512_loadu_ps(src + i)), _mm512_loadu_ps(dst + i)));
    if (i < count) {
        // An even number of samples left: the lanes keep their left/right gains.
        const __mmask16 m = tail_mask(count - i);
        _mm512_mask_storeu_ps(dst + i, m, _mm512_add_ps(_mm512_mul_ps(g, _mm512_maskz_loadu_ps(m, src + i)), _mm512_maskz_loadu_ps(m, dst + i)));
    }
}

TK_AVX512 static void mix_add_sample_gains_avx512(float *dst, const float *src, const float *gains, size_t count) {
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        _mm512_storeu_ps(dst + i, _mm512_add_ps(_mm512_mul_ps(_mm512_loadu_ps(gains + i), _mm512_loadu_ps(src + i)), _mm512_loadu_ps(dst + i)));
    }
    if (i < count) {
        const __mmask16 m = tail_mask(count - i);
        const __m512 r = _mm512_add_ps(_mm512_mul_ps(_mm512_maskz_loadu_ps(m, gains + i), _mm512_maskz_loadu_ps(m, src + i)), _mm512_maskz_loadu_ps(m, dst + i));
        _mm512_mask_storeu_ps(dst + i, m, r);
    }
}

TK_DEFINE_MIX_SETTLED(mix_settled_avx512, TK_AVX512, add_avx512, mix_add_avx512, mix_add_pair_avx512, 3)

/// Sixteen lanes of |bits| at a time, the tail through a lane mask (masked-off lanes load 0:
/// neither a peak nor a clip).
TK_AVX512 static uint32_t meter_avx512(const float *samples, size_t count, uint32_t peak_bits, size_t *clipped) {
    const __m512i magnitude = _mm512_set1_epi32(0x7FFFFFFF);
    const __m512i one = _mm512_set1_epi32(0x3F800000);
    __m512i pa = _mm512_setzero_si512(), pb = _mm512_setzero_si512();
    size_t over = 0;
    size_t i = 0;
    for (; i + 32 <= count; i += 32) {
        const __m512i a = _mm512_and_si512(_mm512_loadu_si512(samples + i), magnitude);
        const __m512i b = _mm512_and_si512(_mm512_loadu_si512(samples + i + 16), magnitude);
        pa = _mm512_max_epi32(pa, a);
        pb = _mm512_max_epi32(pb, b);
        over += (size_t)__builtin_popcount((unsigned)_mm512_cmpgt_epi32_mask(a, one));
        over += (size_t)__builtin_popcount((unsigned)_mm512_cmpgt_epi32_mask(b, one));
    }
    for (; i < count; i += 16) {
        const __mmask16 m = tail_mask(count - i < 16 ? count - i : 16);
        const __m512i a = _mm512_and_si512(_mm512_maskz_loadu_epi32(m, samples + i), magnitude);
        pa = _mm512_max_epi32(pa, a);
        over += (size_t)__builtin_popcount((unsigned)_mm512_cmpgt_epi32_mask(a, one));
    }
    const uint32_t top = (uint32_t)_mm512_reduce_max_epi32(_mm512_max_epi32(pa, pb));
    *clipped += over;
    return top > peak_bits ? top : peak_bits;
}

/// Up to sixteen samples (lanes in `m`) to codes: the scalar steps, lane by lane.
TK_AVX512 static inline __m512i quantize16_avx512(const float *src, const float *dither, size_t i, __mmask16 m, __m512 scale,
                                                  __m512 min_code, __m512 max_code) {
    __m512 x = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, src + i), scale);
    x = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, x, _CMP_ORD_Q), x);  // NaN → 0
    if (dither) x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(m, dither + i));
    const __m512 sign = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32((int)0x80000000u)));
    const __m512 half = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(sign), _mm512_castps_si512(_mm512_set1_ps(0.5f))));
    x = _mm512_add_ps(x, half);
    x = _mm512_min_ps(_mm512_max_ps(x, min_code), max_code);
    return _mm512_cvttps_epi32(x);
}

TK_AVX512 static void quantize_s16_avx512(int16_t *dst, const float *src, const float *dither, size_t count) {
    const __m512 scale = _mm512_set1_ps(32768.0f), lo = _mm512_set1_ps(-32768.0f), hi = _mm512_set1_ps(32767.0f);
    for (size_t i = 0; i < count; i += 16) {
        const __mmask16 m = tail_mask(count - i < 16 ? count - i : 16);
        _mm512_mask_cvtepi32_storeu_epi16(dst + i, m, quantize16_avx512(src, dither, i, m, scale, lo, hi));
    }
}

TK_AVX512 static void quantize_s24_avx512(int32_t *dst, const float *src, const float *dither, size_t count) {
    const __m512 scale = _mm512_set1_ps(8388608.0f), lo = _mm512_set1_ps(-8388608.0f), hi = _mm512_set1_ps(8388607.0f);
    for (size_t i = 0; i < count; i += 16) {
        const __mmask16 m = tail_mask(count - i < 16 ? count - i : 16);
        _mm512_mask_storeu_epi32(dst + i, m, quantize16_avx512(src, dither, i, m, scale, lo, hi));
    }
}

TK_AVX512 static void quantize_s32_avx512(int32_t *dst, const float *src, const float *dither, size_t count, unsigned bits) {
    const float full = bits == 16 ? 32768.0f : 8388608.0f;
    const __m128i shift = _mm_cvtsi32_si128(bits == 16 ? 16 : 8);
    const __m512 scale = _mm512_set1_ps(full), lo = _mm512_set1_ps(-full), hi = _mm512_set1_ps(full - 1.0f);
    for (size_t i = 0; i < count; i += 16) {
        const __mmask16 m = tail_mask(count - i < 16 ? count - i : 16);
        _mm512_mask_storeu_epi32(dst + i, m, _mm512_sll_epi32(quantize16_avx512(src, dither, i, m, scale, lo, hi), shift));
    }
}

// The limiter's passes, sixteen frames per step (the scalar reference's sequence per lane:
// VMAXPS/VMINPS are a > b ? a : b and a < b ? a : b, the reference's selects); tails scalar.
TK_AVX512 static void limiter_needed_stereo_avx512(float *gains, const float *x, size_t frame_count, float ceiling) {
    const __m512i magnitude = _mm512_set1_epi32(0x7FFFFFFF);
    const __m512 c = _mm512_set1_ps(ceiling);
    const __m512 one = _mm512_set1_ps(1.0f);
    const __m512 zero = _mm512_setzero_ps();
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    size_t f = 0;
    for (; f + 16 <= frame_count; f += 16) {
        const __m512 a = _mm512_castsi512_ps(_mm512_and_epi32(_mm512_loadu_si512(x + 2 * f), magnitude));
        const __m512 b = _mm512_castsi512_ps(_mm512_and_epi32(_mm512_loadu_si512(x + 2 * f + 16), magnitude));
        const __m512 left = _mm512_permutex2var_ps(a, even, b);
        const __m512 right = _mm512_permutex2var_ps(a, odd, b);
        __m512 peak = _mm512_max_ps(left, zero);
        peak = _mm512_max_ps(right, peak);
        const __mmask16 over = _mm512_cmp_ps_mask(peak, c, _CMP_GT_OQ);
        _mm512_storeu_ps(gains + f, _mm512_mask_div_ps(one, over, c, peak));
    }
    tk_limiter_needed_stereo_ref(gains + f, x + 2 * f, frame_count - f, ceiling);
}

TK_AVX512 static float limiter_window_minima_avx512(float *minima, float *complement, float *stored, const float *needed,
                                                    const float *after, size_t count, float prefix) {
    const __m512 one = _mm512_set1_ps(1.0f);
    const __m512i by1 = _mm512_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14);
    const __m512i by2 = _mm512_setr_epi32(0, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13);
    const __m512i by4 = _mm512_setr_epi32(0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
    const __m512i by8 = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7);
    const __m512i last = _mm512_set1_epi32(15);
    __m512 carried = _mm512_set1_ps(prefix);
    size_t j = 0;
    for (; j + 16 <= count; j += 16) {
        __m512 v = _mm512_loadu_ps(needed + j);
        _mm512_storeu_ps(stored + j, v);
        // The running minimum inside the sixteen (lane i: the smallest of lanes 0…i; a lane
        // taken twice changes nothing).
        v = _mm512_min_ps(v, _mm512_permutexvar_ps(by1, v));
        v = _mm512_min_ps(v, _mm512_permutexvar_ps(by2, v));
        v = _mm512_min_ps(v, _mm512_permutexvar_ps(by4, v));
        v = _mm512_min_ps(v, _mm512_permutexvar_ps(by8, v));
        const __m512 group = _mm512_permutexvar_ps(last, v);
        v = _mm512_min_ps(v, carried);
        carried = _mm512_min_ps(carried, group);
        const __m512 m = _mm512_min_ps(_mm512_loadu_ps(after + j), v);
        _mm512_storeu_ps(minima + j, m);
        _mm512_storeu_ps(complement + j, _mm512_sub_ps(one, m));
    }
    return tk_limiter_window_minima_ref(minima + j, complement + j, stored + j, needed + j, after + j, count - j,
                                        _mm512_cvtss_f32(carried));
}

TK_AVX512 static void limiter_suffix_minima_avx512(float *suffix, const float *gains, size_t span) {
    const __m512i by1 = _mm512_setr_epi32(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 15);
    const __m512i by2 = _mm512_setr_epi32(2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 14, 15);
    const __m512i by4 = _mm512_setr_epi32(4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 12, 13, 14, 15);
    const __m512i by8 = _mm512_setr_epi32(8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i first = _mm512_setzero_si512();
    __m512 carried = _mm512_set1_ps(1.0f);
    size_t i = span;
    while (i >= 16) {
        i -= 16;
        __m512 v = _mm512_loadu_ps(gains + i);
        v = _mm512_min_ps(v, _mm512_permutexvar_ps(by1, v));
        v = _mm512_min_ps(v, _mm512_permutexvar_ps(by2, v));
        v = _mm512_min_ps(v, _mm512_permutexvar_ps(by4, v));
        v = _mm512_min_ps(v, _mm512_permutexvar_ps(by8, v));
        const __m512 group = _mm512_permutexvar_ps(first, v);
        v = _mm512_min_ps(v, carried);
        carried = _mm512_min_ps(carried, group);
        _mm512_storeu_ps(suffix + i, v);
    }
    (void)tk_limiter_suffix_minima_ref(suffix, gains, i, _mm512_cvtss_f32(carried));
}

TK_AVX512 static void limiter_apply_stereo_avx512(float *x, float *held, const float *gains, size_t frame_count, float ceiling) {
    const __m512 c = _mm512_set1_ps(ceiling);
    const __m512 nc = _mm512_set1_ps(-ceiling);
    const __m512 one = _mm512_set1_ps(1.0f);
    const __m512i low = _mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
    const __m512i high = _mm512_setr_epi32(8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15);
    size_t f = 0;
    for (; f + 16 <= frame_count; f += 16) {
        const __m512 g = _mm512_loadu_ps(gains + f);
        const __m512 gs[2] = {_mm512_permutexvar_ps(low, g), _mm512_permutexvar_ps(high, g)};
        for (int k = 0; k < 2; k++) {
            float *h = held + 2 * f + 16 * k;
            float *s = x + 2 * f + 16 * k;
            const __m512 hv = _mm512_loadu_ps(h);
            _mm512_storeu_ps(h, _mm512_loadu_ps(s));
            __m512 y = _mm512_mul_ps(hv, gs[k]);
            y = _mm512_min_ps(c, y);   // c < y ? c : y (a NaN stays)
            y = _mm512_max_ps(nc, y);  // −c > y ? −c : y
            _mm512_storeu_ps(s, _mm512_mask_blend_ps(_mm512_cmp_ps_mask(gs[k], one, _CMP_EQ_OQ), y, hv));
        }
    }
    tk_limiter_apply_stereo_ref(x + 2 * f, held + 2 * f, gains + f, frame_count - f, ceiling);
}

TK_AVX512 static float limiter_window_averages_avx512(float *gains, const float *entering, const float *leaving, size_t count,
                                                      double *sum, double span) {
    const __m512d spans = _mm512_set1_pd(span);
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m512i by1 = _mm512_setr_epi64(0, 0, 1, 2, 3, 4, 5, 6);
    const __m512i by2 = _mm512_setr_epi64(0, 0, 0, 1, 2, 3, 4, 5);
    const __m512i by4 = _mm512_setr_epi64(0, 0, 0, 0, 0, 1, 2, 3);
    const __m512i last = _mm512_set1_epi64(7);
    __m512d carried = _mm512_set1_pd(*sum);
    __m256 least = one;
    size_t k = 0;
    for (; k + 8 <= count; k += 8) {
        __m512d v = _mm512_sub_pd(_mm512_cvtps_pd(_mm256_loadu_ps(entering + k)), _mm512_cvtps_pd(_mm256_loadu_ps(leaving + k)));
        // Running sums within the eight (exact: the caller's condition; lanes below the
        // shift add 0), then the carry.
        v = _mm512_add_pd(v, _mm512_maskz_permutexvar_pd(0xFE, by1, v));
        v = _mm512_add_pd(v, _mm512_maskz_permutexvar_pd(0xFC, by2, v));
        v = _mm512_add_pd(v, _mm512_maskz_permutexvar_pd(0xF0, by4, v));
        v = _mm512_add_pd(v, carried);
        carried = _mm512_permutexvar_pd(last, v);
        const __m256 g = _mm256_min_ps(_mm512_cvtpd_ps(_mm512_div_pd(v, spans)), one);  // q < 1 ? q : 1
        _mm256_storeu_ps(gains + k, g);
        least = _mm256_min_ps(g, least);
    }
    double s = _mm512_cvtsd_f64(carried);
    float smallest = tk_limiter_window_averages_ref(gains + k, entering + k, leaving + k, count - k, &s, span);
    float lanes[8];
    _mm256_storeu_ps(lanes, least);
    for (int i = 0; i < 8; i++) smallest = lanes[i] < smallest ? lanes[i] : smallest;
    *sum = s;
    return smallest;
}

// The tone: tk_sine_of_frame in eight lanes, operation for operation (the floor's correction
// a masked subtraction of 1, the folds masked blends, the negation flips the sign bit).
TK_AVX512 static inline __m512d sine_of_frames_avx512(__m512d n, __m512d cycles) {
    const __m512d magic = _mm512_set1_pd(TK_ROUND_MAGIC);
    const __m512d pi = _mm512_set1_pd(TK_PI);
    const __m512d c = _mm512_mul_pd(n, cycles);
    __m512d t = _mm512_sub_pd(_mm512_add_pd(c, magic), magic);
    t = _mm512_mask_sub_pd(t, _mm512_cmp_pd_mask(t, c, _CMP_GT_OQ), t, _mm512_set1_pd(1.0));
    __m512d x = _mm512_sub_pd(_mm512_mul_pd(_mm512_sub_pd(c, t), _mm512_set1_pd(TK_TWO_PI)), pi);
    const __mmask8 above = _mm512_cmp_pd_mask(x, _mm512_set1_pd(TK_HALF_PI), _CMP_GT_OQ);
    const __mmask8 below = _mm512_cmp_pd_mask(x, _mm512_set1_pd(-TK_HALF_PI), _CMP_LT_OQ);
    const __m512d folded_above = _mm512_sub_pd(pi, x);
    const __m512d folded_below = _mm512_sub_pd(_mm512_set1_pd(-TK_PI), x);
    x = _mm512_mask_blend_pd(below, x, folded_below);
    x = _mm512_mask_blend_pd(above, x, folded_above);
    const __m512d x2 = _mm512_mul_pd(x, x);
    __m512d r = _mm512_set1_pd(TK_SINE_C15);
    r = _mm512_add_pd(_mm512_mul_pd(r, x2), _mm512_set1_pd(TK_SINE_C13));
    r = _mm512_add_pd(_mm512_mul_pd(r, x2), _mm512_set1_pd(TK_SINE_C11));
    r = _mm512_add_pd(_mm512_mul_pd(r, x2), _mm512_set1_pd(TK_SINE_C9));
    r = _mm512_add_pd(_mm512_mul_pd(r, x2), _mm512_set1_pd(TK_SINE_C7));
    r = _mm512_add_pd(_mm512_mul_pd(r, x2), _mm512_set1_pd(TK_SINE_C5));
    r = _mm512_add_pd(_mm512_mul_pd(r, x2), _mm512_set1_pd(TK_SINE_C3));
    r = _mm512_add_pd(_mm512_mul_pd(r, x2), _mm512_set1_pd(1.0));
    // The sign flip as an integer xor (AVX-512F has no double xor without DQ).
    const __m512i sign = _mm512_set1_epi64((long long)0x8000000000000000ULL);
    return _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(_mm512_mul_pd(r, x)), sign));
}

TK_AVX512 static void sine_avx512(float *dst, size_t frame_count, size_t channel_count, int64_t first_frame,
                                  double cycles_per_frame, float amplitude) {
    const __m512d cycles = _mm512_set1_pd(cycles_per_frame);
    const __m256 amp = _mm256_set1_ps(amplitude);
    const __m512d step = _mm512_set1_pd(8.0);
    const __m256i left = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
    const __m256i right = _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7);
    // Frame indices as doubles: integers below 2^53, so every add is exact.
    __m512d n = _mm512_add_pd(_mm512_set1_pd((double)first_frame), _mm512_setr_pd(0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0));
    size_t f = 0;
    for (; f + 8 <= frame_count; f += 8) {
        const __m256 v = _mm256_mul_ps(amp, _mm512_cvtpd_ps(sine_of_frames_avx512(n, cycles)));
        if (channel_count == 1) {
            _mm256_storeu_ps(dst + f, v);
        } else if (channel_count == 2) {
            _mm256_storeu_ps(dst + 2 * f, _mm256_permutevar8x32_ps(v, left));
            _mm256_storeu_ps(dst + 2 * f + 8, _mm256_permutevar8x32_ps(v, right));
        } else {
            float eight[8];
            _mm256_storeu_ps(eight, v);
            tk_spread_frames(dst + f * channel_count, eight, 8, channel_count);
        }
        n = _mm512_add_pd(n, step);
    }
    tk_sine_ref(dst, f, frame_count, channel_count, first_frame, cycles_per_frame, amplitude);
}

const tk_kernels tk_avx512_kernels = {
    .add = add_avx512,
    .mix_add = mix_add_avx512,
    .mix_add_gains = mix_add_gains_avx512,
    .mix_add_pair = mix_add_pair_avx512,
    .mix_add_sample_gains = mix_add_sample_gains_avx512,
    .mix_settled = mix_settled_avx512,
    .meter = meter_avx512,
    .quantize_s16 = quantize_s16_avx512,
    .quantize_s24 = quantize_s24_avx512,
    .quantize_s32 = quantize_s32_avx512,
    .limiter_needed_stereo = limiter_needed_stereo_avx512,
    .limiter_window_minima = limiter_window_minima_avx512,
    .limiter_suffix_minima = limiter_suffix_minima_avx512,
    .limiter_apply_stereo = limiter_apply_stereo_avx512,
    .limiter_window_averages = limiter_window_averages_avx512,
    .sine = sine_avx512,
};
#endif
