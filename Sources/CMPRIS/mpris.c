// sd-bus (libsystemd.so.0) through dlopen/dlsym: the few declarations of <systemd/sd-bus.h>
// this file uses are repeated below (sd-bus's ABI is stable since systemd 221), so nothing is
// needed to build and nothing links libsystemd. The object is served with sd_bus_add_object
// (one callback for every call to its path: no vtables), which answers
// org.freedesktop.DBus.Properties and Introspectable itself.
#include "CMPRIS.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// ---- The declarations of <systemd/sd-bus.h> used here ----

typedef struct sd_bus sd_bus;
typedef struct sd_bus_message sd_bus_message;
typedef struct sd_bus_slot sd_bus_slot;
typedef struct {
    const char *name;
    const char *message;
    int _need_free;
} tmp_bus_error;
typedef int (*tmp_handler_t)(sd_bus_message *m, void *userdata, tmp_bus_error *ret_error);

enum { TMP_MESSAGE_METHOD_CALL = 1 };

#define TMP_FUNCTIONS(X) \
    X(int, sd_bus_open_user, (sd_bus **ret)) \
    X(int, sd_bus_new, (sd_bus **ret)) \
    X(int, sd_bus_set_address, (sd_bus *bus, const char *address)) \
    X(int, sd_bus_set_bus_client, (sd_bus *bus, int b)) \
    X(int, sd_bus_start, (sd_bus *bus)) \
    X(int, sd_bus_request_name, (sd_bus *bus, const char *name, uint64_t flags)) \
    X(int, sd_bus_release_name, (sd_bus *bus, const char *name)) \
    X(int, sd_bus_add_object, (sd_bus *bus, sd_bus_slot **slot, const char *path, tmp_handler_t callback, void *userdata)) \
    X(sd_bus_slot *, sd_bus_slot_unref, (sd_bus_slot *slot)) \
    X(int, sd_bus_process, (sd_bus *bus, sd_bus_message **r)) \
    X(int, sd_bus_wait, (sd_bus *bus, uint64_t timeout_usec)) \
    X(int, sd_bus_flush, (sd_bus *bus)) \
    X(sd_bus *, sd_bus_flush_close_unref, (sd_bus *bus)) \
    X(int, sd_bus_message_get_type, (sd_bus_message *m, uint8_t *type)) \
    X(const char *, sd_bus_message_get_interface, (sd_bus_message *m)) \
    X(const char *, sd_bus_message_get_member, (sd_bus_message *m)) \
    X(const char *, sd_bus_message_get_signature, (sd_bus_message *m, int complete)) \
    X(int, sd_bus_message_read, (sd_bus_message *m, const char *types, ...)) \
    X(int, sd_bus_reply_method_return, (sd_bus_message *call, const char *types, ...)) \
    X(int, sd_bus_reply_method_errorf, (sd_bus_message *call, const char *name, const char *format, ...)) \
    X(int, sd_bus_message_new_method_return, (sd_bus_message *call, sd_bus_message **m)) \
    X(int, sd_bus_message_new_signal, (sd_bus *bus, sd_bus_message **m, const char *path, const char *interface, const char *member)) \
    X(int, sd_bus_message_open_container, (sd_bus_message *m, char type, const char *contents)) \
    X(int, sd_bus_message_close_container, (sd_bus_message *m)) \
    X(int, sd_bus_message_append, (sd_bus_message *m, const char *types, ...)) \
    X(int, sd_bus_send, (sd_bus *bus, sd_bus_message *m, uint64_t *cookie)) \
    X(sd_bus_message *, sd_bus_message_unref, (sd_bus_message *m))

#define TMP_POINTER(ret, name, args) static ret(*p_##name) args;
TMP_FUNCTIONS(TMP_POINTER)

// ---- Loading ----

static const char *library_name = "libsystemd.so.0";
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];
static bool loaded;

static void load(void) {
    void *handle = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "%s cannot be loaded (%s): install the Debian package libsystemd0",
                 library_name, why ? why : "not found");
        return;
    }
#define TMP_LOAD(ret, name, args) \
    p_##name = (ret(*) args)dlsym(handle, #name); \
    if (!p_##name) { \
        snprintf(load_error, sizeof load_error, "%s has no %s: systemd 221 or newer is needed", library_name, #name); \
        return; \
    }
    TMP_FUNCTIONS(TMP_LOAD)
    loaded = true;
}

static void copy(char *to, size_t size, const char *text) {
    if (to && size > 0) snprintf(to, size, "%s", text ? text : "");
}

