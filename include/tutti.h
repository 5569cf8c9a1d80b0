/*
 * tutti.h — the C ABI of Tutti, a real-time audio mixing engine with a phone-style audio
 * policy (categories, interruptions, ducking, silent switch, volumes, routes, remote
 * commands). Link with `pkg-config --cflags --libs tutti`. The library needs libsndfile,
 * libsamplerate and libsoxr; it does not link alsa-lib or libjack: an output opens the one
 * its backend needs (libasound.so.2, libjack.so.0) when it starts.
 *
 * This header is the contract of the C ABI; the C tests (Tests/C) check its promises. The
 * behaviour behind it is the Swift API's (`import Tutti`), which this ABI translates; the
 * policy is specified in docs/policy.md, scenes in docs/scene-format.md.
 *
 * Conventions
 * - Every function returns a tutti_result unless its comment says otherwise: TUTTI_OK (0) or
 *   a negative TUTTI_ERROR_* code. After a failure, tutti_last_error() names the argument,
 *   file or object and says what was wrong. A failing call changes nothing.
 * - Pointer arguments must not be NULL unless a comment says otherwise (NULL is
 *   TUTTI_ERROR_INVALID_ARGUMENT). Boolean `int` arguments: 0 is false, anything else true.
 *   Strings are NUL-terminated UTF-8 (anything else is TUTTI_ERROR_INVALID_ARGUMENT).
 * - Nothing the library returns needs freeing. Strings it returns are static, except
 *   tutti_last_error()'s (see there).
 * - Ids (tutti_session, tutti_source) carry a generation: once their object is destroyed,
 *   every call with them returns TUTTI_ERROR_NOT_FOUND; they never reach another object of
 *   the same engine. 0 is never a valid id. (Ids are per engine: an id of one engine may
 *   name an object of another.)
 * - Time: tutti_frame counts frames on the engine's clock at the engine's sample rate, 0 being
 *   the first frame ever rendered. Every call that changes sound takes `at`: the change
 *   happens exactly at that frame. TUTTI_NOW means the first frame of the next block
 *   rendered; a NOW change never waits behind changes scheduled for later frames; changes
 *   for the same frame apply in the order they were made; a frame already rendered counts as
 *   NOW; a frame below -1 is TUTTI_ERROR_INVALID_ARGUMENT. All frame counts and positions are
 *   at the engine's rate, except the frames written to a stream source (its own rate).
 * - Threads: every function may be called from any thread except the real-time one; calls
 *   on one engine are serialised inside the library. The real-time functions (no
 *   allocation, lock, blocking or system call when they succeed) are tutti_engine_render()
 *   and tutti_engine_render_output_buses() (one rendering thread at a time), and the calls a host
 *   makes from its own audio threads: tutti_stream_write() (one producer per source) and
 *   tutti_source_get_status(), which bypass the engine's lock. No user code is ever called
 *   on the real-time thread. An engine must not be destroyed while another thread
 *   is inside a call on it.
 * - Structs the caller fills start with `uint32_t struct_size`; their `..._init()` sets the
 *   defaults and struct_size (a macro passing the struct's sizeof to `..._init_size()`, so
 *   it never writes past the caller's struct, whichever library it runs with). Each released
 *   layout is accepted at its sizeof. A struct_size smaller than the first released layout, or
 *   larger than TUTTI_MAX_STRUCT_SIZE, is TUTTI_ERROR_VERSION; a larger one (a caller built
 *   against a newer tutti.h) is accepted and only the fields this library knows are read or
 *   written.
 */
#ifndef TUTTI_H
#define TUTTI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------
 * Versions
 * ---------------------------------------------------------------------------------------- */

#define TUTTI_VERSION_MAJOR 0
#define TUTTI_VERSION_MINOR 2
#define TUTTI_VERSION_PATCH 0
/* The soname's number (libtutti.so.1): raised whenever a released signature or struct layout
 * changes. */
#define TUTTI_ABI_VERSION 1
/* TUTTI_VERSION_MAJOR << 16 | TUTTI_VERSION_MINOR << 8 | TUTTI_VERSION_PATCH. */
#define TUTTI_VERSION ((TUTTI_VERSION_MAJOR << 16) | (TUTTI_VERSION_MINOR << 8) | TUTTI_VERSION_PATCH)
/* The largest struct_size any caller may pass (see Conventions). */
#define TUTTI_MAX_STRUCT_SIZE 4096u

/* The library's version: major << 16 | minor << 8 | patch (compare with TUTTI_VERSION to
 * detect a library older than the header). Any thread. */
uint32_t tutti_version(void);
/* The library's version as "MAJOR.MINOR.PATCH" (static). Any thread. */
const char *tutti_version_string(void);
/* The library's ABI version, the soname's number (compare with TUTTI_ABI_VERSION). Any thread. */
uint32_t tutti_abi_version(void);

/* ------------------------------------------------------------------------------------------
 * Results and errors
 * ---------------------------------------------------------------------------------------- */

/* A result code: TUTTI_OK or a TUTTI_ERROR_* (negative). */
typedef int32_t tutti_result;
enum {
    TUTTI_OK = 0,
    /* A NULL pointer, NaN, infinity, an out-of-range value or an unknown enum value or bit. */
    TUTTI_ERROR_INVALID_ARGUMENT = -1,
    /* An unknown or stale id: the object was destroyed, or never existed. */
    TUTTI_ERROR_NOT_FOUND = -2,
    /* A file cannot be read (missing, unreadable, a directory, a FIFO, not a regular file). */
    TUTTI_ERROR_IO = -3,
    /* A file's content is bad (not audio, more than 2 channels, too long to hold). */
    TUTTI_ERROR_FORMAT = -4,
    /* A configured maximum is reached (sources, sessions, commands waiting to be rendered). */
    TUTTI_ERROR_CAPACITY = -5,
    /* The policy refuses (activation during a phone call; a background session whose
     * activation would interrupt one that plays). tutti_last_error() says why. */
    TUTTI_ERROR_DENIED = -6,
    /* Not valid now (pull render while an output runs; an output already running; seeking a
     * stream). */
    TUTTI_ERROR_STATE = -7,
    /* An output backend cannot be opened or failed (or is not built in, or its library is not
     * installed: the message names the package). */
    TUTTI_ERROR_DEVICE = -8,
    /* A struct_size this library does not know. */
    TUTTI_ERROR_VERSION = -9
};

/* The name of a result code without its prefix ("OK", "INVALID_ARGUMENT", ..., "UNKNOWN" for
 * a value that is no code). Static. Any thread. */
const char *tutti_result_string(tutti_result result);
/* What went wrong in the last failing call on the calling thread (e.g. "tutti_source_set_gain:
 * gain must be finite and in [0, 16], got nan", or a file path and libsndfile's reason); ""
 * if no call has failed on this thread. Never NULL. Valid until the next failing call on the
 * same thread (successful calls leave it alone); do not free it. Any thread, the real-time
 * one included. */
const char *tutti_last_error(void);

/* ------------------------------------------------------------------------------------------
 * Ids and time
 * ---------------------------------------------------------------------------------------- */

/* A session of an engine; 0 is never valid. */
typedef uint64_t tutti_session;
/* A source of an engine; 0 is never valid. */
typedef uint64_t tutti_source;
/* Frames on the engine's clock at the engine's sample rate (0 = the first rendered frame). */
typedef int64_t tutti_frame;
/* `at` for "the first frame of the next block rendered". */
#define TUTTI_NOW ((tutti_frame)-1)

/* ------------------------------------------------------------------------------------------
 * Engine
 * ---------------------------------------------------------------------------------------- */

/* An engine (opaque). Created by tutti_engine_create, freed by tutti_engine_destroy. */
typedef struct tutti_engine tutti_engine;

/* Settings of an engine, fixed at creation. Fill with tutti_engine_config_init first. */
typedef struct tutti_engine_config {
    uint32_t struct_size;
    uint32_t sample_rate;            /* Hz, 8000..384000; default 48000 */
    uint32_t channels;               /* output channels, 1 or 2; default 2 */
    uint32_t max_block_frames;       /* 16..65536; longer renders are split; default 4096 */
    uint32_t max_sources;            /* 1..65536; default 512 (a destroyed source counts until
                                        rendering has passed its destruction) */
    uint32_t max_sessions;           /* 1..65534; default 64 (likewise) */
    uint32_t command_queue_capacity; /* changes that may wait for the render side at once,
                                        16..1048576; beyond it calls fail with
                                        TUTTI_ERROR_CAPACITY until rendering catches up;
                                        a policy action first makes room for a command per
                                        session and source, so keep it above sessions +
                                        sources + 4; default 4096 */
    /* Fields below were added after the first release: a struct_size of the first layout
     * (offsetof(tutti_engine_config, route_count)) reads them as their defaults (main alone);
     * a size between the two layouts is TUTTI_ERROR_VERSION. */
    /* Output buses: named output mixes (main, a DJ's cue, ...), not the device route
     * (tutti_route). The two fields keep their first names, route_count and route_names: C99
     * has no anonymous union to give them a second one, and renaming them would break every
     * host's source. Read them as output_bus_count and output_bus_names. */
    uint32_t route_count;            /* output buses, 1..8 (TUTTI_MAX_OUTPUT_BUSES); default 1 (main) */
    const char *const *route_names;  /* route_count UTF-8 output bus names, route_names[0] "main",
                                        distinct; NULL when route_count is 1; copied at create */
    /* Fields below were added with the limiter: a struct_size ending at route_names (the
     * second layout, offsetof(tutti_engine_config, limiter_enabled)) reads them as their
     * defaults (no limiter); a size between two layouts is TUTTI_ERROR_VERSION. */
    int32_t limiter_enabled;          /* nonzero: a peak limiter on every output bus, the last
                                         stage (after the system volume); default 0 (none) */
    float limiter_ceiling_db;         /* dBFS, -60..0: no output sample exceeds it; output at
                                         rest below it is unchanged bit for bit; default -1 */
    float limiter_release_seconds;    /* 0..10, the gain's recovery time constant; default 0.1 */
    float limiter_lookahead_seconds;  /* 0..0.1; default 0 (no latency); more delays the output
                                         by that much (the gain glides down before a peak) */
    /* Added with the policy's focus rules: a struct_size ending at limiter_lookahead_seconds
     * (the third layout, offsetof(tutti_engine_config, loss_fade_seconds)) reads it as its
     * default; a size between two layouts is TUTTI_ERROR_VERSION. */
    float loss_fade_seconds;          /* 0..10: a session interrupted or silenced by another's
                                         activation fades out over this long before it pauses
                                         (its sources advance meanwhile); default 0, the gate's
                                         usual 20 ms ramp (docs/policy.md) */
    /* Added with offline rendering and the C ducking settings: a struct_size ending at
     * loss_fade_seconds (the fourth layout, offsetof(tutti_engine_config, flags)) reads these
     * as their defaults. */
    uint32_t flags;                   /* TUTTI_ENGINE_* bits; default 0 */
    float ducking_level_db;           /* the engine's duck envelope, when no ducking rule and no
                                         session setting applies: level -96..0 dB (default -15), */
    float ducking_attack_seconds;     /* attack 0..3600 s (default 0.1), */
    float ducking_release_seconds;    /* release 0..3600 s (default 0.4) */
    /* Added with the C master stage: a struct_size ending at ducking_release_seconds (the
     * fifth layout, offsetof(tutti_engine_config, master_effects_enabled), its sizeof) reads
     * these as their defaults (no master stage); a size between two layouts is
     * TUTTI_ERROR_VERSION. */
    int32_t master_effects_enabled;   /* nonzero: a master stage, the effect chain below (empty
                                         will do) on the main route's mix of every session
                                         (system sounds, the ringer class, bypass it), before
                                         the system volume and the limiter; it also takes a
                                         host effect (tutti_master_set_effect). Default 0: no
                                         master stage, the render is what it was without one */
    uint32_t master_effect_count;     /* effects in master_effects (0: an empty chain); default 0 */
    const struct tutti_effect *master_effects; /* master_effect_count effects in order (see
                                         tutti_effect; checked as tutti_session_set_effects
                                         checks them, errors naming config->master_effects[i]
                                         and its field); NULL when the count is 0; copied at
                                         create. Read only when master_effects_enabled */
    /* Added with the resampler choice: a struct_size ending at master_effects (the sixth
     * layout, offsetof(tutti_engine_config, file_quality), its sizeof) reads these as their
     * defaults; a size between two layouts is TUTTI_ERROR_VERSION. */
    int32_t file_quality;             /* TUTTI_QUALITY_*: the converter of file and buffer sources whose
                                         flags carry no TUTTI_SOURCE_QUALITY (off the render thread,
                                         at load or on the file worker); default TUTTI_QUALITY_SOXR_HQ,
                                         the fastest with >= 120 dB SNR (docs/performance.md);
                                         TUTTI_QUALITY_DEFAULT (0) is that default too */
    int32_t stream_quality;           /* the converter of stream sources at another rate than the
                                         engine's (on the render thread): TUTTI_QUALITY_SINC_BEST ..
                                         TUTTI_QUALITY_ZERO_ORDER_HOLD, libsamplerate's; default
                                         TUTTI_QUALITY_SINC_MEDIUM (TUTTI_QUALITY_DEFAULT, 0, too);
                                         the libsoxr ones convert files, not live streams:
                                         INVALID_ARGUMENT */
} tutti_engine_config;

