// AVX2 variants: 8 floats per step. The mix kernels multiply then add (two roundings, no
// fused multiply-add: tk_mul_add in the tails), so every kernel is bit-identical to the
// scalar reference and a sample's result never depends on where a block starts or ends.
#include "internal.h"

#ifdef TK_HAVE_X86
#include <immintrin.h>

#define TK_AVX2 __attribute__((target("avx2")))

TK_AVX2 static void add_avx2(float *dst, const float *src, size_t count) {
    size_t i = 0;
    for (; i + 32 <= count; i += 32) {
        __m256 a = _mm256_add_ps(_mm256_loadu_ps(dst + i), _mm256_loadu_ps(src + i));
        __m256 b = _mm256_add_ps(_mm256_loadu_ps(dst + i + 8), _mm256_loadu_ps(src + i + 8));
        __m256 c = _mm256_add_ps(_mm256_loadu_ps(dst + i + 16), _mm256_loadu_ps(src + i + 16));
        __m256 d = _mm256_add_ps(_mm256_loadu_ps(dst + i + 24), _mm256_loadu_ps(src + i + 24));
        _mm256_storeu_ps(dst + i, a);
        _mm256_storeu_ps(dst + i + 8, b);
        _mm256_storeu_ps(dst + i + 16, c);
        _mm256_storeu_ps(dst + i + 24, d);
    }
    for (; i + 8 <= count; i += 8) _mm256_storeu_ps(dst + i, _mm256_add_ps(_mm256_loadu_ps(dst + i), _mm256_loadu_ps(src + i)));
    for (; i < count; i++) dst[i] += src[i];
}

TK_AVX2 static void mix_add_avx2(float *dst, const float *src, size_t count, float gain) {
    const __m256 g = _mm256_set1_ps(gain);
    size_t i = 0;
    for (; i + 32 <= count; i += 32) {
        __m256 a = _mm256_add_ps(_mm256_mul_ps(g, _mm256_loadu_ps(src + i)), _mm256_loadu_ps(dst + i));
        __m256 b = _mm256_add_ps(_mm256_mul_ps(g, _mm256_loadu_ps(src + i + 8)), _mm256_loadu_ps(dst + i + 8));
        __m256 c = _mm256_add_ps(_mm256_mul_ps(g, _mm256_loadu_ps(src + i + 16)), _mm256_loadu_ps(dst + i + 16));
        __m256 d = _mm256_add_ps(_mm256_mul_ps(g, _mm256_loadu_ps(src + i + 24)), _mm256_loadu_ps(dst + i + 24));
        _mm256_storeu_ps(dst + i, a);
        _mm256_storeu_ps(dst + i + 8, b);
        _mm256_storeu_ps(dst + i + 16, c);
        _mm256_storeu_ps(dst + i + 24, d);
    }
    for (; i + 8 <= count; i += 8) {
        _mm256_storeu_ps(dst + i, _mm256_add_ps(_mm256_mul_ps(g, _mm256_loadu_ps(src + i)), _mm256_loadu_ps(dst + i)));
    }
    for (; i < count; i++) dst[i] = tk_mul_add(gain, src[i], dst[i]);
}

TK_AVX2 static void mix_add_gains_avx2(float *dst, const float *src, const float *gains, size_t frame_count, size_t channel_count) {
    size_t f = 0;
    if (channel_count == 1) {
        for (; f + 8 <= frame_count; f += 8) {
            _mm256_storeu_ps(dst + f, _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(gains + f), _mm256_loadu_ps(src + f)), _mm256_loadu_ps(dst + f)));
        }
    } else if (channel_count == 2) {
        const __m256i pairs = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
        for (; f + 8 <= frame_count; f += 8) {
            // Eight frames: each gain twice (left, right), four frames per vector.
            const __m256 g8 = _mm256_loadu_ps(gains + f);
            const __m256 lo = _mm256_permutevar8x32_ps(g8, pairs);
            const __m256 hi = _mm256_permutevar8x32_ps(_mm256_permute2f128_ps(g8, g8, 0x11), pairs);
            float *d = dst + 2 * f;
            const float *s = src + 2 * f;
            _mm256_storeu_ps(d, _mm256_add_ps(_mm256_mul_ps(lo, _mm256_loadu_ps(s)), _mm256_loadu_ps(d)));
            _mm256_storeu_ps(d + 8, _mm256_add_ps(_mm256_mul_ps(hi, _mm256_loadu_ps(s + 8)), _mm256_loadu_ps(d + 8)));
        }
    }
    for (; f < frame_count; f++) {
        const float g = gains[f];
        for (size_t c = 0; c < channel_count; c++) dst[f * channel_count + c] = tk_mul_add(g, src[f * channel_count + c], dst[f * channel_count + c]);
    }
}

