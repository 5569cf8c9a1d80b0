"""The Pythonic surface over include/tutti.h: Engine, Session, Source, Stream, Event, TuttiError.

Units are the C API's: frames at the engine's rate on the engine clock (``at=None`` is
TUTTI_NOW, the first frame of the next block rendered), gains linear, frequencies in Hz.
Threads: as in C, any thread may call anything except while another thread destroys the
engine; ``Engine.render`` and ``Stream.write`` are the real-time calls (one renderer, one
writer per stream). ctypes releases the GIL around each C call.
"""

from __future__ import annotations

import ctypes
import enum
import itertools
import os
import threading
import warnings
import weakref
from dataclasses import dataclass
from typing import Callable, Iterator, Mapping, NamedTuple, Optional, Sequence, Union

import numpy as np

from . import constants as C
from ._native import DuckingRule2 as _DuckingRule2
from ._native import Effect as _Effect
from ._native import EffectCallback as _EffectCallback
from ._native import EffectRelease as _EffectRelease
from ._native import EngineConfig, RawEvent, SourceInfo as _SourceInfo, Stats as _Stats, init_struct, lib
from ._native import Interaction as _Interaction
from ._native import OutputConfig as _OutputConfig

# ---------------------------------------------------------------------------------------------
# Enums (values from constants, which tests/test_constants.py checks against the header)
# ---------------------------------------------------------------------------------------------



def _deprecated(old: str, new: str) -> None:
    """A DeprecationWarning for a name kept for one release (an output bus was a "route")."""
    warnings.warn(f"{old} is deprecated, use {new}", DeprecationWarning, stacklevel=3)

class Result(enum.IntEnum):
    """tutti_result: TUTTI_OK or a TUTTI_ERROR_* code."""

    OK = C.TUTTI_OK
    INVALID_ARGUMENT = C.TUTTI_ERROR_INVALID_ARGUMENT
    NOT_FOUND = C.TUTTI_ERROR_NOT_FOUND
    IO = C.TUTTI_ERROR_IO
    FORMAT = C.TUTTI_ERROR_FORMAT
    CAPACITY = C.TUTTI_ERROR_CAPACITY
    DENIED = C.TUTTI_ERROR_DENIED
    STATE = C.TUTTI_ERROR_STATE
    DEVICE = C.TUTTI_ERROR_DEVICE
    VERSION = C.TUTTI_ERROR_VERSION


class Category(enum.IntEnum):
    """tutti_category (TUTTI_CATEGORY_*)."""

    SOLO_AMBIENT = C.TUTTI_CATEGORY_SOLO_AMBIENT
    AMBIENT = C.TUTTI_CATEGORY_AMBIENT
    PLAYBACK = C.TUTTI_CATEGORY_PLAYBACK
    RECORD = C.TUTTI_CATEGORY_RECORD
    PLAY_AND_RECORD = C.TUTTI_CATEGORY_PLAY_AND_RECORD
    AUDIO_PROCESSING = C.TUTTI_CATEGORY_AUDIO_PROCESSING
    MULTI_ROUTE = C.TUTTI_CATEGORY_MULTI_ROUTE


class Mode(enum.IntEnum):
    """tutti_mode (TUTTI_MODE_*)."""

    DEFAULT = C.TUTTI_MODE_DEFAULT
    SPOKEN_AUDIO = C.TUTTI_MODE_SPOKEN_AUDIO
    VOICE_CHAT = C.TUTTI_MODE_VOICE_CHAT
    VIDEO_CHAT = C.TUTTI_MODE_VIDEO_CHAT
    GAME_CHAT = C.TUTTI_MODE_GAME_CHAT
    MEASUREMENT = C.TUTTI_MODE_MEASUREMENT
    MOVIE_PLAYBACK = C.TUTTI_MODE_MOVIE_PLAYBACK
    VOICE_PROMPT = C.TUTTI_MODE_VOICE_PROMPT


class Option(enum.IntFlag):
    """Category option bits (TUTTI_OPTION_*), OR them."""

    MIX_WITH_OTHERS = C.TUTTI_OPTION_MIX_WITH_OTHERS
    DUCK_OTHERS = C.TUTTI_OPTION_DUCK_OTHERS
    INTERRUPT_SPOKEN_AUDIO_AND_MIX = C.TUTTI_OPTION_INTERRUPT_SPOKEN_AUDIO_AND_MIX
    ALLOW_BLUETOOTH = C.TUTTI_OPTION_ALLOW_BLUETOOTH
    DEFAULT_TO_SPEAKER = C.TUTTI_OPTION_DEFAULT_TO_SPEAKER


class Attribute(enum.IntFlag):
    """Session attributes fixed at creation (TUTTI_SESSION_*), OR them."""

    PAUSES_WHEN_DUCKED = C.TUTTI_SESSION_PAUSES_WHEN_DUCKED
    SPEECH = C.TUTTI_SESSION_SPEECH
    ACCEPTS_DELAYED_ACTIVATION = C.TUTTI_SESSION_ACCEPTS_DELAYED_ACTIVATION
    ACCESSIBILITY = C.TUTTI_SESSION_ACCESSIBILITY
    MANUAL_RESUME = C.TUTTI_SESSION_MANUAL_RESUME


class Focus(enum.IntEnum):
    """The focus request of an activation (TUTTI_FOCUS_*; GAIN is 0, none)."""

    GAIN = 0
    TRANSIENT = C.TUTTI_FOCUS_TRANSIENT
    TRANSIENT_MAY_DUCK = C.TUTTI_FOCUS_TRANSIENT_MAY_DUCK
    TRANSIENT_EXCLUSIVE = C.TUTTI_FOCUS_TRANSIENT_EXCLUSIVE


class SourceState(enum.IntEnum):
    """Where a source is in its life (TUTTI_SOURCE_STOPPED ... _ENDED)."""

    STOPPED = C.TUTTI_SOURCE_STOPPED
    PLAYING = C.TUTTI_SOURCE_PLAYING
    PAUSED = C.TUTTI_SOURCE_PAUSED
    ENDED = C.TUTTI_SOURCE_ENDED


class EventType(enum.IntEnum):
    """tutti_event_type (TUTTI_EVENT_*)."""

    INTERRUPTION_BEGAN = C.TUTTI_EVENT_INTERRUPTION_BEGAN
    INTERRUPTION_ENDED = C.TUTTI_EVENT_INTERRUPTION_ENDED
    SOURCE_ENDED = C.TUTTI_EVENT_SOURCE_ENDED
    ROUTE_CHANGED = C.TUTTI_EVENT_ROUTE_CHANGED
    DUCKING_BEGAN = C.TUTTI_EVENT_DUCKING_BEGAN
    DUCKING_ENDED = C.TUTTI_EVENT_DUCKING_ENDED
    XRUN = C.TUTTI_EVENT_XRUN
    DEVICE_LOST = C.TUTTI_EVENT_DEVICE_LOST
    DEVICE_RESTORED = C.TUTTI_EVENT_DEVICE_RESTORED
    SILENCE_SECONDARY_AUDIO_HINT = C.TUTTI_EVENT_SILENCE_SECONDARY_AUDIO_HINT
    VOICE_STOLEN = C.TUTTI_EVENT_VOICE_STOLEN
    VOICE_REFUSED = C.TUTTI_EVENT_VOICE_REFUSED
    SOURCE_FAILED = C.TUTTI_EVENT_SOURCE_FAILED
    ACTIVATION_DELAYED = C.TUTTI_EVENT_ACTIVATION_DELAYED
    ACTIVATION_GRANTED = C.TUTTI_EVENT_ACTIVATION_GRANTED
    ACTIVATION_CANCELLED = C.TUTTI_EVENT_ACTIVATION_CANCELLED
    SOURCE_UNDERRUN = C.TUTTI_EVENT_SOURCE_UNDERRUN
    OTHER_AUDIO_CHANGED = C.TUTTI_EVENT_OTHER_AUDIO_CHANGED


class Route(enum.IntEnum):
    """tutti_route (TUTTI_ROUTE_*), the system's output route."""

    SPEAKER = C.TUTTI_ROUTE_SPEAKER
    HEADPHONES = C.TUTTI_ROUTE_HEADPHONES
    BLUETOOTH = C.TUTTI_ROUTE_BLUETOOTH
    EXTERNAL = C.TUTTI_ROUTE_EXTERNAL


class RemoteCommand(enum.IntEnum):
    """tutti_remote_command (TUTTI_REMOTE_*)."""

    PLAY = C.TUTTI_REMOTE_PLAY
    PAUSE = C.TUTTI_REMOTE_PAUSE
    TOGGLE_PLAY_PAUSE = C.TUTTI_REMOTE_TOGGLE_PLAY_PAUSE
    NEXT_TRACK = C.TUTTI_REMOTE_NEXT_TRACK
    PREVIOUS_TRACK = C.TUTTI_REMOTE_PREVIOUS_TRACK
    STOP = C.TUTTI_REMOTE_STOP


class InterruptionReason(enum.IntEnum):
    """Event.reason of INTERRUPTION_BEGAN (TUTTI_INTERRUPTION_REASON_*)."""

    OTHER_SESSION = C.TUTTI_INTERRUPTION_REASON_OTHER_SESSION
    PHONE_CALL = C.TUTTI_INTERRUPTION_REASON_PHONE_CALL
    SPOKEN_AUDIO = C.TUTTI_INTERRUPTION_REASON_SPOKEN_AUDIO
    BUILT_IN_MIC_MUTED = C.TUTTI_INTERRUPTION_REASON_BUILT_IN_MIC_MUTED
    DUCKED = C.TUTTI_INTERRUPTION_REASON_DUCKED


