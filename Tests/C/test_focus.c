/* The policy's focus rules from C: sessions with attributes (pause instead of duck, speech,
 * delayed activation, accessibility), the interaction table, and the loss fade of the engine
 * config — each measured in the output and the events, each bad input refused by name. */
#include <stddef.h>

#include "harness.h"

#define MAX_EVENTS 64

/* An engine with `music` (PLAYBACK) playing a 440 Hz tone at 0.5 from frame 0. */
static tutti_engine *player(const tutti_engine_config *config, tutti_session *music) {
    tutti_engine *engine = NULL;
    tutti_source song;
    OK(tutti_engine_create(config, &engine));
    *music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    OK(tutti_source_create_tone(engine, *music, 440, 0.5f, &song));
    OK(tutti_session_set_active(engine, *music, 1, 0, TUTTI_NOW));
    OK(tutti_source_play(engine, song, TUTTI_NOW));
    return engine;
}

static tutti_engine *mono_player(tutti_session *music) {
    tutti_engine_config config;
    tutti_engine_config_init(&config);
    config.channels = 1;
    return player(&config, music);
}

/* A mono engine with no session. */
static tutti_engine *mono_engine(void) {
    tutti_engine_config config;
    tutti_engine *engine = NULL;
    tutti_engine_config_init(&config);
    config.channels = 1;
    OK(tutti_engine_create(&config, &engine));
    return engine;
}

/* A speech session pauses where it would be ducked, and resumes when the ducking ends. */
static void speech_pauses_instead_of_being_ducked(void) {
    tutti_session talk, nav;
    tutti_source voice;
    tutti_engine *engine = mono_engine();
    tutti_event e[MAX_EVENTS];
    const tutti_event *began, *ended;
    int n;
    float *x;
    OK(tutti_session_create_with(engine, "talk", TUTTI_CATEGORY_PLAYBACK, TUTTI_SESSION_SPEECH, &talk));
    OK(tutti_source_create_tone(engine, talk, 440, 0.5f, &voice));
    OK(tutti_session_set_active(engine, talk, 1, 0, TUTTI_NOW));
    OK(tutti_source_play(engine, voice, TUTTI_NOW));
    nav = make_session(engine, "nav", TUTTI_CATEGORY_PLAYBACK, TUTTI_OPTION_MIX_WITH_OTHERS | TUTTI_OPTION_DUCK_OTHERS);
    OK(tutti_session_set_active(engine, nav, 1, 0, 9600));
    OK(tutti_session_set_active(engine, nav, 0, 0, 19200));
    x = render_mono(engine, 28800);
    n = drain_events(engine, e, MAX_EVENTS);
    began = find_event(e, n, TUTTI_EVENT_INTERRUPTION_BEGAN, talk);
    ended = find_event(e, n, TUTTI_EVENT_INTERRUPTION_ENDED, talk);
    CHECK(began && began->reason == TUTTI_INTERRUPTION_REASON_DUCKED, "interrupted (ducked): %d", began ? began->reason : -1);
    CHECK(ended && (ended->flags & TUTTI_EVENT_SHOULD_RESUME), "resumes: %u", ended ? ended->flags : 0);
    CHECK(find_event(e, n, TUTTI_EVENT_DUCKING_BEGAN, talk) == NULL, "never ducked%s", "");
    CHECK(peak(x, 12000, 19200) == 0, "silent while the nav speaks: %f", peak(x, 12000, 19200));
    CHECK(fabs(tone_amplitude(x + 4800, 4800, 1, 440) - 0.5) < 0.01, "before: %f", tone_amplitude(x + 4800, 4800, 1, 440));
    free(x);
    tutti_engine_destroy(engine);
}

