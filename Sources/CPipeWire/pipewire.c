// libpipewire-0.3 through dlopen/dlsym: the few declarations of <pipewire/*.h> this file uses
// are repeated below (PipeWire keeps the 0.3 ABI stable; the layouts are those of 0.3.65,
// checked against the real headers by Tests/TuttiPipeWireTests' header check), so only the
// header-only SPA (libspa-0.2-dev, for the format pod) is needed to build, and nothing links
// libpipewire.
#include "CPipeWire.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include <spa/param/audio/format-utils.h>
#include <spa/buffer/buffer.h>
#include <spa/node/command.h>
#include <spa/pod/builder.h>
#include <spa/utils/dict.h>
#include <spa/utils/hook.h>

// ---- The declarations of <pipewire/...> used here (0.3 ABI) ----

struct pw_thread_loop;
struct pw_loop;
struct pw_context;
struct pw_core;
struct pw_stream;
struct pw_properties;

enum tpw_stream_state {
    TPW_STREAM_STATE_ERROR = -1,
    TPW_STREAM_STATE_UNCONNECTED = 0,
    TPW_STREAM_STATE_CONNECTING = 1,
    TPW_STREAM_STATE_PAUSED = 2,
    TPW_STREAM_STATE_STREAMING = 3,
};

enum {
    TPW_STREAM_FLAG_AUTOCONNECT = 1 << 0,
    TPW_STREAM_FLAG_MAP_BUFFERS = 1 << 2,
    TPW_STREAM_FLAG_RT_PROCESS = 1 << 4,
};

#define TPW_ID_ANY ((uint32_t)0xffffffff)
#define TPW_VERSION_STREAM_EVENTS 2

struct tpw_buffer {
    struct spa_buffer *buffer;
    void *user_data;
    uint64_t size;
    uint64_t requested; // since 0.3.49
};

struct tpw_time {
    int64_t now;
    struct spa_fraction rate;
    uint64_t ticks;
    int64_t delay;
    uint64_t queued;
    uint64_t buffered;
    uint32_t queued_buffers;
    uint32_t avail_buffers;
};

struct tpw_stream_events {
    uint32_t version;
    void (*destroy)(void *data);
    void (*state_changed)(void *data, enum tpw_stream_state old, enum tpw_stream_state state, const char *error);
    void (*control_info)(void *data, uint32_t id, const void *control);
    void (*io_changed)(void *data, uint32_t id, void *area, uint32_t size);
    void (*param_changed)(void *data, uint32_t id, const struct spa_pod *param);
    void (*add_buffer)(void *data, struct tpw_buffer *buffer);
    void (*remove_buffer)(void *data, struct tpw_buffer *buffer);
    void (*process)(void *data);
    void (*drained)(void *data);
    void (*command)(void *data, const struct spa_command *command);
    void (*trigger_done)(void *data);
};