TK_AVX2 static void mix_add_pair_avx2(float *dst, const float *src, size_t frame_count, float gain_l, float gain_r) {
    const __m256 g = _mm256_setr_ps(gain_l, gain_r, gain_l, gain_r, gain_l, gain_r, gain_l, gain_r);
    const size_t count = 2 * frame_count;
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        __m256 a = _mm256_add_ps(_mm256_mul_ps(g, _mm256_loadu_ps(src + i)), _mm256_loadu_ps(dst + i));
        __m256 b = _mm256_add_ps(_mm256_mul_ps(g, _mm256_loadu_ps(src + i + 8)), _mm256_loadu_ps(dst + i + 8));
        _mm256_storeu_ps(dst + i, a);
        _mm256_storeu_ps(dst + i + 8, b);
    }
    for (; i + 8 <= count; i += 8) _mm256_storeu_ps(dst + i, _mm256_add_ps(_mm256_mul_ps(g, _mm256_loadu_ps(src + i)), _mm256_loadu_ps(dst + i)));
    for (; i < count; i += 2) {
        dst[i] = tk_mul_add(gain_l, src[i], dst[i]);
        dst[i + 1] = tk_mul_add(gain_r, src[i + 1], dst[i + 1]);
    }
}

TK_AVX2 static void mix_add_sample_gains_avx2(float *dst, const float *src, const float *gains, size_t count) {
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        __m256 a = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(gains + i), _mm256_loadu_ps(src + i)), _mm256_loadu_ps(dst + i));
        __m256 b = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(gains + i + 8), _mm256_loadu_ps(src + i + 8)), _mm256_loadu_ps(dst + i + 8));
        _mm256_storeu_ps(dst + i, a);
        _mm256_storeu_ps(dst + i + 8, b);
    }
    for (; i + 8 <= count; i += 8) {
        _mm256_storeu_ps(dst + i, _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(gains + i), _mm256_loadu_ps(src + i)), _mm256_loadu_ps(dst + i)));
    }
    for (; i < count; i++) dst[i] = tk_mul_add(gains[i], src[i], dst[i]);
}

TK_DEFINE_MIX_SETTLED(mix_settled_avx2, TK_AVX2, add_avx2, mix_add_avx2, mix_add_pair_avx2, 0)

