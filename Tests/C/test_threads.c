/* Any thread: one thread pulls audio while others create, change and destroy sessions and
 * sources, feed a stream, read source info and statistics and poll events — on one engine,
 * at once. Every render succeeds, every control call gets OK or the code its race allows
 * (an id destroyed by another thread is NOT_FOUND), and the counts add up at the end. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "harness.h"

#define ROUNDS 300

struct shared {
    tutti_engine *engine;
    tutti_session music;
    tutti_source stream;
    volatile int stop;
    int render_failures;
    int rounds, capacity_waits; /* approximate: two threads count without a lock */
    long rendered;
    int unexpected[4];
    char first_unexpected[4][256];
};

static void *render_thread(void *arg) {
    struct shared *s = arg;
    float out[256 * 2];
    while (!s->stop) {
        if (tutti_engine_render(s->engine, out, 256) != TUTTI_OK) s->render_failures++;
        s->rendered += 256;
    }
    return NULL;
}

struct worker {
    struct shared *s;
    int index;
};

static void note(struct shared *s, int index, tutti_result r, tutti_result allowed) {
    if (r != TUTTI_OK && r != allowed) {
        if (s->unexpected[index]++ == 0)
            snprintf(s->first_unexpected[index], 256, "%s: %s", tutti_result_string(r), tutti_last_error());
    }
}

/* Creates a session with sources, plays them, changes them, destroys it; again and again. */
static void *churn_thread(void *arg) {
    struct worker *w = arg;
    struct shared *s = w->s;
    int k;
    for (k = 0; k < ROUNDS; k++) {
        char name[32];
        tutti_session session;
        tutti_source a, b;
        tutti_source_info info;
        snprintf(name, sizeof name, "w%d.%d", w->index, k);
        tutti_result r = tutti_session_create(s->engine, name, &session);
        /* A destroyed session's slot is free once rendering has passed its destruction: a
         * control thread that outruns the render thread meets the maximum meanwhile. */
        note(s, w->index, r, TUTTI_ERROR_CAPACITY);
        if (r != TUTTI_OK) {
            s->capacity_waits++;
            continue;
        }
        note(s, w->index, tutti_session_set_category(s->engine, session, TUTTI_CATEGORY_AMBIENT, TUTTI_MODE_DEFAULT, 0), TUTTI_OK);
        r = tutti_source_create_tone(s->engine, session, 300 + k, 0.01f, &a);
        note(s, w->index, r, TUTTI_ERROR_CAPACITY);
        if (r == TUTTI_OK) r = tutti_source_create_tone(s->engine, session, 400 + k, 0.01f, &b);
        note(s, w->index, r, TUTTI_ERROR_CAPACITY);
        if (r != TUTTI_OK) {
            s->capacity_waits++;
            note(s, w->index, tutti_session_destroy(s->engine, session, TUTTI_NOW), TUTTI_OK);
            continue;
        }
        s->rounds++;
        note(s, w->index, tutti_source_play(s->engine, a, TUTTI_NOW), TUTTI_OK);
        note(s, w->index, tutti_source_play(s->engine, b, tutti_engine_get_frame(s->engine) + 100), TUTTI_OK);
        note(s, w->index, tutti_source_set_gain(s->engine, a, 0.5f, 64, TUTTI_NOW), TUTTI_OK);
        tutti_source_info_init(&info);
        note(s, w->index, tutti_source_get_info(s->engine, a, &info), TUTTI_OK);
        note(s, w->index, tutti_source_destroy(s->engine, a, TUTTI_NOW), TUTTI_OK);
        note(s, w->index, tutti_session_destroy(s->engine, session, TUTTI_NOW), TUTTI_OK);
        /* Its sources went with it. */
        note(s, w->index, tutti_source_play(s->engine, b, TUTTI_NOW) == TUTTI_ERROR_NOT_FOUND ? TUTTI_OK : -99, TUTTI_OK);
    }
    return NULL;
}

/* Feeds the shared stream, reads it, polls events and statistics. */
static void *observer_thread(void *arg) {
    struct worker *w = arg;
    struct shared *s = w->s;
    float data[128] = {0};
    int k;
    for (k = 0; k < ROUNDS * 4; k++) {
        uint32_t written;
        tutti_source_info info;
        tutti_stats stats;
        tutti_event e;
        note(s, w->index, tutti_stream_write(s->engine, s->stream, data, 128, &written), TUTTI_OK);
        tutti_source_info_init(&info);
        note(s, w->index, tutti_source_get_info(s->engine, s->stream, &info), TUTTI_OK);
        if (info.state != TUTTI_SOURCE_PLAYING && info.state != TUTTI_SOURCE_STOPPED) note(s, w->index, -98, TUTTI_OK);
        tutti_stats_init(&stats);
        note(s, w->index, tutti_engine_get_stats(s->engine, &stats), TUTTI_OK);
        while (tutti_engine_poll_event(s->engine, &e) == 1) {
        }
        note(s, w->index, tutti_system_set_volume(s->engine, (float)(k % 10) / 10, TUTTI_NOW), TUTTI_OK);
    }
    return NULL;
}

static void many_threads_one_engine(void) {
    struct shared s;
    struct worker workers[3];
    pthread_t renderer, threads[3];
    tutti_stats stats;
    int k;
    memset(&s, 0, sizeof s);
    s.engine = make_engine(2, 0);
    s.music = make_session(s.engine, "music", TUTTI_CATEGORY_PLAYBACK, TUTTI_OPTION_MIX_WITH_OTHERS);
    OK(tutti_source_create_stream(s.engine, s.music, 44100, 1, 4096, &s.stream));
    OK(tutti_source_play(s.engine, s.stream, TUTTI_NOW));
    pthread_create(&renderer, NULL, render_thread, &s);
    for (k = 0; k < 3; k++) {
        workers[k].s = &s;
        workers[k].index = k;
        pthread_create(&threads[k], NULL, k < 2 ? churn_thread : observer_thread, &workers[k]);
    }
    for (k = 0; k < 3; k++) pthread_join(threads[k], NULL);
    s.stop = 1;
    pthread_join(renderer, NULL);
    CHECK(s.render_failures == 0, "%d renders failed", s.render_failures);
    CHECK(s.rendered > 0, "rendered %ld frames meanwhile", s.rendered);
    CHECK(s.rounds >= 10, "%d full rounds (%d met the maximum first)", s.rounds, s.capacity_waits);
    printf("  %d rounds of create/play/destroy, %d waited for slots, %ld frames rendered meanwhile\n", s.rounds, s.capacity_waits,
           s.rendered);
    for (k = 0; k < 3; k++) CHECK(s.unexpected[k] == 0, "thread %d: %d unexpected results, the first: %s", k, s.unexpected[k], s.first_unexpected[k]);
    tutti_stats_init(&stats);
    OK(tutti_engine_get_stats(s.engine, &stats));
    CHECK(stats.sessions == 1 && stats.sources == 1 && stats.events_dropped == 0, "sessions %u sources %u dropped %llu", stats.sessions,
          stats.sources, (unsigned long long)stats.events_dropped);
    CHECK(stats.frames_rendered == s.rendered, "the clock: %lld vs %ld", (long long)stats.frames_rendered, s.rendered);
    tutti_engine_destroy(s.engine);
}

int main(void) {
    TEST(many_threads_one_engine);
    return harness_done();
}
