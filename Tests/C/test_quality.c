/* The resampler qualities through the C ABI. A buffer source's (TUTTI_SOURCE_QUALITY in the flags of
 * tutti_source_create_buffer / _file): a 1 kHz sine at 44.1 kHz converted to the engine's
 * 48 kHz with each quality, its SNR measured against the sine fitted at 1 kHz (least squares
 * over whole cycles). The sinc and soxr converters keep it clean, zero-order hold does not;
 * a quality past the last one and unknown bits fail naming flags and create nothing. The
 * engine config's file_quality and stream_quality (the seventh layout): their defaults, the
 * older layout, bad values; stream sources converted with each libsamplerate quality (SNR in
 * quality order, 1 kHz heard), and file_quality as the buffer sources' default. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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

/* A mono engine at RATE with the engine config's file and stream qualities (0:
 * TUTTI_QUALITY_DEFAULT, the library's default). */
static tutti_engine *engine_with(int32_t file_quality, int32_t stream_quality) {
    tutti_engine_config config;
    tutti_engine *engine = NULL;
    tutti_engine_config_init(&config);
    config.sample_rate = RATE;
    config.channels = 1;
    config.file_quality = file_quality;
    config.stream_quality = stream_quality;
    OK(tutti_engine_create(&config, &engine));
    return engine;
}

/* The SNR of the middle 0.4 s of a 44.1 kHz 1 kHz sine fed to a stream source of an engine
 * whose stream_quality is `quality`; *hz gets the frequency heard. */
static double stream_snr(int32_t quality, double *hz) {
    tutti_engine *engine = engine_with(0, quality);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    float *in = malloc(sizeof(float) * SOURCE_RATE);
    float *out;
    tutti_source stream;
    uint32_t written = 0;
    double snr;
    int k;
    for (k = 0; k < SOURCE_RATE; k++) in[k] = (float)(0.5 * sin(2 * 3.14159265358979323846 * 1000.0 * k / SOURCE_RATE));
    OK(tutti_source_create_stream(engine, music, SOURCE_RATE, 1, SOURCE_RATE, &stream));
    OK(tutti_stream_write(engine, stream, in, SOURCE_RATE, &written));
    CHECK(written == SOURCE_RATE, "wrote %u frames", written);
    OK(tutti_session_set_active(engine, music, 1, 0, TUTTI_NOW));
    OK(tutti_source_play(engine, stream, TUTTI_NOW));
    out = render_mono(engine, RATE / 2 + 4800);
    snr = snr_db(out + 4800, RATE * 2 / 5);
    *hz = frequency_of(out + 4800, RATE * 2 / 5);
    free(out);
    free(in);
    tutti_engine_destroy(engine);
    return snr;
}

/* The engine config's stream_quality converts stream sources: each libsamplerate quality
 * plays the sine at 1 kHz, the sinc ones cleanly and better from fastest to best, linear
 * and zero-order hold with their aliasing; the default is medium. */
static void engine_stream_quality_converts_streams(void) {
    static const int32_t qualities[] = {TUTTI_QUALITY_SINC_BEST, TUTTI_QUALITY_SINC_MEDIUM, TUTTI_QUALITY_SINC_FASTEST,
                                        TUTTI_QUALITY_LINEAR, TUTTI_QUALITY_ZERO_ORDER_HOLD};
    static const char *const names[] = {"sinc best", "sinc medium", "sinc fastest", "linear", "zero-order hold"};
    double snr[5], hz, fallback, fallback_hz;
    int i;
    for (i = 0; i < 5; i++) {
        snr[i] = stream_snr(qualities[i], &hz);
        printf("stream, %s: SNR %.1f dB at %.3f Hz\n", names[i], snr[i], hz);
        CHECK(fabs(hz - 1000) < 0.5, "%s: %.3f Hz", names[i], hz);
    }
    fallback = stream_snr(TUTTI_QUALITY_DEFAULT, &fallback_hz);
    printf("stream, default: SNR %.1f dB\n", fallback);
    CHECK(snr[0] > 100, "sinc best: %.1f dB", snr[0]);
    CHECK(snr[2] > 60, "sinc fastest: %.1f dB", snr[2]);
    CHECK(snr[0] > snr[1] + 3 && snr[1] > snr[2] + 3, "best %.1f > medium %.1f > fastest %.1f dB", snr[0], snr[1], snr[2]);
    CHECK(snr[4] < 40, "zero-order hold aliases: %.1f dB", snr[4]);
    CHECK(snr[3] > snr[4] + 10 && snr[3] < snr[2] - 10, "linear between: %.1f dB", snr[3]);
    CHECK(fabs(fallback - snr[1]) < 0.01, "TUTTI_QUALITY_DEFAULT is medium: %.2f vs %.2f dB", fallback, snr[1]);
}