/// Eight lanes of |bits| at a time, two vectors per step (non-negative lanes: the signed max
/// and compare order them as unsigned).
TK_AVX2 static uint32_t meter_avx2(const float *samples, size_t count, uint32_t peak_bits, size_t *clipped) {
    size_t i = 0;
    size_t over = 0;
    if (count >= 8) {
        const __m256i magnitude = _mm256_set1_epi32(0x7FFFFFFF);
        const __m256i one = _mm256_set1_epi32(0x3F800000);
        __m256i pa = _mm256_setzero_si256(), pb = _mm256_setzero_si256();
        __m256i ca = _mm256_setzero_si256(), cb = _mm256_setzero_si256();
        for (; i + 16 <= count; i += 16) {
            const __m256i a = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(samples + i)), magnitude);
            const __m256i b = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(samples + i + 8)), magnitude);
            pa = _mm256_max_epi32(pa, a);
            pb = _mm256_max_epi32(pb, b);
            ca = _mm256_sub_epi32(ca, _mm256_cmpgt_epi32(a, one));
            cb = _mm256_sub_epi32(cb, _mm256_cmpgt_epi32(b, one));
        }
        for (; i + 8 <= count; i += 8) {
            const __m256i a = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(samples + i)), magnitude);
            pa = _mm256_max_epi32(pa, a);
            ca = _mm256_sub_epi32(ca, _mm256_cmpgt_epi32(a, one));
        }
        uint32_t p[8], c[8];
        _mm256_storeu_si256((__m256i *)p, _mm256_max_epi32(pa, pb));
        _mm256_storeu_si256((__m256i *)c, _mm256_add_epi32(ca, cb));
        for (int l = 0; l < 8; l++) {
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

/// Eight samples to codes (int32 lanes): the scalar steps, lane by lane.
TK_AVX2 static inline __m256i quantize8_avx2(const float *src, const float *dither, size_t i, __m256 scale, __m256 min_code,
                                             __m256 max_code) {
    __m256 x = _mm256_mul_ps(_mm256_loadu_ps(src + i), scale);
    x = _mm256_and_ps(x, _mm256_cmp_ps(x, x, _CMP_ORD_Q));  // NaN → 0
    if (dither) x = _mm256_add_ps(x, _mm256_loadu_ps(dither + i));
    const __m256 half = _mm256_or_ps(_mm256_and_ps(x, _mm256_set1_ps(-0.0f)), _mm256_set1_ps(0.5f));
    x = _mm256_add_ps(x, half);
    x = _mm256_min_ps(_mm256_max_ps(x, min_code), max_code);
    return _mm256_cvttps_epi32(x);
}

TK_AVX2 static void quantize_s16_avx2(int16_t *dst, const float *src, const float *dither, size_t count) {
    const __m256 scale = _mm256_set1_ps(32768.0f), lo = _mm256_set1_ps(-32768.0f), hi = _mm256_set1_ps(32767.0f);
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        __m256i a = quantize8_avx2(src, dither, i, scale, lo, hi);
        __m256i b = quantize8_avx2(src, dither, i + 8, scale, lo, hi);
        // packs works per 128-bit lane: a0 b0 a1 b1 → reorder the 64-bit quarters.
        __m256i p = _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xD8);
        _mm256_storeu_si256((__m256i *)(dst + i), p);
    }
    for (; i < count; i++) dst[i] = (int16_t)tk_quantize_one(src[i], dither, i, 32768.0f);
}

TK_AVX2 static void quantize_s24_avx2(int32_t *dst, const float *src, const float *dither, size_t count) {
    const __m256 scale = _mm256_set1_ps(8388608.0f), lo = _mm256_set1_ps(-8388608.0f), hi = _mm256_set1_ps(8388607.0f);
    size_t i = 0;
    for (; i + 8 <= count; i += 8) _mm256_storeu_si256((__m256i *)(dst + i), quantize8_avx2(src, dither, i, scale, lo, hi));
    for (; i < count; i++) dst[i] = tk_quantize_one(src[i], dither, i, 8388608.0f);
}

TK_AVX2 static void quantize_s32_avx2(int32_t *dst, const float *src, const float *dither, size_t count, unsigned bits) {
    const float full = bits == 16 ? 32768.0f : 8388608.0f;
    const int shift = bits == 16 ? 16 : 8;
    const __m256 scale = _mm256_set1_ps(full), lo = _mm256_set1_ps(-full), hi = _mm256_set1_ps(full - 1.0f);
    const __m128i sh = _mm_cvtsi32_si128(shift);
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        _mm256_storeu_si256((__m256i *)(dst + i), _mm256_sll_epi32(quantize8_avx2(src, dither, i, scale, lo, hi), sh));
    }
    for (; i < count; i++) dst[i] = (int32_t)((uint32_t)tk_quantize_one(src[i], dither, i, full) << shift);
}

// The limiter's passes, eight frames per step (the scalar reference's sequence per lane:
// VMAXPS/VMINPS are a > b ? a : b and a < b ? a : b, the reference's selects).
TK_AVX2 static void limiter_needed_stereo_avx2(float *gains, const float *x, size_t frame_count, float ceiling) {
    const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    const __m256 c = _mm256_set1_ps(ceiling);
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256 zero = _mm256_setzero_ps();
    size_t f = 0;
    for (; f + 8 <= frame_count; f += 8) {
        const __m256 a = _mm256_and_ps(_mm256_loadu_ps(x + 2 * f), magnitude);
        const __m256 b = _mm256_and_ps(_mm256_loadu_ps(x + 2 * f + 8), magnitude);
        // Frames in the order 0 1 4 5 2 3 6 7 (per 128-bit half), put back in order below.
        const __m256 left = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
        const __m256 right = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
        __m256 peak = _mm256_max_ps(left, zero);
        peak = _mm256_max_ps(right, peak);
        const __m256 over = _mm256_cmp_ps(peak, c, _CMP_GT_OQ);
        const __m256 needed = _mm256_blendv_ps(one, _mm256_div_ps(c, peak), over);
        _mm256_storeu_ps(gains + f, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(needed), _MM_SHUFFLE(3, 1, 2, 0))));
    }
    tk_limiter_needed_stereo_ref(gains + f, x + 2 * f, frame_count - f, ceiling);
}

