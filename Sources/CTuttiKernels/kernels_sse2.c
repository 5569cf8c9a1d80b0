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

const tk_kernels tk_sse2_kernels = {
    .name = "sse2",
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
};
#endif
