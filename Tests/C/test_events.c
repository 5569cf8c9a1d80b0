/* Events: interruptions (with TUTTI_EVENT_SHOULD_RESUME and their reasons), the policy's
 * refusals (DENIED with the reason), ducking, routes, remote commands; delivered once
 * rendering has passed their frame, in frame order, each once; the event fd. */
#define _POSIX_C_SOURCE 200809L
#include <poll.h>

#include "harness.h"

#define MAX_EVENTS 64

/* Events other than the silence hints (those come with most policy changes). */
static int policy_events(tutti_engine *engine, tutti_event *out) {
    tutti_event all[MAX_EVENTS];
    int n = drain_events(engine, all, MAX_EVENTS), k, m = 0;
    for (k = 0; k < n && k < MAX_EVENTS; k++)
        if (all[k].type != TUTTI_EVENT_SILENCE_SECONDARY_AUDIO_HINT) out[m++] = all[k];
    return m;
}

static tutti_engine *player(tutti_session *music, tutti_source *song) {
    tutti_engine *engine = make_engine(1, 0);
    *music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    OK(tutti_source_create_tone(engine, *music, 440, 0.5f, song));
    OK(tutti_session_set_active(engine, *music, 1, 0, TUTTI_NOW));
    OK(tutti_source_play(engine, *song, TUTTI_NOW));
    return engine;
}

/* Every event type has its own name; anything else is "UNKNOWN". */
static void event_types_have_names(void) {
    int32_t a, b;
    for (a = TUTTI_EVENT_INTERRUPTION_BEGAN; a <= TUTTI_EVENT_SOURCE_UNDERRUN; a++) {
        CHECK(strcmp(tutti_event_type_string(a), "UNKNOWN") != 0, "type %d has no name", a);
        for (b = 0; b < a; b++)
            CHECK(strcmp(tutti_event_type_string(a), tutti_event_type_string(b)) != 0, "types %d and %d share \"%s\"", a, b,
                  tutti_event_type_string(a));
    }
    CHECK(strcmp(tutti_event_type_string(TUTTI_EVENT_SOURCE_UNDERRUN), "SOURCE_UNDERRUN") == 0, "%s",
          tutti_event_type_string(TUTTI_EVENT_SOURCE_UNDERRUN));
    CHECK(strcmp(tutti_event_type_string(-1), "UNKNOWN") == 0 && strcmp(tutti_event_type_string(99), "UNKNOWN") == 0,
          "%s", tutti_event_type_string(99));
}

static void interruption_by_another_session_and_should_resume(void) {
    tutti_session music, voip;
    tutti_source song;
    tutti_engine *engine = player(&music, &song);
    tutti_event e[MAX_EVENTS];
    int n;
    float *x;
    voip = make_session(engine, "voip", TUTTI_CATEGORY_PLAY_AND_RECORD, 0);
    OK(tutti_session_set_active(engine, voip, 1, 0, 4800));
    OK(tutti_session_set_active(engine, voip, 0, TUTTI_NOTIFY_OTHERS_ON_DEACTIVATION, 9600));
    x = render_mono(engine, 19200);
    n = policy_events(engine, e);
    CHECK(n == 2, "two events, got %d", n);
    if (n == 2) {
        CHECK(e[0].type == TUTTI_EVENT_INTERRUPTION_BEGAN && e[0].reason == TUTTI_INTERRUPTION_REASON_OTHER_SESSION &&
                  e[0].frame == 4800 && e[0].session == music && e[0].source == 0 && e[0].flags == 0,
              "began: type %d reason %d frame %lld session %llx", e[0].type, e[0].reason, (long long)e[0].frame,
              (unsigned long long)e[0].session);
        CHECK(e[1].type == TUTTI_EVENT_INTERRUPTION_ENDED && e[1].flags == TUTTI_EVENT_SHOULD_RESUME && e[1].frame == 9600 &&
                  e[1].session == music,
              "ended with SHOULD_RESUME: type %d flags %u frame %lld", e[1].type, e[1].flags, (long long)e[1].frame);
    }
    /* Heard, interrupted (silent), heard again (it resumes by itself). */
    CHECK(fabs(tone_amplitude(x + 1000, 3000, 1, 440) - 0.5) < 0.01, "before: %f", tone_amplitude(x + 1000, 3000, 1, 440));
    CHECK(peak(x, 6000, 9600) == 0, "interrupted: %f", peak(x, 6000, 9600));
    CHECK(fabs(tone_amplitude(x + 12000, 4800, 1, 440) - 0.5) < 0.01, "resumed: %f", tone_amplitude(x + 12000, 4800, 1, 440));
    free(x);

    /* Without TUTTI_NOTIFY_OTHERS_ON_DEACTIVATION: no SHOULD_RESUME. */
    OK(tutti_session_set_active(engine, voip, 1, 0, TUTTI_NOW));
    OK(tutti_session_set_active(engine, voip, 0, 0, 24000));
    x = render_mono(engine, 9600);
    n = policy_events(engine, e);
    CHECK(n == 2 && e[1].type == TUTTI_EVENT_INTERRUPTION_ENDED && e[1].flags == 0, "%d events; ended flags %u", n,
          n == 2 ? e[1].flags : 99);
    free(x);
    tutti_engine_destroy(engine);
}

