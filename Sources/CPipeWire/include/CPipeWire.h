// One PipeWire playback stream (pw_stream) for TuttiPipeWire, and the listing of the daemon's
// audio nodes, with libpipewire-0.3 loaded at run time (dlopen): nothing here needs
// PipeWire's headers, and a binary that never plays through PipeWire never needs the library.
//
// Threads: tpw_open / connect / close and the queries from the control thread (or the
// output's supervisor); the render callback runs on PipeWire's real-time data thread;
// tpw_list_nodes from any thread but a real-time one (it blocks on the daemon); a watcher
// (tpw_watch_open) calls back on its own loop thread.
#ifndef TUTTI_CPIPEWIRE_H
#define TUTTI_CPIPEWIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Fills `samples` with `frames` interleaved float32 frames; PipeWire's data thread. Called
/// with NULL and 0 for a cycle that found no free buffer to fill (an underrun of the stream).
typedef void (*tpw_render_fn)(void *user, float *samples, uint32_t frames);

/// Takes `frames` interleaved float32 frames the capture stream got this cycle; PipeWire's
/// data thread (the same as the render callback's). Called with NULL and 0 for a cycle that
/// had no filled buffer.
typedef void (*tpw_capture_fn)(void *user, const float *samples, uint32_t frames);

/// Fills output bus `bus`'s stream buffer: `frames` interleaved float32 frames into `samples`;
/// PipeWire's data thread (the same as the render callback's: every stream of one tpw_stream
/// shares its context's data loop). Called with NULL and 0 for a cycle that found no free
/// buffer to fill.
typedef void (*tpw_bus_fn)(void *user, uint32_t bus, float *samples, uint32_t frames);

/// Graph cycles stream `stream` lost (-1 main, -2 capture, 0… a bus past main by its index in
/// `buses`), seen in its process callback on PipeWire's data thread: `cycles` cycles of
/// `frames` frames in all (at the stream's rate) in which it gave the graph nothing — cycles
/// the graph ran without calling it (its position, `pw_time.ticks`, moved by more than the
/// last cycle's length: the driver went on while it was late, its wake-ups coalesced), and the
/// cycle whose callback ended after the next cycle's start (too late for the graph: PipeWire
/// counts an xrun of the node). No allocation, lock or system call (clock_gettime is the
/// vDSO's).
typedef void (*tpw_gap_fn)(void *user, int32_t stream, uint32_t cycles, uint64_t frames);

/// One more playback stream on the same connection, for an output bus past main (strings are
/// copied).
typedef struct tpw_bus_config {
    const char *node_name; // node.name ("CLIENT-BUS"); NULL in tpw_open's list: an empty slot
                           // (closed; tpw_bus_add may make it later)
    const char *target;    // target.object (a node name or serial); NULL: the default sink
    const char *media_role; // media.role; NULL: main's
    const char *media_name; // media.name; NULL: node_name
} tpw_bus_config;

/// What one stream is opened with (strings are copied; NULL: not set).
typedef struct tpw_config {
    const char *node_name;        // node.name and application.name
    const char *media_role;       // media.role
    const char *target;           // target.object (a node name or serial), NULL: the default sink
    const char *latency;          // node.latency, "FRAMES/RATE"
    const char *remote;           // the daemon's socket (remote.name: a name in the runtime
                                  // directory or an absolute path); NULL: $PIPEWIRE_REMOTE, else
                                  // pipewire-0 in $PIPEWIRE_RUNTIME_DIR / $XDG_RUNTIME_DIR
    uint32_t rate;                // frames per second of the stream's format
    uint32_t channels;            // channels per frame
    tpw_render_fn render;
    void *user;
    // Capture (0 channels: none): an input stream at `rate`, its own node
    // ("NODE_NAME-capture", media.category Capture), linked to `capture_target` (a source's
    // node name or serial; NULL: the default source) or, with `capture_monitor`, to that
    // sink's monitor (stream.capture.sink).
    uint32_t capture_channels;
    const char *capture_target;
    int capture_monitor;
    tpw_capture_fn capture;
    // Output buses past main (0: none): one playback stream each, media.role and node.latency
    // as main's, application.name `node_name`, fed by `bus_render` with the bus's index in
    // `buses`.
    uint32_t bus_count;
    const tpw_bus_config *buses;
    tpw_bus_fn bus_render;
    // Lost cycles of every stream (NULL: not reported).
    tpw_gap_fn gap;
    // Room for bus streams in all, those added later by tpw_bus_add included (below
    // bus_count: bus_count).
    uint32_t bus_capacity;
} tpw_config;

