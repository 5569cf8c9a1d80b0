"""Loading libtutti and declaring the C prototypes of include/tutti.h (ctypes, no compile step).

Every function the package calls has its argtypes and restype declared here: ids are
``uint64_t`` and frames ``int64_t``, which ctypes would otherwise pass as a C ``int`` (an
undeclared id arrives truncated and every call fails with TUTTI_ERROR_NOT_FOUND).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    Union,
    c_char_p,
    c_double,
    c_float,
    c_int,
    c_int32,
    c_int64,
    c_size_t,
    c_uint32,
    c_uint64,
    c_void_p,
)

from . import constants as C

_SONAME = f"libtutti.so.{C.TUTTI_ABI_VERSION}"
_PREFIXES = ("~/.local", "/usr/local", "/usr", "/opt/tutti")


def _candidates() -> list[str]:
    """Where the library is looked for, in order (TUTTI_LIBRARY is handled by _load)."""
    found = ctypes.util.find_library("tutti")
    paths = [found] if found else []
    dirs = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if d]
    dirs += [os.path.join(os.path.expanduser(p), "lib") for p in _PREFIXES]
    dirs += ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu"]
    for d in dirs:
        for name in (_SONAME, "libtutti.so"):
            path = os.path.join(d, name)
            if os.path.exists(path):
                paths.append(path)
    return paths


def _load() -> tuple[ctypes.CDLL, str]:
    explicit = os.environ.get("TUTTI_LIBRARY")
    if explicit:
        try:
            return ctypes.CDLL(explicit), explicit
        except OSError as error:
            raise ImportError(
                f"tutti: TUTTI_LIBRARY={explicit!r} cannot be loaded ({error}); point it at the "
                f"{_SONAME} that scripts/install.sh installed (PREFIX/lib/{_SONAME})"
            ) from error
    tried = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path), path
        except OSError as error:
            tried.append(f"{path}: {error}")
    detail = ("; tried " + "; ".join(tried)) if tried else ""
    raise ImportError(
        f"tutti: cannot find the C library {_SONAME}{detail}. Build and install it with "
        "`scripts/install.sh --prefix PREFIX` from the Tutti checkout, then set "
        f"TUTTI_LIBRARY=PREFIX/lib/{_SONAME} (or LD_LIBRARY_PATH=PREFIX/lib, or install into "
        "~/.local, /usr/local or /usr)"
    )


lib, library_path = _load()


class EngineConfig(Structure):
    """tutti_engine_config, the seventh layout (the engine's file and stream qualities, after
    the master stage, `flags` and the engine's ducking envelope)."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("sample_rate", c_uint32),
        ("channels", c_uint32),
        ("max_block_frames", c_uint32),
        ("max_sources", c_uint32),
        ("max_sessions", c_uint32),
        ("command_queue_capacity", c_uint32),
        ("route_count", c_uint32),  # the output bus count (the C field keeps its first name)
        ("route_names", POINTER(c_char_p)),  # the output bus names
        ("limiter_enabled", c_int32),
        ("limiter_ceiling_db", c_float),
        ("limiter_release_seconds", c_float),
        ("limiter_lookahead_seconds", c_float),
        ("loss_fade_seconds", c_float),
        ("flags", c_uint32),
        ("ducking_level_db", c_float),
        ("ducking_attack_seconds", c_float),
        ("ducking_release_seconds", c_float),
        ("master_effects_enabled", c_int32),
        ("master_effect_count", c_uint32),
        ("master_effects", c_void_p),
        ("file_quality", c_int32),
        ("stream_quality", c_int32),
    ]


class SourceInfo(Structure):
    """tutti_source_info, the third layout (`panned`, `pan`)."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("state", c_int32),
        ("position", c_int64),
        ("length", c_int64),
        ("underrun_frames", c_uint64),
        ("gain", c_float),
        ("rate", c_double),
        ("panned", c_int32),
        ("pan", c_float),
    ]


class Stats(Structure):
    """tutti_stats."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("frames_rendered", c_int64),
        ("sources", c_uint32),
        ("sessions", c_uint32),
        ("xruns", c_uint64),
        ("underrun_frames", c_uint64),
        ("events_dropped", c_uint64),
        ("latency_frames", c_uint32),
    ]


class RawEvent(Structure):
    """tutti_event."""

    _fields_ = [
        ("type", c_int32),
        ("reason", c_int32),
        ("flags", c_uint32),
        ("frame", c_int64),
        ("session", c_uint64),
        ("source", c_uint64),
    ]


