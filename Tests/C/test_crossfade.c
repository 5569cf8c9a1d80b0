/* Equal-power crossfades (tutti_source_crossfade), measured: a 440 Hz tone crossfades to a
 * 1000 Hz one over 9600 frames from frame 4800. Before it only 440 Hz sounds, after it only
 * 1000 Hz, half-way each is at -3.01 dB of its level; the old source is stopped at the end;
 * bad arguments fail naming the argument and change nothing. */
#include "harness.h"

#include <math.h>

#define START 4800
#define LENGTH 9600

/* A mono engine with an active session playing tone `a` (440 Hz) and holding tone `b`
 * (1000 Hz), both at amplitude 0.5. */
static tutti_engine *two_tones(tutti_session *music, tutti_source *a, tutti_source *b) {
    tutti_engine *engine = make_engine(1, 0);
    *music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    OK(tutti_source_create_tone(engine, *music, 440, 0.5f, a));
    OK(tutti_source_create_tone(engine, *music, 1000, 0.5f, b));
    OK(tutti_session_set_active(engine, *music, 1, 0, TUTTI_NOW));
    OK(tutti_source_play(engine, *a, 0));
    return engine;
}

static double db(double ratio) { return 20 * log10(ratio); }

static void the_old_tone_gives_way_to_the_new_one_at_equal_power(void) {
    tutti_session music;
    tutti_source a, b;
    tutti_engine *engine = two_tones(&music, &a, &b);
    int32_t state = -1;
    float *x;
    double before_a, before_b, mid_a, mid_b, after_a, after_b;
    OK(tutti_source_crossfade(engine, b, a, LENGTH, START));
    x = render_mono(engine, START + LENGTH + 4800);
    before_a = tone_amplitude(x, START, 1, 440);
    before_b = tone_amplitude(x, START, 1, 1000);
    /* 960 frames centred on the midpoint: the curves are nearly straight there. */
    mid_a = tone_amplitude(x + START + LENGTH / 2 - 480, 960, 1, 440);
    mid_b = tone_amplitude(x + START + LENGTH / 2 - 480, 960, 1, 1000);
    after_a = tone_amplitude(x + START + LENGTH, 4800, 1, 440);
    after_b = tone_amplitude(x + START + LENGTH, 4800, 1, 1000);
    CHECK(fabs(before_a - 0.5) < 0.005 && before_b < 0.001, "before: 440 Hz at %f (0.5), 1000 Hz at %f (0)", before_a,
          before_b);
    CHECK(fabs(db(mid_a / 0.5) + 3.0103) < 0.1, "half-way 440 Hz is at %f dB, expected -3.01", db(mid_a / 0.5));
    CHECK(fabs(db(mid_b / 0.5) + 3.0103) < 0.1, "half-way 1000 Hz is at %f dB, expected -3.01", db(mid_b / 0.5));
    CHECK(fabs(after_b - 0.5) < 0.005 && after_a < 0.001, "after: 1000 Hz at %f (0.5), 440 Hz at %f (0)", after_b, after_a);
    OK(tutti_source_get_status(engine, a, &state, NULL, NULL));
    CHECK(state == TUTTI_SOURCE_STOPPED, "the old source's state is %d, expected TUTTI_SOURCE_STOPPED", (int)state);
    OK(tutti_source_get_status(engine, b, &state, NULL, NULL));
    CHECK(state == TUTTI_SOURCE_PLAYING, "the new source's state is %d, expected TUTTI_SOURCE_PLAYING", (int)state);
    free(x);
    tutti_engine_destroy(engine);
}

/* Each bad argument fails naming it; the old tone plays on alone. */
static void bad_arguments_fail_and_change_nothing(void) {
    tutti_session music, other;
    tutti_source a, b, c, elsewhere;
    tutti_engine *engine = two_tones(&music, &a, &b);
    int32_t state = -1;
    float *x;
    OK(tutti_source_create_tone(engine, music, 2000, 0.5f, &c));
    other = make_session(engine, "other", TUTTI_CATEGORY_PLAYBACK, TUTTI_OPTION_MIX_WITH_OTHERS);
    OK(tutti_source_create_tone(engine, other, 3000, 0.5f, &elsewhere));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "from", tutti_source_crossfade(engine, a, a, LENGTH, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "duration_frames", tutti_source_crossfade(engine, b, a, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "duration_frames", tutti_source_crossfade(engine, b, a, 0x80000000u, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "from", tutti_source_crossfade(engine, elsewhere, a, LENGTH, TUTTI_NOW));
    FAILS(TUTTI_ERROR_STATE, "from", tutti_source_crossfade(engine, b, c, LENGTH, TUTTI_NOW));
    FAILS(TUTTI_ERROR_NOT_FOUND, "from", tutti_source_crossfade(engine, b, a + 1000, LENGTH, TUTTI_NOW));
    FAILS(TUTTI_ERROR_NOT_FOUND, "no source", tutti_source_crossfade(engine, b + 1000, a, LENGTH, TUTTI_NOW));
    x = render_mono(engine, 9600);
    CHECK(fabs(tone_amplitude(x + 4800, 4800, 1, 440) - 0.5) < 0.005, "440 Hz is at %f, expected 0.5",
          tone_amplitude(x + 4800, 4800, 1, 440));
    CHECK(peak(x, 0, 9600) < 0.51, "peak %f: something else plays", peak(x, 0, 9600));
    OK(tutti_source_get_status(engine, b, &state, NULL, NULL));
    CHECK(state == TUTTI_SOURCE_STOPPED, "the new source's state is %d, expected TUTTI_SOURCE_STOPPED", (int)state);
    free(x);
    tutti_engine_destroy(engine);
}

int main(void) {
    TEST(the_old_tone_gives_way_to_the_new_one_at_equal_power);
    TEST(bad_arguments_fail_and_change_nothing);
    return harness_done();
}