class RouteChangeReason(enum.IntEnum):
    """Event.reason of ROUTE_CHANGED (TUTTI_ROUTE_CHANGE_REASON_*)."""

    NEW_DEVICE_AVAILABLE = C.TUTTI_ROUTE_CHANGE_REASON_NEW_DEVICE_AVAILABLE
    OLD_DEVICE_UNAVAILABLE = C.TUTTI_ROUTE_CHANGE_REASON_OLD_DEVICE_UNAVAILABLE
    OVERRIDE = C.TUTTI_ROUTE_CHANGE_REASON_OVERRIDE


class SessionState(enum.IntEnum):
    """tutti_session_state (TUTTI_SESSION_STATE_*): what the policy renders a session as."""

    INACTIVE = C.TUTTI_SESSION_STATE_INACTIVE
    AUDIBLE = C.TUTTI_SESSION_STATE_AUDIBLE
    SILENCED = C.TUTTI_SESSION_STATE_SILENCED
    INTERRUPTED = C.TUTTI_SESSION_STATE_INTERRUPTED


class SilenceReason(enum.IntEnum):
    """tutti_silence_reason (TUTTI_SILENCE_*): why a SILENCED session is silent."""

    SILENT_SWITCH = C.TUTTI_SILENCE_SILENT_SWITCH
    LOCKED = C.TUTTI_SILENCE_LOCKED
    BACKGROUND = C.TUTTI_SILENCE_BACKGROUND
    RECORDING = C.TUTTI_SILENCE_RECORDING
    TRANSIENT_EXCLUSIVE = C.TUTTI_SILENCE_TRANSIENT_EXCLUSIVE
    INTERACTION = C.TUTTI_SILENCE_INTERACTION


class SilenceHint(enum.IntEnum):
    """Event.reason of SILENCE_SECONDARY_AUDIO_HINT (TUTTI_SILENCE_HINT_*)."""

    BEGAN = C.TUTTI_SILENCE_HINT_BEGAN
    ENDED = C.TUTTI_SILENCE_HINT_ENDED


class Outcome(enum.IntEnum):
    """tutti_outcome: what an interaction table row does (TUTTI_OUTCOME_*)."""

    MIX = C.TUTTI_OUTCOME_MIX
    DUCK = C.TUTTI_OUTCOME_DUCK
    INTERRUPT = C.TUTTI_OUTCOME_INTERRUPT
    REJECT = C.TUTTI_OUTCOME_REJECT
    SILENCE = C.TUTTI_OUTCOME_SILENCE


class EffectType(enum.IntEnum):
    """tutti_effect_type (TUTTI_EFFECT_*)."""

    LOWPASS = C.TUTTI_EFFECT_LOWPASS
    HIGHPASS = C.TUTTI_EFFECT_HIGHPASS
    BANDPASS = C.TUTTI_EFFECT_BANDPASS
    NOTCH = C.TUTTI_EFFECT_NOTCH
    PEAKING = C.TUTTI_EFFECT_PEAKING
    LOWSHELF = C.TUTTI_EFFECT_LOWSHELF
    HIGHSHELF = C.TUTTI_EFFECT_HIGHSHELF
    COMPRESSOR = C.TUTTI_EFFECT_COMPRESSOR
    DELAY = C.TUTTI_EFFECT_DELAY


class DuckingTrigger(enum.IntEnum):
    """tutti_ducking_trigger: what makes a ducking rule's duck go down (TUTTI_DUCKING_TRIGGER_*)."""

    ACTIVATION = C.TUTTI_DUCKING_TRIGGER_ACTIVATION
    SIGNAL = C.TUTTI_DUCKING_TRIGGER_SIGNAL


class Backend(enum.IntEnum):
    """tutti_output_config.backend (TUTTI_BACKEND_*)."""

    ALSA = C.TUTTI_BACKEND_ALSA
    JACK = C.TUTTI_BACKEND_JACK
    PIPEWIRE = C.TUTTI_BACKEND_PIPEWIRE
    AUTO = C.TUTTI_BACKEND_AUTO


class ResamplerQuality(enum.IntEnum):
    """The resampler a file or buffer source is converted with (TUTTI_QUALITY_*; DEFAULT: the
    engine's file quality, ``Engine(file_quality=)``, libsoxr HQ unless set), and the engine's
    stream quality (``Engine(stream_quality=)``)."""

    DEFAULT = C.TUTTI_QUALITY_DEFAULT
    SINC_BEST = C.TUTTI_QUALITY_SINC_BEST
    SINC_MEDIUM = C.TUTTI_QUALITY_SINC_MEDIUM
    SINC_FASTEST = C.TUTTI_QUALITY_SINC_FASTEST
    LINEAR = C.TUTTI_QUALITY_LINEAR
    ZERO_ORDER_HOLD = C.TUTTI_QUALITY_ZERO_ORDER_HOLD
    SOXR_HQ = C.TUTTI_QUALITY_SOXR_HQ
    SOXR_VHQ = C.TUTTI_QUALITY_SOXR_VHQ


def _source_flags(loop: bool, quality) -> int:
    """tutti_source_create_file / _buffer flags: TUTTI_SOURCE_LOOP | TUTTI_SOURCE_QUALITY(quality)."""
    return (C.TUTTI_SOURCE_LOOP if loop else 0) | ((int(quality) & 0xFF) << 8)


#: Each enum class and the prefix of its members' C names (tests check every member).
ENUM_PREFIXES = {
    ResamplerQuality: "TUTTI_QUALITY_",
    Outcome: "TUTTI_OUTCOME_",
    EffectType: "TUTTI_EFFECT_",
    DuckingTrigger: "TUTTI_DUCKING_TRIGGER_",
    Backend: "TUTTI_BACKEND_",
    Category: "TUTTI_CATEGORY_",
    Mode: "TUTTI_MODE_",
    Option: "TUTTI_OPTION_",
    Attribute: "TUTTI_SESSION_",
    SourceState: "TUTTI_SOURCE_",
    EventType: "TUTTI_EVENT_",
    Route: "TUTTI_ROUTE_",
    RemoteCommand: "TUTTI_REMOTE_",
    InterruptionReason: "TUTTI_INTERRUPTION_REASON_",
    RouteChangeReason: "TUTTI_ROUTE_CHANGE_REASON_",
    SessionState: "TUTTI_SESSION_STATE_",
    SilenceReason: "TUTTI_SILENCE_",
    SilenceHint: "TUTTI_SILENCE_HINT_",
}

# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------


class TuttiError(Exception):
    """A failing call: ``code`` (a Result), ``name`` ("NOT_FOUND", ...) and ``message``, the
    library's tutti_last_error() text (the same words a C host gets). ``str()`` is the message."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = Result(code) if code in Result._value2member_map_ else code
        self.name = lib.tutti_result_string(int(code)).decode()
        self.message = message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name}: {self.message!r})"


class InvalidArgumentError(TuttiError, ValueError):
    """TUTTI_ERROR_INVALID_ARGUMENT: NULL, NaN, out of range, unknown value (also raised by the
    package itself for an argument it cannot pass, e.g. an array of the wrong shape)."""


class NotFoundError(TuttiError, LookupError):
    """TUTTI_ERROR_NOT_FOUND: a removed (or never existing) session or source."""


class TuttiIOError(TuttiError, OSError):
    """TUTTI_ERROR_IO: a file cannot be read."""


class FormatError(TuttiError):
    """TUTTI_ERROR_FORMAT: a file's content is not audio Tutti plays."""


class CapacityError(TuttiError):
    """TUTTI_ERROR_CAPACITY: a configured maximum is reached."""


class DeniedError(TuttiError):
    """TUTTI_ERROR_DENIED: the policy refuses (the message says why)."""


class StateError(TuttiError):
    """TUTTI_ERROR_STATE: not valid now (also: any call on a closed Engine)."""


class DeviceError(TuttiError):
    """TUTTI_ERROR_DEVICE: an output device cannot be opened or failed."""


class VersionError(TuttiError):
    """TUTTI_ERROR_VERSION: a struct_size the library does not know."""


_ERROR_CLASSES = {
    Result.INVALID_ARGUMENT: InvalidArgumentError,
    Result.NOT_FOUND: NotFoundError,
    Result.IO: TuttiIOError,
    Result.FORMAT: FormatError,
    Result.CAPACITY: CapacityError,
    Result.DENIED: DeniedError,
    Result.STATE: StateError,
    Result.DEVICE: DeviceError,
    Result.VERSION: VersionError,
}


def _error(code: int, message: Optional[str] = None) -> TuttiError:
    if message is None:
        message = lib.tutti_last_error().decode("utf-8", "replace")
    return _ERROR_CLASSES.get(code, TuttiError)(code, message)


def _check(code: int) -> None:
    """Raises the TuttiError of a non-OK tutti_result, with tutti_last_error()'s message
    (read at once, on the calling thread, where the library keeps it)."""
    if code != C.TUTTI_OK:
        raise _error(code)


def _at(at: Optional[int]) -> int:
    return C.TUTTI_NOW if at is None else _int(at, -(1 << 63), (1 << 63) - 1, "at")


