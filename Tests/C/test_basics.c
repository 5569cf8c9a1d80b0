/* Versions, result names, tutti_last_error per thread, engine lifetime and statistics. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <pthread.h>
#include <time.h>

#include "harness.h"

#ifndef TUTTI_PC_VERSION
#error "the test script passes -DTUTTI_PC_VERSION=\"$(pkg-config --modversion tutti)\""
#endif

#define STR_(x) #x
#define STR(x) STR_(x)

static void versions_agree(void) {
    char expected[64];
    CHECK(tutti_version() == TUTTI_VERSION, "tutti_version() %#x, header %#x", tutti_version(), TUTTI_VERSION);
    CHECK(TUTTI_VERSION == ((TUTTI_VERSION_MAJOR << 16) | (TUTTI_VERSION_MINOR << 8) | TUTTI_VERSION_PATCH), "%#x",
          TUTTI_VERSION);
    snprintf(expected, sizeof expected, "%d.%d.%d", TUTTI_VERSION_MAJOR, TUTTI_VERSION_MINOR, TUTTI_VERSION_PATCH);
    CHECK(strcmp(tutti_version_string(), expected) == 0, "\"%s\" vs \"%s\"", tutti_version_string(), expected);
    CHECK(strcmp(TUTTI_PC_VERSION, expected) == 0, "pkg-config says %s, the header %s", TUTTI_PC_VERSION, expected);
    CHECK(tutti_abi_version() == TUTTI_ABI_VERSION, "%u", tutti_abi_version());
    CHECK(TUTTI_ABI_VERSION == 1, "%d", TUTTI_ABI_VERSION);
    CHECK(strcmp(STR(TUTTI_VERSION_MAJOR) "." STR(TUTTI_VERSION_MINOR) "." STR(TUTTI_VERSION_PATCH), "0.2.0") == 0,
          "this release is 0.2.0, got %s", tutti_version_string());
    CHECK(tutti_version_string() == tutti_version_string(), "static string: the same pointer each time%s", "");
}

static void result_codes_and_names(void) {
    static const struct {
        tutti_result code;
        int value;
        const char *name;
    } codes[] = {
        {TUTTI_OK, 0, "OK"},
        {TUTTI_ERROR_INVALID_ARGUMENT, -1, "INVALID_ARGUMENT"},
        {TUTTI_ERROR_NOT_FOUND, -2, "NOT_FOUND"},
        {TUTTI_ERROR_IO, -3, "IO"},
        {TUTTI_ERROR_FORMAT, -4, "FORMAT"},
        {TUTTI_ERROR_CAPACITY, -5, "CAPACITY"},
        {TUTTI_ERROR_DENIED, -6, "DENIED"},
        {TUTTI_ERROR_STATE, -7, "STATE"},
        {TUTTI_ERROR_DEVICE, -8, "DEVICE"},
        {TUTTI_ERROR_VERSION, -9, "VERSION"},
    };
    size_t k;
    for (k = 0; k < sizeof codes / sizeof codes[0]; k++) {
        CHECK(codes[k].code == codes[k].value, "%s is %d", codes[k].name, codes[k].code);
        CHECK(strcmp(tutti_result_string(codes[k].code), codes[k].name) == 0, "%d names \"%s\"", codes[k].code,
              tutti_result_string(codes[k].code));
    }
    CHECK(strcmp(tutti_result_string(-10), "UNKNOWN") == 0, "%s", tutti_result_string(-10));
    CHECK(strcmp(tutti_result_string(1), "UNKNOWN") == 0, "%s", tutti_result_string(1));
    CHECK(sizeof(tutti_result) == 4 && sizeof(tutti_frame) == 8 && sizeof(tutti_session) == 8 && sizeof(tutti_source) == 8,
          "fixed widths%s", "");
    CHECK(TUTTI_NOW == -1, "TUTTI_NOW %lld", (long long)TUTTI_NOW);
}

/* Thread body: fails a call with a message of its own and reports what it then reads. */
struct thread_case {
    tutti_engine *engine;
    int which;
    char seen_before[256];
    char seen_after[256];
    pthread_barrier_t *barrier;
};

static void *fail_in_thread(void *arg) {
    struct thread_case *c = arg;
    tutti_session s;
    snprintf(c->seen_before, sizeof c->seen_before, "%s", tutti_last_error());
    if (c->which == 0) {
        (void)tutti_system_set_volume(c->engine, 7.0f, TUTTI_NOW);
    } else {
        (void)tutti_session_create(c->engine, NULL, &s);
    }
    /* Both threads have failed before either reads. */
    pthread_barrier_wait(c->barrier);
    snprintf(c->seen_after, sizeof c->seen_after, "%s", tutti_last_error());
    return NULL;
}