#define TPW_FUNCTIONS(X) \
    X(void, pw_init, (int *argc, char **argv[])) \
    X(const char *, pw_get_library_version, (void)) \
    X(struct pw_thread_loop *, pw_thread_loop_new, (const char *name, const struct spa_dict *props)) \
    X(struct pw_loop *, pw_thread_loop_get_loop, (struct pw_thread_loop *loop)) \
    X(int, pw_thread_loop_start, (struct pw_thread_loop *loop)) \
    X(void, pw_thread_loop_stop, (struct pw_thread_loop *loop)) \
    X(void, pw_thread_loop_destroy, (struct pw_thread_loop *loop)) \
    X(void, pw_thread_loop_lock, (struct pw_thread_loop *loop)) \
    X(void, pw_thread_loop_unlock, (struct pw_thread_loop *loop)) \
    X(void, pw_thread_loop_signal, (struct pw_thread_loop *loop, bool wait_for_accept)) \
    X(int, pw_thread_loop_timed_wait, (struct pw_thread_loop *loop, int wait_max_sec)) \
    X(struct pw_context *, pw_context_new, (struct pw_loop *loop, struct pw_properties *props, size_t user_data_size)) \
    X(void, pw_context_destroy, (struct pw_context *context)) \
    X(struct pw_core *, pw_context_connect, (struct pw_context *context, struct pw_properties *props, size_t user_data_size)) \
    X(int, pw_core_disconnect, (struct pw_core *core)) \
    X(struct pw_properties *, pw_properties_new, (const char *key, ...)) \
    X(int, pw_properties_set, (struct pw_properties *props, const char *key, const char *value)) \
    X(struct pw_stream *, pw_stream_new, (struct pw_core *core, const char *name, struct pw_properties *props)) \
    X(void, pw_stream_add_listener, (struct pw_stream *stream, struct spa_hook *listener, const struct tpw_stream_events *events, void *data)) \
    X(int, pw_stream_connect, (struct pw_stream *stream, enum spa_direction direction, uint32_t target_id, uint32_t flags, const struct spa_pod **params, uint32_t n_params)) \
    X(void, pw_stream_destroy, (struct pw_stream *stream)) \
    X(uint32_t, pw_stream_get_node_id, (struct pw_stream *stream)) \
    X(struct tpw_buffer *, pw_stream_dequeue_buffer, (struct pw_stream *stream)) \
    X(int, pw_stream_queue_buffer, (struct pw_stream *stream, struct tpw_buffer *buffer)) \
    X(int, pw_stream_get_time_n, (struct pw_stream *stream, struct tpw_time *time, size_t size))

#define TPW_POINTER(ret, name, args) static ret(*p_##name) args;
TPW_FUNCTIONS(TPW_POINTER)

// ---- Loading ----

static const char *library_name = "libpipewire-0.3.so.0";
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];
static bool loaded;

static void load(void) {
    void *handle = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error,
                 "%s cannot be loaded (%s): install the Debian package libpipewire-0.3-0", library_name,
                 why ? why : "not found");
        return;
    }
#define TPW_LOAD(ret, name, args) \
    p_##name = (ret(*) args)dlsym(handle, #name); \
    if (!p_##name) { \
        snprintf(load_error, sizeof load_error, "%s has no %s: libpipewire 0.3.49 or newer is needed", library_name, #name); \
        return; \
    }
    TPW_FUNCTIONS(TPW_LOAD)
    // pw_init starts SPA's logger, which makes stderr line-buffered (setlinebuf): the host's
    // stderr stays as it was (unbuffered stays unbuffered: a host writing UTF-8 a character
    // at a time, or a parent relaying its stderr, would otherwise see it split and delayed).
    bool line_buffered = __flbf(stderr) != 0;
    p_pw_init(NULL, NULL);
    if (!line_buffered && __flbf(stderr) != 0) {
        fflush(stderr);
        setvbuf(stderr, NULL, _IONBF, 0);
    }
    loaded = true;
}

static void copy(char *to, size_t size, const char *text) {
    if (to && size > 0) snprintf(to, size, "%s", text ? text : "");
}

int tpw_load(char *error, size_t error_size) {
    pthread_once(&load_once, load);
    if (loaded) return 0;
    copy(error, error_size, load_error);
    return -1;
}

const char *tpw_library_version(void) { return loaded ? p_pw_get_library_version() : NULL; }

// ---- One stream ----

struct tpw_stream {
    struct pw_thread_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct pw_stream *stream;
    struct spa_hook listener;
    tpw_render_fn render;
    void *user;
    uint32_t rate;
    uint32_t channels;
    _Atomic int state;
    char error[256]; // written on the loop thread with the loop lock held
};

static void on_state_changed(void *data, enum tpw_stream_state old, enum tpw_stream_state state, const char *error) {
    (void)old;
    struct tpw_stream *s = data;
    if (error) copy(s->error, sizeof s->error, error);
    atomic_store_explicit(&s->state, (int)state, memory_order_release);
    p_pw_thread_loop_signal(s->loop, false);
}