/* An activation during a call is delayed, then granted when the call ends. */
static void delayed_activation_is_granted_when_the_call_ends(void) {
    tutti_session music, podcast;
    tutti_source talk;
    tutti_engine *engine = mono_player(&music);
    tutti_event e[MAX_EVENTS];
    int n;
    float *x;
    OK(tutti_session_create_with(engine, "podcast", TUTTI_CATEGORY_PLAYBACK, TUTTI_SESSION_ACCEPTS_DELAYED_ACTIVATION, &podcast));
    OK(tutti_source_create_tone(engine, podcast, 1000, 0.25f, &talk));
    OK(tutti_system_begin_phone_call(engine, 4800));
    OK(tutti_session_set_active(engine, podcast, 1, 0, 9600)); /* not DENIED: delayed */
    OK(tutti_source_play(engine, talk, 9600));
    OK(tutti_system_end_phone_call(engine, 19200));
    x = render_mono(engine, 28800);
    n = drain_events(engine, e, MAX_EVENTS);
    CHECK(find_event(e, n, TUTTI_EVENT_ACTIVATION_DELAYED, podcast) != NULL, "delayed%s", "");
    CHECK(find_event(e, n, TUTTI_EVENT_ACTIVATION_GRANTED, podcast) != NULL, "granted%s", "");
    CHECK(fabs(tone_amplitude(x + 14400, 4800, 1, 1000)) < 0.001, "nothing during the call: %f",
          tone_amplitude(x + 14400, 4800, 1, 1000));
    CHECK(fabs(tone_amplitude(x + 24000, 4800, 1, 1000) - 0.25) < 0.01, "plays once granted: %f",
          tone_amplitude(x + 24000, 4800, 1, 1000));
    free(x);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "acceptsDelayedActivation",
          tutti_session_create_with(engine, "bg", TUTTI_CATEGORY_AMBIENT, TUTTI_SESSION_ACCEPTS_DELAYED_ACTIVATION, &podcast));
    tutti_engine_destroy(engine);
}

/* An accessibility session is not ducked; while it plays, music is ducked. */
static void accessibility_ducks_the_others(void) {
    tutti_session music, reader;
    tutti_source speech;
    tutti_engine *engine = mono_player(&music);
    tutti_event e[MAX_EVENTS];
    int n;
    float *x;
    OK(tutti_session_create_with(engine, "reader", TUTTI_CATEGORY_PLAYBACK, TUTTI_SESSION_ACCESSIBILITY, &reader));
    OK(tutti_source_create_tone(engine, reader, 1000, 0.25f, &speech));
    OK(tutti_session_set_active(engine, reader, 1, 0, 4800));
    OK(tutti_source_play(engine, speech, 4800));
    x = render_mono(engine, 28800);
    n = drain_events(engine, e, MAX_EVENTS);
    CHECK(find_event(e, n, TUTTI_EVENT_DUCKING_BEGAN, music) != NULL, "music ducked%s", "");
    CHECK(find_event(e, n, TUTTI_EVENT_INTERRUPTION_BEGAN, music) == NULL, "music not interrupted%s", "");
    /* Music at -15 dB once the attack is over, the reader at its level. */
    CHECK(fabs(tone_amplitude(x + 19200, 9600, 1, 440) - 0.5 * 0.17782794) < 0.005, "ducked: %f",
          tone_amplitude(x + 19200, 9600, 1, 440));
    CHECK(fabs(tone_amplitude(x + 19200, 9600, 1, 1000) - 0.25) < 0.005, "reader: %f", tone_amplitude(x + 19200, 9600, 1, 1000));
    free(x);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "attributes", tutti_session_create_with(engine, "x", TUTTI_CATEGORY_PLAYBACK, 32u, &reader));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "category", tutti_session_create_with(engine, "x", 99, 0, &reader));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "out", tutti_session_create_with(engine, "x", TUTTI_CATEGORY_PLAYBACK, 0, NULL));
    tutti_engine_destroy(engine);
}

