/* Sources, measured: streams at other rates keep their pitch, underruns are counted,
 * tutti_source_info follows the source's life, SOURCE_ENDED comes at the frame after the
 * last sample, fades and seeks do what they say, gains are linear, and play goes through
 * the policy. */
#include "harness.h"

#define PI2 6.28318530717958647692

static tutti_engine *engine_with(tutti_session *music) {
    tutti_engine *engine = make_engine(1, 0);
    *music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    return engine;
}

/* A stream written at `rate` Hz with a `hz` sine plays at `hz` (not hz × 48000 / rate). */
static void stream_at(uint32_t rate, double hz) {
    tutti_session music;
    tutti_engine *engine = engine_with(&music);
    tutti_source stream;
    uint32_t n = rate, k, written = 0;
    float *data = malloc(n * sizeof(float)), *x;
    double f, a;
    for (k = 0; k < n; k++) data[k] = (float)(0.5 * sin(PI2 * hz * k / rate));
    OK(tutti_source_create_stream(engine, music, rate, 1, 1u << 18, &stream));
    OK(tutti_stream_write(engine, stream, data, n, &written));
    CHECK(written == n, "the whole second fits: %u of %u", written, n);
    OK(tutti_source_play(engine, stream, TUTTI_NOW));
    x = render_mono(engine, 38400);
    f = frequency_of(x + 4800, 28800);
    a = tone_amplitude(x + 4800, 28800, 1, hz);
    CHECK(fabs(f - hz) < 0.05, "a %u Hz stream of %.0f Hz plays at %.3f Hz (wrong pitch would be %.1f)", rate, hz, f,
          hz * RATE / rate);
    CHECK(fabs(a - 0.5) < 0.01, "level %f, expected 0.5", a);
    free(data);
    free(x);
    tutti_engine_destroy(engine);
}

/* A 20 s file (over the 10 s streaming threshold: a worker thread reads it) rendered as fast
 * as the CPU allows: with TUTTI_ENGINE_OFFLINE every frame is the file's, and three runs give
 * the same bytes. */
static float long_signal(uint32_t k) { return (float)(0.4 * sin(PI2 * 441.0 * k / RATE) + (k % 4800) / 48000.0); }

static uint64_t offline_render_digest(const char *path, uint32_t frames, long *wrong) {
    tutti_engine_config config;
    tutti_engine *engine = NULL;
    tutti_session music;
    tutti_source song;
    float *block = malloc(4096 * sizeof(float));
    uint64_t digest = 1469598103934665603ull;
    uint32_t done = 0, k;
    int failures = 0;
    tutti_engine_config_init(&config);
    CHECK(config.flags == 0, "flags default to 0: %u", config.flags);
    config.channels = 1;
    config.flags = TUTTI_ENGINE_OFFLINE;
    OK(tutti_engine_create(&config, &engine));
    if (engine == NULL) exit(2);
    music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    OK(tutti_source_create_file(engine, music, path, 0, &song));
    OK(tutti_source_play(engine, song, TUTTI_NOW));
    *wrong = 0;
    while (done < frames) {
        uint32_t n = frames - done < 4096 ? frames - done : 4096;
        failures += tutti_engine_render(engine, block, n) != TUTTI_OK;
        for (k = 0; k < n; k++) {
            const unsigned char *b = (const unsigned char *)&block[k];
            int i;
            for (i = 0; i < 4; i++) digest = (digest ^ b[i]) * 1099511628211ull;
            if (fabsf(block[k] - long_signal(done + k)) > 1e-4f) (*wrong)++;
        }
        done += n;
    }
    CHECK(failures == 0, "%d renders failed", failures);
    free(block);
    tutti_engine_destroy(engine);
    return digest;
}

