/* What the C ABI gained to match the Swift host API, measured in the output: session gain,
 * resuming a session, ducking rules and the engine's duck envelope, sources from memory. */
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

int main(void) {
    TEST(session_gain_scales_its_sources);
    TEST(a_session_resumes_after_an_interruption);
    TEST(ducking_rules_and_the_engines_envelope);
    TEST(a_source_from_memory_plays_at_its_pitch_and_loops);
    return harness_done();
}