/* A table row rejects an activation; bad rows are named and change nothing. */
static void the_interaction_table(void) {
    tutti_session music, game;
    tutti_engine *engine = mono_player(&music);
    tutti_interaction rows[2];
    tutti_event e[MAX_EVENTS];
    int n;
    float *x;
    game = make_session(engine, "game", TUTTI_CATEGORY_AMBIENT, 0);
    memset(rows, 0, sizeof rows);
    rows[0].active_session = music;
    rows[0].incoming_category = TUTTI_CATEGORY_AMBIENT;
    rows[0].outcome = TUTTI_OUTCOME_REJECT;
    OK(tutti_engine_set_interactions(engine, rows, 1, TUTTI_NOW));
    x = render_mono(engine, 256);
    free(x);
    FAILS(TUTTI_ERROR_DENIED, "rejectedByTable", tutti_session_set_active(engine, game, 1, 0, TUTTI_NOW));
    rows[0].outcome = TUTTI_OUTCOME_SILENCE;
    OK(tutti_engine_set_interactions(engine, rows, 1, TUTTI_NOW));
    OK(tutti_session_set_active(engine, game, 1, 0, 4800));
    x = render_mono(engine, 19200);
    n = drain_events(engine, e, MAX_EVENTS);
    (void)n;
    CHECK(peak(x, 9600, 19200) == 0, "music silenced by the row: %f", peak(x, 9600, 19200));
    free(x);

    rows[1] = rows[0];
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rows[1]", tutti_engine_set_interactions(engine, rows, 2, TUTTI_NOW));
    rows[1].active_session = 12345;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rows[1].active_session", tutti_engine_set_interactions(engine, rows, 2, TUTTI_NOW));
    rows[1].active_session = 0;
    rows[1].active_category = 99;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rows[1].active_category", tutti_engine_set_interactions(engine, rows, 2, TUTTI_NOW));
    rows[1].active_category = TUTTI_CATEGORY_PLAYBACK;
    rows[1].outcome = 9;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rows[1].outcome", tutti_engine_set_interactions(engine, rows, 2, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rows", tutti_engine_set_interactions(engine, NULL, 1, TUTTI_NOW));
    /* The table in force is still the one row: music stays silenced. */
    x = render_mono(engine, 4800);
    CHECK(peak(x, 0, 4800) == 0, "unchanged: %f", peak(x, 0, 4800));
    free(x);
    OK(tutti_engine_set_interactions(engine, NULL, 0, TUTTI_NOW));
    x = render_mono(engine, 9600);
    CHECK(fabs(tone_amplitude(x + 4800, 4800, 1, 440) - 0.5) < 0.01, "table cleared: %f", tone_amplitude(x + 4800, 4800, 1, 440));
    free(x);
    tutti_engine_destroy(engine);
}

/* loss_fade_seconds: an interrupted session fades out over it; older layouts read 0. */
static void the_loss_fade(void) {
    tutti_engine_config config;
    tutti_engine *engine = NULL;
    tutti_session music, call;
    float *x;
    double mid;
    tutti_engine_config_init(&config);
    CHECK(config.loss_fade_seconds == 0, "default %f", config.loss_fade_seconds);
    config.channels = 1;
    config.loss_fade_seconds = 0.5f;
    engine = player(&config, &music);
    call = make_session(engine, "voip", TUTTI_CATEGORY_PLAY_AND_RECORD, 0);
    OK(tutti_session_set_active(engine, call, 1, 0, 4800));
    x = render_mono(engine, 48000);
    /* Half-way through the 0.5 s fade (12 000 frames after it began) the tone is well below
     * its level but not silent; after the fade, silence. */
    mid = tone_amplitude(x + 4800 + 12000 - 960, 1920, 1, 440);
    CHECK(mid > 0.02 && mid < 0.4, "half-way: %f", mid);
    CHECK(peak(x, 4800 + 24000 + 960, 48000) == 0, "after the fade: %f", peak(x, 4800 + 24000 + 960, 48000));
    free(x);
    tutti_engine_destroy(engine);

    tutti_engine_config_init(&config);
    config.loss_fade_seconds = 11;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->loss_fade_seconds", tutti_engine_create(&config, &engine));
    config.loss_fade_seconds = NAN;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->loss_fade_seconds", tutti_engine_create(&config, &engine));
    config.struct_size = (uint32_t)offsetof(tutti_engine_config, loss_fade_seconds); /* the limiter layout */
    OK(tutti_engine_create(&config, &engine));
    tutti_engine_destroy(engine);
    config.struct_size = (uint32_t)offsetof(tutti_engine_config, loss_fade_seconds) + 2;
    FAILS(TUTTI_ERROR_VERSION, "struct_size", tutti_engine_create(&config, &engine));
}

int main(void) {
    TEST(speech_pauses_instead_of_being_ducked);
    TEST(delayed_activation_is_granted_when_the_call_ends);
    TEST(accessibility_ducks_the_others);
    TEST(the_interaction_table);
    TEST(the_loss_fade);
    return harness_done();
}