static void offline_renders_of_long_files_are_whole_and_identical(void) {
    const char *path = temp_path("tutti-c-long.wav");
    uint32_t frames = 20 * RATE;
    uint64_t digests[3];
    long wrong[3];
    int run;
    write_mono_wav(path, frames, RATE, long_signal);
    for (run = 0; run < 3; run++) digests[run] = offline_render_digest(path, frames, &wrong[run]);
    for (run = 0; run < 3; run++)
        CHECK(wrong[run] == 0, "run %d: %ld of %u frames are not the file's (late data played as silence?)", run + 1, wrong[run],
              frames);
    CHECK(digests[0] == digests[1] && digests[1] == digests[2], "digests %016llx %016llx %016llx",
          (unsigned long long)digests[0], (unsigned long long)digests[1], (unsigned long long)digests[2]);
    remove(path);
}

/* A stream at the engine's rate plays its frames as written; run dry it counts exactly the
 * frames it missed; ended, it plays its last frame and ends with SOURCE_ENDED right after. */
static float stream_signal(uint32_t k) { return (float)(k % 1000 + 1) / 2048.0f; }

static void streams_pass_through_and_end(void) {
    tutti_session music;
    tutti_engine *engine = engine_with(&music);
    tutti_source stream, ended;
    float *data = malloc(48000 * sizeof(float)), *x;
    uint32_t k, written, differing = 0;
    uint64_t underruns = 0;
    tutti_event events[32];
    int n, i, ends = 0;
    for (k = 0; k < 48000; k++) data[k] = stream_signal(k);
    OK(tutti_source_create_stream(engine, music, RATE, 1, 65536, &stream));
    OK(tutti_stream_write(engine, stream, data, 48000, &written));
    CHECK(written == 48000, "%u", written);
    OK(tutti_source_play(engine, stream, TUTTI_NOW));
    x = render_mono(engine, 60000);
    for (k = 0; k < 48000 - 96; k++) differing += x[k] != data[k];
    CHECK(differing == 0, "%u frames differ from those written (before the 2 ms de-click)", differing);
    OK(tutti_source_get_status(engine, stream, NULL, NULL, &underruns));
    CHECK(underruns == 12000, "48000 written, 60000 rendered: %llu underrun frames", (unsigned long long)underruns);
    free(x);
    OK(tutti_source_destroy(engine, stream, TUTTI_NOW));
    (void)drain_events(engine, events, 32);

    OK(tutti_source_create_stream(engine, music, RATE, 1, 65536, &ended));
    OK(tutti_stream_write(engine, ended, data, 48000, &written));
    OK(tutti_stream_end(engine, ended));
    FAILS(TUTTI_ERROR_STATE, "already ended", tutti_stream_end(engine, ended));
    FAILS(TUTTI_ERROR_STATE, "endStream", tutti_stream_write(engine, ended, data, 1, &written));
    OK(tutti_source_play(engine, ended, TUTTI_NOW));
    x = render_mono(engine, 60000);
    n = drain_events(engine, events, 32);
    for (i = 0; i < n && i < 32; i++) {
        if (events[i].type != TUTTI_EVENT_SOURCE_ENDED || events[i].source != ended) continue;
        ends++;
        CHECK(events[i].frame == 60000 + 48000, "ended at frame %lld, the frame after its last", (long long)events[i].frame);
    }
    CHECK(ends == 1, "%d SOURCE_ENDED", ends);
    CHECK(x[47999] == data[47999] && x[48000] == 0, "the last frame as written (%f), then silence (%f)", x[47999], x[48000]);
    OK(tutti_source_get_status(engine, ended, NULL, NULL, &underruns));
    CHECK(underruns == 0, "an ended stream does not underrun: %llu", (unsigned long long)underruns);
    {
        tutti_source tone;
        OK(tutti_source_create_tone(engine, music, 440, 0.1f, &tone));
        FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "not a stream", tutti_stream_end(engine, tone));
    }
    free(x);
    free(data);
    tutti_engine_destroy(engine);
}

static void streams_play_at_their_true_pitch(void) {
    stream_at(44100, 1000);
    stream_at(22050, 440);
    stream_at(96000, 3000);
}