TK_AVX2 static float limiter_window_minima_avx2(float *minima, float *complement, float *stored, const float *needed,
                                                const float *after, size_t count, float prefix) {
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256i by1 = _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6);
    const __m256i by2 = _mm256_setr_epi32(0, 1, 0, 1, 2, 3, 4, 5);
    const __m256i by4 = _mm256_setr_epi32(0, 1, 2, 3, 0, 1, 2, 3);
    const __m256i last = _mm256_set1_epi32(7);
    __m256 carried = _mm256_set1_ps(prefix);
    size_t j = 0;
    for (; j + 8 <= count; j += 8) {
        __m256 v = _mm256_loadu_ps(needed + j);
        _mm256_storeu_ps(stored + j, v);
        // The running minimum inside the eight (lane i: the smallest of lanes 0…i; a lane
        // taken twice changes nothing).
        v = _mm256_min_ps(v, _mm256_permutevar8x32_ps(v, by1));
        v = _mm256_min_ps(v, _mm256_permutevar8x32_ps(v, by2));
        v = _mm256_min_ps(v, _mm256_permutevar8x32_ps(v, by4));
        const __m256 group = _mm256_permutevar8x32_ps(v, last);
        v = _mm256_min_ps(v, carried);
        carried = _mm256_min_ps(carried, group);
        const __m256 m = _mm256_min_ps(_mm256_loadu_ps(after + j), v);
        _mm256_storeu_ps(minima + j, m);
        _mm256_storeu_ps(complement + j, _mm256_sub_ps(one, m));
    }
    return tk_limiter_window_minima_ref(minima + j, complement + j, stored + j, needed + j, after + j, count - j,
                                        _mm256_cvtss_f32(carried));
}

TK_AVX2 static void limiter_suffix_minima_avx2(float *suffix, const float *gains, size_t span) {
    const __m256i by1 = _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 7);
    const __m256i by2 = _mm256_setr_epi32(2, 3, 4, 5, 6, 7, 6, 7);
    const __m256i by4 = _mm256_setr_epi32(4, 5, 6, 7, 4, 5, 6, 7);
    const __m256i first = _mm256_setzero_si256();
    __m256 carried = _mm256_set1_ps(1.0f);
    size_t i = span;
    while (i >= 8) {
        i -= 8;
        __m256 v = _mm256_loadu_ps(gains + i);
        v = _mm256_min_ps(v, _mm256_permutevar8x32_ps(v, by1));
        v = _mm256_min_ps(v, _mm256_permutevar8x32_ps(v, by2));
        v = _mm256_min_ps(v, _mm256_permutevar8x32_ps(v, by4));
        const __m256 group = _mm256_permutevar8x32_ps(v, first);
        v = _mm256_min_ps(v, carried);
        carried = _mm256_min_ps(carried, group);
        _mm256_storeu_ps(suffix + i, v);
    }
    (void)tk_limiter_suffix_minima_ref(suffix, gains, i, _mm256_cvtss_f32(carried));
}