/* tutti_engine_config.flags: pull rendering waits for streaming file sources (files over
 * 10 s are read by a worker thread) instead of playing silence where their data is late, so
 * a render as fast as the CPU allows gives the same bytes on every run. For offline hosts
 * (rendering to a file): tutti_engine_render may then block, and is not real-time safe. */
#define TUTTI_ENGINE_OFFLINE 1u

/* The most output buses an engine may have (bus 0 is "main"). */
#define TUTTI_MAX_OUTPUT_BUSES 8u
/* Deprecated: TUTTI_MAX_OUTPUT_BUSES (the same value, kept for one release). */
#define TUTTI_MAX_ROUTES 8u

/* Sets the defaults and struct_size. NULL is ignored. Any thread. */
void tutti_engine_config_init(tutti_engine_config *config);
/* The same for a struct of `size` bytes (the caller's sizeof): writes the defaults of the
 * fields that fit, never a byte past `size`, and sets struct_size to the size this library
 * fills (the smaller of `size` and its own). Any thread. */
void tutti_engine_config_init_size(tutti_engine_config *config, uint32_t size);
/* Calls go through this macro, so the size is the sizeof of the header the caller was built
 * with. The exported tutti_engine_config_init symbol (binaries built against an earlier tutti.h call it)
 * writes the layout it wrote when the sized call came, never more. */
#define tutti_engine_config_init(config) tutti_engine_config_init_size((config), (uint32_t)sizeof(tutti_engine_config))
/* Creates an engine: every buffer, slot and queue is allocated now. *out is set on success
 * only. INVALID_ARGUMENT names a setting out of range. Any thread. */
tutti_result tutti_engine_create(const tutti_engine_config *config, tutti_engine **out);
/* Stops the engine's output if one runs (before returning) and frees the engine: its ids
 * are gone, its event fd is closed (at once, or right after the library's event thread
 * finishes a delivery in progress). NULL is a no-op. No other thread may be inside a call on
 * the engine. Any thread. */
void tutti_engine_destroy(tutti_engine *engine);
/* Pull mode, for a host's own audio callback: renders the next `frames` frames (any count,
 * split internally) into `interleaved` (frames * channels floats), applying every change due
 * in them at its frame. frames 0 is a no-op. TUTTI_ERROR_STATE (and silence written) while an
 * output runs or another thread is rendering. Real-time safe: no allocation, lock, blocking
 * or system call, on success or failure — unless the engine was created with
 * TUTTI_ENGINE_OFFLINE, when it waits for late file data instead. One thread at a time. */
tutti_result tutti_engine_render(tutti_engine *engine, float *interleaved, uint32_t frames);
/* Pull mode for every output bus at once: renders the next `frames` frames of output bus b
 * (route_names[b] of the config, 0 = main) into outputs[b] (frames * channels interleaved
 * floats each) for b below bus_count, which must be 1..the engine's output bus count (buses
 * past it are mixed and dropped). Otherwise the same as tutti_engine_render: real-time safe,
 * STATE (and silence in every buffer) while an output runs or another thread renders,
 * INVALID_ARGUMENT for a NULL pointer or a bad bus_count. One thread at a time. (An
 * addition.) */
tutti_result tutti_engine_render_output_buses(tutti_engine *engine, float *const *outputs, uint32_t bus_count, uint32_t frames);
/* Deprecated (kept for one release): tutti_engine_render_output_buses, the same call. */
tutti_result tutti_engine_render_routes(tutti_engine *engine, float *const *outputs, uint32_t route_count, uint32_t frames);
/* Frames rendered so far (the engine clock); TUTTI_ERROR_INVALID_ARGUMENT (negative) for a
 * NULL engine. Any thread; never races with rendering. */
tutti_frame tutti_engine_get_frame(tutti_engine *engine);

/* ------------------------------------------------------------------------------------------
 * Sessions (the policy: docs/policy.md)
 * ---------------------------------------------------------------------------------------- */

/* Audio session category (values in this order from 0). */
typedef int32_t tutti_category;
enum {
    TUTTI_CATEGORY_SOLO_AMBIENT = 0,
    TUTTI_CATEGORY_AMBIENT = 1,
    TUTTI_CATEGORY_PLAYBACK = 2,
    TUTTI_CATEGORY_RECORD = 3,
    TUTTI_CATEGORY_PLAY_AND_RECORD = 4,
    TUTTI_CATEGORY_AUDIO_PROCESSING = 5,
    TUTTI_CATEGORY_MULTI_ROUTE = 6
};

/* Session mode (values in this order from 0); only SPOKEN_AUDIO changes the policy. */
typedef int32_t tutti_mode;
enum {
    TUTTI_MODE_DEFAULT = 0,
    TUTTI_MODE_SPOKEN_AUDIO = 1,
    TUTTI_MODE_VOICE_CHAT = 2,
    TUTTI_MODE_VIDEO_CHAT = 3,
    TUTTI_MODE_GAME_CHAT = 4,
    TUTTI_MODE_MEASUREMENT = 5,
    TUTTI_MODE_MOVIE_PLAYBACK = 6,
    TUTTI_MODE_VOICE_PROMPT = 7
};

/* Category option bits (tutti_session_set_category's `options`). */
#define TUTTI_OPTION_MIX_WITH_OTHERS 1u
#define TUTTI_OPTION_DUCK_OTHERS 2u
#define TUTTI_OPTION_INTERRUPT_SPOKEN_AUDIO_AND_MIX 4u
#define TUTTI_OPTION_ALLOW_BLUETOOTH 8u
#define TUTTI_OPTION_DEFAULT_TO_SPEAKER 16u

/* tutti_session_set_active's `flags`: on deactivation, tell the sessions it interrupted that
 * they may resume (their INTERRUPTION_ENDED event carries TUTTI_EVENT_SHOULD_RESUME). */
#define TUTTI_NOTIFY_OTHERS_ON_DEACTIVATION 1u
/* tutti_session_set_active's `flags` on activation: the focus request, at most one (none is
 * GAIN, the activation as it always was, so callers that pass 0 get it). TRANSIENT interrupts
 * like GAIN, but the sessions it interrupts resume (SHOULD_RESUME) when it deactivates even
 * without NOTIFY_OTHERS_ON_DEACTIVATION; TRANSIENT_MAY_DUCK interrupts nobody and ducks every
 * other session while active; TRANSIENT_EXCLUSIVE interrupts every other session, mixable
 * ones too, and suppresses system sounds while active (docs/policy.md). INVALID_ARGUMENT on a
 * deactivation. */
#define TUTTI_FOCUS_TRANSIENT 0x100u
#define TUTTI_FOCUS_TRANSIENT_MAY_DUCK 0x200u
#define TUTTI_FOCUS_TRANSIENT_EXCLUSIVE 0x300u
#define TUTTI_FOCUS_MASK 0x300u

/* Creates a session named `name` (non-empty UTF-8, unique among live sessions):
 * SOLO_AMBIENT, inactive, in the foreground. *out is set on success only. CAPACITY at
 * max_sessions (a destroyed session's slot counts until rendering has passed its
 * destruction). Any thread. */
tutti_result tutti_session_create(tutti_engine *engine, const char *name, tutti_session *out);
/* Session attributes (tutti_session_create_with's `attributes`), each off by default; what
 * they change is in docs/policy.md. (Additions.) */
#define TUTTI_SESSION_PAUSES_WHEN_DUCKED 1u /* interrupted (reason DUCKED) instead of ducked; the
                                               interruption ends with SHOULD_RESUME when the
                                               ducking ends */
#define TUTTI_SESSION_SPEECH 2u /* it plays speech: implies PAUSES_WHEN_DUCKED */
#define TUTTI_SESSION_ACCEPTS_DELAYED_ACTIVATION 4u /* an activation during a phone call is delayed
                                                       (ACTIVATION_DELAYED) and granted when the
                                                       call ends (ACTIVATION_GRANTED); not with
                                                       TUTTI_CATEGORY_AMBIENT */
#define TUTTI_SESSION_ACCESSIBILITY 8u /* never ducked, never silenced by the silent switch, lock
                                          or background, interrupted only by a phone call; ducks
                                          every other session while audible */
#define TUTTI_SESSION_MANUAL_RESUME 16u /* after an interruption ends the session stays paused
                                           until the host calls tutti_session_resume (by
                                           default it resumes by itself when it may) */
/* Creates a session like tutti_session_create, in `category` (default mode, no options) and
 * with `attributes` (an OR of TUTTI_SESSION_*) for its whole life. INVALID_ARGUMENT for an
 * unknown bit or category, ACCEPTS_DELAYED_ACTIVATION with TUTTI_CATEGORY_AMBIENT, and what
 * tutti_session_create refuses. *out is set on success only. Any thread. (An addition.) */
tutti_result tutti_session_create_with(tutti_engine *engine, const char *name, tutti_category category, uint32_t attributes,
                                       tutti_session *out);
/* Changes category, mode and options (an OR of TUTTI_OPTION_*), at once: an active session
 * that becomes non-mixable interrupts the others. INVALID_ARGUMENT for an unknown value or
 * bit, or an option the category does not take. Any thread. */