def _int(value, low: int, high: int, what: str) -> int:
    """value as an int in low..high, else InvalidArgumentError naming it (ctypes would wrap a
    negative or too large int silently)."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            C.TUTTI_ERROR_INVALID_ARGUMENT, f"{what} must be an integer, got {value!r}"
        ) from None
    if number != value or not low <= number <= high:
        raise InvalidArgumentError(C.TUTTI_ERROR_INVALID_ARGUMENT, f"{what} must be an integer in {low}..{high}, got {value!r}")
    return number


def _u32(value, what: str) -> int:
    return _int(value, 0, 0xFFFFFFFF, what)


def _i64(value, what: str) -> int:
    return _int(value, -(1 << 63), (1 << 63) - 1, what)


def _name(value, what: str):
    """A str as UTF-8 bytes; None passes as NULL so the library names the argument."""
    if value is None:
        return None
    if isinstance(value, str):
        encoded = value.encode("utf-8", "surrogateescape")
    elif isinstance(value, (bytes, bytearray)):
        encoded = bytes(value)
    else:
        try:
            encoded = os.fsencode(value)
        except TypeError:
            raise InvalidArgumentError(
                C.TUTTI_ERROR_INVALID_ARGUMENT, f"{what} must be a str, got {type(value).__name__}"
            ) from None
    if b"\0" in encoded:
        raise InvalidArgumentError(C.TUTTI_ERROR_INVALID_ARGUMENT, f"{what} must not contain NUL characters")
    return encoded


# ---------------------------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------------------------


class SourceStatus(NamedTuple):
    """tutti_source_get_status: state, position (frames since the last rewind, engine rate),
    underrun_frames. Read without the engine's lock."""

    state: SourceState
    position: int
    underrun_frames: int


class SystemState(NamedTuple):
    """tutti_system_get_state: the device side of the policy now."""

    volume: float
    ringer_volume: float
    route: "Route"
    silent_switch: bool
    locked: bool
    mic_muted: bool
    call_active: bool


class OtherAudioState(NamedTuple):
    """tutti_system_get_other_audio: other apps' audio (rule 10)."""

    other_audio_playing: bool
    silence_secondary: bool


class SessionStatus(NamedTuple):
    """tutti_session_get_state: the session's state, why it is silenced (None unless
    SILENCED), and the two hints of the policy."""

    state: "SessionState"
    silence_reason: Optional["SilenceReason"]
    other_audio_playing: bool
    silence_secondary_hint: bool


class SourceInfo(NamedTuple):
    """tutti_source_get_info: state, position and length (frames, engine rate; length -1 for
    tones and streams), underrun_frames, gain (linear, the last set), rate (the last playback
    rate set, source frames per output frame; 1 until ``set_rate``), pan (the last pan set,
    -1 left .. +1 right; None while never panned: no pan stage)."""

    state: SourceState
    position: int
    length: int
    underrun_frames: int
    gain: float
    rate: float
    pan: Optional[float]


class Stats(NamedTuple):
    """tutti_engine_get_stats."""

    frames_rendered: int
    sources: int
    sessions: int
    xruns: int
    underrun_frames: int
    events_dropped: int
    latency_frames: int


@dataclass(frozen=True)
class Effect:
    """tutti_effect: one effect of a session's chain (``Session.set_effects``). Build it with
    the class methods (``Effect.lowpass(1000.0)``, ``Effect.compressor(-20.0, 4.0)``); fields its
    type does not use are ignored. Ranges are the C header's (the library checks them and names
    the field: ``effects[1].ratio``)."""

    type: int
    frequency_hz: float = 0.0
    q: float = 0.0
    gain_db: float = 0.0
    threshold_db: float = 0.0
    ratio: float = 0.0
    attack_seconds: float = 0.0
    release_seconds: float = 0.0
    makeup_db: float = 0.0
    time_seconds: float = 0.0
    feedback: float = 0.0
    mix: float = 0.0

    @classmethod
    def lowpass(cls, frequency_hz: float, q: float = 0.7071) -> "Effect":
        """RBJ cookbook low-pass at ``frequency_hz`` (0 < f < half the rate), ``q`` in (0, 100]."""
        return cls(EffectType.LOWPASS, frequency_hz=frequency_hz, q=q)

    @classmethod
    def highpass(cls, frequency_hz: float, q: float = 0.7071) -> "Effect":
        """RBJ cookbook high-pass."""
        return cls(EffectType.HIGHPASS, frequency_hz=frequency_hz, q=q)

    @classmethod
    def bandpass(cls, frequency_hz: float, q: float = 0.7071) -> "Effect":
        """RBJ cookbook band-pass (0 dB at the centre)."""
        return cls(EffectType.BANDPASS, frequency_hz=frequency_hz, q=q)

    @classmethod
    def notch(cls, frequency_hz: float, q: float = 0.7071) -> "Effect":
        """RBJ cookbook notch."""
        return cls(EffectType.NOTCH, frequency_hz=frequency_hz, q=q)

    @classmethod
    def peaking(cls, frequency_hz: float, q: float, gain_db: float) -> "Effect":
        """RBJ cookbook peaking EQ, ``gain_db`` -60..60."""
        return cls(EffectType.PEAKING, frequency_hz=frequency_hz, q=q, gain_db=gain_db)

    @classmethod
    def lowshelf(cls, frequency_hz: float, q: float, gain_db: float) -> "Effect":
        """RBJ cookbook low shelf (Q, not the slope S)."""
        return cls(EffectType.LOWSHELF, frequency_hz=frequency_hz, q=q, gain_db=gain_db)

    @classmethod
    def highshelf(cls, frequency_hz: float, q: float, gain_db: float) -> "Effect":
        """RBJ cookbook high shelf."""
        return cls(EffectType.HIGHSHELF, frequency_hz=frequency_hz, q=q, gain_db=gain_db)

    @classmethod
    def compressor(
        cls, threshold_db: float, ratio: float, attack_seconds: float = 0.01, release_seconds: float = 0.1, makeup_db: float = 0.0
    ) -> "Effect":
        """A compressor: ``threshold_db`` -100..0, ``ratio`` 1..100, times 0..10 s, ``makeup_db``."""
        return cls(
            EffectType.COMPRESSOR, threshold_db=threshold_db, ratio=ratio, attack_seconds=attack_seconds,
            release_seconds=release_seconds, makeup_db=makeup_db,
        )

    @classmethod
    def delay(cls, time_seconds: float, feedback: float = 0.3, mix: float = 0.5) -> "Effect":
        """A feedback delay: ``time_seconds`` (0, 10], ``feedback`` 0..0.95, ``mix`` 0..1."""
        return cls(EffectType.DELAY, time_seconds=time_seconds, feedback=feedback, mix=mix)

    def _native(self) -> _Effect:
        native = _Effect()
        native.type = _int(self.type, -(1 << 31), (1 << 31) - 1, "effect type")
        for field in _Effect._fields_[1:]:
            setattr(native, field[0], float(getattr(self, field[0])))
        return native


#: One side of a ducking rule or an interaction row: a Session, or a Category (every session
#: whose category in force is that one).
Side = Union["Session", int]


def _side(value, what: str) -> tuple:
    """(session id, category) of a rule's side: a Session → (its id, 0); a category → (0, it)."""
    if isinstance(value, Session):
        return value.id, 0
    return 0, _int(value, -(1 << 31), (1 << 31) - 1, what)


@dataclass(frozen=True)
class DuckingRule:
    """tutti_ducking_rule2: when a session of the ``by`` side ducks one of the ``duck`` side,
    the level (dB, -96..0) and times (s, 0..3600). Each side is a Session or a Category.
    ``trigger``: ``DuckingTrigger.ACTIVATION`` (the default: ducked while the ducker is
    active) or ``SIGNAL``: ducked while the ducker's bus level (mean square over 10 ms) is
    above ``threshold_db`` (dBFS, -120..0), released once it stayed below for
    ``hold_seconds`` (0..3600); both are ignored for ACTIVATION."""

    by: Side
    duck: Side
    level_db: float
    attack_seconds: float = 0.1
    release_seconds: float = 0.4
    trigger: int = DuckingTrigger.ACTIVATION
    threshold_db: float = -40.0
    hold_seconds: float = 0.0


@dataclass(frozen=True)
class Interaction:
    """tutti_interaction: what happens to the ``active`` side when the ``incoming`` side
    activates after it (an Outcome). Each side is a Session or a Category."""

    active: Side
    incoming: Side
    outcome: int


class Recording(NamedTuple):
    """tutti_input_get_recording: the engine frame of the recording's first frame (-1 before the
    input first captured) and the recorded frames lost because the reader fell behind."""

    start_frame: int
    dropped_frames: int


@dataclass(frozen=True)
class Event:
    """Something that happened at a frame (tutti_event). ``type_name`` is
    tutti_event_type_string's name ("SOURCE_ENDED"); ``session`` / ``source`` are the handles
    this engine made for the ids (None for 0 or an id no live handle has), ``session_id`` /
    ``source_id`` the raw ids; ``reason`` and ``flags`` as the header says per type."""

    type: int
    type_name: str
    frame: int
    session_id: int
    source_id: int
    reason: int
    flags: int
    session: Optional["Session"]
    source: Optional["Source"]

    @property
    def should_resume(self) -> bool:
        """INTERRUPTION_ENDED with TUTTI_EVENT_SHOULD_RESUME."""
        return bool(self.flags & C.TUTTI_EVENT_SHOULD_RESUME)

    @property
    def other_audio_playing(self) -> bool:
        """OTHER_AUDIO_CHANGED with TUTTI_OTHER_AUDIO_PLAYING."""
        return bool(self.flags & C.TUTTI_OTHER_AUDIO_PLAYING)

    @property
    def other_audio_silence_secondary(self) -> bool:
        """OTHER_AUDIO_CHANGED with TUTTI_OTHER_AUDIO_SILENCE_SECONDARY."""
        return bool(self.flags & C.TUTTI_OTHER_AUDIO_SILENCE_SECONDARY)


# ---------------------------------------------------------------------------------------------
# Engine
# ---------------------------------------------------------------------------------------------


# Host effects handed to tutti_bus_set_effect, by the token passed as their `user` pointer:
# kept alive until the engine calls the release below (on a control thread) with that token.
_host_effects: dict = {}
_host_effect_tokens = itertools.count(1)


def _release(user) -> None:
    _host_effects.pop(user, None)


