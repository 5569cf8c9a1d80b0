/* Playback rate (tutti_source_set_rate), measured: a 440 Hz buffer at rate 2 sounds at 880 Hz
 * and ends after half its length, rate 1 plays bit for bit as no rate, bad rates fail naming
 * `rate` and change nothing. tutti_source_info.rate reads back the last rate set (1 before);
 * a caller of the first layout (ending at gain) gets nothing written past it. */
#include "harness.h"

#define SINE_FRAMES 48000
#define PI_ 3.14159265358979323846

static float sine_buffer[SINE_FRAMES];

/* A mono engine at RATE with an active session and a one-second 440 Hz buffer source at RATE
 * (amplitude 0.5; no conversion). */
static tutti_engine *sine_engine(tutti_source *source) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    int k;
    for (k = 0; k < SINE_FRAMES; k++) sine_buffer[k] = (float)(0.5 * sin(2.0 * PI_ * 440.0 * (double)k / RATE));
    OK(tutti_source_create_buffer(engine, music, sine_buffer, SINE_FRAMES, RATE, 1, 0, source));
    OK(tutti_session_set_active(engine, music, 1, 0, TUTTI_NOW));
    return engine;
}

/* Rate 2 (a step): 880 Hz, the position counts source frames (two per output frame), and it
 * ends after 24000 output frames (SOURCE_ENDED there, silence after). */
static void rate_two_is_an_octave_up_and_half_as_long(void) {
    tutti_source song;
    tutti_engine *engine = sine_engine(&song);
    tutti_event events[64];
    const tutti_event *ended;
    int32_t state;
    int64_t position;
    double f;
    float *x;
    int n;
    OK(tutti_source_set_rate(engine, song, 2.0, 0, TUTTI_NOW));
    OK(tutti_source_play(engine, song, TUTTI_NOW));
    x = render_mono(engine, 12000);
    f = frequency_of(x, 12000);
    CHECK(fabs(f - 880.0) < 0.5, "frequency %f Hz, expected 880", f);
    OK(tutti_source_get_status(engine, song, &state, &position, NULL));
    CHECK(position == 24000, "position %lld after 12000 frames at rate 2, expected 24000", (long long)position);
    free(x);
    x = render_mono(engine, 14000);
    CHECK(peak(x, 0, 11990) > 0.4, "peak %f before the end", peak(x, 0, 11990));
    CHECK(peak(x, 12001, 14000) == 0.0, "peak %f after the end", peak(x, 12001, 14000));
    n = drain_events(engine, events, 64);
    ended = find_event(events, n, TUTTI_EVENT_SOURCE_ENDED, 0);
    CHECK(ended != NULL, "no SOURCE_ENDED among %d events", n);
    if (ended)
        CHECK(ended->frame >= 23999 && ended->frame <= 24001, "ended at frame %lld, expected 24000", (long long)ended->frame);
    free(x);
    tutti_engine_destroy(engine);
}

/* Rate 1 (sent with TUTTI_RAMP_DEFAULT) renders bit for bit as a source never given a rate. */
static void rate_one_is_bit_identical(void) {
    tutti_source a, b;
    tutti_engine *plain = sine_engine(&a);
    tutti_engine *rated = sine_engine(&b);
    float *x, *y;
    int k, wrong = 0;
    OK(tutti_source_set_rate(rated, b, 1.0, TUTTI_RAMP_DEFAULT, TUTTI_NOW));
    OK(tutti_source_play(plain, a, TUTTI_NOW));
    OK(tutti_source_play(rated, b, TUTTI_NOW));
    x = render_mono(plain, 20000);
    y = render_mono(rated, 20000);
    for (k = 0; k < 20000; k++)
        if (x[k] != y[k]) wrong++;
    CHECK(wrong == 0, "%d samples differ between rate 1 and no rate", wrong);
    free(x);
    free(y);
    tutti_engine_destroy(plain);
    tutti_engine_destroy(rated);
}

/* 0.2, 4.5, NaN: INVALID_ARGUMENT naming `rate`; nothing changes (it plays at 440 Hz); a rate
 * other than 1 on a tone is refused too. */
static void bad_rates_fail_and_change_nothing(void) {
    tutti_source song, tone;
    tutti_session other;
    tutti_engine *engine = sine_engine(&song);
    float *x;
    double f;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rate", tutti_source_set_rate(engine, song, 0.2, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rate", tutti_source_set_rate(engine, song, 4.5, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rate", tutti_source_set_rate(engine, song, NAN, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "ramp_frames", tutti_source_set_rate(engine, song, 2.0, 0x80000000u, TUTTI_NOW));
    FAILS(TUTTI_ERROR_NOT_FOUND, "no source", tutti_source_set_rate(engine, song + 1, 2.0, 0, TUTTI_NOW));
    other = make_session(engine, "other", TUTTI_CATEGORY_PLAYBACK, TUTTI_OPTION_MIX_WITH_OTHERS);
    OK(tutti_source_create_tone(engine, other, 440, 0.5f, &tone));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rate", tutti_source_set_rate(engine, tone, 2.0, 0, TUTTI_NOW));
    OK(tutti_source_play(engine, song, TUTTI_NOW));
    x = render_mono(engine, 12000);
    f = frequency_of(x, 12000);
    CHECK(fabs(f - 440.0) < 0.5, "frequency %f Hz after the failing calls, expected 440", f);
    free(x);
    tutti_engine_destroy(engine);
}

static void the_info_reads_the_rate_back(void) {
    tutti_source song;
    tutti_engine *engine = sine_engine(&song);
    struct {
        tutti_source_info info;
        unsigned char after[16];
    } old;
    tutti_source_info info;
    size_t k;
    int untouched = 1;
    tutti_source_info_init(&info);
    OK(tutti_source_get_info(engine, song, &info));
    CHECK(info.rate == 1.0, "1 before any rate: %f", info.rate);
    OK(tutti_source_set_rate(engine, song, 1.5, 4800, 1000));
    OK(tutti_source_get_info(engine, song, &info));
    CHECK(info.rate == 1.5, "the rate set (gliding to it from frame 1000): %f", info.rate);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rate", tutti_source_set_rate(engine, song, 9.0, 0, TUTTI_NOW));
    OK(tutti_source_get_info(engine, song, &info));
    CHECK(info.rate == 1.5 && info.gain == 1.0f, "a failed call leaves it: %f, gain %f", info.rate, info.gain);
    /* The first layout ends at gain: rate is not written (nor anything past the layout). */
    memset(&old, 0xAB, sizeof old);
    old.info.struct_size = (uint32_t)offsetof(tutti_source_info, rate);
    OK(tutti_source_get_info(engine, song, &old.info));
    CHECK(old.info.gain == 1.0f && old.info.length == SINE_FRAMES, "the first layout's fields: %f %lld", old.info.gain,
          (long long)old.info.length);
    for (k = offsetof(tutti_source_info, rate); k < sizeof old; k++) untouched &= ((unsigned char *)&old)[k] == 0xAB;
    CHECK(untouched, "nothing written past the first layout%s", "");
    old.info.struct_size = (uint32_t)offsetof(tutti_source_info, rate) + 4;
    FAILS(TUTTI_ERROR_VERSION, "out->struct_size", tutti_source_get_info(engine, song, &old.info));
    tutti_engine_destroy(engine);
}

int main(void) {
    TEST(rate_two_is_an_octave_up_and_half_as_long);
    TEST(rate_one_is_bit_identical);
    TEST(bad_rates_fail_and_change_nothing);
    TEST(the_info_reads_the_rate_back);
    return harness_done();
}