tutti_result tutti_session_set_category(tutti_engine *engine, tutti_session session, tutti_category category,
                                        tutti_mode mode, uint32_t options);
/* Activates (which may interrupt or duck others; TUTTI_ERROR_DENIED during a phone call, or
 * from the background over a session that plays, with the reason in tutti_last_error()) or
 * deactivates (pausing what still plays; `flags` TUTTI_NOTIFY_OTHERS_ON_DEACTIVATION lets
 * interrupted sessions resume) at frame `at`. Any thread. */
tutti_result tutti_session_set_active(tutti_engine *engine, tutti_session session, int active, uint32_t flags,
                                      tutti_frame at);
/* Moves the session to the foreground or background at `at` (AMBIENT and SOLO_AMBIENT are
 * silenced in the background; from the background only mixable audio may start over
 * others). Any thread. */
tutti_result tutti_session_set_foreground(tutti_engine *engine, tutti_session session, int foreground, tutti_frame at);
/* The remote commands the session answers from now on: an OR of TUTTI_REMOTE_COMMAND_BIT(c)
 * (0: none, the default). A remote command goes to the most recently active session that
 * answers it; answer them only while the user is in an audio context. INVALID_ARGUMENT for an
 * unknown bit. Any thread. (Without it no session answers remote commands.) */
tutti_result tutti_session_set_remote_commands(tutti_engine *engine, tutti_session session, uint32_t commands);
/* Voices this session's sources may play at once from `at` on (1..65536; 0: no limit of its
 * own, the engine's applies). A play over the limit takes the voice of the session's
 * lowest-priority voice (ties: the quietest, then the oldest) with a 10 ms fade
 * (TUTTI_EVENT_VOICE_STOLEN), or is refused when every voice ranks higher
 * (TUTTI_EVENT_VOICE_REFUSED). Lowering it stops nothing that plays. Any thread. */
tutti_result tutti_session_set_max_voices(tutti_engine *engine, tutti_session session, uint32_t max_voices,
                                          tutti_frame at);
/* What happens to an active session when another one activates after it: an interaction
 * table row's outcome (docs/policy.md writes the built-in rules as such a table). */
typedef int32_t tutti_outcome;
enum {
    TUTTI_OUTCOME_MIX = 0,       /* both play */
    TUTTI_OUTCOME_DUCK = 1,      /* the active one is ducked while the incoming one is active */
    TUTTI_OUTCOME_INTERRUPT = 2, /* the active one is interrupted, mixable or not */
    TUTTI_OUTCOME_REJECT = 3,    /* the incoming activation fails: TUTTI_ERROR_DENIED, nothing changes */
    TUTTI_OUTCOME_SILENCE = 4    /* the active one is silenced while the incoming one is active */
};
/* One row of the interaction table: each side is a session (a nonzero id) or, when the id is
 * 0, every session whose category in force is the category given. (An addition.) */
typedef struct tutti_interaction {
    tutti_session active_session;     /* 0: active_category */
    tutti_category active_category;
    tutti_session incoming_session;   /* 0: incoming_category */
    tutti_category incoming_category;
    tutti_outcome outcome;
} tutti_interaction;
/* Replaces the interaction table at `at` (count 0: none, the built-in rules alone). For each
 * pair, the most specific row wins (session/session, session/category, category/session,
 * category/category); a row cannot override a phone call, a recording's silence or the
 * background rule. INVALID_ARGUMENT naming rows[i] and its field for an unknown or stale
 * session, an unknown category or outcome, a session on both sides, or two rows for one
 * pair; nothing changes then. NULL rows with count 0 is allowed. Any thread. (An addition.) */
tutti_result tutti_engine_set_interactions(tutti_engine *engine, const tutti_interaction *rows, uint32_t count, tutti_frame at);
/* Destroys the session and its sources at `at` (it deactivates first, releasing what it
 * interrupted; what plays fades out). The session's id and its sources' ids are stale at
 * once. Any thread. */
tutti_result tutti_session_destroy(tutti_engine *engine, tutti_session session, tutti_frame at);
/* Sets the session's gain (linear, finite, 0..16: its bus, over its sources' own gains) at
 * `at`: ramp_frames 0 is a step, otherwise a linear ramp from the current gain. Any thread. */
tutti_result tutti_session_set_gain(tutti_engine *engine, tutti_session session, float gain, uint32_t ramp_frames,
                                    tutti_frame at);
/* Resumes a session made with TUTTI_SESSION_MANUAL_RESUME at `at`, after an interruption
 * ended: it reactivates and plays again the sources the interruption paused. Any thread. */
tutti_result tutti_session_resume(tutti_engine *engine, tutti_session session, tutti_frame at);

/* A session's state as the policy renders it now (values in this order from 0). */
typedef int32_t tutti_session_state;
enum {
    TUTTI_SESSION_STATE_INACTIVE = 0,   /* not active: nothing plays */
    TUTTI_SESSION_STATE_AUDIBLE = 1,    /* its sources advance and are heard (possibly ducked) */
    TUTTI_SESSION_STATE_SILENCED = 2,   /* its sources advance but are not heard */
    TUTTI_SESSION_STATE_INTERRUPTED = 3 /* its sources are paused */
};

/* Why a TUTTI_SESSION_STATE_SILENCED session is silent (values in this order from 0). */
typedef int32_t tutti_silence_reason;
enum {
    TUTTI_SILENCE_SILENT_SWITCH = 0,       /* the silent switch (ambient categories) */
    TUTTI_SILENCE_LOCKED = 1,              /* the device is locked (ambient categories) */
    TUTTI_SILENCE_BACKGROUND = 2,          /* in the background (ambient categories) */
    TUTTI_SILENCE_RECORDING = 3,           /* another session records */
    TUTTI_SILENCE_TRANSIENT_EXCLUSIVE = 4, /* a session holds the output exclusively */
    TUTTI_SILENCE_INTERACTION = 5          /* a row of the interaction table (TUTTI_OUTCOME_SILENCE) */
};

/* What the policy says about `session` now, each skipped when NULL: *state
 * (TUTTI_SESSION_STATE_*); *silence_reason (TUTTI_SILENCE_*, -1 unless SILENCED);
 * *other_audio_playing (1 when a session other than it is heard, or a call is active);
 * *silence_secondary_hint (1 when a non-mixable session other than it is heard, or a call
 * is active). NOT_FOUND for a destroyed session. Any thread except the real-time one (it
 * takes the engine's lock). (An addition.) */
tutti_result tutti_session_get_state(tutti_engine *engine, tutti_session session, tutti_session_state *state,
                                     tutti_silence_reason *silence_reason, int32_t *other_audio_playing,
                                     int32_t *silence_secondary_hint);
/* Sets the PipeWire media.role the session plays with, by PipeWire's name: "Movie", "Music",
 * "Camera", "Screen", "Communication", "Game", "Notification", "DSP", "Production",
 * "Accessibility" or "Test"; NULL: back to the role its category, mode and attributes give
 * (the table in docs/backends.md, "Media roles"). It changes what streams opened afterwards
 * announce: main's stream takes the role its sessions share when the output starts
 * (tutti_output_start), so a running output keeps its role. Not a policy decision: nothing
 * rendered changes and no event follows. A session without output (TUTTI_CATEGORY_RECORD,
 * TUTTI_CATEGORY_AUDIO_PROCESSING) keeps none. INVALID_ARGUMENT naming `role` (and listing
 * the names) for another name, nothing changed; NOT_FOUND for a destroyed session. Any
 * thread. (An addition.) */
tutti_result tutti_session_set_media_role(tutti_engine *engine, tutti_session session, const char *role);
/* The media.role the session plays with (what tutti_session_set_media_role last set, else
 * its category's role; "" for a session without output), as a NUL-terminated UTF-8 name
 * copied into `name` (`capacity` bytes; NULL with capacity 0 only asks for the length).
 * *length (when not NULL) gets the name's length without the NUL, also when the name does
 * not fit: then TUTTI_ERROR_INVALID_ARGUMENT and nothing is written into `name`. NOT_FOUND
 * for a destroyed session. Any thread except the real-time one (it takes the engine's
 * lock). (An addition.) */
tutti_result tutti_session_get_media_role(tutti_engine *engine, tutti_session session, char *name, size_t capacity,
                                          size_t *length);
/* One ducking rule: when a session of the `by` side ducks one of the `duck` side, their
 * level and times. Each side is a session (a nonzero id) or, when the id is 0, every
 * session whose category in force is the category given. */
typedef struct tutti_ducking_rule {
    tutti_session by_session; /* 0: by_category */
    tutti_category by_category;
    tutti_session duck_session; /* 0: duck_category */
    tutti_category duck_category;
    float level_db;       /* -96..0 */
    float attack_seconds; /* 0..3600 */
    float release_seconds; /* 0..3600 */
} tutti_ducking_rule;
/* Replaces the ducking rules at `at` (count 0: none). For each pair the most specific rule
 * wins (session/session, category/session, session/category, category/category); without
 * one, the engine's (tutti_engine_config.ducking_*). Sessions ducked now move to their new
 * level. These rules duck on the ducker's activation (signal-triggered rules:
 * tutti_engine_set_ducking_rules2). INVALID_ARGUMENT naming rules[i] and its
 * field for a level or time out of range,
 * an unknown or stale session or category, a session on both sides, or two rules for one
 * pair; nothing changes then. NULL rules with count 0 is allowed. Any thread. */
tutti_result tutti_engine_set_ducking_rules(tutti_engine *engine, const tutti_ducking_rule *rules, uint32_t count,
                                            tutti_frame at);
/* What makes a ducking rule's duck go down (tutti_ducking_rule2.trigger). (An addition.) */
typedef int32_t tutti_ducking_trigger;
enum {
    TUTTI_DUCKING_TRIGGER_ACTIVATION = 0, /* the ducker's activation: ducked while it is active */
    TUTTI_DUCKING_TRIGGER_SIGNAL = 1      /* the ducker's bus level: while the rule applies (the
                                             ducker is active), ducked while the level (mean
                                             square over 10 ms windows) is above threshold_db,
                                             released once it stayed below for hold_seconds */
};
/* A ducking rule with its trigger: tutti_ducking_rule's fields, then the trigger. Fill each
 * with tutti_ducking_rule2_init first (a struct the caller fills: see Conventions). */
typedef struct tutti_ducking_rule2 {
    uint32_t struct_size;
    tutti_session by_session; /* 0: by_category */
    tutti_category by_category;
    tutti_session duck_session; /* 0: duck_category */
    tutti_category duck_category;
    float level_db;        /* -96..0; default -15 */
    float attack_seconds;  /* 0..3600; default 0.1 */
    float release_seconds; /* 0..3600; default 0.4 */
    tutti_ducking_trigger trigger; /* TUTTI_DUCKING_TRIGGER_*; default ACTIVATION */
    float threshold_db;    /* SIGNAL: dBFS, -120..0; default -40 (ignored for ACTIVATION) */
    float hold_seconds;    /* SIGNAL: 0..3600; default 0 (ignored for ACTIVATION) */
} tutti_ducking_rule2;
/* Sets the defaults (both sides category 0, the values above) and struct_size. NULL is
 * ignored. Any thread. (An addition.) */