_release_host_effect = _EffectRelease(_release)


def _keep_host_effect(process: Callable[[np.ndarray], None]) -> tuple:
    """(the C callback calling ``process`` on a (frames, channels) view, its token): kept in
    _host_effects until the engine releases the token."""

    def trampoline(pointer, frames, channels, _user):
        process(np.ctypeslib.as_array(pointer, shape=(frames, channels)))

    callback = _EffectCallback(trampoline)
    token = next(_host_effect_tokens)
    _host_effects[token] = callback
    return callback, token


class Engine:
    """A Tutti engine in pull mode (``render``), created by tutti_engine_create.

    ``sample_rate`` Hz (8000..384000), ``channels`` 1 or 2; ``offline=True`` sets
    TUTTI_ENGINE_OFFLINE (``render`` waits for file data streamed from disk: the same bytes
    on every run; not real-time safe). ``master_effects``: a master stage with that chain of
    Effects (an empty list will do; None, the default: no master stage), needed by
    ``set_master_host_effect``. ``file_quality``: the ResamplerQuality of file and buffer
    sources created with ``ResamplerQuality.DEFAULT`` (None: libsoxr HQ); ``stream_quality``:
    stream sources' (a libsamplerate one, SINC_BEST..ZERO_ORDER_HOLD; None: SINC_MEDIUM). The
    other keywords are tutti_engine_config's fields.
    ``close()`` (or leaving a ``with`` block) destroys it; every call afterwards raises
    StateError. Session and source handles keep their engine alive.
    """

    def __init__(
        self,
        sample_rate: int = 48000,
        channels: int = 2,
        offline: bool = False,
        *,
        max_block_frames: Optional[int] = None,
        max_sources: Optional[int] = None,
        max_sessions: Optional[int] = None,
        command_queue_capacity: Optional[int] = None,
        limiter: bool = False,
        limiter_ceiling_db: Optional[float] = None,
        limiter_release_seconds: Optional[float] = None,
        limiter_lookahead_seconds: Optional[float] = None,
        loss_fade_seconds: Optional[float] = None,
        ducking_level_db: Optional[float] = None,
        ducking_attack_seconds: Optional[float] = None,
        ducking_release_seconds: Optional[float] = None,
        output_buses: Optional[Sequence[str]] = None,
        master_effects: Optional[Sequence[Effect]] = None,
        file_quality: Optional[int] = None,
        stream_quality: Optional[int] = None,
        routes: Optional[Sequence[str]] = None,
    ):
        self._ptr: Optional[int] = None
        if routes is not None:
            if output_buses is not None:
                raise TypeError("Engine: give output_buses or its deprecated old name routes, not both")
            _deprecated("Engine(routes=...)", "Engine(output_buses=...)")
            output_buses = routes
        self._lock = threading.Lock()
        config = init_struct(EngineConfig, lib.tutti_engine_config_init_size)
        config.sample_rate = _u32(sample_rate, "Engine: sample_rate")
        config.channels = _u32(channels, "Engine: channels")
        for field, value in (
            ("max_block_frames", max_block_frames),
            ("max_sources", max_sources),
            ("max_sessions", max_sessions),
            ("command_queue_capacity", command_queue_capacity),
            ("limiter_ceiling_db", limiter_ceiling_db),
            ("limiter_release_seconds", limiter_release_seconds),
            ("limiter_lookahead_seconds", limiter_lookahead_seconds),
            ("loss_fade_seconds", loss_fade_seconds),
            ("ducking_level_db", ducking_level_db),
            ("ducking_attack_seconds", ducking_attack_seconds),
            ("ducking_release_seconds", ducking_release_seconds),
        ):
            if value is not None:
                if field.endswith("_frames") or field.startswith("max_") or field == "command_queue_capacity":
                    value = _u32(value, f"Engine: {field}")
                setattr(config, field, value)
        bus_names = ["main"] if output_buses is None else [str(b) for b in output_buses]
        names = (ctypes.c_char_p * len(bus_names))(*[_name(b, "output_buses") for b in bus_names])
        if len(bus_names) != 1:
            # The C fields keep their first names (route_count, route_names): the output buses.
            config.route_count = _u32(len(bus_names), "Engine: len(output_buses)")
            config.route_names = ctypes.cast(names, ctypes.POINTER(ctypes.c_char_p))
        config.limiter_enabled = 1 if limiter else 0
        if master_effects is not None:
            chain = (_Effect * max(len(master_effects), 1))()
            for i, effect in enumerate(master_effects):
                chain[i] = effect._native()
            config.master_effects_enabled = 1
            config.master_effect_count = len(master_effects)
            config.master_effects = ctypes.cast(chain, ctypes.c_void_p) if master_effects else None
        if offline:
            config.flags |= C.TUTTI_ENGINE_OFFLINE
        if file_quality is not None:
            config.file_quality = _int(file_quality, -(1 << 31), (1 << 31) - 1, "Engine: file_quality")
        if stream_quality is not None:
            config.stream_quality = _int(stream_quality, -(1 << 31), (1 << 31) - 1, "Engine: stream_quality")
        out = ctypes.c_void_p()
        _check(lib.tutti_engine_create(ctypes.byref(config), ctypes.byref(out)))
        self._ptr = out.value
        self.sample_rate = int(sample_rate)
        self.channels = int(channels)
        self.offline = bool(offline)
        #: The output buses' names (``output_buses``; "main" first), for ``render_output_buses``.
        self.output_buses = tuple(bus_names)
        self._sessions: "weakref.WeakValueDictionary[int, Session]" = weakref.WeakValueDictionary()
        self._sources: "weakref.WeakValueDictionary[int, Source]" = weakref.WeakValueDictionary()

    # -- life ----------------------------------------------------------------------------------

    @property
    def ptr(self) -> int:
        """The tutti_engine* (for calling the C API directly); StateError once closed."""
        if self._ptr is None:
            raise StateError(C.TUTTI_ERROR_STATE, "Engine is closed: create a new Engine")
        return self._ptr

    @property
    def closed(self) -> bool:
        """True after close()."""
        return self._ptr is None

    def close(self) -> None:
        """tutti_engine_destroy: the engine and every id it gave are gone. Idempotent. No other
        thread may be inside a call on the engine."""
        with self._lock:
            ptr, self._ptr = self._ptr, None
        if ptr is not None:
            lib.tutti_engine_destroy(ptr)

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"frame {self.frame}"
        return f"<tutti.Engine {self.sample_rate} Hz, {self.channels} ch, {state}>"

    # -- rendering and clock --------------------------------------------------------------------

    def render(self, frames: int, out: Optional[np.ndarray] = None) -> np.ndarray:
        """tutti_engine_render: the next ``frames`` frames as a float32 array of shape
        (frames, channels). ``out``: an existing float32 C-contiguous array of that shape to
        fill instead (no allocation). StateError while another thread renders."""
        frames = _u32(frames, "Engine.render: frames")
        if out is None:
            out = np.empty((frames, self.channels), dtype=np.float32)
        elif out.dtype != np.float32 or not out.flags.c_contiguous or out.shape != (frames, self.channels):
            raise InvalidArgumentError(
                C.TUTTI_ERROR_INVALID_ARGUMENT,
                f"render: out must be float32, C-contiguous, shape ({frames}, {self.channels}); "
                f"got {out.dtype}, shape {out.shape}",
            )
        _check(lib.tutti_engine_render(self.ptr, out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), frames))
        return out

    @property
    def routes(self) -> tuple:
        """Deprecated: ``output_buses`` (the same names)."""
        _deprecated("Engine.routes", "Engine.output_buses")
        return self.output_buses

    def render_output_buses(self, frames: int) -> dict:
        """tutti_engine_render_output_buses: the next ``frames`` frames of every output bus at
        once, as {bus name: float32 array of shape (frames, channels)} (``output_buses`` of the
        constructor; a source plays to one with ``Source.set_output_bus``). StateError while an
        output runs or another thread renders."""
        return self._render_buses(frames, lib.tutti_engine_render_output_buses, "Engine.render_output_buses")

    def render_routes(self, frames: int) -> dict:
        """Deprecated: ``render_output_buses`` (through the deprecated C name,
        tutti_engine_render_routes)."""
        _deprecated("Engine.render_routes", "Engine.render_output_buses")
        return self._render_buses(frames, lib.tutti_engine_render_routes, "Engine.render_routes")

    def _render_buses(self, frames: int, function, what: str) -> dict:
        frames = _u32(frames, f"{what}: frames")
        arrays = [np.zeros((frames, self.channels), dtype=np.float32) for _ in self.output_buses]
        pointers = (ctypes.POINTER(ctypes.c_float) * len(arrays))(
            *[a.ctypes.data_as(ctypes.POINTER(ctypes.c_float)) for a in arrays]
        )
        _check(function(self.ptr, pointers, len(arrays), frames))
        return dict(zip(self.output_buses, arrays))

    @property
    def frame(self) -> int:
        """tutti_engine_get_frame: frames rendered so far (the engine clock)."""
        value = lib.tutti_engine_get_frame(self.ptr)
        if value < 0:
            raise _error(value)
        return value

    def seconds(self, seconds: float) -> int:
        """``seconds`` as a frame count at the engine's rate (rounded)."""
        return int(round(seconds * self.sample_rate))

    def stats(self) -> Stats:
        """tutti_engine_get_stats."""
        stats = init_struct(_Stats, lib.tutti_stats_init_size)
        _check(lib.tutti_engine_get_stats(self.ptr, ctypes.byref(stats)))
        return Stats(
            stats.frames_rendered,
            stats.sources,
            stats.sessions,
            stats.xruns,
            stats.underrun_frames,
            stats.events_dropped,
            stats.latency_frames,
        )

    # -- events ---------------------------------------------------------------------------------

    def events(self) -> Iterator[Event]:
        """Every waiting event, in frame order (tutti_engine_poll_event until none is left); the
        iterator stops when none waits (events rendered later come with the next call)."""
        raw = RawEvent()
        while True:
            got = lib.tutti_engine_poll_event(self.ptr, ctypes.byref(raw))
            if got < 0:
                raise _error(got)
            if got == 0:
                return
            yield Event(
                type=EventType(raw.type) if raw.type in EventType._value2member_map_ else raw.type,
                type_name=lib.tutti_event_type_string(raw.type).decode(),
                frame=raw.frame,
                session_id=raw.session,
                source_id=raw.source,
                reason=raw.reason,
                flags=raw.flags,
                session=self._sessions.get(raw.session),
                source=self._sources.get(raw.source),
            )

    def event_fd(self) -> int:
        """tutti_engine_event_fd: a descriptor that polls readable while events wait (for
        ``select`` / ``selectors`` / asyncio's ``add_reader``). The engine owns it: do not read,
        write or close it; it closes with the engine."""
        fd = lib.tutti_engine_event_fd(self.ptr)
        if fd < 0:
            raise _error(fd)
        return fd

    # -- sessions -------------------------------------------------------------------------------

    def session(
        self,
        name: str,
        category: int = Category.SOLO_AMBIENT,
        mode: int = Mode.DEFAULT,
        options: int = 0,
        attributes: int = 0,
    ) -> "Session":
        """A new session named ``name`` (unique), inactive, in the foreground:
        tutti_session_create_with(category, attributes), then tutti_session_set_category when
        ``mode`` or ``options`` are given (if that fails the session is destroyed again)."""
        out = ctypes.c_uint64()
        _check(
            lib.tutti_session_create_with(
                self.ptr, _name(name, "name"), _int(category, -(1 << 31), (1 << 31) - 1, "category"), _u32(attributes, "attributes"), ctypes.byref(out)
            )
        )
        session = Session(self, out.value, name)
        if mode or options:
            try:
                session.set_category(category, mode, options)
            except TuttiError:
                lib.tutti_session_destroy(self.ptr, out.value, C.TUTTI_NOW)
                raise
        return session

    # -- system state ---------------------------------------------------------------------------

    def set_max_voices(self, max_voices: int, at: Optional[int] = None) -> None:
        """tutti_engine_set_max_voices (0: no limit)."""
        _check(lib.tutti_engine_set_max_voices(self.ptr, _u32(max_voices, "max_voices"), _at(at)))

    def set_ducking_rules(self, rules: Sequence[DuckingRule], at: Optional[int] = None) -> None:
        """tutti_engine_set_ducking_rules2: replaces the rules at ``at`` (empty: none; the
        engine's envelope then), each with its trigger. InvalidArgumentError names rules[i] and
        its field (``rules[0].threshold_db``); nothing changes then."""
        rows = (_DuckingRule2 * max(len(rules), 1))()
        for i, rule in enumerate(rules):
            rows[i].struct_size = ctypes.sizeof(_DuckingRule2)
            rows[i].by_session, rows[i].by_category = _side(rule.by, f"rules[{i}].by")
            rows[i].duck_session, rows[i].duck_category = _side(rule.duck, f"rules[{i}].duck")
            rows[i].level_db = float(rule.level_db)
            rows[i].attack_seconds = float(rule.attack_seconds)
            rows[i].release_seconds = float(rule.release_seconds)
            rows[i].trigger = _int(rule.trigger, -(1 << 31), (1 << 31) - 1, f"rules[{i}].trigger")
            rows[i].threshold_db = float(rule.threshold_db)
            rows[i].hold_seconds = float(rule.hold_seconds)
        _check(lib.tutti_engine_set_ducking_rules2(self.ptr, rows, len(rules), _at(at)))

    def set_master_host_effect(self, process: Optional[Callable[[np.ndarray], None]], at: Optional[int] = None) -> None:
        """tutti_master_set_effect: ``process(samples)`` becomes the host effect on the master
        from ``at`` on (None: remove it), after the master chain (``master_effects``) and
        before the system volume and the limiter; system sounds bypass it. StateError for an
        engine made without ``master_effects``. ``samples`` and the render-thread caveats are
        those of ``Session.set_host_effect`` (not real-time safe from Python)."""
        if process is None:
            _check(lib.tutti_master_set_effect(self.ptr, _EffectCallback(), _EffectRelease(), None, _at(at)))
            return
        callback, token = _keep_host_effect(process)
        result = lib.tutti_master_set_effect(self.ptr, callback, _release_host_effect, token, _at(at))
        if result != C.TUTTI_OK:
            del _host_effects[token]
        _check(result)

    def set_interactions(self, rows: Sequence[Interaction], at: Optional[int] = None) -> None:
        """tutti_engine_set_interactions: replaces the interaction table at ``at`` (empty: the
        built-in rules alone). InvalidArgumentError names rows[i] and its field."""
        native = (_Interaction * max(len(rows), 1))()
        for i, row in enumerate(rows):
            native[i].active_session, native[i].active_category = _side(row.active, f"rows[{i}].active")
            native[i].incoming_session, native[i].incoming_category = _side(row.incoming, f"rows[{i}].incoming")
            native[i].outcome = _int(row.outcome, -(1 << 31), (1 << 31) - 1, f"rows[{i}].outcome")
        _check(lib.tutti_engine_set_interactions(self.ptr, native, len(rows), _at(at)))

    # -- output to a device ---------------------------------------------------------------------

    def start_output(
        self,
        backend: int = Backend.ALSA,
        device: Optional[str] = None,
        *,
        period_frames: Optional[int] = None,
        periods: Optional[int] = None,
        capture: Optional["Input"] = None,
        capture_from: Optional[str] = None,
        bus_destinations: Union[Mapping[str, str], str, None] = None,
        mpris: bool = False,
        watch_desktop: bool = True,
        routes: Union[Mapping[str, str], str, None] = None,
        streams: str = "single",
        watch_other_audio: Optional[bool] = None,
    ) -> None:
        """tutti_output_start: plays the engine on a device from the backend's real-time thread
        (``render`` raises StateError meanwhile). ``device``: the ALSA PCM, JACK server or
        PipeWire target node (None: the default); ``period_frames``: ALSA's period, PipeWire's node.latency; ``periods``: ALSA's
        buffer periods, or with PipeWire the periods rendered ahead of the graph on a thread of Tutti's own (main's stream only;
        None: in the graph's cycle); ``capture``: an input source
        the device's capture feeds (``capture_from``: the capture PCM, or JACK ports
        comma-separated); ``bus_destinations``: where the output buses past main play,
        {name: destination} or "NAME=DEST;NAME=DEST" (``routes``: its deprecated old name). ``Backend.AUTO`` picks PipeWire, else JACK, else ALSA when
        it starts (``output_backend`` says which). ``mpris``: serve MPRIS on the session bus
        while the output runs (org.mpris.MediaPlayer2.tutti; its transport methods are remote
        commands; without a session bus the output plays anyway). ``watch_desktop``: with
        PipeWire, follow other apps' running playback streams and hand them to the policy as
        ``set_other_audio`` does, and the sink it plays to as ``set_route`` does (its route
        from the sink's bluetooth API, its sound card's active port, form factor and bus;
        False: other apps' audio and the route stay what the host sets; ALSA and JACK ignore
        it; ``watch_other_audio``: its deprecated old name). ``streams``: "single" (one stream for the mix) or "per-session" (PipeWire:
        each session with output plays through a stream of its own, named after it, with its
        media role; docs/backends.md, "Streams per session"; ALSA, JACK, master effects or a
        limiter: InvalidArgumentError). DeviceError says why a device cannot be opened."""
        config = init_struct(_OutputConfig, lib.tutti_output_config_init_size)
        config.backend = _int(backend, -(1 << 31), (1 << 31) - 1, "backend")
        config.device = _name(device, "device")
        if period_frames is not None:
            config.period_frames = _u32(period_frames, "period_frames")
        if periods is not None:
            config.periods = _u32(periods, "periods")
        if capture is not None:
            config.capture = capture.id
        config.capture_from = _name(capture_from, "capture_from")
        if routes is not None:
            if bus_destinations is not None:
                raise TypeError("start_output: give bus_destinations or its deprecated old name routes, not both")
            _deprecated("start_output(routes=...)", "start_output(bus_destinations=...)")
            bus_destinations = routes
        if isinstance(bus_destinations, Mapping):
            bus_destinations = ";".join(f"{name}={dest}" for name, dest in bus_destinations.items())
        config.routes = _name(bus_destinations, "bus_destinations")  # the C field keeps its first name
        config.mpris = 1 if mpris else 0
        if watch_other_audio is not None:
            _deprecated("start_output(watch_other_audio=...)", "start_output(watch_desktop=...)")
            watch_desktop = watch_other_audio
        config.watch_desktop = 1 if watch_desktop else 0
        layouts = {"single": C.TUTTI_STREAMS_SINGLE, "per-session": C.TUTTI_STREAMS_PER_SESSION}
        if streams not in layouts:
            raise ValueError(f'start_output: streams must be "single" or "per-session", got {streams!r}')
        config.streams = layouts[streams]
        _check(lib.tutti_output_start(self.ptr, ctypes.byref(config)))

    def stop_output(self, drain: bool = False) -> None:
        """tutti_output_stop_with: stops the output if one runs (pull rendering works again).
        ``drain``: the device first plays out what it holds (blocks for about its latency);
        otherwise that is dropped."""
        _check(lib.tutti_output_stop_with(self.ptr, C.TUTTI_OUTPUT_STOP_DRAIN if drain else 0))

    @property
    def output_running(self) -> bool:
        """tutti_output_is_running: whether an output started by ``start_output`` runs."""
        running = ctypes.c_int32()
        _check(lib.tutti_output_is_running(self.ptr, ctypes.byref(running)))
        return bool(running.value)

    @property
    def output_backend(self) -> Optional[Backend]:
        """tutti_output_backend: the backend the running output plays through (what
        ``Backend.AUTO`` resolved to); None while no output runs."""
        backend = ctypes.c_int32()
        code = lib.tutti_output_backend(self.ptr, ctypes.byref(backend))
        if code == C.TUTTI_ERROR_STATE:
            return None
        _check(code)
        return Backend(backend.value)

    def set_silent_switch(self, on: bool, at: Optional[int] = None) -> None:
        """tutti_system_set_silent_switch."""
        _check(lib.tutti_system_set_silent_switch(self.ptr, 1 if on else 0, _at(at)))

    def set_locked(self, locked: bool, at: Optional[int] = None) -> None:
        """tutti_system_set_locked."""
        _check(lib.tutti_system_set_locked(self.ptr, 1 if locked else 0, _at(at)))

    def set_volume(self, volume: float, at: Optional[int] = None) -> None:
        """tutti_system_set_volume (0..1, a perceptual curve)."""
        _check(lib.tutti_system_set_volume(self.ptr, float(volume), _at(at)))

    def set_ringer_volume(self, volume: float, at: Optional[int] = None) -> None:
        """tutti_system_set_ringer_volume (0..1)."""
        _check(lib.tutti_system_set_ringer_volume(self.ptr, float(volume), _at(at)))

    def set_route(self, route: int, at: Optional[int] = None) -> None:
        """tutti_system_set_route (a Route)."""
        _check(lib.tutti_system_set_route(self.ptr, _int(route, -(1 << 31), (1 << 31) - 1, "route"), _at(at)))

    def set_mic_muted(self, muted: bool, at: Optional[int] = None) -> None:
        """tutti_system_set_mic_muted."""
        _check(lib.tutti_system_set_mic_muted(self.ptr, 1 if muted else 0, _at(at)))

    def set_other_audio(
        self, playing: bool, silence_secondary: bool = False, clients: Sequence[str] = (), at: Optional[int] = None
    ) -> None:
        """tutti_system_set_other_audio: other apps' audio (playing, one not mixable, their names)."""
        names = [str(c).encode("utf-8") for c in clients]
        array = (ctypes.c_char_p * max(len(names), 1))(*names)
        _check(
            lib.tutti_system_set_other_audio(
                self.ptr, 1 if playing else 0, 1 if silence_secondary else 0, array if names else None, len(names), _at(at)
            )
        )

    def begin_phone_call(self, at: Optional[int] = None) -> None:
        """tutti_system_begin_phone_call."""
        _check(lib.tutti_system_begin_phone_call(self.ptr, _at(at)))

    def end_phone_call(self, at: Optional[int] = None) -> None:
        """tutti_system_end_phone_call."""
        _check(lib.tutti_system_end_phone_call(self.ptr, _at(at)))

    def remote_command(self, command: int, at: Optional[int] = None) -> None:
        """tutti_system_remote_command (a RemoteCommand)."""
        _check(lib.tutti_system_remote_command(self.ptr, _int(command, -(1 << 31), (1 << 31) - 1, "command"), _at(at)))

    def press_volume_button(self, up: bool, at: Optional[int] = None) -> None:
        """tutti_system_press_volume_button: one step of 1/16 on the system volume when anything
        is heard or a call is active, on the ringer volume otherwise."""
        _check(lib.tutti_system_press_volume_button(self.ptr, 1 if up else 0, _at(at)))

    def system_state(self) -> SystemState:
        """tutti_system_get_state: volumes, route, switches and whether a call is active."""
        volume, ringer = ctypes.c_float(), ctypes.c_float()
        route, silent, locked, muted, call = (ctypes.c_int32() for _ in range(5))
        _check(lib.tutti_system_get_state(
            self.ptr, ctypes.byref(volume), ctypes.byref(ringer), ctypes.byref(route), ctypes.byref(silent),
            ctypes.byref(locked), ctypes.byref(muted), ctypes.byref(call)))
        return SystemState(volume.value, ringer.value, Route(route.value), bool(silent.value), bool(locked.value),
                           bool(muted.value), bool(call.value))

    def other_audio(self) -> OtherAudioState:
        """tutti_system_get_other_audio: other apps' audio as ``set_other_audio`` last set it."""
        playing, silence = ctypes.c_int32(), ctypes.c_int32()
        _check(lib.tutti_system_get_other_audio(self.ptr, ctypes.byref(playing), ctypes.byref(silence)))
        return OtherAudioState(bool(playing.value), bool(silence.value))

    def other_audio_clients(self) -> list[str]:
        """tutti_system_get_other_audio_clients: the apps' names that go with ``other_audio()``
        (what ``set_other_audio(clients=...)`` last set, or the PipeWire output's watcher saw)."""
        count, length = ctypes.c_size_t(), ctypes.c_size_t()
        _check(lib.tutti_system_get_other_audio_clients(self.ptr, None, 0, None, ctypes.byref(length)))
        while True:  # the watcher may change the names between two calls: ask again for more room
            buffer = ctypes.create_string_buffer(max(length.value, 1))
            code = lib.tutti_system_get_other_audio_clients(
                self.ptr, buffer, len(buffer), ctypes.byref(count), ctypes.byref(length))
            if code != C.TUTTI_ERROR_INVALID_ARGUMENT or length.value <= len(buffer):
                _check(code)
                break
        return [name.decode("utf-8") for name in buffer.raw[: length.value].split(b"\0")[: count.value]]