// PipeWire's data thread (RT_PROCESS): one buffer per cycle, rendered in place. No allocation,
// lock or system call: dequeue/queue are lock-free in libpipewire.
static void on_process(void *data) {
    struct tpw_stream *s = data;
    struct tpw_buffer *b = p_pw_stream_dequeue_buffer(s->stream);
    if (!b) {
        s->render(s->user, NULL, 0); // no free buffer: an underrun, counted by the callback
        return;
    }
    struct spa_buffer *buffer = b->buffer;
    struct spa_data *d = &buffer->datas[0];
    uint32_t stride = (uint32_t)sizeof(float) * s->channels;
    if (d->data == NULL || stride == 0) {
        p_pw_stream_queue_buffer(s->stream, b);
        return;
    }
    uint32_t frames = d->maxsize / stride;
    if (b->requested != 0 && b->requested < frames) frames = (uint32_t)b->requested;
    s->render(s->user, (float *)d->data, frames);
    d->chunk->offset = 0;
    d->chunk->stride = (int32_t)stride;
    d->chunk->size = frames * stride;
    b->size = frames;
    p_pw_stream_queue_buffer(s->stream, b);
}

static const struct tpw_stream_events stream_events = {
    .version = TPW_VERSION_STREAM_EVENTS,
    .state_changed = on_state_changed,
    .process = on_process,
};

tpw_stream *tpw_open(const tpw_config *config, char *error, size_t error_size) {
    if (tpw_load(error, error_size) != 0) return NULL;
    struct tpw_stream *s = calloc(1, sizeof *s);
    if (!s) {
        copy(error, error_size, "out of memory");
        return NULL;
    }
    s->render = config->render;
    s->user = config->user;
    s->rate = config->rate;
    s->channels = config->channels;
    s->loop = p_pw_thread_loop_new("tutti-pw-loop", NULL);
    if (!s->loop) {
        snprintf(error, error_size, "pw_thread_loop_new failed (%s)", strerror(errno));
        free(s);
        return NULL;
    }
    s->context = p_pw_context_new(p_pw_thread_loop_get_loop(s->loop), NULL, 0);
    if (!s->context) {
        snprintf(error, error_size, "pw_context_new failed (%s)", strerror(errno));
        tpw_close(s);
        return NULL;
    }
    if (p_pw_thread_loop_start(s->loop) < 0) {
        snprintf(error, error_size, "pw_thread_loop_start failed (%s)", strerror(errno));
        tpw_close(s);
        return NULL;
    }
    p_pw_thread_loop_lock(s->loop);
    struct pw_properties *connect_props = config->remote ? p_pw_properties_new("remote.name", config->remote, NULL) : NULL;
    s->core = p_pw_context_connect(s->context, connect_props, 0);
    if (!s->core) {
        int e = errno;
        p_pw_thread_loop_unlock(s->loop);
        const char *remote = config->remote ? config->remote : getenv("PIPEWIRE_REMOTE");
        const char *dir = getenv("PIPEWIRE_RUNTIME_DIR");
        if (!dir) dir = getenv("XDG_RUNTIME_DIR");
        if (remote && remote[0] == '/') {
            snprintf(error, error_size, "no PipeWire daemon answers at %s (%s)", remote, strerror(e));
        } else {
            snprintf(error, error_size, "no PipeWire daemon answers at %s/%s (%s)", dir ? dir : "$XDG_RUNTIME_DIR (unset)",
                     remote ? remote : "pipewire-0", strerror(e));
        }
        tpw_close(s);
        return NULL;
    }
    struct pw_properties *props = p_pw_properties_new(
        "media.type", "Audio", "media.category", "Playback", "media.role", config->media_role, "node.name",
        config->node_name, "application.name", config->node_name, NULL);
    if (props && config->latency) p_pw_properties_set(props, "node.latency", config->latency);
    if (props && config->target) p_pw_properties_set(props, "target.object", config->target);
    s->stream = props ? p_pw_stream_new(s->core, config->node_name, props) : NULL;
    if (!s->stream) {
        int e = errno;
        p_pw_thread_loop_unlock(s->loop);
        snprintf(error, error_size, "pw_stream_new failed (%s)", strerror(e));
        tpw_close(s);
        return NULL;
    }
    p_pw_stream_add_listener(s->stream, &s->listener, &stream_events, s);
    p_pw_thread_loop_unlock(s->loop);
    return s;
}