int tmp_load(char *error, size_t error_size) {
    pthread_once(&load_once, load);
    if (loaded) return 0;
    copy(error, error_size, load_error);
    return -1;
}

// ---- The server ----

static const char *object_path = "/org/mpris/MediaPlayer2";
static const char *root_interface = "org.mpris.MediaPlayer2";
static const char *player_interface = "org.mpris.MediaPlayer2.Player";
static const char *properties_interface = "org.freedesktop.DBus.Properties";
static const char *no_track = "/org/mpris/MediaPlayer2/TrackList/NoTrack";

struct tmp_server {
    sd_bus *bus;
    sd_bus_slot *slot;
    char name[256];
    tmp_command_fn command;
    void *user;
    atomic_bool stop;
    pthread_mutex_t lock;
    // Under `lock`: what the properties say; `generation` counts the changes of status or
    // session (the bus thread signals when it differs from `signalled`).
    char status[16];
    char session[256];
    int64_t position_us;
    uint64_t generation;
    uint64_t signalled; // bus thread only
};

void tmp_track_id(const char *session, char *path, size_t size) {
    static const char prefix[] = "/org/tutti/session/";
    static const char hex[] = "0123456789ABCDEF";
    if (!path || size == 0) return;
    size_t n = 0;
    for (const char *p = prefix; *p && n + 1 < size; p++) path[n++] = *p;
    if (!session || !*session) {
        if (n + 1 < size) path[n++] = '_';
    }
    for (const unsigned char *s = (const unsigned char *)session; s && *s; s++) {
        unsigned char c = *s;
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (plain) {
            if (n + 1 >= size) break;
            path[n++] = (char)c;
        } else {
            if (n + 3 >= size) break;
            path[n++] = '_';
            path[n++] = hex[c >> 4];
            path[n++] = hex[c & 15];
        }
    }
    path[n] = 0;
}

/// A snapshot of the state, taken under the lock.
typedef struct {
    char status[16];
    char session[256];
    int64_t position_us;
} snapshot;

static snapshot take(tmp_server *s) {
    snapshot v;
    pthread_mutex_lock(&s->lock);
    memcpy(v.status, s->status, sizeof v.status);
    memcpy(v.session, s->session, sizeof v.session);
    v.position_us = s->position_us;
    pthread_mutex_unlock(&s->lock);
    return v;
}

static int append_metadata(sd_bus_message *m, const snapshot *v) {
    char track[512];
    if (v->session[0]) tmp_track_id(v->session, track, sizeof track);
    else copy(track, sizeof track, no_track);
    int r = p_sd_bus_message_open_container(m, 'a', "{sv}");
    if (r < 0) return r;
    r = p_sd_bus_message_append(m, "{sv}", "mpris:trackid", "o", track);
    if (r < 0) return r;
    if (v->session[0]) {
        r = p_sd_bus_message_append(m, "{sv}", "xesam:title", "s", v->session);
        if (r < 0) return r;
    }
    return p_sd_bus_message_close_container(m);
}

/// Appends property `name` of `interface` as a variant: 1, 0 when there is no such property,
/// or a negative errno.
static int append_property(sd_bus_message *m, const char *interface, const char *name, const snapshot *v) {
    int r;
    if (strcmp(interface, root_interface) == 0) {
        if (strcmp(name, "Identity") == 0) r = p_sd_bus_message_append(m, "v", "s", "Tutti");
        else if (strcmp(name, "CanQuit") == 0 || strcmp(name, "CanRaise") == 0 || strcmp(name, "HasTrackList") == 0)
            r = p_sd_bus_message_append(m, "v", "b", 0);
        else if (strcmp(name, "SupportedUriSchemes") == 0 || strcmp(name, "SupportedMimeTypes") == 0)
            r = p_sd_bus_message_append(m, "v", "as", 0);
        else return 0;
        return r < 0 ? r : 1;
    }
    if (strcmp(interface, player_interface) != 0) return 0;
    if (strcmp(name, "PlaybackStatus") == 0) r = p_sd_bus_message_append(m, "v", "s", v->status);
    else if (strcmp(name, "Rate") == 0 || strcmp(name, "MinimumRate") == 0 || strcmp(name, "MaximumRate") == 0)
        r = p_sd_bus_message_append(m, "v", "d", 1.0);
    else if (strcmp(name, "Position") == 0) r = p_sd_bus_message_append(m, "v", "x", v->position_us);
    else if (strcmp(name, "CanControl") == 0 || strcmp(name, "CanPlay") == 0 || strcmp(name, "CanPause") == 0 ||
             strcmp(name, "CanGoNext") == 0 || strcmp(name, "CanGoPrevious") == 0)
        r = p_sd_bus_message_append(m, "v", "b", 1);
    else if (strcmp(name, "CanSeek") == 0) r = p_sd_bus_message_append(m, "v", "b", 0);
    else if (strcmp(name, "Metadata") == 0) {
        r = p_sd_bus_message_open_container(m, 'v', "a{sv}");
        if (r >= 0) r = append_metadata(m, v);
        if (r >= 0) r = p_sd_bus_message_close_container(m);
    } else return 0;
    return r < 0 ? r : 1;
}