static void stream_underruns_are_counted(void) {
    tutti_session music;
    tutti_engine *engine = engine_with(&music);
    tutti_source stream;
    tutti_source_info info;
    tutti_stats stats;
    float data[2000], *x;
    uint32_t written, k;
    uint64_t before;
    OK(tutti_source_create_stream(engine, music, RATE, 1, 4096, &stream));
    OK(tutti_source_play(engine, stream, TUTTI_NOW));
    x = render_mono(engine, 4800);
    tutti_source_info_init(&info);
    OK(tutti_source_get_info(engine, stream, &info));
    CHECK(info.underrun_frames == 4800, "no data for 4800 frames: %llu underrun frames", (unsigned long long)info.underrun_frames);
    CHECK(peak(x, 0, 4800) == 0, "silence while starved: %f", peak(x, 0, 4800));
    CHECK(info.state == TUTTI_SOURCE_PLAYING && info.length == -1, "state %d length %lld", info.state, (long long)info.length);
    {
        /* One run of underruns, one event: from frame 0, the first 256-frame block missed. */
        tutti_event events[16];
        int n = drain_events(engine, events, 16), i, underruns = 0;
        if (n > 16) n = 16;
        for (i = 0; i < n; i++) {
            if (events[i].type != TUTTI_EVENT_SOURCE_UNDERRUN) continue;
            underruns++;
            CHECK(events[i].source == stream && events[i].session == music && events[i].frame == 0 && events[i].reason == 256,
                  "underrun event: source %llu frame %lld reason %d", (unsigned long long)events[i].source,
                  (long long)events[i].frame, events[i].reason);
        }
        CHECK(underruns == 1, "%d SOURCE_UNDERRUN events for one run", underruns);
    }
    free(x);
    for (k = 0; k < 2000; k++) data[k] = 0.25f;
    OK(tutti_stream_write(engine, stream, data, 2000, &written));
    CHECK(written == 2000, "%u", written);
    before = info.underrun_frames;
    x = render_mono(engine, 4800);
    OK(tutti_source_get_info(engine, stream, &info));
    CHECK(info.underrun_frames - before > 2400 && info.underrun_frames - before < 2900,
          "2000 frames of data in 4800: %llu more underrun frames", (unsigned long long)(info.underrun_frames - before));
    CHECK(peak(x, 0, 4800) > 0.24 && peak(x, 0, 4800) < 0.26, "the data played: peak %f", peak(x, 0, 4800));
    tutti_stats_init(&stats);
    OK(tutti_engine_get_stats(engine, &stats));
    CHECK(stats.underrun_frames == info.underrun_frames, "stats %llu vs info %llu", (unsigned long long)stats.underrun_frames,
          (unsigned long long)info.underrun_frames);
    /* A full stream takes what fits and says so. */
    for (k = 0; k < 10; k++) OK(tutti_stream_write(engine, stream, data, 2000, &written));
    CHECK(written < 2000, "the buffer is full: %u of 2000 taken", written);
    free(x);
    tutti_engine_destroy(engine);
}