void tutti_ducking_rule2_init(tutti_ducking_rule2 *rule);
/* The same for a struct of `size` bytes (the caller's sizeof): writes the defaults of the
 * fields that fit, never a byte past `size`, and sets struct_size to the size this library
 * fills (the smaller of `size` and its own). Any thread. */
void tutti_ducking_rule2_init_size(tutti_ducking_rule2 *rule, uint32_t size);
/* Calls go through this macro, so the size is the sizeof of the header the caller was built
 * with. The exported tutti_ducking_rule2_init symbol (binaries built against an earlier tutti.h call it)
 * writes the layout it wrote when the sized call came, never more. */
#define tutti_ducking_rule2_init(rule) tutti_ducking_rule2_init_size((rule), (uint32_t)sizeof(tutti_ducking_rule2))
/* tutti_engine_set_ducking_rules with triggers: replaces the ducking rules at `at` (count 0:
 * none). `rules` is an array of `count` structs of rules[0].struct_size bytes each (the
 * caller's sizeof(tutti_ducking_rule2): a caller built against a newer header passes its
 * larger size and its extra fields are ignored); every element's struct_size must be the
 * first's (else INVALID_ARGUMENT naming rules[i].struct_size), and a size this library does
 * not know is TUTTI_ERROR_VERSION. A SIGNAL rule ducks the `duck` side only while the
 * ducker's bus is loud: its DUCKING_BEGAN and DUCKING_ENDED events come at those frames.
 * INVALID_ARGUMENT naming rules[i] and its field (rules[0].threshold_db) for a value out of
 * range or not finite, an unknown trigger, and what tutti_engine_set_ducking_rules refuses;
 * nothing changes then. NULL rules with count 0 is allowed. Any thread. (An addition.) */
tutti_result tutti_engine_set_ducking_rules2(tutti_engine *engine, const tutti_ducking_rule2 *rules, uint32_t count,
                                             tutti_frame at);
/* An effect on a session's bus (tutti_session_set_effects). (An addition.) */
typedef int32_t tutti_effect_type;
enum {
    TUTTI_EFFECT_LOWPASS = 0,    /* the RBJ Audio EQ Cookbook biquads: frequency_hz, q */
    TUTTI_EFFECT_HIGHPASS = 1,
    TUTTI_EFFECT_BANDPASS = 2,   /* 0 dB at the centre */
    TUTTI_EFFECT_NOTCH = 3,
    TUTTI_EFFECT_PEAKING = 4,    /* frequency_hz, q, gain_db */
    TUTTI_EFFECT_LOWSHELF = 5,   /* frequency_hz, q, gain_db (Q, not the slope S) */
    TUTTI_EFFECT_HIGHSHELF = 6,
    TUTTI_EFFECT_COMPRESSOR = 7, /* threshold_db, ratio, attack_seconds, release_seconds, makeup_db */
    TUTTI_EFFECT_DELAY = 8       /* time_seconds, feedback, mix */
};
/* One effect: `type` and its fields (docs/scene-format.md, *Effects*, has what each does and
 * its range: frequency_hz strictly between 0 and half the sample rate, q in (0, 100], gain_db
 * and makeup_db -60..60, threshold_db -100..0, ratio 1..100, attack/release 0..10 s,
 * time_seconds (0, 10], feedback 0..0.95, mix 0..1, all finite); fields its type does not use
 * are ignored. */
typedef struct tutti_effect {
    tutti_effect_type type;
    double frequency_hz, q, gain_db;
    double threshold_db, ratio, attack_seconds, release_seconds, makeup_db;
    double time_seconds, feedback, mix;
} tutti_effect;
/* Replaces the effect chain on the session's bus at `at` with `count` effects in order (0:
 * none; NULL effects with count 0 is allowed). The session's sources on the main route mix
 * into it; its output takes the session's gate, duck, gain and the volume. A delay's tail
 * rings after the sources stop until below -90 dBFS. The chain it replaces stops at once,
 * tail included. INVALID_ARGUMENT naming effects[i] and its field (effects[1].ratio), nothing
 * changed. Any thread. (An addition.) */
tutti_result tutti_session_set_effects(tutti_engine *engine, tutti_session session, const tutti_effect *effects, uint32_t count,
                                       tutti_frame at);
/* Turns the biquad at `index` of the session's chain into `effect` (another biquad, any of
 * the seven) at `at`, gliding over `glide_frames` frames without zipper noise (the new filter
 * starts from the old one's state and the output crossfades to it; 0: a step; negative: the
 * default 10 ms). INVALID_ARGUMENT when `index` is not a biquad of the chain, `effect` is not
 * a biquad, or a field is out of range (named effect->field). Any thread. (An addition.) */
tutti_result tutti_session_set_effect(tutti_engine *engine, tutti_session session, uint32_t index, const tutti_effect *effect,
                                      int64_t glide_frames, tutti_frame at);
/* Host DSP: the host's own effect on a session's bus. Called on the RENDER THREAD once per
 * rendered chunk (a block, or part of one where a change is scheduled), silent ones included,
 * with the bus's mix to change in place: `frames` interleaved frames of `channels` channels (the
 * engine's channel count; frame f, channel c is interleaved[f * channels + c]), samples
 * nominally in -1..1, and the host's `user` pointer. Render-thread rules: no locks, no
 * allocation or freeing, no I/O, logging, system calls or waiting; only work bounded by
 * `frames`. A callback that breaks them causes dropouts. (An addition.) */
typedef void (*tutti_effect_callback)(float *interleaved, uint32_t frames, uint32_t channels, void *user);
/* Called once with `user` when the engine no longer calls the callback it came with (the host
 * may free `user` then). Called on a control thread, never the render thread: inside a later
 * tutti_* call on the engine, on one of the library's own threads (event delivery, behind
 * tutti_engine_event_fd), or in tutti_engine_destroy; with the engine's lock held, so it must
 * not call tutti_* functions itself. (An addition.) */
typedef void (*tutti_effect_release)(void *user);
/* Inserts `callback` with `user` on the session's bus at `at`, replacing the host effect there
 * (NULL callback: remove it). It runs after the bus's effect chain (tutti_session_set_effects;
 * it stays when the chain is replaced), on the mix of the session's main-route sources, before
 * the session's gate, duck, gain and the volume. From `at` on the one it replaces is no longer
 * called; that one's `release` (NULL: none) is then called with its `user` as described at
 * tutti_effect_release, and the host must not free its `user` before. Removing the host effect
 * from a session without an effect chain makes it mix exactly (bit for bit) as before. The
 * master takes its own (tutti_master_set_effect). NOT_FOUND for a removed session,
 * INVALID_ARGUMENT naming `at`; a failed call changes nothing and calls neither callback. Any
 * thread but the render thread. (An addition.) */
tutti_result tutti_bus_set_effect(tutti_engine *engine, tutti_session session, tutti_effect_callback callback,
                                  tutti_effect_release release, void *user, tutti_frame at);
/* Inserts `callback` with `user` on the master at `at`, replacing the host effect there (NULL
 * callback: remove it): the callback, its `release` and the render-thread rules are those of
 * tutti_bus_set_effect (tutti_effect_callback, tutti_effect_release). It runs after the master
 * effect chain (tutti_engine_config.master_effects), on the main route's mix of every session
 * (system sounds, the ringer class, bypass it), before the system volume and the limiter.
 * Needs a master stage: TUTTI_ERROR_STATE when the engine was created without
 * master_effects_enabled (an empty chain will do); INVALID_ARGUMENT naming `at`; a failed
 * call changes nothing and calls neither callback. Any thread but the render thread. (An
 * addition; Swift: AudioEngine.setMasterHostEffect.) */
tutti_result tutti_master_set_effect(tutti_engine *engine, tutti_effect_callback callback, tutti_effect_release release, void *user,
                                     tutti_frame at);

/* ------------------------------------------------------------------------------------------
 * Sources
 * ---------------------------------------------------------------------------------------- */

/* tutti_source_create_file's `flags`: wrap around sample-exactly at the end. */
#define TUTTI_SOURCE_LOOP 1u
/* The resampler a file or buffer source is converted with when its rate is not the engine's
 * (tutti_source_create_file and _buffer's `flags`, through TUTTI_SOURCE_QUALITY): DEFAULT is
 * the engine's file quality (tutti_engine_config.file_quality, libsoxr HQ unless set; the
 * same values choose the engine's file and stream qualities); then libsamplerate's sinc
 * converters, best (slowest)
 * to fastest, its linear and zero-order-hold interpolators (audible aliasing: tests), and
 * libsoxr's high (20-bit) and very high (28-bit) quality. (An addition.) */
enum {
    TUTTI_QUALITY_DEFAULT = 0,
    TUTTI_QUALITY_SINC_BEST = 1,
    TUTTI_QUALITY_SINC_MEDIUM = 2,
    TUTTI_QUALITY_SINC_FASTEST = 3,
    TUTTI_QUALITY_LINEAR = 4,
    TUTTI_QUALITY_ZERO_ORDER_HOLD = 5,
    TUTTI_QUALITY_SOXR_HQ = 6,
    TUTTI_QUALITY_SOXR_VHQ = 7
};
/* The `flags` bits that carry a TUTTI_QUALITY_* (bits 8..15), e.g.
 * TUTTI_SOURCE_LOOP | TUTTI_SOURCE_QUALITY(TUTTI_QUALITY_SINC_BEST). */
#define TUTTI_SOURCE_QUALITY(quality) (((uint32_t)(quality)&0xFFu) << 8)
/* tutti_source_set_fades: "the default fade" for either length. */
#define TUTTI_FADE_DEFAULT 0xFFFFFFFFu
/* tutti_source_set_rate: ramp over the default source gain ramp time (10 ms). */
#define TUTTI_RAMP_DEFAULT 0xFFFFFFFFu
/* tutti_source_set_loop: end_frame "the source's end"; count "endless". */
#define TUTTI_LOOP_TO_END (-1)
#define TUTTI_LOOP_FOREVER (-1)

/* Where a source is in its life (tutti_source_info.state). */
enum {
    TUTTI_SOURCE_STOPPED = 0, /* not playing, at its start */
    TUTTI_SOURCE_PLAYING = 1, /* advancing (heard when its session is audible) */
    TUTTI_SOURCE_PAUSED = 2,  /* not playing, holding a position past its start */
    TUTTI_SOURCE_ENDED = 3    /* played past its last frame (not looping, or out of loop wraps); rewound */
};

/* Creates a source of `session` that plays an audio file (any format libsndfile reads, any
 * rate, 1 or 2 channels; `flags` 0 or TUTTI_SOURCE_LOOP, with a TUTTI_SOURCE_QUALITY or not;
 * an unknown bit or quality: TUTTI_ERROR_INVALID_ARGUMENT naming flags). The file is decoded
 * and converted to the engine's rate and channels now, on the calling thread — or, when it is longer than
 * 10 s, opened and its first 100 ms converted now, the rest streamed by the engine's file
 * worker in constant memory (underruns counted in underrun_frames; a file that cannot be
 * read further: TUTTI_EVENT_SOURCE_FAILED): TUTTI_ERROR_IO if it is
 * missing, unreadable, a directory or a FIFO; TUTTI_ERROR_FORMAT if it is not audio Tutti
 * plays; the message names the path. With TUTTI_SOURCE_LOOP, a WAV file's sampler loop (the
 * first forward loop of its smpl chunk) is its loop region, endless (the chunk's play count
 * is not used; see tutti_source_set_loop), whether it is loaded or streams. Stopped at its
 * start. Any thread. */
