/* What the C ABI gained to match the Swift host API, measured in the output: session gain,
 * resuming a session, ducking rules and the engine's duck envelope, sources from memory;
 * the state reads (session state, the device side, a source's route, whether an output
 * runs), the volume button and silent sources. */
#include "harness.h"

#define PI2 6.28318530717958647692

static tutti_engine *with_music(tutti_session *music, tutti_source *song) {
    tutti_engine *engine = make_engine(1, 0);
    *music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    OK(tutti_source_create_tone(engine, *music, 440, 0.5f, song));
    OK(tutti_source_play(engine, *song, TUTTI_NOW));
    return engine;
}

static void session_gain_scales_its_sources(void) {
    tutti_session music;
    tutti_source song;
    tutti_engine *engine = with_music(&music, &song);
    float *x;
    OK(tutti_session_set_gain(engine, music, 0.5f, 0, 4800));
    x = render_mono(engine, 9600);
    CHECK(fabs(tone_amplitude(x, 4800, 1, 440) - 0.5) < 0.01, "before: %f", tone_amplitude(x, 4800, 1, 440));
    CHECK(fabs(tone_amplitude(x + 4800, 4800, 1, 440) - 0.25) < 0.01, "at 0.5: %f", tone_amplitude(x + 4800, 4800, 1, 440));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "gain", tutti_session_set_gain(engine, music, -1, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_NOT_FOUND, "tutti_session_set_gain", tutti_session_set_gain(engine, music + 12345, 1, 0, TUTTI_NOW));
    free(x);
    tutti_engine_destroy(engine);
}

static void a_session_resumes_after_an_interruption(void) {
    tutti_session music, voip;
    tutti_source song;
    tutti_engine *engine = make_engine(1, 0);
    float *x;
    OK(tutti_session_create_with(engine, "music", TUTTI_CATEGORY_PLAYBACK, TUTTI_SESSION_MANUAL_RESUME, &music));
    OK(tutti_source_create_tone(engine, music, 440, 0.5f, &song));
    OK(tutti_source_play(engine, song, TUTTI_NOW));
    voip = make_session(engine, "voip", TUTTI_CATEGORY_PLAY_AND_RECORD, 0);
    OK(tutti_session_set_active(engine, voip, 1, 0, 4800));
    OK(tutti_session_set_active(engine, voip, 0, TUTTI_NOTIFY_OTHERS_ON_DEACTIVATION, 9600)); /* it may resume, */
    x = render_mono(engine, 14400);
    CHECK(peak(x, 10000, 14400) == 0, "but waits for the host: %f", peak(x, 10000, 14400));
    free(x);
    OK(tutti_session_resume(engine, music, TUTTI_NOW));
    x = render_mono(engine, 9600);
    CHECK(fabs(tone_amplitude(x + 4800, 4800, 1, 440) - 0.5) < 0.01, "resumed: %f", tone_amplitude(x + 4800, 4800, 1, 440));
    free(x);
    tutti_engine_destroy(engine);
}