/* Focus requests in the activation's flags: TRANSIENT lets the player resume without
 * NOTIFY_OTHERS_ON_DEACTIVATION; TRANSIENT_MAY_DUCK ducks it instead of interrupting it. */
static void focus_requests(void) {
    tutti_session music, alert;
    tutti_source song;
    tutti_engine *engine = player(&music, &song);
    tutti_event e[MAX_EVENTS];
    int n;
    float *x;
    alert = make_session(engine, "alert", TUTTI_CATEGORY_PLAYBACK, 0);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "deactivation", tutti_session_set_active(engine, alert, 0, TUTTI_FOCUS_TRANSIENT, TUTTI_NOW));
    OK(tutti_session_set_active(engine, alert, 1, TUTTI_FOCUS_TRANSIENT, 4800));
    OK(tutti_session_set_active(engine, alert, 0, 0, 9600));
    x = render_mono(engine, 19200);
    n = policy_events(engine, e);
    CHECK(n == 2 && e[0].type == TUTTI_EVENT_INTERRUPTION_BEGAN && e[1].type == TUTTI_EVENT_INTERRUPTION_ENDED &&
              e[1].flags == TUTTI_EVENT_SHOULD_RESUME,
          "transient: %d events, ended flags %u", n, n == 2 ? e[1].flags : 99);
    CHECK(peak(x, 6000, 9600) == 0, "interrupted: %f", peak(x, 6000, 9600));
    CHECK(fabs(tone_amplitude(x + 12000, 4800, 1, 440) - 0.5) < 0.01, "resumed: %f", tone_amplitude(x + 12000, 4800, 1, 440));
    free(x);

    OK(tutti_session_set_active(engine, alert, 1, TUTTI_FOCUS_TRANSIENT_MAY_DUCK, 19200));
    x = render_mono(engine, 24000);
    n = policy_events(engine, e);
    CHECK(n == 1 && e[0].type == TUTTI_EVENT_DUCKING_BEGAN && e[0].session == music, "may duck: %d events, first %d", n,
          n > 0 ? e[0].type : -1);
    /* Music at -15 dB once the 100 ms attack is over. */
    CHECK(fabs(tone_amplitude(x + 12000, 12000, 1, 440) - 0.5 * 0.17782794) < 0.005, "ducked: %f",
          tone_amplitude(x + 12000, 12000, 1, 440));
    free(x);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "flags", tutti_session_set_active(engine, alert, 1, 0x400u, TUTTI_NOW));
    tutti_engine_destroy(engine);
}

