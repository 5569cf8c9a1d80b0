// The scalar reference of every kernel: plain loops, no fused multiply-add (FP_CONTRACT OFF),
// so each output is exactly round(round(g·src) + dst) as in TuttiDSP's Swift references.
#include "internal.h"

#pragma STDC FP_CONTRACT OFF

static void add_scalar(float *dst, const float *src, size_t count) {
    for (size_t i = 0; i < count; i++) dst[i] += src[i];
}

static void mix_add_scalar(float *dst, const float *src, size_t count, float gain) {
    for (size_t i = 0; i < count; i++) {
        float p = gain * src[i];
        dst[i] += p;
    }
}

static void mix_add_gains_scalar(float *dst, const float *src, const float *gains, size_t frame_count, size_t channel_count) {
    for (size_t f = 0; f < frame_count; f++) {
        const float g = gains[f];
        for (size_t c = 0; c < channel_count; c++) {
            float p = g * src[f * channel_count + c];
            dst[f * channel_count + c] += p;
        }
    }
}

static void mix_add_pair_scalar(float *dst, const float *src, size_t frame_count, float gain_l, float gain_r) {
    for (size_t f = 0; f < frame_count; f++) {
        float l = gain_l * src[2 * f];
        float r = gain_r * src[2 * f + 1];
        dst[2 * f] += l;
        dst[2 * f + 1] += r;
    }
}

static void mix_add_sample_gains_scalar(float *dst, const float *src, const float *gains, size_t count) {
    for (size_t i = 0; i < count; i++) {
        float p = gains[i] * src[i];
        dst[i] += p;
    }
}

TK_DEFINE_MIX_SETTLED(mix_settled_scalar, , add_scalar, mix_add_scalar, mix_add_pair_scalar, 0)

static uint32_t meter_scalar(const float *samples, size_t count, uint32_t peak_bits, size_t *clipped) {
    size_t over = 0;
    for (size_t i = 0; i < count; i++) {
        const uint32_t bits = tk_meter_bits(samples[i]);
        if (bits > peak_bits) peak_bits = bits;
        over += bits > 0x3F800000u;
    }
    *clipped += over;
    return peak_bits;
}

static void quantize_s16_scalar(int16_t *dst, const float *src, const float *dither, size_t count) {
    for (size_t i = 0; i < count; i++) dst[i] = (int16_t)tk_quantize_one(src[i], dither, i, 32768.0f);
}

static void quantize_s24_scalar(int32_t *dst, const float *src, const float *dither, size_t count) {
    for (size_t i = 0; i < count; i++) dst[i] = tk_quantize_one(src[i], dither, i, 8388608.0f);
}

static void quantize_s32_scalar(int32_t *dst, const float *src, const float *dither, size_t count, unsigned bits) {
    const float scale = bits == 16 ? 32768.0f : 8388608.0f;
    const unsigned shift = 32u - (bits == 16 ? 16u : 24u);
    for (size_t i = 0; i < count; i++) dst[i] = (int32_t)((uint32_t)tk_quantize_one(src[i], dither, i, scale) << shift);
}

const tk_kernels tk_scalar_kernels = {
    .name = "scalar",
    .add = add_scalar,
    .mix_add = mix_add_scalar,
    .mix_add_gains = mix_add_gains_scalar,
    .mix_add_pair = mix_add_pair_scalar,
    .mix_add_sample_gains = mix_add_sample_gains_scalar,
    .mix_settled = mix_settled_scalar,
    .meter = meter_scalar,
    .quantize_s16 = quantize_s16_scalar,
    .quantize_s24 = quantize_s24_scalar,
    .quantize_s32 = quantize_s32_scalar,
};