static void ducking_rules_and_the_engines_envelope(void) {
    tutti_engine_config config;
    tutti_engine *engine = NULL;
    tutti_session music, nav;
    tutti_source song, prompt;
    tutti_ducking_rule rule;
    float *x;
    /* The engine's envelope: -20 dB, no attack. */
    tutti_engine_config_init(&config);
    CHECK(config.ducking_level_db == -15 && config.ducking_attack_seconds > 0.09f && config.ducking_release_seconds > 0.39f,
          "defaults %f %f %f", config.ducking_level_db, config.ducking_attack_seconds, config.ducking_release_seconds);
    config.channels = 1;
    config.ducking_level_db = -20;
    config.ducking_attack_seconds = 0;
    OK(tutti_engine_create(&config, &engine));
    if (engine == NULL) exit(2);
    music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    OK(tutti_source_create_tone(engine, music, 440, 0.5f, &song));
    OK(tutti_source_play(engine, song, TUTTI_NOW));
    nav = make_session(engine, "nav", TUTTI_CATEGORY_PLAYBACK, TUTTI_OPTION_DUCK_OTHERS);
    OK(tutti_source_create_tone(engine, nav, 1000, 0.0f, &prompt));
    OK(tutti_session_set_active(engine, nav, 1, 0, 4800));
    x = render_mono(engine, 9600);
    CHECK(fabs(tone_amplitude(x + 6000, 3600, 1, 440) - 0.05) < 0.003, "ducked to -20 dB: %f", tone_amplitude(x + 6000, 3600, 1, 440));
    free(x);
    /* A rule for the pair: -6 dB. */
    memset(&rule, 0, sizeof rule);
    rule.by_session = nav;
    rule.duck_session = music;
    rule.level_db = -6;
    OK(tutti_engine_set_ducking_rules(engine, &rule, 1, TUTTI_NOW));
    x = render_mono(engine, 24000);
    CHECK(fabs(tone_amplitude(x + 19200, 4800, 1, 440) - 0.5 * pow(10, -6 / 20.0)) < 0.005, "the rule's -6 dB: %f",
          tone_amplitude(x + 19200, 4800, 1, 440));
    free(x);
    rule.level_db = 5;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rules[0]", tutti_engine_set_ducking_rules(engine, &rule, 1, TUTTI_NOW));
    rule.level_db = -6;
    rule.duck_session = nav;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rules[0]", tutti_engine_set_ducking_rules(engine, &rule, 1, TUTTI_NOW));
    rule.duck_session = 0;
    rule.duck_category = 99;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rules[0].duck_category", tutti_engine_set_ducking_rules(engine, &rule, 1, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rules", tutti_engine_set_ducking_rules(engine, NULL, 1, TUTTI_NOW));
    OK(tutti_engine_set_ducking_rules(engine, NULL, 0, TUTTI_NOW));
    tutti_engine_destroy(engine);
    tutti_engine_config_init(&config);
    config.ducking_level_db = -100;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->ducking_level_db", tutti_engine_create(&config, &engine));
}

/* A signal-triggered rule (tutti_engine_set_ducking_rules2): the music is ducked while the
 * prompt sounds, not for as long as nav is active: -12 dB under the prompt, unity once the hold
 * and release have passed after it paused, ducked again when it plays; the events come at the
 * 10 ms window ends where the level crosses, and when nav leaves. */