static void phone_calls_and_denied_activation(void) {
    tutti_session music, radio;
    tutti_source song;
    tutti_engine *engine = player(&music, &song);
    tutti_event e[MAX_EVENTS];
    const tutti_event *began, *ended;
    int n;
    float *x;
    OK(tutti_system_begin_phone_call(engine, 1000));
    OK(tutti_system_end_phone_call(engine, 2000));
    x = render_mono(engine, 4096);
    n = policy_events(engine, e);
    began = find_event(e, n, TUTTI_EVENT_INTERRUPTION_BEGAN, music);
    ended = find_event(e, n, TUTTI_EVENT_INTERRUPTION_ENDED, music);
    CHECK(began != NULL && began->reason == TUTTI_INTERRUPTION_REASON_PHONE_CALL && began->frame == 1000, "began: reason %d",
          began ? began->reason : -1);
    CHECK(ended != NULL && ended->flags == TUTTI_EVENT_SHOULD_RESUME && ended->frame == 2000, "ended: flags %u",
          ended ? ended->flags : 0);
    free(x);

    /* During a call, activation is refused with the reason; nothing changes. */
    radio = make_session(engine, "radio", TUTTI_CATEGORY_PLAYBACK, 0);
    OK(tutti_system_begin_phone_call(engine, TUTTI_NOW));
    x = render_mono(engine, 1024);
    free(x);
    (void)policy_events(engine, e);
    FAILS(TUTTI_ERROR_DENIED, "phone call", tutti_session_set_active(engine, radio, 1, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_DENIED, "insufficientPriority", tutti_session_set_active(engine, radio, 1, 0, TUTTI_NOW));
    OK(tutti_system_end_phone_call(engine, TUTTI_NOW));
    x = render_mono(engine, 4800);
    n = policy_events(engine, e);
    CHECK(find_event(e, n, TUTTI_EVENT_INTERRUPTION_BEGAN, radio) == NULL && find_event(e, n, TUTTI_EVENT_INTERRUPTION_ENDED, radio) == NULL,
          "the refused session never became active: no events for it (%d events)", n);
    CHECK(fabs(tone_amplitude(x + 2400, 2400, 1, 440) - 0.5) < 0.01, "the music is back: %f", tone_amplitude(x + 2400, 2400, 1, 440));
    free(x);

    /* From the background, a non-mixable activation over a playing session is refused. */
    OK(tutti_session_set_foreground(engine, radio, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_DENIED, "cannotInterruptOthers", tutti_session_set_active(engine, radio, 1, 0, TUTTI_NOW));
    x = render_mono(engine, 2400);
    CHECK(fabs(tone_amplitude(x, 2400, 1, 440) - 0.5) < 0.01, "the music was not interrupted: %f", tone_amplitude(x, 2400, 1, 440));
    free(x);
    tutti_engine_destroy(engine);
}

static void ducking(void) {
    tutti_session music, nav;
    tutti_source song, prompt;
    tutti_engine *engine = player(&music, &song);
    tutti_event e[MAX_EVENTS];
    int n;
    float *x;
    nav = make_session(engine, "nav", TUTTI_CATEGORY_PLAYBACK, TUTTI_OPTION_DUCK_OTHERS);
    OK(tutti_source_create_tone(engine, nav, 660, 0.5f, &prompt));
    OK(tutti_session_set_active(engine, nav, 1, 0, 4800));
    OK(tutti_source_play(engine, prompt, 4800));
    OK(tutti_session_set_active(engine, nav, 0, TUTTI_NOTIFY_OTHERS_ON_DEACTIVATION, 24000));
    x = render_mono(engine, 48000);
    n = policy_events(engine, e);
    CHECK(n == 2 && e[0].type == TUTTI_EVENT_DUCKING_BEGAN && e[0].session == music && e[0].frame == 4800 &&
              e[1].type == TUTTI_EVENT_DUCKING_ENDED && e[1].session == music && e[1].frame == 24000,
          "%d events: %d@%lld, %d@%lld", n, e[0].type, (long long)e[0].frame, n > 1 ? e[1].type : -1,
          n > 1 ? (long long)e[1].frame : -1LL);
    /* -15 dB after the 100 ms attack, back to 0 dB after the 400 ms release. */
    CHECK(fabs(tone_amplitude(x + 12000, 9600, 1, 440) - 0.5 * pow(10, -15.0 / 20)) < 0.005, "ducked: %f",
          tone_amplitude(x + 12000, 9600, 1, 440));
    CHECK(fabs(tone_amplitude(x + 43000, 4800, 1, 440) - 0.5) < 0.005, "released: %f", tone_amplitude(x + 43000, 4800, 1, 440));
    free(x);
    tutti_engine_destroy(engine);
}

static void routes_mic_and_remote_commands(void) {
    tutti_session music, recorder;
    tutti_source song;
    tutti_engine *engine = player(&music, &song);
    tutti_event e[MAX_EVENTS];
    tutti_source_info info;
    const tutti_event *r;
    int n;
    float *x;
    recorder = make_session(engine, "recorder", TUTTI_CATEGORY_RECORD, 0);
    OK(tutti_system_set_route(engine, TUTTI_ROUTE_HEADPHONES, 500));
    OK(tutti_system_set_route(engine, TUTTI_ROUTE_SPEAKER, 1500));
    x = render_mono(engine, 2048);
    n = policy_events(engine, e);
    CHECK(n == 2 && e[0].type == TUTTI_EVENT_ROUTE_CHANGED && e[0].reason == TUTTI_ROUTE_CHANGE_REASON_NEW_DEVICE_AVAILABLE &&
              e[0].frame == 500 && e[1].reason == TUTTI_ROUTE_CHANGE_REASON_OLD_DEVICE_UNAVAILABLE && e[1].frame == 1500,
          "%d events", n);
    tutti_source_info_init(&info);
    OK(tutti_source_get_info(engine, song, &info));
    CHECK(info.state == TUTTI_SOURCE_PAUSED, "headphones gone: a playback session pauses (state %d)", info.state);
    free(x);

    /* Remote commands go to the now-playing session, if it answers them. */
    OK(tutti_system_remote_command(engine, TUTTI_REMOTE_PLAY, TUTTI_NOW));
    x = render_mono(engine, 1024);
    free(x);
    OK(tutti_source_get_info(engine, song, &info));
    CHECK(info.state == TUTTI_SOURCE_PAUSED, "nobody answers PLAY yet: state %d", info.state);
    OK(tutti_session_set_remote_commands(engine, music,
                                         TUTTI_REMOTE_COMMAND_BIT(TUTTI_REMOTE_PLAY) | TUTTI_REMOTE_COMMAND_BIT(TUTTI_REMOTE_PAUSE)));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "commands has unknown bits 0x40", tutti_session_set_remote_commands(engine, music, 0x41));
    OK(tutti_system_remote_command(engine, TUTTI_REMOTE_PLAY, TUTTI_NOW));
    x = render_mono(engine, 1024);
    free(x);
    OK(tutti_source_get_info(engine, song, &info));
    CHECK(info.state == TUTTI_SOURCE_PLAYING, "PLAY answered: state %d", info.state);

    /* The microphone muted interrupts a recording session. */
    OK(tutti_session_set_active(engine, recorder, 1, 0, TUTTI_NOW));
    (void)policy_events(engine, e);
    OK(tutti_system_set_mic_muted(engine, 1, TUTTI_NOW));
    x = render_mono(engine, 1024);
    n = policy_events(engine, e);
    r = find_event(e, n, TUTTI_EVENT_INTERRUPTION_BEGAN, recorder);
    CHECK(r != NULL && r->reason == TUTTI_INTERRUPTION_REASON_BUILT_IN_MIC_MUTED, "%d events", n);
    free(x);
    tutti_engine_destroy(engine);
}

static void delivered_after_their_frame_in_order_once(void) {
    tutti_session music;
    tutti_source song;
    tutti_engine *engine = player(&music, &song);
    tutti_event e[MAX_EVENTS], hint[MAX_EVENTS];
    int n, k, ordered = 1;
    float *x;
    /* Made out of order. */
    OK(tutti_system_set_route(engine, TUTTI_ROUTE_HEADPHONES, 3000));
    OK(tutti_system_begin_phone_call(engine, 1000));
    OK(tutti_system_end_phone_call(engine, 2000));
    n = policy_events(engine, e);
    CHECK(n == 0, "nothing before rendering: %d", n);
    x = render_mono(engine, 1500);
    n = policy_events(engine, e);
    CHECK(n == 1 && e[0].frame == 1000, "only what rendering passed: %d events", n);
    free(x);
    x = render_mono(engine, 2000);
    n = policy_events(engine, e);
    CHECK(n == 2 && e[0].frame == 2000 && e[1].frame == 3000 && e[1].type == TUTTI_EVENT_ROUTE_CHANGED, "in frame order: %d", n);
    for (k = 1; k < n; k++) ordered &= e[k].frame >= e[k - 1].frame;
    CHECK(ordered, "ordered%s", "");
    CHECK(drain_events(engine, hint, MAX_EVENTS) == 0, "each once%s", "");
    free(x);
    tutti_engine_destroy(engine);
}

static int readable(int fd, int timeout_ms) {
    struct pollfd p;
    p.fd = fd;
    p.events = POLLIN;
    p.revents = 0;
    return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

static void the_event_fd(void) {
    tutti_session music;
    tutti_source song;
    tutti_engine *engine = player(&music, &song);
    tutti_event e[MAX_EVENTS];
    int fd = tutti_engine_event_fd(engine);
    float *x;
    CHECK(fd >= 0, "fd %d: %s", fd, tutti_last_error());
    CHECK(tutti_engine_event_fd(engine) == fd, "the same descriptor each time%s", "");
    (void)drain_events(engine, e, MAX_EVENTS);
    CHECK(!readable(fd, 20), "not readable with nothing waiting%s", "");
    OK(tutti_system_set_route(engine, TUTTI_ROUTE_HEADPHONES, 100));
    CHECK(!readable(fd, 20), "not before rendering passes the event's frame%s", "");
    x = render_mono(engine, 512);
    CHECK(readable(fd, 1000), "readable within a second of rendering%s", "");
    CHECK(drain_events(engine, e, MAX_EVENTS) >= 1, "an event waits%s", "");
    CHECK(!readable(fd, 20), "not readable once drained%s", "");
    free(x);
    tutti_engine_destroy(engine);
}


/* One event per affected session: a prompt that ducks two players, and a phone call that
 * interrupts them, name each. */
static void one_event_per_session(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, TUTTI_OPTION_MIX_WITH_OTHERS);
    tutti_session radio = make_session(engine, "radio", TUTTI_CATEGORY_PLAYBACK, TUTTI_OPTION_MIX_WITH_OTHERS);
    tutti_session nav = make_session(engine, "nav", TUTTI_CATEGORY_PLAYBACK, TUTTI_OPTION_DUCK_OTHERS);
    tutti_source a, b;
    tutti_event e[MAX_EVENTS];
    int n;
    float *x;
    OK(tutti_source_create_tone(engine, music, 440, 0.2f, &a));
    OK(tutti_source_create_tone(engine, radio, 550, 0.2f, &b));
    OK(tutti_source_play(engine, a, TUTTI_NOW));
    OK(tutti_source_play(engine, b, TUTTI_NOW));
    OK(tutti_session_set_active(engine, nav, 1, 0, 1000));
    OK(tutti_session_set_active(engine, nav, 0, 0, 2000));
    OK(tutti_system_begin_phone_call(engine, 3000));
    x = render_mono(engine, 4096);
    n = policy_events(engine, e);
    CHECK(n == 6, "6 events, got %d", n);
    if (n == 6) {
        CHECK(e[0].type == TUTTI_EVENT_DUCKING_BEGAN && e[1].type == TUTTI_EVENT_DUCKING_BEGAN && e[0].session != e[1].session &&
                  (e[0].session == music || e[0].session == radio) && (e[1].session == music || e[1].session == radio),
              "ducking began for each: %llx %llx", (unsigned long long)e[0].session, (unsigned long long)e[1].session);
        CHECK(e[2].type == TUTTI_EVENT_DUCKING_ENDED && e[3].type == TUTTI_EVENT_DUCKING_ENDED && e[2].session != e[3].session,
              "ducking ended for each%s", "");
        CHECK(e[4].type == TUTTI_EVENT_INTERRUPTION_BEGAN && e[5].type == TUTTI_EVENT_INTERRUPTION_BEGAN &&
                  e[4].session != e[5].session && e[4].frame == 3000 && e[5].frame == 3000,
              "interrupted, each: %llx %llx", (unsigned long long)e[4].session, (unsigned long long)e[5].session);
    }
    free(x);
    tutti_engine_destroy(engine);
}

/* Events are never dropped: a thousand route changes and sixty sources ending at once, all
 * delivered, in order, though nobody polls until the end. */
static void events_are_never_dropped(void) {
    tutti_engine_config config;
    tutti_engine *engine = NULL;
    tutti_session music;
    tutti_source s[60];
    tutti_event e;
    int k, routes = 0, ended = 0, ordered = 1;
    tutti_frame last = -1;
    float *x;
    tutti_engine_config_init(&config);
    config.channels = 1;
    config.max_sources = 60;
    OK(tutti_engine_create(&config, &engine));
    if (engine == NULL) return;
    music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, TUTTI_OPTION_MIX_WITH_OTHERS);
    write_mono_wav(temp_path("short.wav"), 480, RATE, dc_half);
    for (k = 0; k < 60; k++) {
        OK(tutti_source_create_file(engine, music, temp_path("short.wav"), 0, &s[k]));
        OK(tutti_source_play(engine, s[k], 500));
    }
    for (k = 0; k < 1000; k++) OK(tutti_system_set_route(engine, k % 2 ? TUTTI_ROUTE_SPEAKER : TUTTI_ROUTE_HEADPHONES, 10 * k));
    x = render_mono(engine, 12000);
    while (tutti_engine_poll_event(engine, &e) == 1) {
        routes += e.type == TUTTI_EVENT_ROUTE_CHANGED;
        ended += e.type == TUTTI_EVENT_SOURCE_ENDED && e.frame == 980;
        ordered &= e.frame >= last;
        last = e.frame;
    }
    CHECK(routes == 1000 && ended == 60 && ordered, "%d route changes, %d ends at frame 980, in order: %d", routes, ended, ordered);
    free(x);
    tutti_engine_destroy(engine);
}