/// The channel positions of `channels` channels: the usual layouts up to 8, else AUX0….
static void positions(uint32_t channels, uint32_t *position) {
    static const uint32_t layouts[8][8] = {
        {SPA_AUDIO_CHANNEL_MONO},
        {SPA_AUDIO_CHANNEL_FL, SPA_AUDIO_CHANNEL_FR},
        {SPA_AUDIO_CHANNEL_FL, SPA_AUDIO_CHANNEL_FR, SPA_AUDIO_CHANNEL_FC},
        {SPA_AUDIO_CHANNEL_FL, SPA_AUDIO_CHANNEL_FR, SPA_AUDIO_CHANNEL_RL, SPA_AUDIO_CHANNEL_RR},
        {SPA_AUDIO_CHANNEL_FL, SPA_AUDIO_CHANNEL_FR, SPA_AUDIO_CHANNEL_FC, SPA_AUDIO_CHANNEL_RL, SPA_AUDIO_CHANNEL_RR},
        {SPA_AUDIO_CHANNEL_FL, SPA_AUDIO_CHANNEL_FR, SPA_AUDIO_CHANNEL_FC, SPA_AUDIO_CHANNEL_LFE, SPA_AUDIO_CHANNEL_RL,
         SPA_AUDIO_CHANNEL_RR},
        {SPA_AUDIO_CHANNEL_FL, SPA_AUDIO_CHANNEL_FR, SPA_AUDIO_CHANNEL_FC, SPA_AUDIO_CHANNEL_LFE, SPA_AUDIO_CHANNEL_RL,
         SPA_AUDIO_CHANNEL_RR, SPA_AUDIO_CHANNEL_RC},
        {SPA_AUDIO_CHANNEL_FL, SPA_AUDIO_CHANNEL_FR, SPA_AUDIO_CHANNEL_FC, SPA_AUDIO_CHANNEL_LFE, SPA_AUDIO_CHANNEL_RL,
         SPA_AUDIO_CHANNEL_RR, SPA_AUDIO_CHANNEL_SL, SPA_AUDIO_CHANNEL_SR},
    };
    for (uint32_t c = 0; c < channels && c < SPA_AUDIO_MAX_CHANNELS; c++) {
        position[c] = channels <= 8 ? layouts[channels - 1][c] : SPA_AUDIO_CHANNEL_AUX0 + c;
    }
}

