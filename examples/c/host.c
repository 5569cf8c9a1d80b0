/* A small C host of Tutti: it pulls audio from the engine in its own loop (as an audio
 * callback would) and writes it to a WAV file.
 *
 * A music player plays a bass tone and a melody it feeds itself through a 44.1 kHz stream;
 * a navigation app speaks (an 880 Hz "prompt") from 1.0 s to 2.0 s and ducks the music
 * meanwhile. Every change is scheduled at an exact frame; the events are printed as they
 * are delivered.
 *
 *   cc host.c $(pkg-config --cflags --libs tutti) -lm -o host && ./host out.wav
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <tutti.h>

#include "wav.h"

#define RATE 48000
#define CHANNELS 2
#define SECONDS 3
#define BLOCK 256
#define STREAM_RATE 44100

/* Print the error of a failed call and leave. */
static void check(tutti_result result, const char *what) {
    if (result != TUTTI_OK) {
        fprintf(stderr, "host: %s failed: %s: %s\n", what, tutti_result_string(result), tutti_last_error());
        exit(1);
    }
}

static const char *event_name(int32_t type) {
    switch (type) {
    case TUTTI_EVENT_INTERRUPTION_BEGAN: return "interruption began";
    case TUTTI_EVENT_INTERRUPTION_ENDED: return "interruption ended";
    case TUTTI_EVENT_SOURCE_ENDED: return "source ended";
    case TUTTI_EVENT_ROUTE_CHANGED: return "route changed";
    case TUTTI_EVENT_DUCKING_BEGAN: return "ducking began";
    case TUTTI_EVENT_DUCKING_ENDED: return "ducking ended";
    case TUTTI_EVENT_SILENCE_SECONDARY_AUDIO_HINT: return "silence secondary audio hint";
    default: return "device event";
    }
}

/* The melody: a tone that alternates between 440 and 660 Hz every half second, at
 * STREAM_RATE, generated in chunks as the stream takes them. */
static void melody(float *out, uint32_t frames) {
    static double phase = 0;
    static uint64_t position = 0;
    uint32_t i;
    for (i = 0; i < frames; i++, position++) {
        double frequency = (position / (STREAM_RATE / 2)) % 2 ? 660.0 : 440.0;
        phase += 2 * 3.14159265358979323846 * frequency / STREAM_RATE;
        out[i] = (float)(0.2 * sin(phase));
    }
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "tutti-host.wav";
    const uint32_t total = RATE * SECONDS;
    float *audio = calloc((size_t)total * CHANNELS, sizeof(float));
    float feed[1024];
    uint32_t feed_offset = 0, feed_frames = 0;
    uint32_t done = 0;
    int events = 0;
    tutti_engine_config config;
    tutti_engine *engine = NULL;
    tutti_session music, nav;
    tutti_source bass, stream, prompt;
    tutti_event event;

    if (audio == NULL) return 1;
    printf("libtutti %s (ABI %u)\n", tutti_version_string(), tutti_abi_version());
    tutti_engine_config_init(&config);
    config.sample_rate = RATE;
    config.channels = CHANNELS;
    check(tutti_engine_create(&config, &engine), "tutti_engine_create");

    check(tutti_session_create(engine, "music", &music), "session music");
    check(tutti_session_set_category(engine, music, TUTTI_CATEGORY_PLAYBACK, TUTTI_MODE_DEFAULT, 0), "music category");
    check(tutti_source_create_tone(engine, music, 110.0, 0.15f, &bass), "bass");
    check(tutti_source_create_stream(engine, music, STREAM_RATE, 1, 8192, &stream), "stream");

    check(tutti_session_create(engine, "nav", &nav), "session nav");
    check(tutti_session_set_category(engine, nav, TUTTI_CATEGORY_PLAYBACK, TUTTI_MODE_VOICE_PROMPT, TUTTI_OPTION_DUCK_OTHERS),
          "nav category");
    check(tutti_source_create_tone(engine, nav, 880.0, 0.3f, &prompt), "prompt");

    /* The music starts now; the prompt from 1.0 s to 2.0 s, exactly. */
    check(tutti_source_play(engine, bass, TUTTI_NOW), "play bass");
    check(tutti_source_play(engine, stream, TUTTI_NOW), "play stream");
    check(tutti_session_set_active(engine, nav, 1, 0, RATE), "activate nav");
    check(tutti_source_play(engine, prompt, RATE), "play prompt");
    check(tutti_source_stop(engine, prompt, 2 * RATE), "stop prompt");
    check(tutti_session_set_active(engine, nav, 0, TUTTI_NOTIFY_OTHERS_ON_DEACTIVATION, 2 * RATE), "deactivate nav");

    /* The host's loop: keep the stream fed, pull a block, handle events. */
    while (done < total) {
        uint32_t n = total - done < BLOCK ? total - done : BLOCK;
        uint32_t written;
        for (;;) { /* top the stream up until it is full */
            if (feed_frames == 0) {
                melody(feed, 1024);
                feed_offset = 0;
                feed_frames = 1024;
            }
            check(tutti_stream_write(engine, stream, feed + feed_offset, feed_frames, &written), "stream write");
            feed_offset += written;
            feed_frames -= written;
            if (feed_frames > 0) break;
        }
        check(tutti_engine_render(engine, audio + (size_t)done * CHANNELS, n), "render");
        done += n;
        while (tutti_engine_poll_event(engine, &event) == 1) {
            printf("%6.3f s  %s (session %s)\n", (double)event.frame / RATE, event_name(event.type),
                   event.session == music ? "music" : event.session == nav ? "nav" : "-");
            events++;
        }
    }

    tutti_engine_destroy(engine);
    if (wav_write(path, audio, total, CHANNELS, RATE) != 0) {
        perror(path);
        return 1;
    }
    printf("wrote %s: %u frames, %u channels, %d Hz; %d events\n", path, total, CHANNELS, RATE, events);
    free(audio);
    return 0;
}