tutti_result tutti_source_create_file(tutti_engine *engine, tutti_session session, const char *path, uint32_t flags,
                                      tutti_source *out);
/* Creates a sine source on every channel: frequency_hz finite, > 0 and below half the
 * engine's rate; amplitude (linear peak) in [0, 1]. Any thread. */
tutti_result tutti_source_create_tone(tutti_engine *engine, tutti_session session, double frequency_hz, float amplitude,
                                      tutti_source *out);
/* Creates a silent source (zeros on every channel): it takes part in the policy as any
 * playing source does (a session's first play, a voice) with nothing heard. Any thread.
 * (An addition.) */
tutti_result tutti_source_create_silence(tutti_engine *engine, tutti_session session, tutti_source *out);
/* Creates a source from audio in memory: `frames` interleaved frames (frames * channels
 * floats, copied now) at `sample_rate` Hz (8000..384000) with `channels` (1 or 2), converted
 * to the engine's format here (the engine's file quality, or the TUTTI_SOURCE_QUALITY in
 * flags); flags: TUTTI_SOURCE_LOOP and TUTTI_SOURCE_QUALITY, as tutti_source_create_file's.
 * Any thread. */
tutti_result tutti_source_create_buffer(tutti_engine *engine, tutti_session session, const float *interleaved,
                                        uint32_t frames, uint32_t sample_rate, uint32_t channels, uint32_t flags,
                                        tutti_source *out);
/* Creates a stream source the host feeds with tutti_stream_write: frames at `sample_rate` Hz
 * (within 1/256..256 times the engine's rate) with `channels` (1 or 2), up to
 * `capacity_frames` (1..16777216) waiting. It plays at its true pitch whatever its rate
 * (converted on the render thread with the engine config's stream_quality, libsamplerate's
 * medium sinc unless set; a stream at the engine's rate is not converted: its
 * frames play as written, times the gains, bit for bit). With no data it fades out over
 * 2 ms, plays silence counted in underrun_frames (TUTTI_EVENT_SOURCE_UNDERRUN), and fades the
 * next data in. Any thread. */
tutti_result tutti_source_create_stream(tutti_engine *engine, tutti_session session, uint32_t sample_rate,
                                        uint32_t channels, uint32_t capacity_frames, tutti_source *out);
/* Appends `frames` interleaved frames (frames * the stream's channels floats, at the stream's
 * rate; for an input source: captured frames at the engine's rate) to a stream or input
 * source; *frames_written gets how many were taken (fewer when its buffer is full: write the
 * rest later). INVALID_ARGUMENT for a source that is neither, NOT_FOUND for a destroyed one.
 * Real-time safe when it succeeds: it goes straight to the source's ring, taking no lock and
 * allocating nothing, so a real-time thread (a capture callback) may call it. One producer
 * thread per source at a time. */
tutti_result tutti_stream_write(tutti_engine *engine, tutti_source source, const float *interleaved, uint32_t frames,
                                uint32_t *frames_written);
/* No more frames will come to stream `source`: every frame written is heard (the converter's
 * tail included), then the source ends with TUTTI_EVENT_SOURCE_ENDED at the frame after its
 * last one. Later writes fail with TUTTI_ERROR_STATE. INVALID_ARGUMENT for a source that is
 * not a stream, STATE when it was already ended, NOT_FOUND for a destroyed one. Any thread. */
tutti_result tutti_stream_end(tutti_engine *engine, tutti_source source);
/* Creates an input source: captured audio (a microphone) the host feeds with
 * tutti_stream_write — frames at the ENGINE's rate with `channels` (1 or 2), up to
 * `capacity_frames` (1..16777216) waiting. While it plays it takes one frame per rendered
 * frame, mixed at its gain (monitoring; it starts at gain 0: not heard until
 * tutti_source_set_gain); while it does not play (paused, its session interrupted — mic
 * muted — or inactive) the frames are dropped. `record_capacity_frames` > 0 (up to 16777216)
 * adds a recording ring: the render thread copies what it captured into it from the first
 * captured frame on, silence while not capturing; drain it with tutti_input_read_recorded.
 * TUTTI_ERROR_STATE unless the session's category is RECORD or PLAY_AND_RECORD. Any thread. */
tutti_result tutti_source_create_input(tutti_engine *engine, tutti_session session, uint32_t channels,
                                       uint32_t capacity_frames, uint32_t record_capacity_frames, tutti_source *out);
/* Moves up to `max_frames` recorded frames (interleaved, engine rate, the input's channels)
 * into `interleaved`; *frames_read gets how many (0 when nothing waits). Frame k of the
 * recording is engine frame (*start_frame of tutti_input_get_recording) + k.
 * INVALID_ARGUMENT for a source that is not an input or has no recording ring. One reader
 * thread at a time; not the real-time thread. */
tutti_result tutti_input_read_recorded(tutti_engine *engine, tutti_source source, float *interleaved, uint32_t max_frames,
                                       uint32_t *frames_read);
/* The recording's state: *start_frame the engine frame of its first frame (-1 before the
 * input first captured), *dropped_frames recorded frames lost because the reader fell
 * behind. INVALID_ARGUMENT as tutti_input_read_recorded. Any thread. */
tutti_result tutti_input_get_recording(tutti_engine *engine, tutti_source source, tutti_frame *start_frame,
                                       uint64_t *dropped_frames);
/* Plays (or resumes) at `at`, through the policy: an inactive session is activated first
 * (which may be TUTTI_ERROR_DENIED); a source of a session that is not audible stays silent
 * until the policy lets it play. Any thread. */
tutti_result tutti_source_play(tutti_engine *engine, tutti_source source, tutti_frame at);
/* Pauses at `at` (its fade-out, then the position holds). Any thread. */
tutti_result tutti_source_pause(tutti_engine *engine, tutti_source source, tutti_frame at);
/* Stops at `at`: fades out, then rewinds to the start. Any thread. */
tutti_result tutti_source_stop(tutti_engine *engine, tutti_source source, tutti_frame at);
/* Moves to `position` (frames at the engine rate, >= 0; past the end: the end) at `at`. A
 * playing source held in memory (a buffer, a file up to the streaming threshold) crossfades
 * there: from frame `at` the old position fades out while the new one fades in, linearly over
 * the 10 ms de-click whatever its fades (equal gain: the two gains sum to 1), so the new
 * material is heard from `at` and the position counts from `position` at `at`. A playing
 * streaming file, tone or silence source, one fading out for a pause or stop, and one still
 * in an earlier seek's crossfade fade out, jump and fade back in (10 ms each): the new
 * material from 10 ms after `at`. A source that is not playing just moves.
 * TUTTI_ERROR_STATE for a stream. Any thread. */
tutti_result tutti_source_seek(tutti_engine *engine, tutti_source source, int64_t position, tutti_frame at);
/* An equal-power crossfade from `from` to `source` (two sources of one session) at `at`, over
 * `duration_frames` (frames at the engine rate, 1..2147483647): `source` plays through the
 * policy (as tutti_source_play; it may be TUTTI_ERROR_DENIED) and fades in along sin(pi*t/2),
 * from silence when it starts at `at` (one already playing at full level stays there);
 * `from` fades out along cos(pi*t/2) (each at -3.01 dB half-way: the powers sum to 1) and
 * stops at the end exactly as tutti_source_stop stops it (rewound; the policy is told now,
 * its journal entry at the crossfade's last frame, or now for TUTTI_NOW). Frame-exact. A stop
 * of `from` meanwhile leaves its crossfade running. Fails changing nothing:
 * INVALID_ARGUMENT naming `from` (the source itself, or of another session) or
 * `duration_frames` (0 or too long); NOT_FOUND for a destroyed `source` or `from`; STATE when
 * `from` is not playing. Any thread except the real-time one. */
tutti_result tutti_source_crossfade(tutti_engine *engine, tutti_source source, tutti_source from, uint32_t duration_frames,
                                    tutti_frame at);
/* Sets the gain (linear, finite, 0..16) at `at`: ramp_frames 0 is a step at `at`, otherwise a
 * linear ramp from the current gain that starts at `at`. Any thread. */
tutti_result tutti_source_set_gain(tutti_engine *engine, tutti_source source, float gain, uint32_t ramp_frames,
                                   tutti_frame at);
/* Sets the pan position at `at`: -1 (left) .. 0 (centre) .. +1 (right), finite, else
 * TUTTI_ERROR_INVALID_ARGUMENT (nothing changes). Mono material (a mono file, a tone, a mono
 * stream or input) is placed with the constant-power law (-3.01 dB on each channel at 0, the
 * far channel silent at +-1); stereo material is balanced (the far channel attenuated, silent
 * at +-1, the near one kept). Each channel's gain ramps linearly over ramp_frames (0: a step
 * at `at`), like a gain change. A source never panned has no pan stage (mono material at unity
 * on both channels); a mono engine ignores pan. Any thread. (An addition.) */
tutti_result tutti_source_set_pan(tutti_engine *engine, tutti_source source, float pan, uint32_t ramp_frames, tutti_frame at);
/* Voice-stealing priority 0..255 (default 128) from `at` on: under a voice limit the lowest
 * priority loses its voice first. INVALID_ARGUMENT above 255. Any thread. (An addition.) */
tutti_result tutti_source_set_priority(tutti_engine *engine, tutti_source source, uint32_t priority, tutti_frame at);
/* The output bus (a named output mix: a name from the engine config's route_names; "main"
 * by default) the source plays to from `at` on; a step, so set it before playing.
 * INVALID_ARGUMENT for an unknown name, STATE for a bus other than "main" when the source's
 * session is not TUTTI_CATEGORY_MULTI_ROUTE (a session that leaves multiRoute later plays its
 * sources to main until it returns). Any thread. (An addition.) */
tutti_result tutti_source_set_output_bus(tutti_engine *engine, tutti_source source, const char *bus, tutti_frame at);
/* The output bus the source plays to (what tutti_source_set_output_bus last set, "main" by
 * default), as a NUL-terminated UTF-8 name copied into `name` (`capacity` bytes; NULL with
 * capacity 0 only asks for the length). *length (when not NULL) gets the name's length
 * without the NUL, also when the name does not fit: then TUTTI_ERROR_INVALID_ARGUMENT and
 * nothing is written into `name`.
 * Any thread except the real-time one (it takes the engine's lock). (An addition.) */
tutti_result tutti_source_get_output_bus(tutti_engine *engine, tutti_source source, char *name, size_t capacity, size_t *length);
/* Deprecated (kept for one release): tutti_source_set_output_bus, the same call (errors name
 * tutti_source_set_route). */
tutti_result tutti_source_set_route(tutti_engine *engine, tutti_source source, const char *route, tutti_frame at);
/* Deprecated (kept for one release): tutti_source_get_output_bus, the same call (errors name
 * tutti_source_get_route). */