static void a_signal_rule_ducks_while_the_ducker_sounds(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    tutti_session nav = make_session(engine, "nav", TUTTI_CATEGORY_PLAYBACK, TUTTI_OPTION_DUCK_OTHERS);
    tutti_source song, prompt;
    tutti_ducking_rule2 rule;
    tutti_event events[32];
    const int32_t kinds[4] = {TUTTI_EVENT_DUCKING_BEGAN, TUTTI_EVENT_DUCKING_ENDED, TUTTI_EVENT_DUCKING_BEGAN, TUTTI_EVENT_DUCKING_ENDED};
    const tutti_frame frames[4] = {5280, 12480, 14880, 19200};
    int n, k, seen = 0;
    float *x;
    tutti_ducking_rule2_init(&rule);
    CHECK(rule.struct_size == sizeof rule && rule.trigger == TUTTI_DUCKING_TRIGGER_ACTIVATION && rule.level_db == -15 &&
              rule.threshold_db == -40 && rule.hold_seconds == 0,
          "defaults: %u %d %f %f %f", rule.struct_size, rule.trigger, rule.level_db, rule.threshold_db, rule.hold_seconds);
    rule.by_session = nav;
    rule.duck_session = music;
    rule.level_db = -12;
    rule.attack_seconds = 0.01f;
    rule.release_seconds = 0.01f;
    rule.trigger = TUTTI_DUCKING_TRIGGER_SIGNAL;
    rule.threshold_db = -40;
    rule.hold_seconds = 0.05f;
    OK(tutti_engine_set_ducking_rules2(engine, &rule, 1, TUTTI_NOW));
    OK(tutti_source_create_tone(engine, music, 440, 0.5f, &song));
    OK(tutti_source_create_tone(engine, nav, 660, 0.5f, &prompt));
    OK(tutti_session_set_active(engine, music, 1, 0, TUTTI_NOW));
    OK(tutti_source_play(engine, song, TUTTI_NOW));
    OK(tutti_session_set_active(engine, nav, 1, 0, TUTTI_NOW));
    OK(tutti_source_play(engine, prompt, 4800));
    OK(tutti_source_pause(engine, prompt, 9600));
    OK(tutti_source_play(engine, prompt, 14400));
    OK(tutti_session_set_active(engine, nav, 0, 0, 19200));
    x = render_mono(engine, 24000);
    {
        double before = 20 * log10(tone_amplitude(x + 1000, 3600, 1, 440) / 0.5);
        double ducked = 20 * log10(tone_amplitude(x + 6000, 3600, 1, 440) / 0.5);
        double gap = 20 * log10(tone_amplitude(x + 13000, 1400, 1, 440) / 0.5);
        double again = 20 * log10(tone_amplitude(x + 16000, 3000, 1, 440) / 0.5);
        double after = 20 * log10(tone_amplitude(x + 20400, 3600, 1, 440) / 0.5);
        CHECK(fabs(before) < 0.1, "nav active, the prompt silent: unity, %f dB", before);
        CHECK(fabs(ducked + 12) < 0.1, "under the prompt: -12 dB, %f dB", ducked);
        CHECK(fabs(gap) < 0.1, "after hold and release: unity, %f dB", gap);
        CHECK(fabs(again + 12) < 0.1, "the prompt again: -12 dB, %f dB", again);
        CHECK(fabs(after) < 0.1, "nav gone: unity, %f dB", after);
    }
    free(x);
    n = drain_events(engine, events, 32);
    for (k = 0; k < n; k++) {
        if (events[k].type != TUTTI_EVENT_DUCKING_BEGAN && events[k].type != TUTTI_EVENT_DUCKING_ENDED) continue;
        CHECK(seen < 4 && events[k].type == kinds[seen] && events[k].frame == frames[seen] && events[k].session == music,
              "ducking event %d: %s at %lld", seen, tutti_event_type_string(events[k].type), (long long)events[k].frame);
        seen++;
    }
    CHECK(seen == 4, "four ducking events: %d", seen);
    tutti_engine_destroy(engine);
}

/* Bad rules2 name rules[i] and the C field; a caller built against a newer header (a larger
 * struct) is read at its stride; sizes this library does not know are refused. */
