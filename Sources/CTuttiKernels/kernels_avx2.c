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

const tk_kernels tk_avx2_kernels = {
    .name = "avx2",
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
};
#endif