tutti_result tutti_source_get_route(tutti_engine *engine, tutti_source source, char *name, size_t capacity, size_t *length);
/* Sets the playback rate at `at`: source frames per output frame, finite in 0.25..4 (1 as
 * recorded, 2 twice as fast and an octave up, 0.5 half as fast and an octave down); pitch
 * follows the rate (no time-stretching). The rate glides linearly from the current one over
 * ramp_frames (0: a step; TUTTI_RAMP_DEFAULT: the source gain ramp time, 10 ms by default).
 * The position, the length (tutti_source_info.length), seeks and loop regions stay in the
 * source's own frames: at rate 2 a source of N frames ends after N/2 output frames. Read at a
 * fractional position with 4-point, 3rd-order Hermite interpolation (no band-limiting: at
 * rates above 1, content above the sample rate / (2 * rate) folds down); at exactly 1 from a
 * whole frame (a new source, after a stop, a seek or the end) it mixes bit for bit as a
 * source never given a rate. Buffer sources only (in memory, and files up to the streaming
 * threshold). TUTTI_ERROR_INVALID_ARGUMENT (the message names `rate`; nothing changes) for a
 * rate that is not finite or outside 0.25..4, a ramp_frames above 2147483647 (other than
 * TUTTI_RAMP_DEFAULT), and a rate other than 1 on a tone, silence, stream or input;
 * TUTTI_ERROR_STATE for a rate other than 1 on a file that streams (longer than the streaming
 * threshold). Any thread except the real-time one (it takes the engine's lock). (An
 * addition.) */
tutti_result tutti_source_set_rate(tutti_engine *engine, tutti_source source, double rate, uint32_t ramp_frames, tutti_frame at);
/* Sets the fades, in frames at the engine rate (0..2147483647 — 0 is a hard cut — or
 * TUTTI_FADE_DEFAULT): fade_in_frames on play/resume (default: none from the start, a 10 ms
 * de-click when resuming mid-way), fade_out_frames on pause/stop/destroy (default: a 10 ms
 * de-click). Applies from the next block. Any thread. */
tutti_result tutti_source_set_fades(tutti_engine *engine, tutti_source source, uint32_t fade_in_frames,
                                    uint32_t fade_out_frames);
/* Turns looping on (loop != 0) or off at `at`, with a loop region and a count (buffer and
 * file sources). While looping, playback that reaches end_frame goes on at start_frame
 * sample-exactly (no fade at the seam, as at the end of a whole-file loop: a seamless region
 * is the material's), `count` times (TUTTI_LOOP_FOREVER: endless); after the last wrap it
 * plays on to the source's end and ends there (TUTTI_EVENT_SOURCE_ENDED), so the region is
 * heard count + 1 times. The count starts over with this call and at every rewind (stop,
 * end); a seek keeps it; playback from past end_frame (after a seek) wraps at the source's
 * end. Frames at the engine rate, the source's own (its position counts them); start_frame 0
 * with TUTTI_LOOP_TO_END loops it whole, as TUTTI_SOURCE_LOOP at creation does.
 * INVALID_ARGUMENT (the message names the argument; nothing changes) for start_frame < 0,
 * end_frame past the source's length or < -1, an empty or reversed region (end_frame <=
 * start_frame), count 0 or < -1, and a source with no length (tone, silence, stream, input).
 * A file that streams (longer than the streaming threshold) loops a region as one held in
 * memory does; setting a region other than the whole file on it while it plays refills its
 * ring from where it is (a moment of faded silence, as after a seek). Any thread except the
 * real-time one (it takes the engine's lock). (An addition.) */
tutti_result tutti_source_set_loop(tutti_engine *engine, tutti_source source, int loop, int64_t start_frame, int64_t end_frame,
                                   int32_t count, tutti_frame at);
/* Destroys the source at `at` (it fades out if it plays). Its id is stale at once. No
 * SOURCE_ENDED event. Any thread. */
tutti_result tutti_source_destroy(tutti_engine *engine, tutti_source source, tutti_frame at);

/* What the render side last published about a source (reads never race with rendering).
 * Fill struct_size with tutti_source_info_init first. */
typedef struct tutti_source_info {
    uint32_t struct_size;
    int32_t state;            /* TUTTI_SOURCE_STOPPED, _PLAYING, _PAUSED or _ENDED */
    int64_t position;         /* frames played since the last rewind, engine rate */
    int64_t length;           /* frames, engine rate; -1 for tones and streams */
    uint64_t underrun_frames; /* streams and inputs: frames rendered with no data */
    float gain;               /* the last gain set (linear) */
    /* Added after the first release: a struct_size ending at gain (the first layout,
     * offsetof(tutti_source_info, rate), its sizeof) leaves it unwritten; a size between two
     * layouts is TUTTI_ERROR_VERSION. */
    double rate;              /* the last playback rate set (tutti_source_set_rate; the rate a
                                 ramp glides to), source frames per output frame; 1 until set */
    /* Added after rate (a third layout, ending at rate: its fields are left unwritten). */
    int32_t panned;           /* 1 once tutti_source_set_pan was called, else 0 (no pan stage:
                                 mono material at unity on both channels) */
    float pan;                /* the last pan set (tutti_source_set_pan; the position a ramp
                                 glides to), -1 left .. +1 right; 0 while panned is 0 */
} tutti_source_info;

/* Zeroes the struct and sets struct_size. NULL is ignored. Any thread. */
void tutti_source_info_init(tutti_source_info *info);
/* The same for a struct of `size` bytes (the caller's sizeof): writes the defaults of the
 * fields that fit, never a byte past `size`, and sets struct_size to the size this library
 * fills (the smaller of `size` and its own). Any thread. */
void tutti_source_info_init_size(tutti_source_info *info, uint32_t size);
/* Calls go through this macro, so the size is the sizeof of the header the caller was built
 * with. The exported tutti_source_info_init symbol (binaries built against an earlier tutti.h call it)
 * writes the layout it wrote when the sized call came, never more. */
#define tutti_source_info_init(info) tutti_source_info_init_size((info), (uint32_t)sizeof(tutti_source_info))
/* Fills *out (the fields its struct_size covers) for `source`. Any thread except the
 * real-time one (it takes the engine's lock for the gain and length). */
tutti_result tutti_source_get_info(tutti_engine *engine, tutti_source source, tutti_source_info *out);
/* The published part of tutti_source_info, read without the engine's lock: *state
 * (TUTTI_SOURCE_*), *position (frames since the last rewind, engine rate) and
 * *underrun_frames, each skipped when NULL. Real-time safe when it succeeds (no lock, no
 * allocation): any thread, the real-time one included. NOT_FOUND for a destroyed source. */
tutti_result tutti_source_get_status(tutti_engine *engine, tutti_source source, int32_t *state, int64_t *position,
                                     uint64_t *underrun_frames);

/* ------------------------------------------------------------------------------------------
 * System state (the device side of the policy)
 * ---------------------------------------------------------------------------------------- */

/* Output route (values in this order from 0). */
typedef int32_t tutti_route;
enum { TUTTI_ROUTE_SPEAKER = 0, TUTTI_ROUTE_HEADPHONES = 1, TUTTI_ROUTE_BLUETOOTH = 2, TUTTI_ROUTE_EXTERNAL = 3 };

/* Remote (headphone / control centre) command (values in this order from 0). */
typedef int32_t tutti_remote_command;
enum {
    TUTTI_REMOTE_PLAY = 0,
    TUTTI_REMOTE_PAUSE = 1,
    TUTTI_REMOTE_TOGGLE_PLAY_PAUSE = 2,
    TUTTI_REMOTE_NEXT_TRACK = 3,
    TUTTI_REMOTE_PREVIOUS_TRACK = 4,
    TUTTI_REMOTE_STOP = 5
};

/* The bit of a tutti_remote_command in tutti_session_set_remote_commands's mask. */
#define TUTTI_REMOTE_COMMAND_BIT(command) (1u << (command))

/* The silent switch at `at`: on silences AMBIENT and SOLO_AMBIENT sessions. Any thread. */
tutti_result tutti_system_set_silent_switch(tutti_engine *engine, int on, tutti_frame at);
/* The device lock at `at`: locked silences AMBIENT and SOLO_AMBIENT sessions. Any thread. */
tutti_result tutti_system_set_locked(tutti_engine *engine, int locked, tutti_frame at);
/* The system volume, finite, 0..1 (a perceptual curve; the last gain stage of everything
 * but system sounds) at `at`. Any thread. */
tutti_result tutti_system_set_volume(tutti_engine *engine, float volume, tutti_frame at);
/* The ringer volume, finite, 0..1 (system sounds and ringtones) at `at`. Any thread. */
tutti_result tutti_system_set_ringer_volume(tutti_engine *engine, float volume, tutti_frame at);
/* The output route at `at` (a ROUTE_CHANGED event; leaving headphones, bluetooth or external
 * for the speaker pauses PLAYBACK and PLAY_AND_RECORD sessions). Any thread. */
tutti_result tutti_system_set_route(tutti_engine *engine, tutti_route route, tutti_frame at);
/* The built-in microphone muted at `at` (capturing sessions are interrupted and do not come
 * back by themselves). Any thread. */
tutti_result tutti_system_set_mic_muted(tutti_engine *engine, int muted, tutti_frame at);
/* Other apps' audio (outside this engine's sessions) at `at`: `playing` (non-zero) makes
 * "other audio playing" true for every session (an activating session with a
 * category-when-other-audio-playing takes that category); `silence_secondary` (non-zero: one of
 * them is not mixable, music, a movie, a call) also turns the "secondary audio should be
 * silenced" hint on. `clients`: `client_count` NUL-terminated UTF-8 names of the apps (NULL
 * when `client_count` is 0). A change sends TUTTI_EVENT_OTHER_AUDIO_CHANGED; the same again
 * changes nothing. An output started with TUTTI_BACKEND_PIPEWIRE reports this itself from the
 * other apps' running playback streams. Any thread. (An addition.) */
tutti_result tutti_system_set_other_audio(tutti_engine *engine, int playing, int silence_secondary,
                                          const char *const *clients, size_t client_count, tutti_frame at);
/* A phone call begins at `at`: every session is interrupted. Any thread. */
tutti_result tutti_system_begin_phone_call(tutti_engine *engine, tutti_frame at);
/* The phone call ends at `at`: its interruptions end with TUTTI_EVENT_SHOULD_RESUME. Any thread. */
tutti_result tutti_system_end_phone_call(tutti_engine *engine, tutti_frame at);
/* A remote command at `at`: it goes to the now-playing session if that session answers it,
 * else it is dropped. Any thread. */
tutti_result tutti_system_remote_command(tutti_engine *engine, tutti_remote_command command, tutti_frame at);
/* A press of the volume button at `at` (up: non-zero, else down): one step of 1/16 on the
 * system volume when anything is heard or a call is active, on the ringer volume otherwise.
 * Any thread. (An addition.) */
tutti_result tutti_system_press_volume_button(tutti_engine *engine, int up, tutti_frame at);
/* The device side of the policy now, each skipped when NULL: *volume and *ringer_volume
 * (0..1), *route (TUTTI_ROUTE_*), *silent_switch, *locked, *mic_muted and *call_active (0 or
 * 1). Any thread except the real-time one (it takes the engine's lock). (An addition.) */