static void last_error_is_per_thread(void) {
    tutti_engine *engine = make_engine(1, 0);
    pthread_t threads[2];
    struct thread_case cases[2];
    pthread_barrier_t barrier;
    const char *mine;
    int k;

    FAILS(TUTTI_ERROR_NOT_FOUND, "source", tutti_source_play(engine, 12345, TUTTI_NOW));
    mine = tutti_last_error();
    pthread_barrier_init(&barrier, NULL, 2);
    for (k = 0; k < 2; k++) {
        memset(&cases[k], 0, sizeof cases[k]);
        cases[k].engine = engine;
        cases[k].which = k;
        cases[k].barrier = &barrier;
        pthread_create(&threads[k], NULL, fail_in_thread, &cases[k]);
    }
    for (k = 0; k < 2; k++) pthread_join(threads[k], NULL);
    pthread_barrier_destroy(&barrier);

    CHECK(strcmp(cases[0].seen_before, "") == 0, "a new thread reads \"\", got \"%s\"", cases[0].seen_before);
    CHECK(strstr(cases[0].seen_after, "volume") != NULL, "thread 0 reads its own error: \"%s\"", cases[0].seen_after);
    CHECK(strstr(cases[0].seen_after, "name") == NULL, "thread 0 does not read thread 1's: \"%s\"", cases[0].seen_after);
    CHECK(strstr(cases[1].seen_after, "name must not be NULL") != NULL, "thread 1: \"%s\"", cases[1].seen_after);
    /* This thread's message is untouched, and still at the same address. */
    CHECK(tutti_last_error() == mine, "the pointer stays valid until this thread fails again%s", "");
    CHECK(strstr(mine, "tutti_source_play") != NULL && strstr(mine, "source") != NULL, "\"%s\"", mine);
    /* Successful calls leave it alone; the next failure replaces it. */
    OK(tutti_system_set_volume(engine, 0.5f, TUTTI_NOW));
    CHECK(strstr(tutti_last_error(), "tutti_source_play") != NULL, "\"%s\"", tutti_last_error());
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "tutti_system_set_ringer_volume: ringer volume", tutti_system_set_ringer_volume(engine, -1, TUTTI_NOW));
    CHECK(tutti_last_error() != NULL, "never NULL%s", "");
    tutti_engine_destroy(engine);
}

static void long_messages_are_kept_whole(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session s = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    tutti_source src;
    char path[2048];
    size_t n;
    memcpy(path, "/nonexistent/", 13);
    for (n = 13; n < sizeof path - 5; n++) path[n] = 'a' + (char)(n % 26);
    memcpy(path + n, ".wav", 5);
    FAILS(TUTTI_ERROR_IO, path, tutti_source_create_file(engine, s, path, 0, &src));
    tutti_engine_destroy(engine);
}

static void engines_are_independent_and_destroy_is_safe(void) {
    tutti_engine *a = make_engine(1, 0), *b = make_engine(2, 0);
    tutti_session sa, sb;
    float x[512];
    tutti_stats stats;
    tutti_engine_destroy(NULL); /* a no-op */
    OK(tutti_session_create(a, "same name", &sa));
    OK(tutti_session_create(b, "same name", &sb)); /* names are per engine */
    OK(tutti_engine_render(a, x, 512));
    OK(tutti_engine_render(b, x, 256));
    CHECK(tutti_engine_get_frame(a) == 512 && tutti_engine_get_frame(b) == 256, "%lld %lld",
          (long long)tutti_engine_get_frame(a), (long long)tutti_engine_get_frame(b));
    tutti_stats_init(&stats);
    OK(tutti_engine_get_stats(a, &stats));
    CHECK(stats.sessions == 1 && stats.sources == 0, "%u %u", stats.sessions, stats.sources);
    /* An engine with events waiting and an event fd open goes away cleanly. */
    CHECK(tutti_engine_event_fd(b) >= 0, "%s", tutti_last_error());
    OK(tutti_system_set_route(b, TUTTI_ROUTE_HEADPHONES, TUTTI_NOW));
    tutti_engine_destroy(a);
    tutti_engine_destroy(b);
}

static void statistics(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    tutti_session other;
    tutti_source tone, stream;
    tutti_stats stats;
    tutti_source_info info;
    float *x;
    OK(tutti_session_create(engine, "other", &other));
    OK(tutti_source_create_tone(engine, music, 440, 0.5f, &tone));
    OK(tutti_source_create_stream(engine, music, RATE, 1, 1024, &stream));
    OK(tutti_source_play(engine, tone, TUTTI_NOW));
    OK(tutti_source_play(engine, stream, TUTTI_NOW));
    x = render_mono(engine, 4800);
    tutti_stats_init(&stats);
    OK(tutti_engine_get_stats(engine, &stats));
    CHECK(stats.frames_rendered == 4800 && stats.frames_rendered == tutti_engine_get_frame(engine), "%lld",
          (long long)stats.frames_rendered);
    CHECK(stats.sessions == 2 && stats.sources == 2, "sessions %u sources %u", stats.sessions, stats.sources);
    CHECK(stats.xruns == 0 && stats.events_dropped == 0 && stats.latency_frames == 0, "%llu %llu %u",
          (unsigned long long)stats.xruns, (unsigned long long)stats.events_dropped, stats.latency_frames);
    tutti_source_info_init(&info);
    OK(tutti_source_get_info(engine, stream, &info));
    CHECK(stats.underrun_frames == info.underrun_frames && info.underrun_frames >= 4800 - 256, "%llu vs %llu",
          (unsigned long long)stats.underrun_frames, (unsigned long long)info.underrun_frames);
    OK(tutti_session_destroy(engine, other, TUTTI_NOW));
    OK(tutti_source_destroy(engine, tone, TUTTI_NOW));
    OK(tutti_engine_get_stats(engine, &stats));
    CHECK(stats.sessions == 1 && stats.sources == 1, "after destroy: sessions %u sources %u", stats.sessions, stats.sources);
    free(x);
    tutti_engine_destroy(engine);
}