static void source_info_follows_the_life_of_a_source(void) {
    tutti_session music;
    tutti_engine *engine = engine_with(&music);
    tutti_source file, tone;
    tutti_source_info info, again;
    float *x;
    write_mono_wav(temp_path("dc-4800.wav"), 4800, RATE, dc_half);
    OK(tutti_source_create_file(engine, music, temp_path("dc-4800.wav"), 0, &file));
    OK(tutti_source_create_tone(engine, music, 440, 0.5f, &tone));
    tutti_source_info_init(&info);
    OK(tutti_source_get_info(engine, file, &info));
    CHECK(info.state == TUTTI_SOURCE_STOPPED && info.position == 0 && info.length == 4800 && info.gain == 1.0f &&
              info.underrun_frames == 0,
          "new: state %d position %lld length %lld gain %f", info.state, (long long)info.position, (long long)info.length,
          info.gain);
    OK(tutti_source_get_info(engine, tone, &info));
    CHECK(info.length == -1, "a tone has no length: %lld", (long long)info.length);

    OK(tutti_source_set_gain(engine, file, 0.75f, 0, TUTTI_NOW));
    OK(tutti_source_play(engine, file, TUTTI_NOW));
    x = render_mono(engine, 1024);
    free(x);
    OK(tutti_source_get_info(engine, file, &info));
    CHECK(info.state == TUTTI_SOURCE_PLAYING && info.position == 1024 && info.gain == 0.75f, "playing: state %d position %lld gain %f",
          info.state, (long long)info.position, info.gain);

    OK(tutti_source_pause(engine, file, TUTTI_NOW));
    x = render_mono(engine, 1024);
    free(x);
    OK(tutti_source_get_info(engine, file, &info));
    x = render_mono(engine, 1024);
    free(x);
    tutti_source_info_init(&again);
    OK(tutti_source_get_info(engine, file, &again));
    CHECK(info.state == TUTTI_SOURCE_PAUSED && info.position >= 1024 && info.position <= 1024 + 480 &&
              again.position == info.position,
          "paused: state %d position %lld then %lld (holds after the fade-out)", info.state, (long long)info.position,
          (long long)again.position);

    OK(tutti_source_play(engine, file, TUTTI_NOW));
    x = render_mono(engine, 8192); /* past the end */
    free(x);
    OK(tutti_source_get_info(engine, file, &info));
    CHECK(info.state == TUTTI_SOURCE_ENDED && info.position == 0, "ended: state %d position %lld", info.state,
          (long long)info.position);

    OK(tutti_source_play(engine, file, TUTTI_NOW));
    x = render_mono(engine, 512);
    free(x);
    OK(tutti_source_stop(engine, file, TUTTI_NOW));
    x = render_mono(engine, 1024);
    free(x);
    OK(tutti_source_get_info(engine, file, &info));
    CHECK(info.state == TUTTI_SOURCE_STOPPED && info.position == 0, "stopped and rewound: state %d position %lld", info.state,
          (long long)info.position);
    tutti_engine_destroy(engine);
}

static void source_ended_at_the_frame_after_the_last_sample(void) {
    tutti_session music;
    tutti_engine *engine = engine_with(&music);
    tutti_source once, looping, stopped, destroyed;
    tutti_event events[32];
    const tutti_event *ended;
    int n, k, count = 0;
    float *x;
    write_mono_wav(temp_path("dc-4800-b.wav"), 4800, RATE, dc_half);
    OK(tutti_source_create_file(engine, music, temp_path("dc-4800-b.wav"), 0, &once));
    OK(tutti_source_create_file(engine, music, temp_path("dc-4800-b.wav"), TUTTI_SOURCE_LOOP, &looping));
    OK(tutti_source_create_file(engine, music, temp_path("dc-4800-b.wav"), 0, &stopped));
    OK(tutti_source_create_file(engine, music, temp_path("dc-4800-b.wav"), 0, &destroyed));
    OK(tutti_source_play(engine, once, 1000));
    OK(tutti_source_play(engine, looping, 0));
    OK(tutti_source_play(engine, stopped, 0));
    OK(tutti_source_stop(engine, stopped, 2000));
    OK(tutti_source_play(engine, destroyed, 0));
    OK(tutti_source_destroy(engine, destroyed, 3000));
    x = render_mono(engine, 5799);
    n = drain_events(engine, events, 32);
    CHECK(find_event(events, n, TUTTI_EVENT_SOURCE_ENDED, 0) == NULL, "not delivered before rendering passes its frame%s", "");
    free(x);
    x = render_mono(engine, 20000);
    n = drain_events(engine, events, 32);
    ended = find_event(events, n, TUTTI_EVENT_SOURCE_ENDED, 0);
    CHECK(ended != NULL, "SOURCE_ENDED delivered (%d events)", n);
    if (ended != NULL) {
        CHECK(ended->frame == 5800 && ended->source == once && ended->session == music && ended->reason == 0 && ended->flags == 0,
              "frame %lld (expected 1000 + 4800), source %llx session %llx", (long long)ended->frame,
              (unsigned long long)ended->source, (unsigned long long)ended->session);
    }
    for (k = 0; k < n; k++) count += events[k].type == TUTTI_EVENT_SOURCE_ENDED;
    CHECK(count == 1, "only the source that played to its end (not a loop, a stop or a destroy): %d", count);
    CHECK(x[0] == 1.0f, "the looping source plays on and the other ended: %f", x[0]);
    free(x);
    tutti_engine_destroy(engine);
}