typedef struct tpw_stream tpw_stream;

/// An open stream, by id (0: none). Callers hold ids, never a tpw_stream's address: each
/// function below looks its stream up in the shim's table of open streams (under the table's
/// lock) and keeps it alive for the call, so any thread may hold an id, and a call that races
/// tpw_close finds no stream (it fails: -1, an invalid node id, or nothing) instead of freed
/// memory. Ids are never reused.
typedef uint64_t tpw_id;

/// Loads libpipewire-0.3.so.0 and its functions once (thread-safe). 0, or -1 with a message
/// in `error` naming the library and its Debian package.
int tpw_load(char *error, size_t error_size);

/// The loaded library's version ("0.3.65"); NULL before tpw_load succeeded.
const char *tpw_library_version(void);

/// Starts PipeWire's loop thread, connects to the daemon and creates the stream (not yet
/// connected to the graph): its id, or 0 with a message in `error` when the daemon does not
/// answer.
tpw_id tpw_open(const tpw_config *config, char *error, size_t error_size);

/// Connects the stream for playback (AUTOCONNECT | MAP_BUFFERS | RT_PROCESS) with a float32
/// interleaved format at the configured rate and channels, each bus stream the same way, and
/// the capture stream (if any) the same way for input. 0, or -1 with a message.
int tpw_connect(tpw_id stream, char *error, size_t error_size);

/// The stream's state: -1 error (or the stream is closed), 0 unconnected, 1 connecting, 2
/// paused, 3 streaming. With a buffer, the last error message is copied into it (empty when
/// none).
int tpw_state(tpw_id stream, char *error, size_t error_size);

/// Bus stream `bus`'s state, as tpw_state's (with a buffer, its last error). -1 for a bus
/// index out of range.
int tpw_bus_state(tpw_id stream, uint32_t bus, char *error, size_t error_size);

/// Makes bus stream `bus` as tpw_open makes them, connected at once when tpw_connect ran; its
/// callback is `bus_render` with that index. `bus` is the next index (the count grows by one)
/// or a closed one below it (tpw_bus_close, or an empty slot of tpw_open: the slot is made
/// again, with a new stream and node). `bus` returned, or -1 with `error` set when it is past
/// the room (`bus_capacity`) or the count, still open, or PipeWire refuses. Takes the thread
/// loop's lock: any thread but PipeWire's.
int tpw_bus_add(tpw_id stream, uint32_t bus, const tpw_bus_config *config, char *error, size_t error_size);

/// Destroys bus stream `bus` (its node leaves the graph; its callback never runs again), the
/// others and main playing on; tpw_bus_state then reads 3 (streaming) for it, tpw_connect
/// skips it. 0, or -1 for a bus it does not have. Takes the thread loop's lock: any thread but
/// PipeWire's.
int tpw_bus_close(tpw_id stream, uint32_t bus);

/// Sets bus stream `bus`'s media.role (pw_stream_update_properties: the node's properties
/// change, as the session manager sees them). 0, or -1 for a bus it does not have. Takes the
/// thread loop's lock: any thread but PipeWire's.
int tpw_bus_set_role(tpw_id stream, uint32_t bus, const char *role);

/// Bus stream `bus`'s timing, as tpw_latency's. 0, or -1 before it runs.
int tpw_bus_latency(tpw_id stream, uint32_t bus, int64_t *frames, uint32_t *graph_rate);

/// The capture stream's state, as tpw_state's (0 without capture, -1 once closed).
int tpw_capture_state(tpw_id stream);

/// Waits at most `seconds` for a state change (returns at once after one; tpw_close waits for
/// it); control thread.
void tpw_wait(tpw_id stream, int seconds);

/// The stream's timing (pw_stream_get_time_n): delay to the device plus the frames buffered
/// in its converter, in frames of the stream's rate, and the graph's quantum-rate
/// denominator (the graph rate). 0, or -1 before the stream runs.
int tpw_latency(tpw_id stream, int64_t *frames, uint32_t *graph_rate);

/// The stream's node id in the graph (SPA_ID_INVALID before it is connected, or once closed).
uint32_t tpw_node_id(tpw_id stream);

/// Tests only: the next cycle of main's stream sleeps `microseconds` in its process callback
/// before rendering (a callback late on purpose, to check that the cycles it loses are
/// reported). Any thread.
void tpw_test_stall(tpw_id stream, uint32_t microseconds);

