/* Bad input to every public function: NULL pointers, NaN and infinities, values out of
 * range, unknown enum values and bits, stale and unknown ids, unknown struct sizes, files
 * that are missing, directories, FIFOs, unreadable or not audio, full queues and maxima.
 * Each gives its code and a message naming the argument or path, changes nothing, and
 * never crashes. */
#define _POSIX_C_SOURCE 200809L
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "wav.h"

static const float nan_ = NAN;
static const float inf_ = INFINITY;

/* Counts of the engine, to show a failed call changed nothing. */
static void expect_counts(tutti_engine *engine, uint32_t sessions, uint32_t sources) {
    tutti_stats s;
    tutti_stats_init(&s);
    OK(tutti_engine_get_stats(engine, &s));
    CHECK(s.sessions == sessions && s.sources == sources, "sessions %u (expected %u), sources %u (expected %u)", s.sessions,
          sessions, s.sources, sources);
}

static void engine_functions(void) {
    tutti_engine_config config;
    tutti_engine *engine = (tutti_engine *)&config; /* a sentinel: must stay untouched on failure */
    tutti_stats stats;
    tutti_event event;
    float x[64];

    tutti_engine_config_init(NULL); /* ignored */
    tutti_stats_init(NULL);
    tutti_source_info_init(NULL);
    tutti_output_config_init(NULL);
    tutti_engine_destroy(NULL);

    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config must not be NULL", tutti_engine_create(NULL, &engine));
    tutti_engine_config_init(&config);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "out must not be NULL", tutti_engine_create(&config, NULL));
#define BAD_CONFIG(field, value, text)                                                                               \
    do {                                                                                                             \
        tutti_engine_config_init(&config);                                                                           \
        config.field = (value);                                                                                      \
        FAILS(TUTTI_ERROR_INVALID_ARGUMENT, text, tutti_engine_create(&config, &engine));                            \
    } while (0)
    BAD_CONFIG(sample_rate, 0, "sampleRate");
    BAD_CONFIG(sample_rate, 7999, "sampleRate");
    BAD_CONFIG(sample_rate, 384001, "sampleRate");
    BAD_CONFIG(channels, 0, "channelCount");
    BAD_CONFIG(channels, 3, "channelCount");
    BAD_CONFIG(max_block_frames, 0, "maxBlockFrames");
    BAD_CONFIG(max_block_frames, 1u << 20, "maxBlockFrames");
    BAD_CONFIG(max_sources, 0, "maxSources");
    BAD_CONFIG(max_sources, 0xFFFFFFFFu, "maxSources");
    BAD_CONFIG(max_sessions, 0, "maxSessions");
    BAD_CONFIG(max_sessions, 100000, "maxSessions");
    BAD_CONFIG(command_queue_capacity, 1, "commandQueueCapacity");
    BAD_CONFIG(command_queue_capacity, 0xFFFFFFFFu, "commandQueueCapacity");
    tutti_engine_config_init(&config);
    config.struct_size = sizeof config - 2; /* between two layouts */
    FAILS(TUTTI_ERROR_VERSION, "config->struct_size", tutti_engine_create(&config, &engine));
    config.struct_size = 0;
    FAILS(TUTTI_ERROR_VERSION, "config->struct_size is 0", tutti_engine_create(&config, &engine));
    config.struct_size = TUTTI_MAX_STRUCT_SIZE + 1;
    FAILS(TUTTI_ERROR_VERSION, "struct_size", tutti_engine_create(&config, &engine));
    CHECK(engine == (tutti_engine *)&config, "*out untouched by failed creates%s", "");

    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "tutti_engine_render: engine must not be NULL", tutti_engine_render(NULL, x, 16));
    CHECK(tutti_engine_get_frame(NULL) == TUTTI_ERROR_INVALID_ARGUMENT, "%lld", (long long)tutti_engine_get_frame(NULL));
    CHECK(strstr(tutti_last_error(), "tutti_engine_get_frame: engine must not be NULL") != NULL, "%s", tutti_last_error());
    tutti_stats_init(&stats);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_engine_get_stats(NULL, &stats));
    CHECK(tutti_engine_poll_event(NULL, &event) == TUTTI_ERROR_INVALID_ARGUMENT, "%s", tutti_last_error());
    CHECK(tutti_engine_event_fd(NULL) == TUTTI_ERROR_INVALID_ARGUMENT, "%s", tutti_last_error());
    CHECK(strstr(tutti_last_error(), "tutti_engine_event_fd") != NULL, "%s", tutti_last_error());

    engine = make_engine(1, 0);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "interleaved must not be NULL", tutti_engine_render(engine, NULL, 16));
    OK(tutti_engine_render(engine, NULL, 0)); /* nothing to write */
    CHECK(tutti_engine_get_frame(engine) == 0, "failed renders do not advance the clock: %lld",
          (long long)tutti_engine_get_frame(engine));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "out must not be NULL", tutti_engine_get_stats(engine, NULL));
    stats.struct_size = 8;
    FAILS(TUTTI_ERROR_VERSION, "out->struct_size is 8", tutti_engine_get_stats(engine, &stats));
    CHECK(tutti_engine_poll_event(engine, NULL) == TUTTI_ERROR_INVALID_ARGUMENT, "%s", tutti_last_error());
    CHECK(strstr(tutti_last_error(), "out must not be NULL") != NULL, "%s", tutti_last_error());
    tutti_engine_destroy(engine);
}

