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

const tk_kernels tk_avx512_kernels = {
    .name = "avx512",
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
};
#endif