static void bad_signal_rules_name_their_field(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    tutti_session nav = make_session(engine, "nav", TUTTI_CATEGORY_PLAYBACK, TUTTI_OPTION_DUCK_OTHERS);
    tutti_ducking_rule2 rules[2];
    struct {
        tutti_ducking_rule2 rule;
        uint64_t future[2];
    } newer[2];
    int i;
    for (i = 0; i < 2; i++) {
        tutti_ducking_rule2_init(&rules[i]);
        rules[i].by_session = nav;
        rules[i].duck_session = music;
        rules[i].trigger = TUTTI_DUCKING_TRIGGER_SIGNAL;
    }
    rules[1].duck_session = 0;
    rules[1].duck_category = TUTTI_CATEGORY_AMBIENT;
    OK(tutti_engine_set_ducking_rules2(engine, rules, 2, TUTTI_NOW));
    rules[1].threshold_db = 5;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rules[1].threshold_db", tutti_engine_set_ducking_rules2(engine, rules, 2, TUTTI_NOW));
    rules[1].threshold_db = NAN;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rules[1].threshold_db must be finite", tutti_engine_set_ducking_rules2(engine, rules, 2, TUTTI_NOW));
    rules[1].threshold_db = -40;
    rules[1].hold_seconds = -1;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rules[1].hold_seconds", tutti_engine_set_ducking_rules2(engine, rules, 2, TUTTI_NOW));
    rules[1].hold_seconds = 0;
    rules[1].trigger = 7;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rules[1].trigger", tutti_engine_set_ducking_rules2(engine, rules, 2, TUTTI_NOW));
    rules[1].trigger = TUTTI_DUCKING_TRIGGER_ACTIVATION;
    rules[1].level_db = 3;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rules[1].level_db", tutti_engine_set_ducking_rules2(engine, rules, 2, TUTTI_NOW));
    rules[1].level_db = -6;
    rules[1].duck_category = TUTTI_CATEGORY_PLAYBACK;
    rules[1].duck_session = music; /* the same pair twice */
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rules[1]", tutti_engine_set_ducking_rules2(engine, rules, 2, TUTTI_NOW));
    rules[1].duck_session = 0;
    rules[1].struct_size = 8;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rules[1].struct_size", tutti_engine_set_ducking_rules2(engine, rules, 2, TUTTI_NOW));
    rules[0].struct_size = 8;
    FAILS(TUTTI_ERROR_VERSION, "rules->struct_size is 8", tutti_engine_set_ducking_rules2(engine, rules, 2, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rules", tutti_engine_set_ducking_rules2(engine, NULL, 1, TUTTI_NOW));
    OK(tutti_engine_set_ducking_rules2(engine, NULL, 0, TUTTI_NOW));
    for (i = 0; i < 2; i++) {
        newer[i].rule = rules[i];
        newer[i].rule.struct_size = sizeof newer[0];
        newer[i].future[0] = newer[i].future[1] = ~0ull;
    }
    OK(tutti_engine_set_ducking_rules2(engine, &newer[0].rule, 2, TUTTI_NOW));
    newer[1].rule.trigger = TUTTI_DUCKING_TRIGGER_SIGNAL;
    newer[1].rule.hold_seconds = 4000; /* read at the caller's stride: found */
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rules[1].hold_seconds", tutti_engine_set_ducking_rules2(engine, &newer[0].rule, 2, TUTTI_NOW));
    tutti_engine_destroy(engine);
}

static void a_source_from_memory_plays_at_its_pitch_and_loops(void) {
    tutti_session music;
    tutti_source song, looped;
    tutti_engine *engine = make_engine(1, 0);
    float *data = malloc(44100 * sizeof(float)), *x;
    uint32_t k;
    music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    for (k = 0; k < 44100; k++) data[k] = (float)(0.5 * sin(PI2 * 441.0 * k / 44100.0));
    OK(tutti_source_create_buffer(engine, music, data, 44100, 44100, 1, TUTTI_SOURCE_LOOP, &looped));
    memset(data, 0, sizeof(float)); /* copied at create: the source keeps its own */
    OK(tutti_source_play(engine, looped, TUTTI_NOW));
    x = render_mono(engine, 120000);
    CHECK(fabs(frequency_of(x + 4800, 38400) - 441) < 0.05, "plays at %f Hz", frequency_of(x + 4800, 38400));
    CHECK(fabs(tone_amplitude(x + 100000, 9600, 1, 441) - 0.5) < 0.01, "looping at 2 s: %f", tone_amplitude(x + 100000, 9600, 1, 441));
    free(x);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "channels", tutti_source_create_buffer(engine, music, data, 100, 44100, 3, 0, &song));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "sample_rate", tutti_source_create_buffer(engine, music, data, 100, 100, 1, 0, &song));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "interleaved", tutti_source_create_buffer(engine, music, NULL, 100, 44100, 1, 0, &song));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "flags", tutti_source_create_buffer(engine, music, data, 100, 44100, 1, 8, &song));
    free(data);
    tutti_engine_destroy(engine);
}

/* The session's state as the policy renders it: inactive, audible, silenced (by the silent
 * switch, an ambient session), interrupted (a call), and the two hints, read back from C. */