TK_AVX2 static void limiter_apply_stereo_avx2(float *x, float *held, const float *gains, size_t frame_count, float ceiling) {
    const __m256 c = _mm256_set1_ps(ceiling);
    const __m256 nc = _mm256_set1_ps(-ceiling);
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256i low = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
    const __m256i high = _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7);
    size_t f = 0;
    for (; f + 8 <= frame_count; f += 8) {
        const __m256 g = _mm256_loadu_ps(gains + f);
        const __m256 gs[2] = {_mm256_permutevar8x32_ps(g, low), _mm256_permutevar8x32_ps(g, high)};
        for (int k = 0; k < 2; k++) {
            float *h = held + 2 * f + 8 * k;
            float *s = x + 2 * f + 8 * k;
            const __m256 hv = _mm256_loadu_ps(h);
            _mm256_storeu_ps(h, _mm256_loadu_ps(s));
            __m256 y = _mm256_mul_ps(hv, gs[k]);
            y = _mm256_min_ps(c, y);   // c < y ? c : y (a NaN stays)
            y = _mm256_max_ps(nc, y);  // −c > y ? −c : y
            _mm256_storeu_ps(s, _mm256_blendv_ps(y, hv, _mm256_cmp_ps(gs[k], one, _CMP_EQ_OQ)));
        }
    }
    tk_limiter_apply_stereo_ref(x + 2 * f, held + 2 * f, gains + f, frame_count - f, ceiling);
}

TK_AVX2 static float limiter_window_averages_avx2(float *gains, const float *entering, const float *leaving, size_t count, double *sum,
                                                  double span) {
    const __m256d spans = _mm256_set1_pd(span);
    const __m256d zero = _mm256_setzero_pd();
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256d carried = _mm256_set1_pd(*sum);
    __m256 least = one;
    size_t k = 0;
    for (; k + 8 <= count; k += 8) {
        const __m256 e = _mm256_loadu_ps(entering + k);
        const __m256 l = _mm256_loadu_ps(leaving + k);
        __m256d d[2] = {
            _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(e)), _mm256_cvtps_pd(_mm256_castps256_ps128(l))),
            _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(e, 1)), _mm256_cvtps_pd(_mm256_extractf128_ps(l, 1))),
        };
        __m128 q[2];
        for (int h = 0; h < 2; h++) {
            // Running sums within the four (exact: the caller's condition), then the carry.
            __m256d v = d[h];
            v = _mm256_add_pd(v, _mm256_blend_pd(_mm256_permute4x64_pd(v, _MM_SHUFFLE(2, 1, 0, 0)), zero, 0x1));
            v = _mm256_add_pd(v, _mm256_permute2f128_pd(v, v, 0x08));
            v = _mm256_add_pd(v, carried);
            carried = _mm256_permute4x64_pd(v, _MM_SHUFFLE(3, 3, 3, 3));
            q[h] = _mm256_cvtpd_ps(_mm256_div_pd(v, spans));
        }
        const __m256 g = _mm256_min_ps(_mm256_insertf128_ps(_mm256_castps128_ps256(q[0]), q[1], 1), one);  // q < 1 ? q : 1
        _mm256_storeu_ps(gains + k, g);
        least = _mm256_min_ps(g, least);
    }
    double s = _mm256_cvtsd_f64(carried);
    float smallest = tk_limiter_window_averages_ref(gains + k, entering + k, leaving + k, count - k, &s, span);
    float lanes[8];
    _mm256_storeu_ps(lanes, least);
    for (int i = 0; i < 8; i++) smallest = lanes[i] < smallest ? lanes[i] : smallest;
    *sum = s;
    return smallest;
}

