// The reference client of scripts/pipewire-load.sh: the smallest PipeWire playback client that
// renders the way Tutti's PipeWire backend does, so that its xruns are a baseline for that way of
// rendering in the same conditions (with next to no work per cycle).
//
// It plays a 440 Hz sine (amplitude 0.3, float32, 48 kHz stereo) to TARGET for SECONDS, asking
// for QUANTUM frames per cycle (node.latency QUANTUM/48000), and computes each cycle's samples
// in the stream's process callback on PipeWire's real-time data thread (PW_STREAM_FLAG_RT_PROCESS):
// one buffer per cycle, rendered when the graph asks for it, as Tutti does; WORK_US (default 0)
// busy-waits in each callback until that many microseconds have passed since it began, standing
// for a mix's work. With `buffered` it
// leaves the flag off and renders as pw-play does: the callback runs on the main loop, the
// stream is an asynchronous node and keeps buffers filled ahead of the graph (more latency).
//
//   cc -O2 -march=native -o pipewire-ref scripts/pipewire-ref.c $(pkg-config --cflags --libs libpipewire-0.3) -lm
//   pipewire-ref TARGET QUANTUM SECONDS [WORK_US [buffered]]
#include <math.h>
#include <pipewire/pipewire.h>
#include <spa/param/audio/format-utils.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { RATE = 48000, CHANNELS = 2 };

struct ref {
    struct pw_main_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct pw_stream *stream;
    double phase;     // radians, in [0, 2π)
    int64_t work_ns;  // busy time per cycle, from the callback's start (0: none)
};

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void on_process(void *data) {
    struct ref *r = data;
    const int64_t start = r->work_ns > 0 ? now_ns() : 0;
    struct pw_buffer *b = pw_stream_dequeue_buffer(r->stream);
    if (b == NULL) return;
    struct spa_data *d = &b->buffer->datas[0];
    float *out = d->data;
    if (out == NULL) {
        pw_stream_queue_buffer(r->stream, b);
        return;
    }
    uint32_t stride = sizeof(float) * CHANNELS;
    uint32_t frames = d->maxsize / stride;
    if (b->requested != 0 && b->requested < frames) frames = (uint32_t)b->requested;
    const double step = 2 * M_PI * 440.0 / RATE;
    for (uint32_t i = 0; i < frames; i++) {
        float v = 0.3f * (float)sin(r->phase);
        for (uint32_t c = 0; c < CHANNELS; c++) out[i * CHANNELS + c] = v;
        r->phase += step;
        if (r->phase >= 2 * M_PI) r->phase -= 2 * M_PI;
    }
    // Stands for a mix's work: the callback returns WORK_US after it began.
    while (r->work_ns > 0 && now_ns() - start < r->work_ns) {
    }
    d->chunk->offset = 0;
    d->chunk->stride = (int32_t)stride;
    d->chunk->size = frames * stride;
    pw_stream_queue_buffer(r->stream, b);
}

static const struct pw_stream_events events = {PW_VERSION_STREAM_EVENTS, .process = on_process};

int main(int argc, char **argv) {
    if (argc < 4 || argc > 6 || atoi(argv[2]) <= 0 || atoi(argv[3]) <= 0 || (argc >= 5 && atoi(argv[4]) < 0) ||
        (argc == 6 && strcmp(argv[5], "buffered") != 0)) {
        fprintf(stderr, "usage: pipewire-ref TARGET QUANTUM SECONDS [WORK_US [buffered]]\n");
        return 2;
    }
    const bool buffered = argc == 6;
    pw_init(&argc, &argv);
    struct ref r = {0};
    if (argc >= 5) r.work_ns = (int64_t)atoi(argv[4]) * 1000;
    r.loop = pw_main_loop_new(NULL);
    if (r.loop == NULL) {
        fprintf(stderr, "pipewire-ref: no main loop\n");
        return 1;
    }
    char latency[32];
    snprintf(latency, sizeof latency, "%s/%d", argv[2], RATE);
    struct pw_properties *props = pw_properties_new(PW_KEY_MEDIA_TYPE, "Audio", PW_KEY_MEDIA_CATEGORY, "Playback",
                                                    PW_KEY_NODE_NAME, "reference", PW_KEY_NODE_LATENCY, latency,
                                                    "target.object", argv[1], NULL);
    // client-rt.conf (as pw-cat's): its module-rt makes the data thread real-time (SCHED_FIFO),
    // as it does for Tutti's; the default client.conf leaves it at normal scheduling.
    r.context = pw_context_new(pw_main_loop_get_loop(r.loop), pw_properties_new(PW_KEY_CONFIG_NAME, "client-rt.conf", NULL), 0);
    r.core = r.context ? pw_context_connect(r.context, NULL, 0) : NULL;
    if (r.core == NULL) {
        fprintf(stderr, "pipewire-ref: no PipeWire daemon answers\n");
        return 1;
    }
    struct spa_hook listener;
    r.stream = pw_stream_new(r.core, "pipewire-ref", props);
    if (r.stream) pw_stream_add_listener(r.stream, &listener, &events, &r);
    uint8_t pod[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(pod, sizeof pod);
    const struct spa_pod *params[1] = {spa_format_audio_raw_build(
        &builder, SPA_PARAM_EnumFormat,
        &SPA_AUDIO_INFO_RAW_INIT(.format = SPA_AUDIO_FORMAT_F32, .channels = CHANNELS, .rate = RATE))};
    enum pw_stream_flags flags = PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS;
    if (!buffered) flags |= PW_STREAM_FLAG_RT_PROCESS;
    if (r.stream == NULL || pw_stream_connect(r.stream, PW_DIRECTION_OUTPUT, PW_ID_ANY, flags, params, 1) < 0) {
        fprintf(stderr, "pipewire-ref: cannot connect a stream to %s\n", argv[1]);
        return 1;
    }
    // The main loop runs here (the process callback too, when buffered) until SECONDS have passed.
    const int64_t end = now_ns() + (int64_t)atoi(argv[3]) * 1000000000;
    struct pw_loop *loop = pw_main_loop_get_loop(r.loop);
    pw_loop_enter(loop);
    while (now_ns() < end) pw_loop_iterate(loop, 100);
    pw_loop_leave(loop);
    pw_stream_destroy(r.stream);
    pw_core_disconnect(r.core);
    pw_context_destroy(r.context);
    pw_main_loop_destroy(r.loop);
    pw_deinit();
    return 0;
}
