/* Output to a device: ALSA's "null" PCM (always there, no sound card needed). While an
 * output runs the engine's clock is the device's and pull rendering is refused. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "harness.h"

static void alsa_null_output(void) {
    tutti_engine *engine = make_engine(2, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    tutti_source tone;
    tutti_output_config config;
    tutti_stats stats;
    tutti_frame before, after;
    float x[512];
    OK(tutti_source_create_tone(engine, music, 440, 0.5f, &tone));
    OK(tutti_source_play(engine, tone, TUTTI_NOW));
    tutti_output_config_init(&config);
    config.device = "null";
    config.period_frames = 256;
    config.periods = 3;
    OK(tutti_output_start(engine, &config));
    FAILS(TUTTI_ERROR_STATE, "already running", tutti_output_start(engine, &config));
    FAILS(TUTTI_ERROR_STATE, "tutti_engine_render: an output is running", tutti_engine_render(engine, x, 256));
    CHECK(x[0] == 0 && x[511] == 0, "silence written when refused: %f", x[0]);
    before = tutti_engine_get_frame(engine);
    sleep_ms(200);
    after = tutti_engine_get_frame(engine);
    CHECK(after > before, "the device's thread renders: %lld → %lld", (long long)before, (long long)after);
    tutti_stats_init(&stats);
    OK(tutti_engine_get_stats(engine, &stats));
    CHECK(stats.latency_frames > 0 && stats.latency_frames <= 65536, "latency while running: %u frames", stats.latency_frames);
    OK(tutti_source_set_gain(engine, tone, 0.5f, 0, TUTTI_NOW)); /* commands still work */
    OK(tutti_output_stop(engine));
    OK(tutti_engine_get_stats(engine, &stats));
    CHECK(stats.latency_frames == 0, "no output, no latency: %u", stats.latency_frames);
    before = tutti_engine_get_frame(engine);
    OK(tutti_engine_render(engine, x, 256));
    CHECK(tutti_engine_get_frame(engine) == before + 256, "pull rendering again: %lld", (long long)tutti_engine_get_frame(engine));
    OK(tutti_output_stop(engine)); /* twice is fine */

    /* Stopping with a drain: an unknown flag is refused and the output keeps running; with
     * TUTTI_OUTPUT_STOP_DRAIN the device plays out what it holds, then pull rendering works. */
    OK(tutti_output_start(engine, &config));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "flags", tutti_output_stop_with(engine, 2u));
    {
        int32_t running = 0;
        OK(tutti_output_is_running(engine, &running));
        CHECK(running == 1, "an unknown flag stopped the output");
    }
    sleep_ms(50);
    OK(tutti_output_stop_with(engine, TUTTI_OUTPUT_STOP_DRAIN));
    before = tutti_engine_get_frame(engine);
    OK(tutti_engine_render(engine, x, 256));
    CHECK(tutti_engine_get_frame(engine) == before + 256, "pull rendering after a drained stop");
    OK(tutti_output_stop_with(engine, TUTTI_OUTPUT_STOP_DRAIN)); /* none runs: fine */
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine", tutti_output_stop_with(NULL, 0));

    /* Destroying an engine stops its output; the device can be opened again at once. */
    OK(tutti_output_start(engine, &config));
    tutti_engine_destroy(engine);
    engine = make_engine(2, 0);
    OK(tutti_output_start(engine, &config));
    tutti_engine_destroy(engine);
}

static void jack_and_unknown_devices(void) {
    tutti_engine *engine = make_engine(2, 0);
    tutti_output_config config;
    float x[64];
    tutti_output_config_init(&config);
    config.backend = TUTTI_BACKEND_JACK;
    config.device = "tutti-no-such-jack-server";
    FAILS(TUTTI_ERROR_DEVICE, "JACK", tutti_output_start(engine, &config));
    tutti_output_config_init(&config);
    config.device = "hw:99,0";
    FAILS(TUTTI_ERROR_DEVICE, "hw:99,0", tutti_output_start(engine, &config));
    OK(tutti_engine_render(engine, x, 32)); /* nothing half-started */
    tutti_engine_destroy(engine);
}

int main(void) {
    TEST(alsa_null_output);
    TEST(jack_and_unknown_devices);
    return harness_done();
}
