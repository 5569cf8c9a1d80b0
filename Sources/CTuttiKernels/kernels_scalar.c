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

static void limiter_needed_stereo_scalar(float *gains, const float *x, size_t frame_count, float ceiling) {
    tk_limiter_needed_stereo_ref(gains, x, frame_count, ceiling);
}

static float limiter_window_minima_scalar(float *minima, float *complement, float *stored, const float *needed, const float *after,
                                          size_t count, float prefix) {
    return tk_limiter_window_minima_ref(minima, complement, stored, needed, after, count, prefix);
}

static void limiter_suffix_minima_scalar(float *suffix, const float *gains, size_t span) {
    (void)tk_limiter_suffix_minima_ref(suffix, gains, span, 1.0f);
}

static void limiter_apply_stereo_scalar(float *x, float *held, const float *gains, size_t frame_count, float ceiling) {
    tk_limiter_apply_stereo_ref(x, held, gains, frame_count, ceiling);
}

static float limiter_window_averages_scalar(float *gains, const float *entering, const float *leaving, size_t count, double *sum,
                                            double span) {
    return tk_limiter_window_averages_ref(gains, entering, leaving, count, sum, span);
}

const tk_kernels tk_scalar_kernels = {
    .name = "scalar",
    .add = add_scalar,
    .mix_add = mix_add_scalar,
    .mix_add_gains = mix_add_gains_scalar,
    .mix_add_pair = mix_add_pair_scalar,
    .mix_add_sample_gains = mix_add_sample_gains_scalar,
    .quantize_s16 = quantize_s16_scalar,
    .quantize_s24 = quantize_s24_scalar,
    .quantize_s32 = quantize_s32_scalar,
    .limiter_needed_stereo = limiter_needed_stereo_scalar,
    .limiter_window_minima = limiter_window_minima_scalar,
    .limiter_suffix_minima = limiter_suffix_minima_scalar,
    .limiter_apply_stereo = limiter_apply_stereo_scalar,
    .limiter_window_averages = limiter_window_averages_scalar,
};