/* Frames from `from` until the output first reaches 0 (or `to`). */
static int frames_to_silence(const float *x, int from, int to) {
    int k;
    for (k = from; k < to; k++)
        if (x[k] == 0) return k - from;
    return to - from;
}

static void fades(void) {
    tutti_session music;
    tutti_engine *engine = engine_with(&music);
    tutti_source dc;
    float *x;
    int k, monotone = 1, length;
    write_mono_wav(temp_path("dc-fades.wav"), RATE, RATE, dc_half);
    OK(tutti_source_create_file(engine, music, temp_path("dc-fades.wav"), TUTTI_SOURCE_LOOP, &dc));
    OK(tutti_source_play(engine, dc, 0));
    OK(tutti_source_set_fades(engine, dc, 960, 2400));
    OK(tutti_source_pause(engine, dc, 1000));
    OK(tutti_source_play(engine, dc, 6000));
    x = render_mono(engine, 9000);
    CHECK(x[999] == 0.5f, "%f", x[999]);
    for (k = 1000; k < 3400; k++) monotone &= x[k] <= x[k - 1] && x[k] >= 0;
    length = frames_to_silence(x, 1000, 6000);
    CHECK(monotone && length >= 2398 && length <= 2401, "a 2400-frame fade-out: silent after %d frames", length);
    CHECK(x[5999] == 0 && x[6000] < 0.01f && x[6000 + 480] > 0.2f && x[6000 + 480] < 0.3f && x[6000 + 960] == 0.5f,
          "a 960-frame fade-in: %f %f %f", x[6000], x[6480], x[6960]);
    free(x);
    /* TUTTI_FADE_DEFAULT: back to the default 10 ms de-click. */
    OK(tutti_source_set_fades(engine, dc, TUTTI_FADE_DEFAULT, TUTTI_FADE_DEFAULT));
    OK(tutti_source_pause(engine, dc, 10000));
    x = render_mono(engine, 3000);
    length = frames_to_silence(x, 1000, 3000);
    CHECK(length >= 478 && length <= 481, "default fade-out 480 frames, got %d", length);
    /* 0: a hard cut. */
    OK(tutti_source_set_fades(engine, dc, 0, 0));
    OK(tutti_source_play(engine, dc, 13000));
    OK(tutti_source_pause(engine, dc, 14000));
    free(x);
    x = render_mono(engine, 3000); /* frames 12000… */
    CHECK(x[999] == 0 && x[1000] == 0.5f && x[1999] == 0.5f && x[2000] == 0, "no fades: %f %f %f %f", x[999], x[1000], x[1999],
          x[2000]);
    free(x);
    tutti_engine_destroy(engine);
}

static float slope(uint32_t k) { return (float)k / 48000.0f * 0.9f; }