static void a_sessions_state_is_read_back(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    tutti_session game = make_session(engine, "game", TUTTI_CATEGORY_AMBIENT, 0);
    tutti_session_state state = -5;
    tutti_silence_reason reason = -5;
    int32_t other = -5, hint = -5;
    tutti_source tone;
    float *x;
    OK(tutti_session_get_state(engine, music, &state, &reason, &other, &hint));
    CHECK(state == TUTTI_SESSION_STATE_INACTIVE && reason == -1 && other == 0 && hint == 0, "inactive: %d %d %d %d", state, reason,
          other, hint);
    OK(tutti_session_get_state(engine, music, NULL, NULL, NULL, NULL)); /* every out pointer may be NULL */
    OK(tutti_source_create_tone(engine, music, 440, 0.5f, &tone));
    OK(tutti_source_play(engine, tone, TUTTI_NOW));
    OK(tutti_session_set_active(engine, music, 1, 0, TUTTI_NOW));
    OK(tutti_session_set_active(engine, game, 1, 0, TUTTI_NOW));
    x = render_mono(engine, 480);
    free(x);
    OK(tutti_session_get_state(engine, music, &state, &reason, &other, &hint));
    CHECK(state == TUTTI_SESSION_STATE_AUDIBLE && reason == -1, "music audible: %d %d", state, reason);
    OK(tutti_session_get_state(engine, game, &state, &reason, &other, &hint));
    CHECK(state == TUTTI_SESSION_STATE_AUDIBLE && other == 1 && hint == 1, "game hears music (non-mixable): %d %d %d", state, other,
          hint);
    OK(tutti_system_set_silent_switch(engine, 1, TUTTI_NOW));
    x = render_mono(engine, 480);
    free(x);
    OK(tutti_session_get_state(engine, game, &state, &reason, NULL, NULL));
    CHECK(state == TUTTI_SESSION_STATE_SILENCED && reason == TUTTI_SILENCE_SILENT_SWITCH, "game silenced by the switch: %d %d", state,
          reason);
    OK(tutti_system_begin_phone_call(engine, TUTTI_NOW));
    x = render_mono(engine, 480);
    free(x);
    OK(tutti_session_get_state(engine, music, &state, NULL, &other, &hint));
    CHECK(state == TUTTI_SESSION_STATE_INTERRUPTED && other == 1 && hint == 1, "music interrupted by the call: %d %d %d", state, other,
          hint);
    OK(tutti_session_destroy(engine, game, TUTTI_NOW));
    FAILS(TUTTI_ERROR_NOT_FOUND, "tutti_session_get_state", tutti_session_get_state(engine, game, &state, NULL, NULL, NULL));
    tutti_engine_destroy(engine);
}

/* The device side read back after setting it, the call flag, and the volume button's steps:
 * on the system volume while something is heard, on the ringer volume otherwise. */
