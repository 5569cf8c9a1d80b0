"""Tutti for Python: the C library libtutti (include/tutti.h) through ctypes, no compile step.

    import tutti
    with tutti.Engine(sample_rate=48000, channels=2) as engine:
        music = engine.session("music", tutti.Category.PLAYBACK)
        tone = music.tone(440.0, 0.5)
        tone.play()
        audio = engine.render(48000)          # numpy float32, shape (48000, 2)
        for event in engine.events():
            print(event.frame, event.type_name)

The library is found through TUTTI_LIBRARY (a path to libtutti.so.1), else
ctypes.util.find_library("tutti"), else LD_LIBRARY_PATH and the usual prefixes (~/.local,
/usr/local, /usr). Every failing call raises a TuttiError subclass carrying the library's
message. Units: frames at the engine's rate, ``at=None`` = TUTTI_NOW.
"""

from . import constants
from ._api import (
    ENUM_PREFIXES,
    Attribute,
    Backend,
    CapacityError,
    Category,
    DeniedError,
    DeviceError,
    DuckingRule,
    DuckingTrigger,
    Effect,
    EffectType,
    Engine,
    Event,
    EventType,
    Focus,
    FormatError,
    Input,
    Interaction,
    InterruptionReason,
    InvalidArgumentError,
    Mode,
    NotFoundError,
    Option,
    Outcome,
    Recording,
    RemoteCommand,
    ResamplerQuality,
    Result,
    Route,
    RouteChangeReason,
    Session,
    Source,
    SourceInfo,
    SourceState,
    SourceStatus,
    SessionState,
    SessionStatus,
    SilenceHint,
    SilenceReason,
    SystemState,
    OtherAudioState,
    StateError,
    Stats,
    Stream,
    TuttiError,
    TuttiIOError,
    VersionError,
)
from ._native import library_path
from ._native import lib as _lib

#: The package's version (the header's TUTTI_VERSION_* it was written against).
__version__ = f"{constants.TUTTI_VERSION_MAJOR}.{constants.TUTTI_VERSION_MINOR}.{constants.TUTTI_VERSION_PATCH}"
NOW = constants.TUTTI_NOW


def version() -> str:
    """The loaded library's version string (tutti_version_string)."""
    return _lib.tutti_version_string().decode()


def last_error() -> str:
    """tutti_last_error() on this thread ("" if no call failed)."""
    return _lib.tutti_last_error().decode("utf-8", "replace")


__all__ = [
    "Attribute", "CapacityError", "Category", "DeniedError", "DeviceError", "Engine", "Event",
    "EventType", "Focus", "FormatError", "InterruptionReason", "InvalidArgumentError", "Mode",
    "NOW", "NotFoundError", "Option", "RemoteCommand", "Result", "Route", "RouteChangeReason",
    "Session", "SessionState", "SessionStatus", "SilenceHint", "SilenceReason", "Source", "SourceInfo",
    "SourceState", "SourceStatus", "StateError", "Stats", "SystemState", "OtherAudioState",
    "Stream", "TuttiError", "TuttiIOError", "VersionError", "constants", "last_error",
    "library_path", "version", "ENUM_PREFIXES", "Backend", "ResamplerQuality", "DuckingRule", "DuckingTrigger", "Effect", "EffectType",
    "Input", "Interaction", "Outcome", "Recording",
]