static void session_functions(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session s = 0, music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    const char bad_utf8[] = {'m', (char)0xff, 'x', 0};

    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "tutti_session_create: engine must not be NULL", tutti_session_create(NULL, "a", &s));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "name must not be NULL", tutti_session_create(engine, NULL, &s));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "out must not be NULL", tutti_session_create(engine, "a", NULL));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "empty", tutti_session_create(engine, "", &s));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "name is not valid UTF-8", tutti_session_create(engine, bad_utf8, &s));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "music", tutti_session_create(engine, "music", &s));
    CHECK(s == 0, "out untouched: %llx", (unsigned long long)s);
    expect_counts(engine, 1, 0);

    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL",
          tutti_session_set_category(NULL, music, TUTTI_CATEGORY_PLAYBACK, TUTTI_MODE_DEFAULT, 0));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "category 7 is not a tutti_category",
          tutti_session_set_category(engine, music, 7, TUTTI_MODE_DEFAULT, 0));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "category -1", tutti_session_set_category(engine, music, -1, TUTTI_MODE_DEFAULT, 0));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "mode 8 is not a tutti_mode",
          tutti_session_set_category(engine, music, TUTTI_CATEGORY_PLAYBACK, 8, 0));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "options has unknown bits 0x20",
          tutti_session_set_category(engine, music, TUTTI_CATEGORY_PLAYBACK, TUTTI_MODE_DEFAULT, 0x21));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "duckOthers",
          tutti_session_set_category(engine, music, TUTTI_CATEGORY_AMBIENT, TUTTI_MODE_DEFAULT, TUTTI_OPTION_DUCK_OTHERS));
    FAILS(TUTTI_ERROR_NOT_FOUND, "session",
          tutti_session_set_category(engine, 0, TUTTI_CATEGORY_PLAYBACK, TUTTI_MODE_DEFAULT, 0));
    FAILS(TUTTI_ERROR_NOT_FOUND, "session",
          tutti_session_set_category(engine, 0xDEADBEEF00000042ull, TUTTI_CATEGORY_PLAYBACK, TUTTI_MODE_DEFAULT, 0));

    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_session_set_active(NULL, music, 1, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "flags has unknown bits 0x2", tutti_session_set_active(engine, music, 1, 2, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "at must be TUTTI_NOW (-1) or a frame >= 0, got -2",
          tutti_session_set_active(engine, music, 1, 0, -2));
    FAILS(TUTTI_ERROR_NOT_FOUND, "session", tutti_session_set_active(engine, 7, 1, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_session_set_foreground(NULL, music, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "got -100", tutti_session_set_foreground(engine, music, 0, -100));
    FAILS(TUTTI_ERROR_NOT_FOUND, "session", tutti_session_set_foreground(engine, 7, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_session_destroy(NULL, music, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "at must be", tutti_session_destroy(engine, music, INT64_MIN));
    FAILS(TUTTI_ERROR_NOT_FOUND, "session", tutti_session_destroy(engine, 7, TUTTI_NOW));
    expect_counts(engine, 1, 0);
    tutti_engine_destroy(engine);
}

static void source_creation(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    tutti_source src = 0, first, probe;
    const char bad_utf8[] = {'/', 't', (char)0xc3, 0};
    const char *text = temp_path("not-audio.wav"), *fifo = temp_path("fifo.wav"), *locked = temp_path("locked.wav");
    const char *stereo3 = temp_path("three-channels.wav");
    FILE *f;

    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_source_create_tone(NULL, music, 440, 0.5f, &src));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "out must not be NULL", tutti_source_create_tone(engine, music, 440, 0.5f, NULL));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "frequency", tutti_source_create_tone(engine, music, (double)nan_, 0.5f, &src));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "frequency", tutti_source_create_tone(engine, music, (double)inf_, 0.5f, &src));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "frequency", tutti_source_create_tone(engine, music, 0, 0.5f, &src));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "frequency", tutti_source_create_tone(engine, music, -440, 0.5f, &src));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "Nyquist", tutti_source_create_tone(engine, music, 24000, 0.5f, &src));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "amplitude", tutti_source_create_tone(engine, music, 440, nan_, &src));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "amplitude", tutti_source_create_tone(engine, music, 440, -inf_, &src));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "amplitude", tutti_source_create_tone(engine, music, 440, 1.01f, &src));
    FAILS(TUTTI_ERROR_NOT_FOUND, "session", tutti_source_create_tone(engine, music + 1, 440, 0.5f, &src));

    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_source_create_stream(NULL, music, RATE, 1, 64, &src));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "out must not be NULL", tutti_source_create_stream(engine, music, RATE, 1, 64, NULL));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "sampleRate", tutti_source_create_stream(engine, music, 0, 1, 64, &src));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "sampleRate", tutti_source_create_stream(engine, music, 0xFFFFFFFFu, 1, 64, &src));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "channelCount", tutti_source_create_stream(engine, music, RATE, 0, 64, &src));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "channelCount", tutti_source_create_stream(engine, music, RATE, 3, 64, &src));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "capacityFrames", tutti_source_create_stream(engine, music, RATE, 1, 0, &src));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "capacityFrames",
          tutti_source_create_stream(engine, music, RATE, 2, 0xFFFFFFFFu, &src));
    FAILS(TUTTI_ERROR_NOT_FOUND, "session", tutti_source_create_stream(engine, 0, RATE, 1, 64, &src));

    /* Files: each failure names the path. */
    f = fopen(text, "w");
    fputs("this is not audio\n", f);
    fclose(f);
    unlink(fifo);
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo %s", fifo);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_source_create_file(NULL, music, text, 0, &src));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "path must not be NULL", tutti_source_create_file(engine, music, NULL, 0, &src));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "path is not valid UTF-8", tutti_source_create_file(engine, music, bad_utf8, 0, &src));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "path must not be empty", tutti_source_create_file(engine, music, "", 0, &src));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "flags has unknown bits 0x2", tutti_source_create_file(engine, music, text, 3, &src));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "out must not be NULL", tutti_source_create_file(engine, music, text, 0, NULL));
    FAILS(TUTTI_ERROR_NOT_FOUND, "session", tutti_source_create_file(engine, 5, text, 0, &src));
    FAILS(TUTTI_ERROR_IO, "/no/such/file.wav: cannot read audio file: no such file",
          tutti_source_create_file(engine, music, "/no/such/file.wav", 0, &src));
    FAILS(TUTTI_ERROR_IO, "is a folder, not a file", tutti_source_create_file(engine, music, temp_path(""), 0, &src));
    FAILS(TUTTI_ERROR_IO, "is a FIFO", tutti_source_create_file(engine, music, fifo, 0, &src)); /* and does not block */
    FAILS(TUTTI_ERROR_IO, "/dev/null: is a character device, not a regular file",
          tutti_source_create_file(engine, music, "/dev/null", 0, &src));
    FAILS(TUTTI_ERROR_FORMAT, text, tutti_source_create_file(engine, music, text, 0, &src));
    {
        float samples[3 * 16] = {0};
        CHECK(wav_write(stereo3, samples, 16, 3, RATE) == 0, "%s", stereo3);
        FAILS(TUTTI_ERROR_FORMAT, "3 channels", tutti_source_create_file(engine, music, stereo3, 0, &src));
    }
    write_mono_wav(locked, 100, RATE, dc_half);
    chmod(locked, 0);
    if (geteuid() != 0) {
        FAILS(TUTTI_ERROR_IO, "Permission denied", tutti_source_create_file(engine, music, locked, 0, &src));
    } else {
        printf("  (running as root: an unreadable file cannot be made; that case is skipped)\n");
    }
    CHECK(src == 0, "out untouched by failed creates: %llx", (unsigned long long)src);
    expect_counts(engine, 1, 0);

    /* No failed create used up an id: the next source is the one a fresh engine would give. */
    OK(tutti_source_create_tone(engine, music, 440, 0.5f, &first));
    {
        tutti_engine *fresh = make_engine(1, 0);
        tutti_session fm = make_session(fresh, "music", TUTTI_CATEGORY_PLAYBACK, 0);
        OK(tutti_source_create_tone(fresh, fm, 440, 0.5f, &probe));
        CHECK(probe == first && fm == music, "ids %llx vs fresh %llx", (unsigned long long)first, (unsigned long long)probe);
        tutti_engine_destroy(fresh);
    }
    tutti_engine_destroy(engine);
}