static void seek_moves_the_position(void) {
    tutti_session music;
    tutti_engine *engine = engine_with(&music);
    tutti_source file;
    tutti_source_info info;
    float *x;
    write_mono_wav(temp_path("slope.wav"), RATE, RATE, slope);
    OK(tutti_source_create_file(engine, music, temp_path("slope.wav"), 0, &file));
    OK(tutti_source_set_fades(engine, file, 0, 0));
    OK(tutti_source_seek(engine, file, 24000, TUTTI_NOW));
    x = render_mono(engine, 256);
    free(x);
    tutti_source_info_init(&info);
    OK(tutti_source_get_info(engine, file, &info));
    CHECK(info.position == 24000, "position %lld", (long long)info.position);
    OK(tutti_source_play(engine, file, TUTTI_NOW));
    x = render_mono(engine, 1000);
    CHECK(fabsf(x[0] - 0.45f) < 1e-4f && fabsf(x[999] - slope(24999)) < 1e-4f, "plays from 24000: %f %f", x[0], x[999]);
    free(x);
    /* While playing (held in memory): from frame 2000 the old position fades out and 1200
     * fades in, linearly over the 10 ms de-click (whatever the source's fades), so 1200 is
     * heard from frame 2000. */
    OK(tutti_source_seek(engine, file, 1200, 2000));
    x = render_mono(engine, 2000); /* frames 1256… */
    CHECK(fabsf(x[743] - slope(25743)) < 1e-4f, "before frame 2000: %f", x[743]);
    CHECK(fabsf(x[744 + 239] - (0.5f * slope(25744 + 239) + 0.5f * slope(1200 + 239))) < 1e-4f, "half way at frame 2239: %f",
          x[744 + 239]);
    CHECK(fabsf(x[744 + 479] - slope(1200 + 479)) < 1e-4f && fabsf(x[1999] - slope(1200 + 1999 - 744)) < 1e-4f,
          "plays on from 1200 at frame 2000: %f %f", x[744 + 479], x[1999]);
    free(x);
    tutti_engine_destroy(engine);
}

static void gains_are_linear_up_to_16(void) {
    tutti_session music;
    tutti_engine *engine = engine_with(&music);
    tutti_source dc;
    float *x;
    write_mono_wav(temp_path("dc-gain.wav"), RATE, RATE, dc_half);
    OK(tutti_source_create_file(engine, music, temp_path("dc-gain.wav"), TUTTI_SOURCE_LOOP, &dc));
    OK(tutti_source_play(engine, dc, 0));
    OK(tutti_source_set_gain(engine, dc, 4.0f, 0, 100));
    OK(tutti_source_set_gain(engine, dc, 16.0f, 0, 200));
    OK(tutti_source_set_gain(engine, dc, 0.0f, 0, 300));
    x = render_mono(engine, 400);
    CHECK(x[99] == 0.5f && x[100] == 2.0f && x[200] == 8.0f && x[300] == 0.0f, "gains 1, 4, 16, 0: %f %f %f %f (no clipping)",
          x[99], x[100], x[200], x[300]);
    free(x);
    tutti_engine_destroy(engine);
}

/* Play goes through the policy: an ambient source under the silent switch advances silently. */
static void play_goes_through_the_policy(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session game = make_session(engine, "game", TUTTI_CATEGORY_AMBIENT, 0);
    tutti_source tone;
    tutti_source_info info;
    float *x;
    OK(tutti_source_create_tone(engine, game, 440, 0.5f, &tone));
    OK(tutti_system_set_silent_switch(engine, 1, TUTTI_NOW));
    OK(tutti_source_play(engine, tone, TUTTI_NOW));
    x = render_mono(engine, 4800);
    CHECK(peak(x, 0, 4800) == 0, "silent under the switch: peak %f", peak(x, 0, 4800));
    tutti_source_info_init(&info);
    OK(tutti_source_get_info(engine, tone, &info));
    CHECK(info.state == TUTTI_SOURCE_PLAYING && info.position == 4800, "it plays (advances): state %d position %lld", info.state,
          (long long)info.position);
    free(x);
    OK(tutti_system_set_silent_switch(engine, 0, 4800));
    x = render_mono(engine, 9600);
    CHECK(fabs(tone_amplitude(x + 4800, 4800, 1, 440) - 0.5) < 0.01, "heard once the switch is off: %f",
          tone_amplitude(x + 4800, 4800, 1, 440));
    free(x);
    tutti_engine_destroy(engine);
}

int main(void) {
    TEST(streams_play_at_their_true_pitch);
    TEST(offline_renders_of_long_files_are_whole_and_identical);
    TEST(streams_pass_through_and_end);
    TEST(stream_underruns_are_counted);
    TEST(source_info_follows_the_life_of_a_source);
    TEST(source_ended_at_the_frame_after_the_last_sample);
    TEST(fades);
    TEST(seek_moves_the_position);
    TEST(gains_are_linear_up_to_16);
    TEST(play_goes_through_the_policy);
    return harness_done();
}