// The tone: tk_sine_of_frame in four lanes, operation for operation (the floor's correction
// subtracts 1 or 0, the folds are blends, the negation flips the sign bit).
TK_AVX2 static inline __m256d sine_of_frames_avx2(__m256d n, __m256d cycles) {
    const __m256d magic = _mm256_set1_pd(TK_ROUND_MAGIC);
    const __m256d pi = _mm256_set1_pd(TK_PI);
    const __m256d c = _mm256_mul_pd(n, cycles);
    __m256d t = _mm256_sub_pd(_mm256_add_pd(c, magic), magic);
    t = _mm256_sub_pd(t, _mm256_and_pd(_mm256_cmp_pd(t, c, _CMP_GT_OQ), _mm256_set1_pd(1.0)));
    __m256d x = _mm256_sub_pd(_mm256_mul_pd(_mm256_sub_pd(c, t), _mm256_set1_pd(TK_TWO_PI)), pi);
    const __m256d above = _mm256_cmp_pd(x, _mm256_set1_pd(TK_HALF_PI), _CMP_GT_OQ);
    const __m256d below = _mm256_cmp_pd(x, _mm256_set1_pd(-TK_HALF_PI), _CMP_LT_OQ);
    const __m256d folded_above = _mm256_sub_pd(pi, x);
    const __m256d folded_below = _mm256_sub_pd(_mm256_set1_pd(-TK_PI), x);
    x = _mm256_blendv_pd(x, folded_below, below);
    x = _mm256_blendv_pd(x, folded_above, above);
    const __m256d x2 = _mm256_mul_pd(x, x);
    __m256d r = _mm256_set1_pd(TK_SINE_C15);
    r = _mm256_add_pd(_mm256_mul_pd(r, x2), _mm256_set1_pd(TK_SINE_C13));
    r = _mm256_add_pd(_mm256_mul_pd(r, x2), _mm256_set1_pd(TK_SINE_C11));
    r = _mm256_add_pd(_mm256_mul_pd(r, x2), _mm256_set1_pd(TK_SINE_C9));
    r = _mm256_add_pd(_mm256_mul_pd(r, x2), _mm256_set1_pd(TK_SINE_C7));
    r = _mm256_add_pd(_mm256_mul_pd(r, x2), _mm256_set1_pd(TK_SINE_C5));
    r = _mm256_add_pd(_mm256_mul_pd(r, x2), _mm256_set1_pd(TK_SINE_C3));
    r = _mm256_add_pd(_mm256_mul_pd(r, x2), _mm256_set1_pd(1.0));
    return _mm256_xor_pd(_mm256_mul_pd(r, x), _mm256_set1_pd(-0.0));
}

/// Eight frames' values (float) into `channel_count`-channel interleaved frames at `dst`.
TK_AVX2 static inline void store_frames8_avx2(float *dst, __m256 v, size_t channel_count) {
    if (channel_count == 1) {
        _mm256_storeu_ps(dst, v);
    } else if (channel_count == 2) {
        _mm256_storeu_ps(dst, _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3)));
        _mm256_storeu_ps(dst + 8, _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7)));
    } else {
        float eight[8];
        _mm256_storeu_ps(eight, v);
        tk_spread_frames(dst, eight, 8, channel_count);
    }
}

TK_AVX2 static void sine_avx2(float *dst, size_t frame_count, size_t channel_count, int64_t first_frame, double cycles_per_frame,
                              float amplitude) {
    const __m256d cycles = _mm256_set1_pd(cycles_per_frame);
    const __m256 amp = _mm256_set1_ps(amplitude);
    const __m256d step = _mm256_set1_pd(8.0);
    // Frame indices as doubles: integers below 2^53, so every add is exact.
    __m256d n0 = _mm256_add_pd(_mm256_set1_pd((double)first_frame), _mm256_setr_pd(0.0, 1.0, 2.0, 3.0));
    __m256d n4 = _mm256_add_pd(n0, _mm256_set1_pd(4.0));
    size_t f = 0;
    for (; f + 8 <= frame_count; f += 8) {
        const __m128 lo = _mm256_cvtpd_ps(sine_of_frames_avx2(n0, cycles));
        const __m128 hi = _mm256_cvtpd_ps(sine_of_frames_avx2(n4, cycles));
        const __m256 v = _mm256_mul_ps(amp, _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1));
        store_frames8_avx2(dst + f * channel_count, v, channel_count);
        n0 = _mm256_add_pd(n0, step);
        n4 = _mm256_add_pd(n4, step);
    }
    tk_sine_ref(dst, f, frame_count, channel_count, first_frame, cycles_per_frame, amplitude);
}

const tk_kernels tk_avx2_kernels = {
    .add = add_avx2,
    .mix_add = mix_add_avx2,
    .mix_add_gains = mix_add_gains_avx2,
    .mix_add_pair = mix_add_pair_avx2,
    .mix_add_sample_gains = mix_add_sample_gains_avx2,
    .mix_settled = mix_settled_avx2,
    .meter = meter_avx2,
    .quantize_s16 = quantize_s16_avx2,
    .quantize_s24 = quantize_s24_avx2,
    .quantize_s32 = quantize_s32_avx2,
    .limiter_needed_stereo = limiter_needed_stereo_avx2,
    .limiter_window_minima = limiter_window_minima_avx2,
    .limiter_suffix_minima = limiter_suffix_minima_avx2,
    .limiter_apply_stereo = limiter_apply_stereo_avx2,
    .limiter_window_averages = limiter_window_averages_avx2,
    .sine = sine_avx2,
};
#endif