/// Destroys the stream (no render callback runs after it returns), disconnects, stops the
/// loop thread and frees everything: the calls on it already running end first, and later
/// ones find no stream. An id not open (0, or closed) is ignored.
void tpw_close(tpw_id stream);

/// One audio device node of the daemon (media.class Audio/Sink, Audio/Source or Audio/Duplex,
/// including their /Virtual kinds). Strings are empty when the node does not have them.
typedef struct tpw_node {
    uint32_t id;             // the global id
    uint32_t serial;         // object.serial (a target.object may name it), 0: none
    uint32_t rate;           // frames per second: audio.rate, else the first EnumFormat's (a
                             // choice's default); 0: neither says
    uint32_t channels;       // audio.channels, else the first EnumFormat's; 0: neither says
    char name[256];          // node.name (what target.object takes)
    char description[256];   // node.description, else node.nick
    char media_class[64];    // media.class
} tpw_node;

/// Connects to the daemon at `remote` (as tpw_config's remote; NULL: the default), lists its
/// audio device nodes in registry order (two round trips: the globals, then each node's
/// properties and first EnumFormat; at most 5 s each) and disconnects. 0 with a calloc'ed
/// array in `*nodes` (free it with tpw_free_nodes) and its length in `*count`, or -1 with a
/// message in `error` (the library, "no PipeWire daemon answers at …", a daemon that fails or
/// does not answer). Blocks; any thread but a real-time one.
int tpw_list_nodes(const char *remote, tpw_node **nodes, size_t *count, char *error, size_t error_size);

/// Frees what tpw_list_nodes returned (NULL is ignored).
void tpw_free_nodes(tpw_node *nodes);

/// One other application's playback stream that runs now (media.class Stream/Output/Audio,
/// node state running, not this process's). Strings are empty when the node does not have them;
/// they live until the callback returns.
typedef struct tpw_playing {
    const char *application; // application.name
    const char *node;        // node.name
    const char *role;        // media.role
} tpw_playing;

/// Gets every running playback stream of other processes, on the watcher's loop thread (never
/// a real-time one), after each change of one of them (its state or properties, a stream
/// added or removed; at most the first 64); `count` 0 and NULL when none runs or the daemon
/// went away. The same list may come again (the caller compares).
typedef void (*tpw_watch_fn)(void *user, const tpw_playing *streams, size_t count);

/// One audio sink of the daemon (media.class Audio/Sink), reported once its properties are known
/// and, when it belongs to a device (device.id), once that device's active routes are known.
/// Strings live until the callback returns; empty when neither the node nor its device has them.
typedef struct tpw_sink {
    uint32_t id;             // the global id
    const char *name;        // node.name
    const char *form_factor; // device.form-factor ("headphones", "headset", "internal" …), the
                             // node's, else its device's
    bool appeared;           // it came into the graph after the watcher had seen the daemon's
                             // objects at start (a device plugged in, a sink loaded)
    const char *device_api;  // device.api ("alsa", "bluez5" …), the node's, else its device's;
                             // "bluez5" too when the node has api.bluez5.* properties
    const char *bus;         // device.bus ("usb", "pci", "bluetooth" …), the node's, else its device's
    const char *port_type;   // port.type of the device's active output Route for this sink (the
                             // Route whose device is the node's card.profile.device):
                             // "headphones", "speaker", "hdmi" …; "" when there is none
    uint32_t port_available; // that Route's available: 0 unknown, 1 no, 2 yes (spa_param_availability)
} tpw_sink;

/// One Route param of a device (SPA_PARAM_Route / SPA_PARAM_EnumRoute, an object of type
/// SPA_TYPE_OBJECT_ParamRoute) as the watcher reads it.
typedef struct tpw_route {
    int32_t index;           // SPA_PARAM_ROUTE_index, -1: none
    uint32_t direction;      // SPA_PARAM_ROUTE_direction: 0 input, 1 output (spa_direction);
                             // 0xffffffff: none
    int32_t device;          // SPA_PARAM_ROUTE_device (a card profile device index), -1: none
    uint32_t devices[8];     // SPA_PARAM_ROUTE_devices (an Array of Int), the first 8
    uint32_t device_count;
    uint32_t available;      // SPA_PARAM_ROUTE_available: 0 unknown, 1 no, 2 yes
    char name[64];           // SPA_PARAM_ROUTE_name ("analog-output-headphones"), "" none
    char port_type[32];      // "port.type" of SPA_PARAM_ROUTE_info (a Struct: Int n, then n
                             // String key / String value pairs), "" none
} tpw_route;