static void the_device_side_and_the_volume_button(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    tutti_source tone;
    float volume = -1, ringer = -1;
    tutti_route route = -1;
    int32_t silent = -1, locked = -1, muted = -1, call = -1;
    float *x;
    OK(tutti_system_set_volume(engine, 0.5f, TUTTI_NOW));
    OK(tutti_system_set_ringer_volume(engine, 0.25f, TUTTI_NOW));
    OK(tutti_system_set_route(engine, TUTTI_ROUTE_HEADPHONES, TUTTI_NOW));
    OK(tutti_system_set_locked(engine, 1, TUTTI_NOW));
    OK(tutti_system_set_mic_muted(engine, 1, TUTTI_NOW));
    OK(tutti_system_get_state(engine, &volume, &ringer, &route, &silent, &locked, &muted, &call));
    CHECK(volume == 0.5f && ringer == 0.25f && route == TUTTI_ROUTE_HEADPHONES && silent == 0 && locked == 1 && muted == 1 && call == 0,
          "read back: %f %f %d %d %d %d %d", volume, ringer, route, silent, locked, muted, call);
    /* Nothing heard: the button steps the ringer volume by 1/16. */
    OK(tutti_system_press_volume_button(engine, 1, TUTTI_NOW));
    OK(tutti_system_get_state(engine, &volume, &ringer, NULL, NULL, NULL, NULL, NULL));
    CHECK(volume == 0.5f && fabs(ringer - (0.25 + 1.0 / 16)) < 1e-6, "ringer up: %f %f", volume, ringer);
    /* Music heard: the system volume, down one step, and the output 1/16 lower. */
    OK(tutti_source_create_tone(engine, music, 440, 0.5f, &tone));
    OK(tutti_source_play(engine, tone, TUTTI_NOW));
    OK(tutti_session_set_active(engine, music, 1, 0, TUTTI_NOW));
    x = render_mono(engine, 4800);
    free(x);
    OK(tutti_system_press_volume_button(engine, 0, TUTTI_NOW));
    OK(tutti_system_get_state(engine, &volume, &ringer, NULL, NULL, NULL, NULL, NULL));
    CHECK(fabs(volume - (0.5 - 1.0 / 16)) < 1e-6 && fabs(ringer - (0.25 + 1.0 / 16)) < 1e-6, "volume down: %f %f", volume, ringer);
    OK(tutti_system_begin_phone_call(engine, TUTTI_NOW));
    OK(tutti_system_get_state(engine, NULL, NULL, NULL, NULL, NULL, NULL, &call));
    CHECK(call == 1, "a call is active: %d", call);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine", tutti_system_get_state(NULL, &volume, NULL, NULL, NULL, NULL, NULL, NULL));
    tutti_engine_destroy(engine);
}

/* A silent source plays (it counts as playing) and is not heard; a source's route is read
 * back into a buffer that fits, the length alone with a NULL buffer, and a short buffer is
 * refused with nothing written; no output runs on a pull engine. */
static void silence_routes_and_the_output_flag(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    tutti_source quiet;
    int32_t state = -1, running = -1;
    char name[8];
    size_t length = 0;
    float *x;
    OK(tutti_source_create_silence(engine, music, &quiet));
    OK(tutti_source_play(engine, quiet, TUTTI_NOW));
    OK(tutti_session_set_active(engine, music, 1, 0, TUTTI_NOW));
    x = render_mono(engine, 4800);
    CHECK(peak(x, 0, 4800) == 0, "silent: %f", peak(x, 0, 4800));
    free(x);
    OK(tutti_source_get_status(engine, quiet, &state, NULL, NULL));
    CHECK(state == TUTTI_SOURCE_PLAYING, "it plays: %d", state);
    OK(tutti_source_get_output_bus(engine, quiet, name, sizeof name, &length));
    CHECK(strcmp(name, "main") == 0 && length == 4, "output bus %s (%zu)", name, length);
    length = 0;
    OK(tutti_source_get_output_bus(engine, quiet, NULL, 0, &length));
    CHECK(length == 4, "length alone: %zu", length);
    memset(name, 'x', sizeof name);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "capacity", tutti_source_get_output_bus(engine, quiet, name, 4, NULL));
    CHECK(name[0] == 'x', "nothing written into a short buffer");
    OK(tutti_output_is_running(engine, &running));
    CHECK(running == 0, "no output: %d", running);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "running", tutti_output_is_running(engine, NULL));
    int32_t backend = 99;
    FAILS(TUTTI_ERROR_STATE, "no output is running", tutti_output_backend(engine, &backend));
    CHECK(backend == 99, "nothing written without an output: %d", backend);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "backend", tutti_output_backend(engine, NULL));
    FAILS(TUTTI_ERROR_NOT_FOUND, "tutti_source_create_silence", tutti_source_create_silence(engine, music + 999, &quiet));
    tutti_engine_destroy(engine);
}

/* A session's PipeWire media role: its category's (the table of docs/backends.md), an
 * override set by name that survives a category change, NULL back to the category's, an
 * unknown name refused with nothing changed, "" without output, the buffer convention of the
 * other name getters, and NOT_FOUND once the session is destroyed. */
