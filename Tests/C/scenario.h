/* A busy engine for the real-time checks: 4 sessions, a looping file at 44.1 kHz, a 44.1 kHz
 * stream fed between renders, a monitored input with a recording ring (fed and drained
 * between renders, muted and played again), 8 tones, a prompt that ducks the music, and changes scheduled
 * inside the rendered stretch (ramps, pauses, plays, ducking, volume, a phone call, a route
 * change, a source that ends, a source destroyed). */
#ifndef TUTTI_TEST_SCENARIO_H
#define TUTTI_TEST_SCENARIO_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <tutti.h>

#include "wav.h"

#define SCENARIO_BLOCKS 2000 /* of 256 frames: 10.7 s */

struct scenario {
    tutti_engine *engine;
    tutti_source stream;
    tutti_source input;
    float feed[441];
    float recorded[4096];
    double phase;
};

static float scenario_sine(uint32_t k) { return (float)(0.3 * sin(6.283185307179586 * 330.0 * k / 44100.0)); }

/* Stops the program if a set-up call fails (the scenario must be what it says). */
static void scenario_ok(tutti_result r, const char *what) {
    if (r != TUTTI_OK) {
        fprintf(stderr, "scenario: %s: %s: %s\n", what, tutti_result_string(r), tutti_last_error());
        exit(2);
    }
}

static void scenario_setup(struct scenario *s, const char *dir) {
    tutti_engine_config config;
    tutti_session music, game, nav, rec;
    tutti_source song, once, gone, prompt, tones[8];
    char path[512];
    float *wav = malloc(44100 * sizeof(float));
    uint32_t k;
    tutti_frame t;
    for (k = 0; k < 44100; k++) wav[k] = scenario_sine(k);
    snprintf(path, sizeof path, "%s/scenario-44100.wav", dir);
    if (wav_write(path, wav, 44100, 1, 44100) != 0) exit(2);
    free(wav);
    tutti_engine_config_init(&config);
    scenario_ok(tutti_engine_create(&config, &s->engine), "create");
    scenario_ok(tutti_session_create(s->engine, "music", &music), "music");
    scenario_ok(tutti_session_set_category(s->engine, music, TUTTI_CATEGORY_PLAYBACK, TUTTI_MODE_DEFAULT, TUTTI_OPTION_MIX_WITH_OTHERS), "category");
    scenario_ok(tutti_session_create(s->engine, "game", &game), "game");
    scenario_ok(tutti_session_set_category(s->engine, game, TUTTI_CATEGORY_AMBIENT, TUTTI_MODE_DEFAULT, 0), "category");
    scenario_ok(tutti_session_create(s->engine, "nav", &nav), "nav");
    scenario_ok(tutti_session_set_category(s->engine, nav, TUTTI_CATEGORY_PLAYBACK, TUTTI_MODE_VOICE_PROMPT, TUTTI_OPTION_DUCK_OTHERS), "category");
    scenario_ok(tutti_source_create_file(s->engine, music, path, TUTTI_SOURCE_LOOP, &song), "song");
    scenario_ok(tutti_source_create_file(s->engine, music, path, 0, &once), "once");
    scenario_ok(tutti_source_create_file(s->engine, music, path, TUTTI_SOURCE_LOOP, &gone), "gone");
    scenario_ok(tutti_source_create_stream(s->engine, music, 44100, 1, 8192, &s->stream), "stream");
    scenario_ok(tutti_source_create_tone(s->engine, nav, 880, 0.2f, &prompt), "prompt");
    scenario_ok(tutti_session_create(s->engine, "rec", &rec), "rec");
    scenario_ok(tutti_session_set_category(s->engine, rec, TUTTI_CATEGORY_PLAY_AND_RECORD, TUTTI_MODE_DEFAULT, TUTTI_OPTION_MIX_WITH_OTHERS), "category");
    scenario_ok(tutti_source_create_input(s->engine, rec, 1, 4096, 8192, &s->input), "input");
    scenario_ok(tutti_source_set_gain(s->engine, s->input, 0.3f, 0, TUTTI_NOW), "input gain");
    for (k = 0; k < 8; k++) scenario_ok(tutti_source_create_tone(s->engine, game, 200.0 + 97.0 * k, 0.05f, &tones[k]), "tone");
    scenario_ok(tutti_source_play(s->engine, song, TUTTI_NOW), "play");
    scenario_ok(tutti_source_play(s->engine, once, TUTTI_NOW), "play");
    scenario_ok(tutti_source_play(s->engine, gone, TUTTI_NOW), "play");
    scenario_ok(tutti_source_play(s->engine, s->stream, TUTTI_NOW), "play");
    scenario_ok(tutti_source_play(s->engine, s->input, TUTTI_NOW), "play");
    for (k = 0; k < 8; k++) scenario_ok(tutti_source_play(s->engine, tones[k], TUTTI_NOW), "play");
    /* Changes inside the counted stretch (frames 48000 on). */
    for (t = 48000, k = 0; t < (tutti_frame)SCENARIO_BLOCKS * 256 - 48000; t += 24000, k++) {
        scenario_ok(tutti_source_set_gain(s->engine, tones[k % 8], 0.2f + 0.1f * (float)(k % 5), 4800, t), "ramp");
        scenario_ok(tutti_source_pause(s->engine, song, t + 1000), "pause");
        scenario_ok(tutti_source_play(s->engine, song, t + 5000), "play");
        if (k % 4 == 0) {
            scenario_ok(tutti_session_set_active(s->engine, nav, 1, 0, t), "duck");
            scenario_ok(tutti_source_play(s->engine, prompt, t), "prompt");
            scenario_ok(tutti_session_set_active(s->engine, nav, 0, TUTTI_NOTIFY_OTHERS_ON_DEACTIVATION, t + 12000), "unduck");
        }
        if (k % 5 == 2) scenario_ok(tutti_system_set_volume(s->engine, 0.5f + 0.1f * (float)(k % 3), t + 300), "volume");
        if (k % 7 == 3) scenario_ok(tutti_source_seek(s->engine, song, 1000, t + 7000), "seek");
    }
    scenario_ok(tutti_system_set_mic_muted(s->engine, 1, 150000), "mute");
    scenario_ok(tutti_system_set_mic_muted(s->engine, 0, 170000), "unmute");
    scenario_ok(tutti_source_play(s->engine, s->input, 180000), "play input");
    scenario_ok(tutti_system_begin_phone_call(s->engine, 200000), "call");
    scenario_ok(tutti_system_end_phone_call(s->engine, 248000), "call end");
    scenario_ok(tutti_system_set_route(s->engine, TUTTI_ROUTE_HEADPHONES, 300000), "route");
    scenario_ok(tutti_source_destroy(s->engine, gone, 100000), "destroy");
    s->phase = 0;
}

/* Control side, between renders: keep the stream fed (441 frames, what 10 ms take). */
static void scenario_feed(struct scenario *s) {
    uint32_t k, written;
    for (k = 0; k < 441; k++) {
        s->feed[k] = (float)(0.2 * sin(s->phase));
        s->phase += 6.283185307179586 * 523.25 / 44100.0;
    }
    scenario_ok(tutti_stream_write(s->engine, s->stream, s->feed, 441, &written), "feed");
    /* The input: a block's worth captured (what a 256-frame render takes), the recording drained. */
    scenario_ok(tutti_stream_write(s->engine, s->input, s->feed, 256, &written), "capture");
    scenario_ok(tutti_input_read_recorded(s->engine, s->input, s->recorded, 4096, &written), "drain");
}

#endif
