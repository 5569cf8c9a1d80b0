// An MPRIS server (org.mpris.MediaPlayer2 and org.mpris.MediaPlayer2.Player on the session
// bus) for `tutti play`, with sd-bus (libsystemd.so.0) loaded at run time (dlopen): nothing
// here needs libsystemd's headers, and a binary that never serves MPRIS never needs the library.
//
// Threads: tmp_open and tmp_close on the control thread; tmp_run on the bus thread (the only
// thread that touches the bus while it runs); tmp_set_state and tmp_stop from any thread.
#ifndef TUTTI_CMPRIS_H
#define TUTTI_CMPRIS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A transport method was called (Play, Pause, PlayPause, Next, Previous, Stop): `command` is
/// the remote command it stands for ("play", "pause", "togglePlayPause", "nextTrack",
/// "previousTrack", "stop"). Called on the bus thread, before the reply is sent.
typedef void (*tmp_command_fn)(void *user, const char *command);

typedef struct tmp_server tmp_server;

/// Loads libsystemd.so.0 and its sd-bus functions once (thread-safe). 0, or -1 with a message
/// in `error` naming the library and its Debian package.
int tmp_load(char *error, size_t error_size);

/// Connects to the session bus ($DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus), or to
/// the bus at `address` (a D-Bus address, e.g. "unix:path=/run/user/1000/bus") when it is not
/// NULL, takes the name `base_name` (or, when another process owns it,
/// `base_name`.instance<PID>, which MPRIS allows) and serves /org/mpris/MediaPlayer2. The name
/// taken is copied into `name`. NULL with a message in `error` when there is no bus or no
/// name could be taken.
tmp_server *tmp_open(const char *base_name, const char *address, tmp_command_fn command, void *user, char *name,
                     size_t name_size, char *error, size_t error_size);

/// What the properties say from now on: PlaybackStatus ("Playing", "Paused" or "Stopped"),
/// the now-playing session's id (NULL or empty: none; Metadata then has the NoTrack track id
/// and no title) and Position in microseconds. A change of status or session is signalled
/// (PropertiesChanged) by the bus thread within 50 ms. Any thread.
void tmp_set_state(tmp_server *server, const char *status, const char *session, int64_t position_us);

/// Serves calls until tmp_stop (wakes at least every 50 ms to see it). 0, or a negative errno
/// when the connection failed (the server then stops serving). The bus thread.
int tmp_run(tmp_server *server);

/// Asks tmp_run to return. Any thread.
void tmp_stop(tmp_server *server);

/// Releases the name, closes the connection and frees the server (after tmp_run returned,
/// or when it never ran). The control thread.
void tmp_close(tmp_server *server);

/// The object path MPRIS's `mpris:trackid` gets for `session`:
/// /org/tutti/session/<id>, each byte of the id outside [A-Za-z0-9] written as _XX (hex);
/// an empty id gives /org/tutti/session/_. Copied into `path` (truncated to `size`). Any thread.
void tmp_track_id(const char *session, char *path, size_t size);

#ifdef __cplusplus
}
#endif

#endif