# ---------------------------------------------------------------------------------------------
# Sessions
# ---------------------------------------------------------------------------------------------


class Session:
    """A session of an engine (made by ``Engine.session``); ``id`` is its tutti_session."""

    def __init__(self, engine: Engine, session_id: int, name: str):
        self.engine = engine
        self.id = session_id
        self.name = name
        engine._sessions[session_id] = self

    def __repr__(self) -> str:
        return f"<tutti.Session {self.name!r} id={self.id:#x}>"

    def set_category(self, category: int, mode: int = Mode.DEFAULT, options: int = 0) -> None:
        """tutti_session_set_category: category (Category), mode (Mode), options (Option bits)."""
        _check(lib.tutti_session_set_category(
                self.engine.ptr,
                self.id,
                _int(category, -(1 << 31), (1 << 31) - 1, "category"),
                _int(mode, -(1 << 31), (1 << 31) - 1, "mode"),
                _u32(options, "options"),
            ))

    def set_active(self, active: bool = True, flags: int = 0, at: Optional[int] = None) -> None:
        """tutti_session_set_active: ``flags`` a Focus on activation, or
        TUTTI_NOTIFY_OTHERS_ON_DEACTIVATION on deactivation. DeniedError says why."""
        _check(lib.tutti_session_set_active(self.engine.ptr, self.id, 1 if active else 0, _u32(flags, "flags"), _at(at)))

    def activate(self, focus: int = Focus.GAIN, at: Optional[int] = None) -> None:
        """set_active(True, focus, at)."""
        self.set_active(True, focus, at)

    def deactivate(self, notify_others: bool = False, at: Optional[int] = None) -> None:
        """set_active(False, NOTIFY_OTHERS_ON_DEACTIVATION if notify_others, at)."""
        self.set_active(False, C.TUTTI_NOTIFY_OTHERS_ON_DEACTIVATION if notify_others else 0, at)

    def set_foreground(self, foreground: bool, at: Optional[int] = None) -> None:
        """tutti_session_set_foreground."""
        _check(lib.tutti_session_set_foreground(self.engine.ptr, self.id, 1 if foreground else 0, _at(at)))

    def set_remote_commands(self, commands) -> None:
        """tutti_session_set_remote_commands: an iterable of RemoteCommand (or the bit mask)."""
        mask = commands if isinstance(commands, int) else sum(C.TUTTI_REMOTE_COMMAND_BIT(c) for c in set(commands))
        _check(lib.tutti_session_set_remote_commands(self.engine.ptr, self.id, _u32(mask, "commands")))

    def set_max_voices(self, max_voices: int, at: Optional[int] = None) -> None:
        """tutti_session_set_max_voices (0: no limit of its own)."""
        _check(lib.tutti_session_set_max_voices(self.engine.ptr, self.id, _u32(max_voices, "max_voices"), _at(at)))

    def set_gain(self, gain: float, ramp_frames: int = 0, at: Optional[int] = None) -> None:
        """tutti_session_set_gain: the session bus's gain (linear 0..16, over its sources'
        own), a step or a linear ramp over ``ramp_frames`` from ``at``."""
        _check(lib.tutti_session_set_gain(self.engine.ptr, self.id, float(gain), _u32(ramp_frames, "ramp_frames"), _at(at)))

    def resume(self, at: Optional[int] = None) -> None:
        """tutti_session_resume: a session made with Attribute.MANUAL_RESUME reactivates after
        an interruption ended and plays again what the interruption paused."""
        _check(lib.tutti_session_resume(self.engine.ptr, self.id, _at(at)))

    def set_effects(self, effects: Sequence[Effect], at: Optional[int] = None) -> None:
        """tutti_session_set_effects: replaces the effect chain on the session's bus at ``at``
        (empty: none). InvalidArgumentError names effects[i] and its field; nothing changes."""
        native = (_Effect * max(len(effects), 1))()
        for i, effect in enumerate(effects):
            native[i] = effect._native()
        _check(lib.tutti_session_set_effects(self.engine.ptr, self.id, native, len(effects), _at(at)))

    def set_host_effect(self, process: Optional[Callable[[np.ndarray], None]], at: Optional[int] = None) -> None:
        """tutti_bus_set_effect: ``process(samples)`` becomes the host effect on the session's
        bus from ``at`` on (None: remove it), after the bus's effect chain and before the
        session's gate, duck, gain and the volume. ``samples`` is a float32 ``(frames,
        channels)`` view of the bus's mix, to change in place (it is valid only during the
        call). The engine calls it on its render thread: a Python callback takes the GIL and
        allocates, so it is NOT real-time safe — fine for offline renders (``Engine.render``
        in pull mode), a source of dropouts behind a live output. The callback is kept alive
        until the engine lets go of it."""
        if process is None:
            _check(lib.tutti_bus_set_effect(self.engine.ptr, self.id, _EffectCallback(), _EffectRelease(), None, _at(at)))
            return

        callback, token = _keep_host_effect(process)
        result = lib.tutti_bus_set_effect(self.engine.ptr, self.id, callback, _release_host_effect, token, _at(at))
        if result != C.TUTTI_OK:
            del _host_effects[token]
        _check(result)

    def set_effect(self, index: int, effect: Effect, glide_frames: int = -1, at: Optional[int] = None) -> None:
        """tutti_session_set_effect: turns the biquad at ``index`` of the chain into ``effect``
        (another biquad), gliding over ``glide_frames`` (0: a step; negative: 10 ms)."""
        native = effect._native()
        _check(
            lib.tutti_session_set_effect(
                self.engine.ptr, self.id, _u32(index, "index"), ctypes.byref(native), _i64(glide_frames, "glide_frames"), _at(at)
            )
        )

    def status(self) -> SessionStatus:
        """tutti_session_get_state: state, silence_reason, other_audio_playing,
        silence_secondary_hint (NotFoundError once removed)."""
        state, reason, other, hint = (ctypes.c_int32() for _ in range(4))
        _check(lib.tutti_session_get_state(
            self.engine.ptr, self.id, ctypes.byref(state), ctypes.byref(reason), ctypes.byref(other), ctypes.byref(hint)))
        return SessionStatus(SessionState(state.value), SilenceReason(reason.value) if reason.value >= 0 else None,
                             bool(other.value), bool(hint.value))

    @property
    def media_role(self) -> Optional[str]:
        """tutti_session_get_media_role: the PipeWire media.role it plays with ("Music",
        "Game", ...: what ``media_role`` was last set to, else its category's role), None for a
        session without output (RECORD, AUDIO_PROCESSING). NotFoundError once removed."""
        length = ctypes.c_size_t()
        _check(lib.tutti_session_get_media_role(self.engine.ptr, self.id, None, 0, ctypes.byref(length)))
        buffer = ctypes.create_string_buffer(length.value + 1)
        _check(lib.tutti_session_get_media_role(self.engine.ptr, self.id, buffer, len(buffer), None))
        return buffer.value.decode("utf-8") or None

    @media_role.setter
    def media_role(self, role: Optional[str]) -> None:
        """tutti_session_set_media_role: one of PipeWire's names ("Movie", "Music", "Camera",
        "Screen", "Communication", "Game", "Notification", "DSP", "Production",
        "Accessibility", "Test"); None: back to its category's role. Streams opened afterwards
        announce it (main's stream takes its role when the output starts).
        InvalidArgumentError for another name, nothing changed."""
        _check(lib.tutti_session_set_media_role(self.engine.ptr, self.id, _name(role, "role")))

    def remove(self, at: Optional[int] = None) -> None:
        """tutti_session_destroy: the session and its sources at ``at``; their ids are stale at once."""
        _check(lib.tutti_session_destroy(self.engine.ptr, self.id, _at(at)))

    # -- sources --------------------------------------------------------------------------------

    def tone(self, frequency_hz: float, amplitude: float = 0.5) -> "Source":
        """tutti_source_create_tone: a sine on every channel (Hz below half the rate; linear
        peak 0..1). Stopped."""
        out = ctypes.c_uint64()
        _check(
            lib.tutti_source_create_tone(self.engine.ptr, self.id, float(frequency_hz), float(amplitude), ctypes.byref(out))
        )
        return Source(self, out.value, "tone")

    def silence(self) -> "Source":
        """tutti_source_create_silence: plays (takes part in the policy) and is not heard. Stopped."""
        out = ctypes.c_uint64()
        _check(lib.tutti_source_create_silence(self.engine.ptr, self.id, ctypes.byref(out)))
        return Source(self, out.value, "silence")

    def file(self, path, loop: bool = False, quality: ResamplerQuality = ResamplerQuality.DEFAULT) -> "Source":
        """tutti_source_create_file: any file libsndfile reads, 1 or 2 channels, converted to the
        engine's rate with ``quality`` (files over 10 s stream from disk). TuttiIOError /
        FormatError name the path."""
        out = ctypes.c_uint64()
        flags = _source_flags(loop, quality)
        _check(lib.tutti_source_create_file(self.engine.ptr, self.id, _name(path, "path"), flags, ctypes.byref(out)))
        return Source(self, out.value, "file")

    def buffer(
        self, samples, sample_rate: int, loop: bool = False, quality: ResamplerQuality = ResamplerQuality.DEFAULT
    ) -> "Source":
        """tutti_source_create_buffer: audio in memory (shape (frames,) mono or (frames,
        channels) with 1 or 2 channels, at ``sample_rate`` Hz), copied and converted to the
        engine's format now with ``quality``. Stopped."""
        array = np.ascontiguousarray(samples, dtype=np.float32)
        if array.ndim == 1:
            channels = 1
        elif array.ndim == 2 and array.shape[1] in (1, 2):
            channels = array.shape[1]
        else:
            raise InvalidArgumentError(
                C.TUTTI_ERROR_INVALID_ARGUMENT,
                f"Session.buffer: samples must have shape (frames,) or (frames, 1 or 2), got {array.shape}",
            )
        out = ctypes.c_uint64()
        _check(
            lib.tutti_source_create_buffer(
                self.engine.ptr,
                self.id,
                array.ctypes.data_as(ctypes.POINTER(ctypes.c_float)),
                _u32(array.shape[0], "frames"),
                _u32(sample_rate, "sample_rate"),
                channels,
                _source_flags(loop, quality),
                ctypes.byref(out),
            )
        )
        return Source(self, out.value, "buffer")

    def input(self, channels: int = 1, capacity_frames: int = 48000, record_capacity_frames: int = 0) -> "Input":
        """tutti_source_create_input: captured audio the host writes (``Input.write``, frames at
        the ENGINE's rate) or a device's capture feeds (``Engine.start_output(capture=...)``);
        it starts at gain 0 (not heard). ``record_capacity_frames`` > 0 adds a recording ring
        (``Input.read_recorded``). StateError unless the category is RECORD or PLAY_AND_RECORD."""
        out = ctypes.c_uint64()
        _check(
            lib.tutti_source_create_input(
                self.engine.ptr,
                self.id,
                _u32(channels, "channels"),
                _u32(capacity_frames, "capacity_frames"),
                _u32(record_capacity_frames, "record_capacity_frames"),
                ctypes.byref(out),
            )
        )
        return Input(self, out.value, int(channels), int(capacity_frames))

    def stream(self, sample_rate: int, channels: int = 1, capacity_frames: int = 48000) -> "Stream":
        """tutti_source_create_stream: a source fed by ``Stream.write`` at ``sample_rate`` Hz
        (bit-transparent at the engine's rate), 1 or 2 channels, up to ``capacity_frames`` waiting."""
        out = ctypes.c_uint64()
        _check(
            lib.tutti_source_create_stream(
                self.engine.ptr,
                self.id,
                _u32(sample_rate, "sample_rate"),
                _u32(channels, "channels"),
                _u32(capacity_frames, "capacity_frames"),
                ctypes.byref(out),
            )
        )
        return Stream(self, out.value, int(sample_rate), int(channels), int(capacity_frames))


