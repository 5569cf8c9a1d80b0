/* A threaded C host of Tutti, laid out as a real one is: three threads share one engine.
 *
 *   render thread  stands for the audio device's callback: every 256 frames (5.33 ms, paced
 *                  on CLOCK_MONOTONIC deadlines) it renders one block into a preallocated
 *                  buffer and copies it into the take. It never waits for data (a device
 *                  does not): what the stream lacks is played as silence and reported. Inside
 *                  its loop it only calls tutti_engine_render and tutti_source_get_status
 *                  (both real-time safe) and copies memory: no allocation, lock or print.
 *   feeder thread  a decoder or network client: it generates a 440 Hz tone at 44.1 kHz (the
 *                  engine runs at 48 kHz; the stream converts) and writes it into a stream
 *                  source with tutti_stream_write in 10 ms chunks, keeping about the
 *                  stream's capacity (16384 frames, 0.37 s) ahead: when the stream is full it
 *                  sleeps 5 ms and writes the rest. After 2 s of tone it calls
 *                  tutti_stream_end: every written frame is heard, then SOURCE_ENDED.
 *   main thread    the application: it creates everything, lets the feeder fill the stream
 *                  before the "device" starts, then waits on the engine's event fd and prints
 *                  every event; once the engine clock passes 0.3 s it schedules a navigation
 *                  prompt (a second session, VOICE_PROMPT with DUCK_OTHERS, a 660 Hz tone)
 *                  for 0.5 s starting 0.1 s ahead, which ducks the music. Once the stream's
 *                  SOURCE_ENDED has arrived and the take holds 2.5 s, it stops the render
 *                  thread, joins both threads, destroys the engine and writes those 2.5 s to
 *                  the WAV file.
 *
 * Then it checks its own result by measurement and exits 1 when it is wrong: the stream's
 * tone has its true pitch (440 Hz, not 479 Hz as a 44.1 kHz stream played at 48 kHz would
 * have) and its level outside the prompt; it is ducked by 15 dB under the prompt, which is
 * heard; SOURCE_ENDED came at the frame every written frame accounts for (2 s of tone, plus
 * the silence the engine reported as underruns). A loaded machine may starve the feeder:
 * the render thread records, per block, the stream's underrun count (tutti_source_get_status),
 * and the measurement skips the 50 ms windows that touch a block with underrun silence, so the
 * checks hold with underruns too. Nothing depends on wall-clock time: every span measured
 * comes from the events' frames.
 *
 *   cc threaded.c $(pkg-config --cflags --libs tutti) -lm -lpthread -o threaded && ./threaded out.wav
 *
 * (The flags shared between threads use the GCC/Clang __atomic builtins so the file stays
 * C99; a C11 host would use <stdatomic.h>.)
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tutti.h>

#include "wav.h"

#define RATE 48000
#define CHANNELS 2
#define BLOCK 256
#define MAX_SECONDS 8                 /* the take's room: the render thread stops when it is full */
#define MAX_FRAMES (RATE * MAX_SECONDS)
#define MAX_BLOCKS (MAX_FRAMES / BLOCK)
#define WAV_FRAMES (RATE * 5 / 2)     /* 2.5 s written to the file */
#define STREAM_RATE 44100
#define STREAM_CAPACITY 16384         /* frames at STREAM_RATE: how far the feeder may run ahead */
#define STREAM_FRAMES (STREAM_RATE * 2) /* 2 s of tone */
#define CHUNK 441                     /* 10 ms at STREAM_RATE */
#define TONE_HZ 440.0
#define TONE_AMPLITUDE 0.25
#define PROMPT_HZ 660.0
#define PROMPT_AMPLITUDE 0.3f
#define DUCK_DB (-15.0f)
#define WINDOW 2400                   /* 50 ms: the measurement's window */

#define PI 3.14159265358979323846

/* What the threads share. The engine, ids and arrays are set before the threads start; the
 * flags and counters between threads are read and written atomically. */
