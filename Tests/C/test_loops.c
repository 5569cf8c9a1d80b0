/* Loop regions (tutti_source_set_loop), measured sample for sample: a buffer whose frame k
 * holds k + 1 wraps exactly at the region's end, a count lets the region repeat that many
 * times and then plays on to the end, bad arguments fail naming the argument and change
 * nothing. */
#include "harness.h"

/* A mono engine at RATE with an active session and a 1000-frame buffer source at RATE (no
 * conversion: it plays bit for bit) whose frame k is k + 1. */
static tutti_engine *ramp_engine(tutti_source *source) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    float ramp[1000];
    int k;
    for (k = 0; k < 1000; k++) ramp[k] = (float)(k + 1);
    OK(tutti_source_create_buffer(engine, music, ramp, 1000, RATE, 1, 0, source));
    OK(tutti_session_set_active(engine, music, 1, 0, TUTTI_NOW));
    return engine;
}

/* Frames 0..499, then 200..499 twice (count 2), then 500..999, then silence. */
static void a_counted_region_repeats_then_plays_to_the_end(void) {
    tutti_source song;
    tutti_engine *engine = ramp_engine(&song);
    float *x;
    int expected[2000], n = 0, k, wrong = 0, first = -1;
    for (k = 0; k < 500; k++) expected[n++] = k + 1;
    for (k = 200; k < 500; k++) expected[n++] = k + 1;
    for (k = 200; k < 500; k++) expected[n++] = k + 1;
    for (k = 500; k < 1000; k++) expected[n++] = k + 1;
    while (n < 2000) expected[n++] = 0;
    OK(tutti_source_set_loop(engine, song, 1, 200, 500, 2, TUTTI_NOW));
    OK(tutti_source_play(engine, song, TUTTI_NOW));
    x = render_mono(engine, 2000);
    for (k = 0; k < 2000; k++) {
        if (x[k] != (float)expected[k]) {
            wrong++;
            if (first < 0) first = k;
        }
    }
    CHECK(wrong == 0, "%d samples differ from the loop's sequence, the first at %d: %f, expected %d", wrong, first,
          first >= 0 ? x[first] : 0.0f, first >= 0 ? expected[first] : 0);
    free(x);
    tutti_engine_destroy(engine);
}

/* Endless (TUTTI_LOOP_FOREVER) with the region to the end (TUTTI_LOOP_TO_END): 0..999, then
 * 600..999 over and over. */
static void an_endless_region_to_the_end(void) {
    tutti_source song;
    tutti_engine *engine = ramp_engine(&song);
    float *x;
    int k, wrong = 0;
    OK(tutti_source_set_loop(engine, song, 1, 600, TUTTI_LOOP_TO_END, TUTTI_LOOP_FOREVER, TUTTI_NOW));
    OK(tutti_source_play(engine, song, TUTTI_NOW));
    x = render_mono(engine, 3000);
    for (k = 0; k < 3000; k++) {
        int frame = k < 1000 ? k : 600 + (k - 1000) % 400;
        if (x[k] != (float)(frame + 1)) wrong++;
    }
    CHECK(wrong == 0, "%d samples differ from 0..999 then 600..999 repeated", wrong);
    free(x);
    tutti_engine_destroy(engine);
}

/* Each bad argument fails with INVALID_ARGUMENT naming it; the region set before still plays. */
static void bad_arguments_fail_and_change_nothing(void) {
    tutti_source song, tone;
    tutti_session other;
    tutti_engine *engine = ramp_engine(&song);
    float *x;
    int k, wrong = 0;
    OK(tutti_source_set_loop(engine, song, 1, 200, 500, TUTTI_LOOP_FOREVER, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "start_frame", tutti_source_set_loop(engine, song, 1, -1, 500, 1, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "end_frame", tutti_source_set_loop(engine, song, 1, 0, 1001, 1, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "end_frame", tutti_source_set_loop(engine, song, 1, 0, -2, 1, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "end_frame", tutti_source_set_loop(engine, song, 1, 300, 300, 1, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "end_frame", tutti_source_set_loop(engine, song, 1, 400, 300, 1, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "count", tutti_source_set_loop(engine, song, 1, 0, 500, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "count", tutti_source_set_loop(engine, song, 1, 0, 500, -2, TUTTI_NOW));
    FAILS(TUTTI_ERROR_NOT_FOUND, "no source", tutti_source_set_loop(engine, song + 1, 1, 0, 500, 1, TUTTI_NOW));
    other = make_session(engine, "other", TUTTI_CATEGORY_PLAYBACK, TUTTI_OPTION_MIX_WITH_OTHERS);
    OK(tutti_source_create_tone(engine, other, 440, 0.5f, &tone));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "no length",
          tutti_source_set_loop(engine, tone, 1, 0, TUTTI_LOOP_TO_END, TUTTI_LOOP_FOREVER, TUTTI_NOW));
    OK(tutti_source_play(engine, song, TUTTI_NOW));
    x = render_mono(engine, 1100);
    for (k = 0; k < 1100; k++) {
        int frame = k < 500 ? k : 200 + (k - 500) % 300;
        if (x[k] != (float)(frame + 1)) wrong++;
    }
    CHECK(wrong == 0, "%d samples differ from the region set before the failing calls", wrong);
    free(x);
    tutti_engine_destroy(engine);
}

int main(void) {
    TEST(a_counted_region_repeats_then_plays_to_the_end);
    TEST(an_endless_region_to_the_end);
    TEST(bad_arguments_fail_and_change_nothing);
    return harness_done();
}