/* Voice limits from C: the session's limit steals the lowest-priority voice (VOICE_STOLEN, the
 * stolen tone goes silent, the new one plays), a play below every voice is refused
 * (VOICE_REFUSED, nothing changes); the engine's limit; bad priorities. */
static void voice_limits(void) {
    tutti_session music;
    tutti_source a, b, c;
    tutti_engine *engine = player(&music, &a);
    tutti_event e[MAX_EVENTS];
    const tutti_event *stolen, *refused;
    int n;
    float *x;
    OK(tutti_source_create_tone(engine, music, 660, 0.25f, &b));
    OK(tutti_source_create_tone(engine, music, 880, 0.25f, &c));
    OK(tutti_session_set_max_voices(engine, music, 1, TUTTI_NOW));
    OK(tutti_source_set_priority(engine, a, 10, TUTTI_NOW));
    OK(tutti_source_set_priority(engine, c, 5, TUTTI_NOW));
    OK(tutti_source_play(engine, b, 4800));  /* b (128) takes a's voice (10) */
    OK(tutti_source_play(engine, c, 9600));  /* c (5) is below b: refused */
    x = render_mono(engine, 14400);
    n = policy_events(engine, e);
    stolen = find_event(e, n, TUTTI_EVENT_VOICE_STOLEN, music);
    refused = find_event(e, n, TUTTI_EVENT_VOICE_REFUSED, music);
    CHECK(stolen && stolen->source == a && stolen->frame == 4800, "stolen: %s", stolen ? "wrong source or frame" : "none");
    CHECK(refused && refused->source == c && refused->frame == 9600, "refused: %s", refused ? "wrong source or frame" : "none");
    CHECK(tone_amplitude(x + 6000, 3000, 1, 440) < 0.001, "the stolen tone still sounds: %f", tone_amplitude(x + 6000, 3000, 1, 440));
    CHECK(fabs(tone_amplitude(x + 6000, 3000, 1, 660) - 0.25) < 0.01, "the new voice: %f", tone_amplitude(x + 6000, 3000, 1, 660));
    CHECK(tone_amplitude(x + 10800, 3000, 1, 880) < 0.001, "the refused tone sounds: %f", tone_amplitude(x + 10800, 3000, 1, 880));
    free(x);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "priority", tutti_source_set_priority(engine, a, 256, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "maxVoices", tutti_engine_set_max_voices(engine, 70000, TUTTI_NOW));
    OK(tutti_session_set_max_voices(engine, music, 0, TUTTI_NOW));
    OK(tutti_engine_set_max_voices(engine, 2, TUTTI_NOW));
    tutti_engine_destroy(engine);
}

int main(void) {
    TEST(event_types_have_names);
    TEST(interruption_by_another_session_and_should_resume);
    TEST(phone_calls_and_denied_activation);
    TEST(focus_requests);
    TEST(ducking);
    TEST(routes_mic_and_remote_commands);
    TEST(delivered_after_their_frame_in_order_once);
    TEST(the_event_fd);
    TEST(one_event_per_session);
    TEST(events_are_never_dropped);
    TEST(voice_limits);
    return harness_done();
}