/* The engine config's file_quality is what a file or buffer source without a
 * TUTTI_SOURCE_QUALITY gets: zero-order hold there makes the default flags alias. */
static void engine_file_quality_is_the_sources_default(void) {
    tutti_engine *engine = engine_with(TUTTI_QUALITY_ZERO_ORDER_HOLD, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    float *in = malloc(sizeof(float) * SOURCE_RATE);
    float *out;
    tutti_source plain, chosen;
    double snr_plain, snr_chosen;
    int k;
    for (k = 0; k < SOURCE_RATE; k++) in[k] = (float)(0.5 * sin(2 * 3.14159265358979323846 * 1000.0 * k / SOURCE_RATE));
    OK(tutti_source_create_buffer(engine, music, in, SOURCE_RATE, SOURCE_RATE, 1, 0, &plain));
    OK(tutti_source_create_buffer(engine, music, in, SOURCE_RATE, SOURCE_RATE, 1,
                                  TUTTI_SOURCE_QUALITY(TUTTI_QUALITY_SINC_BEST), &chosen));
    OK(tutti_session_set_active(engine, music, 1, 0, TUTTI_NOW));
    OK(tutti_source_play(engine, plain, TUTTI_NOW));
    out = render_mono(engine, RATE / 2 + 4800);
    snr_plain = snr_db(out + 4800, RATE * 2 / 5);
    free(out);
    OK(tutti_source_stop(engine, plain, TUTTI_NOW));
    OK(tutti_source_play(engine, chosen, TUTTI_NOW));
    out = render_mono(engine, RATE / 2 + 4800);
    snr_chosen = snr_db(out + 4800, RATE * 2 / 5);
    free(out);
    printf("buffer under file_quality zero-order hold: SNR %.1f dB; with its own sinc best: %.1f dB (default engine: %.1f)\n",
           snr_plain, snr_chosen, converted_snr(0));
    CHECK(snr_plain < 40, "file_quality zero-order hold: %.1f dB", snr_plain);
    CHECK(snr_chosen > 100, "the flags' quality still wins: %.1f dB", snr_chosen);
    free(in);
    tutti_engine_destroy(engine);
}

/* Defaults, the older layout, and bad values (each an error naming the field, no engine). */
static void engine_quality_fields(void) {
    tutti_engine_config config;
    tutti_engine *engine = NULL;
    unsigned char old[sizeof(tutti_engine_config)];
    uint32_t size = (uint32_t)offsetof(tutti_engine_config, file_quality);
    tutti_engine_config_init(&config);
    CHECK(config.file_quality == TUTTI_QUALITY_SOXR_HQ, "file_quality %d", config.file_quality);
    CHECK(config.stream_quality == TUTTI_QUALITY_SINC_MEDIUM, "stream_quality %d", config.stream_quality);
    CHECK(config.struct_size == sizeof config, "struct_size %u", config.struct_size);
    /* The sixth layout (through master_effects), the bytes past it garbage: accepted. */
    memset(old, 0xA5, sizeof old);
    tutti_engine_config_init_size((tutti_engine_config *)(void *)old, size);
    {
        uint32_t written;
        memcpy(&written, old, sizeof written);
        CHECK(written == size, "struct_size %u, expected %u", written, size);
    }
    CHECK(old[size] == 0xA5, "init wrote past the layout it was given");
    OK(tutti_engine_create((const tutti_engine_config *)(const void *)old, &engine));
    tutti_engine_destroy(engine);
    engine = NULL;
    /* Between two layouts: a version error. */
    config.struct_size = size + 4;
    FAILS(TUTTI_ERROR_VERSION, "struct_size", tutti_engine_create(&config, &engine));
    config.struct_size = sizeof config;
    config.stream_quality = TUTTI_QUALITY_SOXR_HQ;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->stream_quality", tutti_engine_create(&config, &engine));
    config.stream_quality = 8;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->stream_quality", tutti_engine_create(&config, &engine));
    config.stream_quality = TUTTI_QUALITY_DEFAULT;
    config.file_quality = -1;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->file_quality", tutti_engine_create(&config, &engine));
    CHECK(engine == NULL, "an engine was made");
    /* Every libsamplerate quality for streams and every quality for files is taken. */
    config.file_quality = TUTTI_QUALITY_SOXR_VHQ;
    config.stream_quality = TUTTI_QUALITY_ZERO_ORDER_HOLD;
    OK(tutti_engine_create(&config, &engine));
    tutti_engine_destroy(engine);
}

int main(void) {
    TEST(each_quality_converts_as_documented);
    TEST(bad_qualities_fail_naming_flags);
    TEST(engine_quality_fields);
    TEST(engine_stream_quality_converts_streams);
    TEST(engine_file_quality_is_the_sources_default);
    return harness_done();
}