static void a_sessions_media_role_is_set_and_read_back(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session song = make_session(engine, "song", TUTTI_CATEGORY_PLAYBACK, 0);
    tutti_session mic = make_session(engine, "mic", TUTTI_CATEGORY_RECORD, 0);
    char name[16];
    size_t length = 0;
    OK(tutti_session_get_media_role(engine, song, name, sizeof name, &length));
    CHECK(strcmp(name, "Music") == 0 && length == 5, "playback's role %s (%zu)", name, length);
    OK(tutti_session_set_media_role(engine, song, "Game"));
    OK(tutti_session_get_media_role(engine, song, name, sizeof name, &length));
    CHECK(strcmp(name, "Game") == 0 && length == 4, "set to %s (%zu)", name, length);
    OK(tutti_session_set_category(engine, song, TUTTI_CATEGORY_PLAY_AND_RECORD, TUTTI_MODE_DEFAULT, 0));
    OK(tutti_session_get_media_role(engine, song, name, sizeof name, NULL));
    CHECK(strcmp(name, "Game") == 0, "the override outlives a category change: %s", name);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "role", tutti_session_set_media_role(engine, song, "Musak"));
    CHECK(strstr(tutti_last_error(), "Musak") != NULL && strstr(tutti_last_error(), "Communication") != NULL,
          "the message names the value and the names: %s", tutti_last_error());
    OK(tutti_session_get_media_role(engine, song, name, sizeof name, NULL));
    CHECK(strcmp(name, "Game") == 0, "nothing changed by an unknown name: %s", name);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "role", tutti_session_set_media_role(engine, song, "game"));
    OK(tutti_session_set_media_role(engine, song, NULL));
    OK(tutti_session_get_media_role(engine, song, name, sizeof name, &length));
    CHECK(strcmp(name, "Communication") == 0 && length == 13, "NULL: back to playAndRecord's role, %s (%zu)", name, length);
    /* The buffer: the length alone, a short buffer refused with nothing written. */
    length = 0;
    OK(tutti_session_get_media_role(engine, song, NULL, 0, &length));
    CHECK(length == 13, "length alone: %zu", length);
    memset(name, 'x', sizeof name);
    length = 0;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "capacity", tutti_session_get_media_role(engine, song, name, 13, &length));
    CHECK(name[0] == 'x' && length == 13, "nothing written into a short buffer (%c), the length still given (%zu)", name[0], length);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "name", tutti_session_get_media_role(engine, song, NULL, 8, NULL));
    /* Without output: "", also after an override. */
    OK(tutti_session_set_media_role(engine, mic, "Test"));
    length = 99;
    OK(tutti_session_get_media_role(engine, mic, name, sizeof name, &length));
    CHECK(name[0] == 0 && length == 0, "a recorder has no role: \"%s\" (%zu)", name, length);
    OK(tutti_session_destroy(engine, song, TUTTI_NOW));
    FAILS(TUTTI_ERROR_NOT_FOUND, "tutti_session_set_media_role", tutti_session_set_media_role(engine, song, "Game"));
    FAILS(TUTTI_ERROR_NOT_FOUND, "tutti_session_get_media_role", tutti_session_get_media_role(engine, song, name, sizeof name, NULL));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine", tutti_session_set_media_role(NULL, mic, "Game"));
    tutti_engine_destroy(engine);
}

int main(void) {
    TEST(session_gain_scales_its_sources);
    TEST(a_session_resumes_after_an_interruption);
    TEST(ducking_rules_and_the_engines_envelope);
    TEST(a_signal_rule_ducks_while_the_ducker_sounds);
    TEST(bad_signal_rules_name_their_field);
    TEST(a_source_from_memory_plays_at_its_pitch_and_loops);
    TEST(a_sessions_state_is_read_back);
    TEST(the_device_side_and_the_volume_button);
    TEST(silence_routes_and_the_output_flag);
    TEST(a_sessions_media_role_is_set_and_read_back);
    return harness_done();
}
