/* A buffer source's resampler quality through the C ABI (TUTTI_SOURCE_QUALITY in the flags of
 * tutti_source_create_buffer / _file): a 1 kHz sine at 44.1 kHz converted to the engine's
 * 48 kHz with each quality, its SNR measured against the sine fitted at 1 kHz (least squares
 * over whole cycles). The sinc and soxr converters keep it clean, zero-order hold does not;
 * a quality past the last one and unknown bits fail naming flags and create nothing. */
#include <math.h>
#include <stdlib.h>

#include "harness.h"

#define SOURCE_RATE 44100
#define SECONDS 1

/* SNR in dB of x[0..n) (n whole cycles of 1 kHz at RATE) against its best-fitting 1 kHz sine. */
static double snr_db(const float *x, size_t n) {
    double s = 0, c = 0, signal = 0, noise = 0;
    size_t k;
    for (k = 0; k < n; k++) {
        double phase = 2 * 3.14159265358979323846 * 1000.0 * (double)k / RATE;
        s += x[k] * sin(phase);
        c += x[k] * cos(phase);
    }
    s *= 2.0 / (double)n;
    c *= 2.0 / (double)n;
    for (k = 0; k < n; k++) {
        double phase = 2 * 3.14159265358979323846 * 1000.0 * (double)k / RATE;
        double fit = s * sin(phase) + c * cos(phase);
        signal += fit * fit;
        noise += (x[k] - fit) * (x[k] - fit);
    }
    return 10 * log10(signal / (noise > 1e-300 ? noise : 1e-300));
}

/* The SNR of the middle 0.4 s of the buffer source converted with `flags`. */
static double converted_snr(uint32_t flags) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    float *in = malloc(sizeof(float) * SOURCE_RATE * SECONDS);
    float *out;
    tutti_source source;
    double snr;
    int k;
    for (k = 0; k < SOURCE_RATE * SECONDS; k++) in[k] = (float)(0.5 * sin(2 * 3.14159265358979323846 * 1000.0 * k / SOURCE_RATE));
    OK(tutti_source_create_buffer(engine, music, in, SOURCE_RATE * SECONDS, SOURCE_RATE, 1, flags, &source));
    OK(tutti_session_set_active(engine, music, 1, 0, TUTTI_NOW));
    OK(tutti_source_play(engine, source, TUTTI_NOW));
    out = render_mono(engine, RATE / 2 + 4800);
    snr = snr_db(out + 4800, RATE * 2 / 5); /* 19200 frames: 400 whole cycles */
    free(out);
    free(in);
    tutti_engine_destroy(engine);
    return snr;
}

static void each_quality_converts_as_documented(void) {
    double best = converted_snr(TUTTI_SOURCE_QUALITY(TUTTI_QUALITY_SINC_BEST));
    double fallback = converted_snr(0);
    double soxr = converted_snr(TUTTI_SOURCE_QUALITY(TUTTI_QUALITY_SOXR_VHQ) | TUTTI_SOURCE_LOOP);
    double linear = converted_snr(TUTTI_SOURCE_QUALITY(TUTTI_QUALITY_LINEAR));
    double hold = converted_snr(TUTTI_SOURCE_QUALITY(TUTTI_QUALITY_ZERO_ORDER_HOLD));
    printf("SNR dB: sinc best %.1f, default %.1f, soxr VHQ %.1f, linear %.1f, zero-order hold %.1f\n", best, fallback, soxr,
           linear, hold);
    CHECK(best > 100, "sinc best: %.1f dB", best);
    CHECK(fallback > 100, "the default (soxr HQ): %.1f dB", fallback);
    CHECK(soxr > 100, "soxr VHQ: %.1f dB", soxr);
    CHECK(hold < 40, "zero-order hold aliases: %.1f dB", hold);
    CHECK(linear > hold + 10 && linear < best - 20, "linear between them: %.1f dB", linear);
}

static void bad_qualities_fail_naming_flags(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    static const float one[4] = {0, 0.5f, 0, -0.5f};
    tutti_source source = 0;
    tutti_stats stats;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "flags: TUTTI_SOURCE_QUALITY(8)",
          tutti_source_create_buffer(engine, music, one, 4, SOURCE_RATE, 1, TUTTI_SOURCE_QUALITY(8), &source));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "flags has unknown bits 0x10000",
          tutti_source_create_buffer(engine, music, one, 4, SOURCE_RATE, 1, 0x10000u, &source));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "flags: TUTTI_SOURCE_QUALITY(255)",
          tutti_source_create_file(engine, music, "missing.wav", TUTTI_SOURCE_QUALITY(255), &source));
    CHECK(source == 0, "nothing written to out: %llu", (unsigned long long)source);
    tutti_stats_init(&stats);
    OK(tutti_engine_get_stats(engine, &stats));
    CHECK(stats.sources == 0, "no source created: %u", (unsigned)stats.sources);
    tutti_engine_destroy(engine);
}

int main(void) {
    TEST(each_quality_converts_as_documented);
    TEST(bad_qualities_fail_naming_flags);
    return harness_done();
}