tutti_result tutti_system_get_state(tutti_engine *engine, float *volume, float *ringer_volume, tutti_route *route,
                                    int32_t *silent_switch, int32_t *locked, int32_t *mic_muted, int32_t *call_active);
/* Other apps' audio as tutti_system_set_other_audio last set it, each skipped when NULL:
 * *other_audio_playing and *silence_secondary (0 or 1). Any thread except the real-time one
 * (it takes the engine's lock). (An addition.) */
tutti_result tutti_system_get_other_audio(tutti_engine *engine, int32_t *other_audio_playing, int32_t *silence_secondary);
/* The apps' names that go with it (the `clients` of tutti_system_set_other_audio, or of the
 * PipeWire output's watcher: each stream's application.name, else its node.name, sorted, each once), copied into `names`
 * (`capacity` bytes) one after another, each NUL-terminated ("mpv\0pw-play\0"); NULL with
 * capacity 0 only asks for the sizes. *count (when not NULL) gets how many names there are,
 * *length (when not NULL) the bytes they take with their NULs (0 for none), also when they
 * do not fit: then TUTTI_ERROR_INVALID_ARGUMENT and nothing is written into `names`. The
 * names, like the state above, may be newer than a TUTTI_EVENT_OTHER_AUDIO_CHANGED still
 * waiting in the queue. Any thread except the real-time one (it takes the engine's lock).
 * (An addition.) */
tutti_result tutti_system_get_other_audio_clients(tutti_engine *engine, char *names, size_t capacity, size_t *count,
                                                  size_t *length);
/* Voices the whole engine may play at once from `at` on (1..65536; 0: no limit). A session's
 * own limit (tutti_session_set_max_voices) is checked first. Any thread. (An addition.) */
tutti_result tutti_engine_set_max_voices(tutti_engine *engine, uint32_t max_voices, tutti_frame at);

/* ------------------------------------------------------------------------------------------
 * Events
 * ---------------------------------------------------------------------------------------- */

/* tutti_event.type (values in this order from 0). */
typedef int32_t tutti_event_type;
enum {
    /* The session was interrupted (its playing sources paused); reason: tutti_interruption_reason. */
    TUTTI_EVENT_INTERRUPTION_BEGAN = 0,
    /* The interruption ended; flags may hold TUTTI_EVENT_SHOULD_RESUME; reason 0. */
    TUTTI_EVENT_INTERRUPTION_ENDED = 1,
    /* A source that does not loop (or ran out of loop wraps) played past its last frame (not
     * sent on stop or destroy); frame: the frame after its last sample; source and session
     * set; reason 0. */
    TUTTI_EVENT_SOURCE_ENDED = 2,
    /* The output route changed; reason: tutti_route_change_reason. */
    TUTTI_EVENT_ROUTE_CHANGED = 3,
    /* The session is ducked by another (one event per ducked session); reason 0. */
    TUTTI_EVENT_DUCKING_BEGAN = 4,
    /* The session is no longer ducked; reason 0. */
    TUTTI_EVENT_DUCKING_ENDED = 5,
    /* The output device missed a deadline (the total is in tutti_stats.xruns); reason 0. */
    TUTTI_EVENT_XRUN = 6,
    /* The output device was lost; the backend reconnects; reason 0. */
    TUTTI_EVENT_DEVICE_LOST = 7,
    /* The output device is back; reason 0. */
    TUTTI_EVENT_DEVICE_RESTORED = 8,
    /* The session's "secondary audio should be silenced" hint changed (a non-mixable session
     * other than it is heard, or a call is active); reason: TUTTI_SILENCE_HINT_*. */
    TUTTI_EVENT_SILENCE_SECONDARY_AUDIO_HINT = 9,
    /* A voice limit took this source's voice for another play: it fades out (10 ms) and stops;
     * source and session set; reason 0. */
    TUTTI_EVENT_VOICE_STOLEN = 10,
    /* A play of this source was refused by a voice limit (every voice it could take ranks
     * higher); source and session set; reason 0. */
    TUTTI_EVENT_VOICE_REFUSED = 11,
    /* A streaming file source (a file longer than the streaming threshold) cannot read its
     * file further (it shrank, vanished or has an unreadable tail): it plays silence from
     * there, counted in underrun_frames; source set, session set unless it is the engine's
     * own; reason 0. */
    TUTTI_EVENT_SOURCE_FAILED = 12,
    /* Delayed activations (a session made with TUTTI_SESSION_ACCEPTS_DELAYED_ACTIVATION,
     * tutti_session_create_with). The session's activation came during a phone call and waits
     * for its end; session set; reason 0. */
    TUTTI_EVENT_ACTIVATION_DELAYED = 13,
    /* The call ended: the delayed activation is granted; session set; reason 0. */
    TUTTI_EVENT_ACTIVATION_GRANTED = 14,
    /* The session was deactivated while its activation was delayed; session set; reason 0. */
    TUTTI_EVENT_ACTIVATION_CANCELLED = 15,
    /* A stream, input or streaming file source ran out of data while playing: from `frame` it
     * plays silence (counted in underrun_frames) until data returns; reason: the frames
     * missed in the render call where the run began; source set, session set unless it is
     * the engine's own. One event per run; while one waits to be polled, later runs of the
     * same source are not reported (the count goes on). */
    TUTTI_EVENT_SOURCE_UNDERRUN = 16,
    /* Other apps' audio changed (tutti_system_set_other_audio): flags hold
     * TUTTI_OTHER_AUDIO_PLAYING and TUTTI_OTHER_AUDIO_SILENCE_SECONDARY; session and
     * source 0; reason 0. The apps' names: tutti_system_get_other_audio_clients. */
    TUTTI_EVENT_OTHER_AUDIO_CHANGED = 17
};

/* tutti_event.reason of TUTTI_EVENT_INTERRUPTION_BEGAN. */
typedef int32_t tutti_interruption_reason;
enum {
    TUTTI_INTERRUPTION_REASON_OTHER_SESSION = 0, /* a non-mixable session activated */
    TUTTI_INTERRUPTION_REASON_PHONE_CALL = 1,
    TUTTI_INTERRUPTION_REASON_SPOKEN_AUDIO = 2, /* INTERRUPT_SPOKEN_AUDIO_AND_MIX from another */
    TUTTI_INTERRUPTION_REASON_BUILT_IN_MIC_MUTED = 3,
    TUTTI_INTERRUPTION_REASON_DUCKED = 4 /* a session that pauses instead of being ducked
                                            (pausesWhenDucked / speech) while another ducks */
};

/* tutti_event.reason of TUTTI_EVENT_ROUTE_CHANGED. */
typedef int32_t tutti_route_change_reason;
enum {
    TUTTI_ROUTE_CHANGE_REASON_NEW_DEVICE_AVAILABLE = 0, /* to headphones, bluetooth or external */
    TUTTI_ROUTE_CHANGE_REASON_OLD_DEVICE_UNAVAILABLE = 1, /* back to the speaker */
    TUTTI_ROUTE_CHANGE_REASON_OVERRIDE = 2
};

/* tutti_event.reason of TUTTI_EVENT_SILENCE_SECONDARY_AUDIO_HINT. */
enum { TUTTI_SILENCE_HINT_BEGAN = 0, TUTTI_SILENCE_HINT_ENDED = 1 };

/* tutti_event.flags: after INTERRUPTION_ENDED, the session may resume (the other session
 * deactivated with TUTTI_NOTIFY_OTHERS_ON_DEACTIVATION, or a phone call ended). */
#define TUTTI_EVENT_SHOULD_RESUME 1u
/* tutti_event.flags of OTHER_AUDIO_CHANGED: other apps play audio; one of them is not mixable. */
#define TUTTI_OTHER_AUDIO_PLAYING 2u
#define TUTTI_OTHER_AUDIO_SILENCE_SECONDARY 4u

/* Something that happened at a frame. Filled by the library (no struct_size). */
typedef struct tutti_event {
    int32_t type;          /* tutti_event_type: TUTTI_EVENT_* */
    int32_t reason;        /* per type, see TUTTI_EVENT_* */
    uint32_t flags;        /* TUTTI_EVENT_SHOULD_RESUME, TUTTI_OTHER_AUDIO_* */
    tutti_frame frame;     /* the frame it happened at */
    tutti_session session; /* 0 when none */
    tutti_source source;   /* 0 when none */
} tutti_event;

/* Takes the next event whose frame rendering has passed, in frame order, each once (events
 * are never dropped: the queues are sized for the configured maxima). Returns 1 with *out
 * filled, 0 when none is waiting, or TUTTI_ERROR_INVALID_ARGUMENT (negative) for a NULL
 * argument. Any thread. */
int tutti_engine_poll_event(tutti_engine *engine, tutti_event *out);
/* A file descriptor that polls readable (POLLIN) while events wait for
 * tutti_engine_poll_event (a library thread notices rendered events within a few
 * milliseconds), for hosts with an event loop. Do not read, write or close it: the engine
 * owns it until tutti_engine_destroy. Returns a negative tutti_result on failure. Any thread. */
int tutti_engine_event_fd(tutti_engine *engine);
/* The name of an event type without its prefix ("INTERRUPTION_BEGAN", ..., "OTHER_AUDIO_CHANGED";
 * "UNKNOWN" for a value that is no type), for logs. Static. Any thread, the real-time one
 * included. */
const char *tutti_event_type_string(int32_t type);

/* ------------------------------------------------------------------------------------------
 * Output to a device
 * ---------------------------------------------------------------------------------------- */

/* tutti_output_config.backend */
enum {
    TUTTI_BACKEND_ALSA = 0,
    TUTTI_BACKEND_JACK = 1, /* a JACK client (ports out_1..N to the physical playback ports); the server
                               sets the rate (must be the engine's) and the buffer size */
    TUTTI_BACKEND_PIPEWIRE = 2, /* a PipeWire stream (libpipewire-0.3 loaded at run time) playing the main
                                   bus at the engine's rate (PipeWire resamples), and one more per route
                                   past main named in routes (clock-corrected); device: the target node
                                   (name or serial; NULL: the default sink); period_frames: node.latency;
                                   while it plays, other apps' running playback streams are reported
                                   to the policy as tutti_system_set_other_audio does, and the sink it
                                   plays to going away (OLD_DEVICE_UNAVAILABLE: media pause) or the
                                   stream moving to another sink as tutti_system_set_route does
                                   (a bluetooth sink: TUTTI_ROUTE_BLUETOOTH; the card's active headphones
                                   port, or a headphones / headset sink: TUTTI_ROUTE_HEADPHONES; an HDMI,
                                   S/PDIF, line or USB port, or a USB sink: TUTTI_ROUTE_EXTERNAL; else
                                   SPEAKER; the active port switching on the same sink is a route change
                                   too; docs/backends.md;
                                   watch_desktop = 0 turns both off) */
    TUTTI_BACKEND_AUTO = 3 /* the first that works, decided by tutti_output_start: PIPEWIRE when libpipewire
                              loads and a daemon answers, else JACK when libjack loads and a server runs
                              (device: its name), else ALSA; the other fields go to the one chosen
                              (tutti_output_backend says which). (An addition.) */
};