/* A new session is SOLO_AMBIENT (silenced by the switch, non-mixable), inactive (a playing
 * session is not interrupted by its creation) and in the foreground (heard). */
static void new_sessions_are_solo_ambient_inactive_foreground(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session first, second;
    tutti_source a, b;
    tutti_event e[16];
    int n;
    float *x;
    OK(tutti_session_create(engine, "first", &first));
    OK(tutti_source_create_tone(engine, first, 440, 0.5f, &a));
    OK(tutti_source_play(engine, a, TUTTI_NOW)); /* activates it */
    OK(tutti_session_create(engine, "second", &second));
    OK(tutti_source_create_tone(engine, second, 660, 0.5f, &b));
    OK(tutti_system_set_silent_switch(engine, 1, 4800));
    OK(tutti_system_set_silent_switch(engine, 0, 9600));
    x = render_mono(engine, 14400);
    CHECK(fabs(tone_amplitude(x + 1200, 2400, 1, 440) - 0.5) < 0.01, "heard: in the foreground, and nothing interrupted it: %f",
          tone_amplitude(x + 1200, 2400, 1, 440));
    CHECK(peak(x, 6000, 9600) == 0, "silenced by the switch (ambient or solo ambient): %f", peak(x, 6000, 9600));
    n = drain_events(engine, e, 16);
    CHECK(find_event(e, n, TUTTI_EVENT_INTERRUPTION_BEGAN, 0) == NULL, "creating a session interrupts nobody%s", "");
    free(x);
    OK(tutti_source_play(engine, b, TUTTI_NOW)); /* the second activates: non-mixable, so the first is interrupted */
    x = render_mono(engine, 4800);
    n = drain_events(engine, e, 16);
    CHECK(find_event(e, n, TUTTI_EVENT_INTERRUPTION_BEGAN, first) != NULL, "solo ambient does not mix: the first is interrupted%s", "");
    CHECK(tone_amplitude(x + 2400, 2400, 1, 440) < 0.001 && fabs(tone_amplitude(x + 2400, 2400, 1, 660) - 0.5) < 0.01, "%f %f",
          tone_amplitude(x + 2400, 2400, 1, 440), tone_amplitude(x + 2400, 2400, 1, 660));
    free(x);
    tutti_engine_destroy(engine);
}


/* Open descriptors of this process. */
static int open_fds(void) {
    int n = 0, fd;
    for (fd = 0; fd < 4096; fd++) n += fcntl(fd, F_GETFD) != -1;
    return n;
}

/* Destroy frees the engine: its event fd is closed and its thread ends, each time. */
static void destroy_frees_everything(void) {
    int before = open_fds(), k;
    for (k = 0; k < 50; k++) {
        tutti_engine *engine = make_engine(2, 0);
        tutti_session s = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
        tutti_source tone;
        float x[512];
        OK(tutti_source_create_tone(engine, s, 440, 0.5f, &tone));
        OK(tutti_source_play(engine, tone, TUTTI_NOW));
        CHECK(tutti_engine_event_fd(engine) >= 0, "%s", tutti_last_error());
        OK(tutti_engine_render(engine, x, 256));
        tutti_engine_destroy(engine);
    }
    /* The library's event thread may hold the last engine for the few microseconds of a
     * delivery: the descriptor then closes right after. */
    for (k = 0; k < 100 && open_fds() != before; k++) {
        struct timespec t = {0, 1000000};
        nanosleep(&t, NULL);
    }
    CHECK(open_fds() == before, "%d descriptors open before, %d after 50 engines", before, open_fds());
}

int main(void) {
    TEST(versions_agree);
    TEST(result_codes_and_names);
    TEST(last_error_is_per_thread);
    TEST(long_messages_are_kept_whole);
    TEST(engines_are_independent_and_destroy_is_safe);
    TEST(statistics);
    TEST(new_sessions_are_solo_ambient_inactive_foreground);
    TEST(destroy_frees_everything);
    return harness_done();
}