/// Reads the Route param `pod` (`size` bytes available at it) into `route`: 0, or -1 when it is
/// not a Route object or does not fit in `size` (nothing is read past it). A field of the wrong
/// type, an info struct cut short or holding other types, is left as none; never crashes on
/// malformed input. Pure: any thread.
int tpw_route_parse(const void *pod, size_t size, tpw_route *route);

/// Tests only: builds into `buffer` a Route param as PipeWire's ALSA card device writes it
/// (index, direction, name, description, priority, available, info {port.type, extra pairs},
/// profiles, device, devices {device}, profile), or a malformed one: `variant` 0 well formed,
/// 1 info's count larger than its pairs, 2 an info value that is an Int, 3 device a String,
/// 4 a Struct instead of an object, 5 a Profile object, 6 no info, 7 info not a Struct,
/// 8 devices an array of Long, 9 no device (only devices). The pod's size, or 0 when it does
/// not fit. Pure: any thread.
size_t tpw_test_route_pod(void *buffer, size_t size, int variant, const char *port_type, uint32_t direction, int32_t device,
                          uint32_t available);

/// Gets the daemon's sinks (at most the first 64) with their device's active output port, the
/// default sink's node.name (the "default"
/// metadata's default.audio.sink; "" when unset) and the id of the sink the watched stream is
/// linked to (a link from its node straight into that sink; 0xffffffff: none, e.g. while
/// PipeWire moves it), on the watcher's loop thread, after each change of one of them (a sink
/// added, removed or its properties changed, a link of the stream made or removed, the default
/// changed), the first time once the daemon's objects at start are known. The same state may
/// come again (the caller compares).
typedef void (*tpw_sinks_fn)(void *user, const tpw_sink *sinks, size_t count, const char *default_sink, uint32_t linked_sink);

typedef struct tpw_test_device tpw_test_device;

/// Tests only: exports to the daemon at `remote` (its own connection and loop thread) a device
/// (media.class Audio/Device, device.api "tutti-test", device.name `name`) implemented here, as
/// a session manager exports a sound card: one active output Route (tpw_test_route_pod's, for
/// profile device `profile_device`, port.type `port_type`, available `available`). Its global
/// id in `*global_id`. NULL with a message in `error`. Control thread.
tpw_test_device *tpw_test_device_open(const char *remote, const char *name, int32_t profile_device, const char *port_type,
                                      uint32_t available, uint32_t *global_id, char *error, size_t error_size);

/// Tests only: the device's active route switches (port.type, available), as a card's does when
/// headphones are plugged in (`port_type` NULL or "": it has no active output route, only an
/// input one, "mic", as a card with an input-only profile): its info says its Route param
/// changed (the serial bit of its flags).
void tpw_test_device_set_route(tpw_test_device *device, const char *port_type, uint32_t available);

/// Tests only: unexports the device and disconnects. NULL is ignored.
void tpw_test_device_close(tpw_test_device *device);

typedef struct tpw_watcher tpw_watcher;

/// Starts a loop thread ("tutti-pw-watch") with its own connection to the daemon at `remote`
/// (as tpw_config's remote; NULL: the default) and watches the registry: every node of media
/// class Stream/Output/Audio is bound and its info followed. Streams of this process (the
/// node's application.process.id, or its client's pipewire.sec.pid, equal to getpid()) are
/// left out. `changed` is called as tpw_watch_fn says, the first time once the daemon's
/// current streams are known (when one runs). With `sinks_changed` (may be NULL) it also
/// follows the Audio/Sink nodes (bound, for their properties), the Audio/Device objects (bound,
/// for their properties and their Route params, enumerated again whenever their info says the
/// Route param changed), the links whose
/// link.output.node is `stream_node` (the watched stream's node id, tpw_node_id;
/// 0xffffffff: none) and the "default" metadata object, and calls it as tpw_sinks_fn says.
/// NULL with a message in `error` when the library cannot be loaded or the daemon does not
/// answer. Control thread.
tpw_watcher *tpw_watch_open(const char *remote, tpw_watch_fn changed, tpw_sinks_fn sinks_changed, uint32_t stream_node,
                            void *user, char *error, size_t error_size);

/// Stops the loop thread (no callback runs after it returns), disconnects and frees
/// everything. NULL is ignored. Never from the callback.
void tpw_watch_close(tpw_watcher *watcher);

#ifdef __cplusplus
}
#endif
#endif