# ---------------------------------------------------------------------------------------------
# Sources
# ---------------------------------------------------------------------------------------------


class Source:
    """A source (tone, file or stream) of a session; ``id`` is its tutti_source. Frames and
    positions are at the engine's rate; ``at=None`` is TUTTI_NOW."""

    def __init__(self, session: Session, source_id: int, kind: str):
        self.session = session
        self.engine = session.engine
        self.id = source_id
        self.kind = kind
        self.engine._sources[source_id] = self

    def __repr__(self) -> str:
        return f"<tutti.Source {self.kind} id={self.id:#x} of {self.session.name!r}>"

    def play(self, at: Optional[int] = None) -> None:
        """tutti_source_play (activates an inactive session first; may raise DeniedError)."""
        _check(lib.tutti_source_play(self.engine.ptr, self.id, _at(at)))

    def pause(self, at: Optional[int] = None) -> None:
        """tutti_source_pause."""
        _check(lib.tutti_source_pause(self.engine.ptr, self.id, _at(at)))

    def stop(self, at: Optional[int] = None) -> None:
        """tutti_source_stop: fades out, then rewinds."""
        _check(lib.tutti_source_stop(self.engine.ptr, self.id, _at(at)))

    def seek(self, position: int, at: Optional[int] = None) -> None:
        """tutti_source_seek to ``position`` frames (StateError for a stream)."""
        _check(lib.tutti_source_seek(self.engine.ptr, self.id, _i64(position, "position"), _at(at)))

    def crossfade(self, from_source: "Source", duration_frames: int, at: Optional[int] = None) -> None:
        """tutti_source_crossfade: an equal-power crossfade from ``from_source`` (a playing source
        of the same session) to this one over ``duration_frames``: this one plays and fades in
        along sin(pi*t/2), ``from_source`` fades out along cos(pi*t/2) and stops at the end."""
        if not isinstance(from_source, Source):
            raise InvalidArgumentError(C.TUTTI_ERROR_INVALID_ARGUMENT, f"from must be a Source, got {from_source!r}")
        _check(
            lib.tutti_source_crossfade(
                self.engine.ptr, self.id, from_source.id, _u32(duration_frames, "duration_frames"), _at(at)
            )
        )

    def set_gain(self, gain: float, ramp_frames: int = 0, at: Optional[int] = None) -> None:
        """tutti_source_set_gain: linear 0..16; a linear ramp over ``ramp_frames`` from ``at``."""
        _check(lib.tutti_source_set_gain(self.engine.ptr, self.id, float(gain), _u32(ramp_frames, "ramp_frames"), _at(at)))

    def set_pan(self, pan: float, ramp_frames: int = 0, at: Optional[int] = None) -> None:
        """tutti_source_set_pan: -1 (left) .. +1 (right)."""
        _check(lib.tutti_source_set_pan(self.engine.ptr, self.id, float(pan), _u32(ramp_frames, "ramp_frames"), _at(at)))

    def set_priority(self, priority: int, at: Optional[int] = None) -> None:
        """tutti_source_set_priority: 0..255 (default 128)."""
        _check(lib.tutti_source_set_priority(self.engine.ptr, self.id, _u32(priority, "priority"), _at(at)))

    def set_fades(self, fade_in_frames: Optional[int] = None, fade_out_frames: Optional[int] = None) -> None:
        """tutti_source_set_fades (None: TUTTI_FADE_DEFAULT)."""
        fin = C.TUTTI_FADE_DEFAULT if fade_in_frames is None else _u32(fade_in_frames, "fade_in_frames")
        fout = C.TUTTI_FADE_DEFAULT if fade_out_frames is None else _u32(fade_out_frames, "fade_out_frames")
        _check(lib.tutti_source_set_fades(self.engine.ptr, self.id, fin, fout))

    def remove(self, at: Optional[int] = None) -> None:
        """tutti_source_destroy: fades out if playing; the id is stale at once (no SOURCE_ENDED)."""
        _check(lib.tutti_source_destroy(self.engine.ptr, self.id, _at(at)))

    def set_loop(
        self, loop: bool = True, start_frame: int = 0, end_frame: Optional[int] = None, count: Optional[int] = None,
        at: Optional[int] = None,
    ) -> None:
        """tutti_source_set_loop: loops ``start_frame ..< end_frame`` (None: to the source's end)
        sample-exactly, ``count`` wraps (None: endless), then plays on to the end (buffer and
        file sources; a streaming file loops whole only)."""
        end = -1 if end_frame is None else _i64(end_frame, "end_frame")
        wraps = -1 if count is None else _int(count, -(1 << 31), (1 << 31) - 1, "count")
        _check(lib.tutti_source_set_loop(self.engine.ptr, self.id, 1 if loop else 0, _i64(start_frame, "start_frame"), end, wraps, _at(at)))

    def set_rate(self, rate: float, ramp_frames: Optional[int] = None, at: Optional[int] = None) -> None:
        """tutti_source_set_rate: playback rate 0.25..4 (source frames per output frame; pitch
        follows), gliding linearly over ``ramp_frames`` (None: TUTTI_RAMP_DEFAULT, the source
        gain ramp time; 0: a step). Position and length stay in source frames. Buffer sources
        only (StateError for a file that streams)."""
        ramp = C.TUTTI_RAMP_DEFAULT if ramp_frames is None else _u32(ramp_frames, "ramp_frames")
        _check(lib.tutti_source_set_rate(self.engine.ptr, self.id, float(rate), ramp, _at(at)))

    def set_output_bus(self, bus: str, at: Optional[int] = None) -> None:
        """tutti_source_set_output_bus: the output bus (a name of ``Engine.output_buses``) it
        plays to from ``at`` on (a step: set it before playing). StateError for a bus other
        than "main" unless its session's category is MULTI_ROUTE."""
        _check(lib.tutti_source_set_output_bus(self.engine.ptr, self.id, _name(bus, "bus"), _at(at)))

    @property
    def output_bus(self) -> str:
        """tutti_source_get_output_bus: the output bus it plays to ("main" by default)."""
        return self._bus_name(lib.tutti_source_get_output_bus)

    def set_route(self, route: str, at: Optional[int] = None) -> None:
        """Deprecated: ``set_output_bus`` (through the deprecated C name, tutti_source_set_route)."""
        _deprecated("Source.set_route", "Source.set_output_bus")
        _check(lib.tutti_source_set_route(self.engine.ptr, self.id, _name(route, "route"), _at(at)))

    @property
    def route(self) -> str:
        """Deprecated: ``output_bus`` (through the deprecated C name, tutti_source_get_route)."""
        _deprecated("Source.route", "Source.output_bus")
        return self._bus_name(lib.tutti_source_get_route)

    def _bus_name(self, function) -> str:
        length = ctypes.c_size_t()
        _check(function(self.engine.ptr, self.id, None, 0, ctypes.byref(length)))
        buffer = ctypes.create_string_buffer(length.value + 1)
        _check(function(self.engine.ptr, self.id, buffer, len(buffer), None))
        return buffer.value.decode("utf-8")

    def status(self) -> SourceStatus:
        """tutti_source_get_status: state, position, underrun_frames (no lock taken)."""
        state, position, underrun = ctypes.c_int32(), ctypes.c_int64(), ctypes.c_uint64()
        _check(
            lib.tutti_source_get_status(
                self.engine.ptr, self.id, ctypes.byref(state), ctypes.byref(position), ctypes.byref(underrun)
            )
        )
        return SourceStatus(SourceState(state.value), position.value, underrun.value)

    @property
    def state(self) -> SourceState:
        """status().state."""
        return self.status().state

    @property
    def position(self) -> int:
        """status().position (frames since the last rewind, engine rate)."""
        return self.status().position

    def info(self) -> SourceInfo:
        """tutti_source_get_info (takes the engine's lock: not from a real-time thread)."""
        info = init_struct(_SourceInfo, lib.tutti_source_info_init_size)
        _check(lib.tutti_source_get_info(self.engine.ptr, self.id, ctypes.byref(info)))
        return SourceInfo(
            SourceState(info.state), info.position, info.length, info.underrun_frames, info.gain, info.rate,
            info.pan if info.panned else None,
        )