/* Where an engine plays when it drives a device itself. Fill with tutti_output_config_init. */
typedef struct tutti_output_config {
    uint32_t struct_size;
    int32_t backend;        /* TUTTI_BACKEND_*; default ALSA */
    const char *device;     /* ALSA PCM name / JACK server name / PipeWire target node; NULL = default (copied) */
    uint32_t period_frames; /* 16..65536, 0 = backend default; ALSA: the period, PipeWire: node.latency
                               (JACK: must be 0) */
    uint32_t periods;       /* 2..64, 0 = backend default. ALSA: the device buffer's periods (default 4).
                               PipeWire: render on a thread of Tutti's own up to this many periods
                               (period_frames, default 1024) ahead of the graph, adding that latency
                               (0: render in the graph's cycle); main's stream only, so not with
                               capture, routes past main or TUTTI_STREAMS_PER_SESSION. JACK: must be 0 */
    /* Capture (added after the first release: read only when struct_size covers them, so
     * callers built against the older, 24-byte-on-LP64 layout keep working). */
    tutti_source capture;     /* an input source (tutti_source_create_input) the device's capture
                                 feeds instead of tutti_stream_write; 0 = none. JACK: ports
                                 in_1..N, N = its channels. ALSA: full duplex on a capture PCM
                                 at the output's rate, format and period, with its channels.
                                 PipeWire: an input stream at the engine's rate, its channels */
    const char *capture_from; /* JACK: ports connected to in_1, in_2, ... in order, separated by
                                 commas (e.g. "system:capture_1,system:capture_2"); NULL = none.
                                 ALSA: the capture PCM's name (e.g. "hw:1", "pulse"); NULL = the
                                 output's device. PipeWire: a source node (name or serial, or
                                 "SINK.monitor" for a sink's monitor); NULL = the default
                                 source; a node the daemon does not have: TUTTI_ERROR_DEVICE
                                 naming it and listing the sources. Copied. */
    /* Output buses (added after capture, read only when struct_size covers it; the field keeps
     * its first name, routes, as route_count / route_names of tutti_engine_config do). */
    const char *routes; /* where the output buses past main (route_names of the engine config) play:
                           "NAME=DEST;NAME=DEST" (copied). ALSA: DEST is the bus's PCM, e.g.
                           "cue=cuepcm" (commas included: "cue=hw:1,0"); main may be named too
                           (it overrides device); name every bus past main, or none (NULL: main only,
                           the others dropped); every PCM runs at main's rate, format and period
                           from the one render thread, and a lost one is reopened while main
                           plays on. JACK: DEST is the ports of the group NAME_1..N, separated by
                           commas, e.g. "cue=system:playback_3,system:playback_4"; a bus not
                           named stays unconnected. PipeWire: DEST is the sink node (name or
                           serial) the bus's own stream plays to, e.g. "cue=headphones_sink"; a
                           bus not named is not played. An unknown bus or a malformed entry:
                           INVALID_ARGUMENT naming it */
    /* MPRIS (added after routes, read only when struct_size covers it). */
    uint32_t mpris; /* 1 = serve MPRIS on the session bus while the output runs (default 0): the name
                       org.mpris.MediaPlayer2.tutti (org.mpris.MediaPlayer2.tutti.instance<PID> when
                       another process has it). Play, Pause, PlayPause, Next, Previous and Stop act as
                       tutti_system_remote_command (the now-playing session, if it listed the
                       command); PlaybackStatus, Metadata and Position follow the now-playing session
                       and the frames rendered (read every 50 ms on a thread of its own). Without a
                       session bus or libsystemd.so.0 (Debian package libsystemd0) the output plays
                       anyway, without MPRIS. Other values than 0 and 1: INVALID_ARGUMENT */
    /* Watching other apps (added after mpris, read only when struct_size covers it). The mpris
     * layout's sizeof already holds 4 bytes of tail padding on LP64, so the new field starts past
     * them: a caller built against that header (struct_size 64) keeps the default. */
    uint32_t reserved0;         /* the mpris layout's tail padding: never read; leave it as init set it (0) */
    /* One field, two names (an anonymous union: same offset, same size, the ABI unchanged). */
#if defined(__GNUC__) || defined(__clang__)
    __extension__ /* an anonymous union is C11 (and C++); the header stays C99 */
#endif
    union {
        uint32_t watch_desktop;     /* 1 = with TUTTI_BACKEND_PIPEWIRE (or AUTO resolved to it), watch the
                                       desktop while playing: follow other apps' running playback streams
                                       and report them to the policy as tutti_system_set_other_audio does,
                                       and follow the sink it plays to (TUTTI_BACKEND_PIPEWIRE above) as
                                       tutti_system_set_route does (default 1); 0 = do not watch (other
                                       apps' audio and the route stay what the host sets). ALSA and JACK
                                       see no other apps and ignore it. Other values than 0 and 1:
                                       INVALID_ARGUMENT */
        uint32_t watch_other_audio; /* its former name (deprecated: kept for one release) */
    };
    /* Streams per session (added after watch_desktop, read only when struct_size covers it). The
     * watch_desktop layout's sizeof holds 4 bytes of tail padding on LP64: the new field starts
     * past them, so a caller built against that header keeps the default. */
    uint32_t reserved1; /* the watch_desktop layout's tail padding: never read; leave it as init set it (0) */
    uint32_t streams;   /* TUTTI_STREAMS_SINGLE (default): one stream carries the mix. TUTTI_STREAMS_PER_SESSION:
                           with TUTTI_BACKEND_PIPEWIRE (or AUTO resolved to it), each session that has
                           output plays through a stream of its own (those made while playing too, as
                           many as the engine has buses; a removed session's is closed and reused), node.name
                           "tutti-SESSION", media.name the session's id, media.role its role (the table
                           in docs/backends.md, or tutti_session_set_media_role's, announced again when
                           it changes while playing; closed when the session is removed); main's stream keeps
                           the call audio and system sounds; the streams add up to the
                           single-stream mix. ALSA, JACK, or an engine with master effects or a limiter:
                           INVALID_ARGUMENT. Other values: INVALID_ARGUMENT */
} tutti_output_config;

/* tutti_output_config.streams */
enum {
    TUTTI_STREAMS_SINGLE = 0,     /* one stream (per output bus) for the whole mix */
    TUTTI_STREAMS_PER_SESSION = 1 /* PipeWire: one stream per session, with its media.role */
};

/* Sets the defaults (ALSA "default", backend periods, no MPRIS, other apps watched) and struct_size. NULL
 * is ignored. Any thread. */
void tutti_output_config_init(tutti_output_config *config);
/* The same for a struct of `size` bytes (the caller's sizeof): writes the defaults of the
 * fields that fit, never a byte past `size`, and sets struct_size to the size this library
 * fills (the smaller of `size` and its own). Any thread. */
void tutti_output_config_init_size(tutti_output_config *config, uint32_t size);
/* Calls go through this macro, so the size is the sizeof of the header the caller was built
 * with. The exported tutti_output_config_init symbol (binaries built against an earlier tutti.h call it)
 * writes the layout it wrote when the sized call came, never more. */
#define tutti_output_config_init(config) tutti_output_config_init_size((config), (uint32_t)sizeof(tutti_output_config))
/* Plays the engine on a device from the backend's real-time thread. While it runs,
 * tutti_engine_render returns TUTTI_ERROR_STATE; xruns and device loss come as events. A lost
 * device (or JACK server) is a route change for the policy: ROUTE_CHANGED with
 * OLD_DEVICE_UNAVAILABLE (media sessions pause from the next block rendered and stay paused),
 * then DEVICE_LOST; when it is back, ROUTE_CHANGED with NEW_DEVICE_AVAILABLE, then
 * DEVICE_RESTORED. The backend reconnects by itself.
 * TUTTI_ERROR_STATE if an output already runs or a pull render is in progress,
 * TUTTI_ERROR_DEVICE when the device cannot be opened (the message says why), also when the
 * backend's library is missing: ALSA's libasound.so.2 (Debian package libasound2, named
 * libasound2t64 since Debian 13 and Ubuntu 24.04), JACK's libjack.so.0 (libjack-jackd2-0),
 * opened the first time that backend is used. Any thread. */
tutti_result tutti_output_start(tutti_engine *engine, const tutti_output_config *config);
/* Stops the output if one runs (its thread ends, the device closes); pull rendering works
 * again. TUTTI_OK when none runs. Any thread. */
tutti_result tutti_output_stop(tutti_engine *engine);
/* Flag of tutti_output_stop_with: stop rendering, then let the device play out what it already
 * holds before it closes (the call blocks for about latency_frames; at most a second with
 * JACK): the last frames rendered are heard, and reach a recording of the output. Without it
 * they are dropped. */
#define TUTTI_OUTPUT_STOP_DRAIN 1u
/* tutti_output_stop with flags (an OR of TUTTI_OUTPUT_STOP_*; 0 is tutti_output_stop).
 * TUTTI_ERROR_INVALID_ARGUMENT for an unknown flag (nothing stopped). Any thread but the
 * output's own. (An addition.) */
tutti_result tutti_output_stop_with(tutti_engine *engine, uint32_t flags);
/* *running gets 1 while an output started by tutti_output_start runs, else 0. Any thread.
 * (An addition.) */
tutti_result tutti_output_is_running(tutti_engine *engine, int32_t *running);
/* *backend gets the TUTTI_BACKEND_* the running output plays through (never TUTTI_BACKEND_AUTO:
 * what it resolved to). TUTTI_ERROR_STATE when no output runs. Any thread. (An addition.) */
tutti_result tutti_output_backend(tutti_engine *engine, int32_t *backend);

/* ------------------------------------------------------------------------------------------
 * Statistics
 * ---------------------------------------------------------------------------------------- */

/* Counters of an engine. Fill struct_size with tutti_stats_init first. */
typedef struct tutti_stats {
    uint32_t struct_size;
    tutti_frame frames_rendered; /* the engine clock */
    uint32_t sources;            /* live sources of sessions */
    uint32_t sessions;           /* live sessions */
    uint64_t xruns;              /* output deadlines missed (0 without an output) */
    uint64_t underrun_frames;    /* frames live stream sources rendered with no data */
    uint64_t events_dropped;     /* stays 0: every queue is sized so none can be */
    uint32_t latency_frames;     /* output latency: the device's when an output runs (else 0),
                                    plus the limiter's lookahead (config limiter_*) if any */
} tutti_stats;

/* Zeroes the struct and sets struct_size. NULL is ignored. Any thread. */
void tutti_stats_init(tutti_stats *stats);
/* The same for a struct of `size` bytes (the caller's sizeof): writes the defaults of the
 * fields that fit, never a byte past `size`, and sets struct_size to the size this library
 * fills (the smaller of `size` and its own). Any thread. */
void tutti_stats_init_size(tutti_stats *stats, uint32_t size);
/* Calls go through this macro, so the size is the sizeof of the header the caller was built
 * with. The exported tutti_stats_init symbol (binaries built against an earlier tutti.h call it)
 * writes the layout it wrote when the sized call came, never more. */
#define tutti_stats_init(stats) tutti_stats_init_size((stats), (uint32_t)sizeof(tutti_stats))
/* Fills *out (the fields its struct_size covers). Any thread. */
tutti_result tutti_engine_get_stats(tutti_engine *engine, tutti_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* TUTTI_H */