struct host {
    tutti_engine *engine;
    tutti_source stream;
    float *take;               /* MAX_FRAMES * CHANNELS, written by the render thread only */
    uint64_t *underruns;       /* per block: the stream's underrun_frames after it */
    int stop;                  /* main -> render, feeder: finish */
    int primed;                /* feeder -> main: the stream is full, the device may start */
    long blocks;               /* render -> main: blocks rendered so far */
    int render_failures;       /* render: tutti_engine_render returned an error */
    long fed;                  /* feeder: frames written */
    int feeder_failed;
};

static int load_int(int *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static void store_int(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
static long load_long(long *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static void store_long(long *p, long v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

/* Print the error of a failed call and leave. */
static void check(tutti_result result, const char *what) {
    if (result != TUTTI_OK) {
        fprintf(stderr, "threaded: %s failed: %s: %s\n", what, tutti_result_string(result), tutti_last_error());
        exit(1);
    }
}

static void sleep_ms(long ms) {
    struct timespec t;
    t.tv_sec = ms / 1000;
    t.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&t, NULL);
}

/* The "device": one block every BLOCK / RATE seconds, on absolute deadlines (a late wake-up
 * renders the missed blocks back to back, as a device's catch-up would). The sleep stands for
 * the driver's wait between callbacks; the callback's own work is render + status + copy. */
static void *render_thread(void *arg) {
    struct host *h = arg;
    float block[BLOCK * CHANNELS];
    struct timespec start, deadline;
    long b;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (b = 0; b < MAX_BLOCKS && !load_int(&h->stop); b++) {
        int64_t ns = (int64_t)(b + 1) * BLOCK * 1000000000 / RATE;
        uint64_t underrun = b > 0 ? h->underruns[b - 1] : 0;
        /* --- the callback --- */
        if (tutti_engine_render(h->engine, block, BLOCK) != TUTTI_OK) h->render_failures++;
        tutti_source_get_status(h->engine, h->stream, NULL, NULL, &underrun);
        h->underruns[b] = underrun;
        memcpy(h->take + (size_t)b * BLOCK * CHANNELS, block, sizeof block);
        store_long(&h->blocks, b + 1);
        /* --- the device's wait --- */
        deadline.tv_sec = start.tv_sec + (time_t)((start.tv_nsec + ns) / 1000000000);
        deadline.tv_nsec = (long)((start.tv_nsec + ns) % 1000000000);
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) != 0) {
        }
    }
    return NULL;
}

/* The producer: 2 s of a 440 Hz tone at 44.1 kHz, written as the stream takes it, then the
 * end of the stream. */
static void *feeder_thread(void *arg) {
    struct host *h = arg;
    float chunk[CHUNK];
    long n = 0;
    while (n < STREAM_FRAMES && !load_int(&h->stop)) {
        uint32_t count = STREAM_FRAMES - n < CHUNK ? (uint32_t)(STREAM_FRAMES - n) : CHUNK;
        uint32_t done = 0, i;
        for (i = 0; i < count; i++) chunk[i] = (float)(TONE_AMPLITUDE * sin(2 * PI * TONE_HZ * (double)(n + i) / STREAM_RATE));
        while (done < count && !load_int(&h->stop)) {
            uint32_t written = 0;
            if (tutti_stream_write(h->engine, h->stream, chunk + done, count - done, &written) != TUTTI_OK) {
                fprintf(stderr, "threaded: tutti_stream_write: %s\n", tutti_last_error());
                store_int(&h->feeder_failed, 1);
                store_int(&h->primed, 1);
                return NULL;
            }
            done += written;
            if (done < count) { /* full: the stream holds STREAM_CAPACITY frames ahead */
                store_int(&h->primed, 1);
                sleep_ms(5);
            }
        }
        n += done;
        store_long(&h->fed, n);
    }
    if (tutti_stream_end(h->engine, h->stream) != TUTTI_OK) {
        fprintf(stderr, "threaded: tutti_stream_end: %s\n", tutti_last_error());
        store_int(&h->feeder_failed, 1);
    }
    store_int(&h->primed, 1);
    return NULL;
}

/* Amplitude of a `hz` sine in x[0], x[CHANNELS], ... (n frames): a Hann-windowed correlation. */
static double amplitude(const float *x, long n, double hz) {
    double re = 0, im = 0, weights = 0;
    long k;
    for (k = 0; k < n; k++) {
        double w = 0.5 - 0.5 * cos(2 * PI * (double)k / (double)(n - 1));
        double p = 2 * PI * hz * (double)k / RATE;
        re += w * x[k * CHANNELS] * cos(p);
        im += w * x[k * CHANNELS] * sin(p);
        weights += w;
    }
    return 2 * sqrt(re * re + im * im) / weights;
}

/* Frequency of the tone in x[0], x[CHANNELS], ... (n frames), from its rising zero crossings
 * (interpolated between samples); 0 when there are fewer than two. */
static double frequency(const float *x, long n) {
    double first = -1, last = -1;
    long k, crossings = 0;
    for (k = 1; k < n; k++) {
        float a = x[(k - 1) * CHANNELS], b = x[k * CHANNELS];
        if (a < 0 && b >= 0) {
            double t = (double)(k - 1) + a / (a - b);
            if (crossings++ == 0) first = t;
            last = t;
        }
    }
    return crossings < 2 ? 0 : (double)(crossings - 1) * RATE / (last - first);
}

/* Whether frames [from, from + WINDOW) are clear of underrun silence and its 2 ms fades: no
 * block from the one before to the one after saw the stream's underrun count grow. */
static int clean(const struct host *h, long from) {
    long b, first = from / BLOCK - 1, last = (from + WINDOW - 1) / BLOCK + 1;
    for (b = first < 0 ? 0 : first; b <= last && b < h->blocks; b++)
        if (h->underruns[b] != (b > 0 ? h->underruns[b - 1] : 0)) return 0;
    return 1;
}

static int failures = 0;
static void expect(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "threaded: CHECK FAILED: %s\n", what);
        failures++;
    }
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "tutti-threaded.wav";
    struct host h;
    pthread_t render, feeder;
    tutti_engine_config config;
    tutti_session music, nav;
    tutti_source prompt;
    tutti_event event;
    tutti_frame duck_began = -1, duck_ended = -1, ended = -1;
    uint64_t underrun_total = 0, underrun_reported = 0;
    int events = 0, underrun_events = 0, duck_scheduled = 0, fd;
    long frames, from, windows[2] = {0, 0};
    char what[160];

    memset(&h, 0, sizeof h);
    h.take = calloc((size_t)MAX_FRAMES * CHANNELS, sizeof(float));
    h.underruns = calloc(MAX_BLOCKS, sizeof(uint64_t));
    if (h.take == NULL || h.underruns == NULL) return 1;

    tutti_engine_config_init(&config);
    config.sample_rate = RATE;
    config.channels = CHANNELS;
    config.ducking_level_db = DUCK_DB;
    check(tutti_engine_create(&config, &h.engine), "tutti_engine_create");
    check(tutti_session_create(h.engine, "music", &music), "session music");
    check(tutti_session_set_category(h.engine, music, TUTTI_CATEGORY_PLAYBACK, TUTTI_MODE_DEFAULT, 0), "music category");
    check(tutti_source_create_stream(h.engine, music, STREAM_RATE, 1, STREAM_CAPACITY, &h.stream), "stream");
    check(tutti_session_create(h.engine, "nav", &nav), "session nav");
    check(tutti_session_set_category(h.engine, nav, TUTTI_CATEGORY_PLAYBACK, TUTTI_MODE_VOICE_PROMPT, TUTTI_OPTION_DUCK_OTHERS),
          "nav category");
    check(tutti_source_create_tone(h.engine, nav, PROMPT_HZ, PROMPT_AMPLITUDE, &prompt), "prompt");
    fd = tutti_engine_event_fd(h.engine);
    check(fd < 0 ? fd : TUTTI_OK, "tutti_engine_event_fd");

    /* The feeder fills the stream before the device starts (as a host primes its buffers). */
    if (pthread_create(&feeder, NULL, feeder_thread, &h) != 0) return 1;
    while (!load_int(&h.primed)) sleep_ms(1);
    check(tutti_source_play(h.engine, h.stream, TUTTI_NOW), "play stream");
    if (pthread_create(&render, NULL, render_thread, &h) != 0) return 1;

    /* The application: events as they come, the prompt once the clock passes 0.3 s. */
    while (ended < 0 && load_long(&h.blocks) < MAX_BLOCKS) {
        struct pollfd p;
        p.fd = fd;
        p.events = POLLIN;
        poll(&p, 1, 20);
        if (!duck_scheduled && tutti_engine_get_frame(h.engine) >= RATE * 3 / 10) {
            tutti_frame at = tutti_engine_get_frame(h.engine) + RATE / 10;
            check(tutti_session_set_active(h.engine, nav, 1, 0, at), "activate nav");
            check(tutti_source_play(h.engine, prompt, at), "play prompt");
            check(tutti_source_stop(h.engine, prompt, at + RATE / 2), "stop prompt");
            check(tutti_session_set_active(h.engine, nav, 0, TUTTI_NOTIFY_OTHERS_ON_DEACTIVATION, at + RATE / 2),
                  "deactivate nav");
            printf("main: prompt scheduled for frames %lld..%lld\n", (long long)at, (long long)(at + RATE / 2));
            duck_scheduled = 1;
        }
        while (tutti_engine_poll_event(h.engine, &event) == 1) {
            events++;
            printf("%6.3f s  %s (session %s)\n", (double)event.frame / RATE, tutti_event_type_string(event.type),
                   event.session == music ? "music" : event.session == nav ? "nav" : "-");
            if (event.type == TUTTI_EVENT_DUCKING_BEGAN && event.session == music) duck_began = event.frame;
            if (event.type == TUTTI_EVENT_DUCKING_ENDED && event.session == music) duck_ended = event.frame;
            if (event.type == TUTTI_EVENT_SOURCE_ENDED && event.source == h.stream) ended = event.frame;
            if (event.type == TUTTI_EVENT_SOURCE_UNDERRUN) {
                underrun_events++;
                underrun_reported += (uint64_t)event.reason;
            }
        }
    }
    /* The take holds at least the file's length (the stream ends before it). */
    while (load_long(&h.blocks) * BLOCK < WAV_FRAMES && load_long(&h.blocks) < MAX_BLOCKS) sleep_ms(5);
    store_int(&h.stop, 1);
    pthread_join(render, NULL);
    pthread_join(feeder, NULL);
    frames = h.blocks * BLOCK;
    for (from = 0; from < h.blocks; from++) /* the count only grows while the stream plays */
        if (h.underruns[from] > underrun_total) underrun_total = h.underruns[from];
    tutti_engine_destroy(h.engine);

    printf("threaded: %ld blocks rendered (%ld render failures); %ld stream frames fed; %d events, %d SOURCE_UNDERRUN "
           "(%llu frames in their first render call; %llu underrun frames in all)\n",
           h.blocks, (long)h.render_failures, h.fed, events, underrun_events, (unsigned long long)underrun_reported,
           (unsigned long long)underrun_total);

    /* The checks. */
    expect(!h.feeder_failed && h.fed == STREAM_FRAMES, "the feeder wrote the whole tone and ended the stream");
    expect(h.render_failures == 0, "every render succeeded");
    expect(ended >= 0, "the stream's SOURCE_ENDED arrived");
    expect(duck_began >= 0 && duck_ended > duck_began, "the music was ducked (DUCKING_BEGAN, then DUCKING_ENDED)");
    if (ended >= 0) {
        /* Heard: 2 s of tone at 48 kHz, plus the silence of the underruns. */
        long heard = (long)(ended - (tutti_frame)underrun_total);
        snprintf(what, sizeof what, "SOURCE_ENDED at frame %lld: %ld frames of tone heard, %d expected",
                 (long long)ended, heard, RATE * 2);
        printf("threaded: %s\n", what);
        expect(labs(heard - RATE * 2) <= 64, what);
    }
    if (ended >= 0 && duck_began >= 0 && duck_ended > duck_began && ended <= frames) {
        /* Windows of the stream alone (from 50 ms in, ending before the duck's attack and
         * after its 0.4 s release) and windows under the prompt (after the 0.1 s attack). */
        double full_min = 1e9, full_max = 0, f_min = 1e9, f_max = 0, duck_min = 1e9, duck_max = -1e9, prompt_min = 1e9,
               prompt_max = 0;
        for (from = RATE / 20; from + WINDOW <= ended - RATE / 20; from += WINDOW) {
            const float *x = h.take + (size_t)from * CHANNELS;
            int alone = from + WINDOW <= duck_began || from >= duck_ended + RATE / 2;
            int under = from >= duck_began + RATE * 3 / 20 && from + WINDOW <= duck_ended;
            if (!clean(&h, from) || !(alone || under)) continue;
            if (alone) {
                double a = amplitude(x, WINDOW, TONE_HZ), f = frequency(x, WINDOW);
                full_min = fmin(full_min, a), full_max = fmax(full_max, a);
                f_min = fmin(f_min, f), f_max = fmax(f_max, f);
                windows[0]++;
            } else {
                double db = 20 * log10(amplitude(x, WINDOW, TONE_HZ) / TONE_AMPLITUDE), p = amplitude(x, WINDOW, PROMPT_HZ);
                duck_min = fmin(duck_min, db), duck_max = fmax(duck_max, db);
                prompt_min = fmin(prompt_min, p), prompt_max = fmax(prompt_max, p);
                windows[1]++;
            }
        }
        printf("threaded: stream alone, %ld clean windows: %.3f..%.3f Hz, amplitude %.4f..%.4f\n", windows[0], f_min, f_max,
               full_min, full_max);
        printf("threaded: under the prompt, %ld clean windows: stream %.2f..%.2f dB, prompt amplitude %.4f..%.4f\n",
               windows[1], duck_min, duck_max, prompt_min, prompt_max);
        expect(windows[0] >= 4 && windows[1] >= 1, "enough windows clear of underruns to measure");
        expect(f_min > TONE_HZ - 0.5 && f_max < TONE_HZ + 0.5, "the stream plays at its true pitch (440 Hz)");
        expect(full_min > TONE_AMPLITUDE * 0.97 && full_max < TONE_AMPLITUDE * 1.03, "the stream's level outside the prompt");
        expect(duck_min > DUCK_DB - 1 && duck_max < DUCK_DB + 1, "the stream is ducked by 15 dB under the prompt");
        expect(prompt_min > PROMPT_AMPLITUDE * 0.97 && prompt_max < PROMPT_AMPLITUDE * 1.03, "the prompt is heard");
    }

    if (wav_write(path, h.take, frames < WAV_FRAMES ? (uint32_t)frames : WAV_FRAMES, CHANNELS, RATE) != 0) {
        perror(path);
        return 1;
    }
    printf("wrote %s: %u frames, %u channels, %d Hz\n", path, frames < WAV_FRAMES ? (unsigned)frames : WAV_FRAMES, CHANNELS,
           RATE);
    free(h.take);
    free(h.underruns);
    if (failures > 0) {
        fprintf(stderr, "threaded: %d check(s) failed\n", failures);
        return 1;
    }
    printf("threaded: all checks passed\n");
    return 0;
}
