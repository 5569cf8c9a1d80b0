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
#include <time.h>
#include <unistd.h>

#include <spa/param/audio/format-utils.h>
#include <spa/buffer/buffer.h>
#include <spa/pod/iter.h>
#include <spa/node/command.h>
#include <spa/pod/builder.h>
#include <spa/param/profile.h>
#include <spa/param/route.h>
#include <spa/monitor/device.h>
#include <spa/utils/dict.h>
#include <spa/utils/hook.h>

// ---- The declarations of <pipewire/...> used here (0.3 ABI) ----

struct pw_thread_loop;
struct pw_loop;
struct pw_context;
struct pw_core;
struct pw_stream;
struct pw_properties;
struct pw_registry;
struct pw_proxy;

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

// The registry and node interfaces (listing the audio nodes): methods are called through the
// proxy's spa_interface, as <pipewire/core.h> and <pipewire/node.h> do in their inline functions.
#define TPW_ID_CORE 0
#define TPW_TYPE_INTERFACE_NODE "PipeWire:Interface:Node"
#define TPW_VERSION_REGISTRY 3
#define TPW_VERSION_NODE 3
#define TPW_VERSION_CORE_EVENTS 0
#define TPW_VERSION_REGISTRY_EVENTS 0
#define TPW_VERSION_NODE_EVENTS 0

struct tpw_core_events {
    uint32_t version;
    void (*info)(void *data, const void *info);
    void (*done)(void *data, uint32_t id, int seq);
    void (*ping)(void *data, uint32_t id, int seq);
    void (*error)(void *data, uint32_t id, int seq, int res, const char *message);
    void (*remove_id)(void *data, uint32_t id);
    void (*bound_id)(void *data, uint32_t id, uint32_t global_id);
    void (*add_mem)(void *data, uint32_t id, uint32_t type, int fd, uint32_t flags);
    void (*remove_mem)(void *data, uint32_t id);
};

struct tpw_core_methods {
    uint32_t version;
    int (*add_listener)(void *object, struct spa_hook *listener, const struct tpw_core_events *events, void *data);
    int (*hello)(void *object, uint32_t version);
    int (*sync)(void *object, uint32_t id, int seq);
    int (*pong)(void *object, uint32_t id, int seq);
    int (*error)(void *object, uint32_t id, int seq, int res, const char *message);
    struct pw_registry *(*get_registry)(void *object, uint32_t version, size_t user_data_size);
    void *(*create_object)(void *object, const char *factory_name, const char *type, uint32_t version,
                           const struct spa_dict *props, size_t user_data_size);
    int (*destroy)(void *object, void *proxy);
};

struct tpw_registry_events {
    uint32_t version;
    void (*global)(void *data, uint32_t id, uint32_t permissions, const char *type, uint32_t version,
                   const struct spa_dict *props);
    void (*global_remove)(void *data, uint32_t id);
};

struct tpw_registry_methods {
    uint32_t version;
    int (*add_listener)(void *object, struct spa_hook *listener, const struct tpw_registry_events *events, void *data);
    void *(*bind)(void *object, uint32_t id, const char *type, uint32_t version, size_t user_data_size);
    int (*destroy)(void *object, uint32_t id);
};

struct tpw_node_info {
    uint32_t id;
    uint32_t max_input_ports;
    uint32_t max_output_ports;
    uint64_t change_mask;
    uint32_t n_input_ports;
    uint32_t n_output_ports;
    int state;
    const char *error;
    struct spa_dict *props;
    struct spa_param_info *params;
    uint32_t n_params;
};

struct tpw_node_events {
    uint32_t version;
    void (*info)(void *data, const struct tpw_node_info *info);
    void (*param)(void *data, int seq, uint32_t id, uint32_t index, uint32_t next, const struct spa_pod *param);
};

struct tpw_node_methods {
    uint32_t version;
    int (*add_listener)(void *object, struct spa_hook *listener, const struct tpw_node_events *events, void *data);
    int (*subscribe_params)(void *object, uint32_t *ids, uint32_t n_ids);
    int (*enum_params)(void *object, int seq, uint32_t id, uint32_t start, uint32_t num, const struct spa_pod *filter);
    int (*set_param)(void *object, uint32_t id, uint32_t flags, const struct spa_pod *param);
    int (*send_command)(void *object, const struct spa_command *command);
};

/// Calls `method` of the interface `object` (a core, registry or node proxy) with the methods
/// struct `type`: `res` is its result, left as it is when the method is missing.
#define TPW_CALL(object, type, res, method, ...) \
    spa_interface_call_res((struct spa_interface *)(object), type, res, method, 0, __VA_ARGS__)

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
    X(void, pw_proxy_destroy, (struct pw_proxy *proxy)) \
    X(struct pw_properties *, pw_properties_new, (const char *key, ...)) \
    X(int, pw_properties_set, (struct pw_properties *props, const char *key, const char *value)) \
    X(struct pw_stream *, pw_stream_new, (struct pw_core *core, const char *name, struct pw_properties *props)) \
    X(void, pw_stream_add_listener, (struct pw_stream *stream, struct spa_hook *listener, const struct tpw_stream_events *events, void *data)) \
    X(int, pw_stream_connect, (struct pw_stream *stream, enum spa_direction direction, uint32_t target_id, uint32_t flags, const struct spa_pod **params, uint32_t n_params)) \
    X(void, pw_stream_destroy, (struct pw_stream *stream)) \
    X(int, pw_stream_update_properties, (struct pw_stream *stream, const struct spa_dict *dict)) \
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

/// What a stream's process callback remembers of its last cycle, to see the cycles lost since
/// (its data thread's only).
struct tpw_cycle_watch {
    uint64_t ticks;    // the graph position of the last cycle (pw_time.ticks: continuous across a
                       // change of driver)
    uint64_t duration; // its length in graph ticks (0: unknown; the next cycle is not checked)
};

/// The start of a cycle of `stream` (at `rate` frames per second): its timing into `t` (0 when
/// unknown) and, when the graph's position moved by more than the last cycle's length, the
/// cycles and frames (at `rate`) the graph ran without this stream. pw_stream_get_time_n is
/// callable from the process callback (a sequence-counted copy: no lock, no system call).
static void watch_begin(struct tpw_cycle_watch *w, struct pw_stream *stream, uint32_t rate, struct tpw_time *t, uint32_t *cycles,
                        uint64_t *frames) {
    *cycles = 0;
    *frames = 0;
    if (p_pw_stream_get_time_n(stream, t, sizeof *t) < 0 || t->rate.num == 0 || t->rate.denom == 0) {
        memset(t, 0, sizeof *t);
        w->duration = 0;
        return;
    }
    uint64_t d = w->duration;
    // Half a cycle of tolerance: a resampling stream's cycles vary by a frame.
    if (d > 0 && t->ticks > w->ticks + d + d / 2) {
        uint64_t lost = t->ticks - w->ticks - d;
        *cycles = (uint32_t)((lost + d / 2) / d);
        *frames = lost * rate * (uint64_t)t->rate.num / t->rate.denom;
    }
    w->ticks = t->ticks;
}

/// The end of a cycle of `frames` frames at `rate` that began with timing `t`: remembers its
/// length in graph ticks; true when it ends after the next cycle's start (the driver found the
/// node unfinished: what it rendered missed its cycle).
static bool watch_end(struct tpw_cycle_watch *w, const struct tpw_time *t, uint32_t frames, uint32_t rate) {
    if (t->rate.num == 0 || t->rate.denom == 0 || rate == 0 || frames == 0) {
        w->duration = 0;
        return false;
    }
    w->duration = (uint64_t)frames * t->rate.denom / ((uint64_t)rate * t->rate.num);
    if (t->now <= 0) return false;
    int64_t next = t->now + (int64_t)(w->duration * 1000000000ull * t->rate.num / t->rate.denom);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now); // the vDSO's: no call into the kernel
    return (int64_t)now.tv_sec * 1000000000ll + now.tv_nsec > next;
}

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
    // Capture: an input stream on the same loop and data thread (NULL: none).
    struct pw_stream *capture;
    struct spa_hook capture_listener;
    tpw_capture_fn capture_fn;
    uint32_t capture_channels;
    _Atomic int capture_state;
    // Output buses past main: one playback stream each (NULL / 0: none).
    struct tpw_bus *buses;
    _Atomic uint32_t bus_count; // grows under the loop lock (tpw_bus_add), up to bus_capacity
    uint32_t bus_capacity;
    tpw_bus_fn bus_render;
    tpw_gap_fn gap;
    struct tpw_cycle_watch watch;         // main's
    struct tpw_cycle_watch capture_watch; // the capture stream's
    _Atomic uint32_t stall_us;            // tpw_test_stall
    // What a bus stream added later is made with (copies), and whether tpw_connect ran.
    char *app_name;
    char *main_role;
    char *latency;
    bool connected;
    // Its handle (the open streams' table, under handles_lock): the id callers name it by, the
    // calls on it in flight, whether tpw_close is waiting for them, the next open stream.
    tpw_id id;
    uint32_t users;
    bool closing;
    struct tpw_stream *next_open;
};

/// Destroys the stream and frees it (tpw_close's work, once no call uses it).
static void stream_close(tpw_stream *s);

static char *dup_or_null(const char *text) { return text ? strdup(text) : NULL; }

/// Creates bus stream `k` (not connected) from `c`. With the loop lock held. 0, or -1 with
/// `error` set.
static int make_bus(struct tpw_stream *s, uint32_t k, const tpw_bus_config *c, char *error, size_t error_size);