class Interaction(Structure):
    """tutti_interaction: one row of the interaction table."""

    _fields_ = [
        ("active_session", c_uint64),
        ("active_category", c_int32),
        ("incoming_session", c_uint64),
        ("incoming_category", c_int32),
        ("outcome", c_int32),
    ]


class DuckingRule(Structure):
    """tutti_ducking_rule."""

    _fields_ = [
        ("by_session", c_uint64),
        ("by_category", c_int32),
        ("duck_session", c_uint64),
        ("duck_category", c_int32),
        ("level_db", c_float),
        ("attack_seconds", c_float),
        ("release_seconds", c_float),
    ]


class DuckingRule2(Structure):
    """tutti_ducking_rule2: a ducking rule with its trigger (the first layout)."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("by_session", c_uint64),
        ("by_category", c_int32),
        ("duck_session", c_uint64),
        ("duck_category", c_int32),
        ("level_db", c_float),
        ("attack_seconds", c_float),
        ("release_seconds", c_float),
        ("trigger", c_int32),
        ("threshold_db", c_float),
        ("hold_seconds", c_float),
    ]


class Effect(Structure):
    """tutti_effect."""

    _fields_ = [("type", c_int32)] + [
        (name, c_double)
        for name in (
            "frequency_hz",
            "q",
            "gain_db",
            "threshold_db",
            "ratio",
            "attack_seconds",
            "release_seconds",
            "makeup_db",
            "time_seconds",
            "feedback",
            "mix",
        )
    ]


class _WatchDesktop(Union):
    """The anonymous union of tutti_output_config: watch_desktop and its former name
    watch_other_audio, one field."""

    _fields_ = [("watch_desktop", c_uint32), ("watch_other_audio", c_uint32)]


class OutputConfig(Structure):
    """tutti_output_config, the sixth layout (capture, then routes, then mpris, then
    watch_desktop (also named watch_other_audio: an anonymous union) past the mpris layout's
    tail padding, reserved0, then streams past the watch_desktop layout's, reserved1)."""

    _anonymous_ = ("_watch",)

    _fields_ = [
        ("struct_size", c_uint32),
        ("backend", c_int32),
        ("device", c_char_p),
        ("period_frames", c_uint32),
        ("periods", c_uint32),
        ("capture", c_uint64),
        ("capture_from", c_char_p),
        ("routes", c_char_p),
        ("mpris", c_uint32),
        ("reserved0", c_uint32),
        ("_watch", _WatchDesktop),
        ("reserved1", c_uint32),
        ("streams", c_uint32),
    ]


def init_struct(struct_type, init_function):
    """A struct filled by its ``..._init_size`` function with struct_size set to OUR layout.

    Given a TUTTI_MAX_STRUCT_SIZE buffer, the init function writes the library's own layout,
    which may be larger than ours (a newer library); struct_size is then set to our layout's
    size (a released layout, which every later library accepts).
    """
    buffer = (ctypes.c_uint8 * C.TUTTI_MAX_STRUCT_SIZE)()
    init_function(ctypes.byref(buffer), C.TUTTI_MAX_STRUCT_SIZE)
    struct = struct_type.from_buffer_copy(buffer, 0)
    struct.struct_size = ctypes.sizeof(struct_type)
    return struct


engine_p = c_void_p
# tutti_effect_callback(float *interleaved, uint32_t frames, uint32_t channels, void *user)
EffectCallback = CFUNCTYPE(None, POINTER(c_float), c_uint32, c_uint32, c_void_p)
# tutti_effect_release(void *user)
EffectRelease = CFUNCTYPE(None, c_void_p)
result = c_int32
session_t = c_uint64
source_t = c_uint64
frame_t = c_int64

_PROTOTYPES = {
    "tutti_version": (c_uint32, []),
    "tutti_version_string": (c_char_p, []),
    "tutti_abi_version": (c_uint32, []),
    "tutti_result_string": (c_char_p, [result]),
    "tutti_last_error": (c_char_p, []),
    "tutti_engine_config_init": (None, [c_void_p]),
    "tutti_engine_config_init_size": (None, [c_void_p, c_uint32]),
    "tutti_engine_create": (result, [POINTER(EngineConfig), POINTER(engine_p)]),
    "tutti_engine_destroy": (None, [engine_p]),
    "tutti_engine_render": (result, [engine_p, POINTER(c_float), c_uint32]),
    "tutti_engine_get_frame": (frame_t, [engine_p]),
    "tutti_engine_set_max_voices": (result, [engine_p, c_uint32, frame_t]),
    "tutti_engine_poll_event": (c_int, [engine_p, POINTER(RawEvent)]),
    "tutti_event_type_string": (c_char_p, [c_int32]),
    "tutti_engine_event_fd": (c_int, [engine_p]),
    "tutti_stats_init": (None, [c_void_p]),
    "tutti_stats_init_size": (None, [c_void_p, c_uint32]),
    "tutti_engine_get_stats": (result, [engine_p, POINTER(Stats)]),
    "tutti_session_create": (result, [engine_p, c_char_p, POINTER(session_t)]),
    "tutti_session_create_with": (result, [engine_p, c_char_p, c_int32, c_uint32, POINTER(session_t)]),
    "tutti_session_set_category": (result, [engine_p, session_t, c_int32, c_int32, c_uint32]),
    "tutti_session_set_active": (result, [engine_p, session_t, c_int, c_uint32, frame_t]),
    "tutti_session_set_foreground": (result, [engine_p, session_t, c_int, frame_t]),
    "tutti_session_set_remote_commands": (result, [engine_p, session_t, c_uint32]),
    "tutti_session_set_max_voices": (result, [engine_p, session_t, c_uint32, frame_t]),
    "tutti_session_destroy": (result, [engine_p, session_t, frame_t]),
    "tutti_source_create_file": (result, [engine_p, session_t, c_char_p, c_uint32, POINTER(source_t)]),
    "tutti_source_create_tone": (result, [engine_p, session_t, c_double, c_float, POINTER(source_t)]),
    "tutti_source_create_stream": (result, [engine_p, session_t, c_uint32, c_uint32, c_uint32, POINTER(source_t)]),
    "tutti_stream_write": (result, [engine_p, source_t, POINTER(c_float), c_uint32, POINTER(c_uint32)]),
    "tutti_stream_end": (result, [engine_p, source_t]),
    "tutti_source_play": (result, [engine_p, source_t, frame_t]),
    "tutti_source_pause": (result, [engine_p, source_t, frame_t]),
    "tutti_source_stop": (result, [engine_p, source_t, frame_t]),
    "tutti_source_seek": (result, [engine_p, source_t, c_int64, frame_t]),
    "tutti_source_crossfade": (result, [engine_p, source_t, source_t, c_uint32, frame_t]),
    "tutti_source_set_gain": (result, [engine_p, source_t, c_float, c_uint32, frame_t]),
    "tutti_source_set_pan": (result, [engine_p, source_t, c_float, c_uint32, frame_t]),
    "tutti_source_set_priority": (result, [engine_p, source_t, c_uint32, frame_t]),
    "tutti_source_set_fades": (result, [engine_p, source_t, c_uint32, c_uint32]),
    "tutti_source_destroy": (result, [engine_p, source_t, frame_t]),
    "tutti_source_info_init": (None, [c_void_p]),
    "tutti_source_info_init_size": (None, [c_void_p, c_uint32]),
    "tutti_source_get_info": (result, [engine_p, source_t, POINTER(SourceInfo)]),
    "tutti_source_get_status": (
        result,
        [engine_p, source_t, POINTER(c_int32), POINTER(c_int64), POINTER(c_uint64)],
    ),
    "tutti_system_set_silent_switch": (result, [engine_p, c_int, frame_t]),
    "tutti_system_set_locked": (result, [engine_p, c_int, frame_t]),
    "tutti_system_set_volume": (result, [engine_p, c_float, frame_t]),
    "tutti_system_set_ringer_volume": (result, [engine_p, c_float, frame_t]),
    "tutti_system_set_route": (result, [engine_p, c_int32, frame_t]),
    "tutti_system_set_mic_muted": (result, [engine_p, c_int, frame_t]),
    "tutti_system_set_other_audio": (result, [engine_p, c_int, c_int, POINTER(c_char_p), c_size_t, frame_t]),
    "tutti_system_get_other_audio": (result, [engine_p, POINTER(c_int32), POINTER(c_int32)]),
    "tutti_system_get_other_audio_clients": (result, [engine_p, c_char_p, c_size_t, POINTER(c_size_t), POINTER(c_size_t)]),
    "tutti_system_begin_phone_call": (result, [engine_p, frame_t]),
    "tutti_system_end_phone_call": (result, [engine_p, frame_t]),
    "tutti_system_remote_command": (result, [engine_p, c_int32, frame_t]),
    "tutti_system_press_volume_button": (result, [engine_p, c_int, frame_t]),
    "tutti_system_get_state": (
        result,
        [engine_p, POINTER(c_float), POINTER(c_float), POINTER(c_int32), POINTER(c_int32), POINTER(c_int32), POINTER(c_int32),
         POINTER(c_int32)],
    ),
    "tutti_session_get_state": (
        result,
        [engine_p, session_t, POINTER(c_int32), POINTER(c_int32), POINTER(c_int32), POINTER(c_int32)],
    ),
    "tutti_source_create_silence": (result, [engine_p, session_t, POINTER(source_t)]),
    "tutti_source_get_route": (result, [engine_p, source_t, c_char_p, c_size_t, POINTER(c_size_t)]),
    "tutti_source_set_route": (result, [engine_p, source_t, c_char_p, frame_t]),
    "tutti_source_get_output_bus": (result, [engine_p, source_t, c_char_p, c_size_t, POINTER(c_size_t)]),
    "tutti_source_set_output_bus": (result, [engine_p, source_t, c_char_p, frame_t]),
    "tutti_source_set_loop": (result, [engine_p, source_t, c_int, c_int64, c_int64, c_int32, frame_t]),
    "tutti_source_set_rate": (result, [engine_p, source_t, c_double, c_uint32, frame_t]),
    "tutti_engine_render_routes": (result, [engine_p, POINTER(POINTER(c_float)), c_uint32, c_uint32]),
    "tutti_engine_render_output_buses": (result, [engine_p, POINTER(POINTER(c_float)), c_uint32, c_uint32]),
    "tutti_engine_set_ducking_rules": (result, [engine_p, POINTER(DuckingRule), c_uint32, frame_t]),
    "tutti_ducking_rule2_init": (None, [c_void_p]),
    "tutti_ducking_rule2_init_size": (None, [c_void_p, c_uint32]),
    "tutti_engine_set_ducking_rules2": (result, [engine_p, POINTER(DuckingRule2), c_uint32, frame_t]),
    "tutti_engine_set_interactions": (result, [engine_p, POINTER(Interaction), c_uint32, frame_t]),
    "tutti_session_set_gain": (result, [engine_p, session_t, c_float, c_uint32, frame_t]),
    "tutti_session_resume": (result, [engine_p, session_t, frame_t]),
    "tutti_session_set_media_role": (result, [engine_p, session_t, c_char_p]),
    "tutti_session_get_media_role": (result, [engine_p, session_t, c_char_p, c_size_t, POINTER(c_size_t)]),
    "tutti_session_set_effects": (result, [engine_p, session_t, POINTER(Effect), c_uint32, frame_t]),
    "tutti_session_set_effect": (result, [engine_p, session_t, c_uint32, POINTER(Effect), c_int64, frame_t]),
    "tutti_bus_set_effect": (result, [engine_p, session_t, EffectCallback, EffectRelease, c_void_p, frame_t]),
    "tutti_master_set_effect": (result, [engine_p, EffectCallback, EffectRelease, c_void_p, frame_t]),
    "tutti_source_create_buffer": (
        result,
        [engine_p, session_t, POINTER(c_float), c_uint32, c_uint32, c_uint32, c_uint32, POINTER(source_t)],
    ),
    "tutti_source_create_input": (result, [engine_p, session_t, c_uint32, c_uint32, c_uint32, POINTER(source_t)]),
    "tutti_input_read_recorded": (result, [engine_p, source_t, POINTER(c_float), c_uint32, POINTER(c_uint32)]),
    "tutti_input_get_recording": (result, [engine_p, source_t, POINTER(c_int64), POINTER(c_uint64)]),
    "tutti_output_config_init": (None, [c_void_p]),
    "tutti_output_config_init_size": (None, [c_void_p, c_uint32]),
    "tutti_output_start": (result, [engine_p, POINTER(OutputConfig)]),
    "tutti_output_stop": (result, [engine_p]),
    "tutti_output_stop_with": (result, [engine_p, c_uint32]),
    "tutti_output_is_running": (result, [engine_p, POINTER(c_int32)]),
    "tutti_output_backend": (result, [engine_p, POINTER(c_int32)]),
}

for _name, (_restype, _argtypes) in _PROTOTYPES.items():
    try:
        _function = getattr(lib, _name)
    except AttributeError as _error:
        raise ImportError(
            f"tutti: {library_path} has no {_name}: the library is older than this package "
            f"(install the libtutti of the same checkout)"
        ) from _error
    _function.restype = _restype
    _function.argtypes = _argtypes

#: The C names this package declares (tests check each is a function of include/tutti.h).
DECLARED = tuple(_PROTOTYPES)

if lib.tutti_abi_version() != C.TUTTI_ABI_VERSION:
    raise ImportError(
        f"tutti: {library_path} has ABI {lib.tutti_abi_version()}, this package needs "
        f"{C.TUTTI_ABI_VERSION}"
    )
