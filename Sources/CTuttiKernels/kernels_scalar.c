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

static void limiter_needed_stereo_scalar(float *gains, const float *x, size_t frame_count, float ceiling) {
    tk_limiter_needed_stereo_ref(gains, x, frame_count, ceiling);
}

// The minima four frames per step: their running (or suffix) minima, then the carry, so the
// chain is one comparison per four frames (a minimum does not round: any order is exact).
static float limiter_window_minima_scalar(float *minima, float *complement, float *stored, const float *needed, const float *after,
                                          size_t count, float prefix) {
    size_t j = 0;
    for (; j + 4 <= count; j += 4) {
        float v[4];
        for (int i = 0; i < 4; i++) stored[j + i] = v[i] = needed[j + i];
        for (int i = 1; i < 4; i++) v[i] = v[i] < v[i - 1] ? v[i] : v[i - 1];
        const float group = v[3];
        for (int i = 0; i < 4; i++) {
            const float p = v[i] < prefix ? v[i] : prefix;
            const float s = after[j + i];
            const float m = s < p ? s : p;
            minima[j + i] = m;
            complement[j + i] = 1.0f - m;
        }
        prefix = group < prefix ? group : prefix;
    }
    return tk_limiter_window_minima_ref(minima + j, complement + j, stored + j, needed + j, after + j, count - j, prefix);
}

static void limiter_suffix_minima_scalar(float *suffix, const float *gains, size_t span) {
    float carried = 1.0f;
    size_t i = span;
    while (i >= 4) {
        i -= 4;
        float v[4];
        for (int k = 0; k < 4; k++) v[k] = gains[i + k];
        for (int k = 2; k >= 0; k--) v[k] = v[k] < v[k + 1] ? v[k] : v[k + 1];
        const float group = v[0];
        for (int k = 0; k < 4; k++) suffix[i + k] = v[k] < carried ? v[k] : carried;
        carried = group < carried ? group : carried;
    }
    (void)tk_limiter_suffix_minima_ref(suffix, gains, i, carried);
}

// The reference's comparisons as selects on every sample (no branch: the compiler may use
// vectors of its baseline target).
static void limiter_apply_stereo_scalar(float *x, float *held, const float *gains, size_t frame_count, float ceiling) {
    for (size_t f = 0; f < frame_count; f++) {
        const float g = gains[f];
        for (size_t c = 0; c < 2; c++) {
            const float h = held[2 * f + c];
            held[2 * f + c] = x[2 * f + c];
            float y = h * g;
            y = ceiling < y ? ceiling : y;
            y = y < -ceiling ? -ceiling : y;
            x[2 * f + c] = g == 1.0f ? h : y;
        }
    }
}

// Four frames per step: their running sums, then the carry (one addition per four frames on
// the chain, as the vector variants' scans): the in-order sums when no addition rounds, the
// kernel's contract.
static float limiter_window_averages_scalar(float *gains, const float *entering, const float *leaving, size_t count, double *sum,
                                            double span) {
    double s = *sum;
    float smallest = 1.0f;
    size_t k = 0;
    for (; k + 4 <= count; k += 4) {
        double p[4];
        p[0] = (double)entering[k] - (double)leaving[k];
        for (int i = 1; i < 4; i++) p[i] = p[i - 1] + ((double)entering[k + i] - (double)leaving[k + i]);
        for (int i = 0; i < 4; i++) {
            const float q = (float)((s + p[i]) / span);
            const float g = q < 1.0f ? q : 1.0f;
            gains[k + i] = g;
            if (g < smallest) smallest = g;
        }
        s += p[3];
    }
    *sum = s;
    const float rest = tk_limiter_window_averages_ref(gains + k, entering + k, leaving + k, count - k, sum, span);
    return rest < smallest ? rest : smallest;
}

static void sine_scalar(float *dst, size_t frame_count, size_t channel_count, int64_t first_frame, double cycles_per_frame,
                        float amplitude) {
    tk_sine_ref(dst, 0, frame_count, channel_count, first_frame, cycles_per_frame, amplitude);
}

const tk_kernels tk_scalar_kernels = {
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
    .limiter_needed_stereo = limiter_needed_stereo_scalar,
    .limiter_window_minima = limiter_window_minima_scalar,
    .limiter_suffix_minima = limiter_suffix_minima_scalar,
    .limiter_apply_stereo = limiter_apply_stereo_scalar,
    .limiter_window_averages = limiter_window_averages_scalar,
    .sine = sine_scalar,
};