static const char *const root_properties[] = {"Identity", "CanQuit", "CanRaise", "HasTrackList", "SupportedUriSchemes",
                                              "SupportedMimeTypes", NULL};
static const char *const player_properties[] = {"PlaybackStatus", "Rate", "MinimumRate", "MaximumRate", "Metadata",
                                                "Position", "CanGoNext", "CanGoPrevious", "CanPlay", "CanPause",
                                                "CanSeek", "CanControl", NULL};

static int append_all(sd_bus_message *m, const char *interface, const char *const *names, const snapshot *v) {
    int r = p_sd_bus_message_open_container(m, 'a', "{sv}");
    for (; r >= 0 && *names; names++) {
        r = p_sd_bus_message_open_container(m, 'e', "sv");
        if (r >= 0) r = p_sd_bus_message_append(m, "s", *names);
        if (r >= 0) r = append_property(m, interface, *names, v);
        if (r >= 0) r = p_sd_bus_message_close_container(m);
    }
    if (r >= 0) r = p_sd_bus_message_close_container(m);
    return r;
}

static const char introspection[] =
    "<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\"\n"
    " \"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd\">\n"
    "<node>\n"
    " <interface name=\"org.freedesktop.DBus.Introspectable\">\n"
    "  <method name=\"Introspect\"><arg name=\"xml\" type=\"s\" direction=\"out\"/></method>\n"
    " </interface>\n"
    " <interface name=\"org.freedesktop.DBus.Properties\">\n"
    "  <method name=\"Get\"><arg type=\"s\" direction=\"in\"/><arg type=\"s\" direction=\"in\"/>"
    "<arg type=\"v\" direction=\"out\"/></method>\n"
    "  <method name=\"GetAll\"><arg type=\"s\" direction=\"in\"/><arg type=\"a{sv}\" direction=\"out\"/></method>\n"
    "  <method name=\"Set\"><arg type=\"s\" direction=\"in\"/><arg type=\"s\" direction=\"in\"/>"
    "<arg type=\"v\" direction=\"in\"/></method>\n"
    "  <signal name=\"PropertiesChanged\"><arg type=\"s\"/><arg type=\"a{sv}\"/><arg type=\"as\"/></signal>\n"
    " </interface>\n"
    " <interface name=\"org.mpris.MediaPlayer2\">\n"
    "  <method name=\"Raise\"/><method name=\"Quit\"/>\n"
    "  <property name=\"Identity\" type=\"s\" access=\"read\"/>\n"
    "  <property name=\"CanQuit\" type=\"b\" access=\"read\"/>\n"
    "  <property name=\"CanRaise\" type=\"b\" access=\"read\"/>\n"
    "  <property name=\"HasTrackList\" type=\"b\" access=\"read\"/>\n"
    "  <property name=\"SupportedUriSchemes\" type=\"as\" access=\"read\"/>\n"
    "  <property name=\"SupportedMimeTypes\" type=\"as\" access=\"read\"/>\n"
    " </interface>\n"
    " <interface name=\"org.mpris.MediaPlayer2.Player\">\n"
    "  <method name=\"Play\"/><method name=\"Pause\"/><method name=\"PlayPause\"/><method name=\"Stop\"/>\n"
    "  <method name=\"Next\"/><method name=\"Previous\"/>\n"
    "  <method name=\"Seek\"><arg name=\"Offset\" type=\"x\" direction=\"in\"/></method>\n"
    "  <method name=\"SetPosition\"><arg name=\"TrackId\" type=\"o\" direction=\"in\"/>"
    "<arg name=\"Position\" type=\"x\" direction=\"in\"/></method>\n"
    "  <method name=\"OpenUri\"><arg name=\"Uri\" type=\"s\" direction=\"in\"/></method>\n"
    "  <signal name=\"Seeked\"><arg name=\"Position\" type=\"x\"/></signal>\n"
    "  <property name=\"PlaybackStatus\" type=\"s\" access=\"read\"/>\n"
    "  <property name=\"Rate\" type=\"d\" access=\"read\"/>\n"
    "  <property name=\"MinimumRate\" type=\"d\" access=\"read\"/>\n"
    "  <property name=\"MaximumRate\" type=\"d\" access=\"read\"/>\n"
    "  <property name=\"Metadata\" type=\"a{sv}\" access=\"read\"/>\n"
    "  <property name=\"Position\" type=\"x\" access=\"read\"/>\n"
    "  <property name=\"CanGoNext\" type=\"b\" access=\"read\"/>\n"
    "  <property name=\"CanGoPrevious\" type=\"b\" access=\"read\"/>\n"
    "  <property name=\"CanPlay\" type=\"b\" access=\"read\"/>\n"
    "  <property name=\"CanPause\" type=\"b\" access=\"read\"/>\n"
    "  <property name=\"CanSeek\" type=\"b\" access=\"read\"/>\n"
    "  <property name=\"CanControl\" type=\"b\" access=\"read\"/>\n"
    " </interface>\n"
    "</node>\n";