static void source_commands(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    tutti_source dc, stream;
    tutti_source_info info;
    uint32_t written = 77;
    float data[64] = {0};
    float *x;
    const char *path = temp_path("dc.wav");

    write_mono_wav(path, RATE, RATE, dc_half);
    OK(tutti_source_create_file(engine, music, path, TUTTI_SOURCE_LOOP, &dc));
    OK(tutti_source_create_stream(engine, music, RATE, 1, 64, &stream));
    OK(tutti_source_set_gain(engine, dc, 0.5f, 0, TUTTI_NOW));
    OK(tutti_source_play(engine, dc, TUTTI_NOW));

    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_source_set_gain(NULL, dc, 1, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "tutti_source_set_gain: gain must be finite and in [0, 16], got nan",
          tutti_source_set_gain(engine, dc, nan_, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "gain", tutti_source_set_gain(engine, dc, inf_, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "gain", tutti_source_set_gain(engine, dc, -inf_, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "gain", tutti_source_set_gain(engine, dc, -0.001f, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "gain", tutti_source_set_gain(engine, dc, 16.5f, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rampFrames", tutti_source_set_gain(engine, dc, 1, 0xFFFFFFFFu, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "at must be", tutti_source_set_gain(engine, dc, 1, 0, -7));
    FAILS(TUTTI_ERROR_NOT_FOUND, "source", tutti_source_set_gain(engine, 99, 1, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_NOT_FOUND, "source", tutti_source_set_gain(engine, music, 1, 0, TUTTI_NOW)); /* a session id */
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "tutti_source_set_pan: pan must be finite and in [-1, 1], got nan",
          tutti_source_set_pan(engine, dc, nan_, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "pan", tutti_source_set_pan(engine, dc, inf_, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "pan", tutti_source_set_pan(engine, dc, 1.001f, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "pan", tutti_source_set_pan(engine, dc, -1.5f, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "rampFrames", tutti_source_set_pan(engine, dc, 0, 0xFFFFFFFFu, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "at must be", tutti_source_set_pan(engine, dc, 0, 0, -7));
    FAILS(TUTTI_ERROR_NOT_FOUND, "source", tutti_source_set_pan(engine, 99, 0, 0, TUTTI_NOW));

    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_source_play(NULL, dc, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "at must be", tutti_source_play(engine, dc, -2));
    FAILS(TUTTI_ERROR_NOT_FOUND, "source", tutti_source_play(engine, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_source_pause(NULL, dc, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "at must be", tutti_source_pause(engine, dc, -2));
    FAILS(TUTTI_ERROR_NOT_FOUND, "source", tutti_source_pause(engine, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_source_stop(NULL, dc, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "at must be", tutti_source_stop(engine, dc, -2));
    FAILS(TUTTI_ERROR_NOT_FOUND, "source", tutti_source_stop(engine, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_source_seek(NULL, dc, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "seek position must be", tutti_source_seek(engine, dc, -1, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "at must be", tutti_source_seek(engine, dc, 0, -2));
    FAILS(TUTTI_ERROR_STATE, "stream", tutti_source_seek(engine, stream, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_NOT_FOUND, "source", tutti_source_seek(engine, 0, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_source_set_fades(NULL, dc, 0, 0));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "fade_in_frames must be in 0", tutti_source_set_fades(engine, dc, 0x80000000u, 0));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "fade_out_frames must be in 0", tutti_source_set_fades(engine, dc, 0, 0xFFFFFFFEu));
    FAILS(TUTTI_ERROR_NOT_FOUND, "source", tutti_source_set_fades(engine, 0, 0, 0));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_source_destroy(NULL, dc, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "at must be", tutti_source_destroy(engine, dc, -2));
    FAILS(TUTTI_ERROR_NOT_FOUND, "source", tutti_source_destroy(engine, 0, TUTTI_NOW));

    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_stream_write(NULL, stream, data, 8, &written));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "interleaved must not be NULL", tutti_stream_write(engine, stream, NULL, 8, &written));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "frames_written must not be NULL", tutti_stream_write(engine, stream, data, 8, NULL));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "not a stream", tutti_stream_write(engine, dc, data, 8, &written));
    FAILS(TUTTI_ERROR_NOT_FOUND, "source", tutti_stream_write(engine, 0, data, 8, &written));
    CHECK(written == 77, "frames_written untouched on failure: %u", written);

    tutti_source_info_init(&info);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_source_get_info(NULL, dc, &info));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "out must not be NULL", tutti_source_get_info(engine, dc, NULL));
    FAILS(TUTTI_ERROR_NOT_FOUND, "source", tutti_source_get_info(engine, 0, &info));
    info.struct_size = 4;
    FAILS(TUTTI_ERROR_VERSION, "out->struct_size is 4", tutti_source_get_info(engine, dc, &info));
    info.struct_size = 0xFFFFFFFFu;
    FAILS(TUTTI_ERROR_VERSION, "struct_size", tutti_source_get_info(engine, dc, &info));

    /* Nothing changed: the gain is still 0.5, the source plays, nothing was queued. */
    x = render_mono(engine, 2048);
    CHECK(fabs(x[2047] - 0.25) < 1e-6 && fabs(x[100] - 0.25) < 1e-6, "output %f %f, expected 0.25 (0.5 × gain 0.5)", x[100],
          x[2047]);
    tutti_source_info_init(&info);
    OK(tutti_source_get_info(engine, dc, &info));
    CHECK(info.gain == 0.5f && info.state == TUTTI_SOURCE_PLAYING, "gain %f state %d", info.gain, info.state);
    expect_counts(engine, 1, 2);
    free(x);
    tutti_engine_destroy(engine);
}

static void system_functions(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    tutti_source dc;
    float *x;
    write_mono_wav(temp_path("dc-system.wav"), RATE, RATE, dc_half);
    OK(tutti_source_create_file(engine, music, temp_path("dc-system.wav"), TUTTI_SOURCE_LOOP, &dc));
    OK(tutti_source_play(engine, dc, TUTTI_NOW));

    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_system_set_volume(NULL, 0.5f, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "tutti_system_set_volume: volume must be finite and in [0, 1], got nan",
          tutti_system_set_volume(engine, nan_, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "volume", tutti_system_set_volume(engine, inf_, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "volume", tutti_system_set_volume(engine, -0.1f, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "volume", tutti_system_set_volume(engine, 1.5f, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "at must be", tutti_system_set_volume(engine, 0.5f, -2));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_system_set_ringer_volume(NULL, 0.5f, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "ringer volume", tutti_system_set_ringer_volume(engine, nan_, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "ringer volume", tutti_system_set_ringer_volume(engine, 2, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_system_set_route(NULL, TUTTI_ROUTE_SPEAKER, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "route 4 is not a tutti_route", tutti_system_set_route(engine, 4, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "route -1", tutti_system_set_route(engine, -1, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "at must be", tutti_system_set_route(engine, TUTTI_ROUTE_HEADPHONES, -3));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_system_remote_command(NULL, TUTTI_REMOTE_PLAY, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "command 6 is not a tutti_remote_command", tutti_system_remote_command(engine, 6, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "at must be", tutti_system_remote_command(engine, TUTTI_REMOTE_PAUSE, -3));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_system_set_silent_switch(NULL, 1, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "at must be", tutti_system_set_silent_switch(engine, 1, -3));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_system_set_locked(NULL, 1, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "at must be", tutti_system_set_locked(engine, 1, -3));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_system_set_mic_muted(NULL, 1, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "at must be", tutti_system_set_mic_muted(engine, 1, -3));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_system_begin_phone_call(NULL, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "at must be", tutti_system_begin_phone_call(engine, -3));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_system_end_phone_call(NULL, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "at must be", tutti_system_end_phone_call(engine, -3));

    /* Nothing changed: full volume, no call, the music is heard at 0.5. */
    x = render_mono(engine, 4096);
    CHECK(fabs(x[4095] - 0.5) < 1e-6, "output %f, expected 0.5", x[4095]);
    free(x);
    tutti_engine_destroy(engine);
}

static void output_functions(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_output_config config;
    const char bad_utf8[] = {'h', 'w', (char)0xfe, 0};
    tutti_output_config_init(&config);
    CHECK(config.backend == TUTTI_BACKEND_ALSA && config.device == NULL && config.period_frames == 0 && config.periods == 0,
          "defaults%s", "");
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_output_start(NULL, &config));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config must not be NULL", tutti_output_start(engine, NULL));
    config.struct_size = 16;
    FAILS(TUTTI_ERROR_VERSION, "config->struct_size is 16", tutti_output_start(engine, &config));
    tutti_output_config_init(&config);
    config.backend = 4; /* past TUTTI_BACKEND_AUTO */
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->backend 4", tutti_output_start(engine, &config));
    config.backend = -1;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->backend -1", tutti_output_start(engine, &config));
    tutti_output_config_init(&config);
    config.period_frames = 8;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "periodFrames", tutti_output_start(engine, &config));
    tutti_output_config_init(&config);
    config.periods = 1;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "periodCount", tutti_output_start(engine, &config));
    config.periods = 1000;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "periodCount", tutti_output_start(engine, &config));
    tutti_output_config_init(&config);
    config.device = bad_utf8;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->device is not valid UTF-8", tutti_output_start(engine, &config));
    config.device = "no_such_pcm_tutti";
    FAILS(TUTTI_ERROR_DEVICE, "no_such_pcm_tutti", tutti_output_start(engine, &config));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine must not be NULL", tutti_output_stop(NULL));
    /* Nothing runs: pull rendering works. */
    {
        float x[256];
        OK(tutti_engine_render(engine, x, 256));
    }
    OK(tutti_output_stop(engine)); /* nothing to stop */
    tutti_engine_destroy(engine);
}

/* Stale ids after destroy, for every function that takes an id. */
static void stale_ids(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    tutti_session other = make_session(engine, "other", TUTTI_CATEGORY_PLAYBACK, 0);
    tutti_source tone, stream, kept, newcomer;
    tutti_source_info info;
    float data[16] = {0}, *x;
    uint32_t written;
    OK(tutti_source_create_tone(engine, music, 440, 0.5f, &tone));
    OK(tutti_source_create_stream(engine, music, RATE, 1, 64, &stream));
    OK(tutti_source_create_tone(engine, other, 660, 0.5f, &kept));
    OK(tutti_source_destroy(engine, tone, TUTTI_NOW));
    tutti_source_info_init(&info);

#define STALE_SOURCE(s)                                                                                              \
    do {                                                                                                             \
        FAILS(TUTTI_ERROR_NOT_FOUND, "source", tutti_source_play(engine, s, TUTTI_NOW));                            \
        FAILS(TUTTI_ERROR_NOT_FOUND, "source", tutti_source_pause(engine, s, TUTTI_NOW));                           \
        FAILS(TUTTI_ERROR_NOT_FOUND, "source", tutti_source_stop(engine, s, TUTTI_NOW));                            \
        FAILS(TUTTI_ERROR_NOT_FOUND, "source", tutti_source_seek(engine, s, 10, TUTTI_NOW));                        \
        FAILS(TUTTI_ERROR_NOT_FOUND, "source", tutti_source_set_gain(engine, s, 0.5f, 0, TUTTI_NOW));               \
        FAILS(TUTTI_ERROR_NOT_FOUND, "source", tutti_source_set_fades(engine, s, 10, 10));                          \
        FAILS(TUTTI_ERROR_NOT_FOUND, "source", tutti_source_get_info(engine, s, &info));                            \
        FAILS(TUTTI_ERROR_NOT_FOUND, "source", tutti_stream_write(engine, s, data, 16, &written));                  \
        FAILS(TUTTI_ERROR_NOT_FOUND, "source", tutti_source_destroy(engine, s, TUTTI_NOW));                         \
    } while (0)
    STALE_SOURCE(tone);
    /* Rendering lets the slot go; a new source may take it, in a new generation. */
    x = render_mono(engine, 1024);
    OK(tutti_source_create_tone(engine, music, 550, 0.5f, &newcomer));
    CHECK((newcomer & 0xFFFFFFFFu) == (tone & 0xFFFFFFFFu) && newcomer != tone, "slot reused in a new generation: %llx vs %llx",
          (unsigned long long)newcomer, (unsigned long long)tone);
    STALE_SOURCE(tone); /* never reaches the newcomer */
    tutti_source_get_info(engine, newcomer, &info);
    CHECK(info.gain == 1.0f && info.state == TUTTI_SOURCE_STOPPED, "the newcomer is untouched: gain %f state %d", info.gain,
          info.state);

    /* Destroying a session makes it and its sources stale; the other session is untouched. */
    OK(tutti_session_destroy(engine, music, TUTTI_NOW));
    FAILS(TUTTI_ERROR_NOT_FOUND, "session", tutti_session_set_active(engine, music, 1, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_NOT_FOUND, "session", tutti_session_set_foreground(engine, music, 1, TUTTI_NOW));
    FAILS(TUTTI_ERROR_NOT_FOUND, "session",
          tutti_session_set_category(engine, music, TUTTI_CATEGORY_AMBIENT, TUTTI_MODE_DEFAULT, 0));
    FAILS(TUTTI_ERROR_NOT_FOUND, "session", tutti_session_destroy(engine, music, TUTTI_NOW));
    FAILS(TUTTI_ERROR_NOT_FOUND, "session", tutti_source_create_tone(engine, music, 440, 0.5f, &tone));
    FAILS(TUTTI_ERROR_NOT_FOUND, "session", tutti_source_create_stream(engine, music, RATE, 1, 64, &tone));
    FAILS(TUTTI_ERROR_NOT_FOUND, "session", tutti_source_create_file(engine, music, "/no/file.wav", 0, &tone));
    STALE_SOURCE(stream);
    STALE_SOURCE(newcomer);
    OK(tutti_source_get_info(engine, kept, &info));
    OK(tutti_source_play(engine, kept, TUTTI_NOW));
    expect_counts(engine, 1, 1);
    free(x);
    tutti_engine_destroy(engine);
}

/* A bigger struct from a caller built against a newer header works; its extra fields are
 * neither read nor written. */
static void struct_sizes_from_newer_callers(void) {
    struct {
        tutti_engine_config config;
        uint32_t future[4];
    } newer_config;
    struct {
        tutti_source_info info;
        unsigned char future[24];
    } newer_info;
    struct {
        tutti_stats stats;
        unsigned char future[24];
    } newer_stats;
    struct {
        tutti_output_config config;
        uint64_t future[2];
    } newer_output;
    tutti_engine *engine = NULL;
    tutti_session music;
    tutti_source tone;
    size_t k;
    int untouched = 1;
    float x[256];

    tutti_engine_config_init(&newer_config.config);
    newer_config.config.struct_size = sizeof newer_config;
    newer_config.config.channels = 1;
    memset(newer_config.future, 0xAB, sizeof newer_config.future);
    OK(tutti_engine_create(&newer_config.config, &engine));
    CHECK(engine != NULL, "created%s", "");
    if (engine == NULL) return;
    OK(tutti_session_create(engine, "music", &music));
    OK(tutti_source_create_tone(engine, music, 440, 0.5f, &tone));
    OK(tutti_source_play(engine, tone, TUTTI_NOW));
    OK(tutti_engine_render(engine, x, 256));

    tutti_source_info_init(&newer_info.info);
    CHECK(newer_info.info.struct_size == sizeof(tutti_source_info), "init sets struct_size %u", newer_info.info.struct_size);
    newer_info.info.struct_size = sizeof newer_info;
    memset(newer_info.future, 0xCD, sizeof newer_info.future);
    OK(tutti_source_get_info(engine, tone, &newer_info.info));
    CHECK(newer_info.info.state == TUTTI_SOURCE_PLAYING && newer_info.info.position == 256, "state %d position %lld",
          newer_info.info.state, (long long)newer_info.info.position);
    CHECK(newer_info.info.struct_size == sizeof newer_info, "struct_size kept: %u", newer_info.info.struct_size);
    for (k = 0; k < sizeof newer_info.future; k++) untouched &= newer_info.future[k] == 0xCD;

    tutti_stats_init(&newer_stats.stats);
    newer_stats.stats.struct_size = sizeof newer_stats;
    memset(newer_stats.future, 0xEF, sizeof newer_stats.future);
    OK(tutti_engine_get_stats(engine, &newer_stats.stats));
    CHECK(newer_stats.stats.frames_rendered == 256 && newer_stats.stats.sources == 1, "%lld %u",
          (long long)newer_stats.stats.frames_rendered, newer_stats.stats.sources);
    for (k = 0; k < sizeof newer_stats.future; k++) untouched &= newer_stats.future[k] == 0xEF;
    CHECK(untouched, "bytes past the known layout are never written%s", "");

    tutti_output_config_init(&newer_output.config);
    newer_output.config.struct_size = sizeof newer_output;
    newer_output.config.device = "null";
    newer_output.future[0] = newer_output.future[1] = ~0ull;
    OK(tutti_output_start(engine, &newer_output.config));
    OK(tutti_output_stop(engine));
    tutti_engine_destroy(engine);
}

/* Configured maxima and a full command queue: CAPACITY, nothing half-done, nothing lost. */
static void capacity(void) {
    tutti_engine_config config;
    tutti_engine *engine = NULL;
    tutti_session s[3], extra;
    tutti_source src[2], more, dc;
    int accepted = 0, k;
    tutti_result r = TUTTI_OK;
    float *x, last_gain = 0;

    tutti_engine_config_init(&config);
    config.channels = 1;
    config.max_sessions = 2;
    config.max_sources = 2;
    config.command_queue_capacity = 64;
    OK(tutti_engine_create(&config, &engine));
    if (engine == NULL) return;
    OK(tutti_session_create(engine, "a", &s[0]));
    OK(tutti_session_create(engine, "b", &s[1]));
    FAILS(TUTTI_ERROR_CAPACITY, "too many sessions", tutti_session_create(engine, "c", &s[2]));
    expect_counts(engine, 2, 0);
    write_mono_wav(temp_path("dc-capacity.wav"), RATE, RATE, dc_half);
    OK(tutti_source_create_file(engine, s[0], temp_path("dc-capacity.wav"), TUTTI_SOURCE_LOOP, &dc));
    OK(tutti_source_create_tone(engine, s[0], 440, 0.5f, &src[0]));
    FAILS(TUTTI_ERROR_CAPACITY, "too many sources", tutti_source_create_tone(engine, s[1], 440, 0.5f, &more));
    expect_counts(engine, 2, 2);
    OK(tutti_source_destroy(engine, src[0], TUTTI_NOW));
    x = render_mono(engine, 256);
    free(x);
    OK(tutti_source_create_tone(engine, s[1], 440, 0.5f, &src[1])); /* room again */
    OK(tutti_session_destroy(engine, s[1], TUTTI_NOW));
    x = render_mono(engine, 256);
    free(x);
    OK(tutti_session_create(engine, "c", &extra));

    /* Commands scheduled for later wait in the queue: fill it, then render past them. */
    OK(tutti_source_play(engine, dc, TUTTI_NOW));
    for (k = 0; k < 1000; k++) {
        float g = (float)(k % 10) / 10;
        r = tutti_source_set_gain(engine, dc, g, 0, 1000 + k);
        if (r != TUTTI_OK) break;
        last_gain = g;
        accepted++;
    }
    CHECK(r == TUTTI_ERROR_CAPACITY, "a full queue is CAPACITY, got %s", tutti_result_string(r));
    CHECK(strstr(tutti_last_error(), "command queue is full") != NULL, "%s", tutti_last_error());
    CHECK(accepted >= 16 && accepted < 64, "accepted %d of a 64-command queue", accepted);
    FAILS(TUTTI_ERROR_CAPACITY, "command queue", tutti_system_set_volume(engine, 0.1f, TUTTI_NOW));
    x = render_mono(engine, 4096);
    /* Every accepted command landed, in order: the last gain holds at the end. */
    CHECK(fabs(x[4095] - 0.5 * last_gain) < 1e-6, "output %f, expected %f", x[4095], 0.5 * last_gain);
    CHECK(fabs(x[100] - 0.5) < 1e-6, "before the scheduled gains: %f", x[100]);
    OK(tutti_system_set_volume(engine, 1.0f, TUTTI_NOW)); /* room again */
    free(x);
    tutti_engine_destroy(engine);
}

int main(void) {
    TEST(engine_functions);
    TEST(session_functions);
    TEST(source_creation);
    TEST(source_commands);
    TEST(system_functions);
    TEST(output_functions);
    TEST(stale_ids);
    TEST(struct_sizes_from_newer_callers);
    TEST(capacity);
    return harness_done();
}
