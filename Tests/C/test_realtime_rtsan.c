/* RealtimeSanitizer around tutti_engine_render (built by the test script with clang
 * -fsanitize=realtime, not by the plain C test loop): every render of a busy scenario, and
 * renders refused while an output runs, happen in a `nonblocking` function, so an allocation,
 * a lock or a blocking system call anywhere below it — inside libtutti included — aborts the
 * program with a report. `--self-test` makes a control call (it allocates) in such a context:
 * that run must be reported. A host effect (tutti_bus_set_effect) runs on a session's bus
 * through every render: a well-behaved callback (arithmetic on the buffer it is given) and the
 * engine's path to it must report nothing. */
#include "harness.h"
#include "scenario.h"

static tutti_result render_realtime(tutti_engine *engine, float *out, uint32_t frames) __attribute__((nonblocking)) {
    return tutti_engine_render(engine, out, frames);
}

static tutti_result control_call_in_realtime_context(tutti_engine *engine) __attribute__((nonblocking)) {
    return tutti_system_set_volume(engine, 0.5f, TUTTI_NOW);
}

/* A well-behaved host effect: a gentle soft gain on the bus, in place; counts its frames. */
static void soft_gain(float *interleaved, uint32_t frames, uint32_t channels, void *user) {
    uint64_t *count = user;
    uint32_t i;
    for (i = 0; i < frames * channels; i++) interleaved[i] *= 0.9f;
    *count += frames;
}

int main(int argc, char **argv) {
    struct scenario s;
    float *out = calloc(256 * 2, sizeof(float));
    int k, failures = 0;
    tutti_event e;
    tutti_output_config config;
    tutti_session dsp;
    tutti_source hum;
    uint64_t effect_frames = 0;
    harness_test = "rtsan";
    scenario_setup(&s, temp_path(""));
    OK(tutti_session_create(s.engine, "dsp", &dsp));
    OK(tutti_session_set_category(s.engine, dsp, TUTTI_CATEGORY_AMBIENT, TUTTI_MODE_DEFAULT, TUTTI_OPTION_MIX_WITH_OTHERS));
    OK(tutti_source_create_tone(s.engine, dsp, 330, 0.05f, &hum));
    OK(tutti_session_set_active(s.engine, dsp, 1, 0, TUTTI_NOW));
    OK(tutti_source_play(s.engine, hum, TUTTI_NOW));
    OK(tutti_bus_set_effect(s.engine, dsp, soft_gain, NULL, &effect_frames, TUTTI_NOW));
    if (argc > 1 && strcmp(argv[1], "--self-test") == 0) {
        (void)control_call_in_realtime_context(s.engine);
        return 0; /* not reached when the sanitizer works */
    }
    for (k = 0; k < SCENARIO_BLOCKS; k++) {
        scenario_feed(&s);
        failures += render_realtime(s.engine, out, 256) != TUTTI_OK;
        if (k % 100 == 0)
            while (tutti_engine_poll_event(s.engine, &e) == 1) {
            }
    }
    CHECK(failures == 0, "%d renders failed", failures);
    CHECK(effect_frames == (uint64_t)SCENARIO_BLOCKS * 256, "the host effect ran for %llu frames", (unsigned long long)effect_frames);
    tutti_output_config_init(&config);
    config.device = "null";
    OK(tutti_output_start(s.engine, &config));
    for (k = 0; k < 100; k++) failures += render_realtime(s.engine, out, 256) == TUTTI_ERROR_STATE ? 0 : 1;
    CHECK(failures == 0, "renders while the output runs are refused%s", "");
    tutti_engine_destroy(s.engine);
    free(out);
    printf("rtsan: %d renders of a busy scenario with a host effect, and 100 refused ones: nothing reported\n", SCENARIO_BLOCKS);
    return harness_done();
}