static const char *const error_invalid_args = "org.freedesktop.DBus.Error.InvalidArgs";
static const char *const error_unknown_method = "org.freedesktop.DBus.Error.UnknownMethod";
static const char *const error_unknown_interface = "org.freedesktop.DBus.Error.UnknownInterface";
static const char *const error_unknown_property = "org.freedesktop.DBus.Error.UnknownProperty";
static const char *const error_read_only = "org.freedesktop.DBus.Error.PropertyReadOnly";
static const char *const error_not_supported = "org.freedesktop.DBus.Error.NotSupported";

/// A known interface of the object (the property interfaces: MPRIS's two).
static bool is_mpris_interface(const char *interface) {
    return strcmp(interface, root_interface) == 0 || strcmp(interface, player_interface) == 0;
}

static int properties_call(tmp_server *s, sd_bus_message *m, const char *member, const char *signature) {
    const char *interface = NULL, *name = NULL;
    snapshot v = take(s);
    sd_bus_message *reply = NULL;
    int r;
    if (strcmp(member, "Get") == 0) {
        if (strcmp(signature, "ss") != 0 || p_sd_bus_message_read(m, "ss", &interface, &name) < 0)
            return p_sd_bus_reply_method_errorf(m, error_invalid_args, "Get takes (ss), got (%s)", signature);
        if (!is_mpris_interface(interface))
            return p_sd_bus_reply_method_errorf(m, error_unknown_interface, "no interface %s here", interface);
        r = p_sd_bus_message_new_method_return(m, &reply);
        if (r < 0) return r;
        r = append_property(reply, interface, name, &v);
        if (r == 0) {
            p_sd_bus_message_unref(reply);
            return p_sd_bus_reply_method_errorf(m, error_unknown_property, "%s has no property %s", interface, name);
        }
    } else if (strcmp(member, "GetAll") == 0) {
        if (strcmp(signature, "s") != 0 || p_sd_bus_message_read(m, "s", &interface) < 0)
            return p_sd_bus_reply_method_errorf(m, error_invalid_args, "GetAll takes (s), got (%s)", signature);
        if (!is_mpris_interface(interface))
            return p_sd_bus_reply_method_errorf(m, error_unknown_interface, "no interface %s here", interface);
        r = p_sd_bus_message_new_method_return(m, &reply);
        if (r < 0) return r;
        bool root = strcmp(interface, root_interface) == 0;
        r = append_all(reply, interface, root ? root_properties : player_properties, &v);
    } else if (strcmp(member, "Set") == 0) {
        if (strcmp(signature, "ssv") != 0 || p_sd_bus_message_read(m, "ss", &interface, &name) < 0)
            return p_sd_bus_reply_method_errorf(m, error_invalid_args, "Set takes (ssv), got (%s)", signature);
        if (!is_mpris_interface(interface))
            return p_sd_bus_reply_method_errorf(m, error_unknown_interface, "no interface %s here", interface);
        // Every property served is read-only (Volume, LoopStatus, Shuffle are not served).
        r = p_sd_bus_message_new_method_return(m, &reply);
        if (r < 0) return r;
        int known = append_property(reply, interface, name, &v);
        p_sd_bus_message_unref(reply);
        if (known > 0) return p_sd_bus_reply_method_errorf(m, error_read_only, "%s.%s is read-only", interface, name);
        return p_sd_bus_reply_method_errorf(m, error_unknown_property, "%s has no property %s", interface, name);
    } else {
        return p_sd_bus_reply_method_errorf(m, error_unknown_method, "%s has no method %s", properties_interface, member);
    }
    if (r >= 0) r = p_sd_bus_send(NULL, reply, NULL);
    p_sd_bus_message_unref(reply);
    return r;
}