/// One output bus's playback stream, on the stream's connection and data loop.
struct tpw_bus {
    struct tpw_stream *owner;
    uint32_t index;
    struct pw_stream *stream;
    struct spa_hook listener;
    _Atomic int state;
    _Atomic int closed; // tpw_bus_close ran: reads as streaming from then on
    char error[256]; // written on the loop thread with the loop lock held
    struct tpw_cycle_watch watch;
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
    struct tpw_time t;
    uint32_t lost_cycles;
    uint64_t lost_frames;
    watch_begin(&s->watch, s->stream, s->rate, &t, &lost_cycles, &lost_frames);
    if (lost_cycles > 0 && s->gap) s->gap(s->user, -1, lost_cycles, lost_frames);
    uint32_t stall = atomic_exchange_explicit(&s->stall_us, 0, memory_order_relaxed);
    if (stall > 0) usleep(stall); // tpw_test_stall only
    struct tpw_buffer *b = p_pw_stream_dequeue_buffer(s->stream);
    if (!b) {
        s->watch.duration = 0;
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
    if (watch_end(&s->watch, &t, frames, s->rate) && s->gap) s->gap(s->user, -1, 1, frames);
}

static const struct tpw_stream_events stream_events = {
    .version = TPW_VERSION_STREAM_EVENTS,
    .state_changed = on_state_changed,
    .process = on_process,
};

static void on_capture_state_changed(void *data, enum tpw_stream_state old, enum tpw_stream_state state, const char *error) {
    (void)old;
    (void)error;
    struct tpw_stream *s = data;
    atomic_store_explicit(&s->capture_state, (int)state, memory_order_release);
    p_pw_thread_loop_signal(s->loop, false);
}

// PipeWire's data thread: the capture stream's filled buffer handed to the callback as it is
// (no allocation, lock or system call), then given back.
static void on_capture_process(void *data) {
    struct tpw_stream *s = data;
    struct tpw_time t;
    uint32_t lost_cycles;
    uint64_t lost_frames;
    watch_begin(&s->capture_watch, s->capture, s->rate, &t, &lost_cycles, &lost_frames);
    if (lost_cycles > 0 && s->gap) s->gap(s->user, -2, lost_cycles, lost_frames);
    struct tpw_buffer *b = p_pw_stream_dequeue_buffer(s->capture);
    if (!b) {
        s->capture_watch.duration = 0;
        s->capture_fn(s->user, NULL, 0);
        return;
    }
    struct spa_data *d = &b->buffer->datas[0];
    uint32_t stride = (uint32_t)sizeof(float) * s->capture_channels;
    if (d->data != NULL && d->chunk != NULL && stride != 0) {
        uint32_t offset = d->chunk->offset < d->maxsize ? d->chunk->offset : d->maxsize;
        uint32_t size = d->chunk->size < d->maxsize - offset ? d->chunk->size : d->maxsize - offset;
        s->capture_fn(s->user, (const float *)((const uint8_t *)d->data + offset), size / stride);
        if (watch_end(&s->capture_watch, &t, size / stride, s->rate) && s->gap) s->gap(s->user, -2, 1, size / stride);
    } else {
        s->capture_watch.duration = 0;
        s->capture_fn(s->user, NULL, 0);
    }
    p_pw_stream_queue_buffer(s->capture, b);
}

static void on_bus_state_changed(void *data, enum tpw_stream_state old, enum tpw_stream_state state, const char *error) {
    (void)old;
    struct tpw_bus *b = data;
    if (error) copy(b->error, sizeof b->error, error);
    atomic_store_explicit(&b->state, (int)state, memory_order_release);
    p_pw_thread_loop_signal(b->owner->loop, false);
}

// PipeWire's data thread: a bus stream's buffer filled by the bus callback (from the bus's
// ring), as on_process does main's.
static void on_bus_process(void *data) {
    struct tpw_bus *bus = data;
    struct tpw_stream *s = bus->owner;
    struct tpw_time t;
    uint32_t lost_cycles;
    uint64_t lost_frames;
    watch_begin(&bus->watch, bus->stream, s->rate, &t, &lost_cycles, &lost_frames);
    if (lost_cycles > 0 && s->gap) s->gap(s->user, (int32_t)bus->index, lost_cycles, lost_frames);
    struct tpw_buffer *b = p_pw_stream_dequeue_buffer(bus->stream);
    if (!b) {
        bus->watch.duration = 0;
        s->bus_render(s->user, bus->index, NULL, 0);
        return;
    }
    struct spa_data *d = &b->buffer->datas[0];
    uint32_t stride = (uint32_t)sizeof(float) * s->channels;
    if (d->data == NULL || stride == 0) {
        p_pw_stream_queue_buffer(bus->stream, b);
        return;
    }
    uint32_t frames = d->maxsize / stride;
    if (b->requested != 0 && b->requested < frames) frames = (uint32_t)b->requested;
    s->bus_render(s->user, bus->index, (float *)d->data, frames);
    d->chunk->offset = 0;
    d->chunk->stride = (int32_t)stride;
    d->chunk->size = frames * stride;
    b->size = frames;
    p_pw_stream_queue_buffer(bus->stream, b);
    if (watch_end(&bus->watch, &t, frames, s->rate) && s->gap) s->gap(s->user, (int32_t)bus->index, 1, frames);
}

static const struct tpw_stream_events bus_events = {
    .version = TPW_VERSION_STREAM_EVENTS,
    .state_changed = on_bus_state_changed,
    .process = on_bus_process,
};

static const struct tpw_stream_events capture_events = {
    .version = TPW_VERSION_STREAM_EVENTS,
    .state_changed = on_capture_state_changed,
    .process = on_capture_process,
};

/// "no PipeWire daemon answers at SOCKET (why)": the socket pw_context_connect tried (`remote`,
/// else $PIPEWIRE_REMOTE, else pipewire-0 in $PIPEWIRE_RUNTIME_DIR / $XDG_RUNTIME_DIR).
static void no_daemon(const char *remote, int e, char *error, size_t error_size) {
    if (!remote) remote = getenv("PIPEWIRE_REMOTE");
    const char *dir = getenv("PIPEWIRE_RUNTIME_DIR");
    if (!dir) dir = getenv("XDG_RUNTIME_DIR");
    if (remote && remote[0] == '/') {
        snprintf(error, error_size, "no PipeWire daemon answers at %s (%s)", remote, strerror(e));
    } else {
        snprintf(error, error_size, "no PipeWire daemon answers at %s/%s (%s)", dir ? dir : "$XDG_RUNTIME_DIR (unset)",
                 remote ? remote : "pipewire-0", strerror(e));
    }
}

static tpw_stream *stream_open(const tpw_config *config, char *error, size_t error_size) {
    if (tpw_load(error, error_size) != 0) return NULL;
    struct tpw_stream *s = calloc(1, sizeof *s);
    if (!s) {
        copy(error, error_size, "out of memory");
        return NULL;
    }
    s->render = config->render;
    s->gap = config->gap;
    s->user = config->user;
    s->rate = config->rate;
    s->channels = config->channels;
    s->loop = p_pw_thread_loop_new("tutti-pw-loop", NULL);
    if (!s->loop) {
        snprintf(error, error_size, "pw_thread_loop_new failed (%s)", strerror(errno));
        free(s);
        return NULL;
    }
    // client-rt.conf, as pw-play's: it loads module-rt, which makes the context's data thread
    // (where RT_PROCESS runs the render callback) SCHED_FIFO where the process may (root, an
    // RLIMIT_RTPRIO, or RTKit). The default client.conf leaves it at normal scheduling, where a
    // busy machine makes it miss cycles. The context owns the properties.
    s->context = p_pw_context_new(p_pw_thread_loop_get_loop(s->loop), p_pw_properties_new("config.name", "client-rt.conf", NULL), 0);
    if (!s->context) {
        snprintf(error, error_size, "pw_context_new failed (%s)", strerror(errno));
        stream_close(s);
        return NULL;
    }
    if (p_pw_thread_loop_start(s->loop) < 0) {
        snprintf(error, error_size, "pw_thread_loop_start failed (%s)", strerror(errno));
        stream_close(s);
        return NULL;
    }
    p_pw_thread_loop_lock(s->loop);
    struct pw_properties *connect_props = config->remote ? p_pw_properties_new("remote.name", config->remote, NULL) : NULL;
    s->core = p_pw_context_connect(s->context, connect_props, 0);
    if (!s->core) {
        int e = errno;
        p_pw_thread_loop_unlock(s->loop);
        no_daemon(config->remote, e, error, error_size);
        stream_close(s);
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
        stream_close(s);
        return NULL;
    }
    p_pw_stream_add_listener(s->stream, &s->listener, &stream_events, s);
    if (config->capture_channels > 0 && config->capture) {
        char name[300];
        snprintf(name, sizeof name, "%s-capture", config->node_name ? config->node_name : "tutti");
        struct pw_properties *cprops = p_pw_properties_new(
            "media.type", "Audio", "media.category", "Capture", "media.role", config->media_role, "node.name", name,
            "application.name", config->node_name, NULL);
        if (cprops && config->latency) p_pw_properties_set(cprops, "node.latency", config->latency);
        if (cprops && config->capture_target) p_pw_properties_set(cprops, "target.object", config->capture_target);
        if (cprops && config->capture_monitor) p_pw_properties_set(cprops, "stream.capture.sink", "true");
        s->capture = cprops ? p_pw_stream_new(s->core, name, cprops) : NULL;
        if (!s->capture) {
            int e = errno;
            p_pw_thread_loop_unlock(s->loop);
            snprintf(error, error_size, "pw_stream_new failed for the capture stream (%s)", strerror(e));
            stream_close(s);
            return NULL;
        }
        s->capture_fn = config->capture;
        s->capture_channels = config->capture_channels;
        p_pw_stream_add_listener(s->capture, &s->capture_listener, &capture_events, s);
    }
    s->app_name = dup_or_null(config->node_name);
    s->main_role = dup_or_null(config->media_role);
    s->latency = dup_or_null(config->latency);
    uint32_t capacity = config->bus_capacity > config->bus_count ? config->bus_capacity : config->bus_count;
    if (capacity > 0 && config->bus_render) {
        s->buses = calloc(capacity, sizeof *s->buses);
        if (!s->buses) {
            p_pw_thread_loop_unlock(s->loop);
            copy(error, error_size, "out of memory");
            stream_close(s);
            return NULL;
        }
        s->bus_capacity = capacity;
        s->bus_render = config->bus_render;
        for (uint32_t k = 0; config->buses && k < config->bus_count; k++) {
            if (make_bus(s, k, &config->buses[k], error, error_size) < 0) {
                p_pw_thread_loop_unlock(s->loop);
                stream_close(s);
                return NULL;
            }
            atomic_store_explicit(&s->bus_count, k + 1, memory_order_release);
        }
    }
    p_pw_thread_loop_unlock(s->loop);
    return s;
}

static int make_bus(struct tpw_stream *s, uint32_t k, const tpw_bus_config *c, char *error, size_t error_size) {
    struct tpw_bus *b = &s->buses[k];
    b->owner = s;
    b->index = k;
    // A slot made again (tpw_bus_add into a closed one) starts afresh: its old stream is
    // destroyed, so no callback reads these. Its state first, then `closed` cleared last, so
    // tpw_bus_state never reads the old stream's state for the new one.
    atomic_store_explicit(&b->state, 0, memory_order_release);
    b->error[0] = '\0';
    memset(&b->watch, 0, sizeof b->watch);
    b->stream = NULL;
    if (!c->node_name) { // an empty slot: closed from the start
        atomic_store_explicit(&b->closed, 1, memory_order_release);
        return 0;
    }
    struct pw_properties *bprops = p_pw_properties_new(
        "media.type", "Audio", "media.category", "Playback", "media.role", c->media_role ? c->media_role : s->main_role, "node.name",
        c->node_name, "media.name", c->media_name ? c->media_name : c->node_name, "application.name", s->app_name, NULL);
    if (bprops && s->latency) p_pw_properties_set(bprops, "node.latency", s->latency);
    if (bprops && c->target) p_pw_properties_set(bprops, "target.object", c->target);
    b->stream = bprops ? p_pw_stream_new(s->core, c->node_name, bprops) : NULL;
    if (!b->stream) {
        snprintf(error, error_size, "pw_stream_new failed for the stream of %s (%s)", c->node_name, strerror(errno));
        return -1;
    }
    p_pw_stream_add_listener(b->stream, &b->listener, &bus_events, b);
    atomic_store_explicit(&b->closed, 0, memory_order_release);
    return 0;
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

static int stream_connect(tpw_stream *s, char *error, size_t error_size) {
    if (s->channels == 0 || s->channels > SPA_AUDIO_MAX_CHANNELS) {
        snprintf(error, error_size, "%u channels: PipeWire takes 1…%d", s->channels, SPA_AUDIO_MAX_CHANNELS);
        return -1;
    }
    uint8_t storage[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(storage, sizeof storage);
    struct spa_audio_info_raw info = {.format = SPA_AUDIO_FORMAT_F32, .rate = s->rate, .channels = s->channels};
    positions(s->channels, info.position);
    const struct spa_pod *params[1] = {spa_format_audio_raw_build(&builder, SPA_PARAM_EnumFormat, &info)};
    if (s->capture && s->capture_channels > SPA_AUDIO_MAX_CHANNELS) {
        snprintf(error, error_size, "%u capture channels: PipeWire takes 1…%d", s->capture_channels, SPA_AUDIO_MAX_CHANNELS);
        return -1;
    }
    uint8_t capture_storage[1024];
    struct spa_pod_builder capture_builder = SPA_POD_BUILDER_INIT(capture_storage, sizeof capture_storage);
    struct spa_audio_info_raw capture_info = {.format = SPA_AUDIO_FORMAT_F32, .rate = s->rate, .channels = s->capture_channels};
    positions(s->capture_channels, capture_info.position);
    const struct spa_pod *capture_params[1] = {
        s->capture ? spa_format_audio_raw_build(&capture_builder, SPA_PARAM_EnumFormat, &capture_info) : NULL};
    const uint32_t flags = TPW_STREAM_FLAG_AUTOCONNECT | TPW_STREAM_FLAG_MAP_BUFFERS | TPW_STREAM_FLAG_RT_PROCESS;
    p_pw_thread_loop_lock(s->loop);
    int rc = p_pw_stream_connect(s->stream, SPA_DIRECTION_OUTPUT, TPW_ID_ANY, flags, params, 1);
    int capture_rc = rc >= 0 && s->capture ? p_pw_stream_connect(s->capture, SPA_DIRECTION_INPUT, TPW_ID_ANY, flags, capture_params, 1) : 0;
    int bus_rc = 0;
    uint32_t failed_bus = 0;
    for (uint32_t k = 0; rc >= 0 && capture_rc >= 0 && k < s->bus_count; k++) {
        if (!s->buses[k].stream) continue; // closed (tpw_bus_close)
        // The same format as main's (the builder's pod is read, not consumed, by connect).
        bus_rc = p_pw_stream_connect(s->buses[k].stream, SPA_DIRECTION_OUTPUT, TPW_ID_ANY, flags, params, 1);
        if (bus_rc < 0) {
            failed_bus = k;
            break;
        }
    }
    p_pw_thread_loop_unlock(s->loop);
    if (rc < 0) {
        snprintf(error, error_size, "pw_stream_connect failed (%s)", strerror(-rc));
        return -1;
    }
    if (bus_rc < 0) {
        snprintf(error, error_size, "pw_stream_connect failed for bus stream %u (%s)", failed_bus, strerror(-bus_rc));
        return -1;
    }
    if (capture_rc < 0) {
        snprintf(error, error_size, "pw_stream_connect failed for the capture stream (%s)", strerror(-capture_rc));
        return -1;
    }
    p_pw_thread_loop_lock(s->loop);
    s->connected = true;
    p_pw_thread_loop_unlock(s->loop);
    return 0;
}

static int stream_bus_add(tpw_stream *s, uint32_t bus, const tpw_bus_config *c, char *error, size_t error_size) {
    if (!s->buses || !c || !c->node_name) {
        copy(error, error_size, "this stream was opened without room for more bus streams");
        return -1;
    }
    uint8_t storage[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(storage, sizeof storage);
    struct spa_audio_info_raw info = {.format = SPA_AUDIO_FORMAT_F32, .rate = s->rate, .channels = s->channels};
    positions(s->channels, info.position);
    const struct spa_pod *params[1] = {spa_format_audio_raw_build(&builder, SPA_PARAM_EnumFormat, &info)};
    const uint32_t flags = TPW_STREAM_FLAG_AUTOCONNECT | TPW_STREAM_FLAG_MAP_BUFFERS | TPW_STREAM_FLAG_RT_PROCESS;
    p_pw_thread_loop_lock(s->loop);
    uint32_t count = atomic_load_explicit(&s->bus_count, memory_order_relaxed);
    uint32_t k = bus;
    if (k >= s->bus_capacity || k > count) {
        p_pw_thread_loop_unlock(s->loop);
        snprintf(error, error_size, "no room for bus stream %u (%u made, room for %u)", k, count, s->bus_capacity);
        return -1;
    }
    if (k < count && s->buses[k].stream) {
        p_pw_thread_loop_unlock(s->loop);
        snprintf(error, error_size, "bus stream %u is open", k);
        return -1;
    }
    if (make_bus(s, k, c, error, error_size) < 0) {
        if (k < count) atomic_store_explicit(&s->buses[k].closed, 1, memory_order_release);
        p_pw_thread_loop_unlock(s->loop);
        return -1;
    }
    int rc = s->connected ? p_pw_stream_connect(s->buses[k].stream, SPA_DIRECTION_OUTPUT, TPW_ID_ANY, flags, params, 1) : 0;
    if (rc < 0) {
        atomic_store_explicit(&s->buses[k].closed, 1, memory_order_release);
        p_pw_stream_destroy(s->buses[k].stream);
        s->buses[k].stream = NULL;
        p_pw_thread_loop_unlock(s->loop);
        snprintf(error, error_size, "pw_stream_connect failed for the stream of %s (%s)", c->node_name, strerror(-rc));
        return -1;
    }
    if (k == count) atomic_store_explicit(&s->bus_count, k + 1, memory_order_release);
    p_pw_thread_loop_unlock(s->loop);
    return (int)k;
}

static int stream_bus_state(tpw_stream *s, uint32_t bus, char *error, size_t error_size) {
    if (bus >= s->bus_count) return -1;
    struct tpw_bus *b = &s->buses[bus];
    if (error && error_size > 0) {
        p_pw_thread_loop_lock(s->loop);
        copy(error, error_size, b->error);
        p_pw_thread_loop_unlock(s->loop);
    }
    if (atomic_load_explicit(&b->closed, memory_order_acquire)) return 3;
    return atomic_load_explicit(&b->state, memory_order_acquire);
}

static int stream_bus_close(tpw_stream *s, uint32_t bus) {
    if (bus >= s->bus_count) return -1;
    struct tpw_bus *b = &s->buses[bus];
    // Closed on purpose: reads as streaming from now on, so no one takes it for a lost stream.
    atomic_store_explicit(&b->closed, 1, memory_order_release);
    p_pw_thread_loop_lock(s->loop);
    if (b->stream) {
        p_pw_stream_destroy(b->stream);
        b->stream = NULL;
    }
    p_pw_thread_loop_unlock(s->loop);
    return 0;
}

static int stream_bus_set_role(tpw_stream *s, uint32_t bus, const char *role) {
    if (bus >= s->bus_count || !s->buses[bus].stream || !role) return -1;
    struct spa_dict_item items[] = {SPA_DICT_ITEM_INIT("media.role", role)};
    struct spa_dict dict = SPA_DICT_INIT(items, 1);
    p_pw_thread_loop_lock(s->loop);
    int rc = p_pw_stream_update_properties(s->buses[bus].stream, &dict);
    p_pw_thread_loop_unlock(s->loop);
    return rc < 0 ? -1 : 0;
}

static int stream_capture_state(tpw_stream *s) { return s->capture ? atomic_load_explicit(&s->capture_state, memory_order_acquire) : 0; }

static int stream_state(tpw_stream *s, char *error, size_t error_size) {
    if (error && error_size > 0) {
        p_pw_thread_loop_lock(s->loop);
        copy(error, error_size, s->error);
        p_pw_thread_loop_unlock(s->loop);
    }
    return atomic_load_explicit(&s->state, memory_order_acquire);
}

static void stream_wait(tpw_stream *s, int seconds) {
    p_pw_thread_loop_lock(s->loop);
    p_pw_thread_loop_timed_wait(s->loop, seconds);
    p_pw_thread_loop_unlock(s->loop);
}

static int stream_latency(tpw_stream *s, struct pw_stream *stream, int64_t *frames, uint32_t *graph_rate) {
    struct tpw_time t;
    memset(&t, 0, sizeof t);
    if (p_pw_stream_get_time_n(stream, &t, sizeof t) < 0 || t.rate.denom == 0 || t.rate.num == 0) return -1;
    // delay: ticks of t.rate (num/denom seconds each) until the device plays the next frame
    // queued; buffered: frames held in the stream's converter (at the stream's rate).
    int64_t delay = t.delay * (int64_t)t.rate.num * (int64_t)s->rate / (int64_t)t.rate.denom;
    *frames = (delay > 0 ? delay : 0) + (int64_t)t.buffered;
    *graph_rate = t.rate.denom / t.rate.num;
    return 0;
}

static int stream_bus_latency(tpw_stream *s, uint32_t bus, int64_t *frames, uint32_t *graph_rate) {
    if (bus >= s->bus_count || !s->buses[bus].stream) return -1;
    return stream_latency(s, s->buses[bus].stream, frames, graph_rate);
}

static void stream_test_stall(tpw_stream *s, uint32_t microseconds) { atomic_store_explicit(&s->stall_us, microseconds, memory_order_relaxed); }

static uint32_t stream_node_id(tpw_stream *s) {
    p_pw_thread_loop_lock(s->loop);
    uint32_t id = p_pw_stream_get_node_id(s->stream);
    p_pw_thread_loop_unlock(s->loop);
    return id;
}

static void stream_close(tpw_stream *s) {
    if (!s) return;
    if (s->loop) {
        p_pw_thread_loop_lock(s->loop);
        if (s->capture) p_pw_stream_destroy(s->capture);
        s->capture = NULL;
        for (uint32_t k = 0; k < s->bus_count; k++) {
            if (s->buses[k].stream) p_pw_stream_destroy(s->buses[k].stream);
            s->buses[k].stream = NULL;
        }
        if (s->stream) p_pw_stream_destroy(s->stream);
        s->stream = NULL;
        if (s->core) p_pw_core_disconnect(s->core);
        s->core = NULL;
        p_pw_thread_loop_unlock(s->loop);
        p_pw_thread_loop_stop(s->loop);
    }
    if (s->context) p_pw_context_destroy(s->context);
    if (s->loop) p_pw_thread_loop_destroy(s->loop);
    free(s->buses);
    free(s->app_name);
    free(s->main_role);
    free(s->latency);
    free(s);
}

// ---- Stream handles ----
//
// Callers name a stream by an id, never by its address: the id is a plain integer any thread
// may hold, and each call looks the stream up here and keeps it alive while it runs, so a call
// racing tpw_close finds no stream (and fails) rather than a freed one. Ids are never reused.

static pthread_mutex_t handles_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t handles_idle = PTHREAD_COND_INITIALIZER;
static struct tpw_stream *open_streams; // under handles_lock
static tpw_id next_id = 1;              // under handles_lock

/// The open stream `id`, one more call using it (`release` after), or NULL (closed, closing
/// or never opened).
static struct tpw_stream *acquire(tpw_id id) {
    pthread_mutex_lock(&handles_lock);
    struct tpw_stream *s = open_streams;
    while (s && s->id != id) s = s->next_open;
    if (s && s->closing) s = NULL;
    if (s) s->users++;
    pthread_mutex_unlock(&handles_lock);
    return s;
}

/// The call that `acquire`d `s` is done.
static void release(struct tpw_stream *s) {
    pthread_mutex_lock(&handles_lock);
    if (--s->users == 0 && s->closing) pthread_cond_broadcast(&handles_idle);
    pthread_mutex_unlock(&handles_lock);
}

static void closed_error(char *error, size_t error_size) { copy(error, error_size, "the stream is closed"); }

tpw_id tpw_open(const tpw_config *config, char *error, size_t error_size) {
    struct tpw_stream *s = stream_open(config, error, error_size);
    if (!s) return 0;
    pthread_mutex_lock(&handles_lock);
    s->id = next_id++;
    s->next_open = open_streams;
    open_streams = s;
    tpw_id id = s->id;
    pthread_mutex_unlock(&handles_lock);
    return id;
}

void tpw_close(tpw_id id) {
    pthread_mutex_lock(&handles_lock);
    struct tpw_stream **link = &open_streams;
    while (*link && (*link)->id != id) link = &(*link)->next_open;
    struct tpw_stream *s = *link;
    if (!s || s->closing) {
        pthread_mutex_unlock(&handles_lock);
        return;
    }
    // No new call finds it; the calls in flight end (each takes at most the loop lock).
    s->closing = true;
    while (s->users > 0) pthread_cond_wait(&handles_idle, &handles_lock);
    *link = s->next_open;
    pthread_mutex_unlock(&handles_lock);
    stream_close(s);
}

int tpw_connect(tpw_id id, char *error, size_t error_size) {
    struct tpw_stream *s = acquire(id);
    if (!s) {
        closed_error(error, error_size);
        return -1;
    }
    int rc = stream_connect(s, error, error_size);
    release(s);
    return rc;
}

int tpw_state(tpw_id id, char *error, size_t error_size) {
    struct tpw_stream *s = acquire(id);
    if (!s) {
        if (error && error_size > 0) closed_error(error, error_size);
        return -1;
    }
    int rc = stream_state(s, error, error_size);
    release(s);
    return rc;
}

int tpw_bus_state(tpw_id id, uint32_t bus, char *error, size_t error_size) {
    struct tpw_stream *s = acquire(id);
    if (!s) {
        if (error && error_size > 0) closed_error(error, error_size);
        return -1;
    }
    int rc = stream_bus_state(s, bus, error, error_size);
    release(s);
    return rc;
}

int tpw_bus_add(tpw_id id, uint32_t bus, const tpw_bus_config *config, char *error, size_t error_size) {
    struct tpw_stream *s = acquire(id);
    if (!s) {
        closed_error(error, error_size);
        return -1;
    }
    int rc = stream_bus_add(s, bus, config, error, error_size);
    release(s);
    return rc;
}

int tpw_bus_close(tpw_id id, uint32_t bus) {
    struct tpw_stream *s = acquire(id);
    if (!s) return -1;
    int rc = stream_bus_close(s, bus);
    release(s);
    return rc;
}

int tpw_bus_set_role(tpw_id id, uint32_t bus, const char *role) {
    struct tpw_stream *s = acquire(id);
    if (!s) return -1;
    int rc = stream_bus_set_role(s, bus, role);
    release(s);
    return rc;
}

int tpw_bus_latency(tpw_id id, uint32_t bus, int64_t *frames, uint32_t *graph_rate) {
    struct tpw_stream *s = acquire(id);
    if (!s) return -1;
    int rc = stream_bus_latency(s, bus, frames, graph_rate);
    release(s);
    return rc;
}

int tpw_capture_state(tpw_id id) {
    struct tpw_stream *s = acquire(id);
    if (!s) return -1;
    int rc = stream_capture_state(s);
    release(s);
    return rc;
}

void tpw_wait(tpw_id id, int seconds) {
    struct tpw_stream *s = acquire(id);
    if (!s) return;
    stream_wait(s, seconds);
    release(s);
}

int tpw_latency(tpw_id id, int64_t *frames, uint32_t *graph_rate) {
    struct tpw_stream *s = acquire(id);
    if (!s) return -1;
    int rc = stream_latency(s, s->stream, frames, graph_rate);
    release(s);
    return rc;
}

uint32_t tpw_node_id(tpw_id id) {
    struct tpw_stream *s = acquire(id);
    if (!s) return SPA_ID_INVALID;
    uint32_t node = stream_node_id(s);
    release(s);
    return node;
}

void tpw_test_stall(tpw_id id, uint32_t microseconds) {
    struct tpw_stream *s = acquire(id);
    if (!s) return;
    stream_test_stall(s, microseconds);
    release(s);
}

// ---- Listing the audio nodes ----

/// One node being listed: its proxy (bound from the registry) and what it reported.
struct listed {
    struct lister *lister;
    struct pw_proxy *proxy;
    struct spa_hook listener;
    tpw_node node;             // rate and channels from the node's properties (0: not there)
    uint32_t format_rate;      // from its first EnumFormat (0: none)
    uint32_t format_channels;
};

struct lister {
    struct pw_thread_loop *loop;
    struct pw_core *core;
    struct pw_registry *registry;
    struct spa_hook core_listener;
    struct spa_hook registry_listener;
    struct listed **nodes;
    size_t count;
    size_t capacity;
    int seq;     // the sync whose done ends the current round
    bool done;
    int failure; // the core's error (negative errno), 0: none
    char error[256];
};

static bool is_audio_device(const char *media_class) {
    return media_class && (strncmp(media_class, "Audio/Sink", 10) == 0 || strncmp(media_class, "Audio/Source", 12) == 0 ||
                           strncmp(media_class, "Audio/Duplex", 12) == 0);
}

static uint32_t dict_uint(const struct spa_dict *props, const char *key) {
    const char *text = props ? spa_dict_lookup(props, key) : NULL;
    if (!text || !*text) return 0;
    char *end = NULL;
    unsigned long value = strtoul(text, &end, 10);
    return (end && *end == '\0' && value <= UINT32_MAX) ? (uint32_t)value : 0;
}

/// The value of `key` in a format object as an int: the value, or a choice's default; 0 else.
static uint32_t format_int(const struct spa_pod *format, uint32_t key) {
    const struct spa_pod_prop *prop = spa_pod_find_prop(format, NULL, key);
    if (!prop) return 0;
    uint32_t n = 0, choice = 0;
    const struct spa_pod *value = spa_pod_get_values(&prop->value, &n, &choice);
    if (n < 1 || value->type != SPA_TYPE_Int || value->size < sizeof(int32_t)) return 0;
    int32_t v = SPA_POD_VALUE(struct spa_pod_int, value);
    return v > 0 ? (uint32_t)v : 0;
}

static void on_node_info(void *data, const struct tpw_node_info *info) {
    struct listed *l = data;
    const struct spa_dict *props = info->props;
    if (!props) return;
    const char *text;
    if ((text = spa_dict_lookup(props, "node.name"))) copy(l->node.name, sizeof l->node.name, text);
    if ((text = spa_dict_lookup(props, "node.description")) || (text = spa_dict_lookup(props, "node.nick"))) {
        copy(l->node.description, sizeof l->node.description, text);
    }
    if ((text = spa_dict_lookup(props, "media.class"))) copy(l->node.media_class, sizeof l->node.media_class, text);
    if (dict_uint(props, "object.serial")) l->node.serial = dict_uint(props, "object.serial");
    if (dict_uint(props, "audio.rate")) l->node.rate = dict_uint(props, "audio.rate");
    if (dict_uint(props, "audio.channels")) l->node.channels = dict_uint(props, "audio.channels");
}

static void on_node_param(void *data, int seq, uint32_t id, uint32_t index, uint32_t next, const struct spa_pod *param) {
    (void)seq, (void)index, (void)next;
    struct listed *l = data;
    if (id != SPA_PARAM_EnumFormat || !param || !spa_pod_is_object(param) || l->format_rate || l->format_channels) return;
    l->format_rate = format_int(param, SPA_FORMAT_AUDIO_rate);
    l->format_channels = format_int(param, SPA_FORMAT_AUDIO_channels);
}

static const struct tpw_node_events node_events = {
    .version = TPW_VERSION_NODE_EVENTS,
    .info = on_node_info,
    .param = on_node_param,
};

// PipeWire's loop thread, lock held: binds every audio device node and asks for its first
// EnumFormat (its info, with every property, comes with the binding).
static void on_global(void *data, uint32_t id, uint32_t permissions, const char *type, uint32_t version,
                      const struct spa_dict *props) {
    (void)permissions, (void)version;
    struct lister *r = data;
    if (!type || strcmp(type, TPW_TYPE_INTERFACE_NODE) != 0 || !props) return;
    const char *media_class = spa_dict_lookup(props, "media.class");
    if (!is_audio_device(media_class)) return;
    if (r->count == r->capacity) {
        size_t capacity = r->capacity ? r->capacity * 2 : 16;
        struct listed **nodes = realloc(r->nodes, capacity * sizeof *nodes);
        if (!nodes) return;
        r->nodes = nodes;
        r->capacity = capacity;
    }
    struct listed *l = calloc(1, sizeof *l);
    if (!l) return;
    l->lister = r;
    l->node.id = id;
    copy(l->node.media_class, sizeof l->node.media_class, media_class);
    copy(l->node.name, sizeof l->node.name, spa_dict_lookup(props, "node.name"));
    void *proxy = NULL;
    TPW_CALL(r->registry, struct tpw_registry_methods, proxy, bind, id, TPW_TYPE_INTERFACE_NODE, TPW_VERSION_NODE, 0);
    if (!proxy) {
        r->nodes[r->count++] = l; // listed with what the registry said
        return;
    }
    l->proxy = proxy;
    int rc = 0;
    TPW_CALL(proxy, struct tpw_node_methods, rc, add_listener, &l->listener, &node_events, l);
    TPW_CALL(proxy, struct tpw_node_methods, rc, enum_params, 0, SPA_PARAM_EnumFormat, 0, 1, NULL);
    (void)rc;
    r->nodes[r->count++] = l;
}

static const struct tpw_registry_events registry_events = {
    .version = TPW_VERSION_REGISTRY_EVENTS,
    .global = on_global,
};

static void on_core_done(void *data, uint32_t id, int seq) {
    struct lister *r = data;
    if (id != TPW_ID_CORE || seq != r->seq) return;
    r->done = true;
    p_pw_thread_loop_signal(r->loop, false);
}

static void on_core_error(void *data, uint32_t id, int seq, int res, const char *message) {
    (void)seq;
    struct lister *r = data;
    if (id != TPW_ID_CORE) return; // an error of one node (its params): listed without them
    r->failure = res < 0 ? res : -EIO;
    snprintf(r->error, sizeof r->error, "the PipeWire daemon failed the listing (%s)", message ? message : strerror(-r->failure));
    p_pw_thread_loop_signal(r->loop, false);
}

static const struct tpw_core_events core_events = {
    .version = TPW_VERSION_CORE_EVENTS,
    .done = on_core_done,
    .error = on_core_error,
};

/// Sends a sync and waits (lock held) for its done: every event of the requests before it has
/// been handled. 0, or -1 with the error in `r->error`.
static int roundtrip(struct lister *r) {
    r->done = false;
    int seq = 0;
    TPW_CALL(r->core, struct tpw_core_methods, seq, sync, TPW_ID_CORE, 0);
    if (seq < 0) {
        snprintf(r->error, sizeof r->error, "pw_core_sync failed (%s)", strerror(-seq));
        return -1;
    }
    r->seq = seq;
    while (!r->done && r->failure == 0) {
        if (p_pw_thread_loop_timed_wait(r->loop, 5) != 0 && !r->done && r->failure == 0) {
            snprintf(r->error, sizeof r->error, "the PipeWire daemon did not answer within 5 s");
            return -1;
        }
    }
    return r->failure == 0 ? 0 : -1;
}

int tpw_list_nodes(const char *remote, tpw_node **nodes, size_t *count, char *error, size_t error_size) {
    *nodes = NULL;
    *count = 0;
    if (tpw_load(error, error_size) != 0) return -1;
    struct lister r;
    memset(&r, 0, sizeof r);
    struct pw_context *context = NULL;
    int rc = -1;
    r.loop = p_pw_thread_loop_new("tutti-pw-list", NULL);
    if (!r.loop) {
        snprintf(error, error_size, "pw_thread_loop_new failed (%s)", strerror(errno));
        return -1;
    }
    context = p_pw_context_new(p_pw_thread_loop_get_loop(r.loop), NULL, 0);
    if (!context) {
        snprintf(error, error_size, "pw_context_new failed (%s)", strerror(errno));
        p_pw_thread_loop_destroy(r.loop);
        return -1;
    }
    if (p_pw_thread_loop_start(r.loop) < 0) {
        snprintf(error, error_size, "pw_thread_loop_start failed (%s)", strerror(errno));
        p_pw_context_destroy(context);
        p_pw_thread_loop_destroy(r.loop);
        return -1;
    }
    p_pw_thread_loop_lock(r.loop);
    struct pw_properties *connect_props = remote ? p_pw_properties_new("remote.name", remote, NULL) : NULL;
    r.core = p_pw_context_connect(context, connect_props, 0);
    if (!r.core) {
        no_daemon(remote, errno, error, error_size);
        goto done;
    }
    TPW_CALL(r.core, struct tpw_core_methods, rc, add_listener, &r.core_listener, &core_events, &r);
    rc = -1;
    TPW_CALL(r.core, struct tpw_core_methods, r.registry, get_registry, TPW_VERSION_REGISTRY, 0);
    if (!r.registry) {
        snprintf(error, error_size, "pw_core_get_registry failed (%s)", strerror(errno));
        goto done;
    }
    int added = 0;
    TPW_CALL(r.registry, struct tpw_registry_methods, added, add_listener, &r.registry_listener, &registry_events, &r);
    (void)added;
    // First round: every global (the audio nodes bound as they come); second: their info and
    // EnumFormat.
    if (roundtrip(&r) != 0 || roundtrip(&r) != 0) {
        copy(error, error_size, r.error);
        goto done;
    }
    *nodes = calloc(r.count ? r.count : 1, sizeof **nodes);
    if (!*nodes) {
        copy(error, error_size, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < r.count; i++) {
        tpw_node node = r.nodes[i]->node;
        if (node.rate == 0) node.rate = r.nodes[i]->format_rate;
        if (node.channels == 0) node.channels = r.nodes[i]->format_channels;
        (*nodes)[i] = node;
    }
    *count = r.count;
    rc = 0;
done:
    for (size_t i = 0; i < r.count; i++) {
        if (r.nodes[i]->proxy) {
            spa_hook_remove(&r.nodes[i]->listener);
            p_pw_proxy_destroy(r.nodes[i]->proxy);
        }
        free(r.nodes[i]);
    }
    free(r.nodes);
    if (r.registry) {
        spa_hook_remove(&r.registry_listener);
        p_pw_proxy_destroy((struct pw_proxy *)r.registry);
    }
    if (r.core) {
        spa_hook_remove(&r.core_listener);
        p_pw_core_disconnect(r.core);
    }
    p_pw_thread_loop_unlock(r.loop);
    p_pw_thread_loop_stop(r.loop);
    p_pw_context_destroy(context);
    p_pw_thread_loop_destroy(r.loop);
    return rc;
}

void tpw_free_nodes(tpw_node *nodes) { free(nodes); }

// ---- Watching other applications' playback streams ----

#define TPW_NODE_STATE_RUNNING 3
#define TPW_NODE_CHANGE_MASK_STATE (1 << 2)
#define TPW_NODE_CHANGE_MASK_PROPS (1 << 3)
#define TPW_TYPE_INTERFACE_CLIENT "PipeWire:Interface:Client"
#define TPW_TYPE_INTERFACE_LINK "PipeWire:Interface:Link"
#define TPW_TYPE_INTERFACE_METADATA "PipeWire:Interface:Metadata"
#define TPW_VERSION_METADATA 3
#define TPW_VERSION_METADATA_EVENTS 0

struct tpw_metadata_events {
    uint32_t version;
    int (*property)(void *data, uint32_t subject, const char *key, const char *type, const char *value);
};

struct tpw_metadata_methods {
    uint32_t version;
    int (*add_listener)(void *object, struct spa_hook *listener, const struct tpw_metadata_events *events, void *data);
    int (*set_property)(void *object, uint32_t subject, const char *key, const char *type, const char *value);
    int (*clear)(void *object);
};

// The device interface (<pipewire/device.h>): a sound card, a bluetooth device, with its
// Route params (the active port of each of its profile's devices).
#define TPW_TYPE_INTERFACE_DEVICE "PipeWire:Interface:Device"
#define TPW_VERSION_DEVICE 3
#define TPW_VERSION_DEVICE_EVENTS 0
#define TPW_DEVICE_CHANGE_MASK_PROPS (1 << 0)
#define TPW_DEVICE_CHANGE_MASK_PARAMS (1 << 1)

struct tpw_device_info {
    uint32_t id;
    uint64_t change_mask;
    struct spa_dict *props;
    struct spa_param_info *params;
    uint32_t n_params;
};

struct tpw_device_events {
    uint32_t version;
    void (*info)(void *data, const struct tpw_device_info *info);
    void (*param)(void *data, int seq, uint32_t id, uint32_t index, uint32_t next, const struct spa_pod *param);
};

struct tpw_device_methods {
    uint32_t version;
    int (*add_listener)(void *object, struct spa_hook *listener, const struct tpw_device_events *events, void *data);
    int (*subscribe_params)(void *object, uint32_t *ids, uint32_t n_ids);
    int (*enum_params)(void *object, int seq, uint32_t id, uint32_t start, uint32_t num, const struct spa_pod *filter);
    int (*set_param)(void *object, uint32_t id, uint32_t flags, const struct spa_pod *param);
};

// ---- Route params ----

/// The Int of `prop`'s value (no choice), or `fallback`.
static int32_t prop_int(const struct spa_pod_prop *prop, int32_t fallback) {
    if (!prop || prop->value.type != SPA_TYPE_Int || prop->value.size < sizeof(int32_t)) return fallback;
    return SPA_POD_VALUE(struct spa_pod_int, &prop->value);
}

/// The Id of `prop`'s value (no choice), or `fallback`.
static uint32_t prop_id(const struct spa_pod_prop *prop, uint32_t fallback) {
    if (!prop || prop->value.type != SPA_TYPE_Id || prop->value.size < sizeof(uint32_t)) return fallback;
    return SPA_POD_VALUE(struct spa_pod_id, &prop->value);
}

/// The String of `prop`'s value (NUL-terminated inside the pod), or NULL.
static const char *prop_string(const struct spa_pod_prop *prop) {
    if (!prop || !spa_pod_is_string(&prop->value)) return NULL;
    return SPA_POD_CONTENTS(struct spa_pod_string, &prop->value);
}

int tpw_route_parse(const void *pod, size_t size, tpw_route *route) {
    memset(route, 0, sizeof *route);
    route->index = -1;
    route->device = -1;
    route->direction = TPW_ID_ANY;
    if (!pod || size < sizeof(struct spa_pod)) return -1;
    const struct spa_pod *p = pod;
    if (SPA_POD_SIZE(p) > size || !spa_pod_is_object(p)) return -1;
    const struct spa_pod_object *object = pod;
    if (object->body.type != SPA_TYPE_OBJECT_ParamRoute) return -1;
    const struct spa_pod_prop *prop;
    SPA_POD_OBJECT_FOREACH(object, prop) {
        switch (prop->key) {
        case SPA_PARAM_ROUTE_index: route->index = prop_int(prop, -1); break;
        case SPA_PARAM_ROUTE_direction: route->direction = prop_id(prop, TPW_ID_ANY); break;
        case SPA_PARAM_ROUTE_device: route->device = prop_int(prop, -1); break;
        case SPA_PARAM_ROUTE_available: route->available = prop_id(prop, 0); break;
        case SPA_PARAM_ROUTE_name: copy(route->name, sizeof route->name, prop_string(prop)); break;
        case SPA_PARAM_ROUTE_devices:
            if (spa_pod_is_array(&prop->value)) {
                const struct spa_pod_array *array = (const struct spa_pod_array *)&prop->value;
                if (array->body.child.type != SPA_TYPE_Int || array->body.child.size != sizeof(int32_t)) break;
                uint32_t n = SPA_POD_ARRAY_N_VALUES(array);
                const int32_t *values = SPA_POD_ARRAY_VALUES(array);
                for (uint32_t i = 0; i < n && route->device_count < SPA_N_ELEMENTS(route->devices); i++) {
                    if (values[i] >= 0) route->devices[route->device_count++] = (uint32_t)values[i];
                }
            }
            break;
        case SPA_PARAM_ROUTE_info:
            // Struct(Int n, (String key, String value)*): read pair by pair while both are strings.
            if (spa_pod_is_struct(&prop->value)) {
                const struct spa_pod *item;
                const char *key = NULL;
                bool counted = false;
                SPA_POD_STRUCT_FOREACH(&prop->value, item) {
                    if (!counted) {
                        counted = true;
                        if (item->type == SPA_TYPE_Int) continue;
                    }
                    if (!spa_pod_is_string(item)) break;
                    const char *text = SPA_POD_CONTENTS(struct spa_pod_string, item);
                    if (!key) {
                        key = text;
                        continue;
                    }
                    if (strcmp(key, "port.type") == 0) copy(route->port_type, sizeof route->port_type, text);
                    key = NULL;
                }
            }
            break;
        default: break;
        }
    }
    return 0;
}

size_t tpw_test_route_pod(void *buffer, size_t size, int variant, const char *port_type, uint32_t direction, int32_t device,
                          uint32_t available) {
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, (uint32_t)(size > UINT32_MAX ? UINT32_MAX : size));
    struct spa_pod_frame f[2];
    if (variant == 4) {
        spa_pod_builder_push_struct(&b, &f[0]);
        spa_pod_builder_add(&b, SPA_POD_Int(0), SPA_POD_Id(direction), SPA_POD_String(port_type ? port_type : ""), NULL);
    } else {
        spa_pod_builder_push_object(&b, &f[0], variant == 5 ? SPA_TYPE_OBJECT_ParamProfile : SPA_TYPE_OBJECT_ParamRoute,
                                    variant == 5 ? SPA_PARAM_Profile : SPA_PARAM_Route);
        spa_pod_builder_add(&b, SPA_PARAM_ROUTE_index, SPA_POD_Int(3), SPA_PARAM_ROUTE_direction, SPA_POD_Id(direction),
                            SPA_PARAM_ROUTE_name, SPA_POD_String("analog-output-test"), SPA_PARAM_ROUTE_description,
                            SPA_POD_String("Test"), SPA_PARAM_ROUTE_priority, SPA_POD_Int(9000), SPA_PARAM_ROUTE_available,
                            SPA_POD_Id(available), 0);
        if (variant == 7) {
            spa_pod_builder_add(&b, SPA_PARAM_ROUTE_info, SPA_POD_String(port_type ? port_type : ""), 0);
        } else if (variant != 6) {
            spa_pod_builder_prop(&b, SPA_PARAM_ROUTE_info, SPA_POD_PROP_FLAG_HINT_DICT);
            spa_pod_builder_push_struct(&b, &f[1]);
            spa_pod_builder_int(&b, variant == 1 ? 5 : 3);
            spa_pod_builder_add(&b, SPA_POD_String("port.availability-group"), SPA_POD_String("Headphone"), NULL);
            if (variant == 2) {
                spa_pod_builder_add(&b, SPA_POD_String("port.type"), SPA_POD_Int(7), NULL);
            } else if (port_type) {
                spa_pod_builder_add(&b, SPA_POD_String("port.type"), SPA_POD_String(port_type), NULL);
            }
            spa_pod_builder_add(&b, SPA_POD_String("route.hw-mute"), SPA_POD_String("true"), NULL);
            spa_pod_builder_pop(&b, &f[1]);
        }
        spa_pod_builder_prop(&b, SPA_PARAM_ROUTE_profiles, 0);
        spa_pod_builder_push_array(&b, &f[1]);
        spa_pod_builder_int(&b, 1);
        spa_pod_builder_int(&b, 2);
        spa_pod_builder_pop(&b, &f[1]);
        if (variant == 3) {
            spa_pod_builder_add(&b, SPA_PARAM_ROUTE_device, SPA_POD_String("6"), 0);
        } else if (variant != 9) {
            spa_pod_builder_add(&b, SPA_PARAM_ROUTE_device, SPA_POD_Int(device), 0);
        }
        spa_pod_builder_prop(&b, SPA_PARAM_ROUTE_devices, 0);
        spa_pod_builder_push_array(&b, &f[1]);
        if (variant == 8) {
            spa_pod_builder_long(&b, device);
        } else {
            spa_pod_builder_int(&b, device);
        }
        spa_pod_builder_pop(&b, &f[1]);
        spa_pod_builder_add(&b, SPA_PARAM_ROUTE_profile, SPA_POD_Int(1), SPA_PARAM_ROUTE_save, SPA_POD_Bool(false), 0);
    }
    struct spa_pod *pod = spa_pod_builder_pop(&b, &f[0]);
    if (!pod || b.state.offset > b.size) return 0;
    return SPA_POD_SIZE(pod);
}

/// One Stream/Output/Audio node followed (bound: its info events come on the loop thread).
struct watched {
    struct tpw_watcher *watcher;
    struct pw_proxy *proxy;
    struct spa_hook listener;
    uint32_t id;
    uint32_t client;   // client.id of the registry's global (0: none)
    int state;         // pw_node_state from its info (running: 3)
    long pid;          // application.process.id of its info (0: none)
    char application[128];
    char node[128];
    char role[64];
};

/// One Audio/Sink node followed (bound: its info, with device.form-factor, comes on the loop
/// thread).
struct watched_sink {
    struct tpw_watcher *watcher;
    struct pw_proxy *proxy;
    struct spa_hook listener;
    uint32_t id;
    bool appeared;     // added after the first sync: it came while watching
    bool known;        // its info (properties) has come: reported from then on
    uint32_t device;   // device.id (its device's global id), TPW_ID_ANY: none
    int32_t profile_device; // card.profile.device (which of the device's Routes is its), -1: none
    char name[256];
    char form_factor[64];
    char device_api[32];
    char bus[32];
};

/// An active output Route of a device: its card profile device(s), port type and availability.
struct device_route {
    int32_t device;
    uint32_t devices[8];
    uint32_t device_count;
    uint32_t available;
    char port_type[32];
};

/// One Audio/Device object followed (bound: its info and its Route params, enumerated whenever
/// its info says they changed, come on the loop thread).
struct watched_device {
    struct tpw_watcher *watcher;
    struct pw_proxy *proxy;
    struct spa_hook listener;
    uint32_t id;
    int sync_seq;      // the sync after its binding, then after its last Route enumeration: at its
                       // done its Routes have come (pending becomes routes)
    bool settled;      // the first such done came: its sinks are reported from then on
    bool route_seen;   // its info listed the Route param (route_flags: as it said last)
    uint32_t route_flags;
    int enum_seq;      // the seq of its last Route enumeration
    struct device_route pending[16]; // the output routes enumerated since it was asked for
    size_t pending_count;
    char api[32];
    char bus[32];
    char form_factor[64];
    struct device_route routes[16]; // the active output routes, one per profile device
    size_t route_count;
};

/// A link from the watched stream's node: the node it feeds (a sink, or a filter before it).
struct watched_link {
    uint32_t id;
    uint32_t input_node;
};

/// A client global: its id and process (pipewire.sec.pid, else application.process.id).
struct watched_client {
    uint32_t id;
    long pid;
};

struct tpw_watcher {
    struct pw_thread_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct pw_registry *registry;
    struct spa_hook core_listener;
    struct spa_hook registry_listener;
    tpw_watch_fn changed;
    void *user;
    long self;                 // getpid()
    struct watched **nodes;    // loop thread only
    size_t count, capacity;
    struct watched_client *clients;
    size_t client_count, client_capacity;
    bool gone;                 // the daemon went away: nothing more is reported
    // The sinks (tpw_sinks_fn): NULL callback, none of this is followed.
    tpw_sinks_fn sinks_changed;
    uint32_t stream_node;      // the node whose links say which sink it plays to
    struct watched_sink **sinks;
    size_t sink_count, sink_capacity;
    struct watched_link *links;
    size_t link_count, link_capacity;
    struct watched_device **devices;
    size_t device_count, device_capacity;
    struct pw_proxy *metadata; // the "default" metadata object, bound
    struct spa_hook metadata_listener;
    uint32_t metadata_id;
    char default_sink[256];    // default.audio.sink's name ("" unset)
    int sync_seq;              // the first sync: the daemon's objects at start are known at its done
    bool synced;
};

static long dict_pid(const struct spa_dict *props, const char *key) {
    const char *text = props ? spa_dict_lookup(props, key) : NULL;
    if (!text || !*text) return 0;
    char *end = NULL;
    long value = strtol(text, &end, 10);
    return (end && *end == '\0' && value > 0) ? value : 0;
}

static long client_pid(struct tpw_watcher *w, uint32_t id) {
    for (size_t i = 0; i < w->client_count; i++) {
        if (w->clients[i].id == id) return w->clients[i].pid;
    }
    return 0;
}

/// Loop thread: the running streams of other processes to the callback.
static void watch_report(struct tpw_watcher *w) {
    if (w->gone) return;
    tpw_playing list[64];
    size_t n = 0;
    for (size_t i = 0; i < w->count && n < sizeof list / sizeof list[0]; i++) {
        struct watched *x = w->nodes[i];
        if (x->state != TPW_NODE_STATE_RUNNING) continue;
        if (x->pid == w->self || (x->client && client_pid(w, x->client) == w->self)) continue;
        list[n++] = (tpw_playing){.application = x->application, .node = x->node, .role = x->role};
    }
    w->changed(w->user, n ? list : NULL, n);
}

static void on_watched_info(void *data, const struct tpw_node_info *info) {
    struct watched *x = data;
    if (info->change_mask & TPW_NODE_CHANGE_MASK_STATE) x->state = info->state;
    if ((info->change_mask & TPW_NODE_CHANGE_MASK_PROPS) && info->props) {
        const struct spa_dict *props = info->props;
        const char *text;
        if ((text = spa_dict_lookup(props, "application.name"))) copy(x->application, sizeof x->application, text);
        if ((text = spa_dict_lookup(props, "node.name"))) copy(x->node, sizeof x->node, text);
        copy(x->role, sizeof x->role, spa_dict_lookup(props, "media.role"));
        if (dict_pid(props, "application.process.id")) x->pid = dict_pid(props, "application.process.id");
        if (dict_uint(props, "client.id")) x->client = dict_uint(props, "client.id");
    }
    watch_report(x->watcher);
}

static const struct tpw_node_events watched_events = {
    .version = TPW_VERSION_NODE_EVENTS,
    .info = on_watched_info,
};

static struct watched_device *find_device(struct tpw_watcher *w, uint32_t id) {
    if (id == TPW_ID_ANY) return NULL;
    for (size_t i = 0; i < w->device_count; i++) {
        if (w->devices[i]->id == id) return w->devices[i];
    }
    return NULL;
}

/// The active output route of `device` for its profile device `profile_device` (the Route whose
/// device is it, else one whose devices hold it; with no profile device, its only output route).
static const struct device_route *sink_route(const struct watched_device *device, int32_t profile_device) {
    if (!device) return NULL;
    if (profile_device < 0) return device->route_count == 1 ? &device->routes[0] : NULL;
    for (size_t i = 0; i < device->route_count; i++) {
        if (device->routes[i].device == profile_device) return &device->routes[i];
    }
    for (size_t i = 0; i < device->route_count; i++) {
        for (uint32_t k = 0; k < device->routes[i].device_count; k++) {
            if (device->routes[i].devices[k] == (uint32_t)profile_device) return &device->routes[i];
        }
    }
    return NULL;
}

/// `own` when it is not empty, else `inherited` (a device's), else "".
static const char *either(const char *own, const char *inherited) {
    if (own && *own) return own;
    return inherited ? inherited : "";
}

/// Loop thread: the sinks, the default sink and the stream's sink to the sinks callback (once
/// the first sync is done: the daemon's objects at start are known). A sink of a device that
/// has not settled yet (its Routes not known) waits.
static void sinks_report(struct tpw_watcher *w) {
    if (w->gone || !w->synced || !w->sinks_changed) return;
    tpw_sink list[64];
    size_t n = 0;
    uint32_t linked = TPW_ID_ANY;
    for (size_t i = 0; i < w->sink_count && n < sizeof list / sizeof list[0]; i++) {
        struct watched_sink *x = w->sinks[i];
        if (!x->known) continue;
        const struct watched_device *device = find_device(w, x->device);
        if (device && !device->settled) continue;
        const struct device_route *route = sink_route(device, x->profile_device);
        list[n++] = (tpw_sink){
            .id = x->id,
            .name = x->name,
            .form_factor = either(x->form_factor, device ? device->form_factor : NULL),
            .appeared = x->appeared,
            .device_api = either(x->device_api, device ? device->api : NULL),
            .bus = either(x->bus, device ? device->bus : NULL),
            .port_type = route ? route->port_type : "",
            .port_available = route ? route->available : 0,
        };
        for (size_t k = 0; k < w->link_count && linked == TPW_ID_ANY; k++) {
            if (w->links[k].input_node == x->id) linked = x->id;
        }
    }
    w->sinks_changed(w->user, n ? list : NULL, n, w->default_sink, linked);
}

/// The integer `key` of `props` (≥ 0), or -1 when it is missing or not a number.
static int32_t dict_index(const struct spa_dict *props, const char *key) {
    const char *text = props ? spa_dict_lookup(props, key) : NULL;
    if (!text || !*text) return -1;
    char *end = NULL;
    long value = strtol(text, &end, 10);
    return (end && *end == '\0' && value >= 0 && value <= INT32_MAX) ? (int32_t)value : -1;
}

/// device.api, or "bluez5" when the properties have an api.bluez5.* key.
static void copy_api(char *to, size_t size, const struct spa_dict *props) {
    const char *api = spa_dict_lookup(props, "device.api");
    if (!api || !*api) {
        const struct spa_dict_item *item;
        spa_dict_for_each(item, props) {
            if (item->key && strncmp(item->key, "api.bluez5.", 11) == 0) {
                api = "bluez5";
                break;
            }
        }
    }
    copy(to, size, api);
}

static void on_sink_info(void *data, const struct tpw_node_info *info) {
    struct watched_sink *x = data;
    if (!(info->change_mask & TPW_NODE_CHANGE_MASK_PROPS) || !info->props) return;
    const struct spa_dict *props = info->props;
    const char *text;
    if ((text = spa_dict_lookup(props, "node.name"))) copy(x->name, sizeof x->name, text);
    copy(x->form_factor, sizeof x->form_factor, spa_dict_lookup(props, "device.form-factor"));
    copy_api(x->device_api, sizeof x->device_api, props);
    copy(x->bus, sizeof x->bus, spa_dict_lookup(props, "device.bus"));
    int32_t device = dict_index(props, "device.id");
    x->device = device < 0 ? TPW_ID_ANY : (uint32_t)device;
    x->profile_device = dict_index(props, "card.profile.device");
    x->known = true;
    sinks_report(x->watcher);
}

static const struct tpw_node_events sink_events = {
    .version = TPW_VERSION_NODE_EVENTS,
    .info = on_sink_info,
};

/// The device's info: its properties, and its params — when the Route param is new or changed
/// (its flags' serial bit flips), the active routes are enumerated again (as pipewire-pulse
/// does: the daemon's own param subscription does not carry the changes of a device that a
/// session manager exports, which is how WirePlumber publishes the sound cards), followed by a
/// sync: at its done the routes enumerated replace the device's (none: it has none now, e.g.
/// its profile is off) and, the first time, the device settles (its sinks wait for that).
static void on_device_info(void *data, const struct tpw_device_info *info) {
    struct watched_device *d = data;
    struct tpw_watcher *w = d->watcher;
    if ((info->change_mask & TPW_DEVICE_CHANGE_MASK_PROPS) && info->props) {
        copy_api(d->api, sizeof d->api, info->props);
        copy(d->bus, sizeof d->bus, spa_dict_lookup(info->props, "device.bus"));
        copy(d->form_factor, sizeof d->form_factor, spa_dict_lookup(info->props, "device.form-factor"));
    }
    if ((info->change_mask & TPW_DEVICE_CHANGE_MASK_PARAMS) && info->params) {
        for (uint32_t i = 0; i < info->n_params; i++) {
            const struct spa_param_info *p = &info->params[i];
            if (p->id != SPA_PARAM_Route || !(p->flags & SPA_PARAM_INFO_READ)) continue;
            if (d->route_seen && d->route_flags == p->flags) continue;
            d->route_seen = true;
            d->route_flags = p->flags;
            d->enum_seq = d->enum_seq == INT32_MAX ? 1 : d->enum_seq + 1;
            d->pending_count = 0;
            int rc = 0;
            TPW_CALL(d->proxy, struct tpw_device_methods, rc, enum_params, d->enum_seq, SPA_PARAM_Route, 0, UINT32_MAX, NULL);
            (void)rc;
            TPW_CALL(w->core, struct tpw_core_methods, d->sync_seq, sync, TPW_ID_CORE, 0);
        }
    }
    if (d->settled) sinks_report(w);
}

/// A Route param (each active route, enumerated): an output route is added to the pending ones
/// (replacing one of the same profile device). Malformed or input routes are ignored. (Its
/// seq is not checked: the daemon answers a device a session manager exports with its own.)
static void on_device_param(void *data, int seq, uint32_t id, uint32_t index, uint32_t next, const struct spa_pod *param) {
    (void)seq, (void)index, (void)next;
    struct watched_device *d = data;
    tpw_route route;
    if (id != SPA_PARAM_Route || !param || tpw_route_parse(param, SPA_POD_SIZE(param), &route) != 0) return;
    if (route.direction != SPA_DIRECTION_OUTPUT) return;
    struct device_route r = {.device = route.device, .device_count = route.device_count, .available = route.available};
    memcpy(r.devices, route.devices, sizeof r.devices);
    copy(r.port_type, sizeof r.port_type, route.port_type);
    size_t slot = d->pending_count;
    for (size_t i = 0; i < d->pending_count; i++) {
        if (d->pending[i].device == r.device) slot = i;
    }
    if (slot == SPA_N_ELEMENTS(d->pending)) return;
    if (slot == d->pending_count) d->pending_count++;
    d->pending[slot] = r;
}

static const struct tpw_device_events device_events = {
    .version = TPW_VERSION_DEVICE_EVENTS,
    .info = on_device_info,
    .param = on_device_param,
};

/// Loop thread: binds an Audio/Device and syncs (its sinks wait for the done of that sync, or of
/// the one after its Routes are enumerated when its info lists them: the device's properties
/// and routes have come by then).
static void watch_device(struct tpw_watcher *w, uint32_t id) {
    if (w->device_count == w->device_capacity) {
        size_t capacity = w->device_capacity ? w->device_capacity * 2 : 8;
        struct watched_device **devices = realloc(w->devices, capacity * sizeof *devices);
        if (!devices) return;
        w->devices = devices;
        w->device_capacity = capacity;
    }
    struct watched_device *d = calloc(1, sizeof *d);
    if (!d) return;
    d->watcher = w;
    d->id = id;
    void *proxy = NULL;
    TPW_CALL(w->registry, struct tpw_registry_methods, proxy, bind, id, TPW_TYPE_INTERFACE_DEVICE, TPW_VERSION_DEVICE, 0);
    if (!proxy) {
        free(d);
        return;
    }
    d->proxy = proxy;
    int rc = 0;
    TPW_CALL(proxy, struct tpw_device_methods, rc, add_listener, &d->listener, &device_events, d);
    (void)rc;
    TPW_CALL(w->core, struct tpw_core_methods, d->sync_seq, sync, TPW_ID_CORE, 0);
    w->devices[w->device_count++] = d;
}

static void forget_device(struct watched_device *d) {
    spa_hook_remove(&d->listener);
    p_pw_proxy_destroy(d->proxy);
    free(d);
}

/// The "name" of a default.audio.sink value ({"name":"NODE"}) into `to`; "" when it has none.
static void json_name(const char *json, char *to, size_t size) {
    copy(to, size, "");
    const char *p = json ? strstr(json, "\"name\"") : NULL;
    if (!p) return;
    p += 6;
    while (*p == ' ' || *p == '\t' || *p == ':') p++;
    if (*p++ != '"') return;
    size_t n = 0;
    while (*p && *p != '"' && n + 1 < size) {
        if (*p == '\\' && p[1]) p++;
        to[n++] = *p++;
    }
    to[n] = '\0';
}

static int on_metadata_property(void *data, uint32_t subject, const char *key, const char *type, const char *value) {
    (void)type;
    struct tpw_watcher *w = data;
    if (subject != 0) return 0;
    if (key == NULL || strcmp(key, "default.audio.sink") == 0) {
        char name[sizeof w->default_sink];
        json_name(key ? value : NULL, name, sizeof name);
        if (strcmp(name, w->default_sink) != 0) {
            copy(w->default_sink, sizeof w->default_sink, name);
            sinks_report(w);
        }
    }
    return 0;
}

static const struct tpw_metadata_events metadata_events = {
    .version = TPW_VERSION_METADATA_EVENTS,
    .property = on_metadata_property,
};

/// Loop thread: a sink, a link from the stream or the "default" metadata to follow; true when
/// the global was one of them.
static bool watch_sink_global(struct tpw_watcher *w, uint32_t id, const char *type, const struct spa_dict *props) {
    if (!w->sinks_changed) return false;
    if (strcmp(type, TPW_TYPE_INTERFACE_LINK) == 0) {
        if (w->stream_node == TPW_ID_ANY || dict_uint(props, "link.output.node") != w->stream_node) return true;
        if (w->link_count == w->link_capacity) {
            size_t capacity = w->link_capacity ? w->link_capacity * 2 : 8;
            struct watched_link *links = realloc(w->links, capacity * sizeof *links);
            if (!links) return true;
            w->links = links;
            w->link_capacity = capacity;
        }
        w->links[w->link_count++] = (struct watched_link){.id = id, .input_node = dict_uint(props, "link.input.node")};
        sinks_report(w);
        return true;
    }
    if (strcmp(type, TPW_TYPE_INTERFACE_METADATA) == 0) {
        const char *name = spa_dict_lookup(props, "metadata.name");
        if (w->metadata || !name || strcmp(name, "default") != 0) return true;
        void *proxy = NULL;
        TPW_CALL(w->registry, struct tpw_registry_methods, proxy, bind, id, TPW_TYPE_INTERFACE_METADATA, TPW_VERSION_METADATA, 0);
        if (!proxy) return true;
        w->metadata = proxy;
        w->metadata_id = id;
        int rc = 0;
        TPW_CALL(proxy, struct tpw_metadata_methods, rc, add_listener, &w->metadata_listener, &metadata_events, w);
        (void)rc;
        return true;
    }
    if (strcmp(type, TPW_TYPE_INTERFACE_DEVICE) == 0) {
        const char *media_class = spa_dict_lookup(props, "media.class");
        if (media_class && strcmp(media_class, "Audio/Device") == 0) watch_device(w, id);
        return true;
    }
    if (strcmp(type, TPW_TYPE_INTERFACE_NODE) != 0) return false;
    const char *media_class = spa_dict_lookup(props, "media.class");
    if (!media_class || strcmp(media_class, "Audio/Sink") != 0) return false;
    if (w->sink_count == w->sink_capacity) {
        size_t capacity = w->sink_capacity ? w->sink_capacity * 2 : 8;
        struct watched_sink **sinks = realloc(w->sinks, capacity * sizeof *sinks);
        if (!sinks) return true;
        w->sinks = sinks;
        w->sink_capacity = capacity;
    }
    struct watched_sink *x = calloc(1, sizeof *x);
    if (!x) return true;
    x->watcher = w;
    x->id = id;
    x->device = TPW_ID_ANY;
    x->profile_device = -1;
    x->appeared = w->synced;
    copy(x->name, sizeof x->name, spa_dict_lookup(props, "node.name"));
    void *proxy = NULL;
    TPW_CALL(w->registry, struct tpw_registry_methods, proxy, bind, id, TPW_TYPE_INTERFACE_NODE, TPW_VERSION_NODE, 0);
    if (proxy) {
        x->proxy = proxy;
        int rc = 0;
        TPW_CALL(proxy, struct tpw_node_methods, rc, add_listener, &x->listener, &sink_events, x);
        (void)rc;
    } else {
        x->known = true; // not bound: reported with what the registry said
    }
    w->sinks[w->sink_count++] = x;
    sinks_report(w);
    return true;
}

static void forget_sink(struct watched_sink *x) {
    if (x->proxy) {
        spa_hook_remove(&x->listener);
        p_pw_proxy_destroy(x->proxy);
    }
    free(x);
}

/// Loop thread: a sink, a link or the metadata removed; true when the id was one of them.
static bool forget_sink_global(struct tpw_watcher *w, uint32_t id) {
    for (size_t i = 0; i < w->link_count; i++) {
        if (w->links[i].id == id) {
            w->links[i] = w->links[--w->link_count];
            sinks_report(w);
            return true;
        }
    }
    for (size_t i = 0; i < w->sink_count; i++) {
        if (w->sinks[i]->id == id) {
            forget_sink(w->sinks[i]);
            memmove(&w->sinks[i], &w->sinks[i + 1], (w->sink_count - i - 1) * sizeof *w->sinks);
            w->sink_count--;
            sinks_report(w);
            return true;
        }
    }
    for (size_t i = 0; i < w->device_count; i++) {
        if (w->devices[i]->id == id) {
            forget_device(w->devices[i]);
            memmove(&w->devices[i], &w->devices[i + 1], (w->device_count - i - 1) * sizeof *w->devices);
            w->device_count--;
            sinks_report(w);
            return true;
        }
    }
    if (w->metadata && w->metadata_id == id) {
        spa_hook_remove(&w->metadata_listener);
        p_pw_proxy_destroy(w->metadata);
        w->metadata = NULL;
        return true;
    }
    return false;
}

static void on_watch_global(void *data, uint32_t id, uint32_t permissions, const char *type, uint32_t version,
                            const struct spa_dict *props) {
    (void)permissions, (void)version;
    struct tpw_watcher *w = data;
    if (!type || !props) return;
    if (strcmp(type, TPW_TYPE_INTERFACE_CLIENT) == 0) {
        long pid = dict_pid(props, "pipewire.sec.pid");
        if (!pid) pid = dict_pid(props, "application.process.id");
        if (w->client_count == w->client_capacity) {
            size_t capacity = w->client_capacity ? w->client_capacity * 2 : 16;
            struct watched_client *clients = realloc(w->clients, capacity * sizeof *clients);
            if (!clients) return;
            w->clients = clients;
            w->client_capacity = capacity;
        }
        w->clients[w->client_count++] = (struct watched_client){.id = id, .pid = pid};
        return;
    }
    if (watch_sink_global(w, id, type, props)) return;
    if (strcmp(type, TPW_TYPE_INTERFACE_NODE) != 0) return;
    const char *media_class = spa_dict_lookup(props, "media.class");
    if (!media_class || strcmp(media_class, "Stream/Output/Audio") != 0) return;
    // This process's own streams are not bound at all (their client came first, with its pid):
    // nothing to follow on them.
    uint32_t client = dict_uint(props, "client.id");
    if (client && client_pid(w, client) == w->self) return;
    if (w->count == w->capacity) {
        size_t capacity = w->capacity ? w->capacity * 2 : 16;
        struct watched **nodes = realloc(w->nodes, capacity * sizeof *nodes);
        if (!nodes) return;
        w->nodes = nodes;
        w->capacity = capacity;
    }
    struct watched *x = calloc(1, sizeof *x);
    if (!x) return;
    x->watcher = w;
    x->id = id;
    x->client = client;
    x->state = -2; // not known before its info
    copy(x->node, sizeof x->node, spa_dict_lookup(props, "node.name"));
    void *proxy = NULL;
    TPW_CALL(w->registry, struct tpw_registry_methods, proxy, bind, id, TPW_TYPE_INTERFACE_NODE, TPW_VERSION_NODE, 0);
    if (!proxy) {
        free(x);
        return;
    }
    x->proxy = proxy;
    int rc = 0;
    TPW_CALL(proxy, struct tpw_node_methods, rc, add_listener, &x->listener, &watched_events, x);
    (void)rc;
    w->nodes[w->count++] = x;
}

static void forget(struct watched *x) {
    spa_hook_remove(&x->listener);
    p_pw_proxy_destroy(x->proxy);
    free(x);
}

static void on_watch_global_remove(void *data, uint32_t id) {
    struct tpw_watcher *w = data;
    for (size_t i = 0; i < w->client_count; i++) {
        if (w->clients[i].id == id) {
            w->clients[i] = w->clients[--w->client_count];
            return;
        }
    }
    if (forget_sink_global(w, id)) return;
    for (size_t i = 0; i < w->count; i++) {
        if (w->nodes[i]->id == id) {
            forget(w->nodes[i]);
            memmove(&w->nodes[i], &w->nodes[i + 1], (w->count - i - 1) * sizeof *w->nodes);
            w->count--;
            watch_report(w);
            return;
        }
    }
}

static const struct tpw_registry_events watch_registry_events = {
    .version = TPW_VERSION_REGISTRY_EVENTS,
    .global = on_watch_global,
    .global_remove = on_watch_global_remove,
};

// The daemon went away (or refused the connection): nothing plays as far as we can tell.
static void on_watch_error(void *data, uint32_t id, int seq, int res, const char *message) {
    (void)seq, (void)res, (void)message;
    struct tpw_watcher *w = data;
    if (id != TPW_ID_CORE || w->gone) return;
    w->changed(w->user, NULL, 0);
    w->gone = true;
}

// The first sync's done: every object of the daemon at start has been announced (the sinks
// are reported once their info has come). A device's sync's done: its properties and its
// last enumeration's Routes have come (they become its routes; its sinks are reported from
// then on).
static void on_watch_done(void *data, uint32_t id, int seq) {
    struct tpw_watcher *w = data;
    if (id != TPW_ID_CORE) return;
    for (size_t i = 0; i < w->device_count; i++) {
        struct watched_device *d = w->devices[i];
        if (seq == d->sync_seq) {
            memcpy(d->routes, d->pending, d->pending_count * sizeof d->pending[0]);
            d->route_count = d->pending_count;
            d->settled = true;
            sinks_report(w);
            return;
        }
    }
    if (w->synced || seq != w->sync_seq) return;
    w->synced = true;
    sinks_report(w);
}

static const struct tpw_core_events watch_core_events = {
    .version = TPW_VERSION_CORE_EVENTS,
    .done = on_watch_done,
    .error = on_watch_error,
};

tpw_watcher *tpw_watch_open(const char *remote, tpw_watch_fn changed, tpw_sinks_fn sinks_changed, uint32_t stream_node,
                            void *user, char *error, size_t error_size) {
    if (tpw_load(error, error_size) != 0) return NULL;
    struct tpw_watcher *w = calloc(1, sizeof *w);
    if (!w) {
        copy(error, error_size, "out of memory");
        return NULL;
    }
    w->changed = changed;
    w->sinks_changed = sinks_changed;
    w->stream_node = stream_node;
    w->user = user;
    w->self = (long)getpid();
    w->loop = p_pw_thread_loop_new("tutti-pw-watch", NULL);
    if (!w->loop) {
        snprintf(error, error_size, "pw_thread_loop_new failed (%s)", strerror(errno));
        free(w);
        return NULL;
    }
    w->context = p_pw_context_new(p_pw_thread_loop_get_loop(w->loop), NULL, 0);
    if (!w->context) {
        snprintf(error, error_size, "pw_context_new failed (%s)", strerror(errno));
        tpw_watch_close(w);
        return NULL;
    }
    if (p_pw_thread_loop_start(w->loop) < 0) {
        snprintf(error, error_size, "pw_thread_loop_start failed (%s)", strerror(errno));
        tpw_watch_close(w);
        return NULL;
    }
    p_pw_thread_loop_lock(w->loop);
    struct pw_properties *connect_props = remote ? p_pw_properties_new("remote.name", remote, NULL) : NULL;
    w->core = p_pw_context_connect(w->context, connect_props, 0);
    if (!w->core) {
        int e = errno;
        p_pw_thread_loop_unlock(w->loop);
        no_daemon(remote, e, error, error_size);
        tpw_watch_close(w);
        return NULL;
    }
    int rc = 0;
    TPW_CALL(w->core, struct tpw_core_methods, rc, add_listener, &w->core_listener, &watch_core_events, w);
    TPW_CALL(w->core, struct tpw_core_methods, w->registry, get_registry, TPW_VERSION_REGISTRY, 0);
    if (!w->registry) {
        p_pw_thread_loop_unlock(w->loop);
        snprintf(error, error_size, "pw_core_get_registry failed (%s)", strerror(errno));
        tpw_watch_close(w);
        return NULL;
    }
    TPW_CALL(w->registry, struct tpw_registry_methods, rc, add_listener, &w->registry_listener, &watch_registry_events, w);
    (void)rc;
    // Its done: the daemon's objects at start have been announced (sinks added later "appeared").
    TPW_CALL(w->core, struct tpw_core_methods, w->sync_seq, sync, TPW_ID_CORE, 0);
    p_pw_thread_loop_unlock(w->loop);
    return w;
}

void tpw_watch_close(tpw_watcher *w) {
    if (!w) return;
    if (w->loop) {
        p_pw_thread_loop_lock(w->loop);
        w->gone = true;
        for (size_t i = 0; i < w->count; i++) forget(w->nodes[i]);
        w->count = 0;
        for (size_t i = 0; i < w->sink_count; i++) forget_sink(w->sinks[i]);
        w->sink_count = 0;
        for (size_t i = 0; i < w->device_count; i++) forget_device(w->devices[i]);
        w->device_count = 0;
        w->link_count = 0;
        if (w->metadata) {
            spa_hook_remove(&w->metadata_listener);
            p_pw_proxy_destroy(w->metadata);
            w->metadata = NULL;
        }
        if (w->registry) {
            spa_hook_remove(&w->registry_listener);
            p_pw_proxy_destroy((struct pw_proxy *)w->registry);
            w->registry = NULL;
        }
        if (w->core) {
            spa_hook_remove(&w->core_listener);
            p_pw_core_disconnect(w->core);
            w->core = NULL;
        }
        p_pw_thread_loop_unlock(w->loop);
        p_pw_thread_loop_stop(w->loop);
    }
    if (w->context) p_pw_context_destroy(w->context);
    if (w->loop) p_pw_thread_loop_destroy(w->loop);
    free(w->nodes);
    free(w->clients);
    free(w->sinks);
    free(w->links);
    free(w->devices);
    free(w);
}

// ---- Tests only: a device exported to the daemon, with a sound card's Route params ----

/// The exported device: a spa_device implemented here (its info, one active output Route),
/// exported on a connection and loop thread of its own, as WirePlumber exports the ALSA cards.
struct tpw_test_device {
    struct pw_thread_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct spa_hook core_listener;
    struct spa_device device;
    struct spa_hook_list hooks;
    struct spa_param_info params[1];
    struct pw_proxy *proxy;
    int32_t profile_device;
    uint32_t available;
    char port_type[32];
    char name[64];
    int seq;
    bool done;
    int failure;
};

/// Calls `method` of every listener of the test device (as <spa/monitor/utils.h> does).
#define TEST_DEVICE_EMIT(d, method, ...) spa_hook_list_call_simple(&(d)->hooks, struct spa_device_events, method, 0, __VA_ARGS__)

static void test_device_info(struct tpw_test_device *d, bool full) {
    struct spa_dict_item items[] = {
        SPA_DICT_ITEM_INIT("media.class", "Audio/Device"),
        SPA_DICT_ITEM_INIT("device.api", "tutti-test"),
        SPA_DICT_ITEM_INIT("device.name", d->name),
    };
    struct spa_dict props = SPA_DICT_INIT_ARRAY(items);
    struct spa_device_info info = SPA_DEVICE_INFO_INIT();
    info.change_mask = SPA_DEVICE_CHANGE_MASK_PARAMS | (full ? SPA_DEVICE_CHANGE_MASK_PROPS : 0);
    info.props = &props;
    info.params = d->params;
    info.n_params = SPA_N_ELEMENTS(d->params);
    TEST_DEVICE_EMIT(d, info, &info);
}

static int test_device_add_listener(void *object, struct spa_hook *listener, const struct spa_device_events *events, void *data) {
    struct tpw_test_device *d = object;
    struct spa_hook_list save;
    spa_hook_list_isolate(&d->hooks, &save, listener, events, data);
    test_device_info(d, true);
    spa_hook_list_join(&d->hooks, &save);
    return 0;
}

static int test_device_sync(void *object, int seq) {
    struct tpw_test_device *d = object;
    TEST_DEVICE_EMIT(d, result, seq, 0, 0, NULL);
    return 0;
}

static int test_device_enum_params(void *object, int seq, uint32_t id, uint32_t start, uint32_t num, const struct spa_pod *filter) {
    (void)num, (void)filter;
    struct tpw_test_device *d = object;
    if (id != SPA_PARAM_Route || start > 0) return 0;
    // "": no active output route — the card's profile has only its input (a Route for capture,
    // "mic"), as an input-only profile has. (Not no Route at all: the daemon keeps an exported
    // device's last answered params when an enumeration answers none.)
    bool output = d->port_type[0] != 0;
    uint64_t buffer[256];
    if (!tpw_test_route_pod(buffer, sizeof buffer, 0, output ? d->port_type : "mic", output ? SPA_DIRECTION_OUTPUT : SPA_DIRECTION_INPUT,
                            d->profile_device, d->available)) {
        return -ENOSPC;
    }
    struct spa_result_device_params result = {.id = id, .index = 0, .next = 1, .param = (struct spa_pod *)buffer};
    TEST_DEVICE_EMIT(d, result, seq, 0, SPA_RESULT_TYPE_DEVICE_PARAMS, &result);
    return 0;
}

static int test_device_set_param(void *object, uint32_t id, uint32_t flags, const struct spa_pod *param) {
    (void)object, (void)id, (void)flags, (void)param;
    return -ENOTSUP;
}

static const struct spa_device_methods test_device_methods = {
    .version = SPA_VERSION_DEVICE_METHODS,
    .add_listener = test_device_add_listener,
    .sync = test_device_sync,
    .enum_params = test_device_enum_params,
    .set_param = test_device_set_param,
};

static void on_test_device_done(void *data, uint32_t id, int seq) {
    struct tpw_test_device *d = data;
    if (id != TPW_ID_CORE || seq != d->seq) return;
    d->done = true;
    p_pw_thread_loop_signal(d->loop, false);
}

static void on_test_device_error(void *data, uint32_t id, int seq, int res, const char *message) {
    (void)seq, (void)message;
    struct tpw_test_device *d = data;
    if (id != TPW_ID_CORE) return;
    d->failure = res < 0 ? res : -EIO;
    p_pw_thread_loop_signal(d->loop, false);
}

static const struct tpw_core_events test_device_core_events = {
    .version = TPW_VERSION_CORE_EVENTS,
    .done = on_test_device_done,
    .error = on_test_device_error,
};

/// Lock held: a sync and its done (at most 5 s). 0 or -1.
static int test_device_roundtrip(struct tpw_test_device *d) {
    d->done = false;
    TPW_CALL(d->core, struct tpw_core_methods, d->seq, sync, TPW_ID_CORE, 0);
    while (!d->done && d->failure == 0) {
        if (p_pw_thread_loop_timed_wait(d->loop, 5) != 0 && !d->done) return -1;
    }
    return d->failure == 0 ? 0 : -1;
}

tpw_test_device *tpw_test_device_open(const char *remote, const char *name, int32_t profile_device, const char *port_type,
                                      uint32_t available, uint32_t *global_id, char *error, size_t error_size) {
    if (tpw_load(error, error_size) != 0) return NULL;
    void *handle = dlopen(library_name, RTLD_NOW | RTLD_NOLOAD);
    struct pw_proxy *(*export)(struct pw_core *, const char *, const struct spa_dict *, void *, size_t) =
        handle ? (struct pw_proxy * (*)(struct pw_core *, const char *, const struct spa_dict *, void *, size_t))
                     dlsym(handle, "pw_core_export")
               : NULL;
    uint32_t (*bound_id)(struct pw_proxy *) = handle ? (uint32_t(*)(struct pw_proxy *))dlsym(handle, "pw_proxy_get_bound_id") : NULL;
    if (!export || !bound_id) {
        copy(error, error_size, "libpipewire has no pw_core_export or pw_proxy_get_bound_id");
        return NULL;
    }
    struct tpw_test_device *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->profile_device = profile_device;
    d->available = available;
    copy(d->port_type, sizeof d->port_type, port_type);
    copy(d->name, sizeof d->name, name);
    d->device.iface = SPA_INTERFACE_INIT(SPA_TYPE_INTERFACE_Device, SPA_VERSION_DEVICE, &test_device_methods, d);
    spa_hook_list_init(&d->hooks);
    d->params[0] = (struct spa_param_info){.id = SPA_PARAM_Route, .flags = SPA_PARAM_INFO_READ};
    d->loop = p_pw_thread_loop_new("tutti-pw-testdev", NULL);
    d->context = d->loop ? p_pw_context_new(p_pw_thread_loop_get_loop(d->loop), NULL, 0) : NULL;
    if (!d->context || p_pw_thread_loop_start(d->loop) < 0) {
        copy(error, error_size, "the test device's loop or context failed");
        tpw_test_device_close(d);
        return NULL;
    }
    p_pw_thread_loop_lock(d->loop);
    struct pw_properties *connect_props = remote ? p_pw_properties_new("remote.name", remote, NULL) : NULL;
    d->core = p_pw_context_connect(d->context, connect_props, 0);
    int rc = -1;
    if (d->core) {
        TPW_CALL(d->core, struct tpw_core_methods, rc, add_listener, &d->core_listener, &test_device_core_events, d);
        struct spa_dict_item items[] = {
            SPA_DICT_ITEM_INIT("media.class", "Audio/Device"),
            SPA_DICT_ITEM_INIT("device.api", "tutti-test"),
            SPA_DICT_ITEM_INIT("device.name", d->name),
        };
        struct spa_dict props = SPA_DICT_INIT_ARRAY(items);
        d->proxy = export(d->core, SPA_TYPE_INTERFACE_Device, &props, &d->device, 0);
        rc = d->proxy && test_device_roundtrip(d) == 0 && test_device_roundtrip(d) == 0 ? 0 : -1;
        if (rc == 0) *global_id = bound_id(d->proxy);
    }
    p_pw_thread_loop_unlock(d->loop);
    if (rc != 0) {
        snprintf(error, error_size, "the test device could not be exported (%s)", d->core ? "export failed" : "no daemon");
        tpw_test_device_close(d);
        return NULL;
    }
    return d;
}

void tpw_test_device_set_route(tpw_test_device *d, const char *port_type, uint32_t available) {
    p_pw_thread_loop_lock(d->loop);
    copy(d->port_type, sizeof d->port_type, port_type);
    d->available = available;
    d->params[0].flags ^= SPA_PARAM_INFO_SERIAL; // the Route param changed: clients enumerate it again
    test_device_info(d, false);
    p_pw_thread_loop_unlock(d->loop);
}

void tpw_test_device_close(tpw_test_device *d) {
    if (!d) return;
    if (d->loop) {
        p_pw_thread_loop_lock(d->loop);
        if (d->proxy) p_pw_proxy_destroy(d->proxy);
        if (d->core) {
            spa_hook_remove(&d->core_listener);
            p_pw_core_disconnect(d->core);
        }
        p_pw_thread_loop_unlock(d->loop);
        p_pw_thread_loop_stop(d->loop);
    }
    if (d->context) p_pw_context_destroy(d->context);
    if (d->loop) p_pw_thread_loop_destroy(d->loop);
    free(d);
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
SAME(struct tpw_core_events, struct pw_core_events);
AT(struct tpw_core_events, struct pw_core_events, done);
AT(struct tpw_core_events, struct pw_core_events, error);
SAME(struct tpw_core_methods, struct pw_core_methods);
AT(struct tpw_core_methods, struct pw_core_methods, sync);
AT(struct tpw_core_methods, struct pw_core_methods, get_registry);
SAME(struct tpw_registry_events, struct pw_registry_events);
AT(struct tpw_registry_events, struct pw_registry_events, global);
SAME(struct tpw_registry_methods, struct pw_registry_methods);
AT(struct tpw_registry_methods, struct pw_registry_methods, bind);
SAME(struct tpw_node_info, struct pw_node_info);
AT(struct tpw_node_info, struct pw_node_info, props);
SAME(struct tpw_node_events, struct pw_node_events);
AT(struct tpw_node_events, struct pw_node_events, param);
SAME(struct tpw_node_methods, struct pw_node_methods);
AT(struct tpw_node_methods, struct pw_node_methods, enum_params);
_Static_assert(TPW_ID_CORE == PW_ID_CORE, "PW_ID_CORE");
_Static_assert(TPW_VERSION_REGISTRY == PW_VERSION_REGISTRY, "registry version");
_Static_assert(TPW_VERSION_NODE == PW_VERSION_NODE, "node version");
_Static_assert(TPW_VERSION_CORE_EVENTS == PW_VERSION_CORE_EVENTS, "core events version");
_Static_assert(TPW_VERSION_REGISTRY_EVENTS == PW_VERSION_REGISTRY_EVENTS, "registry events version");
_Static_assert(TPW_VERSION_NODE_EVENTS == PW_VERSION_NODE_EVENTS, "node events version");
AT(struct tpw_node_info, struct pw_node_info, state);
AT(struct tpw_node_info, struct pw_node_info, change_mask);
AT(struct tpw_registry_events, struct pw_registry_events, global_remove);
_Static_assert(TPW_NODE_STATE_RUNNING == PW_NODE_STATE_RUNNING, "node state running");
_Static_assert(TPW_NODE_CHANGE_MASK_STATE == PW_NODE_CHANGE_MASK_STATE, "node change mask state");
_Static_assert(TPW_NODE_CHANGE_MASK_PROPS == PW_NODE_CHANGE_MASK_PROPS, "node change mask props");
#include <pipewire/extensions/metadata.h>
SAME(struct tpw_metadata_events, struct pw_metadata_events);
AT(struct tpw_metadata_events, struct pw_metadata_events, property);
SAME(struct tpw_metadata_methods, struct pw_metadata_methods);
AT(struct tpw_metadata_methods, struct pw_metadata_methods, add_listener);
_Static_assert(TPW_VERSION_METADATA == PW_VERSION_METADATA, "metadata version");
_Static_assert(TPW_VERSION_METADATA_EVENTS == PW_VERSION_METADATA_EVENTS, "metadata events version");
SAME(struct tpw_device_info, struct pw_device_info);
AT(struct tpw_device_info, struct pw_device_info, props);
AT(struct tpw_device_info, struct pw_device_info, change_mask);
SAME(struct tpw_device_events, struct pw_device_events);
AT(struct tpw_device_events, struct pw_device_events, param);
SAME(struct tpw_device_methods, struct pw_device_methods);
AT(struct tpw_device_methods, struct pw_device_methods, subscribe_params);
_Static_assert(TPW_VERSION_DEVICE == PW_VERSION_DEVICE, "device version");
_Static_assert(TPW_VERSION_DEVICE_EVENTS == PW_VERSION_DEVICE_EVENTS, "device events version");
_Static_assert(TPW_DEVICE_CHANGE_MASK_PROPS == PW_DEVICE_CHANGE_MASK_PROPS, "device change mask props");
_Static_assert(TPW_DEVICE_CHANGE_MASK_PARAMS == PW_DEVICE_CHANGE_MASK_PARAMS, "device change mask params");
AT(struct tpw_device_info, struct pw_device_info, params);
AT(struct tpw_device_info, struct pw_device_info, n_params);
#endif