class Stream(Source):
    """A stream source: the host writes frames at ``sample_rate`` with ``channels``."""

    def __init__(self, session: Session, source_id: int, sample_rate: int, channels: int, capacity_frames: int):
        super().__init__(session, source_id, "stream")
        self.sample_rate = sample_rate
        self.channels = channels
        self.capacity_frames = capacity_frames

    def write(self, samples) -> int:
        """tutti_stream_write: appends ``samples`` (shape (frames,) for a mono stream or
        (frames, channels); float32 C-contiguous arrays pass without a copy, anything else is
        converted) and returns how many frames were taken (fewer when the ring is full: write
        the rest later). StateError after ``end()``."""
        return _write(self, samples)

    def end(self) -> None:
        """tutti_stream_end: every frame written is heard, then SOURCE_ENDED; later writes raise
        StateError."""
        _check(lib.tutti_stream_end(self.engine.ptr, self.id))


class Input(Source):
    """An input source: captured frames at the engine's rate with ``channels``, written by the
    host (``write``) or fed by a device's capture; with a recording ring, ``read_recorded``."""

    def __init__(self, session: Session, source_id: int, channels: int, capacity_frames: int):
        super().__init__(session, source_id, "input")
        self.channels = channels
        self.capacity_frames = capacity_frames

    def write(self, samples) -> int:
        """tutti_stream_write: captured frames (shape (frames,) mono or (frames, channels)) at
        the engine's rate; returns how many were taken. Real-time safe in the library."""
        return _write(self, samples)

    def read_recorded(self, max_frames: int = 48000) -> np.ndarray:
        """tutti_input_read_recorded: up to ``max_frames`` recorded frames, shape (n, channels)
        (n 0 when nothing waits); frame k is engine frame ``recording().start_frame`` + k of
        all read so far. InvalidArgumentError without a recording ring. Not from the real-time
        thread."""
        out = np.empty((_u32(max_frames, "max_frames"), self.channels), dtype=np.float32)
        got = ctypes.c_uint32()
        _check(
            lib.tutti_input_read_recorded(
                self.engine.ptr, self.id, out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), max_frames, ctypes.byref(got)
            )
        )
        return out[: got.value]

    def recording(self) -> Recording:
        """tutti_input_get_recording: the recording's start frame and dropped frames."""
        start, dropped = ctypes.c_int64(), ctypes.c_uint64()
        _check(lib.tutti_input_get_recording(self.engine.ptr, self.id, ctypes.byref(start), ctypes.byref(dropped)))
        return Recording(start.value, dropped.value)


def _write(source, samples) -> int:
    """tutti_stream_write of ``samples`` to a Stream or an Input (``source.channels``)."""
    name = type(source).__name__
    array = np.ascontiguousarray(samples, dtype=np.float32)
    if (array.ndim == 1 and source.channels == 1) or (array.ndim == 2 and array.shape[1] == source.channels):
        frames = array.shape[0]
    else:
        wanted = "(frames,) or (frames, 1)" if source.channels == 1 else f"(frames, {source.channels})"
        raise InvalidArgumentError(
            C.TUTTI_ERROR_INVALID_ARGUMENT,
            f"{name}.write: samples must have shape {wanted} for this {source.channels}-channel "
            f"{name.lower()}, got {array.shape}",
        )
    frames = _u32(frames, f"{name}.write: frames")
    written = ctypes.c_uint32()
    _check(
        lib.tutti_stream_write(
            source.engine.ptr, source.id, array.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), frames, ctypes.byref(written)
        )
    )
    return written.value