/// The remote command of a Player method, NULL: not a transport method.
static const char *remote_command(const char *member) {
    static const char *const pairs[][2] = {
        {"Play", "play"}, {"Pause", "pause"}, {"PlayPause", "togglePlayPause"},
        {"Next", "nextTrack"}, {"Previous", "previousTrack"}, {"Stop", "stop"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (strcmp(member, pairs[i][0]) == 0) return pairs[i][1];
    return NULL;
}

static int handle(sd_bus_message *m, void *userdata, tmp_bus_error *ret_error) {
    (void)ret_error;
    tmp_server *s = userdata;
    uint8_t type = 0;
    if (p_sd_bus_message_get_type(m, &type) < 0 || type != TMP_MESSAGE_METHOD_CALL) return 0;
    const char *interface = p_sd_bus_message_get_interface(m);
    const char *member = p_sd_bus_message_get_member(m);
    const char *signature = p_sd_bus_message_get_signature(m, 1);
    if (!member) return 0;
    if (!signature) signature = "";
    int r;
    if (interface && strcmp(interface, properties_interface) == 0) {
        r = properties_call(s, m, member, signature);
    } else if (interface && strcmp(interface, "org.freedesktop.DBus.Introspectable") == 0) {
        if (strcmp(member, "Introspect") != 0)
            r = p_sd_bus_reply_method_errorf(m, error_unknown_method, "no method %s", member);
        else r = p_sd_bus_reply_method_return(m, "s", introspection);
    } else if (interface && strcmp(interface, "org.freedesktop.DBus.Peer") == 0) {
        return 0; // sd-bus answers Ping and GetMachineId itself
    } else if (interface && !is_mpris_interface(interface)) {
        r = p_sd_bus_reply_method_errorf(m, error_unknown_interface, "no interface %s here", interface);
    } else {
        bool root = interface && strcmp(interface, root_interface) == 0;
        bool player = !interface || strcmp(interface, player_interface) == 0;
        const char *command = player ? remote_command(member) : NULL;
        bool root_method = (root || !interface) && (strcmp(member, "Raise") == 0 || strcmp(member, "Quit") == 0);
        bool unsupported = player && (strcmp(member, "Seek") == 0 || strcmp(member, "SetPosition") == 0 ||
                                      strcmp(member, "OpenUri") == 0);
        if (command || root_method) {
            if (signature[0]) {
                r = p_sd_bus_reply_method_errorf(m, error_invalid_args, "%s takes no arguments, got (%s)", member, signature);
            } else {
                // Raise and Quit: CanRaise and CanQuit are false, so they do nothing.
                if (command && s->command) s->command(s->user, command);
                r = p_sd_bus_reply_method_return(m, "");
            }
        } else if (unsupported) {
            r = p_sd_bus_reply_method_errorf(m, error_not_supported, "%s: tutti cannot seek or open URIs (CanSeek is false)",
                                             member);
        } else {
            r = p_sd_bus_reply_method_errorf(m, error_unknown_method, "%s has no method %s",
                                             interface ? interface : "the object", member);
        }
    }
    return r < 0 ? r : 1;
}

static int try_name(sd_bus *bus, const char *name) { return p_sd_bus_request_name(bus, name, 0); }

/* A bus connection: the user's session bus, or the bus at `address` (a D-Bus address). */
static int open_bus(const char *address, sd_bus **bus) {
    if (!address) return p_sd_bus_open_user(bus);
    int r = p_sd_bus_new(bus);
    if (r < 0) return r;
    if ((r = p_sd_bus_set_address(*bus, address)) < 0 || (r = p_sd_bus_set_bus_client(*bus, 1)) < 0 ||
        (r = p_sd_bus_start(*bus)) < 0) {
        p_sd_bus_flush_close_unref(*bus);
        *bus = NULL;
    }
    return r;
}

tmp_server *tmp_open(const char *base_name, const char *address, tmp_command_fn command, void *user, char *name,
                     size_t name_size, char *error, size_t error_size) {
    if (tmp_load(error, error_size) != 0) return NULL;
    tmp_server *s = calloc(1, sizeof *s);
    if (!s) {
        copy(error, error_size, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&s->lock, NULL);
    s->command = command;
    s->user = user;
    copy(s->status, sizeof s->status, "Stopped");
    int r = open_bus(address, &s->bus);
    if (r < 0) {
        if (address) snprintf(error, error_size, "no D-Bus bus answers at %s (%s)", address, strerror(-r));
        else snprintf(error, error_size, "no session bus (%s)", strerror(-r));
        s->bus = NULL;
        tmp_close(s);
        return NULL;
    }
    copy(s->name, sizeof s->name, base_name);
    r = try_name(s->bus, s->name);
    if (r == -EEXIST || r == -EALREADY) {
        snprintf(s->name, sizeof s->name, "%s.instance%ld", base_name, (long)getpid());
        r = try_name(s->bus, s->name);
    }
    if (r < 0) {
        // sd_bus_open_user connects lazily: a bus that does not answer shows up here.
        if (r == -EEXIST || r == -EALREADY)
            snprintf(error, error_size, "the names %s and %s are taken on the session bus", base_name, s->name);
        else snprintf(error, error_size, "no session bus (%s)", strerror(-r));
        s->name[0] = 0;
        tmp_close(s);
        return NULL;
    }
    r = p_sd_bus_add_object(s->bus, &s->slot, object_path, handle, s);
    if (r < 0) {
        snprintf(error, error_size, "cannot serve %s (%s)", object_path, strerror(-r));
        tmp_close(s);
        return NULL;
    }
    copy(name, name_size, s->name);
    return s;
}

void tmp_set_state(tmp_server *s, const char *status, const char *session, int64_t position_us) {
    pthread_mutex_lock(&s->lock);
    const char *new_session = session ? session : "";
    if (strcmp(s->status, status) != 0 || strncmp(s->session, new_session, sizeof s->session - 1) != 0) s->generation++;
    copy(s->status, sizeof s->status, status);
    copy(s->session, sizeof s->session, new_session);
    s->position_us = position_us;
    pthread_mutex_unlock(&s->lock);
}

/// PropertiesChanged for the Player's PlaybackStatus and Metadata, when they changed.
static int signal_changes(tmp_server *s) {
    pthread_mutex_lock(&s->lock);
    uint64_t generation = s->generation;
    pthread_mutex_unlock(&s->lock);
    if (generation == s->signalled) return 0;
    snapshot v = take(s);
    sd_bus_message *m = NULL;
    int r = p_sd_bus_message_new_signal(s->bus, &m, object_path, properties_interface, "PropertiesChanged");
    if (r < 0) return r;
    r = p_sd_bus_message_append(m, "s", player_interface);
    if (r >= 0) r = p_sd_bus_message_open_container(m, 'a', "{sv}");
    static const char *const changed[] = {"PlaybackStatus", "Metadata", NULL};
    for (const char *const *name = changed; r >= 0 && *name; name++) {
        r = p_sd_bus_message_open_container(m, 'e', "sv");
        if (r >= 0) r = p_sd_bus_message_append(m, "s", *name);
        if (r >= 0) r = append_property(m, player_interface, *name, &v);
        if (r >= 0) r = p_sd_bus_message_close_container(m);
    }
    if (r >= 0) r = p_sd_bus_message_close_container(m);
    if (r >= 0) r = p_sd_bus_message_append(m, "as", 0);
    if (r >= 0) r = p_sd_bus_send(s->bus, m, NULL);
    p_sd_bus_message_unref(m);
    if (r >= 0) s->signalled = generation;
    return r;
}

int tmp_run(tmp_server *s) {
    while (!atomic_load(&s->stop)) {
        int r = p_sd_bus_process(s->bus, NULL);
        if (r < 0) return r;
        if (r > 0) continue;
        r = signal_changes(s);
        if (r < 0) return r;
        r = p_sd_bus_wait(s->bus, 50000);
        if (r < 0 && r != -EINTR) return r;
    }
    return 0;
}

void tmp_stop(tmp_server *s) { atomic_store(&s->stop, true); }

void tmp_close(tmp_server *s) {
    if (!s) return;
    if (s->slot) p_sd_bus_slot_unref(s->slot);
    if (s->bus) {
        if (s->name[0]) p_sd_bus_release_name(s->bus, s->name);
        p_sd_bus_flush_close_unref(s->bus);
    }
    pthread_mutex_destroy(&s->lock);
    free(s);
}
