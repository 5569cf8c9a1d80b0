/* Inputs (capture), measured: what the host writes is recorded sample-exact from the first
 * captured frame and heard at the source's gain, the recording is silence while the mic is
 * muted and stays silent after the unmute (the privacy rule), and bad calls name the
 * problem. */
#include <stddef.h>

#include "harness.h"

#define BLOCK 256
#define BLOCKS 100

static float mic(uint32_t k) { return (float)(0.5 * sin(0.05 * k)); }

static void recording_follows_the_capture_and_the_mic_mute(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session rec = make_session(engine, "rec", TUTTI_CATEGORY_PLAY_AND_RECORD, 0);
    tutti_source input;
    float block[BLOCK], out[BLOCK];
    float *recorded = calloc(BLOCKS * BLOCK, sizeof(float)), *heard = calloc(BLOCKS * BLOCK, sizeof(float));
    uint32_t total = 0, b, k, n, written, exact = 1, silent = 1;
    tutti_frame start;
    uint64_t dropped;
    double worst = 0;
    OK(tutti_source_create_input(engine, rec, 1, 4096, 65536, &input));
    OK(tutti_input_get_recording(engine, input, &start, &dropped));
    CHECK(start == -1, "no recording before the first capture: %lld", (long long)start);
    OK(tutti_session_set_active(engine, rec, 1, 0, TUTTI_NOW));
    OK(tutti_source_set_gain(engine, input, 0.5f, 0, TUTTI_NOW));
    OK(tutti_source_play(engine, input, TUTTI_NOW));
    for (b = 0; b < BLOCKS; b++) {
        if (b == 50) OK(tutti_system_set_mic_muted(engine, 1, TUTTI_NOW));
        if (b == 80) OK(tutti_system_set_mic_muted(engine, 0, TUTTI_NOW));
        for (k = 0; k < BLOCK; k++) block[k] = mic(b * BLOCK + k);
        OK(tutti_stream_write(engine, input, block, BLOCK, &written));
        CHECK(written == BLOCK, "block %u: %u frames taken", b, written);
        OK(tutti_engine_render(engine, out, BLOCK));
        memcpy(heard + b * BLOCK, out, sizeof out);
        OK(tutti_input_read_recorded(engine, input, recorded + total, BLOCKS * BLOCK - total, &n));
        total += n;
    }
    OK(tutti_input_get_recording(engine, input, &start, &dropped));
    CHECK(start >= 0 && start < BLOCK, "recording starts in the first block: %lld", (long long)start);
    CHECK(dropped == 0, "%llu frames dropped", (unsigned long long)dropped);
    CHECK(total == BLOCKS * BLOCK - (uint32_t)start, "%u frames recorded", total);
    /* Blocks 1..49: the mic, exact, and heard at 0.5. */
    for (k = BLOCK; k < 50 * BLOCK; k++) {
        if (recorded[k - start] != mic(k)) exact = 0;
        if (fabs(heard[k] - 0.5 * mic(k)) > worst) worst = fabs(heard[k] - 0.5 * mic(k));
    }
    CHECK(exact, "the recording equals what was written while capturing");
    CHECK(worst < 1e-6, "monitored at gain 0.5: worst error %g", worst);
    /* Muted at block 50 (10 ms fade-out), unmuted at 80: silent to the end (no auto restart). */
    for (k = 51 * BLOCK + 480; k < BLOCKS * BLOCK; k++) {
        if (recorded[k - start] != 0 || heard[k] != 0) silent = 0;
    }
    CHECK(silent, "recording and output are digital silence from the mute on, unmute included");
    free(recorded);
    free(heard);
    tutti_engine_destroy(engine);
}

static void bad_input_calls_are_refused(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    tutti_session rec = make_session(engine, "rec", TUTTI_CATEGORY_RECORD, 0);
    tutti_source input, tone;
    float buffer[64];
    uint32_t n;
    tutti_frame start;
    uint64_t dropped;
    FAILS(TUTTI_ERROR_STATE, "playback", tutti_source_create_input(engine, music, 1, 1024, 0, &input));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "channelCount", tutti_source_create_input(engine, rec, 3, 1024, 0, &input));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "capacityFrames", tutti_source_create_input(engine, rec, 1, 0, 0, &input));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "out", tutti_source_create_input(engine, rec, 1, 1024, 0, NULL));
    OK(tutti_source_create_input(engine, rec, 2, 1024, 0, &input));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "recording ring", tutti_input_read_recorded(engine, input, buffer, 32, &n));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "frames_read", tutti_input_read_recorded(engine, input, buffer, 32, NULL));
    OK(tutti_source_create_tone(engine, rec, 440, 0.1f, &tone));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "not an input", tutti_input_get_recording(engine, tone, &start, &dropped));
    OK(tutti_source_destroy(engine, input, TUTTI_NOW));
    FAILS(TUTTI_ERROR_NOT_FOUND, "", tutti_input_get_recording(engine, input, &start, &dropped));
    tutti_engine_destroy(engine);
}

/* tutti_output_config's capture fields: refused where they cannot work (an unknown capture PCM
 * is named), and callers built
 * against the first layout (no capture fields) still get their output started. */
static void output_capture_settings(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session rec = make_session(engine, "rec", TUTTI_CATEGORY_RECORD, 0);
    tutti_source input, tone;
    tutti_output_config config;
    float x[64];
    OK(tutti_source_create_input(engine, rec, 1, 1024, 0, &input));
    OK(tutti_source_create_tone(engine, rec, 440, 0.1f, &tone));
    tutti_output_config_init(&config);
    CHECK(config.capture == 0 && config.capture_from == NULL, "no capture by default");
    config.capture = input;
    /* ALSA: capture_from is the capture PCM (the output's device when NULL). */
    config.device = "null";
    config.capture_from = "tutti-no-such-capture-pcm";
    FAILS(TUTTI_ERROR_DEVICE, "tutti-no-such-capture-pcm", tutti_output_start(engine, &config));
    config.capture_from = NULL;
    config.backend = TUTTI_BACKEND_JACK;
    config.device = "tutti-no-such-jack-server";
    config.capture = tone;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "not an input", tutti_output_start(engine, &config));
    config.capture = input;
    config.capture_from = "system:capture_1";
    FAILS(TUTTI_ERROR_DEVICE, "JACK", tutti_output_start(engine, &config));
    /* The first layout ended at `periods`: its capture fields are never read. */
    tutti_output_config_init(&config);
    config.capture = tone; /* beyond the old size: ignored */
    config.device = "hw:99,0";
    config.struct_size = (uint32_t)offsetof(tutti_output_config, capture);
    FAILS(TUTTI_ERROR_DEVICE, "hw:99,0", tutti_output_start(engine, &config));
    config.struct_size = 16;
    FAILS(TUTTI_ERROR_VERSION, "struct_size", tutti_output_start(engine, &config));
    OK(tutti_engine_render(engine, x, 32)); /* nothing half-started */
    tutti_engine_destroy(engine);
}

int main(void) {
    TEST(recording_follows_the_capture_and_the_mic_mute);
    TEST(bad_input_calls_are_refused);
    TEST(output_capture_settings);
    return harness_done();
}