int tpw_connect(tpw_stream *s, char *error, size_t error_size) {
    if (s->channels == 0 || s->channels > SPA_AUDIO_MAX_CHANNELS) {
        snprintf(error, error_size, "%u channels: PipeWire takes 1…%d", s->channels, SPA_AUDIO_MAX_CHANNELS);
        return -1;
    }
    uint8_t storage[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(storage, sizeof storage);
    struct spa_audio_info_raw info = {.format = SPA_AUDIO_FORMAT_F32, .rate = s->rate, .channels = s->channels};
    positions(s->channels, info.position);
    const struct spa_pod *params[1] = {spa_format_audio_raw_build(&builder, SPA_PARAM_EnumFormat, &info)};
    p_pw_thread_loop_lock(s->loop);
    int rc = p_pw_stream_connect(s->stream, SPA_DIRECTION_OUTPUT, TPW_ID_ANY,
                                 TPW_STREAM_FLAG_AUTOCONNECT | TPW_STREAM_FLAG_MAP_BUFFERS | TPW_STREAM_FLAG_RT_PROCESS,
                                 params, 1);
    p_pw_thread_loop_unlock(s->loop);
    if (rc < 0) {
        snprintf(error, error_size, "pw_stream_connect failed (%s)", strerror(-rc));
        return -1;
    }
    return 0;
}

int tpw_state(tpw_stream *s, char *error, size_t error_size) {
    if (error && error_size > 0) {
        p_pw_thread_loop_lock(s->loop);
        copy(error, error_size, s->error);
        p_pw_thread_loop_unlock(s->loop);
    }
    return atomic_load_explicit(&s->state, memory_order_acquire);
}

void tpw_wait(tpw_stream *s, int seconds) {
    p_pw_thread_loop_lock(s->loop);
    p_pw_thread_loop_timed_wait(s->loop, seconds);
    p_pw_thread_loop_unlock(s->loop);
}

int tpw_latency(tpw_stream *s, int64_t *frames, uint32_t *graph_rate) {
    struct tpw_time t;
    memset(&t, 0, sizeof t);
    if (p_pw_stream_get_time_n(s->stream, &t, sizeof t) < 0 || t.rate.denom == 0 || t.rate.num == 0) return -1;
    // delay: ticks of t.rate (num/denom seconds each) until the device plays the next frame
    // queued; buffered: frames held in the stream's converter (at the stream's rate).
    int64_t delay = t.delay * (int64_t)t.rate.num * (int64_t)s->rate / (int64_t)t.rate.denom;
    *frames = (delay > 0 ? delay : 0) + (int64_t)t.buffered;
    *graph_rate = t.rate.denom / t.rate.num;
    return 0;
}

uint32_t tpw_node_id(tpw_stream *s) {
    p_pw_thread_loop_lock(s->loop);
    uint32_t id = p_pw_stream_get_node_id(s->stream);
    p_pw_thread_loop_unlock(s->loop);
    return id;
}

void tpw_close(tpw_stream *s) {
    if (!s) return;
    if (s->loop) {
        p_pw_thread_loop_lock(s->loop);
        if (s->stream) p_pw_stream_destroy(s->stream);
        s->stream = NULL;
        if (s->core) p_pw_core_disconnect(s->core);
        s->core = NULL;
        p_pw_thread_loop_unlock(s->loop);
        p_pw_thread_loop_stop(s->loop);
    }
    if (s->context) p_pw_context_destroy(s->context);
    if (s->loop) p_pw_thread_loop_destroy(s->loop);
    free(s);
}

// ---- The header check (Tests/TuttiPipeWireTests compiles this file with the real headers
// and -DTPW_CHECK_HEADERS: the copies above must match them) ----
#ifdef TPW_CHECK_HEADERS
#include <pipewire/pipewire.h>
#define SAME(a, b) _Static_assert(sizeof(a) == sizeof(b), #a " differs from " #b)
#define AT(a, b, f) _Static_assert(offsetof(a, f) == offsetof(b, f), #a "." #f " differs")
SAME(struct tpw_buffer, struct pw_buffer);
AT(struct tpw_buffer, struct pw_buffer, requested);
SAME(struct tpw_time, struct pw_time);
AT(struct tpw_time, struct pw_time, delay);
AT(struct tpw_time, struct pw_time, buffered);
SAME(struct tpw_stream_events, struct pw_stream_events);
AT(struct tpw_stream_events, struct pw_stream_events, state_changed);
AT(struct tpw_stream_events, struct pw_stream_events, process);
_Static_assert(TPW_VERSION_STREAM_EVENTS == PW_VERSION_STREAM_EVENTS, "stream events version");
_Static_assert((int)TPW_STREAM_FLAG_AUTOCONNECT == (int)PW_STREAM_FLAG_AUTOCONNECT, "flag");
_Static_assert((int)TPW_STREAM_FLAG_MAP_BUFFERS == (int)PW_STREAM_FLAG_MAP_BUFFERS, "flag");
_Static_assert((int)TPW_STREAM_FLAG_RT_PROCESS == (int)PW_STREAM_FLAG_RT_PROCESS, "flag");
_Static_assert(TPW_ID_ANY == PW_ID_ANY, "PW_ID_ANY");
_Static_assert((int)TPW_STREAM_STATE_STREAMING == (int)PW_STREAM_STATE_STREAMING, "state");
_Static_assert((int)TPW_STREAM_STATE_ERROR == (int)PW_STREAM_STATE_ERROR, "state");
#endif
